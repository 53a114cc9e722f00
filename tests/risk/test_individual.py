"""Individual risk, global risk and expected re-identifications; household risk."""

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference
from scipy import integrate

from sdcsession.errors import MeasureError, ParameterError, SdcWarning
from sdcsession.risk import (
    expected_reidentifications,
    frequencies,
    global_risk,
    household_risk,
    household_risk_from_individual,
    individual_risk,
    individual_risk_from_freq,
)
from sdcsession.risk.individual import _exact

DATASETS = ["francdat", "testdata", "testdata_na", "free1", "eusilc"]


@pytest.mark.parametrize("name", DATASETS)
def test_conformance_risk(name):
    ref = reference()[name]
    r = individual_risk(load(name), ref["keys"], weight=ref["weight"])
    np.testing.assert_allclose(r.to_numpy(), ref["risk"]["risk"], rtol=1e-9)
    assert global_risk(r) == pytest.approx(ref["risk"]["global_risk"], rel=1e-9)
    assert expected_reidentifications(r) == pytest.approx(ref["risk"]["global_risk_ER"], rel=1e-9)


@pytest.mark.parametrize("name", ["testdata", "testdata_na", "eusilc"])
def test_conformance_household_risk(name):
    ref = reference()[name]
    h = household_risk(load(name), ref["keys"], weight=ref["weight"], household=ref["household"])
    np.testing.assert_allclose(h.to_numpy(), ref["risk"]["hier_risk"], rtol=1e-9)
    assert h.sum() == pytest.approx(ref["risk"]["hier_risk_ER"], rel=1e-9)


def test_from_freq_equals_direct():
    ref = reference()["free1"]
    df = load("free1")
    f = frequencies(df, ref["keys"], weight=ref["weight"])
    a = individual_risk_from_freq(f["fk"], f["Fk"])
    pd.testing.assert_series_equal(a, individual_risk(df, ref["keys"], weight=ref["weight"]))


def test_hand_formulas():
    # fk=1, Fk=4: p=1/4 -> p/(1-p) log(1/p); fk=2, Fk=8; fk=4, Fk=16: p/(fk - (1-p)); fk == Fk
    r = individual_risk_from_freq(np.array([1, 2, 4, 3]), np.array([4.0, 8.0, 16.0, 3.0]))
    p = 0.25
    o = p / (1 - p)
    expect = [o * np.log(4), o - o * o * np.log(4), p / (4 - 0.75), 1 / 3]
    np.testing.assert_allclose(r.to_numpy(), expect, rtol=1e-14)
    assert individual_risk_from_freq([1, 2, 5]).tolist() == [1.0, 0.5, 0.2]


def test_unweighted_is_one_over_fk():
    df = pd.DataFrame({"a": ["x", "x", "y", "x"]})
    assert individual_risk(df, "a").tolist() == [1 / 3, 1 / 3, 1.0, 1 / 3]


def _quad(f, p):
    return integrate.quad(lambda v: p * v ** (f - 1) / (p + (1 - p) * v), 0, 1,
                          epsabs=0, epsrel=1e-13, limit=500, points=[1e-6, 1e-3])[0]


def test_exact_method_against_quadrature():
    rng = np.random.default_rng(3)
    f = np.concatenate([rng.integers(1, 300, 60).astype(float), rng.uniform(1, 12, 20)])
    p = np.exp(rng.uniform(np.log(1e-5), np.log(0.999), f.size))
    expect = np.array([_quad(a, b) for a, b in zip(f, p)])
    np.testing.assert_allclose(_exact(f, p), expect, rtol=1e-10)


def test_exact_equals_approx_for_fk_1_and_2_and_is_close_above():
    ref = reference()["testdata"]
    df = load("testdata")
    a = individual_risk(df, ref["keys"], weight=ref["weight"])
    e = individual_risk(df, ref["keys"], weight=ref["weight"], method="exact")
    fk = frequencies(df, ref["keys"])["fk"]
    small = (fk <= 2).to_numpy()
    np.testing.assert_allclose(e[small], a[small], rtol=1e-12)
    assert np.max(np.abs(e / a - 1)) < 0.01 and np.max(np.abs(e / a - 1)) > 0


def test_weights_below_one_warn_and_use_pk_1():
    df = pd.DataFrame({"a": ["x", "x", "y"], "w": [0.5, 0.5, 4.0]})
    with pytest.warns(SdcWarning, match=r"\[0, 1\]"):
        r = individual_risk(df, "a", weight="w")
    assert r.tolist()[:2] == [0.5, 0.5] and np.isfinite(r).all()
    with pytest.warns(SdcWarning, match="Fk below"):
        individual_risk_from_freq([2, 1], [1.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert individual_risk_from_freq([2, 1], [1.0, 4.0], warn=False).iloc[0] == 0.5


def test_bad_input():
    df = pd.DataFrame({"a": ["x", "y"], "w": [1.0, 2.0], "h": [1, None]})
    with pytest.raises(ParameterError, match="method"):
        individual_risk(df, "a", method="nope")
    with pytest.raises(MeasureError, match="'b'"):
        individual_risk(df, ["b"])
    with pytest.raises(MeasureError, match="shape"):
        individual_risk_from_freq([1, 2], [3.0])
    with pytest.raises(MeasureError, match="fk"):
        individual_risk_from_freq([0, 2])
    with pytest.raises(MeasureError, match="risk"):
        global_risk([0.5, 1.5])
    with pytest.raises(MeasureError, match="household.*'hh'"):
        household_risk(df, "a", weight=None, household="hh")
    with pytest.raises(MeasureError, match="household.*missing"):
        household_risk(df, "a", weight=None, household="h")


def test_household_hand_case_and_from_individual():
    df = pd.DataFrame({"a": ["x", "x", "y", "y", "z"], "h": ["A", "B", "A", "B", "C"]})
    # risks 1/2, 1/2, 1/2, 1/2, 1 -> A: 1 - 1/4, B: 3/4, C: 1
    h = household_risk(df, "a", weight=None, household="h")
    assert h.tolist() == [0.75, 0.75, 0.75, 0.75, 1.0]
    hr = household_risk_from_individual(pd.Series([0.1, 0.2, 0.0], index=[3, 4, 5]), [1, 1, 2])
    np.testing.assert_allclose(hr.to_numpy(), [0.28, 0.28, 0.0], rtol=1e-15)
    assert list(hr.index) == [3, 4, 5]


def test_household_risk_at_least_max_member_risk():
    ref = reference()["eusilc"]
    df = load("eusilc")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = individual_risk(df, ref["keys"], weight=ref["weight"])
        h = household_risk(df, ref["keys"], weight=ref["weight"], household=ref["household"])
    mx = r.groupby(df[ref["household"]]).transform("max")
    assert (h >= mx - 1e-15).all() and (h <= 1).all()
