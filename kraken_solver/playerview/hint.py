"""Advice from the player's own view: the value of each legal card over the layouts of the
unseen cards that the player cannot tell apart (``kraken-hint``).

Definition (``tests/data/README.md``, the single_dummy files)
    The player to move (the *observer*) knows their own hand as dealt, every card played so
    far and who played it, and the hand roem declared before play (RULES.md rule 17).  The
    consistent layouts of the unseen cards are those of :mod:`kraken_solver.playerview.layouts`.
    The value of a legal card is the mean, over the consistent layouts equally weighted, of its
    double-dummy value (rule 26; objective ``score`` or ``points``; points from the playing
    team's side, rule 27); P(made) is the share of consistent layouts in which its ``score``
    value is > 0.

Exact or sampled
    ``samples=None``: every consistent layout is solved when they number at most
    :data:`EXACT_LIMIT` (2,000), else :data:`DEFAULT_SAMPLES` of them are drawn uniformly (with
    replacement) from ``SeedSequence(seed)`` (:meth:`Layouts.sample`).  Counting: the layouts
    the play allows are counted exactly; with hand roem on, the declared roem is a further
    test, applied by drawing layouts until more than the limit *different* consistent layouts
    have turned up (then there are more than the limit: sample), or by enumerating every layout
    the play allows when the draws do not settle it (at most ``layouts.ENUM_CAP``, a million,
    of them; beyond that, which takes a declared roem so rare that 100,000 draws do not find
    2,000 different layouts giving it, the hint is sampled without a count).  A declared roem
    that no draw gives in 20,000 draws, or so rare that the sample would take more than a
    million draws, is an error (ObservationError: impossible or too rare to sample).
    ``samples=N``: N layouts drawn uniformly, whatever their number; ``exact_limit=L`` with it
    solves every layout instead when they number at most L.

Work
    The layouts are drawn in the calling process (so they never depend on the workers) and
    solved in chunks over :func:`kraken_solver.workers.pool.make_pool` (local processes or a Dask
    cluster); a small job (at most :data:`SMALL_JOB` layouts, or ``workers=1``) is solved in
    this process.  For each layout one :class:`~kraken_solver.engine.solver.Searcher` values every
    legal card in turn (each card's value the next one's guess), then, with ``both``, every
    card's value of the other objective, then the pit tests (other rules: a new table
    generation), so the cards of a layout share the transposition table.  Results are put
    together in layout order: the same for any number of workers or a cluster.
"""

from __future__ import annotations

import dataclasses
import math
import resource
import time
from dataclasses import dataclass, field

import numpy as np

from ..dealing.seeded import check_seed
from ..errors import KrakenError
from ..game.cards import SEATS, SUITS, card_str, hand_text, is_int
from ..game.rules import Rules
from ..limits import MAX_HINT_SAMPLES
from ..notation import numbers
from .layouts import ENUM_CAP, GIVE_UP_AFTER, MAX_DRAWS, Layouts
from .observation import Observation, observe

__all__ = ["hint", "Hint", "CardEstimate", "HintPlan", "plan_hint", "solve_plan", "forced_hint",
           "choose_layouts", "EXACT_LIMIT", "DEFAULT_SAMPLES", "MAX_SAMPLES", "SMALL_JOB"]

#: ``samples=None`` solves every consistent layout when they number at most this
EXACT_LIMIT = 2000
#: ``samples=None`` draws this many layouts when there are more than :data:`EXACT_LIMIT`
DEFAULT_SAMPLES = 200
#: the most layouts one hint solves (``limits.MAX_HINT_SAMPLES``)
MAX_SAMPLES = MAX_HINT_SAMPLES
#: a job of at most this many layouts is solved in the calling process (no pool to start)
SMALL_JOB = 24
#: draws made to tell whether more than the limit layouts give the declared roem: this many
#: per layout of the limit, and at least ``ROEM_BUDGET_MIN``
ROEM_BUDGET_PER_LAYOUT = 50
ROEM_BUDGET_MIN = 20_000


@dataclass
class CardEstimate:
    """One legal card's value over the layouts solved (points, the playing team's side).

    - ``mean``, ``se``: the mean of the ``objective`` value and its standard error (0 when
      exact); ``sum`` (int): their sum over the ``n`` layouts (``mean == sum / n``).
    - ``min``, ``max``: the lowest and highest value over the layouts.
    - ``made``, ``p_made``: the layouts in which the card's ``score`` value is > 0, and their
      share; ``mean_score``, ``mean_points``: the means of both values (``mean_points`` is
      None when not computed: objective ``score`` without ``both``).
    - ``pit``, ``p_pit``: the layouts in which the playing team can still force every trick
      after the card (double dummy, :func:`kraken_solver.engine.trumps.forces_pit`), and their
      share.
    - ``loss``: how much worse the card is for the observer than the best card, ``>= 0``
      (best mean minus mean for the playing team, mean minus best mean for the defenders);
      ``loss_se``: its standard error over the same layouts (paired; 0 when exact).
    - ``best``: the card is one of the best.
    """

    card: str
    n: int
    sum: int
    mean: float
    se: float
    min: int
    max: int
    made: int
    p_made: float
    mean_score: float | None = None
    mean_points: float | None = None
    pit: int | None = None
    p_pit: float | None = None
    loss: float = 0.0
    loss_se: float = 0.0
    best: bool = False

    def to_dict(self) -> dict:
        """JSON-ready, numbers in the tools' style (:mod:`kraken_solver.notation.numbers`):
        points to 2 decimals, shares to 3, counts whole."""
        d = dataclasses.asdict(self)
        for k in ("mean", "se", "mean_score", "mean_points", "loss", "loss_se"):
            d[k] = numbers.points(d[k])
        for k in ("p_made", "p_pit"):
            d[k] = numbers.share(d[k])
        return d


@dataclass
class Hint:
    """What :func:`hint` found for the player to move.

    - ``seat``: the observer (``"N"``..); ``side``: ``"playing team"`` or ``"defenders"``;
      ``hand``: their hand as dealt, ``holding``: what they hold now (PBN suits ``S.H.D.C``).
    - ``exact``: every consistent layout was solved; ``layouts``: the layouts solved (all of
      them when exact, else the sample size); ``consistent``: the number of consistent layouts
      when counted (None when not); ``allowed_by_play``: the layouts that make every play
      legal, before the declared roem is tested (exact); ``consistent_estimate``: the count,
      or when not counted its estimate from the share of draws that gave the declared roem
      (None for a forced card with a declared roem: nothing was drawn).
    - ``cards``: card text (``"HK"``) -> :class:`CardEstimate`, by suit then power;
      ``best``: the card(s) of the best mean for the observer (the highest for the playing
      team, the lowest for the defenders; ties kept).
    - ``forced``: the observer holds one legal card (RULES.md rules 8, 9, 9a).  :func:`hint`
      still values it over the layouts (the definition's mean); the tools ask
      :func:`forced_hint` instead, which solves nothing (``layouts`` 0, ``cards`` empty).
    - ``values``: array [layouts, cards] (int64) of the ``objective`` values in the order of
      ``cards``; ``scores``: the ``score`` values; ``layout_hands``: the layouts solved (four
      masks each, the hands as dealt), in order.
    """

    seat: str
    side: str
    trump: str
    first: str
    rules: Rules
    objective: str
    played: list
    declared: tuple | None
    hand: str
    holding: str
    exact: bool
    layouts: int
    consistent: int | None
    allowed_by_play: int
    consistent_estimate: float | None
    samples: int | None
    seed: object
    cards: dict
    best: list
    nodes: int = 0
    seconds: float = 0.0
    workers: int = 1
    forced: bool = False
    values: np.ndarray = field(default=None, repr=False)
    scores: np.ndarray = field(default=None, repr=False)
    layout_hands: list = field(default=None, repr=False)

    @property
    def drawn(self) -> int | None:
        """The layouts drawn at random (the sample size), None when every layout was solved
        (exact) or none was (forced): what the ``samples`` field of the JSON says."""
        return None if self.exact else self.layouts

    def to_dict(self) -> dict:
        """JSON-ready dict (no per-layout arrays; numbers in the tools' style, and
        ``samples`` the layouts drawn, :attr:`drawn`).  Pairs are named by side, as in every
        command's JSON: ``playing_team`` and ``defenders`` name the teams (``"N-S"``,
        ``"E-W"``), ``declared`` is ``{"playing_team": 20, "defenders": 0}`` (or None)."""
        first = SEATS.index(self.first)
        teams = ("N-S", "E-W")
        return {
            "seat": self.seat, "side": self.side, "trump": self.trump, "first": self.first,
            "playing_team": teams[first % 2], "defenders": teams[(first + 1) % 2],
            "rules": self.rules.name, "rules_options": self.rules.to_dict(),
            "objective": self.objective, "played": list(self.played),
            "declared": None if self.declared is None else {
                "playing_team": int(self.declared[0]), "defenders": int(self.declared[1])},
            "hand": self.hand, "holding": self.holding, "exact": self.exact,
            "layouts": self.layouts, "consistent": self.consistent,
            "allowed_by_play": self.allowed_by_play,
            "consistent_estimate": numbers.whole(self.consistent_estimate),
            "samples": self.drawn,
            "seed": self.seed if is_int(self.seed) else str(self.seed),
            "cards": {k: v.to_dict() for k, v in self.cards.items()}, "best": list(self.best),
            "nodes": self.nodes, "seconds": numbers.seconds(self.seconds),
            "workers": self.workers, "forced": self.forced,
        }


# ----------------------------------------------------------------------------- choosing
def choose_layouts(lay: Layouts, *, samples: int | None, seed, exact_limit: int | None):
    """The layouts to solve: ``(list of layouts, exact, consistent count or None, the count
    or its estimate)`` (module docstring: "Exact or sampled").  Raises ObservationError for
    a declared roem no layout gives (or one too rare to sample)."""
    n0 = lay.count_plays()
    if samples is None:
        limit = EXACT_LIMIT if exact_limit is None else exact_limit
        n_s = DEFAULT_SAMPLES
    else:
        limit, n_s = exact_limit, samples
    if not lay.obs.roem_test:
        if limit is not None and n0 <= limit:
            return list(lay.enumerate()), True, n0, float(n0)
        return lay.sample(n_s, seed), False, n0, float(n0)
    if limit is not None and n0 <= limit:
        every = list(lay.enumerate())
        if not every:
            raise lay.roem_error()
        return every, True, len(every), float(len(every))
    budget = MAX_DRAWS if limit is None else max(ROEM_BUDGET_PER_LAYOUT * limit,
                                                 ROEM_BUDGET_MIN)
    accepted, distinct, proved, draws = [], set(), limit is None, 0
    checkpoint = None
    for j, hands in lay.all_draws(seed, MAX_DRAWS):
        draws = j + 1
        if lay.roem_ok(hands):
            accepted.append(hands)
            if not proved:
                distinct.add(hands)
                proved = len(distinct) > limit
        if proved and len(accepted) >= n_s:
            break
        if not proved and draws >= budget:
            break
        if proved and checkpoint is None and draws >= GIVE_UP_AFTER:
            # the one test of the rate: at the first draw from GIVE_UP_AFTER on that the
            # count is settled (the same draw for any sample size: a suggestion holds)
            checkpoint = (len(accepted), draws)
            if lay.hopeless(len(accepted), draws, n_s, MAX_DRAWS):
                raise lay.rare_roem_error(len(accepted), draws, n_s, MAX_DRAWS, checkpoint)
        if not proved and not accepted and n0 > ENUM_CAP and draws >= GIVE_UP_AFTER:
            raise lay.rare_roem_error(0, draws)      # too many to enumerate, none found
    estimate = n0 * len(accepted) / draws if draws else 0.0
    if proved:
        if len(accepted) < n_s:
            raise lay.rare_roem_error(len(accepted), draws, n_s, MAX_DRAWS, checkpoint)
        return accepted[:n_s], False, None, estimate
    # the draws did not settle whether more than the limit give the declared roem
    if n0 <= ENUM_CAP:
        every = list(lay.enumerate())
        if not every:
            raise lay.roem_error()
        if len(every) <= limit:
            return every, True, len(every), float(len(every))
        return lay.sample(n_s, seed), False, len(every), float(len(every))
    if not accepted:
        raise lay.rare_roem_error(0, draws)
    return lay.sample(n_s, seed), False, None, estimate


# ----------------------------------------------------------------------------- solving
def layout_position(template, hands, gone: int, declared=None):
    """The position of ``template`` (the play replayed on one consistent layout) with the
    hands of another consistent layout ``hands`` (four masks as dealt): the same tricks,
    leader and cards on the table (they depend on the cards played only), the hands as dealt
    ``hands`` less ``gone`` (the cards played), and the declared hand roem (the same in every
    consistent layout).  ``tests/test_hint.py`` checks it against a replayed Position."""
    from ..game.deal import Deal
    p = template.copy()
    p.deal = Deal(tuple(hands))
    p.hands = np.array([int(h) & ~gone for h in hands], dtype=np.int64)
    if declared is not None:
        p.hr_d, p.hr_o = declared
    return p


def _solve_chunk(task):
    """Worker: value every legal card of the observer in each layout of the chunk.  Returns a
    dict with ``start`` and arrays [layouts, cards] ``score``, ``points`` (or None), ``pit``
    (or None), the ``nodes``, ``seconds`` and the worker's peak memory."""
    from ..engine.trumps import forces_pit, pit_ruled_out
    from ..game.deal import Deal
    from ..game.position import Position
    from ..workers.task import worker_searcher

    start, layouts, spec = task
    trump, first, rules, played, declared, objectives, pits = spec
    searcher = worker_searcher()
    t0 = time.perf_counter()
    n0 = searcher.nodes
    template = Position(Deal(tuple(layouts[0])), trump, first, rules, played)
    gone = 0
    for c in played:
        gone |= 1 << int(c)
    legal = template.legal()
    shape = (len(layouts), len(legal))
    out = {o: np.zeros(shape, dtype=np.int64) if o in objectives else None
           for o in ("score", "points")}
    pit = np.zeros(shape, dtype=bool) if pits else None
    for i, hands in enumerate(layouts):
        pos = layout_position(template, hands, gone, declared)
        children = []
        for c in legal:
            child = pos.copy()
            child.play(c)
            children.append(child)
        for obj in objectives:
            # each card's search takes the card before's value as its guess (an aspiration
            # window; the cards share the table): 7-10% fewer nodes than searching the
            # position first for a guess, at the first lead of 60 layouts
            guess = None
            for j, child in enumerate(children):
                guess = out[obj][i, j] = searcher.value(child, obj, guess=guess)
        if pits:
            # after the values: the pit test's rules start a new table generation; its search
            # only where the card's exact score leaves a forced pit possible
            for j, child in enumerate(children):
                pit[i, j] = (not pit_ruled_out(child, int(out["score"][i, j]))
                             and forces_pit(searcher, child))
    return {"start": start, "score": out["score"], "points": out["points"], "pit": pit,
            "nodes": searcher.nodes - n0, "seconds": time.perf_counter() - t0,
            "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}


def _chunks(layouts, workers: int):
    size = max(1, min(64, -(-len(layouts) // (4 * max(1, workers)))))
    for a in range(0, len(layouts), size):
        yield a, layouts[a:a + size]


def solve_layouts(layouts, spec, *, pool=None, progress=None) -> dict:
    """Solve ``layouts`` (:func:`_solve_chunk` per chunk) in ``pool`` (an entered pool of
    :func:`kraken_solver.workers.pool.make_pool`, or None: in this process); returns the chunks'
    arrays put together in layout order, the ``nodes`` and the peak worker memory."""
    results = []
    workers = pool.workers if pool is not None else 1
    tasks = ((a, chunk, spec) for a, chunk in _chunks(layouts, workers))
    runner = pool.run(_solve_chunk, tasks) if pool is not None else map(_solve_chunk, tasks)
    for res in runner:
        results.append(res)
        if progress is not None:
            progress.update(len(res["score"]))
    results.sort(key=lambda r: r["start"])

    def cat(key):
        if results[0][key] is None:
            return None
        return np.concatenate([r[key] for r in results])
    return {"score": cat("score"), "points": cat("points"), "pit": cat("pit"),
            "nodes": sum(r["nodes"] for r in results),
            "peak_mb": max(r["maxrss_mb"] for r in results)}


def _se(x: np.ndarray, exact: bool) -> float:
    if exact or len(x) < 2:
        return 0.0
    return float(x.std(ddof=1) / math.sqrt(len(x)))


def _estimates(obs: Observation, legal, solved: dict, objective: str, exact: bool) -> tuple:
    """The :class:`CardEstimate` of each legal card, and the best card(s)."""
    values = solved[objective]
    scores = solved["score"]
    n = values.shape[0]
    playing = (obs.seat & 1) == (obs.first & 1)
    sums = [int(values[:, j].sum()) for j in range(len(legal))]
    top = max(sums) if playing else min(sums)
    best_j = [j for j, s in enumerate(sums) if s == top]
    ref = values[:, best_j[0]]
    cards = {}
    for j, c in enumerate(legal):
        v = values[:, j]
        diff = (ref - v) if playing else (v - ref)
        est = CardEstimate(
            card=card_str(c), n=n, sum=sums[j], mean=sums[j] / n, se=_se(v, exact),
            min=int(v.min()), max=int(v.max()), made=int((scores[:, j] > 0).sum()),
            p_made=float((scores[:, j] > 0).mean()), mean_score=float(scores[:, j].mean()),
            loss=float(diff.sum()) / n, loss_se=_se(diff, exact), best=j in best_j)
        if solved.get("points") is not None:
            est.mean_points = float(solved["points"][:, j].mean())
        if solved.get("pit") is not None:
            est.pit = int(solved["pit"][:, j].sum())
            est.p_pit = float(solved["pit"][:, j].mean())
        cards[est.card] = est
    return cards, [card_str(legal[j]) for j in best_j]


@dataclass
class HintPlan:
    """The layouts a hint solves (:func:`plan_hint`): ``obs``, ``lay`` (:class:`Layouts`),
    ``chosen`` (the layouts to solve, in order), ``exact``, ``consistent`` (count or None),
    ``estimate`` (the count or its estimate)."""

    obs: Observation
    lay: Layouts
    chosen: list
    exact: bool
    consistent: int | None
    estimate: float


def plan_hint(obs: Observation, *, samples=None, seed=0, exact_limit=None) -> HintPlan:
    """Which layouts a hint of ``obs`` solves (module docstring: "Exact or sampled")."""
    lay = Layouts(obs)
    chosen, exact, consistent, estimate = choose_layouts(lay, samples=samples, seed=seed,
                                                         exact_limit=exact_limit)
    return HintPlan(obs, lay, chosen, exact, consistent, estimate)


def solve_plan(plan: HintPlan, *, objective: str = "score", samples=None, seed=0,
               both: bool = False, pool=None, progress=None, t0=None) -> Hint:
    """Solve the layouts of ``plan`` (in ``pool``, an entered pool of
    :func:`kraken_solver.workers.pool.make_pool`, or None: in this process) and return the
    :class:`Hint`.  ``both``: also the other objective's values (objective ``score``: the
    mean points)."""
    from ..game.deal import Deal
    from ..game.position import Position

    t0 = time.perf_counter() if t0 is None else t0
    obs = plan.obs
    if both or objective == "points":      # P(made) needs the score values
        objectives = (objective, "points" if objective == "score" else "score")
    else:
        objectives = ("score",)
    spec = (obs.trump, obs.first, obs.rules, tuple(obs.played),
            obs.declared if obs.roem_test else None, objectives, True)
    solved = solve_layouts(plan.chosen, spec, pool=pool, progress=progress)
    template = Position(Deal(tuple(plan.chosen[0])), obs.trump, obs.first, obs.rules,
                        obs.played)
    legal = template.legal()
    cards, best = _estimates(obs, legal, solved, objective, plan.exact)
    gone = sum(1 << c for c in obs.played)
    return Hint(
        seat=SEATS[obs.seat],
        side="playing team" if (obs.seat & 1) == (obs.first & 1) else "defenders",
        trump=SUITS[obs.trump], first=SEATS[obs.first], rules=obs.rules, objective=objective,
        played=[card_str(c) for c in obs.played],
        declared=obs.declared if obs.rules.hand_roem else None,
        hand=hand_text(obs.hand), holding=hand_text(obs.hand & ~gone), exact=plan.exact,
        layouts=len(plan.chosen), consistent=plan.consistent,
        allowed_by_play=plan.lay.count_plays(), consistent_estimate=float(plan.estimate),
        samples=samples, seed=seed, cards=cards, best=best, nodes=solved["nodes"],
        seconds=time.perf_counter() - t0, workers=pool.workers if pool is not None else 1,
        forced=len(legal) == 1, values=solved[objective], scores=solved["score"],
        layout_hands=plan.chosen)


def forced_hint(obs: Observation, card: int, *, objective: str = "score", samples=None,
                seed=0, t0=None) -> Hint:
    """The :class:`Hint` of a forced card (the only legal one, RULES.md rules 8, 9, 9a): no
    layout is drawn or solved (``layouts`` 0, ``cards`` empty, ``forced`` True), ``best`` is
    the card, and it is exact (there is nothing to estimate)."""
    t0 = time.perf_counter() if t0 is None else t0
    gone = sum(1 << c for c in obs.played)
    allowed = Layouts(obs).count_plays()
    counted = None if obs.roem_test else allowed
    return Hint(
        seat=SEATS[obs.seat],
        side="playing team" if (obs.seat & 1) == (obs.first & 1) else "defenders",
        trump=SUITS[obs.trump], first=SEATS[obs.first], rules=obs.rules, objective=objective,
        played=[card_str(c) for c in obs.played],
        declared=obs.declared if obs.rules.hand_roem else None,
        hand=hand_text(obs.hand), holding=hand_text(obs.hand & ~gone), exact=True, layouts=0,
        consistent=counted, allowed_by_play=allowed, consistent_estimate=counted,
        samples=samples, seed=seed, cards={}, best=[card_str(card)], forced=True,
        seconds=time.perf_counter() - t0)


def check_counts(samples, exact_limit, workers) -> None:
    """Bound the numbers a caller gives.  Raises KrakenError unless ``samples`` and
    ``exact_limit`` are None or whole numbers from 1 to :data:`MAX_SAMPLES` and ``workers``
    None or a whole number from 1 to :func:`~kraken_solver.workers.pool.max_workers` (the message
    of :func:`~kraken_solver.workers.pool.check_workers`, the one bound of every pool)."""
    if samples is not None and (not is_int(samples) or not 1 <= samples <= MAX_SAMPLES):
        raise KrakenError(f"the number of samples must be a whole number from 1 to "
                          f"{MAX_SAMPLES:,} (or not given: exact up to {EXACT_LIMIT:,} layouts)",
                          token=repr(samples))
    if exact_limit is not None and (not is_int(exact_limit)
                                    or not 1 <= exact_limit <= MAX_SAMPLES):
        raise KrakenError(f"exact_limit must be a whole number from 1 to {MAX_SAMPLES:,}",
                          token=repr(exact_limit))
    from ..workers.pool import check_workers
    check_workers(workers)


def hint(deal, trump, first, *, rules=None, played=(), objective: str = "score", samples=None,
         seed=0, declared=None, workers=None, scheduler=None, exact_limit=None,
         both: bool = False, progress=None) -> Hint:
    """The value of each legal card of the player to move, from that player's own view.

    ``deal``: Deal, PBN text or :class:`~kraken_solver.notation.partial.PartialDeal`; hands other
    than the player to move's may be hidden (``-``: ``"N:AJ9.K7.T8.A - - -"``); given, they
    are never looked at beyond what the player can know (which cards a small deal holds; the
    hand roem they declare when ``declared`` is None).  ``trump``, ``first``, ``rules``,
    ``played``: as :func:`~kraken_solver.engine.solver.solve` (a full deal when a hand is hidden;
    1 to 8 cards a hand when every hand is given).  ``objective``: ``"score"`` or
    ``"points"``, the value that ``mean`` and ``best`` use.  ``samples``: None (exact up to
    :data:`EXACT_LIMIT` layouts, else :data:`DEFAULT_SAMPLES` drawn) or N layouts drawn (1 to
    :data:`MAX_SAMPLES`); ``exact_limit``: solve every layout when they number at most this
    (default :data:`EXACT_LIMIT` with ``samples=None``, never with ``samples=N``).
    ``seed``: whole number >= 0 (``SeedSequence``).  ``declared``: (HR_D, HR_O), points, the
    hand roem declared (rule 17): required when a hand is hidden and hand roem is on.
    ``workers``: local processes (default one per core), or ``scheduler``: a Dask cluster
    (``"local:N"``, ``"tcp://HOST:PORT"``); a job of at most :data:`SMALL_JOB` layouts, or
    ``workers=1``, is solved in this process.  ``both``: also the mean of the other
    objective (with ``score``: ``mean_points``; a second search of every card, about twice
    the time; with ``points`` the score values are always found, for P(made)).
    ``progress``: a tqdm-like object with ``update(n)`` (layouts solved); its ``total`` is
    set to the layouts to solve.

    Returns a :class:`Hint` (module docstring for the definition).  Raises DealError,
    CardParseError, RulesError (bad input), IllegalCardError (the player's own card not held
    or not legal), :class:`~kraken_solver.playerview.observation.ObservationError` (no layout makes
    the play legal, sizes that cannot add up, a declared roem no layout gives), KrakenError (bad
    counts,
    a missing ``declared``, a bad objective)."""
    from ..game.position import check_objective
    from ..workers.pool import make_pool

    t0 = time.perf_counter()
    check_objective(objective)
    check_counts(samples, exact_limit, workers)
    seed = check_seed(seed)
    obs = observe(deal, trump, first, rules=rules, played=played, declared=declared)
    plan = plan_hint(obs, samples=samples, seed=seed, exact_limit=exact_limit)
    if progress is not None and hasattr(progress, "total"):
        progress.total = len(plan.chosen)
        if hasattr(progress, "refresh"):
            progress.refresh()
    kw = dict(objective=objective, samples=samples, seed=seed, both=both,
              progress=progress, t0=t0)
    if scheduler is None and (workers == 1 or len(plan.chosen) <= SMALL_JOB):
        return solve_plan(plan, **kw)
    with make_pool(workers, scheduler) as pool:
        return solve_plan(plan, pool=pool, **kw)
