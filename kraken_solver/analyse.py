"""Double-dummy review of a played deal: what each card cost (``kraken-analyse``).

:func:`analyse_play` replays the cards of a deal one by one and, before each card, values
every legal card of the player to move double dummy (RULES.md rule 26).  Each played card gets
a :class:`CardReview`: the position's value before and after it, the best cards, and the
*cost*: the points the card gave away for its player's own team.  :func:`summarise_play`
totals the costs per player and per team and finds the moments where the deal turned between
made and nat.  :func:`plot_play` draws the double-dummy score through the deal (matplotlib,
imported only when called).

Every value is a ``score`` value (RULES.md rule 23) in points, from the playing team's side
(rule 27): the team of the first player.  Positive means made (rule 25).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .cards import SEATS, card_str, parse_card
from .errors import KrakenError
from .solver import Position, Searcher, as_played, as_searcher, as_seat

__all__ = ["CardReview", "SideStats", "PlaySummary", "analyse_play", "summarise_play",
           "plot_play", "require_matplotlib", "MATPLOTLIB_HINT", "TEAMS"]

#: the two teams, by the parity of their seats (N-S = 0, E-W = 1)
TEAMS = ("N-S", "E-W")
#: what to do when matplotlib is missing
MATPLOTLIB_HINT = "pip install matplotlib"


@dataclass
class CardReview:
    """The review of one played card (values in points, playing team's side, rule 27).

    - ``number``: the card's place in the play, 1-based (1..32 for a full deal).
    - ``seat``: who played it, ``"N" "E" "S" "W"``; ``card``: the card, ``"HK"``.
    - ``trick``: the trick it belongs to, 1-based.
    - ``playing``: whether ``seat`` is on the playing team (the first player's team).
    - ``value_before``: the double-dummy ``score`` (rule 23) of the position before the card.
    - ``value_after``: the ``score`` of the position after it: the card's value (rule 26).
    - ``best_cards``: the legal cards whose value equals ``value_before`` (rule 26), by suit
      then power; ``card_values``: card -> value for every legal card at that point.
    - ``cost``: the points the card gave away for its player's own team, never negative:
      ``value_before - value_after`` for a playing-team player, ``value_after - value_before``
      for a defender; 0 for a best card.
    """

    number: int
    seat: str
    card: str
    trick: int
    playing: bool
    value_before: int
    value_after: int
    best_cards: list = field(default_factory=list)
    card_values: dict = field(default_factory=dict)
    cost: int = 0

    @property
    def team(self) -> str:
        """The team of ``seat``: ``"N-S"`` or ``"E-W"``."""
        return TEAMS[SEATS.index(self.seat) % 2]

    @property
    def mistake(self) -> bool:
        """Whether the card gave points away (``cost > 0``)."""
        return self.cost > 0

    @property
    def turned(self) -> bool:
        """Whether the card turned the deal between made and nat (the value changed sign:
        made is ``score > 0``, rule 25; a score is never 0)."""
        return (self.value_before > 0) != (self.value_after > 0)

    def to_dict(self) -> dict:
        """A JSON-ready dict of the fields, plus ``team``, ``mistake`` and ``turned``."""
        return {"number": self.number, "trick": self.trick, "seat": self.seat,
                "team": self.team, "playing": self.playing, "card": self.card,
                "value_before": int(self.value_before), "value_after": int(self.value_after),
                "cost": int(self.cost), "mistake": self.mistake, "turned": self.turned,
                "best_cards": list(self.best_cards),
                "card_values": {k: int(v) for k, v in self.card_values.items()}}


def analyse_play(deal, trump, first, *, rules=None, played, searcher: Searcher | None = None
                 ) -> list[CardReview]:
    """Review every card of ``played`` double dummy: one :class:`CardReview` per card.

    ``deal``: Deal or PBN text (1 to 8 cards a hand, rule 21); ``trump``: ``"S" "H" "D" "C"``
    or 0..3 (required: the play depends on it); ``first``: the first player, ``"N"``.. or
    0..3; ``rules``: Rules, preset name or dict (default: ``kraken``); ``played``: the cards
    played from the first lead, in order (``"HK"`` texts or 0..31), a full deal or part of
    one (it may stop inside a trick); ``searcher``: the :class:`~kraken_solver.solver.Searcher`
    to use (default: a new one).  One searcher serves the whole deal, so its transposition
    table carries over from card to card, and each search gets the previous value as its
    guess (which only steers the search; values stay exact).

    Values are ``score`` values (RULES.md rule 23) in points from the playing team's side
    (rule 27).  Before each card every legal card is valued (rule 26); a position with one
    legal card keeps its value, so it needs no search.

    Raises DealError, CardParseError, RulesError (bad deal, trump, seat or rules),
    IllegalCardError (a card the player does not hold or may not play, rules 8-9a; ``column``
    is the card's 1-based index in ``played``), KrakenError when ``trump`` is None (all are
    ValueError).
    """
    if trump is None:
        raise KrakenError("a review of the play needs the deal's trump (S, H, D or C)")
    played = as_played(played)         # None, a list of cards or a string "SA S9 ..."
    # check the whole record first: an illegal card is reported before any search
    Position(deal, trump, as_seat(first), rules, played)
    pos = Position(deal, trump, as_seat(first), rules)
    searcher = as_searcher(searcher, Searcher)
    value = searcher.value(pos, "score")
    reviews = []
    for i, card in enumerate(played):
        c = parse_card(card)
        seat = pos.to_move
        playing = (seat & 1) == pos.dteam
        legal = pos.legal()
        if len(legal) == 1:
            values = {card_str(legal[0]): value}
        else:
            values = {}
            for lc in legal:
                child = pos.copy()
                child.play(lc)
                values[card_str(lc)] = searcher.value(child, "score", guess=value)
            top = max(values.values()) if playing else min(values.values())
            if top != value:  # pragma: no cover - would mean the search is inconsistent
                raise AssertionError(f"card {i + 1}: the best card's value {top} differs from "
                                     f"the position's value {value}")
        after = values[card_str(c)]
        cost = value - after if playing else after - value
        reviews.append(CardReview(
            number=i + 1, seat=SEATS[seat], card=card_str(c), trick=len(pos.tricks) + 1,
            playing=playing, value_before=value, value_after=after,
            best_cards=[k for k, v in values.items() if v == value], card_values=values,
            cost=cost))
        pos.play(c, index=i + 1)
        value = after
    return reviews


@dataclass
class SideStats:
    """Totals of a player or a team: ``cards`` played, ``mistakes`` (cards with cost > 0) and
    ``cost`` (points given away for their own team, the sum of the cards' costs)."""

    cards: int = 0
    mistakes: int = 0
    cost: int = 0

    def add(self, r: CardReview) -> None:
        self.cards += 1
        self.mistakes += r.mistake
        self.cost += r.cost

    def to_dict(self) -> dict:
        return {"cards": self.cards, "mistakes": self.mistakes, "cost": self.cost}


@dataclass
class PlaySummary:
    """The summary of a reviewed play (values in points, playing team's side, rule 27).

    - ``players``: seat ``"N"``.. -> :class:`SideStats` (every seat, even with no card).
    - ``teams``: ``"N-S"``, ``"E-W"`` -> :class:`SideStats`, the sums of their players.
    - ``playing_team``: ``"N-S"`` or ``"E-W"`` (the first player's team), or ``None`` when
      nothing was played.
    - ``turning_points``: the cards that turned the deal between made and nat
      (:attr:`CardReview.turned`), in play order.
    - ``value_start``: the score before the first card; ``value_end``: after the last one
      (``None`` when nothing was played).  ``value_end == value_start`` minus the playing
      team's cost plus the defenders' cost.
    """

    players: dict
    teams: dict
    playing_team: str | None
    turning_points: list
    value_start: int | None
    value_end: int | None

    def to_dict(self) -> dict:
        return {"players": {k: v.to_dict() for k, v in self.players.items()},
                "teams": {k: v.to_dict() for k, v in self.teams.items()},
                "playing_team": self.playing_team,
                "turning_points": [r.number for r in self.turning_points],
                "value_start": self.value_start, "value_end": self.value_end}


def summarise_play(reviews) -> PlaySummary:
    """Per player and per team: cards played, mistakes (cost > 0) and total cost (points
    given away for their own team); and the turning points, where the score (rule 23)
    changed sign, i.e. the deal turned between made and nat (rule 25).  ``reviews``: the
    records of :func:`analyse_play`, in play order."""
    reviews = list(reviews)
    players = {s: SideStats() for s in SEATS}
    teams = {t: SideStats() for t in TEAMS}
    playing_team = None
    for r in reviews:
        players[r.seat].add(r)
        teams[r.team].add(r)
        if r.playing:
            playing_team = r.team
        elif playing_team is None:
            playing_team = TEAMS[1 - TEAMS.index(r.team)]
    return PlaySummary(
        players=players, teams=teams, playing_team=playing_team,
        turning_points=[r for r in reviews if r.turned],
        value_start=reviews[0].value_before if reviews else None,
        value_end=reviews[-1].value_after if reviews else None)


# ------------------------------------------------------------------------- plotting
def require_matplotlib():
    """Import matplotlib (for :func:`plot_play`); raise ImportError with the message
    ``... pip install matplotlib`` when it is missing."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        raise ImportError(f"plotting needs matplotlib: {MATPLOTLIB_HINT}") from None
    return matplotlib


def plot_play(reviews, path, *, title: str | None = None, ascii: bool = False,
              inputs=()) -> str:
    """Draw the double-dummy score (rule 23, points, playing team's side) through the play,
    card by card, and write it to ``path`` as a PNG; returns the path.

    The line starts at the score before the first card (x = 0) and takes the value after each
    card (x = its number); tricks are shaded in turn; a zero line separates made from nat
    (rule 25); each mistake (cost > 0) is marked with its card, in the colour of the
    player's team (turning points with a larger marker).  Uses matplotlib's Agg canvas
    directly, so it never changes the global backend.  The file is written atomically and
    never over one of ``inputs`` (:func:`kraken_solver.outputs.save_figure`).  Raises
    ImportError (``pip install matplotlib``) when matplotlib is missing, OutputError (a
    KrakenError naming the file) when it cannot or may not be written."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from .formatting import card_text

    reviews = list(reviews)
    fig = Figure(figsize=(10, 4.8), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    if reviews:
        xs = [0] + [r.number for r in reviews]
        ys = [reviews[0].value_before] + [r.value_after for r in reviews]
        last_trick = reviews[-1].trick
        for t in range(1, last_trick + 1):
            nums = [r.number for r in reviews if r.trick == t]
            if t % 2 == 0:
                ax.axvspan(min(nums) - 0.5, max(nums) + 0.5, color="0.93", zorder=0)
        ax.axhline(0, color="0.4", linewidth=0.8, zorder=1)
        ax.step(xs, ys, where="post", color="black", linewidth=1.6, zorder=2,
                label="double-dummy score")
        ax.plot(xs, ys, "o", color="black", markersize=2.5, zorder=3)
        colours = {"N-S": "tab:red", "E-W": "tab:blue"}
        used = set()
        for r in reviews:
            if not r.mistake:
                continue
            label = None
            if r.team not in used:
                used.add(r.team)
                label = f"mistake by {r.team}"
            ax.plot([r.number], [r.value_after], "v" if r.playing else "^",
                    color=colours[r.team], markersize=11 if r.turned else 8, zorder=4,
                    label=label)
            ax.annotate(f"{r.seat} {card_text(r.card, ascii)}: cost {r.cost}"
                        + (" (turned)" if r.turned else ""),
                        (r.number, r.value_after), textcoords="offset points",
                        xytext=(4, 8 if r.value_after >= r.value_before else -14), fontsize=8,
                        color=colours[r.team])
        ax.set_xlim(-0.5, max(xs) + 0.5)
        ticks = [r.number for r in reviews if r.number == 1 or
                 r.trick != reviews[r.number - 2].trick]
        ax.set_xticks([t - 1 for t in ticks] + [max(xs)])
        ymin, ymax = min(ys + [0]), max(ys + [0])
        pad = max(10, (ymax - ymin) * 0.12)
        ax.set_ylim(ymin - pad, ymax + pad)
        ax.text(0.995, 0.98, "made", transform=ax.transAxes, ha="right", va="top",
                fontsize=8, color="0.4")
        ax.text(0.995, 0.02, "nat", transform=ax.transAxes, ha="right", va="bottom",
                fontsize=8, color="0.4")
        ax.legend(loc="upper left", fontsize=8)
    ax.set_xlabel("cards played (shaded: every other trick)")
    ax.set_ylabel("score, playing team's side (points)")
    if title:
        # as plain text: a file name such as 'p$x$.txt' is no math (parse_math: matplotlib 3.5)
        ax.set_title(title, fontsize=10, parse_math=False)
    ax.grid(axis="y", color="0.85", linewidth=0.6)
    fig.tight_layout()
    path = os.fspath(path)
    from .outputs import save_figure
    return save_figure(fig, path, inputs=inputs)
