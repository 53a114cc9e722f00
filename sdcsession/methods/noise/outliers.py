"""Outlier detection for noise addition: sdcMicro's rule for ``addNoise(method="outdect")``.

``add_noise(method="outliers")`` perturbs only the records this module flags. The rule is the one
sdcMicro documents for its method ``"outdect"`` ("outliers are identified with univariate and
robust multivariate procedures based on robust Mahalanobis distances calculated by the MCD
estimator"; Templ & Meindl 2008). A record is an outlier when **either**

1. *univariate*: in some variable j its value exceeds that variable's 99 % quantile,
   ``x_ij > q_j(0.99)``, the quantile of the observed values of j with linear interpolation
   between order statistics (R's default ``quantile`` type 7, numpy's ``"linear"``). Only the
   upper tail counts (large incomes, large farms), as in sdcMicro. A record missing some
   variables is still tested on the variables it has.
2. *robust multivariate*: it is complete and its squared robust Mahalanobis distance exceeds the
   0.975 quantile of χ²_p, ``d²_i = (x_i − μ)' S⁻¹ (x_i − μ) > χ²_p(0.975)`` (sdcMicro compares
   ``d_i`` with ``sqrt(χ²_p(0.975))``, the same rule). μ and S are the **reweighted** minimum
   covariance determinant estimate of the complete records with h = ⌊(m + p + 1)/2⌋ (m complete
   records; robustbase's ``covMcd(alpha = 1/2)``, which sdcMicro calls): the raw MCD fit of
   `sdcsession.risk.robust.minimum_covariance.mcd` (deterministic median/MAD start, C-steps, consistency factor),
   then the mean and covariance of the complete records with raw ``d² ≤ χ²_p(0.975)``, the
   covariance multiplied by the consistency factor of that reweighting step (Croux & Haesbroeck
   1999), ``c = a / F_{χ²_{p+2}}(F⁻¹_{χ²_p}(a))`` with a the share of records kept. Records with a
   missing value get no distance (sdcMicro's distances are NA there) and can only be univariate
   outliers.

Differences from sdcMicro: robustbase's FastMCD uses 500 random starting subsets and its raw
consistency factor is the theoretical one for h/m, with a small-sample correction; ours starts
deterministically from the median/MAD and scales by the median distance (no random draw, so the
flags are a function of the data alone). When more than half of the complete records lie on a
hyperplane (for example more than half of one variable equal to 0) the MCD scatter is singular:
sdcMicro stops with an error, we add a ridge ``1e-9·trace(S)·I``, so every complete record off
that hyperplane is a robust outlier, and report ``singular=True``.

References: Templ, M. & Meindl, B. (2008) Robustification of microdata masking methods and the
comparison with existing methods, PSD 2008, LNCS 5262, 177–189. Rousseeuw, P. J. & Van Driessen,
K. (1999) A fast algorithm for the minimum covariance determinant estimator, Technometrics 41,
212–223. Croux, C. & Haesbroeck, G. (1999) Influence function and efficiency of the minimum
covariance determinant scatter matrix estimator, J. Multivariate Anal. 71, 161–190.

Example
-------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x = rng.normal(size=(1000, 2)); x[0] = [4.0, -4.0]
>>> out = detect_outliers(x)
>>> bool(out.robust[0]), bool(out.univariate[0]), int(out.univariate.sum())
(True, True, 20)
"""

from __future__ import annotations

import attrs
import numpy as np

from ...errors import TreatmentError
from ...risk.robust._mcd_factors import chi2_cdf, chi2_ppf
from ...risk.robust.minimum_covariance import mahalanobis2, mcd

__all__ = ["Outliers", "detect_outliers", "reweighting_consistency"]

#: quantile of the univariate rule (sdcMicro: 0.99)
UNIVARIATE_QUANTILE = 0.99
#: χ²_p quantile of the robust distance rule (sdcMicro: 0.975)
ROBUST_QUANTILE = 0.975


@attrs.frozen(eq=False)
class Outliers:
    """Result of `detect_outliers` (arrays over the n records or the p variables).

    ``flag``: outlier by either rule; ``univariate``: some value above its variable's 99 %
    quantile; ``robust``: complete and squared robust distance above ``limit`` (χ²_p(0.975));
    ``quantiles``: the p quantiles q_j(0.99); ``distances``: squared robust distances (NaN for
    records with a missing value); ``singular``: the MCD scatter was singular (exact fit; a ridge
    was added).

    Example
    -------
    >>> out = detect_outliers(np.arange(40.0).reshape(20, 2) ** 1.5)
    >>> out.flag.shape, out.quantiles.shape
    ((20,), (2,))
    """

    flag: np.ndarray
    univariate: np.ndarray
    robust: np.ndarray
    quantiles: np.ndarray
    distances: np.ndarray
    limit: float
    singular: bool


def reweighting_consistency(kept_share: float, p: int) -> float:
    """Consistency factor of a covariance estimated from the share ``a`` of normal records with
    the smallest Mahalanobis distances: ``a / F_{χ²_{p+2}}(F⁻¹_{χ²_p}(a))`` (Croux & Haesbroeck
    1999); 1 when every record is kept.

    Example
    -------
    >>> round(reweighting_consistency(0.975, 2), 4), reweighting_consistency(1.0, 3)
    (1.1045, 1.0)
    """
    if kept_share >= 1.0:
        return 1.0
    return float(kept_share / chi2_cdf(chi2_ppf(kept_share, p), p + 2))


def detect_outliers(x: np.ndarray, *, subsample: int | None = None,
                    max_steps: int = 100) -> Outliers:
    """Flag outliers by sdcMicro's rule: a value above its variable's 99 % quantile, or a squared
    robust (reweighted MCD) Mahalanobis distance above χ²_p(0.975); see the module docstring.

    Parameters
    ----------
    x : n×p float array, NaN = missing; every column has observed values.
    subsample : the MCD concentration steps run on every ⌈m/subsample⌉-th complete record when
        there are more (None: all); distances always use all records.
    max_steps : at most this many concentration steps.

    Returns an `Outliers`. Raises `TreatmentError` when there are not more than
    p + 1 complete records (the MCD needs them; sdcMicro stops as well).

    Reference: Templ & Meindl (2008); Rousseeuw & Van Driessen (1999).

    Example
    -------
    >>> x = np.column_stack([np.arange(10.0), [1, 3, 2, 5, 4, 6, 8, 7, 9, 10.0]])
    >>> out = detect_outliers(x)
    >>> np.flatnonzero(out.univariate).tolist(), out.quantiles.round(2).tolist()
    ([9], [8.91, 9.91])
    """
    x = np.asarray(x, dtype=np.float64)
    n, p = x.shape
    with np.errstate(invalid="ignore"):
        q = np.nanquantile(x, UNIVARIATE_QUANTILE, axis=0, method="linear")
        univariate = (x > q).any(axis=1)  # NaN > q is False: a missing value is never above
    complete = ~np.isnan(x).any(axis=1)
    m = int(complete.sum())
    if m <= p + 1:
        raise TreatmentError(
            f"add_noise(method='outliers'): the robust distance needs more than p + 1 = {p + 1} "
            f"complete records, got {m}")
    xc = x[complete]
    fit = mcd(xc, h="floor", max_steps=max_steps, subsample=subsample, exact_fit="ridge",
              reweight=True)
    scatter = fit.scatter * reweighting_consistency(float(fit.support.mean()), p)
    singular = bool(np.linalg.matrix_rank(scatter) < p)
    limit = chi2_ppf(ROBUST_QUANTILE, p)
    d2 = np.full(n, np.nan)
    d2[complete] = mahalanobis2(xc, fit.location, scatter)
    robust = np.zeros(n, dtype=bool)
    robust[complete] = d2[complete] > limit
    return Outliers(flag=univariate | robust, univariate=univariate, robust=robust, quantiles=q,
                    distances=d2, limit=limit, singular=singular)
