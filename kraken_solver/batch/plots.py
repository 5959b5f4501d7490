"""The plots of ``kraken-batch summarize --plots``: one PNG per view of a :class:`Summary`.

:func:`summary_figures` draws, from a :class:`~kraken_solver.batch.summary.Summary`, the mean
score by trump length and honours, P(made) and P(pit), the distribution of the best trump's
score (boxes with whiskers at the 5th and 95th percentiles, :func:`box_stats`), and what the
players' trump-choice rules cost; :func:`write_plots` saves them under the names of
:func:`plot_names`, each atomically and never over an input.  Labels are placed where they
cover nothing (:mod:`kraken_solver.notation.plotting`).
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import KrakenError
from .summary import Summary


def plot_names(s: Summary) -> list[str]:
    """The file names :func:`write_plots` writes: ``score_by_rule.png``,
    ``made_by_length.png`` and ``best_score.png``; for a file that mixes rules, one set per
    rules with the rules' name before the extension (``best_score.kraken+multiplier=8.png``)."""
    stems = ("score_by_rule", "made_by_length", "best_score")
    if len(s.rules_names) <= 1:
        return [f"{stem}.png" for stem in stems]
    return [f"{stem}.{_slug(name)}.png" for name in s.rules_names for stem in stems]


def _slug(name: str) -> str:
    import re
    return re.sub(r"[^A-Za-z0-9_+=.-]", "_", name)


def write_plots(s: Summary, directory: str, *, inputs=()) -> list[str]:
    """PNG charts (matplotlib's Agg canvas, each written atomically after checking that none
    of them is one of ``inputs``), per rules group (:func:`plot_names`, the figures of
    :func:`summary_figures`).  Returns the paths.  Raises KrakenError when matplotlib is
    missing or a chart cannot be written."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise KrakenError("plots need matplotlib: pip install 'matplotlib>=3.7'") from None
    from ..notation.outputs import check_outputs, make_output_dir, save_figure
    make_output_dir(directory, what="the --plots folder", inputs=inputs)
    names = plot_names(s)
    paths = [os.path.join(directory, n) for n in names]
    check_outputs({f"the plot {p}": p for p in paths}, inputs=inputs)
    return [save_figure(fig, path, inputs=inputs)
            for path, fig in zip(paths, summary_figures(s))]


#: the whiskers of score_by_rule: these percentiles of the deals (interpolated)
WHISKERS = (5, 95)


def box_stats(values, label: str = "") -> dict:
    """The box of one rule's scores as ``Axes.bxp`` draws it: quartiles and median, whiskers
    at the :data:`WHISKERS` percentiles, interpolated between the deals as ``numpy.percentile``
    does (matplotlib's own whiskers stop at the last deal inside them, so a small group had
    none), the mean, and as ``fliers`` every deal beyond the whiskers."""
    x = np.asarray(values, dtype=float)
    lo, q1, med, q3, hi = np.percentile(x, [WHISKERS[0], 25, 50, 75, WHISKERS[1]])
    return {"label": label, "med": med, "q1": q1, "q3": q3, "whislo": lo, "whishi": hi,
            "mean": float(x.mean()), "fliers": x[(x < lo) | (x > hi)]}


def summary_figures(s: Summary):
    """The figures of :func:`write_plots`, in the order of :func:`plot_names` (matplotlib
    Figures on the Agg canvas), per rules group:

    - ``score_by_rule``: the chosen trump's score for each trump-choice rule (not ``random
      suit``, an expectation over the four suits that chooses no one trump): box 25-75% of
      the deals, median, whiskers at the 5th and 95th percentiles, mean, and a dot for each
      deal beyond the whiskers; the x axis holds every deal's score.
    - ``made_by_length``: P(made) against trump length, with error bars of one binomial
      standard error and each point's n placed where it covers no mark and no other label;
      the line breaks at a length without rows.
    - ``best_score``: a histogram of the best trump's score.

    Every title names the rules and the number of deals and wraps to the figure's width;
    legends sit below the plots.  ``fig.boxes`` holds score_by_rule's artists (``Axes.bxp``),
    ``fig.n_labels`` made_by_length's n labels.  Raises KrakenError when matplotlib is
    missing."""
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        raise KrakenError("plots need matplotlib: pip install 'matplotlib>=3.7'") from None
    from matplotlib.transforms import Bbox

    from ..notation.plotting import (fit_title, freeze_layout, line_segments, mark_boxes,
                                     place_labels)
    major, minor = (int(x) for x in matplotlib.__version__.split(".")[:2])
    horizontal = {"orientation": "horizontal"} if (major, minor) >= (3, 10) else {"vert": False}

    def figure(w, h):
        fig = Figure(figsize=(w, h), dpi=110, layout="constrained")
        FigureCanvasAgg(fig)
        return fig, fig.add_subplot(1, 1, 1)

    out = []
    for name in (s.rules_names or ["?"]):
        ch = s.choices[s.choices["rules"] == name]
        rt = s.rules[s.rules["rules"] == name].set_index("rule")
        deals = int(ch["deal_id"].nunique())
        where = f"rules {name}, {deals} deal{'s' if deals != 1 else ''}, double dummy"

        rules = list(dict.fromkeys(ch["rule"]))
        data = [ch.loc[ch.rule == r, "score"].to_numpy() for r in rules]
        fig, ax = figure(9, 0.62 * len(rules) + 2.4)
        stats = [box_stats(d, f"{r}\nmean {d.mean():+.0f}, cost {rt.loc[r, 'mean_cost']:.0f}")
                 for r, d in zip(rules, data)]
        fig.boxes = ax.bxp(stats, showmeans=True, showfliers=True, **horizontal,
               flierprops={"marker": "o", "markersize": 4, "markerfacecolor": "0.3",
                           "markeredgecolor": "0.3", "alpha": 0.7})
        for label in ax.get_yticklabels():
            label.set_fontsize(8)
        ax.invert_yaxis()
        ax.axvline(0, color="grey", lw=0.8, ls=":")
        every = np.concatenate(data + [np.zeros(1)])
        span = max(float(every.max() - every.min()), 10.0)
        ax.set_xlim(every.min() - 0.04 * span, every.max() + 0.04 * span)
        ax.set_xlabel("score of the chosen trump (points, the playing team's side)" + (
            "\nbest points: the trump of the highest double-dummy points (as kraken-solve "
            "--best-by points picks)" if "best points" in rules else ""))
        fit_title(ax, f"Score by trump-choice rule ({where})\nbox: 25-75% of the deals, "
                      f"line: median, whiskers: {WHISKERS[0]}-{WHISKERS[1]}%, triangle: mean, "
                      "dots: deals beyond the whiskers; cost = best trump's score - chosen "
                      "score", fontsize=9)
        out.append(fig)

        t = s.by_length[s.by_length["rules"] == name].set_index("length")
        top = int(t.index.max()) if len(t) else 8
        t = t.reindex(range(0, top + 1))          # a length without rows breaks the line
        se = np.sqrt(t.p_made * (1 - t.p_made) / t.n)
        fig, ax = figure(7, 4.8)
        ax.errorbar(t.index, t.p_made, yerr=se, marker="o", markersize=6, capsize=3,
                    label="P(made) of the (deal, trump) rows; error bars: \u00b11 standard "
                          "error, \u221a(p(1\u2212p)/n); n = rows")
        ax.set_xlabel("trump length in the first player's hand (cards)")
        ax.set_ylabel("P(made), double dummy")
        ax.set_ylim(-0.08, 1.12)
        ax.set_xlim(-0.5, top + 0.5)
        ax.set_xticks(range(0, top + 1))
        ax.grid(alpha=0.3)
        fig.legend(loc="outside lower center", fontsize=7, frameon=False)
        fit_title(ax, f"P(made) against trump length ({where})", fontsize=9)
        freeze_layout(fig)
        have = t.dropna(subset=["n"])
        xs, ys = list(have.index), list(have.p_made)
        marks = mark_boxes(ax, xs, ys, 6)
        bars = []                       # the error bars: marks as well (caps 3 points wide)
        half = 3 * fig.dpi / 72
        for x, y, e in zip(xs, ys, se.loc[have.index]):
            if e > 0:
                (px, lo), (_, hi) = ax.transData.transform([(x, y - e), (x, y + e)])
                bars.append(Bbox([[px - half, lo], [px + half, hi]]))
        lines = []
        for a, b in zip(list(t.index), list(t.index)[1:]):
            if not (np.isnan(t.p_made[a]) or np.isnan(t.p_made[b])):
                lines += line_segments(ax, [a, b], [t.p_made[a], t.p_made[b]])
        fig.n_labels = place_labels(
            ax, [(x, y, f"n={int(n)}", 3, {}) for x, y, n in zip(xs, ys, have.n)],
            marks=marks + bars, lines=lines, fontsize=7)
        out.append(fig)

        h = s.best_hist[s.best_hist["rules"] == name]
        fig, ax = figure(8, 4.2)
        ax.bar(h["from"], h["deals"], width=(h["to"] - h["from"] + 1) * 0.95, align="edge")
        ax.axvline(0, color="grey", lw=0.8, ls=":")
        width = int((h["to"] - h["from"] + 1).iloc[0])
        ax.set_xlabel(f"score of the best trump (points, bins of {width}); made is a score "
                      "above 0 (the dotted line)")
        ax.set_ylabel("deals")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        fit_title(ax, f"Best trump's score per deal ({where})", fontsize=9)
        out.append(fig)
    return out
