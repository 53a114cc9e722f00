"""The compiled RMD grouping gives exactly the labels of the scipy-tree grouping (ties included)."""

from __future__ import annotations

import numpy as np
import pytest

from sdcsession.methods.microaggregation import robust
from sdcsession.methods.microaggregation._nearest_index import NearestIndex
from sdcsession.methods.microaggregation._rmd_jit import rmd_groups_jit


def _reference(z: np.ndarray, k: int, d2: np.ndarray) -> np.ndarray:
    n = len(z)
    g_count = max(n // k, 1)
    labels = np.full(n, g_count - 1, dtype=np.int64)
    if g_count == 1:
        return labels
    index = NearestIndex(z)
    queue = np.argsort(-d2, kind="stable")
    ptr = 0
    for g in range(g_count - 1):
        while not index.alive[queue[ptr]]:
            ptr += 1
        sel = index.nearest(index.x[int(queue[ptr])], k)
        labels[sel] = g
        index.remove(sel)
    return labels


@pytest.mark.parametrize("kind", ["normal", "lognormal", "grid", "duplicates"])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_compiled_equals_reference(kind: str, k: int) -> None:
    rng = np.random.default_rng(7)
    n, p = 3001, 3
    if kind == "normal":
        z = rng.normal(size=(n, p))
    elif kind == "lognormal":
        z = rng.lognormal(size=(n, p))
    elif kind == "grid":
        z = rng.integers(0, 6, size=(n, p)).astype(float)
    else:
        z = np.repeat(rng.normal(size=(n // 7 + 1, p)), 7, axis=0)[:n]
    d2 = np.round((z ** 2).sum(axis=1), 1)  # many ties in the order too
    assert np.array_equal(rmd_groups_jit(z, k, d2), _reference(z, k, d2))


def test_rmd_groups_uses_the_compiled_path_on_large_files(monkeypatch) -> None:
    z = np.random.default_rng(3).normal(size=(500, 2))
    d2 = robust.robust_distances(z)
    monkeypatch.setattr(robust, "COMPILED_FROM", 0)
    fast = robust.rmd_groups(z, 3, d2)
    monkeypatch.setattr(robust, "COMPILED_FROM", 10**9)
    assert np.array_equal(fast, robust.rmd_groups(z, 3, d2))


def _refine_reference(z: np.ndarray, labels: np.ndarray, neighbours: int = 4,
                      rounds: int = 50) -> np.ndarray:
    """The refinement with every gain recomputed from scratch each round (its definition)."""
    from scipy.spatial import cKDTree

    z = z - z.mean(axis=0)
    lab = labels.astype(np.int64).copy()
    n, p = z.shape
    m = min(neighbours, n - 1)
    _, nb = cKDTree(z).query(z, k=m + 1)
    i = np.repeat(np.arange(n), m)
    j = nb[:, 1:].ravel()
    d = z[j] - z[i]
    dd = (d * d).sum(axis=1)
    keep = dd > 0
    i, j, d, dd = i[keep], j[keep], d[keep], dd[keep]
    g_count = int(lab.max()) + 1
    cnt = np.bincount(lab, minlength=g_count).astype(np.float64)
    tol = 1e-12 * max(1.0, float((z * z).sum()))
    for _ in range(rounds):
        a, b = lab[i], lab[j]
        s = np.column_stack([np.bincount(lab, weights=z[:, c], minlength=g_count)
                             for c in range(p)])
        gain = ((2 * (s[a] * d).sum(axis=1) + dd) / cnt[a]
                + (dd - 2 * (s[b] * d).sum(axis=1)) / cnt[b])
        ok = np.flatnonzero((a != b) & (gain > tol))
        if len(ok) == 0:
            break
        ok = ok[np.argsort(-gain[ok], kind="stable")]
        rank = np.arange(len(ok))
        first = np.full(g_count, len(ok))
        np.minimum.at(first, a[ok], rank)
        np.minimum.at(first, b[ok], rank)
        take = ok[(first[a[ok]] == rank) & (first[b[ok]] == rank)]
        lab[i[take]], lab[j[take]] = b[take], a[take]
    return lab


@pytest.mark.parametrize("seed", range(4))
def test_incremental_refinement_equals_its_definition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    z = rng.lognormal(size=(2500, 3)) if seed % 2 else rng.integers(0, 4, (2500, 2)).astype(float)
    start = np.random.default_rng(seed + 10).permutation(np.arange(2500) // 3 % 833)
    assert np.array_equal(robust.refine_by_swaps(z, start), _refine_reference(z, start))
