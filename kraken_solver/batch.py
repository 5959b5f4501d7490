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
    to the output, to a temporary name first and then renamed (``os.replace``), so a part
    file is either complete or absent.  When every chunk is done the output is assembled from
    the parts in chunk order (again through a temporary file and a rename), the sidecar
    ``OUT.meta.json`` is marked complete, and the parts are removed.

Interruptions
    The run may be killed at any moment (Ctrl-C, ``kill -9``).  ``resume=True`` reuses the part
    files of the unfinished run, solves the missing chunks only and assembles the output: the
    final file holds every deal exactly once, rows in ``deal_id`` order, and equals the file of
    an uninterrupted run except for the timing columns ``nodes`` and ``ms`` (search work and
    wall time vary from run to run: the transposition table's contents depend on which deals a
    worker solved before, and time depends on the machine's load).  Resuming refuses a run
    whose configuration (seed, deals, chunk size, first player, rules, objectives, format,
    input file contents) differs from the sidecar's, and part files without a sidecar (they
    cannot be checked).  An earlier output stays as it was until a new run has finished (it is
    replaced by the final rename only), so an interrupted run never costs it.  One run at a
    time: a run takes the lock of ``OUT.parts/`` before it changes anything, and the sidecar of
    a new run is written just before its first part file.

Pit
    ``pit`` is True when the playing team can *force* a pit: win every trick whatever the
    defenders do (double dummy).  It is computed exactly by one null-window margin search in
    which the pit bonus is raised to :data:`PIT_TEST_BONUS` (:func:`forces_pit`).  It cannot
    be read off ``score``: a made score with a pit and one without can be equal, and the
    score-optimal line need not be the pit line (a line that gives up a trick may win more
    roem), so "the team can force a pit" is the exact, well-defined quantity.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import os
import resource
import shlex
import shutil
import signal
import stat
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field

import numpy as np

from .cards import SEATS, SUITS
from .deal import Deal
from .errors import KrakenError
from .rules import Rules, as_rules

#: deals drawn from one child of the seed's SeedSequence (fixed: deals never depend on it)
GEN_BLOCK = 64
#: the most deals one batch takes (a billion: about 150 days of one 2-core machine at 80
#: deals/s; beyond that a mistyped number would only fill the memory with the chunk list)
MAX_DEALS = 10**9
#: default number of deals in one work chunk (one part file)
CHUNK_SIZE = 64
#: pit bonus used by the pit test; any pit margin is >= this, any other margin is far below
PIT_TEST_BONUS = 10000
#: threshold of the pit test: without a pit a margin is at most 324 card points + 8 x 200 roem
PIT_TEST_THRESHOLD = 5000
FORMATS = ("csv", "parquet")
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


def worker_searcher():
    """This thread's Searcher (one per worker process or Dask worker thread, created on first
    use: a Searcher's transposition table is not shared between threads)."""
    searcher = getattr(_LOCAL, "searcher", None)
    if searcher is None:
        from .solver import Searcher
        searcher = _LOCAL.searcher = Searcher()
    return searcher


def warm_kernels() -> None:
    """Load (or compile) the Numba kernels in this process, so forked workers inherit them."""
    from .solver import Position
    worker_searcher().value(Position("N:A.K.Q.J K.Q.J.A Q.J.A.K J.A.K.Q", 0, 0), "score")


def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent_pid:
            os._exit(1)   # the parent died (kill -9): do not outlive it


def _init_worker(parent_pid: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the parent handles Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    warm_kernels()


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


class WorkerPool:
    """A process pool for solving: one Searcher per worker; used as a context manager.

    ``run(fn, tasks)`` yields ``fn(task)`` results as they complete, with at most
    ``2 * workers`` tasks in flight (memory stays flat however many tasks there are).  The
    workers ignore Ctrl-C and exit when the parent dies; leaving the ``with`` block through
    an exception (Ctrl-C included) terminates them at once.  A worker's exception is raised
    again in the parent."""

    def __init__(self, workers: int | None = None):
        self.workers = int(workers) if workers else default_workers()
        if self.workers < 1:
            raise KrakenError("workers must be >= 1", token=str(workers))
        self._ex = None

    def __enter__(self):
        warm_kernels()
        self._ex = ProcessPoolExecutor(max_workers=self.workers, mp_context=_mp_context(),
                                       initializer=_init_worker, initargs=(os.getpid(),))
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
        ex.shutdown(wait=False, cancel_futures=True)

    def run(self, fn, tasks):
        it = iter(tasks)
        pending = set()
        window = 2 * self.workers

        def fill():
            while len(pending) < window:
                try:
                    task = next(it)
                except StopIteration:
                    return
                pending.add(self._ex.submit(fn, task))

        fill()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                pending.discard(f)
                yield f.result()
            fill()


# ----------------------------------------------------------------------------- the batch
@dataclass
class BatchConfig:
    """What a batch computes; resuming requires the same configuration.

    - ``deals``: number of deals; ``seed``: the SeedSequence seed (generated deals), or
      ``input`` a deal file (then ``deals`` is the file's number of deals).
    - ``first``: the first player 0..3 for generated deals, or the override for the input
      (None: the file's); ``rules``: Rules, or None for the input file's rules.
    - ``objectives``: ``("score",)`` or ``("score", "points")``: score is always computed.
    - ``chunk_size``: deals a part file; ``fmt``: ``"csv"`` or ``"parquet"``.
    """
    deals: int = 0
    seed: int | None = 1
    first: int | None = 0
    rules: Rules | None = None
    objectives: tuple = ("score",)
    chunk_size: int = CHUNK_SIZE
    fmt: str = "csv"
    input: str | None = None
    input_sha256: str | None = None
    _specs: list | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        """The compared part of the sidecar (JSON types)."""
        return {
            "source": "input" if self.input else "generated",
            "seed": self.seed if not self.input else None,
            "deals": self.deals,
            "chunk_size": self.chunk_size,
            "first": SEATS[self.first] if self.first is not None else None,
            "rules": None if self.rules is None else {"name": self.rules.name,
                                                      "options": self.rules.to_dict()},
            "objectives": list(self.objectives),
            "format": self.fmt,
            "input_sha256": self.input_sha256,
        }

    @property
    def n_chunks(self) -> int:
        return -(-self.deals // self.chunk_size)

    def chunk_range(self, k: int) -> tuple[int, int]:
        return k * self.chunk_size, min(self.deals, (k + 1) * self.chunk_size)


def make_config(*, deals: int | None = None, seed: int | None = 1, input: str | None = None,
                first=None, rules=None, objectives=("score",), chunk_size: int = CHUNK_SIZE,
                fmt: str = "csv") -> BatchConfig:
    """Check the options of a batch and build its :class:`BatchConfig`.

    Either ``deals`` (with ``seed``) or ``input`` (a deal file; the deals as dealt, all four
    trumps, played cards not allowed).  ``first``/``rules`` default to N and ``kraken`` for
    generated deals and to the file's values for an input file.  Raises KrakenError (and the
    deal-file errors of :func:`~kraken_solver.dealfile.parse_deal_file`)."""
    from .solver import as_seat
    bad = [o for o in objectives if o not in OBJECTIVES]
    if bad:
        raise KrakenError("objectives are score and points", token=str(bad[0]))
    objectives = tuple(o for o in OBJECTIVES if o in set(objectives) | {"score"})
    if fmt not in FORMATS:
        raise KrakenError("the format is csv or parquet", token=str(fmt))
    if fmt == "parquet":
        require_pyarrow()
    if not 1 <= int(chunk_size) <= 100000:
        raise KrakenError("the chunk size must be from 1 to 100000", token=str(chunk_size))
    first_i = as_seat(first) if first is not None else None
    rules_r = as_rules(rules) if rules is not None else None
    if input is not None:
        if deals is not None:
            raise KrakenError("give either a number of deals or an input file, not both")
        if input == "-":
            raise KrakenError("the input must be a file (it is read again to resume)",
                              token="-")
        from .dealfile import parse_deal_file
        specs = parse_deal_file(input, first=first_i, rules=rules_r)
        for s in specs:
            if s.played:
                raise KrakenError("the batch solves deals as dealt; this deal has played "
                                  "cards ([Play])", source=s.source, line=s.line)
        with open(input, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        return BatchConfig(deals=len(specs), seed=None, first=first_i, rules=rules_r,
                           objectives=objectives, chunk_size=int(chunk_size), fmt=fmt,
                           input=os.path.abspath(input), input_sha256=digest, _specs=specs)
    if deals is None or int(deals) < 1 or int(deals) > MAX_DEALS:
        raise KrakenError(f"the number of deals must be from 1 to {MAX_DEALS:,}",
                          token=str(deals))
    if seed is None or int(seed) < 0:
        raise KrakenError("the seed must be a whole number >= 0", token=str(seed))
    return BatchConfig(deals=int(deals), seed=int(seed),
                       first=first_i if first_i is not None else 0,
                       rules=rules_r if rules_r is not None else Rules(),
                       objectives=objectives, chunk_size=int(chunk_size), fmt=fmt)


def require_pyarrow():
    """Import pyarrow or raise KrakenError saying how to install it."""
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise KrakenError("Parquet needs pyarrow: pip install 'pyarrow>=14' "
                          "(or pip install 'kraken-solver[parquet]')") from None
    return pyarrow


def paths_for(out: str) -> tuple[str, str]:
    """(work directory of part files, sidecar path) for the output ``out``."""
    return out + ".parts", out + ".meta.json"


def _part_name(k: int) -> str:
    return f"chunk-{k:07d}.csv"


def _write_atomic(path: str, data: bytes) -> None:
    """Write ``path`` through a temporary file and a rename; the temporary file never stays."""
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def _file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "a special file"


def _same_file(a: str, b: str) -> bool:
    """Do paths ``a`` and ``b`` name one existing file (links and spellings included)?"""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_output_paths(out: str) -> None:
    """Refuse an output the batch must not write: ``out`` and its sidecar must each be a
    regular file or a new path, the work directory ``OUT.parts`` a directory or a new path, and
    the output's directory must exist.  Only looks (changes nothing).  Raises KrakenError
    naming the path and what it is."""
    out = os.fspath(out)
    parts_dir, meta_path = paths_for(out)
    parent = os.path.dirname(out) or os.curdir
    try:
        st = os.stat(parent)
    except OSError as e:
        raise KrakenError(f"the output's directory cannot be used: {e.strerror or e}",
                          source=parent) from None
    if not stat.S_ISDIR(st.st_mode):
        raise KrakenError(f"the output's directory is {_file_kind(st.st_mode)}, not a "
                          "directory", source=parent)
    for path, what, want_dir in ((out, "the output", False),
                                 (meta_path, "the output's sidecar", False),
                                 (parts_dir, "the output's work directory", True)):
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue        # a new path (or a dangling symbolic link, which is replaced)
        except OSError as e:
            raise KrakenError(f"{what} cannot be used: {e.strerror or e}", source=path) \
                from None
        ok = stat.S_ISDIR(st.st_mode) if want_dir else stat.S_ISREG(st.st_mode)
        if not ok:
            want = "a directory" if want_dir else "a regular file"
            raise KrakenError(f"{what} must be {want} or a new path, and this is "
                              f"{_file_kind(st.st_mode)}: give another --out, or move it "
                              "away", source=path)


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
    summary of the work."""
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


def _read_meta(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise KrakenError(f"cannot read the sidecar: {e}", source=path) from None


def _write_meta(path: str, meta: dict) -> None:
    _write_atomic(path, (json.dumps(meta, indent=1) + "\n").encode("utf-8"))


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _config_diff(old: dict, new: dict) -> list[str]:
    out = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            a, b = old.get(key), new.get(key)
            if key == "rules":
                a = a["name"] if isinstance(a, dict) else a
                b = b["name"] if isinstance(b, dict) else b
            if key == "input_sha256":
                out.append("the input file's contents differ")
                continue
            out.append(f"{key} {b} (was {a})")
    return out


def _done_chunks(parts_dir: str, n_chunks: int) -> set[int]:
    done = set()
    for name in os.listdir(parts_dir):
        if ".tmp." in name:
            os.remove(os.path.join(parts_dir, name))     # an unfinished write: redo the chunk
        elif name.startswith("chunk-") and name.endswith(".csv"):
            try:
                k = int(name[6:-4])
            except ValueError:
                continue
            if 0 <= k < n_chunks:
                done.add(k)
    return done


def _schema_pa(columns):
    import pyarrow as pa
    types = {"int64": pa.int64(), "string": pa.string(), "bool": pa.bool_(),
             "float64": pa.float64()}
    kinds = {c[0]: c[1] for c in COLUMNS}
    return pa.schema([(c, types[kinds[c]]) for c in columns])


def _assemble(config: BatchConfig, out: str, parts_dir: str, columns: list[str]) -> int:
    """Join the part files in chunk order into ``out`` (atomically); return the rows."""
    tmp = f"{out}.tmp.{os.getpid()}"
    rows = 0
    header = ",".join(columns)
    try:
        if config.fmt == "csv":
            with open(tmp, "w", encoding="utf-8", newline="") as dst:
                dst.write(header + "\n")
                for k in range(config.n_chunks):
                    rows += _copy_part(config, parts_dir, k, header, dst)
                dst.flush()
                os.fsync(dst.fileno())
        else:
            import pyarrow.csv as pacsv
            import pyarrow.parquet as pq
            schema = _schema_pa(columns)
            with pq.ParquetWriter(tmp, schema) as writer:
                for k in range(config.n_chunks):
                    text = io.StringIO()
                    rows += _copy_part(config, parts_dir, k, header, text)
                    table = pacsv.read_csv(
                        io.BytesIO((header + "\n" + text.getvalue()).encode("utf-8")),
                        convert_options=pacsv.ConvertOptions(
                            column_types=schema, true_values=["True"],
                            false_values=["False"], strings_can_be_null=False))
                    writer.write_table(table.select(columns).cast(schema))
        check_output_paths(out)         # still a regular file or a new path: replace it
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return rows


def _copy_part(config, parts_dir, k, header, dst) -> int:
    path = os.path.join(parts_dir, _part_name(k))
    start, stop = config.chunk_range(k)
    with open(path, encoding="utf-8") as f:
        first_line = f.readline().rstrip("\n")
        body = f.read()
    n = body.count("\n")
    if first_line != header or n != 4 * (stop - start) or (body and not body.endswith("\n")):
        raise KrakenError(f"part file {path} is not the expected {4 * (stop - start)} rows of "
                          f"columns {header}; delete it and resume")
    dst.write(body)
    return n


def run_batch(config: BatchConfig, out: str, *, workers: int | None = None,
              scheduler: str | None = None, resume: bool = False, progress: bool = False,
              command: list[str] | None = None, log=None, on_chunk=None) -> BatchResult:
    """Run (or with ``resume`` finish) a batch into ``out``; see the module docstring.

    ``workers``: processes (default one per core); ``scheduler``: instead of the local
    process pool, a Dask cluster (``"local:N"`` or a scheduler address ``"tcp://HOST:PORT"``,
    :mod:`kraken_solver.cluster`): the same rows, part files and resuming; ``progress``: a
    tqdm bar on stderr (deals/s, ETA); ``command``: the command line to record in the
    sidecar; ``log``: a function taking one line of news (resuming, reused chunks);
    ``on_chunk``: a function called with the pool and each finished chunk's summary.

    ``out`` must be a regular file or a new path (:func:`check_output_paths`).  Nothing is
    changed before the work directory's lock is held.  Without ``resume`` an unfinished run's
    work directory with finished chunks makes it refuse (so that no work is thrown away by
    accident); an earlier finished output stays as it is until this run has finished, and is
    then replaced at once (``os.replace``).  With ``resume`` and no earlier run, it simply
    starts; part files without a sidecar to check them against are refused.  Raises
    KrakenError: an output path that cannot be used, another run holding the lock, the
    configuration differs from the sidecar's (resume), unfinished work without resume, part
    files that cannot be checked or are not complete, a bad scheduler, a failed Dask chunk, a
    file that cannot be read or written.  A worker's error is raised again; Ctrl-C raises
    KeyboardInterrupt after stopping the workers (every finished chunk stays on disk for a
    resume, and the earlier output is untouched)."""
    out = os.fspath(out)
    parts_dir, meta_path = paths_for(out)
    cols = columns_for(config.objectives)
    columns = [c[0] for c in cols]
    log = log or (lambda line: None)
    pool = make_pool(workers, scheduler)
    session = {"argv": list(command) if command else None,
               "command": shlex.join(command) if command else None,
               "started": _now(), "workers": None}
    check_output_paths(out)
    if config.input and _same_file(config.input, out):
        raise KrakenError("--out names the --input deal file: the results would replace the "
                          "deals; give another --out", source=out)
    lock, created = _lock_dir(parts_dir, out)
    try:
        try:
            meta = _meta_to_run(config, out, parts_dir, meta_path, cols, resume, session, log)
        except BaseException:
            if created:
                _remove_empty_dir(parts_dir)
            raise
        if meta is None:
            if created:
                _remove_empty_dir(parts_dir)
            return BatchResult(out, config.deals, 0, config.n_chunks, 0.0, 0.0, 0.0, 0.0, 0,
                               already_complete=True)
        return _run_locked(config, out, parts_dir, meta_path, meta, session, cols, columns,
                           pool, scheduler, progress, log, on_chunk)
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


def _chunk_files(parts_dir: str) -> list[str]:
    return [x for x in os.listdir(parts_dir)
            if x.startswith("chunk-") and x.endswith(".csv") and ".tmp." not in x]


def _meta_to_run(config, out, parts_dir, meta_path, cols, resume, session, log):
    """The sidecar this run continues (resume) or starts, after checking that the part files
    in ``parts_dir`` belong to it; None when a resumed run is complete already.  Called with
    the lock held; changes nothing.  Raises KrakenError."""
    from . import __version__
    cfg = config.to_dict()
    n = len(_chunk_files(parts_dir))
    meta = _read_meta(meta_path) if resume else None
    if meta is not None:
        if not isinstance(meta, dict) or meta.get("tool") != "kraken-batch" \
                or not isinstance(meta.get("config"), dict):
            raise KrakenError("cannot resume: not a kraken-batch sidecar (it records the "
                              "options of the part files); use another output file",
                              source=meta_path)
        diff = _config_diff(meta["config"], cfg)
        if diff:
            how = (f"delete {parts_dir} to start over" if n
                   else "run without --resume to start over")
            raise KrakenError("cannot resume: the configuration differs from the earlier "
                              "run's (" + "; ".join(diff) + "); give the same options, use "
                              f"another output file, or {how}", source=meta_path)
        if meta.get("status") == "complete" and os.path.exists(out) and not n:
            log(f"{out} is already complete ({meta.get('rows')} rows); nothing to do")
            return None
        return meta
    if n and (resume or not os.path.exists(meta_path)):
        # without a sidecar --resume cannot take them either: say so, not "use --resume"
        raise KrakenError(f"{'cannot resume: ' if resume else ''}{parts_dir} holds {n} "
                          f"finished chunk{'s' if n != 1 else ''} but there is no sidecar "
                          f"{meta_path} recording their options, so they cannot be checked; delete "
                          f"{parts_dir} to start over")
    if n:
        raise KrakenError(f"{parts_dir} holds an unfinished run ({n} chunks done): finish "
                          f"it with --resume (same options), or delete {parts_dir} to "
                          "start over")
    return {
        "tool": "kraken-batch", "version": __version__, "status": "running",
        "config": cfg,
        "command": session["command"], "argv": session["argv"],
        "seed": cfg["seed"], "deals": config.deals, "chunk_size": config.chunk_size,
        "deal_generation": ("SeedSequence(seed); deal i = permutation i % 64 of "
                            "default_rng(SeedSequence(seed, spawn_key=(i // 64,))); "
                            "hands N E S W = cards 0-7, 8-15, 16-23, 24-31"
                            if not config.input else None),
        "input": config.input,
        "rules": cfg["rules"] if cfg["rules"] else "from the input file",
        "first": cfg["first"] if cfg["first"] else "from the input file",
        "objectives": list(config.objectives), "format": config.fmt,
        "columns": [{"name": n, "type": t, "meaning": m} for n, t, m in cols],
        "timing_columns": list(TIMING_COLUMNS),
        "note": ("rows are in deal_id order, trumps S H D C within a deal; values in "
                 "points from the playing team's side (RULES.md section 8); nodes and ms "
                 "measure the work and vary from run to run (also after a resume): "
                 "compare runs on the other columns"),
        "sessions": [],
    }


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


def make_pool(workers: int | None = None, scheduler: str | None = None):
    """The pool that solves the chunks: a Dask cluster when ``scheduler`` is given
    (:class:`kraken_solver.cluster.DaskPool`; ``workers`` must then be None), else the local
    :class:`WorkerPool` of ``workers`` processes.  Raises KrakenError for a bad combination."""
    if scheduler is None:
        return WorkerPool(workers)
    if workers is not None:
        raise KrakenError("give either a number of workers or a Dask scheduler (local:N sets "
                          "the number of local workers)", token=str(workers))
    from .cluster import DaskPool
    return DaskPool(scheduler)


def _run_locked(config, out, parts_dir, meta_path, meta, session, cols, columns, pool,
                scheduler, progress, log, on_chunk) -> BatchResult:
    import glob
    from . import __version__
    for stale in glob.glob(glob.escape(out) + ".tmp.*") + \
            glob.glob(glob.escape(meta_path) + ".tmp.*"):
        try:
            os.remove(stale)        # left by a run killed while writing
        except OSError:
            pass
    done = _done_chunks(parts_dir, config.n_chunks)
    # the chunks still to solve, one at a time (a list of them all would grow with the deals)
    n_todo = config.n_chunks - len(done)
    todo = (k for k in range(config.n_chunks) if k not in done)
    done_deals = sum(config.chunk_range(k)[1] - config.chunk_range(k)[0] for k in done)
    if done:
        log(f"resuming: {len(done)} of {config.n_chunks} chunks ({done_deals} deals) done "
            "already")

    session["workers"] = pool.workers
    session["scheduler"] = scheduler

    def start_session():
        # the sidecar records this run's options before its first part file is written (so a
        # resume can check the parts); an earlier run's sidecar is kept until then
        meta["sessions"].append(session)
        meta["status"] = "running"
        _write_meta(meta_path, meta)

    def tasks():
        for k in todo:
            start, stop = config.chunk_range(k)
            items = None
            if config.input:
                items = [(sp.deal.hands, sp.first, sp.rules) for sp in config._specs[start:stop]]
            yield (k, start, stop, config.seed, config.first, config.rules, items,
                   config.objectives, columns)

    t0 = time.perf_counter()
    solved = 0
    peak = 0.0
    bar = None
    if n_todo:
        entered = False
        try:
            with pool:          # leaving it stops the workers, before the error is handled
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
                for res in pool.run(_solve_chunk, tasks()):
                    if res["version"] != __version__:
                        raise KrakenError(f"a worker runs kraken-solver {res['version']}, "
                                          f"this is {__version__}: install the same version "
                                          "on every worker")
                    _write_atomic(os.path.join(parts_dir, _part_name(res["chunk"])),
                                  res["text"].encode("utf-8"))
                    solved += res["deals"]
                    peak = max(peak, res["maxrss_mb"])
                    if on_chunk is not None:
                        on_chunk(pool, res)
                    if bar is not None:
                        bar.update(res["deals"])
        except KrakenError as err:
            if not entered:
                if not done:
                    # the pool never started and nothing was solved: leave no trace of this run
                    # (its sidecar is not written yet)
                    shutil.rmtree(parts_dir, ignore_errors=True)
                raise
            if scheduler is not None:
                raise KrakenError(f"{err}; the finished chunks are kept: run the same "
                                  "command with --resume to finish") from None
            raise
        finally:
            if bar is not None:
                bar.close()
    else:
        start_session()
    seconds = time.perf_counter() - t0
    rows = _assemble(config, out, parts_dir, columns)
    session["finished"] = _now()
    session["seconds"] = round(seconds, 3)
    session["deals_solved"] = solved
    session["peak_worker_mb"] = round(peak, 1)
    meta["status"] = "complete"
    meta["rows"] = rows
    meta["finished"] = session["finished"]
    _write_meta(meta_path, meta)
    shutil.rmtree(parts_dir, ignore_errors=True)
    return BatchResult(out, config.deals, solved, len(done), seconds,
                       solved / seconds if seconds > 0 and solved else 0.0, peak,
                       resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                       pool.workers)


def read_results(path: str):
    """Read a batch output (CSV or Parquet, told apart by the file's first bytes) into a
    pandas DataFrame with the column types of :data:`COLUMNS`.  The columns that
    :func:`kraken_solver.summary.summarize` uses are checked
    (:func:`kraken_solver.summary.check_results`).  Raises KrakenError for a file that cannot
    be read, lacks a column or holds a bad value (naming the line, or the row of a Parquet
    file, and the column)."""
    import pandas as pd

    from .summary import check_results
    path = os.fspath(path)
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            # a device such as /dev/zero would be read until the memory is full
            raise KrakenError(f"a batch file is a regular file; this is {_file_kind(st.st_mode)}",
                              source=path)
        parquet = _is_parquet(path)
        if parquet:
            require_pyarrow()
            df = pd.read_parquet(path)
        else:
            # every value as written: check_results converts and reports a bad one
            df = pd.read_csv(path, dtype={"deal": str, "first": str, "trump": str,
                                          "rules": str}, keep_default_na=False)
    except KrakenError:
        raise
    except (OSError, ValueError) as e:
        raise KrakenError(f"cannot read the batch file: {e}", source=path) from None
    return check_results(df, source=path,
                         line_of=None if parquet else lambda row: _csv_line(path, row))


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
