"""What every plot of the tools shares: labels placed where they cover nothing, titles that fit.

matplotlib places a text where it is told; it does not move it off a marker, another label or
the frame of the axes.  The plots of ``kraken-analyse`` (``--view player``) and
``kraken-batch summarize`` label points ("S ♥K", "n=12") next to markers that may sit a card
or a trump length apart, so :func:`place_labels` tries, for each label, a ring of positions
around its point (right above first, then the other corners and sides, then rings further
out) and keeps the first whose box, in the figure's pixels, lies inside the axes and overlaps
no mark (marker), no other label and no legend; among those it prefers one that crosses no
line.  Everything is measured with the figure's renderer after its layout is fixed
(:func:`freeze_layout`), so the boxes are those of the saved PNG.

:func:`fit_title` wraps a title at spaces until it fits the figure's width (a long file name
or rules spec had run off both edges).  :func:`label_boxes`, :func:`mark_boxes` and
:func:`overlapping` are for checking a figure: the tests use them on every plot.
"""

from __future__ import annotations

__all__ = ["freeze_layout", "fit_title", "wrap_to_width", "place_labels", "mark_boxes",
           "label_boxes", "overlapping", "inside"]

#: directions tried around a point, in this order: (dx, dy) in units of the ring's radius
_DIRECTIONS = ((1, 1), (1, -1), (-1, 1), (-1, -1), (0, 1.2), (0, -1.2), (1.3, 0), (-1.3, 0))
#: radii of the rings tried (points, beyond the marker's own radius)
_RINGS = (2, 6, 12, 20, 30, 44)
#: a line crossed by a label weighs as much as this many points further from its point
LINE_COST = 15


def freeze_layout(fig) -> None:
    """Run the figure's layout engine once (a draw) and keep its positions from then on, so
    that the pixel boxes measured next are those of the saved file."""
    _run_layout(fig)
    fig.set_layout_engine("none")


def _run_layout(fig) -> None:
    """Let the figure's layout engine (constrained layout) place the axes now, without
    drawing the figure."""
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)


def wrap_to_width(fig, text: str, *, fontsize: float = 10, margin: float = 0.02) -> str:
    """``text`` wrapped at spaces (its own line breaks kept) into as few lines as keep it
    within the width of ``fig`` less ``margin`` (a fraction) on each side, measured with the
    figure's renderer at ``fontsize``."""
    import textwrap

    from matplotlib.text import Text
    renderer = fig.canvas.get_renderer()
    width = fig.bbox.width * (1 - 2 * margin)
    probe = Text(0, 0, "", fontsize=fontsize, figure=fig, parse_math=False)
    longest = max(len(line) for line in text.split("\n"))
    wrapped = text
    for chars in range(longest, 9, -1):
        lines = []
        for part in text.split("\n"):
            lines += textwrap.wrap(part, chars, break_on_hyphens=False) or [""]
        wrapped = "\n".join(lines)
        probe.set_text(wrapped)
        if probe.get_window_extent(renderer).width <= width:
            break
    return wrapped


def fit_title(ax, text: str, *, fontsize: float = 10, margin: float = 0.02, **kw):
    """Set ``text`` as the title of ``ax``, wrapped (:func:`wrap_to_width`) so that it fits
    the figure: a title is centred over its axes, so the width is twice the distance from
    the axes' centre to the nearer edge of the figure, measured after the figure's layout
    has run.  Returns the title's Text."""
    fig = ax.figure
    _run_layout(fig)                # the layout engine, if any, places the axes
    pos = ax.get_position()         # figure fractions
    centre = (pos.x0 + pos.x1) / 2
    fraction = max(0.2, 2 * min(centre, 1 - centre))
    title = ax.set_title(wrap_to_width(fig, text, fontsize=fontsize,
                                       margin=margin + (1 - fraction) / 2),
                         fontsize=fontsize, parse_math=False, **kw)
    return title


def _box(x0, y0, x1, y1):
    from matplotlib.transforms import Bbox
    return Bbox([[min(x0, x1), min(y0, y1)], [max(x0, x1), max(y0, y1)]])


def mark_boxes(ax, xs, ys, size: float, pad: float = 1.0):
    """The pixel boxes of markers of ``size`` points (matplotlib's markersize) at the data
    points ``xs``, ``ys`` of ``ax``, ``pad`` points larger all round."""
    half = (size / 2 + pad) * ax.figure.dpi / 72
    out = []
    for x, y in zip(xs, ys):
        px, py = ax.transData.transform((x, y))
        out.append(_box(px - half, py - half, px + half, py + half))
    return out


def line_segments(ax, xs, ys, *, step: bool = False):
    """The pixel segments of a line through the data points (``step``: drawn as
    ``where="post"`` steps)."""
    pts = list(zip(xs, ys))
    if step:
        stepped = []
        for (x0, y0), (x1, _) in zip(pts, pts[1:]):
            stepped += [(x0, y0), (x1, y0)]
        pts = stepped + pts[-1:] if pts else []
        pts = [p for i, p in enumerate(pts) if i == 0 or p != pts[i - 1]]
    px = [tuple(ax.transData.transform(p)) for p in pts]
    return list(zip(px, px[1:]))


def overlapping(a, b) -> bool:
    """Whether two pixel boxes share any area (touching edges do not count)."""
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def inside(a, outer, margin: float = 0.0) -> bool:
    """Whether pixel box ``a`` lies within ``outer``, ``margin`` pixels from its edges."""
    return (a.x0 >= outer.x0 + margin and a.x1 <= outer.x1 - margin
            and a.y0 >= outer.y0 + margin and a.y1 <= outer.y1 - margin)


def _crosses(box, seg) -> bool:
    """Whether the segment ``seg`` ((x0, y0), (x1, y1)) passes through ``box``
    (Liang-Barsky clipping)."""
    (x0, y0), (x1, y1) = seg
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0 - box.x0), (dx, box.x1 - x0), (-dy, y0 - box.y0),
                 (dy, box.y1 - y0)):
        if p == 0:
            if q < 0:
                return False
        else:
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                return False
    return True


def place_labels(ax, labels, *, marks=(), lines=(), avoid=(), fontsize: float = 8,
                 margin: float = 2.0):
    """Annotate ``ax`` with ``labels``, each placed where its box overlaps nothing.

    ``labels``: ``(x, y, text, radius, style)`` tuples: the data point labelled, the text,
    the radius (points) of the marker drawn there (the label starts beyond it) and keyword
    arguments of ``ax.annotate`` (colour ...).  ``marks``: pixel boxes no label may overlap
    (:func:`mark_boxes`); ``avoid``: artists or pixel boxes no label may overlap either
    (legends, other texts); ``lines``: pixel segments (:func:`line_segments`) a label should
    not cross when any position allows.  Every label stays inside the axes, ``margin``
    pixels from the frame, and off the labels placed before it.  Call after
    :func:`freeze_layout`.  Returns the Annotations, each with its box in ``.placed_box``;
    a label that no position frees (a very crowded plot) takes the one that covers least,
    and ``.placed_clear`` is False for it."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    hard = list(marks)
    for a in avoid:
        hard.append(a.get_window_extent(renderer) if hasattr(a, "get_window_extent") else a)
    scale = fig.dpi / 72
    out = []
    for x, y, text, radius, style in labels:
        ann = ax.annotate(text, (x, y), textcoords="offset points", xytext=(0, 0),
                          fontsize=fontsize, annotation_clip=False, **style)
        ann.set_in_layout(False)
        best = None
        for ring in _RINGS:
            r = radius + ring
            for dx, dy in _DIRECTIONS:
                ann.set_position((dx * r, dy * r))
                ann.set_horizontalalignment("left" if dx > 0 else "right" if dx < 0
                                            else "center")
                ann.set_verticalalignment("bottom" if dy > 0 else "top" if dy < 0
                                          else "center")
                box = ann.get_window_extent(renderer)
                cover = sum(_area(box, h) for h in hard) + (
                    0 if inside(box, frame, margin) else box.width * box.height)
                crossings = sum(_crosses(box, s) for s in lines)
                # clear of every mark, label and legend first; then near the point, a line
                # crossed counting as LINE_COST points further away
                key = (cover > 0, cover, crossings * LINE_COST + ring)
                if best is None or key < best[0]:
                    best = (key, (dx * r, dy * r), ann.get_horizontalalignment(),
                            ann.get_verticalalignment(), box)
        key, offset, ha, va, box = best
        ann.set_position(offset)
        ann.set_horizontalalignment(ha)
        ann.set_verticalalignment(va)
        ann.placed_box = box
        ann.placed_clear = not key[0]
        hard.append(box.expanded(1 + 2 * scale / max(box.width, 1),
                                 1 + 2 * scale / max(box.height, 1)))
        out.append(ann)
    return out


def _area(a, b) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def label_boxes(texts):
    """The pixel boxes of drawn texts (after a draw)."""
    renderer = texts[0].figure.canvas.get_renderer() if texts else None
    return [t.get_window_extent(renderer) for t in texts]
