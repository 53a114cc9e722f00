"""The shortcuts behind rmd_risk's fixed cost give the results of the plain paths bit for bit:
the fixed-radius grid test of RMDID2 against the k-d tree's nearest distance, the compiled
start stages of FastMCD against the staged numpy code, the threaded repeated searches against
the sequential loop, and the cache of modal fits (same values, a fresh copy, not fooled by a
changed original)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.errors import MeasureError
from sdcsession.risk.numeric import _rmd_mcd
from sdcsession.risk.numeric._rmd_near import isolated
from sdcsession.risk.numeric.rmd import _isolated, _modal_mcd, _nearest_other, rmd_risk
from sdcsession.risk.robust import _fastmcd as fm

ARRAYS = ("location", "scatter", "support", "raw_location", "raw_scatter", "raw_support",
          "raw_distances")


def _same_fit(a, b) -> None:
    for name in ARRAYS:
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    assert (a.log_det, a.consistency, a.reweight_consistency, a.h) == \
        (b.log_det, b.consistency, b.reweight_consistency, b.h)


# ------------------------------------------------------- reading the frames: same array, same layout
def test_aligned_arrays_equal_the_column_selection():
    # the whole frame is read when it holds exactly the columns: the same values and memory
    # layout (the standardised original's sums and its cache key follow the layout)
    from sdcsession.risk.numeric.rmd import _aligned

    rng = np.random.default_rng(0)
    n = 40
    one_block = pd.DataFrame(rng.random((n, 3)), columns=["a", "b", "c"])
    mixed = pd.DataFrame({"a": rng.random(n), "b": rng.integers(0, 5, n),
                          "c": rng.random(n).astype(np.float32)})
    nullable = pd.DataFrame({"a": pd.array([1.5, None] * (n // 2), dtype="Float64"),
                             "b": pd.array(rng.integers(0, 9, n), dtype="Int64"),
                             "c": rng.random(n)})
    for frame in (one_block, mixed, nullable, one_block[["a"]]):
        cols = [str(c) for c in frame.columns]
        want = frame[cols].to_numpy(dtype=np.float64, na_value=np.nan)
        for columns in (None, cols, cols[::-1]):
            x, xm, got_cols, _ = _aligned(frame, frame.copy(), columns)
            ref = want if columns is None or columns == cols else \
                frame[columns].to_numpy(dtype=np.float64, na_value=np.nan)
            for a in (x, xm):
                assert a.strides == ref.strides and a.tobytes() == ref.tobytes()
            if columns is None:  # the whole frame read: a copy, never a view of its data
                assert not np.shares_memory(x, frame.to_numpy())


# ------------------------------------------------------------------ RMDID2: grid vs k-d tree
@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 60), p=st.integers(1, 6), seed=st.integers(0, 2**32 - 1),
       levels=st.sampled_from([3, 5, 40]), scale=st.sampled_from([0.01, 0.1, 1.0]),
       pick=st.integers(0, 10**6), nan_share=st.sampled_from([0.0, 0.0, 0.2]))
def test_grid_test_equals_nearest_distance(n, p, seed, levels, scale, pick, nan_share):
    # values on a coarse lattice (exact duplicates, many equal distances) and k2 drawn from the
    # realised nearest distances themselves: ties at exactly k2 decide records
    rng = np.random.default_rng(seed)
    zm = rng.integers(0, levels, size=(n, p)) * scale + rng.normal(size=p)
    if nan_share:
        zm[rng.random((n, p)) < nan_share] = np.nan
    rows = np.flatnonzero(rng.random(n) < 0.7)
    near = _nearest_other(zm, np.arange(n))
    finite = np.unique(near[np.isfinite(near)])
    candidates = [0.0, 0.05, 1e-300, 3.0] + list(finite) + list(np.nextafter(finite, 0))
    k2 = float(candidates[pick % len(candidates)])
    want = near[rows] > k2
    assert np.array_equal(_isolated(zm, rows, k2), want)
    if not nan_share:
        got = isolated(zm, rows, k2)
        assert got is None or np.array_equal(got, want)
        if k2 > 0.0 and len(finite) and k2 == finite[0]:
            assert got is not None  # the grid was used on a realised tie


def test_grid_test_by_hand_and_fallbacks():
    z = np.array([[0.0, 0.0], [0.03, 0.04], [1.0, 1.0], [1.0, 1.25]])
    # rows 0-1 at distance 0.05 (≤ k2: not isolated); rows 2-3 at exactly 0.25
    assert isolated(z, np.arange(4), 0.05).tolist() == [False, False, True, True]
    assert isolated(z, np.arange(4), 0.25).tolist() == [False, False, False, False]
    assert isolated(z, np.array([3, 2]), np.nextafter(0.25, 0)).tolist() == [True, True]
    assert isolated(z, np.arange(4), 0.0) is None  # k2 = 0: the k-d tree decides
    assert isolated(z * 1e9, np.arange(4), 1e-3) is None  # a radius tiny against the spread
    assert isolated(z[:1], np.arange(1), 0.05).tolist() == [True]
    # many cells (10^6 > 8 n + 65,536): sorted by argsort instead of the counting sort
    spread = np.random.default_rng(1).uniform(0, 10, size=(400, 3))
    spread[1] = spread[0] + [0.0, 0.0, 0.1]
    near = _nearest_other(spread, np.arange(400))
    for k2 in (0.1, 0.3, near[0]):
        assert np.array_equal(isolated(spread, np.arange(400), k2), near > k2)


# ------------------------------------------------------- compiled start stages vs staged code
def _staged(x, h, n_starts, seed, exact_fit):
    rng = np.random.default_rng(seed)
    n, p = x.shape
    mus, covs = fm._candidates(x, h, n_starts, rng, exact_fit)
    if n > fm.FULL_ALL and len(mus):
        keep = fm.KEEP_FULL if n * p <= fm.KEEP_FULL_NP else 1
        mus, covs = fm._screen(x, h, mus, covs, exact_fit, steps=1, keep=keep)
    return mus, covs


@pytest.mark.parametrize(("n", "p", "n_starts"), [
    (30, 2, 20), (400, 3, 60), (599, 2, 100), (600, 2, 100), (1_700, 3, 500), (7_000, 4, 60),
    (10_000, 2, 200)])
@pytest.mark.parametrize("exact_fit", ["error", "ridge"])
def test_compiled_stages_equal_staged_code(n, p, n_starts, exact_fit):
    for seed in (0, 1):
        rng = np.random.default_rng(n + p + seed)
        x = rng.standard_t(3, size=(n, p))
        x[: n // 3] = np.round(x[: n // 3])  # ties and repeated records, as income data
        h = (n + p + 1) // 2
        want = _staged(x, h, n_starts, seed, exact_fit)
        got = fm.candidates(x, h, n_starts, np.random.default_rng(seed), exact_fit)
        assert got[0].tobytes() == want[0].tobytes() and got[1].tobytes() == want[1].tobytes()


def test_compiled_stages_exact_fit_and_stop():
    x = np.random.default_rng(0).normal(size=(800, 2))
    x[:600, 1] = 2.0 * x[:600, 0]  # three quarters on a line: every h-subset can be singular
    with pytest.raises(MeasureError, match="exact fit") as staged:
        _staged(x, 401, 50, 0, "error")
    with pytest.raises(MeasureError, match="exact fit") as compiled:
        fm.candidates(x, 401, 50, np.random.default_rng(0), "error")
    assert str(staged.value) == str(compiled.value)
    stop = np.ones(1, dtype=bool)
    assert fm.candidates(x, 401, 50, np.random.default_rng(0), "error", stop) is None


# ------------------------------------------------------------- threads vs the sequential loop
@pytest.mark.parametrize(("n", "p", "n_starts", "runs", "seed"),
                         [(300, 3, 6, 7, 0), (900, 2, 4, 9, 5), (6_000, 2, 20, 5, 1),
                          (2_000, 2, 500, 10, 3)])
def test_threads_choose_the_sequential_subset(n, p, n_starts, runs, seed):
    # few starts: the runs disagree, so votes, ties and the early stop are exercised
    rng = np.random.default_rng(n + seed)
    z = rng.standard_t(2, size=(n, p))
    z = (z - z.mean(axis=0)) / z.std(axis=0, ddof=1)
    plain = _rmd_mcd._modal(z, n_starts, runs, seed, "robustbase-0.95", workers=1)
    for workers in (2, 3):
        _same_fit(_rmd_mcd._modal(z, n_starts, runs, seed, "robustbase-0.95", workers), plain)


def test_threads_raise_the_sequential_error():
    x = np.random.default_rng(0).normal(size=(800, 2))
    x[:600, 1] = 2.0 * x[:600, 0]
    for workers in (1, 2):
        with pytest.raises(MeasureError, match="exact fit"):
            _rmd_mcd._modal(x, 50, 5, 0, "robustbase-0.95", workers)


# ---------------------------------------------------------------------------------- the cache
def test_cache_same_values_fresh_copy_and_changed_original(monkeypatch):
    rng = np.random.default_rng(4)
    z = rng.standard_t(3, size=(700, 2))
    calls = []
    search = _rmd_mcd._modal
    monkeypatch.setattr(_rmd_mcd, "_modal", lambda *a: calls.append(1) or search(*a))
    _rmd_mcd.clear_cache()
    first = _modal_mcd(z, 40, 4, 0, "robustbase-0.95")
    again = _modal_mcd(z.copy(), 40, 4, 0, "robustbase-0.95")
    assert len(calls) == 1  # the second call came from the cache
    _same_fit(again, first)
    assert again.scatter is not first.scatter and again.support is not first.support
    again.scatter[0, 0] = 99.0  # changing a returned fit does not change the cached one
    _same_fit(_modal_mcd(z, 40, 4, 0, "robustbase-0.95"), first)
    changed = z.copy()
    changed[17, 1] = np.nextafter(changed[17, 1], np.inf)  # one bit of one value
    fit = _modal_mcd(changed, 40, 4, 0, "robustbase-0.95")
    assert len(calls) == 2
    _same_fit(fit, search(changed, 40, 4, 0, "robustbase-0.95", 1))
    for settings_ in ((41, 4, 0, "robustbase-0.95"), (40, 5, 0, "robustbase-0.95"),
                      (40, 4, 1, "robustbase-0.95"), (40, 4, 0, "robustbase")):
        _modal_mcd(z, *settings_)
    assert len(calls) == 6  # every setting is part of the key
    _same_fit(_modal_mcd(np.asfortranarray(z), 40, 4, 0, "robustbase-0.95"), first)
    assert len(calls) == 7  # so is the memory layout (numpy's sums follow it)
    assert len(_rmd_mcd._cache) == _rmd_mcd.CACHE_SIZE  # the oldest fits were dropped


def test_rmd_risk_repeat_call_equals_first_call():
    rng = np.random.default_rng(5)
    import pandas as pd

    x = pd.DataFrame(rng.lognormal(size=(1_500, 2)), columns=["a", "b"])
    m = x * rng.normal(1.0, 0.01, size=x.shape)
    _rmd_mcd.clear_cache()
    first = rmd_risk(x, m)
    again = rmd_risk(x, m)
    assert first.to_dict() == again.to_dict()
    _same_fit(again.mcd, first.mcd)
    assert again.distance.equals(first.distance) and again.at_risk2.equals(first.at_risk2)
