"""The minimum covariance determinant kernel (risk/robust.py) and the two functions built on it."""

import numpy as np
import pytest
from scipy import stats

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.methods.noise import robust_distance
from sdcsession.risk.robust import mahalanobis2, mcd
from sdcsession.utility.continuous import mcd_covariance


def _contaminated(n=1000, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.multivariate_normal([1.0, -2.0], [[2.0, 0.6], [0.6, 1.0]], n)
    x[: n // 10] = rng.normal(30, 1, size=(n // 10, 2))
    return x


def test_mcd_finds_the_bulk_both_starts():
    x = _contaminated()
    for kw in ({}, {"n_starts": 20, "seed": 4}):
        fit = mcd(x, reweight=True, **kw)
        assert fit.h == (1000 + 2 + 1) // 2
        assert int(fit.raw_support.sum()) == fit.h and not fit.raw_support[:100].any()
        assert not fit.support[:100].any() and fit.support[100:].mean() > 0.95
        assert np.allclose(fit.location, [1.0, -2.0], atol=0.15)
        assert np.allclose(fit.scatter, [[2.0, 0.6], [0.6, 1.0]], atol=0.25)
        assert (fit.raw_distances[:100] > 100).all()
        # consistency: the distances have the chi-squared median
        assert np.median(fit.raw_distances) == pytest.approx(stats.chi2.ppf(0.5, 2), rel=1e-12)
        assert np.allclose(fit.raw_distances, mahalanobis2(x, fit.raw_location, fit.raw_scatter))


def test_h_rules_and_determinism():
    x = _contaminated(300)  # n + p + 1 = 303
    assert mcd(x).h == 151 and mcd(x, h="ceil").h == 152 and mcd(x, h=250).h == 250
    assert mcd(x, h=1).h == 3  # clipped to p + 1
    a, b = mcd(x, n_starts=5, seed=1), mcd(x, n_starts=5, seed=1)
    assert np.array_equal(a.raw_distances, b.raw_distances)


def test_subsample_support_maps_to_rows_of_x():
    x = _contaminated(5000, seed=3)
    fit = mcd(x, subsample=1000)
    rows = np.flatnonzero(fit.raw_support)
    assert (rows % 5 == 0).all() and len(rows) == fit.h == (1000 + 2 + 1) // 2
    assert len(fit.raw_distances) == 5000 and (fit.raw_distances[:500] > 100).all()


def test_public_wrappers_are_the_kernel():
    x = _contaminated()
    assert np.array_equal(robust_distance(x),
                          mcd(x, h="ceil", max_steps=50, exact_fit="ridge").raw_distances)
    assert np.array_equal(mcd_covariance(x, seed=2),
                          mcd(x, n_starts=50, seed=2, reweight=True).scatter)


def test_exact_fit_and_bad_input():
    rng = np.random.default_rng(0)
    x = np.column_stack([rng.normal(size=200), np.zeros(200)])
    x[:20, 1] = rng.normal(size=20)  # 90 % of the records on the line y = 0
    with pytest.raises(MeasureError, match="hyperplane"):
        mcd(x)
    assert np.isfinite(mcd(x, exact_fit="ridge").raw_distances).all()
    assert np.isfinite(robust_distance(x)).all()  # noise's outlier flagging never fails on it
    with pytest.raises(MeasureError, match="more than p"):
        mcd(np.ones((3, 2)))
    for bad in ({"h": "half"}, {"n_starts": -1}, {"max_steps": 0}, {"exact_fit": "x"}):
        with pytest.raises(ParameterError):
            mcd(x, **bad)
    with pytest.raises(ParameterError):
        mcd(np.ones(5))


@pytest.mark.parametrize("m", [7, 300, 999, 1000, 5000])
def test_compiled_selection_keeps_the_h_smallest_first_records_on_ties(m):
    """The C-step's selection (sampled bracket from 1,000 values on, quickselect below): the h
    records of smallest distance in record order, ties at the h-th smallest to the first ones."""
    from sdcsession.risk.robust._fastmcd_jit import _select

    rng = np.random.default_rng(m)
    for d2 in (rng.random(m), rng.integers(0, 4, m).astype(float), np.zeros(m)):
        for h in sorted({1, m // 2 + 1, m}):
            sub = np.empty(m + 1, np.int64)
            _select(d2, h, sub, np.empty(m))
            expect = np.sort(np.lexsort((np.arange(m), d2))[:h])
            assert sub[:h].tolist() == expect.tolist()


@pytest.mark.parametrize("m", [2, 40, 300, 1500, 10_000])
def test_compiled_selection_on_heavy_tails_ties_and_infinities(m):
    """The bracketing passes of the selection (sample, interpolated counts, gather) find the
    exact h-th smallest distance whatever the shape: heavy tails, a block of zeros and rounded
    values (many ties), infinite distances; the subset is the stable order's first h."""
    from sdcsession.risk.robust._fastmcd_jit import _select

    rng = np.random.default_rng(m + 1)
    tied = np.round(rng.chisquare(2, m), 1)
    tied[: m // 3] = 0.0
    cases = (rng.lognormal(0.0, 6.0, m), tied,
             np.where(rng.random(m) < 0.3, np.inf, rng.random(m)))
    for d2 in cases:
        for h in sorted({1, 2, m // 3 + 1, m // 2 + 1, m - 1, m} - {0}):
            sub = np.empty(m + 1, np.int64)
            _select(d2, h, sub, np.empty(m))
            expect = np.sort(np.lexsort((np.arange(m), d2))[:h])
            assert sub[:h].tolist() == expect.tolist()


def test_compiled_csteps_match_numpy_concentration():
    """Two C-steps of the compiled loop from a start equal two numpy C-steps (same subset,
    log determinant to rounding)."""
    from sdcsession.risk.robust._fastmcd import concentrate, distances
    from sdcsession.risk.robust._fastmcd_jit import csteps

    x = _contaminated(800, seed=3)
    h = (800 + 3) // 2
    mu0, cov0 = x[:3].mean(axis=0), np.cov(x[:3], rowvar=False)
    ld, sub, _, _, steps, status = csteps(x, mu0[None], cov0[None], h, 2, False, False)
    ref = concentrate(x, distances(np.linalg.cholesky(cov0), x, mu0), h, 2, "error")
    assert status[0] == 0 and steps[0] == 2
    assert sub[0].tolist() == ref[1].tolist() and ld[0] == pytest.approx(ref[0], abs=1e-10)


def test_compiled_selection_with_nan_distances_still_returns_h_records():
    """Distances that overflowed to NaN: the h smallest others first, then NaN ones in order."""
    from sdcsession.risk.robust._fastmcd_jit import _select

    d2 = np.array([3.0, np.nan, 1.0, 2.0, np.nan, 0.5])
    sub = np.empty(7, np.int64)
    _select(d2, 5, sub, np.empty(6))
    assert sub[:5].tolist() == [0, 1, 2, 3, 5]


def test_mcd_refuses_missing_or_infinite_values():
    x = _contaminated(100)
    for bad in (np.nan, np.inf):
        y = x.copy()
        y[3, 1] = bad
        with pytest.raises(MeasureError, match="missing or infinite"):
            mcd(y, n_starts=10, search="fastmcd")


@pytest.mark.parametrize("steps", [100, 4])
def test_shared_paths_give_the_csteps_results_bit_for_bit(steps):
    """C-steps that take over an earlier start's converged path (one table across two calls, as
    rmd_risk's repeated searches) return exactly what the plain C-steps return: results, steps
    counted and status, also when the step budget cuts a path short."""
    from sdcsession.risk.robust._fastmcd_jit import csteps
    from sdcsession.risk.robust._fastmcd_shared import csteps_shared, path_table

    x = np.ascontiguousarray(_contaminated(2000, seed=5))
    x[:300, 0] = np.round(x[:300, 0])  # ties in the distances
    h = (2000 + 3) // 2
    rng = np.random.default_rng(2)
    table = path_table(h, 2)
    steps_run = 0
    for _ in range(2):
        idx = [rng.choice(2000, 40, replace=False) for _ in range(12)]
        mu0 = np.array([x[i].mean(axis=0) for i in idx])
        cov0 = np.array([np.cov(x[i], rowvar=False) for i in idx])
        ref = csteps(x, mu0, cov0, h, steps, True, False)
        got = csteps_shared(x, mu0, cov0, h, steps, False, *table)
        for a, b in zip(ref, got):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
        steps_run += int(ref[4].sum())
    kept = int(table[-1][0])
    assert 0 < kept < steps_run
    again = csteps_shared(x, mu0, cov0, h, steps, False, *table)  # every path known now
    for a, b in zip(ref, again):
        assert a.tobytes() == b.tobytes()
    if steps == 100:  # converged paths are kept: the same starts add no subset
        assert int(table[-1][0]) == kept
