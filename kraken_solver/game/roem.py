"""Roem declared from the hand (RULES.md rules 12-17).

Trick roem (rules 10-11) is computed inside the search kernels (``kernels.moves.trick_roem``).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from .cards import as_seat, as_suit
from .deal import as_deal
from .rules import as_rules

RUN_VALUES = {3: 20, 4: 50}
QUAD_VALUES = (0, 0, 0, 100, 200, 100, 100, 100)  # by natural rank 7 8 9 T J Q K A
SUIT_ORDER = (3, 2, 1, 0)  # S > H > D > C for rule 14


def _run_value(length: int, long_runs_100: bool) -> int:
    if length < 3:
        return 0
    if length == 3:
        return 20
    if long_runs_100 and length >= 5:
        return 100
    return 50


def _runs(mask: int, long_runs_100: bool) -> list[tuple]:
    """Maximal runs of 3+ cards per suit, natural order: ((value, top rank, 0, suit order),
    the run's cards as a mask)."""
    melds = []
    for s in range(4):
        x = (mask >> (8 * s)) & 0xFF
        if not x & (x >> 1) & (x >> 2):
            continue        # no three in a row in this suit
        r = 0
        while r < 8:
            if (x >> r) & 1:
                start = r
                while r < 8 and (x >> r) & 1:
                    r += 1
                length = r - start
                if length >= 3:
                    cards = ((1 << length) - 1) << (8 * s + start)
                    melds.append(((_run_value(length, long_runs_100), r - 1, 0, SUIT_ORDER[s]),
                                  cards))
            else:
                r += 1
    return melds


def _declared(mask: int, long_runs_100: bool) -> list[tuple]:
    """The melds one player declares (rules 12-13), stuk excluded, as (key, cards mask)
    pairs; see :func:`player_melds`."""
    common = mask & (mask >> 8) & (mask >> 16) & (mask >> 24) & 0xFF
    if not common:
        return _runs(mask, long_runs_100)       # no four of a kind: nothing to choose
    quads = [r for r in range(8) if (common >> r) & 1]
    best = None
    for k in range(len(quads) + 1):
        for chosen in combinations(quads, k):
            used = 0
            for r in chosen:
                used |= 0x01010101 << r
            melds = [((QUAD_VALUES[r], r, 1, 4), 0x01010101 << r) for r in chosen] \
                + _runs(mask & ~used, long_runs_100)
            total = sum(m[0][0] for m in melds)
            cand = (total, max(m[0] for m in melds) if melds else (-1,), melds)
            if best is None or cand[:2] > best[:2]:
                best = cand
    return best[2]


def player_melds(mask: int, long_runs_100: bool = False) -> list[tuple]:
    """The melds one player declares (rules 12-13), stuk excluded.

    Each meld is a tuple ``(value, top natural rank 0..7, is_four_of_a_kind, suit order)`` that
    sorts as rule 14 compares melds.  Of all ways to use or not use each four of a kind, the one
    with the highest total is declared; ties go to the better best meld."""
    return [key for key, _ in _declared(mask, long_runs_100)]


@dataclass(frozen=True)
class Meld:
    """One meld declared from the hand (rules 12-16), as a score sheet lists it.

    - ``seat``: who declared it, 0..3 (N E S W); ``kind``: ``"run"``, ``"four"`` (four of a
      kind) or ``"stuk"`` (king and queen of trump, rule 16).
    - ``cards``: the meld's cards, card indices 0..31 (suit * 8 + natural rank), low to high.
    - ``value``: its value in points (rules 10, 12; stuk 20), whether it counts or not.
    - ``counts``: whether it scores for its team: a stuk always does (rule 16); another meld
      does when its team holds the best meld of the four players (rules 14-15).
    - ``best``: whether it is that best meld.
    """

    seat: int
    kind: str
    cards: tuple
    value: int
    counts: bool
    best: bool = False

    @property
    def team(self) -> int:
        """The team of ``seat`` by parity: 0 = N-S, 1 = E-W."""
        return self.seat & 1


def _cards_of(mask: int) -> tuple:
    return tuple(c for c in range(32) if (mask >> c) & 1)


def declared_melds(hands, trump: int, first: int, rules) -> list[Meld]:
    """Every meld declared from the hand, seat by seat (N E S W), each marked whether it
    counts (rules 12-17); the melds that count add up to :func:`hand_roem_masks`.

    ``hands``: four 32-bit masks N E S W as dealt; ``trump`` 0..3; ``first`` 0..3 (the
    first player; it does not change which melds count, only which team is the playing
    team).  An empty list when ``rules.hand_roem`` is off (then nothing is declared)."""
    if not rules.hand_roem:
        return []
    declared = [_declared(int(h), rules.long_runs_100) for h in hands]
    best_seat, best_key = None, None
    for seat in range(4):
        for key, _ in declared[seat]:
            if best_key is None or key > best_key:
                best_seat, best_key = seat, key
    melds = []
    kq = (1 << (8 * trump + 5)) | (1 << (8 * trump + 6))
    for seat in range(4):
        for key, cards in declared[seat]:
            melds.append(Meld(seat, "four" if key[2] else "run", _cards_of(cards), key[0],
                              counts=(seat & 1) == (best_seat & 1),
                              best=seat == best_seat and key == best_key))
        if int(hands[seat]) & kq == kq:
            melds.append(Meld(seat, "stuk", _cards_of(kq), 20, counts=True))
    return melds


def hand_roem_masks(hands, trump: int, first: int, rules) -> tuple[int, int]:
    """Hand roem (playing team, defenders) in points for four hand masks (rules 12-17).

    ``hands``: four 32-bit masks N E S W as dealt; ``trump`` 0..3; ``first`` 0..3 the first
    player, whose team is the playing team.  Returns (0, 0) when ``rules.hand_roem`` is off."""
    if not rules.hand_roem:
        return 0, 0
    # the sums of declared_melds (tests check they agree), without building its records:
    # every Position computes this
    melds = [player_melds(h, rules.long_runs_100) for h in hands]
    scores = [0, 0]  # by team parity: 0 = N/S, 1 = E/W
    best_seat, best_meld = None, None
    for seat in range(4):
        for m in melds[seat]:
            if best_meld is None or m > best_meld:
                best_seat, best_meld = seat, m
    if best_seat is not None:
        team = best_seat & 1
        scores[team] += sum(m[0] for seat in range(4) if seat & 1 == team for m in melds[seat])
    kq = (1 << (8 * trump + 5)) | (1 << (8 * trump + 6))
    for seat in range(4):
        if hands[seat] & kq == kq:
            scores[seat & 1] += 20
    d = first & 1
    return scores[d], scores[1 - d]


def hand_roem(deal, trump, first, *, rules=None) -> tuple[int, int]:
    """Hand roem in points (playing team, defenders), stuk included (RULES.md rules 12-17),
    declared from the hands as dealt.  ``deal``: a Deal or PBN text; ``trump`` and ``first``
    as letters or indices; ``rules``: as :func:`~kraken_solver.game.rules.as_rules`.  Raises
    DealError, CardParseError or RulesError for bad input."""
    d = as_deal(deal)
    return hand_roem_masks(d.hands, as_suit(trump), as_seat(first), as_rules(rules))


__all__ = ["hand_roem", "hand_roem_masks", "player_melds", "declared_melds", "Meld"]
