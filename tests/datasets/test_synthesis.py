"""Synthetic data (sdcMicro dataGen made exact): means and covariance equal to 1e-9, n rows,
reproducible by seed, bad input named."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.datasets import synthesize, synthetic_survey
from sdcsession.errors import ParameterError

NUM = ["income", "expend", "savings"]


def test_means_and_covariance_exact():
    df = synthetic_survey(300, seed=2)
    syn = synthesize(df, NUM, n=5000, seed=7)
    assert syn.shape == (5000, 3) and list(syn.columns) == NUM
    assert syn.index.equals(pd.RangeIndex(5000))
    cov0 = df[NUM].cov().to_numpy()
    assert np.abs(syn.cov().to_numpy() - cov0).max() <= 1e-9 * np.abs(cov0).max()
    assert np.abs(syn.mean() - df[NUM].mean()).max() <= 1e-9 * df[NUM].mean().abs().max()
    # genuinely new records: no synthetic value equals an original one
    assert not np.isin(syn["income"].to_numpy(), df["income"].to_numpy()).any()
    pd.testing.assert_frame_equal(syn, synthesize(df, NUM, n=5000, seed=7), check_exact=True)
    assert not syn.equals(synthesize(df, NUM, n=5000, seed=8))


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(2, 30), p=st.integers(1, 4), extra=st.integers(0, 40),
       seed=st.integers(0, 1000))
def test_property_exact(rows, p, extra, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(rows, p)) * 10 + 3, columns=[f"v{j}" for j in range(p)])
    n = p + 1 + extra
    syn = synthesize(df, list(df.columns), n=n, seed=seed)
    assert len(syn) == n
    scale = max(np.abs(df.cov().to_numpy()).max(), 1.0)
    assert np.abs(syn.cov().to_numpy() - df.cov().to_numpy()).max() <= 1e-9 * scale
    assert np.abs(syn.mean() - df.mean()).max() <= 1e-9 * max(df.abs().max().max(), 1)


def test_singular_covariance_and_missing_values():
    df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5], "b": [2.0, 4, 6, 8, 10], "c": [7.0] * 5})
    syn = synthesize(df, ["a", "b", "c"], n=20, seed=0)
    assert np.allclose(syn.cov(), df.cov(), atol=1e-9) and (syn["c"] == 7.0).all()
    df.loc[0, "a"] = np.nan  # complete records only
    syn = synthesize(df, ["a", "b"], n=20, seed=0)
    assert np.allclose(syn.cov(), df.dropna().cov()[["a", "b"]].loc[["a", "b"]])
    assert np.allclose(syn.mean(), df.dropna()[["a", "b"]].mean())


@pytest.mark.parametrize("kwargs, match", [
    ({"columns": ["nope"]}, "unknown column"),
    ({"columns": ["region"]}, "'region' must be numeric"),
    ({"columns": []}, "columns: expected a non-empty list"),
    ({"columns": ["income", "income"]}, "more than once"),
    ({"n": 1}, "n: expected a number of records from 2"),
    ({"n": 2.5}, "n: expected a whole number"),
    ({"n": True}, "n: expected a whole number"),
    ({"n": 10**12}, "n: expected"),
    ({"seed": -1}, "seed"),
    ({"seed": "1"}, "seed"),
])
def test_bad_input(kwargs, match):
    df = synthetic_survey(20, seed=1)
    args = {"columns": ["income"], "n": 10, **kwargs}
    with pytest.raises(ParameterError, match=match):
        synthesize(df, args["columns"], args["n"], seed=args.get("seed"))


def test_bad_data():
    with pytest.raises(ParameterError, match="DataFrame"):
        synthesize([[1, 2]], ["a"], 5)
    with pytest.raises(ParameterError, match="at least 2 records complete"):
        synthesize(pd.DataFrame({"a": [1.0, np.nan]}), ["a"], 5)
    with pytest.raises(ParameterError, match="infinite"):
        synthesize(pd.DataFrame({"a": [1.0, np.inf, 2]}), ["a"], 5)
