"""The local pool of worker processes that solves batch, hint and review work in parallel.

A :class:`WorkerPool` (a context manager) starts N processes, and ``run(fn, tasks)`` yields
``fn(task)`` results as they complete, with at most two tasks per worker in flight.  Each
worker holds one Searcher, its transposition table reused from task to task, and reports its
progress (:mod:`kraken_solver.workers.task`), read at most every :data:`TICK` seconds.
:func:`make_pool` returns this pool or, given a scheduler address, the Dask pool of
:mod:`kraken_solver.workers.cluster`: both have the same interface, so the callers do not
depend on which pool did the work.  A worker whose parent dies exits at once (it watches the
parent's pid), and Ctrl-C in the parent stops every worker without a traceback.
:func:`check_workers` bounds the number a user types (at most :data:`WORKERS_PER_CORE` a core).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from ..errors import KrakenError
from ..game.cards import is_int
from .task import set_progress_reporter, warm_kernels

#: worker processes a core at most (local pool and ``local:N``): a mistyped --workers must not
#: fork thousands of processes
WORKERS_PER_CORE = 4


# ----------------------------------------------------------------------------- worker pool
#: in a local pool's worker process: the shared array of progress slots (see WorkerPool)
_SLOTS = None
#: seconds between two looks at the running tasks' progress (local pool)
TICK = 0.25


def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent_pid:
            os._exit(1)   # the parent died (kill -9): do not outlive it


def _init_worker(parent_pid: int, slots) -> None:
    global _SLOTS
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the parent handles Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _SLOTS = slots
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    warm_kernels()


def _run_in_slot(fn, slot: int, task):
    """In a local worker: ``fn(task)``, its progress written to the shared slot ``slot``
    (one aligned 64-bit store: no lock a killed worker could leave held)."""
    slots = _SLOTS

    def report(done):
        slots[slot] = int(done)
    set_progress_reporter(report if slots is not None else None)
    try:
        return fn(task)
    finally:
        set_progress_reporter(None)


@contextlib.contextmanager
def _interrupts_held():
    """Hold Ctrl-C and SIGTERM back while the block runs, then deliver them: the pool forks
    its workers inside.  A signal during a fork (tens of ms for a process with the kernels
    loaded) was otherwise handled inside an at-fork hook (the logging module's), where the
    KeyboardInterrupt was printed as 'Exception ignored' and lost: the run went on as if
    nothing had been pressed.  Inside the block the signals are only noted; after it the
    handlers in place before are restored and each noted signal raised again.  (Only in the
    main thread, where Python runs signal handlers; elsewhere the block runs as it is.)"""
    noted = []
    old = {}
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            old[sig] = signal.signal(sig, lambda signum, _frame: noted.append(signum))
    except ValueError:          # not the main thread
        for sig, handler in old.items():
            signal.signal(sig, handler)
        yield
        return
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        for sig in dict.fromkeys(noted):
            signal.raise_signal(sig)


def _mp_context():
    import multiprocessing as mp
    # fork: the workers inherit the loaded kernels (warm_kernels in the parent first)
    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def max_workers() -> int:
    """The most worker processes a command may start on this machine: :data:`WORKERS_PER_CORE`
    per core (the bound of ``--workers`` and of ``--scheduler local:N``)."""
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def check_workers(workers) -> int | None:
    """``workers`` as an int from 1 to :func:`max_workers`, or None (one per core).  Raises
    KrakenError for anything else."""
    if workers is None:
        return None
    if not is_int(workers) or not 1 <= workers <= max_workers():
        raise KrakenError(f"the number of workers is a whole number from 1 to {max_workers()} "
                          f"here ({WORKERS_PER_CORE} per core; one per core is the default)",
                          token=repr(workers) if not is_int(workers) else str(workers))
    return int(workers)


class WorkerPool:
    """A process pool for solving: one Searcher per worker; used as a context manager.

    ``workers``: 1 to :func:`max_workers` processes (default: one per core).  ``run(fn,
    tasks, on_tick)`` yields ``fn(task)`` results as they complete, with at most ``2 *
    workers`` tasks in flight (memory stays flat however many tasks there are); ``on_tick``,
    if given, is called about every :data:`TICK` seconds with the work units the running
    tasks reported done (:func:`~kraken_solver.workers.task.report_progress`).  The workers ignore
    Ctrl-C and exit when the parent dies; leaving the ``with`` block through an exception (Ctrl-C
    included) terminates them at once.  A worker's exception is raised again in the parent.  Raises
    KrakenError for a bad number of workers."""

    def __init__(self, workers: int | None = None):
        workers = check_workers(workers)
        self.workers = workers if workers else default_workers()
        self._ex = None
        self._slots = None

    def __enter__(self):
        warm_kernels()
        ctx = _mp_context()
        self._slots = ctx.RawArray("q", 2 * self.workers)
        self._ex = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx,
                                       initializer=_init_worker,
                                       initargs=(os.getpid(), self._slots))
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.terminate()
        else:
            self._ex.shutdown(wait=True)
        return False

    def terminate(self) -> None:
        """Stop every worker now (unfinished tasks are lost; part files stay consistent)."""
        ex = self._ex
        if ex is None:
            return
        procs = list((getattr(ex, "_processes", None) or {}).values())
        for p in procs:
            try:
                p.terminate()
            except Exception:  # pragma: no cover
                pass
        for p in procs:
            p.join(timeout=5)
        # (shutdown forgets the executor's manager thread: taken before it)
        manager = getattr(ex, "_executor_manager_thread", None)
        ex.shutdown(wait=False, cancel_futures=True)
        # let the manager thread see its workers gone and end: one still ending as the
        # interpreter exits races its wake-up pipe with concurrent.futures' exit hook
        # ('Exception ignored in: <module 'threading'> ... OSError: [Errno 9] Bad file
        # descriptor' after kraken-view's Ctrl-C during a hint, about one time in 15)
        if manager is not None and manager is not threading.current_thread():
            manager.join(timeout=5)

    def run(self, fn, tasks, on_tick=None):
        it = iter(tasks)
        pending = {}                # future -> slot
        free = list(range(2 * self.workers))
        slots = self._slots

        def fill():
            while free:
                try:
                    task = next(it)
                except StopIteration:
                    return
                slot = free.pop()
                slots[slot] = 0
                with _interrupts_held():    # the first submit forks the workers
                    future = self._ex.submit(_run_in_slot, fn, slot, task)
                pending[future] = slot

        fill()
        while pending:
            done, _ = wait(pending, timeout=TICK if on_tick is not None else None,
                           return_when=FIRST_COMPLETED)
            for f in done:
                free.append(pending.pop(f))
                yield f.result()
            fill()
            if on_tick is not None:
                on_tick(sum(slots[s] for s in pending.values()))


def make_pool(workers: int | None = None, scheduler: str | None = None, *, log=None):
    """The pool that solves the chunks: a Dask cluster when ``scheduler`` is given
    (:class:`kraken_solver.workers.cluster.DaskPool`; ``workers`` must then be None), else the local
    :class:`WorkerPool` of ``workers`` processes (1 to :func:`max_workers`).  ``log``: a
    function taking one line of news (e.g. a scheduler still being tried).  Raises
    KrakenError for a bad combination or number."""
    if scheduler is None:
        return WorkerPool(workers)
    if workers is not None:
        raise KrakenError("give either a number of workers or a Dask scheduler (local:N sets "
                          "the number of local workers)", token=str(workers))
    from .cluster import DaskPool
    return DaskPool(scheduler, log=log)
