"""Labels beside the points of a scatter plot that overlap neither each other, nor the points,
nor given texts (`place_labels`, used by the R-U map).

matplotlib is only used through the Axes it is given (nothing imported at module level).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["place_labels", "place_boxes"]

#: Directions around a point, in the order of preference of cartographic point labelling
#: (right, upper right, lower right, above, below, left, upper left, lower left).
_DIRECTIONS = ((1, 0), (1, 1), (1, -1), (0, 1), (0, -1), (-1, 0), (-1, 1), (-1, -1))
_RINGS = 12  # candidate distances: next to the marker, then 1 ... 11 label heights further
_PAD = 2.0  # pixels kept free around every label


def _candidates(px: float, py: float, w: float, h: float, r: float) -> np.ndarray:
    """Lower-left corners (x0, y0) of the candidate boxes of a w × h label around a point at
    (px, py) with a marker of radius r: the eight directions at distance r + 3 px, then at
    each further ring one label height further out."""
    out = []
    for ring in range(_RINGS):
        d = r + 3.0 + ring * h
        for dx, dy in _DIRECTIONS:
            f = 0.75 if dx and dy else 1.0  # diagonal: about the same gap as straight
            cx = px + dx * f * d + (0.0 if dx > 0 else -w if dx < 0 else -w / 2)
            cy = py + dy * f * d + (0.0 if dy > 0 else -h if dy < 0 else -h / 2)
            out.append((cx, cy))
    return np.asarray(out, dtype=float)


def _free(boxes: np.ndarray, obstacles: np.ndarray) -> np.ndarray:
    """Which candidate boxes (n × 4: x0, y0, x1, y1) meet none of the obstacles (m × 4)."""
    if not len(obstacles):
        return np.ones(len(boxes), bool)
    hit = ((boxes[:, None, 0] < obstacles[None, :, 2]) & (boxes[:, None, 2] > obstacles[None, :, 0])
           & (boxes[:, None, 1] < obstacles[None, :, 3]) & (boxes[:, None, 3] > obstacles[None, :, 1]))
    return ~hit.any(axis=1)


def place_boxes(points: np.ndarray, sizes: Sequence[tuple[float, float]],
                inside: tuple[float, float, float, float], placed: np.ndarray,
                markers: np.ndarray, rmark: float
                ) -> tuple[list[np.ndarray], list[tuple[float, float, float, float] | None]]:
    """The greedy placement of `place_labels` on plain geometry (y pointing up, any unit).

    ``points``: n × 2 label anchors; ``sizes``: (width, height) of each label; ``inside``: the
    box (x0, y0, x1, y1) the labels must stay in; ``placed`` (m × 4) and ``markers`` (k × 4):
    boxes no label may meet; ``rmark``: the marker radius. Returns each label's box (padded by
    2 units: its text starts at (x0 + 2, y0 + 2)) and its leader line (x, y of the point, x, y
    of the nearest point of the box), or None when the label sits next to its point.

    Missing values: points must be finite (the caller leaves the others out).

    >>> boxes, lines = place_boxes(np.array([[50.0, 50.0]]), [(20.0, 8.0)], (0, 0, 100, 100),
    ...                            np.zeros((0, 4)), np.zeros((0, 4)), 3.0)
    >>> [float(v) for v in boxes[0]], lines
    ([54.0, 44.0, 78.0, 56.0], [None])
    """
    placed = np.asarray(placed, dtype=float).reshape(-1, 4)
    boxes_out: list[np.ndarray] = []
    leads: list[tuple[float, float, float, float] | None] = []
    for (ptx, pty), (w, h) in zip(np.asarray(points, dtype=float).reshape(-1, 2), sizes):
        corners = _candidates(ptx, pty, w, h, rmark)
        boxes = np.column_stack([corners[:, 0] - _PAD, corners[:, 1] - _PAD,
                                 corners[:, 0] + w + _PAD, corners[:, 1] + h + _PAD])
        ok = ((boxes[:, 0] >= inside[0]) & (boxes[:, 2] <= inside[2])
              & (boxes[:, 1] >= inside[1]) & (boxes[:, 3] <= inside[3]))
        ok &= _free(boxes, placed) & _free(boxes, markers)
        if ok.any():
            box = boxes[int(np.argmax(ok))]
        else:  # crowded: the first candidate, moved by label heights off the earlier labels
            box = boxes[0]
            for k in (0, *[s * j for j in range(1, 40) for s in (1, -1)]):
                cand = box + np.array([0.0, k * h, 0.0, k * h])
                if _free(cand[None, :], placed)[0]:
                    break
            box = cand
        placed = np.vstack([placed, box])
        boxes_out.append(box)
        gap = max(box[0] - ptx, ptx - box[2], 0.0) + max(box[1] - pty, pty - box[3], 0.0)
        if gap < 12:
            leads.append(None)
            continue
        # to the nearest point of the label's box: the line never crosses its own label
        cx, cy = min(max(ptx, box[0] + _PAD), box[2] - _PAD), min(max(pty, box[1] + _PAD),
                                                                  box[3] - _PAD)
        leads.append((float(ptx), float(pty), float(cx), float(cy)))
    return boxes_out, leads


def _marker_boxes(ax: Axes) -> np.ndarray:
    """Display-space boxes (x0, y0, x1, y1) of the markers of the Axes' scatter collections."""
    dpi = ax.figure.dpi
    out = []
    for col in ax.collections:
        offs = np.asarray(col.get_offsets(), dtype=float).reshape(-1, 2)
        if not offs.size:
            continue
        sizes = np.asarray(col.get_sizes(), dtype=float)
        r = np.sqrt(sizes if sizes.size else np.array([36.0])) / 2 * dpi / 72.0
        r = np.resize(r, len(offs))
        xy = col.get_offset_transform().transform(offs)
        ok = np.isfinite(xy).all(axis=1)
        out.append(np.column_stack([xy[ok, 0] - r[ok], xy[ok, 1] - r[ok],
                                    xy[ok, 0] + r[ok], xy[ok, 1] + r[ok]]))
    return np.concatenate(out) if out else np.zeros((0, 4))


def place_labels(ax: Axes, names: list[str], x: np.ndarray, y: np.ndarray,
                 fontsize: float = 8.5, fixed: Sequence[Any] = ()) -> list[Any]:
    """Label the points (x, y) of ``ax`` with ``names`` so that no two labels overlap.

    Algorithm: greedy point-feature label placement (Christensen, Marks & Shieber 1995, "An
    empirical study of algorithms for point-feature label placement", ACM TOG 14(3)), on the
    final geometry of the figure (its layout engine is run first when it has one). Each label,
    in the order given, takes the first free box among candidates around its point: the eight
    positions of cartographic practice (right, upper right, lower right, above, below, left,
    upper left, lower left; Imhof 1975) next to the marker, then the same directions one label
    height further out, ring after ring (12 rings). A box is free when it lies inside the axes
    and meets no earlier label, no marker of the axes' scatter collections and none of the
    ``fixed`` texts (each box padded by 2 px). A label that finds no free box keeps its first
    candidate and is then moved up or down by whole label heights until it meets no earlier
    label. A thin line joins a label that ended away from its point to the nearest point of
    the label's box. Deterministic: the same
    figure gives the same placement (no random start, no iteration limit in time). Cost: at most
    96 candidates per label checked against the boxes already placed (vectorised).

    Missing values: points with a missing coordinate get no label (give only finite points).

    Example
    -------
    >>> from matplotlib.figure import Figure
    >>> from matplotlib.backends.backend_agg import FigureCanvasAgg
    >>> fig = Figure(); _ = FigureCanvasAgg(fig); ax = fig.add_subplot()
    >>> _ = ax.scatter([1.0, 1.0], [1.0, 1.0]); _ = ax.set_xlim(0, 2); _ = ax.set_ylim(0, 2)
    >>> a, b = place_labels(ax, ["a", "b"], np.array([1.0, 1.0]), np.array([1.0, 1.0]))
    >>> r = fig.canvas.get_renderer()
    >>> bool(a.get_window_extent(r).overlaps(b.get_window_extent(r)))
    False
    """
    from matplotlib.patches import FancyArrowPatch

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    texts = [ax.text(xv, yv, name, fontsize=fontsize, color="#222222", zorder=5,
                     ha="left", va="bottom")
             for name, xv, yv in zip(names, x, y)]
    if not texts:
        return texts
    fig = ax.figure
    if not hasattr(fig.canvas, "get_renderer"):  # a bare Figure (no pyplot): give it Agg
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    engine = fig.get_layout_engine()
    if engine is not None:  # the final axes geometry (the layout does not depend on the labels)
        engine.execute(fig)
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    markers = _marker_boxes(ax)
    placed = np.array([tuple(t.get_window_extent(renderer).padded(_PAD).extents)
                       for t in fixed], dtype=float).reshape(-1, 4)
    to_data = ax.transData.inverted()
    pts = ax.transData.transform(np.column_stack([x, y]))
    rmark = 5.0 if not len(markers) else float(np.median(markers[:, 2] - markers[:, 0]) / 2)
    sizes = [(e.width, e.height) for e in (t.get_window_extent(renderer) for t in texts)]
    inside_box = (inside.x0, inside.y0, inside.x1, inside.y1)
    for t, box, lead in zip(texts, *place_boxes(pts, sizes, inside_box, placed, markers, rmark)):
        t.set_position(tuple(to_data.transform((box[0] + _PAD, box[1] + _PAD))))
        if lead is not None:
            ax.add_patch(FancyArrowPatch(tuple(to_data.transform(lead[:2])),
                                         tuple(to_data.transform(lead[2:])), arrowstyle="-",
                                         color="#888888", linewidth=0.6, shrinkA=4, shrinkB=1,
                                         zorder=2))
    return texts
