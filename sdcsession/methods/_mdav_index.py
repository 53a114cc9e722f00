"""The branch-and-bound leaf index of MDAV (`sdcsession.methods.mdav`) on large inputs.

`_LeafIndex` stores the standardised records in the leaves of a median-split tree, each
leaf with the bounding box of its alive records, and answers the MDAV queries exactly: the
farthest record from the centroid (a list sorted by distance from an earlier centroid, pruned by
the triangle inequality), the farthest record from a point (branch and bound over the boxes
of super-leaves — runs of consecutive leaves — and then of their leaves) and the k nearest records (a
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
        self.G = max(1, int(np.sqrt(len(bounds))))
        self.sstarts = np.arange(0, len(bounds), self.G)
        self._super_boxes()
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
        """Position of the alive record farthest from q (branch and bound, two levels of boxes).

        Upper bounds ``|max(|q − lo|, |hi − q|)|`` of the super-leaves (runs of ``G`` consecutive
        leaves) and then of the leaves of the super-leaves that can still hold a record at least
        as far as the best one found; a lower bound first from the neighbours of the last
        k-nearest query (the farthest record from the next r is often near the last s) and the
        most promising leaf of the most promising super-leaf.
        """
        sfar = np.maximum(np.abs(q - self.slo), np.abs(self.shi - q))
        sub2 = np.einsum("ij,ij->i", sfar, sfar)  # NaN for empty super-leaves
        seed = self.seed[self.alive[self.seed]]
        j = int(np.argpartition(-sub2, 0)[0])
        lv = self._leaves(np.array([j]))
        lfar = np.maximum(np.abs(q - self.lo[lv]), np.abs(self.hi[lv] - q))
        lub2 = np.einsum("ij,ij->i", lfar, lfar)
        first = lv[int(np.argpartition(-lub2, 0)[0])]
        pos = self._gather(np.array([first]))
        if len(seed):
            pos = np.concatenate([pos, seed])
        d2 = self._d2(pos, q)
        best2 = d2.max() if len(d2) else -np.inf
        cs = np.flatnonzero(sub2 >= best2)
        if len(cs):
            lv = self._leaves(cs)
            lfar = np.maximum(np.abs(q - self.lo[lv]), np.abs(self.hi[lv] - q))
            lub2 = np.einsum("ij,ij->i", lfar, lfar)
            keep = (lub2 >= best2) & (lv != first)
            lv, lub2 = lv[keep], lub2[keep]
            o = np.argsort(-lub2, kind="stable")
            lv, lub2 = lv[o], lub2[o]
            i, b = 0, 4
            pos, d2 = [pos], [d2]
            while i < len(lv) and lub2[i] >= best2:  # most promising leaves first, in batches
                bl = lv[i:i + b]
                more = self._gather(bl[lub2[i:i + b] >= best2])
                if len(more):
                    dm = self._d2(more, q)
                    pos.append(more)
                    d2.append(dm)
                    best2 = max(best2, dm.max())
                i += b
                b *= 2
            pos, d2 = np.concatenate(pos), np.concatenate(d2)
        return self._first_max(pos, d2)

    def _leaves(self, supers: np.ndarray) -> np.ndarray:
        """The leaves of the given super-leaves."""
        lv = (supers[:, None] * self.G + np.arange(self.G)).ravel()
        return lv[lv < len(self.starts)]

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
        self._super_boxes()

    def _super_boxes(self) -> None:
        """Boxes of the super-leaves from the leaf boxes (NaN when all their leaves are empty)."""
        self.slo = np.fmin.reduceat(self.lo, self.sstarts, axis=0)
        self.shi = np.fmax.reduceat(self.hi, self.sstarts, axis=0)

    def remaining(self) -> np.ndarray:
        return np.flatnonzero(self.alive)
