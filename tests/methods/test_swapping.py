"""Rank swapping: bounded rank displacement, values preserved, reproducibility, bad input."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.base import Treatment
from sdcsession.methods.swapping import RankSwap, rank_swap, swap_pairs


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 300), p=st.floats(1, 100), seed=st.integers(0, 10_000))
def test_no_value_moves_further_than_allowed(n, p, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n).round(1)  # ties included
    x[0] = 10.0  # never constant
    df = pd.DataFrame({"x": x})
    big_p = int(np.floor(p * n / 100))
    if big_p < 1:
        with pytest.raises(TreatmentError, match="less than one rank"):
            rank_swap(df, ["x"], p=p, rng=rng)
        return
    out, notes = rank_swap(df, ["x"], p=p, rng=rng)
    order = np.argsort(x, kind="stable")
    rank = np.empty(n, dtype=int)
    rank[order] = np.arange(n)
    new = out["x"].to_numpy()
    # the released value of record i is the value of some record j with |rank_i − rank_j| ≤ P
    src = np.array([order[np.flatnonzero(x[order] == v)] for v in new], dtype=object)
    for i in range(n):  # test-side loop (small n)
        assert min(abs(rank[i] - rank[j]) for j in src[i]) <= big_p
    assert sorted(new) == sorted(x)
    assert notes["max_rank_distance"]["x"] == min(big_p, n - 1)  # no rank is further than n-1
    assert notes["max_rank_shift"]["x"] <= big_p


def test_swap_pairs_is_an_involution_and_swaps_almost_all():
    perm = swap_pairs(100_000, 51, np.random.default_rng(0))
    idx = np.arange(100_000)
    assert (perm[perm] == idx).all()
    assert np.abs(perm - idx).max() <= 50
    assert (perm != idx).mean() > 0.97  # at most one record per window of 51 stays


def test_missing_ints_and_reproducible():
    df = pd.DataFrame({"a": [5, 1, 4, 2, 3, 9, 8, 7, 6, 10], "b": [1.0, np.nan, 2.0, np.nan, 3.0] * 2})
    o1, n1 = rank_swap(df, ["a", "b"], p=30, rng=np.random.default_rng(3))
    o2, _ = rank_swap(df, ["a", "b"], p=30, rng=np.random.default_rng(3))
    pd.testing.assert_frame_equal(o1, o2)
    assert o1["a"].dtype == df["a"].dtype and sorted(o1["a"]) == list(range(1, 11))
    assert o1["b"].isna().tolist() == df["b"].isna().tolist()
    assert n1["changed"]["a"] > 0


def test_treatment_and_bad_input():
    t = RankSwap(["a"], p=10)
    assert Treatment.from_dict(t.to_dict()) == t
    for p in (0, -1, 101, "5", True):
        with pytest.raises(ParameterError):
            RankSwap(["a"], p=p)
    df = pd.DataFrame({"a": [1.0, 2.0], "s": ["x", "y"], "k": [3.0, 3.0]})
    with pytest.raises(TreatmentError, match="must be numeric"):
        RankSwap(["s"]).check(df, None)
    with pytest.raises(TreatmentError, match="constant"):
        RankSwap(["k"]).check(df, None)
