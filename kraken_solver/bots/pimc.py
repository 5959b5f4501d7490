"""``pimc:N``: Perfect Information Monte Carlo card play, and ``advise:N`` trump choice.

PIMC (Ginsberg's GIB for bridge; Frank and Basin's critique of its "strategy fusion"): the
bot draws N layouts of the unseen cards consistent with its view (the hint's layouts,
:mod:`kraken_solver.playerview.layouts`: the voids and other cards the play rules out, the hand
sizes, the declared hand roem), values every legal card double dummy in each (RULES.md rule
26, objective ``score``, the playing team's side) and plays the card of the best mean: the
highest for the playing team, the lowest for the defenders; ties go to a seeded choice.

- A forced card (one legal card) is played without drawing or solving.
- When the layouts consistent with the view number at most N, every one is solved once (the
  mean is then exact), instead of drawing.
- The worlds of a decision: those of the seat's previous decision that are still consistent
  with the view (a sample that stays uniform over the new consistent set), topped up with
  fresh draws from a SeedSequence of the bot's seed and the view.  So the worlds are a
  function of the seed and the view alone (the previous decision's view is a prefix of this
  one: a bot that did not see the earlier moves recomputes the same chain); two deals that
  look the same from the seat get the same card with the same seed.
- Each world keeps its own :class:`~kraken_solver.engine.solver.Searcher` for the deal, so its
  transposition table serves the next move (most of that tree was searched).
- A declared roem too rare for the hint's sampler (no layout giving it in 20,000 draws: about
  one deal in 150 between bots) is sampled from the same distribution by
  :meth:`~kraken_solver.playerview.layouts.Layouts.sample_rare` (NumPy blocks, up to four
  million candidates).  A view whose layouts still cannot be drawn (a play no layout makes
  legal, a roem rarer still) raises :class:`~kraken_solver.playerview.observation.ObservationError`: the bot never plays a
  weaker card instead.

``advise:N`` names the trump of the best mean score over N layouts of the other 24 cards
(:func:`~kraken_solver.bots.trump_bots.advised_trump`); ``pimc:N`` chooses trump the same way.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict

import numpy as np

from ..game.cards import card_str, cards_of, sort_for_display
from .card_bots import seeded_pick
from .trump_bots import advised_trump
from .view import SeatView, legal_of_holding, observation_of, view_seed

__all__ = ["PIMC_TT_BITS", "AdviseBot", "PimcBot"]

#: the transposition table of each world's Searcher: 2**13 entries of 16 bytes (128 KiB)
PIMC_TT_BITS = 13
#: the deals (seat, hand, trump, first, rules) a bot keeps worlds for: one a seat it plays
DEALS_KEPT = 4


def prefix_view(view: SeatView, k: int) -> SeatView:
    """The view the same seat had after the first ``k`` cards of ``view.played`` (it was to
    move then): its holding then, the play so far, its legal cards then."""
    played = view.played[:k]
    holding = view.hand
    for c, s in zip(played, view.who[:k]):
        if s == view.seat:
            holding &= ~(1 << c)
    v = SeatView(seat=view.seat, hand=view.hand, holding=holding, played=played,
                 who=view.who[:k], trump=view.trump, first=view.first, chooser=view.chooser,
                 rules=view.rules, declared=view.declared, size=view.size, cards=view.cards,
                 legal=())
    legal = tuple(sort_for_display(cards_of(legal_of_holding(v)), view.trump))
    return dataclasses.replace(v, legal=legal)


def decision_points(view: SeatView) -> list[int]:
    """The plays ``k`` (cards played before) at which the seat of ``view`` chose a card among
    more than one, then the current one: the chain of decisions whose worlds lead to this
    one's."""
    points = []
    for k, s in enumerate(view.who):
        if s == view.seat and len(prefix_view(view, k).legal) > 1:
            points.append(k)
    points.append(len(view.played))
    return points


class PimcBot:
    """``pimc:N`` (module docstring).  ``layouts``: N, 1 to
    :data:`~kraken_solver.limits.MAX_PIMC_LAYOUTS`; ``seed``: whole number >= 0.
    ``last`` holds what the last decision saw: the worlds, whether they were every layout
    (``exact``), the mean of each card, the search nodes."""

    sees_all = False

    def __init__(self, layouts: int = 20, seed: int = 0):
        self.layouts = int(layouts)
        self.seed = int(seed)
        self.name = self.label = f"pimc:{self.layouts}"
        self.description = (f"Perfect Information Monte Carlo: {self.layouts} consistent "
                            "layouts, every legal card solved double dummy, best mean score")
        # deal key -> {decision digest: (worlds, exact)}; deal key -> {world: Searcher}
        self._worlds: OrderedDict = OrderedDict()
        self._searchers: dict = {}
        self._trump_searcher = None
        self.last: dict = {}

    # -- worlds
    @staticmethod
    def _deal_key(view: SeatView) -> tuple:
        return (view.seat, view.hand, view.trump, view.first, view.rules, view.declared,
                view.cards)

    def _deal_cache(self, view: SeatView) -> dict:
        key = self._deal_key(view)
        cache = self._worlds.get(key)
        if cache is None:
            cache = self._worlds[key] = {}
            while len(self._worlds) > DEALS_KEPT:
                self._worlds.popitem(last=False)
        self._worlds.move_to_end(key)
        return cache

    def worlds(self, view: SeatView) -> tuple[list, bool]:
        """The worlds (layouts: four masks as dealt) of the decision at ``view`` and whether
        they are every consistent layout (module docstring).  Raises ObservationError when
        they cannot be drawn."""
        cache = self._deal_cache(view)
        got = cache.get(view.digest())
        if got is not None:
            return got
        previous: list = []
        for k in decision_points(view):
            v = view if k == len(view.played) else prefix_view(view, k)
            d = v.digest()
            if d in cache:
                previous = cache[d][0]
                continue
            cache[d] = self._draw(v, previous)
            previous = cache[d][0]
        return cache[view.digest()]

    def _draw(self, view: SeatView, previous: list) -> tuple[list, bool]:
        from ..playerview.layouts import Layouts
        lay = Layouts(observation_of(view))
        n = self.layouts
        if lay.count_plays() <= n:
            every = list(lay.enumerate())
            if every:
                return every, True
            raise lay.roem_error()
        kept = [w for w in previous if lay.is_consistent(w)][:n]
        if len(kept) < n:
            from ..playerview.observation import DeclaredRoemError
            try:
                kept += lay.sample(n - len(kept), view_seed(self.seed, view))
            except DeclaredRoemError:
                # a declared roem too rare for the hint's sampler (once in a hundred deals or
                # so): the same distribution from NumPy blocks; it raises only when even
                # those find too few (never a weaker card from fewer worlds)
                kept += lay.sample_rare(n - len(kept), view_seed(self.seed, view))
        return kept, False

    def _searchers_for(self, view: SeatView, worlds) -> list:
        """A Searcher for each world, kept from the seat's earlier decisions of the deal (its
        table holds those searches); the worlds dropped take theirs with them."""
        from ..engine.solver import Searcher
        key = self._deal_key(view)
        old = self._searchers.pop(key, {})
        new = {}
        for w in worlds:
            w = tuple(w)
            new[w] = old.get(w) or new.get(w) or Searcher(tt_bits=PIMC_TT_BITS)
        self._searchers[key] = new
        for k in list(self._searchers):
            if k not in self._worlds:
                del self._searchers[k]
        return [new[tuple(w)] for w in worlds]

    def kept_worlds(self) -> int:
        """How many worlds the bot keeps a Searcher for (over its deals): each holds a table of
        ``2**PIMC_TT_BITS`` entries of 16 bytes and its buffers, about 155 KB (measured)."""
        return sum(len(kept) for kept in self._searchers.values())

    def forget(self) -> None:
        """Drop the kept worlds and their searchers (the next decision draws and solves
        afresh: the same card, more work)."""
        self._worlds.clear()
        self._searchers.clear()

    # -- deciding
    def card_means(self, view: SeatView) -> tuple[np.ndarray, list, bool, int]:
        """The double-dummy ``score`` of each legal card in each world: (int64 array
        [worlds, cards] in the order of ``view.legal``, the worlds, exact, nodes)."""
        from ..game.deal import Deal
        from ..game.position import Position
        from ..playerview.hint import layout_position

        worlds, exact = self.worlds(view)
        template = Position(Deal(tuple(worlds[0])), view.trump, view.first, view.rules,
                            view.played)
        gone = 0
        for c in view.played:
            gone |= 1 << c
        declared = view.declared if view.rules.hand_roem else None
        values = np.zeros((len(worlds), len(view.legal)), dtype=np.int64)
        nodes = 0
        for i, (hands, searcher) in enumerate(zip(worlds, self._searchers_for(view, worlds))):
            n0 = searcher.nodes
            pos = layout_position(template, hands, gone, declared)
            guess = None
            for j, c in enumerate(view.legal):
                child = pos.copy()
                child.play(c)
                guess = values[i, j] = searcher.value(child, "score", guess=guess)
            nodes += searcher.nodes - n0
        return values, worlds, exact, nodes

    def choose_card(self, view: SeatView) -> str:
        if len(view.legal) == 1:
            self.last = {"forced": True, "worlds": 0, "nodes": 0}
            return card_str(view.legal[0])
        values, worlds, exact, nodes = self.card_means(view)
        sums = values.sum(axis=0)
        top = sums.max() if view.playing else sums.min()
        best = [c for c, s in zip(view.legal, sums) if s == top]
        self.last = {"forced": False, "worlds": len(worlds), "exact": exact, "nodes": nodes,
                     "means": {card_str(c): float(s) / len(worlds)
                               for c, s in zip(view.legal, sums)}}
        return card_str(seeded_pick(self.seed, view, best))

    def choose_trump(self, view) -> str:
        if self._trump_searcher is None:
            from ..engine.solver import Searcher
            self._trump_searcher = Searcher()
        return advised_trump(view, self.layouts, self.seed, self._trump_searcher)


class AdviseBot:
    """``advise:N``: trump choice only: the trump of the best mean double-dummy score over N
    layouts of the other cards consistent with the chooser's hand (as ``kraken-advise``).
    ``samples``: N, 1 to :data:`~kraken_solver.limits.MAX_ADVISE_BOT_SAMPLES`."""

    sees_all = False

    def __init__(self, samples: int = 50, seed: int = 0):
        self.samples = int(samples)
        self.seed = int(seed)
        self.name = self.label = f"advise:{self.samples}"
        self.description = (f"trump of the best mean double-dummy score over {self.samples} "
                            "layouts (plays no card)")
        self._searcher = None

    def choose_trump(self, view) -> str:
        if self._searcher is None:
            from ..engine.solver import Searcher
            self._searcher = Searcher()
        return advised_trump(view, self.samples, self.seed, self._searcher)
