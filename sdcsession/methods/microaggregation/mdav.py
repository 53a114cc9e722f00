"""MDAV grouping (Maximum Distance to Average Vector), the grouping kernel of
`microaggregation` with ``method="mdav"``.

The algorithm and its references are described in `sdcsession.methods.microaggregation.treatment`.
`mdav_groups` returns the group labels of standardised, complete records; the plain scans
(`_mdav_scan`) and the compiled iterations on a k-d tree (`sdcsession.methods.microaggregation._mdav_jit`) are
exact and give the same groups.

Notes
-----
Speed of MDAV. A naive MDAV scans all remaining records four times per pair of groups: O(n²/k).
`mdav_groups` runs the iterations compiled (numba) on a k-d tree whose nodes keep the bounding
box of their alive records (`sdcsession.methods.microaggregation._mdav_jit`): the farthest record from a point by
branch and bound on the boxes' largest distance, the k nearest by their smallest distance, and a
removed record shrinks its leaf's box and its ancestors'. 1,000,000 records × 3 variables take
about 10 s (`benchmarks/bench_mdav.py`). The plain vectorised scans (`_mdav_scan`) are kept as
the reference implementation of the tests. Both are exact, and ties resolve as in the textbook
algorithm (first record in the original order).
"""

from __future__ import annotations

import numpy as np

from ...progress import Bar

__all__ = ["mdav_groups"]


def _mdav_small(z: np.ndarray, k: int) -> np.ndarray:
    """Plain MDAV by full scans (reference implementation for the tests); returns group labels."""
    labels = np.full(len(z), -1, dtype=np.int64)
    _mdav_scan(np.asarray(z, dtype=np.float64), k, np.arange(len(z)), labels, 0)
    return labels


def _mdav_scan(z: np.ndarray, k: int, rows: np.ndarray, labels: np.ndarray, g: int,
               bar: Bar | None = None) -> int:
    """Plain exact MDAV by full scans (O(m²/k)) on the records ``rows`` (ascending) of ``z``.

    Writes group labels g, g + 1, ... into ``labels[rows]`` and returns the next free label.
    One contiguous float64 array per variable; per MDAV iteration three distance passes (to the
    centroid, to r — shared by "farthest from r" and "k nearest to r" —, to s) and two partial
    selections (``np.partition`` for the k-th distance). Removed records are only masked (their
    distance set to ∓inf) and the arrays are compacted when an eighth of them is dead, so record
    order — hence tie-breaking — is always the original order: ``argmax`` takes the first
    farthest record, and ties at the k-th distance take the first records.
    """
    p = z.shape[1]
    cols = [np.ascontiguousarray(z[rows, j]) for j in range(p)]
    idx = np.asarray(rows, dtype=np.int64).copy()
    m = len(idx)  # physical length of the arrays (alive + dead)
    alive = m
    buf = np.empty(m)
    tmp = np.empty(m)
    dead = np.empty(m, dtype=np.int64)  # positions removed since the last compaction
    nd = 0
    total = [float(c.sum()) for c in cols]
    inf = np.inf
    subtract, multiply, add = np.subtract, np.multiply, np.add
    partition, flatnonzero = np.partition, np.flatnonzero
    km1 = k - 1
    rng_p = range(1, p)

    def d2(q: list[float]) -> np.ndarray:
        o = buf[:m]
        t = tmp[:m]
        subtract(cols[0], q[0], out=o)
        multiply(o, o, out=o)
        for j in rng_p:
            subtract(cols[j], q[j], out=t)
            multiply(t, t, out=t)
            add(o, t, out=o)
        return o

    def nearest(d: np.ndarray, dpos: np.ndarray) -> np.ndarray:
        d[dpos] = inf
        kth = partition(d, km1)[km1]
        sel = flatnonzero(d <= kth)
        if len(sel) > k:  # ties at the k-th distance: first records first
            ds = d[sel]
            less = sel[ds < kth]
            sel = np.concatenate([less, sel[ds == kth][:k - len(less)]])
        return sel

    def drop(sel: np.ndarray, label: int) -> None:
        nonlocal nd
        labels[idx[sel]] = label
        for j in range(p):
            total[j] -= float(cols[j][sel].sum())
        dead[nd:nd + k] = sel
        nd += k

    while alive >= 3 * k:
        dpos = dead[:nd]
        d = d2([t / alive for t in total])
        d[dpos] = -1.0
        r = int(d.argmax())
        xr = [c[r] for c in cols]
        d = d2(xr)
        d[dpos] = -1.0
        s = int(d.argmax())
        xs = [c[s] for c in cols]
        sel = nearest(d, dpos)
        drop(sel, g)
        if (sel == s).any():  # only with massive ties: s fell into r's group
            d = d2(xr)
            d[dead[:nd]] = -1.0
            xs = [c[int(d.argmax())] for c in cols]
        drop(nearest(d2(xs), dead[:nd]), g + 1)
        alive -= 2 * k
        g += 2
        if bar is not None:
            bar.update(2 * k)
        if nd * 8 > m:  # compact: drop the dead records, keep the order
            keep = np.ones(m, dtype=bool)
            keep[dead[:nd]] = False
            cols = [c[keep] for c in cols]
            idx = idx[keep]
            m, nd = alive, 0
            total = [float(c.sum()) for c in cols]  # no drift of the running sums
    if nd:
        keep = np.ones(m, dtype=bool)
        keep[dead[:nd]] = False
        cols = [c[keep] for c in cols]
        idx = idx[keep]
        m, nd = alive, 0
    if m >= 2 * k:
        d = d2([float(c.mean()) for c in cols])
        r = int(d.argmax())
        sel = nearest(d2([c[r] for c in cols]), dead[:0])
        labels[idx[sel]] = g
        g += 1
        keep = np.ones(m, dtype=bool)
        keep[sel] = False
        idx = idx[keep]
        if bar is not None:
            bar.update(k)
    if len(idx):
        labels[idx] = g
        g += 1
        if bar is not None:
            bar.update(len(idx))
    return g


def mdav_groups(z: np.ndarray, k: int, *, progress: bool | None = None) -> np.ndarray:
    """MDAV group labels (0, 1, ...) for the rows of ``z`` (already standardised, no NaN).

    Exact MDAV (see the module docstrings here and of
    `sdcsession.methods.microaggregation.treatment`): while at least 3k records remain, r is the record
    farthest from the centroid of the remaining records, s the record farthest from r, and the
    k records nearest to r, then the k nearest to s (among those left), form two groups; with
    2k..3k − 1 left, the k nearest to the record farthest from the centroid form a group and the
    rest another; fewer than 2k left form one group. Ties: the first record in the original
    order. Groups have k..2k−1 records (one group when n < 2k); labels are numbered in the order
    the groups are formed. Compiled k-d tree iterations (`sdcsession.methods.microaggregation._mdav_jit`).
    ``progress``: show a progress bar (None: automatic, see `sdcsession.progress`).

    Reference: Domingo-Ferrer, J. and Torra, V. (2005). Ordinal, continuous and heterogeneous
    k-anonymity through microaggregation. Data Mining and Knowledge Discovery 11, 195–212.

    Example
    -------
    >>> mdav_groups(np.array([[0.0], [0.1], [5.0], [5.1], [9.0], [9.2]]), 2).tolist()
    [0, 0, 2, 2, 1, 1]
    """
    with Bar(len(z), desc="MDAV", enabled=progress) as bar:
        return _mdav_labels(z, k, bar)


def _mdav_labels(z: np.ndarray, k: int, bar: Bar | None) -> np.ndarray:
    """MDAV labels of the rows of z (compiled k-d tree iterations), updating ``bar``."""
    from ._mdav_jit import mdav_jit

    z = np.asarray(z, dtype=np.float64)
    if z.ndim == 1:
        z = z[:, None]
    return mdav_jit(z, k, bar)
