"""Benchmark suites and runner for the solver (``kraken-bench``).

A suite is a fixed set of full 8-card deals: ``random-N-seedS`` is N deals drawn with NumPy
from ``SeedSequence(S)`` (one child sequence per deal), so a suite is the same on every
machine; or a deal file (any path ending in ``.txt`` or ``.pbn``, e.g. the stored hard
set ``benchmarks/suites/hard-25.txt``), whose deals are taken in file order.  Every deal is solved
for all four trumps with N as first player, under the rules given to the runner (the file's
own first player, trump and rules tags are not used).  The runner reports
the number of solves; median, p95 and max milliseconds per (deal, trump) solve; mean and max
nodes; nodes per second; the Numba load/compile time (timed apart, never mixed into solve
times); peak memory; and a checksum of the values, so that a speed-up is proven to give the
same answers (compare with ``--check``).  With ``--repeat N`` each solve is timed N times from an
empty table and keeps its fastest run, for a figure that a busy machine moves less.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import resource
import stat
import time
from array import array

import numpy as np

from .cards import is_int
from .formatting import count
from .deal import Deal
from .errors import KrakenError
from .outputs import file_kind
from .roem import hand_roem_masks
from .rules import Rules
from .solver import Position, Searcher, default_searcher

# ASCII digits, N below 10**9 and S of at most 20 digits (\d would also take '²' and the like)
SUITE_RE = re.compile(r"^random-([0-9]{1,9})-seed([0-9]{1,20})$")


def suite_name(suite: str) -> str:
    """The name a report gives ``suite``: ``random-N-seedS`` as is, a deal file by its stem."""
    if SUITE_RE.fullmatch(suite):
        return suite
    return os.path.splitext(os.path.basename(suite))[0]


def suite_deals(name: str, limit: int | None = None) -> list[Deal]:
    """The deals of a suite (see :func:`iter_suite`) as a list, for small suites."""
    return list(iter_suite(name, limit))


#: the endings of a suite that is a deal file (either form of deal file: RULES.md, README)
DEAL_FILE_SUFFIXES = (".txt", ".pbn")


def is_deal_file_suite(name: str) -> bool:
    """Is the suite ``name`` a deal file (it ends in ``.txt`` or ``.pbn``, in any case)?"""
    return isinstance(name, str) and name.lower().endswith(DEAL_FILE_SUFFIXES)


def iter_suite(name: str, limit: int | None = None):
    """The deals of a suite ``random-N-seedS`` (N >= 1) or of a deal file ``*.txt`` or
    ``*.pbn`` (full
    deals, no played cards), or their first ``limit`` deals: an iterator that makes each deal
    when it is needed (a suite of a billion deals costs nothing before its first solve; a
    deal file is streamed, :class:`~kraken_solver.dealfile.DealReader`).  Raises KrakenError
    for another name at once, and the errors of the reader for a bad file (its first MiB at
    once, the rest as it is reached)."""
    if is_deal_file_suite(name):
        from .dealfile import DealReader
        reader = DealReader(name, check=_suite_deal)
        reader.check_ahead()
        return _first((spec.deal for spec in reader), limit)
    m = SUITE_RE.fullmatch(name)
    if not m or int(m.group(1)) < 1:
        raise KrakenError("a suite is random-N-seedS with 1 <= N < 10**9 and S a whole number "
                          "of at most 20 digits (e.g. random-100-seed1), or a deal file "
                          "NAME.txt or NAME.pbn", token=name)
    n, seed = int(m.group(1)), int(m.group(2))
    if limit is not None:
        n = min(n, limit)
    return iter_random_deals(n, seed)


def _first(it, limit):
    for i, x in enumerate(it):
        if limit is not None and i >= limit:
            return
        yield x


def _suite_deal(spec) -> None:
    if spec.played:
        raise KrakenError("a benchmark suite holds deals as dealt; this deal has "
                          "played cards", source=spec.source, line=spec.line)
    if spec.deal.size != 8:
        raise KrakenError("a benchmark suite holds full deals (8 cards a hand); this "
                          f"deal has {spec.deal.size}", source=spec.source, line=spec.line)


def random_deals(n: int, seed: int) -> list[Deal]:
    """``n`` full deals from ``SeedSequence(seed)``, one child sequence per deal (a list; see
    :func:`iter_random_deals`)."""
    return list(iter_random_deals(n, seed))


def iter_random_deals(n: int, seed: int):
    """The deals of :func:`random_deals` one at a time, each made when it is needed: child
    ``i`` is ``SeedSequence(seed, spawn_key=(i,))``, the same as
    ``SeedSequence(seed).spawn(n)[i]``, so nothing is made in proportion to ``n`` before the
    first deal."""
    for i in range(n):
        child = np.random.SeedSequence(seed, spawn_key=(i,))
        perm = np.random.default_rng(child).permutation(32)
        yield Deal(tuple(int(sum(1 << int(c) for c in perm[8 * k:8 * k + 8]))
                         for k in range(4)))


def deals_checksum(deals) -> str:
    """Short SHA-256 of the deals (PBN from N, space separated): which deals a suite holds."""
    h = _DealsChecksum()
    for d in deals:
        h.add(d)
    return h.hexdigest()


class _DealsChecksum:
    """:func:`deals_checksum` one deal at a time."""

    def __init__(self):
        self._h = hashlib.sha256()
        self._first = True

    def add(self, deal) -> None:
        self._h.update(((" " if not self._first else "") + str(deal)).encode())
        self._first = False

    def hexdigest(self) -> str:
        return self._h.hexdigest()[:16]


def checksum(values) -> str:
    """Short SHA-256 of a list of integer values."""
    return hashlib.sha256(",".join(str(int(v)) for v in values).encode()).hexdigest()[:16]


def timed_value(searcher: Searcher, pos: Position, objective: str) -> tuple[int, int, float]:
    """(value, search nodes, milliseconds) of one ``searcher.value(pos, objective)`` call."""
    n0 = searcher.nodes
    t = time.perf_counter()
    value = searcher.value(pos, objective)
    ms = (time.perf_counter() - t) * 1000.0
    return value, searcher.nodes - n0, ms


def run_suite(name: str, rules: Rules, objective: str, *, limit: int | None = None,
              tt_bits: int | None = None, repeat: int = 1, progress=None) -> dict:
    """Solve every (deal, trump) of a suite; return the report as a dict (times in ms).

    ``repeat``: each solve runs that many times in a row, each from an empty table
    (``Searcher.clear``), and its time is the fastest run's (timeit's rule: the slower runs
    are the machine's other work, not the solver's); the report's ``run_spread_median`` and
    ``run_spread_p90`` give how much slower a solve's slowest run was than its fastest
    (a fraction).  Raises KrakenError unless ``repeat`` is a whole number from 1 to 100, and
    RuntimeError if two runs of one solve differ in value or nodes (a bug)."""
    if not is_int(repeat) or not 1 <= repeat <= 100:
        raise KrakenError("repeat must be a whole number from 1 to 100", token=repr(repeat))
    deals = iter_suite(name, limit)
    total = _suite_size(name, limit)
    # load (or compile) the kernels once, timed apart from the solves
    t0 = time.perf_counter()
    warm = Searcher(tt_bits=tt_bits) if tt_bits else default_searcher()
    warm.value(Position("N:A.K.Q.J K.Q.J.A Q.J.A.K J.A.K.Q", 0, 0, rules), objective)
    compile_s = time.perf_counter() - t0
    searcher = Searcher(tt_bits=tt_bits) if tt_bits else Searcher()
    # 8 bytes a solve (Python lists would take 4 to 5 times that)
    ms, nodes, values, spread = array("d"), array("q"), array("q"), array("d")
    checksum_of_deals = _DealsChecksum()
    n_deals = 0
    for i, deal in enumerate(deals):
        checksum_of_deals.add(deal)
        n_deals += 1
        for trump in range(4):
            runs = []
            pos = Position(deal, trump, 0, rules)
            for r in range(repeat):
                searcher.clear()
                value, n, run_ms = timed_value(searcher, pos, objective)
                runs.append(run_ms)
                if r == 0:
                    values.append(value)
                    nodes.append(n)
                elif (value, n) != (values[-1], nodes[-1]):  # pragma: no cover - a bug
                    raise RuntimeError(f"deal {i}, trump {'SHDC'[trump]}: run {r + 1} gave "
                                       f"{value} in {n} nodes, run 1 {values[-1]} in "
                                       f"{nodes[-1]}")
            fastest = min(runs)
            ms.append(fastest)
            spread.append(max(runs) / fastest - 1.0 if fastest > 0 else 0.0)
        if progress:
            progress(i + 1, total)
    if not n_deals:                 # pragma: no cover - a suite has at least one deal
        raise KrakenError("the suite has no deals", token=name)
    ms_a = np.frombuffer(ms, dtype=np.float64)
    nodes_a = np.frombuffer(nodes, dtype=np.int64)
    return {
        "suite": suite_name(name), "deals": n_deals,
        "deals_checksum": checksum_of_deals.hexdigest(), "solves": len(ms),
        "rules": rules.name,
        "objective": objective, "first": "N", "repeat": repeat,
        "median_ms": float(np.median(ms_a)), "p95_ms": float(np.percentile(ms_a, 95)),
        "max_ms": float(ms_a.max()), "mean_ms": float(ms_a.mean()),
        "mean_nodes": float(nodes_a.mean()), "median_nodes": float(np.median(nodes_a)),
        "max_nodes": int(nodes_a.max()),
        "run_spread_median": float(np.median(spread)) if repeat > 1 else None,
        "run_spread_p90": float(np.percentile(spread, 90)) if repeat > 1 else None,
        "nodes_per_s": float(nodes_a.sum() / (ms_a.sum() / 1000.0)) if ms_a.sum() else 0.0,
        "compile_or_load_s": compile_s,
        "peak_memory_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "tt_entries": int(searcher.tt.size // 2),
        "tt_prefetch": bool(searcher.prefetch),
        "checksum": checksum(values), "values": [int(v) for v in values],
        **machine_info(),
    }


def cpu_model() -> str:
    """The processor's name as the operating system gives it (``model name`` of
    ``/proc/cpuinfo`` on Linux, else ``platform.processor()``), or ``"unknown"``: speed
    figures depend on it (the same build ran 1.2x slower a node on one kind of x86-64 machine
    than on another, while the C yardstick ran 1.2x faster), so every report names it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info() -> dict:
    """What a benchmark report records of the machine it ran on: ``python`` (version),
    ``machine`` (architecture), ``cpu`` (:func:`cpu_model`) and ``cores``."""
    return {"python": platform.python_version(), "machine": platform.machine(),
            "cpu": cpu_model(), "cores": os.cpu_count()}


def machine_line(info: dict) -> str:
    """One line naming the machine of ``info`` (:func:`machine_info`, or a report holding
    its fields): processor, cores, architecture."""
    return f"{info['cpu']}, {info.get('cores')} cores, {info.get('machine')}"


def _suite_size(name: str, limit: int | None) -> int | None:
    """The number of deals of a ``random-N-seedS`` suite (with ``limit``), None for a file."""
    m = SUITE_RE.fullmatch(name)
    if not m:
        return None
    n = int(m.group(1))
    return n if limit is None else min(n, limit)


def format_report(r: dict) -> str:
    repeat = r.get("repeat", 1)
    which = f" (the fastest of {repeat} runs)" if repeat > 1 else ""
    lines = [
        f"suite {r['suite']}: {count(r['deals'], 'deal')} x 4 trumps = "
        f"{count(r['solves'], 'solve')}, "
        f"rules {r['rules']}, objective {r['objective']}",
        f"  ms per solve{which}: median {r['median_ms']:.2f}  p95 {r['p95_ms']:.2f}  "
        f"max {r['max_ms']:.2f}  mean {r['mean_ms']:.2f}",
    ]
    if repeat > 1:
        lines.append(f"  slowest run of a solve over its fastest: median "
                     f"+{100 * r['run_spread_median']:.0f}%  p90 "
                     f"+{100 * r['run_spread_p90']:.0f}% (the machine's noise)")
    return "\n".join(lines + [
        f"  nodes: mean {r['mean_nodes']:.0f}  median {r['median_nodes']:.0f}  "
        f"max {r['max_nodes']}  ({r['nodes_per_s'] / 1e6:.2f} M nodes/s)",
        f"  Numba load/compile (apart): {r['compile_or_load_s']:.2f} s;  "
        f"peak memory {r['peak_memory_mb']:.0f} MB;  TT entries {r['tt_entries']}"
        + ("" if "tt_prefetch" not in r else
           f" (prefetched: {'yes' if r['tt_prefetch'] else 'no, a quarter of L2 or less'})"),
        f"  values checksum {r['checksum']}",
    ] + _machine_lines(r))


def _machine_lines(r: dict) -> list[str]:
    """The report's machine line (reports stored before it was recorded have none)."""
    if not r.get("cpu"):
        return []
    return [f"  machine: {machine_line(r)}"]


#: the largest stored report ``--check`` reads (about 6 million solves' values)
MAX_REPORT_BYTES = 64 * 1024 * 1024


def load_report(path: str) -> dict:
    """A stored kraken-bench JSON report: a regular file of at most MAX_REPORT_BYTES.  Raises
    KrakenError if it is anything else (a pipe or a device is refused at once, never waited
    on or read without end), cannot be read or decoded (nesting too deep included), or has no
    ``values`` list of whole numbers."""
    try:
        # non-blocking: opening a named pipe nobody writes to must not wait
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise KrakenError(f"cannot read the stored report: {e.strerror or e}",
                          source=path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise KrakenError(f"the stored report must be a regular file (a kraken-bench "
                              f"--json report), not {file_kind(st.st_mode)}", source=path)
        if st.st_size > MAX_REPORT_BYTES:
            raise KrakenError(f"the stored report is larger than {MAX_REPORT_BYTES // 2**20} "
                              f"MiB ({st.st_size:,} bytes): not a kraken-bench report",
                              source=path)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_REPORT_BYTES + 1)
    except OSError as e:
        raise KrakenError(f"cannot read the stored report: {e.strerror or e}",
                          source=path) from None
    finally:
        os.close(fd)
    if len(data) > MAX_REPORT_BYTES:
        raise KrakenError(f"the stored report is larger than {MAX_REPORT_BYTES // 2**20} MiB: "
                          "not a kraken-bench report", source=path)
    try:
        expected = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise KrakenError(f"cannot read the stored report: not UTF-8 text (byte {e.start})",
                          source=path) from None
    except json.JSONDecodeError as e:
        raise KrakenError(f"cannot read the stored report: not JSON: {e.msg}",
                          source=path, line=e.lineno, column=e.colno) from None
    except RecursionError:
        raise KrakenError("cannot read the stored report: its JSON is nested too deeply "
                          "(not a kraken-bench report)", source=path) from None
    if not isinstance(expected, dict) or not isinstance(expected.get("values"), list):
        raise KrakenError("not a kraken-bench JSON report (no 'values' list)", source=path)
    if not expected["values"]:
        raise KrakenError("the stored report has no values to check against (an empty "
                          "'values' list)", source=path)
    if not all(is_int(v) for v in expected["values"]):
        raise KrakenError("the stored report's 'values' are not all whole numbers",
                          source=path)
    return expected


def check_against(report: dict, expected) -> list[str]:
    """Compare the report's values with a stored report (a dict, or the path of one: see
    :func:`load_report`); return the differences."""
    if not isinstance(expected, dict):
        expected = load_report(expected)
    problems = []
    # random-N-seedS is a prefix of random-M-seedS: compare the deals both hold
    seeds = [SUITE_RE.fullmatch(str(r.get("suite", ""))) for r in (expected, report)]
    same_seed = seeds[0] and seeds[1] and seeds[0].group(2) == seeds[1].group(2)
    if not same_seed and expected.get("suite") != report.get("suite"):
        problems.append(f"suite: expected {expected.get('suite')!r}, ran {report.get('suite')!r}")
    elif (not same_seed and expected.get("deals") == report.get("deals")
          and expected.get("deals_checksum") not in (None, report.get("deals_checksum"))):
        problems.append("suite: the deals differ from the stored report's (deals checksum "
                        f"{expected.get('deals_checksum')}, ran {report.get('deals_checksum')})")
    for key in ("objective", "rules"):
        if expected.get(key) != report.get(key):
            problems.append(f"{key}: expected {expected.get(key)!r}, ran {report.get(key)!r}")
    ev, rv = expected.get("values", []), report["values"]
    n = min(len(ev), len(rv))
    if n == 0:
        problems.append(f"no solve to compare: the stored report has {len(ev)} values, the run "
                        f"{len(rv)}")
    for i in range(n):
        if ev[i] != rv[i]:
            problems.append(f"solve {i} (deal {i // 4}, trump {'SHDC'[i % 4]}): "
                            f"expected {ev[i]}, got {rv[i]}")
    if len(rv) == len(ev) and expected.get("checksum") != report["checksum"]:
        problems.append(f"checksum: expected {expected.get('checksum')}, got {report['checksum']}")
    return problems


# ----------------------------------------------------------------------------- hints
#: the hint benchmarks (``kraken-bench --hint MODE``) and what each times
HINT_MODES = {
    "lead": "a hint at the first lead (the first player N, trump S H D C in turn by deal, the "
            "other hands hidden), SAMPLES layouts drawn",
    "exact3": "an exact hint with 3 cards a hand (each deal played by seeded random legal "
              "cards to 3 cards a hand, plus 0 to 3 cards of the next trick)",
    "review": "a player's-view review of a whole deal (played by seeded random legal cards), "
              "SAMPLES layouts a decision (kraken-analyse --view player)",
}


def random_play(deal: Deal, trump: int, first: int, rules: Rules, n: int, seed: int) -> list:
    """``n`` cards of ``deal`` played from the first lead by random legal cards, drawn from
    ``default_rng(seed)``: card indices in play order."""
    rng = np.random.default_rng(seed)
    pos = Position(deal, trump, first, rules)
    for _ in range(n):
        legal = pos.legal()
        pos.play(legal[int(rng.integers(len(legal)))])
    return list(pos.played)


def read_positions(path: str, limit: int | None = None) -> list[dict]:
    """The positions of a JSON Lines file (the fields of tests/data's files: ``deal``,
    ``trump``, ``first``, ``rules``, ``played``), or its first ``limit``.  Raises KrakenError
    for a file that cannot be read or a line without those fields."""
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for no, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    p = json.loads(line)
                    p["deal"], p["trump"], p["first"], p.setdefault("played", [])
                except (ValueError, KeyError, TypeError):
                    raise KrakenError("expected a JSON object with deal, trump, first (and "
                                      "played, rules)", source=path, line=no) from None
                out.append(p)
                if limit is not None and len(out) == limit:
                    break
    except OSError as e:
        raise KrakenError(f"cannot read the positions: {e.strerror or e}", source=path) from None
    if not out:
        raise KrakenError("no position in this file", source=path)
    return out


def run_hint_suite(name: str, mode: str, rules: Rules, *, samples: int = 200,
                   workers: int | None = None, limit: int | None = None,
                   progress=None) -> dict:
    """Time ``mode`` of :data:`HINT_MODES` on each deal of a suite (or, for ``exact3``, on
    each position of a JSON Lines file ``*.jsonl``, e.g. tests/data/single_dummy_3.jsonl);
    the report as a dict.

    Every item runs as the tools run it: :func:`kraken_solver.hint.hint` (or
    :func:`kraken_solver.playerview.review_player_view`) with its own pool of ``workers``,
    so a time includes starting the pool and choosing the layouts; the kernels are loaded
    (or compiled) once before, timed apart.  Reported: median, p95 and max ms an item, mean
    and median nodes, the layouts solved, and the peak memory of this process and of the
    largest worker (``peak_worker_mb`` None when every hint was small enough to be solved in
    this process, so that no worker ran).  Raises KrakenError for an unknown mode or a bad
    count."""
    from .batch import warm_kernels
    from .hint import SMALL_JOB, hint
    from .layouts import PartialDeal
    from .playerview import review_player_view

    if mode not in HINT_MODES:
        raise KrakenError("the hint benchmark is one of " + ", ".join(HINT_MODES), token=mode)
    if not is_int(samples) or not 1 <= samples <= 100_000:
        raise KrakenError("samples must be a whole number from 1 to 100,000",
                          token=repr(samples))
    positions = None
    if name.endswith(".jsonl"):
        if mode != "exact3":
            raise KrakenError("a file of positions (.jsonl) is timed by --hint exact3",
                              token=name)
        positions = read_positions(name, limit)
        deals = [Deal.from_pbn(p["deal"]) for p in positions]
    else:
        deals = suite_deals(name, limit)
    t0 = time.perf_counter()
    warm_kernels()
    compile_s = time.perf_counter() - t0
    ms, nodes, layouts, exact, checks = [], [], [], [], []
    pooled = False              # whether a hint ran on the worker pool
    for i, deal in enumerate(deals):
        trump, first = i % 4, 0
        t = time.perf_counter()
        if positions is not None:
            p = positions[i]
            h = hint(p["deal"], p["trump"], p["first"], rules=p.get("rules"),
                     played=p["played"], workers=workers)
            n, lay, ex = h.nodes, h.layouts, h.exact
            lay_max = lay
            checks += [e.sum for e in h.cards.values()]
        elif mode == "lead":
            hr = hand_roem_masks(deal.hands, trump, first, rules)
            h = hint(PartialDeal((deal.hands[0], None, None, None), 8), trump, first,
                     rules=rules, samples=samples, seed=i, declared=hr, workers=workers)
            n, lay, ex = h.nodes, h.layouts, h.exact
            lay_max = lay
            checks += [e.sum for e in h.cards.values()]
        elif mode == "exact3":
            played = random_play(deal, trump, first, rules, 20 + i % 4, i)
            h = hint(deal, trump, first, rules=rules, played=played, workers=workers)
            n, lay, ex = h.nodes, h.layouts, h.exact
            lay_max = lay
            checks += [e.sum for e in h.cards.values()]
        else:
            played = random_play(deal, trump, first, rules, 32, i)
            rv = review_player_view(deal, trump, first, rules=rules, played=played,
                                    samples=samples, seed=i, workers=workers)
            n = sum(r.nodes for r in rv)
            lay = sum(r.layouts for r in rv)
            ex = all(r.exact for r in rv)
            checks += [round(r.cost * 1000) for r in rv]
            lay_max = max((r.layouts for r in rv), default=0)
        ms.append((time.perf_counter() - t) * 1000.0)
        # the hint solves a small job in this process, a larger one on the pool
        pooled = pooled or (workers != 1 and lay_max > SMALL_JOB)
        nodes.append(n)
        layouts.append(lay)
        exact.append(ex)
        if progress:
            progress(i + 1, len(deals))
    ms_a, nodes_a = np.array(ms), np.array(nodes)
    return {
        "suite": suite_name(name), "deals": len(deals), "deals_checksum": deals_checksum(deals),
        "rules_note": "each position's own" if positions is not None else None,
        "hint": mode,
        "what": HINT_MODES[mode] if positions is None else
        "an exact hint of each position of the file",
        "positions": name if positions else None, "rules": rules.name, "samples": samples,
        "workers": workers, "median_ms": float(np.median(ms_a)),
        "p95_ms": float(np.percentile(ms_a, 95)), "max_ms": float(ms_a.max()),
        "mean_ms": float(ms_a.mean()), "mean_nodes": float(nodes_a.mean()),
        "median_nodes": float(np.median(nodes_a)), "max_nodes": int(nodes_a.max()),
        "mean_layouts": float(np.mean(layouts)), "exact": int(sum(exact)),
        "compile_or_load_s": compile_s,
        "peak_memory_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "peak_worker_mb": (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
                           if pooled else None),
        "checksum": checksum(checks), "ms": ms, "nodes": nodes,
        **machine_info(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def format_hint_report(r: dict) -> str:
    """The text of a :func:`run_hint_suite` report."""
    return "\n".join([
        f"hint benchmark {r['hint']} on {r['suite']}: {r['deals']} items, rules "
        f"{r.get('rules_note') or r['rules']}, "
        + (f"samples {r['samples']}, " if r["hint"] != "exact3" else "exact, ")
        + f"workers {r['workers'] or 'one per core'}",
        f"  ({r['what']})",
        f"  ms an item: median {r['median_ms']:.0f}  p95 {r['p95_ms']:.0f}  "
        f"max {r['max_ms']:.0f}  mean {r['mean_ms']:.0f}",
        f"  nodes: mean {r['mean_nodes']:.0f}  median {r['median_nodes']:.0f}  "
        f"max {r['max_nodes']};  layouts solved: mean {r['mean_layouts']:.0f}; exact "
        f"{r['exact']} of {r['deals']}",
        f"  Numba load/compile (apart): {r['compile_or_load_s']:.2f} s;  peak memory "
        f"{r['peak_memory_mb']:.0f} MB (this process), "
        + (f"{r['peak_worker_mb']:.0f} MB (largest worker)" if r["peak_worker_mb"] else
           "no worker ran (every hint small enough for this process)"),
        "  load average at the end: " + (", ".join(f"{x:.2f}" for x in r["load_average"])
                                           if r.get("load_average") else "unknown"),
        f"  values checksum {r['checksum']}",
    ] + _machine_lines(r))
