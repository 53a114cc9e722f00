"""The compiled RMD grouping gives exactly the labels of the scipy-tree grouping (ties included);
the compiled refinement gives the labels of its definition and a local optimum within the size bounds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.methods.microaggregation import robust
from sdcsession.methods.microaggregation._nearest_index import NearestIndex
from sdcsession.methods.microaggregation._rmd_jit import refine_groups, rmd_groups_jit


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


def _refine_reference(z: np.ndarray, lab: np.ndarray, nb: np.ndarray, lower: int, upper: int,
                      tol: float, passes: int = 100) -> np.ndarray:
    """The refinement's definition, plainly: every record evaluated in every pass, its group
    sums recomputed from the labels, the largest gain above tol made at once."""
    lab = lab.copy()
    for _ in range(passes):
        changed = False
        for i in range(len(z)):
            a = lab[i]
            ma = np.flatnonzero(lab == a)
            best, act = tol, None
            done = []
            for j0 in nb[i]:
                b = lab[j0]
                if b == a or b in done:
                    continue
                done.append(b)
                mb = np.flatnonzero(lab == b)
                sa, sb = z[ma].sum(axis=0), z[mb].sum(axis=0)
                for j in mb:
                    d = z[j] - z[i]
                    dd = d @ d
                    gain = (2 * sa @ d + dd) / len(ma) + (dd - 2 * sb @ d) / len(mb)
                    if gain > best:
                        best, act = gain, (j, b)
                if len(ma) > lower and len(mb) < upper:
                    ea, eb = z[i] - sa / len(ma), z[i] - sb / len(mb)
                    gain = len(ma) / (len(ma) - 1) * (ea @ ea) - len(mb) / (len(mb) + 1) * (eb @ eb)
                    if gain > best:
                        best, act = gain, (-1, b)
            if act is not None:
                j, b = act
                if j >= 0:
                    lab[j] = a
                lab[i] = b
                changed = True
        if not changed:
            break
    return lab


@pytest.mark.parametrize("seed", range(6))
def test_compiled_refinement_equals_its_definition(seed: int) -> None:
    """Skipping records whose candidate groups did not change gives the definition's labels."""
    rng = np.random.default_rng(seed)
    n = 400 + seed
    z = rng.lognormal(size=(n, 3)) if seed % 2 else rng.integers(0, 4, (n, 2)).astype(float)
    k = 2 + seed % 3
    g = n // k
    lab = np.random.default_rng(seed + 10).permutation(np.minimum(np.arange(n) // k, g - 1))
    nb = np.random.default_rng(seed + 20).integers(0, n, (n, 5))
    tol = 1e-12 * float((z * z).sum())
    upper = max(2 * k - 1, int(np.bincount(lab).max()))
    fast = lab.copy()
    passes = refine_groups(np.ascontiguousarray(z), fast, nb, k, upper, 100, tol)
    assert 1 < passes < 100
    assert np.array_equal(fast, _refine_reference(z, lab, nb, k, upper, tol))


def test_refinement_moves_a_record_hand_computed() -> None:
    """{0, 1} and {10, 11, 12, 2} with k = 2: the move of 2 (gain 4/3·(2 − 8.75)² − 2/3·(2 − 0.5)²
    = 59.25) leaves {0, 1, 2} and {10, 11, 12}, SS 2 + 2 = 4."""
    z = np.array([[0.0], [1.0], [10.0], [11.0], [12.0], [2.0]])
    lab = robust.refine_by_swaps(z, np.array([0, 0, 1, 1, 1, 1]), k=2)
    assert lab.tolist() == [0, 0, 1, 1, 1, 0]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 5), st.integers(12, 160), st.sampled_from([1, 2, 3]))
def test_refinement_lowers_the_ss_within_the_size_bounds(seed: int, k: int, n: int, p: int) -> None:
    """Never a higher SS, every group k .. 2k − 1 (group labels kept), and a local optimum: no
    single exchange or move among the candidates gains any more."""
    from scipy.spatial import cKDTree

    from sdcsession.methods.microaggregation.treatment import within_group_ss

    rng = np.random.default_rng(seed)
    z = np.round(rng.lognormal(size=(n, p)), 1)  # ties and duplicates too
    if n < 2 * k:
        n = 2 * k
        z = np.round(rng.lognormal(size=(n, p)), 1)
    g = n // k
    start = rng.permutation(np.minimum(np.arange(n) // k, g - 1))
    out = robust.refine_by_swaps(z, start, k=k)
    assert within_group_ss(z, out) <= within_group_ss(z, start) * (1 + 1e-12) + 1e-12
    sizes = np.bincount(out, minlength=g)
    assert sizes.min() >= k and sizes.max() <= max(2 * k - 1, int(np.bincount(start).max()))
    assert set(out.tolist()) == set(start.tolist())
    zc = z - z.mean(axis=0)
    nb = cKDTree(zc).query(zc, k=min(robust.SWAP_NEIGHBOURS + 1, n))[1]
    tol = 1e-12 * max(1.0, float((zc * zc).sum()))
    upper = max(2 * k - 1, int(np.bincount(start).max()))
    assert np.array_equal(_refine_reference(zc, out, nb, k, upper, tol, passes=1), out)
