"""Rank swapping options: top/bottom grouping, Moore's r0/k0 rank ranges (hand-computed), the
seed honoured, recipe replay, bad input."""

import json

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.base import Treatment
from sdcsession.methods.rank_swap_criteria import group_extremes, rank_range
from sdcsession.methods.swapping import RankSwap, rank_swap


def test_top_bottom_grouped_by_their_mean_and_not_swapped():
    x = np.arange(1.0, 101.0)  # 100 values: top 5 % = 96..100, bottom 10 % = 1..10
    df = pd.DataFrame({"x": np.random.default_rng(0).permutation(x)})
    out, notes = rank_swap(df, ["x"], p=10, top=5, bottom=10, rng=np.random.default_rng(1))
    new, old = out["x"].to_numpy(), df["x"].to_numpy()
    assert (new[old >= 96] == 98.0).all()  # (96 + ... + 100) / 5
    assert (new[old <= 10] == 5.5).all()
    mid = (old > 10) & (old < 96)
    assert sorted(new[mid]) == sorted(old[mid])  # the others are only exchanged
    assert notes["top_coded"]["x"] == 5 and notes["bottom_coded"]["x"] == 10
    assert notes["max_rank_distance"]["x"] == 10  # floor(10 % of 100 observed values)
    assert np.abs(new[mid] - old[mid]).max() <= 10
    assert new.sum() == pytest.approx(old.sum())  # group means keep the total


def test_group_extremes_floor_of_percentages():
    v, t, b = group_extremes(np.arange(1.0, 20.0), 10, 5)  # 19 values: 1 top, 0 bottom
    assert (t, b) == (1, 0) and v.tolist() == list(np.arange(1.0, 20.0))


def test_moore_criteria_hand_computed():
    mid = np.arange(1.0, 101.0)  # sigma² = (100² − 1)/12 = 833.25, range 99, mean 50.5
    # r0 = 0.95: f = sqrt(2·833.25·0.05)/99 = 0.092204...; P = floor(100 f) = 9
    assert rank_range(mid, n_observed=100, p=None, r0=0.95, k0=None) == 9
    # r0 = 0.5: f = sqrt(833.25)/99 = 0.29158; P = 29
    assert rank_range(mid, n_observed=100, p=None, r0=0.5, k0=None) == 29
    # k0 = 0.1: f = sqrt(8/3)·0.1·50.5/99 = 0.083301; P = 8
    assert rank_range(mid, n_observed=100, p=None, r0=None, k0=0.1) == 8
    # capped at m − 1
    assert rank_range(mid, n_observed=100, p=None, r0=None, k0=10) == 99
    with pytest.raises(TreatmentError, match="r0=0.9999 is less than one rank.*lower r0"):
        rank_range(mid, n_observed=100, p=None, r0=0.9999, k0=None, column="x")


def test_r0_keeps_the_correlation_about_r0():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"x": rng.uniform(0, 1000, size=20_000)})
    out, notes = rank_swap(df, ["x"], r0=0.95, rng=rng)
    r = np.corrcoef(df["x"], out["x"])[0, 1]
    # Moore's relation is conservative (partners are on average closer than the full range)
    assert 0.95 <= r < 1.0
    assert notes["max_rank_distance"]["x"] == int(np.floor(
        np.sqrt(2 * df["x"].var(ddof=0) * 0.05) / np.ptp(df["x"]) * 20_000))


def test_seed_honoured_and_replay():
    data = sdc.datasets.synthetic_survey(200, seed=2)
    a = sdc.SdcSession(data, keys=["region"], numeric=["income"], seed=1)
    b = sdc.SdcSession(data, keys=["region"], numeric=["income"], seed=99)
    a.rank_swap(["income"], p=10, top=2, seed=123)
    b.rank_swap(["income"], p=10, top=2, seed=123)
    pd.testing.assert_frame_equal(a.data, b.data, check_exact=True)  # the seed decides
    c = sdc.SdcSession(data, keys=["region"], numeric=["income"], seed=1)
    c.rank_swap(["income"], p=10, top=2, seed=124)
    assert not c.data["income"].equals(a.data["income"])
    a.rank_swap(["expend"], k0=0.2, bottom=3)
    again = sdc.SdcSession.from_recipe(data, json.loads(json.dumps(a.to_recipe())))
    pd.testing.assert_frame_equal(again.data, a.data, check_exact=True)
    assert a.to_recipe()["steps"][0]["seed"] == 123


def test_default_unchanged_and_int_columns():
    t = RankSwap(["a"])
    assert t.p == 5.0 and t.r0 is None and Treatment.from_dict(t.to_dict()) == t
    # an old recipe (p only) still reads
    assert Treatment.from_dict({"type": "rank_swap", "columns": ["a"], "p": 5.0}) == t
    df = pd.DataFrame({"a": np.arange(1, 41)})
    out, _ = rank_swap(df, ["a"], p=10, top=5, rng=np.random.default_rng(0))
    assert out["a"].dtype == np.float64  # mean of 39, 40 = 39.5 is not an integer
    out, _ = rank_swap(df, ["a"], p=10, rng=np.random.default_rng(0))
    assert out["a"].dtype == df["a"].dtype


@pytest.mark.parametrize("kwargs, match", [
    ({"p": 10, "r0": 0.9}, "only one of p, r0 and k0"),  # p=5 is the default: gives way
    ({"p": None}, r"p \(a percentage\): expected a number in \(0, 100\] \(default 5\)"),
    ({"r0": 1.0}, "r0: expected"),
    ({"r0": -0.1}, "r0: expected"),
    ({"k0": 0}, "k0: expected"),
    ({"top": 100}, "top"),
    ({"bottom": -1}, "bottom"),
    ({"top": 60, "bottom": 40}, "together"),
    ({"top": "5"}, "top"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        RankSwap(["a"], **kwargs)


def test_too_few_values_left():
    df = pd.DataFrame({"a": [1.0, 2, 3, 4]})
    with pytest.raises(TreatmentError, match="fewer than 2 values of column 'a'"):
        rank_swap(df, ["a"], p=50, top=50, bottom=25, rng=np.random.default_rng(0))
    with pytest.raises(TreatmentError, match="all equal"):
        rank_swap(pd.DataFrame({"a": [1.0, 5, 5, 5, 5, 9]}), ["a"], r0=0.5, top=20, bottom=20,
                  rng=np.random.default_rng(0))
