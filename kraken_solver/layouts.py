"""The layouts of the unseen cards consistent with what one seat knows (count, enumerate, sample).

The player to move, the *observer*, knows their own hand as dealt, every card played so far and
who played it, and the hand roem declared before play (RULES.md rule 17: HR_D for the playing
team, HR_O for the defenders).  A *layout* gives the unseen cards to the other three seats, each
the number of cards it still holds; here a layout is written as the four hands *as dealt*
(what a seat holds now plus what it played), a tuple of four 32-bit card masks N, E, S, W.
A layout is *consistent* when, with those hands as dealt, every card played so far was legal
(rules 8, 9, 9a, under the deal's rules) and the hand roem (rules 12-17) equals the declared one.
``kraken-advise`` uses the same machinery before any card is played, with cards known to be in
a seat's hand (``known``) instead of plays, and no declared roem.

What the plays say (:class:`Observation`)
    A card ``c`` played by a seat to a trick is legal for a hand ``H`` exactly when it is legal
    for every two-card hand ``{c, x}``, ``x`` in ``H`` (each of rules 8, 9, 9a forbids ``c``
    because of one other card held: a card of the suit led, a higher trump, a trump, a card
    that is not a lower trump; ``tests/test_layouts.py`` checks this against the reference
    rules of ``tests/naive.py``).  So every play of another seat says "this seat held none of
    the cards F" (F: the ``x`` for which ``c`` is not legal beside ``x``, found with the
    solver's own ``legal_mask``), at that moment, and so also now.  A card the seat played
    later was in its hand then: if it is in F, no layout makes the play legal
    (:class:`ObservationError`).  Each seat ``s`` therefore may hold only ``allowed[s]`` of
    the unseen cards, and the consistent layouts before the roem test are exactly the ways to
    deal the unseen cards with each seat getting ``need[s]`` cards of its ``allowed[s]``.

Counting (:meth:`Layouts.count_plays`)
    The unseen cards fall into at most seven *types* by the set of seats that may hold them;
    the number of layouts is a sum over how many cards of each type each seat gets of products
    of multinomial coefficients, computed exactly (Python integers) by a small dynamic program
    over the types.  With hand roem on, the declared roem is a further test of each layout;
    :meth:`Layouts.count` enumerates to apply it (at most :data:`ENUM_CAP` layouts).

Sampling (:meth:`Layouts.draws`, :meth:`Layouts.sample`)
    A draw is constructed, not rejected: for each type in turn, how many of its cards each seat
    gets is drawn with probability proportional to the number of layouts that choice leaves
    (the counting program's suffix counts), then which cards, by a uniform permutation of the
    type's cards cut in seat order.  Every layout the plays allow is equally likely.  The
    declared roem is then checked and a draw that fails it is rejected (uniform over the
    consistent layouts; in random deals most draws pass: ``(0, 0)`` declared means no meld in
    any hand).  Draw ``i`` comes from ``numpy.random.default_rng`` seeded with child
    ``i // 64`` of ``SeedSequence(seed)``, as the ``i % 64``-th draw of that generator (the
    scheme of :mod:`kraken_solver.batch`), and the draws are made in the calling process: a
    sample never depends on the number of workers or on a cluster.  With every unseen card
    allowed to every seat that needs cards (no plays: ``kraken-advise``), a draw is one
    ``rng.permutation`` of the unseen cards (ascending) cut in seat order N, E, S, W: the
    stream ``kraken-advise`` has always drawn.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from . import _kernels as K
from .batch import GEN_BLOCK
from .cards import (FULL_DECK, SEATS, SUIT_MASK, SUITS, card_power, card_str, cards_of,
                    is_int, popcount, sort_for_display)
from .deal import Deal, parse_pbn, pbn_hand_mask, pbn_words
from .errors import CardParseError, DealError, IllegalCardError, KrakenError, short_token
from .roem import player_melds
from .rules import Rules, as_rules

__all__ = ["ObservationError", "DeclaredRoemError", "PartialDeal", "parse_partial_pbn",
           "as_partial", "Observation", "Layouts", "declared_roem", "ENUM_CAP", "MAX_DRAWS",
           "HIDDEN"]

#: the word that stands for a hidden hand in PBN deal text (as endplay writes it)
HIDDEN = "-"
#: the most layouts :meth:`Layouts.count` and :meth:`Layouts.enumerate` go through to apply the
#: declared roem (about 3 us a layout: a few seconds); the layouts the plays allow are counted
#: exactly however many they are
ENUM_CAP = 1_000_000
#: the most draws :meth:`Layouts.sample` makes to find its consistent layouts before it gives
#: up on a declared roem too rare among the layouts the plays allow
MAX_DRAWS = 1_000_000
#: draws after which a sampler gives up on a declared roem that none of them gave, or that
#: is so rare that the sample would take more than :data:`MAX_DRAWS` draws (about a second)
GIVE_UP_AFTER = 20_000


class ObservationError(KrakenError):
    """What a seat is said to have seen cannot happen: no layout of the unseen cards makes
    the plays legal, the hand sizes cannot add up, or no layout gives the declared hand roem."""


class DeclaredRoemError(ObservationError):
    """The declared hand roem (rule 17) cannot be: no layout gives it, it is too rare to
    sample, or the hands given declare another (a deal file's error points at its
    ``[Declared]`` tag)."""


# ----------------------------------------------------------------------------- deals
@dataclass(frozen=True)
class PartialDeal:
    """A deal whose hands may be hidden: ``hands`` four card masks N, E, S, W, ``None`` for a
    hidden hand; ``size`` cards a hand (1..8).  ``str()`` writes PBN from N with ``-`` for a
    hidden hand.  Build it with :func:`parse_partial_pbn`."""

    hands: tuple
    size: int

    @property
    def hidden(self) -> tuple:
        """The seats 0..3 whose hands are hidden."""
        return tuple(s for s in range(4) if self.hands[s] is None)

    @property
    def complete(self) -> bool:
        return not self.hidden

    def deal(self) -> Deal:
        """The :class:`Deal`, when no hand is hidden.  Raises DealError otherwise."""
        if self.hidden:
            raise DealError("the deal has hidden hands", token=str(self))
        return Deal(tuple(self.hands))

    def pbn(self, start_seat: int = 0) -> str:
        from .cards import hand_text
        return SEATS[start_seat] + ":" + " ".join(
            HIDDEN if self.hands[(start_seat + i) % 4] is None
            else hand_text(self.hands[(start_seat + i) % 4]) for i in range(4))

    def __str__(self) -> str:
        return self.pbn(0)


def parse_partial_pbn(text: str):
    """PBN deal text in which a hand may be ``-`` (hidden) -> ``(deal, seat named before the
    colon)``: a :class:`Deal` when every hand is given, else a :class:`PartialDeal`.

    Given hands hold the same number of cards (1 to 8) and no card twice.  Raises DealError
    (``column`` 1-based within ``text``, ``token``)."""
    if not isinstance(text, str):
        raise DealError("expected PBN deal text like 'N:AKQ.J9.T8.7 - - -'", token=repr(text))
    words = text.split()
    if not any(w == HIDDEN for w in words[1:]) and not (words and words[0].endswith(":" + HIDDEN)):
        return parse_pbn(text)
    lead, start, body, spans = pbn_words(text)
    if len(spans) != 4:
        raise DealError(f"a PBN deal has four hands separated by spaces (- for a hidden hand); "
                        f"found {len(spans)}", column=lead + 1, token=body[2:])
    hands = [None] * 4
    seen = 0
    size = None
    for k, (off, word) in enumerate(spans):
        seat = (start + k) % 4
        if word == HIDDEN:
            continue
        mask = pbn_hand_mask(word, lead + 1 + off, whose=f"{SEATS[seat]}'s hand")
        if seen & mask:
            c = cards_of(seen & mask)[0]
            raise DealError(f"card {card_str(c)} is dealt twice", column=lead + 1 + off,
                            token=card_str(c))
        seen |= mask
        n_cards = popcount(mask)
        if not 1 <= n_cards <= 8:
            raise DealError(f"{SEATS[seat]} holds {n_cards} cards; a hand holds 1 to 8",
                            column=lead + 1 + off, token=word)
        if size is not None and n_cards != size:
            raise DealError(f"hands of unequal size ({n_cards} and {size} cards); every hand "
                            "holds the same number", column=lead + 1 + off, token=word)
        size = n_cards
        hands[seat] = mask
    if size is None:
        raise DealError("every hand is hidden; give at least the hand of the player to move",
                        column=lead + 1, token=body)
    return PartialDeal(tuple(hands), size), start


def as_partial(deal) -> PartialDeal:
    """A :class:`PartialDeal` from a PartialDeal, a :class:`Deal` or PBN text (``-`` for a
    hidden hand).  Raises DealError."""
    if isinstance(deal, PartialDeal):
        return deal
    if isinstance(deal, Deal):
        return PartialDeal(tuple(deal.hands), deal.size)
    d, _ = parse_partial_pbn(deal)
    return d if isinstance(d, PartialDeal) else PartialDeal(tuple(d.hands), d.size)


# ----------------------------------------------------------------------------- hand roem
def _suit_runs(byte: int, suit: int, long_runs_100: bool) -> tuple:
    """The runs (rule 12) of one suit's cards (natural-rank bits of ``byte``) as melds of
    :func:`kraken_solver.roem.player_melds`: (value, top rank, 0, suit order)."""
    out, r = [], 0
    while r < 8:
        if byte >> r & 1:
            start = r
            while r < 8 and byte >> r & 1:
                r += 1
            n = r - start
            if n >= 3:
                value = 20 if n == 3 else 100 if (long_runs_100 and n >= 5) else 50
                out.append((value, r - 1, 0, 3 - suit))
        else:
            r += 1
    return tuple(out)


#: [long_runs_100][suit][byte] -> the suit's runs
_RUNS = [[[_suit_runs(b, s, bool(lr)) for b in range(256)] for s in range(4)]
         for lr in (0, 1)]


@functools.lru_cache(maxsize=1 << 16)
def _hand_summary(mask: int, long_runs_100: bool, trump: int):
    """(best meld or None, melds' total, holds stuk) of one hand as dealt (rules 12-16):
    the melds of :func:`kraken_solver.roem.player_melds` (read from a table of each suit's
    runs when the hand holds no four of a kind, the common case)."""
    if mask & (mask >> 8) & (mask >> 16) & (mask >> 24) & 0xFF:
        melds = player_melds(mask, long_runs_100)
    else:
        table = _RUNS[long_runs_100]
        melds = table[0][mask & 0xFF] + table[1][mask >> 8 & 0xFF] + \
            table[2][mask >> 16 & 0xFF] + table[3][mask >> 24 & 0xFF]
    kq = (1 << (8 * trump + 5)) | (1 << (8 * trump + 6))
    return (max(melds) if melds else None, sum(m[0] for m in melds), mask & kq == kq)


def declared_roem(hands, trump: int, first: int, rules: Rules) -> tuple[int, int]:
    """The hand roem (HR_D, HR_O) in points that four hands as dealt declare (rules 12-17):
    :func:`kraken_solver.roem.hand_roem_masks`, with each hand's melds remembered (a layout
    search meets the same hands many times)."""
    if not rules.hand_roem:
        return 0, 0
    s = [_hand_summary(int(h), rules.long_runs_100, trump) for h in hands]
    best_seat, best = None, None
    for seat in range(4):
        b = s[seat][0]
        if b is not None and (best is None or b > best):
            best_seat, best = seat, b
    scores = [0, 0]
    if best_seat is not None:
        team = best_seat & 1
        scores[team] += s[team][1] + s[team + 2][1]
    for seat in range(4):
        if s[seat][2]:
            scores[seat & 1] += 20
    d = first & 1
    return scores[d], scores[1 - d]


# ----------------------------------------------------------------------------- observation
def trick_winner_index(cards, trump: int) -> int:
    """Index in ``cards`` (a trick in play order, card indices) of the card winning it
    (RULES.md rule 7): the highest trump, else the highest card of the suit led."""
    led = cards[0] >> 3
    best, top = 0, None
    for i, c in enumerate(cards):
        s = c >> 3
        key = (2, card_power(c, trump)) if s == trump else \
            (1, card_power(c, trump)) if s == led else (0, 0)
        if top is None or key > top:
            best, top = i, key
    return best


@dataclass(frozen=True)
class Inference:
    """What one play of another seat says: ``seat`` held none of ``cards`` (a mask) when it
    played its card ``number`` (1-based in the play) ``card``; ``text`` says it in words."""

    seat: int
    number: int
    card: int
    cards: int
    text: str


def _describe(mask: int, avail: int, trump: int) -> str:
    """``mask`` (cards a seat cannot hold) in words: ``no ♠`` for the whole of a suit's cards
    in ``avail``, else the cards, by suit."""
    parts = []
    for s in range(4):
        m = mask & SUIT_MASK[s]
        if not m:
            continue
        if m == avail & SUIT_MASK[s]:
            parts.append(f"no {SUITS[s]}" + (" (trump)" if s == trump else ""))
        else:
            parts.append("none of " + " ".join(card_str(c) for c in
                                               sort_for_display(cards_of(m), trump)))
    return ", ".join(parts)


class Observation:
    """What the observer knows, checked: the play replayed without the hidden hands.

    ``seat``: the observer 0..3 (with ``played``, the player to move after it); ``hand``: the
    observer's hand as dealt (mask); ``size``: cards a hand as dealt (1..8); ``cards``: every
    card of the deal (a mask; 32 cards for a full deal); ``trump`` 0..3 (``None`` only with no
    card played and no declared roem: ``kraken-advise`` choosing trump); ``first`` the first
    player; ``rules``; ``played``: card indices in play order; ``declared``: (HR_D, HR_O) in
    points, or ``None`` for no roem test; ``known``: four masks of cards known to be in a seat's
    hand as dealt (besides the cards it played).

    Derived: ``who`` (the seat of every played card), ``fixed`` (per seat: the cards known to
    be in its hand as dealt: the observer's hand, the cards others played and ``known``),
    ``need`` (per seat: the unseen cards it holds), ``unseen`` (mask), ``allowed`` (per seat:
    the unseen cards it may hold), ``inferences`` (:class:`Inference`, per play of another
    seat that rules cards out).

    Raises IllegalCardError (``column`` = the card's 1-based index in ``played``) for an
    observer's card that was not in their hand or not legal, ObservationError for a play no
    layout makes legal, sizes that cannot add up, or a card played twice or not in the deal."""

    def __init__(self, *, seat: int, hand: int, size: int, cards: int = FULL_DECK,
                 trump: int | None, first: int, rules: Rules, played=(), declared=None,
                 known=(0, 0, 0, 0)):
        self.seat = int(seat)
        self.hand = int(hand)
        self.size = int(size)
        self.cards = int(cards)
        self.trump = trump
        self.first = int(first)
        self.rules = as_rules(rules)
        self.played = tuple(int(c) for c in played)
        self.declared = None if declared is None else (int(declared[0]), int(declared[1]))
        self.known = tuple(int(k) for k in known)
        if popcount(self.cards) != 4 * self.size:
            raise ObservationError(f"the deal holds {popcount(self.cards)} cards, not 4 x "
                                   f"{self.size}")
        if popcount(self.hand) != self.size or self.hand & ~self.cards:
            raise ObservationError(f"{SEATS[self.seat]}'s hand must hold {self.size} of the "
                                   "deal's cards")
        if self.trump is None and (self.played or self.declared is not None):
            raise KrakenError("a trump suit is needed to follow the play or the hand roem")
        if len(self.played) >= 4 * self.size:
            raise ObservationError(f"the deal is over ({len(self.played)} cards played): no "
                                   "card is left to play")
        self.who = self._seats_of_play()
        self.fixed, self.need, self.unseen = self._sizes()
        self.inferences = self._inferences()
        self.allowed = self._allowed()

    # -- who played what
    def _seats_of_play(self) -> list[int]:
        who, leader, trick, seen = [], self.first, [], 0
        for i, c in enumerate(self.played):
            name = card_str(c)
            if not self.cards >> c & 1:
                raise ObservationError(f"{name} is not in this deal", column=i + 1, token=name)
            if seen >> c & 1:
                raise ObservationError(f"{name} was already played", column=i + 1, token=name)
            seen |= 1 << c
            seat = (leader + len(trick)) % 4
            if seat == self.seat and not self.hand >> c & 1:
                raise IllegalCardError(f"{SEATS[seat]} played {name}, which is not in "
                                       f"{SEATS[seat]}'s hand", column=i + 1, token=name)
            if seat != self.seat and self.hand >> c & 1:
                raise ObservationError(f"{SEATS[seat]} played {name}, which is in "
                                       f"{SEATS[self.seat]}'s hand", column=i + 1, token=name)
            who.append(seat)
            trick.append(c)
            if len(trick) == 4:
                leader = (leader + trick_winner_index(trick, self.trump)) % 4
                trick = []
        self.to_move = (leader + len(trick)) % 4
        if self.played and self.to_move != self.seat:
            raise KrakenError(f"after the play it is {SEATS[self.to_move]}'s turn, not "
                              f"{SEATS[self.seat]}'s")
        return who

    def _sizes(self):
        fixed = list(self.known)
        fixed[self.seat] = self.hand
        for c, s in zip(self.played, self.who):
            if s != self.seat:
                fixed[s] |= 1 << c
        taken = 0
        for s in range(4):
            if fixed[s] & taken:
                c = cards_of(fixed[s] & taken)[0]
                raise ObservationError(f"{card_str(c)} cannot be in two hands", token=card_str(c))
            taken |= fixed[s]
        need = [self.size - popcount(f) for f in fixed]
        for s in range(4):
            if need[s] < 0:
                raise ObservationError(
                    f"{SEATS[s]} would hold {popcount(fixed[s])} cards (played and known); a "
                    f"hand holds {self.size}: the hand sizes cannot add up")
        unseen = self.cards & ~taken
        if popcount(unseen) != sum(need):     # pragma: no cover - follows from the above
            raise ObservationError("the hand sizes cannot add up")
        return tuple(fixed), tuple(need), unseen

    # -- what the plays say
    def _inferences(self) -> list[Inference]:
        if not self.played:
            return []
        pts, pw, higher = K.card_tables(self.trump, bool(self.rules.double_spades))
        amsterdam = self.rules.trump_rule == "amsterdam"
        forced = self.rules.undertrump == "forced"
        trick = np.zeros(4, dtype=np.int64)
        tlen, leader, gone = 0, self.first, 0
        own = self.hand
        out = []
        later = [0, 0, 0, 0]            # the cards each seat plays from card i on
        for c, s in zip(self.played, self.who):
            later[s] |= 1 << c
        for i, (c, s) in enumerate(zip(self.played, self.who)):
            name = card_str(c)
            later[s] &= ~(1 << c)
            if s == self.seat:
                legal = int(K.legal_mask(own, trick, tlen, leader, self.trump, amsterdam, forced,
                                         pw, higher))
                if not legal >> c & 1:
                    allowed = " ".join(card_str(x) for x in
                                       sort_for_display(cards_of(legal), self.trump))
                    raise IllegalCardError(f"{SEATS[s]} may not play {name} here (legal: "
                                           f"{allowed}; rules {self.rules.name})",
                                           column=i + 1, token=name)
                own &= ~(1 << c)
            else:
                bad = 0
                for x in cards_of(self.cards & ~(1 << c) & ~gone):
                    pair = (1 << c) | (1 << x)
                    if not int(K.legal_mask(pair, trick, tlen, leader, self.trump, amsterdam,
                                            forced, pw, higher)) >> c & 1:
                        bad |= 1 << x
                if bad:
                    clash = bad & (later[s] | self.known[s])
                    if clash:
                        y = cards_of(clash)[0]
                        when = (f"played at card {self.played.index(y) + 1}"
                                if later[s] >> y & 1 else "known to be in its hand")
                        raise ObservationError(
                            f"no layout makes {SEATS[s]}'s {name} (card {i + 1}) legal: "
                            f"{SEATS[s]} still held {card_str(y)} ({when}), beside which "
                            f"{name} may not be played (rules {self.rules.name})",
                            column=i + 1, token=name)
                    avail = self.cards & ~gone & ~(1 << c)
                    out.append(Inference(s, i + 1, c, bad, _describe(bad, avail, self.trump)))
            gone |= 1 << c
            trick[tlen] = c
            tlen += 1
            if tlen == 4:
                leader = (leader + trick_winner_index([int(t) for t in trick], self.trump)) % 4
                tlen = 0
                trick[:] = 0
        return out

    def _allowed(self) -> tuple:
        allowed = []
        for s in range(4):
            if s == self.seat or self.need[s] == 0:
                allowed.append(0)
                continue
            m = self.unseen
            for inf in self.inferences:
                if inf.seat == s:
                    m &= ~inf.cards
            allowed.append(m)
        return tuple(allowed)

    def reasons(self, seat: int) -> list[str]:
        """What the plays say about ``seat``'s hand, in words, one item a play that rules
        cards out: ``"card 5 (♥7): no S"``."""
        return [f"card {inf.number} ({card_str(inf.card)}): {inf.text}"
                for inf in self.inferences if inf.seat == seat]

    @property
    def roem_test(self) -> bool:
        """Whether the declared hand roem is a test of the layouts (hand roem on)."""
        return self.declared is not None and bool(self.rules.hand_roem)


def _multinomial(n: int, parts) -> int:
    out, left = 1, n
    for k in parts:
        out *= math.comb(left, k)
        left -= k
    return out


def _compositions(m: int, caps):
    """Every way to split ``m`` cards among len(caps) seats, seat ``j`` at most caps[j]: none
    for cards that no seat may hold (no caps), one (the empty split) for no cards."""
    if not caps:
        if m == 0:
            yield ()
        return
    for k in range(min(m, caps[0]) + 1):
        for rest in _compositions(m - k, caps[1:]):
            yield (k,) + rest


def block_rng(seed, block: int) -> np.random.Generator:
    """The generator of draws ``64 * block`` .. ``64 * block + 63``: ``default_rng`` of child
    ``block`` of ``SeedSequence(seed)`` (an int >= 0, or a SeedSequence whose children are
    taken)."""
    if isinstance(seed, np.random.SeedSequence):
        ss = np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + (block,))
    else:
        ss = np.random.SeedSequence(int(seed), spawn_key=(block,))
    return np.random.default_rng(ss)


def check_seed(seed):
    """``seed`` if it is a whole number >= 0 (or a SeedSequence).  Raises KrakenError."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if not is_int(seed) or seed < 0:
        raise KrakenError("the seed must be a whole number >= 0", token=repr(seed))
    return int(seed)


class Layouts:
    """The layouts consistent with an :class:`Observation` (module docstring).

    A layout is a tuple of the four hands as dealt (32-bit masks N, E, S, W).  Methods:
    :meth:`count_plays` (exact count before the roem test), :meth:`count` and
    :meth:`enumerate` (the consistent ones, in a fixed order), :meth:`draws` (draws ``start ..
    stop-1`` of the seeded stream, roem not tested), :meth:`stream` (the consistent draws in
    order), :meth:`sample`, :meth:`is_consistent`.  Raises ObservationError at construction
    when no layout makes the plays legal (saying which seat cannot hold what)."""

    def __init__(self, obs: Observation):
        self.obs = obs
        self.seats = tuple(s for s in range(4) if obs.need[s] > 0)
        groups: dict = {}
        for c in cards_of(obs.unseen):
            key = tuple(s for s in self.seats if obs.allowed[s] >> c & 1)
            groups.setdefault(key, []).append(c)
        # a fixed order: by the seats that may hold the cards
        self.types = [(key, np.array(cs, dtype=np.int64)) for key, cs in sorted(groups.items())]
        self._type_lists = [cs.tolist() for _, cs in self.types]
        self._opts: dict = {}
        self._check_feasible()

    # -- counting
    def _count_from(self, t: int, needs: tuple) -> int:
        """Layouts of the types ``t..`` with ``needs`` (per seat 0..3) still to fill."""
        if t == len(self.types):
            return 1 if not any(needs) else 0
        return self._options(t, needs)[2]

    def count_plays(self) -> int:
        """The exact number of layouts that make every play legal (and hold the known cards),
        before the declared roem is tested."""
        return self._count_from(0, tuple(self.obs.need))

    def _check_feasible(self) -> None:
        if self.count_plays():
            return
        obs = self.obs
        # Hall's condition fails for some set of seats (or a card no seat may hold)
        seats = self.seats
        for r in range(1, len(seats) + 1):
            from itertools import combinations
            for group in combinations(seats, r):
                room = 0
                for s in group:
                    room |= obs.allowed[s]
                want = sum(obs.need[s] for s in group)
                if popcount(room) < want:
                    names = " and ".join(SEATS[s] for s in group)
                    why = "; ".join(f"{SEATS[s]}: " + ("; ".join(obs.reasons(s)) or
                                                       "no restriction") for s in group)
                    if r == len(seats):
                        lost = obs.unseen & ~room
                        raise ObservationError(
                            f"no layout is consistent with the play: no seat can hold "
                            f"{' '.join(card_str(c) for c in cards_of(lost))} ({why})")
                    raise ObservationError(
                        f"no layout is consistent with the play: {names} must still hold "
                        f"{want} unseen card{'s' if want != 1 else ''} but the play leaves "
                        f"{'it' if r == 1 else 'them'} only {popcount(room)} ({why})")
        raise ObservationError("no layout is consistent with the play")  # pragma: no cover

    def count(self) -> int:
        """The exact number of consistent layouts (the roem test included).  Raises
        KrakenError when the roem must be tested on more than :data:`ENUM_CAP` layouts."""
        if not self.obs.roem_test:
            return self.count_plays()
        if self.count_plays() > ENUM_CAP:
            raise KrakenError(f"too many layouts to count with the declared roem: "
                              f"{self.count_plays():,} (at most {ENUM_CAP:,})")
        return sum(1 for _ in self.enumerate())

    def is_consistent(self, hands) -> bool:
        """Whether ``hands`` (four masks as dealt) is a consistent layout: the observer's hand,
        every seat's played and known cards and the right number of cards, only allowed
        unseen cards, and the declared roem."""
        obs = self.obs
        if sum(int(h) for h in hands) != obs.cards or any(
                popcount(int(h)) != obs.size for h in hands):
            return False
        for s in range(4):
            h = int(hands[s])
            if h & obs.fixed[s] != obs.fixed[s]:
                return False
            if s != obs.seat and h & ~obs.fixed[s] & ~obs.allowed[s]:
                return False
        return self.roem_ok(hands)

    def roem_ok(self, hands) -> bool:
        """Whether ``hands`` (four masks as dealt) declare the declared hand roem (always
        True without a roem test)."""
        obs = self.obs
        if not obs.roem_test:
            return True
        return declared_roem(hands, obs.trump, obs.first, obs.rules) == obs.declared

    # -- enumerating
    def enumerate(self):
        """Every consistent layout once, in a fixed order (lexicographic in the cards of the
        seats that hold unseen cards, N E S W).  Generator of tuples of four masks."""
        obs = self.obs
        seats = self.seats
        fixed = obs.fixed
        allowed = obs.allowed
        need = obs.need

        def rec(i, rest, hands):
            s = seats[i]
            if i == len(seats) - 1:
                hands[s] = fixed[s] | rest
                yield tuple(hands)
                return
            others = 0
            for t in seats[i + 1:]:
                others |= allowed[t]
            must = rest & ~others
            if popcount(must) > need[s] or must & ~allowed[s]:
                return
            free = cards_of(rest & allowed[s] & ~must)
            from itertools import combinations
            for combo in combinations(free, need[s] - popcount(must)):
                mine = must
                for c in combo:
                    mine |= 1 << c
                hands[s] = fixed[s] | mine
                yield from rec(i + 1, rest & ~mine, hands)

        base = list(fixed)
        if not seats:                  # pragma: no cover - the deal is over
            return
        for hands in rec(0, obs.unseen, base):
            if self.roem_ok(hands):
                yield hands

    # -- drawing
    def _options(self, t: int, needs: tuple):
        """The ways type ``t`` can be split among its seats when ``needs`` are still to fill:
        ``(splits, cumulative weights, total)``, a split's weight the number of layouts it
        leaves (remembered: a stream meets few states)."""
        key = (t, needs)
        got = self._opts.get(key)
        if got is not None:
            return got
        seats, cards = self.types[t]
        splits, cum, total = [], [], 0
        for comp in _compositions(len(cards), [needs[s] for s in seats]):
            rest = list(needs)
            for s, k in zip(seats, comp):
                rest[s] -= k
            w = self._count_from(t + 1, tuple(rest))
            if w:
                total += _multinomial(len(cards), comp) * w
                splits.append((comp, tuple(rest), sum(1 for k in comp if k) > 1))
                cum.append(total)
        got = self._opts[key] = (splits, cum, total)
        return got

    def _draw(self, rng: np.random.Generator) -> tuple:
        needs = self.obs.need
        hands = list(self.obs.fixed)
        for t, (seats, cards) in enumerate(self.types):
            splits, cum, total = self._options(t, needs)
            if len(splits) == 1:
                comp, needs, shuffle = splits[0]
            else:
                r = int(rng.integers(0, total))
                k = 0
                while cum[k] <= r:
                    k += 1
                comp, needs, shuffle = splits[k]
            order = rng.permutation(cards).tolist() if shuffle else self._type_lists[t]
            at = 0
            for s, k in zip(seats, comp):
                m = 0
                for c in order[at:at + k]:
                    m |= 1 << c
                hands[s] |= m
                at += k
        return tuple(hands)

    def draws(self, seed, start: int, stop: int) -> list[tuple]:
        """Draws ``start .. stop-1`` of the seeded stream (module docstring): layouts that make
        the plays legal, uniform among them; the declared roem is not tested.  Raises
        KrakenError for a bad seed or range."""
        seed = check_seed(seed)
        if not is_int(start) or not is_int(stop) or start < 0 or stop < start:
            raise KrakenError("the draw range must be 0 <= start <= stop",
                              token=f"{start}:{stop}")
        out = []
        i = start
        while i < stop:
            block = i // GEN_BLOCK
            rng = block_rng(seed, block)
            end = min(stop, (block + 1) * GEN_BLOCK)
            for j in range(block * GEN_BLOCK, end):
                hands = self._draw(rng)
                if j >= i:
                    out.append(hands)
            i = end
        return out

    def all_draws(self, seed, max_draws: int = MAX_DRAWS):
        """Draws ``0 .. max_draws-1`` of the seeded stream, in order: generator of ``(draw
        number, layout)``, the roem not tested (:meth:`roem_ok` tests it)."""
        seed = check_seed(seed)
        block = 0
        while block * GEN_BLOCK < max_draws:
            rng = block_rng(seed, block)
            for j in range(block * GEN_BLOCK, min(max_draws, (block + 1) * GEN_BLOCK)):
                yield j, self._draw(rng)
            block += 1

    def stream(self, seed, max_draws: int = MAX_DRAWS):
        """The consistent draws of the seeded stream, in order: generator of
        ``(draw number, layout)`` (the roem test applied), at most ``max_draws`` draws."""
        for j, hands in self.all_draws(seed, max_draws):
            if self.roem_ok(hands):
                yield j, hands

    def sample(self, n: int, seed, max_draws: int = MAX_DRAWS) -> list[tuple]:
        """``n`` consistent layouts drawn independently and uniformly (with replacement): the
        first ``n`` consistent draws of the seeded stream.  Raises ObservationError when the
        declared roem is too rare to find ``n`` layouts giving it in ``max_draws`` draws
        (:meth:`hopeless` gives up after :data:`GIVE_UP_AFTER` draws when so)."""
        out = []
        draws = 0
        for j, hands in self.all_draws(seed, max_draws):
            draws = j + 1
            if self.roem_ok(hands):
                out.append(hands)
                if len(out) == n:
                    return out
            if self.hopeless(len(out), draws, n, max_draws):
                break
        raise self.rare_roem_error(len(out), draws, n, max_draws)

    @staticmethod
    def hopeless(found: int, draws: int, needed: int, max_draws: int = MAX_DRAWS) -> bool:
        """After :data:`GIVE_UP_AFTER` draws: whether finding ``needed`` layouts that give the
        declared roem would take more than ``max_draws`` draws at the rate found so far (none
        found: always)."""
        if draws < GIVE_UP_AFTER:
            return False
        return found == 0 or needed * draws / found > max_draws

    def rare_roem_error(self, found: int, draws: int, needed: int = 1,
                        max_draws: int = MAX_DRAWS) -> DeclaredRoemError:
        """Why ``needed`` layouts giving the declared roem were not found in the draws: none
        was (impossible or too rare), or some were, at a rate that would take more than
        ``max_draws`` draws for ``needed`` of them (then: how many can be asked for)."""
        obs = self.obs
        d_team = "N-S" if obs.first % 2 == 0 else "E-W"
        o_team = "E-W" if obs.first % 2 == 0 else "N-S"
        what = f"{d_team} {obs.declared[0]}, {o_team} {obs.declared[1]}"
        if not found:
            return DeclaredRoemError(
                f"no layout found that gives the declared hand roem ({what}) in {draws:,} "
                f"draws of the {self.count_plays():,} layouts the play allows: it is "
                "impossible or too rare to sample")
        most = max(1, found * max_draws // draws)
        return DeclaredRoemError(
            f"{needed:,} samples would take about {needed * draws / found:,.0f} draws "
            f"({found:,} of {draws:,} draws of the {self.count_plays():,} layouts the play "
            f"allows give the declared hand roem, {what}); at most {max_draws:,} are made: "
            f"ask for at most {most:,} samples")

    def roem_error(self) -> DeclaredRoemError:
        """The error for a declared roem that no layout gives."""
        obs = self.obs
        d_team = "N-S" if obs.first % 2 == 0 else "E-W"
        o_team = "E-W" if obs.first % 2 == 0 else "N-S"
        n = self.count_plays()
        return DeclaredRoemError(
            f"no layout gives the declared hand roem ({d_team} {obs.declared[0]}, {o_team} "
            f"{obs.declared[1]}): none of the {n:,} layout{'s' if n != 1 else ''} the play "
            "allows declares it")


# ----------------------------------------------------------------------------- from a deal
def observe(deal, trump, first, *, rules=None, played=(), declared=None) -> Observation:
    """The :class:`Observation` of the player to move after ``played``, from a deal whose other
    hands may be hidden (``-`` in PBN, or a :class:`PartialDeal`).

    ``deal``: Deal, PartialDeal or PBN text; the observer's hand must be given, the other
    hands are looked at only to know which cards a deal of fewer than 8 cards a hand holds
    (a deal with a hidden hand must be a full deal) and, when every hand is given and
    ``declared`` is None, for the hand roem that was declared.  ``declared``: (HR_D, HR_O),
    points, the playing team first; required when a hand is hidden and hand roem is on;
    with every hand given it must equal theirs.  Raises DealError, CardParseError,
    IllegalCardError, RulesError, ObservationError, KrakenError; their token is the caller's
    own text (a card as written, the deal as given)."""
    from .solver import as_played

    pd = as_partial(deal)
    given = as_played(played)
    try:
        return _observe(pd, deal, trump, first, rules, given, declared)
    except KrakenError as e:
        raise _in_own_words(e, pd, deal, given) from None


def _in_own_words(err: KrakenError, pd: PartialDeal, deal, given) -> KrakenError:
    """``err`` with its token in the caller's own text: a card of the play (``column``: its
    1-based place) as the caller wrote it (``H10``, ``ht``: not the canonical ``HT``), the
    deal as given rather than rewritten from N."""
    token = err.token
    if err.column is not None and 1 <= err.column <= len(given) and \
            isinstance(given[err.column - 1], str):
        token = given[err.column - 1].strip()
    elif token is not None and token == short_token(str(pd)) and isinstance(deal, str):
        token = deal.strip()
    if token == err.token:
        return err
    return type(err)(err.message, source=err.source, line=err.line, column=err.column,
                     token=token)


def _observe(pd, deal, trump, first, rules, given, declared) -> "Observation":
    from .solver import Position, as_seat, as_suit, hand_roem
    from .cards import parse_card

    trump_i = as_suit(trump)
    first_i = as_seat(first)
    rules_r = as_rules(rules)
    cards = []
    for i, c in enumerate(given):
        try:
            cards.append(parse_card(c))
        except CardParseError as e:
            raise CardParseError(e.message, column=i + 1, token=str(c)) from None
    if pd.complete:
        # every hand given: the play is checked in full (an input error, not a peek)
        Position(pd.deal(), trump_i, first_i, rules_r, cards)
        deck = pd.deal().all_cards
    else:
        if pd.size != 8:
            raise DealError(f"a deal with a hidden hand must be a full deal (8 cards a hand; "
                            f"this one has {pd.size}): with fewer, which cards are in the deal "
                            "is not known; give every hand")
        deck = FULL_DECK
    seat = _check_given_hands(pd, trump_i, first_i, rules_r, cards)
    if pd.hands[seat] is None:
        raise DealError(f"the hand of the player to move, {SEATS[seat]}, is hidden; give it "
                        "(the others may be '-')", token=str(pd))
    if rules_r.hand_roem:
        if declared is None:
            if not pd.complete:
                raise KrakenError("the hand roem declared before play is needed when a hand "
                                  "is hidden and hand roem is on: give declared=(playing "
                                  "team, defenders), e.g. (20, 0) (a deal file: [Declared "
                                  "\"20 0\"], or declared=20,0 on a one-line deal)")
            declared = hand_roem(pd.deal(), trump_i, first_i, rules=rules_r)
        declared = check_declared(declared)
        if pd.complete:
            given = tuple(hand_roem(pd.deal(), trump_i, first_i, rules=rules_r))
            if given != declared:
                raise DeclaredRoemError(
                    f"the declared hand roem {declared[0]} {declared[1]} is not what the "
                    f"given hands declare ({given[0]} {given[1]}, playing team first)")
        else:
            _check_declared_against_given(pd, trump_i, first_i, rules_r, declared)
    elif declared is not None:
        declared = check_declared(declared)
        if declared != (0, 0):
            raise KrakenError(f"hand roem is off in the rules {rules_r.name}; the declared "
                              "hand roem can only be 0 0", token=f"{declared[0]} {declared[1]}")
        declared = None
    return Observation(seat=seat, hand=pd.hands[seat], size=pd.size, cards=deck,
                       trump=trump_i, first=first_i, rules=rules_r, played=cards,
                       declared=declared)


def _check_declared_against_given(pd: PartialDeal, trump: int, first: int, rules: Rules,
                                  declared: tuple[int, int]) -> None:
    """What the given hands of a deal with hidden hands make certain of the declared hand roem
    (rules 12-17), so that a declaration no layout can give is named as such, not left to the
    sampler to call "too rare": a team holding the stuk in a given hand declares at least 20
    (rule 16), and the two teams together at least the best meld of any given hand (that
    hand's team scores it, or the other team scores a meld as high) plus that stuk.  Raises
    DeclaredRoemError."""
    from .formatting import team_name
    d = first & 1
    teams = ("the playing team", "the defenders")
    stuk = 0
    best_meld, best_seat = None, None
    for seat, hand in enumerate(pd.hands):
        if hand is None:
            continue
        meld, _, holds_stuk = _hand_summary(int(hand), rules.long_runs_100, trump)
        team = 0 if (seat & 1) == d else 1
        if holds_stuk:
            stuk = 20
            if declared[team] < 20:
                k, q = card_str(8 * trump + 6), card_str(8 * trump + 5)
                raise DeclaredRoemError(
                    f"the declared hand roem {declared[0]} {declared[1]} cannot be: "
                    f"{SEATS[seat]} holds the stuk ({k} {q}, rule 16), so {team_name(seat)} "
                    f"({teams[team]}) declared at least 20")
        if meld is not None and (best_meld is None or meld[0] > best_meld[0]):
            best_meld, best_seat = meld, seat
    if best_meld is not None and declared[0] + declared[1] < best_meld[0] + stuk:
        raise DeclaredRoemError(
            f"the declared hand roem {declared[0]} {declared[1]} cannot be: {SEATS[best_seat]} "
            f"holds a meld of {best_meld[0]} (rules 12-15), which its team scores unless the "
            f"other team scores one as high, so the two declared at least "
            f"{best_meld[0] + stuk} together" + (" (with the stuk's 20)" if stuk else ""))


def _check_given_hands(pd: PartialDeal, trump: int, first: int, rules: Rules, cards) -> int:
    """Check the play against the hands that are given (each card of a given hand held and
    legal, no card of one given hand played by another seat, no card twice) and return the
    seat to move after it.  Raises IllegalCardError or ObservationError (``column``: the
    card's 1-based index in the play)."""
    pts, pw, higher = K.card_tables(trump, bool(rules.double_spades))
    amsterdam, forced = rules.trump_rule == "amsterdam", rules.undertrump == "forced"
    held = [None if h is None else int(h) for h in pd.hands]
    trick = np.zeros(4, dtype=np.int64)
    tlen, leader, seen = 0, first, 0
    for i, c in enumerate(cards):
        name = card_str(c)
        seat = (leader + tlen) % 4
        if seen >> c & 1:
            raise ObservationError(f"{name} was already played", column=i + 1, token=name)
        seen |= 1 << c
        owner = next((s for s in range(4) if pd.hands[s] is not None and pd.hands[s] >> c & 1),
                     None)
        if held[seat] is not None:
            if owner != seat:
                raise IllegalCardError(f"{SEATS[seat]} played {name}, which is not in "
                                       f"{SEATS[seat]}'s hand", column=i + 1, token=name)
            legal = int(K.legal_mask(held[seat], trick, tlen, leader, trump, amsterdam, forced,
                                     pw, higher))
            if not legal >> c & 1:
                allowed = " ".join(card_str(x) for x in sort_for_display(cards_of(legal), trump))
                raise IllegalCardError(f"{SEATS[seat]} may not play {name} here (legal: "
                                       f"{allowed}; rules {rules.name})", column=i + 1,
                                       token=name)
            held[seat] &= ~(1 << c)
        elif owner is not None:
            raise ObservationError(f"{SEATS[seat]} played {name}, which is in "
                                   f"{SEATS[owner]}'s hand", column=i + 1, token=name)
        trick[tlen] = c
        tlen += 1
        if tlen == 4:
            leader = (leader + trick_winner_index([int(t) for t in trick], trump)) % 4
            tlen = 0
            trick[:] = 0
    return (leader + tlen) % 4


#: the most hand roem a team can declare, in points (a bound for checking input)
MAX_HAND_ROEM = 1000


def check_declared(declared) -> tuple[int, int]:
    """``declared`` as (HR_D, HR_O): two whole numbers of points, multiples of 10 from 0 to
    :data:`MAX_HAND_ROEM` (every meld and stuk is).  Raises KrakenError."""
    try:
        a, b = declared
    except (TypeError, ValueError):
        raise KrakenError("the declared hand roem is two numbers: the playing team's and "
                          "the defenders'", token=repr(declared)) from None
    for v in (a, b):
        if not is_int(v) or not 0 <= v <= MAX_HAND_ROEM or v % 10:
            raise KrakenError(f"a declared hand roem is a whole number of points, a multiple "
                              f"of 10 from 0 to {MAX_HAND_ROEM}", token=repr(v))
    return int(a), int(b)
