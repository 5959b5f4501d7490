"""``kraken-advise "S.H.D.C"``: which trump to choose with one known hand, and whether to
double, by solving random layouts of the unseen cards double dummy.

Results go to stdout (``--json``: one JSON document), progress to stderr when it is a terminal.
Errors: one line ``kraken-advise: error: ...`` and exit status 1.
"""

from __future__ import annotations

import json
import sys

import click

from kraken_solver import __version__
from kraken_solver.cli import (RULES_HELP, first_run_notice, guard_output, interrupt_heard,
                              rules_option)
from kraken_solver.cli import symbols_ok as _symbols_ok
from kraken_solver.cli.params import AsciiChoice, AsciiInt, condition_options
from kraken_solver.errors import KrakenError
from kraken_solver.game.cards import SEATS
from kraken_solver.limits import MAX_ADVISE_SAMPLES, MAX_SEED

PROG = "kraken-advise"


@click.command(name=PROG, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("hand")
@click.option("--seat", type=AsciiChoice(list(SEATS)), default="N",
              show_default=True, help="The seat whose hand is known.")
@click.option("--trump", type=AsciiChoice(list("SHDC")), default=None,
              help="Solve this trump only and advise on doubling.")
@click.option("--first", type=AsciiChoice(list(SEATS)), default=None,
              help="First player, who chose trump (default: --seat, with or without --trump; "
                   "give the seat that chose trump to advise --seat as a defender).")
@click.option("--samples", type=AsciiInt(1, MAX_ADVISE_SAMPLES), default=1000, show_default=True,
              help="Random layouts of the unseen cards to solve.")
@click.option("--seed", type=AsciiInt(0, MAX_SEED), default=0, show_default=True,
              help="SeedSequence seed of the samples.")
@click.option("--rules", "rules_name", default="kraken", show_default=True, metavar="RULES",
              help=RULES_HELP)
@click.option("--known", multiple=True, metavar="SEAT:CARDS",
              help="Cards known to be in a seat's hand, e.g. E:HA,HK (repeatable).")
@condition_options
@click.option("--workers", type=AsciiInt(), default=None,
              help="Worker processes (default: one per core; at most 4 per core).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT|local:N",
              help="Solve on a Dask cluster, as kraken-batch --scheduler.")
@click.option("--json", "as_json", is_flag=True, help="One JSON document on stdout.")
@click.option("--ascii", "ascii_", is_flag=True, help="Suit letters instead of symbols.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.version_option(__version__, prog_name=PROG)
@click.pass_context
@guard_output(PROG)
def main(ctx, hand, seat, trump, first, samples, seed, rules_name, known, where, predeal,
         max_tries, workers, scheduler, as_json, ascii_, quiet):
    """Advise on trump (and doubling) for the known HAND ("S.H.D.C", e.g. AJ9.K7.T8.A).

    The other 24 cards are dealt at random to the other three seats (respecting --known),
    SAMPLES times, and every layout is solved double dummy.  Per trump: mean score with its
    standard error, P(made), mean points, P(pit); the recommended trump has the highest mean
    score.  With --trump: P(made), mean score, and whether a double (x2), a redouble in reply
    (x4) and a superdouble (x8) pay in expectation (the score scales with the multiplier, so
    a double pays the defenders when the playing team's expected score is negative).  The
    first player is --seat unless --first says otherwise (with --trump too); the output says
    whose side the advice is for, and when it is within noise or needs more samples.
    --where conditions the layouts (e.g. 'has(N, HA)': only layouts where N holds the ace
    of hearts, uniformly among them); --predeal adds known cards as --known does.
    Values are in points, from the playing team's side (the first player's team).
    """
    from kraken_solver.playerview.advise import advise, format_advice
    if scheduler is not None and workers is not None:
        raise click.UsageError("--workers and --scheduler cannot be used together (local:N "
                               "sets the number of local Dask workers)")
    from kraken_solver.errors import PredealError, PredicateError
    from kraken_solver.errors import ImpossibleConditionError as Impossible
    bar = None
    try:
        if not quiet and sys.stderr.isatty():
            from tqdm import tqdm
            bar = tqdm(total=samples, unit="sample", file=sys.stderr, dynamic_ncols=True)
        with first_run_notice(PROG):    # the local pool loads the kernels in this process
            a = advise(hand, seat=seat, first=first, trump=trump, samples=samples, seed=seed,
                       rules=rules_option(rules_name), known=known, workers=workers,
                       scheduler=scheduler, progress=bar, where=where,
                       predeal=list(predeal) or None, max_tries=max_tries,
                       log=None if quiet else lambda line: click.echo(f"{PROG}: {line}",
                                                                      err=True))
    except KrakenError as err:
        if bar is not None:
            bar.close()
        if isinstance(err, (PredicateError, PredealError)) and err.source is None:
            err = err.located(source="--predeal" if isinstance(err, PredealError)
                              else "--where")
        click.echo(f"{PROG}: error: {err}", err=True)
        # a condition that cannot be read or met: status 2, as a bad option
        ctx.exit(2 if isinstance(err, (PredicateError, PredealError, Impossible)) else 1)
    except KeyboardInterrupt:
        interrupt_heard()
        if bar is not None:
            bar.close()
        raise
    if bar is not None:
        bar.close()
    if as_json:
        click.echo(json.dumps(a.to_dict()))
    else:
        click.echo(format_advice(a, ascii=ascii_ or not _symbols_ok(sys.stdout)))
    if not quiet:
        click.echo(f"{PROG}: {a.samples} sample{'s' if a.samples != 1 else ''} x "
                   f"{len(a.rows)} trump"
                   f"{'s' if len(a.rows) != 1 else ''} in {a.seconds:.1f} s "
                   f"({a.samples / a.seconds:.2f} samples/s, {a.nodes:,} nodes) with "
                   f"{a.workers} worker{'s' if a.workers != 1 else ''}"
                   f"{' (Dask)' if scheduler else ''}", err=True)


if __name__ == "__main__":  # pragma: no cover
    main()
