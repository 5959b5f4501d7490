"""One style for the numbers every CSV, JSON document and API answer holds (the text tables
show fewer decimals, and what they show adds up as read).

- **points** (means, standard errors, losses, costs, margins, percentiles, expected scores):
  at most :data:`POINT_DECIMALS` (2) decimals;
- **shares** (probabilities and fractions 0..1: ``p_made``, ``p_pit``, ``p_best``, ``share``):
  at most :data:`SHARE_DECIMALS` (3) decimals;
- **counts** (layouts, samples, nodes, rows, a count's estimate): whole numbers, never floats;
- **times** (seconds, milliseconds): at most :data:`TIME_DECIMALS` (3) decimals;
- **rates** (per second) and sizes (MB): at most :data:`RATE_DECIMALS` (1) decimal.

``None`` stays ``None`` (JSON ``null``: no value, e.g. a standard error of one sample).
``tests/test_number_style.py`` runs every tool and checks every number it writes.
"""

from __future__ import annotations

POINT_DECIMALS = 2
SHARE_DECIMALS = 3
TIME_DECIMALS = 3
RATE_DECIMALS = 1


def _rounded(x, decimals: int):
    if x is None:
        return None
    v = round(float(x), decimals)
    return 0.0 if v == 0 else v          # no -0.0


def points(x):
    """A value in points (float or None) to :data:`POINT_DECIMALS` decimals."""
    return _rounded(x, POINT_DECIMALS)


def share(x):
    """A probability or fraction 0..1 to :data:`SHARE_DECIMALS` decimals."""
    return _rounded(x, SHARE_DECIMALS)


def seconds(x):
    """A time (seconds or milliseconds) to :data:`TIME_DECIMALS` decimals."""
    return _rounded(x, TIME_DECIMALS)


def rate(x):
    """A rate (per second) or a size (MB) to :data:`RATE_DECIMALS` decimal."""
    return _rounded(x, RATE_DECIMALS)


def whole(x):
    """A count (or a count's estimate) as a whole number (int), None kept."""
    return None if x is None else int(round(float(x)))


def tidy_frame(t):
    """A copy of DataFrame ``t`` for a CSV file: float columns rounded, shares (``p_*``,
    ``share``) to :data:`SHARE_DECIMALS` decimals, the others (points) to
    :data:`POINT_DECIMALS`."""
    t = t.copy()
    for c in t.columns:
        if t[c].dtype.kind == "f":
            shares = str(c).startswith("p_") or c == "share"
            t[c] = t[c].round(SHARE_DECIMALS if shares else POINT_DECIMALS) + 0.0
    return t


def tidy_measures(value):
    """A benchmark report (nested dicts and lists) in the tools' style, by the unit its keys
    name: ``*_ms`` and ``*_s`` times to :data:`TIME_DECIMALS` decimals, ``*_mb`` sizes and
    ``*_per_s`` rates to :data:`RATE_DECIMALS`, ``*nodes`` counts whole; other floats as
    points.  Returns a new object; ints, strings and bools are kept."""
    def one(key, v):
        if isinstance(v, dict):
            return tidy_measures(v)
        if isinstance(v, list):             # a list takes the unit of its key
            return [one(key, x) for x in v]
        if not isinstance(v, float):
            return v
        k = str(key or "")
        if k.endswith("nodes"):
            return whole(v)
        if k.endswith(("_ms", "_s", "ms", "seconds")) and not k.endswith("_per_s"):
            return seconds(v)
        if k.endswith(("_mb", "_per_s")):
            return rate(v)
        if k.startswith("p_") or k in ("share", "rate"):
            return share(v)
        return points(v)
    if isinstance(value, dict):
        return {k: one(k, v) for k, v in value.items()}
    return one(None, value)
