"""MDAV grouping (Maximum Distance to Average Vector), the grouping kernel of
`microaggregation` with ``method="mdav"``.

The algorithm and its references are described in `sdcsession.methods.microaggregation`.
`mdav_groups` returns the group labels of standardised, complete records; the plain scans
(`_mdav_scan`) and the iterations on the leaf index (`_mdav_tree`, index in
`sdcsession.methods._mdav_index`) are exact and give the same groups.

Notes
-----
Speed of MDAV. A naive MDAV scans all remaining records four times per pair of groups: O(n²/k).
Here the standardised records are stored in the leaves (≈ √n records each) of a median-split
tree, each leaf with the bounding box of its alive records. The farthest record from a point is
found by branch and bound over the leaves (upper bound ``|max(|q − lo|, |hi − q|)|``, a lower
bound from the most promising leaves); the k nearest by a `scipy.spatial.cKDTree` over the alive
records (rebuilt when half of them are gone), asked for a few more neighbours than k and
certified against the last distance returned; the farthest record from the centroid from a list
sorted by distance from an earlier centroid (triangle inequality). Removed records are masked;
boxes are shrunk in batches. Once fewer than ``SCAN_BELOW`` (20,000) records remain — and for
smaller inputs from the start — plain vectorised scans are faster: one contiguous array per
variable, three distance passes and two partial selections per pair of groups, removed records
masked and compacted in batches (order preserved). Results are exact, and ties resolve as in
the textbook algorithm (first record in the original order) in both.
"""

from __future__ import annotations

import numpy as np

from ..progress import Bar
from ._mdav_index import _LeafIndex

__all__ = ["mdav_groups", "SCAN_BELOW"]


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


#: below this many remaining records MDAV runs by plain scans (faster than the tree there)
SCAN_BELOW = 20_000


def mdav_groups(z: np.ndarray, k: int, *, progress: bool | None = None) -> np.ndarray:
    """MDAV group labels (0, 1, ...) for the rows of ``z`` (already standardised, no NaN).

    Exact MDAV (see the module docstrings here and of
    `sdcsession.methods.microaggregation`). While at least ``SCAN_BELOW`` records remain, the
    branch-and-bound leaf index avoids the O(n²/k) scans; the rest is done by plain vectorised
    scans (`_mdav_scan`). Groups have k..2k−1 records (one group when n < 2k).
    ``progress``: show a progress bar (None: automatic, see `sdcsession.progress`).

    Example
    -------
    >>> mdav_groups(np.array([[0.0], [0.1], [5.0], [5.1], [9.0], [9.2]]), 2).tolist()
    [0, 0, 2, 2, 1, 1]
    """
    with Bar(len(z), desc="MDAV", enabled=progress) as bar:
        return _mdav_labels(z, k, bar)


def _mdav_labels(z: np.ndarray, k: int, bar: Bar) -> np.ndarray:
    """MDAV labels: the leaf index while ``SCAN_BELOW`` records remain, then plain scans."""
    z = np.asarray(z, dtype=np.float64)
    if z.ndim == 1:
        z = z[:, None]
    n = len(z)
    labels = np.full(n, -1, dtype=np.int64)
    g = 0 if n < SCAN_BELOW else _mdav_tree(z, k, labels, bar, stop=SCAN_BELOW)
    rest = np.flatnonzero(labels < 0)
    if len(rest):
        _mdav_scan(z, k, rest, labels, g, bar)
    return labels


def _mdav_tree(z: np.ndarray, k: int, labels: np.ndarray, bar: Bar,
               stop: int = SCAN_BELOW) -> int:
    """MDAV iterations on the leaf index while at least ``stop`` (and 3k) records remain;
    writes ``labels`` of the grouped records and returns the next free label."""
    n = len(z)
    index = _LeafIndex(z, leaf=max(64, int(np.sqrt(n) * 1.5)))
    labels_pos = np.full(n, -1, dtype=np.int64)
    g = 0
    while index.n_alive >= max(3 * k, stop):
        r = index.farthest_from_centroid()
        xr = index.x[r].copy()
        s = index.farthest(xr)
        g1 = index.nearest(xr, k)
        index.alive[g1] = False
        labels_pos[g1] = g
        index.remove(g1)
        if not index.alive[s]:  # only with massive ties: s fell into r's group
            s = index.farthest(xr)
        g2 = index.nearest(index.x[s].copy(), k)
        index.alive[g2] = False
        labels_pos[g2] = g + 1
        index.remove(g2)
        g += 2
        bar.update(2 * k)
    labels[index.order] = labels_pos
    return g
