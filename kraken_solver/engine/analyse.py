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

from dataclasses import dataclass, field

from ..errors import KrakenError
from ..game.cards import SEATS, as_seat, card_str, parse_card
from ..game.position import Position, as_played
from .solver import Searcher, as_searcher

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
    one (it may stop inside a trick); ``searcher``: the
    :class:`~kraken_solver.engine.solver.Searcher` to use (default: a new one).  One searcher serves
    the whole deal, so its transposition table carries over from card to card, and each search gets
    the previous value as its guess (which only steers the search; values stay exact).

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
    """Draw :func:`play_figure` and write it to ``path`` as a PNG through
    :func:`kraken_solver.notation.outputs.save_figure` (atomically, never over one of ``inputs``);
    returns the path.  Raises ImportError (``pip install matplotlib``) when matplotlib is
    missing, OutputError when the file cannot be written."""
    from ..notation.outputs import save_figure
    return save_figure(play_figure(reviews, title=title, ascii=ascii), path, what="the plot",
                       inputs=inputs)


def play_figure(reviews, *, title: str | None = None, ascii: bool = False):
    """The double-dummy score (rule 23, points) through the play, card by card, from the
    playing team's side, as a matplotlib Figure (Agg canvas).

    The line starts at the score before the first card (x = 0, a square; its value in the
    legend) and takes the
    value after each card (x = its number); tricks are shaded in turn and numbered along the
    top; a zero line separates made (above) from nat (below, rule 25), labelled outside the
    plot.  Each mistake (cost > 0) gets one numbered mark in the colour of its player's team
    (a larger one where it turned the deal between made and nat), and a numbered note below
    the plot says who played what, its cost and the best cards.  The legend sits below the
    plot, so it never hides the line; the title wraps to the figure's width.  Uses
    matplotlib's Agg canvas directly (the global backend is never changed).  Raises
    ImportError (``pip install matplotlib``) when matplotlib is missing."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.transforms import blended_transform_factory

    from ..notation.plotting import wrap_to_width
    from ..notation.text import card_text

    reviews = list(reviews)
    mistakes = [r for r in reviews if r.mistake]
    colours = {"N-S": "tab:red", "E-W": "tab:blue"}
    playing = None
    if reviews:
        r0 = reviews[0]
        playing = r0.team if r0.playing else TEAMS[1 - TEAMS.index(r0.team)]
    notes = []
    for k, r in enumerate(mistakes, start=1):
        best = " ".join(card_text(c, ascii) for c in r.best_cards)
        turned = (", turned made to nat" if r.value_before > 0 else ", turned nat to made") \
            if r.turned else ""
        notes.append((k, r, f"{k}. card {r.number} (trick {r.trick}): {r.seat} "
                            f"{card_text(r.card, ascii)}, cost {r.cost} for {r.team}{turned}; "
                            f"best {best}"))
    columns = 2 if len(notes) > 4 else 1
    note_rows = -(-len(notes) // columns)
    fig = Figure(figsize=(10, 6), dpi=100)
    FigureCanvasAgg(fig)
    # as plain text: a file name such as 'p$x$.txt' is no math; wrapped to the width
    title = wrap_to_width(fig, title, fontsize=10) if title else None
    title_lines = title.count("\n") + 1 if title else 0
    # heights in inches: title and trick numbers, the plot, the x label, the legend, notes
    shaded = bool(reviews) and reviews[-1].trick >= 2     # a trick shaded
    entries = 2 + shaded + len({r.team for r in mistakes})  # the legend's, in two columns
    top_in, plot_in, xlabel_in = 0.58 + 0.17 * title_lines, 3.4, 0.5
    legend_in = 0.2 * -(-entries // 2) + 0.15
    notes_in = 0.22 * note_rows + (0.25 if notes else 0.05)
    height = top_in + plot_in + xlabel_in + legend_in + notes_in
    fig.set_size_inches(10, height)
    bottom = 1 - (top_in + plot_in) / height
    ax = fig.add_axes((0.08, bottom, 0.82, plot_in / height))
    if reviews:
        xs = [0] + [r.number for r in reviews]
        ys = [reviews[0].value_before] + [r.value_after for r in reviews]
        last_trick = reviews[-1].trick
        spans = []
        for t in range(1, last_trick + 1):
            nums = [r.number for r in reviews if r.trick == t]
            spans.append((t, min(nums) - 0.5, max(nums) + 0.5))
            if t % 2 == 0:
                ax.axvspan(min(nums) - 0.5, max(nums) + 0.5, color="0.93", zorder=0)
        ax.axhline(0, color="0.4", linewidth=0.8, zorder=1)
        ax.step(xs, ys, where="post", color="black", linewidth=1.6, zorder=2)
        ax.plot(xs, ys, "o", color="black", markersize=2.5, zorder=3)
        ax.plot([0], [ys[0]], "s", color="black", markersize=6, zorder=3)
        for k, r, _ in notes:
            size = 15 if r.turned else 12
            ax.plot([r.number], [r.value_after], "o", color=colours[r.team],
                    markersize=size, zorder=4, markeredgecolor="white",
                    markeredgewidth=0.8)
            ax.text(r.number, r.value_after, str(k), color="white", fontsize=7 if k < 10 else 6,
                    ha="center", va="center", zorder=5, fontweight="bold")
        ax.set_xlim(-0.7, max(xs) + 0.7)
        ax.set_xticks(list(range(0, max(xs) + 1, 4)) if max(xs) >= 8 else xs)
        top = ax.secondary_xaxis("top")
        top.set_xticks([(a + b) / 2 for _, a, b in spans])
        top.set_xticklabels([str(t) for t, _, _ in spans], fontsize=8)
        top.tick_params(length=0)
        top.set_xlabel("trick", fontsize=8)
        ymin, ymax = min(ys + [0]), max(ys + [0])
        pad = max(10, (ymax - ymin) * 0.14)
        ax.set_ylim(ymin - pad, ymax + pad)
        side = blended_transform_factory(ax.transAxes, ax.transData)
        ax.text(1.01, 0, "made \u2191", transform=side, ha="left", va="bottom", fontsize=8,
                color="0.3")
        ax.text(1.01, 0, "nat \u2193", transform=side, ha="left", va="top", fontsize=8,
                color="0.3")
        handles = [Line2D([], [], color="black", linewidth=1.6,
                          label="double-dummy score after each card"),
                   Line2D([], [], marker="s", linestyle="", color="black", markersize=6,
                          label=f"start: {ys[0]:+d} before the first card"),
                   ] + ([Patch(color="0.93", label="shaded: every other trick")] if shaded
                        else [])
        handles += [Line2D([], [], marker="o", linestyle="", color=colours[t], markersize=8,
                           label=f"mistake by {t}, numbered as below (larger: turned made/nat)")
                    for t in TEAMS if any(r.team == t for r in mistakes)]
        fig.legend(handles=handles, loc="upper left", ncol=2, fontsize=8, frameon=False,
                   bbox_to_anchor=(0.07, 1 - (top_in + plot_in + xlabel_in) / height))
    ax.set_xlabel("cards played", fontsize=9)
    who = f"{playing}'s side, the playing team" if playing else "the playing team's side"
    ax.set_ylabel(f"score ({who}), points", fontsize=9)
    if title:
        ax.set_title(title, fontsize=10, parse_math=False, pad=22)
    ax.grid(axis="y", color="0.85", linewidth=0.6)
    y = 1 - (top_in + plot_in + xlabel_in + legend_in) / height
    for i, (_, r, text) in enumerate(notes):
        col, row = divmod(i, note_rows)
        fig.text(0.08 + col * 0.46, y - row * 0.22 / height, text, fontsize=8,
                 color=colours[r.team], va="top", parse_math=False)
    return fig
