"""Row codes and grouping for local suppression (internal): missing-pattern bit masks, row ids.

Rows are rows of an ``(n, p)`` int64 code matrix (``-1`` = missing). Equal rows get equal ids, by
combining the columns into one int64 code (mixed radix) when it fits, else by sorting rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__: list[str] = []

_MAX_RADIX = 1 << 62


def _bits(X: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Missing-pattern bit mask over ``cols`` (bit t set = column ``cols[t]`` missing).

    One column at a time: no ``(n, len(cols))`` int64 temporary.
    """
    out = np.zeros(len(X), dtype=np.int64)
    for t, c in enumerate(np.asarray(cols).tolist()):
        miss = X[:, c] < 0
        if miss.any():
            out[miss] |= 1 << t
    return out


def _groups(pat: np.ndarray) -> dict[int, np.ndarray]:
    """Row indices per distinct value of ``pat`` (ascending row indices per value).

    Few distinct values (the usual case: missing patterns): one comparison per value, no sort and
    no sorted copy of ``pat``.
    """
    if len(pat) == 0:
        return {}
    lo, hi = int(pat.min()), int(pat.max())
    if lo == hi:
        return {lo: np.arange(len(pat))}
    if lo >= 0 and hi < 1 << 16:
        u = np.flatnonzero(np.bincount(pat, minlength=hi + 1))
    else:
        u = np.unique(pat)
    if len(u) <= 32:
        return {int(v): np.flatnonzero(pat == v) for v in u.tolist()}
    order = np.argsort(pat, kind="stable")
    sp = pat[order]
    cut = np.flatnonzero(np.diff(sp)) + 1
    starts = np.concatenate(([0], cut))
    ends = np.concatenate((cut, [len(sp)]))
    return {int(sp[s]): order[s:e] for s, e in zip(starts, ends)}


def _unique_rows(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows, first index of each, and the inverse (row -> distinct id)."""
    if A.shape[1] == 0:
        return A[:1], np.zeros(min(len(A), 1), np.int64), np.zeros(len(A), np.int64)
    # shift so that -1 becomes 0 and rows can be combined when the radix allows
    B = A + 1
    mx = B.max(axis=0) + 1 if len(B) else np.ones(A.shape[1], np.int64)
    size = 1
    for m in mx:
        size *= int(m)
    if size < _MAX_RADIX:
        code = np.zeros(len(B), np.int64)
        for j in range(B.shape[1]):
            code *= int(mx[j])
            code += B[:, j]
        _, first, inv = np.unique(code, return_index=True, return_inverse=True)
    else:
        _, first, inv = np.unique(A, axis=0, return_index=True, return_inverse=True)
    inv = np.asarray(inv).ravel()
    return A[first], first, inv


def _row_ids(A: np.ndarray) -> np.ndarray:
    """An id per row of ``A`` (equal rows, equal ids; ids ``0..m-1`` in order of first appearance).

    Hashing instead of sorting: the same grouping as `_unique_rows` at a fraction of the cost.
    """
    if A.shape[1] == 0 or len(A) == 0:
        return np.zeros(len(A), np.int64)
    B = A + 1
    mx = B.max(axis=0) + 1
    size = 1
    for m in mx.tolist():
        size *= int(m)
    if size >= _MAX_RADIX:
        return _unique_rows(A)[2]
    code = B[:, 0].astype(np.int64)
    for j in range(1, B.shape[1]):
        code *= int(mx[j])
        code += B[:, j]
    return pd.factorize(code)[0].astype(np.int64, copy=False)


def _first_positions(ids: np.ndarray) -> np.ndarray:
    """Position of the first occurrence of each id, for ids numbered by first appearance
    (``pd.factorize``): id g first appears where the running maximum reaches g."""
    prev = np.concatenate(([-1], np.maximum.accumulate(ids)[:-1]))
    return np.flatnonzero(ids > prev)



def bit_index_bytes(n: int, cards: np.ndarray) -> int:
    """Size in bytes of the bit index of ``n`` rows on keys with ``cards`` categories (at most:
    its bit sets and their non-zero words, the row order and its inverse, the partial ANDs of a
    query; `sdcsession.methods.suppression._bits_jit.BitIndex`)."""
    nw = max(1, (n + 63) // 64)
    return 12 * nw * (int(np.sum(np.asarray(cards) + 1)) + len(cards) + 1) + 8 * n


def first_per_group(pri: np.ndarray, rec: np.ndarray, grp: np.ndarray,
                    rounds: int = 32) -> np.ndarray:
    """Greedy selection in priority order ``pri``: item j is taken unless an item taken before
    it has the same record ``rec[j]`` or the same group ``grp[j]``. Returns the taken items in
    priority order.

    Rounds of a parallel greedy: an item ranked first among the undecided items of its record
    and of its group is taken by the sequential greedy too (every item before it in either is
    decided, and none taken), and the items sharing a record or group with it are not; after
    ``rounds`` rounds the few undecided items left go through the sequential greedy (compiled,
    `sdcsession.methods.suppression._bits_jit.first_per_group`).

    >>> first_per_group(np.array([2, 0, 1]), np.array([0, 0, 1]), np.array([0, 1, 1])).tolist()
    [2, 0]
    """
    m = len(pri)
    if m == 0:
        return np.zeros(0, np.int64)
    rank = np.empty(m, np.int64)
    rank[pri] = np.arange(m)
    rec = np.unique(rec, return_inverse=True)[1].ravel()
    grp = np.unique(grp, return_inverse=True)[1].ravel()
    alive = np.ones(m, bool)
    taken = np.zeros(m, bool)
    for _ in range(rounds):
        idx = np.flatnonzero(alive)
        if len(idx) == 0:
            break
        r, g, k = rec[idx], grp[idx], rank[idx]
        best_r = np.full(int(r.max()) + 1, m)
        np.minimum.at(best_r, r, k)
        best_g = np.full(int(g.max()) + 1, m)
        np.minimum.at(best_g, g, k)
        win = (best_r[r] == k) & (best_g[g] == k)
        taken[idx[win]] = True
        hit_r = np.zeros(len(best_r), bool)
        hit_r[r[win]] = True
        hit_g = np.zeros(len(best_g), bool)
        hit_g[g[win]] = True
        alive[idx] = ~(hit_r[r] | hit_g[g])
    if alive.any():
        from ._bits_jit import first_per_group as sequential  # numba: on first use only

        rest = pri[alive[pri]]
        taken[sequential(rest, rec, grp)] = True
    return pri[taken[pri]]
