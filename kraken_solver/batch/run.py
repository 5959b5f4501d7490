"""Trump choice at scale: solve many deals for all four trumps in parallel (``kraken-batch``).

Every deal is solved double dummy (RULES.md §8) for each of the four trumps the first player
can choose (:mod:`kraken_solver.engine.trumps`); each (deal, trump) gives one row of
:data:`~kraken_solver.batch.config.COLUMNS`.  Values are in points, from the playing team's
side (the first player's team).

The deals (:mod:`kraken_solver.batch.config`) are cut into chunks of ``chunk_size`` deals.  A
pool of worker processes (:mod:`kraken_solver.workers.pool`; or the workers of a Dask cluster,
:mod:`kraken_solver.workers.cluster`) solves chunk after chunk and sends each chunk's rows
back; the calling process alone writes them, checks them and assembles the output
(:mod:`kraken_solver.batch.store`).  Deals read from a file (``input``) are streamed: the file
is read a block at a time while the chunks are sent out, and checked in full by a thread
alongside, so the first deals are solved at once, a mistake anywhere in it stops the run
within the time one reading takes, and the memory does not grow with the file.  The input
must be a regular file: it is read more than once (a pipe can be read once only).

The run may be killed at any moment (Ctrl-C, ``kill -9``).  ``resume=True`` reuses the part
files of the unfinished run, solves the missing chunks only and assembles the output: the
final file holds every deal exactly once, rows in ``deal_id`` order, and equals the file of an
uninterrupted run except for the timing columns ``nodes`` and ``ms`` (search work and wall
time vary from run to run: the transposition table's contents depend on which deals a worker
solved before, and time depends on the machine's load).
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import os
import resource
import shlex
import shutil
import sys
import threading
import time
from dataclasses import dataclass

from ..engine.trumps import solve_trumps
from ..errors import KrakenError
from ..game.deal import Deal
from ..notation.outputs import remove_temporaries, write_bytes
from ..notation.text import count
from ..workers.pool import make_pool
from ..workers.task import report_progress, worker_searcher
from .config import BatchConfig, columns_for, paths_for, stream_deals
from .play import play_rows
from .store import (BATCH_STORE, RUN_META, StoreKind, assemble, check_batch_outputs,
                    check_done_parts, check_same_input, csv_value, list_parts, lock_dir,
                    meta_to_run, now_stamp, part_name, remove_empty_dir, rows_of, write_meta)


def _solve_chunk(task) -> dict:
    """Worker: solve one chunk; return its part file's text (the caller writes it) and a
    summary of the work.  Reports each finished deal (:func:`report_progress`)."""
    from .. import __version__
    k, start, stop, seed, first, rules, items, objectives, columns, play = task
    searcher = worker_searcher()
    t0 = time.perf_counter()
    n0 = searcher.nodes
    if items is None:
        items = [(d, first, rules) for d in stream_deals(seed, start, stop)]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for i, (deal, first, rules, *_) in enumerate(items):
        if not isinstance(deal, Deal):
            deal = Deal(tuple(deal))
        results = solve_trumps(searcher, deal, first, rules, points="points" in objectives)
        rows = rows_of(start + i, deal, first, rules, results)
        if play is not None:        # --play: the same deal played out by the bots, per trump
            for row, played in zip(rows, play_rows(deal, first, rules, *play)):
                row.update(played)
        for row in rows:
            w.writerow([csv_value(row[c]) for c in columns])
        report_progress(i + 1)
    return {"chunk": k, "deals": stop - start, "text": buf.getvalue(),
            "seconds": time.perf_counter() - t0, "version": __version__,
            "nodes": searcher.nodes - n0, "pid": os.getpid(),
            "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}


def _play(config: BatchConfig):
    """A task's play: (bot spec, seed) with ``--play``, else None."""
    return (config.play, config.play_seed) if config.play else None


def _batch_task(config: BatchConfig, k: int, start: int, stop: int, items, columns):
    """The task of chunk ``k`` for :func:`_solve_chunk` (``items``: an input's deals, or None
    for generated deals)."""
    if items is not None:
        return (k, start, stop, None, None, None, items, config.objectives, columns,
                _play(config))
    return (k, start, stop, config.stream(), config.first, config.rules, None,
            config.objectives, columns, _play(config))


@dataclass(frozen=True)
class RunJob:
    """What a run computes, for a tool that runs as the batch does (the arena): ``store``
    (its files, :class:`~kraken_solver.batch.store.StoreKind`), ``columns(config)`` (the
    (name, type, meaning) of its columns), ``task(config, k, start, stop, items, columns)``
    (the task of chunk ``k``: ``items`` the input's ``(hands, first, rules, trump)`` tuples,
    or None for seeded deals), ``work(task)`` (run in a worker: a dict with ``chunk``,
    ``deals``, ``text`` (the part file's text), ``version``, ``maxrss_mb``), ``unit`` and
    ``per_deal`` (the progress bar counts ``per_deal`` units a deal, as the worker reports
    them), ``on_part(text)`` (called with the text of every part, reused or new: returns the
    bar's postfix, or None)."""
    store: StoreKind
    columns: object
    task: object
    work: object
    unit: str = "deal"
    per_deal: int = 1
    on_part: object = None


#: the batch's own run
BATCH_JOB = RunJob(BATCH_STORE, lambda config: columns_for(config.objectives, config.play),
                   _batch_task, _solve_chunk)


@dataclass
class BatchResult:
    """What :func:`run_batch` did: ``deals`` in the file, ``solved`` in this session,
    ``chunks_reused`` from earlier sessions, ``seconds`` of this session, ``deals_per_s``,
    ``peak_worker_mb`` (peak resident memory of one worker), ``already_complete``."""
    out: str
    deals: int
    solved: int
    chunks_reused: int
    seconds: float
    deals_per_s: float
    peak_worker_mb: float
    peak_main_mb: float
    workers: int
    already_complete: bool = False


class _InputCheck(threading.Thread):
    """Reads the whole input file alongside the run (a deal file is checked to its end long
    before the last chunk is solved): its deals, its checksum, and the rows of the part files
    reused from an earlier session.  ``error`` holds what it found wrong, ``deals`` the number
    of deals once done."""

    def __init__(self, config: BatchConfig, parts_dir: str, parts: dict, columns,
                 kind: StoreKind = BATCH_STORE):
        super().__init__(daemon=True, name="kraken-batch-input-check")
        self.config = dataclasses.replace(config)
        self.parts_dir, self.parts, self.columns = parts_dir, dict(parts), columns
        self.kind = kind
        self.error = None
        self.deals = None

    def run(self):
        try:
            # reads the input to its end (checksum and deals) even with no part to check
            check_done_parts(self.config, self.parts_dir, self.parts, self.columns, self.kind)
            self.deals = self.config.deals
        except BaseException as e:  # noqa: B902 - reported by the main thread
            self.error = e

    def raise_error(self) -> None:
        if self.error is not None:
            raise self.error


def _input_tasks(config: BatchConfig, done: set, columns, job: RunJob = BATCH_JOB):
    """The tasks of the chunks of an input file not in ``done``, reading it as a stream."""
    reader = config.reader()
    k, items = 0, []
    for spec in reader:
        items.append((spec.deal.hands, spec.first, spec.rules, spec.trump))
        if len(items) == config.chunk_size:
            if k not in done:
                start = k * config.chunk_size
                yield job.task(config, k, start, start + len(items), items, columns)
            k, items = k + 1, []
    if items and k not in done:
        start = k * config.chunk_size
        yield job.task(config, k, start, start + len(items), items, columns)
    check_same_input(config, reader)


# ----------------------------------------------------------------------------- running
def run_batch(config: BatchConfig, out: str, *, workers: int | None = None,
              scheduler: str | None = None, resume: bool = False, progress: bool = False,
              command: list[str] | None = None, log=None, on_chunk=None,
              job: RunJob = BATCH_JOB) -> BatchResult:
    """Run (or with ``resume`` finish) a batch into ``out``; see the module docstring.

    ``workers``: processes (default one per core, at most :func:`max_workers`);
    ``scheduler``: instead of the local process pool, a Dask cluster (``"local:N"`` or a
    scheduler address ``"tcp://HOST:PORT"``, :mod:`kraken_solver.workers.cluster`): the same rows,
    part files and resuming; ``progress``: a tqdm bar on stderr (deals/s, ETA), moved by each
    finished deal; ``command``: the command line to record in the sidecar; ``log``: a
    function taking one line of news (resuming, reused chunks, a scheduler still being
    tried); ``on_chunk``: a function called with the pool and each finished chunk's summary.

    ``out`` and its sidecar must be a regular file or a new name, never the input
    (:func:`check_batch_outputs`).  Nothing is changed before the work directory's lock is
    held.  Without ``resume`` an unfinished run's work directory with finished chunks makes it
    refuse (so that no work is thrown away by accident); an earlier finished output and its
    sidecar stay as they are until this run has assembled its output.  With ``resume`` and no
    earlier run, it simply starts; part files without a sidecar to check them against are
    refused.  Raises KrakenError: an output path that cannot be used, another run holding the
    lock, the configuration differs from the unfinished run's (resume), unfinished work
    without resume, part files that cannot be checked or fail their check (named, with how to
    redo them), an input file that changed, a bad scheduler or one that stops answering, a
    failed Dask chunk, a file that cannot be read or written (a full disk: named).  A
    worker's error is raised again; Ctrl-C raises KeyboardInterrupt after stopping the
    workers (every finished chunk stays on disk for a resume, and the earlier output and its
    sidecar are untouched).

    ``job``: what is computed and stored (:class:`RunJob`): the batch's solves by default."""
    out = os.fspath(out)
    parts_dir, meta_path = paths_for(out)
    cols = job.columns(config)
    columns = [c[0] for c in cols]
    log = log or (lambda line: None)
    inputs = [config.input] if config.input else []
    check_batch_outputs(out, inputs)
    pool = make_pool(workers, scheduler, log=log)
    session = {"argv": list(command) if command else None,
               "command": shlex.join(command) if command else None,
               "started": now_stamp(), "workers": None}
    lock, created = lock_dir(parts_dir, out, job.store.tool)
    try:
        try:
            meta = meta_to_run(config, out, parts_dir, meta_path, cols, resume, session, log,
                               job.store)
        except BaseException:
            if created:
                remove_empty_dir(parts_dir)
            raise
        if meta is None:
            # nothing to do: no work directory stays (one left empty by a run killed before
            # its first chunk goes too)
            remove_empty_dir(parts_dir)
            return BatchResult(out, config.deals or 0, 0, config.n_chunks or 0, 0.0, 0.0, 0.0,
                               0.0, 0, already_complete=True)
        return _run_locked(config, out, parts_dir, meta_path, meta, session, columns, pool,
                           scheduler, progress, log, on_chunk, inputs, created, job)
    except OSError as e:
        raise KrakenError(f"cannot read or write the batch files: {e.strerror or e}",
                          source=e.filename) from None
    finally:
        if lock is not None:
            os.close(lock)


def _run_locked(config, out, parts_dir, meta_path, meta, session, columns, pool, scheduler,
                progress, log, on_chunk, inputs, created, job) -> BatchResult:
    from .. import __version__
    remove_temporaries(out)         # left by a run killed while writing them
    remove_temporaries(meta_path)
    parts = list_parts(parts_dir, config.n_chunks, job.store.tool)
    done = set(parts)
    check = None
    if config.input:
        # the input is read to its end alongside the run, the reused parts checked with it
        check = _InputCheck(config, parts_dir, parts, columns, job.store)
        check.start()
    elif parts:
        check_done_parts(config, parts_dir, parts, columns, job.store)
    postfix = None
    if job.on_part is not None:
        for k in sorted(parts):
            with open(os.path.join(parts_dir, parts[k]), encoding="utf-8") as f:
                postfix = job.on_part(f.read())
    done_deals = sum(config.chunk_range(k)[1] - config.chunk_range(k)[0] for k in done)
    if done:
        if config.n_chunks:
            log(f"resuming: {len(done):,} of {count(config.n_chunks, 'chunk')} done already "
                f"({done_deals:,} of {count(config.deals, 'deal')})")
        else:       # an input whose length is not known yet
            log(f"resuming: {count(len(done), 'chunk')} ({count(done_deals, 'deal')}) done "
                "already")
    session["workers"] = pool.workers
    session["scheduler"] = scheduler
    run_meta = os.path.join(parts_dir, RUN_META)

    def start_session():
        # the running sidecar records this run's options before its first part file is
        # written (so a resume can check the parts); the finished run's sidecar is not touched
        meta["sessions"].append(session)
        meta["status"] = "running"
        write_meta(run_meta, meta, inputs)

    if config.input:
        tasks = _input_tasks(config, done, columns, job)
    else:
        # the chunks still to solve, one at a time (a list of them all would grow with the
        # deals)
        def tasks_of():
            for k in range(config.n_chunks):
                if k not in done:
                    start, stop = config.chunk_range(k)
                    yield job.task(config, k, start, stop, None, columns)
        tasks = tasks_of()

    t0 = time.perf_counter()
    solved = 0
    peak = 0.0
    bar = None
    finished = done_deals           # deals of the chunks written
    entered = False

    def tick(partial):
        if check is not None:
            check.raise_error()
            if bar is not None and check.deals is not None and \
                    bar.total != check.deals * job.per_deal:
                bar.total = check.deals * job.per_deal
        if bar is not None:
            delta = finished * job.per_deal + partial - bar.n
            if delta:
                bar.update(delta)

    try:
        with pool:              # leaving it stops the workers, before the error is handled
            entered = True
            if scheduler is not None:
                session["workers"] = pool.workers
                session["scheduler_address"] = pool.address
                # local:N starts N processes of one thread; a cluster's count is threads
                kind = "process" if str(scheduler).startswith("local:") else "thread"
                plural = "" if pool.workers == 1 else "es" if kind == "process" else "s"
                log(f"Dask scheduler {pool.address}: {pool.workers} worker {kind}{plural}")
            start_session()
            if progress:
                from tqdm import tqdm
                bar = tqdm(total=None if config.deals is None else config.deals * job.per_deal,
                           initial=done_deals * job.per_deal, unit=job.unit,
                           file=sys.stderr, dynamic_ncols=True, smoothing=0.05)
                if postfix:
                    bar.set_postfix_str(postfix, refresh=False)
            for res in pool.run(job.work, tasks, on_tick=tick):
                if res["version"] != __version__:
                    raise KrakenError(f"a worker runs kraken-solver {res['version']}, "
                                      f"this is {__version__}: install the same version "
                                      "on every worker")
                data = res["text"].encode("utf-8")
                digest = hashlib.sha256(data).hexdigest()
                write_bytes(os.path.join(parts_dir, part_name(res["chunk"], digest)), data,
                            what="a part file", own_store=True)
                solved += res["deals"]
                finished += res["deals"]
                peak = max(peak, res["maxrss_mb"])
                if job.on_part is not None:
                    postfix = job.on_part(res["text"])
                    if bar is not None and postfix:
                        bar.set_postfix_str(postfix, refresh=False)
                tick(0)
                if on_chunk is not None:
                    on_chunk(pool, res)
            if check is not None:
                check.join()
                check.raise_error()
                config.deals = check.deals
                if bar is not None:
                    bar.total = config.deals * job.per_deal
                    bar.refresh()
    except KrakenError as err:
        if not entered and not done and created:
            # the pool never started and nothing was solved: leave no trace of this run
            # (its sidecar is not written yet)
            shutil.rmtree(parts_dir, ignore_errors=True)
        if entered and scheduler is not None and "--resume" not in err.message:
            raise KrakenError(f"{err}; the finished chunks are kept: run the same "
                              "command with --resume to finish") from None
        raise
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - t0
    rows, digest, size = assemble(config, out, parts_dir, columns, inputs, job.store)
    session["finished"] = now_stamp()
    session["seconds"] = round(seconds, 3)
    session["deals_solved"] = solved
    session["peak_worker_mb"] = round(peak, 1)
    meta.update(status="complete", rows=rows, deals=config.deals, finished=session["finished"],
                output=os.path.basename(out), output_sha256=digest, output_bytes=size)
    write_meta(meta_path, meta, inputs)
    shutil.rmtree(parts_dir, ignore_errors=True)
    return BatchResult(out, config.deals, solved, len(done), seconds,
                       solved / seconds if seconds > 0 and solved else 0.0, peak,
                       resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                       pool.workers)
