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

from typing import Any

import numba
import numpy as np

__all__ = ["pair_sums"]


def _njit(f: Any) -> Any:  # pragma: no cover - trivial
    """``numba.njit`` with the on-disk cache, without it where no cache location is writable."""
    try:
        return numba.njit(cache=True, nogil=True)(f)
    except RuntimeError:  # no writable cache location
        return numba.njit(cache=False, nogil=True)(f)


@_njit
def pair_sums(codes, mult, size, bits, weights, has_w, alpha, pair_u, pair_p, row_start, rows,
              n_pat_rows):
    """fk and Fk (module docstring). ``rows[row_start[q]:row_start[q + 1]]`` are the records of
    the q-th pattern (``n_pat_rows`` patterns; the pattern values are ``pair_*`` entries), in
    record order; a pair (u, p) takes its targets from p's rows and its contributors from the
    records with ``bits | p == u``."""
    n, p = codes.shape
    r = np.zeros(n, np.int64)
    for j in range(n):
        v = 0
        for k in range(p):
            v += codes[j, k] * mult[k]
        r[j] = v
    fk = np.zeros(n)
    Fk = np.zeros(n)
    acc = np.zeros((size, 2))  # per bin: sum of c_j, sum of c_j w_j (one cache line)
    mark = np.zeros(size, np.uint8)  # bins of the smaller side (all zero between pairs)
    clist = np.empty(n + 1, np.int64)
    pat_of = np.empty(n_pat_rows, np.int64)
    for q in range(n_pat_rows):
        pat_of[q] = bits[rows[row_start[q]]]
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
