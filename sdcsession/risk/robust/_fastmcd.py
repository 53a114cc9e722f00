"""C-steps, random starts and the nested FastMCD search behind ``sdcsession.risk.robust.minimum_covariance.mcd``.

A *C-step* (concentration step) takes the mean μ and covariance Σ of an h-subset, computes the
squared Mahalanobis distances of all records and keeps the h records with the smallest ones; the
determinant never increases (Rousseeuw & Van Driessen 1999, theorem 1). A *random start* is a
random (p + 1)-subset, extended by further random records while its covariance is singular.
``fastmcd`` draws all starts of a group at once (the p + 1 smallest of n uniform keys per start,
`random_starts`) and runs their two C-steps as stacked arrays (`_screen`): the same search, with
the per-start Python overhead gone (random subsets other than ``Generator.choice`` would give).

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

import contextlib
from typing import Any

import numpy as np

from ...errors import MeasureError

__all__ = ["cholesky", "distances", "concentrate", "random_start", "random_starts", "fastmcd"]

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
            max_steps: int = 100) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """FastMCD search (module docstring): log det, subset, mean and covariance of the best subset.

    Example
    -------
    >>> x = np.random.default_rng(3).normal(size=(700, 3))
    >>> fastmcd(x, 352, 100, np.random.default_rng(0), "error")[1].shape
    (352,)
    """
    with _one_blas_thread():  # many small products (p × p factors): threads cost more than they save
        cands = _candidates(x, h, n_starts, rng, exact_fit)
        n, p = x.shape
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


def _one_blas_thread() -> Any:
    """A context limiting BLAS to one thread (``threadpoolctl`` when installed, else none)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def _candidates(x: np.ndarray, h: int, n_starts: int, rng: np.random.Generator,
                exact_fit: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (mean, covariance) candidates of the random-start stages (module docstring)."""
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
            cands += _screen(x[g], hg, random_starts(x[g], n_starts // k, rng), exact_fit)
        merged = x[pool]
        mus = np.array([m for m, _ in cands])
        chols = _cholesky_many(np.array([c for _, c in cands]), exact_fit)
        cands = _screen(merged, int(len(pool) * h / n), _distances_many(chols, merged, mus),
                        exact_fit)
    else:
        cands = _screen(x, h, random_starts(x, n_starts, rng), exact_fit)
    return cands


def _screen(x: np.ndarray, h: int, starts: np.ndarray, exact_fit: str
            ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Two C-steps from each start (rows of ``starts``: squared distances, NaN rows skipped), all
    starts at once; mean and covariance of the 10 distinct best subsets (first start wins ties)."""
    starts = starts[~np.isnan(starts).any(axis=1)]
    if not len(starts):
        return []
    d2, subset = starts, None
    for _ in range(2):
        subset = np.sort(np.argpartition(d2, h - 1, axis=1)[:, :h], axis=1)
        xs = x[subset]  # starts × h × p
        mu = xs.sum(axis=1) / h
        c = xs - mu[:, None, :]
        cov = _crossprod(c) / (h - 1)
        chol = _cholesky_many(cov, exact_fit)
        log_det = 2.0 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
        d2 = _distances_many(chol, x, mu)
    found: dict[bytes, int] = {}
    for i in range(len(subset)):
        found.setdefault(subset[i].tobytes(), i)
    best = sorted(found.values(), key=lambda i: log_det[i])[:KEEP]
    return [(mu[i], cov[i]) for i in best]


def random_starts(x: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """Squared distances (count × n) from ``count`` random (p + 1)-subsets drawn at once: each
    row of ``count × n`` uniform keys orders the records at random, and a start is the p + 1
    records of smallest key (a uniformly random subset). A singular start is extended by the
    next 1, 2, 4, … records in its row's order while its covariance is singular (as in
    `random_start`), and then used with the pseudo-inverse; a row of NaN when even all records
    are singular."""
    n, p = x.shape
    keys = rng.random((count, n))
    idx = np.argpartition(keys, p, axis=1)[:, :p + 1]
    pts = x[idx]  # count × (p + 1) × p
    mu = pts.mean(axis=1)
    c = pts - mu[:, None, :]
    cov = _crossprod(c) / p
    out = np.full((count, n), np.nan)
    regular = _regular(cov)
    if regular.any():
        out[regular] = _distances_many(np.linalg.cholesky(cov[regular]), x, mu[regular])
    rows = np.flatnonzero(~regular)
    if len(rows):
        _extend_many(x, np.argsort(keys[rows], axis=1, kind="stable"), rows, out)
    return out


def _extend_many(x: np.ndarray, order: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    """Distances into ``out[rows]`` from the singular starts: the first p + 1 + s records of
    each row of ``order``, s = 0, 1, 2, 4, … until the covariance has rank p (pseudo-inverse
    distances); rows singular with all records stay NaN."""
    n, p = x.shape
    active = np.arange(len(rows))
    size = 0
    while len(active):
        m = min(p + 1 + size, n)
        pts = x[order[active, :m]]
        mu = pts.mean(axis=1)
        c = pts - mu[:, None, :]
        cov = _crossprod(c) / (m - 1)
        done = np.linalg.matrix_rank(cov) == p
        if done.any():
            pinv = np.linalg.pinv(cov[done])
            diff = x[None, :, :] - mu[done][:, None, :]
            out[rows[active[done]]] = np.einsum("sij,sjk,sik->si", diff, pinv, diff)
        active = active[~done]
        if m == n:
            break
        size = max(1, 2 * size)


def _crossprod(c: np.ndarray) -> np.ndarray:
    """``c_sᵀ c_s`` for each s of the stack c (starts × m × p), entry by entry (cheaper than
    a stacked matrix product for small p)."""
    p = c.shape[2]
    out = np.empty((len(c), p, p))
    for j in range(p):
        for k in range(j + 1):
            out[:, j, k] = out[:, k, j] = np.einsum("ij,ij->i", c[:, :, j], c[:, :, k])
    return out


def _regular(cov: np.ndarray) -> np.ndarray:
    """Per matrix of the stack: has a Cholesky factor (positive definite)."""
    try:
        np.linalg.cholesky(cov)
        return np.ones(len(cov), dtype=bool)
    except np.linalg.LinAlgError:
        # positive leading principal minors (Sylvester's criterion) screen the stack at once;
        # the factorisation itself decides for the ones that pass
        ok = np.ones(len(cov), dtype=bool)
        for k in range(1, cov.shape[1] + 1):
            ok &= np.linalg.det(cov[:, :k, :k]) > 0
        try:
            np.linalg.cholesky(cov[ok])
            return ok
        except np.linalg.LinAlgError:
            ok = np.zeros(len(cov), dtype=bool)
        for i, m in enumerate(cov):
            try:
                np.linalg.cholesky(m)
                ok[i] = True
            except np.linalg.LinAlgError:
                pass
        return ok


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


def _final_steps(np_: int) -> int:
    """robustbase's number of final C-steps for n·p (100 up to 100,000, then 10, 9, …, 1)."""
    if np_ <= 100_000:
        return 100
    return max(1, 12 - -(-np_ // 100_000))
