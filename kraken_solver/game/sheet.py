"""The score sheet of one line of play: each team's tally as a Kraken player writes it down.

For a line from the first lead to the end of the deal (the cards played, then a principal
variation; or a whole played deal), :func:`score_sheet` adds up, per team (RULES.md rules
18-20): the card points (the last trick's 10 apart), the trick roem (rules 10-11), the hand
roem meld by meld (who declared it and whether it counts, rules 12-17), the pit bonus, then
made, nat or pit, the multiplier and the final scores.  ``sheet.score`` (the playing team's
final score minus the defenders') is the line's value under rule 23: it equals
``Position.final_value("score")`` of the same line, so along a principal variation it is the
double-dummy score.  All values are in points.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import KrakenError
from .cards import SEATS
from .roem import Meld, declared_melds

__all__ = ["TeamTally", "ScoreSheet", "score_sheet", "TEAM_NAMES"]

#: the two teams by the parity of their seats (0: N and S, 1: E and W)
TEAM_NAMES = ("N-S", "E-W")


@dataclass
class TeamTally:
    """One team's column of the sheet (points; rules 18-19).

    - ``team``: ``"N-S"`` or ``"E-W"``; ``playing``: the playing team (else the defenders).
    - ``tricks``: tricks won; ``card_points``: the points of the cards in them, without the
      last trick's bonus; ``last_trick``: that bonus (10, 20 with spades trump under
      ``double_spades``), to the team that won the last trick, else 0.
    - ``trick_roem``: the roem of the tricks won (rules 10-11).
    - ``hand_roem``: the melds of the team's players that count (stuk included, rules 12-17).
    - ``pit_bonus``: the playing team's pit bonus when it won every trick (rule 18), else 0.
    - ``final``: the team's final score (rule 19, times the multiplier).
    """

    team: str
    playing: bool
    tricks: int = 0
    card_points: int = 0
    last_trick: int = 0
    trick_roem: int = 0
    hand_roem: int = 0
    pit_bonus: int = 0
    final: int = 0

    @property
    def total(self) -> int:
        """What the team's tally comes to before made/nat and the multiplier: card points,
        last trick, trick roem, hand roem and pit bonus (the two sides of rule 19's test)."""
        return (self.card_points + self.last_trick + self.trick_roem + self.hand_roem
                + self.pit_bonus)

    def to_dict(self) -> dict:
        return {"team": self.team, "tricks": self.tricks, "card_points": self.card_points,
                "last_trick": self.last_trick, "trick_roem": self.trick_roem,
                "hand_roem": self.hand_roem, "pit_bonus": self.pit_bonus,
                "total": self.total, "final": self.final}


@dataclass
class ScoreSheet:
    """The score sheet of one finished line (see the module docstring).

    - ``playing``, ``defenders``: the two :class:`TeamTally` columns.
    - ``melds``: every meld declared from the hand (:class:`~kraken_solver.game.roem.Meld`, with
      ``counts``); empty when the rules have no hand roem.
    - ``made``: the playing team's total is above the defenders' (rule 19, strictly);
      ``pit``: the playing team won every trick (and so made the deal with the bonus).
    - ``multiplier``: rule 20; ``tricks``: the line's tricks (TrickRecord); ``played``: how
      many of the line's cards were played before the rest was a principal variation.
    """

    trump: int
    first: int
    rules: object
    playing: TeamTally
    defenders: TeamTally
    melds: list = field(default_factory=list)
    made: bool = False
    pit: bool = False
    multiplier: int = 1
    tricks: list = field(default_factory=list)
    played: int = 0

    @property
    def score(self) -> int:
        """The line's score (rule 23): the playing team's final score minus the defenders'."""
        return self.playing.final - self.defenders.final

    @property
    def points(self) -> int:
        """The line's points (rule 24): the playing team's card points, last trick included,
        plus its trick roem."""
        return self.playing.card_points + self.playing.last_trick + self.playing.trick_roem

    @property
    def result(self) -> str:
        """``"pit"``, ``"made"`` or ``"nat"``."""
        return "pit" if self.pit else ("made" if self.made else "nat")

    def to_dict(self) -> dict:
        """A JSON-ready dict: ``playing_team`` and ``defenders`` (the tallies), ``melds``,
        ``result``, ``made``, ``pit``, ``multiplier``, ``score``, ``points``."""
        return {"playing_team": self.playing.to_dict(), "defenders": self.defenders.to_dict(),
                "melds": [meld_dict(m) for m in self.melds], "result": self.result,
                "made": self.made, "pit": self.pit, "multiplier": self.multiplier,
                "score": self.score, "points": self.points}


def meld_dict(m: Meld) -> dict:
    """A meld as a JSON-ready dict (cards as ``"HK"`` texts)."""
    from .cards import card_str
    return {"seat": SEATS[m.seat], "team": TEAM_NAMES[m.team], "kind": m.kind,
            "cards": [card_str(c) for c in m.cards], "value": m.value, "counts": m.counts,
            "best": m.best}


def score_sheet(deal, trump, first, *, rules=None, line, played: int = 0) -> ScoreSheet:
    """The score sheet of ``line``: every card from the first lead to the end of the deal,
    in play order (``"HK"`` texts or 0..31; a list or a string as ``played`` in
    :func:`~kraken_solver.engine.solver.solve`).  ``played``: how many of them were played before
    the rest of the line (for the sheet's heading only).

    ``deal``, ``trump``, ``first``, ``rules``: as in ``solve``.  Raises the errors of
    :class:`~kraken_solver.game.position.Position` for a card that may not be played, and
    KrakenError when the line stops before the end of the deal."""
    from .position import Position
    pos = Position(deal, trump, first, rules, line)
    if not pos.over:
        left = sum(int(h).bit_count() for h in pos.hands)
        raise KrakenError("a score sheet needs a line to the end of the deal",
                          token=f"{left} cards left")
    return sheet_of_position(pos, played=played)


def sheet_of_position(pos, *, played: int = 0) -> ScoreSheet:
    """The score sheet of a finished :class:`~kraken_solver.game.position.Position` (every card
    played); see :func:`score_sheet`."""
    rules = pos.rules
    d = pos.dteam
    tallies = [TeamTally(TEAM_NAMES[0], d == 0), TeamTally(TEAM_NAMES[1], d == 1)]
    for i, t in enumerate(pos.tricks):
        side = tallies[t.winner & 1]
        side.tricks += 1
        points = t.points
        if i == len(pos.tricks) - 1:
            side.last_trick = pos.last_bonus
            points -= pos.last_bonus
        side.card_points += points
        side.trick_roem += t.roem
    melds = declared_melds(pos.deal.hands, pos.trump, pos.first, rules)
    for m in melds:
        if m.counts:
            tallies[m.team].hand_roem += m.value
    dt, ot = tallies[d], tallies[1 - d]
    if (dt.hand_roem, ot.hand_roem) != (pos.hr_d, pos.hr_o):  # pragma: no cover
        raise AssertionError("the melds do not add up to the hand roem")
    pit = ot.tricks == 0 and dt.tricks > 0
    if pit:
        dt.pit_bonus = rules.pit_bonus
    made = dt.total > ot.total
    m = rules.multiplier
    if made:
        dt.final, ot.final = m * dt.total, m * ot.total
    else:
        # nat: the defenders score every card point and all roem, no pit (rule 19)
        dt.final, ot.final = 0, m * (dt.total - dt.pit_bonus + ot.total)
    return ScoreSheet(trump=pos.trump, first=pos.first, rules=rules, playing=dt, defenders=ot,
                      melds=melds, made=made, pit=pit and made, multiplier=m,
                      tricks=list(pos.tricks), played=played)
