"""The board's solving session: one transposition table behind a lock, and the running hints.

One :class:`BoardSolver` a server process owns the
:class:`~kraken_solver.engine.solver.Searcher` (its transposition table is reused while the
user explores a deal; answers are cached, :data:`CACHE_ENTRIES`) behind a lock: a Searcher is
not thread-safe, and the server answers each request in a thread of its own; a request that
cannot have the lock within :data:`LOCK_WAIT_S` seconds gets :class:`BusyError`.  It answers
the value of every legal card, the trump table and a principal variation.

The player's-view hints (:meth:`BoardSolver.hint`) run apart, as jobs that belong to the
requests waiting on them (:mod:`kraken_solver.view.hints`: named per page, shared by identical
requests, cancelled when their clients have gone, a cheap lane and an expensive one, bounded),
over worker processes kept from hint to hint (stopped at once when a hint is cancelled), so
the double-dummy values and a hint's progress are answered while a hint runs.  Samples are
bounded by :data:`MAX_VIEW_SAMPLES` (:func:`check_view_samples`).
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict

from ..errors import KrakenError
from ..game.cards import SEATS, SUITS, card_str
from .hints import CHEAP_CARDS_LEFT, BusyError, HintCancelled, HintJob, HintLanes
from .query import Query, objective_word

#: answers kept for undo and redo (a few hundred bytes each)
CACHE_ENTRIES = 4096
#: how long a request waits for the solver while another one uses it, in seconds
LOCK_WAIT_S = 120.0
#: the most layouts a hint of the page may ask to draw (``samples``); without ``samples`` the
#: hint's own choice: every consistent layout up to 2,000, else 200 drawn.  So one hint
#: request solves at most 2,000 layouts, or draws at most 1,000 (the first lead: 38 s for
#: the score on two shared cores, twice that for the points; 200 layouts: 5 s and 10 s)
MAX_VIEW_SAMPLES = 1000
#: the seed of the page's sampled hints (the default of ``kraken-hint``)
HINT_SEED = 0
#: a hint job's or a page's name: letters, digits, ``-`` and ``_``
_JOB_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


# ------------------------------------------------------------------------------- solver
def hint_available() -> bool:
    """Whether the player's-view hint (``kraken_solver.playerview.hint.hint``) is installed."""
    try:
        from ..playerview import hint  # noqa: F401
    except ImportError:
        return False
    return hasattr(hint, "hint")


class BoardSolver:
    """The solver of one server process: one :class:`~kraken_solver.engine.solver.Searcher`, its
    table reused from request to request, behind a lock (a Searcher is not thread-safe), and
    the answers already given (undo and redo cost nothing)."""

    def __init__(self, searcher=None, *, lock_wait: float = LOCK_WAIT_S,
                 hint_workers: int | None = None):
        from ..engine.solver import Searcher
        self.searcher = searcher or Searcher()
        self.lock = threading.Lock()
        self.lock_wait = lock_wait
        self.cache: OrderedDict = OrderedDict()
        # the player's-view hints: their own thread and worker processes, not the lock above
        # (a hint of seconds never holds up the double-dummy values)
        self.hint_workers = hint_workers
        self.lanes = HintLanes()
        self._pool = None               # the hints' worker processes, kept from hint to hint

    def _cached(self, key, compute):
        hit = self.cache.get(key)
        if hit is not None:
            self.cache.move_to_end(key)
            return dict(hit, cached=True)
        if not self.lock.acquire(timeout=self.lock_wait):
            raise BusyError("the solver is busy with other requests; try again in a moment")
        try:
            hit = self.cache.get(key)       # another request may have computed it meanwhile
            if hit is not None:
                return dict(hit, cached=True)
            t0 = time.perf_counter()
            n0 = self.searcher.nodes
            out = compute()
            out["nodes"] = self.searcher.nodes - n0
            out["ms"] = round((time.perf_counter() - t0) * 1000, 1)
        finally:
            self.lock.release()
        self.cache[key] = out
        while len(self.cache) > CACHE_ENTRIES:
            self.cache.popitem(last=False)
        return dict(out, cached=False)

    def warm(self) -> None:
        """Load the compiled kernels (compiled on the very first run) with a tiny solve."""
        from ..engine.solver import Searcher
        from ..game.position import Position
        Searcher(tt_bits=8).value(Position("N:A... K... Q... J...", 0, 0), "score")

    def values(self, q: Query, objective: str = "score") -> dict:
        """The value of the position and of every legal card (rule 26) under ``objective``:
        ``{"objective", "value", "made", "card_values": {card: value}, "best_cards",
        "to_move", "nodes", "ms", "cached"}``."""
        from ..engine.solver import solve
        objective_word(objective)

        def compute():
            r = solve(q.deal, q.trump, q.first, rules=q.rules, objective=objective,
                      played=list(q.played), all_cards=True, pv=False,
                      searcher=self.searcher)
            return {"objective": objective, "value": r.value, "made": r.made,
                    "card_values": dict(r.card_values), "best_cards": list(r.best_cards),
                    "to_move": None if r.to_move is None else SEATS[r.to_move]}
        return self._cached(("values", q.key, objective), compute)

    def trumps(self, q: Query) -> dict:
        """The trump table of the fresh deal (rule 3): one row a trump, ``trump``, ``score``,
        ``made``, ``points``, ``best`` (the highest score)."""
        from ..engine.solver import trump_table
        f = q.fresh()

        def compute():
            rows = trump_table(f.deal, f.first, rules=f.rules, searcher=self.searcher)
            return {"first": SEATS[f.first], "rows": [
                {"trump": SUITS[r.trump], "score": r.score, "made": r.made, "points": r.points,
                 "best": r.best} for r in rows]}
        return self._cached(("trumps", f.deal.hands, f.first, f.rules), compute)

    def line(self, q: Query, objective: str = "score") -> dict:
        """A principal variation from the position to the end of the deal (rule 26):
        ``{"objective", "value", "pv": [card texts]}``."""
        from ..engine.solver import solve
        objective_word(objective)

        def compute():
            r = solve(q.deal, q.trump, q.first, rules=q.rules, objective=objective,
                      played=list(q.played), pv=True, searcher=self.searcher)
            return {"objective": objective, "value": r.value, "pv": list(r.pv)}
        return self._cached(("line", q.key, objective), compute)

    # -------------------------------------------------------------- the player's view
    def hint(self, q: Query, objective: str = "score", *, samples: int | None = None,
             job: str | None = None, client: str | None = None, gone=None) -> dict:
        """The player's-view hint for the player to move (:mod:`kraken_solver.playerview.hint`, the
        same layouts and means as ``hint(deal, trump, first, rules=..., played=..., objective=...,
        samples=samples, exact_limit=2000 when samples is given)``).

        ``samples``: None (the hint's own choice: every consistent layout when they number at
        most ``hint.EXACT_LIMIT`` (2,000), else ``hint.DEFAULT_SAMPLES`` (200) drawn) or 1 to
        :data:`MAX_VIEW_SAMPLES` layouts drawn (every one when they number at most 2,000).
        ``job``: the request's name for :meth:`hint_progress` and :meth:`cancel_hint`, per
        ``client`` (the page that asks: a new request of a page gives up that page's hints
        still waiting); ``gone()``: true once the request's connection has closed.  The
        job belongs to the requests waiting on it (:mod:`kraken_solver.view.hints`: shared by
        identical requests, cancelled when none is left, two lanes, bounded); expensive
        hints run over worker processes kept from hint to hint (a cancel stops them at once;
        the next hint starts new ones).

        Returns ``{"objective", "seat", "side", "hand" (as dealt, PBN suits), "holding",
        "played" (cards played), "declared" ({"playing_team": HR_D, "defenders": HR_O}, or
        None without hand roem),
        "exact", "layouts" (solved), "consistent" (the count, or None when not counted),
        "consistent_estimate" (whole), "allowed_by_play", "samples" (the layouts drawn; None
        when every layout was solved), "seed", "cards": {card: {"mean", "se", "p_made", "min",
        "max", "loss", "loss_se"}}, "best", "forced", "workers", "nodes", "ms", "cached"}``
        (points, the playing team's side, in the tools' number style; ``best`` the best for
        the player to move; ``forced``: the only legal card, nothing solved, ``cards``
        empty).  Raises HintCancelled when superseded, cancelled or abandoned, BusyError when
        the lanes are full, KrakenError for a job name in use, bad ``samples`` or a position
        the hint refuses (ObservationError)."""
        objective_word(objective)
        samples = check_view_samples(samples)
        key = ("hint", q.key, objective, samples)
        hit = self.cache.get(key)
        if hit is not None:
            self.cache.move_to_end(key)
            return dict(hit, cached=True)
        ticket, new = self.lanes.join(key, job, client)
        if new:
            self._start_job(ticket, q, objective, samples)
        out = self.lanes.wait(ticket, gone)
        if self.cache.get(key) is None:
            self.cache[key] = out
            while len(self.cache) > CACHE_ENTRIES:
                self.cache.popitem(last=False)
        return dict(out, cached=False)

    def _start_job(self, ticket, q: Query, objective: str, samples) -> None:
        """Plan the new job of ``ticket`` and hand it to its lane (cheap: few cards left, few
        layouts, or one legal card; else expensive), or fail it with the planning's error."""
        from ..playerview.hint import SMALL_JOB
        j = ticket.job
        try:
            obs, plan = self._plan_hint(q, samples)
        except BaseException as e:
            self.lanes.fail(j, e)
            return
        if plan is None:                # one legal card: nothing drawn or solved
            j.total, j.exact = 0, True
            j.run = lambda jj: self._forced_answer(obs, objective, ticket.t0)
            self.lanes.submit(j, "cheap")
            return
        j.total, j.exact = len(plan.chosen), plan.exact
        left = 4 * q.deal.size - len(q.played)
        cheap = left <= CHEAP_CARDS_LEFT or len(plan.chosen) <= SMALL_JOB
        j.run = lambda jj: self._solve_hint(plan, objective, samples, jj, cheap, ticket.t0)
        self.lanes.submit(j, "cheap" if cheap else "expensive")

    @staticmethod
    def _plan_hint(q: Query, samples):
        from ..playerview.hint import EXACT_LIMIT, plan_hint
        from ..playerview.observation import observe
        played = [card_str(c) for c in q.played]
        obs = observe(q.deal, q.trump, q.first, rules=q.rules, played=played)
        if len(obs.legal_now()) == 1:
            return obs, None
        return obs, plan_hint(obs, samples=samples, seed=HINT_SEED,
                              exact_limit=None if samples is None else EXACT_LIMIT)

    @staticmethod
    def _forced_answer(obs, objective: str, t0: float) -> dict:
        """The hint's answer where the player to move has one legal card (no layout drawn)."""
        played = [card_str(c) for c in obs.played]
        return {"objective": objective, "seat": SEATS[obs.seat],
                "side": "playing team" if (obs.seat & 1) == (obs.first & 1) else "defenders",
                "played": played, "forced": True, "exact": True, "layouts": 0, "cards": {},
                "best": [card_str(obs.legal_now()[0])], "samples": None, "seed": HINT_SEED,
                "workers": 1, "nodes": 0, "ms": round((time.perf_counter() - t0) * 1000, 1)}

    def _solve_hint(self, plan, objective: str, samples, job: HintJob, cheap: bool,
                    t0: float) -> dict:
        from ..playerview.hint import solve_plan
        from ..workers.pool import make_pool

        kw = {"objective": objective, "samples": samples, "seed": HINT_SEED, "progress": job,
              "t0": t0}
        if cheap or self.hint_workers == 1:
            h = solve_plan(plan, **kw)
        else:
            if self._pool is None:      # the first hint, or the one after a cancel
                self._pool = make_pool(self.hint_workers, None).__enter__()
            pool = self._pool
            with job.lock:
                if job.cancelled:
                    raise HintCancelled(f"the hint was cancelled: {job.why}")
                job.pool = pool
            try:
                h = solve_plan(plan, pool=pool, **kw)
            except BaseException:
                # cancelled (the workers were stopped) or broken: a new pool next time
                self._pool = None
                pool.terminate()
                raise
            finally:
                with job.lock:
                    job.pool = None
        keys = ("mean", "se", "p_made", "min", "max", "loss", "loss_se")
        cards = {c: {k: d[k] for k in keys} for c, d in
                 ((c, e.to_dict()) for c, e in h.cards.items())}   # the tools' number style
        return {"objective": objective, "seat": h.seat, "side": h.side, "hand": h.hand,
                "holding": h.holding, "played": list(h.played),
                "declared": None if h.declared is None else {
                    "playing_team": int(h.declared[0]), "defenders": int(h.declared[1])},
                "exact": bool(h.exact), "layouts": int(h.layouts),
                "consistent": None if h.consistent is None else int(h.consistent),
                "consistent_estimate": int(round(h.consistent_estimate)),
                "allowed_by_play": int(h.allowed_by_play), "samples": h.drawn,
                "seed": HINT_SEED, "cards": cards, "best": list(h.best), "forced": False,
                "workers": int(h.workers), "nodes": int(h.nodes),
                "ms": round((time.perf_counter() - t0) * 1000, 1)}

    def hint_progress(self, job: str, client: str | None = None) -> dict:
        """Where the hint ``job`` of ``client`` is: ``{"job", "state"`` (``"choosing"`` the
        layouts, ``"queued"``, ``"solving"``, ``"done"``, ``"cancelled"``, ``"failed"``),
        ``"done"`` and ``"total"`` (layouts solved and to solve; total None while choosing),
        ``"exact"``, ``"ms"`` (since it was asked for), ``"why"`` (why it was given up, or
        None)``}``.  A poll tells that the page is
        still there (:data:`~kraken_solver.view.hints.POLL_GRACE_S`).  Raises KrakenError for
        a job this client never asked for."""
        return self.lanes.ticket(job, client, poll=True).progress()

    def cancel_hint(self, job: str, client: str | None = None) -> dict:
        """Cancel the hint ``job`` of ``client`` (its workers are stopped at once when no
        other request waits on it): ``{"job", "cancelled"}`` (False when it had finished
        already, or this client has no such job)."""
        try:
            t = self.lanes.ticket(job, client)
        except KrakenError:
            return {"job": job, "cancelled": False}
        return {"job": job, "cancelled": self.lanes.leave(t, "the page cancelled it")}

    def close(self) -> None:
        """Cancel every hint still running or waiting (the server stops: their requests get
        HintCancelled "the server stopped") and end the lanes' threads and worker
        processes."""
        self.lanes.stop()
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate()


def check_view_samples(samples) -> int | None:
    """``samples`` of a hint the page asks for: None, or a whole number from 1 to
    :data:`MAX_VIEW_SAMPLES` (text is read as a number); raises KrakenError (``source``
    ``samples``) otherwise."""
    if samples is None or samples == "":
        return None
    if isinstance(samples, str):
        if not re.fullmatch(r"[0-9]{1,7}", samples.strip()):
            raise KrakenError(f"expected a number of layouts from 1 to {MAX_VIEW_SAMPLES:,}",
                              source="samples", token=samples)
        samples = int(samples)
    if isinstance(samples, bool) or not isinstance(samples, int) or \
            not 1 <= samples <= MAX_VIEW_SAMPLES:
        raise KrakenError(f"expected a number of layouts from 1 to {MAX_VIEW_SAMPLES:,} (the "
                          "page's bound on a hint's work)", source="samples",
                          token=str(samples))
    return samples
