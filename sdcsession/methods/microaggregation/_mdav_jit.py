"""Compiled MDAV (internal): a k-d tree with removal, and the MDAV iterations on it.

MDAV is sequential — every pair of groups depends on the records the earlier pairs removed — so
its iterations cannot be vectorised over records; they run here as numba-compiled loops.

The tree: the standardised records are permuted so that every node of a median-split binary tree
(root 0, children ``2i + 1`` and ``2i + 2``, split on the widest variable of the node's records,
leaves of at most ``LEAF`` records, all at the same depth) covers a contiguous range of positions.
Every node keeps the bounding box of its alive records, their number and the smallest original
row number among them; removing a record updates its leaf exactly and then its ancestors (union
of the children's boxes), so the bounds stay tight as MDAV eats the data from the outside in.

Queries (exact, ties resolved as in the plain scans of `sdcsession.methods.microaggregation.mdav`: the record
first in the original order):

- farthest alive record from a point q: depth-first branch and bound, the child with the larger
  upper bound ``Σ_j max(|q_j − lo_j|, |hi_j − q_j|)²`` first; a node is skipped when its bound is
  below the best squared distance found (or equal to it and its smallest row number is not
  smaller than the best's);
- the k nearest alive records to q: the same with the lower bound
  ``Σ_j max(lo_j − q_j, 0, q_j − hi_j)²`` and a sorted list of the k best (distance, row) pairs.

The bounds are computed with the same floating-point operations as the distances, and rounding is
monotone, so a record's squared distance never exceeds its box's upper bound nor falls below its
lower bound: pruning never loses the exact answer.
"""

from __future__ import annotations

import numpy as np

from ...risk._jit import jit

__all__: list[str] = []

#: records per leaf of the tree
LEAF = 8



@jit(nogil=True)
def _select(perm: np.ndarray, x: np.ndarray, dim: int, s: int, e: int, m: int) -> None:
    """Reorder ``perm[s:e]`` so that ``x[perm[m], dim]`` is the value of rank m − s and the
    records before (after) it are not larger (smaller): three-way quickselect."""
    while e - s > 1:
        a = x[perm[s], dim]
        b = x[perm[(s + e) // 2], dim]
        c = x[perm[e - 1], dim]
        piv = max(min(a, b), min(max(a, b), c))  # median of three
        lt, i, gt = s, s, e
        while i < gt:
            v = x[perm[i], dim]
            if v < piv:
                t = perm[lt]
                perm[lt] = perm[i]
                perm[i] = t
                lt += 1
                i += 1
            elif v > piv:
                gt -= 1
                t = perm[gt]
                perm[gt] = perm[i]
                perm[i] = t
            else:
                i += 1
        if m < lt:
            e = lt
        elif m >= gt:
            s = gt
        else:
            return


@jit(nogil=True)
def _build(z: np.ndarray, depth: int):
    """Tree of the given depth over the rows of z: (perm, start, end) with ``perm`` the original
    row of every position and ``start``/``end`` the position range of every node."""
    n, p = z.shape
    nn = 2 ** (depth + 1) - 1
    perm = np.arange(n)
    start = np.zeros(nn, np.int64)
    end = np.zeros(nn, np.int64)
    end[0] = n
    for node in range(2 ** depth - 1):  # internal nodes, parents before children
        s, e = start[node], end[node]
        best, dim = -1.0, 0
        for j in range(p):
            lo, hi = np.inf, -np.inf
            for i in range(s, e):
                v = z[perm[i], j]
                lo = min(lo, v)
                hi = max(hi, v)
            if e > s and hi - lo > best:
                best, dim = hi - lo, j
        m = s + (e - s) // 2
        if e - s > 1:
            _select(perm, z, dim, s, e, m)
        start[2 * node + 1], end[2 * node + 1] = s, m
        start[2 * node + 2], end[2 * node + 2] = m, e
    return perm, start, end


@jit(nogil=True)
def _refresh_leaf(leaf, x, orig, alive, start, end, lo, hi, cnt, minorig) -> None:
    """Exact box, count and smallest row number of the alive records of one leaf."""
    p = x.shape[1]
    c = 0
    mo = np.iinfo(np.int64).max
    for j in range(p):
        lo[leaf, j] = np.inf
        hi[leaf, j] = -np.inf
    for i in range(start[leaf], end[leaf]):
        if alive[i]:
            c += 1
            mo = min(mo, orig[i])
            for j in range(p):
                lo[leaf, j] = min(lo[leaf, j], x[i, j])
                hi[leaf, j] = max(hi[leaf, j], x[i, j])
    cnt[leaf] = c
    minorig[leaf] = mo


@jit(nogil=True)
def _merge_up(node, lo, hi, cnt, minorig) -> None:
    """Box, count and smallest row number of an internal node from its two children."""
    a, b = 2 * node + 1, 2 * node + 2
    cnt[node] = cnt[a] + cnt[b]
    minorig[node] = min(minorig[a], minorig[b])
    for j in range(lo.shape[1]):
        lo[node, j] = min(lo[a, j], lo[b, j])
        hi[node, j] = max(hi[a, j], hi[b, j])


@jit(nogil=True)
def _d2(x, i, q) -> float:
    """Squared distance of position i to q (the arithmetic of the plain scans)."""
    t = x[i, 0] - q[0]
    o = t * t
    for j in range(1, x.shape[1]):
        t = x[i, j] - q[j]
        o += t * t
    return o


@jit(nogil=True)
def _ub2(node, lo, hi, q) -> float:
    """Largest squared distance from q to a point of the node's box."""
    o = 0.0
    for j in range(lo.shape[1]):
        a = q[j] - lo[node, j]
        b = hi[node, j] - q[j]
        t = a if a > b else b
        o += t * t
    return o


@jit(nogil=True)
def _lb2(node, lo, hi, q) -> float:
    """Smallest squared distance from q to the node's box."""
    o = 0.0
    for j in range(lo.shape[1]):
        t = 0.0
        if q[j] < lo[node, j]:
            t = lo[node, j] - q[j]
        elif q[j] > hi[node, j]:
            t = q[j] - hi[node, j]
        o += t * t
    return o


@jit(nogil=True)
def _farthest(q, x, orig, alive, start, end, lo, hi, cnt, minorig, first_leaf, stack, bnd):
    """Position of the alive record farthest from q (ties: smallest original row)."""
    best, best_o, best_i = -1.0, np.iinfo(np.int64).max, -1
    top = 0
    stack[0] = 0
    bnd[0] = _ub2(0, lo, hi, q)
    top = 1
    while top:
        top -= 1
        node = stack[top]
        u = bnd[top]
        if cnt[node] == 0 or u < best or (u == best and minorig[node] >= best_o):
            continue
        if node >= first_leaf:
            for i in range(start[node], end[node]):
                if alive[i]:
                    d = _d2(x, i, q)
                    if d > best or (d == best and orig[i] < best_o):
                        best, best_o, best_i = d, orig[i], i
            continue
        a, b = 2 * node + 1, 2 * node + 2
        ua, ub = _ub2(a, lo, hi, q), _ub2(b, lo, hi, q)
        if ua > ub:  # push the more promising child last (it is popped first)
            a, b, ua, ub = b, a, ub, ua
        stack[top], bnd[top] = a, ua
        stack[top + 1], bnd[top + 1] = b, ub
        top += 2
    return best_i


@jit(nogil=True)
def _nearest(q, k, x, orig, alive, start, end, lo, hi, cnt, minorig, first_leaf, stack, bnd,
             out_i, out_d, out_o) -> None:
    """Positions of the k alive records nearest to q into ``out_i`` (ties: smallest original
    row first); ``out_d``/``out_o`` are work arrays of length k (sorted best first)."""
    big = np.iinfo(np.int64).max
    for t in range(k):
        out_d[t] = np.inf
        out_o[t] = big
        out_i[t] = -1
    stack[0] = 0
    bnd[0] = _lb2(0, lo, hi, q)
    top = 1
    while top:
        top -= 1
        node = stack[top]
        lb = bnd[top]
        wd, wo = out_d[k - 1], out_o[k - 1]
        if cnt[node] == 0 or lb > wd or (lb == wd and minorig[node] >= wo):
            continue
        if node >= first_leaf:
            for i in range(start[node], end[node]):
                if not alive[i]:
                    continue
                d = _d2(x, i, q)
                o = orig[i]
                if d < out_d[k - 1] or (d == out_d[k - 1] and o < out_o[k - 1]):
                    t = k - 1  # insertion into the sorted list of the k best
                    while t > 0 and (d < out_d[t - 1] or (d == out_d[t - 1] and o < out_o[t - 1])):
                        out_d[t], out_o[t], out_i[t] = out_d[t - 1], out_o[t - 1], out_i[t - 1]
                        t -= 1
                    out_d[t], out_o[t], out_i[t] = d, o, i
            continue
        a, b = 2 * node + 1, 2 * node + 2
        la, lb_ = _lb2(a, lo, hi, q), _lb2(b, lo, hi, q)
        if la < lb_:  # the nearer child is popped first
            a, b, la, lb_ = b, a, lb_, la
        stack[top], bnd[top] = a, la
        stack[top + 1], bnd[top + 1] = b, lb_
        top += 2


@jit(nogil=True)
def _remove(sel, x, orig, alive, start, end, lo, hi, cnt, minorig, leaf_of) -> None:
    """Mark the positions ``sel`` dead and update their leaves and the leaves' ancestors."""
    for t in range(len(sel)):
        alive[sel[t]] = False
    for t in range(len(sel)):
        node = leaf_of[sel[t]]
        _refresh_leaf(node, x, orig, alive, start, end, lo, hi, cnt, minorig)
        while node > 0:
            node = (node - 1) // 2
            _merge_up(node, lo, hi, cnt, minorig)


#: records kept in the list of the farthest from the reference point (see `_rebuild_ref`)
TOP = 8192


def _rebuild_ref(c, x, alive, ref, sd, spos, lst) -> None:
    """The list of the records farthest from ``ref`` (set to c): the ``TOP`` alive positions of
    largest distance D from c (all of those tied with the last), sorted by decreasing D, into
    ``spos``/``sd``; ``ref[p]`` = the largest D of the records left out (−1 if none); ``lst``
    = [0, length, 0, alive records]. Vectorised (numpy), called between compiled runs."""
    p = x.shape[1]
    ref[:p] = c
    pos = np.flatnonzero(alive)
    xa = x[pos]
    t = xa[:, 0] - c[0]
    d2 = t * t
    for j in range(1, p):
        t = xa[:, j] - c[j]
        d2 += t * t
    d = np.sqrt(d2)
    m = len(d)
    if m > TOP:
        thr = np.partition(d, m - TOP)[m - TOP]
        keep = d >= thr
        ref[p] = d[~keep].max() if not keep.all() else -1.0
        pos, d = pos[keep], d[keep]
    else:
        ref[p] = -1.0
    o = np.argsort(-d, kind="stable")
    spos[:len(o)] = pos[o]
    sd[:len(o)] = d[o]
    lst[:] = (0, len(o), 0, m)


@jit(nogil=True)
def _farthest_from_centroid(c, x, orig, alive, ref, sd, spos, lst) -> int:
    """Position of the alive record farthest from c, from the list of the records farthest from
    an earlier reference c0 = ``ref[:p]`` (``lst`` = [first alive entry, length]), or −1 when
    the list cannot tell (the caller rebuilds it around c).

    With D the distance from c0 and δ = |c − c0|, d(x, c) ≤ D(x) + δ and the first alive
    record of the list is at least D_top − δ from c: a record with D(x) < D_top − 2δ cannot
    be the farthest. Only the list entries above that cut are measured; the list can tell when
    the records left out of it (D ≤ ``ref[p]``) are all below the cut. The entries scanned
    since the last rebuild are counted in ``lst[2]``: once they exceed four times the alive
    records (``lst[3]``), rebuilding around the new centroid is cheaper than scanning on.
    """
    p = x.shape[1]
    top, m = lst[0], lst[1]
    if m == 0:
        return -1
    while top < m and not alive[spos[top]]:
        top += 1
    lst[0] = top
    if top >= m:
        return -1
    dl = 0.0
    for j in range(p):
        t = c[j] - ref[j]
        dl += t * t
    # 2δ, plus a margin for the rounding of the square roots
    cut = sd[top] - 2.0 * np.sqrt(dl) - 1e-9 * (1.0 + sd[top])
    if ref[p] >= cut:
        return -1
    best, best_o, best_i = -1.0, np.iinfo(np.int64).max, -1
    t = top
    while t < m and sd[t] >= cut:
        i = spos[t]
        if alive[i]:
            d = _d2(x, i, c)
            if d > best or (d == best and orig[i] < best_o):
                best, best_o, best_i = d, orig[i], i
        t += 1
    lst[2] += t - top
    if lst[2] > lst[3] * 4:
        lst[2] = 0
        lst[1] = 0  # the next call rebuilds
    return best_i


@jit(nogil=True)
def _iterate(x, orig, alive, start, end, lo, hi, cnt, minorig, leaf_of, first_leaf, total,
             k, labels, state, max_pairs, ref, sd, spos, lst) -> None:
    """Up to ``max_pairs`` MDAV iterations (two groups each) while at least 3k records remain;
    then, if fewer than 3k remain, the last one or two groups. ``state`` = [alive, next label]."""
    p = x.shape[1]
    n_alive, g = state[0], state[1]
    stack = np.empty(2 * 64 + 2, np.int64)
    bnd = np.empty(2 * 64 + 2)
    c = np.empty(p)
    xr = np.empty(p)
    xs = np.empty(p)
    sel = np.empty(k, np.int64)
    wd = np.empty(k)
    wo = np.empty(k, np.int64)
    args = (x, orig, alive, start, end, lo, hi, cnt, minorig, first_leaf, stack, bnd)
    pairs = 0
    while n_alive >= 3 * k and pairs < max_pairs:
        for j in range(p):
            c[j] = total[j] / n_alive
        r = _farthest_from_centroid(c, x, orig, alive, ref, sd, spos, lst)
        if r < 0:  # the caller rebuilds the list around the centroid and calls again
            state[2] = 1
            break
        for j in range(p):
            xr[j] = x[r, j]
        s = _farthest(xr, *args)
        _nearest(xr, k, *args, sel, wd, wo)
        _take(sel, g, x, orig, alive, start, end, lo, hi, cnt, minorig, leaf_of, total, labels)
        if not alive[s]:  # only with massive ties: s fell into r's group
            s = _farthest(xr, *args)
        for j in range(p):
            xs[j] = x[s, j]
        _nearest(xs, k, *args, sel, wd, wo)
        _take(sel, g + 1, x, orig, alive, start, end, lo, hi, cnt, minorig, leaf_of, total,
              labels)
        n_alive -= 2 * k
        g += 2
        pairs += 1
    if n_alive < 3 * k:
        if n_alive >= 2 * k:
            for j in range(p):  # the centroid of the rest, summed afresh
                c[j] = 0.0
            for i in range(len(alive)):
                if alive[i]:
                    for j in range(p):
                        c[j] += x[i, j]
            for j in range(p):
                c[j] /= n_alive
            r = _farthest(c, *args)
            for j in range(p):
                xr[j] = x[r, j]
            _nearest(xr, k, *args, sel, wd, wo)
            _take(sel, g, x, orig, alive, start, end, lo, hi, cnt, minorig, leaf_of, total,
                  labels)
            n_alive -= k
            g += 1
        if n_alive > 0:
            for i in range(len(alive)):
                if alive[i]:
                    labels[orig[i]] = g
                    alive[i] = False
            n_alive = 0
            g += 1
    state[0], state[1] = n_alive, g


@jit(nogil=True)
def _take(sel, label, x, orig, alive, start, end, lo, hi, cnt, minorig, leaf_of, total,
          labels) -> None:
    """Label the records at positions ``sel`` and remove them (group sum subtracted at once)."""
    p = x.shape[1]
    gs = np.zeros(p)
    for t in range(len(sel)):
        labels[orig[sel[t]]] = label
        for j in range(p):
            gs[j] += x[sel[t], j]
    for j in range(p):
        total[j] -= gs[j]
    _remove(sel, x, orig, alive, start, end, lo, hi, cnt, minorig, leaf_of)


def removal_tree(z: np.ndarray) -> tuple:
    """The tree with removal over the rows of z (n ≥ 1, contiguous float64), every record alive:
    ``(x, perm, alive, start, end, lo, hi, cnt, minorig, leaf_of, first_leaf)`` with ``x`` the
    rows in tree order and ``perm`` their original row numbers (see the module docstring)."""
    n, p = z.shape
    depth = 0
    while (n >> depth) > LEAF:
        depth += 1
    perm, start, end = _build(z, depth)
    x = np.ascontiguousarray(z[perm])
    first_leaf = 2 ** depth - 1
    nn = len(start)
    lo = np.empty((nn, p))
    hi = np.empty((nn, p))
    cnt = np.zeros(nn, np.int64)
    minorig = np.zeros(nn, np.int64)
    alive = np.ones(n, dtype=np.bool_)
    leaf_of = np.repeat(np.arange(first_leaf, nn), end[first_leaf:] - start[first_leaf:])
    _init_boxes(x, perm, alive, start, end, lo, hi, cnt, minorig, first_leaf)
    return x, perm, alive, start, end, lo, hi, cnt, minorig, leaf_of, first_leaf


def mdav_jit(z: np.ndarray, k: int, bar=None, chunk: int = 4096) -> np.ndarray:
    """Exact MDAV group labels of the rows of z (standardised, no NaN) on the compiled tree.

    Labels are numbered as the groups are formed (r's group, then s's, ...), as in the plain
    scans. ``bar``: an `sdcsession.progress.Bar` updated every ``chunk`` pairs of groups.
    """
    z = np.ascontiguousarray(z, dtype=np.float64)
    n, p = z.shape
    labels = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return labels
    x, perm, alive, start, end, lo, hi, cnt, minorig, leaf_of, first_leaf = removal_tree(z)
    total = np.array([float(z[:, j].sum()) for j in range(p)])
    state = np.array([n, 0, 0], dtype=np.int64)  # alive, next label, rebuild?
    ref = np.empty(p + 1)  # the list of the farthest from a reference point: `_rebuild_ref`
    sd = np.empty(n)
    spos = np.empty(n, np.int64)
    lst = np.zeros(4, np.int64)  # first alive entry, length, scanned, alive at rebuild
    while state[0] > 0:
        before = int(state[0])
        state[2] = 0
        _iterate(x, perm, alive, start, end, lo, hi, cnt, minorig, leaf_of, first_leaf, total,
                 k, labels, state, chunk, ref, sd, spos, lst)
        if state[2]:
            _rebuild_ref(total / state[0], x, alive, ref, sd, spos, lst)
        if bar is not None:
            bar.update(before - int(state[0]))
    return labels


@jit(nogil=True)
def _init_boxes(x, orig, alive, start, end, lo, hi, cnt, minorig, first_leaf) -> None:
    """Boxes, counts and smallest row numbers of all nodes, leaves first."""
    for node in range(len(start) - 1, -1, -1):
        if node >= first_leaf:
            _refresh_leaf(node, x, orig, alive, start, end, lo, hi, cnt, minorig)
        else:
            _merge_up(node, lo, hi, cnt, minorig)
