"""Compiled bit-set kernels for counting compatible records (internal; numba).

Records are rows of an integer code matrix (``-1`` = missing = wildcard, alpha = 1). The *bit
index* of the data rows on key columns ``cols`` holds, for every key t and code c, the set of
rows compatible with c on t (rows with code c or missing on t) as a bit set (``uint64`` words,
one bit per row), plus one set per key of the rows missing on t (the only rows compatible with a
code the data never use), and the list of non-zero words of each set. The rows compatible with a
query row are the AND of the sets of its observed keys.

The data rows are indexed in lexicographic order of their codes (keys with more categories
first, missing first), so that a set is a few runs of words and the AND of the sets of the first
keys has few non-zero words. Queries are processed in the same lexicographic order, keeping the
partial AND after each key: a query recomputes only the keys after the prefix it shares with the
previous query, and each of those costs the non-zero words left by the keys before (a walk of the
trie of the queries).

- `BitIndex.count`: sums of the data weights over the rows compatible with each query row, for
  integer weights (sums of integers are exact in any order, so they equal the hash-table counts
  of `sdcsession.methods.suppression._counter.Counter` bit for bit): the number of set bits for unit
  weights, of ``set & flags`` for 0/1 weights, else the weights of the set bits.
- `BitIndex.delta`: the change of every data row's count when query rows change from ``before``
  to ``now`` (``+w`` for rows compatible with the new row only, ``-w`` for those compatible with
  the old row only), by enumerating the bits that differ.
- `BitIndex.update`: data rows changed (bits moved between sets, no re-sorting).

The kernels are compiled on first use and cached (``numba.njit(cache=True)``, `sdcsession.risk._jit`); numba is imported
only when this module is, never by ``import sdcsession``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...risk._jit import jit

__all__ = ["BitIndex", "first_per_group", "first_unlocked"]

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_S1, _S2, _S4, _S56 = np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(56)


@jit(inline="always")
def _popcount(x):  # pragma: no cover - compiled
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int64((x * _H01) >> _S56)


_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_S58 = np.uint64(58)
_DB_TABLE = np.zeros(64, np.int64)
for _i in range(64):
    _DB_TABLE[(((1 << _i) * 0x03F79D71B4CB0A89) & ((1 << 64) - 1)) >> 58] = _i


@jit(inline="always")
def _low_bit(low):  # pragma: no cover - compiled
    """Position of the single set bit of ``low`` (de Bruijn multiplication)."""
    return _DB_TABLE[(low * _DEBRUIJN) >> _S58]


@jit(inline="always")
def _row(off, cards, t, c):  # pragma: no cover - compiled
    """Set of code ``c`` of key position ``t`` (a code the data never use: the missing rows)."""
    return off[t] + (c if c < cards[t] else cards[t])


@jit()
def _set_bits(B, off, cards, code, i, on):  # pragma: no cover - compiled
    """Put (``on``) or take row position ``i`` with codes ``code`` into / out of its sets."""
    wd = i >> 6
    bit = _ONE << np.uint64(i & 63)
    for t in range(len(code)):
        c = code[t]
        lo = off[t] + c
        hi = lo + 1
        if c < 0:
            lo = off[t]
            hi = off[t + 1]
        for r in range(lo, hi):
            if on:
                B[r, wd] |= bit
            else:
                B[r, wd] &= ~bit


@jit()
def _build(S, order, off, cards, nwords):  # pragma: no cover - compiled
    """Bit sets of the rows of ``S`` (codes on the keys) taken in ``order``."""
    B = np.zeros((off[-1], nwords), np.uint64)
    code = np.empty(S.shape[1], np.int64)
    for i in range(len(order)):
        for t in range(S.shape[1]):
            code[t] = S[order[i], t]
        _set_bits(B, off, cards, code, i, True)
    return B


@jit()
def _update(B, off, cards, pos, old, new):  # pragma: no cover - compiled
    for j in range(len(pos)):
        _set_bits(B, off, cards, old[j], pos[j], False)
    for j in range(len(pos)):
        _set_bits(B, off, cards, new[j], pos[j], True)


@jit()
def _word_lists(B):  # pragma: no cover - compiled
    """Non-zero words of each set (CSR: ``ptr``, ``words``)."""
    ptr = np.zeros(B.shape[0] + 1, np.int64)
    for r in range(B.shape[0]):
        nz = 0
        for wd in range(B.shape[1]):
            if B[r, wd] != _ZERO:
                nz += 1
        ptr[r + 1] = ptr[r] + nz
    words = np.empty(ptr[-1], np.int32)
    for r in range(B.shape[0]):
        k = ptr[r]
        for wd in range(B.shape[1]):
            if B[r, wd] != _ZERO:
                words[k] = wd
                k += 1
    return ptr, words


@jit()
def _descend(B, off, cards, ptr, words, q, L, acc, act, nact, ref):  # pragma: no cover
    """Partial ANDs of query ``q`` (codes in key order) from key ``L`` on. Level ``v + 1`` is
    the AND of the sets of keys ``0..v``; ``ref[v]`` is the level holding it (a missing key
    shares its parent's); ``nact[v] = -1``: no key observed yet (every row). Returns the final
    level."""
    for lv in range(L, len(q)):
        src = ref[lv]
        c = q[lv]
        if c < 0:
            ref[lv + 1] = src
            continue
        d = lv + 1
        ref[d] = d
        r = _row(off, cards, lv, c)
        m = 0
        if nact[src] == -1:
            for k in range(ptr[r], ptr[r + 1]):
                wd = words[k]
                acc[d, wd] = B[r, wd]
                act[d, m] = wd
                m += 1
        else:
            for a in range(nact[src]):
                wd = act[src, a]
                x = acc[src, wd] & B[r, wd]
                if x != _ZERO:
                    acc[d, wd] = x
                    act[d, m] = wd
                    m += 1
        nact[d] = m
    return ref[len(q)]


@jit()
def _shared(Q, prev, i):  # pragma: no cover - compiled
    """Number of leading keys on which query rows ``prev`` and ``i`` agree."""
    L = 0
    while L < Q.shape[1] and Q[i, L] == Q[prev, L]:
        L += 1
    return L


def _levels(nwords: int, p: int) -> tuple[np.ndarray, ...]:
    acc = np.zeros((p + 1, nwords), np.uint64)
    act = np.zeros((p + 1, nwords), np.int32)
    nact = np.full(p + 1, -1, np.int64)
    ref = np.zeros(p + 1, np.int64)
    return acc, act, nact, ref


@jit()
def _count(B, off, cards, ptr, words, Q, qorder, W, kinds, flags, total, acc, act, nact,
           ref, out):  # pragma: no cover - compiled
    for s in range(len(qorder)):
        i = qorder[s]
        L = 0 if s == 0 else _shared(Q, qorder[s - 1], i)
        if L == Q.shape[1]:  # the same query as before
            for j in range(len(kinds)):
                out[i, j] = out[qorder[s - 1], j]
            continue
        f = _descend(B, off, cards, ptr, words, Q[i], L, acc, act, nact, ref)
        if nact[f] == -1:
            for j in range(len(kinds)):
                out[i, j] = total[j]
            continue
        for j in range(len(kinds)):
            kd = kinds[j]
            if kd == 2:
                tot = 0.0
                for a in range(nact[f]):
                    wd = act[f, a]
                    x = acc[f, wd]
                    while x != _ZERO:
                        low = x & (~x + _ONE)
                        tot += W[wd * 64 + _low_bit(low), j]
                        x ^= low
                out[i, j] = tot
            else:
                cnt = 0
                for a in range(nact[f]):
                    wd = act[f, a]
                    x = acc[f, wd] if kd == 0 else acc[f, wd] & flags[j, wd]
                    cnt += _popcount(x)
                out[i, j] = cnt


@jit()
def _delta(B, off, cards, ptr, words, order, common, qorder, now, before, wr, acc, act, nact,
           ref, out):  # pragma: no cover - compiled
    nwords = B.shape[1]
    n = len(order)
    pc = now.shape[1]
    rn = np.empty(pc, np.int64)  # sets of the keys that differ, after and before
    rb = np.empty(pc, np.int64)
    acc_out = np.zeros(n)  # by position in the index
    for s in range(len(qorder)):
        i = qorder[s]
        nn = 0
        nb = 0
        for t in range(pc):
            if now[i, t] != before[i, t]:
                if now[i, t] >= 0:
                    rn[nn] = _row(off, cards, t, now[i, t])
                    nn += 1
                if before[i, t] >= 0:
                    rb[nb] = _row(off, cards, t, before[i, t])
                    nb += 1
        L = 0 if s == 0 else _shared(common, qorder[s - 1], i)
        f = _descend(B, off, cards, ptr, words, common[i], L, acc, act, nact, ref)
        if nn == 0 and nb == 0:
            continue
        full = nact[f] == -1  # no common observed key: every row
        m = nwords if full else nact[f]
        for a in range(m):
            wd = a if full else act[f, a]
            base = acc[f, wd]
            if full:
                base = ~_ZERO
                if wd == nwords - 1 and n % 64:
                    base = (_ONE << np.uint64(n % 64)) - _ONE
            pn = base
            pb = base
            for j in range(nn):
                pn &= B[rn[j], wd]
            for j in range(nb):
                pb &= B[rb[j], wd]
            plus = pn & ~pb
            minus = pb & ~pn
            while plus != _ZERO:
                low = plus & (~plus + _ONE)
                acc_out[wd * 64 + _low_bit(low)] += wr[i]
                plus ^= low
            while minus != _ZERO:
                low = minus & (~minus + _ONE)
                acc_out[wd * 64 + _low_bit(low)] -= wr[i]
                minus ^= low
    for i in range(n):  # index order to row order
        out[order[i]] = acc_out[i]


class BitIndex:
    """Bit index of the rows of ``X`` on key columns ``cols`` (codes below ``cards``).

    Example
    -------
    >>> X = np.array([[0, 0], [0, 1], [0, -1], [1, 1]])
    >>> ix = BitIndex(X, [0, 1], [2, 2])
    >>> ix.count(X, np.ones((4, 1)))[:, 0].tolist()
    [2.0, 2.0, 3.0, 1.0]
    >>> ix.delta(np.array([[-1, 1]]), np.array([[1, 1]]), np.ones(1)).tolist()
    [0.0, 1.0, 1.0, 0.0]
    >>> ix.update(np.array([3]), np.array([[1, 1]]), np.array([[-1, 1]]))
    >>> X[3, 0] = -1
    >>> ix.count(X, np.ones((4, 1)))[:, 0].tolist()
    [2.0, 3.0, 4.0, 3.0]
    """

    __slots__ = ("n", "keys", "cards", "off", "order", "rank", "B", "ptr", "words")

    BLOCK = 1 << 16  # query rows sorted and counted at once (bounded temporaries)

    def __init__(self, X: np.ndarray, cols: Sequence[int], cards: Sequence[int]):
        self.n = len(X)
        cols = np.asarray(cols, dtype=np.int64)
        cards = np.asarray(cards, dtype=np.int64)
        keys = np.argsort(-cards, kind="stable")  # most categories first: the sort's primary
        S = np.ascontiguousarray(X[:, cols[keys]])
        cards = cards[keys]
        if self.n:  # codes above the stated categories would land in another key's sets
            cards = np.maximum(cards, S.max(axis=0).astype(np.int64) + 1)
        self.keys, self.cards = keys, cards
        self.off = np.concatenate(([0], np.cumsum(cards + 1))).astype(np.int64)
        self.order = _lex_order(S).astype(np.int32)
        self.rank = np.empty(self.n, np.int32)
        self.rank[self.order] = np.arange(self.n, dtype=np.int32)
        self.B = _build(S, self.order, self.off, cards, max(1, (self.n + 63) // 64))
        self.ptr, self.words = _word_lists(self.B)

    def update(self, rows: np.ndarray, old: np.ndarray, new: np.ndarray) -> None:
        """Data rows ``rows`` changed from codes ``old`` to ``new`` (on the index's columns)."""
        _update(self.B, self.off, self.cards, self.rank[rows].astype(np.int64),
                np.ascontiguousarray(old[:, self.keys], dtype=np.int64),
                np.ascontiguousarray(new[:, self.keys], dtype=np.int64))
        self.ptr, self.words = _word_lists(self.B)

    def count(self, Q: np.ndarray, W: np.ndarray, cols: Sequence[int] | None = None) -> np.ndarray:
        """``(m, r)`` sums of the integer weights ``W`` (``(n, r)``) over the data rows
        compatible with each query row (``Q``: the query codes on the index's columns, or
        ``Q[:, cols]``; ``-1`` missing)."""
        sel = self.keys if cols is None else np.asarray(cols, dtype=np.int64)[self.keys]
        r = W.shape[1]
        kinds = np.full(r, 2, np.int64)
        flags = np.zeros((r, self.B.shape[1]), np.uint64)
        for j in range(r):
            col = W[:, j]
            if np.all(col == 1.0):
                kinds[j] = 0
            elif np.all((col == 0.0) | (col == 1.0)):
                kinds[j] = 1
                idx = self.rank[np.flatnonzero(col)]
                np.bitwise_or.at(flags[j], idx >> 6,
                                 np.left_shift(np.uint64(1), (idx & 63).astype(np.uint64)))
        # weights in index order, only for columns summed weight by weight
        Ws = (np.ascontiguousarray(W[self.order], dtype=np.float64) if (kinds == 2).any()
              else np.zeros((1, r)))
        total = W.sum(axis=0)
        out = np.zeros((len(Q), r))
        levels = _levels(self.B.shape[1], len(self.keys))
        for a in range(0, len(Q), self.BLOCK):
            Qk = np.ascontiguousarray(Q[a:a + self.BLOCK][:, sel], dtype=np.int64)
            _count(self.B, self.off, self.cards, self.ptr, self.words, Qk, _lex_order(Qk), Ws,
                   kinds, flags, total, *levels, out[a:a + self.BLOCK])
        return out

    def delta(self, now: np.ndarray, before: np.ndarray, w: np.ndarray) -> np.ndarray:
        """``(n,)`` change of each data row's count when query rows change from ``before`` to
        ``now`` (codes on ``cols``) with integer weights ``w``: ``sum_r w_r (compat(now_r) -
        compat(before_r))``."""
        out = np.zeros(self.n)
        if len(now) == 0:
            return out
        now = np.ascontiguousarray(now[:, self.keys], dtype=np.int64)
        before = np.ascontiguousarray(before[:, self.keys], dtype=np.int64)
        common = np.where(now == before, now, -1)
        _delta(self.B, self.off, self.cards, self.ptr, self.words, self.order, common,
               _lex_order(common), now, before, np.asarray(w, dtype=np.float64),
               *_levels(self.B.shape[1], len(self.keys)), out)
        return out


@jit()
def _first_per_group(pri, rec, grp, nrec, ngrp):  # pragma: no cover - compiled
    used_r = np.zeros(nrec, np.bool_)
    used_g = np.zeros(ngrp, np.bool_)
    out = np.empty(len(pri), np.int64)
    m = 0
    for j in pri:
        if used_r[rec[j]] or used_g[grp[j]]:
            continue
        used_r[rec[j]] = True
        used_g[grp[j]] = True
        out[m] = j
        m += 1
    return out[:m]


def first_per_group(pri: np.ndarray, rec: np.ndarray, grp: np.ndarray) -> np.ndarray:
    """Greedy selection in priority order ``pri`` (item indices): item j is taken unless an
    item taken before has the same record ``rec[j]`` or the same group ``grp[j]`` (non-negative
    ints, indexed by item).

    >>> first_per_group(np.array([2, 0, 1]), np.array([0, 0, 1]), np.array([0, 1, 1])).tolist()
    [2, 0]
    """
    if len(pri) == 0:
        return np.zeros(0, np.int64)
    rec = np.asarray(rec, np.int64)
    grp = np.asarray(grp, np.int64)
    return _first_per_group(np.asarray(pri, np.int64), rec, grp, int(rec.max()) + 1,
                            int(grp.max()) + 1)


@jit()
def _first_unlocked(pc, pcell, locked):  # pragma: no cover - compiled
    m = pc[-1] + 1 if len(pc) else 0
    taken = np.zeros(m, np.bool_)
    a = 0
    while a < len(pc):
        b = a
        while b < len(pc) and pc[b] == pc[a]:
            b += 1
        free = True
        for j in range(a, b):
            if locked[pcell[j]]:
                free = False
                break
        if free:
            taken[pc[a]] = True
            for j in range(a, b):
                locked[pcell[j]] = True
        a = b
    return np.flatnonzero(taken)


def first_unlocked(pc: np.ndarray, pcell: np.ndarray, locked: np.ndarray) -> np.ndarray:
    """Sequential greedy over candidates ``0, 1, ...`` (in priority order) given as (candidate,
    cell) pairs grouped by candidate: a candidate is taken when none of its cells is locked,
    and then locks them (``locked`` is updated in place). Returns the taken candidates.

    >>> locked = np.zeros(3, bool)
    >>> first_unlocked(np.array([0, 0, 1, 2]), np.array([0, 1, 1, 2]), locked).tolist()
    [0, 2]
    """
    return _first_unlocked(np.asarray(pc, np.int64), np.asarray(pcell, np.int64), locked)


def _lex_order(S: np.ndarray) -> np.ndarray:
    """Rows of ``S`` in lexicographic order (column 0 first; -1 before the codes): one argsort
    of a mixed-radix code when it fits in int64, else a lexsort."""
    if S.shape[1] == 0 or len(S) == 0:
        return np.arange(len(S))
    radix = S.max(axis=0).astype(np.int64) + 2
    if float(np.prod(radix.astype(float))) >= 2.0 ** 62:
        return np.lexsort(S.T[::-1])
    code = np.zeros(len(S), np.int64)
    for j in range(S.shape[1]):
        code *= radix[j]
        code += S[:, j]
        code += 1
    return np.argsort(code)  # ties (equal rows) in any order: the counts do not depend on it
