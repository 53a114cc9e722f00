"""Benchmarking indicators: laeken conformance (Gini, ARPR), hand-computed cases, CIs, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.errors import MeasureError, ParameterError, SdcWarning
from sdcsession.utility.benchmark import (
    Indicator,
    arpr,
    ci_overlap,
    compare_indicators,
    gini,
    indicator_ci,
    weighted_mean,
    weighted_median,
    weighted_quantile,
    weighted_ratio,
    weighted_total,
)


@pytest.fixture(scope="module")
def eusilc() -> pd.DataFrame:
    return load("eusilc")


# ---------------------------------------------------------------- conformance (laeken 0.5.2)


def test_gini_total_matches_laeken(eusilc):
    ref = reference()["eusilc"]["gini"]["total"] / 100
    assert gini(eusilc.eqIncome, eusilc.rb050) == pytest.approx(ref, rel=1e-9)


def test_gini_by_region_matches_laeken(eusilc):
    ref = reference()["eusilc"]["gini"]["by_db040"]
    got = gini(eusilc.eqIncome, eusilc.rb050, by=eusilc.db040)
    assert sorted(map(str, got.index)) == sorted(ref)
    for region, value in ref.items():
        assert got[region] == pytest.approx(value / 100, rel=1e-9), region


def test_arpr_matches_laeken(eusilc):
    ref = reference()["eusilc"]["arpr"]
    r = arpr(eusilc.eqIncome, eusilc.rb050)
    assert r.threshold == pytest.approx(ref["threshold"], rel=1e-9)
    assert r.value == pytest.approx(ref["total"] / 100, rel=1e-9)
    assert r.threshold == pytest.approx(0.6 * r.median, rel=1e-15)


def test_arpr_by_uses_the_overall_threshold(eusilc):
    r = arpr(eusilc.eqIncome, eusilc.rb050, by=eusilc.db040)
    vienna = eusilc.db040 == "Vienna"
    x, w = eusilc.eqIncome[vienna], eusilc.rb050[vienna]
    assert r.by["Vienna"] == pytest.approx(w[x < r.threshold].sum() / w.sum(), rel=1e-12)
    # the population-weighted mean of the group rates is the overall rate
    share = eusilc.groupby("db040", observed=True).rb050.sum() / eusilc.rb050.sum()
    assert float((r.by * share).sum()) == pytest.approx(r.value, rel=1e-12)


# ---------------------------------------------------------------- hand-computed


def test_weighted_estimators_by_hand():
    x, w = [1.0, 2.0, 4.0], [1.0, 1.0, 2.0]
    assert weighted_mean(x, w) == pytest.approx(11 / 4)
    assert weighted_total(x, w) == 11.0
    assert weighted_ratio([2.0, 2.0, 2.0], x, w) == pytest.approx(8 / 11)
    # cumulated shares 0.25, 0.5, 1: median at the exact 0.5 -> mean of 2 and 4
    assert weighted_median(x, w) == 3.0
    assert weighted_quantile(x, w, q=0.3) == 2.0
    assert weighted_quantile(x, w, q=0.0) == 1.0 and weighted_quantile(x, w, q=1.0) == 4.0


def test_gini_by_hand():
    # unweighted: G = (2 sum x_i i - sum x_i) / (n sum x) - 1 for sorted x
    x = np.array([1.0, 2.0, 3.0, 10.0])
    expected = (2 * np.sum(x * np.arange(1, 5)) - x.sum()) / (4 * x.sum()) - 1
    assert gini(x) == pytest.approx(expected, rel=1e-14)
    assert gini([5.0, 5.0, 5.0]) == pytest.approx(0.0, abs=1e-15)
    # integer weights act like replicated records up to the sum w^2 x term
    assert gini([1.0, 3.0], [2.0, 1.0]) == pytest.approx((2 * (2 * 2 + 3 * 3) - (4 + 3)) / (3 * 5) - 1)


def test_gini_warns_on_negative_values():
    x = np.array([-4.0, 1.0, 2.0, 3.0])
    expected = (2 * np.sum(x * np.arange(1, 5)) - x.sum()) / (4 * x.sum()) - 1
    with pytest.warns(SdcWarning, match="1 negative values"):
        g = gini(x)
    assert g == pytest.approx(expected, rel=1e-14) and g > 1  # laeken's value, outside [0, 1]


def test_by_returns_series_per_group():
    x = pd.Series([1.0, 2.0, 3.0, 10.0])
    g = pd.Series(["a", "a", "b", "b"], name="grp")
    s = weighted_mean(x, by=g)
    assert s.to_dict() == {"a": 1.5, "b": 6.5}
    assert gini(x, by=g)["a"] == pytest.approx(gini([1.0, 2.0]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.01, 1e6), min_size=2, max_size=40), st.floats(0.1, 100))
def test_gini_is_scale_invariant_and_in_unit_interval(xs, c):
    g = gini(xs)
    assert -1e-12 <= g <= 1
    assert gini([c * v for v in xs]) == pytest.approx(g, abs=1e-9)


# ---------------------------------------------------------------- confidence intervals


def test_normal_ci_of_mean_is_the_textbook_interval():
    x = np.arange(1.0, 101.0)
    ci = indicator_ci(pd.DataFrame({"x": x}), "mean:x", method="normal", level=0.95)
    se = x.std(ddof=1) / np.sqrt(100)
    assert ci.se[0] == pytest.approx(se, rel=1e-12)
    assert ci.lower[0] == pytest.approx(50.5 - 1.959963984540054 * se, rel=1e-12)


def test_household_clustering_uses_cluster_totals():
    # two identical members per household: cluster totals double, so the linearised SE of the
    # total with households is sqrt(2 * n_h/(n_h-1) ...) — compare with the direct formula
    rng = np.random.default_rng(3)
    y = rng.normal(size=50)
    df = pd.DataFrame({"y": np.repeat(y, 2), "h": np.repeat(np.arange(50), 2)})
    ci = indicator_ci(df, "total:y", household="h", method="normal")
    zc = 2 * y
    assert ci.se[0] == pytest.approx(np.sqrt(50 / 49 * np.sum((zc - zc.mean()) ** 2)), rel=1e-12)


def test_bootstrap_is_reproducible_by_seed(eusilc):
    kw = dict(weight="rb050", household="db030", n_boot=30)
    a = indicator_ci(eusilc, "gini:eqIncome", seed=7, **kw)
    b = indicator_ci(eusilc, "gini:eqIncome", seed=7, **kw)
    c = indicator_ci(eusilc, "gini:eqIncome", seed=8, **kw)
    pd.testing.assert_frame_equal(a, b)
    assert a.lower[0] != c.lower[0]
    assert a.lower[0] < a.estimate[0] < a.upper[0]


def test_calibrated_bootstrap_keeps_known_totals():
    from sdcsession.utility.benchmark import _calibrate, _calibration_matrix

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"g": rng.choice(list("abc"), 200), "s": rng.choice(list("mf"), 200)})
    w = rng.uniform(1, 3, 200)
    X = _calibration_matrix(df, ["g", "s"], None)
    totals = X.T @ w
    idx = rng.integers(0, 200, 200)
    wc = _calibrate(w[idx], X[idx], totals)
    assert X[idx].T @ wc == pytest.approx(totals, rel=1e-9)
    ci = indicator_ci(df.assign(y=rng.normal(size=200), w=w), "mean:y", weight="w",
                      calibrate=["g"], seed=1, n_boot=20)
    assert np.isfinite(ci.lower[0]) and ci.lower[0] < ci.upper[0]


def test_ci_overlap_karr():
    assert float(ci_overlap(0, 2, 0, 2)) == 1.0
    assert float(ci_overlap(0, 2, 1, 3)) == 0.5
    assert float(ci_overlap(0, 2, 2, 4)) == 0.0
    assert float(ci_overlap(0, 2, 3, 5)) == pytest.approx(-0.5)  # disjoint: negative
    assert float(ci_overlap(0, 4, 1, 2)) == pytest.approx(0.5 * (1 / 4 + 1))


def test_compare_indicators_table(eusilc):
    rng = np.random.default_rng(0)
    masked = eusilc.assign(eqIncome=eusilc.eqIncome * np.exp(rng.normal(0, 0.05, len(eusilc))))
    t = compare_indicators(eusilc, masked, ["gini:eqIncome", "arpr:eqIncome"], weight="rb050",
                           household="db030", by="db040", seed=1, n_boot=20)
    assert list(t.columns) == ["indicator", "group", "original", "masked", "rel_diff_pct",
                               "orig_lower", "orig_upper", "masked_lower", "masked_upper",
                               "in_ci", "ci_overlap"]
    assert len(t) == 2 * 10 and t.group.iloc[0] == "total"
    row = t[(t.indicator == "gini(eqIncome)") & (t.group == "total")].iloc[0]
    assert row.original == pytest.approx(reference()["eusilc"]["gini"]["total"] / 100, rel=1e-9)
    assert row.masked == pytest.approx(gini(masked.eqIncome, masked.rb050), rel=1e-12)
    assert row.rel_diff_pct == pytest.approx(100 * abs(row.masked - row.original) / row.original)
    assert row.in_ci == (row.orig_lower <= row.masked <= row.orig_upper)
    same = compare_indicators(eusilc, eusilc, "mean:eqIncome", weight="rb050", seed=2, n_boot=10)
    assert same.rel_diff_pct.tolist() == [0.0] and same.ci_overlap.tolist() == [1.0]


def test_compare_indicators_with_different_record_counts(eusilc):
    sub = eusilc.iloc[::2]
    t = compare_indicators(eusilc, sub, ["median:eqIncome"], weight="rb050", method="normal",
                           seed=3, n_boot=10)
    assert t.masked[0] == pytest.approx(weighted_median(sub.eqIncome, sub.rb050))


# ---------------------------------------------------------------- bad input


def test_non_numeric_values_refused():
    with pytest.raises(MeasureError, match="numeric"):
        gini(pd.Series(["a", "b"]))
    with pytest.raises(MeasureError, match="numeric"):
        weighted_mean(pd.Series(pd.Categorical([1, 2])))


def test_weights_with_nan_refused():
    with pytest.raises(MeasureError, match="weights.*missing"):
        weighted_mean([1.0, 2.0], [1.0, np.nan])
    with pytest.raises(MeasureError, match="negative"):
        weighted_mean([1.0, 2.0], [1.0, -1.0])
    with pytest.raises(MeasureError, match="length"):
        weighted_mean([1.0, 2.0], [1.0])


def test_missing_values_need_na_rm():
    with pytest.raises(MeasureError, match="na_rm"):
        gini([1.0, np.nan, 3.0])
    assert weighted_mean([1.0, np.nan, 3.0], na_rm=True) == 2.0


def test_breakdown_with_a_single_record_refused_for_ci():
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": ["a", "a", "a", "b"]})
    with pytest.raises(MeasureError, match="group 'b'.*at least 2"):
        indicator_ci(df, "mean:x", by="g", method="normal")
    assert weighted_mean(df.x, by=df.g)["b"] == 4.0  # the point estimate itself is defined


def test_bad_specs_and_columns():
    df = pd.DataFrame({"x": [1.0, 2.0]})
    with pytest.raises(ParameterError):
        Indicator.parse("variance:x")
    with pytest.raises(ParameterError):
        Indicator.parse("ratio:x")
    with pytest.raises(MeasureError, match="unknown column"):
        indicator_ci(df, "mean:nope")
    with pytest.raises(ParameterError):
        indicator_ci(df, "mean:x", method="jackknife")
    with pytest.raises(ParameterError):
        weighted_quantile([1.0], q=1.5)


def test_progress_bar(monkeypatch):
    import io
    import sys

    from sdcsession import progress
    from sdcsession.utility.benchmark import compare_indicators, indicator_ci

    monkeypatch.setattr(progress, "MIN_SECONDS", 0.0)
    df = pd.DataFrame({"x": np.random.default_rng(4).lognormal(size=300)})
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    t_on = compare_indicators(df, df, ["mean:x", "gini:x"], seed=1, n_boot=20, progress=True)
    # one bar over 2 files x 2 indicators x 20 replicates
    assert buf.getvalue().startswith("\rbootstrap:") and "80/80" in buf.getvalue()
    assert buf.getvalue().count("\n") == 1
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    ci = indicator_ci(df, "gini:x", seed=1, n_boot=20, progress=True)
    assert buf.getvalue().startswith("\rbootstrap gini(x):") and "20/20" in buf.getvalue()
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    t_off = compare_indicators(df, df, ["mean:x", "gini:x"], seed=1, n_boot=20, progress=False)
    assert indicator_ci(df, "gini:x", seed=1, n_boot=20, progress=False).equals(ci)
    assert buf.getvalue() == ""
    pd.testing.assert_frame_equal(t_on, t_off)
