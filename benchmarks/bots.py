"""Speed and a quick strength check of the computer players (kraken_solver.bots).

Speed (one core, this process): a ``pimc:N`` move at the first lead (a new bot each deal:
its layouts drawn and every legal card solved in each), and whole deals played by four
``pimc:N`` bots (the worlds and their transposition tables kept from move to move).  It
prints the median, p95 and mean ms, the median search nodes, and the peak memory (max RSS)
of the process.

Strength (``--strength D``): D deals in duplicate: each deal played twice, the two teams
swapping N-S and E-W, same trump (the first player's ``jack and nine`` choice) and first
player (deal i: seat i mod 4).  The observation of a deal is the mean over its two tables of
team A's final score minus team B's (the sheet's final scores), so the luck of the cards
cancels; it prints the mean, its standard error and the 95% interval per pair of bots.

    python benchmarks/bots.py                      # speed: 20 deals, pimc:20
    python benchmarks/bots.py --deals 40 --layouts 20 --seed 3
    python benchmarks/bots.py --strength 100 --no-speed
"""

from __future__ import annotations

import argparse
import math
import resource
import statistics
import sys
import time

import numpy as np

from kraken_solver.bots import make_bot, play_deal, seat_view
from kraken_solver.dealing.seeded import generate_deals
from kraken_solver.game.cards import SUITS
from kraken_solver.game.choice import choose_by_rule
from kraken_solver.workers.task import warm_kernels


def _stats(ms: list) -> str:
    a = np.asarray(ms)
    return (f"median {np.median(a):8.1f} ms   p95 {np.percentile(a, 95):8.1f} ms   "
            f"mean {a.mean():8.1f} ms   max {a.max():8.1f} ms   ({len(a)})")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def first_lead(deals, layouts: int, seed: int) -> None:
    ms, nodes = [], []
    for i, deal in enumerate(deals):
        first = i % 4
        trump = choose_by_rule(deal.hands[first], "jack and nine")
        view = seat_view(deal, trump, first)
        bot = make_bot(f"pimc:{layouts}", seed=seed)
        t0 = time.perf_counter()
        bot.choose_card(view)
        ms.append((time.perf_counter() - t0) * 1000)
        nodes.append(bot.last["nodes"])
    print(f"pimc:{layouts} move at the first lead:  {_stats(ms)}   nodes median "
          f"{int(statistics.median(nodes)):,}")


def whole_deals(deals, layouts: int, seed: int) -> None:
    ms, move_ms = [], []
    for i, deal in enumerate(deals):
        first = i % 4
        trump = choose_by_rule(deal.hands[first], "jack and nine")
        spec = f"pimc:{layouts}"
        t0 = time.perf_counter()
        played = play_deal(deal, trump, first, {"NS": spec, "EW": spec}, seed=seed)
        ms.append((time.perf_counter() - t0) * 1000)
        move_ms.extend(s * 1000 for s in played.seconds)
    print(f"deal by four pimc:{layouts} bots:      {_stats(ms)}")
    print(f"  every move of those deals:       {_stats(move_ms)}")


def duplicate(deals, a: str, b: str, seed: int) -> None:
    diffs = []
    t0 = time.perf_counter()
    for i, deal in enumerate(deals):
        first = i % 4
        trump = SUITS[choose_by_rule(deal.hands[first], "jack and nine")]
        one = play_deal(deal, trump, first, {"NS": a, "EW": b}, seed=seed + i)
        two = play_deal(deal, trump, first, {"NS": b, "EW": a}, seed=seed + i)
        diffs.append(((one.score["NS"] - one.score["EW"]) + (two.score["EW"] - two.score["NS"]))
                     / 2)
    x = np.asarray(diffs)
    se = x.std(ddof=1) / math.sqrt(len(x))
    print(f"{a:>10} vs {b:<10} {x.mean():+7.1f} +- {se:5.1f} points a deal (95%: "
          f"{x.mean() - 1.96 * se:+.1f} .. {x.mean() + 1.96 * se:+.1f}), {len(x)} deals, "
          f"{time.perf_counter() - t0:.0f} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=20, help="deals for the speed runs")
    ap.add_argument("--layouts", type=int, default=20, help="N of pimc:N")
    ap.add_argument("--seed", type=int, default=1, help="seed of the deals and the bots")
    ap.add_argument("--strength", type=int, default=0, metavar="D",
                    help="also D duplicate deals of each pair of bots")
    ap.add_argument("--no-speed", action="store_true", help="skip the speed runs")
    args = ap.parse_args(argv)
    warm_kernels()
    deals = generate_deals(args.seed, 0, max(args.deals, args.strength))
    print(f"seed {args.seed}; one process, one core; the machine may be shared (load "
          f"{open('/proc/loadavg').read().split()[0]})", file=sys.stderr)
    if not args.no_speed:
        first_lead(deals[:args.deals], args.layouts, args.seed)
        whole_deals(deals[:args.deals], args.layouts, args.seed)
    if args.strength:
        p = f"pimc:{args.layouts}"
        for a, b in ((p, "random"), (p, "heuristic"), ("heuristic", "random")):
            duplicate(deals[:args.strength], a, b, args.seed)
    print(f"peak memory (max RSS) {_peak_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
