"""Compiled RMD grouping (internal): the groups of robust-distance microaggregation on the k-d
tree with removal of `sdcsession.methods.microaggregation._mdav_jit`.

RMD forms ⌊n/k⌋ − 1 groups one after the other: the ungrouped record with the largest robust
distance and its k − 1 nearest ungrouped records. Each group is one exact k-nearest query on the
tree (whose node boxes, counts and smallest row numbers cover only the records not yet grouped)
and one removal that updates a leaf and its ancestors: O(k log n) per group in the usual case, so
O(n log n) in all, where a tree of scipy that keeps the grouped records degrades as the dead
records pile up around the queries. Ties at equal distance go to the first record in the original
order, as in `NearestIndex`; the labels are the same.

`refine_groups` is the compiled local search of
`sdcsession.methods.microaggregation.robust.refine_by_swaps` (exchanges and moves of records
between neighbouring groups while the within-group sum of squares falls).
"""

from __future__ import annotations

import numpy as np

from ...risk._jit import jit
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


@jit(nogil=True)
def _sort_members(mem, pos, g, count) -> None:
    """Insertion sort of group g's members (row numbers; a few records) and their positions."""
    for u in range(1, count):
        v = mem[g, u]
        w = u
        while w > 0 and mem[g, w - 1] > v:
            mem[g, w] = mem[g, w - 1]
            w -= 1
        mem[g, w] = v
    for u in range(count):
        pos[mem[g, u]] = u


@jit(nogil=True)
def refine_groups(z, lab, nb, lower, upper, max_passes, tol) -> int:
    """Local search of `sdcsession.methods.microaggregation.robust.refine_by_swaps` on the rows
    of z (no NaN), in place on the group labels ``lab`` (0 .. g − 1, every group of ``lower`` ..
    ``upper`` records). ``nb[i]``: the candidate neighbours of record i (row numbers; i itself
    and records of i's group are skipped). Returns the number of passes made.

    A pass visits the records in row order. For record i in group A it evaluates, over every
    other group B holding one of its neighbours, the exchange of i with each member j of B,
    ``gain = (2 S_A·d + |d|²)/n_A + (|d|² − 2 S_B·d)/n_B`` with d = z_j − z_i and S the group
    sums, and, when n_A > lower and n_B < upper, the move of i to B,
    ``gain = n_A/(n_A − 1)·|z_i − μ_A|² − n_B/(n_B + 1)·|z_i − μ_B|²`` (μ the group means); the
    largest gain above ``tol`` is made at once (ties: the first found, groups in the order of
    the neighbours, members by row number, the move after the exchanges). A record is evaluated again
    only when its group or a group of its neighbours changed since its last fruitless evaluation
    (the gains are otherwise the same numbers), so the result is that of evaluating every
    record every pass. Passes repeat until one makes no change (at most ``max_passes``).
    """
    n, p = z.shape
    g = 0
    for i in range(n):
        if lab[i] + 1 > g:
            g = lab[i] + 1
    size = np.zeros(g, np.int64)
    mem = np.full((g, upper), -1, np.int64)
    pos = np.empty(n, np.int64)
    s = np.zeros((g, p))
    for i in range(n):
        a = lab[i]
        mem[a, size[a]] = i
        pos[i] = size[a]
        size[a] += 1
        for c in range(p):
            s[a, c] += z[i, c]
    gtime = np.zeros(g, np.int64)  # the clock when the group last changed
    rtime = np.full(n, -1, np.int64)  # the clock at the record's last fruitless evaluation
    clock = 0
    m = nb.shape[1]
    passes = 0
    while passes < max_passes:
        passes += 1
        changed = False
        for i in range(n):
            a = lab[i]
            if rtime[i] >= 0:
                fresh = gtime[a] > rtime[i]
                t = 0
                while not fresh and t < m:
                    fresh = gtime[lab[nb[i, t]]] > rtime[i]
                    t += 1
                if not fresh:
                    continue
            na = size[a]
            best = tol
            bj = -1
            bb = -1
            for t in range(m):
                b = lab[nb[i, t]]
                if b == a:
                    continue
                seen = False
                for u in range(t):
                    if lab[nb[i, u]] == b:
                        seen = True
                        break
                if seen:
                    continue
                nbb = size[b]
                for u in range(nbb):
                    j = mem[b, u]
                    sad = 0.0
                    sbd = 0.0
                    dd = 0.0
                    for c in range(p):
                        d = z[j, c] - z[i, c]
                        sad += s[a, c] * d
                        sbd += s[b, c] * d
                        dd += d * d
                    gain = (2.0 * sad + dd) / na + (dd - 2.0 * sbd) / nbb
                    if gain > best:
                        best = gain
                        bj = j
                        bb = b
                if na > lower and nbb < upper:
                    da = 0.0
                    db = 0.0
                    for c in range(p):
                        ea = z[i, c] - s[a, c] / na
                        eb = z[i, c] - s[b, c] / nbb
                        da += ea * ea
                        db += eb * eb
                    gain = na / (na - 1.0) * da - nbb / (nbb + 1.0) * db
                    if gain > best:
                        best = gain
                        bj = -1
                        bb = b
            if bb < 0:
                rtime[i] = clock
                continue
            if bj >= 0:  # exchange i (group a) and bj (group bb)
                for c in range(p):
                    d = z[bj, c] - z[i, c]
                    s[a, c] += d
                    s[bb, c] -= d
                pi = pos[i]
                pj = pos[bj]
                mem[a, pi] = bj
                pos[bj] = pi
                mem[bb, pj] = i
                pos[i] = pj
                lab[i] = bb
                lab[bj] = a
                _sort_members(mem, pos, a, size[a])
                _sort_members(mem, pos, bb, size[bb])
            else:  # move i to group bb
                for c in range(p):
                    s[a, c] -= z[i, c]
                    s[bb, c] += z[i, c]
                last = mem[a, size[a] - 1]
                mem[a, pos[i]] = last
                pos[last] = pos[i]
                mem[a, size[a] - 1] = -1
                size[a] -= 1
                mem[bb, size[bb]] = i
                pos[i] = size[bb]
                size[bb] += 1
                lab[i] = bb
                _sort_members(mem, pos, a, size[a])
                _sort_members(mem, pos, bb, size[bb])
            clock += 1
            gtime[a] = clock
            gtime[bb] = clock
            changed = True
        if not changed:
            break
    return passes
