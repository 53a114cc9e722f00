"""Compiled C-steps of the FastMCD search (internal; numba, compiled on first use and cached on
disk, imported by `sdcsession.risk.robust._fastmcd` inside its functions).

``csteps(x, mu0, cov0, h, steps, until_stable, ridge)`` runs, for every start s (a mean
``mu0[s]`` and a covariance ``cov0[s]``), up to ``steps`` concentration steps on the records x
(Rousseeuw & Van Driessen 1999, section 2): the Cholesky factor L of Σ, the squared distances
‖L⁻¹(x_i − μ)‖² of all records, the h records with the smallest ones (ties at the h-th smallest
distance go to the first records in order; the subset comes out in record order) and their mean
and covariance (h − 1 denominator). With ``until_stable`` it stops as soon as the subset no
longer changes (a fixed point: the determinant no longer falls). Per start it returns the log
determinant of the last subset's covariance, the subset, its mean and covariance, the steps run
and a status: 0 regular, 1 the start's covariance has no Cholesky factor (start skipped),
2 an h-subset with a singular covariance (exact fit; with ``ridge`` the covariance gets
``1e-9 · trace · I`` for the distances first and only a failure of that is status 2).

One start costs O(steps · m · p²) for m records (a selection in O(m), no sort), with no Python
overhead per start or step: the search's 500 starts on 300 records take well under a
millisecond, where stacked numpy arrays paid for hundreds of small calls. numba's disk cache
is keyed on this file's source: a change to the selection's kernels
(`sdcsession.risk.robust._fastmcd_select`) reaches the cached ``csteps`` once this file
changes too (or the cache is cleared).
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import jit
from ._fastmcd_select import select as _select

__all__ = ["csteps", "start_fits"]


#: ``numba.njit`` with the on-disk cache (`sdcsession.risk._jit`), releasing the GIL
_njit = jit(nogil=True)
#: `_njit` allowing the reassociation of sums (vectorised reductions; the last bits of a sum
#: depend on the grouping, the result is still the same on every run)
_njit_sums = jit(nogil=True, fastmath={"reassoc", "contract"})


@_njit
def _chol(a, low):
    """Lower Cholesky factor of a into low; False when a is not positive definite."""
    p = a.shape[0]
    for j in range(p):
        s = a[j, j]
        for k in range(j):
            s -= low[j, k] * low[j, k]
        if not s > 0.0:
            return False
        d = math.sqrt(s)
        low[j, j] = d
        for i in range(j + 1, p):
            t = a[i, j]
            for k in range(j):
                t -= low[i, k] * low[j, k]
            low[i, j] = t / d
        for i in range(j):
            low[i, j] = 0.0
    return True


@_njit
def _factor(cov, low, work, ridge):
    """Cholesky factor of cov (with the ridge 1e-9·trace·I when ``ridge`` and cov is singular)."""
    if _chol(cov, low):
        return True
    if not ridge:
        return False
    p = cov.shape[0]
    tr = 0.0
    for j in range(p):
        tr += cov[j, j]
    eps = 1e-9 * max(tr, 1e-300)
    for i in range(p):
        for j in range(p):
            work[i, j] = cov[i, j]
        work[i, i] += eps
    return _chol(work, low)


@_njit
def _distances(xt, mu, low, linv, y, d2):
    """d2[i] = ‖L⁻¹(x_i − μ)‖² with L⁻¹ formed once (lower triangular); ``xt`` is x transposed
    (p × m). Per record, y_j = Σ_{k≤j} L⁻¹_jk (x_ik − μ_k) summed in the order k = 0, 1, … and
    d2 = ((0 + y_0²) + y_1²) + …; two variables in one fused loop, more in blocks of 256
    records (``y`` a buffer of 256), so that every inner loop runs over the records
    (vectorised) and stays in the first-level cache."""
    p, m = xt.shape
    if p == 2:  # L⁻¹ by the same operations as the substitution below, without its loops
        a00 = 1.0 / low[0, 0]
        a10 = (0.0 - low[1, 0] * a00) / low[1, 1]
        a11 = 1.0 / low[1, 1]
        m0, m1 = mu[0], mu[1]
        x0, x1 = xt[0], xt[1]
        for i in range(m):
            u0 = x0[i] - m0
            y0 = a00 * u0
            y1 = a10 * u0
            y1 += a11 * (x1[i] - m1)
            d2[i] = (0.0 + y0 * y0) + y1 * y1
        return
    for j in range(p):
        for k in range(p):
            linv[j, k] = 0.0
    for c in range(p):  # column c of L⁻¹: forward substitution of e_c
        for j in range(c, p):
            t = 1.0 if j == c else 0.0
            for k in range(c, j):
                t -= low[j, k] * linv[k, c]
            linv[j, c] = t / low[j, j]
    for b in range(0, m, 256):
        e = min(b + 256, m)
        for i in range(b, e):
            d2[i] = 0.0
        for j in range(p):
            c0 = linv[j, 0]
            m0 = mu[0]
            row = xt[0]
            for i in range(b, e):
                y[i - b] = c0 * (row[i] - m0)
            for k in range(1, j + 1):
                ck = linv[j, k]
                mk = mu[k]
                row = xt[k]
                for i in range(b, e):
                    y[i - b] += ck * (row[i] - mk)
            for i in range(b, e):
                d2[i] += y[i - b] * y[i - b]


@_njit_sums
def _fit_t(xt, sub, g, mu, cov):
    """`_fit` on the transposed records: the subset is gathered into ``g`` (p × h) variable by
    variable, and every sum runs over a contiguous row (vectorised)."""
    h = sub.shape[0]
    p = xt.shape[0]
    for j in range(p):
        row = xt[j]
        gj = g[j]
        s = 0.0
        for t in range(h):
            v = row[sub[t]]
            gj[t] = v
            s += v
        mu[j] = s / h
    for j in range(p):
        gj = g[j]
        mj = mu[j]
        for k in range(j + 1):
            gk = g[k]
            mk = mu[k]
            s = 0.0
            for t in range(h):
                s += (gj[t] - mj) * (gk[t] - mk)
            v = s / (h - 1)
            cov[j, k] = v
            cov[k, j] = v


@_njit
def _fit(x, sub, mu, cov):
    """Mean and covariance (h − 1 denominator) of the records sub."""
    h = sub.shape[0]
    p = x.shape[1]
    for j in range(p):
        mu[j] = 0.0
    for t in range(h):
        i = sub[t]
        for j in range(p):
            mu[j] += x[i, j]
    for j in range(p):
        mu[j] /= h
    for j in range(p):
        for k in range(p):
            cov[j, k] = 0.0
    for t in range(h):
        i = sub[t]
        for j in range(p):
            cj = x[i, j] - mu[j]
            for k in range(j + 1):
                cov[j, k] += cj * (x[i, k] - mu[k])
    for j in range(p):
        for k in range(j + 1):
            v = cov[j, k] / (h - 1)
            cov[j, k] = v
            cov[k, j] = v


@_njit
def csteps(x, mu0, cov0, h, steps, until_stable, ridge):
    """C-steps from each start (module docstring): log dets, subsets, means, covariances,
    steps run and status per start."""
    n_starts = mu0.shape[0]
    m, p = x.shape
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
        for step in range(steps):
            if step > 0 and not _factor(cov, low, work, ridge):
                bad = True
                break
            _distances(xt, mu, low, linv, y, d2)
            _select(d2, h, sub, sel)
            done[s] = step + 1
            if until_stable and have:
                same = True
                for t in range(h):
                    if sub[t] != prev[t]:
                        same = False
                        break
                if same:
                    break
            _fit_t(xt, sub[:h], g, mu, cov)
            for t in range(h):
                prev[t] = sub[t]
            have = True
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
    return log_det, subsets, mus, covs, done, status


@_njit
def _chol_tol(a, low):
    """`_chol` with a relative pivot tolerance (1e-12 of the diagonal entry): a start whose
    covariance is singular up to rounding counts as singular."""
    p = a.shape[0]
    for j in range(p):
        s = a[j, j]
        for k in range(j):
            s -= low[j, k] * low[j, k]
        if not s > 1e-12 * a[j, j]:
            return False
        d = math.sqrt(s)
        low[j, j] = d
        for i in range(j + 1, p):
            t = a[i, j]
            for k in range(j):
                t -= low[i, k] * low[j, k]
            low[i, j] = t / d
    return True


@_njit
def _smallest(keys, k, out, vals):
    """The positions of the k smallest values of keys into out, in the order of their values
    (an insertion buffer ``vals`` of at least k values; equal values in record order, as a
    stable sort). The largest value kept is held in a local (one compare per key)."""
    m = keys.shape[0]
    for t in range(k):
        vals[t] = np.inf
    cut = np.inf
    for i in range(m):
        v = keys[i]
        if v < cut:
            t = k - 1
            while t > 0 and vals[t - 1] > v:
                vals[t] = vals[t - 1]
                out[t] = out[t - 1]
                t -= 1
            vals[t] = v
            out[t] = i
            cut = vals[k - 1]


@_njit
def start_fits(x, keys):
    """Means and covariances of the random starts: a start is the p + 1 records of smallest
    ``keys[s]``; a singular start takes the next 1, 2, 4, … records in the order of
    its keys until its covariance is regular. Returns means, covariances and which starts are
    regular (False: singular even with all records)."""
    n_starts = keys.shape[0]
    m, p = x.shape
    idx = np.empty(p + 1, np.int64)
    vals = np.empty(max(p + 1, min(p + 33, m)))
    mus = np.zeros((n_starts, p))
    covs = np.zeros((n_starts, p, p))
    ok = np.zeros(n_starts, np.bool_)
    low = np.zeros((p, p))
    mu = np.empty(p)
    cov = np.empty((p, p))
    for s in range(n_starts):
        _smallest(keys[s], p + 1, idx, vals)
        _fit(x, idx, mu, cov)
        good = _chol_tol(cov, low)
        if not good:
            order = np.empty(min(p + 33, m), np.int64)
            _smallest(keys[s], order.shape[0], order, vals)
            size = 0
            while not good:
                size = 1 if size == 0 else 2 * size
                size_ = min(p + 1 + size, m)
                if size_ > order.shape[0]:  # the few smallest keys were not enough
                    order = np.argsort(keys[s], kind="mergesort")
                _fit(x, order[:size_], mu, cov)
                good = _chol_tol(cov, low)
                if size_ == m:
                    break
        if good:
            ok[s] = True
            for j in range(p):
                mus[s, j] = mu[j]
                for k in range(p):
                    covs[s, j, k] = cov[j, k]
    return mus, covs, ok
