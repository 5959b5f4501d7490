"""Trump choice by the bots (RULES.md rule 3: the chooser must name a trump; no pass).

Each function takes a :class:`~kraken_solver.bots.view.TrumpView` (the chooser's cards, the
rules, who leads) and returns a suit letter ``"S" "H" "D" "C"``:

- :func:`random_trump`: a suit drawn uniformly, seeded by the bot's seed and the view;
- :func:`rule_trump`: a simple rule players use (:mod:`kraken_solver.game.choice`; the
  ``heuristic`` bot's is ``"jack and nine"``: a suit with both jack and nine, else one with
  the jack, then the longest, then the most trump points);
- :func:`advised_trump`: the best mean double-dummy score over N layouts of the other 24
  cards consistent with the hand (as ``kraken-advise``; the layouts of
  :mod:`kraken_solver.playerview.layouts`, drawn from the bot's seed and the view);
- :func:`dd_trump` (CHEATS, sees all four hands): the double-dummy best trump of the deal.

Ties go to the suit first in the order S, H, D, C.
"""

from __future__ import annotations

import numpy as np

from ..game.cards import SUITS
from ..game.choice import choose_by_rule
from .view import view_seed

__all__ = [
    "HEURISTIC_RULE",
    "advised_scores",
    "advised_trump",
    "dd_trump",
    "random_trump",
    "rule_trump",
]

#: the trump-choice rule of the ``heuristic`` bot
HEURISTIC_RULE = "jack and nine"


def random_trump(seed: int, view) -> str:
    """A suit drawn uniformly from the decision's SeedSequence (seed and view)."""
    rng = np.random.default_rng(view_seed(seed, view))
    return SUITS[int(rng.integers(0, 4))]


def rule_trump(view, rule: str = HEURISTIC_RULE) -> str:
    """The suit ``rule`` (a name of :data:`kraken_solver.game.choice.SIMPLE_RULES`) picks for
    the chooser's hand.  Raises KrakenError for an unknown rule."""
    return SUITS[choose_by_rule(view.hand, rule)]


def advised_scores(view, samples: int, seed: int, searcher) -> np.ndarray:
    """The double-dummy scores (points, the playing team's side) of every trump in each of
    ``samples`` layouts consistent with the chooser's hand: int64 array [samples, 4].  The
    layouts are draws ``0 .. samples-1`` of :class:`~kraken_solver.playerview.layouts.Layouts`
    (no card played) from the decision's SeedSequence."""
    from ..engine.trumps import solve_trumps
    from ..game.deal import Deal
    from ..playerview.layouts import Layouts
    from ..playerview.observation import Observation

    obs = Observation(seat=view.seat, hand=view.hand, size=view.size, cards=view.cards,
                      trump=None, first=view.first, rules=view.rules)
    layouts = Layouts(obs).draws(view_seed(seed, view), 0, samples)
    out = np.zeros((samples, 4), dtype=np.int64)
    for i, hands in enumerate(layouts):
        for r in solve_trumps(searcher, Deal(tuple(hands)), view.first, view.rules,
                              pit=False):
            out[i, r.trump] = r.score
    return out


def _best_for_chooser(view, means) -> str:
    """The suit of the best mean for the chooser's side: the highest where the chooser is on
    the playing team (rule 3), the lowest otherwise; ties S, H, D, C."""
    playing = (view.seat & 1) == (view.first & 1)
    top = max(means) if playing else min(means)
    return SUITS[next(s for s in range(4) if means[s] == top)]


def advised_trump(view, samples: int, seed: int, searcher) -> str:
    """The trump of the best mean score over ``samples`` consistent layouts
    (:func:`advised_scores`)."""
    scores = advised_scores(view, samples, seed, searcher)
    return _best_for_chooser(view, [int(scores[:, s].sum()) for s in range(4)])


def dd_trump(cheat, searcher) -> str:
    """CHEATS: the double-dummy best trump of the whole deal (``cheat.deal``; RULES.md rule
    23), for the chooser's side."""
    from ..engine.trumps import solve_trumps
    view = cheat.view
    scores = {r.trump: r.score for r in solve_trumps(searcher, cheat.deal, view.first,
                                                      view.rules, pit=False)}
    return _best_for_chooser(view, [scores[s] for s in range(4)])
