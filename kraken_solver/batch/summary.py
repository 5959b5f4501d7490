"""Summaries of a ``kraken-batch`` file (``kraken-batch summarize``): trump choice statistics.

Every row of a batch file is one (deal, trump) with its exact double-dummy values (points,
the playing team's side).  :func:`summarize` describes each trump choice by the first player's
own holding in that suit (the trump length, and which of the trump jack and nine the hand
holds) and gives, per group: the number of (deal, trump) rows, the mean score, P(made), the
mean points (when the file has them) and P(pit) (the playing team can force every trick;
see :mod:`kraken_solver.engine.trumps`).  It also gives the distribution of the best trump's score
per deal, and how simple trump-choice rules that players use compare with the double-dummy
best trump: how often they pick a best trump and what they cost, in points per deal.

The trump-choice rules, each a sort key over the four suits of the first player's hand (the
highest key wins; ties go to the suit first in the order S, H, D, C):

- ``double-dummy best``: the highest score (the yardstick: it always picks a best trump);
- ``longest suit``: most cards, then most trump points (J 20, 9 14, A 11, T 10, K 4, Q 3);
- ``most trump points``: most trump points held in the suit, then most cards;
- ``holds the jack``: a suit whose jack the hand holds, then most cards, then trump points;
- ``jack and nine``: a suit with both jack and nine, else one with the jack, then most cards,
  then trump points;
- ``most of J, 9, A``: most of the three top trumps, then most cards, then trump points;
- ``best points`` (files with points): the highest double-dummy points, then score;
- ``random suit``: each suit with probability 1/4 (expectations, no draw).

A rule's *cost* on a deal is the best trump's score minus the score of the trump it picks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ..errors import KrakenError
from ..game.cards import RANKS, SEATS, SUITS
from ..game.choice import SIMPLE_RULES, TRUMP_RANK_POINTS
from ..game.deal import Deal

HONOURS = ("J+9", "J", "9", "neither")
SUIT_ORDER = {"S": 0, "H": 1, "D": 2, "C": 3}


@dataclass
class Summary:
    """The tables of :func:`summarize` (pandas DataFrames; scores and points in points,
    probabilities as fractions 0..1).

    - ``by_length``: per trump length (cards of the trump suit in the first player's hand).
    - ``by_honours``: per holding of the trump jack and nine: ``J+9``, ``J``, ``9``, ``neither``.
    - ``by_length_honours``: per (length, honours).
    - ``best``: the best trump's score per deal: count, mean, std, min, percentiles, max,
      P(made) of the best trump.
    - ``best_hist``: histogram of the best trump's score (bins of ``bin_width`` points, or a
      multiple of it so that a group has at most about 40 bins).
    - ``rules``: per trump-choice rule: P(picks a best trump), mean cost per deal, mean score,
      P(made), mean points, P(pit).
    - ``choices``: per (deal, rule) the chosen trump and its values (for plots).
    - ``deals``, ``rows``: counts; ``has_points``, ``has_pit``: which columns the file has.
    - ``played`` (files of ``kraken-batch --play``, else None): per trump-choice rule the
      double-dummy and the played score of the trump it picks
      (:func:`~kraken_solver.batch.play.played_table`).
    """
    by_length: object
    by_honours: object
    by_length_honours: object
    best: object
    best_hist: object
    rules: object
    choices: object
    deals: int
    rows: int
    has_points: bool
    has_pit: bool
    rules_names: list = field(default_factory=list)
    played: object = None


#: the columns summarize needs; ``points`` and ``pit`` are used when present
REQUIRED_COLUMNS = ("deal_id", "deal", "first", "trump", "score", "made")
_INT_COLUMNS = ("deal_id", "score", "points", "played_score", "played_points")
_BOOL_COLUMNS = ("made", "pit", "played_made", "played_pit")
_BOOL_WORDS = {"true": True, "false": False, "1": True, "0": False}
_BOOL_WORDS_ANY_CASE = {}
for _word, _value in _BOOL_WORDS.items():
    for _n in range(1 << len(_word)):       # every ASCII capitalisation: TRUE, True, tRuE ...
        _BOOL_WORDS_ANY_CASE["".join(c.upper() if _n >> i & 1 else c
                                     for i, c in enumerate(_word))] = _value
_HOLDING = r"[AKQJT987]{0,8}"
_HAND = rf"{_HOLDING}\.{_HOLDING}\.{_HOLDING}\.{_HOLDING}"
#: the PBN form kraken-batch writes (str(Deal)), read vectorised; other forms by Deal.from_pbn
_CANONICAL_PBN = rf"[NESW]:{_HAND} {_HAND} {_HAND} {_HAND}"
#: byte -> index of the rank in RANKS (its bit in a suit), or -1; byte -> index of the seat
_RANK_INDEX = np.array([RANKS.find(chr(b)) for b in range(256)], dtype=np.int8)
_SEAT_INDEX = np.array([max(0, SEATS.find(chr(b))) for b in range(256)], dtype=np.int8)
_POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)
#: trump points of a suit's 8-bit holding (bit i = rank RANKS[i])
_TRUMP_POINTS8 = np.array([sum(TRUMP_RANK_POINTS[RANKS[b]] for b in range(8) if i >> b & 1)
                           for i in range(256)], dtype=np.int64)


def _popcount32(x):
    x = np.ascontiguousarray(x, dtype=np.uint32)
    return _POPCOUNT8[x.view(np.uint8).reshape(x.shape + (4,))].sum(axis=-1)


def _bad_value(column, what, row, value, source, line_of) -> KrakenError:
    """The error for data row ``row`` (0-based) of ``column``: the file's line when
    ``line_of`` gives it, else the row (1-based)."""
    line = line_of(row) if line_of is not None else None
    where = f"column {column!r}" if line is not None else f"row {row + 1}, column {column!r}"
    return KrakenError(f"{where}: {what}", source=source, line=line, token=str(value))


#: the largest magnitude a whole-number column may hold (scores are a few thousand points;
#: far larger values would wrap around in int64 or lose digits in float64)
INT_LIMIT = 10**9


def _int_column(s, name, source, line_of):
    import pandas as pd
    if s.dtype.kind == "b":         # True is not a number of points
        num = np.zeros(len(s))
        ok = np.zeros(len(s), dtype=bool)
    else:
        num = pd.to_numeric(s, errors="coerce").astype("float64").to_numpy()
        ok = np.isfinite(num) & (num == np.floor(num)) & (np.abs(num) <= INT_LIMIT)
    if not ok.all():
        row = int(np.argmin(ok))
        raise _bad_value(name, f"expected a whole number from -{INT_LIMIT:,} to {INT_LIMIT:,}",
                         row, s.iloc[row], source, line_of)
    return pd.Series(num.astype(np.int64), index=s.index)


def _bool_column(s, name, source, line_of):
    if s.dtype.kind == "b" and not s.isna().any():
        return s.astype(bool)
    # only the ASCII words: str.lower would fold other letters too (the Kelvin sign to 'k')
    mapped = s.astype(str).str.strip().map(_BOOL_WORDS_ANY_CASE)
    ok = mapped.notna().to_numpy()
    if not ok.all():
        row = int(np.argmin(ok))
        raise _bad_value(name, "expected True or False", row, s.iloc[row], source, line_of)
    return mapped.astype(bool)


def _letter_column(s, name, letters, what, source, line_of):
    # the ASCII letters and their lower case only (str.upper turns 'ſ' into 'S')
    fold = {c: c for c in letters} | {c.lower(): c for c in letters}
    up = s.astype(str).str.strip().map(fold)
    ok = up.notna().to_numpy() & s.notna().to_numpy()
    if not ok.all():
        row = int(np.argmin(ok))
        raise _bad_value(name, what, row, s.iloc[row], source, line_of)
    return up


def _canonical_hands(texts):
    """Hands (k x 4 uint32 masks, seats N E S W) of deals in the canonical PBN form, and
    whether each is a deal (no card twice, hands of one size 1 to 8)."""
    k = len(texts)
    m = np.array(texts, dtype="S").view(np.uint8).reshape(k, -1)
    start = _SEAT_INDEX[m[:, 0]].astype(np.int64)
    body = m[:, 2:]
    hand = np.cumsum(body == ord(" "), axis=1, dtype=np.int8)
    suit = np.cumsum(body == ord("."), axis=1, dtype=np.int8) - 3 * hand
    rank = _RANK_INDEX[body]
    is_card = rank >= 0
    shift = np.where(is_card, suit * 8 + rank, 0).astype(np.uint32)
    bits = np.where(is_card, np.left_shift(np.uint32(1), shift), np.uint32(0))
    rel = np.stack([np.bitwise_or.reduce(np.where(hand == h, bits, np.uint32(0)), axis=1)
                    for h in range(4)], axis=1).astype(np.uint32)
    cards = np.stack([(is_card & (hand == h)).sum(axis=1) for h in range(4)], axis=1)
    sizes = _popcount32(rel)
    union = _popcount32(rel[:, 0] | rel[:, 1] | rel[:, 2] | rel[:, 3])
    good = ((sizes == cards).all(axis=1) & (union == sizes.sum(axis=1))
            & (sizes == sizes[:, :1]).all(axis=1) & (sizes[:, 0] >= 1) & (sizes[:, 0] <= 8))
    out = np.empty_like(rel)
    out[np.arange(k)[:, None], (start[:, None] + np.arange(4)) % 4] = rel
    return out, good


def deal_hands(deals, *, source: str | None = None, line_of=None):
    """The hands of a column of PBN deals: an (n, 4) array of uint32 card masks, seats N E S W
    (card ``8 * suit + rank``, suits S H D C, ranks 7 8 9 T J Q K A), as
    :meth:`kraken_solver.game.deal.Deal.from_pbn` reads them.  Raises KrakenError for the first
    row that is not a deal, naming it (``line_of(row)`` gives its line in ``source``)."""
    import pandas as pd
    deals = pd.Series(deals).reset_index(drop=True)
    codes, uniques = pd.factorize(deals)
    texts = list(uniques)
    hands_u = np.zeros((len(texts), 4), dtype=np.uint32)
    fast = pd.Series(texts, dtype=object).str.fullmatch(_CANONICAL_PBN) \
        .fillna(False).to_numpy(dtype=bool, copy=True)
    idx = np.flatnonzero(fast)
    for b in range(0, len(idx), 65536):
        sel = idx[b:b + 65536]
        hands_u[sel], good = _canonical_hands([texts[i] for i in sel])
        fast[sel] = good
    first_bad = err = None
    for i in np.flatnonzero(~fast):      # other forms and the bad ones: the full parser
        try:
            hands_u[i] = Deal.from_pbn(texts[i]).hands
        except KrakenError as e:
            first_bad, err = int(i), e
            break
    rows = []
    if first_bad is not None:
        rows.append(int(np.argmax(codes == first_bad)))
    if (codes < 0).any():
        rows.append(int(np.argmax(codes < 0)))
    if rows:
        row = min(rows)
        if codes[row] < 0:
            what = "missing: expected a PBN deal like 'N:S.H.D.C S.H.D.C S.H.D.C S.H.D.C'"
        else:
            what = f"not a deal: {err.message}"
            if err.token is not None:
                what += f", at {err.token!r}"
        raise _bad_value("deal", what, row, deals.iloc[row] if codes[row] >= 0 else "",
                         source, line_of)
    return hands_u[codes]


def _check(df, source=None, line_of=None):
    """check_results, also returning the hands of :func:`deal_hands`."""
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise KrakenError("not a kraken-batch file: missing columns " + ", ".join(missing),
                          source=source)
    df = df.copy()
    for c in ("points", "pit"):
        if c in df.columns and df[c].isna().all():
            df = df.drop(columns=c)         # not computed (rows of a run without them)
    for c in _INT_COLUMNS:
        if c in df.columns:
            df[c] = _int_column(df[c], c, source, line_of)
    for c in _BOOL_COLUMNS:
        if c in df.columns:
            df[c] = _bool_column(df[c], c, source, line_of)
    df["first"] = _letter_column(df["first"], "first", SEATS, "expected a seat N, E, S or W",
                                 source, line_of)
    df["trump"] = _letter_column(df["trump"], "trump", SUITS, "expected a suit S, H, D or C",
                                 source, line_of)
    for made, score in (("made", "score"), ("played_made", "played_score")):
        if made not in df.columns or score not in df.columns:
            continue
        wrong = (df[made] != (df[score] > 0)).to_numpy()
        if wrong.any():
            row = int(np.argmax(wrong))
            raise _bad_value(made, f"does not match the {score} {df[score].iloc[row]} "
                             f"({made} is {score} > 0)", row, df[made].iloc[row], source,
                             line_of)
    text = df["deal"].map(lambda x: isinstance(x, str)).to_numpy(dtype=bool)
    if not text.all():              # a Parquet column of numbers, bytes or lists
        row = int(np.argmin(text))
        raise _bad_value("deal", "expected a PBN deal (text) like 'N:S.H.D.C S.H.D.C S.H.D.C "
                         "S.H.D.C'", row, repr(df["deal"].iloc[row]), source, line_of)
    hands = deal_hands(df["deal"], source=source, line_of=line_of)
    return df, hands


def check_results(df, *, source: str | None = None, line_of=None):
    """Check the columns of a batch DataFrame that :func:`summarize` uses and return a copy
    with their types: ``deal_id``, ``score`` and ``points`` whole numbers, ``made`` and
    ``pit`` booleans (``made`` equal to score > 0), ``first`` a seat, ``trump`` a suit,
    ``deal`` a deal (:func:`deal_hands`); ``points``/``pit`` may be absent (or wholly empty:
    dropped).  Raises KrakenError for a missing column or the first bad value, naming
    ``source``, the line (``line_of(row)`` for the 0-based data row; else the row, 1-based)
    and the column."""
    return _check(df, source, line_of)[0]


def hand_features(df):
    """Per row of a batch DataFrame, the first player's holding in the trump suit:
    ``length``, ``has_j``, ``has_9``, ``honours`` (``J+9``/``J``/``9``/``neither``),
    ``trump_points`` (points of the held trumps) and ``top3`` (how many of J, 9, A).
    Returns a new DataFrame with those columns (same index).  Raises KrakenError for a
    malformed deal or seat."""
    return _hand_features(df, deal_hands(df["deal"]))


def _hand_features(df, hands):
    import pandas as pd

    seat = df["first"].astype(str).map({**{s: i for i, s in enumerate(SEATS)},
                                        **{s.lower(): i for i, s in enumerate(SEATS)}})
    suit = df["trump"].astype(str).map({**SUIT_ORDER,
                                        **{k.lower(): v for k, v in SUIT_ORDER.items()}})
    if seat.isna().any() or suit.isna().any():
        raise KrakenError("a row has a bad first player or trump")
    held = (hands[np.arange(len(df)), seat.to_numpy(dtype=np.int64)]
            >> (8 * suit.to_numpy(dtype=np.uint32))) & 0xFF
    out = pd.DataFrame(index=df.index)
    out["length"] = _POPCOUNT8[held]
    out["has_j"] = (held >> RANKS.index("J") & 1).astype(bool)
    out["has_9"] = (held >> RANKS.index("9") & 1).astype(bool)
    out["honours"] = np.select([out.has_j & out.has_9, out.has_j, out.has_9],
                               ["J+9", "J", "9"], "neither")
    out["trump_points"] = _TRUMP_POINTS8[held]
    out["top3"] = (out.has_j.astype(int) + out.has_9.astype(int)
                   + (held >> RANKS.index("A") & 1).astype(int))
    return out


def _group_table(df, keys, has_points, has_pit):
    agg = {"n": ("score", "size"), "mean_score": ("score", "mean"),
           "p_made": ("made", "mean")}
    if has_points:
        agg["mean_points"] = ("points", "mean")
    if has_pit:
        agg["p_pit"] = ("pit", "mean")
    return df.groupby(keys, sort=True).agg(**agg).reset_index()


#: the rules compared: the double-dummy yardstick, the simple rules of game.choice, best points
CHOICE_RULES = (("double-dummy best", ("score",)), *SIMPLE_RULES.items(),
                ("best points", ("points", "score")))


def _check_deals_agree(df, source, line_of) -> None:
    """Every deal's rows must agree on the deal text, the first player and the rules (its
    four rows are one deal solved for four trumps).  Raises KrakenError naming the first row
    that disagrees and the deal's first row."""
    for column, what in (("deal", "deal"), ("first", "first player"), ("rules", "rules")):
        if column not in df.columns:
            continue
        values = df[column].astype(str)
        head = values.groupby(df["deal_id"]).transform("first")
        wrong = (values != head).to_numpy()
        if wrong.any():
            row = int(np.argmax(wrong))
            deal_id = df["deal_id"].iloc[row]
            first_row = int(np.argmax((df["deal_id"] == deal_id).to_numpy()))
            line = line_of(first_row) if line_of is not None else None
            other = f"line {line}" if line is not None else f"row {first_row + 1}"
            raise _bad_value(column, f"the rows of deal_id {deal_id} disagree on the {what} "
                             f"(this row and {other}, which has {head.iloc[row]!r}): a deal's "
                             "four rows are one deal, solved for each trump", row,
                             values.iloc[row], source, line_of)


def summarize(df, *, bin_width: int = 50, source: str | None = None,
              line_of=None) -> Summary:
    """Summarize a batch DataFrame (from :func:`kraken_solver.batch.store.read_results`).

    Every deal must have its four trump rows, and they must agree on the deal, the first
    player and the rules.  A file that mixes rules (presets, or multipliers: a x8 deal
    scores eight times a x1 deal) is summarized per rules: every table has a first column
    ``rules`` (the rules the rows were solved under, as the batch file's ``rules`` column
    names them; ``?`` when the frame has no such column) and no mean mixes two of them.
    Returns a :class:`Summary`.  Raises KrakenError for an empty file, a bad value in a column
    it uses (:func:`check_results`, naming the row), a deal without all four trumps or whose
    rows disagree (naming its first row).  ``source`` and ``line_of`` (row -> line,
    :func:`kraken_solver.batch.store.line_locator`) place the errors in the file."""
    import pandas as pd

    if len(df) == 0:
        raise KrakenError("the batch file has no rows", source=source)
    df, hands = _check(df.reset_index(drop=True), source, line_of)
    counts = df.groupby("deal_id")["trump"].nunique()
    bad = counts[counts != 4]
    sizes = df.groupby("deal_id").size()
    if len(bad) or sizes.ne(4).any():
        first_bad = bad.index[0] if len(bad) else sizes.ne(4).idxmax()
        row = int(np.argmax((df["deal_id"] == first_bad).to_numpy()))
        raise _bad_value("trump", "every deal needs its four trump rows, one a trump (an "
                         "unfinished file?)", row, f"deal_id {first_bad}", source, line_of)
    _check_deals_agree(df, source, line_of)
    has_points = "points" in df.columns
    has_pit = "pit" in df.columns
    feats = _hand_features(df, hands)
    df = pd.concat([df, feats], axis=1)
    df["has_j9"] = df.has_j & df.has_9
    df["suit_order"] = df["trump"].map(SUIT_ORDER)
    df["rules"] = df["rules"].astype(str) if "rules" in df.columns else "?"
    names = sorted(df["rules"].unique())
    parts = [_summarize_group(df[df["rules"] == name], name, bin_width, has_points, has_pit)
             for name in names]
    tables = {key: pd.concat([p[key] for p in parts], ignore_index=True)
              for key in parts[0]}
    if "played" not in tables:
        tables["played"] = None
    return Summary(**tables, deals=int(df["deal_id"].nunique()), rows=len(df),
                   has_points=has_points, has_pit=has_pit, rules_names=names)


def _summarize_group(df, name, bin_width, has_points, has_pit) -> dict:
    """The tables of one rules group (every table with a first column ``rules``)."""
    import pandas as pd

    by_length = _group_table(df, ["length"], has_points, has_pit)
    by_honours = _group_table(df, ["honours"], has_points, has_pit)
    by_honours["honours"] = pd.Categorical(by_honours["honours"], HONOURS, ordered=True)
    by_honours = by_honours.sort_values("honours").reset_index(drop=True)
    by_honours["honours"] = by_honours["honours"].astype(str)
    blh = _group_table(df, ["length", "honours"], has_points, has_pit)
    blh["_o"] = blh["honours"].map({h: i for i, h in enumerate(HONOURS)})
    by_length_honours = blh.sort_values(["length", "_o"]).drop(columns="_o") \
        .reset_index(drop=True)

    best_score = df.groupby("deal_id")["score"].max()
    deals = int(best_score.size)
    q = best_score.quantile([0.05, 0.25, 0.5, 0.75, 0.95])
    best = pd.DataFrame([{
        "deals": deals, "mean": best_score.mean(),
        "std": best_score.std(ddof=1) if deals > 1 else 0.0,
        # min and max as points among points (one style in the table: -282.0 beside -202.0)
        "min": float(best_score.min()), "p5": q.loc[0.05], "p25": q.loc[0.25],
        "median": q.loc[0.5], "p75": q.loc[0.75], "p95": q.loc[0.95],
        "max": float(best_score.max()), "p_made": float((best_score > 0).mean()),
    }])
    # at most about 40 bins: a group at multiplier 8 spans eight times the points
    span = int(best_score.max()) - int(best_score.min())
    bin_width = bin_width * max(1, -(-span // (bin_width * 40)))
    lo = int(np.floor(best_score.min() / bin_width) * bin_width)
    hi = int(np.floor(best_score.max() / bin_width) * bin_width) + bin_width
    edges = np.arange(lo, hi + 1, bin_width)
    hist, _ = np.histogram(best_score.to_numpy(), bins=edges)
    best_hist = pd.DataFrame({"from": edges[:-1], "to": edges[1:] - 1, "deals": hist,
                              "share": hist / deals})

    df = df.copy()
    df["best"] = df["deal_id"].map(best_score)
    choices = []
    rule_rows = []
    for rule, key in CHOICE_RULES:
        if "points" in key and not has_points:
            continue
        order = df.sort_values(["deal_id", *key, "suit_order"],
                               ascending=[True] + [False] * len(key) + [True])
        pick = order.drop_duplicates("deal_id", keep="first").copy()
        pick["rule"] = rule
        choices.append(pick)
        rule_rows.append(_rule_row(rule, pick, has_points, has_pit))
    # a uniformly random trump: the expectation over the four suits of every deal
    rnd = _rule_row("random suit", df, has_points, has_pit)
    rnd["deals"] = deals
    rule_rows.append(rnd)
    has_played = "played_score" in df.columns and "played_made" in df.columns
    keep = ["deal_id", "rule", "trump", "score", "made", "best", "length", "honours"] \
        + (["points"] if has_points else []) + (["pit"] if has_pit else []) \
        + (["played_score", "played_made"] if has_played else [])
    choices = pd.concat(choices, ignore_index=True)[keep]
    choices["cost"] = choices["best"] - choices["score"]
    out = {"by_length": by_length, "by_honours": by_honours,
           "by_length_honours": by_length_honours, "best": best, "best_hist": best_hist,
           "rules": pd.DataFrame(rule_rows), "choices": choices}
    if has_played:
        from .play import played_table
        out["played"] = played_table(choices, df)
    for table in out.values():
        table.insert(0, "rules", name)
    return out


def _rule_row(name, pick, has_points, has_pit) -> dict:
    row = {"rule": name, "deals": len(pick),
           "p_best": float((pick["score"] == pick["best"]).mean()),
           "mean_cost": float((pick["best"] - pick["score"]).mean()),
           "mean_score": float(pick["score"].mean()), "p_made": float(pick["made"].mean())}
    if has_points:
        row["mean_points"] = float(pick["points"].mean())
    if has_pit:
        row["p_pit"] = float(pick["pit"].mean())
    return row


def _fmt_table(t) -> str:
    fmt = {}
    for c in t.columns:
        if c.startswith("p_") or c == "share":
            fmt[c] = lambda v: f"{v:.3f}"
        elif t[c].dtype.kind == "f":
            fmt[c] = lambda v: f"{v:.1f}"
    return t.to_string(index=False, formatters=fmt)


TABLE_TITLES = (
    ("by_length", "Per trump length (cards of the trump suit in the first player's hand)"),
    ("by_honours", "Per trump honours held by the first player (jack and nine of trump)"),
    ("by_length_honours", "Per trump length and honours"),
    ("best", "Score of the best trump of each deal"),
    ("best_hist", "Distribution of the best trump's score"),
    ("rules", "Trump-choice rules against the double-dummy best trump "
              "(cost = best score - chosen score, points per deal)"),
    ("played", ("Double dummy against as played (--play): the trump each rule picks, "
                "optimism = double-dummy score - played score, points per deal, with its SE")),
)


def format_summary(s: Summary, source: str | None = None, condition: dict | None = None) -> str:
    """The summary as text tables (scores and points in points, probabilities 0..1).  With
    one rules group the tables leave out the ``rules`` column (the head line names it).
    ``condition``: the ``where``/``predeal`` the deals were dealt under (the sidecar's,
    :func:`~kraken_solver.batch.store.batch_condition`), named on the second line."""
    from ..notation.text import count
    head = f"{count(s.deals, 'deal')} x 4 trumps = {count(s.rows, 'row')}"
    if source:
        head = f"{source}: {head}"
    mixed = len(s.rules_names) > 1
    if s.rules_names:
        head += f"; rules {', '.join(s.rules_names)}"
    if condition:
        said = [f"where {condition['where']}" if condition.get("where") else "",
                f"predeal {condition['predeal']}" if condition.get("predeal") else ""]
        head += ("\nDeals: only those that meet the condition, "
                 + "; ".join(w for w in said if w) + " (not a uniform sample of all deals)")
    if mixed:
        head += ("\nThe file mixes rules (or multipliers): every table is per rules, and no "
                 "mean mixes two of them.")
    head += ("\nValues: double dummy, points, the playing team's side; P(pit) = the playing "
             "team can force every trick." if s.has_pit else
             "\nValues: double dummy, points, the playing team's side.")
    blocks = [head]
    for key, title in TABLE_TITLES:
        t = getattr(s, key)
        if t is None:           # the played table of a file without --play
            continue
        if not mixed:
            t = t.drop(columns="rules")
        blocks.append(f"== {title} ==\n{_fmt_table(t)}")
    return "\n\n".join(blocks)


def write_csv_tables(s: Summary, directory: str, *, inputs=()) -> list[str]:
    """Write every table as ``DIR/NAME.csv`` (with its ``rules`` column), each atomically
    (:mod:`kraken_solver.notation.outputs`), after checking that none of them is one of ``inputs``
    or
    cannot be written; return the paths.  Raises KrakenError (OutputError) naming the file."""
    from ..notation.numbers import tidy_frame
    from ..notation.outputs import check_outputs, make_output_dir, write_text
    make_output_dir(directory, what="the --csv folder", inputs=inputs)
    paths = {key: os.path.join(directory, f"{key}.csv") for key, _ in TABLE_TITLES
             if getattr(s, key) is not None}
    check_outputs({f"the table {p}": p for p in paths.values()}, inputs=inputs)
    for key, p in paths.items():
        table = tidy_frame(getattr(s, key))     # the tools' number style (notation.numbers)
        write_text(p, table.to_csv(index=False), what="the table", inputs=inputs)
    return list(paths.values())
