"""The board's hint jobs: each belongs to the clients waiting on it, in one of two lanes.

A player's-view hint can take many seconds (the first lead: 200 layouts), so the board runs
its hints as jobs (:class:`HintJob`) apart from the requests that ask for them, and a job is
solved only while someone waits on it:

- a request waits on a job through a :class:`Ticket`, named by its client (the page's id) and
  the job name the page gave: names are per client (another page's ``job=a`` is another
  ticket), a name already in use is refused, and only the client that asked may cancel it;
- identical requests (same position, objective and samples) wait on one job;
- a ticket is given up when its page cancels it, when a later request of the same page
  replaces it, when its connection closes (``gone()``), or when its page polled the
  progress and then stopped polling for :data:`POLL_GRACE_S` seconds; a job without a ticket
  left is cancelled (its worker processes stopped at once, a queued job never started);
- two lanes, each with a thread of its own: ``cheap`` (at most :data:`CHEAP_CARDS_LEFT`
  cards still to play, or at most ``hint.SMALL_JOB`` layouts: milliseconds, solved in that
  thread) and ``expensive`` (over the worker processes), so a cheap hint never waits behind an
  expensive one;
- bounded: :data:`LANE_JOBS` jobs queued or running a lane and :data:`MAX_HINT_WAITERS`
  requests waiting in all; past them a request gets :class:`BusyError` (503, ``Retry-After``
  :data:`RETRY_AFTER_S`).
"""

from __future__ import annotations

import queue
import threading
import time
from collections import OrderedDict

from ..errors import KrakenError

#: a lane's jobs queued or running at once
LANE_JOBS = {"cheap": 16, "expensive": 4}
#: requests waiting on hints at once (the server runs 16 request threads: 4 are left for
#: the rest)
MAX_HINT_WAITERS = 12
#: a page that polled a hint's progress and stopped polling for this long has gone (seconds)
POLL_GRACE_S = 5.0
#: how often a waiting request looks whether its client is still there (seconds)
WAIT_TICK_S = 0.2
#: a hint with at most this many cards still to play is cheap (200 layouts of 16 cards:
#: about 25 ms on one core)
CHEAP_CARDS_LEFT = 16
#: the seconds a client is told to wait when the hints are full (``Retry-After``)
RETRY_AFTER_S = 2
#: finished tickets remembered for their progress (dropped oldest first)
TICKETS_KEPT = 64


class BusyError(KrakenError):
    """The solver or the hint lanes are full (status 503, ``Retry-After``)."""


class HintCancelled(KrakenError):
    """A player's-view hint that was given up: a later request of the same page replaced it,
    the page cancelled it or went away, or the server stopped (status 409)."""


class HintJob:
    """One hint being solved for the tickets waiting on it: ``key``, ``lane``, ``state``
    (``"choosing"``, ``"queued"``, ``"solving"``, ``"done"``, ``"cancelled"``, ``"failed"``),
    ``done`` and ``total`` layouts.  ``update(n)`` is the hint's progress callback (``n`` more
    layouts solved); it raises HintCancelled once the job is cancelled, and :meth:`cancel`
    also stops the pool's workers at once."""

    def __init__(self, key):
        self.key = key
        self.lane = None
        self.state = "choosing"
        self.done = 0
        self.total = None
        self.exact = None
        self.why = ""
        self.pool = None
        self.lock = threading.Lock()
        self.finished = threading.Event()
        self._cancelled = threading.Event()
        self.result = None
        self.error = None
        self.run = None
        self.tickets: set = set()

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


class Ticket:
    """One request waiting on a :class:`HintJob`: ``client``, ``name``, ``job``; ``why`` is
    set once it is given up; ``polled`` the time of its page's last progress poll."""

    def __init__(self, client, name, job: HintJob):
        self.client, self.name, self.job = client, name, job
        self.t0 = time.perf_counter()
        self.polled = None
        self.why = None
        self.finished = False

    def progress(self) -> dict:
        j = self.job
        state = "cancelled" if self.why is not None else j.state
        return {"job": self.name, "state": state, "done": j.done, "total": j.total,
                "exact": j.exact, "ms": round((time.perf_counter() - self.t0) * 1000),
                "why": self.why if self.why is not None else (
                    j.why if j.state == "cancelled" else None)}


class HintLanes:
    """The tickets, the jobs and the two lanes of one server (module docstring).
    ``solve(job)`` is called in a lane's thread and returns the hint's dict."""

    def __init__(self):
        self.lock = threading.Lock()
        self.tickets: OrderedDict = OrderedDict()       # (client, name) -> Ticket
        self.jobs: dict = {}                            # key -> HintJob not finished
        self.count = 0
        self.queues = {lane: queue.Queue() for lane in LANE_JOBS}
        self.threads: dict = {}
        self.stopped = False

    # ------------------------------------------------------------------ asking
    def join(self, key, name, client) -> tuple[Ticket, bool]:
        """A new ticket of ``client`` named ``name`` (None: a name of its own) on the job of
        ``key``, and whether that job is new (the caller plans it and :meth:`submit` s it).
        The client's other waiting tickets are given up.  Raises KrakenError for a name in
        use, BusyError when :data:`MAX_HINT_WAITERS` requests wait already."""
        with self.lock:
            if self.stopped:
                raise HintCancelled("the hint was cancelled: the server stopped")
            self.count += 1
            name = name or f"hint-{self.count}"
            if (client, name) in self.tickets:
                raise KrakenError("this job name is in use by the page; give a new one",
                                  source="job", token=name)
            if sum(not t.finished for t in self.tickets.values()) >= MAX_HINT_WAITERS:
                raise BusyError(f"{MAX_HINT_WAITERS} hints are being waited for already; "
                                f"try again in {RETRY_AFTER_S} s")
            if client is not None:
                for other in list(self.tickets.values()):
                    if other.client == client and not other.finished:
                        self._leave(other, "a later request of the page replaced it")
            job = self.jobs.get(key)
            new = job is None or job.cancelled
            if new:
                job = self.jobs[key] = HintJob(key)
            t = Ticket(client, name, job)
            job.tickets.add(t)
            self.tickets[(client, name)] = t
            self._forget()
        return t, new

    def submit(self, job: HintJob, lane: str) -> None:
        """Queue the planned ``job`` in ``lane``; raises BusyError when the lane is full (the
        job fails with it, for every ticket on it)."""
        with self.lock:
            busy = sum(j.lane == lane for j in self.jobs.values() if j is not job)
            if busy >= LANE_JOBS[lane] or self.stopped:
                self._finish(job, "failed", BusyError(
                    f"{busy} {lane} hints are queued or running; try again in "
                    f"{RETRY_AFTER_S} s") if not self.stopped else HintCancelled(
                    "the hint was cancelled: the server stopped"))
                return
            job.lane = lane
            job.state = "queued"
            if lane not in self.threads:
                th = threading.Thread(target=self._loop, args=(lane,), daemon=True,
                                      name=f"kraken-view {lane} hints")
                self.threads[lane] = th
                th.start()
        self.queues[lane].put(job)

    def fail(self, job: HintJob, error: BaseException) -> None:
        """The job could not be planned: every ticket on it gets ``error``."""
        with self.lock:
            self._finish(job, "failed", error)

    def wait(self, t: Ticket, gone=None):
        """The result of ``t``'s job; raises HintCancelled when the ticket is given up
        (``gone()`` true: the connection closed; or the page stopped polling), or the job's
        error."""
        job = t.job
        try:
            while not job.finished.wait(WAIT_TICK_S):
                if t.why is not None:
                    break
                if gone is not None and gone():
                    self.leave(t, "its client closed the connection")
                elif t.polled is not None and time.monotonic() - t.polled > POLL_GRACE_S:
                    self.leave(t, f"its page stopped asking for its progress for "
                                  f"{POLL_GRACE_S:.0f} s")
            if t.why is not None:
                raise HintCancelled(f"the hint was cancelled: {t.why}")
            if job.error is not None:
                raise job.error
            return job.result
        finally:
            with self.lock:
                t.finished = True
                job.tickets.discard(t)

    def leave(self, t: Ticket, why: str) -> bool:
        """Give up ticket ``t`` (its job is cancelled when no ticket is left on it); False
        when it had finished already."""
        with self.lock:
            return self._leave(t, why)

    def _leave(self, t: Ticket, why: str) -> bool:
        if t.finished or t.why is not None or t.job.finished.is_set():
            return False
        t.why = why
        job = t.job
        job.tickets.discard(t)
        if not job.tickets:
            job.cancel(why)
            if job.state in ("choosing", "queued"):
                self.jobs.pop(job.key, None)
        return True

    # ----------------------------------------------------------------- looking
    def ticket(self, name: str, client, *, poll: bool = False) -> Ticket:
        with self.lock:
            t = self.tickets.get((client, name))
        if t is None:
            raise KrakenError("no such hint job of this page (finished long ago, or never "
                              "asked for)", source="job", token=name)
        if poll:
            t.polled = time.monotonic()
        return t

    def stop(self) -> None:
        """Give up every ticket and job (the server stops) and end the lanes' threads."""
        with self.lock:
            self.stopped = True
            for t in list(self.tickets.values()):
                if not t.finished:
                    self._leave(t, "the server stopped")
            for job in list(self.jobs.values()):
                job.cancel("the server stopped")
            for lane in self.threads:
                self.queues[lane].put(None)

    # -------------------------------------------------------------- the lanes
    def _forget(self) -> None:
        finished = [k for k, t in self.tickets.items() if t.finished]
        for k in finished[:max(0, len(self.tickets) - TICKETS_KEPT)]:
            del self.tickets[k]

    def _finish(self, job: HintJob, state: str, error=None) -> None:
        job.state, job.error = state, error
        if self.jobs.get(job.key) is job:
            del self.jobs[job.key]
        job.finished.set()

    def _loop(self, lane: str) -> None:
        """A lane's thread: its jobs one at a time, in the order asked (a job cancelled while
        it waited is not started)."""
        while True:
            job = self.queues[lane].get()
            if job is None:
                return
            state, error = "done", None
            try:
                if job.cancelled:
                    raise HintCancelled(f"the hint was cancelled: {job.why}")
                job.state = "solving"
                job.result = job.run(job)
            except BaseException as e:      # noqa: BLE001 - handed to the request threads
                if job.cancelled or isinstance(e, HintCancelled):
                    state, error = "cancelled", HintCancelled(
                        f"the hint was cancelled: {job.why}")
                else:
                    state, error = "failed", e if isinstance(e, KrakenError) else KrakenError(
                        f"the hint failed: {type(e).__name__}: {e}")
            finally:
                with self.lock:
                    self._finish(job, state, error)
