"""What one seat knows at its turn, and what the plays say about the hands it cannot see.

The player to move, the *observer*, knows their own hand as dealt, every card played so far and
who played it, and the hand roem declared before play (RULES.md rule 17: HR_D for the playing
team, HR_O for the defenders).  ``kraken-advise`` uses the same machinery before any card is
played, with cards known to be in a seat's hand (``known``) instead of plays, and no declared
roem.  :func:`observe` checks all of it and returns an :class:`Observation`.

A card ``c`` played by a seat to a trick is legal for a hand ``H`` exactly when it is legal for
every two-card hand ``{c, x}``, ``x`` in ``H`` (each of rules 8, 9, 9a forbids ``c`` because of
one other card held: a card of the suit led, a higher trump, a trump, a card that is not a
lower trump; ``tests/test_layouts.py`` checks this against the reference rules of
``tests/naive.py``).  So every play of another seat says "this seat held none of the cards F"
(F: the ``x`` for which ``c`` is not legal beside ``x``, found with the kernels' own
``legal_mask``), at that moment, and so also now.  A card the seat played later was in its
hand then: if it is in F, no layout makes the play legal (:class:`ObservationError`).  Each
seat ``s`` therefore may hold only ``allowed[s]`` of the unseen cards (an :class:`Inference`,
which also says in words why a card is ruled out).  :func:`declared_roem` and
:func:`check_declared` read and test the declared hand roem (:class:`DeclaredRoemError`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..errors import CardParseError, DealError, IllegalCardError, KrakenError, short_token
from ..game.cards import (FULL_DECK, SEATS, SUIT_MASK, SUITS, card_power, card_str, cards_of,
                          is_int, popcount, sort_for_display)
from ..game.roem import player_melds
from ..game.rules import Rules, as_rules
from ..limits import MAX_HAND_ROEM
from ..kernels import moves
from ..notation.partial import PartialDeal, as_partial


class ObservationError(KrakenError):
    """What a seat is said to have seen cannot happen: no layout of the unseen cards makes
    the plays legal, the hand sizes cannot add up, or no layout gives the declared hand roem."""


class DeclaredRoemError(ObservationError):
    """The declared hand roem (rule 17) cannot be: no layout gives it, it is too rare to
    sample, or the hands given declare another (a deal file's error points at its
    ``[Declared]`` tag)."""


# ----------------------------------------------------------------------------- hand roem
def _suit_runs(byte: int, suit: int, long_runs_100: bool) -> tuple:
    """The runs (rule 12) of one suit's cards (natural-rank bits of ``byte``) as melds of
    :func:`kraken_solver.game.roem.player_melds`: (value, top rank, 0, suit order)."""
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
    the melds of :func:`kraken_solver.game.roem.player_melds` (read from a table of each suit's
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
    :func:`kraken_solver.game.roem.hand_roem_masks`, with each hand's melds remembered (a layout
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

    def legal_now(self) -> list[int]:
        """The observer's legal cards now (card indices, as the board shows them: by suit,
        then power), from what the observer sees alone: their holding and the trick on the
        table (RULES.md rules 8, 9, 9a).  Raises KrakenError when the deal is over."""
        if len(self.played) >= 4 * self.size:
            raise KrakenError("the deal is over: no card is left to play")
        pts, pw, higher = moves.card_tables(self.trump, bool(self.rules.double_spades))
        done = len(self.played) - len(self.played) % 4
        on_table = self.played[done:]
        trick = np.zeros(4, dtype=np.int64)
        for i, c in enumerate(on_table):
            trick[i] = c
        leader = self.who[done] if on_table else self.seat
        gone = sum(1 << c for c in self.played)
        legal = int(moves.legal_mask(self.hand & ~gone, trick, len(on_table), leader, self.trump,
                                     self.rules.trump_rule == "amsterdam",
                                     self.rules.undertrump == "forced", pw, higher))
        return sort_for_display(cards_of(legal), self.trump)

    # -- what the plays say
    def _inferences(self) -> list[Inference]:
        if not self.played:
            return []
        pts, pw, higher = moves.card_tables(self.trump, bool(self.rules.double_spades))
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
                legal = int(moves.legal_mask(own, trick, tlen, leader, self.trump, amsterdam,
                                             forced, pw, higher))
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
                    if not int(moves.legal_mask(pair, trick, tlen, leader, self.trump, amsterdam,
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
    from ..game.position import as_played

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
    from ..game.cards import as_seat, as_suit, parse_card
    from ..game.position import Position
    from ..game.roem import hand_roem

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
    from ..notation.text import team_name
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
    pts, pw, higher = moves.card_tables(trump, bool(rules.double_spades))
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
            legal = int(moves.legal_mask(held[seat], trick, tlen, leader, trump, amsterdam, forced,
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
