"""``kraken-arena``: a duplicate match between two teams of bots.

``kraken-arena --deals N --seed S --ns pimc:20 --ew heuristic`` plays every deal twice, the
teams swapping N-S and E-W (same cards, chooser and first player), and prints the mean score
difference per deal with its standard error and 95% interval, made and pit rates, and the
double-dummy optimism (:mod:`kraken_solver.arena.stats`).  ``--out`` keeps one row a table
(CSV or Parquet, with its sidecar), ``--records`` every table as PBN with its play, ``--regret``
judges every decision.  Kill it at any moment; the same command with ``--resume`` finishes it.
Bad options: one line and exit status 2; a failing bot or file: one line and exit status 1.
"""

from __future__ import annotations

import sys

import click

from kraken_solver import __version__
from kraken_solver.cli import (RULES_HELP, command_fail, command_line, guard_output, rules_option,
                              run_keeping_parts, stderr_log)
from kraken_solver.cli.params import (AsciiChoice, AsciiInt, condition_file, condition_options,
                                      make_condition)
from kraken_solver.errors import BotSpecError, KrakenError
from kraken_solver.game.cards import SEATS, SUITS
from kraken_solver.limits import MAX_BATCH_DEALS, MAX_HINT_SAMPLES, MAX_SEED
from kraken_solver.notation.text import count

PROG = "kraken-arena"


def _bot(ctx, param, value):
    """A bot spec checked at once (an unknown name lists the bots; a range is named)."""
    if value is None:
        return None
    from kraken_solver.bots import make_bot
    try:
        make_bot(value)
    except BotSpecError as err:
        raise click.BadParameter(str(err), ctx=ctx, param=param) from None
    return value


@click.command(name=PROG, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--ns", default=None, metavar="BOT", callback=_bot,
              help="Team A's card-play bot (N-S at table 0): random, heuristic, pimc:N, dd.")
@click.option("--ew", default=None, metavar="BOT", callback=_bot,
              help="Team B's card-play bot (E-W at table 0).")
@click.option("--ns-trump", default=None, metavar="BOT", callback=_bot,
              help="Team A's trump bot: random, heuristic, advise:N, pimc:N, dd (default: "
                   "its card-play bot).")
@click.option("--ew-trump", default=None, metavar="BOT", callback=_bot,
              help="Team B's trump bot.")
@click.option("--trump", type=AsciiChoice(list(SUITS)), default=None,
              help="Fixed trump for every deal (else the chooser's team names it).")
@click.option("--deals", type=AsciiInt(1, MAX_BATCH_DEALS), default=None,
              help="Play this many seeded deals.")
@click.option("--input", "input_path", type=click.Path(dir_okay=False), default=None,
              help="Play the deals of this deal file instead.")
@click.option("--seed", type=AsciiInt(0, MAX_SEED), default=1, show_default=True,
              help="SeedSequence seed of the deals and of the bots.")
@click.option("--first", type=AsciiChoice(list(SEATS)), default=None,
              help="First player, who chooses trump (default N; with --input: the file's).")
@click.option("--rules", "rules_name", default=None, metavar="RULES",
              help=RULES_HELP + " Default kraken; with --input: each deal's own.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="One row a table (CSV, or Parquet for .parquet/.pq), and OUT.meta.json.")
@click.option("--records", type=click.Path(dir_okay=False), default=None,
              help="Every table as a PBN deal with its play (for kraken-analyse).")
@click.option("--regret", "judge", type=AsciiInt(1, MAX_HINT_SAMPLES), default=None,
              metavar="LAYOUTS",
              help="Judge every decision with this many layouts (exact when fewer): mean "
                   "regret per decision by trick.")
@click.option("--workers", type=AsciiInt(), default=None,
              help="Worker processes (default: one per core).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT|local:N",
              help="Play on a Dask cluster (as kraken-batch).")
@click.option("--chunk-size", type=AsciiInt(1, 100000), default=1, show_default=True,
              help="Deals per part file (the unit of work and of resuming).")
@condition_options
@click.option("--resume", is_flag=True,
              help="Finish an interrupted match with the same options (needs --out).")
@click.option("--quiet", is_flag=True, help="No progress bar and no closing line.")
@click.version_option(__version__, prog_name=PROG)
@click.pass_context
@guard_output(PROG)
def main(ctx, ns, ew, ns_trump, ew_trump, trump, deals, input_path, seed, first, rules_name,
         out, records, judge, workers, scheduler, chunk_size, where, predeal, max_tries,
         resume, quiet):
    """Play a duplicate match between two teams of bots.

    Every deal is played at two tables, the teams swapping N-S and E-W with the same cards,
    chooser and first player.  Printed: team A's mean score difference per deal (the mean of
    its two tables, points) with its standard error and 95% interval, made and pit rates as
    the playing team, and the double-dummy optimism (double-dummy score minus the score
    played, as chooser).  dd CHEATS: it sees all four hands.

    \b
    Examples:
      kraken-arena --deals 100 --seed 1 --ns pimc:20 --ew heuristic
      kraken-arena --deals 1000 --ns pimc:20 --ew heuristic --out m.csv --records m.pbn
      kraken-arena --deals 1000 --ns pimc:20 --ew heuristic --out m.csv --resume
      kraken-arena --deals 20 --ns pimc:20 --ew heuristic --regret 200
      kraken-arena --deals 200 --ns pimc:20 --ew heuristic --where 'has(N, HJ H9)' --trump H
    """
    if ns is None or ew is None:
        raise click.UsageError("give both teams: --ns BOT --ew BOT")
    if deals is None and input_path is None:
        raise click.UsageError("give --deals N (seeded deals) or --input FILE")
    if deals is not None and input_path is not None:
        raise click.UsageError("--deals and --input cannot be used together")
    if resume and out is None:
        raise click.UsageError("--resume needs the --out of the match to finish")
    if scheduler is not None and workers is not None:
        raise click.UsageError("--workers and --scheduler cannot be used together")
    if (where is not None or predeal) and input_path is not None:
        raise click.UsageError("--where and --predeal choose among generated deals: give "
                               "--deals N, not --input")
    # a bad condition, or one too rare for --max-tries: one line, status 2, before any work
    make_condition(ctx, PROG, where, predeal, first_block=(seed, deals or 1, max_tries))
    from kraken_solver.arena import format_stats, make_match, play_match
    from kraken_solver.batch.config import format_for, paths_for
    from kraken_solver.batch.store import check_batch_outputs
    from kraken_solver.notation.outputs import check_outputs
    from kraken_solver.workers.pool import check_workers
    try:
        fmt = format_for(out) if out is not None else "csv"
        inputs = ([input_path] if input_path else []) + condition_file(where)
        if out is not None:
            check_batch_outputs(out, inputs, others={"--records": records})
        elif records is not None:
            check_outputs({"--records": records}, inputs=inputs)
        check_workers(workers)
        config = make_match(ns, ew, ns_trump=ns_trump, ew_trump=ew_trump, trump=trump,
                            deals=deals, seed=seed, input=input_path, first=first,
                            rules=rules_option(rules_name), judge=judge, where=where,
                            predeal=list(predeal) or None, max_tries=max_tries,
                            chunk_size=chunk_size, fmt=fmt)
    except BotSpecError as err:
        raise click.UsageError(str(err)) from None
    except KrakenError as err:
        command_fail(ctx, PROG, err)
    progress = not quiet and sys.stderr.isatty()
    res = run_keeping_parts(
        ctx, PROG, lambda: play_match(config, out=out, records=records, workers=workers,
                                      scheduler=scheduler, resume=resume, progress=progress,
                                      command=command_line(ctx, PROG),
                                      log=stderr_log(PROG, quiet)),
        paths_for(out)[0] if out else None, "deal")
    click.echo(format_stats(res.stats))
    if not quiet and not res.run.already_complete:
        where = f" -> {out}" if out else ""
        click.echo(f"{PROG}: {count(res.stats.deals, 'deal')} x 2 tables{where}; played "
                   f"{count(res.run.solved, 'deal')} in {res.run.seconds:.1f} s with "
                   f"{count(res.run.workers, 'worker')}"
                   + (f"; records -> {records}" if records else ""), err=True)


if __name__ == "__main__":  # pragma: no cover
    main()
