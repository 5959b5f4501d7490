"""Run batch work on a Dask cluster (dask.distributed) instead of the local process pool.

``kraken-batch --scheduler tcp://HOST:8786`` sends the chunks of a batch to a running Dask
scheduler; ``--scheduler local:N`` starts a :class:`distributed.LocalCluster` of N worker
processes (one thread each) on this machine's loopback interface.  :class:`DaskPool` has the
interface of :class:`kraken_solver.batch.WorkerPool` (a context manager whose ``run(fn, tasks)``
yields ``fn(task)`` results as they complete, at most two tasks per worker thread in flight),
so the batch code is the same for both: the rows, the part files, ``--resume`` and the progress
bar do not depend on which pool solved the chunks.

Fault tolerance is Dask's: when a worker dies (killed, out of memory, machine lost) the
scheduler runs its unfinished tasks again on another worker.  A chunk's result travels back to
the client, which alone writes the part file (atomically), so a retried chunk is written once
and a lost one is never written: the final file holds every deal exactly once.  A chunk that
kills ``distributed.scheduler.allowed-failures`` + 1 workers in a row (default 4) fails the
batch with :class:`~kraken_solver.errors.KrakenError`; the finished chunks stay for
``--resume``.

Workers import :mod:`kraken_solver` (the same version must be installed on every worker
machine: checked, see :meth:`DaskPool.__enter__`) and load the Numba kernels from Numba's
on-disk cache: each worker process pays the compile or cache load once, on its first chunk.
"""

from __future__ import annotations

import logging
import os
import re
import time

from .errors import KrakenError

#: seconds to wait for the scheduler to answer and for the first worker to join
CONNECT_TIMEOUT = 30.0
#: loggers quieted while a DaskPool is open (their news reaches the user as one error line)
QUIET_LOGGERS = ("distributed", "tornado", "asyncio")
#: seconds between two refreshes of the number of worker threads (workers may join later)
THREADS_REFRESH = 2.0


def max_local_workers() -> int:
    """The most worker processes ``local:N`` may start: four per core of this machine."""
    return 4 * (os.cpu_count() or 1)


def _host_port(where: str) -> bool:
    host, sep, port = where.rpartition(":")
    # ASCII digits only (str.isdigit() also takes '²', which int() refuses)
    return bool(sep and host and re.fullmatch(r"[0-9]{1,5}", port) and 1 <= int(port) <= 65535)


def parse_scheduler(text: str) -> tuple[str, object]:
    """Check a ``--scheduler`` value: ``("local", N)`` for ``local:N`` (1 <= N <=
    :func:`max_local_workers` worker processes), ``("address", text)`` for a scheduler
    address ``tcp://HOST:PORT`` (``tls://``, ``ws://``, ``wss://`` too; a bare ``HOST:PORT``
    means tcp).  Raises KrakenError naming the token for anything else."""
    text = (text or "").strip()
    if text.lower().startswith("local"):
        rest = text[5:]
        if re.fullmatch(r":[0-9]{1,6}", rest) and int(rest[1:]) >= 1:
            n = int(rest[1:])
            if n > max_local_workers():
                raise KrakenError(f"local:N starts N worker processes on this machine; at "
                                  f"most {max_local_workers()} here (4 per core)", token=text)
            return "local", n
        raise KrakenError("a local cluster is local:N with N >= 1 worker processes",
                          token=text)
    if "://" in text:
        proto, _, where = text.partition("://")
        if proto in ("tcp", "tls", "ws", "wss") and _host_port(where):
            return "address", text
        raise KrakenError("a scheduler address is tcp://HOST:PORT (or tls://, ws://, wss://) "
                          "with a port from 1 to 65535, or local:N", token=text)
    if _host_port(text):
        return "address", "tcp://" + text
    raise KrakenError("expected a scheduler address tcp://HOST:PORT or local:N", token=text)


def one_line(err: BaseException, limit: int = 300) -> str:
    """``Type: message`` of an exception on one line, at most ``limit`` characters."""
    text = " ".join(f"{type(err).__name__}: {err}".split()).rstrip(": ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def require_distributed():
    """Import dask.distributed or raise KrakenError saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise KrakenError("--scheduler needs dask.distributed: pip install "
                          "'distributed>=2024.1' (or pip install 'kraken-solver[dask]')") \
            from None
    return distributed


def worker_info() -> dict:
    """Run on a worker: its process id and kraken-solver version."""
    from . import __version__
    return {"pid": os.getpid(), "version": __version__}


class DaskPool:
    """A Dask cluster as a pool for solving (same interface as ``WorkerPool``).

    ``scheduler``: ``local:N`` or a scheduler address (see :func:`parse_scheduler`).
    ``workers`` is the number of worker threads once connected (``local:N``: N).  Entering
    connects (or starts the local cluster), waits up to :data:`CONNECT_TIMEOUT` seconds for a
    worker and checks that every worker runs this kraken-solver version.  Raises KrakenError:
    bad address, scheduler unreachable, no worker, version mismatch, distributed missing."""

    def __init__(self, scheduler: str, *, silence_logs: bool = True):
        self.kind, self.target = parse_scheduler(scheduler)
        self.scheduler = scheduler
        self.workers = self.target if self.kind == "local" else 0
        self.silence_logs = silence_logs
        self.client = None
        self.cluster = None
        self.address = None
        self._pending = []
        self._threads_at = 0.0
        self._log_levels = {}

    # -- connecting
    def __enter__(self):
        distributed = require_distributed()
        from . import __version__
        if self.silence_logs:
            # Dask logs a lost connection with tracebacks; the caller reports the error on
            # one line instead
            names = [n for n in list(logging.root.manager.loggerDict)
                     if n.split(".")[0] in QUIET_LOGGERS] + list(QUIET_LOGGERS)
            for name in names:      # Dask sets levels on its child loggers too
                logger = logging.getLogger(name)
                self._log_levels.setdefault(name, logger.level)
                logger.setLevel(logging.CRITICAL + 1)
        what = ("start a local Dask cluster" if self.kind == "local"
                else "use the Dask scheduler")
        try:
            if self.kind == "local":
                self.cluster = distributed.LocalCluster(
                    n_workers=self.target, threads_per_worker=1, processes=True,
                    host="127.0.0.1", dashboard_address=":0",
                    silence_logs=logging.ERROR if self.silence_logs else logging.WARNING)
                self.client = distributed.Client(self.cluster, set_as_default=False)
            else:
                self.client = distributed.Client(self.target, timeout=CONNECT_TIMEOUT,
                                                 set_as_default=False)
            self.address = self.client.scheduler.address
            self.client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        except Exception as e:      # OSError, TimeoutError, and whatever Dask raises
            self.close()
            raise KrakenError(f"cannot {what}: {one_line(e)}", token=self.scheduler) from None
        try:
            infos = self.client.run(worker_info)
        except Exception as e:      # e.g. ModuleNotFoundError on a worker
            self.close()
            raise KrakenError(f"the Dask workers cannot run kraken-solver: "
                              f"{one_line(e)} (install kraken-solver "
                              f"{__version__} on every worker)", token=self.scheduler) from None
        wrong = {addr: i["version"] for addr, i in infos.items() if i["version"] != __version__}
        if wrong:
            self.close()
            addr, v = next(iter(wrong.items()))
            raise KrakenError(f"Dask worker {addr} runs kraken-solver {v}, this is "
                              f"{__version__}: install the same version on every worker",
                              token=self.scheduler)
        self._refresh_threads(force=True)
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False

    def _refresh_threads(self, force: bool = False) -> int:
        now = time.monotonic()
        if force or now - self._threads_at > THREADS_REFRESH:
            self._threads_at = now
            try:
                self.workers = max(1, sum(self.client.nthreads().values()))
            except Exception:  # pragma: no cover - scheduler briefly unreachable
                self.workers = max(1, self.workers)
        return self.workers

    def worker_pids(self) -> dict:
        """{worker address: process id} of the workers connected now."""
        return {a: i["pid"] for a, i in self.client.run(worker_info).items()}

    def close(self) -> None:
        """Cancel unfinished tasks, disconnect, and stop the local cluster if we started it."""
        client, cluster = self.client, self.cluster
        self.client = self.cluster = None
        if client is not None:
            try:
                if self._pending:
                    client.cancel(self._pending, force=True)
            except Exception:  # pragma: no cover - already disconnected
                pass
            try:
                client.close(timeout=10)
            except Exception:  # pragma: no cover
                pass
        if cluster is not None:
            try:
                cluster.close(timeout=20)
            except Exception:  # pragma: no cover
                pass
        self._pending = []
        for name, level in self._log_levels.items():
            logging.getLogger(name).setLevel(level)
        self._log_levels = {}

    # -- running
    def run(self, fn, tasks):
        """Yield ``fn(task)`` for every task as the results arrive, at most two tasks per
        worker thread in flight.  A task that failed (or killed its workers too often)
        raises KrakenError naming it."""
        from distributed import as_completed
        import uuid

        tag = uuid.uuid4().hex[:8]
        it = iter(tasks)
        ac = as_completed(loop=self.client.loop)
        names = {}
        count = 0

        def submit_more():
            nonlocal count
            while ac.count() < 2 * self._refresh_threads():
                try:
                    task = next(it)
                except StopIteration:
                    return
                key = f"kraken-chunk-{tag}-{count}"
                count += 1
                fut = self.client.submit(fn, task, key=key, pure=False, retries=0)
                names[fut.key] = task[0] if isinstance(task, tuple) else key
                self._pending.append(fut)
                ac.add(fut)

        submit_more()
        while not ac.is_empty():
            fut = next(ac)
            try:
                result = fut.result()
            except Exception as e:
                raise KrakenError(f"chunk {names.get(fut.key, fut.key)} failed on the Dask "
                                  f"cluster: {one_line(e)}") from None
            finally:
                self._pending = [f for f in self._pending if f.key != fut.key]
                names.pop(fut.key, None)
            fut.release()
            yield result
            submit_more()
