"""Minimum covariance determinant (MCD): robust location and scatter, robust Mahalanobis distances.

The one MCD implementation of the package. Noise addition flags multivariate outliers with it
(:func:`sdcsession.methods.noise.robust_distance`, ``add_noise(method="outliers")``) and the
robust eigenvalue difference uses its covariance (:func:`sdcsession.utility.continuous.mcd_covariance`).

Algorithm (FastMCD, Rousseeuw & Van Driessen 1999). The MCD estimate of n records in p variables
is the mean and covariance of the h records whose covariance matrix has the smallest determinant;
h = ⌊(n + p + 1)/2⌋ gives the maximal breakdown point (almost half of the records may be
arbitrarily bad). FastMCD approximates it with *concentration steps* (C-steps): from a subset's
mean μ and covariance Σ compute the squared Mahalanobis distances
``d²_i = (x_i − μ)' Σ⁻¹ (x_i − μ)`` of all records and keep the h records with the smallest
distances. A C-step never increases det Σ (Rousseeuw & Van Driessen 1999, theorem 1); the steps
stop when the subset no longer changes, so that the determinant no longer falls (or after
``max_steps`` steps). The steps start from

- ``n_starts=0``: one deterministic start, the coordinatewise median and the diagonal of squared
  MADs (× 1.4826; the standard deviation where the MAD is 0, 1 where both are);
- ``n_starts=k``: k random (p + 1)-subsets drawn with ``seed`` (FastMCD's starts; singular ones are
  skipped); the subset with the smallest determinant after its C-steps wins.

For large n the C-steps may run on a systematic subsample (``subsample``: every ⌈n/subsample⌉-th
record in order, no random draw), as FastMCD does; distances, consistency factor and reweighting
always use all records. The raw scatter is multiplied by the consistency factor
``c = median(d²)/χ²_p(0.5)`` (the distances divided by it), so that the distances of normal data
have the χ²_p median. ``reweight=True`` adds one reweighting step: the final location and scatter
are the mean and covariance of the records with consistency-corrected ``d² ≤ χ²_p(0.975)`` (no
second consistency factor). A subset whose covariance is singular (h or more records on a
hyperplane, the "exact fit" situation) raises :class:`~sdcsession.errors.MeasureError`
(``exact_fit="error"``) or gets a small ridge ``1e-9 · trace(Σ) · I`` (``exact_fit="ridge"``).

Reference: Rousseeuw, P. J. & Van Driessen, K. (1999) A fast algorithm for the minimum covariance
determinant estimator, Technometrics 41, 212–223.

Example
-------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x = rng.normal(size=(500, 2)); x[:10] += 30
>>> fit = mcd(x)
>>> bool((fit.raw_distances[:10] > 100).all()), bool(np.abs(fit.location).max() < 0.2)
(True, True)
"""

from __future__ import annotations

from typing import Literal

import attrs
import numpy as np
from scipy.stats import chi2

from ..errors import MeasureError, ParameterError

__all__ = ["MCD", "mcd", "mahalanobis2"]


@attrs.frozen(eq=False)
class MCD:
    """Result of :func:`mcd` (arrays of the p variables; rows of ``x`` for the masks).

    ``raw_location`` / ``raw_scatter``: mean and consistency-corrected covariance of the best
    h-subset; ``raw_support``: that subset (boolean mask over the rows of ``x``);
    ``raw_distances``: squared robust Mahalanobis distances of every record from the raw fit;
    ``consistency``: the factor ``median(d²)/χ²_p(0.5)`` applied to the raw scatter;
    ``log_det``: log determinant of the uncorrected covariance of the h-subset; ``h``: the
    subset size. ``location`` / ``scatter`` / ``support``: the reweighted estimate and the
    records it uses when :func:`mcd` was called with ``reweight=True``, else the raw ones.

    Example
    -------
    >>> fit = mcd(np.random.default_rng(1).normal(size=(100, 2)))
    >>> fit.h, int(fit.raw_support.sum()), fit.scatter.shape
    (51, 51, (2, 2))
    """

    location: np.ndarray
    scatter: np.ndarray
    support: np.ndarray
    raw_location: np.ndarray
    raw_scatter: np.ndarray
    raw_support: np.ndarray
    raw_distances: np.ndarray
    consistency: float
    log_det: float
    h: int


def mcd(
    x: np.ndarray,
    *,
    h: int | Literal["floor", "ceil"] = "floor",
    n_starts: int = 0,
    seed: int = 0,
    max_steps: int = 100,
    subsample: int | None = None,
    reweight: bool = False,
    exact_fit: Literal["error", "ridge"] = "error",
) -> MCD:
    """Minimum covariance determinant estimate of location and scatter by FastMCD.

    See the module docstring for the algorithm. Deterministic: ``n_starts=0`` draws nothing,
    random starts use ``numpy.random.default_rng(seed)``.

    Parameters
    ----------
    x : n×p float array without missing values, n > p + 1 (rows = records).
    h : subset size: an integer (clipped to p + 1 … m), ``"floor"`` for ⌊(m + p + 1)/2⌋ (maximal
        breakdown point) or ``"ceil"`` for ⌈(m + p + 1)/2⌉; m is the number of records the
        C-steps run on (n, or the subsample size).
    n_starts : 0 for the deterministic median/MAD start, else the number of random (p + 1)-subsets.
    seed : seed of the random starts.
    max_steps : at most this many C-steps per start.
    subsample : run the C-steps on every ⌈n/subsample⌉-th record when n > subsample (None: never).
    reweight : one reweighting step (records with d² ≤ χ²_p(0.975)) for ``location``/``scatter``.
    exact_fit : a singular subset covariance raises MeasureError (``"error"``) or gets a ridge.

    Returns an :class:`MCD`.

    Reference: Rousseeuw & Van Driessen (1999).

    Example
    -------
    >>> rng = np.random.default_rng(2)
    >>> x = rng.multivariate_normal([0, 0], [[1, 0.5], [0.5, 1]], 1000); x[:150] = 40
    >>> fit = mcd(x, n_starts=10, seed=1, reweight=True)
    >>> bool(np.allclose(fit.scatter, [[1, 0.5], [0.5, 1]], atol=0.15)), int(fit.support[:150].sum())
    (True, 0)
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ParameterError(f"mcd: x must be a 2-d array (records × variables), got {x.ndim}-d")
    for name, v, low in (("n_starts", n_starts, 0), ("max_steps", max_steps, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise ParameterError(f"{name}: expected an integer >= {low}, got {v!r}")
    if exact_fit not in ("error", "ridge"):
        raise ParameterError(f"exact_fit: expected 'error' or 'ridge', got {exact_fit!r}")
    n, p = x.shape
    if n <= p + 1:
        raise MeasureError(f"mcd: needs more than p + 1 = {p + 1} records, got {n}")
    step = -(-n // subsample) if subsample is not None and n > subsample else 1
    fit_on = x[::step] if step > 1 else x
    m = len(fit_on)
    if h == "floor":
        h_ = (m + p + 1) // 2
    elif h == "ceil":
        h_ = (m + p + 2) // 2
    elif isinstance(h, (int, np.integer)) and not isinstance(h, bool):
        h_ = int(h)
    else:
        raise ParameterError(f"h: expected an integer, 'floor' or 'ceil', got {h!r}")
    h_ = min(max(h_, p + 1), m)

    if n_starts == 0:
        log_det, subset, mu, cov = _concentrate(fit_on, _median_start(fit_on), h_, max_steps,
                                                exact_fit)
    else:
        log_det, subset, mu, cov = _best_of_random_starts(fit_on, h_, n_starts, seed, max_steps,
                                                          exact_fit)

    d2 = mahalanobis2(x, mu, cov)
    med = float(np.median(d2))
    consistency = med / chi2.ppf(0.5, p) if med > 0 else 1.0
    if med > 0:
        d2 = d2 * chi2.ppf(0.5, p) / med
    raw_support = np.zeros(n, dtype=bool)
    raw_support[subset * step] = True
    raw_scatter = cov * consistency
    location, scatter, support = mu, raw_scatter, raw_support
    if reweight:
        support = d2 <= chi2.ppf(0.975, p)
        kept = x[support]
        location = kept.mean(axis=0)
        scatter = np.cov(kept, rowvar=False).reshape(p, p)
    return MCD(location=location, scatter=scatter, support=support, raw_location=mu,
               raw_scatter=raw_scatter, raw_support=raw_support, raw_distances=d2,
               consistency=float(consistency), log_det=float(log_det), h=h_)


def mahalanobis2(x: np.ndarray, location: np.ndarray, scatter: np.ndarray) -> np.ndarray:
    """Squared Mahalanobis distances ``(x_i − μ)' Σ⁻¹ (x_i − μ)`` of the rows of x.

    Computed with the Cholesky factor of Σ; a numerically singular Σ gets the ridge
    ``1e-9 · trace(Σ) · I``.

    Example
    -------
    >>> mahalanobis2(np.array([[2.0, 0.0], [0.0, 3.0]]), np.zeros(2), np.diag([4.0, 9.0]))
    array([1., 1.])
    """
    return _distances(_cholesky(np.asarray(scatter, dtype=np.float64), "ridge"), x, location)


# ------------------------------------------------------------------------------------ internals
def _cholesky(cov: np.ndarray, exact_fit: str) -> np.ndarray:
    """Lower Cholesky factor of cov; a singular cov raises (``"error"``) or gets a ridge."""
    try:
        return np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        if exact_fit == "error":
            raise MeasureError(
                "mcd: more than half of the records lie on a hyperplane (singular covariance of "
                "the h-subset: exact fit)") from None
        return np.linalg.cholesky(cov + np.eye(len(cov)) * 1e-9 * max(np.trace(cov), 1e-300))


def _distances(chol: np.ndarray, x: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Squared distances ‖L⁻¹(x_i − μ)‖² for the Cholesky factor L of the covariance.

    L⁻¹ is formed once (p×p) and applied by a matrix product: a triangular solve with all n
    right-hand sides (``scipy.linalg.solve_triangular``) is many times slower when the BLAS
    threads compete for cores.
    """
    linv = np.linalg.inv(chol)
    y = (x - mu) @ linv.T
    return np.einsum("ij,ij->i", y, y)


def _median_start(x: np.ndarray) -> np.ndarray:
    """Squared distances from the coordinatewise median scaled by the MADs (the robust start)."""
    med = np.median(x, axis=0)
    mad = 1.4826 * np.median(np.abs(x - med), axis=0)
    sd = x.std(axis=0, ddof=1)
    mad = np.where(mad > 0, mad, sd)
    mad = np.where(mad > 0, mad, 1.0)
    return (((x - med) / mad) ** 2).sum(axis=1)


def _concentrate(x: np.ndarray, d2: np.ndarray, h: int, max_steps: int, exact_fit: str
                 ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """C-steps from the start distances d2: log det, subset (sorted row numbers), mean, covariance.

    Stops when the subset no longer changes (then its determinant no longer falls either).
    """
    p = x.shape[1]
    log_det, subset, mu, cov = np.inf, None, None, None
    for _ in range(max_steps):
        new = np.argpartition(d2, h - 1)[:h]
        new.sort()
        if subset is not None and np.array_equal(new, subset):
            break
        subset = new
        xs = x[subset]
        mu = xs.mean(axis=0)
        cov = np.cov(xs, rowvar=False).reshape(p, p)
        chol = _cholesky(cov, exact_fit)
        log_det = 2.0 * float(np.log(np.diag(chol)).sum())
        d2 = _distances(chol, x, mu)
    return log_det, subset, mu, cov


def _best_of_random_starts(x: np.ndarray, h: int, n_starts: int, seed: int, max_steps: int,
                           exact_fit: str) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """FastMCD's random (p + 1)-subset starts; the result of smallest determinant."""
    n, p = x.shape
    rng = np.random.default_rng(seed)
    best = None
    for _ in range(n_starts):
        start = x[rng.choice(n, size=p + 1, replace=False)]
        cov = np.cov(start, rowvar=False).reshape(p, p)
        if np.linalg.matrix_rank(cov) < p:
            continue
        diff = x - start.mean(axis=0)
        d2 = np.einsum("ij,ij->i", diff @ np.linalg.pinv(cov), diff)
        fit = _concentrate(x, d2, h, max_steps, exact_fit)
        if best is None or fit[0] < best[0]:
            best = fit
    if best is None:
        raise MeasureError("mcd: no non-singular starting subset found")
    return best
