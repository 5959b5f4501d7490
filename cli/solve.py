"""``kraken-solve FILE [FILE...]``: solve the deals of deal files double dummy.

For each deal it prints the hands, the rules, the value (``score``, made or nat, and
``points``; RULES.md §8), the value of every legal card of the player to move with the best
ones marked, and the principal variation trick by trick.  Without a trump it first shows the
first player's trump table and then analyses the best trump.  ``--json`` writes one JSON
document a deal (JSON Lines), ``--csv`` one row a deal.  Results go to stdout; timings to
stderr.  Bad input gives one line ``kraken-solve: error: FILE, line L, column C: ...`` and
exit status 1; Ctrl-C ends it with ``kraken-solve: interrupted`` and exit status 130 (as
the other tools), the deals solved before kept on stdout.

The deal file format is described in :mod:`kraken_solver.dealfile`.
"""

from __future__ import annotations

import csv
import json
import sys
import time

import click

from kraken_solver import __version__
from kraken_solver.cli import guard_output, symbols_ok as _symbols_ok
from kraken_solver.cards import SEATS, parse_card
from kraken_solver.cli.params import AsciiChoice
from kraken_solver.dealfile import DealReader, DealSpec
from kraken_solver.errors import KrakenError
from kraken_solver.formatting import (CSV_FIELDS, Analysis, analysis_csv_row, analysis_dict,
                                      format_analysis)
from kraken_solver.rules import PRESETS

PROG = "kraken-solve"


def choose_trump(table, objective: str = "score"):
    """The row of a trump table to analyse: the highest value under ``objective`` (points),
    ties broken by the other value, then by suit order S H D C.  Sets ``best`` on every row
    whose ``objective`` value is the highest and returns the chosen row."""
    def key(r):
        return (r.score, r.points) if objective == "score" else (r.points, r.score)
    top = max(key(r)[0] for r in table)
    for r in table:
        r.best = key(r)[0] == top
    return max(table, key=lambda r: (key(r), -r.trump))


def analyse(spec: DealSpec, *, objective: str = "score", searcher=None) -> Analysis:
    """Solve one deal of a deal file: trump table (when ``spec.trump`` is None), score and
    points, the value of every legal card (``objective``) and a principal variation with its
    tricks.  Values are in points, from the playing team's side.  Raises KrakenError for bad
    input (the parser has normally caught it already)."""
    from kraken_solver.solver import Position, Searcher, hand_roem, solve, trump_table

    searcher = searcher or Searcher()
    t0 = time.perf_counter()
    n0 = searcher.nodes
    table = None
    trump = spec.trump
    other = "points" if objective == "score" else "score"
    values = {}
    if trump is None:
        table = trump_table(spec.deal, spec.first, rules=spec.rules, searcher=searcher)
        row = choose_trump(table, objective)
        trump = row.trump
        if not spec.played:
            values = {"score": row.score, "points": row.points}
    main = solve(spec.deal, trump, spec.first, rules=spec.rules, objective=objective,
                 played=spec.played, all_cards=True, pv=True, searcher=searcher)
    values[objective] = main.value
    if other not in values:
        values[other] = solve(spec.deal, trump, spec.first, rules=spec.rules, objective=other,
                              played=spec.played, pv=False, searcher=searcher).value

    pos = Position(spec.deal, trump, spec.first, spec.rules, spec.played)
    played_tricks = list(pos.tricks)
    current = [int(c) for c in pos.trick[:pos.tlen]]
    leader = pos.leader
    line = pos.copy()
    for c in main.pv:
        line.play(parse_card(c))
    return Analysis(
        spec=spec, trump=trump, objective=objective, score=values["score"],
        points=values["points"], card_values=dict(main.card_values),
        best_cards=list(main.best_cards), pv=list(main.pv), to_move=main.to_move,
        played_tricks=played_tricks, current_trick=current, current_leader=leader,
        pv_tricks=line.tricks[len(played_tricks):], pv_score=line.final_value("score"),
        pv_points=line.final_value("points"),
        hand_roem=tuple(hand_roem(spec.deal, trump, spec.first, rules=spec.rules)),
        trump_table=table, nodes=searcher.nodes - n0, seconds=time.perf_counter() - t0)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True, metavar="FILE...",
                type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--trump", type=AsciiChoice(list("SHDC")),
              help="Trump suit for every deal (overrides the file).")
@click.option("--first", type=AsciiChoice(list(SEATS)),
              help="First player for every deal (overrides the file).")
@click.option("--rules", "rules_name", type=AsciiChoice(list(PRESETS)),
              help="Rules preset for every deal (overrides [Rules]; [Double] still applies).")
@click.option("--objective", type=AsciiChoice(["score", "points"]), default="score",
              show_default=True,
              help="The value behind the card values and the principal variation "
                   "(score and points are always shown).")
@click.option("--json", "as_json", is_flag=True, help="One JSON document per deal (JSON Lines).")
@click.option("--csv", "as_csv", is_flag=True, help="One CSV row per deal, with a header.")
@click.option("--ascii", "ascii_", is_flag=True,
              help="Suit letters S H D C instead of the symbols.")
@click.version_option(__version__, prog_name=PROG)
@click.pass_context
@guard_output(PROG)
def main(ctx, files, trump, first, rules_name, objective, as_json, as_csv, ascii_):
    """Solve the deals of FILE (deal files; '-' reads standard input) double dummy.

    A deal file holds PBN-style tag pairs ([Deal "N:..."], [Trump "H"], [First "N"],
    [Rules "kraken"], [Double "2"], [Play "N"] followed by the cards played) or one-line deals
    ('N:AKQ.J9.T8.7 ... trump=H first=N rules=kraken double=2'). Values are in points, from the
    playing team's side: score (rule 23; made or nat) and points (rule 24).
    """
    if as_json and as_csv:
        raise click.UsageError("--json and --csv cannot be used together")
    ascii_ = ascii_ or not _symbols_ok(sys.stdout)
    try:
        # the files are read as streams (one deal in memory at a time); the start of each
        # (its first MiB: all of a usual file) is checked before any work, so a mistake there
        # is reported at once
        readers = [DealReader(f, trump=trump, first=first, rules=rules_name) for f in files]
        for reader in readers:
            reader.check_ahead()
        specs = (spec for reader in readers for spec in reader)
        # load the compiled kernels (from Numba's cache; compiled on the very first run) apart
        # from the deals' timings
        t_load = time.perf_counter()
        from kraken_solver.solver import Position, Searcher
        Searcher(tt_bits=8).value(Position("N:A... K... Q... J...", 0, 0), "score")
        load_s = time.perf_counter() - t_load
        searcher = Searcher()
        writer = None
        if as_csv:
            writer = csv.writer(sys.stdout, lineterminator="\n")
            writer.writerow(CSV_FIELDS)
        t0 = time.perf_counter()
        nodes = 0
        i = 0
        for i, spec in enumerate(specs, start=1):
            a = analyse(spec, objective=objective, searcher=searcher)
            nodes += a.nodes
            if as_json:
                click.echo(json.dumps(analysis_dict(a), ensure_ascii=False))
            elif as_csv:
                writer.writerow(analysis_csv_row(a))
                sys.stdout.flush()
            else:
                if i > 1:
                    click.echo("")
                click.echo(f"=== Deal {i}: {spec.where} ===")
                click.echo(format_analysis(a, ascii=ascii_))
            click.echo(f"{PROG}: deal {i} ({spec.where}): {a.seconds:.3f} s, "
                       f"{a.nodes:,} nodes", err=True)
        total = time.perf_counter() - t0
        click.echo(f"{PROG}: {i} deal{'s' if i != 1 else ''} in "
                   f"{total:.3f} s, {nodes:,} nodes (search kernels loaded in {load_s:.3f} s "
                   "before)", err=True)
    except KrakenError as err:
        # a mistake later in a large file stops the run there: the deals before it are printed
        click.echo(f"{PROG}: error: {err}", err=True)
        ctx.exit(1)


if __name__ == "__main__":  # pragma: no cover
    from kraken_solver.cli import kraken_solve
    kraken_solve()
