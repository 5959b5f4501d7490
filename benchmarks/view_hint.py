"""How long does kraken-view's player's-view toggle take (``/api/hint``, as the page asks)?

The hints are asked through the Flask application of ``kraken-view`` (its test client: the
same :class:`~kraken_solver.view.session.BoardSolver`, hint thread and worker processes as the
server, without the network), each answer checked against nothing but its own status; the
cache of answers is cleared before every request, so each one is worked out.  The kernels are
loaded before any timing (``BoardSolver.warm``, as ``kraken-view`` does at its start).

- ``lead``: the first lead of ``datasets/full_deal.txt`` (hearts, S first), the default
  sample of 200 layouts, objective ``score`` and ``points`` (``points`` also finds the score
  values, for P(made): about twice the searches); ``--repeat`` times each.  The first request
  also starts the worker processes (``first`` row); the others reuse them, as the page does.
- ``exact``: the deals of ``datasets/many_deals.txt``, each played at random (seeded) to 3
  cards a hand (20 cards), objective ``score``: exact hints (every consistent layout).

It prints per kind: requests, median, p95 and max ms, layouts solved (median), and the load
average of the machine before and after (the machine may be shared; a busy one gives longer
times for the same work: the nodes are printed to compare runs)::

    python benchmarks/view_hint.py                 # 3 repeats of the lead, 12 exact positions
    python benchmarks/view_hint.py --repeat 5 --seed 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

from kraken_solver import Position, card_str
from kraken_solver.notation.reader import parse_deal_file
from kraken_solver.view.app import create_app
from kraken_solver.view.query import Query, query_params
from kraken_solver.view.session import BoardSolver

ROOT = Path(__file__).resolve().parent.parent


def ask(client, solver, words: dict) -> tuple[dict, float]:
    solver.cache.clear()
    t0 = time.perf_counter()
    r = client.get("/api/hint", query_string=words)
    ms = (time.perf_counter() - t0) * 1000.0
    body = r.get_json()
    if r.status_code != 200:
        raise SystemExit(f"/api/hint answered {r.status_code}: {body}")
    return body, ms


def summary(name: str, rows: list) -> str:
    ms = sorted(r[0] for r in rows)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    layouts = statistics.median(r[1] for r in rows)
    nodes = statistics.median(r[2] for r in rows)
    return (f"{name:<14} {len(rows):>3} requests  median {statistics.median(ms):8.0f} ms  "
            f"p95 {p95:8.0f} ms  max {ms[-1]:8.0f} ms  layouts {layouts:6.0f}  "
            f"nodes {nodes:12,.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="requests of each lead hint")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random plays")
    args = ap.parse_args()
    load0 = os.getloadavg()
    solver = BoardSolver()
    t0 = time.perf_counter()
    solver.warm()
    print(f"kernels loaded in {time.perf_counter() - t0:.1f} s; {os.cpu_count()} cores; "
          f"load average {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    client = create_app([], solver=solver).test_client()
    lead = parse_deal_file(ROOT / "datasets" / "full_deal.txt")[0]
    words = query_params(Query(lead.deal, 1, lead.first, lead.rules))
    try:
        for objective in ("score", "points"):
            rows = []
            for i in range(args.repeat):
                body, ms = ask(client, solver, dict(words, objective=objective))
                rows.append((ms, body["layouts"], body["nodes"]))
                if i == 0 and objective == "score":
                    print(summary("lead first", rows) + "  (worker processes started)")
            print(summary(f"lead {objective}", rows[1:] if objective == "score" and
                          len(rows) > 1 else rows))
        rng = np.random.default_rng(args.seed)
        rows = []
        for spec in parse_deal_file(ROOT / "datasets" / "many_deals.txt"):
            pos = Position(spec.deal, spec.trump, spec.first, spec.rules)
            for _ in range(20):
                pos.play(pos.legal()[int(rng.integers(len(pos.legal())))])
            q = Query(spec.deal, spec.trump, spec.first, spec.rules, tuple(pos.played))
            body, ms = ask(client, solver, query_params(q))
            if not body["exact"]:
                raise SystemExit(f"not exact: {card_str(pos.played[-1])} {body['layouts']}")
            rows.append((ms, body["layouts"], body["nodes"]))
        print(summary("exact 3 a hand", rows))
    finally:
        solver.close()
    load1 = os.getloadavg()
    print(f"load average after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")


if __name__ == "__main__":
    main()
