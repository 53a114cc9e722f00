"""Converged C-steps that share their paths across starts and searches (internal; numba,
imported by `sdcsession.risk.robust._fastmcd` inside its functions).

A C-step sequence is a deterministic function of its latest subset: once a start's C-steps
select a subset S that an earlier start (of this search or of an earlier search on the same
records, ``rmd_risk``'s repeated runs) selected on its way to convergence, its remaining steps
and its result are that earlier start's. ``csteps_shared`` runs the C-steps until stable as
`sdcsession.risk.robust._fastmcd_jit.csteps` does, and keeps every subset met on a converged
path in a table (a hash of the subset, the subset itself to compare, the number of steps from
it to the end and the result it leads to). A start whose subset is in the table takes the
result and the step count from there, provided they fit in its step budget: the result and the
steps counted are the same bit for bit as without the table; only the repeated steps are not
run. Starts in the test data's repeated searches merge with earlier paths after a few steps
(more than half the last stage's steps are skipped).

Its compiled code includes the C-step kernels of `sdcsession.risk.robust._fastmcd_jit` and
`sdcsession.risk.robust._fastmcd_select`; numba's disk cache is keyed on this file's own source,
so a change to those kernels (as the selection's guesses in log d2) reaches the cached
``csteps_shared`` when this file changes too or the cache is cleared (the same holds for
`sdcsession.risk.robust._fastmcd_stages`).
"""

from __future__ import annotations

import math

import numpy as np

from ._fastmcd_jit import _chol, _distances, _factor, _fit_t, _njit
from ._fastmcd_select import select as _select

__all__ = ["path_table", "csteps_shared"]

_MIX = np.uint64(0x9E3779B97F4A7C15)


def path_table(h: int, p: int, budget: int = 4_000_000) -> tuple[np.ndarray, ...]:
    """An empty table for `csteps_shared` with room for min(1024, budget / h) subsets (the
    subsets' arrays are allocated lazily by the system: only the rows used take memory)."""
    cap = max(1, min(1024, budget // max(h, 1)))
    slots = np.full(1 << (4 * cap - 1).bit_length(), -1, np.int64)  # a power of two >= 4 cap
    return (slots, np.zeros(cap, np.uint64), np.empty((cap, h), np.int64),
            np.full(cap, -1, np.int64), np.zeros(cap, np.int64), np.zeros(cap),
            np.zeros((cap, p)), np.zeros((cap, p, p)), np.zeros(1, np.int64))


@_njit
def _hash(sub, h):
    """A hash of the subset sub[:h] (a sum, vectorised)."""
    s = np.uint64(0)
    for t in range(h):
        v = np.uint64(sub[t])
        s += (v + np.uint64(1)) * (v ^ _MIX)
    return s


@_njit
def _find(sub, h, hsh, slots, ent_hash, ent_sub):
    """The entry of subset sub[:h] in the table, -1 when absent; with the free slot to fill."""
    mask = slots.shape[0] - 1
    i = np.int64(hsh & np.uint64(mask))
    while slots[i] >= 0:
        e = slots[i]
        if ent_hash[e] == hsh:
            same = True
            for t in range(h):
                if ent_sub[e, t] != sub[t]:
                    same = False
                    break
            if same:
                return e, i
        i = (i + 1) & mask
    return -1, i


@_njit
def csteps_shared(x, mu0, cov0, h, steps, ridge, slots, ent_hash, ent_sub, ent_out, ent_rem,
                  ent_ld, ent_mu, ent_cov, used):
    """`csteps` until stable (module docstring), with the path table of `path_table`
    (updated in place). Returns log dets, subsets, means, covariances, steps run and status."""
    n_starts = mu0.shape[0]
    m, p = x.shape
    cap = ent_out.shape[0]
    xt = np.ascontiguousarray(x.T)
    y = np.empty(m)
    g = np.empty((p, h))
    log_det = np.full(n_starts, np.inf)
    subsets = np.zeros((n_starts, h), np.int64)
    mus = np.zeros((n_starts, p))
    covs = np.zeros((n_starts, p, p))
    done = np.zeros(n_starts, np.int64)
    status = np.zeros(n_starts, np.int64)
    d2 = np.empty(m)
    sel = np.empty(m)
    low = np.zeros((p, p))
    linv = np.zeros((p, p))
    work = np.zeros((p, p))
    mu = np.empty(p)
    cov = np.empty((p, p))
    sub = np.empty(m + 1, np.int64)
    prev = np.empty(h, np.int64)
    path = np.empty(steps, np.int64)
    for s in range(n_starts):
        for j in range(p):
            mu[j] = mu0[s, j]
            for k in range(p):
                cov[j, k] = cov0[s, j, k]
        if not _chol(cov, low):
            status[s] = 1
            continue
        have = False
        bad = False
        stable = False
        hit = -1
        n_path = 0
        for step in range(steps):
            if step > 0 and not _factor(cov, low, work, ridge):
                bad = True
                break
            _distances(xt, mu, low, linv, y, d2)
            _select(d2, h, sub, sel)
            done[s] = step + 1
            if have:
                same = True
                for t in range(h):
                    if sub[t] != prev[t]:
                        same = False
                        break
                if same:
                    stable = True
                    break
            hsh = _hash(sub, h)
            e, slot = _find(sub, h, hsh, slots, ent_hash, ent_sub)
            if e >= 0 and ent_out[e] >= 0 and step + ent_rem[e] < steps:
                hit = ent_out[e]
                done[s] = step + 1 + ent_rem[e]
                break
            _fit_t(xt, sub[:h], g, mu, cov)
            for t in range(h):
                prev[t] = sub[t]
            have = True
            new = -1
            if e < 0 and used[0] < cap:  # a new subset: a pending entry of this path
                new = used[0]
                used[0] += 1
                slots[slot] = new
                ent_hash[new] = hsh
                for t in range(h):
                    ent_sub[new, t] = sub[t]
                ent_out[new] = -1
            path[n_path] = new
            n_path += 1
        if hit >= 0:
            log_det[s] = ent_ld[hit]
            for t in range(h):
                subsets[s, t] = ent_sub[hit, t]
            for j in range(p):
                mus[s, j] = ent_mu[hit, j]
                for k in range(p):
                    covs[s, j, k] = ent_cov[hit, j, k]
            final = hit
        else:
            if bad or not _factor(cov, low, work, ridge):
                status[s] = 2
                continue
            ld = 0.0
            for j in range(p):
                ld += math.log(low[j, j])
            log_det[s] = 2.0 * ld
            for t in range(h):
                subsets[s, t] = prev[t]
            for j in range(p):
                mus[s, j] = mu[j]
                for k in range(p):
                    covs[s, j, k] = cov[j, k]
            final = path[n_path - 1] if stable and n_path > 0 else -1
            if final >= 0:  # the result, kept with the entry of its subset
                ent_ld[final] = log_det[s]
                for j in range(p):
                    ent_mu[final, j] = mu[j]
                    for k in range(p):
                        ent_cov[final, j, k] = cov[j, k]
        if final >= 0:
            for j in range(n_path):
                if path[j] >= 0:
                    ent_out[path[j]] = final
                    ent_rem[path[j]] = done[s] - j - 1
    return log_det, subsets, mus, covs, done, status
