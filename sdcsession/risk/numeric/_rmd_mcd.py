"""The modal MCD of `sdcsession.risk.numeric.rmd.rmd_risk` (internal): its repeated FastMCD
searches, shared between the calling thread and a helper thread, and a small cache of its fits.

Searches: a search is its random-start stages (compiled calls that release the GIL, one per
group of records and one for the merged and full stages,
`sdcsession.risk.robust._fastmcd.Stages`: the candidates of
`sdcsession.risk.robust._fastmcd.candidates`) and its last stage (the candidates iterated to
convergence, `sdcsession.risk.robust._fastmcd.finish`, with the ``memo`` shared by the runs).
The calling thread finishes the runs one by one in run order, counts the votes and stops as soon
as the first ``AGREE`` runs have returned the same subset, or the modal subset is certain
(`sdcsession.risk.numeric._rmd_runs.certain`: no other subset can overtake it, the tie rule
included); the start stages of the runs that the vote needs in any
case (half the runs and one before the first decision is possible; later, the fewest runs before
it can be decided), plus ``AHEAD`` beyond, are computed by the calling thread and
``workers − 1`` helpers of a kept pool, group by group
(`sdcsession.risk.numeric._rmd_runs.Runs`). The subset chosen, the shared ``memo`` and any error
raised are those of the plain loop of all runs. ``AHEAD = 0``: no run is computed in vain (the
vote usually ends as early as it can, so a run computed ahead was mostly wasted, and on a busy
machine it delays the others).

Cache: the fit depends only on the standardised original, the search settings and the factors,
so the last ``CACHE_SIZE`` fits are kept under a digest (SHA-256) of the array's bytes, its
shape and memory layout (numpy's sums follow the layout) and the settings. A session that
computes the RMD risk after every step against the same original pays the search once; a
changed original (any bit) has another digest. A cached fit is handed out as a copy (its arrays
are copied), so changing a returned fit cannot change a later result.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict

import attrs
import numpy as np

from ...errors import MeasureError
from ..robust.minimum_covariance import MCD, mcd

__all__ = ["modal_mcd", "clear_cache", "CACHE_SIZE", "WORKERS", "AHEAD", "AGREE"]

#: fits kept (the most recently used ones)
CACHE_SIZE = 4
#: threads computing the searches' start stages (1: the calling thread alone, the plain loop)
WORKERS = max(1, min(2, os.cpu_count() or 1))
#: runs whose start stages may be computed before the vote knows it needs them
AHEAD = 0
#: the vote ends when the first ``AGREE`` runs return the same subset
AGREE = 3

_cache: OrderedDict[tuple, MCD] = OrderedDict()
_lock = threading.Lock()


def clear_cache() -> None:
    """Forget the cached fits."""
    with _lock:
        _cache.clear()


def modal_mcd(z: np.ndarray, n_starts: int, runs: int, seed: int, factors: str,
              workers: int | None = None) -> MCD:
    """The reweighted MCD whose h-subset the most of ``runs`` FastMCD searches return (see
    `sdcsession.risk.numeric.rmd._modal_mcd`), from the cache when the same z and settings were
    fitted recently (module docstring). ``workers``: threads for the searches (default
    ``WORKERS``; the result does not depend on it).

    Example
    -------
    >>> z = np.random.default_rng(0).normal(size=(200, 2))
    >>> a = modal_mcd(z, 50, 3, 0, "robustbase-0.95")
    >>> b = modal_mcd(z, 50, 3, 0, "robustbase-0.95")  # from the cache: equal values, a copy
    >>> a.log_det == b.log_det, a.scatter is b.scatter
    (True, False)
    """
    key = (hashlib.sha256(np.ascontiguousarray(z)).digest(), z.shape, z.strides, str(z.dtype),
           int(n_starts), int(runs), int(seed), factors)  # strides: sums follow the layout
    with _lock:
        fit = _cache.get(key)
        if fit is not None:
            _cache.move_to_end(key)
    if fit is None:
        fit = _modal(z, n_starts, runs, seed, factors, WORKERS if workers is None else workers)
        with _lock:
            _cache[key] = fit
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return _copy(fit)


def _copy(fit: MCD) -> MCD:
    """The fit with its arrays copied."""
    return attrs.evolve(fit, **{f.name: getattr(fit, f.name).copy()
                                for f in attrs.fields(MCD)
                                if isinstance(getattr(fit, f.name), np.ndarray)})


def _modal(z: np.ndarray, n_starts: int, runs: int, seed: int, factors: str, workers: int
           ) -> MCD:
    """The search of `modal_mcd` (no cache)."""
    n, p = z.shape
    if p == 1 or n_starts == 0 or runs == 1 or n <= p + 1:  # exact, deterministic or one run
        return mcd(z, n_starts=n_starts, seed=int(seed), search="fastmcd", reweight=True,
                   exact_fit="error", consistency=factors)
    if not np.isfinite(z).all():
        raise MeasureError("mcd: x has missing or infinite values; drop or impute those records")
    from ..robust._fastmcd import Stages, finish
    from ..robust.minimum_covariance import _robustbase_fit
    from ._rmd_runs import Runs, certain, needed

    z = np.ascontiguousarray(z, dtype=np.float64)
    h = min(max((n + p + 1) // 2, p + 1), n)
    memo: dict = {}
    found: list = []
    keys: list[bytes] = []
    votes: dict[bytes, int] = {}
    log_det: dict[bytes, float] = {}
    first: dict[bytes, int] = {}
    stop = np.zeros(1, dtype=np.bool_)  # set: the runs started ahead are abandoned

    def start(i: int) -> Stages:
        return Stages(z, h, n_starts, np.random.default_rng(int(seed) + i), "error", stop)

    ahead = min(AHEAD, workers - 1)  # runs computed ahead of the vote (that many in vain)
    agree = AGREE
    plan = Runs(start, runs, needed(votes, log_det, first, runs, agree) + ahead, workers, stop)
    try:
        for i in range(runs):
            fit = finish(z, h, *plan.get(i), "error", 100, memo)
            found.append(fit)
            key = fit[1].tobytes()
            keys.append(key)
            votes[key] = votes.get(key, 0) + 1
            log_det.setdefault(key, fit[0])
            first.setdefault(key, i)
            left = runs - i - 1
            if i + 1 == agree and len(votes) == 1:  # the first `agree` runs agree
                break
            if certain(votes, log_det, first, left):  # nothing can overtake the leader
                break
            plan.allow(i + 1 + needed(votes, log_det, first, left, agree) + ahead)
    finally:
        plan.close()
    done = len(found)
    best = max(range(done), key=lambda j: (votes[keys[j]], -found[j][0]))
    return _robustbase_fit(z, h, found[best], True, "error", factors)
