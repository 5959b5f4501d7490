"""The solver benchmark of ``kraken-bench``: every deal of a suite solved for all four trumps.

Every deal is solved for all four trumps with N as first player, under the rules given to the
runner (a deal file's own first player, trump and rules tags are not used).  :func:`run_suite`
reports the number of solves; median, p95 and max milliseconds per (deal, trump) solve; mean
and max nodes; nodes per second; the Numba load/compile time (timed apart, never mixed into
solve times); peak memory; and a checksum of the values, so that a speed-up is proven to give
the same answers (:func:`check_against`, ``--check``).  With ``repeat`` N each solve is timed
N times from an empty table and keeps its fastest run, for a figure a busy machine moves less.
"""

from __future__ import annotations

import json
import os
import resource
import stat
import time
from array import array

import numpy as np

from ..engine.solver import Searcher, default_searcher
from ..errors import KrakenError
from ..game.cards import is_int
from ..game.position import Position
from ..game.rules import Rules
from ..notation.outputs import file_kind
from ..notation.text import count
from .machine import machine_info, machine_lines
from .suites import SUITE_RE, _DealsChecksum, checksum, iter_suite, suite_name


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
    ] + machine_lines(r))


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
