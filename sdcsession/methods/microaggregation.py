"""Microaggregation of numeric variables: MDAV, individual ranking, single-axis, optimal univariate.

Records are partitioned into groups of at least ``k`` (and at most ``2k − 1``) records and each
value is replaced by its group's mean (or median).

Methods
-------
``"mdav"``
    Maximum Distance to Average Vector (Domingo-Ferrer & Mateo-Sanz 2002; Domingo-Ferrer & Torra
    2005) on the variables standardised to mean 0 and sample standard deviation 1 (ddof = 1, as R's
    ``scale``): while at least 3k records remain, take the centroid c of the remaining records,
    the record r farthest from c and the record s farthest from r; form a group of r and its k − 1
    nearest remaining records, then a group of s and its k − 1 nearest remaining records. If
    between 2k and 3k − 1 remain, form one group around the record farthest from the centroid and
    put the rest in a last group; fewer than 2k remaining form the last group. All columns are
    aggregated with the same groups.
``"individual_ranking"``
    Each variable separately: sort its values, consecutive groups of k (the last group takes the
    remainder, k..2k−1 records) (Defays & Nanopoulos 1993).
``"single"``
    Sort the records by one variable (``sort_by``, default the first column), consecutive groups of
    k as above; all columns aggregated with these groups.
``"optimal_univariate"``
    Each variable separately: the optimal k-partition of sorted values minimising the within-group
    sum of squares (Hansen & Mukherjee 2003): the optimal groups are contiguous in sorted order and
    have sizes k..2k−1, so ``best[j] = min_{s=k..2k−1} best[j−s] + SSE(j−s, j)`` (prefix sums give
    SSE in O(1)); computed k entries at a time (O(n·k) work in n/k vectorised steps).

Notes
-----
Speed of MDAV. A naive MDAV scans all remaining records four times per pair of groups: O(n²/k).
Here the standardised records are stored in the leaves (≈ √n records each) of a median-split
tree, each leaf with its centre and a covering radius. Farthest-point and k-nearest queries are
branch and bound over the leaves (upper bound ``|q − centre| + radius``, lower bound
``|q − centre| − radius``) and only visit leaves that can contain the answer; removed records are
masked and a leaf's radius is recomputed when it loses records. Once fewer than ``SCAN_BELOW``
(20,000) records remain — and for smaller inputs from the start — plain vectorised scans are
faster: one contiguous array per variable, three distance passes and two partial selections per
pair of groups, removed records masked and compacted in batches (order preserved). Results are
exact; ties resolve as in the textbook algorithm (first record in the original order) in the scans.

Missing values. Records complete on the treated columns are aggregated as above. Records with a
missing value keep it (missing stays missing) and are aggregated among themselves by missingness
pattern using their observed columns (a pattern with at least k records); records of patterns with
fewer than k records are pooled and each of their observed values is aggregated per variable by
individual ranking within the pool; observed values that cannot be placed in a group of k (fewer
than k of them in the pool) are set to missing (counted in the notes as ``suppressed``).

Strata: every method runs separately within each stratum (k must not exceed a stratum's size).

References: Domingo-Ferrer, J. & Mateo-Sanz, J. M. (2002) Practical data-oriented microaggregation
for statistical disclosure control, IEEE TKDE 14(1), 189–201. Domingo-Ferrer, J. & Torra, V. (2005)
Ordinal, continuous and heterogeneous k-anonymity through microaggregation, DMKD 11, 195–212.
Hansen, S. L. & Mukherjee, S. (2003) A polynomial algorithm for optimal univariate
microaggregation, IEEE TKDE 15(4), 1043–1044. Defays, D. & Nanopoulos, P. (1993) Panels of
enterprises and confidentiality: the small aggregates method.

Example
-------
>>> import numpy as np, pandas as pd
>>> df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0]})
>>> out, notes = microaggregation(df, ["x"], k=3)
>>> out["x"].tolist(), notes["group_sizes"]
([2.0, 2.0, 2.0, 11.0, 11.0, 11.0], {'3': 2})
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError, TreatmentError
from ..progress import Bar
from ..roles import Roles
from .base import Result, Treatment, require_columns
from .noise import _names, _opt_names, _put, numeric_block

__all__ = [
    "microaggregation", "Microaggregation", "mdav_groups", "ranking_groups",
    "optimal_univariate_groups", "within_group_ss", "MICROAGGREGATION_METHODS",
]

MICROAGGREGATION_METHODS = ("mdav", "individual_ranking", "single", "optimal_univariate")


# --------------------------------------------------------------------------- MDAV index
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
        arithmetic as :func:`_mdav_scan`, and a gather of 1-D columns is ~4× faster than of
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

    Exact MDAV (see the module docstring). While at least ``SCAN_BELOW`` records remain, the
    branch-and-bound leaf index avoids the O(n²/k) scans; the rest is done by plain vectorised
    scans (:func:`_mdav_scan`). Groups have k..2k−1 records (one group when n < 2k).
    ``progress``: show a progress bar (None: automatic, see :mod:`sdcsession.progress`).

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
    leaf_of = index.leaf_of
    while index.n_alive >= max(3 * k, stop):
        r = index.farthest_from_centroid()
        xr = index.x[r].copy()
        s = index.farthest(xr)
        g1 = index.nearest(xr, k, leaf_of[r])
        index.alive[g1] = False
        labels_pos[g1] = g
        index.remove(g1)
        if not index.alive[s]:  # only with massive ties: s fell into r's group
            s = index.farthest(xr)
        g2 = index.nearest(index.x[s].copy(), k, leaf_of[s])
        index.alive[g2] = False
        labels_pos[g2] = g + 1
        index.remove(g2)
        g += 2
        bar.update(2 * k)
    labels[index.order] = labels_pos
    return g


def ranking_groups(values: np.ndarray, k: int) -> np.ndarray:
    """Groups of k consecutive records in sorted order of ``values`` (last group k..2k−1).

    >>> ranking_groups(np.array([5.0, 1.0, 4.0, 2.0, 3.0]), 2).tolist()
    [1, 0, 1, 0, 1]
    """
    n = len(values)
    order = np.argsort(values, kind="stable")
    g = np.minimum(np.arange(n) // k, max(n // k - 1, 0))
    labels = np.empty(n, dtype=np.int64)
    labels[order] = g
    return labels


def optimal_univariate_groups(values: np.ndarray, k: int) -> np.ndarray:
    """Optimal univariate k-partition (Hansen & Mukherjee 2003): minimum within-group SS.

    Dynamic programme over sorted values, ``best[j] = min_{s=k..2k−1, s≤j} best[j−s] +
    SSE(j−s, j)``; entries j..j+k−1 depend only on entries < j, so k of them are computed per
    vectorised step.

    >>> optimal_univariate_groups(np.array([1.0, 2.0, 3.0, 10.0, 11.0, 30.0]), 2).tolist()
    [0, 0, 1, 1, 2, 2]
    """
    v = np.asarray(values, dtype=np.float64)
    n = len(v)
    if n < 2 * k:
        return np.zeros(n, dtype=np.int64)
    order = np.argsort(v, kind="stable")
    x = v[order]
    x = x - x.mean()
    c1 = np.concatenate([[0.0], np.cumsum(x)])
    c2 = np.concatenate([[0.0], np.cumsum(x * x)])
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, dtype=np.int64)
    sizes = np.arange(k, 2 * k)
    for j0 in range(k, n + 1, k):
        js = np.arange(j0, min(j0 + k, n + 1))
        starts = js[:, None] - sizes[None, :]
        ok = starts >= 0
        st = np.where(ok, starts, 0)
        cnt = js[:, None] - st
        s1 = c1[js][:, None] - c1[st]
        sse = (c2[js][:, None] - c2[st]) - s1 * s1 / cnt
        cost = np.where(ok, best[st] + sse, np.inf)
        a = np.argmin(cost, axis=1)
        best[js] = cost[np.arange(len(js)), a]
        back[js] = st[np.arange(len(js)), a]
    cuts = []
    j = n
    while j > 0:  # walks back over the groups (n/k steps)
        cuts.append(j)
        j = back[j]
    cuts = np.array(cuts[::-1])
    g_sorted = np.searchsorted(cuts, np.arange(n), side="right")
    labels = np.empty(n, dtype=np.int64)
    labels[order] = g_sorted
    return labels


def within_group_ss(z: np.ndarray, labels: np.ndarray) -> float:
    """Σ_groups Σ_records Σ_variables (z − group mean)² (NaN-free ``z``).

    >>> within_group_ss(np.array([[1.0], [3.0], [10.0]]), np.array([0, 0, 1]))
    2.0
    """
    z = np.asarray(z, dtype=np.float64)
    if z.ndim == 1:
        z = z[:, None]
    _, inv = np.unique(labels, return_inverse=True)
    cnt = np.bincount(inv)
    total = 0.0
    for j in range(z.shape[1]):
        m = np.bincount(inv, weights=z[:, j]) / cnt
        total += float(((z[:, j] - m[inv]) ** 2).sum())
    return total


def _aggregate(col: np.ndarray, labels: np.ndarray, how: str) -> np.ndarray:
    """Replace each value by its group's mean/median (labels ≥ 0 dense per call)."""
    _, inv = np.unique(labels, return_inverse=True)
    cnt = np.bincount(inv)
    if how == "mean":
        return (np.bincount(inv, weights=col) / cnt)[inv]
    order = np.lexsort((col, inv))
    starts = np.concatenate([[0], np.cumsum(cnt)[:-1]])
    lo = col[order[starts + (cnt - 1) // 2]]
    hi = col[order[starts + cnt // 2]]
    return ((lo + hi) / 2.0)[inv]


# --------------------------------------------------------------------------- kernel
def _stratum_codes(data: pd.DataFrame, strata: tuple[str, ...]) -> tuple[np.ndarray, list[Any]]:
    if not strata:
        return np.zeros(len(data), dtype=np.int64), ["all"]
    require_columns(data, list(strata), "strata")
    codes = []
    for c in strata:
        f, _ = pd.factorize(data[c], use_na_sentinel=False)
        codes.append(f)
    if len(codes) == 1:
        key = codes[0]
    else:
        key = np.ravel_multi_index(codes, [int(c.max()) + 1 for c in codes])
    inv_codes, uniq = pd.factorize(key, sort=True)
    first = np.zeros(len(uniq), dtype=np.int64)
    first[inv_codes[::-1]] = np.arange(len(data))[::-1]
    labels = [" / ".join(str(data[c].iloc[i]) for c in strata) for i in first]
    return inv_codes.astype(np.int64), labels


def microaggregation(data: pd.DataFrame, columns: list[str] | tuple[str, ...], *, k: int = 3,
                     method: str = "mdav", strata: list[str] | tuple[str, ...] | None = None,
                     aggregate: str = "mean", sort_by: str | None = None,
                     progress: bool | None = None) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Microaggregate numeric ``columns`` in groups of k..2k−1 records (see module docstring).

    Parameters
    ----------
    data : the microdata (not modified).
    columns : numeric columns.
    k : minimum group size (≥ 2).
    method : ``"mdav"``, ``"individual_ranking"``, ``"single"`` or ``"optimal_univariate"``.
    strata : columns within whose categories to work separately.
    aggregate : ``"mean"`` or ``"median"``.
    sort_by : the sort variable of ``"single"``.
    progress : progress bar for MDAV; None is automatic (on in terminals and notebooks, off in CI).

    Returns the new DataFrame (treated columns float64) and notes: ``n_groups`` (per column for
    univariate methods), ``group_sizes`` ({size: number of groups}), ``sse_std``/``sst_std``
    (within-group and total sum of squares of the standardised complete records, multivariate
    methods), ``incomplete`` records and ``suppressed`` values.

    Example
    -------
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6, 7], "b": [7.0, 6, 5, 4, 3, 2, 1]})
    >>> out, notes = microaggregation(df, ["a", "b"], k=3, method="single")
    >>> out["a"].tolist()
    [2.0, 2.0, 2.0, 5.5, 5.5, 5.5, 5.5]
    """
    columns = tuple(columns)
    strata = tuple(strata or ())
    if method not in MICROAGGREGATION_METHODS:
        raise ParameterError(f"method: expected one of {MICROAGGREGATION_METHODS}, got {method!r}")
    if aggregate not in ("mean", "median"):
        raise ParameterError(f"aggregate: expected 'mean' or 'median', got {aggregate!r}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ParameterError(f"k: expected an integer ≥ 2, got {k!r}")
    x = numeric_block(data, columns, "microaggregation")
    if method == "single":
        sort_by = sort_by or columns[0]
        if sort_by not in columns:
            raise ParameterError(f"sort_by: {sort_by!r} is not one of the columns {list(columns)}")
    sidx, slabels = _stratum_codes(data, strata)
    sizes_all = np.bincount(sidx)
    small = [slabels[i] for i in np.flatnonzero(sizes_all < k)]
    if small:
        raise TreatmentError(
            f"microaggregation: k={k} is larger than stratum/strata {small[:10]} "
            f"(sizes {sizes_all[sizes_all < k][:10].tolist()}); lower k or merge strata")
    mean = np.nanmean(x, axis=0)
    sd = np.nanstd(x, axis=0, ddof=1)
    z_all = (x - mean) / sd
    miss = np.isnan(x)
    out = x.copy()
    p = len(columns)
    group_sizes: dict[int, int] = {}
    n_groups: Any = 0 if method in ("mdav", "single") else dict.fromkeys(columns, 0)
    sse = 0.0
    suppressed = dict.fromkeys(columns, 0)

    def count(labels: np.ndarray) -> int:
        cnt = np.bincount(np.unique(labels, return_inverse=True)[1])
        for sz, m in zip(*np.unique(cnt, return_counts=True)):
            group_sizes[int(sz)] = group_sizes.get(int(sz), 0) + int(m)
        return len(cnt)

    def univariate(rows: np.ndarray, j: int) -> None:
        nonlocal n_groups
        v = x[rows, j]
        lab = (optimal_univariate_groups(v, k) if method == "optimal_univariate"
               else ranking_groups(v, k))
        out[rows, j] = _aggregate(v, lab, aggregate)
        n_groups[columns[j]] += count(lab)

    def multivariate(rows: np.ndarray, cols: np.ndarray) -> None:
        nonlocal n_groups, sse
        z = z_all[np.ix_(rows, cols)]
        if method == "mdav":
            lab = _mdav_labels(z, k, bar)
        else:
            j = columns.index(sort_by)
            lab = ranking_groups(x[rows, j], k)
        for j in cols:
            out[rows, j] = _aggregate(x[rows, j], lab, aggregate)
        n_groups += count(lab)
        if len(cols) == p:
            sse += within_group_ss(z, lab)

    n_incomplete = 0
    bar = Bar(len(data), desc="MDAV", enabled=progress if method == "mdav" else False)
    for st in range(len(slabels)):
        in_st = sidx == st
        if method in ("individual_ranking", "optimal_univariate"):
            for j in range(p):
                rows = np.flatnonzero(in_st & ~miss[:, j])
                if 0 < len(rows) < k:
                    out[rows, j] = np.nan
                    suppressed[columns[j]] += len(rows)
                elif len(rows):
                    univariate(rows, j)
            n_incomplete += int((in_st & miss.any(axis=1)).sum())
            continue
        pattern = miss[in_st]
        rows_st = np.flatnonzero(in_st)
        pat_code = pattern @ (1 << np.arange(p, dtype=np.int64)) if p < 62 else None
        if pat_code is None:  # pragma: no cover - absurdly many columns
            raise TreatmentError("microaggregation: at most 61 columns at once")
        pool: list[np.ndarray] = []
        for code in np.unique(pat_code):
            rows = rows_st[pat_code == code]
            cols = np.flatnonzero(~pattern[pat_code == code][0])
            if code != 0:
                n_incomplete += len(rows)
            if len(cols) == 0:
                continue
            if len(rows) >= k:
                multivariate(rows, cols)
            else:
                pool.append(rows)
        if pool:
            prow = np.concatenate(pool)
            for j in range(p):
                rows = prow[~miss[prow, j]]
                if 0 < len(rows) < k:
                    out[rows, j] = np.nan
                    suppressed[columns[j]] += len(rows)
                elif len(rows):
                    v = x[rows, j]
                    lab = ranking_groups(v, k)
                    out[rows, j] = _aggregate(v, lab, aggregate)
    bar.update(len(data) - bar.n)
    bar.close()
    out[miss] = np.nan
    notes: dict[str, Any] = {
        "method": method, "k": int(k), "n_groups": n_groups,
        "group_sizes": {str(s): group_sizes[s] for s in sorted(group_sizes)},
        "changed": {c: int(((out[:, j] != x[:, j]) & ~miss[:, j]).sum())
                    for j, c in enumerate(columns)},
    }
    if method in ("mdav", "single"):
        complete = ~miss.any(axis=1)
        notes["sse_std"] = sse
        zc = z_all[complete]
        notes["sst_std"] = float(((zc - zc.mean(axis=0)) ** 2).sum()) if len(zc) else 0.0
    notes["incomplete"] = n_incomplete
    if any(suppressed.values()):
        notes["suppressed"] = suppressed
    if strata:
        notes["strata"] = len(slabels)
    return _put(data, columns, out), notes


# --------------------------------------------------------------------------- treatment
@attrs.frozen
class Microaggregation(Treatment):
    """Microaggregation treatment (tag ``"microaggregation"``); see :func:`microaggregation`.

    >>> Microaggregation(["income"], k=3).describe()
    "microaggregation(columns=['income'], k=3, method='mdav', strata=[], aggregate='mean', sort_by=None)"
    """

    type: ClassVar[str] = "microaggregation"
    random: ClassVar[bool] = False

    columns: tuple[str, ...] = attrs.field(converter=lambda v: _names(v, "columns"))
    k: int = attrs.field(default=3)
    method: str = attrs.field(default="mdav")
    strata: tuple[str, ...] = attrs.field(default=(), converter=lambda v: _opt_names(v, "strata"))
    aggregate: str = attrs.field(default="mean")
    sort_by: str | None = attrs.field(default=None)

    @k.validator
    def _k(self, _a: Any, v: Any) -> None:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 2:
            raise ParameterError(f"k: expected an integer ≥ 2 (minimum group size), got {v!r}")

    @method.validator
    def _m(self, _a: Any, v: Any) -> None:
        if v not in MICROAGGREGATION_METHODS:
            raise ParameterError(f"method: expected one of {MICROAGGREGATION_METHODS}, got {v!r}")

    @aggregate.validator
    def _g(self, _a: Any, v: Any) -> None:
        if v not in ("mean", "median"):
            raise ParameterError(f"aggregate: expected 'mean' or 'median', got {v!r}")

    @sort_by.validator
    def _s(self, _a: Any, v: Any) -> None:
        if v is not None and v not in self.columns:
            raise ParameterError(f"sort_by: {v!r} is not one of the columns {list(self.columns)}")

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        numeric_block(data, self.columns, "microaggregation")
        require_columns(data, list(self.strata), "microaggregation strata")
        if len(data) < self.k:
            raise TreatmentError(f"microaggregation: k={self.k} exceeds the {len(data)} records")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = microaggregation(data, self.columns, k=self.k, method=self.method,
                                      strata=self.strata, aggregate=self.aggregate,
                                      sort_by=self.sort_by, progress=None)
        return Result(out, notes=notes)
