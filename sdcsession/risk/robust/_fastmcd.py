"""C-steps, random starts and the nested FastMCD search behind ``sdcsession.risk.robust.minimum_covariance.mcd``.

A *C-step* (concentration step) takes the mean μ and covariance Σ of an h-subset, computes the
squared Mahalanobis distances of all records and keeps the h records with the smallest ones; the
determinant never increases (Rousseeuw & Van Driessen 1999, theorem 1). A *random start* is a
random (p + 1)-subset, extended by further random records while its covariance is singular.
``fastmcd`` draws all starts of a group at once (the p + 1 smallest of n uniform keys per start,
`start_fits`) and runs the C-steps of all starts in one compiled loop
(`sdcsession.risk.robust._fastmcd_jit`: no Python or BLAS call per start or step).

``fastmcd`` is the search of Rousseeuw & Van Driessen (1999), section 3, with the settings of
R's ``robustbase::covMcd`` (nsamp = 500, nmini = 300, kmini = 5):

- n < 600: every random start gets two C-steps; the 10 distinct subsets of smallest determinant
  are iterated to convergence and the best one wins ("selective iteration");
- n ≥ 600 ("nested extensions"): the records are split at random into k = min(⌊n/300⌋, 5) groups
  (n split evenly when k < 5, else 5 groups of 300). Each group gets n_starts/k starts with two
  C-steps inside the group (subset size ⌊m₁ h/n⌋, m₁ the first group's size) and keeps its 10
  best; these 10k candidates get two C-steps in the merged groups (subset size ⌊M h/n⌋), the 10
  best of them go on to all records;
- on all records: up to 5,000 records the 10 candidates are iterated to convergence (at most
  ``max_steps`` C-steps, stopping when the subset no longer changes) and the best one wins;
  above, each candidate gets one C-step on all records and the best three (the best one when
  n·p exceeds 1,000,000) are iterated to convergence. robustbase stops this stage after 10, 9, …, 2, 1 C-steps when n·p exceeds
  100,000 (2 or 1 at a million records); iterating to convergence can only lower the
  determinant of the subset it reaches, at about one pass over the records per step.

The random-start stages (and the screen on all records) run in one compiled call that releases
the GIL (`candidates`, `sdcsession.risk.robust._fastmcd_stages`), the last stage in `finish`;
`_candidates` and `_screen` are the same stages in numpy around the compiled C-steps, the
reference the compiled stages are tested against.

Reference: Rousseeuw, P. J. & Van Driessen, K. (1999) A fast algorithm for the minimum covariance
determinant estimator, Technometrics 41, 212–223.

Example
-------
>>> import numpy as np
>>> x = np.random.default_rng(0).normal(size=(200, 2)); x[:30] += 20
>>> log_det, subset, mu, cov = fastmcd(x, 101, 50, np.random.default_rng(1), "error")
>>> len(subset), bool((subset >= 30).all())
(101, True)
"""

from __future__ import annotations

import threading

import numpy as np

from ...errors import MeasureError

__all__ = ["cholesky", "distances", "concentrate", "random_start", "start_fits", "fastmcd",
           "candidates", "finish", "Stages"]

NMINI, KMINI, KEEP = 300, 5, 10
#: above this many records the candidates get one C-step on all records and only the best
#: ``KEEP_FULL`` of them (the best one when n·p exceeds ``KEEP_FULL_NP``) are iterated
FULL_ALL, KEEP_FULL, KEEP_FULL_NP = 5000, 3, 1_000_000


def exact_fit_error() -> MeasureError:
    """The error of a singular h-subset covariance (exact fit) when ``exact_fit="error"``."""
    return MeasureError("mcd: more than half of the records lie on a hyperplane (singular "
                        "covariance of the h-subset: exact fit)")


def group_h(n: int, h: int, sizes: np.ndarray, pool: np.ndarray) -> tuple[int, int]:
    """(h of a group, h of the merged groups; -1 when there is one group): h scaled to the
    group's and the merged groups' sizes, as covMcd does."""
    if n < 2 * NMINI:
        return h, -1
    return int(int(sizes[0]) * h / n), int(len(pool) * h / n)


def cholesky(cov: np.ndarray, exact_fit: str) -> np.ndarray:
    """Lower Cholesky factor of cov; a singular cov raises (``"error"``) or gets a ridge."""
    try:
        return np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        if exact_fit == "error":
            raise exact_fit_error() from None
        return np.linalg.cholesky(cov + np.eye(len(cov)) * 1e-9 * max(np.trace(cov), 1e-300))


def distances(chol: np.ndarray, x: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Squared distances ‖L⁻¹(x_i − μ)‖² for the Cholesky factor L of the covariance.

    L⁻¹ is formed once (p×p) and applied by a matrix product: a triangular solve with all n
    right-hand sides (``scipy.linalg.solve_triangular``) is many times slower when the BLAS
    threads compete for cores.
    """
    linv = np.linalg.inv(chol)
    y = (x - mu) @ linv.T
    return np.einsum("ij,ij->i", y, y)


def concentrate(x: np.ndarray, d2: np.ndarray, h: int, max_steps: int, exact_fit: str
                ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """C-steps from the start distances d2: log det, subset (sorted row numbers), mean, covariance.

    Stops when the subset no longer changes (then its determinant no longer falls either).
    """
    log_det, subset, mu, cov = np.inf, None, None, None
    for _ in range(max_steps):
        new = np.argpartition(d2, h - 1)[:h]
        new.sort()
        if subset is not None and np.array_equal(new, subset):
            break
        subset = new
        xs = x[subset]
        mu = xs.sum(axis=0) / h
        c = xs - mu
        cov = (c.T @ c) / (h - 1)
        chol = cholesky(cov, exact_fit)
        log_det = 2.0 * float(np.log(np.diag(chol)).sum())
        d2 = distances(chol, x, mu)
    return log_det, subset, mu, cov


def random_start(x: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """Squared distances from a random (p + 1)-subset (extended by 1, 2, 4, … further random
    records while its covariance is singular); None when even all records are singular."""
    n, p = x.shape
    idx = rng.choice(n, size=p + 1, replace=False)
    start = x[idx]
    mu = start.mean(axis=0)
    cov = np.cov(start, rowvar=False).reshape(p, p)
    try:  # the usual case: a regular start, no rank computation needed
        return distances(np.linalg.cholesky(cov), x, mu)
    except np.linalg.LinAlgError:
        pass
    return _extend(x, idx, cov, rng)


def _extend(x: np.ndarray, idx: np.ndarray, cov: np.ndarray, rng: np.random.Generator
            ) -> np.ndarray | None:
    """Distances from the random subset ``idx`` whose covariance ``cov`` has no Cholesky
    factor: extended by 1, 2, 4, … further random records while singular (None when even all
    records are); a merely ill-conditioned subset is used with the pseudo-inverse."""
    n, p = x.shape
    start = x[idx]
    if np.linalg.matrix_rank(cov) < p:
        rest = np.setdiff1d(np.arange(n), idx)[rng.permutation(n - len(idx))]
        size = 0
        while np.linalg.matrix_rank(cov) < p and size < len(rest):
            size = min(max(1, 2 * size), len(rest))  # doubling: few steps on discrete data
            start = x[np.concatenate([idx, rest[:size]])]
            cov = np.cov(start, rowvar=False).reshape(p, p)
        if np.linalg.matrix_rank(cov) < p:
            return None
    diff = x - start.mean(axis=0)
    return np.einsum("ij,ij->i", diff @ np.linalg.pinv(cov), diff)


def fastmcd(x: np.ndarray, h: int, n_starts: int, rng: np.random.Generator, exact_fit: str,
            max_steps: int = 100, memo: dict | None = None
            ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """FastMCD search (module docstring): log det, subset, mean and covariance of the best subset.

    ``memo`` (a dict kept by the caller across searches on the same x, h, exact_fit and
    max_steps) stores the converged C-steps of the last stage by their start (the exact bytes of
    its mean and covariance): the C-steps are a deterministic function of the start, so a start
    met again (repeated searches mostly reach the same candidates) is not iterated again and the
    result is the same. Under the key ``"paths"`` it keeps the subsets met on converged paths:
    a start whose C-steps reach one of them takes that path's result without the repeated
    steps (`sdcsession.risk.robust._fastmcd_shared`; the same result).

    Example
    -------
    >>> x = np.random.default_rng(3).normal(size=(700, 3))
    >>> fastmcd(x, 352, 100, np.random.default_rng(0), "error")[1].shape
    (352,)
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    mus, covs = candidates(x, h, n_starts, rng, exact_fit)
    return finish(x, h, mus, covs, exact_fit, max_steps, memo)


def candidates(x: np.ndarray, h: int, n_starts: int, rng: np.random.Generator, exact_fit: str,
               stop: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """The means and covariances of the candidates that `fastmcd` iterates to convergence: the
    random-start stages (`_candidates`) and, above ``FULL_ALL`` records, the screen by one
    C-step on all records, in one compiled call that releases the GIL
    (`sdcsession.risk.robust._fastmcd_stages`; the same candidates bit for bit). x: C-ordered
    float64. ``stop`` (a one-element bool array): setting it from another thread abandons the
    search between stages (the result is then None)."""
    from ._fastmcd_stages import EXACT_FIT, STOPPED, draw, stages

    n, p = x.shape
    pool, sizes, count, keys = draw(n, n_starts, rng, NMINI, KMINI)
    h_group, h_merged = group_h(n, h, sizes, pool)
    full = 0 if n <= FULL_ALL else (KEEP_FULL if n * p <= KEEP_FULL_NP else 1)
    mus, covs, status = stages(x, pool, sizes, count, keys, h_group, h_merged, h, full, KEEP,
                               exact_fit == "ridge", np.zeros(1, np.bool_) if stop is None
                               else stop, -1, np.zeros((0, p)), np.zeros((0, p, p)))
    if status == STOPPED:
        return None
    if status == EXACT_FIT:
        raise exact_fit_error()
    return mus, covs


class Stages:
    """The random-start stages of one search (`candidates`) as work items that several threads
    can share: the groups, in any order and on any thread (`claim`, `group`), then the merged
    and full stages, run by the thread that completes the last group (`group` returns True:
    call `complete`). The random numbers are drawn when the object is made, in the staged
    search's order, and each group's compiled stage is the one `candidates` runs (``stages`` of
    `sdcsession.risk.robust._fastmcd_stages` for one group, then for the last stages), so the
    candidates are the same bit for bit whichever threads compute the groups. ``stop`` (a
    one-element bool array): once set, no group is handed out and `complete` gives None.

    Example
    -------
    >>> x = np.random.default_rng(3).normal(size=(700, 2))
    >>> st = Stages(x, 351, 60, np.random.default_rng(0), "error")
    >>> last = [st.group(g) for g in iter(st.claim, None)][-1]
    >>> mus, covs = st.complete()
    >>> ref = candidates(x, 351, 60, np.random.default_rng(0), "error")
    >>> last, mus.tobytes() == ref[0].tobytes(), covs.tobytes() == ref[1].tobytes()
    (True, True, True)
    """

    def __init__(self, x: np.ndarray, h: int, n_starts: int, rng: np.random.Generator,
                 exact_fit: str, stop: np.ndarray | None = None) -> None:
        from ._fastmcd_stages import draw

        self.x = np.ascontiguousarray(x, dtype=np.float64)
        n, p = self.x.shape
        pool, sizes, count, self.keys = draw(n, n_starts, rng, NMINI, KMINI, _keys_buffer)
        self.pool, self.sizes, self.count = pool, sizes, count
        self.h_group, self.h_merged = group_h(n, h, sizes, pool)
        self.h = h
        self.full = 0 if n <= FULL_ALL else (KEEP_FULL if n * p <= KEEP_FULL_NP else 1)
        self.ridge = exact_fit == "ridge"
        self.stop = np.zeros(1, np.bool_) if stop is None else stop
        k = len(sizes)
        self.starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        self.parts: list = [None] * k
        self._lock = threading.Lock()
        self._next = 0
        self._left = k

    def claim(self) -> int | None:
        """The next group to compute, None when all are handed out or the search is stopped."""
        with self._lock:
            if self._next >= len(self.parts) or self.stop[0]:
                return None
            self._next += 1
            return self._next - 1

    def pending(self) -> bool:
        """Whether a group can still be claimed."""
        return self._next < len(self.parts) and not self.stop[0]

    def _stages(self, part: int, mus: np.ndarray, covs: np.ndarray) -> tuple:
        """The compiled ``stages`` for ``part`` (a group, or -2: the last stages)."""
        from ._fastmcd_stages import stages

        keys = self.keys if self.keys is not None else np.zeros(0)  # freed after the groups
        return stages(self.x, self.pool, self.sizes, self.count, keys, self.h_group,
                      self.h_merged, self.h, self.full, KEEP, self.ridge, self.stop, part, mus,
                      covs)

    def group(self, g: int) -> bool:
        """Compute group g (claimed); True when it was the last group to finish."""
        p = self.x.shape[1]
        self.parts[g] = self._stages(g, np.zeros((0, p)), np.zeros((0, p, p)))
        with self._lock:
            self._left -= 1
            last = self._left == 0
        if last:  # the keys are no longer needed: their buffer serves the next search
            _keys_free(self.keys)
            self.keys = None
        return last

    def complete(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The candidates (means, covariances) after the groups: the merged and full stages;
        None when the search was stopped. Raises the exact-fit error of `candidates`."""
        from ._fastmcd_stages import EXACT_FIT, STOPPED

        if self.stop[0] or any(part[2] == STOPPED for part in self.parts):
            return None
        if any(part[2] == EXACT_FIT for part in self.parts):
            raise exact_fit_error()
        p = self.x.shape[1]
        mus = np.concatenate([part[0] for part in self.parts]).reshape(-1, p)
        covs = np.concatenate([part[1] for part in self.parts]).reshape(-1, p, p)
        mus, covs, status = self._stages(-2, mus, covs)
        if status == STOPPED:
            return None
        if status == EXACT_FIT:
            raise exact_fit_error()
        return mus, covs


_free_keys: list[np.ndarray] = []  # key buffers of completed `Stages` (a few, reused)
_keys_lock = threading.Lock()


def _keys_buffer(size: int) -> np.ndarray:
    """A float64 array of ``size`` elements for a search's keys: a freed buffer when one is
    large enough (no fresh pages per search), else a new one."""
    with _keys_lock:
        for i, buf in enumerate(_free_keys):
            if len(buf) >= size:
                del _free_keys[i]
                return buf[:size]
    return np.empty(size)


def _keys_free(keys: np.ndarray) -> None:
    """Give a search's key buffer back (at most four are kept, each of at most ``_KEPT``
    values as the per-thread buffer of `sdcsession.risk.robust._fastmcd_stages.draw`)."""
    from ._fastmcd_stages import _KEPT

    buf = keys if keys.base is None else keys.base
    with _keys_lock:
        if len(_free_keys) < 4 and 0 < buf.size <= _KEPT:
            _free_keys.append(buf)


def finish(x: np.ndarray, h: int, mus: np.ndarray, covs: np.ndarray, exact_fit: str,
           max_steps: int = 100, memo: dict | None = None
           ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """The last stage of `fastmcd`: the candidates (`candidates`) iterated to convergence, the
    best one's log det, subset, mean and covariance (``memo``: see `fastmcd`)."""
    if not len(mus):
        raise MeasureError("mcd: every starting subset is singular: the records lie on a "
                           "hyperplane (collinear variables: exact fit)")
    if memo is None:
        fit = _run(x, h, mus, covs, exact_fit, max_steps, until_stable=True)
    else:
        fit = _run_memo(x, h, mus, covs, exact_fit, max_steps, memo)
    best = int(np.argmin(fit[0]))
    return float(fit[0][best]), fit[1][best], fit[2][best], fit[3][best]


def _run(x: np.ndarray, h: int, mus: np.ndarray, covs: np.ndarray, exact_fit: str, steps: int,
         until_stable: bool) -> tuple[np.ndarray, ...]:
    """The compiled C-steps from the starts (mus, covs); exact fit raises unless ``ridge``.
    Returns log dets, subsets, means, covariances of the regular starts (others dropped)."""
    from ._fastmcd_jit import csteps

    log_det, subsets, mu, cov, _, status = csteps(
        x, np.ascontiguousarray(mus), np.ascontiguousarray(covs), int(h), int(steps),
        until_stable, exact_fit == "ridge")
    if (status == 2).any():
        raise exact_fit_error()
    ok = status == 0
    return log_det[ok], subsets[ok], mu[ok], cov[ok]


def _run_memo(x: np.ndarray, h: int, mus: np.ndarray, covs: np.ndarray, exact_fit: str,
              steps: int, memo: dict) -> tuple[np.ndarray, ...]:
    """`_run` until stable, reusing the results of starts already in ``memo`` (see `fastmcd`);
    the same arrays in the same order as `_run`."""
    from ._fastmcd_shared import csteps_shared, path_table

    keys = [mus[i].tobytes() + covs[i].tobytes() for i in range(len(mus))]
    todo = [i for i, k in enumerate(keys) if k not in memo]
    if todo:
        if "paths" not in memo:  # the subsets met on converged paths (`csteps_shared`)
            memo["paths"] = path_table(int(h), x.shape[1])
        log_det, subsets, mu, cov, _, status = csteps_shared(
            x, np.ascontiguousarray(mus[todo]), np.ascontiguousarray(covs[todo]), int(h),
            int(steps), exact_fit == "ridge", *memo["paths"])
        if (status == 2).any():
            raise exact_fit_error()
        for j, i in enumerate(todo):
            memo[keys[i]] = (log_det[j], subsets[j], mu[j], cov[j]) if status[j] == 0 else None
    found = [memo[k] for k in keys if memo[k] is not None]
    p = x.shape[1]
    if not found:
        return (np.zeros(0), np.zeros((0, h), np.int64), np.zeros((0, p)), np.zeros((0, p, p)))
    return tuple(np.array([f[t] for f in found]) for t in range(4))


def _candidates(x: np.ndarray, h: int, n_starts: int, rng: np.random.Generator,
                exact_fit: str) -> tuple[np.ndarray, np.ndarray]:
    """The means and covariances of the candidates of the random-start stages (module
    docstring), stage by stage in numpy around the compiled C-steps: the reference that the
    compiled stages of `candidates` reproduce bit for bit (tests, benchmarks)."""
    n, p = x.shape
    if n < 2 * NMINI:
        return _screen(x, h, *start_fits(x, n_starts, rng), exact_fit)
    from ._fastmcd_stages import group_sizes

    sizes = group_sizes(n, NMINI, KMINI)
    k = len(sizes)
    pool = rng.permutation(n)[:sum(sizes)]
    groups = np.split(pool, np.cumsum(sizes)[:-1])
    hg = int(sizes[0] * h / n)
    mus, covs = [], []
    for g in groups:
        xg = x[g]
        mu, cov = _screen(xg, hg, *start_fits(xg, n_starts // k, rng), exact_fit)
        mus.append(mu)
        covs.append(cov)
    return _screen(x[pool], int(len(pool) * h / n), np.concatenate(mus), np.concatenate(covs),
                   exact_fit)


def _screen(x: np.ndarray, h: int, mus: np.ndarray, covs: np.ndarray, exact_fit: str,
            steps: int = 2, keep: int = KEEP) -> tuple[np.ndarray, np.ndarray]:
    """``steps`` C-steps from each start (mean, covariance); mean and covariance of the ``keep``
    distinct subsets of smallest determinant (the first start wins ties)."""
    if not len(mus):
        return mus, covs
    log_det, subsets, mu, cov = _run(x, h, mus, covs, exact_fit, steps, until_stable=False)
    found: dict[bytes, int] = {}
    for i in np.argsort(log_det, kind="stable"):
        found.setdefault(subsets[i].tobytes(), int(i))
        if len(found) == keep:
            break
    best = list(found.values())
    return mu[best], cov[best]


def start_fits(x: np.ndarray, count: int, rng: np.random.Generator
               ) -> tuple[np.ndarray, np.ndarray]:
    """Means and covariances of ``count`` random (p + 1)-subsets drawn at once: each row of
    ``count × n`` uniform keys orders the records at random, and a start is the p + 1 records
    of smallest key (a uniformly random subset). A singular start is extended by the next 1, 2,
    4, … records in its row's order while its covariance is singular (as in `random_start`);
    starts singular even with all records are left out."""
    from ._fastmcd_jit import start_fits as fits

    n = len(x)
    mu, cov, ok = fits(x, rng.random((count, n)))
    return mu[ok], cov[ok]


def _cholesky_many(cov: np.ndarray, exact_fit: str) -> np.ndarray:
    """Lower Cholesky factors of a stack of covariances (`cholesky` for each singular one)."""
    try:
        return np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        return np.array([cholesky(m, exact_fit) for m in cov])


def _distances_many(chol: np.ndarray, x: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """`distances` for a stack of Cholesky factors and centres: starts × n.

    ``y = L⁻¹(x − μ)`` is formed variable by variable (L⁻¹ is lower triangular): p(p + 1)/2
    multiply-adds on starts × n arrays, much cheaper than stacked p × p matrix products.
    """
    linv = np.linalg.inv(chol)
    p = x.shape[1]
    diff = [x[None, :, j] - mu[:, j, None] for j in range(p)]
    d2 = np.zeros((len(mu), len(x)))
    for k in range(p):
        y = linv[:, k, 0, None] * diff[0]
        for j in range(1, k + 1):
            y += linv[:, k, j, None] * diff[j]
        d2 += y * y
    return d2
