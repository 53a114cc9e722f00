"""Targeted record swapping: households swapped whole with donors of equal `similar` values in a
different area; every other value unchanged; at-risk households swapped; swap rate reached;
replay, undo, bad input (named errors, HEAD unchanged)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, RoleError, SdcError
from sdcsession.methods import RecordSwap
from sdcsession.methods.base import Treatment
from sdcsession.methods.record_swapping import _record_swap, record_swap
from sdcsession.risk import household_risk

GEO = ["region", "district", "municipality"]


def census(n_h: int = 600, seed: int = 0, *, n_reg: int = 3, n_dis: int = 3,
           n_mun: int = 4) -> pd.DataFrame:
    """Synthetic census: households nested region > district > municipality, hsize, tenure
    (household level), persons with sex, age, age5 and income; rows shuffled."""
    rng = np.random.default_rng(seed)
    reg = rng.integers(0, n_reg, n_h)
    dis = reg * n_dis + rng.integers(0, n_dis, n_h)
    mun = dis * n_mun + rng.integers(0, n_mun, n_h)
    hsize = rng.choice([1, 2, 3, 4, 5], n_h, p=[0.3, 0.3, 0.2, 0.15, 0.05])
    tenure = rng.choice(["own", "rent"], n_h)
    hid = np.repeat(np.arange(5000, 5000 + n_h), hsize)
    idx = np.repeat(np.arange(n_h), hsize)
    n = len(hid)
    age = rng.integers(0, 95, n)
    df = pd.DataFrame({
        "hid": hid,
        "region": pd.Categorical([f"R{r}" for r in reg[idx]]),
        "district": [f"D{d}" for d in dis[idx]],
        "municipality": mun[idx] + 100,
        "hsize": hsize[idx], "tenure": tenure[idx],
        "sex": rng.choice(["m", "f"], n), "age": age,
        "age5": pd.cut(age, range(0, 100, 5), right=False).astype(str),
        "income": rng.gamma(2.0, 1000.0, n).round(2),
    })
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def swap(df, **kw):
    params = dict(household="hid", hierarchy=GEO, similar=["hsize"], swaprate=0.1,
                  k_anonymity=3, risk_variables=["sex", "age5"], risk_threshold=None, keys=(),
                  weight=None, carry_along=(), rng=np.random.default_rng(kw.pop("seed", 1)))
    params.update(kw)
    return _record_swap(df, **params)


def per_household(df: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    return df.groupby("hid", sort=True)[cols].first()


def coarsest_difference(a: pd.DataFrame, b: pd.DataFrame) -> np.ndarray:
    """Index of the coarsest hierarchy level at which rows of a and b differ (-1: none)."""
    diff = np.column_stack([(a[c].to_numpy() != b[c].to_numpy()) for c in GEO])
    return np.where(diff.any(axis=1), diff.argmax(axis=1), -1)


def at_risk(df: pd.DataFrame, k: int, risk_vars: list[str]) -> pd.Series:
    """Per household: the coarsest level at which a member's combination has fewer than k records
    in its area (-1: not at risk) — computed independently with pandas."""
    level = pd.Series(-1, index=np.unique(df["hid"]))
    for lev in range(len(GEO) - 1, -1, -1):
        cnt = df.groupby([GEO[lev], *risk_vars], observed=True)["hid"].transform("size")
        risky = df.loc[cnt < k, "hid"].unique()
        level[risky] = lev
    return level


# --------------------------------------------------------------------------- invariants
def check_invariants(df, out, pairs, similar=("hsize",), carry=()):
    # every non-geography value of every record unchanged
    rest = [c for c in df.columns if c not in (*GEO, *carry)]
    pd.testing.assert_frame_equal(out[rest], df[rest])
    # a household is swapped at most once
    ids = pairs.ravel()
    assert len(set(ids.tolist())) == len(ids)
    before = per_household(df, [*GEO, *carry, *similar])
    after = per_household(out, [*GEO, *carry])
    a, d = pairs[:, 0], pairs[:, 1]
    # donors share the similar values; geography exchanged exactly
    for c in similar:
        assert (before.loc[a, c].to_numpy() == before.loc[d, c].to_numpy()).all(), c
    for c in (*GEO, *carry):
        assert (after.loc[a, c].to_numpy() == before.loc[d, c].to_numpy()).all(), c
        assert (after.loc[d, c].to_numpy() == before.loc[a, c].to_numpy()).all(), c
    # donors lie in a different municipality; unswapped households keep their geography
    assert (before.loc[a, "municipality"].to_numpy() != before.loc[d, "municipality"].to_numpy()).all()
    still = before.index.difference(pd.Index(ids))
    pd.testing.assert_frame_equal(after.loc[still, GEO], before.loc[still, GEO],
                                  check_categorical=False)
    # geography stays constant within households
    assert (out.groupby("hid")[GEO].nunique() == 1).all().all()


def test_swap_invariants_and_at_risk_households():
    df = census(800, seed=2)
    out, notes, pairs = swap(df, swaprate=0.1, k_anonymity=3)
    check_invariants(df, out, pairs)
    risk = at_risk(df, 3, ["sex", "age5"])
    assert notes["selected_at_risk"] == int((risk >= 0).sum()) > 0
    assert notes["selected_at_risk_by_level"] == {
        GEO[lev]: int((risk == lev).sum()) for lev in range(3)}
    swapped = set(pairs.ravel().tolist())
    missed = [h for h in risk.index[risk >= 0] if h not in swapped]
    assert len(missed) == notes["without_donor"]["at_risk"]
    # a household at risk at level l moved out of its area of level l
    before = per_household(df, GEO)
    after = per_household(out, GEO)
    moved = risk[(risk >= 0) & risk.index.isin(list(swapped))]
    for lev in range(3):
        hh = moved.index[moved == lev]
        assert (before.loc[hh, GEO[lev]].to_numpy() != after.loc[hh, GEO[lev]].to_numpy()).all()
    # notes: counts only, consistent with the pairs and the data
    assert notes["swapped_households"] == 2 * len(pairs) == len(swapped)
    assert notes["swapped_records"] == int(df["hid"].isin(swapped).sum())
    assert notes["swap_rate"] >= 0.1
    lev = coarsest_difference(before.loc[pairs[:, 0]], before.loc[pairs[:, 1]])
    assert notes["swaps_by_level"] == {GEO[i]: int((lev == i).sum()) for i in range(3)}
    assert sum(notes["swaps_by_profile"]) == len(pairs)


@pytest.mark.parametrize("rate", [0.02, 0.05, 0.2, 0.5])
def test_swap_rate_is_reached_without_risk(rate):
    df = census(1000, seed=3)
    out, notes, pairs = swap(df, swaprate=rate, k_anonymity=0, risk_variables=())
    check_invariants(df, out, pairs)
    n_h = df["hid"].nunique()
    assert notes["selected_at_risk"] == 0
    assert notes["swapped_households"] >= rate * n_h
    assert notes["swapped_households"] <= rate * n_h + 2
    # donors are searched from the finest level: most swaps stay within the district
    assert notes["swaps_by_level"]["municipality"] >= 0.8 * len(pairs)


def test_households_are_drawn_per_area():
    df = census(3000, seed=4, n_reg=2, n_dis=2, n_mun=2)
    out, notes, pairs = swap(df, swaprate=0.2, k_anonymity=0, risk_variables=())
    hh = per_household(df, ["municipality"])
    swapped = hh.index.isin(pairs.ravel())
    by_area = pd.Series(swapped, index=hh.index).groupby(hh["municipality"]).mean()
    assert (by_area.between(0.12, 0.3)).all(), by_area


def test_fallback_similarity_profiles_and_carry_along():
    df = census(500, seed=5)
    df["dwelling"] = df["hid"] % 7  # household-level variable carried along
    out, notes, pairs = swap(df, similar=[["hsize", "tenure"], ["hsize"]],
                             carry_along=["dwelling"], swaprate=0.3)
    check_invariants(df, out, pairs, similar=("hsize",), carry=("dwelling",))
    before = per_household(df, ["tenure"])
    same_tenure = before.loc[pairs[:, 0], "tenure"].to_numpy() == before.loc[pairs[:, 1],
                                                                             "tenure"].to_numpy()
    assert notes["swaps_by_profile"][0] == int(same_tenure.sum()) > 0
    assert notes["swaps_by_profile"][0] + notes["swaps_by_profile"][1] == len(pairs)


def test_households_without_donor_are_reported_not_an_error():
    df = census(300, seed=6)
    # one household of a size nobody else has, at risk through a unique age
    extra = pd.DataFrame({"hid": 1, "region": pd.Categorical(["R0"] * 9, categories=["R0", "R1", "R2"]),
                          "district": "D0", "municipality": 100, "hsize": 9, "tenure": "own",
                          "sex": "m", "age": 120, "age5": "[120, 125)", "income": 1.0},
                         index=range(9))
    df = pd.concat([df, extra], ignore_index=True)
    out, notes, pairs = swap(df, swaprate=0.05)
    assert 1 not in set(pairs.ravel().tolist())
    assert notes["without_donor"]["at_risk"] >= 1
    assert notes["without_donor_at_risk_by_level"]["region"] >= 1
    assert (out.loc[df["hid"] == 1, GEO].to_numpy() == extra[GEO].to_numpy()).all()


def test_risk_threshold_selects_households_above_it():
    df = census(400, seed=7)
    hr = household_risk(df, ["sex", "age5", "region"], weight=None, household="hid")
    thr = float(np.quantile(hr, 0.9))
    out, notes, pairs = swap(df, k_anonymity=0, risk_variables=(), risk_threshold=thr,
                             keys=("sex", "age5", "region"), swaprate=0.05)
    above = set(df.loc[hr > thr, "hid"])
    assert notes["selected_by_risk_threshold"] == len(above) > 0
    swapped = set(pairs.ravel().tolist())
    assert len(above - swapped) == notes["without_donor"]["at_risk"]
    check_invariants(df, out, pairs)


def test_reproducible_and_seed_dependent():
    df = census(400, seed=8)
    a = swap(df, seed=5)
    b = swap(df, seed=5)
    c = swap(df, seed=6)
    pd.testing.assert_frame_equal(a[0], b[0])
    assert a[1] == b[1]
    assert not a[0].equals(c[0])


def test_notes_hold_no_household_ids():
    df = census(300, seed=9)
    df["hid"] = "H" + df["hid"].astype(str)
    out, notes = record_swap(df, household="hid", hierarchy=GEO, similar="hsize",
                             risk_variables=["sex", "age5"], rng=np.random.default_rng(0))
    text = json.dumps(notes)
    assert "H5" not in text and notes["swapped_households"] > 0


# ---------------------------------------------------------------------------- session
def session(df=None, **kw):
    df = census(500, seed=10) if df is None else df
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sdc.SdcSession(df, keys=["region", "sex", "age5"], household="hid", seed=4, **kw)


def test_session_step_replay_and_undo():
    df = census(500, seed=10)
    s = session(df)
    s.record_swap(hierarchy=GEO, similar=["hsize"], swaprate=0.1, risk_variables=["sex", "age5"])
    notes = s.head.notes
    assert notes["swapped_households"] >= 0.1 * df["hid"].nunique()
    rest = [c for c in df.columns if c not in GEO]
    pd.testing.assert_frame_equal(s.data[rest], df[rest])
    assert not s.data[GEO].equals(df[GEO])
    replay = sdc.SdcSession.from_recipe(df, json.loads(json.dumps(s.to_recipe())))
    pd.testing.assert_frame_equal(replay.data, s.data)
    assert replay.head.notes == notes
    s.undo()
    pd.testing.assert_frame_equal(s.data, df)
    s.redo()
    pd.testing.assert_frame_equal(s.data, replay.data)


def test_session_default_risk_variables_are_the_keys_without_geography():
    df = census(500, seed=11)
    s = session(df).record_swap(hierarchy=GEO, similar="hsize", seed=123)
    risk = at_risk(df, 3, ["sex", "age5"])
    assert s.head.notes["selected_at_risk"] == int((risk >= 0).sum())
    out, notes, _ = swap(df, swaprate=0.05, rng=np.random.default_rng(123))
    pd.testing.assert_frame_equal(s.data, out)  # seed= is the step's generator seed


def test_treatment_round_trip():
    t = RecordSwap(GEO, [["hsize", "tenure"], ["hsize"]], swaprate=0.2, k_anonymity=2,
                   risk_variables=["sex"], risk_threshold=0.3, carry_along="tenure2")
    assert Treatment.from_dict(json.loads(json.dumps(t.to_dict()))) == t
    assert t.similar == (("hsize", "tenure"), ("hsize",))


BAD = [
    ({"swaprate": -0.1}, ParameterError, "swaprate"),
    ({"swaprate": 1.5}, ParameterError, "swaprate"),
    ({"swaprate": "0.1"}, ParameterError, "swaprate"),
    ({"k_anonymity": -1}, ParameterError, "k_anonymity"),
    ({"hierarchy": []}, ParameterError, "hierarchy"),
    ({"similar": []}, ParameterError, "similar"),
    ({"similar": ["hsize", ["tenure"]]}, ParameterError, "similar"),
    ({"carry_along": ["region"]}, ParameterError, "carry_along"),
    ({"risk_threshold": 2.0}, ParameterError, "risk_threshold"),
    ({"similar": ["sex"]}, RoleError, "'sex' varies within"),
    ({"hierarchy": ["region", "hid2"]}, SdcError, "hid2"),
    ({"carry_along": ["income"]}, RoleError, "'income' varies within"),
    ({"carry_along": ["hid"]}, RoleError, "household id"),
]


@pytest.mark.parametrize(("kw", "error", "match"), BAD)
def test_bad_input_is_refused_by_name_head_unchanged(kw, error, match):
    df = census(200, seed=12)
    s = session(df)
    head = s.head
    params = {"hierarchy": GEO, "similar": ["hsize"], **kw}
    with pytest.raises(error, match=match):
        s.record_swap(**params)
    assert s.head is head and len(s.steps) == 1
    pd.testing.assert_frame_equal(s.data, df)


def test_codes_unique_within_their_parent_are_areas_of_their_path():
    """District codes restart in every region ("D1" lies in R0, R1 and R2): accepted, each
    (region, district) path is one area, as in sdcMicro (see test_record_swap_nested)."""
    df = census(300, seed=13)
    df["district"] = "D" + (df["district"].str[1:].astype(int) % 3).astype(str)
    s = session(df)
    s.record_swap(hierarchy=GEO, similar=["hsize"], swaprate=0.2)
    assert s.head.depth == 1 and s.head.notes["swapped_households"] >= 0.2 * df["hid"].nunique()
    paths = set(map(tuple, df[GEO].astype(str).to_numpy()))
    assert set(map(tuple, s.data[GEO].astype(str).to_numpy())) <= paths


def test_missing_household_role_and_geography():
    df = census(200, seed=14)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = sdc.SdcSession(df, keys=["region", "sex"], seed=1)
    with pytest.raises(RoleError, match="household role"):
        s.record_swap(hierarchy=GEO, similar=["hsize"])
    assert s.head.depth == 0
    df2 = df.assign(district=df["district"].where(df.index != 5, None))
    with pytest.raises(RoleError, match="hierarchy column 'district' has 1 missing"):
        session(df2).record_swap(hierarchy=GEO, similar=["hsize"])
    with pytest.raises(RoleError, match="varies within"):
        session(df.assign(region=df["region"].cat.add_categories("X").where(
            df.index != 3, "X"))).record_swap(hierarchy=GEO, similar=["hsize"])


# ---------------------------------------------------------------- property-based invariants
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_h=st.integers(2, 120), seed=st.integers(0, 10_000), rate=st.floats(0.01, 1.0),
       k=st.integers(0, 4), levels=st.integers(1, 3))
def test_invariants_hold_on_random_files(n_h, seed, rate, k, levels):
    df = census(n_h, seed=seed, n_reg=2, n_dis=2, n_mun=2)
    hier = GEO[:levels]
    out, notes, pairs = _record_swap(
        df, household="hid", hierarchy=hier, similar=["hsize"], swaprate=rate, k_anonymity=k,
        risk_variables=["sex"], risk_threshold=None, keys=(), weight=None, carry_along=(),
        rng=np.random.default_rng(seed))
    rest = [c for c in df.columns if c not in hier]
    pd.testing.assert_frame_equal(out[rest], df[rest])
    before = per_household(df, [*hier, "hsize"])
    after = per_household(out, hier)
    assert len(set(pairs.ravel().tolist())) == pairs.size
    a, d = pairs[:, 0], pairs[:, 1]
    assert (before.loc[a, "hsize"].to_numpy() == before.loc[d, "hsize"].to_numpy()).all()
    for c in hier:
        assert (after.loc[a, c].to_numpy() == before.loc[d, c].to_numpy()).all()
    assert (before.loc[a, hier[-1]].to_numpy() != before.loc[d, hier[-1]].to_numpy()).all()
    assert notes["swapped_households"] == pairs.size


def test_households_per_area_and_similar_value_are_preserved():
    """Swaps exchange geography between households of equal `similar` values, so the number of
    households per (municipality, hsize) is unchanged, while the areas of households change."""
    df = census(1500, seed=15)
    out, notes, pairs = swap(df, swaprate=0.2, k_anonymity=2, risk_variables=["sex", "age5"])
    before = per_household(df, [*GEO, "hsize"]).value_counts().sort_index()
    after = per_household(out, [*GEO, "hsize"]).value_counts().sort_index()
    pd.testing.assert_series_equal(before, after)
    moved = (per_household(df, ["municipality"]) != per_household(out, ["municipality"]))
    assert int(moved["municipality"].sum()) == notes["swapped_households"] >= 300
