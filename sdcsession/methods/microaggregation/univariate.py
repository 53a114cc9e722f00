"""Univariate groupings of microaggregation: individual ranking and optimal univariate.

`ranking_groups` (consecutive groups of k in sorted order; methods ``"individual_ranking"``
and ``"single"`` of `microaggregation`) and
`optimal_univariate_groups` (the k-partition of minimum within-group sum of squares; method
``"optimal_univariate"``). Both return group labels 0, 1, ... with groups of k..2k−1 records.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ranking_groups", "optimal_univariate_groups"]


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
