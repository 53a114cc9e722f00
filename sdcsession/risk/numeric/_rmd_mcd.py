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

Beginning and idle work: `begin` starts the search (`Search`: the helpers open the first runs
at once) and returns; the caller collects the fit later (`Pending.result`), so ``rmd_risk``
reads and standardises the masked file while the helper draws and computes the first groups.
Once two runs agree, the reweighted fit of their subset (the likely result) is handed to the
threads as idle work (`sdcsession.risk.numeric._rmd_runs.Runs.idle`: a helper without a group
to compute, or the calling thread waiting for a run, takes it), so it is usually ready when
the vote ends; it is used only when the vote chooses that run's subset (the same function of
the same arrays: the same fit), else computed after the vote as before.

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

__all__ = ["modal_mcd", "begin", "Pending", "Search", "clear_cache", "CACHE_SIZE", "WORKERS",
           "AHEAD", "AGREE"]

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
    key = _key(z, n_starts, runs, seed, factors)
    fit = _cached(key)
    if fit is None:
        fit = _modal(z, n_starts, runs, seed, factors, WORKERS if workers is None else workers)
        _store(key, fit)
    return _copy(fit)


def begin(z: np.ndarray, n_starts: int, runs: int, seed: int, factors: str,
          workers: int | None = None) -> Pending:
    """`modal_mcd` begun: the fit from the cache, or a `Search` whose helpers start at once
    (`Pending.result` collects it, caches it and returns a copy, as `modal_mcd` does).

    Example
    -------
    >>> z = np.random.default_rng(0).normal(size=(200, 2))
    >>> job = begin(z, 50, 3, 0, "robustbase-0.95")
    >>> job.result().log_det == modal_mcd(z, 50, 3, 0, "robustbase-0.95").log_det
    True
    """
    key = _key(z, n_starts, runs, seed, factors)
    fit = _cached(key)
    search = None if fit is not None else Search(
        z, n_starts, runs, seed, factors, WORKERS if workers is None else workers)
    return Pending(key, fit, search)


@attrs.define(eq=False)
class Pending:
    """A modal fit being computed (`begin`): ``fit`` from the cache, or ``search`` running.
    ``idle``, ``close``: those of `Search` (None and nothing for a cached fit)."""

    key: tuple
    fit: MCD | None
    search: Search | None

    def idle(self, task, caller: bool = False):
        """``task`` for the search's idle threads (`Search.idle`; None: no search, or no
        helper)."""
        return None if self.search is None else self.search.idle(task, caller)

    def close(self) -> None:
        """Abandon the search and its idle work not started (idempotent)."""
        if self.search is not None:
            self.search.close()

    def result(self) -> MCD:
        """The fit (a copy), cached when it was searched."""
        if self.fit is None:
            assert self.search is not None
            self.fit = self.search.result()
            _store(self.key, self.fit)
        return _copy(self.fit)


def _key(z: np.ndarray, n_starts: int, runs: int, seed: int, factors: str) -> tuple:
    """The cache key of a fit: the digest of z's bytes, its shape, layout and the settings."""
    return (hashlib.sha256(np.ascontiguousarray(z)).digest(), z.shape, z.strides,
            str(z.dtype), int(n_starts), int(runs), int(seed), factors)  # strides: numpy's
    # sums follow the layout


def _cached(key: tuple) -> MCD | None:
    """The cached fit under ``key`` (now the most recently used), or None."""
    with _lock:
        fit = _cache.get(key)
        if fit is not None:
            _cache.move_to_end(key)
    return fit


def _store(key: tuple, fit: MCD) -> None:
    """Cache ``fit`` under ``key``, dropping the least recently used beyond ``CACHE_SIZE``."""
    with _lock:
        _cache[key] = fit
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def _copy(fit: MCD) -> MCD:
    """The fit with its arrays copied."""
    return attrs.evolve(fit, **{f.name: getattr(fit, f.name).copy()
                                for f in attrs.fields(MCD)
                                if isinstance(getattr(fit, f.name), np.ndarray)})


def _modal(z: np.ndarray, n_starts: int, runs: int, seed: int, factors: str, workers: int
           ) -> MCD:
    """The search of `modal_mcd` (no cache)."""
    return Search(z, n_starts, runs, seed, factors, workers).result()


def _one_search(z: np.ndarray, n_starts: int, runs: int) -> bool:
    """Whether the fit is one `mcd` call, not a vote: exact (one variable, or at most p + 1
    records), deterministic (no random starts) or a single run."""
    n, p = z.shape
    return p == 1 or n_starts == 0 or runs == 1 or n <= p + 1


class Search:
    """The search of `modal_mcd` (no cache), begun when made and collected by `result`: with
    helper threads (``workers`` > 1 and a vote of several FastMCD searches) the helpers start
    on the first runs' start stages at once, so the calling thread can do other work (read
    the masked file) before it joins them in `result`; `idle` hands the helpers work for their
    idle moments (`sdcsession.risk.numeric._rmd_runs.Runs.idle`). Otherwise the whole search
    runs in `result`. Either way `result` returns the fit and raises the error of the plain
    loop; `close` abandons a search whose result is no longer wanted (call it, or `result`,
    on every path: a helper waits for one of them).

    Example
    -------
    >>> z = np.random.default_rng(0).normal(size=(700, 2))
    >>> s = Search(z, 50, 3, 0, "robustbase-0.95", 2)
    >>> s.result().log_det == Search(z, 50, 3, 0, "robustbase-0.95", 1).result().log_det
    True
    """

    def __init__(self, z: np.ndarray, n_starts: int, runs: int, seed: int, factors: str,
                 workers: int) -> None:
        self._args = (z, n_starts, runs, seed, factors)
        self._plan = None
        if _one_search(z, n_starts, runs) or workers <= 1 \
                or not np.isfinite(z).all():  # one thread: all of it in `result`
            self._workers = 1
            return
        self._workers = workers
        self._begin()

    def _begin(self) -> None:
        """The state of the vote and the plan of its runs (helpers start on the first runs)."""
        from ..robust._fastmcd import Stages
        from ._rmd_runs import Runs, needed

        z, n_starts, runs, seed, _ = self._args
        n, p = z.shape
        z = self._z = np.ascontiguousarray(z, dtype=np.float64)
        h = self._h = min(max((n + p + 1) // 2, p + 1), n)
        self._stop = stop = np.zeros(1, dtype=np.bool_)  # set: runs started are abandoned

        def start(i: int) -> Stages:
            return Stages(z, h, n_starts, np.random.default_rng(int(seed) + i), "error", stop)

        ahead = min(AHEAD, self._workers - 1)  # runs computed ahead of the vote (in vain)
        self._plan = Runs(start, runs, needed({}, {}, {}, runs, AGREE) + ahead, self._workers,
                          stop)

    def idle(self, task, caller: bool = False):
        """``task`` for a helper's idle moments (`sdcsession.risk.numeric._rmd_runs.Runs.idle`;
        ``caller``: the calling thread's too), None without helpers (the caller computes it)."""
        return None if self._plan is None else self._plan.idle(task, caller=caller)

    def close(self) -> None:
        """Abandon the search and the idle work not started (idempotent)."""
        if self._plan is not None:
            self._plan.close(idle=False)

    def result(self) -> MCD:
        """The fit (the plain loop's subset, memo and errors; module docstring)."""
        z, n_starts, runs, seed, factors = self._args
        if _one_search(z, n_starts, runs):
            return mcd(z, n_starts=n_starts, seed=int(seed), search="fastmcd", reweight=True,
                       exact_fit="error", consistency=factors)
        if not np.isfinite(z).all():
            raise MeasureError("mcd: x has missing or infinite values; drop or impute those "
                               "records")
        from ..robust._fastmcd import finish
        from ..robust.minimum_covariance import _robustbase_fit
        from ._rmd_runs import certain, needed

        if self._plan is None:
            self._begin()
        z, h, plan = self._z, self._h, self._plan
        memo: dict = {}
        found: list = []
        keys: list[bytes] = []
        votes: dict[bytes, int] = {}
        log_det: dict[bytes, float] = {}
        first: dict[bytes, int] = {}
        ahead = min(AHEAD, self._workers - 1)
        ready: dict = {}  # run -> its reweighted fit computed by an idle helper (`Idle`)
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
                if i + 1 == AGREE and len(votes) == 1:  # the first `AGREE` runs agree
                    break
                if certain(votes, log_det, first, left):  # nothing can overtake the leader
                    break
                plan.allow(i + 1 + needed(votes, log_det, first, left, AGREE) + ahead)
                lead = max(range(i + 1), key=lambda j: (votes[keys[j]], -found[j][0]))
                if votes[keys[lead]] >= 2 and lead not in ready:  # the likely result
                    for job in ready.values():
                        job.drop()
                    ready[lead] = plan.idle(
                        lambda f=found[lead]: _robustbase_fit(z, h, f, True, "error", factors),
                        first=True, caller=True)
        except BaseException:
            plan.close(idle=False)
            raise
        plan.close()  # the idle work handed to the helpers is still done
        done = len(found)
        best = max(range(done), key=lambda j: (votes[keys[j]], -found[j][0]))
        for j, job in ready.items():
            if j != best:
                job.drop()
        fit = ready[best].result() if best in ready else None
        return fit if fit is not None else _robustbase_fit(z, h, found[best], True, "error",
                                                           factors)
