"""The random-start stages of the FastMCD search in one compiled call (internal; numba, imported
by `sdcsession.risk.robust._fastmcd` inside its functions).

`sdcsession.risk.robust._fastmcd.fastmcd` finds its candidates in stages (module docstring
there): random starts with two C-steps in each group of records, two C-steps of the groups' best
in the merged groups, and above 5,000 records one C-step of those on all records. Written as
numpy calls around the compiled C-steps, one search at 10,000 records made about twenty compiled
calls and paid as much again in Python between them. ``stages`` runs all of them in one call
that releases the GIL (``nogil``), from random numbers drawn beforehand by ``draw`` in the order
the staged code draws them (the permutation of the records, then the uniform keys of each
group's starts), so the candidates are the same bit for bit: the same C-step kernel
(`sdcsession.risk.robust._fastmcd_jit.csteps`), the same stable order by determinant and the
same choice of the distinct subsets. ``stages`` is ``group_stage`` for each group, then
``last_stages`` (the merged and full stages): the same pieces that
`sdcsession.risk.robust._fastmcd.Stages` hands to several threads, so that two threads can
share one search group by group (``rmd_risk``'s repeated searches on two cores); a search can
be abandoned between its stages by setting ``stop[0]``.

Reference: Rousseeuw, P. J. & Van Driessen, K. (1999) A fast algorithm for the minimum covariance
determinant estimator, Technometrics 41, 212–223.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from ._fastmcd_jit import _njit, csteps, start_fits
from ._pcg64 import random_into

__all__ = ["draw", "stages", "group_sizes"]

#: ``stages`` status: the candidates are ready / an h-subset was singular (exact fit) /
#: abandoned (``stop[0]`` was set)
READY, EXACT_FIT, STOPPED = 0, 1, 2

_local = threading.local()  # the keys buffer of `draw`, one per thread
#: the largest keys buffer kept per thread (elements; 500 starts on 1,500 records take 150,000)
_KEPT = 1 << 20


def group_sizes(n: int, nmini: int, kmini: int) -> list[int]:
    """The sizes of the random start stage's groups for n >= 2·nmini records: kmini groups of
    nmini when the records allow, else n // nmini groups sharing the n records as evenly as
    possible (the larger ones last)."""
    k = min(n // nmini, kmini)
    if k < kmini:
        size, extra = divmod(n, k)
        return [size] * (k - extra) + [size + 1] * extra
    return [nmini] * kmini


def draw(n: int, n_starts: int, rng: np.random.Generator, nmini: int, kmini: int,
         buffer: Callable[[int], np.ndarray] | None = None
         ) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """The random numbers of the start stages, drawn from rng in the staged search's order:
    the records of the groups (all records in order below 2·nmini: one group), the group sizes,
    the starts per group and the uniform keys of all groups' starts (one flat array: group g's
    starts take ``count · sizes[g]`` keys after those of the groups before it). The keys are
    drawn into a buffer kept per thread (no fresh pages per search; up to ``_KEPT`` values):
    they are valid until the thread's next ``draw``; PCG64's numbers are drawn by compiled code
    (`sdcsession.risk.robust._pcg64`, the same numbers as ``rng.random``). ``buffer(size)``:
    where the keys go instead (a float64 array of that size)."""
    take = _buffer if buffer is None else buffer
    if n < 2 * nmini:
        return np.arange(n, dtype=np.int64), np.array([n], np.int64), n_starts, \
            random_into(rng, take(n_starts * n))
    sizes = group_sizes(n, nmini, kmini)
    k = len(sizes)
    pool = rng.permutation(n)[:sum(sizes)].astype(np.int64)
    count = n_starts // k
    return pool, np.array(sizes, np.int64), count, random_into(rng, take(count * sum(sizes)))


def _buffer(size: int) -> np.ndarray:
    """A float64 array of ``size`` elements from this thread's buffer (grown when needed, up
    to ``_KEPT`` elements; a larger one is a fresh array)."""
    if size > _KEPT:
        return np.empty(size)
    buf = getattr(_local, "keys", None)
    if buf is None or len(buf) < size:
        buf = _local.keys = np.empty(max(size, 1))
    return buf[:size]


@_njit
def _screen(x, h, mus, covs, steps, keep, ridge, until_stable):
    """``steps`` C-steps from each start; the means and covariances of the ``keep`` distinct
    subsets of smallest determinant (stable order: the first start wins ties), and whether an
    h-subset was singular (`sdcsession.risk.robust._fastmcd._screen`; ``until_stable`` is
    False, passed as a value so that the C-step kernel is the one compiled for the staged
    code's types, not a copy specialised on constants)."""
    p = x.shape[1]
    if mus.shape[0] == 0:
        return np.zeros((0, p)), np.zeros((0, p, p)), False
    log_det, subsets, mu, cov, _, status = csteps(x, mus, covs, h, steps, until_stable, ridge)
    for s in range(status.shape[0]):
        if status[s] == 2:
            return np.zeros((0, p)), np.zeros((0, p, p)), True
    ok = np.flatnonzero(status == 0)
    order = ok[np.argsort(log_det[ok], kind="mergesort")]
    best = np.empty(min(keep, order.shape[0]), np.int64)
    n_best = 0
    for s in order:
        new = True
        for b in range(n_best):
            same = True
            for t in range(h):
                if subsets[s, t] != subsets[best[b], t]:
                    same = False
                    break
            if same:
                new = False
                break
        if new:
            best[n_best] = s
            n_best += 1
            if n_best == keep:
                break
    out_mu = np.empty((n_best, p))
    out_cov = np.empty((n_best, p, p))
    for b in range(n_best):
        out_mu[b] = mu[best[b]]
        out_cov[b] = cov[best[b]]
    return out_mu, out_cov, False


@_njit
def group_stage(x, pool, start, m, block, h_group, keep, ridge):
    """The random starts of one group (the records ``pool[start:start + m]``, the uniform keys
    ``block``: starts × m) with two C-steps in the group: the means and covariances of its
    ``keep`` best distinct subsets, and whether an h-subset was singular."""
    p = x.shape[1]
    runtime = np.array([2, 0])  # values, not constants (see `_screen`)
    two, until = runtime[0], runtime[1] != 0
    xg = np.empty((m, p))
    for t in range(m):
        xg[t] = x[pool[start + t]]
    mu0, cov0, ok = start_fits(xg, block)
    sel = np.flatnonzero(ok)
    return _screen(xg, h_group, mu0[sel], cov0[sel], two, keep, ridge, until)


@_njit
def last_stages(x, pool, n_pool, mus, covs, h_merged, h, full_keep, keep, ridge, stop):
    """The stages after the groups, from the groups' candidates (mus, covs, in group order):
    two C-steps in the merged groups (the records ``pool[:n_pool]``; none when ``h_merged``
    < 0) and, with ``full_keep`` > 0, one C-step on all records keeping that many. Returns the
    candidates' means and covariances and the status."""
    p = x.shape[1]
    runtime = np.array([2, 1, 0])  # values, not constants (see `_screen`)
    two, one, until = runtime[0], runtime[1], runtime[2] != 0
    empty_mu = np.zeros((0, p))
    empty_cov = np.zeros((0, p, p))
    if h_merged >= 0:
        if stop[0]:
            return empty_mu, empty_cov, STOPPED
        xm = np.empty((n_pool, p))
        for t in range(n_pool):
            xm[t] = x[pool[t]]
        mus, covs, bad = _screen(xm, h_merged, mus, covs, two, keep, ridge, until)
        if bad:
            return empty_mu, empty_cov, EXACT_FIT
    if full_keep > 0 and mus.shape[0] > 0:
        if stop[0]:
            return empty_mu, empty_cov, STOPPED
        mus, covs, bad = _screen(x, h, mus, covs, one, full_keep, ridge, until)
        if bad:
            return empty_mu, empty_cov, EXACT_FIT
    return mus, covs, READY


@_njit
def stages(x, pool, sizes, count, keys, h_group, h_merged, h, full_keep, keep, ridge, stop,
           part, mus_in, covs_in):
    """The candidates' means and covariances after the start stages (module docstring), and
    the status (READY, EXACT_FIT or STOPPED): `group_stage` for each group in turn, then
    `last_stages`. ``h_merged`` < 0: one group, no merged stage; ``full_keep`` > 0: one C-step
    on all records keeping that many. ``part`` = -1: all of it (``mus_in``, ``covs_in`` are not
    used); ``part`` = g >= 0: group g alone (its candidates and status); ``part`` = -2: the
    last stages alone, from the groups' candidates ``mus_in``, ``covs_in`` (in group order).
    One compiled entry for every use: a fresh process loads one kernel from numba's cache for
    the whole search, whether one thread runs it or several share its groups."""
    p = x.shape[1]
    n_groups = sizes.shape[0]
    empty_mu = np.zeros((0, p))
    empty_cov = np.zeros((0, p, p))
    if part == -2:
        n_pool = 0
        for g in range(n_groups):
            n_pool += sizes[g]
        return last_stages(x, pool, n_pool, mus_in, covs_in, h_merged, h, full_keep, keep,
                           ridge, stop)
    parts_mu = []
    parts_cov = []
    n_found = 0
    start = 0
    key_at = 0
    for g in range(n_groups):
        m = sizes[g]
        if part < 0 or g == part:
            if stop[0]:
                return empty_mu, empty_cov, STOPPED
            block = keys[key_at:key_at + count * m].reshape((count, m))
            mu1, cov1, bad = group_stage(x, pool, start, m, block, h_group, keep, ridge)
            if bad:
                return empty_mu, empty_cov, EXACT_FIT
            if g == part:
                return mu1, cov1, READY
            parts_mu.append(mu1)
            parts_cov.append(cov1)
            n_found += mu1.shape[0]
        start += m
        key_at += count * m
    mus = np.empty((n_found, p))
    covs = np.empty((n_found, p, p))
    at = 0
    for g in range(len(parts_mu)):
        for s in range(parts_mu[g].shape[0]):
            mus[at] = parts_mu[g][s]
            covs[at] = parts_cov[g][s]
            at += 1
    return last_stages(x, pool, start, mus, covs, h_merged, h, full_keep, keep, ridge, stop)
