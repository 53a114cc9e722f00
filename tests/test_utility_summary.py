"""The session's utility slot: measures chosen by role, equal to the pure functions, cached."""

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference

import sdcsession as sdc
from sdcsession.errors import MeasureError
from sdcsession.session.measures import COUNTS
from sdcsession.utility import il1s, il_correl


@pytest.fixture
def casc_session():
    ref = reference()["casc"]
    orig = load("casc")
    masked = load("casc_masked")
    cols = ref["vars"]
    s = sdc.SdcSession(orig.assign(k=pd.Categorical(["a", "b"] * (len(orig) // 2))), keys=["k"],
                       numeric=cols, seed=1)
    return s, orig, masked, cols


def test_numeric_measures_match_conformance(casc_session):
    s, orig, masked, cols = casc_session

    # a test-only step that swaps in the published masked file (what any tool produced)
    import attrs

    from sdcsession.methods import Result, Treatment

    @attrs.frozen
    class _Swap(Treatment):
        type = "_test_swap_in"

        def apply(self, data, roles, rng):
            return Result(data.assign(**{c: masked[c].to_numpy() for c in cols}))

    s.apply(_Swap())
    u = s.utility
    ref = reference()["casc"]["numeric_utility"]
    n, p = len(orig), len(cols)
    assert u.il1s * n * p == pytest.approx(ref["il1s_sdcmicro"], rel=1e-9)
    assert u.eigen == pytest.approx(ref["eigen"], rel=1e-9)
    assert u.il_correl == pytest.approx(ref["il_correl"], rel=1e-9)
    assert u.il1s == pytest.approx(il1s(orig, masked, columns=cols), rel=1e-15)
    assert u.il_correl == pytest.approx(il_correl(orig, masked, columns=cols), rel=1e-15)
    assert u.suppressions_total == 0
    assert u.measure("il1", columns=cols) == pytest.approx(ref["il1"], rel=1e-9)
    before = COUNTS["utility.il1s"]
    _ = s.utility.il1s
    assert COUNTS["utility.il1s"] == before
    f = u.to_frame()
    assert set(f["measure"]) >= {"suppressions", "il1s", "eigen", "il_correl", "lambda"}


def test_suppressions_and_lambda_by_role():
    ref = reference()["testdata"]
    df = load("testdata")
    s = sdc.SdcSession(df, keys=ref["keys"], numeric=ref["numeric"], weight=ref["weight"], seed=1)
    u0 = s.utility
    assert u0.suppressions_total == 0 and u0.il1s == 0 and u0.lambda_overall == 0
    s.recode("relat", {6: None, 7: None})
    u = s.utility
    n_sup = int(df["relat"].isin([6, 7]).sum())
    assert u.suppressions.loc["relat", "suppressions"] == n_sup
    assert u.suppressions_total == n_sup
    assert u.records_changed.loc["relat", "changed"] == n_sup
    # one-dimensional table distance is 2 x suppressions for the suppressed key
    cl = u.contingency_loss
    assert len(cl) == len(ref["keys"]) * (len(ref["keys"]) - 1) // 2
    assert u.lambda_overall > 0
    assert "suppressions per key" in repr(u) and "<table>" in u._repr_html_()


def test_gdu_identical_is_one_and_catalogue_errors():
    s = sdc.SdcSession(sdc.datasets.synthetic_survey(200, seed=2), keys=["region", "sex"],
                       numeric=["income", "expend"], seed=1)
    assert s.utility.gdu().gdu == 1.0
    with pytest.raises(sdc.ParameterError, match="unknown utility measure"):
        s.utility.measure("nope")
    with pytest.raises(MeasureError, match="no PRAM step"):
        s.utility.ebil("region")


def test_benchmark_and_regression_on_session():
    df = sdc.datasets.synthetic_survey(400, seed=3)
    s = sdc.SdcSession(df, keys=["region", "sex"], numeric=["income", "expend"], weight="w",
                       household="hid", seed=1)
    t = s.utility.benchmark(["mean:expend", "gini:expend"], n_boot=30, seed=1)
    assert (t["rel_diff_pct"] == 0).all() and t["in_ci"].all()
    r = s.utility.regression("expend ~ C(sex) + age")
    assert np.allclose(r.coefficients["coef_original"], r.coefficients["coef_masked"])
