"""A branch-and-bound leaf index with removal (used by the RMD microaggregation,
`sdcsession.methods.microaggregation_robust`; MDAV has its own compiled tree,
`sdcsession.methods._mdav_jit`).

`_LeafIndex` stores the standardised records in the leaves of a median-split tree, each
leaf with the bounding box of its alive records, and answers the MDAV queries exactly: the
farthest record from the centroid (a list sorted by distance from an earlier centroid, pruned by
the triangle inequality), the farthest record from a point (branch and bound over the leaf
boxes) and the k nearest records (a
`scipy.spatial.cKDTree` over the alive records, rebuilt when half of them are gone, asked for a
few more neighbours than k and certified). Records are removed as they are grouped. Ties resolve
as in the plain scans: the first record in the original order.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree


class _LeafIndex:
    """Median-split tree leaves with bounding boxes of their alive records; supports removal."""

    #: boxes of the leaves that lost records are shrunk every this many removals
    REFRESH = 16

    def __init__(self, z: np.ndarray, leaf: int):
        n, p = z.shape
        order = np.arange(n)
        stack = [(0, n)]
        bounds: list[tuple[int, int]] = []
        while stack:
            s, e = stack.pop()
            if e - s <= leaf:
                bounds.append((s, e))
                continue
            idx = order[s:e]
            sub = z[idx]
            dim = int(np.argmax(sub.max(axis=0) - sub.min(axis=0)))
            m = (e - s) // 2
            part = np.argpartition(sub[:, dim], m)
            order[s:e] = idx[part]
            stack.append((s + m, e))
            stack.append((s, s + m))
        bounds.sort()
        self.order = order
        self.x = np.ascontiguousarray(z[order])
        self.cols = [np.ascontiguousarray(self.x[:, j]) for j in range(p)]
        self.starts = np.array([b[0] for b in bounds], dtype=np.int64)
        self.ends = np.array([b[1] for b in bounds], dtype=np.int64)
        sizes = self.ends - self.starts
        self.leaf_of = np.repeat(np.arange(len(bounds)), sizes)
        self.lo = np.minimum.reduceat(self.x, self.starts, axis=0)
        self.hi = np.maximum.reduceat(self.x, self.starts, axis=0)
        self.alive = np.ones(n, dtype=bool)
        self.total = self.x.sum(axis=0)
        self.n_alive = n
        self.dirty = np.zeros(len(bounds), dtype=bool)
        self.pending = 0
        self.seed = np.zeros(0, dtype=np.int64)  # last neighbours fetched (see `farthest`)
        self.kk = 0  # neighbours asked of the k-d tree (grows when too few are alive)
        self._kd_build(np.arange(n))
        self._rebuild(self.total / n)

    # ------------------------------------------------------------------ farthest from centroid
    def _rebuild(self, c: np.ndarray) -> None:
        """Stale list: alive positions sorted by decreasing distance from the reference c."""
        pos = np.flatnonzero(self.alive)
        d = np.sqrt(self._d2(pos, c))
        o = np.argsort(-d, kind="stable")
        self.ref = c.copy()
        self.s_pos = pos[o]
        self.s_negd = -d[o]
        self.ptr = 0

    def _top(self) -> int:
        """Index in the stale list of its first alive entry (advances the pointer)."""
        while True:
            a = self.alive[self.s_pos[self.ptr:self.ptr + 64]]
            if a.any():
                self.ptr += int(np.argmax(a))
                return self.ptr
            self.ptr += 64

    def farthest_from_centroid(self) -> int:
        """Position of the alive record farthest from the centroid of the alive records.

        Triangle inequality on the stale distances D (to the old reference c0, δ = |c − c0|):
        a record with D < D_top − 2δ cannot be the farthest; only the few above are scanned.
        """
        c = self.total / self.n_alive
        delta = float(np.sqrt(((c - self.ref) ** 2).sum()))
        top = self._top()
        end = int(np.searchsorted(self.s_negd, self.s_negd[top] + 2 * delta, side="right"))
        if end - top > max(256, self.n_alive // 64):
            self._rebuild(c)
            top, end = 0, int(np.searchsorted(self.s_negd, self.s_negd[0], side="right"))
        pos = self.s_pos[top:end]
        pos = pos[self.alive[pos]]
        return self._first_max(pos, self._d2(pos, c))

    # ------------------------------------------------------------------ helpers
    def _first_max(self, pos: np.ndarray, d2: np.ndarray) -> int:
        """The position of largest ``d2``, the first in the original order among ties."""
        i = int(np.argmax(d2))
        tie = np.flatnonzero(d2 == d2[i])
        if len(tie) > 1:
            i = int(tie[np.argmin(self.order[pos[tie]])])
        return int(pos[i])

    def _gather(self, leaves: np.ndarray) -> np.ndarray:
        """Alive positions in the given leaves (one vectorised gather)."""
        st = self.starts[leaves]
        ln = self.ends[leaves] - st
        if len(leaves) == 1:
            pos = np.arange(st[0], st[0] + ln[0])
        else:
            off = np.cumsum(ln) - ln
            pos = np.arange(int(ln.sum())) + np.repeat(st - off, ln)
        return pos[self.alive[pos]]

    def _d2(self, pos: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Squared distances of the records at ``pos`` to q, one column at a time (the same
        arithmetic as `_mdav_scan`, and a gather of 1-D columns is ~4× faster than of
        rows)."""
        cols = self.cols
        o = cols[0].take(pos) - q[0]
        o *= o
        for j in range(1, len(cols)):
            t = cols[j].take(pos) - q[j]
            t *= t
            o += t
        return o

    # ------------------------------------------------------------------ farthest from a point
    def farthest(self, q: np.ndarray) -> int:
        """Position of the alive record farthest from q (branch and bound on the leaf boxes).

        A lower bound first, from the leaves with the largest upper bounds
        ``|max(|q − lo|, |hi − q|)|`` and the neighbours of the last k-nearest query (the
        farthest record from the next r is often near the last s); then every leaf whose box
        can hold a record at least as far is scanned in one gather.
        """
        far = np.maximum(np.abs(q - self.lo), np.abs(self.hi - q))
        ub2 = np.einsum("ij,ij->i", far, far)  # NaN for empty leaves
        m = min(4, len(ub2))
        first = np.argpartition(-ub2, m - 1)[:m]
        pos = self._gather(first)
        seed = self.seed[self.alive[self.seed]]
        if len(seed):
            pos = np.concatenate([pos, seed])
        d2 = self._d2(pos, q)
        best2 = d2.max() if len(d2) else -np.inf
        ub2[first] = -np.inf
        cand = np.flatnonzero(ub2 >= best2)
        if len(cand):
            more = self._gather(cand)
            if len(more):
                pos = np.concatenate([pos, more])
                d2 = np.concatenate([d2, self._d2(more, q)])
        return self._first_max(pos, d2)

    # ------------------------------------------------------------------ k nearest
    def _kd_build(self, pos: np.ndarray) -> None:
        self.kd = cKDTree(self.x[pos], balanced_tree=False, compact_nodes=False)
        self.kd_pos = pos
        self.kd_n = len(pos)

    def nearest(self, q: np.ndarray, k: int) -> np.ndarray:
        """Positions of the k alive records nearest to q (ties: first in the original order).

        The k-d tree (over the records alive when it was built) is asked for ``kk`` neighbours;
        the alive ones are ranked by the exact squared distance, and the answer is certified
        when the k-th is strictly nearer than the last neighbour returned (so no record not
        returned can be as near); otherwise more neighbours are asked for.
        """
        if self.n_alive * 2 < self.kd_n:
            self._kd_build(np.flatnonzero(self.alive))
        kk = max(self.kk, 4 * k)
        while True:
            m = min(kk, self.kd_n)
            d, i = self.kd.query(q, k=m)
            pos = self.kd_pos[i if m > 1 else [i]]
            pos = pos[self.alive[pos]]
            self.seed = pos
            if len(pos) >= k:
                d2 = self._d2(pos, q)
                o = np.lexsort((self.order[pos], d2))
                if m == self.kd_n or d2[o[k - 1]] < float(np.max(d)) ** 2 * (1 - 1e-9):
                    self.kk = kk if kk > self.kk else max(4 * k, self.kk - 1)
                    return pos[o[:k]]
            kk *= 2
            self.kk = kk

    # ------------------------------------------------------------------ removal
    def remove(self, pos: np.ndarray) -> None:
        """Remove records (already marked dead in ``alive``).

        Totals are updated at once; the boxes of the touched leaves are shrunk to their alive
        records every ``REFRESH`` calls (a stale box is larger, so bounds stay valid); empty
        leaves get NaN boxes, which every bound comparison treats as "skip".
        """
        self.total -= self.x[pos].sum(axis=0)
        self.n_alive -= len(pos)
        self.dirty[self.leaf_of[pos]] = True
        self.pending += 1
        if self.pending >= self.REFRESH:
            self.refresh()

    def refresh(self) -> None:
        """Shrink the boxes of the leaves that lost records."""
        self.pending = 0
        d = np.flatnonzero(self.dirty)
        self.dirty[d] = False
        g = self._gather(d)
        lv = self.leaf_of[g]
        has = np.zeros(len(self.starts), dtype=bool)
        has[lv] = True
        empty = d[~has[d]]
        self.lo[empty] = np.nan
        self.hi[empty] = np.nan
        if len(g):
            cuts = np.concatenate([[0], np.flatnonzero(np.diff(lv)) + 1])
            xs = self.x[g]
            u = lv[cuts]
            self.lo[u] = np.minimum.reduceat(xs, cuts, axis=0)
            self.hi[u] = np.maximum.reduceat(xs, cuts, axis=0)

    def remaining(self) -> np.ndarray:
        return np.flatnonzero(self.alive)
