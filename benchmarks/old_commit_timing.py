"""Today's checkout against an old commit, each in its own environment, interleaved on the
same deals: the three measures of issue 39.

The old commit is built in a git worktree of its own (``--work DIR``, default
``.bench-old/<commit>`` under the repository) with a venv of its own there (``python -m venv``,
then ``pip install -e`` of that worktree); both are made once and kept for later runs.  Each
version then runs as a worker process of its own environment (its venv's python, its package
importing its own Numba kernels), and the two take turns: every (deal, trump) of the suite is
solved by each version in turn, the order alternating from one solve and repetition to the
next, so drift of a shared machine's load hits both alike.  Each solve keeps its fastest
thread CPU time over ``--repeat`` runs, each run from an empty table (``Searcher.clear``, as
``kraken-bench --repeat`` and ``peer_colver.py --repeat`` do); one Searcher a version.

The measures (``--measure``, all three by default), N first, all four trumps of each deal:

- ``cards``: every legal card of the first lead valued (``solve(..., objective="points",
  all_cards=True, pv=False)``), rules ``klaverjas-amsterdam`` without roem: the median;
- ``score``: the exact score, value only (``Searcher.value(pos, "score")``), default rules
  (``kraken``): median and p95;
- ``points``: the points, value only, rules ``klaverjas-rotterdam`` without roem: the mean.

Prints, per measure and version: median, p95 and mean ms per solve and the nodes, and the
speed-up (old over new) of each statistic; each environment's Python, NumPy and Numba, the
load average before and after, and the machine.  Exits 1 if a value differs between the versions, 2 if the old commit cannot be
built (the message says where).

    python benchmarks/old_commit_timing.py 73c2402
    python benchmarks/old_commit_timing.py 73c2402 --suite random-200-seed1 --repeat 3
    python benchmarks/old_commit_timing.py 73c2402 --measure score --suite random-25-seed1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
MEASURES = ("cards", "score", "points")


# ---------------------------------------------------------------- the worker (either version)
def worker(suite: str) -> int:
    """Serve solves on stdin/stdout, one JSON line each way: ``[measure, deal index, trump]``
    -> ``{"seconds", "nodes", "values"}``.  Runs in the environment of the version timed."""
    from kraken_solver.bench.suites import suite_deals
    from kraken_solver.engine.solver import Position, Searcher, solve
    from kraken_solver.game.rules import Rules

    rules = {"cards": Rules.preset("klaverjas-amsterdam", trick_roem=False, hand_roem=False),
             "score": Rules.preset("kraken"),
             "points": Rules.preset("klaverjas-rotterdam", trick_roem=False, hand_roem=False)}
    deals = suite_deals(suite)
    searcher = Searcher()

    def run(measure, deal, trump):
        if measure == "cards":
            r = solve(deal, trump, 0, rules=rules[measure], objective="points",
                      all_cards=True, pv=False, searcher=searcher)
            return [r.card_values[c] for c in sorted(r.card_values)]
        objective = "score" if measure == "score" else "points"
        return [searcher.value(Position(deal, trump, 0, rules[measure]), objective)]

    for m in MEASURES:                  # load (or compile) the kernels before any timing
        run(m, deals[0], 0)
    import platform

    import numba
    import numpy
    versions = (f"python {platform.python_version()}, numpy {numpy.__version__}, "
                f"numba {numba.__version__}")
    print(json.dumps({"deals": len(deals), "versions": versions}), flush=True)
    for line in sys.stdin:
        measure, i, trump = json.loads(line)
        searcher.clear()
        n0 = searcher.nodes
        t0 = time.thread_time()
        values = run(measure, deals[i], trump)
        seconds = time.thread_time() - t0
        print(json.dumps({"seconds": seconds, "nodes": searcher.nodes - n0, "values": values}),
              flush=True)
    return 0


# ---------------------------------------------------------------- building the old commit
def fail(message: str):
    """One line on stderr, exit code 2."""
    print(message, file=sys.stderr)
    sys.exit(2)


def git(*args, cwd=REPO) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def build_old(commit: str, work: str | None) -> str:
    """The python of the old commit's own venv, in its own worktree (made once, then kept).
    Exits 2 with one line if the commit is unknown or the build fails."""
    try:
        sha = git("rev-parse", "--verify", f"{commit}^{{commit}}")
    except subprocess.CalledProcessError:
        fail(f"old commit: {commit!r} is not a commit of {REPO}")
    work = work or os.path.join(REPO, ".bench-old", sha[:12])
    python = os.path.join(work, ".venv", "bin", "python")
    done = os.path.join(work, ".venv", "kraken-installed")
    steps = []
    if not os.path.isdir(os.path.join(work, "kraken_solver")):
        steps.append(["git", "-C", REPO, "worktree", "add", "--detach", work, sha])
    if not os.path.isfile(done):
        steps += [[sys.executable, "-m", "venv", os.path.join(work, ".venv")],
                  [python, "-m", "pip", "install", "-q", "-e", work]]
    for cmd in steps:
        print("building the old commit:", " ".join(cmd), file=sys.stderr, flush=True)
        r = subprocess.run(cmd, check=False, capture_output=True, text=True)
        if r.returncode:
            last = (r.stderr.strip().splitlines() or ["(no message)"])[-1]
            fail(f"old commit: {' '.join(cmd[:4])} failed: {last}")
    if steps:
        with open(done, "w") as f:
            f.write(sha + "\n")
    if git("rev-parse", "HEAD", cwd=work) != sha:
        fail(f"old commit: {work} holds another commit than {sha[:12]}")
    return python


# ---------------------------------------------------------------- the paired run
class Version:
    def __init__(self, name: str, python: str, checkout: str, suite: str):
        self.name = name
        env = dict(os.environ, PYTHONPATH=checkout)
        self.proc = subprocess.Popen([python, os.path.abspath(__file__), "--worker", suite],
                                     cwd=checkout, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        hello = self.proc.stdout.readline()
        if not hello:
            fail(f"{name}: its worker did not start ({python})")
        hello = json.loads(hello)
        self.deals = hello["deals"]
        self.versions = hello["versions"]

    def solve(self, measure: str, i: int, trump: int) -> dict:
        self.proc.stdin.write(json.dumps([measure, i, trump]) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def quantile(xs: list[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` (linear between order statistics, as numpy's default)."""
    s = sorted(xs)
    k = (len(s) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def stats(seconds: list[float]) -> dict:
    ms = [1000 * x for x in seconds]
    return {"median": quantile(ms, 0.5), "p95": quantile(ms, 0.95), "mean": sum(ms) / len(ms)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", metavar="OLD_COMMIT", help="the commit to time against")
    ap.add_argument("--suite", default="random-200-seed1",
                    help="random-N-seedS or a deal file of full deals (default: %(default)s)")
    ap.add_argument("--measure", choices=MEASURES, action="append",
                    help="a measure to time (repeatable; default: all three)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each solve (the fastest "
                                                          "counts; default: %(default)s)")
    ap.add_argument("--limit", type=int, help="only the first N deals of the suite")
    ap.add_argument("--work", metavar="DIR", help="the old commit's worktree and venv "
                                                  "(default: .bench-old/<commit>)")
    args = ap.parse_args(argv)
    if not 1 <= args.repeat <= 100:
        ap.error("--repeat must be from 1 to 100")
    if args.limit is not None and not 1 <= args.limit <= 100_000:
        ap.error("--limit must be from 1 to 100000")
    measures = args.measure or list(MEASURES)
    old_python = build_old(args.old, args.work)
    old_checkout = os.path.dirname(os.path.dirname(os.path.dirname(old_python)))
    load0 = os.getloadavg()
    versions = [Version(f"old {args.old}", old_python, old_checkout, args.suite),
                Version("new (this checkout)", sys.executable, REPO, args.suite)]
    for v in versions:
        print(f"{v.name}: {v.versions}")
    n = versions[0].deals if args.limit is None else min(args.limit, versions[0].deals)
    differ = False
    turn = 0
    for measure in measures:
        best = [[float("inf")] * (4 * n) for _ in versions]
        nodes = [0 for _ in versions]
        values = [[] for _ in versions]
        for rep in range(args.repeat):
            for k in range(4 * n):
                order = [0, 1] if turn % 2 == 0 else [1, 0]
                turn += 1
                for j in order:
                    r = versions[j].solve(measure, k // 4, k % 4)
                    best[j][k] = min(best[j][k], r["seconds"])
                    if rep == 0:
                        nodes[j] += r["nodes"]
                        values[j].append(r["values"])
        st = [stats(b) for b in best]
        print(f"{measure}: {args.suite}, {n} deals x 4 trumps, fastest of {args.repeat}")
        for v, s, nd in zip(versions, st, nodes):
            print(f"  {v.name}: ms median {s['median']:.3f}  p95 {s['p95']:.3f}  "
                  f"mean {s['mean']:.3f};  nodes {nd}")
        print("  speed-up (old / new): " + "  ".join(
            f"{key} {st[0][key] / st[1][key]:.2f}x" for key in ("median", "p95", "mean"))
            + f";  nodes {nodes[0] / max(1, nodes[1]):.3f}x")
        if values[0] != values[1]:
            print(f"  the values differ ({measure})", file=sys.stderr)
            differ = True
    for v in versions:
        v.close()
    sys.path.insert(0, REPO)
    from kraken_solver.bench.machine import machine_info, machine_line
    load1 = os.getloadavg()
    print(f"load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    print(f"machine: {machine_line(machine_info())}")
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        sys.exit(worker(sys.argv[2]))
    sys.exit(main())
