"""``kraken-bench``: time the exact solver on a fixed, seeded suite of deals.

Results on stdout, progress on stderr; ``--json`` keeps the report (with every value) for
tracking, ``--check`` fails when any value differs from a stored report.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys

import click

from kraken_solver import __version__
from kraken_solver.bench.solves import check_against, format_report, load_report, run_suite
from kraken_solver.bench.suites import is_deal_file_suite
from kraken_solver.cli import (RULES_HELP, first_run_notice, guard_output, interrupt_heard,
                              rules_option)
from kraken_solver.cli.params import AsciiChoice, AsciiInt
from kraken_solver.engine.solver import DEFAULT_TT_BITS
from kraken_solver.errors import KrakenError
from kraken_solver.notation.outputs import check_outputs, write_text
from kraken_solver.notation.numbers import tidy_measures
from kraken_solver.notation.text import count

#: --check lists this many differences, then says how many more there are
MISMATCHES_LISTED = 20


@click.command(name="kraken-bench", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--suite", default="random-100-seed1", show_default=True,
              help="random-N-seedS (N seeded full deals), or a deal file NAME.txt or "
                   "NAME.pbn such as "
                   "benchmarks/suites/hard-25.txt.")
@click.option("--rules", "rules_name", default="kraken", show_default=True, metavar="RULES",
              help=RULES_HELP)
@click.option("--no-roem", is_flag=True, help="Turn trick roem and hand roem off.")
@click.option("--objective", type=AsciiChoice(["score", "points"]), default="score",
              show_default=True)
@click.option("--limit", type=AsciiInt(1), default=None, help="Only the first N deals.")
@click.option("--tt-bits", type=AsciiInt(8, 26), default=None,
              help=f"Transposition table of 2**BITS entries (default {DEFAULT_TT_BITS}).")
@click.option("--repeat", type=AsciiInt(1, 100), default=1, show_default=True,
              help="Solve each (deal, trump) N times in a row, each from an empty table, and "
                   "time its fastest run (the slower runs are the machine's other work); the "
                   "report adds how much slower the slowest runs were.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None,
              help="Write the report (with every value) as JSON here.")
@click.option("--check", "check_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="A stored JSON report: exit 1 if any value differs.")
@click.option("--quiet", is_flag=True,
              help="No progress on stderr (it is shown only when stderr is a terminal).")
@click.option("--hint", "hint_mode", type=click.Choice(["lead", "exact3", "review"]),
              default=None,
              help="Time player's-view hints instead, one a deal: lead (the first lead, "
                   "--samples layouts), exact3 (exact, 3 cards a hand) or review (a whole "
                   "deal reviewed as each player saw it, --samples layouts a decision).")
@click.option("--samples", type=AsciiInt(1, 100_000), default=None,
              help="With --hint: layouts drawn (lead: 200, review: 100 by default).")
@click.option("--workers", type=AsciiInt(), default=None,
              help="With --hint: worker processes (default: one per core; at most 4 per core).")
@click.version_option(__version__, prog_name="kraken-bench")
@guard_output("kraken-bench")
def main(suite, rules_name, no_roem, objective, limit, tt_bits, repeat, json_path, check_path,
         quiet, hint_mode, samples, workers):
    """Time the exact solver on a fixed suite of deals, all four trumps each (or, with --hint,
    the player's-view hints)."""
    ctx = click.get_current_context()
    typed = [name for name in ("samples", "workers", "tt_bits", "objective")
             if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT]

    def options(names):
        return " and ".join("--" + n.replace("_", "-") for n in typed if n in names)
    hint_only = options(("samples", "workers"))
    if hint_mode is None and hint_only:
        verb = "apply" if " and " in hint_only else "applies"
        raise click.UsageError(f"{hint_only} {verb} only with --hint lead, exact3 or review")
    not_with_hint = options(("tt_bits", "objective"))
    if hint_mode is not None and not_with_hint:
        verb = "do" if " and " in not_with_hint else "does"
        raise click.UsageError(f"{not_with_hint} {verb} not apply with --hint (the hints time "
                               "the score with the solver's own table)")
    if hint_mode is not None:
        _hint_bench(suite, rules_name, no_roem, limit, hint_mode, samples, workers, json_path,
                    quiet or not sys.stderr.isatty(), check_path, repeat)
        return
    # progress only on a terminal: a log or a pipe gets the report alone
    quiet = quiet or not sys.stderr.isatty()

    def progress(i, n):
        if not quiet:
            click.echo(f"\r{i}/{count(n, 'deal')}" if n else f"\r{count(i, 'deal')}", nl=False,
                       err=True)
    expected = None
    # the files this run reads: a --json report never replaces one of them
    inputs = [p for p in (check_path, suite if is_deal_file_suite(suite) else None) if p]
    try:
        if check_path:
            # read the stored report first: a bad one fails before the solves, and --json
            # never replaces the report it is checked against
            if json_path and os.path.realpath(json_path) == os.path.realpath(check_path):
                raise KrakenError("--json and --check name the same file: the report would "
                                  "replace the values it is checked against", token=json_path)
            expected = load_report(check_path)
        check_outputs({"--json": json_path}, inputs=inputs)
        rules = rules_option(rules_name)
        if no_roem:
            rules = dataclasses.replace(rules, trick_roem=False, hand_roem=False)
        with first_run_notice("kraken-bench"):
            report = run_suite(suite, rules, objective, limit=limit, tt_bits=tt_bits,
                               repeat=repeat, progress=progress)
    except KrakenError as e:
        click.echo(f"kraken-bench: error: {e}", err=True)
        sys.exit(1)
    if not quiet:
        click.echo("", err=True)
    click.echo(format_report(report))
    try:
        if json_path:
            write_text(json_path, json.dumps(tidy_measures(report), indent=1), what="--json",
                       inputs=inputs)
        problems = check_against(report, expected) if check_path else []
    except KrakenError as e:
        click.echo(f"kraken-bench: error: {e}", err=True)
        sys.exit(1)
    if check_path:
        if problems:
            for p in problems[:MISMATCHES_LISTED]:
                click.echo(f"kraken-bench: MISMATCH {p}", err=True)
            if len(problems) > MISMATCHES_LISTED:
                more = len(problems) - MISMATCHES_LISTED
                click.echo(f"kraken-bench: ... and "
                           f"{count(more, 'more mismatch', 'more mismatches')} not listed "
                           f"({len(problems):,} in all; --json FILE writes the run's values "
                           "to compare)", err=True)
            sys.exit(1)
        ran, stored = len(report["values"]), len(expected["values"])
        if ran == stored:
            click.echo(f"  values equal to {check_path}")
        else:
            # a random-N suite against a stored random-M report of the same seed: the deals
            # both hold are compared
            click.echo(f"  values equal to {check_path} in the {count(min(ran, stored), 'solve')} "
                       f"both hold ({ran:,} run, {stored:,} stored)")


def _hint_bench(suite, rules_name, no_roem, limit, mode, samples, workers, json_path, quiet,
                check_path, repeat):
    from kraken_solver.bench.hints import format_hint_report, run_hint_suite
    from kraken_solver.notation.outputs import check_output, write_text

    def progress(i, n):
        if not quiet:
            click.echo(f"\r{i}/{n} items", nl=False, err=True)
    try:
        if check_path or repeat != 1:
            raise KrakenError("--check and --repeat time the solver's suites; not with --hint")
        from kraken_solver.workers.pool import check_workers
        check_workers(workers)
        inputs = [suite] if is_deal_file_suite(suite) or suite.endswith(".jsonl") else []
        if json_path:
            check_output(json_path, what="the report", inputs=inputs)
        rules = rules_option(rules_name)
        if no_roem:
            rules = dataclasses.replace(rules, trick_roem=False, hand_roem=False)
        if samples is None:
            samples = 100 if mode == "review" else 200
        report = run_hint_suite(suite, mode, rules, samples=samples, workers=workers,
                                limit=limit, progress=progress)
        if not quiet:
            click.echo("", err=True)
        click.echo(format_hint_report(report))
        if json_path:
            write_text(json_path, json.dumps(tidy_measures(report), indent=1), what="the report",
                       inputs=inputs)
    except KrakenError as e:
        click.echo(f"kraken-bench: error: {e}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        interrupt_heard()
        click.echo("\nkraken-bench: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
