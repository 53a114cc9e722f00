"""The compiled k-d tree MDAV (`sdcsession.methods._mdav_jit`) gives exactly the groups, and the
group numbers, of the plain scans (`_mdav_scan`), ties included."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.methods._mdav_jit import _build, mdav_jit
from sdcsession.methods.mdav import _mdav_small, mdav_groups


def _data(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "lognormal":  # skewed, like incomes
        x = np.exp(rng.normal(size=(n, 3)) * [1.0, 0.5, 1.5])
    elif kind == "zeros":  # many exact zeros and duplicated rows: ties
        x = np.exp(rng.normal(size=(n, 3)))
        x[rng.random((n, 3)) < 0.4] = 0.0
        x[n // 2:] = x[: n - n // 2]
        x[0] = 1.0  # no constant column
    else:  # integer grid, not standardised (sums exact in both): massive ties of distances
        return rng.integers(0, 6, size=(n, 3)).astype(float)
    sd = x.std(axis=0)
    return (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


@pytest.mark.parametrize("kind", ["lognormal", "zeros", "grid"])
@pytest.mark.parametrize("n,k,seed", [(1, 2, 0), (5, 2, 0), (10, 2, 1), (97, 3, 2),
                                      (1500, 3, 3), (8000, 4, 4), (20000, 3, 5)])
def test_compiled_groups_identical_to_plain_scan(kind, n, k, seed):
    z = _data(kind, n, seed)
    assert np.array_equal(mdav_jit(z, k), _mdav_small(z, k))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 300), k=st.integers(2, 7), p=st.integers(1, 4), seed=st.integers(0, 999),
       levels=st.integers(1, 5))
def test_compiled_equals_plain_scan_with_massive_ties(n, k, p, seed, levels):
    # few distinct values per variable: most distances tie; ties go to the first record
    z = np.random.default_rng(seed).integers(0, levels, size=(n, p)).astype(float)
    assert np.array_equal(mdav_jit(z, k), _mdav_small(z, k))


def test_tree_build_is_a_permutation_with_median_splits():
    z = np.random.default_rng(0).normal(size=(1000, 2))
    z[:300, 0] = 0.0  # ties on the split variable
    depth = 7
    perm, start, end = _build(z, depth)
    assert sorted(perm.tolist()) == list(range(1000))
    for node in range(2 ** depth - 1):
        a, b = 2 * node + 1, 2 * node + 2
        assert start[a] == start[node] and end[b] == end[node] and end[a] == start[b]
        assert end[a] - start[a] == (end[node] - start[node]) // 2
        left, right = z[perm[start[a]:end[a]]], z[perm[start[b]:end[b]]]
        if len(left) and len(right):  # some variable separates the halves
            assert any(left[:, j].max() <= right[:, j].min() for j in range(2))


def test_progress_bar_counts_every_record(monkeypatch):
    seen = []

    class Bar:
        def update(self, m):
            seen.append(m)

    z = np.random.default_rng(1).normal(size=(5000, 2))
    lab = mdav_jit(z, 3, Bar(), chunk=100)
    assert sum(seen) == 5000 and len(seen) > 3
    assert np.array_equal(lab, mdav_groups(z, 3, progress=False))
