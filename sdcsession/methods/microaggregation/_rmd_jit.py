"""Compiled RMD grouping (internal): the groups of robust-distance microaggregation on the k-d
tree with removal of `sdcsession.methods.microaggregation._mdav_jit`.

RMD forms ⌊n/k⌋ − 1 groups one after the other: the ungrouped record with the largest robust
distance and its k − 1 nearest ungrouped records. Each group is one exact k-nearest query on the
tree (whose node boxes, counts and smallest row numbers cover only the records not yet grouped)
and one removal that updates a leaf and its ancestors: O(k log n) per group in the usual case, so
O(n log n) in all, where a tree of scipy that keeps the grouped records degrades as the dead
records pile up around the queries. Ties at equal distance go to the first record in the original
order, as in `NearestIndex`; the labels are the same.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ._mdav_jit import _nearest, _remove, removal_tree

__all__: list[str] = []


@jit(nogil=True)
def _groups(queue, k, g_count, x, orig, alive, start, end, lo, hi, cnt, minorig, leaf_of,
            first_leaf, labels) -> None:
    """Label groups 0 .. g_count − 2 (the last group is the rest, labelled by the caller)."""
    p = x.shape[1]
    stack = np.empty(2 * 64 + 2, np.int64)
    bnd = np.empty(2 * 64 + 2)
    q = np.empty(p)
    sel = np.empty(k, np.int64)
    wd = np.empty(k)
    wo = np.empty(k, np.int64)
    ptr = 0
    for g in range(g_count - 1):
        while not alive[queue[ptr]]:
            ptr += 1
        r = queue[ptr]
        for j in range(p):
            q[j] = x[r, j]
        _nearest(q, k, x, orig, alive, start, end, lo, hi, cnt, minorig, first_leaf, stack, bnd,
                 sel, wd, wo)
        for t in range(k):
            labels[orig[sel[t]]] = g
        _remove(sel, x, orig, alive, start, end, lo, hi, cnt, minorig, leaf_of)


def rmd_groups_jit(z: np.ndarray, k: int, d2: np.ndarray) -> np.ndarray:
    """RMD group labels of the rows of z (no NaN), records ordered by ``d2`` (largest first,
    ties in the original order); ⌊n/k⌋ groups, the last one of k..2k − 1 records."""
    z = np.ascontiguousarray(z, dtype=np.float64)
    n, p = z.shape
    g_count = max(n // k, 1)
    labels = np.full(n, g_count - 1, dtype=np.int64)
    if g_count == 1:
        return labels
    x, perm, alive, start, end, lo, hi, cnt, minorig, leaf_of, first_leaf = removal_tree(z)
    pos = np.empty(n, np.int64)
    pos[perm] = np.arange(n)
    queue = pos[np.argsort(-np.asarray(d2, dtype=np.float64), kind="stable")]
    _groups(queue, int(k), g_count, x, perm, alive, start, end, lo, hi, cnt, minorig, leaf_of,
            first_leaf, labels)
    return labels
