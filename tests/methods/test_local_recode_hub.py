"""Many keys: the hub-trie engine of local recoding (and its cap on values lost per record)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_suppression_cluster import _census  # the same census-like file as the clustering

import sdcsession as sdc
from sdcsession.errors import ParameterError
from sdcsession.methods.base import Treatment
from sdcsession.methods.recoding.local_recoding import LocalRecode, local_recode
from sdcsession.methods.suppression._hub_trie import default_cap, hub_trie
from sdcsession.risk import k_violations


def _frame(X: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({f"c{j}": pd.Series([None if v < 0 else int(v) for v in X[:, j]],
                                            dtype=object) for j in range(X.shape[1])})


def _released(X: np.ndarray, M: np.ndarray) -> pd.DataFrame:
    return _frame(np.where(M, -1, X))


def test_pure_hub_one_value():
    """(0,0), (0,1), (0,2), k = 2, cap 1: the root varies on c1 only; its hub (the first sorted
    record) blanks c1: cost (k - 1) x 1 = 1, cheaper than the children (3 lone leaves)."""
    X = np.array([[0, 0], [0, 1], [0, 2]])
    r = hub_trie(X, 2, 1)
    assert r.mask.astype(int).tolist() == [[0, 1], [0, 0], [0, 0]]
    assert not r.fallback.any() and r.changed == 1
    assert k_violations(_released(X, r.mask), ["c0", "c1"], 2) == 0


def test_split_node_when_lone_record_needs_the_root():
    """(0,0), (0,1), (0,2), (1,0), k = 2, cap 1. Node c0=0 alone costs 1, but (1,0) is in no
    node of 2 records except the root, which varies on 2 keys > cap: the root is split (2 <=
    2 cap, m = 4 >= 2k - 2): the hub (first record) blanks c0, the 3 others blank c1; cost
    1 + 3 = 4 and no record left to the fallback (the programme first minimises those)."""
    X = np.array([[0, 0], [0, 1], [0, 2], [1, 0]])
    r = hub_trie(X, 2, 1)
    assert r.mask.astype(int).tolist() == [[1, 0], [0, 1], [0, 1], [0, 1]]
    assert not r.fallback.any()
    assert k_violations(_released(X, r.mask), ["c0", "c1"], 2) == 0


def test_safe_leaf_costs_nothing_and_split_with_k3():
    """3 x (0,0) + (1,1), k = 3, cap 1: the leaf (0,0) is safe, (1,1) needs the root (2 varying
    keys); split: the 2 hubs (first sorted records) blank c0, the 2 others blank c1."""
    X = np.array([[1, 1], [0, 0], [0, 0], [0, 0]])
    r = hub_trie(X, 3, 1)
    # sorted order: rows 1, 2, 3 (0,0) then row 0 (1,1); hubs = rows 1 and 2
    assert r.mask.astype(int).tolist() == [[0, 1], [1, 0], [1, 0], [0, 1]]
    assert k_violations(_released(X, r.mask), ["c0", "c1"], 3) == 0


def test_cheaper_children_win():
    """(0,0,0), (0,0,1), (1,1,0), (1,1,1), k = 2: the root's hub costs (k - 1) x 3 = 3, its
    two children (each varying on c2) 1 + 1 = 2: each child's first record blanks c2. With a
    cap of 1 the root (3 > 2 cap varying keys) is not even allowed: same answer."""
    X = np.array([[0, 0, 0], [0, 0, 1], [1, 1, 0], [1, 1, 1]])
    for cap in (1, 3):
        r = hub_trie(X, 2, cap)
        assert r.mask.astype(int).tolist() == [[0, 0, 1], [0, 0, 0], [0, 0, 1], [0, 0, 0]]
        assert k_violations(_released(X, r.mask), ["c0", "c1", "c2"], 2) == 0


def test_fallback_record_blanks_itself():
    """3 x (0,0,0) + (1,1,1), k = 3, cap 1: the root varies on 3 > 2 cap keys, so (1,1,1)
    has no capped solution: it blanks itself where it differs from its window of 3 records
    (all 3 keys), the documented fallback; the leaf stays as it is."""
    X = np.array([[0, 0, 0]] * 3 + [[1, 1, 1]])
    r = hub_trie(X, 3, 1)
    assert r.mask.astype(int).tolist() == [[0, 0, 0]] * 3 + [[1, 1, 1]]
    assert r.fallback.tolist() == [False, False, False, True]
    df = _frame(X)
    out, notes = local_recode(df, list(df.columns), k=3, engine="hub_trie",
                              max_suppressed_per_record=1)
    assert notes["fallback_records"] == 1 and sum(notes["suppressed"].values()) == 3
    assert k_violations(out, list(df.columns), 3) == 0


def test_missing_values_are_not_counted_as_suppressed():
    """Missing values stay missing, are never counted as suppressed; wildcard counts reach k."""
    X = np.array([[0, -1], [0, 1], [0, 2], [1, 0], [1, 0]])
    r = hub_trie(X, 2, 1)
    assert not (r.mask & (X < 0)).any()
    assert k_violations(_released(X, r.mask), ["c0", "c1"], 2) == 0


def test_default_cap():
    assert default_cap(15) == 7 and default_cap(1) == 1 and default_cap(2) == 1


@st.composite
def _files(draw):
    p = draw(st.integers(1, 6))
    n = draw(st.integers(4, 40))
    k = draw(st.integers(2, 4))
    cards = [draw(st.integers(1, 4)) for _ in range(p)]
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, c, n) for c in cards])
    X[rng.random((n, p)) < draw(st.sampled_from([0.0, 0.1]))] = -1
    cap = draw(st.one_of(st.none(), st.integers(1, p)))
    return X, k, cap


@settings(max_examples=50, deadline=None)
@given(_files())
def test_property_k_anonymous_capped_and_only_keys_change(case):
    X, k, cap = case
    n, p = X.shape
    df = _frame(X)
    df["other"] = np.arange(n)
    keys = [f"c{j}" for j in range(p)]
    before = df.copy()
    out, notes = local_recode(df, keys, k=k, engine="hub_trie", max_suppressed_per_record=cap)
    pd.testing.assert_frame_equal(df, before)  # the original is never mutated
    assert k_violations(out, keys, k) == 0
    pd.testing.assert_series_equal(out["other"], df["other"])
    blanked = out[keys].isna() & df[keys].notna()
    assert ((out[keys] == df[keys]) | out[keys].isna()).all().all()  # values kept or blanked
    assert sum(notes["suppressed"].values()) == int(blanked.to_numpy().sum())
    c = default_cap(p) if cap is None else cap
    # only the documented fallback records exceed the cap
    assert int((blanked.sum(axis=1) > c).sum()) <= notes["fallback_records"]
    r = hub_trie(X, k, c)  # the kernel on the codes as given
    assert not ((r.mask.sum(1) > c) & ~r.fallback).any()
    assert not (r.mask & (X < 0)).any()
    assert k_violations(_released(X, r.mask), keys, k) == 0


def _many(n=240, p=13, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({f"v{j}": rng.integers(0, 2 + j % 5, n).astype(str) for j in range(p)})


def test_auto_engine_threshold():
    df = _many(p=12)
    keys = list(df.columns)
    out, notes = local_recode(df, keys, k=3)
    assert notes["engine"] == "hub_trie" and notes["max_suppressed_per_record"] == 6
    assert k_violations(out, keys, 3) == 0
    _, few = local_recode(df, keys[:4], k=3)
    assert "engine" not in few  # few keys: the progression, as before
    small = df.head(12)  # the progression is slow with many keys
    _, anc = local_recode(small.assign(up="x"), keys, k=3, ancestors={"v0": ["up"]})
    assert "engine" not in anc
    _, a = local_recode(small, keys, k=3, alpha=0.5)
    assert "engine" not in a


def test_session_path_replay_and_recipe():
    df = _many()
    df.loc[df.index[::11], "v3"] = None
    s = sdc.SdcSession(df, keys=list(df.columns), seed=1)
    s.local_recode(k=3, max_suppressed_per_record=5)
    t = s.history[-1].treatment
    assert t.engine == "auto" and t.max_suppressed_per_record == 5
    assert s.risk.k_violations(3) == 0
    recipe = s.to_recipe()
    again = sdc.SdcSession.from_recipe(df, recipe)
    pd.testing.assert_frame_equal(again.data, s.data)
    step = LocalRecode(list(df.columns), k=3, engine="hub_trie", max_suppressed_per_record=4)
    assert Treatment.from_dict(step.to_dict()) == step
    assert step.to_dict()["max_suppressed_per_record"] == 4
    s.undo()
    pd.testing.assert_frame_equal(s.data, s.original)


@pytest.mark.parametrize("params", [
    {"engine": "fast"}, {"engine": 1}, {"max_suppressed_per_record": 0},
    {"max_suppressed_per_record": 4}, {"max_suppressed_per_record": True},
    {"max_suppressed_per_record": 2.0}, {"max_suppressed_per_record": "2"},
    {"engine": "hub_trie", "ancestors": {"a": ["up"]}},
    {"engine": "hub_trie", "alpha": 0.5},
])
def test_bad_parameters(params):
    df = pd.DataFrame({"a": list("xxyy"), "b": list("1212"), "c": list("1111"), "up": "u"})
    name = "engine" if "engine" in params else "max_suppressed_per_record"
    with pytest.raises(ParameterError, match=name):
        local_recode(df, ["a", "b", "c"], k=2, **params)
    with pytest.raises(ParameterError, match=name):
        LocalRecode(["a", "b", "c"], k=2, **params)
    if "alpha" not in params and "ancestors" not in params:
        s = sdc.SdcSession(df, keys=["a", "b", "c"], seed=1)
        depth = len(s.history)
        with pytest.raises(ParameterError, match=name):
            s.local_recode(k=2, **params)
        assert len(s.history) == depth


# ----------------------------------------------------------------- local suppression, many keys
@pytest.fixture
def hub_only(monkeypatch):
    from sdcsession.methods.suppression import _core

    monkeypatch.setattr(_core, "BOTH_ROWS", 0)


def test_suppression_hub_fewer_than_clustering(hub_only):
    """The census file of the clustering's test (1,500 x 14 keys, k = 3): hub trie +
    restoration 4,401 suppressions against the clustering's 6,794 and the rounds' 9,580 (both
    recorded in test_suppression_cluster.py);
    nobody loses more than the cap of 7 (no fallback record on this file)."""
    from sdcsession.methods.suppression.local import local_suppression

    cards = [2, 3, 4, 5, 2, 3, 5, 4, 10, 15, 20, 30, 50, 70]
    keys = [f"k{j}" for j in range(len(cards))]
    df = _census(1500, cards, 1)
    out, notes = local_suppression(df, keys, k=3, progress=False)
    assert notes["total"] == 4401 and notes["violations_after"] == 0
    assert k_violations(out, keys, 3) == 0
    lost = (out[keys].isna() & df[keys].notna()).sum(axis=1)
    assert lost.max() <= 7
    assert notes["fallback_records"] == 0
    out4, n4 = local_suppression(df, keys, k=3, progress=False, max_suppressed_per_record=4)
    over = int(((out4[keys].isna() & df[keys].notna()).sum(axis=1) > 4).sum())
    assert 0 < over <= n4["fallback_records"]  # only the documented fallback exceeds 4
    assert k_violations(out4, keys, 3) == 0


def test_suppression_hub_options_and_session(hub_only):
    cards = [2, 3, 4, 2, 3, 5, 10, 15, 20, 30, 6, 8]
    keys = [f"k{j}" for j in range(len(cards))]
    df = _census(600, cards, 3)
    df["region"] = np.repeat(["a", "b", "c"], 200)
    df["hid"] = np.arange(600) // 3
    df["k0"] = df.groupby("hid")["k0"].transform("first")  # a household-level key
    s = sdc.SdcSession(df, keys=keys, strata=["region"], household="hid", seed=1)
    s.local_suppression(k=3, household=True, max_suppressed_per_record=5)
    assert s.history[-1].treatment.max_suppressed_per_record == 5
    assert s.risk.k_violations(3) == 0
    again = sdc.SdcSession.from_recipe(df, s.to_recipe())
    pd.testing.assert_frame_equal(again.data, s.data)
    imp = keys[::-1]  # k11 most important ... k0 least
    s2 = sdc.SdcSession(df, keys=keys, seed=1)
    s2.local_suppression(k=3, importance=imp)
    assert s2.risk.k_violations(3) == 0
    with pytest.raises(ParameterError, match="max_suppressed_per_record"):
        s2.local_suppression(k=3, max_suppressed_per_record=0)
    with pytest.raises(ParameterError, match="max_suppressed_per_record"):
        s2.local_suppression(k=3, max_suppressed_per_record=13)
    with pytest.raises(ParameterError, match="max_suppressed_per_record"):
        s2.local_suppression(k=3, max_suppressed_per_record=True)
