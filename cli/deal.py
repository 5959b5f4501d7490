"""``kraken-deal``: seeded random deals that meet a condition (``--where``) and a predeal.

``kraken-deal --deals 10 --seed 1 --where 'hearts(S) >= 4 and has(S, HJ)'`` prints ten deals,
one a line (``--format line``, the one-line form of a deal file) or as tag pairs (``--format
pbn``); ``--out FILE`` writes them to a file instead (atomically: the file appears whole or not
at all).  Deal ``i`` depends on the seed, ``i`` and the condition only
(:mod:`kraken_solver.dealing.generator`).  ``--stats``: the candidates tested and the
acceptance rate on stderr.  Bad input (a condition that cannot be read, a predeal conflict, a
condition no deal can meet, one that no candidate met within ``--max-tries``): one line
``kraken-deal: error: ...`` and exit status 2, and no file written.
"""

from __future__ import annotations

import sys

import click

from kraken_solver import __version__
from kraken_solver.cli import guard_output
from kraken_solver.cli.params import (AsciiChoice, AsciiInt, condition_file, condition_options,
                                      make_condition)
from kraken_solver.limits import MAX_BATCH_DEALS, MAX_SEED

PROG = "kraken-deal"
#: deals made and written at a time (64 blocks)
STEP = 4096


def _lines(cond, seed, deals, fmt, max_tries, stats, bar):
    from kraken_solver.game.deal import Deal
    for a in range(0, deals, STEP):
        b = min(deals, a + STEP)
        if cond is None:
            from kraken_solver.dealing.seeded import generate_deals
            got = generate_deals(seed, a, b)
        else:
            got = [Deal(tuple(int(x) for x in row))
                   for row in cond.hands(seed, a, b, max_tries=max_tries, stats=stats)]
        for i, d in enumerate(got, start=a + 1):
            yield f'[Board "{i}"]\n[Deal "{d}"]\n\n' if fmt == "pbn" else f"{d}\n"
        if bar is not None:
            bar.update(len(got))


@click.command(name=PROG, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--deals", type=AsciiInt(1, MAX_BATCH_DEALS), default=1, show_default=True,
              help="How many deals.")
@click.option("--seed", type=AsciiInt(0, MAX_SEED), default=1, show_default=True,
              help="SeedSequence seed of the deals.")
@condition_options
@click.option("--format", "fmt", type=AsciiChoice(["line", "pbn"]), default="line",
              show_default=True,
              help="line: one deal a line (N:S.H.D.C ...); pbn: [Board] and [Deal] tag pairs.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Write the deals to this file (default: standard output).")
@click.option("--stats", is_flag=True,
              help="Say how many candidates were tested and the acceptance rate (stderr).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.version_option(__version__, prog_name=PROG)
@click.pass_context
@guard_output(PROG, needs_stdout=False)
def main(ctx, deals, seed, where, predeal, max_tries, fmt, out, stats, quiet):
    """Deal random deals that meet a condition (--where) and hold a predeal (--predeal).

    The cards not predealt are dealt uniformly at random among the deals that meet the
    condition; the same seed gives the same deals.  Without --where and --predeal the deals
    are kraken-batch's (the same seed, the same deals).

    \b
    Examples:
      kraken-deal --deals 5 --seed 1 --where 'hearts(S) >= 4 and has(S, HJ)'
      kraken-deal --deals 100 --predeal 'S:HJ H9 HA' --where 'aces(N) >= 2' --out d.txt
      kraken-deal --deals 1000 --where @conditions.txt --format pbn --stats --out d.pbn
    """
    from kraken_solver.dealing.generator import DealingStats
    from kraken_solver.errors import KrakenError
    from kraken_solver.notation.outputs import atomic_open, check_output
    # the first block now: an impossible or too rare condition stops before any file
    cond = make_condition(ctx, PROG, where, predeal, first_block=(seed, deals, max_tries))
    counts = DealingStats()
    bar = None
    try:
        inputs = condition_file(where)
        if out is not None:
            check_output(out, what="--out", inputs=inputs)
        if not quiet and sys.stderr.isatty():
            from tqdm import tqdm
            bar = tqdm(total=deals, unit="deal", file=sys.stderr, dynamic_ncols=True)
        header = ""
        if fmt == "pbn":
            what = cond.describe() if cond is not None else "every deal"
            header = f"% kraken-deal {__version__}: seed {seed}, {what}\n"
        lines = _lines(cond, seed, deals, fmt, max_tries, counts, bar)
        if out is None:
            sys.stdout.write(header)
            for line in lines:
                sys.stdout.write(line)
        else:
            with atomic_open(out, what="--out", inputs=inputs) as f:
                f.write(header)
                for line in lines:
                    f.write(line)
    except KrakenError as err:
        if bar is not None:
            bar.close()
        click.echo(f"{PROG}: error: {err}", err=True)
        ctx.exit(2)
    if bar is not None:
        bar.close()
    if stats:
        click.echo(f"{PROG}: " + (counts.line() if cond is not None else
                                  f"{deals:,} deals without a condition (every candidate "
                                  "accepted)"), err=True)


if __name__ == "__main__":  # pragma: no cover
    main()
