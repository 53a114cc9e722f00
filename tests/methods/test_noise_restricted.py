"""Restricted noise: sample means and covariance preserved exactly, the noise really added,
incomplete records untouched, replay from a recipe, bad input."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.noise import AddNoise, add_noise
from sdcsession.methods.noise_restricted import orthogonal_noise, restricted_noise


def _data(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.lognormal(8, 1, size=(n, 3)) @ np.array([[1.0, 0.3, 0.0], [0.0, 1.0, 0.5],
                                                     [0.0, 0.0, 1.0]])
    return pd.DataFrame(x, columns=["a", "b", "c"])


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / np.abs(b).max())


def test_mean_and_covariance_exact():
    df = _data()
    out, notes = add_noise(df, ["a", "b", "c"], method="restricted", noise=0.8,
                           rng=np.random.default_rng(1))
    assert _rel(out.mean().to_numpy(), df.mean().to_numpy()) < 1e-9
    assert _rel(out.cov().to_numpy(), df.cov().to_numpy()) < 1e-9
    c = 1 / np.sqrt(1 + 0.64)
    assert notes["c"] == pytest.approx(c, rel=1e-15)
    # the noise is really there: corr(x_j, z_j) = c exactly (the noise is orthogonal to x)
    for col in "abc":
        assert np.corrcoef(df[col], out[col])[0, 1] == pytest.approx(c, rel=1e-9)
        # sd of z − x is s_j·sqrt(2(1 − c)) exactly, as specified
        assert notes["sd_realised"][col] == pytest.approx(notes["sd_spec"][col], rel=1e-9)
        assert notes["sd_spec"][col] == pytest.approx(df[col].std() * np.sqrt(2 * (1 - c)))
    assert notes["changed"] == {"a": 400, "b": 400, "c": 400}


@settings(max_examples=40, deadline=None)
@given(n=st.integers(7, 60), p=st.integers(1, 3), noise=st.floats(0.01, 5),
       seed=st.integers(0, 10_000))
def test_property_exact_moments(n, p, noise, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p)) * rng.uniform(0.1, 100, size=p) + rng.normal(0, 50, size=p)
    if n < 2 * p + 1:
        with pytest.raises(TreatmentError, match="2p"):
            restricted_noise(x, noise, rng)
        return
    z, c = restricted_noise(x, noise, rng)
    scale = np.abs(np.cov(x.T)).max()
    assert np.abs(z.mean(0) - x.mean(0)).max() <= 1e-9 * max(np.abs(x.mean(0)).max(), 1)
    assert np.abs(np.cov(z.T) - np.cov(x.T)).max() <= 1e-9 * scale
    e = orthogonal_noise(x - x.mean(0), np.random.default_rng(seed))
    assert np.allclose(e.T @ e, (n - 1) * np.eye(p)) and np.allclose(e.sum(0), 0, atol=1e-9)


def test_singular_covariance_and_small_samples():
    x = np.column_stack([np.arange(10.0), 2 * np.arange(10.0)])  # perfectly collinear
    z, _ = restricted_noise(x, 0.5, np.random.default_rng(0))
    assert np.allclose(np.cov(z.T), np.cov(x.T)) and np.allclose(z.mean(0), x.mean(0))
    df = pd.DataFrame({"a": [1.0, 2, 3, 5], "b": [2.0, 1, 7, 3]})
    with pytest.raises(TreatmentError, match="at least 2p \\+ 1 = 5 complete records"):
        add_noise(df, ["a", "b"], method="restricted", noise=0.5, rng=np.random.default_rng(0))


def test_incomplete_records_untouched():
    df = _data(60)
    df.loc[[3, 10], "b"] = np.nan
    out, notes = add_noise(df, ["a", "b"], method="restricted", noise=0.5,
                           rng=np.random.default_rng(2))
    assert notes["untouched_incomplete"] == 2
    assert out.loc[[3, 10], "a"].tolist() == df.loc[[3, 10], "a"].tolist()
    assert out["b"].isna().tolist() == df["b"].isna().tolist()
    ok = df.notna().all(axis=1)
    assert _rel(out.loc[ok, ["a", "b"]].cov().to_numpy(),
                df.loc[ok, ["a", "b"]].cov().to_numpy()) < 1e-9


def test_session_step_replays_and_bad_input():
    data = sdc.datasets.synthetic_survey(150, seed=3)
    s = sdc.SdcSession(data, keys=["region", "sex"], numeric=["income", "expend"], seed=4)
    s.add_noise(["income", "expend"], method="restricted", noise=0.5)
    num = ["income", "expend"]
    assert _rel(s.data[num].cov().to_numpy(), data[num].cov().to_numpy()) < 1e-9
    recipe = json.loads(json.dumps(s.to_recipe()))
    again = sdc.SdcSession.from_recipe(data, recipe)
    pd.testing.assert_frame_equal(again.data, s.data, check_exact=True)
    assert AddNoise(["a"], method="restricted", noise=1.0).to_dict()["method"] == "restricted"
    with pytest.raises(ParameterError, match="restricted"):  # the valid names are listed
        AddNoise(["a"], method="restr")
    with pytest.raises(ParameterError, match="noise"):
        AddNoise(["a"], method="restricted", noise=-1)
