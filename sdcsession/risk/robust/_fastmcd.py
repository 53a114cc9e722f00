"""C-steps, random starts and the nested FastMCD search behind ``sdcsession.risk.robust.minimum_covariance.mcd``.

A *C-step* (concentration step) takes the mean μ and covariance Σ of an h-subset, computes the
squared Mahalanobis distances of all records and keeps the h records with the smallest ones; the
determinant never increases (Rousseeuw & Van Driessen 1999, theorem 1). A *random start* is a
random (p + 1)-subset, extended by further random records while its covariance is singular.

``fastmcd`` is the search of Rousseeuw & Van Driessen (1999), section 3, with the settings of
R's ``robustbase::covMcd`` (nsamp = 500, nmini = 300, kmini = 5):

- n < 600: every random start gets two C-steps; the 10 distinct subsets of smallest determinant
  are iterated to convergence and the best one wins ("selective iteration");
- n ≥ 600 ("nested extensions"): the records are split at random into k = min(⌊n/300⌋, 5) groups
  (n split evenly when k < 5, else 5 groups of 300). Each group gets n_starts/k starts with two
  C-steps inside the group (subset size ⌊m₁ h/n⌋, m₁ the first group's size) and keeps its 10
  best; these 10k candidates get two C-steps in the merged groups (subset size ⌊M h/n⌋), the 10
  best of them are iterated on all records;
- the last stage runs at most 100 C-steps while n·p ≤ 100,000, 10 up to 200,000, 9 up to 300,000,
  …, 2 up to 1,000,000 and 1 beyond, and refines only the best candidate when n > 5000
  (robustbase's schedule); it stops early when the subset no longer changes.

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

import numpy as np

from ...errors import MeasureError

__all__ = ["cholesky", "distances", "concentrate", "random_start", "fastmcd"]

NMINI, KMINI, KEEP = 300, 5, 10


def cholesky(cov: np.ndarray, exact_fit: str) -> np.ndarray:
    """Lower Cholesky factor of cov; a singular cov raises (``"error"``) or gets a ridge."""
    try:
        return np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        if exact_fit == "error":
            raise MeasureError(
                "mcd: more than half of the records lie on a hyperplane (singular covariance of "
                "the h-subset: exact fit)") from None
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
    if np.linalg.matrix_rank(cov) < p:
        rest = np.setdiff1d(np.arange(n), idx)[rng.permutation(n - p - 1)]
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
            max_steps: int = 100) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """FastMCD search (module docstring): log det, subset, mean and covariance of the best subset.

    Example
    -------
    >>> x = np.random.default_rng(3).normal(size=(700, 3))
    >>> fastmcd(x, 352, 100, np.random.default_rng(0), "error")[1].shape
    (352,)
    """
    n, p = x.shape
    if n >= 2 * NMINI:
        k = min(n // NMINI, KMINI)
        if k < KMINI:
            size, extra = divmod(n, k)
            sizes = [size] * (k - extra) + [size + 1] * extra
        else:
            sizes = [NMINI] * KMINI
        pool = rng.permutation(n)[:sum(sizes)]
        groups = np.split(pool, np.cumsum(sizes)[:-1])
        hg = int(sizes[0] * h / n)
        cands: list[tuple[np.ndarray, np.ndarray]] = []
        for g in groups:
            cands += _screen(x[g], hg, [random_start(x[g], rng) for _ in range(n_starts // k)],
                             exact_fit)
        merged = x[pool]
        starts = [distances(cholesky(c, exact_fit), merged, m) for m, c in cands]
        cands = _screen(merged, int(len(pool) * h / n), starts, exact_fit)
    else:
        cands = _screen(x, h, [random_start(x, rng) for _ in range(n_starts)], exact_fit)
    if not cands:
        raise MeasureError("mcd: every starting subset is singular: the records lie on a "
                           "hyperplane (collinear variables: exact fit)")
    steps = min(max_steps, _final_steps(n * p))
    best = None
    for mu, cov in cands[:1] if n > 5000 else cands:
        fit = concentrate(x, distances(cholesky(cov, exact_fit), x, mu), h, steps, exact_fit)
        if best is None or fit[0] < best[0]:
            best = fit
    return best


def _screen(x: np.ndarray, h: int, starts: list[np.ndarray | None], exact_fit: str
            ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Two C-steps from each start; mean and covariance of the 10 distinct best subsets."""
    found: dict[bytes, tuple[float, np.ndarray, np.ndarray]] = {}
    for d2 in starts:
        if d2 is None:
            continue
        log_det, subset, mu, cov = concentrate(x, d2, h, 2, exact_fit)
        found.setdefault(subset.tobytes(), (log_det, mu, cov))
    best = sorted(found.values(), key=lambda t: t[0])[:KEEP]
    return [(mu, cov) for _, mu, cov in best]


def _final_steps(np_: int) -> int:
    """robustbase's number of final C-steps for n·p (100 up to 100,000, then 10, 9, …, 1)."""
    if np_ <= 100_000:
        return 100
    return max(1, 12 - -(-np_ // 100_000))
