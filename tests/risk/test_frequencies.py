"""Frequencies fk / Fk: sdcMicro conformance, the wildcard rule for missing keys, bad input."""

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.errors import MeasureError, ParameterError, SdcWarning
from sdcsession.risk import frequencies

DATASETS = ["francdat", "testdata", "testdata_na", "free1", "eusilc"]


def brute_force(X: np.ndarray, w: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Reference rule, record by record: j compatible with i when equal where both observed;
    weight 1 when j is complete or has i's missing pattern, alpha otherwise."""
    M = np.isnan(X)
    n = len(X)
    fk = np.zeros(n)
    Fk = np.zeros(n)
    for i in range(n):
        comp = np.all((X == X[i]) | M | M[i], axis=1)
        same = (M == M[i]).all(axis=1) | ~M.any(axis=1)
        c = comp * np.where(same, 1.0, alpha)
        fk[i] = c.sum()
        Fk[i] = (c * w).sum()
    return fk, Fk


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("alpha", [1.0, 0.0])
def test_conformance_exact(name, alpha):
    ref = reference()[name]
    suffix = "" if alpha == 1.0 else "_alpha0"
    f = frequencies(load(name), ref["keys"], weight=ref["weight"], alpha=alpha)
    assert f["fk"].dtype == np.int64
    np.testing.assert_array_equal(f["fk"].to_numpy(), ref["risk"]["fk" + suffix])
    np.testing.assert_allclose(f["Fk"].to_numpy(), ref["risk"]["Fk" + suffix], rtol=1e-12)


def test_testdata_na_pins_missing_rule():
    """Record 2921 misses walls and water: records missing only walls count alpha, not 1."""
    ref = reference()["testdata_na"]
    df = load("testdata_na")
    assert df.loc[2921, ["walls", "water"]].isna().all()
    f0 = frequencies(df, ref["keys"], alpha=0)
    f1 = frequencies(df, ref["keys"], alpha=1)
    assert (f0.loc[2921, "fk"], f1.loc[2921, "fk"]) == (129, 132)


def test_keys_not_categorical_give_same_counts():
    ref = reference()["testdata_na"]
    plain = load("testdata_na", keys_as_category=False)
    a = frequencies(plain, ref["keys"], weight=ref["weight"], alpha=0.5)
    b = frequencies(load("testdata_na"), ref["keys"], weight=ref["weight"], alpha=0.5)
    pd.testing.assert_frame_equal(a, b)
    assert a["fk"].dtype == np.float64  # fractional alpha with missing keys


def test_small_hand_case():
    df = pd.DataFrame({"a": ["x", "x", None, "y", None],
                       "b": [1, 1, 1, None, None],
                       "w": [2.0, 3.0, 4.0, 5.0, 6.0]})
    f = frequencies(df, ["a", "b"], weight="w", alpha=0.5)
    # rec0 (x,1): itself, rec1 (complete) 1; rec2 (NA,1), rec4 (NA,NA) other patterns: alpha
    # rec2 (NA,1): rec0, rec1 complete 1, itself 1; rec3 (y,NA), rec4 other patterns: alpha
    # rec4 (NA,NA): complete rec0, rec1 and itself 1; rec2, rec3 alpha (fk = n only for alpha 1)
    assert f["fk"].tolist() == [3.0, 3.0, 4.0, 2.0, 4.0]
    assert f["Fk"].tolist() == [2 + 3 + 2 + 3, 2 + 3 + 2 + 3, 2 + 3 + 4 + 2.5 + 3, 5 + 2 + 3,
                                2 + 3 + 2 + 2.5 + 6]
    assert f.index.equals(df.index)


def test_all_missing_record_gets_n_and_sum_of_weights():
    df = pd.DataFrame({"a": ["x", "y", None, "x"], "b": ["u", "v", None, None],
                       "w": [1.0, 2.0, 3.0, 4.0]})
    f = frequencies(df, ["a", "b"], weight="w")
    assert f.loc[2, "fk"] == 4 and f.loc[2, "Fk"] == 10.0


def test_index_is_kept_and_unweighted_Fk_equals_fk():
    df = pd.DataFrame({"a": ["x", "x", "y"]}, index=[10, 5, 7])
    f = frequencies(df, "a")
    assert list(f.index) == [10, 5, 7]
    assert f["fk"].tolist() == [2, 2, 1] and f["Fk"].tolist() == [2.0, 2.0, 1.0]


def test_many_keys_large_radix_space():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({f"k{j}": rng.integers(0, 1000, 300) for j in range(8)})
    df.iloc[:150, 1:] = 0
    f = frequencies(df, list(df.columns))
    X = df.to_numpy()
    expect = [(X == X[i]).all(axis=1).sum() for i in range(len(X))]
    assert f["fk"].tolist() == expect


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(st.tuples(st.sampled_from([0.0, 1.0, 2.0, np.nan]),
                            st.sampled_from([0.0, 1.0, np.nan]),
                            st.sampled_from([5.0, 7.0, np.nan]),
                            st.floats(0.5, 20.0)),
                  min_size=1, max_size=40),
    alpha=st.sampled_from([0.0, 0.25, 1.0]),
)
def test_matches_brute_force_rule(data, alpha):
    arr = np.array(data, dtype=float)
    X, w = arr[:, :3], arr[:, 3]
    df = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2], "w": w})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        f = frequencies(df, ["a", "b", "c"], weight="w", alpha=alpha)
    fk, Fk = brute_force(X, w, alpha)
    np.testing.assert_allclose(f["fk"].to_numpy(dtype=float), fk, rtol=1e-12)
    np.testing.assert_allclose(f["Fk"].to_numpy(), Fk, rtol=1e-12)


def test_bad_input():
    df = pd.DataFrame({"a": ["x", "y"], "w": [1.0, 2.0], "s": ["p", "q"]})
    with pytest.raises(MeasureError, match="'nope'"):
        frequencies(df, ["a", "nope"])
    with pytest.raises(MeasureError, match="weight.*'zz'"):
        frequencies(df, ["a"], weight="zz")
    with pytest.raises(MeasureError, match="numeric"):
        frequencies(df, ["a"], weight="s")
    with pytest.raises(ParameterError, match="alpha"):
        frequencies(df, ["a"], alpha=1.5)
    with pytest.raises(ParameterError, match="alpha"):
        frequencies(df, ["a"], alpha=-0.1)
    with pytest.raises(ParameterError, match="keys"):
        frequencies(df, [])
    with pytest.raises(MeasureError, match="no records"):
        frequencies(df.iloc[:0], ["a"])
    bad_w = df.assign(w=[1.0, -2.0])
    with pytest.raises(MeasureError, match="negative"):
        frequencies(bad_w, ["a"], weight="w")
    with pytest.raises(MeasureError, match="missing"):
        frequencies(df.assign(w=[1.0, np.nan]), ["a"], weight="w")


def test_weights_below_fk_warn_naming_records():
    df = pd.DataFrame({"a": ["x", "x", "y"], "w": [0.5, 0.5, 3.0]}, index=["r1", "r2", "r3"])
    with pytest.warns(SdcWarning, match=r"2 record\(s\).*\['r1', 'r2'\]"):
        frequencies(df, "a", weight="w")


def test_expansion_path_is_bit_identical_to_the_union_path(monkeypatch):
    """The compiled pair sums and the expansion path (small radix space) give exactly the
    floats of the general union-by-union path, weighted or not, for every alpha (same additions
    in the same order)."""
    import importlib

    freq = importlib.import_module("sdcsession.risk.frequencies")
    rng = np.random.default_rng(11)
    used = 0
    for _ in range(300):
        n = int(rng.integers(1, 600))
        p = int(rng.integers(1, 5))
        cards = [int(rng.integers(1, 6)) for _ in range(p)]
        codes = np.stack([rng.integers(0, c, n) for c in cards], axis=1)
        for j in range(p):
            if rng.random() < 0.6:
                codes[rng.random(n) < rng.choice([0.01, 0.2, 0.7, 1.0]), j] = -1
        w = rng.lognormal(size=n) * 100 if rng.random() < 0.7 else None
        alpha = float(rng.choice([0.0, 0.3, 1.0]))
        fast = freq._frequencies_from_codes(codes, cards, w, alpha)
        with monkeypatch.context() as m:
            m.setattr(freq, "SCAN_RECORDS", 1)  # the one-pass kernel, on small data too
            one_pass = freq._frequencies_from_codes(codes, cards, w, alpha)
            m.setattr(freq, "_compiled", lambda *a: None)
            m.setattr(freq, "SCAN_RECORDS", 10**9)
            expanded = freq._frequencies_from_codes(codes, cards, w, alpha)
            m.setattr(freq, "_expanded", lambda *a: None)
            slow = freq._frequencies_from_codes(codes, cards, w, alpha)
        assert np.array_equal(expanded[0], slow[0]) and np.array_equal(expanded[1], slow[1])
        used += freq._expanded(codes, cards, w, alpha, *_union_args(freq, codes, alpha)) \
            is not None if (codes < 0).any() else 0
        assert np.array_equal(fast[0], slow[0]) and np.array_equal(fast[1], slow[1])
        assert np.array_equal(one_pass[0], slow[0]) and np.array_equal(one_pass[1], slow[1])
    assert used > 100  # the expansion path was exercised


def _union_args(freq, codes, alpha):
    bits = freq._pattern_bits(codes < 0)
    pats = [int(x) for x in np.flatnonzero(np.bincount(bits))]
    unions = {}
    for pi in pats:
        for q in pats:
            if alpha == 0.0 and q not in (0, pi):
                continue
            t = unions.setdefault(pi | q, [])
            if pi not in t:
                t.append(pi)
    return bits, pats, unions, {pi: np.flatnonzero(bits == pi) for pi in pats}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_pair_sums_bit_identical_on_a_larger_file(monkeypatch, seed):
    """Thousands of records, most complete and a few missing one or two keys: the compiled
    sums take their per-code, expansion and gathered-contributor branches, and still give the
    union path's floats exactly (fk and weighted Fk, alpha 1 and a fraction)."""
    import importlib

    freq = importlib.import_module("sdcsession.risk.frequencies")
    rng = np.random.default_rng(seed)
    n = 6000
    cards = [4, 3, 5, 2]
    codes = np.stack([rng.integers(0, c, n) for c in cards], axis=1).astype(np.int8)
    codes[rng.random(n) < 0.03, 1] = -1
    codes[rng.random(n) < 0.05, 2] = -1
    w = rng.lognormal(size=n) * 50
    for alpha in (1.0, 0.4):
        fast = freq._compiled(codes, cards, w, alpha, *_union_args(freq, codes, alpha))
        assert fast is not None
        one_pass = freq._frequencies_from_codes(codes, cards, w, alpha)  # 6000 records
        assert np.array_equal(fast[0], one_pass[0]) and np.array_equal(fast[1], one_pass[1])
        with monkeypatch.context() as m:
            m.setattr(freq, "_compiled", lambda *a: None)
            m.setattr(freq, "_expanded", lambda *a: None)
            slow = freq._frequencies_from_codes(codes, cards, w, alpha)
        assert np.array_equal(fast[0], slow[0]) and np.array_equal(fast[1], slow[1])


@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(-1, 3), st.integers(-1, 2), st.integers(0, 2),
                            st.integers(-1, 1), st.floats(0.1, 50.0)),
                  min_size=1, max_size=60),
    alpha=st.sampled_from([0.0, 0.3, 1.0]),
    weighted=st.booleans(),
)
def test_one_pass_kernel_bit_identical_to_union_path_and_brute_force(rows, alpha, weighted):
    """The one-pass compiled kernel (`sdcsession.risk._wildcard_scan`) gives the floats of the
    union-by-union path exactly (fk and weighted Fk, every alpha), and the brute-force rule."""
    import importlib

    freq = importlib.import_module("sdcsession.risk.frequencies")
    scan = importlib.import_module("sdcsession.risk._wildcard_scan")
    arr = np.array(rows, dtype=float)
    codes = arr[:, :4].astype(np.int8)
    cards = [4, 3, 3, 2]
    w = arr[:, 4] if weighted else None
    missing = [int(k) for k in np.flatnonzero(codes.min(axis=0) < 0)]
    import unittest.mock as mock

    with mock.patch.object(freq, "SCAN_RECORDS", 1):
        fast = freq._frequencies_from_codes(codes, cards, w, alpha)
    if missing:  # the data took the one-pass kernel
        assert scan.scanned(codes, cards, w, alpha, missing, int(np.prod(cards))) is not None

    with mock.patch.object(scan, "scanned", lambda *a: None), \
            mock.patch.object(freq, "_compiled", lambda *a: None), \
            mock.patch.object(freq, "_expanded", lambda *a: None):
        slow = freq._frequencies_from_codes(codes, cards, w, alpha)
    assert np.array_equal(fast[0], slow[0]) and np.array_equal(fast[1], slow[1])
    X = np.where(codes < 0, np.nan, codes.astype(float))
    fk, Fk = brute_force(X, arr[:, 4] if weighted else np.ones(len(X)), alpha)
    np.testing.assert_allclose(fast[0], fk, rtol=1e-12)
    np.testing.assert_allclose(fast[1], Fk, rtol=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
def test_one_pass_kernel_on_a_larger_file_with_nested_patterns(seed):
    """Thousands of records missing one, the other or both of two keys (nested patterns and
    unions that are no pattern's own): the one-pass kernel equals the pair-by-pair kernel bit
    for bit, weighted, for alpha 1 and a fraction."""
    import importlib

    freq = importlib.import_module("sdcsession.risk.frequencies")
    scan = importlib.import_module("sdcsession.risk._wildcard_scan")
    rng = np.random.default_rng(seed)
    n = 8000
    cards = [6, 2, 5, 4, 3]
    codes = np.stack([rng.integers(0, c, n) for c in cards], axis=1).astype(np.int8)
    codes[rng.random(n) < 0.04, 2] = -1
    codes[rng.random(n) < 0.07, 3] = -1
    w = rng.lognormal(size=n) * 40
    for alpha in (1.0, 0.35):
        fast = scan.scanned(codes, cards, w, alpha, [2, 3], int(np.prod(cards)))
        assert fast is not None
        bits = freq._pattern_bits(codes < 0)
        pats = [int(x) for x in np.flatnonzero(np.bincount(bits))]
        assert pats == [0, 4, 8, 12]
        slow = freq._compiled(codes, cards, w, alpha, *_union_args(freq, codes, alpha)[:3], None)
        assert np.array_equal(fast[0], slow[0]) and np.array_equal(fast[1], slow[1])
