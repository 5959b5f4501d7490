"""``kraken-solve FILE [FILE...]``: solve the deals of deal files double dummy.

For each deal it prints the hands, the rules, the values (``score``, made, nat or pit, and
``points``, each saying what it is; RULES.md §8), the value of every legal card of the player
to move with the best ones marked, the principal variation trick by trick and the score sheet
of that line, which adds up to the score.  Without a trump it first shows the first player's
trump table and then analyses the best trump (by score, or ``--best-by points``).
``--table`` shows instead the full double-dummy table: every first player by every trump, each
first player's best trump marked by score (or ``--best-by points``; ``--objective`` does not
apply to it and is refused).
``--json`` writes one JSON document a deal (JSON Lines), ``--csv`` one row per (deal, trump).
Results go to stdout; timings to stderr, and on the first run a note that the kernels are being
compiled.  Bad input gives one line ``kraken-solve: error: FILE, line L, column C: ...`` and
exit status 1, before the kernels are loaded (or compiled) for a mistake in the first MiB of
a file (all of a usual one; the files are read as streams); Ctrl-C ends it with
``kraken-solve: interrupted`` and exit status 130 (as the other tools), the deals solved before
kept on stdout.

The deal file format is described in :mod:`kraken_solver.notation.dealfile`.
"""

from __future__ import annotations

import csv
import json
import sys
import time

import click

from kraken_solver import __version__
from kraken_solver.cli import RULES_HELP, first_run_notice, guard_output, rules_option
from kraken_solver.cli import symbols_ok as _symbols_ok
from kraken_solver.cli.params import AsciiChoice, one_standard_input
from kraken_solver.errors import KrakenError
from kraken_solver.game.cards import SEATS, parse_card
from kraken_solver.notation.dealfile import DealSpec
from kraken_solver.notation.reader import DealReader
from kraken_solver.notation.report import (CSV_FIELDS, TABLE_CSV_FIELDS, Analysis,
                                           analysis_csv_rows, analysis_dict, deal_heading,
                                           format_analysis, format_full_table, full_table_csv_rows,
                                           full_table_dict)
from kraken_solver.notation.text import count, hand_diagram

PROG = "kraken-solve"


def choose_trump(table, best_by: str = "score"):
    """The row of a trump table to analyse: the highest value under ``best_by`` (points),
    ties broken by the other value, then by suit order S H D C.  Sets ``best`` on every row
    whose ``best_by`` value is the highest and returns the chosen row."""
    def key(r):
        return (r.score, r.points) if best_by == "score" else (r.points, r.score)
    top = max(key(r)[0] for r in table)
    for r in table:
        r.best = key(r)[0] == top
    return max(table, key=lambda r: (key(r), -r.trump))


def analyse(spec: DealSpec, *, objective: str = "score", best_by: str = "score",
            searcher=None, trump: int | None = None, table=None) -> Analysis:
    """Solve one deal of a deal file: the trump table (when neither ``trump`` nor
    ``spec.trump`` is given; ``table`` passes one computed before), score and points, the
    value of every legal card (``objective``), a principal variation with its tricks and the
    score sheet of the line (the played cards and the principal variation).  The trump
    analysed is ``trump``, else the file's, else the best of the table by ``best_by``.
    Values are in points, from the playing team's side.  Raises KrakenError for bad input
    (the parser has normally caught it already)."""
    from kraken_solver.engine.solver import Searcher, solve
    from kraken_solver.engine.tables import line_is_pit, trump_cells
    from kraken_solver.game.position import Position
    from kraken_solver.game.roem import hand_roem
    from kraken_solver.game.sheet import sheet_of_position

    searcher = searcher or Searcher()
    t0 = time.perf_counter()
    n0 = searcher.nodes
    if trump is None:
        trump = spec.trump
    row = None
    if trump is None:
        if table is None:
            table = trump_cells(spec.deal, spec.first, rules=spec.rules, searcher=searcher)
        row = choose_trump(table, best_by)
        trump = row.trump
    elif table is not None:
        row = next(r for r in table if r.trump == trump)
    kw = dict(rules=spec.rules, played=spec.played, searcher=searcher)
    main = solve(spec.deal, trump, spec.first, objective=objective, all_cards=True, pv=True,
                 **kw)
    values = {objective: main.value}
    score_pv = main.pv if objective == "score" else None
    if row is not None and not spec.played:       # the table's row has both values
        values.setdefault("score", row.score)
        values.setdefault("points", row.points)
        score_pv = score_pv if score_pv is not None else row.pv
    for other in ("score", "points"):
        if other not in values or (other == "score" and score_pv is None):
            r = solve(spec.deal, trump, spec.first, objective=other, pv=other == "score", **kw)
            values[other] = r.value
            if other == "score":
                score_pv = r.pv
    played = [parse_card(c) for c in spec.played]
    pit = values["score"] > 0 and line_is_pit(spec.deal, trump, spec.first, spec.rules,
                                              played + [parse_card(c) for c in score_pv])

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
        pv_tricks=line.tricks[len(played_tricks):],
        sheet=sheet_of_position(line, played=len(spec.played)), pit=pit,
        hand_roem=tuple(hand_roem(spec.deal, trump, spec.first, rules=spec.rules)),
        trump_table=table, best_by=best_by, nodes=searcher.nodes - n0,
        seconds=time.perf_counter() - t0)


def analyse_every_trump(spec: DealSpec, *, objective: str = "score", best_by: str = "score",
                        searcher=None) -> list[Analysis]:
    """One :class:`Analysis` per trump of the first player's trump table (S H D C), each with
    its card values, principal variation and sheet; one for a deal whose trump is given."""
    from kraken_solver.engine.solver import Searcher
    from kraken_solver.engine.tables import trump_cells
    searcher = searcher or Searcher()
    if spec.trump is not None:
        return [analyse(spec, objective=objective, best_by=best_by, searcher=searcher)]
    table = trump_cells(spec.deal, spec.first, rules=spec.rules, searcher=searcher)
    choose_trump(table, best_by)
    return [analyse(spec, objective=objective, best_by=best_by, searcher=searcher, trump=t,
                    table=table) for t in range(4)]


def check_table_specs(specs) -> None:
    """``--table`` is for fresh deals: raise KrakenError, located at the deal, for one with
    played cards."""
    for spec in specs:
        if spec.played:
            raise KrakenError("--table shows the values of a fresh deal for every first "
                              "player and trump; this deal has played cards (leave out "
                              "--table to solve the position)", source=spec.source,
                              line=spec.line)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True, metavar="FILE...",
                type=click.Path(dir_okay=False, allow_dash=True),
                callback=one_standard_input)
@click.option("--trump", type=AsciiChoice(list("SHDC")),
              help="Trump suit for every deal (overrides the file).")
@click.option("--first", type=AsciiChoice(list(SEATS)),
              help="First player for every deal (overrides the file).")
@click.option("--rules", "rules_name", metavar="RULES",
              help=RULES_HELP + " For every deal: replaces [Rules]; a deal's [Double] still "
                   "sets its multiplier.")
@click.option("--objective", type=AsciiChoice(["score", "points"]), default="score",
              show_default=True,
              help="The value behind the card values, the principal variation and its score "
                   "sheet (score and points are always shown; the trump analysed stays the "
                   "best by --best-by). Not with --table, which shows neither.")
@click.option("--best-by", type=AsciiChoice(["score", "points"]), default="score",
              show_default=True,
              help="Without a trump: which value picks the best trump of the trump table, "
                   "the one analysed; with --table, the value that marks each first "
                   "player's best trump.")
@click.option("--table", "full", is_flag=True,
              help="The double-dummy table of each (fresh) deal instead: score, made/nat/pit "
                   "and points for every first player and every trump, best trump (by "
                   "--best-by) marked.")
@click.option("--json", "as_json", is_flag=True, help="One JSON document per deal (JSON Lines).")
@click.option("--csv", "as_csv", is_flag=True,
              help="CSV with a header: one row per (deal, trump) of the trump table (one for "
                   "a given trump); with --table one per (deal, first player, trump).")
@click.option("--ascii", "ascii_", is_flag=True,
              help="Suit letters S H D C instead of the symbols.")
@click.version_option(__version__, prog_name=PROG)
@click.pass_context
@guard_output(PROG)
def main(ctx, files, trump, first, rules_name, objective, best_by, full, as_json, as_csv,
         ascii_):
    """Solve the deals of FILE (deal files; '-' reads standard input) double dummy.

    A deal file holds PBN-style tag pairs ([Deal "N:..."], [Trump "H"], [First "N"],
    [Rules "kraken"], [Double "2"], [Play "N"] followed by the cards played; other PBN tags
    such as [Event] or [Board] are kept or skipped) or one-line deals
    ('N:AKQ.J9.T8.7 ... trump=H first=N rules=kraken double=2'). Values are in points, from
    the playing team's side: score (rule 23; made, nat or pit) and points (rule 24).
    """
    if as_json and as_csv:
        raise click.UsageError("--json and --csv cannot be used together")
    if full and (trump or first):
        raise click.UsageError("--table shows every first player and every trump: --trump "
                               "and --first do not apply")
    if full and ctx.get_parameter_source("objective") not in (
            None, click.core.ParameterSource.DEFAULT):
        raise click.UsageError("--table shows score and points of every cell and no card "
                               "values or principal variation: --objective does not apply "
                               "(--best-by points marks the best trumps by points)")
    ascii_ = ascii_ or not _symbols_ok(sys.stdout)
    try:
        with first_run_notice(PROG):
            solve_files(files, trump=trump, first=first, rules=rules_option(rules_name),
                        objective=objective, best_by=best_by, full=full, as_json=as_json,
                        as_csv=as_csv, ascii_=ascii_)
    except KrakenError as err:
        # a mistake later in a large file stops the run there: the deals before it are printed
        click.echo(f"{PROG}: error: {err}", err=True)
        ctx.exit(1)


def solve_files(files, *, trump, first, rules, objective, best_by, full, as_json, as_csv,
                ascii_):
    """The work of ``kraken-solve``: read and check every file, then load the kernels, then
    solve and print deal by deal."""
    from kraken_solver.engine.kernel_cache import load_kernels
    from kraken_solver.engine.solver import Searcher
    from kraken_solver.engine.tables import full_table
    from kraken_solver.notation.dealfile import SkippedTags
    skipped = SkippedTags()

    def check(spec):
        if full:
            check_table_specs([spec])
        skipped.add(spec)

    def warn(line):
        click.echo(f"{PROG}: warning: {line}", err=True)
    # the files are read as streams (one deal in memory at a time); the start of each (its
    # first MiB: all of a usual file) is checked before any work, so a typo is reported at
    # once, before the kernels are loaded (or compiled, on the first run)
    readers = [DealReader(f, trump=trump, first=first, rules=rules, check=check)
               for f in files]
    for reader in readers:
        reader.check_ahead()
    skipped.report(warn)
    specs = (spec for reader in readers for spec in reader)
    load = load_kernels()          # apart from the deals' timings
    searcher = Searcher()
    writer = None
    if as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(TABLE_CSV_FIELDS if full else CSV_FIELDS)
    t0 = time.perf_counter()
    nodes = 0
    i = 0
    for i, spec in enumerate(specs, start=1):
        t1, n1 = time.perf_counter(), searcher.nodes
        if full:
            table = full_table(spec.deal, rules=spec.rules, searcher=searcher,
                               best_by=best_by)
            if as_json:
                click.echo(json.dumps(full_table_dict(table, spec, i), ensure_ascii=False))
            elif as_csv:
                writer.writerows(full_table_csv_rows(table, spec, i))
                sys.stdout.flush()
            else:
                if i > 1:
                    click.echo("")
                click.echo(deal_heading(i, spec))
                click.echo(hand_diagram(spec.deal, ascii=ascii_))
                click.echo("")
                click.echo(f"Rules: {spec.rules.name}")
                click.echo(format_full_table(table, ascii=ascii_))
        elif as_csv:
            writer.writerows(analysis_csv_rows(analyse_every_trump(
                spec, objective=objective, best_by=best_by, searcher=searcher), i))
            sys.stdout.flush()
        else:
            a = analyse(spec, objective=objective, best_by=best_by, searcher=searcher)
            if as_json:
                click.echo(json.dumps(analysis_dict(a, i), ensure_ascii=False))
            else:
                if i > 1:
                    click.echo("")
                click.echo(deal_heading(i, spec))
                click.echo(format_analysis(a, ascii=ascii_))
        seconds, work = time.perf_counter() - t1, searcher.nodes - n1
        nodes += work
        click.echo(f"{PROG}: deal {i} ({spec.where}): {seconds:.3f} s, {work:,} nodes",
                   err=True)
    skipped.report(warn)            # tags first seen beyond the look-ahead, if any
    total = time.perf_counter() - t0
    click.echo(f"{PROG}: {load.describe()}, then solved {count(i, 'deal')} in "
               f"{total:.3f} s, {nodes:,} nodes", err=True)

if __name__ == "__main__":  # pragma: no cover
    from kraken_solver.cli import kraken_solve
    kraken_solve()
