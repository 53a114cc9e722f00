"""Noise addition: realised noise variance/covariance against the specification, bad input."""

import numpy as np
import pandas as pd
import pytest

from sdcsession.errors import ParameterError, SdcWarning, TreatmentError
from sdcsession.methods.base import Treatment
from sdcsession.methods.noise import AddNoise, _rotate_blocks, add_noise, robust_distance

N = 200_000
SIGMA = np.array([[4.0, 1.2, 0.5], [1.2, 1.0, -0.3], [0.5, -0.3, 2.25]])


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    x = np.random.default_rng(7).multivariate_normal([10.0, -2.0, 0.0], SIGMA, size=N)
    return pd.DataFrame(x, columns=["a", "b", "c"])


def test_additive_realised_sd(data):
    out, notes = add_noise(data, ["a", "b", "c"], noise=0.5, rng=np.random.default_rng(1))
    e = (out - data).to_numpy()
    sd = data.std().to_numpy()
    # sd of the noise = 0.5·sd_j within sampling error (se of an sd ≈ sd/sqrt(2N))
    assert np.allclose(e.std(axis=0, ddof=1), 0.5 * sd, rtol=4 / np.sqrt(2 * N))
    # independent across variables
    assert abs(np.corrcoef(e, rowvar=False)[0, 1]) < 4 / np.sqrt(N)
    assert np.allclose(e.mean(axis=0), 0, atol=4 * 0.5 * sd.max() / np.sqrt(N))
    for j, c in enumerate("abc"):
        assert notes["sd_spec"][c] == pytest.approx(0.5 * sd[j], rel=1e-12)
        assert notes["sd_realised"][c] == pytest.approx(e[:, j].std(ddof=1), rel=1e-12)


def test_correlated_noise_covariance(data):
    out, _ = add_noise(data, ["a", "b", "c"], method="correlated", noise=0.4,
                       rng=np.random.default_rng(2))
    e = (out - data).to_numpy()
    cov = np.cov(data.to_numpy(), rowvar=False)
    assert np.allclose(np.cov(e, rowvar=False), 0.16 * cov, atol=6 * 0.16 * 4 / np.sqrt(N))
    # correlations of the released data preserved in expectation
    assert np.allclose(out.corr(), data.corr(), atol=0.01)


def test_correlated2_preserves_means_and_covariance(data):
    out, notes = add_noise(data, ["a", "b", "c"], method="correlated2", noise=1.0,
                           rng=np.random.default_rng(3))
    cov = np.cov(data.to_numpy(), rowvar=False)
    assert np.allclose(np.cov(out.to_numpy(), rowvar=False), cov, atol=6 * 4 / np.sqrt(N))
    assert np.allclose(out.mean(), data.mean(), atol=0.02)
    assert notes["c"] == pytest.approx(1 / np.sqrt(2))
    e = (out - data).to_numpy()
    assert np.allclose(e.std(axis=0, ddof=1), list(notes["sd_spec"].values()), rtol=0.01)


def test_romm_preserves_moments_exactly(data):
    sub = data.iloc[:10_007]
    out, notes = add_noise(sub, ["a", "b", "c"], method="romm", noise=1.0,
                           rng=np.random.default_rng(4))
    assert np.allclose(out.mean(), sub.mean(), rtol=1e-10)
    assert np.allclose(out.cov(), sub.cov(), rtol=1e-9)
    assert notes["changed"]["a"] > 10_000


def test_romm_noise_zero_changes_nothing(data):
    sub = data.iloc[:1_003]
    out, notes = add_noise(sub, ["a", "b", "c"], method="romm", noise=0.0,
                           rng=np.random.default_rng(4))
    assert np.allclose(out.to_numpy(), sub.to_numpy(), rtol=0, atol=1e-12)


def test_romm_rotations_are_orthogonal_and_scale_with_noise():
    d = 9
    eye = np.broadcast_to(np.eye(d), (4_000, d, d))
    small = _rotate_blocks(np.random.default_rng(1), eye, 0.05)
    big = _rotate_blocks(np.random.default_rng(1), eye, 1e8)
    for b in (small, big):
        assert np.abs(np.swapaxes(b, 1, 2) @ b - np.eye(d)).max() < 1e-13
        assert np.allclose(np.linalg.det(b), 1.0)
    assert np.abs(small - np.eye(d)).mean() < 0.05
    # large noise: Haar on SO(d), so every column is uniform on the sphere: E u = 0, E u_i² = 1/d
    for j in (0, d - 1):
        u = big[:, :, j]
        assert np.abs(u.mean(axis=0)).max() < 4 / np.sqrt(d * 4_000)
        assert np.allclose((u ** 2).mean(axis=0), 1 / d, atol=0.012)
    # entries of two columns are uncorrelated coordinate by coordinate: E u_i v_i = 0
    assert np.abs((big[:, :, 0] * big[:, :, 1]).mean(axis=0)).max() < 4 / (d * np.sqrt(4_000))


def test_outliers_only_perturbs_outliers():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2000, 2))
    x[:10] += 25
    df = pd.DataFrame(x, columns=["u", "v"])
    out, notes = add_noise(df, ["u", "v"], method="outliers", noise=0.5, rng=rng)
    moved = (out != df).any(axis=1).to_numpy()
    assert moved[:10].all()
    assert notes["n_outliers"] == moved.sum()
    assert moved.sum() < 100  # about 2.5 % false alarms at most for a normal cloud
    d2 = robust_distance(x)
    assert (d2[:10] > 100).all()


def test_missing_stays_missing_and_reproducible():
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0, 5.0], "b": [1, 2, 3, 4, 6]})
    o1, n1 = add_noise(df, ["a", "b"], noise=0.2, rng=np.random.default_rng(9))
    o2, _ = add_noise(df, ["a", "b"], noise=0.2, rng=np.random.default_rng(9))
    assert np.isnan(o1["a"].iloc[1]) and not o1["b"].isna().any()
    pd.testing.assert_frame_equal(o1, o2)
    assert n1["changed"] == {"a": 4, "b": 5}
    assert df["a"].iloc[0] == 1.0  # input untouched


def test_treatment_and_bad_input():
    t = AddNoise(["a"], method="correlated2", noise=0.5)
    assert Treatment.from_dict(t.to_dict()) == t
    with pytest.raises(ParameterError, match="not a percentage"):
        AddNoise(["a"], noise=150)
    for bad in (dict(noise=0), dict(noise=-1), dict(method="x"), dict(block=2)):
        with pytest.raises(ParameterError):
            AddNoise(["a"], **bad)
    with pytest.raises(ParameterError):
        AddNoise([])
    df = pd.DataFrame({"a": [1.0, 2.0], "s": ["x", "y"], "k": [3.0, 3.0], "m": [np.nan] * 2,
                       "cat": pd.Categorical([1, 2])})
    for col, msg in (("s", "must be numeric"), ("k", "constant"), ("cat", "must be numeric")):
        with pytest.raises(TreatmentError, match=msg):
            AddNoise([col]).check(df, None)
    # issue 16: an all-missing column passes through unchanged with a warning (no longer an error)
    AddNoise(["m"]).check(df, None)
    with pytest.warns(SdcWarning, match="'m'"):
        out = AddNoise(["m"]).apply(df, None, np.random.default_rng(0)).data
    assert out["m"].isna().all()


def test_robust_distance_subsample_for_large_n(monkeypatch):
    """Above SUBSAMPLE records the MCD is fitted on a systematic subsample: the outliers are still
    found and the bulk keeps chi-squared(0.5) median distance."""
    import numpy as np

    from sdcsession.methods import noise

    rng = np.random.default_rng(3)
    x = rng.normal(size=(5000, 3))
    x[:25] += 40.0
    full = noise.robust_distance(x)
    monkeypatch.setattr(noise, "SUBSAMPLE", 1000)
    sub = noise.robust_distance(x)
    assert (sub[:25] > 100).all() and (full[:25] > 100).all()
    assert np.median(sub) == pytest.approx(np.median(full), rel=1e-9)  # both scaled to chi2 median
    assert np.corrcoef(sub[25:], full[25:])[0, 1] > 0.95
