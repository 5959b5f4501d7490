"""One deal solved for each trump the first player may choose: score, points, made and pit.

Each (deal, trump) gives a :class:`TrumpResult` (values in points, the playing team's side,
RULES.md §8).  ``pit`` is True when the playing team can *force* a pit: win every trick
whatever the defenders do (double dummy).  It is computed exactly by one null-window margin
search in which the pit bonus is raised to :data:`PIT_TEST_BONUS` (:func:`forces_pit`).  It
cannot be read off ``score``: a made score with a pit and one without can be equal, and the
score-optimal line need not be the pit line (a line that gives up a trick may win more roem),
so "the team can force a pit" is the exact, well-defined quantity.  :func:`pit_ruled_out`
skips the search where the score alone proves no pit is possible.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from ..game.rules import as_rules

#: pit bonus used by the pit test; any pit margin is >= this, any other margin is far below
PIT_TEST_BONUS = 10000
#: threshold of the pit test: without a pit a margin is at most 324 card points + 8 x 200 roem
PIT_TEST_THRESHOLD = 5000


# ----------------------------------------------------------------------------- solving
@dataclass
class TrumpResult:
    """The values of one (deal, trump): ``score`` and ``points`` (int points, playing team's
    side; ``points`` is None when not asked), ``made``, ``pit`` (the playing team can force
    every trick; None when not asked), ``nodes`` and ``ms`` (the work spent)."""
    trump: int
    score: int
    made: bool
    points: int | None = None
    pit: bool | None = None
    nodes: int = 0
    ms: float = 0.0


def forces_pit(searcher, pos) -> bool:
    """Whether the playing team can force winning every trick from ``pos`` (double dummy).

    One null-window margin search with the pit bonus raised to ``PIT_TEST_BONUS``: a line with
    a pit has a margin of at least that bonus, a line without one at most 324 card points plus
    8 x 200 trick roem, so "margin >= PIT_TEST_THRESHOLD" holds exactly when the playing team
    can force a pit.  Tricks already lost by the playing team make it False."""
    from ..kernels import table

    if pos.flag_lost:
        return False
    test = pos
    if pos.rules.pit_bonus != PIT_TEST_BONUS:
        test = pos.copy()
        test.rules = dataclasses.replace(pos.rules, pit_bonus=PIT_TEST_BONUS)
    margin = searcher.search(test, table.MODE_MARGIN, 0, PIT_TEST_THRESHOLD - 1, PIT_TEST_THRESHOLD)
    return margin >= PIT_TEST_THRESHOLD


def pit_ruled_out(pos, score: int) -> bool:
    """True when ``score`` (the exact score of ``pos``, any position before the playing team
    has lost a trick) already shows that the playing team cannot force a pit, so that
    :func:`forces_pit` need not search.

    If the playing team can force winning every trick, it takes every card point of the deal
    (the tricks it took so far included, as it has lost none), so it can hold its margin
    (SOLVER-NOTES.md) to at least F = the deal's card points (last trick included) + hand roem
    D - O + the pit bonus whatever the defenders do (its trick roem only adds), and the minimax
    margin is >= F; where F > 0 the deal is then made and the score is m x margin >= m x F
    (rule 19).  So a score below m x F rules the pit out.  In a batch most deals are nat or
    made by less, and the pit test (3.4% of a batch's time, 100 deals) runs only for the
    rest; in a hint at the first lead it ran for every card of every layout (6% of the nodes,
    benchmarks/README.md)."""
    floor = pos.total_points + pos.hr_d - pos.hr_o + pos.rules.pit_bonus
    return floor > 0 and score < pos.rules.multiplier * floor


def solve_trumps(searcher, deal, first, rules, *, trumps=(0, 1, 2, 3), points: bool = False,
                 pit: bool = True) -> list[TrumpResult]:
    """Solve ``deal`` with ``first`` as first player for each trump of ``trumps``.

    The score is exact (RULES.md rule 23).  With ``points`` the points value (rule 24) is found
    first and steers the score's search (as ``trump_table`` does).  With ``pit`` the pit test
    of :func:`forces_pit` runs after all the trumps (it uses other rules, so it would clear the
    transposition table that the four trumps of a deal share), and only where the score does
    not already rule the pit out (:func:`pit_ruled_out`).  Raises the errors of
    ``Position`` for bad input."""
    from ..game.position import Position

    rules = as_rules(rules)
    out = []
    positions = []
    for t in trumps:
        pos = Position(deal, t, first, rules)
        positions.append(pos)
        n0 = searcher.nodes
        t0 = time.perf_counter()
        p = None
        if points:
            p = searcher.value(pos, "points")
            s = searcher.value(pos, "score", guess=rules.multiplier * (
                2 * p - pos.total_points + pos.hr_d - pos.hr_o))
        else:
            s = searcher.value(pos, "score")
        out.append(TrumpResult(int(t), int(s), s > 0, p, None, searcher.nodes - n0,
                               (time.perf_counter() - t0) * 1000.0))
    if pit:
        for r, pos in zip(out, positions):
            if pit_ruled_out(pos, r.score):
                r.pit = False
                continue
            n0 = searcher.nodes
            t0 = time.perf_counter()
            r.pit = forces_pit(searcher, pos)
            r.nodes += searcher.nodes - n0
            r.ms += (time.perf_counter() - t0) * 1000.0
    return out
