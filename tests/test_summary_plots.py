"""kraken-batch summarize's plots on small groups: a Parquet batch of datasets/many_deals.txt
(12 deals under seven rules: groups of one to five deals), each figure checked on what a
reader sees (tests/plotcheck.py, in the figure's pixels).

What was wrong there: score_by_rule drew no whiskers (matplotlib ends them at the last deal
inside the percentile, the box's edge in a small group) and its x axis left the -202 deal off
while the title promised 5-95% whiskers; made_by_length joined its points across lengths
without rows (a one-deal plot implied 0.5 at length 2); the titles of the +multiplier plots
ran off the figure; "n=1" labels lay over the x axis; an undocumented "best points" rule.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from click.testing import CliRunner
from plotcheck import (check_labels, check_legends_off_the_axes, check_limits_hold,
                       check_texts_inside_figure)

pytest.importorskip("matplotlib")
pytest.importorskip("pyarrow")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    from kraken_solver.batch.store import read_results
    from kraken_solver.batch.summary import summarize
    from kraken_solver.cli.batch import main as batch_main
    out = tmp_path_factory.mktemp("many") / "many.parquet"
    res = CliRunner().invoke(batch_main, ["--input", os.path.join(ROOT, "datasets",
                                                                  "many_deals.txt"),
                                          "--out", str(out), "--objective", "score,points",
                                          "--workers", "1", "--quiet"])
    assert res.exit_code == 0, res.output
    return summarize(read_results(str(out)))


@pytest.fixture(scope="module")
def figures(summary):
    from kraken_solver.batch.plots import plot_names, summary_figures
    figs = summary_figures(summary)
    names = plot_names(summary)
    assert len(figs) == len(names) == 3 * len(summary.rules_names) == 21
    return dict(zip(names, figs))


def _group(names, stem):
    return [(n, n[len(stem) + 1:-4]) for n in names if n.startswith(stem + ".")]


def test_every_text_fits_and_no_legend_covers_a_plot(figures):
    for name, fig in figures.items():
        try:
            check_texts_inside_figure(fig)
            check_legends_off_the_axes(fig)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None
    # the long rules names' titles: wrapped, whole
    fig = figures["made_by_length.kraken-amsterdam+multiplier=4.png"]
    assert "kraken-amsterdam+multiplier=4" in fig.axes[0].get_title().replace("\n", " ")


def test_score_by_rule_holds_every_deal_and_draws_the_whiskers_it_names(summary, figures):
    from kraken_solver.batch.plots import WHISKERS
    checked = 0
    for name, rules in _group(figures, "score_by_rule"):
        fig = figures[name]
        ax = fig.axes[0]
        ch = summary.choices[summary.choices["rules"] == rules]
        check_limits_hold(ax, ch["score"], axis="x")
        assert f"whiskers: {WHISKERS[0]}-{WHISKERS[1]}%" in ax.get_title().replace("\n", " ")
        order = list(dict.fromkeys(ch["rule"]))
        assert "random suit" not in order and "best points" in order
        for k, rule in enumerate(order):
            x = ch.loc[ch.rule == rule, "score"].to_numpy(dtype=float)
            lo, q1, med, q3, hi = np.percentile(x, [WHISKERS[0], 25, 50, 75, WHISKERS[1]])
            ends = sorted(v for w in fig.boxes["whiskers"][2 * k:2 * k + 2]
                          for v in w.get_xdata())
            assert ends[0] == pytest.approx(lo) and ends[-1] == pytest.approx(hi)
            assert fig.boxes["medians"][k].get_xdata()[0] == pytest.approx(med)
            beyond = np.sort(fig.boxes["fliers"][k].get_xdata())
            assert list(beyond) == list(np.sort(x[(x < lo) | (x > hi)]))
            assert fig.boxes["means"][k].get_xdata()[0] == pytest.approx(x.mean())
            if len(x) >= 3 and x.min() < x.max():
                assert lo < q1 or hi > q3               # whiskers that show
                checked += 1
        # the best points rule is explained on the plot itself
        assert "best points: the trump of the highest double-dummy points" in \
            ax.get_xlabel()
    assert checked >= 7
    # the finding's group: the -202 deal is on the plot, as a dot beyond the 5% whisker
    fig = figures["score_by_rule.kraken.png"]
    assert min(fig.axes[0].get_xlim()) < -202
    assert -202 in fig.boxes["fliers"][0].get_xdata()


def test_made_by_length_breaks_at_missing_lengths_and_labels_cover_nothing(summary,
                                                                           figures):
    gaps = 0
    for name, rules in _group(figures, "made_by_length"):
        fig = figures[name]
        ax = fig.axes[0]
        t = summary.by_length[summary.by_length["rules"] == rules]
        (line,) = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
        xs, ys = (np.asarray(v, dtype=float) for v in line.get_data())
        drawn = {int(x): y for x, y in zip(xs, ys) if np.isfinite(y)}
        assert drawn == pytest.approx(dict(zip(t["length"], t["p_made"])))
        # a segment joins two points only across one length: never over a missing one
        for (x0, y0), (x1, y1) in zip(zip(xs, ys), list(zip(xs, ys))[1:]):
            if np.isfinite(y0) and np.isfinite(y1):
                assert x1 - x0 == 1
        gaps += sum(1 for x in range(int(xs.min()), int(xs.max())) if x not in drawn)
        # one n label a point, each inside the plot and off every marker and label
        assert [lb.get_text() for lb in fig.n_labels] == [f"n={n}" for n in t["n"]]
        check_labels(ax, fig.n_labels)
        check_limits_hold(ax, t["p_made"], axis="y")
    assert gaps >= 3            # the dataset's groups do miss lengths

