"""Double-dummy tables of a fresh deal: every trump of one first player, and every first player
by every trump (the full table, as DDS gives for bridge).

Each cell holds the deal's ``score`` (RULES.md rule 23) and ``points`` (rule 24) when that
player is first and chooses that trump, both from the first player's team's side, and whether
the score is made, nat or a pit.  ``pit`` is read off the principal variation by score (rule
26): the line of best play, which the cell keeps (``pv``), wins every trick for the playing
team.  (``kraken-batch``'s ``pit`` column asks another question: whether the playing team can
*force* every trick; the two differ only when a best line gives a trick away.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..game.cards import SEATS, SUITS, as_seat
from ..game.deal import as_deal
from ..game.position import Position
from ..game.rules import as_rules
from .solver import Searcher, as_searcher, solve

__all__ = ["TableCell", "FullTable", "solve_cell", "trump_cells", "full_table"]


@dataclass
class TableCell:
    """One (first player, trump) of a table (values in points, the first player's team's side).

    - ``first`` 0..3 (N E S W), ``trump`` 0..3 (S H D C).
    - ``score``: rule 23; ``points``: rule 24 (a second solve: both teams playing for
      points); ``made``: ``score > 0``; ``pit``: the principal variation by score, ``pv``
      (card texts from the first lead), wins every trick.
    - ``best``: the highest score (or points, by the table's ``best_by``) of the first
      player's four trumps (ties: all marked).
    - ``nodes``, ``seconds``: the work of the cell's solves.
    """

    first: int
    trump: int
    score: int
    points: int
    made: bool
    pit: bool
    pv: list = field(default_factory=list)
    best: bool = False
    nodes: int = 0
    seconds: float = 0.0

    @property
    def result(self) -> str:
        """``"pit"``, ``"made"`` or ``"nat"``."""
        return "pit" if self.pit else ("made" if self.made else "nat")

    def to_dict(self) -> dict:
        return {"first": SEATS[self.first], "trump": SUITS[self.trump], "score": self.score,
                "result": self.result, "made": self.made, "pit": self.pit,
                "points": self.points, "best": self.best, "pv": list(self.pv)}


def line_is_pit(deal, trump, first, rules, line) -> bool:
    """Whether ``line`` (every card from the first lead to the end) gives the playing team
    every trick, and so the pit bonus (rule 18)."""
    pos = Position(deal, trump, first, rules, line)
    return pos.over and all((t.winner & 1) == pos.dteam for t in pos.tricks)


def solve_cell(deal, trump, first, *, rules=None, searcher: Searcher | None = None
               ) -> TableCell:
    """The :class:`TableCell` of a fresh deal for one first player and trump: the score with
    its principal variation, and the points.  Raises the errors of ``solve``."""
    searcher = as_searcher(searcher)
    t0 = time.perf_counter()
    n0 = searcher.nodes
    s = solve(deal, trump, first, rules=rules, objective="score", pv=True, searcher=searcher)
    p = solve(deal, trump, first, rules=rules, objective="points", pv=False,
              searcher=searcher)
    return TableCell(first=s.first, trump=s.trump, score=s.value, points=p.value,
                     made=s.value > 0, pit=s.value > 0 and line_is_pit(
                         s.deal, s.trump, s.first, s.rules, s.pv),
                     pv=list(s.pv), nodes=searcher.nodes - n0,
                     seconds=time.perf_counter() - t0)


BEST_BY = ("score", "points")


def check_best_by(best_by: str) -> str:
    """``best_by`` itself when it is ``"score"`` or ``"points"``; else ValueError."""
    if best_by not in BEST_BY:
        raise ValueError(f"best_by must be 'score' or 'points' (got {best_by!r})")
    return best_by


def _mark_best(cells, best_by: str = "score") -> None:
    top = max(getattr(c, best_by) for c in cells)
    for c in cells:
        c.best = getattr(c, best_by) == top


def trump_cells(deal, first, *, rules=None, searcher: Searcher | None = None,
                best_by: str = "score") -> list[TableCell]:
    """The four cells of one first player (trumps S H D C), the highest score (``best_by``
    ``"points"``: the most points) marked ``best``.  ``deal``: Deal or PBN text (1 to 8
    cards a hand); ``first``: ``"N"``.. or 0..3; ``rules``: Rules, rules spec or dict.
    Raises the errors of ``solve``; ValueError for another ``best_by``."""
    best_by = check_best_by(best_by)
    deal, first, rules = as_deal(deal), as_seat(first), as_rules(rules)
    searcher = as_searcher(searcher)
    cells = [solve_cell(deal, t, first, rules=rules, searcher=searcher) for t in range(4)]
    _mark_best(cells, best_by)
    return cells


@dataclass
class FullTable:
    """Every first player by every trump of a fresh deal (:func:`full_table`).

    ``cells``: 16 :class:`TableCell`, first player N E S W, each with trumps S H D C (index
    ``4 * first + trump``); within each first player the highest value by ``best_by``
    (``"score"`` or ``"points"``) is ``best``.  ``nodes``, ``seconds``: the work of all
    the solves."""

    deal: object
    rules: object
    cells: list
    nodes: int = 0
    seconds: float = 0.0
    best_by: str = "score"

    def cell(self, first, trump) -> TableCell:
        """The cell of ``first`` (``"N"``.. or 0..3) and ``trump`` (``"S"``.. or 0..3)."""
        from ..game.cards import as_suit
        return self.cells[4 * as_seat(first) + as_suit(trump)]

    def best_trumps(self, first) -> list[int]:
        """The trumps (0..3) of the highest value (by ``best_by``) for ``first``."""
        f = as_seat(first)
        return [c.trump for c in self.cells[4 * f:4 * f + 4] if c.best]

    def to_dict(self) -> dict:
        return {"deal": str(self.deal), "rules": self.rules.name,
                "rules_options": self.rules.to_dict(),
                "best_by": self.best_by,
                "cells": [c.to_dict() for c in self.cells], "nodes": self.nodes,
                "seconds": round(self.seconds, 3)}


def full_table(deal, *, rules=None, searcher: Searcher | None = None,
               best_by: str = "score") -> FullTable:
    """The double-dummy table of a fresh deal: for each first player N E S W and each trump
    S H D C the score (rule 23) and points (rule 24) from the first player's team's side,
    made/nat/pit, and the best trump of each first player (by score, or by points with
    ``best_by="points"``; ties all marked).  ``deal``: Deal or PBN text (1 to 8 cards a
    hand); ``rules``: Rules, rules spec or dict.  Hand roem (rules 12-17) is declared from
    the deal whoever is first; which team it counts for follows the first player.  Raises
    DealError, RulesError (ValueError) for bad input, ValueError for another ``best_by``."""
    best_by = check_best_by(best_by)
    deal, rules = as_deal(deal), as_rules(rules)
    searcher = as_searcher(searcher)
    t0 = time.perf_counter()
    n0 = searcher.nodes
    cells = []
    for f in range(4):
        cells += trump_cells(deal, f, rules=rules, searcher=searcher, best_by=best_by)
    return FullTable(deal=deal, rules=rules, cells=cells, nodes=searcher.nodes - n0,
                     seconds=time.perf_counter() - t0, best_by=best_by)
