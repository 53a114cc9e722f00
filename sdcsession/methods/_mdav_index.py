"""The branch-and-bound leaf index of MDAV (`sdcsession.methods.mdav`) on large inputs.

`_LeafIndex` stores the standardised records in the leaves of a median-split tree, each
leaf with the bounding box of its alive records, and answers the MDAV queries (farthest record
from the centroid, farthest record from a point, k nearest records) by branch and bound over the
leaves; records are removed as they are grouped.
"""

from __future__ import annotations

import numpy as np


class _LeafIndex:
    """Median-split tree leaves with bounding boxes of their alive records; supports removal."""

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
        self.count = sizes.copy()
        self.alive = np.ones(n, dtype=bool)
        self.total = self.x.sum(axis=0)
        self.n_alive = n
        self.dirty = np.zeros(len(bounds), dtype=bool)
        self.pending = 0
        self._rebuild(self.total / n)

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
        return int(pos[np.argmax(self._d2(pos, c))])

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

    def farthest(self, q: np.ndarray) -> int:
        """Position of the alive record farthest from q (branch and bound on the leaf boxes:
        the leaves with the largest upper bounds first, then every leaf that can still beat)."""
        far = np.maximum(np.abs(q - self.lo), np.abs(self.hi - q))
        ub2 = np.einsum("ij,ij->i", far, far)  # NaN for empty leaves
        m = min(4, len(ub2))
        first = np.argpartition(-ub2, m - 1)[:m]
        pos = self._gather(first)
        d2 = self._d2(pos, q)
        i = int(np.argmax(d2))
        best2 = d2[i]
        ub2[first] = -1.0
        cand = np.flatnonzero(ub2 > best2)
        if len(cand):
            pos2 = self._gather(cand)
            if len(pos2):
                d2b = self._d2(pos2, q)
                i2 = int(np.argmax(d2b))
                if d2b[i2] > best2:
                    return int(pos2[i2])
        return int(pos[i])

    def nearest(self, q: np.ndarray, k: int, home: int) -> np.ndarray:
        """Positions of the k alive records nearest to q, q lying in leaf ``home``.

        Branch and bound: the home leaf gives a first k-th distance (or, if it has fewer than k
        alive records, the leaves with the smallest lower bounds), then every leaf whose box
        lower bound does not exceed it is scanned in one gather.
        """
        gap = np.maximum(np.maximum(self.lo - q, q - self.hi), 0.0)
        lb2 = np.einsum("ij,ij->i", gap, gap)  # NaN for empty leaves
        s, e = self.starts[home], self.ends[home]
        pos = np.flatnonzero(self.alive[s:e]) + s
        if len(pos) >= k:
            lb2[home] = np.inf
        else:
            first = np.argsort(lb2)
            need = int(np.searchsorted(np.cumsum(self.count[first]), k)) + 1
            pos = self._gather(first[:need])
            lb2[first[:need]] = np.inf
        d2 = self._d2(pos, q)
        kth2 = np.partition(d2, k - 1)[k - 1]
        cand = np.flatnonzero(lb2 <= kth2)
        if len(cand):
            more = self._gather(cand)
            pos = np.concatenate([pos, more])
            d2 = np.concatenate([d2, self._d2(more, q)])
        if len(pos) == k:
            return pos
        return pos[np.argpartition(d2, k - 1)[:k]]

    def remove(self, pos: np.ndarray) -> None:
        """Remove records (already marked dead in ``alive``).

        Totals and counts are updated at once; the boxes of the touched leaves are shrunk to
        their alive records every 8 calls (a stale box is larger, so bounds stay valid); empty
        leaves get NaN boxes, which every bound comparison treats as "skip".
        """
        self.total -= self.x[pos].sum(axis=0)
        self.n_alive -= len(pos)
        lv = self.leaf_of[pos]
        np.subtract.at(self.count, lv, 1)
        self.dirty[lv] = True
        self.pending += 1
        if self.pending >= 8:
            self.refresh()

    def refresh(self) -> None:
        """Shrink the boxes of the leaves that lost records."""
        self.pending = 0
        d = np.flatnonzero(self.dirty)
        self.dirty[d] = False
        empty = self.count[d] == 0
        self.lo[d[empty]] = np.nan
        self.hi[d[empty]] = np.nan
        d = d[~empty]
        if len(d):
            g = self._gather(d)
            cuts = np.concatenate([[0], np.flatnonzero(np.diff(self.leaf_of[g])) + 1])
            xs = self.x[g]
            self.lo[d] = np.minimum.reduceat(xs, cuts, axis=0)
            self.hi[d] = np.maximum.reduceat(xs, cuts, axis=0)

    def remaining(self) -> np.ndarray:
        return np.flatnonzero(self.alive)
