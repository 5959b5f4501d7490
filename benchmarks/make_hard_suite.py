"""Pick the hardest deals of a kraken-batch file as a benchmark suite (a deal file).

The deals whose four trumps took the most search nodes together (the batch's ``nodes``
column; ties by ``deal_id``) are written one per line, PBN from N, hardest first, under a
comment that says where they came from.  Node counts vary a little from run to run, so the
set is chosen once and stored (``benchmarks/suites/``); the suite is then a fixed file.

    python benchmarks/make_hard_suite.py results.csv --deals 25 --out benchmarks/suites/hard-25.txt
"""

from __future__ import annotations

import json
import os

import click

from kraken_solver.batch.config import paths_for
from kraken_solver.batch.store import read_results
from kraken_solver.errors import KrakenError
from kraken_solver.notation.outputs import write_text


@click.command()
@click.argument("batch_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--deals", type=click.IntRange(1), default=25, show_default=True,
              help="How many of the hardest deals to keep.")
@click.option("--out", type=click.Path(dir_okay=False), required=True,
              help="The deal file to write.")
def main(batch_file, deals, out):
    df = read_results(batch_file)
    per_deal = (df.groupby(["deal_id", "deal"], as_index=False)["nodes"].sum()
                .sort_values(["nodes", "deal_id"], ascending=[False, True]).head(deals))
    meta = {}
    if os.path.exists(paths_for(batch_file)[1]):
        with open(paths_for(batch_file)[1], encoding="utf-8") as f:
            meta = json.load(f)
    lines = [f"% The {len(per_deal)} hardest of {df['deal_id'].nunique()} deals: the most "
             "search nodes over their four trumps",
             f"% source: {meta.get('command') or os.path.basename(batch_file)} "
             f"(kraken-solver {meta.get('version', '?')}, first player N)",
             "% line: deal_id in the batch, nodes of its four trumps; then the deal"]
    for row in per_deal.itertuples():
        lines.append(f"% deal_id {row.deal_id}: {row.nodes} nodes")
        lines.append(row.deal)
    try:
        write_text(out, "\n".join(lines) + "\n", what="--out", inputs=[batch_file])
    except KrakenError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"wrote {len(per_deal)} deals to {out} ({per_deal['nodes'].min()} to "
               f"{per_deal['nodes'].max()} nodes a deal)", err=True)


if __name__ == "__main__":
    main()
