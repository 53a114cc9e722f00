"""Frequencies with missing keys as wildcards in one compiled pass over the records (internal;
numba, compiled on first use and cached on disk; imported by `sdcsession.risk.frequencies`
inside a function).

The sums are those of the union-by-union algorithm of `sdcsession.risk.frequencies`, bit for
bit: for each pair (union U, target pattern P) in the order of that algorithm, the contributors
j (``P_j | P == U``) add ``c_j`` and ``c_j w_j`` into the bin of their code outside U *in record
order*, and every target adds its bin's sum to its running fk (Fk), pair after pair. Only the
way the bins are found changes:

* the keys with missing values (M) become the most significant digits of the mixed-radix code:
  ``r = low + Σ_{k∈M} c_k m_k``, with ``low`` the code of the always-observed keys. A record's
  code outside a union U ⊆ M is ``low`` plus its digits of M \\ U, a *compact* code in a space
  ``prod(cards) / prod(cards[U])`` long, read from a small look-up table indexed by the record's
  digits of M (each digit + 1, missing = 0): ``low + lut[U][d]``;
* every pair (U, P) other than (∅, ∅) numbers its bins in a dense ``int32`` slot array over its
  compact space: the bins of P's records (or, for P = ∅, of the contributors of pattern U);
* one pass in record order: a complete record adds 1 and its weight into the table of full codes
  (the pair (∅, ∅)) and into its bin of every pair (P, P) that has one; a record of pattern q
  adds ``c``, ``c w`` into its bin of every pair it contributes to. So each bin's sums have their
  terms in record order: the floats of ``bincount``;
* the pairs (U, ∅) are added to the table at every full code of each bin (the bin's
  *expansion* over the digits of U), pair after pair; a complete record then reads its full
  code, and a record with missing keys adds its bins' sums pair after pair.

The cost is one pass over the records reading each key once, plus work in proportion to the
records with missing keys — no pass per pattern pair, no sort. `scanned` returns None (the caller
falls back to the pair-by-pair kernel of `sdcsession.risk._frequencies_jit`) when the look-up
tables, slot arrays or expansions would exceed a few times the radix space.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._frequencies_jit import _njit

__all__ = ["scanned"]


@_njit
def codes_of(codes, lkeys, lmult, mkeys, dmult, d):
    """Per record the code of the always-observed keys (``low``), and into ``d`` the code of
    its digits of the keys with missing values (each digit + 1: missing is 0), key by key."""
    n = codes.shape[0]
    low = np.zeros(n, np.int64)
    for e in range(lkeys.shape[0]):
        k = lkeys[e]
        m = lmult[e]
        for j in range(n):
            low[j] += codes[j, k] * m
    d[:] = 0
    for e in range(mkeys.shape[0]):
        k = mkeys[e]
        m = dmult[e]
        for j in range(n):
            d[j] += (codes[j, k] + 1) * m
    return low


@_njit
def missing_rows(d, dpat, n_pat):
    """The records with a missing key (record order), the index of their missing pattern
    (``dpat``: the pattern index of each digit code, -1 for complete digits) and the number of
    records of each of the ``n_pat`` patterns."""
    n = d.shape[0]
    counts = np.zeros(n_pat, np.int64)
    for j in range(n):
        t = dpat[d[j]]
        if t >= 0:
            counts[t] += 1
    idx = np.empty(counts.sum(), np.int64)
    pat = np.empty(counts.sum(), np.int64)
    m = 0
    for j in range(n):
        t = dpat[d[j]]
        if t >= 0:
            idx[m] = j
            pat[m] = t
            m += 1
    return idx, pat, counts


@_njit
def wildcard_sums(low, d, lut, full_lut, low_size, stride, size, weights, has_w, miss_idx, miss_t,
                  rows, row_start, pair_t, pair_q, tgt_start, tgt_pairs, con_start, con_pairs,
                  con_c, comp_lut, exp_pairs, exp_start, exp_off):
    """fk and Fk (module docstring). Pair a's bin of a record is at ``low * stride + lut[a, d]``
    in the slot array (every low code has its block of slots, the pairs (P, P) first); its bins are those of the records of pattern ``pair_t[a]``, or for
    a complete-target pair (``pair_t[a] < 0``) of its contributors, pattern ``pair_q[a]``.
    ``rows[row_start[t]:row_start[t + 1]]`` index the records of missing pattern t among
    ``miss_idx``; ``tgt_pairs`` (from ``tgt_start[t]``) are the pairs pattern t is the target of,
    in order; ``con_pairs``/``con_c`` (from ``con_start[q]``) those pattern q contributes to and
    its weight there; complete records contribute to the pairs of ``comp_lut`` (its rows:
    ``lut[a, d]`` of the pairs (P, P)); ``exp_pairs`` are the pairs (U, ∅) in
    order, with the expansion offsets ``exp_off[exp_start[e]:exp_start[e + 1]]``."""
    n = low.shape[0]
    n_pairs = lut.shape[0]
    width = 2 if has_w else 1
    slots = np.full(low_size * stride, -1, np.int32)
    n_miss = miss_idx.shape[0]
    slot_start = np.zeros(n_pairs + 1, np.int64)
    n_bins = 0
    for a in range(n_pairs):
        t = pair_t[a] if pair_t[a] >= 0 else pair_q[a]
        n_bins += row_start[t + 1] - row_start[t]
    rep = np.zeros(n_bins, np.int64)  # the full code of each bin (of a (U, 0) pair: its base)
    n_slot = 0
    for a in range(n_pairs):  # the bins of every pair, numbered
        t = pair_t[a] if pair_t[a] >= 0 else pair_q[a]
        for x in range(row_start[t], row_start[t + 1]):
            j = miss_idx[rows[x]]
            pos = low[j] * stride + lut[a, d[j]]
            if slots[pos] < 0:
                slots[pos] = n_slot
                rep[n_slot] = low[j] + full_lut[d[j]]
                n_slot += 1
        slot_start[a + 1] = n_slot
    acc = np.zeros((n_slot, width))
    has_complete = n_miss < n
    table = np.zeros((size if has_complete else 0, width))
    n_cp = comp_lut.shape[1]
    ptr = 0
    nxt = miss_idx[0] if n_miss else n
    for j in range(n):  # one pass in record order
        lw = low[j]
        dj = d[j]
        if j != nxt:  # a complete record: the pair (0, 0) and every pair (P, P)
            wj = weights[j] if has_w else 0.0
            full = lw + full_lut[dj]
            table[full, 0] += 1.0
            if has_w:
                table[full, 1] += wj
            for c in range(n_cp):
                s = slots[lw * stride + comp_lut[dj, c]]
                if s >= 0:
                    acc[s, 0] += 1.0
                    if has_w:
                        acc[s, 1] += wj
        else:  # missing keys of pattern q: the pairs it contributes to
            q = miss_t[ptr]
            for x in range(con_start[q], con_start[q + 1]):
                a = con_pairs[x]
                s = slots[lw * stride + lut[a, dj]]
                if s >= 0:
                    cj = con_c[x]
                    acc[s, 0] += cj
                    if has_w:
                        acc[s, 1] += weights[j] * cj
            ptr += 1
            nxt = miss_idx[ptr] if ptr < n_miss else n
    for e in range(exp_pairs.shape[0]):  # the pairs (U, 0), in order: add at the expansion
        a = exp_pairs[e]
        for s in range(slot_start[a], slot_start[a + 1]):
            for x in range(exp_start[e], exp_start[e + 1]):
                f = rep[s] + exp_off[x]
                table[f, 0] += acc[s, 0]
                if has_w:
                    table[f, 1] += acc[s, 1]
    fk = np.empty(n)
    Fk = np.empty(n) if has_w else fk
    if has_complete:
        for j in range(n):
            f = low[j] + full_lut[d[j]]
            fk[j] = table[f, 0]
            if has_w:
                Fk[j] = table[f, 1]
    for m in range(n_miss):  # records with missing keys: their pairs' sums, in order
        j = miss_idx[m]
        t = miss_t[m]
        vc = 0.0
        vw = 0.0
        for x in range(tgt_start[t], tgt_start[t + 1]):
            a = tgt_pairs[x]
            s = slots[low[j] * stride + lut[a, d[j]]]
            vc += acc[s, 0]
            if has_w:
                vw += acc[s, 1]
        fk[j] = vc
        if has_w:
            Fk[j] = vw
    return fk, Fk


def _radix(cards: list[int], keys: list[int], start: int) -> tuple[np.ndarray, int]:
    mult = np.zeros(len(keys), dtype=np.int64)
    run = start
    for e, k in enumerate(keys):
        mult[e] = run
        run *= cards[k]
    return mult, run


def _csr(lists: list[list[Any]], dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    start = np.cumsum([0] + [len(x) for x in lists]).astype(np.int64)
    flat = np.array([v for x in lists for v in x], dtype=dtype)
    return start, flat


def scanned(codes: np.ndarray, cards: list[int], weights: np.ndarray | None, alpha: float,
            missing_keys: list[int], size: int,
            ) -> tuple[np.ndarray, np.ndarray] | None:
    """fk and Fk (module docstring) for codes with missing values in the keys ``missing_keys``
    (at least one), whose radix space is ``size`` codes; None when the look-up tables, slot
    arrays or expansions would be too large."""
    n, p = codes.shape
    mkeys = list(missing_keys)
    lkeys = [k for k in range(p) if k not in set(mkeys)]
    lmult, low_size = _radix(cards, lkeys, 1)
    mfull, _ = _radix(cards, mkeys, low_size)
    dcards = [cards[k] + 1 for k in mkeys]
    d_space = int(np.prod(dcards, dtype=object))
    if d_space > n + 4096:
        return None
    dmult = np.cumprod([1] + dcards[:-1]).astype(np.int64)
    # the digits (code, -1 = missing) and missing pattern of every digit code
    digits = (np.arange(d_space)[:, None] // dmult[None, :]) % np.array(dcards)[None, :] - 1
    dbits = ((digits < 0) << np.array(mkeys, dtype=np.int64)[None, :]).sum(axis=1)
    full_lut = (np.maximum(digits, 0) * mfull[None, :]).sum(axis=1)
    d = np.empty(n, dtype=np.int32 if d_space < 2**31 else np.int64)
    low = codes_of(codes, np.array(lkeys, dtype=np.int64), lmult,
                   np.array(mkeys, dtype=np.int64), dmult, d)
    all_pats = np.unique(dbits[dbits != 0])
    dpat = np.searchsorted(all_pats, dbits)
    dpat[dbits == 0] = -1
    miss_idx, miss_t, counts = missing_rows(d, dpat, len(all_pats))
    # the patterns present, in increasing order of their bits
    mp = [int(b) for b in all_pats[counts > 0]]
    renum = np.cumsum(counts > 0) - 1
    miss_t = renum[miss_t]
    counts = counts[counts > 0]
    t_of = {pt: t for t, pt in enumerate(mp)}
    has_complete = len(miss_idx) < n
    pats = ([0] if has_complete else []) + mp
    unions: dict[int, list[int]] = {}
    for pi in pats:
        for q in pats:
            if alpha == 0.0 and q not in (0, pi):
                continue  # weight alpha = 0: contributes nothing
            targets = unions.setdefault(pi | q, [])
            if pi not in targets:
                targets.append(pi)
    pairs = [(u, pi) for u, targets in unions.items() for pi in targets if (u, pi) != (0, 0)]
    if len(pairs) * d_space > 4 * n + 65536:
        return None
    # compact codes: the digits of the keys of M outside u, after the pairs before in the block
    lut = np.zeros((len(pairs), d_space), dtype=np.int64)
    cp = [a for a, (u, pi) in enumerate(pairs) if u == pi]
    stride = 0
    n_dig = {}
    for a in cp + [a for a, (u, pi) in enumerate(pairs) if u != pi]:
        lut[a] = stride
        run = 1
        for e, k in enumerate(mkeys):
            if not (pairs[a][0] >> k) & 1:
                lut[a] += np.maximum(digits[:, e], 0) * run
                run *= cards[k]
        n_dig[a] = run
        stride += run
    expansion = sum(min(int(counts[t_of[u]]) * (size // (low_size * n_dig[a])), size)
                    for a, (u, pi) in enumerate(pairs) if pi == 0)
    if low_size * stride > 2 * size + 1024 or expansion > 2 * size + 4 * n:
        return None
    pair_t = np.array([t_of[pi] if pi else -1 for _, pi in pairs], dtype=np.int64)
    pair_q = np.array([t_of[u] if not pi else -1 for u, pi in pairs], dtype=np.int64)
    tgt_start, tgt_pairs = _csr([[a for a, (_, pi) in enumerate(pairs) if pi == pt]
                                 for pt in mp], np.int64)
    con = [[(a, 1.0 if (alpha == 1.0 or q == pi) else alpha)
            for a, (u, pi) in enumerate(pairs) if q | pi == u] for q in mp]
    con_start, con_pairs = _csr([[a for a, _ in x] for x in con], np.int64)
    _, con_c = _csr([[c for _, c in x] for x in con], np.float64)
    comp_lut = np.ascontiguousarray(lut[cp].T)
    exp = [a for a, (_, pi) in enumerate(pairs) if pi == 0]
    offs = []
    for a in exp:
        off = np.zeros(1, dtype=np.int64)
        for e, k in enumerate(mkeys):
            if (pairs[a][0] >> k) & 1:
                off = (off[:, None] + np.arange(cards[k]) * mfull[e]).ravel()
        offs.append(off)
    exp_start = np.cumsum([0] + [len(o) for o in offs]).astype(np.int64)
    exp_off = np.concatenate(offs) if offs else np.zeros(0, dtype=np.int64)
    rows = np.argsort(miss_t, kind="stable").astype(np.int64)
    row_start = np.cumsum(np.concatenate([[0], counts])).astype(np.int64)
    w = np.zeros(1) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    return wildcard_sums(low, d, lut, full_lut, low_size, stride, size, w, weights is not None,
                         miss_idx, miss_t, rows, row_start, pair_t, pair_q, tgt_start,
                         tgt_pairs, con_start, con_pairs, con_c, comp_lut,
                         np.array(exp, dtype=np.int64), exp_start, exp_off)
