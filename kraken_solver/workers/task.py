"""What a task sees inside any pool: this thread's Searcher and its progress reporter.

The local pool (:mod:`kraken_solver.workers.pool`) and the Dask pool
(:mod:`kraken_solver.workers.cluster`) both run tasks that call :func:`worker_searcher` (one
:class:`~kraken_solver.engine.solver.Searcher` a worker process or thread, its transposition
table kept from task to task) and :func:`report_progress` (units of work done, for the
caller's progress bar); each pool sets the reporter around a task
(:func:`set_progress_reporter`).  Kept apart from both pools so that neither imports the other
for it.
"""

from __future__ import annotations

import threading

#: per thread: its Searcher and its progress reporter
_LOCAL = threading.local()


def worker_searcher():
    """This thread's Searcher (one per worker process or Dask worker thread, created on first
    use: a Searcher's transposition table is not shared between threads)."""
    searcher = getattr(_LOCAL, "searcher", None)
    if searcher is None:
        from ..engine.solver import Searcher
        searcher = _LOCAL.searcher = Searcher()
    return searcher


def set_progress_reporter(report) -> None:
    """Set (or with None clear) this thread's progress reporter: a function taking the units
    of work (deals, samples) its current task has done so far.  The pools set it around each
    task (:class:`WorkerPool`, :class:`kraken_solver.workers.cluster.DaskPool`)."""
    _LOCAL.reporter = report


def report_progress(done: int) -> None:
    """From inside a task: ``done`` units of its work are finished (for the caller's progress
    bar, between two finished tasks).  Does nothing outside a pool."""
    report = getattr(_LOCAL, "reporter", None)
    if report is not None:
        report(done)


def warm_kernels() -> None:
    """Load (or compile) the Numba kernels in this process, so forked workers inherit them."""
    from ..game.position import Position
    worker_searcher().value(Position("N:A.K.Q.J K.Q.J.A Q.J.A.K J.A.K.Q", 0, 0), "score")
