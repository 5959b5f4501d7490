"""The part files, the sidecar and the assembled output of a ``kraken-batch`` run.

Work directory
    The calling process writes each chunk's rows to a part file in the work directory
    ``OUT.parts/`` next to the output (:mod:`kraken_solver.notation.outputs`: a temporary
    file, then a rename, so a part file is either complete or absent).  A part file's name
    carries the SHA-256 of its bytes (``chunk-0000012-<16 hex digits>.csv``).  When every
    chunk is done the output is assembled from the parts in chunk order (again through a
    temporary file and a rename, :func:`assemble`), then the sidecar ``OUT.meta.json`` is
    written (complete, with the output's SHA-256), and the work directory is removed.

Integrity
    Every part file is checked before it is used, when a run is resumed and again when the
    output is assembled: its bytes against the checksum in its name, its header against the
    columns, and every row against its chunk (the deal ids of the chunk in order, each with
    its four trumps S H D C, the deal text regenerated from the seed or read again from the
    input file, the first player and the rules; whole numbers, True/False and ``made`` equal
    to score > 0).  A part that fails is refused by name, with how to redo it (delete it and
    resume: that chunk is solved again); it is never assembled.  The input file's SHA-256 is
    of exactly the bytes read; every later reading of it must give the same, so a file
    changed under a run is refused, not mixed in.

Interruptions
    An unfinished run keeps its sidecar in the work directory (``OUT.parts/run.meta.json``),
    so an earlier output *and its sidecar* stay byte for byte as they were until a new run
    has assembled its output: then the output is replaced (one rename) and after it the
    sidecar (another).  A kill between the two leaves the work directory, and ``resume``
    finishes the job.  Resuming refuses a run whose configuration differs from the unfinished
    run's (:func:`meta_to_run`), and part files without the sidecar of their run.  One run at
    a time: a run takes the lock of ``OUT.parts/`` (:func:`lock_dir`) before it changes
    anything.  :func:`read_results` reads a finished output back (CSV or Parquet).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import KrakenError
from ..game.cards import SEATS, SUITS
from ..game.deal import Deal
from ..game.rules import Rules
from ..notation.outputs import (OutputError, atomic_open, check_output, check_outputs, file_kind,
                               write_text)
from ..notation.text import count
from .config import (COLUMNS, TIMING_COLUMNS, BatchConfig, hash_input, paths_for, require_pyarrow,
                     stream_deals)

#: the running sidecar of an unfinished run, inside the work directory
RUN_META = "run.meta.json"
_PART_RE = re.compile(r"chunk-([0-9]{7})-([0-9a-f]{16})\.csv")


def part_name(k: int, digest: str) -> str:
    return f"chunk-{k:07d}-{digest[:16]}.csv"


def check_batch_outputs(out: str, inputs=(), others=None) -> None:
    """Refuse, before any work, an output the batch must not write: ``out`` and its sidecar
    must each be a regular file or a new name (:func:`kraken_solver.notation.outputs.check_outputs`;
    never an input; ``out`` not named ``*.meta.json``; the sidecar not a link), the work
    directory ``OUT.parts`` a directory (not a link to one) or a new name.  ``others``: the command's other outputs
    (``{"--records": path}``, None values skipped), checked with them: none of them the
    sidecar, the work directory or a file in it.  Only looks.
    Raises KrakenError (OutputError) naming the path."""
    parts_dir, meta_path = paths_for(out)
    others = {what: path for what, path in (others or {}).items() if path is not None}
    if others:
        check_output(out, what="--out", inputs=inputs)      # --out's own faults first
        work = os.path.realpath(parts_dir)
        for what, path in others.items():
            target = os.path.realpath(os.fspath(path))
            if target == work or target.startswith(work + os.sep):
                raise OutputError(f"{what} would be {'' if target == work else 'in '}the work "
                                  f"directory of --out {out} ({parts_dir}, which the run makes, "
                                  "fills and removes at its end): give a name outside it",
                                  source=os.fspath(path))
    # the sidecar is the run's own file: a link there (to another run's sidecar, or to the
    # run.meta.json of an unfinished run's work directory) was written through
    if os.path.islink(meta_path):
        raise OutputError("the output's sidecar must be a file of its own or a new name, and "
                          f"this is a symbolic link (to {os.readlink(meta_path)}): remove the "
                          "link, or give another --out", source=meta_path)
    check_outputs({"--out": out, **others, "the output's sidecar": meta_path}, inputs=inputs,
                  own_store=("the output's sidecar",))
    # a link is refused too, even to a directory: the run writes, removes and at its end
    # deletes files in the work directory, which must be its own (through a link to a
    # folder of the user's, the part files were left there)
    try:
        mode = os.lstat(parts_dir).st_mode
    except FileNotFoundError:
        mode = None                 # a new name
    if mode is not None and not stat.S_ISDIR(mode):
        kind = "a symbolic link" if stat.S_ISLNK(mode) else file_kind(mode)
        raise OutputError(f"the output's work directory must be a directory or a new name, and "
                          f"this is {kind}: give another --out, or move it away",
                          source=parts_dir)


def csv_value(v) -> str:
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def rows_of(deal_id: int, deal: Deal, first: int, rules: Rules, results) -> list[dict]:
    """The batch rows of one deal's results (one per trump), keyed by column name."""
    pbn = str(deal)
    return [{"deal_id": deal_id, "deal": pbn, "first": SEATS[first], "trump": SUITS[r.trump],
             "rules": rules.name, "score": r.score, "made": bool(r.made), "points": r.points,
             "pit": bool(r.pit), "nodes": int(r.nodes), "ms": round(float(r.ms), 3)}
            for r in results]


def now_stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


# ----------------------------------------------------------------------------- sidecars
#: keys every sidecar has, with their JSON types (a damaged one is refused by name)
_META_KEYS = {"tool": str, "version": str, "status": str, "config": dict, "sessions": list,
              "format": str, "objectives": list, "chunk_size": int}
_CONFIG_KEYS = {"source": str, "chunk_size": int, "objectives": list, "format": str}


def _read_meta(path: str, tool: str = "kraken-batch") -> dict | None:
    """A sidecar (the finished run's ``OUT.meta.json`` or an unfinished run's
    ``OUT.parts/run.meta.json``), checked; None when there is none.  Raises KrakenError
    naming the file when it cannot be read, is not JSON text, or lacks a key or has one of
    the wrong type."""
    try:
        with open(path, "rb") as f:
            data = f.read(16 * 2**20 + 1)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise KrakenError(f"cannot read the sidecar: {e.strerror or e}", source=path) from None
    how = ("delete it (and the work directory beside it) to start over" if
           not path.endswith(RUN_META) else
           f"delete {os.path.dirname(path)} to start over")
    try:
        meta = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise KrakenError(f"the sidecar is damaged: byte {e.start + 1} is not UTF-8; {how}",
                          source=path) from None
    except ValueError as e:
        raise KrakenError(f"the sidecar is damaged: not JSON ({e}); {how}",
                          source=path) from None
    if not isinstance(meta, dict) or meta.get("tool") != tool:
        raise KrakenError(f"not a {tool} sidecar (it records the options of the {tool} "
                          f"file); {how}, or use another output file", source=path)
    for keys, where in ((_META_KEYS, meta), (_CONFIG_KEYS, meta.get("config"))):
        for key, kind in keys.items():
            value = where.get(key) if isinstance(where, dict) else None
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                name = key if where is meta else f"config.{key}"
                raise KrakenError(f"the sidecar is damaged: {name!r} is missing or not "
                                  f"{'a list' if kind is list else kind.__name__}; {how}",
                                  source=path)
    if not all(isinstance(s, dict) for s in meta["sessions"]):
        raise KrakenError(f"the sidecar is damaged: 'sessions' is not a list of objects; {how}",
                          source=path)
    return meta


def config_digest(config: dict) -> str:
    """SHA-256 (hex) of a run's configuration as its sidecar records it (JSON, keys sorted):
    a sidecar carries it as ``config_sha256`` so that an edited one is told from damaged
    part files."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _check_config_digest(meta: dict, path: str) -> None:
    """Refuse a sidecar whose ``config`` was changed after it was written (it no longer
    matches the ``config_sha256`` it records): else every part file would be blamed in turn
    for not holding the deals of the changed configuration."""
    want = meta.get("config_sha256")
    if want is not None and want != config_digest(meta["config"]):
        how = (f"delete {os.path.dirname(path)} to start over" if path.endswith(RUN_META)
               else "run without --resume to start over")
        raise KrakenError("the sidecar was changed after it was written: its 'config' does "
                          f"not match the config_sha256 it records; {how}", source=path)


def batch_condition(out: str) -> dict | None:
    """``{"where": ..., "predeal": ...}`` that the sidecar of batch file ``out`` records, or
    None (no sidecar, one that cannot be read, or deals without a condition)."""
    try:
        meta = _read_meta(paths_for(out)[1])
    except KrakenError:
        return None
    cfg = meta.get("config", {}) if meta else {}
    if not cfg.get("where") and not cfg.get("predeal"):
        return None
    return {"where": cfg.get("where"), "predeal": cfg.get("predeal")}


def write_meta(path: str, meta: dict, inputs=()) -> None:
    write_text(path, json.dumps(meta, indent=1) + "\n", what="the sidecar", inputs=inputs,
               own_store=True)


def _config_diff(old: dict, new: dict) -> list[str]:
    out = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            a, b = old.get(key), new.get(key)
            if key == "rules":
                a = a["name"] if isinstance(a, dict) else a
                b = b["name"] if isinstance(b, dict) else b
            if key in ("input_sha256", "input_bytes"):
                if "the input file's contents differ" not in out:
                    out.append("the input file's contents differ")
                continue
            out.append(f"{key} {b} (was {a})")
    return out


def _file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ----------------------------------------------------------------------------- part files
def list_parts(parts_dir: str, n_chunks: int | None = None, tool: str = "kraken-batch") -> dict:
    """{chunk: file name} of the part files in ``parts_dir``.  Removes the temporary files a
    killed write left (``.NAME.XXXXXXXX.tmp``).  Raises KrakenError for a file named like a
    part that is not one this version writes, two parts of one chunk, or (``n_chunks``
    given) a part of no chunk of the run."""
    parts = {}
    for name in sorted(os.listdir(parts_dir)):
        path = os.path.join(parts_dir, name)
        if name.startswith(".") and name.endswith(".tmp"):
            try:
                os.remove(path)         # a write killed half-way: that chunk is solved again
            except OSError:
                pass
            continue
        if not name.startswith("chunk-"):
            continue
        m = _PART_RE.fullmatch(name)
        if m is None:
            raise KrakenError(f"not a part file that {tool} writes "
                              "(chunk-NNNNNNN-CHECKSUM.csv): delete it or move it away, then "
                              "run the same command with --resume", source=path)
        k = int(m.group(1))
        if k in parts:
            raise KrakenError(f"two part files of chunk {k}: {parts[k]} and {name}; delete both "
                              "and run the same command with --resume to solve the chunk "
                              "again", source=parts_dir)
        if n_chunks is not None and k >= n_chunks:
            raise KrakenError(f"part file of chunk {k}, and the run has "
                              f"{count(n_chunks, 'chunk')}: it does not belong to this run; "
                              "delete it and run the same command with --resume", source=path)
        parts[k] = name
    return parts


def _expected_chunks(config: BatchConfig, wanted=None):
    """(chunk, [(deal text, first player letter, rules name) per deal]) for every chunk in
    order (or those in ``wanted``): the deals regenerated from the seed, or read again from
    the input file.  After the last chunk of an input, ``config.deals`` is its number of
    deals.  Raises KrakenError when the input's bytes differ from those the run started
    with."""
    if not config.input:
        for k in (range(config.n_chunks) if wanted is None else sorted(wanted)):
            start, stop = config.chunk_range(k)
            yield k, [(str(d), SEATS[config.first], config.rules.name)
                      for d in stream_deals(config.stream(), start, stop)]
        return
    reader = config.reader()
    k, items = 0, []
    for spec in reader:
        items.append((str(spec.deal), SEATS[spec.first], spec.rules.name))
        if len(items) == config.chunk_size:
            if wanted is None or k in wanted:
                yield k, items
            k, items = k + 1, []
    if items and (wanted is None or k in wanted):
        yield k, items
    check_same_input(config, reader)
    config.deals = reader.deals


def _check_input_unchanged(config: BatchConfig) -> None:
    """Before rows are checked against the input: its bytes now must be those the run
    started with (else a changed file would look like damaged parts)."""
    if config.input and hash_input(config.input) != (config.input_sha256,
                                                       config.input_bytes):
        raise _input_changed(config)


def _input_changed(config: BatchConfig) -> KrakenError:
    return KrakenError("the input file changed while the batch was using it (its SHA-256 is "
                       "not the one the run started with): the rows would mix two inputs; "
                       "put the file back, or start over with another --out",
                       source=config.input_shown)


def check_same_input(config: BatchConfig, reader) -> None:
    if reader.sha256 != config.input_sha256 or reader.bytes_read != config.input_bytes:
        raise _input_changed(config)


def damaged(path: str, k: int, config: BatchConfig, why: str, line: int | None = None):
    start = k * config.chunk_size
    stop = start + config.chunk_size if config.deals is None else \
        min(config.deals, start + config.chunk_size)
    return KrakenError(f"part file of chunk {k} (deals {start} to {stop - 1}) is damaged: {why}; "
                       "delete it and run the same command with --resume to solve that chunk "
                       "again", source=path, line=line)


def part_lines(path: str, k: int, config: BatchConfig, columns) -> list[str]:
    """The data lines of part file ``path`` (chunk ``k``, without the header and line ends)
    after checking its bytes against the checksum in its name, its text (UTF-8, a whole last
    line) and its header against ``columns``.  Raises KrakenError naming the part and saying
    how to redo it (:func:`damaged`)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise KrakenError(f"cannot read the part file: {e.strerror or e}", source=path) from None
    digest = hashlib.sha256(data).hexdigest()
    if not os.path.basename(path).endswith(f"-{digest[:16]}.csv"):
        raise damaged(path, k, config, "its bytes do not match the checksum in its name (it "
                       "was changed after it was written)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise damaged(path, k, config, f"byte {e.start + 1} is not UTF-8") from None
    lines = text.split("\n")
    if lines[-1] != "":
        raise damaged(path, k, config, "its last line is cut short")
    header = ",".join(columns)
    if lines[0] != header:
        raise damaged(path, k, config, f"its header is not {header}", line=1)
    return lines[1:-1]


def _checked_part(path: str, k: int, expected, config: BatchConfig, columns) -> str:
    """The rows of part file ``path`` (chunk ``k``, without the header) after checking its
    bytes (:func:`part_lines`) and every row against ``expected`` (the chunk's deals,
    :func:`_expected_chunks`).  Raises KrakenError naming the part and saying how to redo
    it."""
    rows = part_lines(path, k, config, columns)
    start = k * config.chunk_size
    if len(rows) != 4 * len(expected):
        raise damaged(path, k, config, f"it has {count(len(rows), 'row')}, and the chunk's "
                       f"{count(len(expected), 'deal')} have {4 * len(expected)}")
    col = {c: i for i, c in enumerate(columns)}
    ints = [col[c] for c in ("score", "points", "nodes", "played_score", "played_points")
            if c in col]
    floats = [col["ms"]]
    bools = [col[c] for c in ("made", "pit", "played_made", "played_pit") if c in col]
    for i, fields in enumerate(csv.reader(rows)):
        line = i + 2
        if len(fields) != len(columns):
            raise damaged(path, k, config, f"a row of {len(fields)} fields, not "
                           f"{len(columns)}", line)
        deal, first, rules = expected[i // 4]
        want = {"deal_id": str(start + i // 4), "trump": SUITS[i % 4], "deal": deal,
                "first": first, "rules": rules}
        for c, v in want.items():
            if fields[col[c]] != v:
                raise damaged(path, k, config, f"{c} {fields[col[c]]!r} where this chunk has "
                               f"{v!r}", line)
        for j in ints:
            if not re.fullmatch(r"-?[0-9]{1,12}", fields[j]):
                raise damaged(path, k, config, f"{columns[j]} {fields[j]!r} is not a whole "
                               "number", line)
        for j in floats:
            if not re.fullmatch(r"[0-9]{1,12}(\.[0-9]{1,6})?", fields[j]):
                raise damaged(path, k, config, f"{columns[j]} {fields[j]!r} is not a number of "
                               "milliseconds", line)
        for j in bools:
            if fields[j] not in ("True", "False"):
                raise damaged(path, k, config, f"{columns[j]} {fields[j]!r} is not True or "
                               "False", line)
        for made, score in (("made", "score"), ("played_made", "played_score")):
            if made in col and (fields[col[made]] == "True") != (int(fields[col[score]]) > 0):
                raise damaged(path, k, config, f"{made} does not match the {score} ({made} "
                              f"is {score} > 0)", line)
    return "".join(r + "\n" for r in rows)


def check_done_parts(config: BatchConfig, parts_dir: str, parts: dict, columns,
                     kind: StoreKind | None = None) -> None:
    """Check every part file of ``parts`` against its chunk (``kind.check_part``, the batch's
    :func:`_checked_part` by default); for an input file this reads it to the end (and sets
    ``config.deals``).  Raises KrakenError."""
    kind = kind or BATCH_STORE
    seen = set()
    _check_input_unchanged(config)
    for k, expected in _expected_chunks(config, wanted=set(parts)):
        kind.check_part(os.path.join(parts_dir, parts[k]), k, expected, config, columns)
        seen.add(k)
    for k in sorted(set(parts) - seen):
        raise KrakenError(f"part file of chunk {k}, and the input has "
                          f"{count(config.n_chunks, 'chunk')} ({count(config.deals, 'deal')}): "
                          "it does not belong to this run; delete it "
                          "and run the same command with --resume",
                          source=os.path.join(parts_dir, parts[k]))


def remove_empty_dir(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass


def _new_meta(config, session, cols) -> dict:
    from .. import __version__
    cfg = config.to_dict()
    return {
        "tool": "kraken-batch", "version": __version__, "status": "running",
        "config": cfg, "config_sha256": config_digest(cfg),
        "command": session["command"], "argv": session["argv"],
        "seed": cfg["seed"], "deals": config.deals, "chunk_size": config.chunk_size,
        "deal_generation": ("SeedSequence(seed); deal i = permutation i % 64 of "
                            "default_rng(SeedSequence(seed, spawn_key=(i // 64,))); "
                            "hands N E S W = cards 0-7, 8-15, 16-23, 24-31"
                            if not config.input and not config.conditioned else
                            "the deals that meet 'where' and hold 'predeal' "
                            "(kraken_solver.dealing.generator): deals 64 b .. 64 b + 63 are the "
                            "first 64 candidates that meet them drawn by default_rng("
                            "SeedSequence(seed, spawn_key=(b,)))" if not config.input else None),
        "where": config.where, "predeal": config.predeal,
        "max_tries": config.max_tries if config.conditioned else None,
        "input": config.input, "input_sha256": config.input_sha256,
        "rules": cfg["rules"] if cfg["rules"] else "from the input file",
        "first": cfg["first"] if cfg["first"] else "from the input file",
        "objectives": list(config.objectives), "format": config.fmt,
        "columns": [{"name": n, "type": t, "meaning": m} for n, t, m in cols],
        "timing_columns": list(TIMING_COLUMNS),
        "note": ("rows are in deal_id order, trumps S H D C within a deal; values in "
                 "points from the playing team's side (RULES.md section 8); nodes and ms "
                 "measure the work and vary from run to run (also after a resume): "
                 "compare runs on the other columns; output_sha256 is the SHA-256 of the "
                 "output file this sidecar describes"),
        "sessions": [],
    }


def meta_to_run(config, out, parts_dir, meta_path, cols, resume, session, log,
                kind: StoreKind | None = None):
    """The sidecar this run continues (an unfinished run's, with resume) or starts
    (``kind.new_meta``), after checking that the part files in ``parts_dir`` belong to it;
    None when a resumed run is complete already.  Called with the lock held; changes
    nothing.  Raises KrakenError."""
    kind = kind or BATCH_STORE
    _new_meta = kind.new_meta
    cfg = config.to_dict()
    parts = list_parts(parts_dir, tool=kind.tool)
    n = len(parts)
    running = _read_meta(os.path.join(parts_dir, RUN_META), kind.tool)
    if running is not None:
        _check_config_digest(running, os.path.join(parts_dir, RUN_META))
        if not resume:
            if n:
                raise KrakenError(f"{parts_dir} holds an unfinished run "
                                  f"({count(n, 'chunk')} done): "
                                  "finish it with --resume (same options), or delete "
                                  f"{parts_dir} to start over")
            return _new_meta(config, session, cols)     # it finished no chunk: start over
        diff = _config_diff(running["config"], cfg)
        if diff:
            raise KrakenError("cannot resume: the configuration differs from the unfinished "
                              "run's (" + "; ".join(diff) + "); give the same options, use "
                              f"another output file, or delete {parts_dir} to start over",
                              source=os.path.join(parts_dir, RUN_META))
        return running
    if n:
        # without a sidecar --resume cannot take them either: say so, not "use --resume"
        raise KrakenError(f"{'cannot resume: ' if resume else ''}{parts_dir} holds {n} "
                          f"finished chunk{'s' if n != 1 else ''} but there is no sidecar "
                          f"{os.path.join(parts_dir, RUN_META)} recording their options, so "
                          f"they cannot be checked; delete {parts_dir} to start over")
    if resume:
        done = _read_meta(meta_path, kind.tool)
        if done is not None:
            _check_config_digest(done, meta_path)
            diff = _config_diff(done["config"], cfg)
            if diff:
                raise KrakenError("cannot resume: the configuration differs from the earlier "
                                  "run's (" + "; ".join(diff) + "); give the same options, "
                                  "use another output file, or run without --resume to start "
                                  "over", source=meta_path)
            if done["status"] == "complete" and os.path.exists(out):
                want = done.get("output_sha256")
                if want is not None and _file_sha256(out) != want:
                    raise KrakenError("the output does not match its sidecar (its SHA-256 "
                                      f"differs from the one {meta_path} records): run without "
                                      "--resume to make it again", source=out)
                rows = done.get("rows")
                log(f"{out} is already complete ("
                    + (count(rows, "row") if isinstance(rows, int) else "every row")
                    + "); nothing to do")
                return None
    return _new_meta(config, session, cols)


def lock_dir(parts_dir: str, out: str, tool: str = "kraken-batch"):
    """Make the work directory if needed and hold an exclusive lock on it: one run at a time
    per output.  Returns (file descriptor or None, whether this call made the directory).
    Raises KrakenError when it cannot be made or another run holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        fcntl = None
    for _ in range(5):
        created = False
        try:
            os.mkdir(parts_dir)
            created = True
        except FileExistsError:
            pass
        except OSError as e:
            raise KrakenError(f"cannot make the work directory: {e.strerror or e}",
                              source=parts_dir) from None
        if fcntl is None:  # pragma: no cover
            return None, created
        try:
            fd = os.open(parts_dir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except FileNotFoundError:
            continue                # removed by a run that just finished: make it again
        except OSError as e:
            raise KrakenError(f"cannot open the work directory: {e.strerror or e}",
                              source=parts_dir) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise KrakenError(f"another run (kraken-batch or kraken-arena) is writing {out} "
                              f"(its work directory {parts_dir} is locked)") from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(parts_dir))
        except OSError:
            same = False
        if same:
            return fd, created
        os.close(fd)                # locked a directory that another run has just removed
    raise KrakenError(f"the work directory {parts_dir} keeps being removed by another "
                      f"{tool}; try again")


def _schema_pa(columns, kinds=None):
    import pyarrow as pa
    types = {"int64": pa.int64(), "string": pa.string(), "bool": pa.bool_(),
             "float64": pa.float64()}
    from .play import PLAY_COLUMNS
    kinds = kinds or {c[0]: c[1] for c in COLUMNS + PLAY_COLUMNS}
    return pa.schema([(c, types[kinds[c]]) for c in columns])


def assemble(config: BatchConfig, out: str, parts_dir: str, columns: list[str],
             inputs, kind: StoreKind | None = None) -> tuple[int, str, int]:
    """Join the part files in chunk order into ``out`` (atomically, every part checked first:
    ``kind.check_part``, the batch's :func:`_checked_part` by default); return (rows,
    SHA-256 of the output, its size in bytes)."""
    kind = kind or BATCH_STORE
    parts = list_parts(parts_dir, config.n_chunks, tool=kind.tool)
    missing = [k for k in range(config.n_chunks) if k not in parts]
    if missing:
        raise KrakenError(f"chunk {missing[0]} has no part file "
                          f"({count(len(missing), 'chunk')} missing): "
                          "run the same command with --resume to solve them", source=parts_dir)
    rows = 0
    header = ",".join(columns)
    _check_input_unchanged(config)

    def checked():
        for k, expected in _expected_chunks(config):
            yield kind.check_part(os.path.join(parts_dir, parts[k]), k, expected, config,
                                  columns)

    if config.fmt == "csv":
        with atomic_open(out, "w", what="the output", inputs=inputs, newline="") as dst:
            dst.write(header + "\n")
            for body in checked():
                dst.write(body)
                rows += body.count("\n")
    else:
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq
        schema = _schema_pa(columns, kind.kinds)
        with atomic_open(out, "wb", what="the output", inputs=inputs) as dst:
            writer = pq.ParquetWriter(dst, schema)
            try:
                for body in checked():
                    rows += body.count("\n")
                    table = pacsv.read_csv(
                        io.BytesIO((header + "\n" + body).encode("utf-8")),
                        convert_options=pacsv.ConvertOptions(
                            column_types=schema, true_values=["True"],
                            false_values=["False"], strings_can_be_null=False))
                    writer.write_table(table.select(columns).cast(schema))
            finally:
                writer.close()
    return rows, _file_sha256(out), os.path.getsize(out)


@dataclass(frozen=True)
class StoreKind:
    """What a store's files hold, for a tool that stores its rows as the batch does (the
    arena): ``tool`` (named in the sidecar and in messages), ``check_part(path, k, expected,
    config, columns)`` (the rows of a part file, checked; raises KrakenError), ``new_meta(config,
    session, cols)`` (the sidecar of a new run), ``kinds`` (column -> type name, for
    Parquet)."""
    tool: str
    check_part: Callable
    new_meta: Callable
    kinds: dict | None = None


#: the batch's own store
BATCH_STORE = StoreKind("kraken-batch", _checked_part, _new_meta)


def read_results(path: str):
    """Read a batch output (CSV or Parquet, told apart by the file's first bytes) into a
    pandas DataFrame with the column types of :data:`COLUMNS`.  The columns that
    :func:`kraken_solver.batch.summary.summarize` uses are checked
    (:func:`kraken_solver.batch.summary.check_results`).  Raises KrakenError for a file that cannot
    be read, is not UTF-8 text (CSV: the line and column of the first bad byte), lacks a
    column or holds a bad value (naming the line, or the row of a Parquet file, and the
    column)."""
    import pandas as pd

    from .summary import check_results
    path = os.fspath(path)
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            # a device such as /dev/zero would be read until the memory is full
            raise KrakenError(f"a batch file is a regular file; this is {file_kind(st.st_mode)}",
                              source=path)
        parquet = _is_parquet(path)
        if parquet:
            require_pyarrow()
            df = _read_parquet(path)
        else:
            _check_utf8(path)
            # every value as written: check_results converts and reports a bad one
            df = pd.read_csv(path, dtype={"deal": str, "first": str, "trump": str,
                                          "rules": str}, keep_default_na=False)
    except KrakenError:
        raise
    except (OSError, ValueError, TypeError) as e:
        raise KrakenError(f"cannot read the batch file: {_one_line(e)}", source=path) from None
    return check_results(df, source=path,
                         line_of=None if parquet else lambda row: _csv_line(path, row))


def _one_line(err) -> str:
    text = " ".join(str(err).split())
    return text if len(text) <= 200 else text[:197] + "..."


def _read_parquet(path: str):
    """A Parquet batch file as a DataFrame; KrakenError (not pyarrow's own exception types)
    for one that is damaged."""
    import pyarrow
    import pyarrow.parquet as pq
    try:
        return pq.read_table(path).to_pandas()
    except (pyarrow.ArrowException, OSError, ValueError, TypeError, KeyError,
            NotImplementedError, IndexError) as e:
        raise KrakenError(f"cannot read the Parquet file: {_one_line(e)}", source=path) \
            from None


def _check_utf8(path: str) -> None:
    """Raise KrakenError at the line and column of the first byte of ``path`` that is not
    UTF-8 (pandas would name a position inside one of its blocks)."""
    import codecs
    decoder = codecs.getincrementaldecoder("utf-8")()
    with open(path, "rb") as f:
        try:
            for block in iter(lambda: f.read(1 << 20), b""):
                decoder.decode(block)
            decoder.decode(b"", final=True)
            return
        except UnicodeDecodeError:
            pass
    # find the bad byte by reading again, line by line (only on this error path)
    with open(path, "rb") as f:
        for number, raw in enumerate(f, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as e:
                column = len(raw[:e.start].decode("utf-8", "replace")) + 1
                raise KrakenError(f"not a UTF-8 text file (byte 0x{raw[e.start]:02X} is not "
                                  "UTF-8)", source=path, line=number, column=column) from None


def _is_parquet(path: str) -> bool:
    """Does the file start as a Parquet file does (its magic bytes)?  Raises OSError."""
    with open(path, "rb") as f:
        return f.read(4) == b"PAR1"


def line_locator(path: str):
    """For the errors of a batch file read by :func:`read_results`: a function from a data
    row (0-based) to its line in a CSV file, or None for a Parquet file (rows are named) or
    one that cannot be read."""
    path = os.fspath(path)
    try:
        if _is_parquet(path):
            return None
    except OSError:
        return None
    return lambda row: _csv_line(path, row)


def _csv_line(path: str, row: int) -> int | None:
    """The line number (1-based) of data row ``row`` (0-based) of a CSV file as pandas reads
    it: after the header, blank lines skipped.  None when the file is shorter."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            next(f, None)
            seen = -1
            for number, text in enumerate(f, start=2):
                if text.strip():
                    seen += 1
                    if seen == row:
                        return number
    except OSError:
        pass
    return None
