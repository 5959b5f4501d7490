"""Paired timing of two (or more) versions of the solver, for changes too small to see in
separate runs on a noisy machine.

Each CHECKOUT is a directory holding a ``kraken_solver/`` package (a git worktree, or
``git archive REV kraken_solver | tar -x -C DIR``).  The packages are copied under distinct
module names (named after their contents) into a temporary directory, or into ``--keep DIR``
where the copies and their compiled kernels are kept for later runs, and imported side by
side; the versions then solve the same seeded deals (all four trumps, N first) in turn, deal by
deal, the order of the versions rotating from deal to deal and from one repetition to the next
(the version that runs after another sees its caches cold), and every deal keeps its fastest
thread CPU time over the repetitions.  Drift of the machine's speed hits every version alike.

With ``--all-cards`` a solve values every legal card of the first lead (``solve(...,
all_cards=True, pv=False)``, as ``peer_colver.py`` times it) instead of the deal alone.

Prints, per version: nodes, the sum over deals of the per-deal minimum seconds, M nodes/s and
the values' checksum; exits 1 if the versions' values differ.

    python benchmarks/paired_timing.py /tmp/old . --objective points --deals 25 --reps 3
    python benchmarks/paired_timing.py /tmp/old . --suite benchmarks/suites/hard-25.txt
    python benchmarks/paired_timing.py /tmp/old . --keep /tmp/paired --reps 5
    python benchmarks/paired_timing.py /tmp/old . --all-cards --objective points
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import shutil
import sys
import tempfile
import time


def package_digest(src: str) -> str:
    """A digest of the files of the package directory ``src`` (``__pycache__`` left out)."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            path = os.path.join(root, f)
            h.update(os.path.relpath(path, src).encode() + b"\0")
            with open(path, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()[:16]


#: where each part lives, in the flat layout of older checkouts and in today's sub-packages
LAYOUTS = {"flat": {"solver": "solver", "rules": "rules", "bench": "bench"},
           "packages": {"solver": "engine.solver", "rules": "game.rules",
                        "bench": "bench.suites"}}


def load(checkout: str, into: str):
    """Import ``checkout``/kraken_solver as a package named after its contents, copied into
    ``into`` unless a copy of the same contents is there already (with its Numba cache).
    Older checkouts (one flat folder, ``_kernels.py``) and today's (``kernels/``) both load."""
    src = os.path.join(checkout, "kraken_solver")
    if os.path.isdir(os.path.join(src, "kernels")):
        layout = LAYOUTS["packages"]
    elif os.path.isfile(os.path.join(src, "_kernels.py")):
        layout = LAYOUTS["flat"]
    else:
        sys.exit(f"{checkout}: no kraken_solver/kernels/ there")
    name = f"kvariant_{package_digest(src)}"
    if not os.path.isdir(os.path.join(into, name)):
        shutil.copytree(src, os.path.join(into, name),
                        ignore=shutil.ignore_patterns("__pycache__", "cli"))
    return {part: importlib.import_module(f"{name}.{where}") for part, where in layout.items()}


def solve_one(solver, searcher, deal, trump: int, rules, args) -> list[int]:
    """The value of ``deal`` with ``trump``, N first, or with ``args.all_cards`` the value of
    every legal card of the first lead (by card), as a list of ints."""
    if args.all_cards:
        r = solver.solve(deal, trump, 0, rules=rules, objective=args.objective,
                         all_cards=True, pv=False, searcher=searcher)
        return [r.card_values[c] for c in sorted(r.card_values)]
    return [searcher.value(solver.Position(deal, trump, 0, rules), args.objective)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkouts", nargs="+", metavar="CHECKOUT")
    ap.add_argument("--objective", choices=["score", "points"], default="score",
                    help="score: default rules; points: Rotterdam without roem")
    ap.add_argument("--deals", type=int, default=25, help="deals of random-N-seed1")
    ap.add_argument("--suite", help="a suite instead (random-N-seedS or a deal file, e.g. "
                                    "benchmarks/suites/hard-25.txt)")
    ap.add_argument("--rules", help="rules as kraken-bench reads them, e.g. "
                                    "klaverjas-amsterdam+trick_roem=false (the default: "
                                    "as the objective says)")
    ap.add_argument("--all-cards", action="store_true",
                    help="value every legal card of the first lead, not only the deal")
    ap.add_argument("--reps", type=int, default=3, help="repetitions (the minimum counts)")
    ap.add_argument("--keep", metavar="DIR",
                    help="copy the packages into DIR and keep them there, with their compiled "
                         "kernels, for later runs (a changed checkout gets a new copy)")
    args = ap.parse_args(argv)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    tmp = args.keep or tempfile.mkdtemp(prefix="kraken-paired-")
    sys.path.insert(0, tmp)
    try:
        versions = [load(c, tmp) for c in args.checkouts]
        runs = []
        for v in versions:
            rules_cls = v["rules"].Rules
            if args.rules:
                rules = rules_cls.from_name(args.rules)
            else:
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
                order = list(zip(versions, runs))
                r = (rep + i) % len(order)
                for v, run in order[r:] + order[:r]:
                    s = run["searcher"]
                    n0 = s.nodes
                    t0 = time.thread_time()
                    vals = [solve_one(v["solver"], s, run["deals"][i], t, run["rules"], args)
                            for t in range(4)]
                    run["best"][i] = min(run["best"][i], time.thread_time() - t0)
                    if rep == 0:
                        run["nodes"] += s.nodes - n0
                        run["values"] += [x for val in vals for x in val]
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
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
