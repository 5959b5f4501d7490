"""The statistics of a duplicate match, from its rows (one a table, :mod:`.tables`).

Definitions (points; team A is ``--ns``, sitting N-S at table 0 and E-W at table 1):

- **Difference**: a deal's observation is the mean over its two tables of (A's final score
  minus B's), the score sheet's finals (RULES.md rule 19).  The two tables of a deal are one
  observation (paired), so the luck of the cards cancels.  Over the D deals: the mean, its
  standard error (sample SD / sqrt(D)) and the 95% interval mean +- t(0.975, D-1) * SE
  (Student's t; :func:`t_quantile`).  B's is the negative.
- **Made / pit**: per team, over the tables where it was the playing team (the chooser's
  team, rule 3), the share it made its deal (rule 19) and won every trick.
- **Double-dummy optimism**: per team, over the tables where it chose trump, the
  double-dummy score of the deal and trump minus the score played (rule 23, the playing team's
  final minus the defenders'): how much the open-card value overstates the table.
- **Regret** (with ``--regret``): per team, over its decisions (cards not forced), the judge's
  loss of the card chosen (``regret`` column), mean and SE, overall and by trick.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import KrakenError

__all__ = ["Estimate", "MatchStats", "estimate", "format_stats", "match_stats", "t_quantile"]


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile ``p`` (0.5 < p < 1) with ``df`` degrees of freedom: bisection on
    the distribution function, its density integrated by Simpson's rule (4,000 intervals;
    within 1e-6 of the exact value).  Raises KrakenError for ``df`` < 1."""
    if df < 1:
        raise KrakenError("Student's t needs at least one degree of freedom", token=str(df))
    v = float(df)
    c = math.exp(math.lgamma((v + 1) / 2) - math.lgamma(v / 2)) / math.sqrt(v * math.pi)

    def cdf(t):
        x = np.linspace(0.0, t, 4001)
        y = c * (1 + x * x / v) ** (-(v + 1) / 2)
        h = t / 4000
        return 0.5 + h / 3 * (y[0] + y[-1] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum())

    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        lo, hi = hi, 2 * hi
    for _ in range(60):
        mid = (lo + hi) / 2
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@dataclass
class Estimate:
    """A mean over ``n`` observations, its standard error and 95% interval (None when n < 2)."""
    n: int
    mean: float | None
    se: float | None
    low: float | None
    high: float | None

    def text(self, digits: int = 1) -> str:
        if self.mean is None:
            return "-"
        if self.se is None:
            return f"{self.mean:+.{digits}f}"
        return f"{self.mean:+.{digits}f} \u00b1 {self.se:.{digits}f}"


def estimate(x) -> Estimate:
    """The :class:`Estimate` of the observations ``x`` (a 1-d array of floats)."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if n == 0:
        return Estimate(0, None, None, None, None)
    mean = float(x.mean())
    if n < 2:
        return Estimate(1, mean, None, None, None)
    se = float(x.std(ddof=1) / math.sqrt(n))
    t = t_quantile(0.975, n - 1)
    return Estimate(n, mean, se, mean - t * se, mean + t * se)


@dataclass
class MatchStats:
    """What :func:`match_stats` found; teams are indexed 0 (A, ``--ns``) and 1 (B).

    ``names``: the card-play bots; ``deals``, ``tables``; ``difference``: A minus B per deal
    (:class:`Estimate`); ``playing``: per team the tables it played (chose); ``made``,
    ``pit``: per team the share of those tables; ``optimism``: per team an Estimate;
    ``regret``: per team an Estimate (None without regret), ``regret_by_trick``: per team
    eight Estimates; ``labels``: the names shown (``dd`` says it cheats)."""
    names: tuple
    labels: tuple
    deals: int
    tables: int
    difference: Estimate
    playing: tuple
    made: tuple
    pit: tuple
    optimism: tuple
    regret: tuple | None = None
    regret_by_trick: tuple | None = None
    per_deal: np.ndarray = field(default=None, repr=False)

    def to_dict(self) -> dict:
        from dataclasses import asdict
        d = asdict(self)
        d.pop("per_deal")
        return d


def _team_rows(df):
    """Per row: the team (0 A, 1 B) sitting N-S, and the team that played (chose)."""
    table = df["table"].to_numpy(dtype=np.int64)
    chooser_ns = df["chooser"].isin(["N", "S"]).to_numpy()
    playing = np.where(chooser_ns, table, 1 - table)
    return table, playing


def match_stats(df, labels=None) -> MatchStats:
    """The statistics (module docstring) of a match's rows (a pandas DataFrame of
    :data:`~kraken_solver.arena.tables.COLUMNS`, two rows a deal).  Raises KrakenError when a
    deal lacks one of its tables."""
    if len(df) == 0:
        raise KrakenError("the match has no table")
    df = df.sort_values(["deal_id", "table"], kind="stable").reset_index(drop=True)
    counts = df.groupby("deal_id")["table"].agg(list)
    bad = [int(k) for k, v in counts.items() if sorted(v) != [0, 1]]
    if bad:
        raise KrakenError(f"deal {bad[0]} does not have its two tables (0 and 1)")
    table, playing = _team_rows(df)
    ns = df["ns_score"].to_numpy(dtype=np.float64)
    ew = df["ew_score"].to_numpy(dtype=np.float64)
    a_minus_b = np.where(table == 0, ns - ew, ew - ns)
    per_deal = a_minus_b.reshape(-1, 2).mean(axis=1)
    value = np.where(df["chooser"].isin(["N", "S"]).to_numpy(), ns - ew, ew - ns)
    optimism = df["dd_score"].to_numpy(dtype=np.float64) - value
    made = df["made"].to_numpy(dtype=bool)
    pit = df["pit"].to_numpy(dtype=bool)
    first = df.iloc[0]
    names = (first["ns_bot"], first["ew_bot"])
    stats = MatchStats(
        names=names, labels=tuple(labels) if labels else names, deals=len(per_deal),
        tables=len(df), difference=estimate(per_deal),
        playing=tuple(int((playing == t).sum()) for t in (0, 1)),
        made=tuple(_share(made[playing == t]) for t in (0, 1)),
        pit=tuple(_share(pit[playing == t]) for t in (0, 1)),
        optimism=tuple(estimate(optimism[playing == t]) for t in (0, 1)),
        per_deal=per_deal)
    if "regret" in df.columns:
        by_team = _regrets(df, table)
        stats.regret = tuple(estimate(np.concatenate([r for r in by_team[t]]))
                             for t in (0, 1))
        stats.regret_by_trick = tuple(tuple(estimate(r) for r in by_team[t]) for t in (0, 1))
    return stats


def _share(x) -> float | None:
    return float(np.mean(x)) if len(x) else None


def _regrets(df, table):
    """Per team, per trick (8 arrays): the regret of its decisions."""
    from ..game.position import Position
    out = [[[] for _ in range(8)] for _ in (0, 1)]
    for row, t in zip(df.itertuples(index=False), table):
        pos = Position(row.deal, row.trump, row.first, row.rules, row.play)
        words = str(row.regret).split(" ")
        j = 0
        for k, trick in enumerate(pos.tricks):
            for i in range(len(trick.cards)):
                seat = (trick.leader + i) % 4
                w = words[j]
                j += 1
                if w != "-":
                    team = t if seat % 2 == 0 else 1 - t
                    out[team][k].append(float(w))
    return [[np.array(x, dtype=np.float64) for x in team] for team in out]


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def format_stats(s: MatchStats) -> str:
    """The results table of a match, as ``kraken-arena`` prints it."""
    a, b = s.labels
    d = s.difference
    from ..notation.text import count
    head = f"Duplicate match: {count(s.deals, 'deal')}, {count(s.tables, 'table')}; "
    lines = [head + f"A = {a}, B = {b}",
             "(points per deal: the mean of its two tables; 95% interval by Student's t)",
             ""]
    if d.se is None:
        lines.append(f"A - B per deal: {d.text()} (one deal: no standard error)")
    else:
        lines.append(f"A - B per deal: {d.text()}  95% interval [{d.low:+.1f}, {d.high:+.1f}]")
        lines.append(f"B - A per deal: {-d.mean:+.1f} \u00b1 {d.se:.1f}  95% interval "
                     f"[{-d.high:+.1f}, {-d.low:+.1f}]")
    lines.append("")
    width = max(len(a), len(b), 4)
    lines.append(f"{'team':<{width + 4}}  {'chose':>6}  {'made':>7}  {'pit':>7}  "
                 f"{'dd optimism':>16}" + ("  regret/decision" if s.regret else ""))
    for t, name in enumerate((a, b)):
        line = (f"{'AB'[t]}: {name:<{width + 1}}  {s.playing[t]:>6}  {_pct(s.made[t]):>7}  "
                f"{_pct(s.pit[t]):>7}  {s.optimism[t].text():>16}")
        if s.regret:
            line += f"  {s.regret[t].text(2):>16}"
        lines.append(line)
    lines.append("(made, pit: of the tables the team played; dd optimism: double-dummy score "
                 "minus the score played, as chooser)")
    if s.regret_by_trick:
        lines.append("")
        lines.append("Regret per decision by trick (points, judge's view):")
        lines.append(f"{'trick':<7}" + "".join(f"{'AB'[t] + ': ' + n:>20}"
                                               for t, n in enumerate((a, b))))
        for k in range(8):
            lines.append(f"{k + 1:<7}" + "".join(
                f"{s.regret_by_trick[t][k].text(2) + ' (' + str(s.regret_by_trick[t][k].n) + ')':>20}"
                for t in (0, 1)))
    return "\n".join(lines)
