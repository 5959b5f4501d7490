"""The board's solving session: one transposition table behind a lock, and the running hints.

One :class:`BoardSolver` a server process owns the
:class:`~kraken_solver.engine.solver.Searcher` (its transposition table is reused while the
user explores a deal; answers are cached, :data:`CACHE_ENTRIES`) behind a lock: a Searcher is
not thread-safe, and the server answers each request in a thread of its own; a request that
cannot have the lock within :data:`LOCK_WAIT_S` seconds gets :class:`BusyError`.  It answers
the value of every legal card, the trump table and a principal variation.

The player's-view hints (:meth:`BoardSolver.hint`) run apart, one at a time in a thread of
their own over worker processes (kept from hint to hint; stopped at once when a hint is
cancelled), so the double-dummy values and a hint's progress are answered while a hint runs.
A :class:`HintJob` is named by the page (``job``, :data:`JOBS_KEPT` kept); a hint that is
cancelled or replaced by a later request of the same page raises :class:`HintCancelled`.
Samples are bounded by :data:`MAX_VIEW_SAMPLES` (:func:`check_view_samples`).
"""

from __future__ import annotations

import queue
import re
import threading
import time
from collections import OrderedDict

from ..errors import KrakenError
from ..game.cards import SEATS, SUITS, card_str
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
#: hint jobs remembered for their progress (finished ones are dropped oldest first)
JOBS_KEPT = 64
#: a hint job's or a page's name: letters, digits, ``-`` and ``_``
_JOB_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


class BusyError(KrakenError):
    """The solver stayed busy with other requests for :data:`LOCK_WAIT_S` seconds."""


class HintCancelled(KrakenError):
    """A player's-view hint that was given up: a later request of the same page replaced it,
    the page cancelled it, or the server stopped (status 409)."""


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
        self._jobs: OrderedDict = OrderedDict()
        self._jobs_lock = threading.Lock()
        self._job_count = 0
        self._hint_queue: queue.Queue = queue.Queue()
        self._hint_thread = None
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
             job: str | None = None, client: str | None = None) -> dict:
        """The player's-view hint for the player to move (:mod:`kraken_solver.playerview.hint`, the
        same layouts and means as ``hint(deal, trump, first, rules=..., played=..., objective=...,
        samples=samples, exact_limit=2000 when samples is given)``).

        ``samples``: None (the hint's own choice: every consistent layout when they number at
        most ``hint.EXACT_LIMIT`` (2,000), else ``hint.DEFAULT_SAMPLES`` (200) drawn) or 1 to
        :data:`MAX_VIEW_SAMPLES` layouts drawn (every one when they number at most 2,000).
        ``job``: the request's name for :meth:`hint_progress` and :meth:`cancel_hint`;
        ``client``: the page that asks: a new request of a page cancels that page's hints
        still running (a later click supersedes an earlier one).  Hints run one at a time in
        a thread of their own, over worker processes kept from hint to hint (a cancel stops
        them at once; the next hint starts new ones); a hint of at most ``hint.SMALL_JOB``
        (24) layouts is solved in that thread, as ``hint()`` does.

        Returns ``{"objective", "seat", "side", "hand" (as dealt, PBN suits), "holding",
        "played" (cards played), "declared" ({"playing_team": HR_D, "defenders": HR_O}, or
        None without hand roem),
        "exact", "layouts" (solved), "consistent" (the count, or None when not counted),
        "consistent_estimate" (whole), "allowed_by_play", "samples" (the layouts drawn; None
        when every layout was solved), "seed", "cards": {card: {"mean", "se", "p_made", "min",
        "max", "loss", "loss_se"}}, "best", "forced", "workers", "nodes", "ms", "cached"}``
        (points, the playing team's side, in the tools' number style; ``best`` the best for
        the player to move; ``forced``: the only legal card, nothing solved, ``cards``
        empty).  Raises HintCancelled when superseded or cancelled, KrakenError for bad
        ``samples`` or a position the hint refuses (ObservationError)."""
        objective_word(objective)
        samples = check_view_samples(samples)
        key = ("hint", q.key, objective, samples)
        hit = self.cache.get(key)
        if hit is not None:
            self.cache.move_to_end(key)
            return dict(hit, cached=True)
        j = self._new_job(job, client, key)
        j.run = lambda jj: self._compute_hint(q, objective, samples, jj)
        self._start_hint_thread()
        self._hint_queue.put(j)
        j.finished.wait()
        if j.error is not None:
            raise j.error
        out = j.result
        self.cache[key] = out
        while len(self.cache) > CACHE_ENTRIES:
            self.cache.popitem(last=False)
        return dict(out, cached=False)

    def _new_job(self, job, client, key) -> "HintJob":
        with self._jobs_lock:
            self._job_count += 1
            name = job or f"hint-{self._job_count}"
            if client is not None:
                for other in self._jobs.values():
                    if other.client == client and not other.finished.is_set():
                        other.cancel("a later request of the page replaced it")
            j = HintJob(name, client, key)
            self._jobs[name] = j
            self._jobs.move_to_end(name)
            while len(self._jobs) > JOBS_KEPT:
                self._jobs.popitem(last=False)
        return j

    def _start_hint_thread(self) -> None:
        with self._jobs_lock:
            if self._hint_thread is None or not self._hint_thread.is_alive():
                self._hint_thread = threading.Thread(target=self._hint_loop, daemon=True,
                                                     name="kraken-view hints")
                self._hint_thread.start()

    def _hint_loop(self) -> None:
        """The hint thread: one job at a time, in the order asked (a job cancelled while it
        waited is not started)."""
        while True:
            j = self._hint_queue.get()
            if j is None:
                return
            try:
                if j.cancelled:
                    raise HintCancelled(f"the hint was cancelled: {j.why}")
                j.result = j.run(j)
                j.state = "done"
            except BaseException as e:      # noqa: BLE001 - handed to the request thread
                if j.cancelled or isinstance(e, HintCancelled):
                    j.state = "cancelled"
                    j.error = e if isinstance(e, HintCancelled) else HintCancelled(
                        f"the hint was cancelled: {j.why}")
                else:
                    j.state = "failed"
                    j.error = e if isinstance(e, KrakenError) else KrakenError(
                        f"the hint failed: {type(e).__name__}: {e}")
            finally:
                j.finished.set()

    def _compute_hint(self, q: Query, objective: str, samples, job: "HintJob") -> dict:
        from ..playerview.hint import EXACT_LIMIT, SMALL_JOB, plan_hint, solve_plan
        from ..playerview.observation import observe
        from ..workers.pool import make_pool

        t0 = time.perf_counter()
        job.state = "choosing"
        played = [card_str(c) for c in q.played]
        obs = observe(q.deal, q.trump, q.first, rules=q.rules, played=played)
        legal = obs.legal_now()
        if len(legal) == 1:             # nothing to choose: no layout drawn or solved
            job.total, job.exact = 0, True
            return {"objective": objective, "seat": SEATS[obs.seat],
                    "side": "playing team" if (obs.seat & 1) == (obs.first & 1) else
                    "defenders", "played": played, "forced": True, "exact": True,
                    "layouts": 0, "cards": {}, "best": [card_str(legal[0])], "samples": None,
                    "seed": HINT_SEED, "workers": 1, "nodes": 0,
                    "ms": round((time.perf_counter() - t0) * 1000, 1)}
        plan = plan_hint(obs, samples=samples, seed=HINT_SEED,
                         exact_limit=None if samples is None else EXACT_LIMIT)
        job.total = len(plan.chosen)
        job.exact = plan.exact
        job.state = "solving"
        if job.cancelled:
            raise HintCancelled(f"the hint was cancelled: {job.why}")
        kw = dict(objective=objective, samples=samples, seed=HINT_SEED, progress=job, t0=t0)
        if len(plan.chosen) <= SMALL_JOB or self.hint_workers == 1:
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

    def hint_progress(self, job: str) -> dict:
        """Where the hint ``job`` is: ``{"job", "state"`` (``"queued"``, ``"choosing"`` the
        layouts, ``"solving"``, ``"done"``, ``"cancelled"``, ``"failed"``), ``"done"`` and
        ``"total"`` (layouts solved and to solve; total None while choosing), ``"exact"``,
        ``"ms"`` (since it was asked for)``}``.  Raises KrakenError for an unknown job."""
        with self._jobs_lock:
            j = self._jobs.get(job)
        if j is None:
            raise KrakenError("no such hint job (finished long ago, or never asked for)",
                              source="job", token=job)
        return j.progress()

    def cancel_hint(self, job: str) -> dict:
        """Cancel the hint ``job`` (its workers are stopped at once): ``{"job", "cancelled"}``
        (False when it had finished already or is unknown)."""
        with self._jobs_lock:
            j = self._jobs.get(job)
        if j is None or j.finished.is_set():
            return {"job": job, "cancelled": False}
        j.cancel("the page cancelled it")
        return {"job": job, "cancelled": True}

    def close(self) -> None:
        """Cancel every hint still running or waiting (the server stops) and end the hint
        thread."""
        with self._jobs_lock:
            jobs = list(self._jobs.values())
        for j in jobs:
            if not j.finished.is_set():
                j.cancel("the server stopped")
        if self._hint_thread is not None:
            self._hint_queue.put(None)
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate()


class HintJob:
    """One player's-view hint as it runs (:meth:`BoardSolver.hint`): ``name``, ``client``,
    ``state``, ``done`` and ``total`` layouts.  ``update(n)`` is the hint's progress callback
    (``n`` more layouts solved); it raises HintCancelled once the job is cancelled, and
    :meth:`cancel` also stops the pool's workers at once."""

    def __init__(self, name: str, client: str | None, key):
        self.name, self.client, self.key = name, client, key
        self.state = "queued"
        self.done = 0
        self.total = None
        self.exact = None
        self.why = ""
        self.t0 = time.perf_counter()
        self.pool = None
        self.lock = threading.Lock()
        self.finished = threading.Event()
        self._cancelled = threading.Event()
        self.result = None
        self.error = None
        self.run = None

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def update(self, n: int) -> None:
        self.done += int(n)
        if self.cancelled:
            raise HintCancelled(f"the hint was cancelled: {self.why}")

    def cancel(self, why: str) -> None:
        with self.lock:
            if not self.cancelled:
                self.why = why
            self._cancelled.set()
            if self.pool is not None:
                self.pool.terminate()

    def progress(self) -> dict:
        return {"job": self.name, "state": self.state, "done": self.done, "total": self.total,
                "exact": self.exact, "ms": round((time.perf_counter() - self.t0) * 1000)}


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
