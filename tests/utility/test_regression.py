"""Regression comparison: coefficients and intervals equal statsmodels', overlap, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.utility.regression import compare_regression


@pytest.fixture(scope="module")
def wages() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 800
    df = pd.DataFrame({"educ": rng.integers(8, 18, n), "age": rng.integers(18, 65, n),
                       "sex": rng.choice(["f", "m"], n), "w": rng.uniform(50, 150, n)})
    df["income"] = np.exp(7 + 0.08 * df.educ + 0.03 * df.age - 0.0003 * df.age**2
                          + 0.2 * (df.sex == "m") + rng.normal(0, 0.4, n))
    return df


MINCER = "np.log(income) ~ educ + age + I(age**2) + sex"


def test_identical_files(wages):
    r = compare_regression(wages, wages, MINCER)
    c = r.coefficients
    assert c.term.tolist() == ["Intercept", "sex[T.m]", "educ", "age", "I(age ** 2)"]
    assert (c.rel_diff_pct == 0).all() and (c.ci_overlap == 1).all() and c.in_ci.all()
    assert r.prediction_quality == 0.0
    assert c.coef_original[1] == pytest.approx(0.2, abs=0.1)   # the gender dummy is recovered


def test_masked_figures_equal_statsmodels(wages):
    rng = np.random.default_rng(1)
    m = wages.assign(income=wages.income * np.exp(rng.normal(0, 0.3, len(wages))))
    r = compare_regression(wages, m, MINCER, model="wls", weight="w", level=0.9)
    fo = smf.wls(MINCER, data=wages, weights=wages.w).fit()
    fm = smf.wls(MINCER, data=m, weights=m.w).fit()
    c = r.coefficients.set_index("term")
    assert c.coef_original.to_numpy() == pytest.approx(fo.params[c.index].to_numpy(), rel=1e-12)
    assert c.coef_masked.to_numpy() == pytest.approx(fm.params[c.index].to_numpy(), rel=1e-12)
    ci = fm.conf_int(alpha=0.1).loc[c.index]
    assert c.masked_lower.to_numpy() == pytest.approx(ci[0].to_numpy(), rel=1e-12)
    b_o, b_m = fo.params["educ"], fm.params["educ"]
    assert c.loc["educ", "rel_diff_pct"] == pytest.approx(100 * abs(b_m - b_o) / abs(b_o))
    lo, uo = fo.conf_int(alpha=0.1).loc["educ"]
    lm, um = ci.loc["educ"]
    ov = min(uo, um) - max(lo, lm)
    assert c.loc["educ", "ci_overlap"] == pytest.approx(0.5 * (ov / (uo - lo) + ov / (um - lm)))
    # prediction quality: both fits' weighted mean predictions on the original records
    yo = np.average(fo.fittedvalues, weights=wages.w)
    ym = np.average(fm.predict(wages), weights=wages.w)
    assert r.prediction_quality == pytest.approx(abs((yo - ym) / yo), rel=1e-12)
    assert r.prediction_quality > 0


def test_logit(wages):
    df = wages.assign(high=(wages.income > wages.income.median()).astype(int))
    r = compare_regression(df, df.sample(600, random_state=2), "high ~ educ + sex", model="logit")
    c = r.coefficients.set_index("term")
    assert c.loc["educ", "coef_original"] > 0 and c.loc["educ", "in_ci"]
    assert 0 < c.loc["educ", "ci_overlap"] <= 1


def test_bad_input(wages):
    with pytest.raises(MeasureError, match="agee"):
        compare_regression(wages, wages, "np.log(income) ~ agee")
    with pytest.raises(ParameterError, match="model"):
        compare_regression(wages, wages, MINCER, model="probit")
    with pytest.raises(ParameterError, match="weight"):
        compare_regression(wages, wages, MINCER, model="wls")
    with pytest.raises(MeasureError, match="weight"):
        compare_regression(wages, wages.assign(w=np.nan), MINCER, weight="w", model="wls")
    with pytest.raises(ParameterError, match="formula"):
        compare_regression(wages, wages, "income")
