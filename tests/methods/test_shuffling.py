"""Data shuffling: marginals preserved exactly, dependence on `by` kept, reproducible."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.base import Treatment
from sdcsession.methods.shuffling import Shuffle, shuffle


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    s = rng.normal(size=20_000)
    x = np.exp(0.7 * s + 0.5 * rng.normal(size=20_000))
    y = x + rng.gamma(2.0, size=20_000)
    return pd.DataFrame({"age": s, "x": x, "y": y})


def test_marginals_exact_and_rank_correlations_kept(df):
    out, notes = shuffle(df, ["x", "y"], by=["age"], rng=np.random.default_rng(1))
    for c in ("x", "y"):
        assert np.array_equal(np.sort(out[c]), np.sort(df[c]))
    orig = stats.spearmanr(df[["age", "x", "y"]]).statistic
    new = stats.spearmanr(out[["age", "x", "y"]]).statistic
    assert np.allclose(orig, new, atol=0.03)
    # records are really moved; the value is not a function of the own value given age
    assert notes["changed"]["x"] > 19_000
    assert notes["rank_correlation"]["x"] < orig[0, 1] ** 2 + 0.2 * (1 - orig[0, 1] ** 2) + 0.05


def test_without_by_and_missing():
    d = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, np.nan, 7, 8], "y": [8.0, 7, 6, 5, 4, 3, 2, 1]})
    o1, n1 = shuffle(d, ["x", "y"], rng=np.random.default_rng(0))
    o2, _ = shuffle(d, ["x", "y"], rng=np.random.default_rng(0))
    pd.testing.assert_frame_equal(o1, o2)
    assert n1["untouched_incomplete"] == 1 and o1.iloc[5].equals(d.iloc[5])
    assert sorted(o1["x"].dropna()) == sorted(d["x"].dropna())


def test_treatment_and_bad_input():
    t = Shuffle(["x"], by=["age"])
    assert Treatment.from_dict(t.to_dict()) == t
    with pytest.raises(ParameterError):
        Shuffle(["x"], by=["x"])
    d = pd.DataFrame({"x": [1.0, 2.0, 3.0], "c": ["a", "b", "c"]})
    with pytest.raises(TreatmentError, match="must be numeric"):
        Shuffle(["x"], by=["c"]).check(d, None)
    with pytest.raises(TreatmentError, match="at least 3"):
        shuffle(d.iloc[:2], ["x"], rng=np.random.default_rng(0))
