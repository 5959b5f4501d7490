"""The player's-view benchmarks of ``kraken-bench --hint MODE`` (:data:`HINT_MODES`).

Each mode times one kind of hint over the deals of a suite: a sampled hint at the first lead,
an exact hint late in the play (positions reached by seeded random legal cards,
:func:`random_play`), or a whole player's-view review.  :func:`run_hint_suite` reports the
median and p95 milliseconds, the layouts solved, peak memory and a checksum of the estimates,
as the solver benchmark does (:mod:`kraken_solver.bench.solves`).
"""

from __future__ import annotations

import json
import os
import resource
import time

import numpy as np

from ..errors import KrakenError
from ..game.cards import is_int
from ..game.deal import Deal
from ..game.position import Position
from ..game.roem import hand_roem_masks
from ..game.rules import Rules
from .machine import machine_info, machine_lines
from .suites import checksum, deals_checksum, suite_deals, suite_name

# ----------------------------------------------------------------------------- hints
#: the hint benchmarks (``kraken-bench --hint MODE``) and what each times
HINT_MODES = {
    "lead": "a hint at the first lead (the first player N, trump S H D C in turn by deal, the "
            "other hands hidden), SAMPLES layouts drawn",
    "exact3": "an exact hint with 3 cards a hand (each deal played by seeded random legal "
              "cards to 3 cards a hand, plus 0 to 3 cards of the next trick)",
    "review": "a player's-view review of a whole deal (played by seeded random legal cards), "
              "SAMPLES layouts a decision (kraken-analyse --view player)",
}


def random_play(deal: Deal, trump: int, first: int, rules: Rules, n: int, seed: int) -> list:
    """``n`` cards of ``deal`` played from the first lead by random legal cards, drawn from
    ``default_rng(seed)``: card indices in play order."""
    rng = np.random.default_rng(seed)
    pos = Position(deal, trump, first, rules)
    for _ in range(n):
        legal = pos.legal()
        pos.play(legal[int(rng.integers(len(legal)))])
    return list(pos.played)


def read_positions(path: str, limit: int | None = None) -> list[dict]:
    """The positions of a JSON Lines file (the fields of tests/data's files: ``deal``,
    ``trump``, ``first``, ``rules``, ``played``), or its first ``limit``.  Raises KrakenError
    for a file that cannot be read or a line without those fields."""
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for no, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    p = json.loads(line)
                    p["deal"], p["trump"], p["first"], p.setdefault("played", [])
                except (ValueError, KeyError, TypeError):
                    raise KrakenError("expected a JSON object with deal, trump, first (and "
                                      "played, rules)", source=path, line=no) from None
                out.append(p)
                if limit is not None and len(out) == limit:
                    break
    except OSError as e:
        raise KrakenError(f"cannot read the positions: {e.strerror or e}", source=path) from None
    if not out:
        raise KrakenError("no position in this file", source=path)
    return out


def run_hint_suite(name: str, mode: str, rules: Rules, *, samples: int = 200,
                   workers: int | None = None, limit: int | None = None,
                   progress=None) -> dict:
    """Time ``mode`` of :data:`HINT_MODES` on each deal of a suite (or, for ``exact3``, on
    each position of a JSON Lines file ``*.jsonl``, e.g. tests/data/single_dummy_3.jsonl);
    the report as a dict.

    Every item runs as the tools run it: :func:`kraken_solver.playerview.hint.hint` (or
    :func:`kraken_solver.playerview.review.review_player_view`) with its own pool of ``workers``,
    so a time includes starting the pool and choosing the layouts; the kernels are loaded
    (or compiled) once before, timed apart.  Reported: median, p95 and max ms an item, mean
    and median nodes, the layouts solved, and the peak memory of this process and of the
    largest worker (``peak_worker_mb`` None when every hint was small enough to be solved in
    this process, so that no worker ran).  Raises KrakenError for an unknown mode or a bad
    count."""
    from ..notation.partial import PartialDeal
    from ..playerview.hint import SMALL_JOB, hint
    from ..playerview.review import review_player_view
    from ..workers.task import warm_kernels

    if mode not in HINT_MODES:
        raise KrakenError("the hint benchmark is one of " + ", ".join(HINT_MODES), token=mode)
    if not is_int(samples) or not 1 <= samples <= 100_000:
        raise KrakenError("samples must be a whole number from 1 to 100,000",
                          token=repr(samples))
    positions = None
    if name.endswith(".jsonl"):
        if mode != "exact3":
            raise KrakenError("a file of positions (.jsonl) is timed by --hint exact3",
                              token=name)
        positions = read_positions(name, limit)
        deals = [Deal.from_pbn(p["deal"]) for p in positions]
    else:
        deals = suite_deals(name, limit)
    t0 = time.perf_counter()
    warm_kernels()
    compile_s = time.perf_counter() - t0
    ms, nodes, layouts, exact, checks = [], [], [], [], []
    pooled = False              # whether a hint ran on the worker pool
    for i, deal in enumerate(deals):
        trump, first = i % 4, 0
        t = time.perf_counter()
        if positions is not None:
            p = positions[i]
            h = hint(p["deal"], p["trump"], p["first"], rules=p.get("rules"),
                     played=p["played"], workers=workers)
            n, lay, ex = h.nodes, h.layouts, h.exact
            lay_max = lay
            checks += [e.sum for e in h.cards.values()]
        elif mode == "lead":
            hr = hand_roem_masks(deal.hands, trump, first, rules)
            h = hint(PartialDeal((deal.hands[0], None, None, None), 8), trump, first,
                     rules=rules, samples=samples, seed=i, declared=hr, workers=workers)
            n, lay, ex = h.nodes, h.layouts, h.exact
            lay_max = lay
            checks += [e.sum for e in h.cards.values()]
        elif mode == "exact3":
            played = random_play(deal, trump, first, rules, 20 + i % 4, i)
            h = hint(deal, trump, first, rules=rules, played=played, workers=workers)
            n, lay, ex = h.nodes, h.layouts, h.exact
            lay_max = lay
            checks += [e.sum for e in h.cards.values()]
        else:
            played = random_play(deal, trump, first, rules, 32, i)
            rv = review_player_view(deal, trump, first, rules=rules, played=played,
                                    samples=samples, seed=i, workers=workers)
            n = sum(r.nodes for r in rv)
            lay = sum(r.layouts for r in rv)
            ex = all(r.exact for r in rv)
            checks += [round(r.cost * 1000) for r in rv]
            lay_max = max((r.layouts for r in rv), default=0)
        ms.append((time.perf_counter() - t) * 1000.0)
        # the hint solves a small job in this process, a larger one on the pool
        pooled = pooled or (workers != 1 and lay_max > SMALL_JOB)
        nodes.append(n)
        layouts.append(lay)
        exact.append(ex)
        if progress:
            progress(i + 1, len(deals))
    ms_a, nodes_a = np.array(ms), np.array(nodes)
    return {
        "suite": suite_name(name), "deals": len(deals), "deals_checksum": deals_checksum(deals),
        "rules_note": "each position's own" if positions is not None else None,
        "hint": mode,
        "what": HINT_MODES[mode] if positions is None else
        "an exact hint of each position of the file",
        "positions": name if positions else None, "rules": rules.name, "samples": samples,
        "workers": workers, "median_ms": float(np.median(ms_a)),
        "p95_ms": float(np.percentile(ms_a, 95)), "max_ms": float(ms_a.max()),
        "mean_ms": float(ms_a.mean()), "mean_nodes": float(nodes_a.mean()),
        "median_nodes": float(np.median(nodes_a)), "max_nodes": int(nodes_a.max()),
        "mean_layouts": float(np.mean(layouts)), "exact": int(sum(exact)),
        "compile_or_load_s": compile_s,
        "peak_memory_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "peak_worker_mb": (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
                           if pooled else None),
        "checksum": checksum(checks), "ms": ms, "nodes": nodes,
        **machine_info(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def format_hint_report(r: dict) -> str:
    """The text of a :func:`run_hint_suite` report."""
    return "\n".join([
        f"hint benchmark {r['hint']} on {r['suite']}: {r['deals']} items, rules "
        f"{r.get('rules_note') or r['rules']}, "
        + (f"samples {r['samples']}, " if r["hint"] != "exact3" else "exact, ")
        + f"workers {r['workers'] or 'one per core'}",
        f"  ({r['what']})",
        f"  ms an item: median {r['median_ms']:.0f}  p95 {r['p95_ms']:.0f}  "
        f"max {r['max_ms']:.0f}  mean {r['mean_ms']:.0f}",
        f"  nodes: mean {r['mean_nodes']:.0f}  median {r['median_nodes']:.0f}  "
        f"max {r['max_nodes']};  layouts solved: mean {r['mean_layouts']:.0f}; exact "
        f"{r['exact']} of {r['deals']}",
        f"  Numba load/compile (apart): {r['compile_or_load_s']:.2f} s;  peak memory "
        f"{r['peak_memory_mb']:.0f} MB (this process), "
        + (f"{r['peak_worker_mb']:.0f} MB (largest worker)" if r["peak_worker_mb"] else
           "no worker ran (every hint small enough for this process)"),
        "  load average at the end: " + (", ".join(f"{x:.2f}" for x in r["load_average"])
                                           if r.get("load_average") else "unknown"),
        f"  values checksum {r['checksum']}",
    ] + machine_lines(r))
