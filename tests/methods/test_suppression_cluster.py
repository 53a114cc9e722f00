"""Local suppression with many keys by clustering sorted records (`_cluster.cluster_suppress`).

Beyond 11 keys (unit weights) `local_suppression` cuts the sorted records into groups of k to
2k - 1 and suppresses, per group and key, the values other than the mode. These tests check
the partition on hand-computed cases, k-anonymity with the frequency counts of
`sdcsession.risk.frequencies` (missing values as wildcards, as sdcMicro counts them), that the
result never suppresses more than the suppression rounds (the old heuristic, still callable by
raising ``_core.CLUSTER_KEYS``), and the options (importance, strata, household).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.methods.suppression import _core
from sdcsession.methods.suppression._cluster import cluster_suppress
from sdcsession.methods.suppression.local import local_suppression
from sdcsession.risk import frequencies


def _census(n: int, cards: list[int], seed: int) -> pd.DataFrame:
    """Correlated, skewed categorical keys (a latent profile shifts each key's distribution)."""
    rng = np.random.default_rng(seed)
    prof = rng.integers(0, 50, n)
    cols = {}
    for j, c in enumerate(cards):
        p = 1.0 / np.arange(1, c + 1) ** 1.1
        base = rng.choice(c, size=n, p=p / p.sum())
        shift = rng.integers(0, c, 50)
        cols[f"k{j}"] = pd.Categorical(np.where(rng.random(n) < 0.7, (base + shift[prof]) % c,
                                                base))
    return pd.DataFrame(cols)


def _k_anonymous(out: pd.DataFrame, keys: list[str], k: int) -> bool:
    """fk >= k for every record with at least one observed key (sdcMicro's wildcard counts)."""
    fk = frequencies(out, keys)["fk"].to_numpy()
    some = out[keys].notna().any(axis=1).to_numpy()
    return bool((fk[some] >= k).all())


def _rounds(df, keys, **kw):
    """The suppression rounds (the heuristic used before the clustering)."""
    old = _core.CLUSTER_KEYS
    _core.CLUSTER_KEYS = 99
    try:
        return local_suppression(df, keys, progress=False, **kw)
    finally:
        _core.CLUSTER_KEYS = old


@pytest.fixture
def cluster_only(monkeypatch):
    """The clustering alone (no comparison with the rounds on small files; the clustering,
    not the hub trie that is the default many-keys engine)."""
    from sdcsession.methods.suppression import _cluster

    monkeypatch.setattr(_core, "BOTH_ROWS", 0)
    monkeypatch.setattr(_cluster, "MANY_KEYS_ENGINE", "cluster")


def test_hand_case_partition():
    # sorted on keys (0, 1, 2): groups {0, 1} (differ on key 2) and {2, 3} (differ on key 0),
    # cost 2; the mode ties go to the first row's value
    X = np.array([[0, 0, 1], [0, 0, 2], [0, 1, 1], [1, 1, 1]])
    r, c = cluster_suppress(X, np.arange(3), np.array([2, 2, 3]), 2)
    assert list(zip(r.tolist(), c.tolist())) == [(1, 2), (3, 0)]
    # k = 3 on 5 rows: one group of 5 (no cut leaves two groups of >= 3); per key the values
    # other than the mode: key 0 (0,0,0,1,1) -> 2, key 1 (0,0,1,1,1) -> 2, key 2 -> 0
    X = np.array([[0, 0, 5], [0, 0, 5], [0, 1, 5], [1, 1, 5], [1, 1, 5]])
    r, c = cluster_suppress(X, np.arange(3), np.array([2, 2, 6]), 3)
    assert list(zip(r.tolist(), c.tolist())) == [(0, 1), (1, 1), (3, 0), (4, 0)]


def test_missing_values_are_wildcards_and_never_suppressed():
    # row 1 is missing key 1: it matches row 0 there, so the group {0, 1} costs nothing
    X = np.array([[0, 0], [0, -1], [1, 1], [1, 2]])
    r, c = cluster_suppress(X, np.arange(2), np.array([2, 3]), 2)
    assert list(zip(r.tolist(), c.tolist())) == [(3, 1)]


def test_importance_moves_suppressions_to_less_important_keys():
    # four rows, k = 2: pairing on key 0 or on key 1 costs the same (2 suppressions); the
    # sort puts the most important key first, so its values are the ones kept
    X = np.array([[0, 0], [1, 0], [0, 1], [1, 1]])
    r, c = cluster_suppress(X, np.arange(2), np.array([2, 2]), 2)
    # without importance: sorted on key 0 first, groups {0, 2} and {1, 3} differ on key 1
    assert sorted(c.tolist()) == [1, 1]
    r, c = cluster_suppress(X, np.arange(2), np.array([2, 2]), 2, rank=np.array([1, 0]))
    # key 1 most important (rank 0): groups {0, 1} and {2, 3} differ on key 0
    assert sorted(c.tolist()) == [0, 0]


@settings(max_examples=4, deadline=None)  # each example runs the slow rounds too
@given(n=st.integers(8, 100), p=st.integers(12, 15), k=st.integers(2, 4),
       seed=st.integers(0, 2**31 - 1), miss=st.booleans())
def test_k_anonymous_and_never_more_than_the_rounds(n, p, k, seed, miss):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"k{j}": rng.integers(0, int(rng.integers(2, 12)), n).astype(float)
                       for j in range(p)})
    if miss:
        df = df.mask(rng.random(df.shape) < 0.05)
    keys = list(df.columns)
    out, notes = local_suppression(df, keys, k=k, progress=False)
    assert notes["violations_after"] == 0
    assert _k_anonymous(out, keys, k)
    assert not (df.isna() & out.notna()).to_numpy().any()
    same = out.notna().to_numpy()
    assert np.array_equal(out.to_numpy()[same], df.to_numpy()[same])
    _, old = _rounds(df, keys, k=k)
    assert notes["total"] <= old["total"]


@settings(max_examples=10, deadline=None)
@given(n=st.integers(3, 200), p=st.integers(12, 14), k=st.integers(2, 5),
       seed=st.integers(0, 2**31 - 1))
def test_clustering_alone_is_k_anonymous(n, p, k, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"k{j}": rng.integers(0, int(rng.integers(2, 30)), n).astype(float)
                       for j in range(p)}).mask(rng.random((n, p)) < 0.1)
    keys = list(df.columns)
    old = _core.BOTH_ROWS
    _core.BOTH_ROWS = 0
    try:
        out, notes = local_suppression(df, keys, k=k, progress=False)
    finally:
        _core.BOTH_ROWS = old
    if n < k:
        assert notes["unresolvable"] == n and notes["total"] == 0
        return
    assert notes["violations_after"] == 0
    assert _k_anonymous(out, keys, k)


def test_fewer_suppressions_than_the_rounds_on_census_files(cluster_only):
    cards = [2, 3, 4, 5, 2, 3, 5, 4, 10, 15, 20, 30, 50, 70]
    keys = [f"k{j}" for j in range(len(cards))]
    df = _census(1500, cards, 1)
    out, new = local_suppression(df, keys, k=3, progress=False)
    _, old = _rounds(df, keys, k=3)
    assert _k_anonymous(out, keys, 3)
    # recorded figures (clustering + restoration, rounds)
    assert (new["total"], old["total"]) == (6794, 9580)
    assert new["total"] < old["total"]


def test_options_strata_household_importance(cluster_only):
    cards = [2, 3, 4, 2, 3, 5, 10, 15, 20, 30, 6, 8]
    keys = [f"k{j}" for j in range(len(cards))]
    df = _census(600, cards, 3)
    df["region"] = np.repeat(["a", "b", "c"], 200)
    df["hid"] = np.arange(600) // 3
    df["k0"] = df.groupby("hid")["k0"].transform("first")  # a household-level key
    out, notes = local_suppression(df, keys, k=3, strata="region", progress=False)
    assert notes["violations_after"] == 0
    for _, part in out.groupby(df["region"]):
        assert _k_anonymous(part, keys, 3)
    out, notes = local_suppression(df, keys, k=3, household="hid", household_keys=["k0"],
                                   progress=False)
    assert notes["violations_after"] == 0 and _k_anonymous(out, keys, 3)
    sup = out["k0"].isna().groupby(df["hid"]).agg(["min", "max"])
    assert (sup["min"] == sup["max"]).all()  # household-level: all members or none
    # importance: the most important keys lose fewer values than without it
    imp = keys[::-1]  # k11 most important ... k0 least
    out_i, _ = local_suppression(df, keys, k=3, importance=imp, progress=False)
    out_n, _ = local_suppression(df, keys, k=3, progress=False)
    assert _k_anonymous(out_i, keys, 3)
    top = ["k11", "k10", "k9"]
    assert out_i[top].isna().to_numpy().sum() < out_n[top].isna().to_numpy().sum()
