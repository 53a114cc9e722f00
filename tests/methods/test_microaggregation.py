"""Microaggregation: MDAV conformance with sdcMicro, group sizes, univariate methods, bad input."""

import io
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession import progress
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.base import Treatment
from sdcsession.methods.microaggregation import (
    Microaggregation,
    _mdav_small,
    mdav_groups,
    microaggregation,
    optimal_univariate_groups,
    ranking_groups,
    within_group_ss,
)

RNG = np.random.default_rng(0)


def _std(x: np.ndarray) -> np.ndarray:
    return (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)


@pytest.mark.parametrize("ds,key", [("testdata", "mdav_k3"), ("casc", "mdav_k3"),
                                    ("casc", "mdav_k5")])
def test_mdav_sse_not_worse_than_sdcmicro(ds, key):
    r = reference()[ds][key]
    df = load(ds, keys_as_category=False)
    out, notes = microaggregation(df, r["vars"], k=r["k"])
    # sst pins the standardisation: R's scale() (ddof = 1): sst = (n − 1)·p
    assert notes["sst_std"] == pytest.approx(r["sst_std"], rel=1e-9)
    # ours must be at most sdcMicro's (it is equal: same MDAV)
    assert notes["sse_std"] <= r["sse_std"] * (1 + 1e-9)
    assert notes["sse_std"] == pytest.approx(r["sse_std"], rel=1e-9)
    assert notes["n_groups"] == r["n_groups_income"]
    # the SSE computed independently from the released data (groups = identical rows)
    z = _std(df[r["vars"]].to_numpy(float))
    lab = out.groupby(r["vars"]).ngroup().to_numpy()
    assert within_group_ss(z, lab) == pytest.approx(r["sse_std"], rel=1e-9)


def _partition(lab: np.ndarray) -> set:
    return {tuple(np.flatnonzero(lab == g)) for g in np.unique(lab)}


def test_compiled_mdav_equals_plain_mdav():
    x = np.exp(RNG.multivariate_normal([0, 0, 0], [[1, .5, .2], [.5, 1, .3], [.2, .3, 1]], 6000))
    z = _std(x)
    plain = _mdav_small(z, 3)
    assert np.array_equal(mdav_groups(z, 3), plain)  # same groups, numbered alike


def _naive_mdav(z: np.ndarray, k: int) -> np.ndarray:
    """Textbook MDAV, one record at a time (ties: first record in the original order)."""
    rem = list(range(len(z)))
    lab = np.full(len(z), -1)
    g = 0

    def d2(i: int, q: np.ndarray) -> float:
        return float(((z[i] - q) ** 2).sum())

    def group(q: np.ndarray) -> None:
        nonlocal g
        near = sorted(rem, key=lambda i: (d2(i, q), i))[:k]
        for i in near:
            lab[i] = g
            rem.remove(i)
        g += 1

    while len(rem) >= 3 * k:
        c = z[rem].mean(axis=0)
        r = max(rem, key=lambda i: (d2(i, c), -i))
        s = max(rem, key=lambda i: (d2(i, z[r]), -i))
        xr = z[r].copy()
        group(xr)
        if s not in rem:  # s fell into r's group (ties): the farthest remaining one
            s = max(rem, key=lambda i: (d2(i, xr), -i))
        group(z[s].copy())
    if len(rem) >= 2 * k:
        c = z[rem].mean(axis=0)
        group(z[max(rem, key=lambda i: (d2(i, c), -i))].copy())
    lab[rem] = g
    return lab


@settings(max_examples=30, deadline=None)
@given(n=st.integers(6, 80), k=st.integers(2, 4), seed=st.integers(0, 999))
def test_scan_equals_textbook_mdav_with_ties(n, k, seed):
    # integer coordinates: many exactly equal distances; the scan resolves them as the textbook
    # version (first record in the original order)
    z = np.random.default_rng(seed).integers(0, 5, size=(n, 2)).astype(float)
    assert _partition(mdav_groups(z, k)) == _partition(_naive_mdav(z, k))


@settings(max_examples=15, deadline=None)
@given(n=st.integers(30, 400), k=st.integers(2, 4), seed=st.integers(0, 999))
def test_plain_scan_mdav_equals_textbook_mdav_with_ties(n, k, seed):
    # the plain scans (the reference of the compiled tree) resolve exactly equal distances as the
    # textbook version too (integer coordinates: sums and distances are exact)
    z = np.random.default_rng(seed).integers(0, 4, size=(n, 3)).astype(float)
    assert _partition(_mdav_small(z, k)) == _partition(_naive_mdav(z, k))


def test_mdav_progress_bar(monkeypatch):
    monkeypatch.setattr(progress, "MIN_SECONDS", 0.0)
    z = _std(RNG.normal(size=(600, 2)))
    df = pd.DataFrame(z, columns=["a", "b"])
    for call in (lambda p: mdav_groups(z, 3, progress=p),
                 lambda p: microaggregation(df, ["a", "b"], k=3, progress=p)):
        buf = io.StringIO()
        monkeypatch.setattr(sys, "stderr", buf)
        call(True)
        assert buf.getvalue().startswith("\rMDAV:") and "600/600" in buf.getvalue()
        buf = io.StringIO()
        monkeypatch.setattr(sys, "stderr", buf)
        call(False)
        assert buf.getvalue() == ""


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 60), k=st.integers(2, 6), p=st.integers(1, 3), seed=st.integers(0, 99))
def test_mdav_group_sizes(n, k, p, seed):
    z = np.random.default_rng(seed).normal(size=(n, p)).round(1)  # ties included
    lab = mdav_groups(z, k)
    sizes = np.bincount(lab)
    if n < 2 * k:
        assert sizes.tolist() == [n]
    else:
        assert sizes.min() >= k and sizes.max() <= 2 * k - 1


def test_large_index_group_sizes_with_ties():
    z = RNG.integers(0, 4, size=(3000, 2)).astype(float)  # massive ties
    sizes = np.bincount(mdav_groups(z, 4))
    assert sizes.min() >= 4 and sizes.max() <= 7 and sizes.sum() == 3000


def test_hand_computed_mdav():
    df = pd.DataFrame({"x": [1.0, 2, 3, 10, 11, 12, 30, 31, 33]})
    out, notes = microaggregation(df, ["x"], k=3)
    assert out["x"].tolist() == [2.0] * 3 + [11.0] * 3 + [94 / 3] * 3
    assert notes["group_sizes"] == {"3": 3}
    out, _ = microaggregation(df, ["x"], k=3, aggregate="median")
    assert out["x"].tolist() == [2.0] * 3 + [11.0] * 3 + [31.0] * 3


def test_means_preserved_and_input_untouched():
    df = pd.DataFrame(RNG.normal(size=(500, 3)), columns=["a", "b", "c"])
    before = df.copy()
    out, _ = microaggregation(df, ["a", "b"], k=4)
    pd.testing.assert_frame_equal(df, before)
    assert np.allclose(out[["a", "b"]].mean(), df[["a", "b"]].mean())
    assert out["c"].equals(df["c"])


def test_individual_ranking_and_single():
    df = pd.DataFrame({"a": [5.0, 1, 4, 2, 3, 6, 7], "b": [1.0, 2, 3, 4, 5, 6, 7]})
    out, notes = microaggregation(df, ["a", "b"], k=3, method="individual_ranking")
    # a sorted: 1 2 3 | 4 5 6 7 -> 2, 5.5
    assert out["a"].tolist() == [5.5, 2, 5.5, 2, 2, 5.5, 5.5]
    assert out["b"].tolist() == [2.0, 2, 2, 5.5, 5.5, 5.5, 5.5]
    assert notes["n_groups"] == {"a": 2, "b": 2}
    out, _ = microaggregation(df, ["a", "b"], k=3, method="single", sort_by="b")
    # groups b = 1..4 | 5..7: within-group SS 5.5 (standardised) against 7.0 for sdcMicro's
    # 1..3 | 4..7 (the group with the extra record goes where it costs least)
    assert out["a"].tolist() == [3.0] * 4 + [16 / 3] * 3


def _brute_optimal(v, k):
    """Exhaustive optimum over contiguous partitions with sizes k..2k−1."""
    v = np.sort(v)
    n = len(v)
    best = {0: 0.0}
    for j in range(1, n + 1):
        c = [best[j - s] + ((v[j - s:j] - v[j - s:j].mean()) ** 2).sum()
             for s in range(k, 2 * k) if j - s in best]
        if c:
            best[j] = min(c)
    return best[n]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 40), k=st.integers(2, 4), seed=st.integers(0, 999))
def test_optimal_univariate_is_optimal(n, k, seed):
    v = np.random.default_rng(seed).exponential(size=n)
    lab = optimal_univariate_groups(v, k)
    sizes = np.bincount(lab)
    if n >= 2 * k:
        assert sizes.min() >= k and sizes.max() <= 2 * k - 1
        assert within_group_ss(v, lab) == pytest.approx(_brute_optimal(v, k), rel=1e-9, abs=1e-12)
        # never worse than plain ranking
        assert within_group_ss(v, lab) <= within_group_ss(v, ranking_groups(v, k)) + 1e-12


def test_optimal_univariate_hand_case():
    v = np.array([1.0, 2.0, 3.0, 10.0, 11.0, 30.0, 31.0])
    assert optimal_univariate_groups(v, 2).tolist() == [0, 0, 0, 1, 1, 2, 2]


def test_strata_and_k_larger_than_stratum():
    df = pd.DataFrame({"x": np.arange(10.0), "s": ["a"] * 6 + ["b"] * 4})
    out, notes = microaggregation(df, ["x"], k=3, strata=["s"])
    assert out["x"].tolist() == [1.0] * 3 + [4.0] * 3 + [7.5] * 4
    with pytest.raises(TreatmentError, match="larger than stratum"):
        microaggregation(df, ["x"], k=5, strata=["s"])


def test_missing_values():
    x = np.arange(12.0)
    y = np.arange(12.0) * 2
    y[[0, 1, 2]] = np.nan  # one pattern of 3 records: aggregated on x alone
    x[11] = np.nan  # a pattern of 1 record: pooled, y set missing (cannot be aggregated)
    df = pd.DataFrame({"x": x, "y": y})
    out, notes = microaggregation(df, ["x", "y"], k=3)
    assert out["y"].isna().tolist() == [True] * 3 + [False] * 8 + [True]
    assert out["x"].iloc[:3].tolist() == [1.0, 1.0, 1.0]
    assert np.isnan(out["x"].iloc[11])
    assert notes["suppressed"] == {"x": 0, "y": 1}
    assert notes["incomplete"] == 4


def test_treatment_roundtrip_and_bad_input():
    t = Microaggregation(["a", "b"], k=3)
    assert Treatment.from_dict(t.to_dict()) == t
    for bad in (dict(k=1), dict(k=2.5), dict(method="nope"), dict(aggregate="mode"),
                dict(sort_by="zz")):
        with pytest.raises(ParameterError):
            Microaggregation(["a", "b"], **bad)
    df = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": ["x", "y", "z", "w"], "c": [1.0] * 4,
                       "d": [np.nan] * 4})
    for col, msg in (("b", "must be numeric"), ("c", "constant"), ("d", "only missing"),
                     ("zz", "unknown column")):
        with pytest.raises(TreatmentError, match=msg):
            Microaggregation([col], k=2).check(df, None)
    with pytest.raises(TreatmentError, match="exceeds"):
        Microaggregation(["a"], k=5).check(df, None)
    res = Microaggregation(["a"], k=2).apply(df, None, np.random.default_rng(0))
    assert res.data["a"].tolist() == [1.5, 1.5, 3.5, 3.5]
    assert res.notes["group_sizes"] == {"2": 2}


@pytest.mark.parametrize("scale", [1e-300, 1e-320, 1e160, 1e300])
def test_deviations_that_underflow_or_overflow_are_refused(scale):
    """Values so close together (or so large) that the squared deviations underflow to 0 (or
    overflow) give a standard deviation of 0 or infinity: the standardised values would be
    infinite, and MDAV's farthest-record search never ended; add_noise added nothing. Both are
    refused naming the column; values around 1e-160 still work."""
    from sdcsession.methods.microaggregation import microaggregation
    from sdcsession.methods.noise import add_noise

    df = pd.DataFrame({"a": np.arange(1.0, 13.0), "b": np.arange(12.0)[::-1] ** 2})
    tiny = df.assign(a=df["a"] * scale)
    with pytest.raises(TreatmentError, match="'a' has a standard deviation of 0 or infinity"):
        microaggregation(tiny, ["a", "b"], k=3, progress=False)
    with pytest.raises(TreatmentError, match="'a' has a standard deviation of 0 or infinity"):
        add_noise(tiny, ["a"], noise=0.2, rng=np.random.default_rng(0))
    small = df.assign(a=df["a"] * 1e-160)
    out, _ = microaggregation(small, ["a"], k=3, progress=False)
    assert out["a"].tolist() == pytest.approx(np.repeat([2.0, 5.0, 8.0, 11.0], 3) * 1e-160)
