"""Continuous information loss: hand-computed values, invariants, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import sdcsession.utility as u
from sdcsession.errors import MeasureError, ParameterError


@pytest.fixture
def gauss():
    rng = np.random.default_rng(7)
    x = rng.multivariate_normal([0, 0, 0], [[1, 0.6, 0.2], [0.6, 1, 0.3], [0.2, 0.3, 1]], 400)
    o = pd.DataFrame(x, columns=["a", "b", "c"])
    m = o + rng.normal(scale=0.3, size=o.shape)
    return o, m


def test_il1s_hand():
    o = pd.DataFrame({"x": [1.0, 3.0], "y": [0.0, 2.0]})
    m = pd.DataFrame({"x": [2.0, 3.0], "y": [0.0, 0.0]})
    sd = np.sqrt(2.0)  # both columns
    expected = (1 / (np.sqrt(2) * sd) + 2 / (np.sqrt(2) * sd)) / (2 * 2)
    assert u.il1s(o, m) == pytest.approx(expected)
    assert u.il1s(o, m, columns=["x"]) == pytest.approx(0.25)
    assert u.il1s(o, o) == 0.0


def test_il1s_errors():
    o = pd.DataFrame({"x": [1.0, 1.0], "s": ["a", "b"]})
    with pytest.raises(MeasureError, match=r"zero standard deviation.*\['x'\]"):
        u.il1s(o, o, columns=["x"])
    with pytest.raises(MeasureError, match="numeric.*'s'"):
        u.il1s(o, o, columns=["s"])
    with pytest.raises(MeasureError, match="paired by index"):
        u.il1s(pd.DataFrame({"x": [1.0, 2.0, 3.0]}), pd.DataFrame({"x": [1.0, 2.0]}))
    with pytest.raises(MeasureError, match="infinite"):
        u.il1s(pd.DataFrame({"x": [1.0, 2.0]}), pd.DataFrame({"x": [1.0, np.inf]}))


def test_il1s_missing_cells_add_nothing():
    o = pd.DataFrame({"x": [1.0, 3.0, 5.0]})
    m = pd.DataFrame({"x": [2.0, np.nan, 5.0]})
    assert u.il1s(o, m) == pytest.approx(1 / (np.sqrt(2) * 2.0) / 3)


def test_il1_zeros():
    o = pd.DataFrame({"x": [0.0, 2.0, 0.0]})
    m = pd.DataFrame({"x": [1.0, 3.0, 0.0]})
    with pytest.raises(MeasureError, match=r"original value 0 changed in 1 cells of \['x'\]"):
        u.il1(o, m)
    assert u.il1(o, m, zeros="skip") == pytest.approx(50.0)


@settings(max_examples=30, deadline=None)
@given(arrays(np.float64, (12, 3), elements=st.floats(-100, 100)),
       st.floats(0.5, 5), st.floats(-10, 10))
def test_eigen_and_gamma_invariant_to_affine_maps(x, scale, shift):
    o = pd.DataFrame(x, columns=list("abc"))
    if (o.std() < 1e-3).any() or np.linalg.cond(np.corrcoef(x, rowvar=False)) > 1e8:
        return
    m = o * scale + shift
    assert u.eigen_difference(o, m) == pytest.approx(0.0, abs=1e-7)
    assert u.il_correl(o, m) == pytest.approx(0.0, abs=1e-7)


def test_eigen_hand():
    # two variables: eigenvalues of a correlation matrix are 1 ± r
    o = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [1.0, 3.0, 2.0, 4.0]})
    m = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [4.0, 1.0, 3.0, 2.0]})
    r1 = np.corrcoef(o["a"], o["b"])[0, 1]
    r2 = np.corrcoef(m["a"], m["b"])[0, 1]
    e1 = np.array([1 + abs(r1), 1 - abs(r1)])
    e2 = np.array([1 + abs(r2), 1 - abs(r2)])
    assert u.eigen_difference(o, m) == pytest.approx(np.sum(np.abs(e1 - e2) / e1))


def test_eigen_does_not_need_pairing(gauss):
    o, m = gauss
    assert u.eigen_difference(o, m.iloc[:300]) > 0


def test_robust_eigen(gauss):
    o, m = gauss
    r1 = u.eigen_difference(o, m, robust=True, seed=3)
    assert r1 == u.eigen_difference(o, m, robust=True, seed=3)  # deterministic
    # gross outliers in the masked file: robust version is barely affected
    bad = m.copy()
    bad.iloc[:20] = 1e4
    assert u.eigen_difference(o, bad) > 1.0
    assert u.eigen_difference(o, bad, robust=True) < 0.6


def test_mcd_recovers_covariance():
    rng = np.random.default_rng(2)
    x = rng.multivariate_normal([0, 0], [[1, 0.5], [0.5, 1]], 2000)
    x[:300] = rng.normal(30, 1, size=(300, 2))
    c = u.mcd_covariance(x, seed=1)
    assert np.allclose(c, [[1, 0.5], [0.5, 1]], atol=0.15)


def test_il_correl_hand_and_constant(gauss):
    o, m = gauss

    def g(df):
        d = np.diag(np.linalg.inv(np.corrcoef(df.to_numpy(), rowvar=False)))
        return d / np.sqrt((d**2).sum())

    raw = np.sqrt(((g(o) - g(m)) ** 2).sum())
    assert u.il_correl(o, m) == pytest.approx(raw / np.sqrt(2))
    assert u.il_correl(o, m, constant=0.5) == pytest.approx(raw / 2)  # Młodak (2020)
    assert 0 <= u.il_correl(o, m) <= 1


def test_il_correl_singular_names_collinear_variables(gauss):
    o, _ = gauss
    o = o.assign(d=o["a"] * 2 + o["b"])
    with pytest.raises(MeasureError, match=r"singular.*\['a', 'b', 'd'\]"):
        u.il_correl(o, o)
    with pytest.raises(MeasureError, match="at least 2"):
        u.il_correl(o[["a"]], o[["a"]])


def test_discrepancy_table_hand():
    o = pd.DataFrame({"x": [1.0, 2.0, 4.0], "y": [2.0, 1.0, 3.0]})
    m = pd.DataFrame({"x": [1.0, 3.0, 4.0], "y": [2.0, 1.0, 6.0]})
    t = u.discrepancy_table(o, m).set_index("statistic")
    assert list(t.index) == ["X", "X_mean", "V", "S", "R", "RF", "C", "F"]
    assert t.loc["X", "cells"] == 6
    assert t.loc["X", "mse"] == pytest.approx((1 + 9) / 6)
    assert t.loc["X", "mae"] == pytest.approx((1 + 3) / 6)
    assert t.loc["X", "mvar"] == pytest.approx((1 / 2 + 3 / 3) / 6)
    mo, mm = o.mean().to_numpy(), m.mean().to_numpy()
    assert t.loc["X_mean", "mae"] == pytest.approx(np.abs(mo - mm).mean())
    vo, vm = np.cov(o.to_numpy(), rowvar=False), np.cov(m.to_numpy(), rowvar=False)
    iu = np.triu_indices(2)
    assert t.loc["V", "cells"] == 3
    assert t.loc["V", "mse"] == pytest.approx(((vo[iu] - vm[iu]) ** 2).sum() / 3)
    assert t.loc["S", "mvar"] == pytest.approx((np.abs(np.diag(vo) - np.diag(vm)) / np.diag(vo)).mean())
    ro, rm = np.corrcoef(o.to_numpy(), rowvar=False)[0, 1], np.corrcoef(m.to_numpy(), rowvar=False)[0, 1]
    assert t.loc["R", "cells"] == 1
    assert t.loc["R", "mae"] == pytest.approx(abs(ro - rm))
    assert t.loc["RF", "cells"] == 4 and t.loc["F", "cells"] == 4
    # two variables: RF of PC1 = sqrt((1+|r|)/2) for both variables, communality (1+|r|)/2
    assert t.loc["C", "mae"] == pytest.approx(abs((1 + abs(ro)) / 2 - (1 + abs(rm)) / 2))


def test_discrepancy_identical_is_zero_and_trottini_bound():
    rng = np.random.default_rng(1)
    o = pd.DataFrame(rng.normal(size=(50, 3)), columns=list("abc"))
    t = u.discrepancy_table(o, o)
    assert (t[["mse", "mae", "mvar"]].to_numpy() == pytest.approx(0.0, abs=1e-12))
    o2 = o.assign(a=0.0 * o["a"] + np.r_[0.0, np.ones(49)])
    m2 = o2.assign(a=o2["a"] + 1.0)
    t = u.discrepancy_table(o2, m2, statistics=["X"]).set_index("statistic")
    assert t.loc["X", "mvar_excluded"] == 1
    assert t.loc["X", "mvar"] == pytest.approx(49 / 149)
    tb = u.discrepancy_table(o2, m2, statistics=["X"], trottini_bound=0.5).set_index("statistic")
    assert tb.loc["X", "mvar_excluded"] == 0
    assert tb.loc["X", "mvar"] == pytest.approx(50 * 0.5 / 150)
    with pytest.raises(ParameterError):
        u.discrepancy_table(o, o, statistics=["Q"])
    with pytest.raises(MeasureError, match="paired"):
        u.discrepancy_table(o, o.iloc[:10])
    assert len(u.discrepancy_table(o, o.iloc[:10], statistics=["R", "V"])) == 2


def test_il_variables_mixed_types_published_rule():
    cats = ["lo", "mid", "hi"]
    o = pd.DataFrame(
        {
            "nom": ["a", "b", "a", "b"],
            "ord": pd.Categorical(["lo", "mid", "hi", "hi"], categories=cats, ordered=True),
            "x": [0.0, 1.0, 2.0, 10.0],
        }
    )
    m = pd.DataFrame(
        {
            "nom": ["a", None, "b", "b"],
            "ord": pd.Categorical(["mid", None, "hi", None], categories=cats, ordered=True),
            "x": [1.0, np.nan, 2.0, np.nan],
        }
    )
    r = u.il_variables(o, m)
    assert r.types == {"nom": "nominal", "ord": "ordinal", "x": "continuous"}
    assert r.by_variable["nom"] == pytest.approx(2 / 4)
    # ord: lo->mid 1/2 ; mid suppressed -> far end 1/2 ; 0 ; hi suppressed -> lo: 1
    assert r.by_variable["ord"] == pytest.approx((0.5 + 0.5 + 0 + 1) / 4)
    # x: median 1.5: x=1 <= med -> max 10 (d 9) ; x=10 > med -> min 0 (d 10)
    at = lambda v: 2 / np.pi * np.arctan(v)  # noqa: E731
    assert r.by_variable["x"] == pytest.approx((at(1) + at(9) + 0 + at(10)) / 4)
    assert r.overall == pytest.approx(r.by_variable.mean())
    s = u.il_variables(o, m, sdcmicro=True)
    assert s.by_variable["ord"] == pytest.approx((0.5 + 1 + 0 + 1) / 4)
    max_diff = max(abs(1 - 10), abs(2 - 0))  # |min x' - max x|, |max x' - min x|
    assert s.by_variable["x"] == pytest.approx((at(1) + at(max_diff) + 0 + at(max_diff)) / 4)
    assert float(r) == r.overall and list(r.to_frame().columns) == ["type", "lambda"]


def test_il_variables_types_override_and_errors():
    o = pd.DataFrame({"k": [1, 2, 3, 4]})
    m = pd.DataFrame({"k": [1, 2, 4, 4]})
    assert u.il_variables(o, m, types={"k": "nominal"}).overall == pytest.approx(0.25)
    assert u.il_variables(o, m, types={"k": "ordinal"}).overall == pytest.approx(1 / 3 / 4)
    with pytest.raises(ParameterError):
        u.il_variables(o, m, types={"k": "weird"})
    with pytest.raises(MeasureError, match="continuous"):
        u.il_variables(o.astype(str), m.astype(str), types={"k": "continuous"})
    with pytest.raises(MeasureError, match="paired"):
        u.il_variables(o, m.iloc[:2])


def test_lambda_bounds_property(gauss):
    o, m = gauss
    r = u.il_variables(o, m)
    assert ((r.by_variable >= 0) & (r.by_variable <= 1)).all()
    assert u.il_variables(o, o).overall == 0.0


def test_overflowing_values_are_measure_errors():
    """Values beyond ~1e154 overflow the squares and products behind the correlations and the
    sums: a named MeasureError, never numpy's LinAlgError or a bare ValueError."""
    o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0], "y": [2.0, 1.0, 4.0, 3.0, 6.0]})
    big = o.assign(x=o["x"] * 1e300)
    with pytest.raises(MeasureError, match="overflows"):
        u.il_correl(big, o)
    with pytest.raises(MeasureError, match="rescale"):
        u.il_correl(o, big)
    for fn in (u.il1s, u.il1s_sdcmicro):
        with pytest.raises(MeasureError, match="rescale"):
            fn(big, big + 1.0)
    assert 0 <= u.il_correl(o, o.assign(x=o["x"] * 1e150)) <= 1  # large but finite: computed
