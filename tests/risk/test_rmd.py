"""Robust-distance (RMD) disclosure risk, sdcMicro's dRiskRMD (risk/rmd.py), and the robustbase
mode of the MCD it uses (risk/robust.py, risk/_mcd_factors.py, risk/_fastmcd.py).

The R figures below were printed by sdcMicro 5.8.1's ``dRiskRMDWORK`` (the function behind
``dRiskRMD``) with robustbase 0.95-0 under R 4.2.2, after ``set.seed(1)``. covMcd is random: on
the CASC pair that seed gives its most frequent outcome (116 of 200 seeds, crit −17.790426), the
h-subset ``rmd_risk`` selects; on a single variable the MCD is exact and not random at all.
"""

import numpy as np
import pandas as pd
import pytest
from conftest import read_csv, reference
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk import rmd_risk
from sdcsession.risk._mcd_factors import consistency_factor, finite_sample
from sdcsession.risk.rmd import _nearest_other
from sdcsession.risk.robust import mahalanobis2, mcd

# (k, k2) -> risk1, risk2, wrisk1, wrisk2 from dRiskRMDWORK(casc[vars], casc_masked[vars], k, k2)
R_CASC = {
    (0.01, 0.05): (0.19074074074074074, 0.19074074074074074, 26.671289910728685,
                   26.671289910728685),
    (0.05, 0.1): (0.64074074074074072, 0.64074074074074072, 200.12036328887285,
                  200.12036328887285),
    (0.1, 0.5): (0.85277777777777775, 0.6694444444444444, 314.86016881162544, 216.19606784154601),
    (0.2, 1.0): (0.96759259259259256, 0.16944444444444445, 383.56077508855157, 29.112832396397245),
}
# the same with missing masked values (see _with_missing)
R_CASC_NA = {
    (0.01, 0.05): (0.2074074074074074, 0.20648148148148149, 30.63444868889853,
                   30.443727165934142),
    (0.1, 0.5): (0.83611111111111114, 0.375, 304.67207322053872, 92.983757295923041),
    (0.2, 1.0): (0.96388888888888891, 0.12314814814814815, 381.16036098568293, 19.201569286388775),
}
# testdata income alone; masked = income + ((i mod 7) − 3)·1000 (i = 0, 1, …)
R_INCOME = {
    (0.01, 0.05): (0.93493449781659388, 0.0, 184.30832083773166, 0.0),
    (0.1, 0.5): (0.99192139737991269, 0.0, 196.72632688954428, 0.0),
    (1.0, 0.001): (0.99868995633187774, 0.01462882096069869, 198.08402741630522,
                   0.052283341871705934),
}


def _casc():
    cols = reference()["casc"]["vars"]
    return read_csv("casc")[cols], read_csv("casc_masked")[cols]


def _with_missing(m):
    m = m.copy()
    m.iloc[6::13, 1] = np.nan
    m.iloc[4::29, 4] = np.nan
    m.iloc[4::58, 0:4] = np.nan
    return m


def _close(res, expected):
    got = (res.risk1, res.risk2, res.wrisk1, res.wrisk2)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


@pytest.fixture(scope="module")
def casc():
    return _casc()


def test_casc_matches_sdcmicro(casc):
    x, m = casc
    res = {kk: rmd_risk(x, m, k=kk[0], k2=kk[1]) for kk in R_CASC}
    for kk, expected in R_CASC.items():
        _close(res[kk], expected)
    r = res[(0.01, 0.05)]
    # covMcd's crit and the (1, 1) element of its reweighted covariance for that subset
    assert r.mcd.log_det == pytest.approx(-17.790426, abs=1e-6)
    assert r.mcd.scatter[0, 0] == pytest.approx(1.435519762051799, rel=1e-12)
    assert int(r.mcd.support.sum()) == 636
    # the per-record vectors: r_i on the records at risk, 0 elsewhere
    assert (r.riskvec1[r.at_risk1] == r.distance[r.at_risk1]).all()
    assert (r.riskvec1[~r.at_risk1] == 0).all() and list(r.index_risk1) == list(
        x.index[r.at_risk1.to_numpy()])


def test_casc_missing_masked_values_match_sdcmicro(casc):
    x, m = casc
    mm = _with_missing(m)
    for (k, k2), expected in R_CASC_NA.items():
        _close(rmd_risk(x, mm, k=k, k2=k2), expected)


def test_single_variable_is_exact_and_matches_sdcmicro():
    x = read_csv("testdata")[["income"]].astype(float)
    m = x + ((np.arange(len(x)) % 7) - 3)[:, None] * 1000.0
    for (k, k2), expected in R_INCOME.items():
        _close(rmd_risk(x, m, k=k, k2=k2), expected)
    r = rmd_risk(x, m, seed=123)
    assert r.mcd.log_det == pytest.approx(-1.429337467807128, rel=1e-12)  # covMcd's crit
    assert r.mcd.raw_scatter[0, 0] == pytest.approx(1.689767523649353, rel=1e-12)


def test_robustbase_factors():
    # printed by robustbase 0.95-0: .MCDcons, .MCDcnp2, .MCDcnp2.rew
    assert consistency_factor(8, 544 / 1080) * finite_sample(8, 1080, reweighted=False) == (
        pytest.approx(1.6474796455694589, rel=1e-13))
    assert consistency_factor(8, 636 / 1080) == pytest.approx(1.4952296963231579, rel=1e-13)
    assert finite_sample(8, 1080, reweighted=True) == pytest.approx(1.000854809747117, rel=1e-13)
    assert consistency_factor(2, 0.5) == pytest.approx(3.2588913532709292, rel=1e-13)
    assert finite_sample(2, 100, reweighted=False) == pytest.approx(1.0884026162942371, rel=1e-13)
    assert finite_sample(3, 50, reweighted=True) == pytest.approx(1.0134097377968496, rel=1e-13)
    with pytest.raises(MeasureError, match="simulated"):
        finite_sample(3, 10, reweighted=False)


def test_univariate_mcd_by_hand():
    v = np.array([[1.0], [2.0], [3.0], [4.0], [100.0], [200.0], [3.5]])
    fit = mcd(v, consistency="robustbase", reweight=True)
    # h = 4: the window {2, 3, 3.5, 4} has the least sum of squares (2.1875)
    assert fit.h == 4 and fit.raw_support.tolist() == [False, True, True, True, False, False, True]
    assert fit.raw_location[0] == pytest.approx(3.125)
    factor = consistency_factor(1, 4 / 7) * finite_sample(1, 7, reweighted=False)
    assert fit.raw_scatter[0, 0] == pytest.approx(2.1875 / 4 * factor)
    assert fit.consistency == pytest.approx(factor)


def test_mcd_robustbase_mode_checks_its_arguments():
    x = np.random.default_rng(0).normal(size=(100, 2))
    for bad in ({"h": "ceil"}, {"subsample": 50}, {"consistency": "mean"}, {"search": "slow"}):
        kw = {"consistency": "robustbase", **bad}
        with pytest.raises(ParameterError):
            mcd(x, **kw)


def test_fastmcd_search_finds_the_bulk():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(1500, 3))
    x[:200] += 25
    for search in ("full", "fastmcd"):
        fit = mcd(x, n_starts=100, seed=1, search=search, consistency="robustbase",
                  reweight=True)
        assert not fit.raw_support[:200].any() and not fit.support[:200].any()
        assert np.allclose(fit.scatter, np.eye(3), atol=0.2)


def test_masked_equal_to_original_or_affine_gives_risk_one():
    rng = np.random.default_rng(2)
    x = pd.DataFrame(rng.lognormal(size=(400, 3)), columns=["a", "b", "c"])
    same = rmd_risk(x, x)
    assert same.risk1 == 1.0 and (same.distance > 0).all()
    # RMDID2: still at risk when no other masked record is within k2
    z = ((x - x.mean()) / x.std()).to_numpy()
    d = np.sqrt(((z[:, None, :] - z[None, :, :]) ** 2).sum(axis=2))
    np.fill_diagonal(d, np.inf)
    assert same.risk2 == pytest.approx((d.min(axis=1) > 0.05).mean())
    assert same.wrisk1 == pytest.approx(400 * same.distance.sum() / 400)
    affine = rmd_risk(x, x * [2.0, 0.5, 10.0] + [3.0, -1.0, 0.0])
    assert affine.risk1 == 1.0 and affine.risk2 == same.risk2


def test_distance_is_robust_mahalanobis_from_column_means():
    rng = np.random.default_rng(3)
    x = pd.DataFrame(rng.normal(size=(300, 2)), columns=["a", "b"])
    r = rmd_risk(x, x + 0.1)
    z = ((x - x.mean()) / x.std()).to_numpy()
    d2 = mahalanobis2(z, z.mean(axis=0), r.mcd.scatter)
    np.testing.assert_allclose(r.distance.to_numpy(), 0.05 * np.sqrt(d2), rtol=1e-12)


def test_huge_noise_gives_almost_no_risk():
    rng = np.random.default_rng(4)
    x = pd.DataFrame(rng.normal(size=(500, 3)), columns=list("abc"))
    r = rmd_risk(x, x + rng.normal(scale=100.0, size=x.shape))
    assert r.risk1 < 0.02 and r.risk2 <= r.risk1


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.001, 0.5), st.floats(0.001, 0.5))
def test_monotone_in_k_and_k2(seed, k_a, k_b):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame(rng.normal(size=(60, 2)), columns=["a", "b"])
    m = x + rng.normal(scale=0.05, size=x.shape)
    lo, hi = sorted((k_a, k_b))
    a = rmd_risk(x, m, k=lo, k2=lo, n_starts=30, runs=1)
    b = rmd_risk(x, m, k=hi, k2=lo, n_starts=30, runs=1)
    c = rmd_risk(x, m, k=hi, k2=hi, n_starts=30, runs=1)
    assert (a.at_risk1 <= b.at_risk1).all() and a.risk1 <= b.risk1
    assert a.risk2 <= b.risk2 and c.risk2 <= b.risk2  # W2 grows with k, shrinks with k2
    assert (b.at_risk2 <= b.at_risk1).all()


def test_nearest_other_follows_r_dist_with_missing_values():
    zm = np.array([[0.0, 0.0, 0.0], [1.0, np.nan, 0.0], [0.0, 3.0, np.nan], [np.nan, np.nan, 9.0],
                   [np.nan, np.nan, np.nan]])
    d = _nearest_other(zm, np.arange(5))
    # rows 0-1 share two columns: sqrt(1 * 3/2); rows 0-2: sqrt(9 * 3/2); rows 0-3: sqrt(81 * 3)
    assert d[0] == pytest.approx(np.sqrt(1.5))
    assert d[1] == pytest.approx(np.sqrt(1.5))
    assert d[2] == pytest.approx(np.sqrt(3.0))  # to row 1: only column 0, 1 · 3/1
    assert d[3] == pytest.approx(np.sqrt(81 * 3))  # nearest: rows 0 and 1 (column 2 only)
    assert d[4] == np.inf  # nothing comparable: stays at risk, as min(na.rm = TRUE) = Inf
    full = np.random.default_rng(0).normal(size=(50, 3))
    brute = np.sqrt(((full[:, None] - full[None]) ** 2).sum(axis=2))
    np.fill_diagonal(brute, np.inf)
    np.testing.assert_allclose(_nearest_other(full, np.arange(50)), brute.min(axis=1))


def test_records_are_matched_by_index():
    rng = np.random.default_rng(6)
    x = pd.DataFrame(rng.normal(size=(80, 2)), columns=["a", "b"], index=range(100, 180))
    m = x + rng.normal(scale=0.01, size=x.shape)
    base = rmd_risk(x, m, k=0.2)
    shuffled = rmd_risk(x, m.sample(frac=1.0, random_state=1)[["b", "a"]], k=0.2)
    assert base.to_dict() == shuffled.to_dict()
    assert (base.riskvec1.index == x.index).all()


def test_bad_input_is_named():
    rng = np.random.default_rng(7)
    x = pd.DataFrame(rng.normal(size=(50, 2)), columns=["a", "b"])
    with pytest.raises(MeasureError, match="index"):
        rmd_risk(x, x.set_axis(range(1, 51)))
    with pytest.raises(MeasureError, match="index"):
        rmd_risk(x, x.iloc[:40])
    with pytest.raises(MeasureError, match="columns differ"):
        rmd_risk(x, x.assign(c=1.0))
    assert rmd_risk(x, x.assign(c=1.0), columns=["a", "b"]).risk1 == 1.0
    with pytest.raises(MeasureError, match="not numeric"):
        rmd_risk(x.assign(c="u"), x.assign(c="u"))
    with pytest.raises(MeasureError, match="only missing"):
        rmd_risk(x, x.assign(b=np.nan))
    with pytest.raises(MeasureError, match="constant"):
        rmd_risk(x.assign(b=1.0), x)
    with pytest.raises(MeasureError, match="hyperplane"):
        rmd_risk(x.assign(c=x.a + x.b), x.assign(c=x.a + x.b))
    for bad in ({"k": -1}, {"k2": float("nan")}, {"k": True}, {"missing": "drop"}, {"runs": 0},
                {"mcd_factors": "rrcov"}):
        with pytest.raises(ParameterError):
            rmd_risk(x, x, **bad)


def test_missing_original_values_refused_or_sdcmicro_zeros():
    rng = np.random.default_rng(8)
    x = pd.DataFrame(rng.normal(size=(50, 2)), columns=["a", "b"])
    xo = x.copy()
    xo.iloc[3, 0] = np.nan
    with pytest.raises(MeasureError, match="missing values"):
        rmd_risk(xo, x)
    r = rmd_risk(xo, x, missing="sdcmicro")
    assert r.to_dict() == {"risk1": 0.0, "risk2": 0.0, "wrisk1": 0.0, "wrisk2": 0.0}
    assert r.mcd is None and r.distance.isna().all() and not r.at_risk1.any()


def test_session_access():
    rng = np.random.default_rng(9)
    df = pd.DataFrame({"sex": rng.choice(["m", "f"], 300), "inc": rng.lognormal(10, 1, 300),
                       "exp": rng.lognormal(9, 1, 300)})
    s = sdc.SdcSession(df, keys=["sex"], numeric=["inc", "exp"], seed=1)
    assert s.risk.rmd().risk1 == 1.0  # nothing masked yet
    s.add_noise(["inc", "exp"], noise=1.0)
    r = s.risk.rmd(k=0.01, k2=0.05)
    assert r.risk1 < 1.0 and r.columns == ("inc", "exp")
    assert sdc.SdcSession(df, keys=["sex"], seed=1).risk.rmd() is None
