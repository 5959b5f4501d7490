"""The configuration of a ``kraken-batch`` run: what is solved, and how its output is named.

A :class:`BatchConfig` (:func:`make_config`, which checks every value a user gives) says which
deals (``deals`` seeded deals of ``seed``, :mod:`kraken_solver.dealing.seeded`, or the deals of
an ``input`` file, read as :mod:`kraken_solver.notation.dealfile` reads it), the first player,
the rules, the objectives (``score``, ``points``), the chunk size and the output format (CSV or
Parquet).  Every (deal, trump) gives one row of :data:`COLUMNS` (:func:`columns_for`); values
are in points, from the playing team's side.  A resumed run must have the same configuration
as the unfinished one (:mod:`kraken_solver.batch.store` compares them), so an input file is
recorded with its SHA-256 (:func:`hash_input`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import stat
from dataclasses import dataclass

from ..errors import KrakenError
from ..game.cards import SEATS, is_int
from ..game.rules import Rules, as_rules
from ..limits import DEFAULT_DEAL_TRIES, MAX_BATCH_DEALS
from ..notation.outputs import file_kind

#: the most deals one batch takes (``limits.MAX_BATCH_DEALS``)
MAX_DEALS = MAX_BATCH_DEALS
#: default number of deals in one work chunk (one part file)
CHUNK_SIZE = 64
FORMATS = ("csv", "parquet")
#: the file name extensions that name a format (another extension takes either)
FORMAT_EXTENSIONS = {"csv": (".csv",), "parquet": (".parquet", ".pq")}
OBJECTIVES = ("score", "points")

#: (name, type, meaning) of every column of a batch file, in order
COLUMNS = (
    ("deal_id", "int64", "0-based index of the deal (generated order, or order in the input file)"),
    ("deal", "string", "the deal as PBN from N: 'N:S.H.D.C S.H.D.C S.H.D.C S.H.D.C'"),
    ("first", "string", "the first player N/E/S/W (chooses trump, leads; their team plays)"),
    ("trump", "string", "the trump suit S/H/D/C"),
    ("rules", "string", "Rules.name of the rules the deal was solved under"),
    ("score", "int64", "double-dummy score, points, playing team's side (RULES.md rule 23)"),
    ("made", "bool", "score > 0 (rule 25)"),
    ("points", "int64", "double-dummy card points + trick roem of the playing team (rule 24); "
                        "only with objective points"),
    ("pit", "bool", "the playing team can force winning every trick (double dummy)"),
    ("nodes", "int64", "search nodes spent on this (deal, trump): timing, varies from run to run"),
    ("ms", "float64", "wall milliseconds spent on this (deal, trump): timing, varies"),
)
#: columns that measure the work done, not the result: they differ between runs
TIMING_COLUMNS = ("nodes", "ms")


def columns_for(objectives, play=None) -> list[tuple[str, str, str]]:
    """The columns of a batch file for ``objectives`` (``points`` only when asked), and the
    played columns (:data:`~kraken_solver.batch.play.PLAY_COLUMNS`) when ``play`` names a
    bot."""
    from .play import PLAY_COLUMNS
    return [c for c in COLUMNS if c[0] != "points" or "points" in objectives] + \
        (list(PLAY_COLUMNS) if play else [])


# ----------------------------------------------------------------------------- the batch
@dataclass
class BatchConfig:
    """What a batch computes; resuming requires the same configuration.

    - ``deals``: number of deals; ``seed``: the SeedSequence seed (generated deals), or
      ``input`` a deal file (then ``deals`` is the file's number of deals, known once the file
      has been read to its end: None before).
    - ``first``: the first player 0..3 for generated deals, or the override for the input
      (None: the file's); ``rules``: Rules, or None for the input file's rules.
    - ``objectives``: ``("score",)`` or ``("score", "points")``: score is always computed.
    - ``chunk_size``: deals a part file; ``fmt``: ``"csv"`` or ``"parquet"``.
    - ``input_sha256``, ``input_bytes``: of exactly the bytes of the input read.
    - ``play``: the bot spec that also plays every (deal, trump) at all four seats
      (:mod:`kraken_solver.batch.play`), None without; ``play_seed``: its seed.
    """
    deals: int | None = 0
    seed: int | None = 1
    first: int | None = 0
    rules: Rules | None = None
    objectives: tuple = ("score",)
    chunk_size: int = CHUNK_SIZE
    fmt: str = "csv"
    input: str | None = None
    input_sha256: str | None = None
    input_bytes: int | None = None
    #: the condition of the generated deals (``--where``, ``--predeal``) as canonical text,
    #: None for none (:mod:`kraken_solver.dealing.generator`)
    where: str | None = None
    predeal: str | None = None
    #: the most candidates a block of 64 conditioned deals tests: it never changes the deals,
    #: only whether a too rare condition stops
    max_tries: int = dataclasses.field(default=DEFAULT_DEAL_TRIES, compare=False)
    # --play: the bot spec playing every (deal, trump) at four seats, and its seed
    play: str | None = None
    play_seed: int = 0
    # the input as the user named it, for messages (``input`` is absolute, for the workers
    # and a resume from another folder); not part of the configuration compared
    input_name: str | None = dataclasses.field(default=None, compare=False)

    @property
    def input_shown(self) -> str | None:
        """The input file's name for messages: as the user gave it."""
        return self.input_name or self.input

    def to_dict(self) -> dict:
        """The compared part of the sidecar (JSON types).  For an input file its checksum and
        size stand for its deals (their number is found while the batch runs)."""
        return {
            "source": "input" if self.input else "generated",
            "seed": self.seed if not self.input else None,
            "deals": self.deals if not self.input else None,
            "chunk_size": self.chunk_size,
            "first": SEATS[self.first] if self.first is not None else None,
            "rules": None if self.rules is None else {"name": self.rules.name,
                                                      "options": self.rules.to_dict()},
            "objectives": list(self.objectives),
            "format": self.fmt,
            "input_sha256": self.input_sha256,
            "input_bytes": self.input_bytes,
            # only when given: a sidecar of a run without a condition reads as before
            **({"where": self.where} if self.where else {}),
            **({"predeal": self.predeal} if self.predeal else {}),
            # only with --play, so that the sidecars of other runs compare as they were
            **({"play": {"bot": self.play, "seed": self.play_seed}} if self.play else {}),
        }

    @property
    def conditioned(self) -> bool:
        """Are the generated deals those that meet a condition (``--where``/``--predeal``)?"""
        return bool(self.where or self.predeal)

    def stream(self) -> tuple:
        """What a worker needs to make the generated deals: (seed, where, predeal,
        max_tries), for :func:`stream_deals`."""
        return (self.seed, self.where, self.predeal, self.max_tries)

    @property
    def n_chunks(self) -> int | None:
        return None if self.deals is None else -(-self.deals // self.chunk_size)

    def chunk_range(self, k: int) -> tuple[int, int]:
        stop = (k + 1) * self.chunk_size
        return k * self.chunk_size, stop if self.deals is None else min(self.deals, stop)

    def reader(self):
        """A :class:`~kraken_solver.notation.reader.DealReader` of the input (its overrides, and the
        batch's check: deals as dealt)."""
        from ..notation.reader import DealReader
        return DealReader(self.input, first=self.first, rules=self.rules, check=_as_dealt,
                          name=self.input_shown)


def stream_deals(stream: tuple, start: int, stop: int) -> list:
    """Deals ``start .. stop-1`` of a :meth:`BatchConfig.stream`: the seeded deals
    (:func:`~kraken_solver.dealing.seeded.generate_deals`), or with a condition those of
    :class:`~kraken_solver.dealing.generator.Condition` (the same seed, the same deals).
    Raises ImpossibleConditionError when a block tests ``max_tries`` candidates in vain."""
    seed, where, predeal, max_tries = stream
    if not where and not predeal:
        from ..dealing.seeded import generate_deals
        return generate_deals(seed, start, stop)
    from ..dealing.generator import condition_for
    return condition_for(where or None, predeal or None).deals(seed, start, stop,
                                                               max_tries=max_tries)


def _as_dealt(spec) -> None:
    if spec.played:
        raise KrakenError("expected deals as dealt, but this deal has played cards ([Play]): "
                          "remove them (kraken-solve and kraken-analyse take a part-played "
                          "deal)", source=spec.source, line=spec.line)


def condition_texts(where, predeal, max_tries, input=None) -> tuple:
    """``(where, predeal, max_tries)`` of a run's condition, checked: the canonical texts
    (None when not given) a sidecar records and a resume compares.  Raises PredicateError,
    PredealError, ImpossibleConditionError, and KrakenError with ``input`` (a condition
    chooses among generated deals)."""
    if where is None and not predeal:
        return None, None, max_tries
    if input is not None:
        raise KrakenError("--where and --predeal choose among generated deals: give --deals "
                          "N, not --input")
    from ..dealing.generator import check_max_tries, condition_for, read_where
    from ..dealing.predeal import parse_predeal
    from ..dealing.predeal import predeal_text as canonical_predeal
    node = read_where(where)
    where_text = str(node) if node is not None else None
    predeal_text = canonical_predeal(parse_predeal(predeal)) or None
    condition_for(where_text, predeal_text)          # refuses the impossible now
    return where_text, predeal_text, check_max_tries(max_tries)


def make_config(*, deals: int | None = None, seed: int | None = 1, input: str | None = None,
                first=None, rules=None, objectives=("score",), chunk_size: int = CHUNK_SIZE,
                fmt: str = "csv", where=None, predeal=None,
                max_tries: int = DEFAULT_DEAL_TRIES, play: str | None = None,
                play_seed: int = 0) -> BatchConfig:
    """Check the options of a batch and build its :class:`BatchConfig`.

    Either ``deals`` (with ``seed``) or ``input`` (a deal file, a regular file: the deals as
    dealt, all four trumps, played cards not allowed; its SHA-256 is taken of the bytes read,
    and its first megabyte is checked now, the rest while the batch runs).  ``first``/``rules``
    default to N and ``kraken`` for generated deals and to the file's values for an input
    file.  ``where``/``predeal``: deal only the seeded deals that meet a condition
    (:class:`~kraken_solver.dealing.generator.Condition`; recorded canonically, compared on
    resume; not with ``input``), ``max_tries`` the bound on one block's candidates.
    ``play``/``play_seed``: a card-play bot spec and its seed
    (:func:`~kraken_solver.batch.play.check_play`).  Raises KrakenError (PredicateError,
    PredealError, ImpossibleConditionError for the condition; the deal-file errors of
    :class:`~kraken_solver.notation.reader.DealReader`)."""
    from ..game.cards import as_seat
    bad = [o for o in objectives if o not in OBJECTIVES]
    if bad:
        raise KrakenError("objectives are score and points", token=str(bad[0]))
    objectives = tuple(o for o in OBJECTIVES if o in set(objectives) | {"score"})
    if fmt not in FORMATS:
        raise KrakenError("the format is csv or parquet", token=str(fmt))
    if fmt == "parquet":
        require_pyarrow()
    if not is_int(chunk_size) or not 1 <= int(chunk_size) <= 100000:
        raise KrakenError("the chunk size must be from 1 to 100000", token=str(chunk_size))
    if play is not None:
        from .play import check_play
        play, play_seed = check_play(play, play_seed)
    else:
        play_seed = 0
    played = {"play": play, "play_seed": play_seed}
    first_i = as_seat(first) if first is not None else None
    rules_r = as_rules(rules) if rules is not None else None
    where_text, predeal_text, max_tries = condition_texts(where, predeal, max_tries, input)
    if input is not None:
        if deals is not None:
            raise KrakenError("give either a number of deals or an input file, not both")
        digest, size = hash_input(input)
        config = BatchConfig(deals=None, seed=None, first=first_i, rules=rules_r,
                             objectives=objectives, chunk_size=int(chunk_size), fmt=fmt,
                             input=os.path.abspath(input), input_sha256=digest,
                             input_bytes=size, input_name=os.fspath(input), **played)
        config.reader().check_ahead()
        return config
    if deals is None or not is_int(deals) or int(deals) < 1 or int(deals) > MAX_DEALS:
        raise KrakenError(f"the number of deals must be from 1 to {MAX_DEALS:,}",
                          token=str(deals))
    if seed is None or not is_int(seed) or int(seed) < 0:
        raise KrakenError("the seed must be a whole number >= 0", token=str(seed))
    return BatchConfig(deals=int(deals), seed=int(seed),
                       first=first_i if first_i is not None else 0,
                       rules=rules_r if rules_r is not None else Rules(),
                       objectives=objectives, chunk_size=int(chunk_size), fmt=fmt,
                       where=where_text, predeal=predeal_text, max_tries=int(max_tries),
                       **played)


def hash_input(path) -> tuple[str, int]:
    """SHA-256 and size of exactly the bytes of the input file read now.  Raises KrakenError
    for ``-``, a file that is not a regular file (a pipe is read once; the batch reads its
    input again while it runs, to check its rows and to resume), one too large or that
    cannot be read."""
    from ..notation.reader import MAX_FILE_BYTES
    name = os.fspath(path)
    if name == "-":
        raise KrakenError("the batch's input must be a regular file, not standard input: it is "
                          "read again while the batch runs and to resume; save it to a file "
                          "first", token="-")
    def refuse(mode):
        return KrakenError("the batch's input must be a regular file, and this is "
                           f"{file_kind(mode)}: it is read again while the batch runs and "
                           "to resume (a pipe can be read once); save it to a file first",
                           source=name)
    try:
        st = os.stat(name)              # before opening: opening a named pipe would wait
        if not stat.S_ISREG(st.st_mode):
            raise refuse(st.st_mode)
        with open(name, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise refuse(st.st_mode)
            h = hashlib.sha256()
            size = 0
            while True:
                block = f.read(1 << 20)
                if not block:
                    break
                size += len(block)
                if size > MAX_FILE_BYTES:
                    raise KrakenError(f"the file is larger than {MAX_FILE_BYTES // 2**20} MiB; "
                                      "a deal file is at most that (split it into smaller "
                                      "files)", source=name)
                h.update(block)
    except OSError as e:
        raise KrakenError(f"cannot read the file: {e.strerror or e}", source=name) from None
    return h.hexdigest(), size


def require_pyarrow():
    """Import pyarrow or raise KrakenError saying how to install it."""
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise KrakenError("Parquet needs pyarrow: pip install 'pyarrow>=14' "
                          "(or pip install 'kraken-solver[parquet]')") from None
    return pyarrow


def format_for(out: str, fmt: str | None = None) -> str:
    """The format of output ``out``: ``fmt`` if given, else the one its extension names
    (``.parquet``/``.pq``: parquet; otherwise csv).  Raises KrakenError when ``fmt``
    contradicts the extension (``--format parquet --out x.csv``)."""
    lower = os.fspath(out).lower()
    named = next((f for f, exts in FORMAT_EXTENSIONS.items() if lower.endswith(exts)), None)
    if fmt is None:
        return named or "csv"
    if named is not None and named != fmt:
        raise KrakenError(f"the format is {fmt} but the output's name says {named}: give a name "
                          f"ending in {FORMAT_EXTENSIONS[fmt][0]} (or another extension), or "
                          f"--format {named}", source=os.fspath(out))
    return fmt


def paths_for(out: str) -> tuple[str, str]:
    """(work directory of part files, sidecar path) for the output ``out`` (beside the file a
    link names, when ``out`` is a symbolic link: the output is written through it)."""
    out = os.fspath(out)
    base = os.path.realpath(out) if os.path.islink(out) else out
    return base + ".parts", base + ".meta.json"
