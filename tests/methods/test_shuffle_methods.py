"""Shuffling methods ds / mvn / mlm / mlm_ds with covmethod and regmethod: marginals exact, the
perturbed values follow each method's formula, recipe replay, bad input."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import sdcsession as sdc
from sdcsession.errors import ParameterError
from sdcsession.methods.base import Treatment
from sdcsession.methods.shuffling import Shuffle, shuffle
from sdcsession.methods.shuffling_models import correlation, covariance, regression


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    s = rng.normal(size=(600, 2))
    x = np.exp(s @ [[0.6, 0.2], [0.3, 0.5]] + 0.5 * rng.normal(size=(600, 2)))
    return pd.DataFrame(np.hstack([x, s]), columns=["x1", "x2", "s1", "s2"])


ALL = [("ds", None, None), ("ds", "spearman", None), ("ds", "mcd", None),
       ("mvn", None, None), ("mvn", "spearman", None), ("mvn", "mcd", None),
       ("mvn", "mcd", "mm"), ("mvn", None, "lm"),
       ("mlm", None, None), ("mlm", None, "mm"),
       ("mlm_ds", None, None), ("mlm_ds", "mcd", "mm"), ("mlm_ds", "spearman", "lm")]


@pytest.mark.parametrize("method, cov, reg", ALL)
def test_marginals_exact_and_dependence_kept(df, method, cov, reg):
    out, notes = shuffle(df, ["x1", "x2"], by=["s1", "s2"], method=method, covmethod=cov,
                         regmethod=reg, rng=np.random.default_rng(1))
    for c in ("x1", "x2"):
        assert np.array_equal(np.sort(out[c]), np.sort(df[c]))
    assert out[["s1", "s2"]].equals(df[["s1", "s2"]])
    # the rank correlation with the conditioning variable survives (0.5 in the original)
    assert stats.spearmanr(out["x1"], df["s1"])[0] > 0.25
    assert notes["method"] == method and notes["changed"]["x1"] > 500


def test_ds_default_is_the_normal_copula_draw(df):
    """The default reproduces the documented algorithm step by step with the same draws."""
    rng = np.random.default_rng(7)
    out, _ = shuffle(df, ["x1", "x2"], by=["s1", "s2"], rng=np.random.default_rng(7))
    z = stats.norm.ppf((stats.rankdata(df.to_numpy(), axis=0) - 0.5) / len(df))
    c = np.corrcoef(z, rowvar=False)
    b = np.linalg.solve(c[2:, 2:], c[:2, 2:].T)
    w, v = np.linalg.eigh(c[:2, :2] - c[:2, 2:] @ b)
    y = z[:, 2:] @ b + rng.standard_normal((len(df), 2)) @ (v * np.sqrt(w)).T
    for j, col in enumerate(["x1", "x2"]):
        expect = np.sort(df[col].to_numpy())[stats.rankdata(y[:, j], method="ordinal") - 1]
        assert np.array_equal(out[col].to_numpy(), expect)


def test_mlm_orders_by_fitted_values(df):
    out, _ = shuffle(df, ["x1"], by=["s1", "s2"], method="mlm", rng=np.random.default_rng(0))
    design = np.column_stack([np.ones(len(df)), df[["s1", "s2"]]])
    fitted = design @ np.linalg.lstsq(design, df["x1"], rcond=None)[0]
    # the r-th smallest fitted value receives the r-th smallest original value
    assert np.array_equal(out["x1"].to_numpy()[np.argsort(fitted)], np.sort(df["x1"]))


def test_mvn_with_pearson_equals_regression_plus_residual_noise(df):
    """GADP identity: the conditional normal draw with the sample covariance is the OLS fit plus
    noise with the residual covariance (same draws, same result)."""
    a, _ = shuffle(df, ["x1", "x2"], by=["s1", "s2"], method="mvn", rng=np.random.default_rng(3))
    b, _ = shuffle(df, ["x1", "x2"], by=["s1", "s2"], method="mlm_ds",
                   rng=np.random.default_rng(3))
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_mvn_regmethod_lm_with_pearson_is_the_conditional_mean(df):
    """OLS fitted values equal x̄ + (S − s̄) Σ_SS⁻¹ Σ_SX with the sample covariance: regmethod
    'lm' changes nothing (same draws); 'mm' gives another (robust) conditional mean."""
    a, _ = shuffle(df, ["x1", "x2"], by=["s1", "s2"], method="mvn", rng=np.random.default_rng(4))
    b, notes = shuffle(df, ["x1", "x2"], by=["s1", "s2"], method="mvn", regmethod="lm",
                       rng=np.random.default_rng(4))
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert notes["regmethod"] == "lm"
    c, notes = shuffle(df, ["x1", "x2"], by=["s1", "s2"], method="mvn", covmethod="mcd",
                       regmethod="mm", rng=np.random.default_rng(4))
    assert notes["regmethod"] == "mm" and not c.equals(a)


def test_estimators_hand_computed():
    x = np.array([[1.0, 3.0], [2.0, 1.0], [3.0, 4.0], [4.0, 2.0]])
    rho = 0.0  # ranks (1,2,3,4) vs (3,1,4,2): Spearman 0.0
    assert correlation(x, "spearman")[0, 1] == pytest.approx(2 * np.sin(np.pi * rho / 6))
    y = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 5.0], [4.0, 4.0]])  # rho_S = 0.7378...
    r_s = stats.spearmanr(y[:, 0], y[:, 1])[0]
    sd = y.std(axis=0, ddof=1)
    assert covariance(y, "spearman")[0, 1] == pytest.approx(
        2 * np.sin(np.pi * r_s / 6) * sd[0] * sd[1])
    # robust regression ignores gross outliers in the response, least squares does not
    rng = np.random.default_rng(5)
    s = rng.normal(size=(400, 1))
    resp = 2 * s + 1 + 0.1 * rng.normal(size=(400, 1))
    resp[:20] += 50
    truth = 2 * s + 1
    assert np.abs(regression(resp, s, "mm") - truth).max() < 0.1
    assert np.abs(regression(resp, s, "lm") - truth).max() > 1


def test_session_replay_and_treatment(df):
    data = sdc.datasets.synthetic_survey(150, seed=4)
    s = sdc.SdcSession(data, keys=["region"], numeric=["income", "expend", "savings"], seed=2)
    s.shuffle(["income", "expend"], by=["savings"], method="mlm_ds", covmethod="spearman",
              regmethod="mm")
    s.shuffle(["expend"], by=["income"], method="mvn", covmethod="mcd")
    s.shuffle(["income"], by=["savings"], method="mlm")
    again = sdc.SdcSession.from_recipe(data, json.loads(json.dumps(s.to_recipe())))
    pd.testing.assert_frame_equal(again.data, s.data, check_exact=True)
    t = Shuffle(["a"], by=["b"], method="mvn", covmethod="mcd")
    assert Treatment.from_dict(t.to_dict()) == t
    # a recipe written before the options (columns and by only) still reads as the default
    assert Treatment.from_dict({"type": "shuffle", "columns": ["a"], "by": ["b"]}) == \
        Shuffle(["a"], by=["b"], method="ds")


@pytest.mark.parametrize("kwargs, match", [
    ({"method": "gadp"}, r"method: expected one of \['ds', 'mvn', 'mlm', 'mlm_ds'\]"),
    ({"covmethod": "kendall"}, r"covmethod: expected one of \['pearson', 'spearman', 'mcd'\]"),
    ({"method": "mlm_ds", "regmethod": "MM"}, r"regmethod: expected one of \['lm', 'mm'\]"),
    ({"regmethod": "mm"}, "regmethod: applies to methods 'mvn', 'mlm' and 'mlm_ds' only"),
    ({"method": "mlm", "covmethod": "pearson"}, "covmethod does not apply"),
    ({"method": "mlm", "by": []}, "give at least one 'by' column"),
    ({"method": None}, "method: expected one of"),
])
def test_bad_parameters(kwargs, match):
    args = {"by": ["b"], **kwargs}
    with pytest.raises(ParameterError, match=match):
        Shuffle(["a"], **args)
