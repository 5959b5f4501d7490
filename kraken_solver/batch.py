"""Trump choice at scale: solve many deals for all four trumps in parallel (``kraken-batch``).

Every deal is solved double dummy (RULES.md §8) for each of the four trumps the first player
can choose; each (deal, trump) gives one row of :data:`COLUMNS`.  Values are in points, from
the playing team's side (the first player's team).

Deals
    Generated with NumPy from ``SeedSequence(seed)``: deal ``i`` is the ``i % 64``-th
    permutation drawn by ``default_rng`` from child sequence ``i // 64``
    (``SeedSequence(seed, spawn_key=(i // 64,))``, the same as ``SeedSequence(seed).spawn``'s
    child).  So deal ``i`` depends on the seed and ``i`` only: not on the number of deals, the
    chunk size, the number of workers, scheduling or resuming (:func:`generate_deals`).  Or
    read from a deal file (either form, :mod:`kraken_solver.dealfile`).

Work
    The deals are cut into chunks of ``chunk_size`` deals.  A pool of worker processes (one
    :class:`~kraken_solver.solver.Searcher` each; or the workers of a Dask cluster,
    :mod:`kraken_solver.cluster`) solves chunk after chunk and sends each chunk's rows back;
    the calling process writes them to a part file in the work directory ``OUT.parts/`` next
    to the output (:mod:`kraken_solver.outputs`: a temporary file, then a rename, so a part
    file is either complete or absent).  A part file's name carries the SHA-256 of its bytes
    (``chunk-0000012-<16 hex digits>.csv``).  When every chunk is done the output is
    assembled from the parts in chunk order (again through a temporary file and a rename),
    then the sidecar ``OUT.meta.json`` is written (complete, with the output's SHA-256), and
    the work directory is removed.  Deals read from a file (``input``) are streamed: the
    file is read a block at a time while the chunks are sent out, and checked in full by a
    thread alongside, so the first deals are solved at once, a mistake anywhere in it stops
    the run within the time one reading takes, and the memory does not grow with the file.

Integrity
    Every part file is checked before it is used, when a run is resumed and again when the
    output is assembled: its bytes against the checksum in its name, its header against the
    columns, and every row against its chunk (the deal ids of the chunk in order, each with
    its four trumps S H D C, the deal text regenerated from the seed or read again from the
    input file, the first player and the rules; whole numbers, True/False and ``made`` equal
    to score > 0).  A part that fails is refused by name, with how to redo it (delete it and
    resume: that chunk is solved again); it is never assembled.  The input file's SHA-256 is
    of exactly the bytes read; every later reading of it must give the same, so a file
    changed under a run is refused, not mixed in.  The input must be a regular file: it is
    read more than once (a pipe or a process substitution can be read once only).

Interruptions
    The run may be killed at any moment (Ctrl-C, ``kill -9``).  ``resume=True`` reuses the part
    files of the unfinished run, solves the missing chunks only and assembles the output: the
    final file holds every deal exactly once, rows in ``deal_id`` order, and equals the file of
    an uninterrupted run except for the timing columns ``nodes`` and ``ms`` (search work and
    wall time vary from run to run: the transposition table's contents depend on which deals a
    worker solved before, and time depends on the machine's load).  Resuming refuses a run
    whose configuration (seed, deals, chunk size, first player, rules, objectives, format,
    input file contents) differs from the unfinished run's, and part files without the
    sidecar of their run (they cannot be checked).  An unfinished run keeps its sidecar in
    the work directory (``OUT.parts/run.meta.json``), so an earlier output *and its sidecar*
    stay byte for byte as they were until a new run has assembled its output: then the
    output is replaced (one rename) and after it the sidecar (another).  A kill between the
    two leaves the work directory, and ``resume`` finishes the job.  One run at a time: a run
    takes the lock of ``OUT.parts/`` before it changes anything.

Pit
    ``pit`` is True when the playing team can *force* a pit: win every trick whatever the
    defenders do (double dummy).  It is computed exactly by one null-window margin search in
    which the pit bonus is raised to :data:`PIT_TEST_BONUS` (:func:`forces_pit`).  It cannot
    be read off ``score``: a made score with a pit and one without can be equal, and the
    score-optimal line need not be the pit line (a line that gives up a trick may win more
    roem), so "the team can force a pit" is the exact, well-defined quantity.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import hashlib
import io
import json
import os
import re
import resource
import shlex
import shutil
import signal
import stat
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

from .cards import SEATS, SUITS, is_int
from .formatting import count
from .deal import Deal
from .errors import KrakenError
from .outputs import (OutputError, atomic_open, check_outputs, file_kind, remove_temporaries,
                      write_bytes, write_text)
from .limits import MAX_BATCH_DEALS
from .rules import Rules, as_rules

#: deals drawn from one child of the seed's SeedSequence (fixed: deals never depend on it)
GEN_BLOCK = 64
#: the most deals one batch takes (``limits.MAX_BATCH_DEALS``)
MAX_DEALS = MAX_BATCH_DEALS
#: default number of deals in one work chunk (one part file)
CHUNK_SIZE = 64
#: pit bonus used by the pit test; any pit margin is >= this, any other margin is far below
PIT_TEST_BONUS = 10000
#: threshold of the pit test: without a pit a margin is at most 324 card points + 8 x 200 roem
PIT_TEST_THRESHOLD = 5000
FORMATS = ("csv", "parquet")
#: the file name extensions that name a format (another extension takes either)
FORMAT_EXTENSIONS = {"csv": (".csv",), "parquet": (".parquet", ".pq")}
#: worker processes a core at most (local pool and ``local:N``): a mistyped --workers must not
#: fork thousands of processes
WORKERS_PER_CORE = 4
OBJECTIVES = ("score", "points")

#: (name, type, meaning) of every column of a batch file, in order
COLUMNS = (
    ("deal_id", "int64", "0-based index of the deal (generated order, or order in the input file)"),
    ("deal", "string", "the deal as PBN from N: 'N:S.H.D.C S.H.D.C S.H.D.C S.H.D.C'"),
    ("first", "string", "the first player N/E/S/W (chooses trump, leads; their team plays)"),
    ("trump", "string", "the trump suit S/H/D/C"),
    ("rules", "string", "Rules.name of the rules the deal was solved under"),
    ("score", "int64", "double-dummy score, points, playing team's side (RULES.md rule 23)"),
    ("made", "bool", "score > 0 (rule 25)"),
    ("points", "int64", "double-dummy card points + trick roem of the playing team (rule 24); "
                        "only with objective points"),
    ("pit", "bool", "the playing team can force winning every trick (double dummy)"),
    ("nodes", "int64", "search nodes spent on this (deal, trump): timing, varies from run to run"),
    ("ms", "float64", "wall milliseconds spent on this (deal, trump): timing, varies"),
)
#: columns that measure the work done, not the result: they differ between runs
TIMING_COLUMNS = ("nodes", "ms")


def columns_for(objectives) -> list[tuple[str, str, str]]:
    """The columns of a batch file for ``objectives`` (``points`` only when asked)."""
    return [c for c in COLUMNS if c[0] != "points" or "points" in objectives]


# ----------------------------------------------------------------------------- deals
def _deal_from_perm(perm) -> Deal:
    return Deal(tuple(int(sum(1 << int(c) for c in perm[8 * k:8 * k + 8])) for k in range(4)))


def generate_deals(seed: int, start: int, stop: int) -> list[Deal]:
    """Full deals ``start .. stop-1`` of the seeded sequence (see the module docstring).

    Deal ``i`` is drawn from child ``i // GEN_BLOCK`` of ``SeedSequence(seed)``, as the
    ``i % GEN_BLOCK``-th permutation of the 32 cards by ``numpy.random.default_rng``; hands
    N, E, S, W take the permutation's cards 0-7, 8-15, 16-23, 24-31.  Raises KrakenError for a
    negative seed or range."""
    if seed is None or int(seed) < 0 or start < 0 or stop < start:
        raise KrakenError("the seed and the deal range must be >= 0",
                          token=f"{seed} {start}:{stop}")
    return [_deal_from_perm(perm) for perm in seeded_permutations(seed, 32, start, stop)]


def seeded_permutations(seed: int, pool, start: int, stop: int):
    """Permutations ``start .. stop-1`` of ``pool`` (an int n for 0..n-1, or an array): number
    ``i`` is the ``i % GEN_BLOCK``-th draw of ``numpy.random.default_rng`` seeded with child
    ``i // GEN_BLOCK`` of ``SeedSequence(seed)``, so it does not depend on ``start``."""
    i = start
    while i < stop:
        block = i // GEN_BLOCK
        rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(block,)))
        end = min(stop, (block + 1) * GEN_BLOCK)
        for j in range(block * GEN_BLOCK, end):
            perm = rng.permutation(pool)
            if j >= i:
                yield perm
        i = end


# ----------------------------------------------------------------------------- solving
@dataclass
class TrumpResult:
    """The values of one (deal, trump): ``score`` and ``points`` (int points, playing team's
    side; ``points`` is None when not asked), ``made``, ``pit`` (the playing team can force
    every trick; None when not asked), ``nodes`` and ``ms`` (the work spent)."""
    trump: int
    score: int
    made: bool
    points: int | None = None
    pit: bool | None = None
    nodes: int = 0
    ms: float = 0.0


def forces_pit(searcher, pos) -> bool:
    """Whether the playing team can force winning every trick from ``pos`` (double dummy).

    One null-window margin search with the pit bonus raised to ``PIT_TEST_BONUS``: a line with
    a pit has a margin of at least that bonus, a line without one at most 324 card points plus
    8 x 200 trick roem, so "margin >= PIT_TEST_THRESHOLD" holds exactly when the playing team
    can force a pit.  Tricks already lost by the playing team make it False."""
    from . import _kernels as K

    if pos.flag_lost:
        return False
    test = pos
    if pos.rules.pit_bonus != PIT_TEST_BONUS:
        test = pos.copy()
        test.rules = dataclasses.replace(pos.rules, pit_bonus=PIT_TEST_BONUS)
    margin = searcher.search(test, K.MODE_MARGIN, 0, PIT_TEST_THRESHOLD - 1, PIT_TEST_THRESHOLD)
    return margin >= PIT_TEST_THRESHOLD


def pit_ruled_out(pos, score: int) -> bool:
    """True when ``score`` (the exact score of ``pos``, a position with no trick played yet)
    already shows that the playing team cannot force a pit, so that :func:`forces_pit` need not
    search.

    If the playing team can force winning every trick, it can hold its margin (SOLVER-NOTES.md)
    to at least F = the deal's card points (last trick included) + hand roem D - O + the pit
    bonus whatever the defenders do (its trick roem only adds), so the minimax margin is >= F;
    where F > 0 the deal is then made and the score is m x margin >= m x F (rule 19).  So a
    score below m x F rules the pit out.  In a batch most deals are nat or made by less, and
    the pit test (3.4% of a batch's time, 100 deals) runs only for the rest."""
    floor = pos.total_points + pos.hr_d - pos.hr_o + pos.rules.pit_bonus
    return floor > 0 and score < pos.rules.multiplier * floor


def solve_trumps(searcher, deal, first, rules, *, trumps=(0, 1, 2, 3), points: bool = False,
                 pit: bool = True) -> list[TrumpResult]:
    """Solve ``deal`` with ``first`` as first player for each trump of ``trumps``.

    The score is exact (RULES.md rule 23).  With ``points`` the points value (rule 24) is found
    first and steers the score's search (as ``trump_table`` does).  With ``pit`` the pit test
    of :func:`forces_pit` runs after all the trumps (it uses other rules, so it would clear the
    transposition table that the four trumps of a deal share), and only where the score does
    not already rule the pit out (:func:`pit_ruled_out`).  Raises the errors of
    ``Position`` for bad input."""
    from .solver import Position

    rules = as_rules(rules)
    out = []
    positions = []
    for t in trumps:
        pos = Position(deal, t, first, rules)
        positions.append(pos)
        n0 = searcher.nodes
        t0 = time.perf_counter()
        p = None
        if points:
            p = searcher.value(pos, "points")
            s = searcher.value(pos, "score", guess=rules.multiplier * (
                2 * p - pos.total_points + pos.hr_d - pos.hr_o))
        else:
            s = searcher.value(pos, "score")
        out.append(TrumpResult(int(t), int(s), s > 0, p, None, searcher.nodes - n0,
                               (time.perf_counter() - t0) * 1000.0))
    if pit:
        for r, pos in zip(out, positions):
            if pit_ruled_out(pos, r.score):
                r.pit = False
                continue
            n0 = searcher.nodes
            t0 = time.perf_counter()
            r.pit = forces_pit(searcher, pos)
            r.nodes += searcher.nodes - n0
            r.ms += (time.perf_counter() - t0) * 1000.0
    return out


# ----------------------------------------------------------------------------- worker pool
_LOCAL = threading.local()
#: in a local pool's worker process: the shared array of progress slots (see WorkerPool)
_SLOTS = None
#: seconds between two looks at the running tasks' progress (local pool)
TICK = 0.25


def worker_searcher():
    """This thread's Searcher (one per worker process or Dask worker thread, created on first
    use: a Searcher's transposition table is not shared between threads)."""
    searcher = getattr(_LOCAL, "searcher", None)
    if searcher is None:
        from .solver import Searcher
        searcher = _LOCAL.searcher = Searcher()
    return searcher


def set_progress_reporter(report) -> None:
    """Set (or with None clear) this thread's progress reporter: a function taking the units
    of work (deals, samples) its current task has done so far.  The pools set it around each
    task (:class:`WorkerPool`, :class:`kraken_solver.cluster.DaskPool`)."""
    _LOCAL.reporter = report


def report_progress(done: int) -> None:
    """From inside a task: ``done`` units of its work are finished (for the caller's progress
    bar, between two finished tasks).  Does nothing outside a pool."""
    report = getattr(_LOCAL, "reporter", None)
    if report is not None:
        report(done)


def warm_kernels() -> None:
    """Load (or compile) the Numba kernels in this process, so forked workers inherit them."""
    from .solver import Position
    worker_searcher().value(Position("N:A.K.Q.J K.Q.J.A Q.J.A.K J.A.K.Q", 0, 0), "score")


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
    tasks reported done (:func:`report_progress`).  The workers ignore Ctrl-C and exit when
    the parent dies; leaving the ``with`` block through an exception (Ctrl-C included)
    terminates them at once.  A worker's exception is raised again in the parent.  Raises
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
    (:class:`kraken_solver.cluster.DaskPool`; ``workers`` must then be None), else the local
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


# ----------------------------------------------------------------------------- the batch
@dataclass
class BatchConfig:
    """What a batch computes; resuming requires the same configuration.

    - ``deals``: number of deals; ``seed``: the SeedSequence seed (generated deals), or
      ``input`` a deal file (then ``deals`` is the file's number of deals, known once the file
      has been read to its end: None before).
    - ``first``: the first player 0..3 for generated deals, or the override for the input
      (None: the file's); ``rules``: Rules, or None for the input file's rules.
    - ``objectives``: ``("score",)`` or ``("score", "points")``: score is always computed.
    - ``chunk_size``: deals a part file; ``fmt``: ``"csv"`` or ``"parquet"``.
    - ``input_sha256``, ``input_bytes``: of exactly the bytes of the input read.
    """
    deals: int | None = 0
    seed: int | None = 1
    first: int | None = 0
    rules: Rules | None = None
    objectives: tuple = ("score",)
    chunk_size: int = CHUNK_SIZE
    fmt: str = "csv"
    input: str | None = None
    input_sha256: str | None = None
    input_bytes: int | None = None
    # the input as the user named it, for messages (``input`` is absolute, for the workers
    # and a resume from another folder); not part of the configuration compared
    input_name: str | None = dataclasses.field(default=None, compare=False)

    @property
    def input_shown(self) -> str | None:
        """The input file's name for messages: as the user gave it."""
        return self.input_name or self.input

    def to_dict(self) -> dict:
        """The compared part of the sidecar (JSON types).  For an input file its checksum and
        size stand for its deals (their number is found while the batch runs)."""
        return {
            "source": "input" if self.input else "generated",
            "seed": self.seed if not self.input else None,
            "deals": self.deals if not self.input else None,
            "chunk_size": self.chunk_size,
            "first": SEATS[self.first] if self.first is not None else None,
            "rules": None if self.rules is None else {"name": self.rules.name,
                                                      "options": self.rules.to_dict()},
            "objectives": list(self.objectives),
            "format": self.fmt,
            "input_sha256": self.input_sha256,
            "input_bytes": self.input_bytes,
        }

    @property
    def n_chunks(self) -> int | None:
        return None if self.deals is None else -(-self.deals // self.chunk_size)

    def chunk_range(self, k: int) -> tuple[int, int]:
        stop = (k + 1) * self.chunk_size
        return k * self.chunk_size, stop if self.deals is None else min(self.deals, stop)

    def reader(self):
        """A :class:`~kraken_solver.dealfile.DealReader` of the input (its overrides, and the
        batch's check: deals as dealt)."""
        from .dealfile import DealReader
        return DealReader(self.input, first=self.first, rules=self.rules, check=_as_dealt,
                          name=self.input_shown)


def _as_dealt(spec) -> None:
    if spec.played:
        raise KrakenError("the batch solves deals as dealt; this deal has played "
                          "cards ([Play])", source=spec.source, line=spec.line)


def make_config(*, deals: int | None = None, seed: int | None = 1, input: str | None = None,
                first=None, rules=None, objectives=("score",), chunk_size: int = CHUNK_SIZE,
                fmt: str = "csv") -> BatchConfig:
    """Check the options of a batch and build its :class:`BatchConfig`.

    Either ``deals`` (with ``seed``) or ``input`` (a deal file, a regular file: the deals as
    dealt, all four trumps, played cards not allowed; its SHA-256 is taken of the bytes read,
    and its first megabyte is checked now, the rest while the batch runs).  ``first``/``rules``
    default to N and ``kraken`` for generated deals and to the file's values for an input
    file.  Raises KrakenError (and the deal-file errors of
    :class:`~kraken_solver.dealfile.DealReader`)."""
    from .solver import as_seat
    bad = [o for o in objectives if o not in OBJECTIVES]
    if bad:
        raise KrakenError("objectives are score and points", token=str(bad[0]))
    objectives = tuple(o for o in OBJECTIVES if o in set(objectives) | {"score"})
    if fmt not in FORMATS:
        raise KrakenError("the format is csv or parquet", token=str(fmt))
    if fmt == "parquet":
        require_pyarrow()
    if not is_int(chunk_size) or not 1 <= int(chunk_size) <= 100000:
        raise KrakenError("the chunk size must be from 1 to 100000", token=str(chunk_size))
    first_i = as_seat(first) if first is not None else None
    rules_r = as_rules(rules) if rules is not None else None
    if input is not None:
        if deals is not None:
            raise KrakenError("give either a number of deals or an input file, not both")
        digest, size = _hash_input(input)
        config = BatchConfig(deals=None, seed=None, first=first_i, rules=rules_r,
                             objectives=objectives, chunk_size=int(chunk_size), fmt=fmt,
                             input=os.path.abspath(input), input_sha256=digest,
                             input_bytes=size, input_name=os.fspath(input))
        config.reader().check_ahead()
        return config
    if deals is None or not is_int(deals) or int(deals) < 1 or int(deals) > MAX_DEALS:
        raise KrakenError(f"the number of deals must be from 1 to {MAX_DEALS:,}",
                          token=str(deals))
    if seed is None or not is_int(seed) or int(seed) < 0:
        raise KrakenError("the seed must be a whole number >= 0", token=str(seed))
    return BatchConfig(deals=int(deals), seed=int(seed),
                       first=first_i if first_i is not None else 0,
                       rules=rules_r if rules_r is not None else Rules(),
                       objectives=objectives, chunk_size=int(chunk_size), fmt=fmt)


def _hash_input(path) -> tuple[str, int]:
    """SHA-256 and size of exactly the bytes of the input file read now.  Raises KrakenError
    for ``-``, a file that is not a regular file (a pipe is read once; the batch reads its
    input again while it runs, to check its rows and to resume), one too large or that
    cannot be read."""
    from .dealfile import MAX_FILE_BYTES
    name = os.fspath(path)
    if name == "-":
        raise KrakenError("the batch's input must be a regular file, not standard input: it is "
                          "read again while the batch runs and to resume; save it to a file "
                          "first", token="-")
    def refuse(mode):
        return KrakenError("the batch's input must be a regular file, and this is "
                           f"{file_kind(mode)}: it is read again while the batch runs and "
                           "to resume (a pipe can be read once); save it to a file first",
                           source=name)
    try:
        st = os.stat(name)              # before opening: opening a named pipe would wait
        if not stat.S_ISREG(st.st_mode):
            raise refuse(st.st_mode)
        with open(name, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise refuse(st.st_mode)
            h = hashlib.sha256()
            size = 0
            while True:
                block = f.read(1 << 20)
                if not block:
                    break
                size += len(block)
                if size > MAX_FILE_BYTES:
                    raise KrakenError(f"the file is larger than {MAX_FILE_BYTES // 2**20} MiB; "
                                      "a deal file is at most that (split it into smaller "
                                      "files)", source=name)
                h.update(block)
    except OSError as e:
        raise KrakenError(f"cannot read the file: {e.strerror or e}", source=name) from None
    return h.hexdigest(), size


def require_pyarrow():
    """Import pyarrow or raise KrakenError saying how to install it."""
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise KrakenError("Parquet needs pyarrow: pip install 'pyarrow>=14' "
                          "(or pip install 'kraken-solver[parquet]')") from None
    return pyarrow


def format_for(out: str, fmt: str | None = None) -> str:
    """The format of output ``out``: ``fmt`` if given, else the one its extension names
    (``.parquet``/``.pq``: parquet; otherwise csv).  Raises KrakenError when ``fmt``
    contradicts the extension (``--format parquet --out x.csv``)."""
    lower = os.fspath(out).lower()
    named = next((f for f, exts in FORMAT_EXTENSIONS.items() if lower.endswith(exts)), None)
    if fmt is None:
        return named or "csv"
    if named is not None and named != fmt:
        raise KrakenError(f"the format is {fmt} but the output's name says {named}: give a name "
                          f"ending in {FORMAT_EXTENSIONS[fmt][0]} (or another extension), or "
                          f"--format {named}", source=os.fspath(out))
    return fmt


def paths_for(out: str) -> tuple[str, str]:
    """(work directory of part files, sidecar path) for the output ``out`` (beside the file a
    link names, when ``out`` is a symbolic link: the output is written through it)."""
    out = os.fspath(out)
    base = os.path.realpath(out) if os.path.islink(out) else out
    return base + ".parts", base + ".meta.json"


#: the running sidecar of an unfinished run, inside the work directory
RUN_META = "run.meta.json"
_PART_RE = re.compile(r"chunk-([0-9]{7})-([0-9a-f]{16})\.csv")


def _part_name(k: int, digest: str) -> str:
    return f"chunk-{k:07d}-{digest[:16]}.csv"


def check_batch_outputs(out: str, inputs=()) -> None:
    """Refuse, before any work, an output the batch must not write: ``out`` and its sidecar
    must each be a regular file or a new name (:func:`kraken_solver.outputs.check_outputs`;
    never an input), the work directory ``OUT.parts`` a directory (not a link to one) or a new
    name.  Only looks.
    Raises KrakenError (OutputError) naming the path."""
    parts_dir, meta_path = paths_for(out)
    check_outputs({"--out": out, "the output's sidecar": meta_path}, inputs=inputs)
    # a link is refused too, even to a directory: the run writes, removes and at its end
    # deletes files in the work directory, which must be its own (through a link to a
    # folder of the user's, the part files were left there)
    try:
        mode = os.lstat(parts_dir).st_mode
    except FileNotFoundError:
        mode = None                 # a new name
    if mode is not None and not stat.S_ISDIR(mode):
        kind = "a symbolic link" if stat.S_ISLNK(mode) else file_kind(mode)
        raise OutputError(f"the output's work directory must be a directory or a new name, and "
                          f"this is {kind}: give another --out, or move it away",
                          source=parts_dir)


def _csv_value(v) -> str:
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def rows_of(deal_id: int, deal: Deal, first: int, rules: Rules, results) -> list[dict]:
    """The batch rows of one deal's results (one per trump), keyed by column name."""
    pbn = str(deal)
    return [{"deal_id": deal_id, "deal": pbn, "first": SEATS[first], "trump": SUITS[r.trump],
             "rules": rules.name, "score": r.score, "made": bool(r.made), "points": r.points,
             "pit": bool(r.pit), "nodes": int(r.nodes), "ms": round(float(r.ms), 3)}
            for r in results]


def _solve_chunk(task) -> dict:
    """Worker: solve one chunk; return its part file's text (the caller writes it) and a
    summary of the work.  Reports each finished deal (:func:`report_progress`)."""
    from . import __version__
    k, start, stop, seed, first, rules, items, objectives, columns = task
    searcher = worker_searcher()
    t0 = time.perf_counter()
    n0 = searcher.nodes
    if items is None:
        items = [(d, first, rules) for d in generate_deals(seed, start, stop)]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for i, (deal, first, rules) in enumerate(items):
        if not isinstance(deal, Deal):
            deal = Deal(tuple(deal))
        results = solve_trumps(searcher, deal, first, rules, points="points" in objectives)
        for row in rows_of(start + i, deal, first, rules, results):
            w.writerow([_csv_value(row[c]) for c in columns])
        report_progress(i + 1)
    return {"chunk": k, "deals": stop - start, "text": buf.getvalue(),
            "seconds": time.perf_counter() - t0, "version": __version__,
            "nodes": searcher.nodes - n0, "pid": os.getpid(),
            "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}


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


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


# ----------------------------------------------------------------------------- sidecars
#: keys every sidecar has, with their JSON types (a damaged one is refused by name)
_META_KEYS = {"tool": str, "version": str, "status": str, "config": dict, "sessions": list,
              "format": str, "objectives": list, "chunk_size": int}
_CONFIG_KEYS = {"source": str, "chunk_size": int, "objectives": list, "format": str}


def _read_meta(path: str) -> dict | None:
    """A sidecar (the finished run's ``OUT.meta.json`` or an unfinished run's
    ``OUT.parts/run.meta.json``), checked; None when there is none.  Raises KrakenError
    naming the file when it cannot be read, is not JSON text, or lacks a key or has one of
    the wrong type."""
    try:
        with open(path, "rb") as f:
            data = f.read(16 * 2**20 + 1)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise KrakenError(f"cannot read the sidecar: {e.strerror or e}", source=path) from None
    how = ("delete it (and the work directory beside it) to start over" if
           not path.endswith(RUN_META) else
           f"delete {os.path.dirname(path)} to start over")
    try:
        meta = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise KrakenError(f"the sidecar is damaged: byte {e.start + 1} is not UTF-8; {how}",
                          source=path) from None
    except ValueError as e:
        raise KrakenError(f"the sidecar is damaged: not JSON ({e}); {how}",
                          source=path) from None
    if not isinstance(meta, dict) or meta.get("tool") != "kraken-batch":
        raise KrakenError("not a kraken-batch sidecar (it records the options of the batch "
                          f"file); {how}, or use another output file", source=path)
    for keys, where in ((_META_KEYS, meta), (_CONFIG_KEYS, meta.get("config"))):
        for key, kind in keys.items():
            value = where.get(key) if isinstance(where, dict) else None
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                name = key if where is meta else f"config.{key}"
                raise KrakenError(f"the sidecar is damaged: {name!r} is missing or not "
                                  f"{'a list' if kind is list else kind.__name__}; {how}",
                                  source=path)
    if not all(isinstance(s, dict) for s in meta["sessions"]):
        raise KrakenError(f"the sidecar is damaged: 'sessions' is not a list of objects; {how}",
                          source=path)
    return meta


def _write_meta(path: str, meta: dict, inputs=()) -> None:
    write_text(path, json.dumps(meta, indent=1) + "\n", what="the sidecar", inputs=inputs)


def _config_diff(old: dict, new: dict) -> list[str]:
    out = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            a, b = old.get(key), new.get(key)
            if key == "rules":
                a = a["name"] if isinstance(a, dict) else a
                b = b["name"] if isinstance(b, dict) else b
            if key in ("input_sha256", "input_bytes"):
                if "the input file's contents differ" not in out:
                    out.append("the input file's contents differ")
                continue
            out.append(f"{key} {b} (was {a})")
    return out


def _file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ----------------------------------------------------------------------------- part files
def _list_parts(parts_dir: str, n_chunks: int | None = None) -> dict:
    """{chunk: file name} of the part files in ``parts_dir``.  Removes the temporary files a
    killed write left (``.NAME.XXXXXXXX.tmp``).  Raises KrakenError for a file named like a
    part that is not one this version writes, two parts of one chunk, or (``n_chunks``
    given) a part of no chunk of the run."""
    parts = {}
    for name in sorted(os.listdir(parts_dir)):
        path = os.path.join(parts_dir, name)
        if name.startswith(".") and name.endswith(".tmp"):
            try:
                os.remove(path)         # a write killed half-way: that chunk is solved again
            except OSError:
                pass
            continue
        if not name.startswith("chunk-"):
            continue
        m = _PART_RE.fullmatch(name)
        if m is None:
            raise KrakenError("not a part file that kraken-batch writes "
                              "(chunk-NNNNNNN-CHECKSUM.csv): delete it or move it away, then "
                              "run the same command with --resume", source=path)
        k = int(m.group(1))
        if k in parts:
            raise KrakenError(f"two part files of chunk {k}: {parts[k]} and {name}; delete both "
                              "and run the same command with --resume to solve the chunk "
                              "again", source=parts_dir)
        if n_chunks is not None and k >= n_chunks:
            raise KrakenError(f"part file of chunk {k}, and the run has "
                              f"{count(n_chunks, 'chunk')}: it does not belong to this run; "
                              "delete it and run the same command with --resume", source=path)
        parts[k] = name
    return parts


def _expected_chunks(config: BatchConfig, wanted=None):
    """(chunk, [(deal text, first player letter, rules name) per deal]) for every chunk in
    order (or those in ``wanted``): the deals regenerated from the seed, or read again from
    the input file.  After the last chunk of an input, ``config.deals`` is its number of
    deals.  Raises KrakenError when the input's bytes differ from those the run started
    with."""
    if not config.input:
        for k in (range(config.n_chunks) if wanted is None else sorted(wanted)):
            start, stop = config.chunk_range(k)
            yield k, [(str(d), SEATS[config.first], config.rules.name)
                      for d in generate_deals(config.seed, start, stop)]
        return
    reader = config.reader()
    k, items = 0, []
    for spec in reader:
        items.append((str(spec.deal), SEATS[spec.first], spec.rules.name))
        if len(items) == config.chunk_size:
            if wanted is None or k in wanted:
                yield k, items
            k, items = k + 1, []
    if items and (wanted is None or k in wanted):
        yield k, items
    _check_same_input(config, reader)
    config.deals = reader.deals


def _check_input_unchanged(config: BatchConfig) -> None:
    """Before rows are checked against the input: its bytes now must be those the run
    started with (else a changed file would look like damaged parts)."""
    if config.input and _hash_input(config.input) != (config.input_sha256,
                                                       config.input_bytes):
        raise _input_changed(config)


def _input_changed(config: BatchConfig) -> KrakenError:
    return KrakenError("the input file changed while the batch was using it (its SHA-256 is "
                       "not the one the run started with): the rows would mix two inputs; "
                       "put the file back, or start over with another --out",
                       source=config.input_shown)


def _check_same_input(config: BatchConfig, reader) -> None:
    if reader.sha256 != config.input_sha256 or reader.bytes_read != config.input_bytes:
        raise _input_changed(config)


def _damaged(path: str, k: int, config: BatchConfig, why: str, line: int | None = None):
    start = k * config.chunk_size
    stop = start + config.chunk_size if config.deals is None else \
        min(config.deals, start + config.chunk_size)
    return KrakenError(f"part file of chunk {k} (deals {start} to {stop - 1}) is damaged: {why}; "
                       "delete it and run the same command with --resume to solve that chunk "
                       "again", source=path, line=line)


def _checked_part(path: str, k: int, expected, config: BatchConfig, columns) -> str:
    """The rows of part file ``path`` (chunk ``k``, without the header) after checking its
    bytes against the checksum in its name and every row against ``expected`` (the chunk's
    deals, :func:`_expected_chunks`).  Raises KrakenError naming the part and saying how to
    redo it."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise KrakenError(f"cannot read the part file: {e.strerror or e}", source=path) from None
    digest = hashlib.sha256(data).hexdigest()
    if not os.path.basename(path).endswith(f"-{digest[:16]}.csv"):
        raise _damaged(path, k, config, "its bytes do not match the checksum in its name (it "
                       "was changed after it was written)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _damaged(path, k, config, f"byte {e.start + 1} is not UTF-8") from None
    lines = text.split("\n")
    if lines[-1] != "":
        raise _damaged(path, k, config, "its last line is cut short")
    header = ",".join(columns)
    if lines[0] != header:
        raise _damaged(path, k, config, f"its header is not {header}", line=1)
    rows = lines[1:-1]
    start = k * config.chunk_size
    if len(rows) != 4 * len(expected):
        raise _damaged(path, k, config, f"it has {count(len(rows), 'row')}, and the chunk's "
                       f"{count(len(expected), 'deal')} have {4 * len(expected)}")
    col = {c: i for i, c in enumerate(columns)}
    ints = [col[c] for c in ("score", "points", "nodes") if c in col]
    floats = [col["ms"]]
    bools = [col[c] for c in ("made", "pit") if c in col]
    for i, fields in enumerate(csv.reader(rows)):
        line = i + 2
        if len(fields) != len(columns):
            raise _damaged(path, k, config, f"a row of {len(fields)} fields, not "
                           f"{len(columns)}", line)
        deal, first, rules = expected[i // 4]
        want = {"deal_id": str(start + i // 4), "trump": SUITS[i % 4], "deal": deal,
                "first": first, "rules": rules}
        for c, v in want.items():
            if fields[col[c]] != v:
                raise _damaged(path, k, config, f"{c} {fields[col[c]]!r} where this chunk has "
                               f"{v!r}", line)
        for j in ints:
            if not re.fullmatch(r"-?[0-9]{1,12}", fields[j]):
                raise _damaged(path, k, config, f"{columns[j]} {fields[j]!r} is not a whole "
                               "number", line)
        for j in floats:
            if not re.fullmatch(r"[0-9]{1,12}(\.[0-9]{1,6})?", fields[j]):
                raise _damaged(path, k, config, f"{columns[j]} {fields[j]!r} is not a number of "
                               "milliseconds", line)
        for j in bools:
            if fields[j] not in ("True", "False"):
                raise _damaged(path, k, config, f"{columns[j]} {fields[j]!r} is not True or "
                               "False", line)
        if (fields[col["made"]] == "True") != (int(fields[col["score"]]) > 0):
            raise _damaged(path, k, config, "made does not match the score (made is score > 0)",
                           line)
    return "".join(r + "\n" for r in rows)


def _check_done_parts(config: BatchConfig, parts_dir: str, parts: dict, columns) -> None:
    """Check every part file of ``parts`` against its chunk (:func:`_checked_part`); for an
    input file this reads it to the end (and sets ``config.deals``).  Raises KrakenError."""
    seen = set()
    _check_input_unchanged(config)
    for k, expected in _expected_chunks(config, wanted=set(parts)):
        _checked_part(os.path.join(parts_dir, parts[k]), k, expected, config, columns)
        seen.add(k)
    for k in sorted(set(parts) - seen):
        raise KrakenError(f"part file of chunk {k}, and the input has "
                          f"{count(config.n_chunks, 'chunk')} ({count(config.deals, 'deal')}): "
                          "it does not belong to this run; delete it "
                          "and run the same command with --resume",
                          source=os.path.join(parts_dir, parts[k]))


class _InputCheck(threading.Thread):
    """Reads the whole input file alongside the run (a deal file is checked to its end long
    before the last chunk is solved): its deals, its checksum, and the rows of the part files
    reused from an earlier session.  ``error`` holds what it found wrong, ``deals`` the number
    of deals once done."""

    def __init__(self, config: BatchConfig, parts_dir: str, parts: dict, columns):
        super().__init__(daemon=True, name="kraken-batch-input-check")
        self.config = dataclasses.replace(config)
        self.parts_dir, self.parts, self.columns = parts_dir, dict(parts), columns
        self.error = None
        self.deals = None

    def run(self):
        try:
            # reads the input to its end (checksum and deals) even with no part to check
            _check_done_parts(self.config, self.parts_dir, self.parts, self.columns)
            self.deals = self.config.deals
        except BaseException as e:  # noqa: B902 - reported by the main thread
            self.error = e

    def raise_error(self) -> None:
        if self.error is not None:
            raise self.error


def _input_tasks(config: BatchConfig, done: set, columns):
    """The tasks of the chunks of an input file not in ``done``, reading it as a stream."""
    reader = config.reader()
    k, items = 0, []
    for spec in reader:
        items.append((spec.deal.hands, spec.first, spec.rules))
        if len(items) == config.chunk_size:
            if k not in done:
                start = k * config.chunk_size
                yield (k, start, start + len(items), None, None, None, items,
                       config.objectives, columns)
            k, items = k + 1, []
    if items and k not in done:
        start = k * config.chunk_size
        yield (k, start, start + len(items), None, None, None, items, config.objectives,
               columns)
    _check_same_input(config, reader)


# ----------------------------------------------------------------------------- running
def run_batch(config: BatchConfig, out: str, *, workers: int | None = None,
              scheduler: str | None = None, resume: bool = False, progress: bool = False,
              command: list[str] | None = None, log=None, on_chunk=None) -> BatchResult:
    """Run (or with ``resume`` finish) a batch into ``out``; see the module docstring.

    ``workers``: processes (default one per core, at most :func:`max_workers`);
    ``scheduler``: instead of the local process pool, a Dask cluster (``"local:N"`` or a
    scheduler address ``"tcp://HOST:PORT"``, :mod:`kraken_solver.cluster`): the same rows,
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
    sidecar are untouched)."""
    out = os.fspath(out)
    parts_dir, meta_path = paths_for(out)
    cols = columns_for(config.objectives)
    columns = [c[0] for c in cols]
    log = log or (lambda line: None)
    inputs = [config.input] if config.input else []
    check_batch_outputs(out, inputs)
    pool = make_pool(workers, scheduler, log=log)
    session = {"argv": list(command) if command else None,
               "command": shlex.join(command) if command else None,
               "started": _now(), "workers": None}
    lock, created = _lock_dir(parts_dir, out)
    try:
        try:
            meta = _meta_to_run(config, out, parts_dir, meta_path, cols, resume, session, log)
        except BaseException:
            if created:
                _remove_empty_dir(parts_dir)
            raise
        if meta is None:
            # nothing to do: no work directory stays (one left empty by a run killed before
            # its first chunk goes too)
            _remove_empty_dir(parts_dir)
            return BatchResult(out, config.deals or 0, 0, config.n_chunks or 0, 0.0, 0.0, 0.0,
                               0.0, 0, already_complete=True)
        return _run_locked(config, out, parts_dir, meta_path, meta, session, columns, pool,
                           scheduler, progress, log, on_chunk, inputs, created)
    except OSError as e:
        raise KrakenError(f"cannot read or write the batch files: {e.strerror or e}",
                          source=e.filename) from None
    finally:
        if lock is not None:
            os.close(lock)


def _remove_empty_dir(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass


def _new_meta(config, session, cols) -> dict:
    from . import __version__
    cfg = config.to_dict()
    return {
        "tool": "kraken-batch", "version": __version__, "status": "running",
        "config": cfg,
        "command": session["command"], "argv": session["argv"],
        "seed": cfg["seed"], "deals": config.deals, "chunk_size": config.chunk_size,
        "deal_generation": ("SeedSequence(seed); deal i = permutation i % 64 of "
                            "default_rng(SeedSequence(seed, spawn_key=(i // 64,))); "
                            "hands N E S W = cards 0-7, 8-15, 16-23, 24-31"
                            if not config.input else None),
        "input": config.input, "input_sha256": config.input_sha256,
        "rules": cfg["rules"] if cfg["rules"] else "from the input file",
        "first": cfg["first"] if cfg["first"] else "from the input file",
        "objectives": list(config.objectives), "format": config.fmt,
        "columns": [{"name": n, "type": t, "meaning": m} for n, t, m in cols],
        "timing_columns": list(TIMING_COLUMNS),
        "note": ("rows are in deal_id order, trumps S H D C within a deal; values in "
                 "points from the playing team's side (RULES.md section 8); nodes and ms "
                 "measure the work and vary from run to run (also after a resume): "
                 "compare runs on the other columns; output_sha256 is the SHA-256 of the "
                 "output file this sidecar describes"),
        "sessions": [],
    }


def _meta_to_run(config, out, parts_dir, meta_path, cols, resume, session, log):
    """The sidecar this run continues (an unfinished run's, with resume) or starts, after
    checking that the part files in ``parts_dir`` belong to it; None when a resumed run is
    complete already.  Called with the lock held; changes nothing.  Raises KrakenError."""
    cfg = config.to_dict()
    parts = _list_parts(parts_dir)
    n = len(parts)
    running = _read_meta(os.path.join(parts_dir, RUN_META))
    if running is not None:
        if not resume:
            if n:
                raise KrakenError(f"{parts_dir} holds an unfinished run "
                                  f"({count(n, 'chunk')} done): "
                                  "finish it with --resume (same options), or delete "
                                  f"{parts_dir} to start over")
            return _new_meta(config, session, cols)     # it finished no chunk: start over
        diff = _config_diff(running["config"], cfg)
        if diff:
            raise KrakenError("cannot resume: the configuration differs from the unfinished "
                              "run's (" + "; ".join(diff) + "); give the same options, use "
                              f"another output file, or delete {parts_dir} to start over",
                              source=os.path.join(parts_dir, RUN_META))
        return running
    if n:
        # without a sidecar --resume cannot take them either: say so, not "use --resume"
        raise KrakenError(f"{'cannot resume: ' if resume else ''}{parts_dir} holds {n} "
                          f"finished chunk{'s' if n != 1 else ''} but there is no sidecar "
                          f"{os.path.join(parts_dir, RUN_META)} recording their options, so "
                          f"they cannot be checked; delete {parts_dir} to start over")
    if resume:
        done = _read_meta(meta_path)
        if done is not None:
            diff = _config_diff(done["config"], cfg)
            if diff:
                raise KrakenError("cannot resume: the configuration differs from the earlier "
                                  "run's (" + "; ".join(diff) + "); give the same options, "
                                  "use another output file, or run without --resume to start "
                                  "over", source=meta_path)
            if done["status"] == "complete" and os.path.exists(out):
                want = done.get("output_sha256")
                if want is not None and _file_sha256(out) != want:
                    raise KrakenError("the output does not match its sidecar (its SHA-256 "
                                      f"differs from the one {meta_path} records): run without "
                                      "--resume to make it again", source=out)
                rows = done.get("rows")
                log(f"{out} is already complete ("
                    + (count(rows, "row") if isinstance(rows, int) else "every row")
                    + "); nothing to do")
                return None
    return _new_meta(config, session, cols)


def _lock_dir(parts_dir: str, out: str):
    """Make the work directory if needed and hold an exclusive lock on it: one run at a time
    per output.  Returns (file descriptor or None, whether this call made the directory).
    Raises KrakenError when it cannot be made or another run holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        fcntl = None
    for _ in range(5):
        created = False
        try:
            os.mkdir(parts_dir)
            created = True
        except FileExistsError:
            pass
        except OSError as e:
            raise KrakenError(f"cannot make the work directory: {e.strerror or e}",
                              source=parts_dir) from None
        if fcntl is None:  # pragma: no cover
            return None, created
        try:
            fd = os.open(parts_dir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except FileNotFoundError:
            continue                # removed by a run that just finished: make it again
        except OSError as e:
            raise KrakenError(f"cannot open the work directory: {e.strerror or e}",
                              source=parts_dir) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise KrakenError(f"another kraken-batch is writing {out} (its work directory "
                              f"{parts_dir} is locked)") from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(parts_dir))
        except OSError:
            same = False
        if same:
            return fd, created
        os.close(fd)                # locked a directory that another run has just removed
    raise KrakenError(f"the work directory {parts_dir} keeps being removed by another "
                      "kraken-batch; try again")


def _run_locked(config, out, parts_dir, meta_path, meta, session, columns, pool, scheduler,
                progress, log, on_chunk, inputs, created) -> BatchResult:
    from . import __version__
    remove_temporaries(out)         # left by a run killed while writing them
    remove_temporaries(meta_path)
    parts = _list_parts(parts_dir, config.n_chunks)
    done = set(parts)
    check = None
    if config.input:
        # the input is read to its end alongside the run, the reused parts checked with it
        check = _InputCheck(config, parts_dir, parts, columns)
        check.start()
    elif parts:
        _check_done_parts(config, parts_dir, parts, columns)
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
        _write_meta(run_meta, meta, inputs)

    if config.input:
        tasks = _input_tasks(config, done, columns)
    else:
        # the chunks still to solve, one at a time (a list of them all would grow with the
        # deals)
        def tasks_of():
            for k in range(config.n_chunks):
                if k not in done:
                    start, stop = config.chunk_range(k)
                    yield (k, start, stop, config.seed, config.first, config.rules, None,
                           config.objectives, columns)
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
            if bar is not None and check.deals is not None and bar.total != check.deals:
                bar.total = check.deals
        if bar is not None:
            delta = finished + partial - bar.n
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
                bar = tqdm(total=config.deals, initial=done_deals, unit="deal",
                           file=sys.stderr, dynamic_ncols=True, smoothing=0.05)
            for res in pool.run(_solve_chunk, tasks, on_tick=tick):
                if res["version"] != __version__:
                    raise KrakenError(f"a worker runs kraken-solver {res['version']}, "
                                      f"this is {__version__}: install the same version "
                                      "on every worker")
                data = res["text"].encode("utf-8")
                digest = hashlib.sha256(data).hexdigest()
                write_bytes(os.path.join(parts_dir, _part_name(res["chunk"], digest)), data,
                            what="a part file")
                solved += res["deals"]
                finished += res["deals"]
                peak = max(peak, res["maxrss_mb"])
                tick(0)
                if on_chunk is not None:
                    on_chunk(pool, res)
            if check is not None:
                check.join()
                check.raise_error()
                config.deals = check.deals
                if bar is not None:
                    bar.total = config.deals
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
    rows, digest, size = _assemble(config, out, parts_dir, columns, inputs)
    session["finished"] = _now()
    session["seconds"] = round(seconds, 3)
    session["deals_solved"] = solved
    session["peak_worker_mb"] = round(peak, 1)
    meta.update(status="complete", rows=rows, deals=config.deals, finished=session["finished"],
                output=os.path.basename(out), output_sha256=digest, output_bytes=size)
    _write_meta(meta_path, meta, inputs)
    shutil.rmtree(parts_dir, ignore_errors=True)
    return BatchResult(out, config.deals, solved, len(done), seconds,
                       solved / seconds if seconds > 0 and solved else 0.0, peak,
                       resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                       pool.workers)


def _schema_pa(columns):
    import pyarrow as pa
    types = {"int64": pa.int64(), "string": pa.string(), "bool": pa.bool_(),
             "float64": pa.float64()}
    kinds = {c[0]: c[1] for c in COLUMNS}
    return pa.schema([(c, types[kinds[c]]) for c in columns])


def _assemble(config: BatchConfig, out: str, parts_dir: str, columns: list[str],
              inputs) -> tuple[int, str, int]:
    """Join the part files in chunk order into ``out`` (atomically, every part checked first:
    :func:`_checked_part`); return (rows, SHA-256 of the output, its size in bytes)."""
    parts = _list_parts(parts_dir, config.n_chunks)
    missing = [k for k in range(config.n_chunks) if k not in parts]
    if missing:
        raise KrakenError(f"chunk {missing[0]} has no part file "
                          f"({count(len(missing), 'chunk')} missing): "
                          "run the same command with --resume to solve them", source=parts_dir)
    rows = 0
    header = ",".join(columns)
    _check_input_unchanged(config)

    def checked():
        for k, expected in _expected_chunks(config):
            yield _checked_part(os.path.join(parts_dir, parts[k]), k, expected, config, columns)

    if config.fmt == "csv":
        with atomic_open(out, "w", what="the output", inputs=inputs, newline="") as dst:
            dst.write(header + "\n")
            for body in checked():
                dst.write(body)
                rows += body.count("\n")
    else:
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq
        schema = _schema_pa(columns)
        with atomic_open(out, "wb", what="the output", inputs=inputs) as dst:
            writer = pq.ParquetWriter(dst, schema)
            try:
                for body in checked():
                    rows += body.count("\n")
                    table = pacsv.read_csv(
                        io.BytesIO((header + "\n" + body).encode("utf-8")),
                        convert_options=pacsv.ConvertOptions(
                            column_types=schema, true_values=["True"],
                            false_values=["False"], strings_can_be_null=False))
                    writer.write_table(table.select(columns).cast(schema))
            finally:
                writer.close()
    return rows, _file_sha256(out), os.path.getsize(out)


def read_results(path: str):
    """Read a batch output (CSV or Parquet, told apart by the file's first bytes) into a
    pandas DataFrame with the column types of :data:`COLUMNS`.  The columns that
    :func:`kraken_solver.summary.summarize` uses are checked
    (:func:`kraken_solver.summary.check_results`).  Raises KrakenError for a file that cannot
    be read, is not UTF-8 text (CSV: the line and column of the first bad byte), lacks a
    column or holds a bad value (naming the line, or the row of a Parquet file, and the
    column)."""
    import pandas as pd

    from .summary import check_results
    path = os.fspath(path)
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            # a device such as /dev/zero would be read until the memory is full
            raise KrakenError(f"a batch file is a regular file; this is {file_kind(st.st_mode)}",
                              source=path)
        parquet = _is_parquet(path)
        if parquet:
            require_pyarrow()
            df = _read_parquet(path)
        else:
            _check_utf8(path)
            # every value as written: check_results converts and reports a bad one
            df = pd.read_csv(path, dtype={"deal": str, "first": str, "trump": str,
                                          "rules": str}, keep_default_na=False)
    except KrakenError:
        raise
    except (OSError, ValueError, TypeError) as e:
        raise KrakenError(f"cannot read the batch file: {_one_line(e)}", source=path) from None
    return check_results(df, source=path,
                         line_of=None if parquet else lambda row: _csv_line(path, row))


def _one_line(err) -> str:
    text = " ".join(str(err).split())
    return text if len(text) <= 200 else text[:197] + "..."


def _read_parquet(path: str):
    """A Parquet batch file as a DataFrame; KrakenError (not pyarrow's own exception types)
    for one that is damaged."""
    import pyarrow
    import pyarrow.parquet as pq
    try:
        return pq.read_table(path).to_pandas()
    except (pyarrow.ArrowException, OSError, ValueError, TypeError, KeyError,
            NotImplementedError, IndexError) as e:
        raise KrakenError(f"cannot read the Parquet file: {_one_line(e)}", source=path) \
            from None


def _check_utf8(path: str) -> None:
    """Raise KrakenError at the line and column of the first byte of ``path`` that is not
    UTF-8 (pandas would name a position inside one of its blocks)."""
    import codecs
    decoder = codecs.getincrementaldecoder("utf-8")()
    with open(path, "rb") as f:
        try:
            for block in iter(lambda: f.read(1 << 20), b""):
                decoder.decode(block)
            decoder.decode(b"", final=True)
            return
        except UnicodeDecodeError:
            pass
    # find the bad byte by reading again, line by line (only on this error path)
    with open(path, "rb") as f:
        for number, raw in enumerate(f, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as e:
                column = len(raw[:e.start].decode("utf-8", "replace")) + 1
                raise KrakenError(f"not a UTF-8 text file (byte 0x{raw[e.start]:02X} is not "
                                  "UTF-8)", source=path, line=number, column=column) from None


def _is_parquet(path: str) -> bool:
    """Does the file start as a Parquet file does (its magic bytes)?  Raises OSError."""
    with open(path, "rb") as f:
        return f.read(4) == b"PAR1"


def line_locator(path: str):
    """For the errors of a batch file read by :func:`read_results`: a function from a data
    row (0-based) to its line in a CSV file, or None for a Parquet file (rows are named) or
    one that cannot be read."""
    path = os.fspath(path)
    try:
        if _is_parquet(path):
            return None
    except OSError:
        return None
    return lambda row: _csv_line(path, row)


def _csv_line(path: str, row: int) -> int | None:
    """The line number (1-based) of data row ``row`` (0-based) of a CSV file as pandas reads
    it: after the header, blank lines skipped.  None when the file is shorter."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            next(f, None)
            seen = -1
            for number, text in enumerate(f, start=2):
                if text.strip():
                    seen += 1
                    if seen == row:
                        return number
    except OSError:
        pass
    return None
