"""Compiled kernels of the singling-out counts (internal; numba, compiled on first use and
cached on disk).

- ``checkpoints(order, block, nwords)``: for every column j and c = 0, 1, ..., the bitset of the
  records ``order[j, :c·block]`` (the first c blocks of the column's sort order);
- ``count(...)``: ``min(matches, cap)`` per query, by scanning the pivot slice (narrow slices) or
  by intersecting bitsets (wide ones): the set of a slice ``[s, e)`` of column j's order is
  ``P(e) & ~P(s)``, ``P(t)`` = the checkpoint below t plus the at most ``block`` records from it
  to t; ``!=`` is the valid records ``P(n_valid)`` minus the equal slice.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .._jit import jit

__all__ = ["kernels"]


#: ``numba.njit`` with the on-disk cache (`sdcsession.risk._jit`), releasing the GIL
njit = jit(nogil=True)


@njit
def checkpoints(order, block, nwords):
    p, n = order.shape
    k = (n + block - 1) // block
    out = np.zeros((p, k + 1, nwords), dtype=np.uint64)
    one = np.uint64(1)
    for j in range(p):
        cur = np.zeros(nwords, dtype=np.uint64)
        for c in range(1, k + 1):
            for i in range((c - 1) * block, min(c * block, n)):
                r = order[j, i]
                cur[r >> 6] |= one << np.uint64(r & 63)
            out[j, c, :] = cur
    return out


@njit
def prefix(ckpt, order, block, j, t, buf):
    c = t // block
    buf[:] = ckpt[j, c, :]
    one = np.uint64(1)
    for i in range(c * block, t):
        r = order[j, i]
        buf[r >> 6] |= one << np.uint64(r & 63)


@njit
def popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit
def count(xt, order, cols, ops, vals, pstart, pend, first, cap, ckpt, block, bstart, bend,
          nvalid, nwords):
    nq, nc = cols.shape
    out = np.zeros(nq, dtype=np.int64)
    acc = np.empty(nwords, dtype=np.uint64)
    b1 = np.empty(nwords, dtype=np.uint64)
    b2 = np.empty(nwords, dtype=np.uint64)
    b3 = np.empty(nwords, dtype=np.uint64)
    full = ~np.uint64(0)
    for q in range(nq):
        cnt = 0
        if pend[q] - pstart[q] <= 6 * nwords:
            j = cols[q, 0]
            for t in range(pstart[q], pend[q]):
                r = order[j, t]
                ok = True
                for c in range(first[q], nc):
                    k = cols[q, c]
                    if k < 0:
                        break
                    v = xt[k, r]
                    op = ops[q, c]
                    if op == 6:
                        ok = v != v
                    elif op == 7:
                        ok = v == v
                    elif v != v:
                        ok = False
                    elif op == 0:
                        ok = v == vals[q, c]
                    elif op == 1:
                        ok = v != vals[q, c]
                    elif op == 2:
                        ok = v > vals[q, c]
                    elif op == 3:
                        ok = v < vals[q, c]
                    elif op == 4:
                        ok = v >= vals[q, c]
                    else:
                        ok = v <= vals[q, c]
                    if not ok:
                        break
                if ok:
                    cnt += 1
                    if cnt >= cap:
                        break
            out[q] = cnt
            continue
        acc[:] = full
        for c in range(nc):
            j = cols[q, c]
            if j < 0:
                break
            s, e = bstart[q, c], bend[q, c]
            if e - s <= block:  # a narrow slice: its own bits
                b1[:] = 0
                for i in range(s, e):
                    r = order[j, i]
                    b1[r >> 6] |= np.uint64(1) << np.uint64(r & 63)
                b2[:] = 0
            else:
                prefix(ckpt, order, block, j, e, b1)
                prefix(ckpt, order, block, j, s, b2)
            anything = False
            if ops[q, c] == 1:  # !=: the valid records minus the equal slice
                prefix(ckpt, order, block, j, nvalid[j], b3)
                for w in range(nwords):
                    acc[w] &= b3[w] & ~(b1[w] & ~b2[w])
                    anything |= acc[w] != 0
            else:
                for w in range(nwords):
                    acc[w] &= b1[w] & ~b2[w]
                    anything |= acc[w] != 0
            if not anything:
                break
        for w in range(nwords):
            if acc[w]:
                cnt += popcount(acc[w])
                if cnt >= cap:
                    break
        out[q] = min(cnt, cap)
    return out


def kernels() -> SimpleNamespace:
    """The compiled kernels (``checkpoints``, ``count``)."""
    return SimpleNamespace(checkpoints=checkpoints, count=count)
