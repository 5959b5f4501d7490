"""Every legal card valued: kraken-solver against colver, interleaved deal by deal.

colver (on PyPI: ``pip install -e ".[bench]"`` or ``pip install colver``; never a dependency
of the package) is a double-dummy engine for Belote Contree written in Rust: the same 32
cards, the same card order and points (trump J 9 A T K Q 8 7, plain A T K Q J 9 8 7; 162
points with the last trick's 10).  Its ``Env.solve_scores()`` values every legal card of the
player to move, in card points; kraken-solver does the same with
``solve(..., objective="points", all_cards=True, pv=False)``.

Both solve the same deals (``random-N-seedS`` as ``kraken-bench`` names them, or a deal file of
full deals), all four trumps, N first: each (deal, trump) is one solve of each, timed on its
own, and the two take turns deal by deal (which goes first alternates), so that both see the
same phases of a busy machine.  kraken-solver uses one Searcher for every solve, as
``kraken-bench`` does; colver's ``solve_scores`` starts each call from a fresh table of its own.
Timed: colver's ``solve_scores()`` call (the Env is built before the clock starts), and the
whole ``solve`` call of kraken-solver (its Position built inside it).

The rules differ, so the values are not compared (and need not agree):
- kraken-solver: rules ``klaverjas-amsterdam`` without trick roem (and so without any roem):
  when the partner is winning the trick a player void in the suit led may play any card but
  a lower trump than the one on the table; a player who cannot overtrump an opponent's trump
  may not undertrump while holding another card.  No bonus for winning every trick.
- colver (Belote Contree, its FFB rules): when the partner is winning, any card, a lower trump
  too; a player who cannot overtrump an opponent's trump may undertrump or discard; winning
  every trick (capot) makes the last trick worth 100 instead of 10 (252 points); belote is
  not in the card values.

With ``--repeat N`` each (deal, trump) is solved N times by each, in turns, and each keeps
its fastest run (timeit's rule: the slower runs are the machine's other work); kraken-solver
starts each run from an empty table (``Searcher.clear``), as colver does.

Prints each solver's median, mean and p95 ms per solve, and how many times faster
kraken-solver is (ratio of the medians and of the means).

    python benchmarks/peer_colver.py --suite random-200-seed1
    python benchmarks/peer_colver.py --suite random-200-seed1 --repeat 3
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

# natural rank (7 8 9 T J Q K A, kraken-solver's card = suit * 8 + rank) -> colver's rank
# index (7 8 9 J Q K T A); the suits are S H D C in both
COLVER_RANK = (0, 1, 2, 6, 3, 4, 5, 7)


def colver_hands(deal) -> list[list[int]]:
    """The four hands N, E, S, W as colver's card indices."""
    return [sorted(8 * (c >> 3) + COLVER_RANK[c & 7] for c in range(32) if (h >> c) & 1)
            for h in deal.hands]


def colver_env(colver, deal, trump: int):
    """A colver Env in its play phase: N (seat 0) leads (dealer W, seat 3), N-S (team 0)
    plays ``trump`` (0..3, S H D C)."""
    env = colver.Env.deal_with_hands(dealer=3, hands=colver_hands(deal))
    env.set_contract(trump=trump, value=80, team=0, coinche=0)
    env.set_phase_playing()
    return env


def summary(ms) -> tuple[float, float, float]:
    a = np.asarray(ms)
    return float(np.median(a)), float(a.mean()), float(np.percentile(a, 95))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default="random-200-seed1",
                    help="random-N-seedS or a deal file of full deals (default random-200-seed1)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="solve each (deal, trump) N times with each solver and keep the "
                         "fastest run (default 1)")
    args = ap.parse_args(argv)
    if not 1 <= args.repeat <= 100:
        ap.error("--repeat must be from 1 to 100")
    try:
        import colver
    except ImportError:
        print("peer_colver.py: error: colver is not installed (pip install -e \".[bench]\")",
              file=sys.stderr)
        return 1
    from kraken_solver.bench.machine import machine_info, machine_line
    from kraken_solver.bench.suites import suite_deals
    from kraken_solver.engine.solver import Searcher, solve
    from kraken_solver.errors import KrakenError
    from kraken_solver.game.rules import Rules

    try:
        deals = suite_deals(args.suite)
    except KrakenError as e:
        print(f"peer_colver.py: error: {e}", file=sys.stderr)
        return 2
    rules = Rules.preset("klaverjas-amsterdam", trick_roem=False)
    searcher = Searcher()
    # load (or compile) the kernels, and colver's first call, before any timing
    solve(deals[0], 0, "N", rules=rules, objective="points", all_cards=True, pv=False,
          searcher=Searcher())
    colver_env(colver, deals[0], 0).solve_scores()
    ours, theirs, cards = [], [], 0
    for i, deal in enumerate(deals):
        for trump in range(4):
            best = [float("inf"), float("inf")]
            for rep in range(args.repeat):
                for turn in ((0, 1) if (i + trump + rep) % 2 == 0 else (1, 0)):
                    if turn == 0:
                        if rep:
                            searcher.clear()
                        t0 = time.perf_counter()
                        r = solve(deal, trump, "N", rules=rules, objective="points",
                                  all_cards=True, pv=False, searcher=searcher)
                        best[0] = min(best[0], (time.perf_counter() - t0) * 1000.0)
                        if rep == 0:
                            cards += len(r.card_values)
                    else:
                        env = colver_env(colver, deal, trump)
                        t0 = time.perf_counter()
                        got = env.solve_scores()
                        best[1] = min(best[1], (time.perf_counter() - t0) * 1000.0)
                        if not got["scores"]:  # pragma: no cover - colver valued no card
                            print("peer_colver.py: error: colver valued no card",
                                  file=sys.stderr)
                            return 1
            ours.append(best[0])
            theirs.append(best[1])
    print(f"suite {args.suite}: {len(deals)} deals x 4 trumps = {len(ours)} solves, every "
          f"legal card of N's first lead valued ({cards / len(ours):.2f} cards a solve); "
          f"colver {colver.__version__}"
          + (f"; the fastest of {args.repeat} runs of each" if args.repeat > 1 else ""))
    print("rules differ (kraken-solver: klaverjas-amsterdam, no roem; colver: Belote Contree, "
          "capot 252): values are not compared")
    for name, ms in (("kraken-solver", ours), ("colver", theirs)):
        med, mean, p95 = summary(ms)
        print(f"  {name:14s} ms per solve: median {med:7.3f}  mean {mean:7.3f}  p95 {p95:7.3f}")
    (m1, a1, _), (m2, a2, _) = summary(ours), summary(theirs)
    print(f"  kraken-solver is {m2 / m1:.1f}x faster at the median, {a2 / a1:.1f}x in mean time")
    print(f"  machine: {machine_line(machine_info())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
