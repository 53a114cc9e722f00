"""The modal MCD of `sdcsession.risk.numeric.rmd.rmd_risk` (internal): its repeated FastMCD
searches, run two at a time in threads, and a small cache of its fits.

Searches in threads: a search is its random-start stages (one compiled call that releases the
GIL, `sdcsession.risk.robust._fastmcd.candidates`) and its last stage (the candidates iterated
to convergence, `sdcsession.risk.robust._fastmcd.finish`, with the ``memo`` shared by the
runs). The runs go in batches of ``workers``: the calling thread runs the start stages of a
batch's first run while ``workers − 1`` pool threads run the others'; then the calling thread
finishes the batch's runs one after the other in run order, counts the votes and decides when
to stop exactly as the sequential loop did: the subset chosen, the shared ``memo`` and any error
raised are the same. A run of the batch that is not needed any more is abandoned between its
stages (batches rather than a pipeline: at most ``workers − 1`` runs are computed in vain, which
matters when the other cores are busy).

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
from collections import Counter, OrderedDict

import attrs
import numpy as np

from ...errors import MeasureError
from ..robust.minimum_covariance import MCD, mcd

__all__ = ["modal_mcd", "clear_cache", "CACHE_SIZE", "WORKERS"]

#: fits kept (the most recently used ones)
CACHE_SIZE = 4
#: threads running the start stages of the next searches (1: no thread, the plain loop)
WORKERS = max(1, min(2, os.cpu_count() or 1))

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
    from ..robust._fastmcd import candidates, finish
    from ..robust.minimum_covariance import _robustbase_fit

    z = np.ascontiguousarray(z, dtype=np.float64)
    h = min(max((n + p + 1) // 2, p + 1), n)
    memo: dict = {}
    found: list = []
    keys: list[bytes] = []
    count: Counter = Counter()
    stop = np.zeros(1, dtype=np.bool_)  # set: the runs started ahead are abandoned

    def start(i: int) -> tuple[np.ndarray, np.ndarray] | None:
        return candidates(z, h, n_starts, np.random.default_rng(int(seed) + i), "error", stop)

    pool = None
    ahead: dict = {}
    if workers > 1:
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(max_workers=workers - 1, thread_name_prefix="sdcsession-mcd")
    try:
        for i in range(runs):
            if pool is None or i % workers == 0:  # the first run of a batch: this thread
                if pool is not None:  # the batch's other runs: the pool's threads
                    for j in range(i + 1, min(i + workers, runs)):
                        ahead[j] = pool.submit(start, j)
                stages = start(i)
            else:
                stages = ahead.pop(i).result()  # its error, if any, as the plain loop
            fit = finish(z, h, *stages, "error", 100, memo)
            found.append(fit)
            keys.append(fit[1].tobytes())
            count[keys[-1]] += 1
            left = runs - i - 1
            (lead, c1), *rest = count.most_common(2) + [(None, 0)]
            if c1 > rest[0][1] + left:  # no other subset can reach it (an unseen one: c1 > left)
                break
    finally:
        stop[0] = True
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
    done = len(found)
    best = max(range(done), key=lambda j: (count[keys[j]], -found[j][0]))
    return _robustbase_fit(z, h, found[best], True, "error", factors)
