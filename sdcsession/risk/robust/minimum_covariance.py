"""Minimum covariance determinant (MCD): robust location and scatter, robust Mahalanobis distances.

The one MCD implementation of the package. Noise addition flags multivariate outliers with it
(`sdcsession.methods.noise.addition.robust_distance`, ``add_noise(method="outliers")``) and the
robust eigenvalue difference uses its covariance (`sdcsession.utility.continuous.measures.mcd_covariance`).

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
- ``n_starts=k``: k random (p + 1)-subsets drawn with ``seed`` (FastMCD's starts; a singular one
  is extended by further random records, 1, 2, 4, … of them, until its covariance is regular, as
  Rousseeuw & Van Driessen prescribe); the subset with the smallest determinant after its C-steps
  wins. ``search="full"`` iterates every start to convergence; ``search="fastmcd"`` is the search
  of R's covMcd (two C-steps per start, the 10 best iterated, nested random subsamples for
  n ≥ 600; ``sdcsession.risk.robust._fastmcd``).

For large n the C-steps may run on a systematic subsample (``subsample``: every ⌈n/subsample⌉-th
record in order, no random draw), as FastMCD does; distances, consistency factor and reweighting
always use all records. The raw scatter is multiplied by the consistency factor
``c = median(d²)/χ²_p(0.5)`` (the distances divided by it), so that the distances of normal data
have the χ²_p median. ``reweight=True`` adds one reweighting step: the final location and scatter
are the mean and covariance of the records with consistency-corrected ``d² ≤ χ²_p(0.975)`` (no
second consistency factor). A subset whose covariance is singular (h or more records on a
hyperplane, the "exact fit" situation) raises `MeasureError`
(``exact_fit="error"``) or gets a small ridge ``1e-9 · trace(Σ) · I`` (``exact_fit="ridge"``).

``consistency="robustbase"`` follows R's ``robustbase::covMcd`` (defaults alpha = 1/2, so
h = ⌊(n + p + 1)/2⌋, and ``use.correction = TRUE``) instead of the median rule: the raw scatter
(covariance of the h-subset, h − 1 denominator) is multiplied by the Croux–Haesbroeck
consistency factor c(p, h/n) and Pison et al.'s finite-sample factor; the reweighting keeps the
records with raw ``d² < χ²_p(0.975)`` and multiplies their covariance by c(p, 0.975) times the
reweighted finite-sample factor (both 1 when every record is kept); see
``sdcsession.risk.robust._mcd_factors``. ``"robustbase-0.95"`` is the same with the reweighting factor
c(p, m/n), m the records kept, as robustbase computed it up to version 0.95-1 (changed in 0.99-0).
For p = 1 these modes compute the exact univariate MCD, as robustbase does: the h consecutive
order statistics of least variance (the middle one of exactly tied windows), whose raw scale uses
the h denominator. covMcd itself is a random approximation: it does not always return the same
subset, and neither does ``search="fastmcd"`` with another seed; equal subsets give equal
estimates (to rounding).

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

from ...errors import MeasureError, ParameterError
from ._fastmcd import cholesky as _cholesky
from ._fastmcd import concentrate as _concentrate
from ._fastmcd import distances as _distances
from ._fastmcd import fastmcd, random_start
from ._mcd_factors import chi2_ppf, consistency_factor, finite_sample

__all__ = ["MCD", "mcd", "mahalanobis2"]


@attrs.frozen(eq=False)
class MCD:
    """Result of `mcd` (arrays of the p variables; rows of ``x`` for the masks).

    ``raw_location`` / ``raw_scatter``: mean and consistency-corrected covariance of the best
    h-subset; ``raw_support``: that subset (boolean mask over the rows of ``x``);
    ``raw_distances``: squared robust Mahalanobis distances of every record from the raw fit;
    ``consistency``: the factor ``median(d²)/χ²_p(0.5)`` applied to the raw scatter;
    ``log_det``: log determinant of the uncorrected covariance of the h-subset; ``h``: the
    subset size. ``location`` / ``scatter`` / ``support``: the reweighted estimate and the
    records it uses when `mcd` was called with ``reweight=True``, else the raw ones.
    ``reweight_consistency``: the factor applied to the reweighted covariance (1 unless
    ``consistency`` is a robustbase mode and some records were dropped).

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
    reweight_consistency: float = 1.0


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
    consistency: Literal["median", "robustbase", "robustbase-0.95"] = "median",
    search: Literal["full", "fastmcd"] = "full",
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
    consistency : ``"median"`` (the factor median(d²)/χ²_p(0.5)), or robustbase's factors
        (``"robustbase"``, ``"robustbase-0.95"``; need ``h="floor"`` and no ``subsample``).
    search : with random starts, ``"full"`` iterates every start to convergence; ``"fastmcd"`` is
        Rousseeuw & Van Driessen's search as covMcd runs it (two C-steps per start, the 10 best
        iterated, nested subsamples for n ≥ 600; ``sdcsession.risk.robust._fastmcd``).

    Returns an `MCD`.

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
    if search not in ("full", "fastmcd"):
        raise ParameterError(f"search: expected 'full' or 'fastmcd', got {search!r}")
    if consistency not in ("median", "robustbase", "robustbase-0.95"):
        raise ParameterError("consistency: expected 'median', 'robustbase' or 'robustbase-0.95', "
                             f"got {consistency!r}")
    if consistency != "median" and (not isinstance(h, str) or h != "floor" or
                                    subsample is not None):
        raise ParameterError(f"consistency={consistency!r} is robustbase's covMcd with alpha = 1/2: "
                             "it needs h='floor' and subsample=None")
    n, p = x.shape
    if not np.isfinite(x).all():
        raise MeasureError("mcd: x has missing or infinite values; drop or impute those records")
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

    if consistency != "median":
        return _robustbase(x, h_, n_starts, seed, max_steps, reweight, exact_fit, consistency,
                           search)
    log_det, subset, mu, cov = _search(fit_on, h_, n_starts, seed, max_steps, exact_fit, search)

    d2 = mahalanobis2(x, mu, cov)
    med = float(np.median(d2))
    consistency = med / chi2_ppf(0.5, p) if med > 0 else 1.0
    if med > 0:
        d2 = d2 * chi2_ppf(0.5, p) / med
    raw_support = np.zeros(n, dtype=bool)
    raw_support[subset * step] = True
    raw_scatter = cov * consistency
    location, scatter, support = mu, raw_scatter, raw_support
    if reweight:
        support = d2 <= chi2_ppf(0.975, p)
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
def _median_start(x: np.ndarray) -> np.ndarray:
    """Squared distances from the coordinatewise median scaled by the MADs (the robust start)."""
    med = np.median(x, axis=0)
    mad = 1.4826 * np.median(np.abs(x - med), axis=0)
    sd = x.std(axis=0, ddof=1)
    mad = np.where(mad > 0, mad, sd)
    mad = np.where(mad > 0, mad, 1.0)
    return (((x - med) / mad) ** 2).sum(axis=1)


def _robustbase(x: np.ndarray, h: int, n_starts: int, seed: int, max_steps: int,
                reweight: bool, exact_fit: str, mode: str, search: str) -> MCD:
    """The MCD with robustbase's covMcd factors (see the module docstring)."""
    if x.shape[1] == 1:
        found = _univariate(x[:, 0], h)
    else:
        found = _search(x, h, n_starts, seed, max_steps, exact_fit, search)
    return _robustbase_fit(x, h, found, reweight, exact_fit, mode)


def _robustbase_fit(x: np.ndarray, h: int, found: tuple[float, np.ndarray, np.ndarray, np.ndarray],
                    reweight: bool, exact_fit: str, mode: str) -> MCD:
    """The `MCD` with robustbase's factors from a search result ``found`` (log det, subset in
    record order, mean, covariance of the h-subset): the same object for the same subset."""
    n, p = x.shape
    log_det, subset, mu, cov = found
    raw_factor = consistency_factor(p, h / n) * finite_sample(p, n, reweighted=False)
    raw_scatter = cov * raw_factor
    d2 = _distances(_cholesky(raw_scatter, exact_fit), x, mu)
    raw_support = np.zeros(n, dtype=bool)
    raw_support[subset] = True
    location, scatter, support, rew = mu, raw_scatter, raw_support, 1.0
    if reweight:
        support = d2 < chi2_ppf(0.975, p)
        kept = x[support]
        m = len(kept)
        location = kept.mean(axis=0)
        scatter = np.cov(kept, rowvar=False).reshape(p, p)
        if m != n:
            a = 0.975 if mode == "robustbase" else m / n
            rew = consistency_factor(p, a) * finite_sample(p, n, reweighted=True)
            scatter = scatter * rew
    return MCD(location=location, scatter=scatter, support=support, raw_location=mu,
               raw_scatter=raw_scatter, raw_support=raw_support, raw_distances=d2,
               consistency=float(raw_factor), log_det=float(log_det), h=h,
               reweight_consistency=float(rew))


def _univariate(v: np.ndarray, h: int) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Exact univariate MCD: the h consecutive order statistics with the least sum of squares.

    Exactly tied windows (up to rounding) give the middle one. Returns log det (h − 1 denominator),
    the subset, the mean and the 1×1 variance with the h denominator (robustbase's raw scale).
    """
    order = np.argsort(v, kind="stable")
    s = v[order]
    c = s - s[len(s) // 2]  # centred: the running sums keep their precision
    cs = np.concatenate(([0.0], np.cumsum(c)))
    cs2 = np.concatenate(([0.0], np.cumsum(c * c)))
    sums = cs[h:] - cs[:-h]
    ss = np.maximum(cs2[h:] - cs2[:-h] - sums * sums / h, 0.0)
    best = float(ss.min())
    ties = np.flatnonzero(ss <= best * (1 + 1e-12))
    start = int(ties[(len(ties) + 1) // 2 - 1])
    window = s[start:start + h]
    mu = window.mean()
    sq = float(((window - mu) ** 2).sum())
    log_det = float(np.log(sq / (h - 1))) if sq > 0 else -np.inf
    return log_det, np.sort(order[start:start + h]), np.array([mu]), np.array([[sq / h]])


def _search(x: np.ndarray, h: int, n_starts: int, seed: int, max_steps: int, exact_fit: str,
            search: str) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """The deterministic start, every random start iterated, or the FastMCD search."""
    if n_starts == 0:
        return _concentrate(x, _median_start(x), h, max_steps, exact_fit)
    rng = np.random.default_rng(seed)
    if search == "fastmcd":
        return fastmcd(x, h, n_starts, rng, exact_fit, max_steps)
    best = None
    for _ in range(n_starts):
        d2 = random_start(x, rng)
        if d2 is None:
            continue
        fit = _concentrate(x, d2, h, max_steps, exact_fit)
        if best is None or fit[0] < best[0]:
            best = fit
    if best is None:
        raise MeasureError("mcd: every starting subset is singular: the records lie on a "
                           "hyperplane (collinear variables: exact fit)")
    return best
