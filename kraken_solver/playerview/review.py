"""A review of a played deal as each player saw it (``kraken-analyse --view player``).

The double-dummy review (:func:`kraken_solver.engine.analyse.analyse_play`) blames a player for
every card that was wrong with all four hands open.  Here every card played also gets its player's
hint at that moment (:mod:`kraken_solver.playerview.hint`: the player's own hand, the cards played
before and who played them, the hand roem declared before play), and so a *player's-view cost*: the
best card's mean score minus the played card's (for the playing team; the other way round for
the defenders), never negative.  Beside it stays the double-dummy cost of today's review.

Marks
    ``?``  a mistake from the player's view: the played card's mean is worse than the best
           card's, by more than 2 standard errors of the difference when the hint is sampled
           (paired over the same layouts), by anything when it is exact.
    ``~``  wrong double dummy (cost > 0) but no mistake from what the player saw: the card was
           the best (or as good as the best, within the sampling error) on that information.
    ``!``  the card turned the deal between made and nat (double dummy, as in the review).

Each decision with more than one legal card is a hint of ``samples`` layouts (100 by default):
exact when the consistent layouts number at most ``samples``, else ``samples`` drawn from
``SeedSequence(seed, spawn_key=(n,))`` for card number ``n``.  Values are ``score`` values
(RULES.md rule 23) in points from the playing team's side.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import numpy as np

from ..engine.analyse import TEAMS, CardReview, analyse_play
from ..errors import KrakenError
from ..game.cards import SEATS
from ..notation.numbers import points

__all__ = ["PlayerViewReview", "ViewStats", "ViewSummary", "review_player_view",
           "summarise_player_view", "plot_player_view", "player_view_figure",
           "DEFAULT_REVIEW_SAMPLES",
           "MISTAKE_SE"]

#: layouts a decision of the player's-view review solves (exact when there are fewer)
DEFAULT_REVIEW_SAMPLES = 100
VIEW_HEAD = "player's view"
#: a sampled card is a mistake when its loss exceeds this many standard errors
MISTAKE_SE = 2.0


@dataclass
class PlayerViewReview:
    """One played card, double dummy and as its player saw it (points, playing team's side).

    ``dd``: the :class:`~kraken_solver.engine.analyse.CardReview` (double-dummy values and cost).
    ``means``: card -> the mean score of each legal card over the player's layouts;
    ``best``: the card(s) of the best mean for the player; ``cost``: the player's-view cost of
    the played card (>= 0) and ``cost_se`` its standard error (0 when exact); ``exact``,
    ``layouts``: how the hint was made.  A forced card (the only legal one) needs no hint:
    it is trivially the best (``best`` is the card), its cost 0 is exact (``exact`` True)
    with no layout solved (``layouts`` 0), and it has no mean (``means`` empty);
    ``mistake``: a mistake from the player's view (module docstring); ``excused``: wrong
    double dummy but no mistake from the player's view."""

    dd: CardReview
    means: dict = field(default_factory=dict)
    best: list = field(default_factory=list)
    cost: float = 0.0
    cost_se: float = 0.0
    exact: bool = True
    layouts: int = 0
    seconds: float = 0.0
    nodes: int = 0

    def __post_init__(self):
        if self.forced and not self.best:
            self.best = [self.dd.card]

    @property
    def forced(self) -> bool:
        return len(self.dd.card_values) == 1

    @property
    def mistake(self) -> bool:
        if self.cost <= 0:
            return False
        return self.exact or self.cost > MISTAKE_SE * self.cost_se

    @property
    def excused(self) -> bool:
        return self.dd.mistake and not self.mistake

    @property
    def mark(self) -> str:
        return ("?" if self.mistake else "~" if self.excused else "") + \
            ("!" if self.dd.turned else "")

    def shown_cost(self) -> float:
        """The cost as the outputs give it: the difference of the best mean and the card's
        mean, each in the tools' number style (2 decimals), so that it adds up as read."""
        if self.forced or not self.cost:
            return 0.0
        return points(abs(points(_best_mean(self)) - points(self.means[self.dd.card])))

    def to_dict(self) -> dict:
        mean = self.means.get(self.dd.card)
        return {"mean": points(mean), "means": {c: points(v) for c, v in self.means.items()},
                "best": list(self.best), "cost": self.shown_cost(),
                "cost_se": points(self.cost_se), "exact": self.exact, "layouts": self.layouts,
                "forced": self.forced, "mistake": self.mistake, "excused": self.excused}


def review_player_view(deal, trump, first, *, rules=None, played, samples: int =
                       DEFAULT_REVIEW_SAMPLES, seed: int = 0, workers=None, scheduler=None,
                       searcher=None, progress=None, dd=None, pool=None
                       ) -> list[PlayerViewReview]:
    """Review every card of ``played`` double dummy and as its player saw it.

    ``deal``: the four hands as dealt (all given: a review knows the deal; each player's hint
    looks only at their own hand); ``trump``, ``first``, ``rules``, ``played``: as
    :func:`~kraken_solver.engine.analyse.analyse_play`; ``samples``: layouts a decision (module
    docstring); ``seed``: whole number >= 0; ``workers``/``scheduler``: as
    :func:`~kraken_solver.playerview.hint.hint` (one pool for the whole review, opened at the first
    decision that needs one; or ``pool``, an entered pool to use); ``dd``: the double-dummy
    review of the same play when already made (``analyse_play``'s records); ``progress``:
    called as ``progress(done, total)`` after each card.  Returns one
    :class:`PlayerViewReview` per card.  Raises the errors of ``analyse_play`` and
    KrakenError for bad ``samples``, ``seed`` or ``workers``."""
    import contextlib

    from ..dealing.seeded import check_seed
    from ..game.deal import as_deal
    from ..game.roem import hand_roem
    from ..workers.pool import make_pool
    from .hint import SMALL_JOB, check_counts, plan_hint, solve_plan
    from .observation import observe

    check_counts(samples, None, workers)
    seed = check_seed(seed)
    if isinstance(seed, np.random.SeedSequence):
        raise KrakenError("the review's seed is a whole number >= 0", token=repr(seed))
    if dd is None:
        dd = analyse_play(deal, trump, first, rules=rules, played=played, searcher=searcher)
    d = as_deal(deal)
    declared = tuple(hand_roem(d, trump, first, rules=rules))
    out = []
    with contextlib.ExitStack() as stack:
        for i, r in enumerate(dd):
            t0 = time.perf_counter()
            pr = PlayerViewReview(dd=r)
            if not pr.forced:
                obs = observe(d, trump, first, rules=rules, played=[x.card for x in dd[:i]],
                              declared=declared)
                plan = plan_hint(obs, samples=samples, exact_limit=samples,
                                 seed=np.random.SeedSequence(seed, spawn_key=(r.number,)))
                if pool is None and len(plan.chosen) > SMALL_JOB and (
                        scheduler is not None or workers != 1):
                    pool = stack.enter_context(make_pool(workers, scheduler))
                h = solve_plan(plan, objective="score",
                               pool=pool if len(plan.chosen) > SMALL_JOB else None)
                e = h.cards[r.card]
                pr.means = {c: x.mean for c, x in h.cards.items()}
                pr.best = list(h.best)
                pr.cost, pr.cost_se = e.loss, e.loss_se
                pr.exact, pr.layouts, pr.nodes = h.exact, h.layouts, h.nodes
            pr.seconds = time.perf_counter() - t0
            out.append(pr)
            if progress is not None:
                progress(i + 1, len(dd))
    return out


@dataclass
class ViewStats:
    """Totals of a player or a team: ``cards``; double dummy ``dd_mistakes`` and ``dd_cost``
    (points); from the player's view ``mistakes``, ``excused`` (wrong double dummy, not a
    mistake from the player's view) and ``cost`` (points, a sum of means)."""

    cards: int = 0
    dd_mistakes: int = 0
    dd_cost: int = 0
    mistakes: int = 0
    excused: int = 0
    cost: float = 0.0

    def add(self, r: PlayerViewReview) -> None:
        self.cards += 1
        self.dd_mistakes += r.dd.mistake
        self.dd_cost += r.dd.cost
        self.mistakes += r.mistake
        self.excused += r.excused
        self.cost += r.cost

    def to_dict(self) -> dict:
        return {"cards": self.cards, "dd_mistakes": self.dd_mistakes, "dd_cost": self.dd_cost,
                "mistakes": self.mistakes, "excused": self.excused, "cost": points(self.cost)}


@dataclass
class ViewSummary:
    """``players`` (seat -> :class:`ViewStats`, every seat) and ``teams`` (``"N-S"``,
    ``"E-W"`` -> the sums of their players)."""

    players: dict
    teams: dict

    def to_dict(self) -> dict:
        return {"players": {k: v.to_dict() for k, v in self.players.items()},
                "teams": {k: v.to_dict() for k, v in self.teams.items()}}


def summarise_player_view(reviews) -> ViewSummary:
    """Per player and per team totals of a player's-view review."""
    players = {s: ViewStats() for s in SEATS}
    teams = {t: ViewStats() for t in TEAMS}
    for r in reviews:
        players[r.dd.seat].add(r)
        teams[r.dd.team].add(r)
    return ViewSummary(players, teams)


def plot_player_view(reviews, path, *, title: str | None = None, ascii: bool = False,
                     inputs=()) -> str:
    """Draw :func:`player_view_figure` and write it to ``path`` as a PNG (through
    :func:`kraken_solver.notation.outputs.save_figure`); returns the path.  Raises ImportError
    without
    matplotlib, OutputError when the file cannot be written."""
    from ..notation.outputs import save_figure
    fig = player_view_figure(reviews, title=title, ascii=ascii)
    return save_figure(fig, os.fspath(path), inputs=inputs)


#: marker sizes (points) of the player's-view plot
_MISTAKE_SIZE = 9
_EXCUSED_SIZE = 9


def player_view_figure(reviews, *, title: str | None = None, ascii: bool = False):
    """The player's-view review as a matplotlib Figure (Agg canvas) of two panels: above, the
    double-dummy score through the play (rule 23, points, playing team's side) with the
    player's-view mistakes (filled triangles in the team's colour, each labelled with its
    seat and card) and the cards wrong double dummy but excused from the player's view
    (hollow circles) marked; below, each card's double-dummy cost (grey) and player's-view
    cost (the team's colour, with its standard error).  The legend sits below the panels and
    every label where it covers no marker, no other label and nothing outside the panel
    (:func:`kraken_solver.notation.plotting.place_labels`); the title is wrapped to the figure's
    width.  The labels are in ``fig.mistake_labels``.  Raises ImportError without
    matplotlib."""
    from ..engine.analyse import require_matplotlib
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from ..notation.plotting import (fit_title, freeze_layout, line_segments, mark_boxes,
                                     place_labels)
    from ..notation.text import card_text

    reviews = list(reviews)
    width = 10.0
    fig = Figure(figsize=(width, 7), dpi=100)
    FigureCanvasAgg(fig)
    top = fig.add_axes((0.08, 0.5, 0.9, 0.4))
    low = fig.add_axes((0.08, 0.1, 0.9, 0.3), sharex=top)
    colours = {"N-S": "tab:red", "E-W": "tab:blue"}
    handles = []
    if reviews:
        dd = [r.dd for r in reviews]
        xs = [0] + [r.number for r in dd]
        ys = [dd[0].value_before] + [r.value_after for r in dd]
        for t in range(1, dd[-1].trick + 1):
            nums = [r.number for r in dd if r.trick == t]
            if t % 2 == 0:
                for ax in (top, low):
                    ax.axvspan(min(nums) - 0.5, max(nums) + 0.5, color="0.93", zorder=0)
        top.axhline(0, color="0.4", linewidth=0.8, zorder=1)
        top.step(xs, ys, where="post", color="black", linewidth=1.6, zorder=2)
        handles.append(Line2D([], [], color="black", linewidth=1.6,
                              label="double-dummy score after each card"))
        used = set()
        for r in reviews:
            c = colours[r.dd.team]
            if r.mistake:
                marker = "v" if r.dd.playing else "^"
                top.plot([r.dd.number], [r.dd.value_after], marker, color=c,
                         markersize=_MISTAKE_SIZE, zorder=4)
                if ("m", r.dd.team) not in used:
                    handles.append(Line2D([], [], marker=marker, linestyle="", color=c,
                                          markersize=_MISTAKE_SIZE,
                                          label=f"mistake from {r.dd.team}'s view"))
                used.add(("m", r.dd.team))
            elif r.excused:
                top.plot([r.dd.number], [r.dd.value_after], "o", markerfacecolor="none",
                         markeredgecolor=c, markersize=_EXCUSED_SIZE, zorder=4)
                if ("e", r.dd.team) not in used:
                    handles.append(Line2D([], [], marker="o", linestyle="",
                                          markerfacecolor="none", markeredgecolor=c,
                                          markersize=_EXCUSED_SIZE,
                                          label=f"{r.dd.team}: wrong double dummy, best "
                                                "from what they saw"))
                used.add(("e", r.dd.team))
        nums = np.array([r.dd.number for r in reviews], dtype=float)
        low.bar(nums - 0.2, [r.dd.cost for r in reviews], width=0.4, color="0.6")
        handles.append(Patch(color="0.6", label="double-dummy cost"))
        for team in TEAMS:
            mine = [r for r in reviews if r.dd.team == team]
            if mine:
                low.bar([r.dd.number + 0.2 for r in mine], [r.cost for r in mine], width=0.4,
                        color=colours[team], yerr=[r.cost_se for r in mine],
                        error_kw={"elinewidth": 0.8, "ecolor": "0.25"})
                handles.append(Patch(color=colours[team],
                                     label=f"player's-view cost, {team} (+- standard error)"))
        handles.append(Patch(color="0.93", label="shaded: every other trick"))
        top.set_xlim(-0.5, max(xs) + 0.5)
        ymin, ymax = min(ys + [0]), max(ys + [0])
        pad = max(10, (ymax - ymin) * 0.14)
        top.set_ylim(ymin - pad, ymax + pad)
        tallest = max([r.dd.cost for r in reviews] + [r.cost + r.cost_se for r in reviews]
                      + [1])
        low.set_ylim(0, tallest * 1.1)
        ticks = [r.number for r in dd if r.number == 1 or r.trick != dd[r.number - 2].trick]
        low.set_xticks([t - 1 for t in ticks] + [max(xs)])
    top.tick_params(labelbottom=False)
    top.set_ylabel("score, playing team's side", fontsize=9)
    low.set_ylabel("cost (points)", fontsize=9)
    low.set_xlabel("cards played", fontsize=9)
    top.grid(axis="y", color="0.85", linewidth=0.6)
    low.grid(axis="y", color="0.85", linewidth=0.6)
    # heights in inches: the title, the two panels, the x axis, the legend below
    title_lines = 0
    if title:
        title_lines = fit_title(top, title, fontsize=10).get_text().count("\n") + 1
    columns = 2
    rows = -(-len(handles) // columns)
    title_in = 0.12 + 0.2 * title_lines
    top_in, gap_in, low_in, axis_in = 3.3, 0.15, 2.0, 0.55
    legend_in = 0.2 * rows + 0.15
    height = title_in + top_in + gap_in + low_in + axis_in + legend_in
    fig.set_size_inches(width, height)
    y_top = 1 - (title_in + top_in) / height
    top.set_position((0.08, y_top, 0.9, top_in / height))
    y_low = y_top - (gap_in + low_in) / height
    low.set_position((0.08, y_low, 0.9, low_in / height))
    if handles:
        fig.legend(handles=handles, loc="upper left", ncol=columns, fontsize=8,
                   frameon=False, bbox_to_anchor=(0.07, y_low - axis_in / height))
    freeze_layout(fig)
    labels = []
    if reviews:
        marked = [r for r in reviews if r.mistake or r.excused]
        marks = mark_boxes(top, [r.dd.number for r in marked],
                           [r.dd.value_after for r in marked], _MISTAKE_SIZE)
        lines = line_segments(top, xs, ys, step=True)
        lines += line_segments(top, [-0.5, max(xs) + 0.5], [0, 0])
        labels = place_labels(
            top, [(r.dd.number, r.dd.value_after, f"{r.dd.seat} {card_text(r.dd.card, ascii)}",
                   _MISTAKE_SIZE / 2, {"color": colours[r.dd.team]})
                  for r in reviews if r.mistake],
            marks=marks, lines=lines, fontsize=8)
    fig.mistake_labels = labels
    return fig


# ------------------------------------------------------------------------- text, JSON, CSV
#: the columns ``kraken-analyse --view player --csv`` adds to the review's
CSV_FIELDS = ("view_mean", "view_best_cards", "view_best_mean", "view_cost", "view_cost_se",
              "view_exact", "view_layouts", "view_mistake", "view_excused")


def _best_mean(r: PlayerViewReview):
    return r.means.get(r.best[0]) if r.best else None


def format_player_view(dr, reviews, *, ascii: bool = False) -> str:
    """The text report of a player's-view review: the deal, rules, trump and hand roem, then
    every card with its double-dummy score before and after and its double-dummy cost, and
    beside them its player's view (the card's mean score over the layouts the player could not
    tell apart, the best card's, the player's-view cost and mark), each trick's winner, and the
    totals per player and team.  ``dr``: the double-dummy ``DealReview`` of the deal."""
    from ..notation.report import review_head, review_result, review_sheet_and_turns, trick_won_line
    from ..notation.text import card_text, team_name

    spec = dr.spec
    first = spec.first
    d_team, o_team = team_name(first), team_name(first + 1)
    sm = summarise_player_view(reviews)
    out = review_head(dr, ascii=ascii)      # the plain review's lines, made/nat included
    out += ["",
            "Play, as each player saw it.  dd: the double-dummy score (playing team's side) "
            "before and",
            "after the card, and its cost with all hands open.  view: the card's mean score "
            "over the",
            "layouts its player could not tell apart, the best card(s) and their mean, and "
            "the card's",
            "player's-view cost (+- standard error; exact: every layout solved; forced: "
            "the only",
            "legal card, the best with no layout to solve).",
            "? = mistake from the player's view, ~ = wrong double dummy but best from what "
            "the player",
            "saw, ! = turned made/nat.",
            f"    {'':>3}  {'':1}  {'':4}  {'double dummy':^21}   {VIEW_HEAD:^39}".rstrip(),
            f"    {'':>3}  {'':1}  {'card':<4}  {'before':>5} -> {'after':<5}  {'cost':>4}   "
            f"{'mean':>8}  {'best':<9} {'mean':>7}  cost"]
    by_trick: dict = {}
    for r in reviews:
        by_trick.setdefault(r.dd.trick, []).append(r)
    for t, rows in by_trick.items():
        out.append(f"  Trick {t}, {rows[0].dd.seat} leads:")
        for r in rows:
            d = r.dd
            line = (f"    {d.number:>3}  {d.seat}  {card_text(d.card, ascii):<4}"
                    f"  {d.value_before:+5d} -> {d.value_after:<+5d}  "
                    + (f"{d.cost:>4}" if d.cost else "    "))
            if r.forced:        # no mean: the only legal card, best with no layout
                line += f"   {'':>8}  {card_text(d.card, ascii):<9} {'':>7}  forced"
            else:
                best = " ".join(card_text(c, ascii) for c in r.best)
                # the cost shown is the difference of the two means shown (one decimal each)
                shown = abs(round(_best_mean(r), 1) - round(r.means[d.card], 1))
                if not r.cost:
                    cost = "best"
                elif r.exact:
                    cost = f"{shown:5.1f} exact"
                else:
                    cost = f"{shown:5.1f} +- {r.cost_se:4.1f}"
                line += (f"   {r.means[d.card]:+8.1f}  {best:<9} {_best_mean(r):+7.1f}  "
                         f"{cost}")
            out.append((line + f"  {r.mark}").rstrip())
        out.append(trick_won_line(dr, t))
    out.append("")
    out.append(review_result(dr))
    out += review_sheet_and_turns(dr, ascii=ascii)
    out.append("")
    out.append("Summary (dd cost: points given away with all hands open; view cost: mean "
               "score given away")
    out.append("on what the player saw; excused: wrong double dummy, no mistake from the "
               "player's view):")
    out.append("  player  team  side        cards  dd mistakes  dd cost  view mistakes  "
               "excused  view cost")

    def row(name, team, st):
        side = "playing" if team == d_team else "defending"
        return (f"  {name:<6}  {team:<4}  {side:<10}  {st.cards:>5}  {st.dd_mistakes:>11}  "
                f"{st.dd_cost:>7}  {st.mistakes:>13}  {st.excused:>7}  {st.cost:>9.1f}")
    for s in SEATS:
        out.append(row(s, team_name(SEATS.index(s)), sm.players[s]))
    for team in (d_team, o_team):
        out.append(row("team", team, sm.teams[team]))
    return "\n".join(out)


def player_view_dict(reviews) -> dict:
    """The player's-view part of a review's JSON: ``samples`` per decision is not repeated;
    ``cards``: one :meth:`PlayerViewReview.to_dict` a played card; ``players``, ``teams``:
    the totals of :class:`ViewStats`."""
    sm = summarise_player_view(reviews)
    return {"cards": [r.to_dict() for r in reviews], **sm.to_dict()}


def player_view_csv_cells(r: PlayerViewReview) -> list:
    """The :data:`CSV_FIELDS` cells of one played card."""
    # booleans True/False, as the review's own columns and kraken-batch write them
    if r.forced:            # one legal card: the best, exact, no layout and no mean
        return ["", r.dd.card, "", 0.0, 0.0, "True", 0, "False", "False"]
    return [points(r.means[r.dd.card]), " ".join(r.best), points(_best_mean(r)), r.shown_cost(),
            points(r.cost_se), str(bool(r.exact)), r.layouts, str(bool(r.mistake)),
            str(bool(r.excused))]
