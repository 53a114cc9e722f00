"""Plots render with Agg and show what they should (artists, labels, data), not only run."""

from __future__ import annotations

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from conftest import BlankRare  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import sdcsession as sdc  # noqa: E402
from sdcsession.errors import ParameterError  # noqa: E402
from sdcsession.methods.noise import AddNoise  # noqa: E402
from sdcsession.present import plotting as P  # noqa: E402
from sdcsession.present.compare import compare, estimates, frontier  # noqa: E402

KEYS = ["region", "sex", "age5", "marstat"]
NUM = ["income", "expend", "savings"]


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def scen():
    df = sdc.datasets.synthetic_survey(300, seed=4)
    s = sdc.SdcSession(df, keys=KEYS, numeric=NUM, weight="w", household="hid", seed=5)
    a = s.branch("supp").apply(BlankRare(k=3))
    b = s.branch("noise").apply(AddNoise(NUM, noise=0.5))
    c = a.branch("supp+noise").apply(AddNoise(NUM, noise=0.2))
    return s, a, b, c


def test_import_does_not_import_matplotlib():
    code = "import sys, sdcsession, sdcsession.present.plotting, sdcsession.present.compare, sdcsession.present.report;" \
           "print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------------- R-U map
def test_ru_map_points_frontier_labels_anchors(scen):
    s, a, b, c = scen
    t = compare(s, a, b, c)
    ax = P.ru_map(t, threshold=1.0)
    texts = [x.get_text() for x in ax.texts]
    # the untreated session "main" is the "original data" star, not a second labelled point
    assert sorted(texts) == sorted(["supp", "noise", "supp+noise", "original data", "no release"])
    front = frontier(t)
    # filled points = frontier; hollow = dominated
    filled = ax.collections[0].get_offsets()
    assert len(filled) == len(front)
    assert np.allclose(np.sort(filled[:, 0]), np.sort(front["lambda"].to_numpy()))
    assert front.scenario.tolist()[0] == "supp"  # the original is never on the frontier
    assert "main" not in front.scenario.tolist()
    step_lines = [ln for ln in ax.get_lines() if ln.get_label() == "frontier"]
    assert len(step_lines) == (len(front) > 1)  # a staircase needs two points
    for ln in step_lines:
        assert np.allclose(ln.get_xdata(), front["lambda"])
    labels = [x.get_text() for x in ax.get_legend().get_texts()]
    assert {"non-dominated", "original data", "no release", "maximum tolerable risk"} <= set(labels)
    star = [col for col in ax.collections if col.get_label() == "original data"][0]
    assert star.get_offsets()[0][1] == pytest.approx(t.attrs["original"]["expected_reidentifications"])
    nr = [col for col in ax.collections if col.get_label() == "no release"][0]
    assert tuple(nr.get_offsets()[0]) == (1.0, 0.0)
    assert "λ" in ax.get_xlabel() and "re-identifications" in ax.get_ylabel()


def test_ru_map_from_sessions_and_unbounded_loss(scen):
    s, a, b, c = scen
    ax = P.ru_map(s, b, c, loss="il1s", labels=False)
    assert [x.get_text() for x in ax.texts] == ["original data", "no release →"]
    nr = [col for col in ax.collections if col.get_label() == "no release"][0]
    assert nr.get_offsets()[0][0] > compare(b).il1s[0]  # beyond every scenario
    with pytest.raises(ParameterError, match="loss"):
        P.ru_map(compare(s), loss="nope")


def test_ru_map_zoom_without_anchors_and_labels_do_not_overlap():
    t = pd.DataFrame({"scenario": ["alpha", "beta", "gamma", "far"],
                      "expected_reidentifications": [50.0, 50.2, 49.9, 80.0],
                      "lambda": [0.300, 0.301, 0.302, 0.5]})
    ax = P.ru_map(t, anchors=False, frontier=False)
    lo, hi = ax.get_xlim()
    assert 0.25 < lo < 0.3 and 0.5 < hi < 0.6  # zoomed on the scenarios, not from 0
    lo, hi = ax.get_ylim()
    assert 45 < lo < 49.9 and 80 < hi < 90
    ax.figure.canvas.draw()
    boxes = [tx.get_window_extent() for tx in ax.texts]
    assert sorted(tx.get_text() for tx in ax.texts) == ["alpha", "beta", "far", "gamma"]
    for i in range(len(boxes)):
        for j in range(i):
            assert not boxes[i].overlaps(boxes[j]), (ax.texts[i].get_text(), ax.texts[j].get_text())


def test_ru_map_draws_into_given_axes(scen):
    fig, (ax1, ax2) = plt.subplots(1, 2)
    out = P.ru_map(compare(*scen), ax=ax2)
    assert out is ax2 and not ax1.collections and ax2.collections


# ---------------------------------------------------------------------------- distributions
def test_distributions_hist_kde_box(scen):
    s, a, b, c = scen
    ax = P.distributions(b, c, column="income", kind="hist", bins=30)
    assert [x.get_text() for x in ax.get_legend().get_texts()] == ["original", "noise",
                                                                    "supp+noise"]
    assert len(ax.patches) == 3  # one outline (or filled polygon) per dataset
    assert ax.get_xlabel() == "income" and ax.get_ylabel() == "density"
    ax = P.distributions(b, column="income", kind="kde")
    lines = ax.get_lines()
    assert len(lines) == 2
    # a density integrates to about 1 over the shown range (tail cut at 99.5 %)
    x, y = lines[1].get_data()
    assert 0.9 < np.trapezoid(y, x) < 1.01
    ax = P.distributions(b, c, column="income", kind="box")
    assert [x.get_text() for x in ax.get_yticklabels()] == ["original", "noise", "supp+noise"]
    assert not any(len(ln.get_xdata()) and ln.get_marker() not in ("None", None, "")
                   for ln in ax.get_lines())  # no outlier points by default


def test_distributions_plain_frames_and_errors():
    o = pd.DataFrame({"x": np.arange(100.0)})
    ax = P.distributions(o, ("shifted", o + 5.0), column="x", original=False, bins=10)
    assert [x.get_text() for x in ax.get_legend().get_texts()] == ["data 1", "shifted"]
    with pytest.raises(ParameterError, match="column"):
        P.distributions(o, column="nope")
    with pytest.raises(ParameterError, match="kind"):
        P.distributions(o, column="x", kind="violin")


# ----------------------------------------------------------------------------------- mosaic
def test_mosaic_panels_tiles_and_missing_category(scen):
    s, a, b, c = scen
    fig = P.mosaic(a, columns=["sex", "marstat"])
    titled = [ax for ax in fig.axes if ax.get_title(loc="left")]
    assert [ax.get_title(loc="left") for ax in titled] == ["original", "supp"]
    for ax in titled:
        tiles = [p for p in ax.patches
                 if isinstance(p, Rectangle) and p.get_width() * p.get_height() > 1e-9]
        # one tile per non-empty (sex, marstat) cell, marstat includes item non-response
        cells = (s.original if ax is titled[0] else a.data)[["sex", "marstat"]]
        n_cells = len(cells.astype(object).fillna("(missing)").drop_duplicates())
        assert len(tiles) == n_cells
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend[-1] == "(missing)" and "married" in legend
    fig1 = P.mosaic(a, columns="age5", max_categories=30)
    areas = [sum(p.get_width() for p in ax.patches if isinstance(p, Rectangle))
             for ax in fig1.axes if ax.get_title(loc="left")]
    assert len(areas) == 2
    with pytest.raises(ParameterError, match="max_categories"):
        P.mosaic(a, columns="age5")
    with pytest.raises(ParameterError, match="one or two"):
        P.mosaic(a, columns=["sex", "age5", "region"])


# ----------------------------------------------------------------------- suppressions, risk
def test_suppressions_bars_match_the_counts(scen):
    s, a, b, c = scen
    ax = P.suppressions(s, a, c)
    assert [t.get_text() for t in ax.get_xticklabels()] == KEYS
    heights = np.array([p.get_height() for p in ax.patches]).reshape(3, len(KEYS))
    want = (~a.original[KEYS].isna() & a.data[KEYS].isna()).sum().to_numpy()
    assert heights[0].tolist() == [0] * len(KEYS)
    assert heights[1].tolist() == want.tolist() and heights[2].tolist() == want.tolist()
    assert want[KEYS.index("age5")] > 0
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["main", "supp", "supp+noise"]
    ax = P.suppressions(a, percent=True)
    assert ax.patches[KEYS.index("age5")].get_height() == pytest.approx(100 * want[2] / a.state.n)


def test_risk_distribution_ecdf_and_hist(scen):
    s, a, b, c = scen
    ax = P.risk_distribution(a)
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == ["original", "supp"]
    for ln, sess in zip(lines, (s, a)):
        x, y = ln.get_data()
        r = sess.risk.individual.to_numpy()
        # one vertex per distinct risk, at the share of records with a risk at or below it
        assert y[-1] == 1.0 and np.all(np.diff(x) > 0) and len(x) == len(np.unique(r))
        np.testing.assert_allclose(y, [(r <= v).mean() for v in x])
        assert np.max(x) == pytest.approx(r.max())
    assert ax.get_xscale() == "log"
    ax.figure.canvas.draw()  # plain decimal tick labels (no mathtext): 0.01, 0.1, 1
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels and all(float(t) > 0 and "$" not in t for t in labels)
    ax = P.risk_distribution(a, c, kind="hist", original=False)
    assert len(ax.patches) == 2
    assert sum(ax.patches[0].get_path().vertices[:, 1]) > 0


def test_risk_path_follows_the_steps(scen):
    s, a, b, c = scen
    ax = P.risk_path(c, risk=["expected_reidentifications", "k3_violations"], loss="lambda")
    want = compare(c.history)
    assert [t.get_text() for t in ax.get_xticklabels()] == \
        ["original", "#1 test_blank_rare", "#3 add_noise"]
    ys = [ln.get_ydata() for ln in ax.get_lines()]
    assert np.allclose(ys[0], want.expected_reidentifications)
    assert np.allclose(ys[1], want.k3_violations)
    twin = [x for x in ax.figure.axes if x is not ax][0]
    assert np.allclose(twin.get_lines()[0].get_ydata(), want["lambda"])
    assert len(ax.get_legend().get_texts()) == 3


def test_ci_plot(scen):
    s, a, b, c = scen
    e = estimates(b, c, indicator="mean:income", weight="w", method="normal")
    ax = P.ci_plot(e, title="mean income")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["original", "noise", "supp+noise"]
    markers = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert len(markers) == 3
    assert markers[1].get_xdata()[0] == pytest.approx(e.estimate[1])
    band = [p for p in ax.patches]
    assert len(band) == 1  # the original's interval
    with pytest.raises(ParameterError, match="column"):
        P.ci_plot(e.drop(columns="upper"))


def test_session_plots_accessor_and_png(scen, tmp_path):
    s, a, b, c = scen
    acc = P.SessionPlots(c)
    assert acc.suppressions().get_title(loc="left") == "Suppressions per key variable"
    ax = acc.ru_map(b)
    assert {"supp+noise", "noise"} <= {t.get_text() for t in ax.texts}
    png = P.to_png(acc.distributions("income").figure)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


# ------------------------------------------------------------------ readability (issue 20)
def _label_boxes(ax):
    ax.figure.canvas.draw()
    r = ax.figure.canvas.get_renderer()
    return [(t.get_text(), t.get_window_extent(r)) for t in ax.texts if t.get_text()]


def test_ru_map_labels_never_overlap_and_original_is_labelled_once(scen):
    s, a, b, c = scen
    # eight long labels on almost the same point, plus the original row and the anchors
    n = 8
    t = pd.DataFrame({"scenario": ["original"] + [f"scenario number {i}" for i in range(n)],
                      "depth": [0] + [1] * n,
                      "expected_reidentifications": [30.0] + [5.0 + 0.01 * i for i in range(n)],
                      "lambda": [0.0] + [0.1 + 0.001 * (i % 3) for i in range(n)]})
    t.attrs["original"] = {"expected_reidentifications": 30.0, "lambda": 0.0}
    for anchors in (True, False):
        ax = P.ru_map(t, anchors=anchors)
        boxes = _label_boxes(ax)
        names = [b_[0] for b_ in boxes]
        assert sum("original" in x for x in names) == 1, names  # no duplicate "original"
        for i in range(len(boxes)):
            for j in range(i):
                assert not boxes[i][1].overlaps(boxes[j][1]), (boxes[i][0], boxes[j][0])
        plt.close("all")
    # the table of compare(original=True) on real scenarios: the same
    ax = P.ru_map(compare(a, b, c, original=True))
    names = [x for x, _ in _label_boxes(ax)]
    assert sorted(names) == ["no release", "noise", "original data", "supp", "supp+noise"]


def test_mosaic_of_seven_scenarios_is_a_grid(scen):
    s, a, b, c = scen
    items = [a, b, c, a.branch("a2"), b.branch("b2"), c.branch("c2"), a.branch("a3")]
    fig = P.mosaic(*items, columns="sex")
    panels = [ax for ax in fig.axes if ax.get_title(loc="left")]
    assert len(panels) == 8  # the original and seven scenarios
    rows = {round(ax.get_position().y0, 3) for ax in panels}
    assert len(rows) == 2  # two rows of four
    width, height = fig.get_size_inches()
    assert width <= 16 and height < width
    with pytest.raises(ParameterError, match="max_columns"):
        P.mosaic(a, columns="sex", max_columns=0)


def test_risk_path_has_one_loss_scale(scen):
    s, a, b, c = scen
    twins = []
    for sc in (a, c):
        ax = P.risk_path(sc, loss="lambda")
        twins.append([x for x in ax.figure.axes if x is not ax][0].get_ylim())
    assert twins == [(0.0, 1.0), (0.0, 1.0)]  # λ is in [0, 1]: the same scale in every figure
    ax = P.risk_path(c, loss="il1s", risk_max=50.0, loss_max=2.0)
    assert ax.get_ylim() == (0.0, 50.0)
    assert [x for x in ax.figure.axes if x is not ax][0].get_ylim() == (0.0, 2.0)
    with pytest.raises(ParameterError, match="loss_max"):
        P.risk_path(c, loss="il1s", loss_max=-1)
