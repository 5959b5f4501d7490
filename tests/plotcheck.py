"""Checks of what a reader sees in a matplotlib figure, measured in the figure's pixels after a
draw (the boxes of the saved PNG): every text inside the figure, labels off the markers, off
each other and inside their axes, legends off the axes, axis limits that hold every value.

The marks are taken from the figure's own artists (every Line2D drawn with a marker), not
from the code that placed the labels, so a mark the placement forgot is caught too.
"""

from __future__ import annotations

import numpy as np


def drawn(fig):
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def boxes_overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def marker_boxes(ax, renderer):
    """The pixel box of every marker drawn in ``ax`` (each point of each Line2D with a
    marker), from its markersize."""
    from matplotlib.transforms import Bbox
    out = []
    for line in ax.get_lines():
        if line.get_marker() in (None, "", "None", " ", "none"):
            continue
        half = line.get_markersize() / 2 * ax.figure.dpi / 72
        for x, y in zip(*line.get_data()):
            px, py = ax.transData.transform((x, y))
            out.append((Bbox([[px - half, py - half], [px + half, py + half]]), (x, y)))
    return out


def check_labels(ax, labels):
    """Every label lies inside ``ax`` and overlaps no marker of ``ax`` and no other label."""
    renderer = drawn(ax.figure)
    frame = ax.get_window_extent(renderer)
    boxes = [t.get_window_extent(renderer) for t in labels]
    marks = marker_boxes(ax, renderer)
    assert marks or not labels
    for t, b in zip(labels, boxes):
        assert frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0 and \
            b.y1 <= frame.y1, f"label {t.get_text()!r} leaves the axes: {b} not in {frame}"
        for m, at in marks:
            assert not boxes_overlap(b, m), f"label {t.get_text()!r} covers the mark at {at}"
    for i in range(len(boxes)):
        for j in range(i):
            assert not boxes_overlap(boxes[i], boxes[j]), \
                f"labels {labels[i].get_text()!r} and {labels[j].get_text()!r} overlap"


def check_texts_inside_figure(fig):
    """Every title, axis label, tick label, legend and text is wholly inside the figure."""
    renderer = drawn(fig)
    outer = fig.bbox
    texts = list(fig.texts) + [lg for lg in fig.legends]
    for ax in fig.axes:
        texts += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label]
        for axis in (ax.xaxis, ax.yaxis):       # the ticks drawn: those within the limits
            lo, hi = sorted(axis.get_view_interval())
            texts += [t.label1 for t in axis.get_major_ticks()
                      if lo - 1e-9 <= t.get_loc() <= hi + 1e-9 and t.label1.get_visible()]
        texts += list(ax.texts)
        if ax.get_legend() is not None:
            texts.append(ax.get_legend())
    for t in texts:
        if hasattr(t, "get_text") and not t.get_text():
            continue
        if hasattr(t, "get_visible") and not t.get_visible():
            continue
        b = t.get_window_extent(renderer)
        assert outer.x0 - 0.5 <= b.x0 and b.x1 <= outer.x1 + 0.5 and \
            outer.y0 - 0.5 <= b.y0 and b.y1 <= outer.y1 + 0.5, \
            f"{getattr(t, 'get_text', lambda: t)()!r} is cut off: {b} not in {outer}"


def check_legends_off_the_axes(fig):
    renderer = drawn(fig)
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    for lg in legends:
        b = lg.get_window_extent(renderer)
        for ax in fig.axes:
            assert not boxes_overlap(b, ax.get_window_extent(renderer)), \
                "a legend lies over a plot"


def check_limits_hold(ax, values, axis="x"):
    """The axis' limits hold every value (the data is all on the plot)."""
    lo, hi = sorted(ax.get_xlim() if axis == "x" else ax.get_ylim())
    values = np.asarray(list(values), dtype=float)
    assert lo <= values.min() and values.max() <= hi, \
        f"{axis} limits {lo}..{hi} leave out {values.min()}..{values.max()}"
