"""How fast is a double-dummy review of a whole deal (``analyse_play``)?

For a few seeded full deals (``kraken_solver.bench.suites.random_deals``, N first, trump cycling
S H D C) and a 32-card play of each, it times:

- ``review``: ``analyse_play`` of the whole play: one Searcher for the deal (its table
  carries over from card to card, each search guided by the previous value);
- ``32 solves``: the 32 positions after each card solved independently, a fresh Searcher for
  each (``solve(..., pv=False)``): the values only, as a naive "value after every card" would;
- ``32 solves+cards``: the 32 positions before each card solved independently with every
  legal card valued (``solve(..., all_cards=True, pv=False)``, fresh Searcher each): the
  same information as the review.

The values of the three are compared (they must agree).  Plays: ``mistakes`` (best play with
a random non-best card with probability 0.15, the play of a real review) or ``random``
(uniformly random legal cards).  The kernels are loaded (or compiled) before any timing.
Medians are over the deals; run on an otherwise idle machine (one core is used)::

    python benchmarks/analyse_speed.py                 # 7 deals, seed 1, both plays
    python benchmarks/analyse_speed.py --deals 15 --seed 3 --play mistakes
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from kraken_solver import Position, Searcher, card_str, parse_card, solve
from kraken_solver.bench.suites import random_deals
from kraken_solver.engine.analyse import analyse_play
from kraken_solver.engine.solver import card_values_of
from kraken_solver.game.rules import Rules


def play_line(deal, trump, first, rules, rng, kind: str) -> list[str]:
    """A complete 32-card play: ``random`` legal cards, or ``mistakes``: a best card (rule
    26, drawn among the best) except, with probability 0.15, a random non-best one."""
    pos = Position(deal, trump, first, rules)
    searcher = Searcher()
    line = []
    while not pos.over:
        legal = pos.legal()
        if kind == "random":
            c = legal[int(rng.integers(len(legal)))]
        else:
            value = searcher.value(pos, "score")
            values = card_values_of(pos, "score", searcher)
            best = [k for k, v in values.items() if v == value]
            other = [k for k, v in values.items() if v != value]
            pick = other if other and rng.random() < 0.15 else best
            c = parse_card(pick[int(rng.integers(len(pick)))])
        line.append(card_str(c))
        pos.play(c)
    return line


def time_deal(deal, trump, first, rules, line) -> dict:
    t = time.perf_counter()
    reviews = analyse_play(deal, trump, first, rules=rules, played=line, searcher=Searcher())
    review_s = time.perf_counter() - t

    t = time.perf_counter()
    after = [solve(deal, trump, first, rules=rules, played=line[:k + 1], pv=False,
                   searcher=Searcher()).value for k in range(len(line))]
    solves_s = time.perf_counter() - t

    t = time.perf_counter()
    full = [solve(deal, trump, first, rules=rules, played=line[:k], all_cards=True, pv=False,
                  searcher=Searcher()) for k in range(len(line))]
    cards_s = time.perf_counter() - t

    for k, r in enumerate(reviews):  # the three must agree
        assert r.value_after == after[k], (k, r.value_after, after[k])
        assert r.value_before == full[k].value and r.card_values == full[k].card_values, k
    return {"review": review_s, "solves": solves_s, "cards": cards_s,
            "mistakes": sum(r.cost > 0 for r in reviews)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rules", default="kraken")
    ap.add_argument("--play", choices=["mistakes", "random", "both"], default="both")
    args = ap.parse_args(argv)
    rules = Rules.preset(args.rules)

    t = time.perf_counter()
    Searcher().value(Position("N:A.K.Q.J K.Q.J.A Q.J.A.K J.A.K.Q", 0, 0, rules), "score")
    print(f"kernels loaded (or compiled) in {time.perf_counter() - t:.2f} s (not timed below)")

    kinds = ["mistakes", "random"] if args.play == "both" else [args.play]
    deals = random_deals(args.deals, args.seed)
    for kind in kinds:
        rng = np.random.default_rng(args.seed)
        rows = []
        print(f"\nplay: {kind}; {len(deals)} deals (random_deals({args.deals}, {args.seed})), "
              f"N first, rules {rules.name}")
        print("  deal trump  mistakes   review s   32 solves s   32 solves+cards s")
        for i, deal in enumerate(deals):
            trump = i % 4
            line = play_line(deal, trump, 0, rules, rng, kind)
            r = time_deal(deal, trump, 0, rules, line)
            rows.append(r)
            print(f"  {i + 1:>4} {'SHDC'[trump]:>5}  {r['mistakes']:>8}  {r['review']:>9.3f}"
                  f"  {r['solves']:>12.3f}  {r['cards']:>18.3f}")
        med = {k: statistics.median(r[k] for r in rows) for k in ("review", "solves", "cards")}
        print(f"  median          {med['review']:>11.3f}  {med['solves']:>12.3f}  "
              f"{med['cards']:>18.3f}")
        print(f"  time of 32 independent solves / review: {med['solves'] / med['review']:.2f}; "
              f"of 32 independent solves with every card / review: "
              f"{med['cards'] / med['review']:.2f}  (> 1: the review is faster)")


if __name__ == "__main__":
    main()
