"""Run batch work on a Dask cluster (dask.distributed) instead of the local process pool.

``kraken-batch --scheduler tcp://HOST:8786`` sends the chunks of a batch to a running Dask
scheduler; ``--scheduler local:N`` starts a :class:`distributed.LocalCluster` of N worker
processes (one thread each) on this machine's loopback interface.  :class:`DaskPool` has the
interface of :class:`kraken_solver.workers.pool.WorkerPool` (a context manager whose ``run(fn,
tasks)`` yields ``fn(task)`` results as they complete, at most two tasks per worker thread in
flight), so the batch code is the same for both: the rows, the part files, ``--resume`` and the
progress bar do not depend on which pool solved the chunks.

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

from ..errors import KrakenError

#: seconds to wait for the scheduler to answer and for the first worker to join
CONNECT_TIMEOUT = 30.0
#: seconds after which a connection still being tried is reported (it goes on until
#: CONNECT_TIMEOUT)
STILL_TRYING_AFTER = 3.0
#: seconds any other call to the scheduler may take (a scheduler that takes the connection
#: but never answers must not hang the batch)
CALL_TIMEOUT = 30.0
#: seconds without a finished chunk after which the scheduler is asked whether it still
#: answers (a chunk may take minutes; a silent scheduler is found within this + CALL_TIMEOUT)
HEARTBEAT = 15.0
#: seconds between two looks at the running chunks (progress, finished chunks)
POLL = 0.1
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
    if text[:5].isascii() and text[:5].lower() == "local":
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


class NoAnswer(KrakenError):
    """A call to the Dask scheduler that did not return in time (see :func:`within`)."""


def within(seconds: float, fn, what: str, *, still=None, log=None):
    """``fn()``, given at most ``seconds``: run in a daemon thread, its result returned and its
    exception raised again; when it has not returned by then, :class:`NoAnswer` ("cannot
    WHAT: no answer within N s"; the thread is left to Dask, which ends with the process).
    ``still`` (seconds) and ``log``: a line of news when it is still running after ``still``
    seconds (e.g. "still trying to reach ...").  Every wait on the network goes through here,
    so none can hang the command."""
    import threading
    box = {}

    def call():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: B902 - handed to the caller's thread
            box["error"] = e

    thread = threading.Thread(target=call, daemon=True, name="kraken-dask-call")
    deadline = time.monotonic() + seconds
    thread.start()
    if still is not None and log is not None and still < seconds:
        thread.join(still)
        if thread.is_alive():
            log(f"still trying to {what} (for up to {seconds:.0f} s)")
    thread.join(max(0.0, deadline - time.monotonic()))
    if thread.is_alive():
        raise NoAnswer(f"cannot {what}: no answer within {seconds:.0f} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def worker_info() -> dict:
    """Run on a worker: its process id and kraken-solver version."""
    from .. import __version__
    return {"pid": os.getpid(), "version": __version__}


class DaskPool:
    """A Dask cluster as a pool for solving (same interface as ``WorkerPool``).

    ``scheduler``: ``local:N`` or a scheduler address (see :func:`parse_scheduler`).
    ``workers`` is the number of worker threads once connected (``local:N``: N).  Entering
    connects (or starts the local cluster), waits up to :data:`CONNECT_TIMEOUT` seconds for a
    worker and checks that every worker runs this kraken-solver version.  Raises KrakenError:
    bad address, scheduler unreachable, no worker, version mismatch, distributed missing."""

    def __init__(self, scheduler: str, *, silence_logs: bool = True, log=None):
        self.kind, self.target = parse_scheduler(scheduler)
        self.log = log
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
        from .. import __version__
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
        where = ("start a local Dask cluster" if self.kind == "local"
                 else f"reach the Dask scheduler at {self.target}")

        def connect():
            if self.kind == "local":
                self.cluster = distributed.LocalCluster(
                    n_workers=self.target, threads_per_worker=1, processes=True,
                    host="127.0.0.1", dashboard_address=":0",
                    silence_logs=logging.ERROR if self.silence_logs else logging.WARNING,
                    # a Ctrl-C is this process's to handle: the workers ignore it
                    preload=["kraken_solver.workers.dask_worker"])
                self.client = distributed.Client(self.cluster, set_as_default=False)
            else:
                # Dask's own timeout does not cover a scheduler that takes the connection and
                # never answers: within() bounds the whole wait
                self.client = distributed.Client(self.target, timeout=CONNECT_TIMEOUT,
                                                 set_as_default=False)
            self.address = self.client.scheduler.address
            self.client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)

        limit = CONNECT_TIMEOUT + (60.0 if self.kind == "local" else 0.0)
        try:
            # a local cluster takes seconds to start on a busy machine: only a remote
            # scheduler is reported as "still trying"
            within(limit, connect, where, still=STILL_TRYING_AFTER,
                   log=self.log if self.kind != "local" else None)
        except NoAnswer:
            self.close()
            why = (f"it did not start within {limit:.0f} s" if self.kind == "local" else
                   f"no answer from {self.target} within {limit:.0f} s (is a Dask scheduler "
                   "running there?)")
            raise KrakenError(f"cannot {what}: {why}",
                              token=self.scheduler if self.kind == "local" else None) from None
        except Exception as e:      # OSError, TimeoutError, and whatever Dask raises
            self.close()
            raise KrakenError(f"cannot {what}: {one_line(e)}", token=self.scheduler) from None
        try:
            infos = within(CALL_TIMEOUT, lambda: self.client.run(worker_info),
                           "ask the Dask workers for their version")
        except KrakenError as e:
            self.close()
            raise KrakenError(e.message, token=self.scheduler) from None
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
                self.workers = max(1, sum(within(CALL_TIMEOUT, self.client.nthreads,
                                                 "ask the Dask scheduler for its workers")
                                          .values()))
            except KrakenError:
                raise
            except Exception:  # pragma: no cover - scheduler briefly unreachable
                self.workers = max(1, self.workers)
        return self.workers

    def worker_pids(self) -> dict:
        """{worker address: process id} of the workers connected now."""
        infos = within(CALL_TIMEOUT, lambda: self.client.run(worker_info),
                       "ask the Dask workers for their process ids")
        return {a: i["pid"] for a, i in infos.items()}

    def _check_alive(self) -> None:
        """Raise KrakenError unless the scheduler answers within CALL_TIMEOUT seconds."""
        within(CALL_TIMEOUT, lambda: self.client.scheduler_info(), "hear from the Dask "
               "scheduler (it stopped answering)")

    def close(self) -> None:
        """Cancel unfinished tasks, disconnect, and stop the local cluster if we started it."""
        client, cluster = self.client, self.cluster
        self.client = self.cluster = None
        pending = self._pending
        if client is not None:
            try:
                if pending:
                    within(10.0, lambda: client.cancel(pending, force=True),
                           "cancel the running chunks")
            except Exception:  # pragma: no cover - already disconnected
                pass
            try:
                within(15.0, lambda: client.close(timeout=10), "disconnect")
            except Exception:  # pragma: no cover
                pass
        if cluster is not None:
            try:
                within(30.0, lambda: cluster.close(timeout=20), "stop the local cluster")
            except Exception:  # pragma: no cover
                pass
        self._pending = []
        for name, level in self._log_levels.items():
            logging.getLogger(name).setLevel(level)
        self._log_levels = {}

    # -- running
    def run(self, fn, tasks, on_tick=None):
        """Yield ``fn(task)`` for every task as the results arrive, at most two tasks per
        worker thread in flight.  ``on_tick``: called about every :data:`POLL` seconds with
        the units of work (deals, samples) the running tasks have reported done so far
        (:func:`kraken_solver.workers.pool.report_progress`).  A task that failed (or killed its
        workers too often) raises KrakenError naming it, and so does a scheduler that stops
        answering (asked after :data:`HEARTBEAT` seconds without a result)."""
        import uuid

        tag = uuid.uuid4().hex[:8]
        it = iter(tasks)
        pending = {}                # future key -> (future, task name)
        partial = {}                # future key -> units reported done
        count = 0
        topic = f"kraken-progress-{tag}"

        def on_event(event):
            try:
                key, done = event[1]
                if key in pending:
                    partial[key] = int(done)
            except Exception:  # pragma: no cover - a malformed event is only news
                pass

        try:
            within(CALL_TIMEOUT, lambda: self.client.subscribe_topic(topic, on_event),
                   "ask the Dask scheduler for progress news")
        except KrakenError:
            raise
        except Exception:  # pragma: no cover - progress is only news
            pass

        def submit_more():
            nonlocal count
            while len(pending) < 2 * self._refresh_threads():
                try:
                    task = next(it)
                except StopIteration:
                    return
                key = f"kraken-chunk-{tag}-{count}"
                count += 1
                fut = within(CALL_TIMEOUT, lambda: self.client.submit(
                    _run_with_progress, fn, topic, key, task, key=key, pure=False,
                    retries=0), "send a chunk to the Dask scheduler")
                pending[fut.key] = (fut, task[0] if isinstance(task, tuple) else key)
                self._pending.append(fut)

        submit_more()
        quiet_since = time.monotonic()
        try:
            while pending:
                done = [k for k, (f, _) in pending.items() if f.done()]
                if not done:
                    if on_tick is not None:
                        on_tick(sum(partial.get(k, 0) for k in pending))
                    if time.monotonic() - quiet_since > HEARTBEAT:
                        self._check_alive()
                        quiet_since = time.monotonic()
                    time.sleep(POLL)
                    continue
                quiet_since = time.monotonic()
                for key in done:
                    fut, name = pending.pop(key)
                    partial.pop(key, None)
                    self._pending = [f for f in self._pending if f.key != key]
                    try:
                        result = within(CALL_TIMEOUT, fut.result,
                                        f"fetch chunk {name} from the Dask cluster")
                    except KrakenError:
                        raise
                    except Exception as e:
                        raise KrakenError(f"chunk {name} failed on the Dask cluster: "
                                          f"{one_line(e)}") from None
                    fut.release()
                    yield result
                submit_more()
        finally:
            try:
                within(10.0, lambda: self.client.unsubscribe_topic(topic),
                       "stop the progress news")
            except Exception:  # pragma: no cover
                pass


def _run_with_progress(fn, topic, key, task):
    """On a Dask worker: ``fn(task)``, its progress (report_progress) sent as events of
    ``topic`` that the client reads."""
    from distributed import get_worker

    from .task import set_progress_reporter
    worker = get_worker()

    def report(done):
        try:
            worker.log_event(topic, (key, int(done)))
        except Exception:  # pragma: no cover - progress is only news
            pass
    set_progress_reporter(report)
    try:
        return fn(task)
    finally:
        set_progress_reporter(None)
