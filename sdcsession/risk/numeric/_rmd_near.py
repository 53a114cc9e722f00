"""Fixed-radius neighbour test of RMDID2 (internal; numba, imported by
`sdcsession.risk.numeric.rmd` inside its functions).

RMDID2 only asks whether another masked record lies within Euclidean distance k2 of record i
(``min_{l≠i} ‖z'_i − z'_l‖ > k2`` means "no"), not how far the nearest one is. ``isolated``
answers that on a grid: the records are put into cells of side c = k2 · (1 + 10⁻⁹) along their
first g = min(p, 3) variables (integer cell numbers ⌊z/c⌋, one sortable key per cell), so every
record within k2 of record i lies in one of the 3^g cells around i's cell (the margin 10⁻⁹
absorbs the rounding of z/c while |z/c| < 10⁶). For each record of ``rows`` the kernel scans
those cells (3^(g−1) runs of consecutive keys in the sorted order, each found by a binary search)
and stops at the first other record with √s ≤ k2, s = Σ_j (z'_ij − z'_lj)² summed as
``scipy.spatial.cKDTree`` sums it (in order for p < 4; four running sums, then the rest, for
p ≥ 4), so the distance compared with k2 is the k-d tree's value bit for bit and the answer is
the same as ``nearest > k2`` from the k-d tree's nearest-neighbour query, ties at exactly k2
included. Cost: one sort (a counting sort when there are few cells) and O(number of records in
the neighbouring cells), under a millisecond for 10,000 records where the nearest-neighbour
query took about nine.

The grid is not used (``isolated`` returns None, the caller queries the k-d tree) when k2 is 0,
when |z/c| could reach 10⁶ (a radius tiny against the spread) or the cell keys would overflow
64-bit integers.

Missing values: none (complete masked data only; the caller's R ``dist`` rule handles the rest).
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import jit

__all__ = ["isolated"]

#: the cells are this much wider than k2 (room for the rounding of z / c)
_MARGIN = 1e-9
#: largest |z / c| the grid accepts (the rounding of z / c stays far below the margin)
_MAX_CELL = 1e6


def isolated(zm: np.ndarray, rows: np.ndarray, k2: float) -> np.ndarray | None:
    """For each record of ``rows``: True when no other record of the complete array zm lies
    within Euclidean distance k2 (the same as the k-d tree's nearest other distance > k2);
    None when the grid cannot be used (module docstring).

    Example
    -------
    >>> z = np.array([[0.0, 0.0], [0.03, 0.04], [1.0, 1.0]])
    >>> isolated(z, np.arange(3), 0.05).tolist()
    [False, False, True]
    """
    n, p = zm.shape
    if not k2 > 0.0 or n < 2:
        return None if n >= 2 else np.ones(len(rows), dtype=bool)
    c = k2 * (1.0 + _MARGIN)
    g = min(p, 3)
    scaled = zm[:, :g] / c
    if not np.isfinite(scaled).all() or np.abs(scaled).max() >= _MAX_CELL:
        return None
    cells = np.floor(scaled).astype(np.int64)
    cells -= cells.min(axis=0) - 1  # cell numbers from 1: the cell before each stays >= 0
    widths = cells.max(axis=0) + 2
    if float(np.prod(widths.astype(np.float64))) >= 2.0 ** 62:
        return None
    strides = np.ones(g, dtype=np.int64)
    for j in range(g - 2, -1, -1):
        strides[j] = strides[j + 1] * widths[j + 1]
    keys = cells @ strides
    size = int(np.prod(widths))
    order = _counting_order(keys, size) if size <= 8 * n + 65_536 else np.argsort(keys)
    want = np.zeros(n, dtype=bool)
    want[rows] = True
    out = _isolated(np.ascontiguousarray(zm), want, cells, strides, keys[order], order,
                    float(k2))
    return out[rows]


@jit(nogil=True)
def _counting_order(keys, size):
    """The records in the order of their keys in [0, size) (a counting sort)."""
    start = np.zeros(size + 1, np.int64)
    for k in keys:
        start[k + 1] += 1
    for k in range(size):
        start[k + 1] += start[k]
    order = np.empty(keys.shape[0], np.int64)
    for i in range(keys.shape[0]):
        k = keys[i]
        order[start[k]] = i
        start[k] += 1
    return order


@jit(nogil=True)
def _sq(z, i, j):
    """cKDTree's squared Euclidean distance of records i and j (its summation order)."""
    p = z.shape[1]
    k = 0
    s = 0.0
    if p >= 4:
        a0 = 0.0
        a1 = 0.0
        a2 = 0.0
        a3 = 0.0
        while k + 4 <= p:
            d0 = z[i, k] - z[j, k]
            d1 = z[i, k + 1] - z[j, k + 1]
            d2 = z[i, k + 2] - z[j, k + 2]
            d3 = z[i, k + 3] - z[j, k + 3]
            a0 += d0 * d0
            a1 += d1 * d1
            a2 += d2 * d2
            a3 += d3 * d3
            k += 4
        s = a0 + a1 + a2 + a3
    while k < p:
        d = z[i, k] - z[j, k]
        s += d * d
        k += 1
    return s


@jit(nogil=True)
def _isolated(z, want, cells, strides, sorted_keys, order, k2):
    """The grid scan of `isolated` (module docstring) over the records in key order: the
    wanted record's own cell first, then the 3^(g−1) runs of three cells around it. The cells
    around a record are its key plus fixed offsets, so their bounds in the sorted keys only move
    forward: one pointer pair per run, no search. Returns True for the isolated wanted records."""
    n = order.shape[0]
    g = cells.shape[1]
    n_off = 3 ** (g - 1)
    shift = np.zeros(n_off, np.int64)
    for o in range(n_off):
        t = o
        for j in range(g - 1):
            shift[o] += (t % 3 - 1) * strides[j]
            t //= 3
    lo = np.zeros(n_off, np.int64)
    hi = np.zeros(n_off, np.int64)
    o_lo = 0
    o_hi = 0
    out = np.zeros(n, np.bool_)
    for q in range(n):
        i = order[q]
        if not want[i]:
            continue
        own = sorted_keys[q]
        while sorted_keys[o_lo] < own:
            o_lo += 1
        o_hi = max(o_hi, q + 1)
        while o_hi < n and sorted_keys[o_hi] == own:
            o_hi += 1
        found = _near(z, i, order, o_lo, o_hi, o_lo, o_lo, k2)
        for o in range(n_off):
            if found:
                break
            a = own + shift[o] - 1
            b = a + 2
            while lo[o] < n and sorted_keys[lo[o]] < a:
                lo[o] += 1
            hi[o] = max(hi[o], lo[o])
            while hi[o] < n and sorted_keys[hi[o]] <= b:
                hi[o] += 1
            found = _near(z, i, order, lo[o], hi[o], o_lo, o_hi, k2)
        out[i] = not found
    return out


@jit(nogil=True)
def _near(z, i, order, lo, hi, skip_lo, skip_hi, k2):
    """Whether a record other than i among order[lo:hi] (without order[skip_lo:skip_hi],
    already scanned) lies within k2 of record i."""
    for q in range(lo, hi):
        if skip_lo <= q < skip_hi:
            continue
        other = order[q]
        if other != i and math.sqrt(_sq(z, i, other)) <= k2:
            return True
    return False
