"""Progressive local recoding by pairing (sdcMicro LocalRecProg, Takemura 2002)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.base import Treatment
from sdcsession.methods.local_recoding import LocalRecode, local_recode
from sdcsession.risk import frequencies, k_violations


def test_rare_record_and_common_partner_costs_one_suppression():
    """5 × (x, 1) and 1 × (y, 1), k = 3: suppressing y alone gives (NA, 1), compatible with all
    six records (missing = wildcard), so nothing else changes (the first version suppressed
    all six a-values)."""
    df = pd.DataFrame({"a": ["x"] * 5 + ["y"], "b": ["1"] * 6})
    out, notes = local_recode(df, ["a", "b"], k=3)
    assert out["a"].tolist()[:5] == ["x"] * 5 and pd.isna(out["a"].iloc[5])
    assert out["b"].tolist() == df["b"].tolist()
    assert notes["suppressed"] == {"a": 1, "b": 0} and notes["recoded"] == {"a": 0, "b": 0}
    assert frequencies(out, ["a", "b"])["fk"].tolist() == [6] * 6


def test_only_the_partners_needed_are_recoded_to_the_common_ancestor():
    """y is alone in district D1 with five x; k = 3 needs y plus exactly two x at D1 (cost
    3 × 1/4 of a level-4 hierarchy, cheaper than suppressing y: 1); three x stay x (fk = 3)."""
    df = pd.DataFrame({"t": ["x"] * 5 + ["y"] + ["z"] * 3, "d": ["D1"] * 6 + ["D2"] * 3,
                       "r": ["N"] * 6 + ["S"] * 3, "c": ["C"] * 9})
    out, notes = local_recode(df, ["t"], k=3, ancestors={"t": ["d", "r", "c"]})
    assert out["t"].tolist() == ["D1", "D1", "x", "x", "x", "D1", "z", "z", "z"]
    assert notes["recoded"] == {"t": 3} and notes["suppressed"] == {"t": 0}


def test_recodes_to_the_common_ancestor_before_suppressing():
    df = pd.DataFrame({"town": ["a", "b", "c", "c", "d", "e"],
                       "region": ["N", "N", "S", "S", "W", "E"]})
    out, notes = local_recode(df, ["town"], k=2, ancestors={"town": ["region"]})
    # a, b share region N (cost 2·½); c is safe; d and e share no ancestor: suppressing d makes
    # it a wildcard compatible with e (and everyone), so e may keep its value
    assert out["town"].tolist()[:4] == ["N", "N", "c", "c"]
    assert pd.isna(out["town"].iloc[4]) and out["town"].iloc[5] == "e"
    assert notes["recoded"] == {"town": 2} and notes["suppressed"] == {"town": 1}


def test_cheapest_partner_keeps_the_weighted_variable():
    df = pd.DataFrame({"sex": ["m", "f", "f", "m"], "edu": ["1", "1", "2", "2"]})
    keep_sex, n1 = local_recode(df, ["sex", "edu"], k=2, weights={"sex": 5.0})
    assert keep_sex["sex"].tolist() == df["sex"].tolist()
    assert n1["suppressed"] == {"sex": 0, "edu": 2}  # one per sex is enough with wildcards
    keep_edu, n2 = local_recode(df, ["sex", "edu"], k=2, weights={"edu": 5.0})
    assert keep_edu["edu"].tolist() == df["edu"].tolist()
    assert n2["suppressed"] == {"sex": 2, "edu": 0}
    for out in (keep_sex, keep_edu):
        assert k_violations(out, ["sex", "edu"], 2) == 0


def test_missing_values_are_wildcards():
    df = pd.DataFrame({"a": ["x", "x", "x", "x", None, None, "y"],
                       "b": ["1", "1", "1", "2", "2", "2", "2"]})
    # (x, 2) and (y, 2) are compatible with both (NA, 2): fk = 3, nothing to do
    out, notes = local_recode(df, ["a", "b"], k=2)
    assert notes["rounds"] == 0 and out.equals(df)
    # k = 4: (x, 1) has 3 compatible records, (x, 2) and (y, 2) have 3
    out, notes = local_recode(df, ["a", "b"], k=4)
    assert k_violations(out, ["a", "b"], 4) == 0
    # optimum: (x, 2) gives up b (a donor: compatible with the three (x, 1) at once), (y, 2)
    # gives up a; 2 suppressions
    assert sum(notes["suppressed"].values()) == 2


def test_alpha_below_one_is_respected():
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"a": rng.choice(list("abc"), 80), "b": rng.choice(list("xyzw"), 80),
                       "c": rng.choice(list("pq"), 80)})
    df.loc[rng.choice(80, 10, replace=False), "a"] = None
    for alpha in (0.0, 0.5):
        out, notes = local_recode(df, ["a", "b", "c"], k=4, alpha=alpha)
        assert k_violations(out, ["a", "b", "c"], 4, alpha=alpha) == 0
        assert notes["restored"] == 0


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 60), k=st.integers(2, 4), seed=st.integers(0, 10_000),
       alpha=st.sampled_from([1.0, 1.0, 0.5, 0.0]), holes=st.integers(0, 6))
def test_reaches_k_anonymity(n, k, seed, alpha, holes):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.choice(list("abcd"), n), "b": rng.choice(list("xyz"), n),
                       "c": rng.choice(list("pq"), n)})
    df.loc[rng.choice(n, min(holes, n), replace=False), "b"] = None
    df["a_up"] = df["a"].map({"a": "ab", "b": "ab", "c": "cd", "d": "cd"})
    out, notes = local_recode(df, ["a", "b", "c"], k=k, ancestors={"a": ["a_up"]}, alpha=alpha)
    # the project's own count: missing values are wildcards weighted by alpha
    assert k_violations(out, ["a", "b", "c"], k, alpha=alpha) == 0
    # values only ever become coarser: original, the ancestor, or missing
    a_ok = (out["a"] == df["a"]) | (out["a"] == df["a_up"]) | out["a"].isna()
    assert a_ok.all()
    for c in "bc":
        assert ((out[c] == df[c]) | out[c].isna()).all()
    assert (out["b"].isna() >= df["b"].isna()).all()
    # nothing changes when nothing is rare
    if k_violations(df, ["a", "b", "c"], k, alpha=alpha) == 0:
        assert notes["rounds"] == 0 and out.equals(df)
    # already k-anonymous data are left alone
    again, notes2 = local_recode(out, ["a", "b", "c"], k=k, alpha=alpha)
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
    with pytest.raises(ParameterError, match="alpha"):
        LocalRecode(["a"], alpha=1.5)
    df = pd.DataFrame({"a": ["x", "y", "x"], "up": ["1", "2", "3"]})
    with pytest.raises(TreatmentError, match="not nested"):
        local_recode(df, ["a"], ancestors={"a": ["up"]})
    with pytest.raises(TreatmentError, match="k=4"):
        local_recode(df, ["a"], k=4)


def test_recipe_round_trip_and_old_recipes():
    t = LocalRecode(["sex", "age5"], k=3, weights={"sex": 2.0}, ancestors={"age5": ["age10"]},
                    alpha=0.5)
    assert Treatment.from_dict(t.to_dict()) == t
    d = LocalRecode(["sex"], k=2).to_dict()
    d.pop("alpha")  # a recipe written before alpha existed
    assert Treatment.from_dict(d) == LocalRecode(["sex"], k=2)


def test_session_undo_replay_and_risk():
    df = sdc.datasets.synthetic_survey(300, seed=6)
    df.loc[df.index[::17], "age5"] = None  # missing keys: wildcards in the session's counts
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], seed=1)
    assert s.risk.k_violations(3) > 0
    s.local_recode(k=3)  # columns default: the session's keys
    assert s.risk.k_violations(3) == 0
    again = sdc.SdcSession.from_recipe(df, s.to_recipe())
    pd.testing.assert_frame_equal(again.data, s.data)
    s.undo()
    pd.testing.assert_frame_equal(s.data, s.original)


def test_session_uses_its_alpha():
    df = sdc.datasets.synthetic_survey(300, seed=7)
    df.loc[df.index[::9], "sex"] = None
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], seed=1, alpha=0.25)
    s.local_recode(["region", "sex", "age5"], k=3)
    assert s.history[-1].treatment.alpha == 0.25
    assert s.risk.k_violations(3) == 0


def test_many_keys_greedy_chain_reaches_k(monkeypatch):
    """Past the best-first budget the remaining rare units follow the greedy chain."""
    import sdcsession.methods._local_recode_search as search

    rng = np.random.default_rng(11)
    df = pd.DataFrame({f"v{j}": rng.integers(0, 3, 120).astype(str) for j in range(9)})
    keys = list(df.columns)
    calls = []
    chain = search._chain
    monkeypatch.setattr(search, "_chain", lambda *a, **kw: calls.append(1) or chain(*a, **kw))
    monkeypatch.setattr(search, "BUDGET", 3)
    out, notes = local_recode(df, keys, k=3)
    assert calls and k_violations(out, keys, 3) == 0
    assert ((out == df) | out.isna()).all().all()
