"""k-nearest-neighbour queries among records that are removed as they are grouped (internal;
used by the RMD microaggregation, `sdcsession.methods.microaggregation.robust`).

`NearestIndex` keeps a `scipy.spatial.cKDTree` over the records alive when it was built (rebuilt
when half of them are gone), asks it for a few more neighbours than k, keeps the alive ones and
certifies the answer: the k-th exact squared distance must be strictly below the last distance
returned, so no record not returned can be as near; otherwise it asks for more. Ties at equal
distance go to the first record in the original order.
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []


class NearestIndex:
    """The rows of ``z`` with an ``alive`` flag each; `nearest` answers among the alive ones."""

    def __init__(self, z: np.ndarray):
        self.x = np.ascontiguousarray(z, dtype=np.float64)
        self.cols = [np.ascontiguousarray(self.x[:, j]) for j in range(self.x.shape[1])]
        self.alive = np.ones(len(self.x), dtype=bool)
        self.n_alive = len(self.x)
        self.kk = 0  # neighbours asked of the k-d tree (grows when too few are alive)
        self._build(np.arange(len(self.x)))

    def _build(self, rows: np.ndarray) -> None:
        from scipy.spatial import cKDTree

        self.kd = cKDTree(self.x[rows], balanced_tree=False, compact_nodes=False)
        self.kd_rows = rows
        self.kd_n = len(rows)

    def _d2(self, rows: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Squared distances of ``rows`` to q, one column at a time."""
        o = self.cols[0].take(rows) - q[0]
        o *= o
        for j in range(1, len(self.cols)):
            t = self.cols[j].take(rows) - q[j]
            t *= t
            o += t
        return o

    def nearest(self, q: np.ndarray, k: int) -> np.ndarray:
        """Rows of the k alive records nearest to q (ties: first in the original order)."""
        if self.n_alive * 2 < self.kd_n:
            self._build(np.flatnonzero(self.alive))
        kk = max(self.kk, 4 * k)
        while True:
            m = min(kk, self.kd_n)
            d, i = self.kd.query(q, k=m)
            rows = self.kd_rows[i if m > 1 else [i]]
            rows = rows[self.alive[rows]]
            if len(rows) >= k:
                d2 = self._d2(rows, q)
                o = np.lexsort((rows, d2))
                if m == self.kd_n or d2[o[k - 1]] < float(np.max(d)) ** 2 * (1 - 1e-9):
                    self.kk = kk if kk > self.kk else max(4 * k, self.kk - 1)
                    return rows[o[:k]]
            kk *= 2
            self.kk = kk

    def remove(self, rows: np.ndarray) -> None:
        """Remove alive records (distinct rows, e.g. an answer of `nearest`) from the queries."""
        self.alive[rows] = False
        self.n_alive -= len(rows)
