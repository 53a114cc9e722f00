"""Exact nearest neighbours on mixed data with the Gower distance (internal).

Gower (1971) distance between records a and b over p columns:

    d(a, b) = (1/p) Σ_j d_j,   d_j = |a_j − b_j| / R_j   (numbers; R_j the range of column j over
                                                          every file compared, 1 when 0)
                               d_j = [a_j ≠ b_j]         (categories)

Missing values: two missing values are equal (``d_j = 0``), a missing value against a present
one is as far as possible (``d_j = 1``), so the distance is always defined and lies in [0, 1].

Search: with numbers only and nothing missing, ``scipy.spatial.cKDTree`` with the L1 metric on
the range-scaled values (exact); otherwise exact brute force in blocks of query records (about
4 million distances per block). Ties are broken by the lower candidate position in the brute
force (the k-d tree breaks them its own way; ties between real numbers are rare).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["gower_ranges", "nearest", "gower_matrix"]

_BLOCK = 4_000_000


def gower_ranges(mats: Sequence[np.ndarray | None], numeric: np.ndarray) -> np.ndarray:
    """``R_j`` of every column: max − min over all given matrices (numbers), 1 for categories,
    for a constant column and for a column with no observed value."""
    present = [m for m in mats if m is not None and len(m)]
    p = len(numeric)
    out = np.ones(p, dtype=np.float64)
    for j in np.flatnonzero(numeric):
        with np.errstate(all="ignore"):
            lo = min(np.nanmin(m[:, j]) if np.isfinite(m[:, j]).any() else np.inf
                     for m in present)
            hi = max(np.nanmax(m[:, j]) if np.isfinite(m[:, j]).any() else -np.inf
                     for m in present)
        r = hi - lo
        out[j] = r if np.isfinite(r) and r > 0 else 1.0
    return out


def gower_matrix(a: np.ndarray, b: np.ndarray, numeric: np.ndarray,
                 ranges: np.ndarray) -> np.ndarray:
    """The ``(len(a), len(b))`` Gower distances (see the module)."""
    p = a.shape[1]
    d = np.zeros((len(a), len(b)), dtype=np.float64)
    for j in range(p):
        x, y = a[:, j][:, None], b[:, j][None, :]
        nx, ny = np.isnan(x), np.isnan(y)
        if numeric[j]:
            dj = np.abs(x - y) / ranges[j]
        else:
            dj = (x != y).astype(np.float64)
        dj = np.where(nx | ny, np.where(nx & ny, 0.0, 1.0), dj)
        d += dj
    return d / max(p, 1)


def nearest(queries: np.ndarray, candidates: np.ndarray, numeric: np.ndarray,
            ranges: np.ndarray, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(distances, positions)``, each ``(len(queries), k)``: the k nearest candidates of every
    query record by Gower distance, nearest first (exact)."""
    m = len(candidates)
    k = min(k, m)
    p = queries.shape[1]
    if numeric.all() and not np.isnan(queries).any() and not np.isnan(candidates).any():
        from scipy.spatial import cKDTree

        tree = cKDTree(candidates / ranges)
        _, idx = tree.query(queries / ranges, k=k, p=1)
        idx = np.asarray(idx).reshape(len(queries), k).astype(np.int64)
        # the distances again, summed column by column as in the brute force (equal distances
        # then compare equal, whichever search found them)
        dist = np.zeros(idx.shape, dtype=np.float64)
        for j in range(p):
            dist += np.abs(queries[:, j][:, None] - candidates[idx, j]) / ranges[j]
        return dist / max(p, 1), idx
    n = len(queries)
    dist = np.empty((n, k), dtype=np.float64)
    idx = np.empty((n, k), dtype=np.int64)
    step = max(1, _BLOCK // max(m, 1))
    for s in range(0, n, step):
        d = gower_matrix(queries[s:s + step], candidates, numeric, ranges)
        rows = np.arange(len(d))
        for t in range(k):
            i = np.argmin(d, axis=1)  # the first minimum: the lower position on ties
            dist[s:s + step, t] = d[rows, i]
            idx[s:s + step, t] = i
            d[rows, i] = np.inf
    return dist, idx
