"""The report's figures: drawn without pyplot or adjustText on bare Agg figures, cut to their
content, the same bytes every time; a figure too large for its margins is laid out instead; R-U
labels overlap neither each other nor the points."""

from __future__ import annotations

import base64
import importlib
import io
import re
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from conftest import BlankRare  # noqa: E402
from PIL import Image  # noqa: E402

import sdcsession as sdc  # noqa: E402
from sdcsession.methods.noise import AddNoise  # noqa: E402
from sdcsession.present.plots import accessor as P  # noqa: E402
from sdcsession.present.plots._common import _axes, _cropped_png, bare_figures  # noqa: E402
from sdcsession.present.plots.labels import place_labels  # noqa: E402

REPORT = importlib.import_module("sdcsession.present.report")  # the module, not the function
KEYS = ["region", "sex", "age5", "marstat"]
IMG = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")


@pytest.fixture(scope="module")
def scen():
    df = sdc.datasets.synthetic_survey(200, seed=3)
    s = sdc.SdcSession(df, keys=KEYS, numeric=["income"], weight="w", household="hid", seed=2)
    a = s.branch("supp").apply(BlankRare(k=3))
    b = a.branch("supp+noise").apply(AddNoise(["income"], noise=0.3, bounds=(0, None)))
    return s, a, b


def _png(b64: str) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(b64))).convert("RGB"))


def test_report_draws_its_figures_without_pyplot_or_adjusttext():
    code = ("import sys, warnings; warnings.simplefilter('ignore')\n"
            "import sdcsession as sdc\n"
            "df = sdc.datasets.synthetic_survey(120, seed=1)\n"
            "s = sdc.SdcSession(df, keys=['region', 'sex', 'age5'], weight='w', seed=1)\n"
            "a = s.branch('r').recode('age5', {str(c): 'x' for c in df['age5'].cat.categories[:3]})\n"
            "html = sdc.report(s, a).html\n"
            "print(html.count('<img '), 'matplotlib.pyplot' in sys.modules, "
            "'adjustText' in sys.modules, 'matplotlib.figure' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # R-U map, suppressions, individual risk, the risk path of the recoded scenario
    assert out.stdout.split() == ["4", "False", "False", "True"]


def test_every_figure_is_the_same_image_every_time(scen):
    first = IMG.findall(REPORT.report(*scen).html)
    second = IMG.findall(REPORT.report(*scen).html)
    # R-U map, suppressions, individual risk, the income distribution, two risk paths
    assert len(first) == 6
    assert first == second  # byte for byte: no time stamp, no random label placement


def test_figures_are_cut_to_their_content(scen):
    pad = round(0.1 * REPORT._DPI)
    for b64 in IMG.findall(REPORT.report(*scen).html):
        img = _png(b64)
        ink = (img != 255).any(axis=2)
        rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
        # a blank margin of 0.1 inch on every side, no more (the 1-inch border is cut off)
        assert rows[0] == pad and cols[0] == pad, (rows[0], cols[0])
        assert img.shape[0] - 1 - rows[-1] == pad and img.shape[1] - 1 - cols[-1] == pad
        assert 300 < img.shape[1] < 1100 and 250 < img.shape[0] < 800  # about the asked size


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


def test_a_figure_too_large_for_its_border_is_laid_out_instead(monkeypatch):
    def make():
        ax = _axes(None, (4.0, 3.0))
        ax.plot([0, 1], [0, 1])
        ax.set_ylabel("a very long axis title " * 8)  # far wider than the figure is high
        return ax

    with bare_figures():
        assert _cropped_png(make().figure) is None  # ink on the figure's edge
    calls = []
    orig = REPORT._png
    monkeypatch.setattr(REPORT, "_png",
                        lambda fig, *a: calls.append(fig.get_layout_engine()) or orig(fig, *a))
    html = REPORT._figure(make, "tall", "caption")
    assert [type(e).__name__ for e in calls] == ["ConstrainedLayoutEngine"]  # laid out, drawn
    img = _png(IMG.findall(html)[0])
    assert img.shape[0] > 100 and img.shape[1] > 100
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
