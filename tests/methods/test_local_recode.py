"""Progressive local recoding by pairing (sdcMicro LocalRecProg, Takemura 2002)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.local_recoding import LocalRecode, local_recode


def test_recodes_to_the_common_ancestor_before_suppressing():
    df = pd.DataFrame({"town": ["a", "b", "c", "c", "d", "e"],
                       "region": ["N", "N", "S", "S", "W", "E"]})
    out, notes = local_recode(df, ["town"], k=2, ancestors={"town": ["region"]})
    # a, b share region N (cost 2·½); c is safe; d and e share nothing: suppressed (cost 2·1)
    assert out["town"].tolist() == ["N", "N", "c", "c", None, None]
    assert notes["recoded"] == {"town": 2} and notes["suppressed"] == {"town": 2}


def test_cheapest_partner_keeps_the_weighted_variable():
    df = pd.DataFrame({"sex": ["m", "f", "f", "m"], "edu": ["1", "1", "2", "2"]})
    keep_sex, _ = local_recode(df, ["sex", "edu"], k=2, weights={"sex": 5.0})
    assert keep_sex["sex"].tolist() == df["sex"].tolist()
    assert keep_sex["edu"].isna().all()
    keep_edu, _ = local_recode(df, ["sex", "edu"], k=2, weights={"edu": 5.0})
    assert keep_edu["edu"].tolist() == df["edu"].tolist()
    assert keep_edu["sex"].isna().all()


def test_absorbed_into_a_safe_unit_that_does_not_change():
    df = pd.DataFrame({"a": ["x", "x", "x", "x", None, None, "y"],
                       "b": ["1", "1", "1", "2", "2", "2", "2"]})
    out, notes = local_recode(df, ["a", "b"], k=2)
    # (x, 2) meets the safe (NA, 2) at a = NA, which does not change, so (x, 2) joins it;
    # (y, 2) joins the same way in the same round
    assert out["a"].tolist()[:3] == ["x"] * 3 and out["a"].iloc[3:].isna().all()
    assert notes["suppressed"] == {"a": 2, "b": 0} and notes["rounds"] == 1


def test_a_safe_partner_that_must_change_is_recoded_whole():
    """Known cost of the unit model: (y, 1) can only share a combination with the (x, 1)
    records, and all five of them are recoded with it (missing values count as a value of their
    own here, so suppressing y alone would leave (NA, 1) unique)."""
    df = pd.DataFrame({"a": ["x"] * 5 + ["y"], "b": ["1"] * 6})
    out, notes = local_recode(df, ["a", "b"], k=3)
    assert out["a"].isna().all() and notes["suppressed"] == {"a": 6, "b": 0}


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 60), k=st.integers(2, 4), seed=st.integers(0, 10_000))
def test_reaches_k_anonymity(n, k, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.choice(list("abcd"), n), "b": rng.choice(list("xyz"), n),
                       "c": rng.choice(list("pq"), n)})
    df["a_up"] = df["a"].map({"a": "ab", "b": "ab", "c": "cd", "d": "cd"})
    if n < k:
        return
    out, notes = local_recode(df, ["a", "b", "c"], k=k, ancestors={"a": ["a_up"]})
    assert out[["a", "b", "c"]].value_counts(dropna=False).min() >= k
    # values only ever become coarser: original, the ancestor, or missing
    a_ok = (out["a"] == df["a"]) | (out["a"] == df["a_up"]) | out["a"].isna()
    assert a_ok.all()
    for c in "bc":
        assert ((out[c] == df[c]) | out[c].isna()).all()
    # already k-anonymous data are left alone
    again, notes2 = local_recode(out, ["a", "b", "c"], k=k)
    assert notes2["rounds"] == 0 and again.equals(out)


def test_bad_input():
    with pytest.raises(ParameterError, match="k"):
        LocalRecode(["a"], k=1)
    with pytest.raises(ParameterError, match="weights"):
        LocalRecode(["a"], weights={"a": 0})
    with pytest.raises(ParameterError, match="ancestors"):
        LocalRecode(["a"], ancestors={"b": ["c"]})
    with pytest.raises(ParameterError, match="ancestors"):
        LocalRecode(["a", "b"], ancestors={"a": ["b"]})
    df = pd.DataFrame({"a": ["x", "y", "x"], "up": ["1", "2", "3"]})
    with pytest.raises(TreatmentError, match="not nested"):
        local_recode(df, ["a"], ancestors={"a": ["up"]})
    with pytest.raises(TreatmentError, match="k=4"):
        local_recode(df, ["a"], k=4)


def test_session_undo_replay_and_risk():
    df = sdc.datasets.synthetic_survey(300, seed=6)
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], seed=1)
    assert s.risk.k_violations(3) > 0
    s.local_recode(["region", "sex", "age5"], k=3)
    assert s.risk.k_violations(3) == 0
    again = sdc.SdcSession.from_recipe(df, s.to_recipe())
    pd.testing.assert_frame_equal(again.data, s.data)
    s.undo()
    pd.testing.assert_frame_equal(s.data, s.original)
