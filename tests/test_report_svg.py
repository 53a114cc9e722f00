"""The report's figures as inline SVG: no matplotlib imported, every figure with its caption and
alt text, well-formed XML, hostile names escaped, the same text every time, the same numbers as
the matplotlib plots, labels that do not overlap, and the tick helpers' properties."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from conftest import BlankRare
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.methods.noise import AddNoise
from sdcsession.present.plots import report_svg as V
from sdcsession.present.plots.svg import Canvas, log_ticks, nice_ticks, tick_label, xml_text
from sdcsession.present.report import report

KEYS = ["region", "sex", "age5", "marstat"]
NS = "{http://www.w3.org/2000/svg}"
SVG = re.compile(r"<figure>(<svg .*?</svg>)<figcaption>(.*?)</figcaption></figure>", re.S)
EVIL = "<script>alert('x')</script> \"q\" & co"


@pytest.fixture(scope="module")
def scen():
    df = sdc.datasets.synthetic_survey(200, seed=3)
    s = sdc.SdcSession(df, keys=KEYS, numeric=["income"], weight="w", household="hid", seed=2)
    a = s.branch("supp").apply(BlankRare(k=3))
    b = a.branch("supp+noise").apply(AddNoise(["income"], noise=0.3, bounds=(0, None)))
    return s, a, b


@pytest.fixture(scope="module")
def html(scen):
    return report(*scen).html


def test_the_report_imports_no_matplotlib():
    code = ("import sys, warnings; warnings.simplefilter('ignore')\n"
            "import sdcsession as sdc\n"
            "df = sdc.datasets.synthetic_survey(120, seed=1)\n"
            "s = sdc.SdcSession(df, keys=['region', 'sex', 'age5'], weight='w', seed=1)\n"
            "a = s.branch('r').recode('age5', {str(c): 'x' for c in df['age5'].cat.categories[:3]})\n"
            "html = sdc.report(s, a).html\n"
            "print(html.count('<figure><svg '), html.count('<img'), "
            "sorted(m for m in sys.modules if m.split('.')[0] in ('matplotlib', 'PIL')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # R-U map, suppressions, individual risk, the risk path of the recoded scenario
    assert out.stdout.split() == ["4", "0", "[]"]


def test_every_figure_has_its_caption_and_alt_text_and_is_well_formed(html):
    figs = SVG.findall(html)
    alts = ["Risk–utility map", "Suppressions per key variable", "Individual risk",
            "Distribution of income", "Risk along supp", "Risk along supp+noise"]
    assert len(figs) == len(alts)
    for (svg, caption), alt in zip(figs, alts):
        root = ET.fromstring(svg)  # well-formed XML
        assert root.tag == NS + "svg" and root.get("role") == "img"
        assert root.get("aria-label") == alt and root.find(NS + "title").text == alt
        assert caption and "not drawn" not in caption
        assert not list(root.iter(NS + "script"))
        for el in root.iter():  # no reference to anything outside the figure
            assert not any("href" in k or k == "src" for k in el.attrib), el.tag
            assert "id" not in el.attrib  # several figures share one page
    assert "Density histograms of income" in html and "same scales" in html


def test_figures_show_the_same_numbers_as_the_plots(html, scen):
    s, a, b = scen
    svgs = [ET.fromstring(f) for f, _ in SVG.findall(html)]
    texts = [[t.text for t in x.iter(NS + "text")] for x in svgs]
    # R-U map: both scenarios labelled (the original is the star), anchors and legend
    ru = texts[0]
    assert {"supp", "supp+noise", "original data", "no release", "non-dominated"} <= set(ru)
    assert "main" not in ru
    # suppressions: the counts on the bars are the measure's
    sup = int(a.state.measure("suppressions_by_key").sum())
    assert f"{sup:,}" in texts[1] and {"region", "sex", "age5", "marstat"} <= set(texts[1])
    # the risk path: the steps' labels as x ticks
    assert {"original", a.head.label} <= set(texts[4])
    assert b.head.label in texts[5]


def test_the_same_report_gives_the_same_figures(scen):
    one = [f for f, _ in SVG.findall(report(*scen).html)]
    two = [f for f, _ in SVG.findall(report(*scen).html)]
    assert len(one) == 6 and one == two


def test_hostile_names_are_escaped_everywhere():
    df = sdc.datasets.synthetic_survey(150, seed=4).rename(columns={"income": EVIL})
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], numeric=[EVIL], weight="w", seed=1,
                       name=EVIL)
    a = s.branch(EVIL + "2").apply(AddNoise([EVIL], noise=0.3, bounds=(0, None))).apply(
        BlankRare(k=3))
    text = report(s, a).html
    assert "<script" not in text and EVIL not in text
    figs = SVG.findall(text)
    assert len(figs) >= 4
    for svg, _ in figs:
        root = ET.fromstring(svg)
        assert not list(root.iter(NS + "script"))
    joined = " ".join(t.text or "" for f, _ in figs for t in ET.fromstring(f).iter(NS + "text"))
    assert EVIL + "2" in joined  # shown as text, escaped in the markup
    assert xml_text(EVIL) == ("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &quot;q&quot; "
                              "&amp; co")
    assert xml_text("a\x00b\x1f") == "a\ufffdb\ufffd"  # XML 1.0 forbids control characters


def test_a_failing_figure_is_a_note(scen, monkeypatch):
    from sdcsession.errors import ParameterError

    def boom(*a, **k):
        raise ParameterError("loss: no such column")

    monkeypatch.setattr(V, "svg_suppressions", boom)
    text = report(*scen).html
    assert "(Suppressions per key variable: not drawn — loss: no such column)" in text
    assert len(SVG.findall(text)) == 5


def _label_boxes(svg: str) -> list[tuple[float, float, float, float]]:
    """Estimated boxes of the scenario labels of an R-U map (font size 11)."""
    from sdcsession.present.plots.svg import text_width

    out = []
    for t in ET.fromstring(svg).iter(NS + "text"):
        if t.get("font-size") == "11.0" and t.get("fill") == "#222222":
            x, y = float(t.get("x")), float(t.get("y"))
            out.append((x, y - 10, x + text_width(t.text, 11), y + 3))
    return out


def test_ru_labels_do_not_overlap_and_stay_in_the_plot():
    rng = np.random.default_rng(7)
    n = 12
    t = pd.DataFrame({"scenario": [f"scenario {i}" for i in range(n)],
                      "expected_reidentifications": np.r_[rng.uniform(5, 5.3, 6),
                                                          rng.uniform(1, 9, 6)],
                      "lambda": np.r_[rng.uniform(0.1, 0.12, 6), rng.uniform(0.2, 0.9, 6)]})
    svg = V.svg_ru_map(t, "lambda", "map")
    assert svg == V.svg_ru_map(t, "lambda", "map")
    boxes = _label_boxes(svg)
    names = [x.text for x in ET.fromstring(svg).iter(NS + "text") if x.text in set(t.scenario)]
    assert sorted(names) == sorted(t.scenario)
    for i, b in enumerate(boxes):
        for j in range(i):
            c = boxes[j]
            assert not (b[0] < c[2] and c[0] < b[2] and b[1] < c[3] and c[1] < b[3]), (i, j)


def test_canvas_breaks_lines_at_missing_values_and_escapes_alt():
    c = Canvas(200, 100, left=30, bottom=20, top=10, right=10)
    c.set_x(0, 3)
    c.set_y(0, 3)
    c.line([0, 1, 2, 3], [0, np.nan, 2, 3], "#000")
    out = c.svg('a "b" <c>')
    root = ET.fromstring(out)
    paths = [p.get("d") for p in root.iter(NS + "path")]
    # x = 30 + 160·x/3, y = 80 − 70·y/3 (y up); the lone first point draws no segment
    assert paths == ["M136.7 33.3L190.0 10.0"]
    assert root.get("aria-label") == 'a "b" <c>'


# --------------------------------------------------------------------------- tick helpers
finite = st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(finite, finite, st.integers(2, 10))
def test_nice_ticks_cover_the_range_in_1_2_5_steps(a, b, n):
    lo, hi = min(a, b), max(a, b)
    if hi - lo < 1e-6 * max(abs(lo), abs(hi), 1.0):
        hi = lo + max(abs(lo), 1.0) * 1e-3
    t = nice_ticks(lo, hi, n)
    step = t[1] - t[0]
    tol = 1e-6 * step
    assert t[0] <= lo + tol and t[-1] >= hi - tol  # cover the range
    assert all(y > x for x, y in zip(t, t[1:]))  # increasing
    assert all(math.isclose(y - x, step, rel_tol=1e-6, abs_tol=tol) for x, y in zip(t, t[1:]))
    mant = step / 10 ** math.floor(math.log10(step) + 1e-9)
    assert min(abs(mant - m) for m in (1, 2, 5, 10)) < 1e-6  # 1-2-5 steps
    assert len(t) - 1 <= 2 * n + 2  # about n intervals, never a flood of ticks


@given(st.floats(1e-12, 1.0), st.floats(1.0, 1e6))
def test_log_ticks_are_powers_of_ten_covering_the_range(lo, hi):
    t = log_ticks(lo, hi)
    assert t[0] <= lo * (1 + 1e-9) and t[-1] >= hi * (1 - 1e-9)
    assert all(math.isclose(y / x, 10.0) for x, y in zip(t, t[1:]))


def test_tick_labels():
    assert [tick_label(v, 20.0) for v in (0.0, 20.0, 1000.0, 120000.0)] == \
        ["0", "20", "1,000", "120,000"]
    assert [tick_label(v, 0.2) for v in (0.2, 1.0)] == ["0.2", "1.0"]
    assert tick_label(0.00002, 0.00001) == "0.00002" and tick_label(0.01) == "0.01"
    assert nice_ticks(5.0, 5.0) == [4.4, 4.6, 4.8, 5.0, 5.2, 5.4, 5.6]  # widened to 5 ± 0.5
