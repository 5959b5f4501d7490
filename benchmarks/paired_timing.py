"""Paired timing of two (or more) versions of the solver, for changes too small to see in
separate runs on a noisy machine.

Each CHECKOUT is a directory holding a ``kraken_solver/`` package (a git worktree, or
``git archive REV kraken_solver | tar -x -C DIR``).  The packages are copied under distinct
module names into a temporary directory and imported side by side; the versions then solve
the same seeded deals (all four trumps, N first) in turn, deal by deal, and every deal keeps
its fastest time over the repetitions.  Drift of the machine's speed hits every version alike.

Prints, per version: nodes, the sum over deals of the per-deal minimum seconds, M nodes/s and
the values' checksum; exits 1 if the versions' values differ.

    python benchmarks/paired_timing.py /tmp/old . --objective points --deals 25 --reps 3
    python benchmarks/paired_timing.py /tmp/old . --suite benchmarks/suites/hard-25.txt
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
import tempfile
import time


def load(checkout: str, index: int, into: str):
    """Import ``checkout``/kraken_solver as the package ``kvariant<index>``."""
    src = os.path.join(checkout, "kraken_solver")
    if not os.path.isfile(os.path.join(src, "_kernels.py")):
        sys.exit(f"{checkout}: no kraken_solver/_kernels.py there")
    name = f"kvariant{index}"
    shutil.copytree(src, os.path.join(into, name),
                    ignore=shutil.ignore_patterns("__pycache__", "cli"))
    return {part: importlib.import_module(f"{name}.{part}")
            for part in ("solver", "rules", "bench")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkouts", nargs="+", metavar="CHECKOUT")
    ap.add_argument("--objective", choices=["score", "points"], default="score",
                    help="score: default rules; points: Rotterdam without roem")
    ap.add_argument("--deals", type=int, default=25, help="deals of random-N-seed1")
    ap.add_argument("--suite", help="a suite instead (random-N-seedS or a deal file, e.g. "
                                    "benchmarks/suites/hard-25.txt)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions (the minimum counts)")
    args = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="kraken-paired-")
    sys.path.insert(0, tmp)
    try:
        versions = [load(c, i, tmp) for i, c in enumerate(args.checkouts)]
        runs = []
        for v in versions:
            rules_cls = v["rules"].Rules
            rules = (rules_cls.preset("klaverjas-rotterdam", trick_roem=False)
                     if args.objective == "points" else rules_cls.preset("kraken"))
            deals = (v["bench"].suite_deals(args.suite) if args.suite
                     else v["bench"].random_deals(args.deals, 1))
            searcher, position = v["solver"].Searcher, v["solver"].Position
            searcher().value(position(deals[0], 0, 0, rules), args.objective)   # compile
            # one searcher a version for every solve, as kraken-bench does
            runs.append({"rules": rules, "deals": deals, "best": [float("inf")] * len(deals),
                         "nodes": 0, "values": [], "searcher": searcher()})
        for rep in range(args.reps):
            for i in range(len(runs[0]["deals"])):
                for v, run in zip(versions, runs):
                    s = run["searcher"]
                    n0 = s.nodes
                    t0 = time.perf_counter()
                    vals = [s.value(v["solver"].Position(run["deals"][i], t, 0, run["rules"]),
                                    args.objective) for t in range(4)]
                    run["best"][i] = min(run["best"][i], time.perf_counter() - t0)
                    if rep == 0:
                        run["nodes"] += s.nodes - n0
                        run["values"] += vals
        for c, v, run in zip(args.checkouts, versions, runs):
            total = sum(run["best"])
            print(f"{c}: {args.objective} nodes {run['nodes']}  {total:.3f} s  "
                  f"{run['nodes'] / total / 1e6:.2f} M nodes/s  "
                  f"values {v['bench'].checksum(run['values'])}")
        if any(run["values"] != runs[0]["values"] for run in runs):
            print("the values differ", file=sys.stderr)
            return 1
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
