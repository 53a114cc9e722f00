"""Local suppression to k-anonymity and risk-based suppression.

Results are verified with the independent ``sdcsession.risk.frequencies`` (missing = wildcard,
alpha = 1); totals are compared with sdcMicro's kAnon figures of the conformance file.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdcsession.errors import ParameterError, SdcWarning, TreatmentError
from sdcsession.methods.base import Treatment
from sdcsession.methods.suppression import (
    LocalSuppression,
    SuppressByRisk,
    local_suppression,
    suppress_by_risk,
)
from sdcsession.risk import frequencies, individual_risk
from sdcsession.roles import Roles

RNG = np.random.default_rng(0)


def _violations(df: pd.DataFrame, keys: list[str], k: float, weight: str | None = None) -> int:
    f = frequencies(df, keys, weight=weight, alpha=1.0)
    col = f["Fk"] if weight else f["fk"]
    return int((col.to_numpy() < k).sum())


def _check_only_suppressed(before: pd.DataFrame, after: pd.DataFrame, keys: list[str]) -> None:
    """Only key values were changed, and only to missing."""
    for c in before.columns:
        b, a = before[c], after[c]
        if c not in keys:
            pd.testing.assert_series_equal(b, a)
            continue
        changed = ~(b.isna() & a.isna()) & ~(b.astype(object) == a.astype(object)).fillna(False)
        assert a[changed].isna().all()
        assert b[changed].notna().all()


# ------------------------------------------------------------------ conformance (the bars to beat)
@pytest.fixture(scope="module")
def testdata() -> pd.DataFrame:
    return load("testdata")


@pytest.mark.parametrize("case,factor", [("kanon_k3", 0.8), ("kanon_k5", 0.8),
                                         ("kanon_k3_importance", 1.0)])
def test_testdata_beats_sdcmicro(testdata, case, factor):
    ref = reference()["testdata"]
    r = ref[case]
    keys = ref["keys"]
    importance = None
    if r["importance"] is not None:  # sdcMicro: 1 = most important; ours: names, most important first
        importance = [keys[i] for i in np.argsort(r["importance"], kind="stable")]
    out, notes = local_suppression(testdata, keys, k=r["k"], importance=importance)
    assert _violations(out, keys, r["k"]) == 0
    assert notes["violations_after"] == 0
    assert notes["total"] <= factor * r["total"], (notes["total"], r["total"])
    # the notes count exactly the values set missing
    for c in keys:
        assert notes["suppressed"][c] == int(out[c].isna().sum()) - int(testdata[c].isna().sum())
    assert notes["total"] == sum(notes["suppressed"].values())
    _check_only_suppressed(testdata, out, keys)


def test_importance_prefers_unimportant_keys(testdata):
    keys = reference()["testdata"]["keys"]
    _, notes = local_suppression(testdata, keys, k=3, importance=keys)
    s = notes["suppressed"]
    # the two least important keys carry most of the suppressions
    assert s["relat"] + s["sex"] > 0.6 * notes["total"]
    assert s["urbrur"] <= 2


def test_free1_beats_sdcmicro():
    ref = reference()["free1"]
    keys = ref["keys"]
    df = load("free1")
    out, notes = local_suppression(df, keys, k=3)
    assert _violations(out, keys, 3) == 0
    assert notes["total"] <= 0.8 * ref["kanon_k3"]["total"]


# ------------------------------------------------------------------ hand-computed cases
def test_slice_of_singletons_needs_k_minus_1():
    # 5 records equal on "a", all different on "b": k = 3 needs only 2 suppressions of b
    df = pd.DataFrame({"a": ["x"] * 5, "b": list("pqrst")})
    out, notes = local_suppression(df, ["a", "b"], k=3)
    assert notes["total"] == 2 and notes["suppressed"] == {"a": 0, "b": 2}
    assert _violations(out, ["a", "b"], 3) == 0


def test_already_anonymous_is_unchanged():
    df = pd.DataFrame({"a": ["x"] * 3 + ["y"] * 3, "b": ["u"] * 6})
    out, notes = local_suppression(df, ["a", "b"], k=3)
    assert notes["total"] == 0 and notes["violations_after"] == 0
    pd.testing.assert_frame_equal(out, df)


def test_existing_missing_values_are_wildcards():
    df = pd.DataFrame({"a": ["x", "x", None, "y"], "b": ["u", "u", "u", "u"]})
    # fk: x,u -> 3 (with the missing one), None,u -> 4, y,u -> 2 (itself + the missing one)
    out, notes = local_suppression(df, ["a", "b"], k=3)
    assert notes["total"] == 1 and out["a"].isna().sum() == 2
    assert _violations(out, ["a", "b"], 3) == 0


@given(st.integers(0, 10_000), st.integers(2, 4), st.integers(8, 60))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_property_k_anonymous(seed, k, n):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": rng.choice(list("abc"), n),
        "b": rng.choice(list("pqrst"), n),
        "c": rng.choice([1, 2, 3, 4], n).astype(float),
        "z": rng.normal(size=n),
    })
    df.loc[rng.random(n) < 0.1, "c"] = np.nan
    keys = ["a", "b", "c"]
    out, notes = local_suppression(df, keys, k=k)
    assert _violations(out, keys, k) == 0
    assert notes["violations_after"] == 0
    _check_only_suppressed(df, out, keys)
    # never more suppressions than the naive "suppress everything in violators"
    viol = _violations(df, keys, k)
    assert notes["total"] <= viol * len(keys)


def test_restoration_removes_unneeded_suppressions():
    df = load("testdata")
    keys = reference()["testdata"]["keys"]
    _, with_restore = local_suppression(df, keys, k=5)
    _, without = local_suppression(df, keys, k=5, restore=False)
    assert with_restore["total"] <= without["total"]
    assert with_restore["violations_after"] == without["violations_after"] == 0


# ------------------------------------------------------------------ options
def test_strata_each_stratum_k_anonymous():
    rng = np.random.default_rng(1)
    n = 400
    df = pd.DataFrame({"a": rng.choice(list("abcd"), n), "b": rng.choice(list("pqrstu"), n),
                       "s": rng.choice(["n", "s"], n)})
    out, notes = local_suppression(df, ["a", "b"], k=3, strata="s")
    for _, g in out.groupby("s"):
        assert _violations(g, ["a", "b"], 3) == 0
    assert notes["violations_after"] == 0


def test_small_stratum_cannot_be_protected():
    df = pd.DataFrame({"a": list("xxxxyz"), "b": list("uuuuvw"), "s": ["A"] * 4 + ["B"] * 2})
    with pytest.warns(SdcWarning, match="cannot reach"):
        out, notes = local_suppression(df, ["a", "b"], k=3, strata="s")
    assert notes["unresolvable"] == 2
    assert notes["violations_after"] == 2
    assert out.loc[df.s == "B", ["a", "b"]].notna().all().all()  # nothing useless suppressed


def test_combinations_every_subset_k_anonymous():
    rng = np.random.default_rng(2)
    n = 300
    keys = ["a", "b", "c", "d"]
    df = pd.DataFrame({c: rng.choice(list("pqrstuvw")[: 4 + i], n) for i, c in enumerate(keys)})
    out, notes = local_suppression(df, keys, k=3, combinations=2)
    for pair in itertools.combinations(keys, 2):
        assert _violations(out, list(pair), 3) == 0, pair
    assert notes["violations_after"] == 0


def test_weighted_reaches_Fk():
    rng = np.random.default_rng(3)
    n = 200
    df = pd.DataFrame({"a": rng.choice(list("abcde"), n), "b": rng.choice(list("pqrstuv"), n),
                       "w": rng.uniform(0.5, 3.0, n)})
    out, notes = local_suppression(df, ["a", "b"], k=8, weight="w", weighted=True)
    assert _violations(out, ["a", "b"], 8, weight="w") == 0
    assert notes["violations_after"] == 0


def test_household_keys_suppressed_for_all_members():
    rng = np.random.default_rng(4)
    nh = 150
    size = rng.integers(1, 5, nh)
    hid = np.repeat(np.arange(nh), size)
    region = rng.choice(list("ABCDEFGH"), nh)[hid]
    df = pd.DataFrame({"hid": hid, "region": region,
                       "sex": rng.choice(["m", "f"], len(hid)),
                       "age": rng.choice([f"a{i}" for i in range(8)], len(hid))})
    keys = ["region", "sex", "age"]
    out, notes = local_suppression(df, keys, k=3, household="hid")
    assert _violations(out, keys, 3) == 0
    na = out["region"].isna().groupby(out["hid"]).agg(["min", "max"])
    assert (na["min"] == na["max"]).all()  # all or none of a household
    assert notes["household_added"] >= 0


# ------------------------------------------------------------------ treatment
def test_treatment_roundtrip_and_no_mutation(testdata):
    keys = reference()["testdata"]["keys"]
    t = LocalSuppression(k=3, importance=keys[::-1])
    assert Treatment.from_dict(t.to_dict()) == t
    roles = Roles(keys=tuple(keys))
    before = testdata.copy()
    t.check(testdata, roles)
    r = t.apply(testdata, roles, np.random.default_rng(0))
    pd.testing.assert_frame_equal(testdata, before)
    assert r.notes["violations_after"] == 0 and r.notes["total"] > 0
    assert _violations(r.data, keys, 3) == 0


@pytest.mark.parametrize("kwargs,err", [
    ({"k": 1}, ParameterError), ({"k": "3"}, ParameterError), ({"k": True}, ParameterError),
    ({"importance": ["a", "a"]}, ParameterError), ({"combinations": 0}, ParameterError),
    ({"weighted": "yes"}, ParameterError),
])
def test_bad_parameters(kwargs, err):
    with pytest.raises(err):
        LocalSuppression(**kwargs)


def test_bad_data_for_check():
    df = pd.DataFrame({"a": list("xxy"), "b": list("uuv")})
    roles = Roles(keys=("a", "b"))
    with pytest.raises(TreatmentError, match="importance"):
        LocalSuppression(importance=["a", "zz"]).check(df, roles)
    with pytest.raises(TreatmentError, match="strata"):
        LocalSuppression(strata=["region"]).check(df, roles)
    with pytest.raises(TreatmentError, match="weight"):
        LocalSuppression(weighted=True).check(df, roles)
    with pytest.raises(TreatmentError, match="household"):
        LocalSuppression(household=True).check(df, roles)
    with pytest.raises(TreatmentError, match="combinations"):
        LocalSuppression(combinations=3).check(df, roles)
    with pytest.raises(TreatmentError, match="unknown key"):
        local_suppression(df, ["a", "nope"], k=2)


# ------------------------------------------------------------------ suppress by risk
def test_suppress_by_risk_column(testdata):
    keys = reference()["testdata"]["keys"]
    r0 = individual_risk(testdata, keys)
    out, notes = suppress_by_risk(testdata, keys, threshold=0.2, column="relat")
    assert notes["above_before"] == int((r0 > 0.2).sum())
    assert notes["suppressed"]["relat"] == int((r0 > 0.2).sum())
    assert notes["total"] == notes["suppressed"]["relat"]
    r1 = individual_risk(out, keys)
    assert notes["above_after"] == int((r1 > 0.2).sum())
    assert notes["above_after"] < notes["above_before"]


@pytest.mark.parametrize("importance", [None, ["urbrur", "sex", "roof", "walls", "water",
                                               "electcon", "relat"]])
def test_suppress_by_risk_until_below(testdata, importance):
    keys = reference()["testdata"]["keys"]
    out, notes = suppress_by_risk(testdata, keys, threshold=0.01, importance=importance,
                                  weight="sampling_weight")
    r1 = individual_risk(out, keys, weight="sampling_weight")
    assert notes["above_after"] == int((r1 > 0.01).sum()) == 0
    assert notes["total"] > 0
    if importance is not None:  # the least important key is used first
        assert notes["suppressed"]["relat"] >= max(notes["suppressed"].values())
    _check_only_suppressed(testdata, out, keys)


def test_suppress_by_risk_bad_input():
    df = pd.DataFrame({"a": list("xxy"), "b": list("uuv")})
    with pytest.raises(ParameterError):
        SuppressByRisk(threshold=1.5)
    with pytest.raises(ParameterError):
        SuppressByRisk(column="a", importance=["a"])
    with pytest.raises(TreatmentError, match="not a key"):
        SuppressByRisk(column="zz").check(df, Roles(keys=("a", "b")))
    t = SuppressByRisk(threshold=0.4)
    assert Treatment.from_dict(t.to_dict()) == t
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = t.apply(df, Roles(keys=("a", "b")), np.random.default_rng(0))
    assert r.notes["above_after"] == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), big=st.booleans())
def test_counter_incremental_sync_matches_brute_force(seed, big):
    """The persistent counter, after value and weight changes + sync(), equals a brute-force count
    (missing = wildcard); ``big`` cardinalities exercise the non-incremental overflow path."""
    from sdcsession.methods._kanon_core import Counter

    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(1, 40)), int(rng.integers(1, 5))
    cards = rng.integers(1, 3_000_000, p) if big else rng.integers(1, 4, p)
    orig = np.column_stack([rng.integers(0, c, n) for c in cards]).astype(np.int64)
    X = orig.copy()
    X[rng.random(X.shape) < 0.2] = -1
    W = rng.integers(1, 3, (n, 2)).astype(float)
    cnt = Counter(X, W, np.arange(p), cards)
    for r in range(4):
        Q = X[rng.integers(0, n, 15)].copy()
        Q[rng.random(Q.shape) < 0.3] = -1
        brute = np.array([[W[((X < 0) | (q < 0) | (X == q)).all(axis=1), j].sum()
                           for j in range(2)] for q in Q])
        np.testing.assert_allclose(cnt.count(Q), brute)
        flip = rng.random(X.shape) < 0.15
        X[flip] = np.where(X[flip] < 0, orig[flip], -1)  # suppress or restore
        if r % 2:
            W = rng.integers(1, 3, (n, 2)).astype(float)
        cnt.sync(W if r % 2 else None)


def test_progress_bar_counts_records_found_safe(monkeypatch):
    import io
    import sys

    from sdcsession import progress

    monkeypatch.setattr(progress, "MIN_SECONDS", 0.0)
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.integers(0, 6, 300).astype(str),
                       "b": rng.integers(0, 6, 300).astype(str),
                       "c": rng.integers(0, 4, 300).astype(str)})
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    local_suppression(df, ["a", "b", "c"], k=3, progress=True)
    text = buf.getvalue()
    assert text.startswith("\rlocal suppression:") and "300/300" in text
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    local_suppression(df, ["a", "b", "c"], k=3, progress=False)
    assert buf.getvalue() == ""


def test_household_mode_prices_the_spread_of_household_level_keys():
    # suppressing region (household-level) would repair two violators at once but spreads to the
    # whole household; two age suppressions repair all four without spreading
    df = pd.DataFrame({"hid": [1, 1, 2, 2, 3, 3],
                       "region": list("AAAABB"),
                       "age": ["1", "2", "1", "3", "2", "3"]})
    out, notes = local_suppression(df, ["region", "age"], k=2, household="hid")
    assert notes["suppressed"] == {"region": 0, "age": 2}
    assert notes["household_added"] == 0 and notes["violations_after"] == 0
    # households of three: region would repair both violators (gain 2) but costs 3 suppressions
    # after spreading; one age suppression per violator costs 2
    df2 = pd.DataFrame({"hid": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
                        "region": list("AAAAAABBBBBB"),
                        "age": ["2", "1", "1", "1", "1", "1", "2", "1", "1", "1", "1", "1"]})
    out2, notes2 = local_suppression(df2, ["region", "age"], k=2, household="hid")
    assert notes2["suppressed"] == {"region": 0, "age": 2} and notes2["violations_after"] == 0
    # but a household-level suppression that repairs three violators at once is worth its spread
    df3 = pd.DataFrame({"hid": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6],
                        "region": list("AAAABBBBCCCC"),
                        "age": ["2", "1", "1", "1", "2", "1", "1", "1", "2", "1", "1", "1"]})
    out3, notes3 = local_suppression(df3, ["region", "age"], k=2, household="hid")
    assert notes3["suppressed"] == {"region": 2, "age": 0} and notes3["household_added"] == 1
    assert notes3["violations_after"] == 0
    # an explicit importance still rules: region least important -> suppressed, and spread
    out, notes = local_suppression(df, ["region", "age"], k=2, household="hid",
                                   importance=["age", "region"])
    assert notes["suppressed"]["age"] == 0 and notes["household_added"] > 0
    assert (out.groupby("hid")["region"].nunique(dropna=False) == 1).all()


def test_household_mode_gives_back_person_level_values_the_spread_made_unneeded():
    from sdcsession.datasets import synthetic_survey
    from sdcsession.risk import k_violations

    keys = ["region", "urbrur", "hhsize", "sex", "age5", "marstat"]
    df = synthetic_survey(200, seed=2)
    out, notes = local_suppression(df, keys, k=3, household="hid")
    assert notes["household_restored"] > 0
    assert k_violations(out, keys, 3) == 0 == notes["violations_after"]
    for c in ("region", "urbrur", "hhsize"):  # household-level keys stay consistent
        assert (out.groupby("hid")[c].nunique(dropna=False) == 1).all()
    # values are either suppressed or the originals
    changed = out[keys].isna() & df[keys].notna()
    assert int(changed.to_numpy().sum()) == notes["total"]
    for c in keys:
        kept = out[c].notna()
        assert (out.loc[kept, c].to_numpy() == df.loc[kept, c].to_numpy()).all()


def test_threaded_counting_equals_serial(monkeypatch):
    from sdcsession.methods import _kanon_core as core

    rng = np.random.default_rng(11)
    X = rng.integers(0, 6, size=(150_000, 5))
    X[rng.random(X.shape) < 0.05] = -1  # many missing patterns: the parallel branch is taken
    w = rng.uniform(0.5, 3.0, len(X))
    results = []
    for threads in ("1", "2"):
        monkeypatch.setenv("SDCSESSION_THREADS", threads)
        assert (core._pool() is None) == (threads == "1")
        c = core.Counter(X.copy(), np.column_stack([np.ones(len(X)), w]), range(5), [6] * 5)
        first = c.count(X)
        c.X[:10_000, 0] = -1  # a sync large enough for the parallel table updates
        c.sync()
        results.append((first, c.count(c.X)))
    assert np.array_equal(results[0][0], results[1][0])
    assert np.array_equal(results[0][1], results[1][1])
    # and both equal a direct count for a few records
    Xs = results[0][1]
    Xn = X.copy()
    Xn[:10_000, 0] = -1
    for i in (0, 1, 5_000, 149_999):
        comp = ((Xn == Xn[i]) | (Xn < 0) | (Xn[i] < 0)).all(axis=1)
        assert Xs[i, 0] == comp.sum() and Xs[i, 1] == pytest.approx(w[comp].sum(), rel=1e-12)


def test_importance_is_lexicographic_and_beats_sdcmicro_per_variable():
    # sdcMicro's kAnon with importance 1..7 on testdata: every variable gets at most as many
    # suppressions from us, and the three most important none at all
    ref = reference()["testdata"]
    r = ref["kanon_k3_importance"]
    keys = ref["keys"]
    df = load("testdata")
    df[keys] = df[keys].astype("category")
    imp = [keys[i] for i in np.argsort(r["importance"], kind="stable")]
    out, notes = local_suppression(df, keys, k=3, importance=imp)
    assert notes["violations_after"] == 0
    theirs = r["suppressed"]
    for c in keys:
        assert notes["suppressed"][c] <= theirs[c], c
    assert [notes["suppressed"][c] for c in imp[:3]] == [0, 0, 0]


def test_numeric_importance_is_sdcmicros_vector(testdata):
    """sdcMicro's importance vector (1 = most important, aligned with the keys) equals the same
    order given as names; a wrong length or a rank < 1 is refused."""
    r = reference()["testdata"]["kanon_k3_importance"]
    keys = reference()["testdata"]["keys"]
    vec = [int(v) for v in r["importance"]]
    named = [keys[i] for i in np.argsort(vec, kind="stable")]
    a, na = local_suppression(testdata, keys, k=3, importance=vec)
    b, nb = local_suppression(testdata, keys, k=3, importance=named)
    assert a.equals(b) and na["suppressed"] == nb["suppressed"] and na["total"] == 195
    assert LocalSuppression(k=3, importance=vec).importance == tuple(vec)
    with pytest.raises(TreatmentError, match="one rank per key"):
        local_suppression(testdata, keys, k=3, importance=vec[:-1])
    with pytest.raises(ParameterError, match="importance"):
        LocalSuppression(k=3, importance=[0, 1, 2])
