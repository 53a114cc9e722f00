"""Multivariate top coding (sdcMicro mvTopCoding): boundary placement, inliers unchanged,
agreement with robustbase's covMcd, missing values, bad input, session replay."""

import numpy as np
import pandas as pd
import pytest
from conftest import load
from scipy.stats import chi2

import sdcsession as sdc
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.mv_top_coding import MvTopCode, mv_top_code
from sdcsession.risk.robust import mahalanobis2, mcd


def _gauss(n=400, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.multivariate_normal([10.0, 5.0], [[4.0, 1.5], [1.5, 2.0]], n)
    x[0] = [30.0, -10.0]  # the planted outlier
    return pd.DataFrame(x, columns=["a", "b"])


def test_outlier_moved_onto_the_ellipsoid_along_the_line_to_the_centre():
    df = _gauss()
    out, notes = mv_top_code(df, ["a", "b"], alpha=0.025)
    x, y = df.to_numpy(), out.to_numpy()
    fit = mcd(x, n_starts=500, seed=0, search="fastmcd", reweight=True,
              consistency="robustbase-0.95")
    q = chi2.ppf(0.975, 2)
    assert notes["limit"] == pytest.approx(q, rel=1e-12)
    d2 = mahalanobis2(x, fit.location, fit.scatter)
    far = d2 > q
    assert far[0] and notes["changed"] == int(far.sum())
    # inliers untouched, bit for bit
    assert np.array_equal(y[~far], x[~far])
    # every moved record lies exactly on the boundary ...
    assert mahalanobis2(y[far], fit.location, fit.scatter) == pytest.approx(
        np.full(far.sum(), q), rel=1e-9)
    # ... on the segment from the centre to its old position: y − μ = (x − μ)·sqrt(q/d²)
    mu = fit.location
    expect = mu + (x[far] - mu) * np.sqrt(q / d2[far])[:, None]
    assert y[far] == pytest.approx(expect, rel=1e-12)
    assert [notes["location"]["a"], notes["location"]["b"]] == pytest.approx(mu.tolist())


def test_larger_alpha_moves_more_records():
    df = _gauss()
    few = mv_top_code(df, ["a", "b"], alpha=0.001)[1]["changed"]
    many = mv_top_code(df, ["a", "b"], alpha=0.2)[1]["changed"]
    assert 1 <= few < many
    # a normal sample has about alpha·n records beyond the χ² quantile
    assert 40 <= many <= 130


def test_agrees_with_robustbase_covmcd_on_casc():
    """R 4.2 + robustbase 0.95-0: covMcd(casc[, c("AFNLWGT","AGI","PTOTVAL")]) and
    mahalanobis(x, center, cov) > qchisq(0.975, 3) flags 298 records, the first 5, 10, 14, 15,
    17 (1-based); the first one moves to (178283.2, 40979.15, 23456.28)."""
    df = load("casc", keys_as_category=False)
    cols = ["AFNLWGT", "AGI", "PTOTVAL"]
    out, notes = mv_top_code(df, cols)
    changed = np.flatnonzero((out[cols].to_numpy() != df[cols].to_numpy()).any(axis=1))
    assert notes["changed"] == len(changed) == 298
    assert (changed[:5] + 1).tolist() == [5, 10, 14, 15, 17]
    assert out.loc[changed[0], cols].tolist() == pytest.approx([178283.2, 40979.15, 23456.28],
                                                              rel=1e-6)


def test_missing_values_left_unchanged():
    df = _gauss()
    df.loc[0, "b"] = np.nan  # the outlier is incomplete: no distance, unchanged
    out, notes = mv_top_code(df, ["a", "b"])
    assert notes["incomplete"] == 1
    assert out.loc[0, "a"] == 30.0 and np.isnan(out.loc[0, "b"])


def test_one_variable():
    df = pd.DataFrame({"x": np.r_[np.arange(1.0, 40.0), 500.0]})
    out, notes = mv_top_code(df, ["x"])
    assert notes["changed"] >= 1 and out["x"].iloc[-1] < 100
    assert out["x"].iloc[:20].tolist() == df["x"].iloc[:20].tolist()


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5, float("nan"), "0.1", None, True])
def test_bad_alpha(alpha):
    with pytest.raises(ParameterError, match="alpha"):
        MvTopCode(["a", "b"], alpha=alpha)


def test_bad_columns():
    df = _gauss().assign(c=list("xy") * 200, k=1.0)
    with pytest.raises(TreatmentError, match="'c'.*numeric"):
        mv_top_code(df, ["a", "c"])
    with pytest.raises(TreatmentError, match="'k'.*constant"):
        mv_top_code(df, ["a", "k"])
    many_zeros = df.assign(z=np.where(np.arange(400) < 300, 0.0, np.arange(400.0)))
    with pytest.raises(TreatmentError, match="hyperplane"):
        mv_top_code(many_zeros, ["a", "z"])


def test_session_step_undo_and_replay():
    df = sdc.datasets.synthetic_survey(500, seed=4)
    s = sdc.SdcSession(df, keys=["region", "sex"], numeric=["income", "expend"], seed=2)
    before = s.data
    s.mv_top_code(["income", "expend"], alpha=0.05)
    assert s.history[-1].treatment == MvTopCode(["income", "expend"], alpha=0.05)
    assert not s.data["income"].equals(before["income"])
    again = sdc.SdcSession.from_recipe(df, s.to_recipe())
    pd.testing.assert_frame_equal(again.data, s.data)
    s.undo()
    pd.testing.assert_frame_equal(s.data, before)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_fastmcd_objective_matches_brute_force_over_all_elemental_starts(seed):
    """The raw MCD objective (log det of the h-subset covariance) of the search mv_top_code runs
    equals the best over C-steps iterated to convergence from every one of the C(30, 3) = 4,060
    elemental (p + 1)-subsets: no worse than any FastMCD run (robustbase's included) can be."""
    import itertools

    from sdcsession.risk.robust._fastmcd import _cholesky_many, _distances_many, concentrate

    rng = np.random.default_rng(seed)
    n = 30
    x = rng.standard_normal((n, 2))
    x[:6] += 4
    h = (n + 3) // 2
    fit = mcd(x, n_starts=500, seed=0, search="fastmcd", consistency="robustbase-0.95")
    combos = np.array(list(itertools.combinations(range(n), 3)))
    pts = x[combos]
    mu = pts.mean(axis=1)
    c = pts - mu[:, None, :]
    cov = np.einsum("sij,sik->sjk", c, c) / 2
    starts = _distances_many(_cholesky_many(cov, "ridge"), x, mu)
    best = min(concentrate(x, d2, h, 100, "ridge")[0] for d2 in starts)
    assert fit.h == h
    assert fit.log_det <= best + 1e-9


def test_mcd_steps_do_not_import_scipy_stats():
    # scipy.stats costs 0.6-0.9 s to import: a first mv_top_code or outlier detection in a
    # fresh process must not pay it (the chi-squared quantiles come from scipy.special)
    import subprocess
    import sys

    code = (
        "import sys, numpy as np, pandas as pd\n"
        "from sdcsession.methods.recoding.mv_top_coding import mv_top_code\n"
        "from sdcsession.methods.noise.outliers import detect_outliers\n"
        "from sdcsession.risk.robust.minimum_covariance import mcd\n"
        "x = np.random.default_rng(0).lognormal(size=(700, 2))\n"
        "mv_top_code(pd.DataFrame(x, columns=['a', 'b']), ['a', 'b'])\n"
        "detect_outliers(x)\n"
        "mcd(x, n_starts=20, seed=1, reweight=True)\n"
        "print('scipy.stats' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
