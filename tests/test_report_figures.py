"""Bare Agg figures (no pyplot) cut to their content, a figure too large for its margins not
cropped, and R-U labels that overlap neither each other nor the points. (The report's own
figures are inline SVG: tests/test_report_svg.py.)"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from sdcsession.present.plots import accessor as P  # noqa: E402
from sdcsession.present.plots._common import _axes, _cropped_png, bare_figures  # noqa: E402
from sdcsession.present.plots.labels import place_labels  # noqa: E402


def test_bare_figures_are_not_pyplot_figures_and_have_fixed_axes():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    with bare_figures(dpi=110):
        ax = _axes(None, (6.4, 4.2))
    fig = ax.figure
    assert plt.get_fignums() == before and fig.canvas.manager is None
    assert fig.get_layout_engine() is None and fig.dpi == 110
    w, h = fig.get_size_inches()
    assert (w, h) == pytest.approx((8.4, 6.2))  # the asked size plus a 1-inch border
    x0, y0, x1, y1 = ax.get_position().extents
    assert (x0 * w, y0 * h, (1 - x1) * w, (1 - y1) * h) == pytest.approx(
        (1.75, 1.55, 1.15, 1.35))  # margins (0.75, 0.55, 0.15, 0.35) inside the border
    with bare_figures("constrained", dpi=90):
        ax2 = _axes(None, (5.0, 3.0))
    assert ax2.figure.get_layout_engine() is not None
    assert tuple(ax2.figure.get_size_inches()) == (5.0, 3.0)
    assert _axes(ax, (1.0, 1.0)) is ax  # given Axes are used as they are


def test_a_figure_too_large_for_its_border_is_not_cropped():
    def make():
        ax = _axes(None, (4.0, 3.0))
        ax.plot([0, 1], [0, 1])
        ax.set_ylabel("a very long axis title " * 8)  # far wider than the figure is high
        return ax

    with bare_figures():
        assert _cropped_png(make().figure) is None  # ink on the figure's edge
    with bare_figures():
        empty = _axes(None, (2.0, 2.0)).figure
    empty.axes[0].set_axis_off()
    assert _cropped_png(empty) is None  # nothing drawn: nothing to cut to


def _boxes(ax):
    r = ax.figure.canvas.get_renderer()
    return [t.get_window_extent(r) for t in ax.texts]


@pytest.mark.parametrize("layout", ["fixed", "constrained", None])
def test_labels_overlap_neither_labels_nor_points_and_stay_inside(layout):
    rng = np.random.default_rng(7)
    x = np.r_[rng.uniform(0.1, 0.12, 6), rng.uniform(0.2, 0.9, 6)]
    y = np.r_[rng.uniform(5.0, 5.3, 6), rng.uniform(1.0, 9.0, 6)]
    names = [f"scenario {i}" for i in range(len(x))]

    def draw():
        if layout is None:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure

            fig = Figure(figsize=(6.4, 4.6))
            FigureCanvasAgg(fig)
            ax = fig.add_subplot()
        else:
            with bare_figures(layout):
                ax = _axes(None, (6.4, 4.6))
        ax.scatter(x, y, s=46)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 10)
        place_labels(ax, names, x, y)
        ax.figure.canvas.draw()
        return ax

    ax = draw()
    boxes = _boxes(ax)
    assert [t.get_text() for t in ax.texts] == names
    inside = ax.get_window_extent()
    pts = ax.transData.transform(np.column_stack([x, y]))
    r = np.sqrt(46) / 2 * ax.figure.dpi / 72
    for i, b in enumerate(boxes):
        assert inside.x0 <= b.x0 and b.x1 <= inside.x1 and inside.y0 <= b.y0 and b.y1 <= inside.y1
        for j in range(i):
            assert not b.overlaps(boxes[j]), (names[i], names[j])
        for px, py in pts:  # no label covers a marker
            assert not (b.x0 < px + r and px - r < b.x1 and b.y0 < py + r and py - r < b.y1)
    # the same figure gives the same placement
    again = _boxes(draw())
    assert [tuple(b.extents) for b in again] == [tuple(b.extents) for b in boxes]


def test_a_label_next_to_a_free_point_is_right_of_it_without_a_line():
    t = pd.DataFrame({"scenario": ["lone"], "expected_reidentifications": [5.0],
                      "lambda": [0.4]})
    ax = P.ru_map(t, anchors=False)
    ax.figure.canvas.draw()
    (box,) = [b for b, tx in zip(_boxes(ax), ax.texts) if tx.get_text() == "lone"]
    px, py = ax.transData.transform((0.4, 5.0))
    assert 0 < box.x0 - px < 15 and box.y0 < py < box.y1  # first choice: right of the point
    assert not ax.patches  # no leader line
