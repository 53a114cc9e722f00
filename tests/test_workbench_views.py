"""The workbench's views, driven from Python: the numeric risk beside the key risk, the R-U map's
risk axis, suppressions per key, risky records, SUDA2, l-diversity, the comparison of scenarios,
the "?" explanations, and the views' background runs with Cancel.

Every assertion compares what the widget shows with the session's own figures (``s.risk``,
``s.utility``, ``sdc.compare``) or with a hand count on the data.
"""

from __future__ import annotations

import html
import struct

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc

widgets = pytest.importorskip("ipywidgets", reason="the workbench needs ipywidgets ([gui])")

from sdcsession.present.workbench import Workbench  # noqa: E402
from sdcsession.present.workbench.panels.explain import explain_html, explain_names  # noqa: E402
from sdcsession.present.workbench.panels.numeric import ru_table  # noqa: E402
from sdcsession.present.workbench.panels.tables import (  # noqa: E402
    DIS_THRESHOLDS,
    html_table,
    l_diversity_tables,
    sensitive_options,
    suda2_tables,
)
from sdcsession.progress import add_listener, remove_listener  # noqa: E402

KEYS = ["region", "sex", "age5"]


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    return sdc.datasets.synthetic_survey(150, seed=7)


@pytest.fixture
def s(df: pd.DataFrame) -> sdc.SdcSession:
    return sdc.SdcSession(df, keys=KEYS, numeric=["income", "expend"], sensitive=["health"],
                          weight="w", seed=5)


def _treated(s: sdc.SdcSession) -> sdc.SdcSession:
    s.local_suppression(k=3)
    s.microaggregation(["income", "expend"], k=3)
    return s


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


# ------------------------------------------------------------------------------ live panel
def test_live_panel_shows_the_numeric_risk_beside_the_key_risk(s: sdc.SdcSession) -> None:
    wb = s.workbench(background=False)
    _treated(s)
    num = s.risk.numeric
    f = wb.figures
    assert f["numeric.interval_disclosure"] == num["interval_disclosure"] < 1
    assert f["numeric.record_linkage"] == num["record_linkage"]
    text = wb.risk_label.value
    assert f"interval disclosure (numeric)</td><td style='text-align:right'><b>" \
           f"{num['interval_disclosure']:.4g}</b>" in text
    assert f"{num['record_linkage']:.4g}" in text
    assert f"{s.risk.expected_reidentifications:.4g}" in text  # the key risk stays beside it


def test_without_numeric_variables_the_live_panel_has_key_risk_only(df: pd.DataFrame) -> None:
    s = sdc.SdcSession(df, keys=KEYS, seed=5)
    wb = s.workbench(background=False)
    assert "numeric" not in wb.risk_label.value
    assert not any(k.startswith("numeric.") for k in wb.figures)
    assert [v for _, v in wb.live.ru_risk.options] == ["key"]


def test_the_ru_maps_risk_axis_is_key_numeric_or_both(s: sdc.SdcSession) -> None:
    wb = s.workbench(background=False)
    _treated(s)
    alt = s.branch("alt")
    alt.undo()  # alt: local suppression only, its numeric risk is the original's
    live = wb.live
    assert [v for _, v in live.ru_risk.options] == ["key", "numeric", "both"]
    key_png = wb.ru_image.value
    live.ru_risk.value = "numeric"
    num_png = wb.ru_image.value
    assert num_png != key_png and _png_size(num_png) == _png_size(key_png)
    live.ru_risk.value = "both"
    (w, h), (w1, h1) = _png_size(wb.ru_image.value), _png_size(key_png)
    assert w == w1 and h > 1.8 * h1  # two maps, one above the other
    table = ru_table(wb._scenarios(), "lambda", "both")
    by_name = {x.name: x for x in wb._scenarios()}
    for _, row in table.iterrows():
        x = by_name[row["scenario"]]
        assert row["interval_disclosure"] == x.risk.numeric["interval_disclosure"]
        assert row["expected_reidentifications"] == pytest.approx(
            x.risk.expected_reidentifications)
    assert table.attrs["original"]["interval_disclosure"] == 1.0  # the original against itself
    live.ru_risk.value = "key"
    assert wb.ru_image.value == key_png  # drawn once per (scenarios, loss, risk axis)


def test_live_explain_buttons_show_the_registry_text_with_values(s: sdc.SdcSession) -> None:
    wb = s.workbench(background=False)
    _treated(s)
    help_ = wb.live.risk_help
    assert not help_.open
    help_.button.click()
    assert help_.open
    for name in ("global_risk", "k3_violations", "numeric.interval_disclosure",
                 "numeric.record_linkage"):
        assert html.escape(s.risk.explain(name).to_text()) in help_.text.value, name
    s.undo()  # an open explanation follows HEAD
    assert html.escape(s.risk.explain("k3_violations").to_text()) in help_.text.value
    wb.k_value.value = 4  # any k: its figure explained with its value
    e = s.risk.explain("k4_violations")
    assert e.value == s.risk.k_violations(4) > 0 and e.quantities["k"] == 4
    assert html.escape(e.to_text()) in help_.text.value
    help_.button.click()
    assert not help_.open
    wb.live.ru_help.button.click()
    text = wb.live.ru_help.text.value
    assert "Expected number of re-identifications" in text and "Młodak" in text  # λ


# ------------------------------------------------------------------------------ views tab
def test_views_risk_suppressions_and_risky_records(s: sdc.SdcSession) -> None:
    wb = s.workbench(background=False)
    _treated(s)
    v = wb.views
    v.show_button.click()
    num = s.risk.numeric
    assert f"{num['interval_disclosure']:.4g}" in v.numeric.value
    assert f"{num['record_linkage']:.4g}" in v.numeric.value
    assert "scenario main, step #2" in v.numeric.value
    assert v.suppressions.value.endswith(html_table(s.utility.suppressions.round(2)))
    # the threshold: box and slider are one value; the table follows it at once
    for t in (0.01, 0.2):
        v.threshold_slider.value = t
        assert v.threshold.value == t
        n = int((s.risk.individual > t).sum())
        assert f"<b>{n:,}</b> record(s) above the threshold" in v.risky.value
    v.threshold.value = 0.5
    assert v.threshold_slider.value == 0.5
    # RMD on request: the four figures' shares beside the others
    assert "RMD" not in v.numeric.value
    v.rmd_button.click()
    r = s.risk.rmd()
    assert f"RMD interval risk, risk1 (numeric)</td><td style='text-align:right'><b>" \
           f"{r.risk1:.4g}</b>" in v.numeric.value
    assert f"{r.risk2:.4g}" in v.numeric.value


def test_the_comparison_equals_sdc_compare(s: sdc.SdcSession) -> None:
    wb = s.workbench(background=False)
    _treated(s)
    other = s.branch("other")
    other.undo()
    wb.views.compare_button.click()
    expected = pd.DataFrame(sdc.compare(s, other, original=True))
    assert expected["scenario"].tolist() == ["original", "main", "other"]
    assert wb.views.comparison.value == html_table(expected, index=False)
    for name, x in (("main", s), ("other", other)):  # the table's figures are the sessions'
        row = expected.set_index("scenario").loc[name]
        assert row["k3_violations"] == x.risk.k_violations(3)
        assert row["expected_reidentifications"] == pytest.approx(
            x.risk.expected_reidentifications)
        assert f"<td>{name}</td>" in wb.views.comparison.value


def test_suda2_counts_equal_the_scores(s: sdc.SdcSession) -> None:
    wb = s.workbench(background=False)
    v = wb.views
    v.dis_fraction.value = 0.05
    v.suda_button.click()
    r = s.risk.suda2(dis_fraction=0.05)
    dis = r.dis_score.to_numpy()
    t = suda2_tables(s, 0.05)
    assert t["thresholds"]["records"].tolist() == [int((dis > x).sum()) for x in DIS_THRESHOLDS]
    assert t["thresholds"]["records"].iloc[0] == int((r.score > 0).sum()) > 0
    np.testing.assert_allclose(t["contributions"]["contribution (%)"], r.contributions)
    assert t["records"]["dis_score"].is_monotonic_decreasing
    assert t["records"]["dis_score"].iloc[0] == dis.max()
    assert html_table(t["thresholds"], index=False) in v.suda.value
    v.suda_help.button.click()
    assert "DIS-SUDA score (SUDA2)" in v.suda_help.text.value
    assert "one per record, summarised in the table below" in v.suda_help.text.value


def test_l_diversity_of_a_chosen_sensitive_variable(s: sdc.SdcSession, df: pd.DataFrame) -> None:
    wb = s.workbench(background=False)
    v = wb.views
    opts = list(v.sensitive.options)
    assert opts[0] == "health" and not set(KEYS) & set(opts)  # the sensitive role first, no key
    for var, l_ in (("health", 2), ("educ", 3)):  # a role, and any other column
        v.sensitive.value, v.l_value.value = var, l_
        v.ldiv_button.click()
        # hand count: distinct non-missing values of var within each key combination
        distinct = df.groupby(KEYS, dropna=False, observed=True)[var].transform("nunique")
        n = int((distinct < l_).sum())
        assert f"<b>{n:,}</b> record(s) with fewer than {l_} distinct values of {var}" \
            in v.ldiv.value
        t = l_diversity_tables(s, var, l_)
        assert t["violations"] == n
        row = t["summary"].set_index("measure").loc["distinct"]
        assert row["min"] == distinct.min() and row["mean"] == pytest.approx(distinct.mean())
    with pytest.raises(sdc.ParameterError, match="sensitive"):
        l_diversity_tables(s, "sex")  # a key variable
    v.ldiv_help.button.click()
    assert "Distinct l-diversity" in v.ldiv_help.text.value


def test_view_buttons_have_explanations_of_their_figures(s: sdc.SdcSession) -> None:
    wb = s.workbench(background=False)
    _treated(s)
    v = wb.views
    v.numeric_help.button.click()
    text = v.numeric_help.text.value
    assert html.escape(s.risk.explain("numeric.interval_disclosure").to_text()) in text
    v.suppressions_help.button.click()
    assert html.escape(s.utility.explain("suppressions").to_text()) in \
        v.suppressions_help.text.value
    v.comparison_help.button.click()
    assert "Records violating k-anonymity" in v.comparison_help.text.value
    assert explain_names(["lambda", "gdu", "k5_violations"]) == ["lambda_overall",
                                                                  "k5_violations"]


def test_user_text_in_the_views_is_escaped(df: pd.DataFrame) -> None:
    evil = df.rename(columns={"educ": "<b>educ</b>"}).assign(
        sex=df["sex"].astype(str).replace({"f": "<script>alert(1)</script>"}))
    s = sdc.SdcSession(evil, keys=KEYS, seed=1)
    wb = s.workbench(background=False)
    v = wb.views
    v.threshold.value = 0.0
    v.sensitive.value = "<b>educ</b>"
    v.show_button.click()
    v.ldiv_button.click()
    v.suda_button.click()
    for value in (v.risky.value, v.ldiv.value, v.suda.value, v.suppressions.value,
                  v.comparison.value):
        assert "<script>" not in value and "<b>educ</b>" not in value
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in v.risky.value
    assert "&lt;b&gt;educ&lt;/b&gt;" in v.ldiv.value
    assert "<script>" not in explain_html(s, ["global_risk"])


# ------------------------------------------------------------------------ background runs
def test_a_view_runs_in_the_background_and_cancel_stops_it(df: pd.DataFrame) -> None:
    s = sdc.SdcSession(df, keys=KEYS + ["marstat", "educ", "urbrur"], seed=5)
    wb: Workbench = s.workbench(background=True)
    seen: list[int] = []

    def press_cancel(desc: str, n: int, total: int | None) -> None:
        seen.append(n)
        wb.cancel()

    add_listener(press_cancel)
    try:
        wb.views.suda_button.click()
        assert wb.wait(60)
    finally:
        remove_listener(press_cancel)
    assert seen and "SUDA2: cancelled" in wb.message.value and wb.views.suda.value == ""
    assert not any(k and k[0] == "suda2" for k in s.state.cache)  # nothing half-computed kept
    wb.views.suda_button.click()  # without cancel it runs to its end in the worker thread
    assert wb.wait(60) and "SUDA2: done" in wb.message.value
    assert "DIS-SUDA score above" in wb.views.suda.value
    assert s.head.id == 0 and wb.cancel_button.disabled


def test_a_view_waits_for_a_running_step(s: sdc.SdcSession) -> None:
    wb = s.workbench(background=False)
    clicked: list[str] = []

    def click_views(desc: str, n: int, total: int | None) -> None:
        if not clicked:
            clicked.append(desc)
            wb.views.compare_button.click()  # the user clicks a view while a step runs
            clicked.append(wb.message.value)

    add_listener(click_views)
    try:
        wb.treatment.value = "local_suppression"
        wb.apply_button.click()
    finally:
        remove_listener(click_views)
    assert clicked and s.head.depth == 1
    assert "comparison: a step or view is running" in clicked[1]  # refused, with a message
    assert wb.views.comparison.value == "" and "local_suppression: done" in wb.message.value


def test_sensitive_options_follow_the_roles(df: pd.DataFrame) -> None:
    s = sdc.SdcSession(df, keys=KEYS, sensitive=["disability"], seed=1)
    opts = sensitive_options(s)
    assert opts[0] == "disability" and len(opts) == len(df.columns) - len(KEYS)
    h = sdc.SdcSession(df, keys=KEYS, household="hid", weight="w", seed=1)
    assert set(sensitive_options(h)) == set(df.columns) - set(KEYS) - {"hid", "w"}


def test_numeric_risk_of_a_step_on_the_keys_only_is_the_originals(
        s: sdc.SdcSession, monkeypatch: pytest.MonkeyPatch) -> None:
    import sdcsession.risk as risk_pkg
    from sdcsession.risk import interval_disclosure, record_linkage_risk

    wb = s.workbench(background=False)
    before = dict(wb.figures)
    calls: list[int] = []
    real = risk_pkg.interval_disclosure

    def counted(*a: object, **kw: object) -> float:
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(risk_pkg, "interval_disclosure", counted)
    s.local_suppression(k=3)  # keys only: the numeric variables are the original's
    assert calls == []  # computed once per tree, not again for this state
    cols = ["income", "expend"]
    orig, data = s.original[cols], s.state.data[cols]
    assert wb.figures["numeric.interval_disclosure"] == interval_disclosure(orig, data) == 1.0
    assert wb.figures["numeric.record_linkage"] == record_linkage_risk(orig, data)
    assert wb.figures["numeric.interval_disclosure"] == before["numeric.interval_disclosure"]
    s.microaggregation(cols, k=3)  # the numeric variables change: measured again
    assert calls == [1]
    assert wb.figures["numeric.interval_disclosure"] == real(orig, s.state.data[cols]) < 1
