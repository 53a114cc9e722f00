"""Many keys: local suppression by clustering sorted records (internal; numba kernels).

The default many-keys engine is now the hub trie (`hub_suppress`, module
`sdcsession.methods.suppression._hub_trie`; `MANY_KEYS_ENGINE`), which suppresses fewer values
on the census-like benchmark (25,767 against 44,997 at 10,000 x 15 keys, 201,600 against
3,660,688 at 1,000,000); the clustering below stays available (``engine="cluster"`` of
`sdcsession.methods.suppression.local.local_suppression`, or ``MANY_KEYS_ENGINE = "cluster"`` for ``engine="auto"``).

With many keys (more than `CLUSTER_KEYS`) almost every record of a large file is unique, and
the suppression rounds of `sdcsession.methods.suppression._search` need several suppressions
per record, each found by counting compatible records over all missing patterns: more than an
hour on 1,000,000 records with 15 keys. This module solves the same problem (every record
compatible with at least k records, missing values being wildcards) as a clustering problem:

1. *Sort.* Records are sorted lexicographically on the keys, the keys taken by increasing
   number of categories (with ``importance``: the most important first), so that neighbours
   share as many leading keys as possible. Cost: one ``np.lexsort``, O(n p log n).
2. *Partition.* The sorted records are cut into consecutive groups of k to 2k - 1 records.
   Within a group every key keeps its most frequent observed value and the other observed
   values are suppressed, so that every two records of the group agree or one is missing on
   every key: each record is compatible with at least the k records of its group, and the
   result is k-anonymous by construction (suppression never lowers an fk, so the records
   outside the group only add to it). The cost of a group is the number of values suppressed,
    ``sum over keys of (observed values - frequency of the mode)`` (with ``importance``: each
   key's suppressions weighted by ``B^level``, ``B = 2 k p``, so a more important key is
   suppressed only to save many less important ones). Groups larger than 2k - 1 are never
   needed: splitting a group never raises its cost. The partition of least total cost is
   found exactly by dynamic programming over the cut points:
   ``best[i] = min over s in [k, 2k - 1] of best[i - s] + cost(i - s, i)``.
   Cost: O(n k^3 p) operations (k values of s, a group cost in O(k^2 p)), compiled.
3. *Restoration* (in `sdcsession.methods.suppression._core.solve`): on files small enough
   the restoration pass of `sdcsession.methods.suppression._restore` gives back the values no
   longer needed (the other groups' wildcards may make them superfluous).

The optimal partition for a fixed order is not the optimal suppression (the problem is
NP-hard: Meyerson & Williams 2004), but on census-like files with 15 keys it suppresses
20-30 % fewer values than the greedy key-set rounds, in seconds instead of hours.

References: Aggarwal et al. (2005), *Approximation algorithms for k-anonymity*, J. Privacy
Technology (k-anonymity by suppression as clustering into groups of at least k records);
Meyerson & Williams (2004), *On the complexity of optimal k-anonymity*, PODS; LeFevre,
DeWitt & Ramakrishnan (2006), *Mondrian multidimensional k-anonymity*, ICDE (partitions of
sorted records).
"""

from __future__ import annotations

import numpy as np

from ...risk._jit import jit
from ._hub_trie import default_cap, hub_trie

__all__ = ["CLUSTER_KEYS", "MANY_KEYS_ENGINE", "cluster_suppress", "hub_suppress"]

#: the clustering replaces the suppression rounds beyond this many keys (unit weights)
CLUSTER_KEYS = 11
#: the many-keys engine: ``"hub_trie"`` (`sdcsession.methods.suppression._hub_trie`, fewer
#: suppressions: 25,781 against 44,997 at 10,000 x 15 keys, 129,947 against 421,065 at
#: 100,000) or ``"cluster"`` (the clustering of this module)
MANY_KEYS_ENGINE = "hub_trie"


@jit()
def _group_cost(S, cw, a, b):  # pragma: no cover - compiled
    """Cost of group ``S[a:b]``: per key, (observed - mode frequency) x the key's weight."""
    c = 0.0
    for t in range(S.shape[1]):
        best = 0
        obs = 0
        for i in range(a, b):
            v = S[i, t]
            if v < 0:
                continue
            obs += 1
            f = 0
            for j in range(a, b):
                if S[j, t] == v:
                    f += 1
            if f > best:
                best = f
        c += (obs - best) * cw[t]
    return c


@jit()
def _partition(S, cw, k):  # pragma: no cover - compiled
    """Group sizes of the least-cost partition of the sorted rows ``S`` into consecutive groups
    of ``k`` to ``2k - 1`` rows (``len(S) >= k``): ``size[i]`` = the size of the group ending
    at row ``i`` (0 elsewhere). Ties: the first size tried (the smallest)."""
    n = S.shape[0]
    best = np.full(n + 1, np.inf)
    arg = np.zeros(n + 1, np.int64)
    best[0] = 0.0
    for i in range(k, n + 1):
        for s in range(k, 2 * k):
            a = i - s
            if a < 0:
                break
            if best[a] == np.inf:
                continue
            c = best[a] + _group_cost(S, cw, a, i)
            if c < best[i] - 1e-9:
                best[i] = c
                arg[i] = s
    size = np.zeros(n, np.int64)
    i = n
    while i > 0:
        size[i - 1] = arg[i]
        i -= arg[i]
    return size


@jit()
def _suppress_groups(S, size):  # pragma: no cover - compiled
    """Cells to suppress: per group and key, the observed values other than the mode (ties:
    the value of the first row holding it)."""
    n, p = S.shape
    M = np.zeros((n, p), np.bool_)
    i = n
    while i > 0:
        a = i - size[i - 1]
        for t in range(p):
            keep = -1
            bf = 0
            for r in range(a, i):
                v = S[r, t]
                if v < 0:
                    continue
                f = 0
                for j in range(a, i):
                    if S[j, t] == v:
                        f += 1
                if f > bf:
                    bf = f
                    keep = v
            for r in range(a, i):
                if S[r, t] >= 0 and S[r, t] != keep:
                    M[r, t] = True
        i = a
    return M


def cluster_suppress(X: np.ndarray, cols: np.ndarray, cards: np.ndarray, k: float,
                     rank: np.ndarray | None = None,
                     cost: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Cells to suppress so that every row of ``X`` is compatible with at least ``k`` rows on
    ``cols`` (see the module): returns ``(rows, cols)`` of the cells, in row order.

    ``cards``: categories per key of ``cols``; ``rank``: per key of ``cols``, larger = less
    important (suppressed first), or None; ``cost``: per key of ``cols``, a factor on the cost
    of its suppressions (household-level keys), or None. Needs ``len(X) >= k``. Deterministic: ties in the
    sort are broken by row order.

    Missing values: codes ``-1`` are wildcards; they are never suppressed and match every value
    of their group.

    Example
    -------
    >>> X = np.array([[0, 0, 1], [0, 0, 2], [0, 1, 1], [1, 1, 1]])
    >>> r, c = cluster_suppress(X, np.arange(3), np.array([2, 2, 3]), 2)
    >>> list(zip(r.tolist(), c.tolist()))
    [(1, 2), (3, 0)]
    """
    cols = np.asarray(cols, np.int64)
    p = len(cols)
    k = int(np.ceil(k - 1e-9))
    if rank is None:
        order = np.argsort(np.asarray(cards), kind="stable")
        cw = np.ones(p)
    else:
        rank = np.asarray(rank, float)
        order = np.lexsort((np.asarray(cards), rank))  # most important first, then fewest codes
        levels = np.unique(rank, return_inverse=True)[1].ravel()
        lv = levels.max() - levels  # 0 = least important
        cw = float(2 * k * p) ** lv.astype(float)
    if cost is not None:
        cw = cw * np.asarray(cost, float)
    S = X[:, cols[order]].astype(np.int64)
    perm = np.lexsort(S.T[::-1])
    S = np.ascontiguousarray(S[perm])
    size = _partition(S, np.ascontiguousarray(cw[order]), max(k, 1))
    M = _suppress_groups(S, size)
    rr, tt = np.nonzero(M)
    rows = perm[rr]
    vs = cols[order[tt]]
    srt = np.lexsort((vs, rows))
    return rows[srt], vs[srt]


def _order_weights(cards: np.ndarray, rank: np.ndarray | None, cost: np.ndarray | None,
                   k: int) -> tuple[np.ndarray, np.ndarray]:
    """Key order (fewest categories first; with ``rank`` most important first) and per-key
    suppression weights (``B^level``, ``B = 2 k p``, times ``cost``), as `cluster_suppress`."""
    p = len(cards)
    if rank is None:
        order = np.argsort(np.asarray(cards), kind="stable")
        cw = np.ones(p)
    else:
        rank = np.asarray(rank, float)
        order = np.lexsort((np.asarray(cards), rank))
        levels = np.unique(rank, return_inverse=True)[1].ravel()
        cw = float(2 * k * p) ** (levels.max() - levels).astype(float)
    if cost is not None:
        cw = cw * np.asarray(cost, float)
    return order, cw


def hub_suppress(X: np.ndarray, cols: np.ndarray, cards: np.ndarray, k: float,
                 rank: np.ndarray | None = None, cost: np.ndarray | None = None,
                 cap: int | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Cells to suppress by the hub-trie programme (`sdcsession.methods.suppression._hub_trie`;
    at most ``cap`` values per record, default floor(p / 2), except its fallback records):
    ``(rows, cols)`` in row order, as `cluster_suppress` (same ``rank``, ``cost``), and the
    number of fallback records.

    Missing values: codes ``-1``; never suppressed, a value of their own in the trie.

    Example
    -------
    >>> X = np.array([[0, 0], [0, 1], [0, 2]])
    >>> r, c, _ = hub_suppress(X, np.arange(2), np.array([1, 3]), 2)
    >>> list(zip(r.tolist(), c.tolist()))
    [(0, 1)]
    """
    cols = np.asarray(cols, np.int64)
    p = len(cols)
    k = int(np.ceil(k - 1e-9))
    cap = default_cap(p) if cap is None else min(int(cap), p)
    order, cw = _order_weights(np.asarray(cards), rank, cost, k)
    res = hub_trie(X[:, cols], max(k, 1), cap, weights=cw, order=order)
    rr, tt = np.nonzero(res.mask)
    return rr.astype(np.int64), cols[tt], int(res.fallback.sum())
