"""A duplicate match between two teams of bots, run, stored and resumed as a batch is.

:func:`make_match` checks the options and builds a :class:`MatchConfig`; :func:`run_match`
plays every deal at two tables (:mod:`kraken_solver.arena.tables`) over the worker pool
(local processes or a Dask cluster, :mod:`kraken_solver.workers.pool`) and stores the rows
with the batch's store (:mod:`kraken_solver.batch.store`: part files named by their checksum,
every part checked, the score sheet of every row's play replayed, exact-once resume, the
sidecar ``OUT.meta.json`` recording the version and commit, the bots, seeds and rules).  A
kill at any moment and ``resume=True`` give the same file as an uninterrupted run; the file
does not depend on the number of workers.  A bot that fails stops the match with one line
(:class:`~kraken_solver.errors.BotError`); every finished chunk (``chunk_size`` deals, one by
default: both tables of every finished deal) stays for a resume.
"""

from __future__ import annotations

import csv
import io
import os
import resource
import subprocess
import time
from dataclasses import dataclass

from ..batch.config import (BatchConfig, condition_texts, hash_input, require_pyarrow,
                            stream_deals)
from ..batch.run import RunJob, run_batch
from ..batch.store import StoreKind, damaged, part_lines
from ..errors import BotSpecError, KrakenError
from ..game.cards import SUITS, as_seat, as_suit, is_int
from ..game.deal import Deal
from ..game.rules import Rules, as_rules
from ..limits import DEFAULT_DEAL_TRIES, MAX_BATCH_DEALS, MAX_HINT_SAMPLES
from .tables import COLUMNS, check_row, columns_for, play_table

TOOL = "kraken-arena"
#: deals a part file by default: a failing bot loses no finished deal
CHUNK_SIZE = 1


@dataclass
class MatchConfig(BatchConfig):
    """A match (a :class:`~kraken_solver.batch.config.BatchConfig`: its deals, seed or input,
    first player, rules, chunks and format) and its teams: ``teams`` the (A, B) card-play bot
    specs (A sits N-S at table 0), ``trump_teams`` their trump bots, ``trump`` a fixed trump
    0..3 (None: the chooser's team names it; a deal file's ``[Trump]`` fixes its deal's),
    ``judge`` the regret judge's layouts a decision (None: no regret)."""
    teams: tuple = ("random", "random")
    trump_teams: tuple = ("random", "random")
    trump: int | None = None
    judge: int | None = None

    def to_dict(self) -> dict:
        from ..bots import bot_name, make_bot
        d = super().to_dict()
        names = [bot_name(make_bot(b)) for b in self.teams]
        tnames = [bot_name(make_bot(b)) for b in self.trump_teams]
        d.update(teams={"A": names[0], "B": names[1]},
                 trump_bots={"A": tnames[0], "B": tnames[1]},
                 trump=None if self.trump is None else SUITS[self.trump],
                 regret_judge_layouts=self.judge,
                 bot_seeds="bots of table t of deal i: 63 bits of SeedSequence(seed, "
                           "spawn_key=(i, t, 0xB07)); the regret judge: (i, t, 0x7D6E)")
        return d


def make_match(ns, ew, *, deals=None, seed=1, input=None, ns_trump=None, ew_trump=None,
               trump=None, first=None, rules=None, judge=None, chunk_size=CHUNK_SIZE,
               fmt="csv", where=None, predeal=None,
               max_tries=DEFAULT_DEAL_TRIES) -> MatchConfig:
    """Check a match's options; see :class:`MatchConfig`.  ``ns``/``ew``: the card-play bots
    of teams A and B (specs such as ``"pimc:20"`` or bot objects); ``ns_trump``/``ew_trump``:
    their trump bots (default the card-play bot, or ``heuristic`` for a custom bot that names
    no trump).  ``where``/``predeal``: play only the seeded deals that meet a condition
    (:mod:`kraken_solver.dealing`, as ``kraken-batch --where``).  Raises BotSpecError (an
    unknown bot, listing
    the bots; an option out of range) and KrakenError (deals, seed, input, trump, judge)."""
    from ..bots import make_bot
    if trump is not None and (ns_trump is not None or ew_trump is not None):
        raise KrakenError("a fixed trump leaves no trump to choose: give --trump or "
                          "--ns-trump/--ew-trump, not both",
                          token=str(ns_trump if ns_trump is not None else ew_trump))
    teams = (ns, ew)
    trumps = tuple(t if t is not None else b if hasattr(make_bot(b), "choose_trump")
                   else "heuristic" for b, t in zip(teams, (ns_trump, ew_trump)))
    for b in teams:
        if not hasattr(make_bot(b), "choose_card"):
            raise BotSpecError("a team's card-play bot must play cards (advise:N chooses trump "
                              "only; give it as --ns-trump/--ew-trump)", token=str(b))
    for b in trumps:
        make_bot(b)
    if judge is not None and (not is_int(judge) or not 1 <= judge <= MAX_HINT_SAMPLES):
        raise KrakenError(f"the regret judge's layouts are from 1 to {MAX_HINT_SAMPLES:,}",
                          token=str(judge))
    if not is_int(chunk_size) or not 1 <= int(chunk_size) <= 100000:
        raise KrakenError("the chunk size must be from 1 to 100000", token=str(chunk_size))
    if fmt not in ("csv", "parquet"):
        raise KrakenError("the format is csv or parquet", token=str(fmt))
    if fmt == "parquet":
        require_pyarrow()
    common = {"teams": teams, "trump_teams": trumps, "judge": judge,
              "trump": None if trump is None else as_suit(trump),
              "chunk_size": int(chunk_size), "fmt": fmt, "objectives": ("score",)}
    where_text, predeal_text, max_tries = condition_texts(where, predeal, max_tries, input)
    first_i = as_seat(first) if first is not None else None
    rules_r = as_rules(rules) if rules is not None else None
    if input is not None:
        if deals is not None:
            raise KrakenError("give either a number of deals or an input file, not both")
        digest, size = hash_input(input)
        config = MatchConfig(deals=None, seed=_seed(seed), first=first_i, rules=rules_r,
                             input=os.path.abspath(input), input_sha256=digest,
                             input_bytes=size, input_name=os.fspath(input), **common)
        config.reader().check_ahead()
        return config
    if deals is None or not is_int(deals) or not 1 <= int(deals) <= MAX_BATCH_DEALS:
        raise KrakenError(f"the number of deals must be from 1 to {MAX_BATCH_DEALS:,}",
                          token=str(deals))
    return MatchConfig(deals=int(deals), seed=_seed(seed),
                       first=first_i if first_i is not None else 0,
                       rules=rules_r if rules_r is not None else Rules(), where=where_text,
                       predeal=predeal_text, max_tries=max_tries, **common)


def _seed(seed) -> int:
    if seed is None or not is_int(seed) or int(seed) < 0:
        raise KrakenError("the seed must be a whole number >= 0", token=str(seed))
    return int(seed)


# ----------------------------------------------------------------------------- the work
def _match_task(config: MatchConfig, k, start, stop, items, columns):
    if items is None:
        items = [(None, config.first, config.rules, None)] * (stop - start)
    return (k, start, stop, config.stream(), items, config.teams, config.trump_teams,
            config.trump, config.judge, columns)


def _play_chunk(task) -> dict:
    """Worker: play the two tables of each deal of one chunk; the part file's text."""
    from .. import __version__
    from ..batch.store import csv_value
    from ..workers.task import report_progress, worker_searcher
    k, start, stop, stream, items, teams, trump_teams, trump, judge, columns = task
    seed = stream[0]            # the bots' seeds; the deals: the seed and any condition
    searcher = worker_searcher()
    t0 = time.perf_counter()
    deals = stream_deals(stream, start, stop) if items[0][0] is None else \
        [Deal(tuple(it[0])) for it in items]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for i, (deal, (_, first, rules, file_trump)) in enumerate(zip(deals, items)):
        fixed = trump if trump is not None else file_trump
        for table in (0, 1):
            row = play_table(deal, first, rules, fixed, teams, trump_teams, seed, start + i,
                             table, searcher=searcher, judge=judge)
            w.writerow([csv_value(row[c]) for c in columns])
            report_progress(2 * i + table + 1)
    return {"chunk": k, "deals": stop - start, "text": buf.getvalue(),
            "seconds": time.perf_counter() - t0, "version": __version__,
            "nodes": 0, "pid": os.getpid(),
            "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}


def _checked_part(path: str, k: int, expected, config: MatchConfig, columns) -> str:
    """The rows of a match part file, checked: two a deal (tables 0 and 1), the chunk's deal,
    first player, rules and bots, and the score sheet of every row's play."""
    from ..bots import bot_name, make_bot
    rows = part_lines(path, k, config, columns)
    if len(rows) != 2 * len(expected):
        raise damaged(path, k, config, f"it has {len(rows)} rows, and the chunk's "
                      f"{len(expected)} deals have {2 * len(expected)}")
    names = [bot_name(make_bot(b)) for b in config.teams]
    tnames = [bot_name(make_bot(b)) for b in config.trump_teams]
    start = k * config.chunk_size
    for i, fields in enumerate(csv.reader(rows)):
        if len(fields) != len(columns):
            raise damaged(path, k, config, f"a row of {len(fields)} fields, not "
                          f"{len(columns)}", i + 2)
        deal, first, rules = expected[i // 2]
        table = i % 2
        want = {"deal_id": str(start + i // 2), "table": str(table), "deal": deal,
                "first": first, "chooser": first, "rules": rules,
                "ns_bot": names[table], "ew_bot": names[1 - table]}
        if config.trump is not None:
            want.update(trump=SUITS[config.trump], trump_bot="")
        elif not config.input:
            # the chooser's team: the team sitting on its side at this table
            chooser_team = (table + (0 if first in "NS" else 1)) % 2
            want["trump_bot"] = tnames[chooser_team]
        why = check_row(dict(zip(columns, fields)), want)
        if why is not None:
            raise damaged(path, k, config, why, i + 2)
    return "".join(r + "\n" for r in rows)


def package_commit() -> str | None:
    """The git commit of the package's checkout (with ``-dirty`` when it has changes), or
    None when it is not a git checkout."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=40"],
                             cwd=here, capture_output=True, text=True, timeout=10,
                             check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _new_meta(config: MatchConfig, session, cols) -> dict:
    from .. import __version__
    cfg = config.to_dict()
    return {
        "tool": TOOL, "version": __version__, "commit": package_commit(),
        "status": "running", "config": cfg,
        "command": session["command"], "argv": session["argv"],
        "seed": config.seed, "deals": config.deals, "chunk_size": config.chunk_size,
        "teams": cfg["teams"], "trump_bots": cfg["trump_bots"], "bot_seeds": cfg["bot_seeds"],
        "input": config.input, "input_sha256": config.input_sha256,
        "rules": cfg["rules"] if cfg["rules"] else "from the input file",
        "objectives": ["score"], "format": config.fmt,
        "columns": [{"name": n, "type": t, "meaning": m} for n, t, m in cols],
        "note": ("two rows a deal (table 0: team A N-S; table 1: swapped), in deal_id order; "
                 "scores in points (RULES.md section 6); dd_score from the playing team's "
                 "side (section 8)"),
        "sessions": [],
    }


MATCH_STORE = StoreKind(TOOL, _checked_part, _new_meta, {c[0]: c[1] for c in COLUMNS}
                        | {"regret": "string"})


def match_job(on_part=None) -> RunJob:
    """The :class:`~kraken_solver.batch.run.RunJob` of a match (``on_part``: see there)."""
    return RunJob(MATCH_STORE, lambda config: columns_for(config.judge is not None),
                  _match_task, _play_chunk, unit="table", per_deal=2, on_part=on_part)


def run_match(config: MatchConfig, out: str, *, workers=None, scheduler=None, resume=False,
              progress=False, command=None, log=None, on_part=None, on_chunk=None):
    """Play (or with ``resume`` finish) the match into ``out``; see the module docstring and
    :func:`~kraken_solver.batch.run.run_batch` (same options, errors and exact-once rules).
    Returns its :class:`~kraken_solver.batch.run.BatchResult`."""
    return run_batch(config, out, workers=workers, scheduler=scheduler, resume=resume,
                     progress=progress, command=command, log=log, on_chunk=on_chunk,
                     job=match_job(on_part))


def read_match(path: str):
    """A match file (CSV or Parquet) as a pandas DataFrame.  Raises KrakenError."""
    import pandas as pd
    try:
        with open(path, "rb") as f:
            parquet = f.read(4) == b"PAR1"
        if parquet:
            return pd.read_parquet(path)
        return pd.read_csv(path, dtype={c[0]: str for c in COLUMNS if c[1] == "string"}
                           | {"regret": str}, keep_default_na=False)
    except (OSError, ValueError) as e:
        raise KrakenError(f"cannot read the match file: {e}", source=path) from None

