"""``kraken-batch``: solve many deals for all four trumps, in parallel, resumable; and
``kraken-batch summarize FILE``: trump-choice statistics of a batch file.

``kraken-batch --deals N --seed S --out results.csv`` generates N seeded deals (or reads
``--input FILE``), solves each double dummy for the four trumps of the first player and writes
one row per (deal, trump) (columns: :data:`kraken_solver.batch.config.COLUMNS`), plus the sidecar
``results.csv.meta.json``.  Kill it at any moment; the same command with ``--resume``
finishes it.  Progress (deals/s, ETA) on stderr when it is a terminal.  Errors: one line
``kraken-batch: error: ...`` and exit status 1; interrupted: exit status 130.
"""

from __future__ import annotations

import os
import sys

import click

from kraken_solver import __version__
from kraken_solver.cli import (RULES_HELP, command_fail, command_line, guard_output, rules_option,
                              run_keeping_parts, stderr_log)
from kraken_solver.cli.params import (AsciiChoice, AsciiInt, condition_file, condition_options,
                                      make_condition)
from kraken_solver.errors import KrakenError
from kraken_solver.game.cards import SEATS
from kraken_solver.limits import MAX_BATCH_DEALS, MAX_SEED
from kraken_solver.notation.text import count

PROG = "kraken-batch"


def _objectives(text: str) -> tuple:
    words = [w.strip().lower() if w.isascii() else w for w in text.split(",") if w.strip()]
    bad = [w for w in words if w not in ("score", "points")]
    if bad or not words:
        raise click.BadParameter("a comma list of score and points, e.g. score,points",
                                 param_hint="--objective")
    twice = sorted({w for w in words if words.count(w) > 1})
    if twice:
        raise click.BadParameter(f"{twice[0]} is given twice; a comma list of score and "
                                 "points, each once, e.g. score,points", param_hint="--objective")
    return tuple(words)


@click.group(name=PROG, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--deals", type=AsciiInt(1, MAX_BATCH_DEALS), default=None,
              help="Generate this many seeded deals.")
@click.option("--input", "input_path", type=click.Path(dir_okay=False), default=None,
              help="Solve the deals of this deal file (either form) instead.")
@click.option("--seed", type=AsciiInt(0, MAX_SEED), default=1, show_default=True,
              help="SeedSequence seed of the generated deals.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="The output file (also OUT.meta.json and, while running, OUT.parts/).")
@click.option("--rules", "rules_name", default=None, metavar="RULES",
              help=RULES_HELP + " Default kraken; with --input: each deal's own.")
@click.option("--first", type=AsciiChoice(list(SEATS)), default=None,
              help="First player (default N; with --input: the file's).")
@click.option("--objective", default="score", show_default=True,
              help="score, or score,points (or points) to add the points column (score is "
                   "always computed).")
@click.option("--workers", type=AsciiInt(), default=None,
              help="Worker processes (default: one per core; at most 4 per core).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT|local:N",
              help="Solve on a Dask cluster: a running scheduler's address, or local:N to "
                   "start N local worker processes (needs dask.distributed).")
@click.option("--format", "fmt", type=AsciiChoice(["csv", "parquet"]), default=None,
              help="Output format (default: parquet for a .parquet or .pq --out, else csv; "
                   "one that contradicts the name's extension is refused).")
@click.option("--chunk-size", type=AsciiInt(1, 100000), default=64, show_default=True,
              help="Deals per part file (the unit of work and of resuming).")
@condition_options
@click.option("--play", "play_bot", default=None, metavar="BOT",
              help="Also play every (deal, trump) out with this card-play bot at all four "
                   "seats (random, heuristic, pimc:N, dd): the played_score, played_points, "
                   "played_made, played_pit and play columns.")
@click.option("--play-seed", type=AsciiInt(0, MAX_SEED), default=None,
              help="Seed of the --play bots (default 0).")
@click.option("--resume", is_flag=True,
              help="Finish an interrupted run with the same options (reuses its parts).")
@click.option("--quiet", is_flag=True, help="No progress bar and no closing line.")
@click.version_option(__version__, prog_name=PROG)
@click.pass_context
@guard_output(PROG, needs_stdout=False)
def main(ctx, deals, input_path, seed, out, rules_name, first, objective, workers, scheduler,
         fmt, chunk_size, where, predeal, max_tries, play_bot, play_seed, resume, quiet):
    """Solve many deals double dummy for all four trumps of the first player.

    One row per (deal, trump): deal_id, deal (PBN), first, trump, rules, score, made,
    points (with --objective score,points), pit (the playing team can force every trick),
    nodes and ms (the work: they vary from run to run); with --play BOT also the deal as
    that bot played it at all four seats (played_score, played_points, played_made,
    played_pit, play: the 32 cards).  Values are in points, from the
    playing team's side (RULES.md section 8).  Deals come from SeedSequence(SEED), one child
    per block of 64 deals, so the file does not depend on --workers or on resuming.
    --where and --predeal deal only the deals that meet a condition (README: Dealing with
    conditions); they are recorded in the sidecar, and --resume checks them.

    \b
    Examples:
      kraken-batch --deals 10000 --seed 1 --out results.csv
      kraken-batch --deals 10000 --seed 1 --out results.csv --resume
      kraken-batch --deals 1000 --where 'has(N, HJ H9)' --out jack-nine.csv
      kraken-batch --deals 1000000 --seed 1 --out big.parquet --scheduler tcp://HOST:8786
      kraken-batch --deals 200 --seed 1 --out played.csv --play pimc:20
      kraken-batch summarize results.csv --csv tables/ --plots plots/
    """
    if ctx.invoked_subcommand is not None:
        given = [max(p.opts, key=len) for p in ctx.command.params
                 if isinstance(p, click.Option) and p.name in ctx.params
                 and ctx.get_parameter_source(p.name) != click.core.ParameterSource.DEFAULT]
        if given:
            raise click.UsageError(f"{ctx.invoked_subcommand} takes none of the batch's "
                                   f"options ({', '.join(given)}); give its own after it: "
                                   f"{PROG} {ctx.invoked_subcommand} FILE [--csv DIR] "
                                   "[--plots DIR]")
        return
    if deals is None and input_path is None:
        raise click.UsageError("give --deals N (seeded deals) or --input FILE, and --out; "
                               f"or '{PROG} summarize FILE'")
    if deals is not None and input_path is not None:
        raise click.UsageError("--deals and --input cannot be used together")
    if out is None:
        raise click.UsageError("--out FILE is required")
    if scheduler is not None and workers is not None:
        raise click.UsageError("--workers and --scheduler cannot be used together (local:N "
                               "sets the number of local Dask workers)")
    objectives = _objectives(objective)
    if (where is not None or predeal) and input_path is not None:
        raise click.UsageError("--where and --predeal choose among generated deals: give "
                               "--deals N, not --input")
    # a bad condition, or one too rare for --max-tries: one line, status 2, before any work
    make_condition(ctx, PROG, where, predeal, first_block=(seed, deals or 1, max_tries))
    if play_seed is not None and play_bot is None:
        raise click.UsageError("--play-seed is the seed of the --play bots: give --play BOT")
    from kraken_solver.batch.config import format_for, make_config, paths_for
    from kraken_solver.batch.run import run_batch
    from kraken_solver.batch.store import check_batch_outputs
    from kraken_solver.workers.pool import check_workers
    try:
        fmt = format_for(out, fmt)
        # the outputs and the number of workers are checked before the input is read
        check_batch_outputs(out, ([input_path] if input_path else []) + condition_file(where))
        check_workers(workers)
        config = make_config(deals=deals, seed=seed, input=input_path, first=first,
                             rules=rules_option(rules_name), objectives=objectives,
                             chunk_size=chunk_size, fmt=fmt, where=where,
                             predeal=list(predeal) or None, max_tries=max_tries,
                             play=play_bot, play_seed=play_seed or 0)
    except KrakenError as err:
        command_fail(ctx, PROG, err)
    progress = not quiet and sys.stderr.isatty()
    res = run_keeping_parts(
        ctx, PROG, lambda: run_batch(config, out, workers=workers, scheduler=scheduler,
                                     resume=resume, progress=progress,
                                     command=command_line(ctx, PROG),
                                     log=stderr_log(PROG, quiet)),
        paths_for(out)[0], "chunk")
    if not quiet and not res.already_complete:
        extra = f" ({count(res.chunks_reused, 'chunk')} from before)" if res.chunks_reused \
            else ""
        click.echo(f"{PROG}: {count(res.deals, 'deal')} x 4 trumps -> {out}{extra}; solved "
                   f"{count(res.solved, 'deal')} in {res.seconds:.1f} s ({res.deals_per_s:.2f} "
                   f"deals/s) with {count(res.workers, 'worker')}"
                   f"{' (Dask)' if scheduler else ''}, "
                   f"peak memory {res.peak_worker_mb:.0f} MB a worker", err=True)


@main.command(name="summarize", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--csv", "csv_dir", type=click.Path(file_okay=False), default=None,
              help="Also write every table as DIR/NAME.csv.")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False), default=None,
              help="Also write PNG charts to DIR (needs matplotlib).")
@click.pass_context
@guard_output(PROG)
def summarize_cmd(ctx, file, csv_dir, plots_dir):
    """Trump-choice statistics of a kraken-batch FILE (CSV or Parquet).

    Per trump choice, by the first player's holding in the trump suit (length; jack and nine
    of trump): mean score, P(made), mean points, P(pit).  The best trump's score per deal.
    Simple trump-choice rules (longest suit, most trump points, holding the jack, ...):
    how often they pick a double-dummy best trump and what they cost per deal, in points.
    """
    from kraken_solver.batch.plots import write_plots
    from kraken_solver.batch.store import batch_condition, line_locator, read_results
    from kraken_solver.batch.summary import format_summary, summarize, write_csv_tables
    from kraken_solver.notation.outputs import make_output_dir
    try:
        df = read_results(file)
        s = summarize(df, source=file, line_of=line_locator(file))
        # an empty name is refused there, not taken for no --csv
        if csv_dir is not None:
            make_output_dir(csv_dir, what="the --csv folder", inputs=[file])
        if plots_dir is not None:
            make_output_dir(plots_dir, what="the --plots folder", inputs=[file])
        click.echo(format_summary(s, source=file, condition=batch_condition(file)))
        if csv_dir is not None:
            paths = write_csv_tables(s, csv_dir, inputs=[file])
            click.echo(f"{PROG}: wrote {len(paths)} tables to {csv_dir}", err=True)
        if plots_dir is not None:
            paths = write_plots(s, plots_dir, inputs=[file])
            click.echo(f"{PROG}: wrote {', '.join(os.path.basename(p) for p in paths)} to "
                       f"{plots_dir}", err=True)
    except KrakenError as err:
        command_fail(ctx, PROG, err)


if __name__ == "__main__":  # pragma: no cover
    main()
