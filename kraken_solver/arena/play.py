"""A whole match from the API: :func:`play_match` (the command ``kraken-arena`` calls it).

It checks the options (:func:`~kraken_solver.arena.match.make_match`), plays the match into
``out`` (or into a temporary folder that is removed after, when no ``out`` is given),
writes the records, and returns the rows and their statistics.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass

from ..batch.store import check_batch_outputs
from ..notation.outputs import check_outputs
from .match import TOOL, MatchConfig, package_commit, read_match, run_match
from .records import write_records
from .stats import MatchStats, estimate, match_stats

__all__ = ["MatchResult", "play_match", "running_postfix"]


@dataclass
class MatchResult:
    """``config``, ``rows`` (pandas DataFrame, two a deal), ``stats``
    (:class:`~kraken_solver.arena.stats.MatchStats`), ``run`` (the
    :class:`~kraken_solver.batch.run.BatchResult`: tables played now, seconds, workers)."""
    config: MatchConfig
    rows: object
    stats: MatchStats
    run: object


def running_postfix():
    """An ``on_part`` for :func:`run_match`: the A - B difference so far, '+12.3 ± 4.5'."""
    from .tables import parse_rows
    diffs = []

    def on_part(text):
        rows = parse_rows(text)
        for a, b in zip(rows[0::2], rows[1::2]):
            d0 = int(a["ns_score"]) - int(a["ew_score"])
            d1 = int(b["ew_score"]) - int(b["ns_score"])
            diffs.append((d0 + d1) / 2)
        return "A-B " + estimate(diffs).text()
    return on_part


def play_match(config: MatchConfig, *, out=None, records=None, workers=None, scheduler=None,
               resume=False, progress=False, command=None, log=None) -> MatchResult:
    """Play ``config`` (:func:`~kraken_solver.arena.match.make_match`) into ``out`` (CSV or
    Parquet, with its sidecar; None: kept in a temporary folder, removed after) and write
    ``records`` (a PBN file of every table, :mod:`~kraken_solver.arena.records`) when given.
    ``workers``, ``scheduler``, ``resume``, ``progress``, ``command``, ``log``: as
    :func:`~kraken_solver.batch.run.run_batch`.  Raises KrakenError (OutputError for an output
    that must not be written, checked before any work), BotError when a bot fails."""
    from .. import __version__
    inputs = [config.input] if config.input else []
    if records is not None and out is not None:
        # --records is none of --out's store (its sidecar, its work directory) either
        check_batch_outputs(out, inputs, others={"--records": records})
    elif records is not None:
        check_outputs({"--records": records}, inputs=inputs)
    with contextlib.ExitStack() as stack:
        if out is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="kraken-arena-"))
            out = os.path.join(folder, "match." + ("parquet" if config.fmt == "parquet"
                                                   else "csv"))
        run = run_match(config, out, workers=workers, scheduler=scheduler, resume=resume,
                        progress=progress, command=command, log=log,
                        on_part=running_postfix() if progress else None)
        rows = read_match(out)
    stats = match_stats(rows, labels=[_label(b) for b in config.teams])
    if records is not None:
        commit = package_commit()
        write_records(records, rows, event=f"{TOOL}: {stats.names[0]} v {stats.names[1]}",
                      generator=f"{TOOL} {__version__}" + (f" ({commit})" if commit else ""),
                      inputs=inputs + [out])
    return MatchResult(config, rows, stats, run)


def _label(bot) -> str:
    from ..bots import bot_label, make_bot
    return bot_label(make_bot(bot))
