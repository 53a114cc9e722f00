"""Compiled sums of the frequencies with missing keys as wildcards (internal; numba, compiled on
first use and cached on disk; imported by `sdcsession.risk.frequencies` inside a function).

``pair_sums`` forms, for the (union U, target pattern P) pairs of the union-by-union algorithm of
`sdcsession.risk.frequencies`, the same floats as its ``bincount`` + gather, in the same order:
with r the mixed-radix code of all keys, a record's code on the keys outside U is
``r − Σ_{k∈U} code_k · mult_k`` (its missing keys all lie in U), so no pass recombines the keys
per union. Per pair, the bins of the smaller side (the targets of P, or the contributors j with
P_j | P = U) are marked; the contributors add ``c_j`` (and ``c_j w_j``) into their marked bin in
record order (the bin's sum has the terms of ``bincount`` in its order), every target adds its
bin's sum to its running fk (Fk), pair after pair in the order given, and the marked bins are
cleared for the next pair. Bins that no target reads are skipped, which changes no sum that is
read; no pass runs over the whole code space.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit

__all__ = ["pair_sums", "pattern_bits", "group_rows"]


#: ``numba.njit`` with the on-disk cache (`sdcsession.risk._jit`), releasing the GIL
_njit = jit(nogil=True)


@_njit
def pattern_bits(codes):
    """Per record the bit mask of its missing keys (code < 0), key by key."""
    n, p = codes.shape
    bits = np.zeros(n, np.int64)
    for k in range(p):
        one = np.int64(1) << k
        for j in range(n):
            if codes[j, k] < 0:
                bits[j] |= one
    return bits


@_njit
def group_rows(bits, pats):
    """The records of each pattern of ``pats`` (sorted), in record order, one after the other,
    and where each pattern's records start."""
    n = bits.shape[0]
    q_of = np.zeros(pats[-1] + 1, np.int64)
    for q in range(pats.shape[0]):
        q_of[pats[q]] = q
    start = np.zeros(pats.shape[0] + 1, np.int64)
    for j in range(n):
        start[q_of[bits[j]] + 1] += 1
    for q in range(pats.shape[0]):
        start[q + 1] += start[q]
    fill = start[:-1].copy()
    rows = np.empty(n, np.int64)
    for j in range(n):
        q = q_of[bits[j]]
        rows[fill[q]] = j
        fill[q] += 1
    return rows, start


@_njit
def tq_u(pat_of, u):
    """The index of pattern u among the patterns."""
    for q in range(pat_of.shape[0]):
        if pat_of[q] == u:
            return q
    return -1


@_njit
def cards_u(mult, k, size):
    """The number of categories of key k from the mixed-radix multipliers."""
    return (size if k == 0 else mult[k - 1]) // mult[k]


@_njit
def pair_sums(codes, mult, size, bits, weights, has_w, alpha, pair_u, pair_p, row_start, rows,
              n_pat_rows):
    """fk and Fk (module docstring). ``rows[row_start[q]:row_start[q + 1]]`` are the records of
    the q-th pattern (``n_pat_rows`` patterns; the pattern values are ``pair_*`` entries), in
    record order; a pair (u, p) takes its targets from p's rows and its contributors from the
    records with ``bits | p == u``."""
    n, p = codes.shape
    r = np.zeros(n, np.int64)
    for k in range(p):  # key by key: the codes are stored column by column
        mk = mult[k]
        for j in range(n):
            r[j] += codes[j, k] * mk
    fk = np.zeros(n)
    Fk = np.zeros(n)
    acc = np.zeros((1, 2))  # per bin: sum of c_j, sum of c_j w_j (allocated when needed)
    mark = np.zeros(1, np.uint8)  # bins of the smaller side (all zero between pairs)
    clist = np.empty(n + 1, np.int64)
    pat_of = np.empty(n_pat_rows, np.int64)
    q0 = -1
    for q in range(n_pat_rows):
        pat_of[q] = bits[rows[row_start[q]]]
        if pat_of[q] == 0:
            q0 = q
    # the complete records by full code (stable: record order within a code)
    start = np.zeros(size + 1 if q0 >= 0 else 1, np.int32)
    order = np.empty(row_start[q0 + 1] - row_start[q0] if q0 >= 0 else 0, np.int64)
    if q0 >= 0:
        for t in range(row_start[q0], row_start[q0 + 1]):
            start[r[rows[t]] + 1] += 1
        for b in range(size):
            start[b + 1] += start[b]
        for t in range(row_start[q0], row_start[q0 + 1]):  # start[b] runs up to start[b + 1]
            i = rows[t]
            order[start[r[i]]] = i
            start[r[i]] += 1
        for b in range(size, 0, -1):
            start[b] = start[b - 1]
        start[0] = 0
    slot = np.full(size, -1, np.int32)
    used = np.empty(n + 1, np.int64)
    acc_c = np.empty(n + 1)
    acc_w = np.empty(n + 1)
    ent = np.empty(n + 1, np.int64)
    seg = np.empty(n + 1, np.int64)
    cnt = np.empty(n + 2, np.int64)
    combo = np.zeros(p, np.int64)
    for a in range(pair_u.shape[0]):
        u = pair_u[a]
        pt = pair_p[a]
        nk = 0
        for k in range(p):
            if (u >> k) & 1:
                nk += 1
        ukeys = np.empty(nk, np.int64)
        umult = np.empty(nk, np.int64)
        nk = 0
        for k in range(p):
            if (u >> k) & 1:
                ukeys[nk] = k
                umult[nk] = mult[k]
                nk += 1
        tq = -1
        n_contrib = 0
        for q in range(n_pat_rows):
            if pat_of[q] == pt:
                tq = q
            if (pat_of[q] | pt) == u:
                n_contrib += row_start[q + 1] - row_start[q]
        t0, t1 = row_start[tq], row_start[tq + 1]
        if q0 >= 0 and u == 0:  # complete records among themselves: one sum per full code
            for b in range(size):
                if start[b + 1] == start[b]:
                    continue
                sc = 0.0
                sw = 0.0
                for t in range(start[b], start[b + 1]):
                    sc += 1.0
                    if has_w:
                        sw += weights[order[t]]
                for t in range(start[b], start[b + 1]):
                    i = order[t]
                    fk[i] += sc
                    if has_w:
                        Fk[i] += sw
            continue
        if q0 >= 0 and pt == 0:  # complete targets, contributors of pattern u (record order)
            ns = 0
            for t in range(row_start[tq_u(pat_of, u)], row_start[tq_u(pat_of, u) + 1]):
                j = rows[t]
                b = r[j]
                for e in range(nk):
                    b -= codes[j, ukeys[e]] * umult[e]
                sl = slot[b]
                if sl < 0:
                    sl = ns
                    slot[b] = sl
                    used[sl] = b
                    acc_c[sl] = 0.0
                    acc_w[sl] = 0.0
                    ns += 1
                c = 1.0 if alpha == 1.0 else alpha
                acc_c[sl] += c
                if has_w:
                    acc_w[sl] += weights[j] * c
            for sl in range(ns):  # the complete records of each bin: its expansion
                b = used[sl]
                slot[b] = -1
                for e in range(nk):
                    combo[e] = 0
                while True:
                    f = b
                    for e in range(nk):
                        f += combo[e] * umult[e]
                    for t in range(start[f], start[f + 1]):
                        i = order[t]
                        fk[i] += acc_c[sl]
                        if has_w:
                            Fk[i] += acc_w[sl]
                    e = 0
                    while e < nk:
                        combo[e] += 1
                        if combo[e] < cards_u(mult, ukeys[e], size):
                            break
                        combo[e] = 0
                        e += 1
                    if e == nk:
                        break
            continue
        if q0 >= 0 and 4 * (t1 - t0) < n:  # few targets: their bins' contributors, gathered
            ns = 0
            for t in range(t0, t1):
                i = rows[t]
                b = r[i]
                for e in range(nk):
                    b -= codes[i, ukeys[e]] * umult[e]
                if slot[b] < 0:
                    slot[b] = ns
                    used[ns] = b
                    acc_c[ns] = 0.0
                    acc_w[ns] = 0.0
                    ns += 1
            # contributors with missing keys, bucketed by bin (record order within a bin)
            for sl in range(ns + 1):
                cnt[sl] = 0
            for q in range(n_pat_rows):
                if q == q0 or (pat_of[q] | pt) != u:
                    continue
                for t in range(row_start[q], row_start[q + 1]):
                    j = rows[t]
                    b = r[j]
                    for e in range(nk):
                        b -= codes[j, ukeys[e]] * umult[e]
                    sl = slot[b]
                    if sl >= 0:
                        cnt[sl + 1] += 1
            for sl in range(ns):
                cnt[sl + 1] += cnt[sl]
            for q in range(n_pat_rows):
                if q == q0 or (pat_of[q] | pt) != u:
                    continue
                for t in range(row_start[q], row_start[q + 1]):
                    j = rows[t]
                    b = r[j]
                    for e in range(nk):
                        b -= codes[j, ukeys[e]] * umult[e]
                    sl = slot[b]
                    if sl >= 0:
                        ent[cnt[sl]] = j
                        cnt[sl] += 1
            for sl in range(ns - 1, -1, -1):
                cnt[sl + 1] = cnt[sl]
            cnt[0] = 0
            for sl in range(ns):  # per bin: its contributors in record order, summed
                m = 0
                for t in range(cnt[sl], cnt[sl + 1]):
                    seg[m] = ent[t]
                    m += 1
                if u == pt:  # complete contributors: the expansion of the bin
                    b = used[sl]
                    for e in range(nk):
                        combo[e] = 0
                    while True:
                        f = b
                        for e in range(nk):
                            f += combo[e] * umult[e]
                        for t in range(start[f], start[f + 1]):
                            seg[m] = order[t]
                            m += 1
                        e = 0
                        while e < nk:
                            combo[e] += 1
                            if combo[e] < cards_u(mult, ukeys[e], size):
                                break
                            combo[e] = 0
                            e += 1
                        if e == nk:
                            break
                seg[:m].sort()
                for t in range(m):
                    j = seg[t]
                    bj = bits[j]
                    c = 1.0 if (alpha == 1.0 or bj == 0 or bj == pt) else alpha
                    acc_c[sl] += c
                    if has_w:
                        acc_w[sl] += weights[j] * c
            for t in range(t0, t1):
                i = rows[t]
                b = r[i]
                for e in range(nk):
                    b -= codes[i, ukeys[e]] * umult[e]
                sl = slot[b]
                fk[i] += acc_c[sl]
                if has_w:
                    Fk[i] += acc_w[sl]
            for sl in range(ns):
                slot[used[sl]] = -1
            continue
        if acc.shape[0] < size:
            acc = np.zeros((size, 2))
            mark = np.zeros(size, np.uint8)
        # few contributors: their records in record order (else one pass over all records)
        listed = 4 * n_contrib < n
        n_list = 0
        if listed:
            for q in range(n_pat_rows):
                if (pat_of[q] | pt) == u:
                    for t in range(row_start[q], row_start[q + 1]):
                        clist[n_list] = rows[t]
                        n_list += 1
            clist[:n_list].sort()
        by_targets = t1 - t0 < n_contrib
        if by_targets:  # the targets' bins: contributors elsewhere are skipped
            for t in range(t0, t1):
                i = rows[t]
                b = r[i]
                for e in range(nk):
                    b -= codes[i, ukeys[e]] * umult[e]
                mark[b] = 1
        for jj in range(n_list if listed else n):  # the bins' sums, in record order
            j = clist[jj] if listed else jj
            bj = bits[j]
            if (bj | pt) != u:
                continue
            b = r[j]
            for e in range(nk):
                b -= codes[j, ukeys[e]] * umult[e]
            if by_targets:
                if mark[b] == 0:
                    continue
            else:
                mark[b] = 1
            c = 1.0 if (u == 0 or alpha == 1.0 or bj == 0 or bj == pt) else alpha
            acc[b, 0] += c
            if has_w:
                acc[b, 1] += weights[j] * c
        for t in range(t0, t1):  # each target adds its bin's sum
            i = rows[t]
            b = r[i]
            for e in range(nk):
                b -= codes[i, ukeys[e]] * umult[e]
            if mark[b] != 0:
                fk[i] += acc[b, 0]
                if has_w:
                    Fk[i] += acc[b, 1]
        if by_targets:  # clear the marked bins for the next pair
            for t in range(t0, t1):
                i = rows[t]
                b = r[i]
                for e in range(nk):
                    b -= codes[i, ukeys[e]] * umult[e]
                mark[b] = 0
                acc[b, 0] = 0.0
                acc[b, 1] = 0.0
        else:
            for jj in range(n_list if listed else n):
                j = clist[jj] if listed else jj
                if (bits[j] | pt) != u:
                    continue
                b = r[j]
                for e in range(nk):
                    b -= codes[j, ukeys[e]] * umult[e]
                mark[b] = 0
                acc[b, 0] = 0.0
                acc[b, 1] = 0.0
    return fk, Fk
