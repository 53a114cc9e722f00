"""Gower-distance microaggregation of mixed data (sdcMicro microaggrGower)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.microaggregation_gower import (
    MicroaggregationGower,
    gower_groups,
    microaggregation_gower,
)


def test_hand_computed_groups_means_and_modes():
    df = pd.DataFrame({"sex": ["m", "m", "f", "f", "f", "m", "f"],
                       "age": [20.0, 22.0, 60.0, 62.0, 61.0, 24.0, 58.0]})
    out, notes = microaggregation_gower(df, ["sex", "age"], k=3)
    # n = 7 < 3k: one group around the record farthest from the average record (age 43.86,
    # sex f): record 1 (m, 22)? distances 0.5·|age − 43.86|/42 + 0.5·[sex ≠ f]; farthest is
    # (m, 20): its group is its 2 nearest (m, 22), (m, 24); the rest forms the last group
    assert out["sex"].tolist() == ["m", "m", "f", "f", "f", "m", "f"]
    assert out["age"].tolist() == [22.0, 22.0, 60.25, 60.25, 60.25, 22.0, 60.25]
    assert notes["group_sizes"] == {"3": 1, "4": 1}
    assert notes["changed"] == {"sex": 0, "age": 6}  # (m, 22) keeps its age: the mean


def test_mode_of_categories_and_ordinal_distance():
    df = pd.DataFrame({
        "edu": pd.Categorical(["low", "low", "mid", "high", "high", "high"],
                              categories=["low", "mid", "high"], ordered=True),
        "job": ["a", "b", "a", "c", "c", "d"]})
    out, _ = microaggregation_gower(df, ["edu", "job"], k=3)
    assert out["edu"].tolist() == ["low"] * 3 + ["high"] * 3
    assert out["job"].tolist() == ["a"] * 3 + ["c"] * 3
    assert out["edu"].dtype == df["edu"].dtype


def test_distance_weights_change_the_groups():
    df = pd.DataFrame({"g": ["x", "y", "x", "y", "x", "y"],
                       "v": [1.0, 1.1, 5.0, 5.1, 9.0, 9.1]})
    by_v, _ = microaggregation_gower(df, ["g", "v"], k=2, variable_weights={"g": 0.0})
    by_g, _ = microaggregation_gower(df, ["g", "v"], k=2, variable_weights={"v": 0.01})
    assert by_v["v"].tolist() == pytest.approx([1.05, 1.05, 5.05, 5.05, 9.05, 9.05])
    # pairs by v: every pair mixes x and y, the mode (ties: first category) turns 3 y into x
    assert (by_v["g"] != df["g"]).sum() == 3
    # g dominates: {y 9.1, y 5.1}, {x 1.0, x 5.0}, and the last pair {y 1.1, x 9.0} mixes
    assert by_g["v"].tolist() == pytest.approx([3.0, 1.1 / 2 + 4.5, 3.0, 7.1, 1.1 / 2 + 4.5, 7.1])
    assert (by_g["g"] != df["g"]).sum() == 1


def test_missing_values_skipped_in_distance_and_kept():
    df = pd.DataFrame({"a": [1.0, np.nan, 1.2, 8.0, 8.1, 8.2], "s": ["u", "u", None, "v", "v", "v"]})
    out, _ = microaggregation_gower(df, ["a", "s"], k=3)
    assert np.isnan(out.loc[1, "a"])
    assert pd.isna(out.loc[2, "s"])
    assert out.loc[0, "a"] == pytest.approx(1.1) and out.loc[3, "a"] == pytest.approx(8.1)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(6, 40), k=st.integers(2, 4), seed=st.integers(0, 1000))
def test_k_anonymous_property(n, k, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"c": rng.choice(list("abc"), n), "x": rng.normal(size=n).round(2)})
    if n < k:
        return
    out, notes = microaggregation_gower(df, ["c", "x"], k=k)
    assert out.groupby(["c", "x"]).size().min() >= k or n < 2 * k
    assert sum(int(s) * c for s, c in notes["group_sizes"].items()) == n
    u = (df[["x"]].to_numpy() / (np.ptp(df["x"]) or 1.0))
    lab = gower_groups(u, pd.factorize(df["c"])[0][:, None], k)
    assert np.bincount(lab).min() >= k


def test_bad_input():
    with pytest.raises(ParameterError, match="k"):
        MicroaggregationGower(["a"], k=1)
    with pytest.raises(ParameterError, match="variable_weights"):
        MicroaggregationGower(["a"], variable_weights={"zz": 1})
    with pytest.raises(ParameterError, match="variable_weights"):
        MicroaggregationGower(["a"], variable_weights=[1, 2])
    with pytest.raises(ParameterError, match="aggregate"):
        MicroaggregationGower(["a"], aggregate="mode")
    df = pd.DataFrame({"a": [1.0, 2.0]})
    with pytest.raises(TreatmentError, match="k=3"):
        microaggregation_gower(df, ["a"], k=3)
    with pytest.raises(TreatmentError, match="nope"):
        microaggregation_gower(df, ["nope"], k=2)


def test_session_replay_and_undo():
    df = sdc.datasets.synthetic_survey(200, seed=5)
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], numeric=["income"], seed=1)
    s.microaggregation_gower(["sex", "age5", "income"], k=3, variable_weights={"sex": 2.0})
    assert s.data.groupby(["sex", "age5", "income"], observed=True).size().min() >= 3
    assert s.risk.k_violations(3) <= sdc.SdcSession(df, keys=["region", "sex", "age5"]
                                                    ).risk.k_violations(3)
    again = sdc.SdcSession.from_recipe(df, s.to_recipe())
    pd.testing.assert_frame_equal(again.data, s.data)
    s.undo()
    pd.testing.assert_frame_equal(s.data, s.original)
