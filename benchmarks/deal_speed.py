"""How fast does constraint dealing test candidates, and what does a rare condition cost?

Every case makes ``--deals`` deals of one condition with
:class:`~kraken_solver.dealing.generator.Condition` in this process (one core; NumPy's array
operations here use one thread), ``--repeat`` times, each time from a new seed, and prints the
median and p95 of the wall time, the candidates tested and accepted, candidates tested a
second, deals a second and the peak memory (max RSS) of the process; the cases take turns,
repeat by repeat, so that the ratios hold on a machine whose load changes:

- ``typical``: ``hearts(S) >= 4 and has(S, HJ)`` as written (HJ is dealt to S first: smart
  stacking), and ``hearts(S) >= 4 and count(S, HJ) >= 1``, the same condition that the
  generator cannot stack (every candidate drawn in full and tested);
- ``jacks``: S holds the four jacks, ``has(S, SJ HJ DJ CJ)`` (1 deal in 514, which
  predeal expresses), against deals with no condition; and the same condition written so that
  it cannot be stacked, ``count(S, SJ HJ DJ CJ) == 4`` (rejection only, fewer deals).

The deals are made as arrays (``Condition.hands``); ``--objects`` also times the
:class:`~kraken_solver.game.deal.Deal` objects that ``deal_where`` returns::

    python benchmarks/deal_speed.py
    python benchmarks/deal_speed.py --deals 200000 --repeat 7 --objects

The machine may be shared: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time

from kraken_solver.bench.machine import machine_info, machine_line
from kraken_solver.dealing.generator import Condition, DealingStats, deal_where


def p95(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


def time_cases(cases, repeat, objects):
    """``cases``: (condition text or None, deals) -> one row each; the runs are interleaved
    (repeat r of every case, then repeat r + 1), so that a change of the machine's load
    falls on every case alike and the ratios hold."""
    conds = [Condition(where) for where, _ in cases]
    for cond in conds:
        cond.hands(0, 0, 64)                    # warm the lookup tables
    times = [[] for _ in cases]
    counts = [[0, 0] for _ in cases]
    for r in range(repeat):
        for i, (cond, (_, deals)) in enumerate(zip(conds, cases)):
            stats = DealingStats()
            t0 = time.perf_counter()
            if objects:
                deal_where(cond, n=deals, seed=1000 + r, stats=stats)
            else:
                cond.hands(1000 + r, 0, deals, stats=stats)
            times[i].append(time.perf_counter() - t0)
            counts[i][0] += stats.tested
            counts[i][1] += stats.accepted
    rows = []
    for (where, deals), cond, ts, (tested, accepted) in zip(cases, conds, times, counts):
        med = statistics.median(ts)
        rows.append({"where": where or "(no condition)", "describe": cond.describe(),
                     "deals": deals, "median_s": med, "p95_s": p95(ts),
                     "tested": tested // repeat, "accepted": accepted // repeat,
                     "tested_per_s": tested / sum(ts), "deals_per_s": deals / med,
                     "us_per_deal": 1e6 * med / deals, "times": ts})
    return rows


def show(row):
    print(f"  {row['where']}")
    print(f"    {row['describe']}")
    print(f"    {row['deals']:,} deals: median {row['median_s'] * 1e3:.1f} ms, p95 "
          f"{row['p95_s'] * 1e3:.1f} ms; {row['us_per_deal']:.2f} us a deal; "
          f"{row['deals_per_s']:,.0f} deals/s")
    print(f"    candidates tested {row['tested']:,} a run (accepted {row['accepted']:,}): "
          f"{row['tested_per_s']:,.0f} candidates tested/s")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--objects", action="store_true",
                    help="time deal_where's Deal objects too (not only the arrays)")
    args = ap.parse_args(argv)
    if not 1 <= args.deals <= 10**7 or not 1 <= args.repeat <= 100:
        ap.error("--deals 1..10,000,000 and --repeat 1..100")
    print("command: " + " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]))
    print(machine_line(machine_info()))
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    n = args.deals
    rows = time_cases([("hearts(S) >= 4 and has(S, HJ)", n),
                       ("hearts(S) >= 4 and count(S, HJ) >= 1", n),
                       (None, n), ("has(S, SJ HJ DJ CJ)", n),
                       ("count(S, SJ HJ DJ CJ) == 4", max(64, n // 1000))], args.repeat, False)
    print("typical predicate:")
    for row in rows[:2]:
        show(row)
    print("S holds the four jacks (1 deal in 514):")
    plain, jacks, rare = rows[2:]
    for row in rows[2:]:
        show(row)
    paired = sorted(j / p for j, p in zip(jacks["times"], plain["times"]))
    print(f"  four jacks / no condition, time a deal: "
          f"{jacks['us_per_deal'] / plain['us_per_deal']:.2f} (medians); paired run by run: "
          f"median {statistics.median(paired):.2f}, range {paired[0]:.2f}..{paired[-1]:.2f}; "
          f"without stacking: {rare['us_per_deal'] / plain['us_per_deal']:.0f}")
    if args.objects:
        print("Deal objects (deal_where):")
        for row in time_cases([(None, n), ("has(S, SJ HJ DJ CJ)", n),
                               ("hearts(S) >= 4 and has(S, HJ)", n)], args.repeat, True):
            show(row)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (max RSS of this process): {peak:.0f} MB")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
