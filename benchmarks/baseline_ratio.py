"""kraken-solver against a plain alpha-beta in C, timed in turn on the same deals.

Issue 4 states its `points` target against a yardstick: a plain double-dummy alpha-beta in C
with a transposition table at trick boundaries and simple move ordering (about 0.7 M nodes per
(deal, trump) at the median), which kraken-solver should beat 20 times over.  The speed of a
small shared machine drifts by up to 2x within minutes, so absolute milliseconds from
different moments compare badly; the two solvers timed on the same deals in the same minutes
do not have that problem.

``baseline/plain_alphabeta.c`` is that yardstick (objective ``points``, rules
``klaverjas-rotterdam`` without trick roem, N first). This script compiles it with ``gcc -O2``
(``--cc`` to choose the compiler), then solves a suite as ``kraken-bench`` names them
(``random-N-seedS`` or a deal file of full deals; all four trumps) in chunks of deals, each
chunk first by the C program and then by kraken-solver (one Searcher, as ``kraken-bench``
uses), so both see the same phases of the machine. It exits 1 if any value differs (the C
program is also an independent check of the ``points`` values) or the C program cannot be built
or run, 2 for a bad option; it prints per solver the median, p95 and mean ms per solve and the
median nodes, then the ratios of the medians and of the means, and the median over chunks of
the chunk's ratio of medians.  With ``--repeat N`` each chunk runs N times in turn and each
solve keeps its fastest run (a value or node count that changes from run to run is an error).

    python benchmarks/baseline_ratio.py --suite random-1000-seed1
    python benchmarks/baseline_ratio.py --suite random-100-seed1 --chunk 10 --json out.json
    python benchmarks/baseline_ratio.py --suite random-200-seed1 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from kraken_solver.bench.machine import machine_info, machine_line
from kraken_solver.bench.solves import timed_value
from kraken_solver.bench.suites import is_deal_file_suite, suite_deals
from kraken_solver.engine.solver import Searcher
from kraken_solver.errors import KrakenError
from kraken_solver.game.position import Position
from kraken_solver.game.rules import Rules
from kraken_solver.notation.outputs import check_output, write_text

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "baseline", "plain_alphabeta.c")


class YardstickError(Exception):
    """The C program could not be built or run, or gave something other than its results."""


def build(cc: str, into: str) -> str:
    """Compile the C yardstick with ``cc -O2`` into the directory ``into``; its path.
    Raises YardstickError if the compiler cannot be run, fails, or makes no program."""
    exe = os.path.join(into, "plain_alphabeta")
    try:
        done = subprocess.run([cc, "-O2", "-o", exe, SOURCE], capture_output=True, text=True)
    except OSError as e:
        raise YardstickError(f"cannot run the C compiler {cc!r} ({e.strerror}); --cc chooses "
                             "another") from None
    if done.returncode != 0 or not os.access(exe, os.X_OK):
        raise YardstickError(f"{cc!r} did not compile {SOURCE} (exit {done.returncode}): "
                             f"{done.stderr.strip() or 'no program was written'}")
    return exe


def run_c(exe: str, deals) -> list[tuple[int, int, float]]:
    """(value, nodes, ms) for each (deal, trump) of ``deals``, trumps S H D C in turn."""
    lines = "".join(f"{d.hands[0]} {d.hands[1]} {d.hands[2]} {d.hands[3]} {t}\n"
                    for d in deals for t in range(4))
    done = subprocess.run([exe], input=lines, capture_output=True, text=True)
    rows = [line.split() for line in done.stdout.splitlines()]
    try:
        if done.returncode != 0 or len(rows) != 4 * len(deals):
            raise ValueError
        return [(int(v), int(n), int(us) / 1000.0) for v, n, us in rows]
    except ValueError:
        raise YardstickError(f"the C program failed (exit {done.returncode}; {len(rows)} lines "
                             f"for {4 * len(deals)} solves): "
                             f"{done.stderr.strip() or done.stdout[:200]!r}") from None


def run_kraken(searcher: Searcher, rules: Rules, deals, clear: bool = False
               ) -> list[tuple[int, int, float]]:
    """(value, nodes, ms) for each (deal, trump) of ``deals``, as ``run_c`` gives them; with
    ``clear`` each solve starts from an empty table (``Searcher.clear``)."""
    rows = []
    for deal in deals:
        for trump in range(4):
            if clear:
                searcher.clear()
            rows.append(timed_value(searcher, Position(deal, trump, 0, rules), "points"))
    return rows


def fastest(rows, again) -> list[tuple[int, int, float]]:
    """Each solve's row with the lower time of two runs (``run_c`` or ``run_kraken`` rows of
    the same solves).  Raises YardstickError if a value or a node count differs."""
    out = []
    for x, y in zip(rows, again, strict=True):
        if x[:2] != y[:2]:
            raise YardstickError(f"a solve run again gave another value or node count: {x[:2]} "
                                 f"then {y[:2]}")
        out.append(x if x[2] <= y[2] else y)
    return out


def stats(rows) -> dict:
    ms = np.array([r[2] for r in rows])
    nodes = np.array([r[1] for r in rows])
    return {"median_ms": float(np.median(ms)), "p95_ms": float(np.percentile(ms, 95)),
            "mean_ms": float(ms.mean()), "median_nodes": float(np.median(nodes)),
            "mean_nodes": float(nodes.mean())}


def _inputs(args) -> list:
    """The files this run reads (a --json report must not replace one)."""
    return [args.suite] if is_deal_file_suite(args.suite) else []


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default="random-1000-seed1",
                    help="random-N-seedS or a deal file, as for kraken-bench "
                         "(default: %(default)s)")
    ap.add_argument("--chunk", type=int, default=25, help="deals a turn (default: %(default)s)")
    ap.add_argument("--cc", default="gcc", help="C compiler (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each chunk N times with each solver, in turns, and keep each "
                         "solve's fastest run (default %(default)s)")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args(argv)
    if args.chunk < 1:
        ap.error("--chunk must be at least 1")
    if not 1 <= args.repeat <= 100:
        ap.error("--repeat must be from 1 to 100")
    try:
        if args.json is not None:
            if not args.json or os.path.isdir(args.json):
                ap.error(f"--json: cannot write a file there: {args.json!r}")
            check_output(args.json, what="--json", inputs=_inputs(args))
        deals = suite_deals(args.suite)
    except KrakenError as e:
        ap.error(str(e))
    with tempfile.TemporaryDirectory() as tmp:
        try:
            return compare(build(args.cc, tmp), deals, args)
        except YardstickError as e:
            print(f"baseline_ratio.py: error: {e}", file=sys.stderr)
            return 1


def compare(exe: str, deals, args) -> int:
    """Time the C program ``exe`` and kraken-solver on ``deals`` in turn; print (and with
    ``args.json`` save) the figures.  Returns 1 if a value differs, else 0."""
    rules = Rules.preset("klaverjas-rotterdam", trick_roem=False)
    searcher = Searcher()
    # load the kernels first (with a searcher of its own: the timed one starts empty)
    Searcher().value(Position(deals[0], 0, 0, rules), "points")
    c_rows, k_rows, chunk_ratios = [], [], []
    for i in range(0, len(deals), args.chunk):
        part = deals[i:i + args.chunk]
        c = run_c(exe, part)
        k = run_kraken(searcher, rules, part)
        for _ in range(args.repeat - 1):
            # again in turn, each solve keeping its fastest run (the C program starts each
            # solve from an empty table; so does kraken-solver after clear())
            c = fastest(c, run_c(exe, part))
            k = fastest(k, run_kraken(searcher, rules, part, clear=True))
        for j, (x, y) in enumerate(zip(c, k, strict=True)):
            if x[0] != y[0]:
                d, t = divmod(i * 4 + j, 4)
                print(f"\nvalues differ: deal {d}, trump {'SHDC'[t]}: C {x[0]}, "
                      f"kraken-solver {y[0]}",
                      file=sys.stderr)
                return 1
        c_rows += c
        k_rows += k
        chunk_ratios.append(np.median([r[2] for r in c]) / np.median([r[2] for r in k]))
        print(f"\r{min(i + args.chunk, len(deals))}/{len(deals)} deals", end="",
              file=sys.stderr)
    print(file=sys.stderr)
    cs, ks = stats(c_rows), stats(k_rows)
    report = {"suite": args.suite, "solves": len(k_rows), "repeat": args.repeat,
              "objective": "points",
              "rules": rules.name, "plain_c": cs, "kraken_solver": ks,
              "ratio_of_medians": cs["median_ms"] / ks["median_ms"],
              "ratio_of_means": cs["mean_ms"] / ks["mean_ms"],
              "median_chunk_ratio": float(np.median(chunk_ratios)),
              "node_ratio_of_medians": cs["median_nodes"] / ks["median_nodes"],
              **machine_info()}
    print(f"suite {args.suite}: {len(k_rows)} solves, objective points, rules {rules.name}; "
          f"values equal"
          + (f"; the fastest of {args.repeat} runs of each" if args.repeat > 1 else ""))
    for name, s in (("plain alpha-beta (C)", cs), ("kraken-solver", ks)):
        print(f"  {name:21s} ms per solve: median {s['median_ms']:.2f}  p95 {s['p95_ms']:.2f}"
              f"  mean {s['mean_ms']:.2f};  median nodes {s['median_nodes']:.0f}")
    print(f"  kraken-solver is {report['ratio_of_medians']:.1f}x faster at the median "
          f"({report['ratio_of_means']:.1f}x in mean time; median over chunks "
          f"{report['median_chunk_ratio']:.1f}x), with {report['node_ratio_of_medians']:.1f}x "
          f"fewer nodes at the median")
    print(f"  machine: {machine_line(report)}")
    if args.json:
        try:
            write_text(args.json, json.dumps(report, indent=1), what="--json",
                       inputs=_inputs(args))
        except KrakenError as e:
            raise YardstickError(f"{e}; the figures are above") from None
    return 0


if __name__ == "__main__":
    sys.exit(main())
