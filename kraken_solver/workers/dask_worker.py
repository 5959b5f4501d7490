"""Preloaded by the worker processes of a local Dask cluster (``--scheduler local:N``,
:class:`kraken_solver.workers.cluster.DaskPool`): they ignore SIGINT.

A Ctrl-C at the terminal reaches every process of its group, the cluster's workers too;
each would stop on its own and print Dask's tracebacks (``CancelledError``, then
``KeyboardInterrupt`` from its event loop) next to the tool's one line.  The tool that
started the cluster handles the interrupt and stops its workers itself (``DaskPool.close``),
so they need not see it.  Dask imports this module in each worker process and calls
:func:`dask_setup` there, in the process's main thread, once the worker is made."""

from __future__ import annotations

import signal


def dask_setup(worker) -> None:
    """Ignore SIGINT in this worker process (Dask's preload hook)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
