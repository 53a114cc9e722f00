"""Consistency and finite-sample correction factors of the MCD as R's robustbase applies them.

Used by ``sdcsession.risk.robust.minimum_covariance.mcd`` with ``consistency="robustbase"`` (or
``"robustbase-0.95"``), the convention of ``robustbase::covMcd`` with its defaults (alpha = 1/2,
``use.correction = TRUE``).

*Consistency* (Croux & Haesbroeck 1999): the covariance of the fraction a of a p-variate normal
sample with the smallest Mahalanobis distances underestimates the covariance by the factor
F_{p+2}(q_a) / a, with q_a = F_p⁻¹(a) and F_k the χ²_k distribution function; multiplying by

    c(p, a) = a / F_{p+2}(F_p⁻¹(a))

makes it consistent at the normal model. The raw MCD uses a = h/n; the reweighted estimate
a = 0.975 (robustbase ≥ 0.99-0) or a = m/n with m the records kept (robustbase ≤ 0.95-1).

*Finite-sample correction* (Pison, Van Aelst & Willems 2002): for alpha = 1/2 the factor is
1 / f(p, n) with f(p, n) = 1 − exp(c₀) / n^c₁. For p = 1, 2 the paper gives (c₀, c₁) directly;
for p > 2 the constants follow from its fitted curves α_q / p^β_q (q = 2, 3):
y_q = log(−α_q / p^β_q) = c₀ − c₁ log(q p²). robustbase replaces these factors by simulated
values for very small samples (p ≤ 9 and n ≤ ``SMALL_N_MAX`` [p]); those are not reproduced
here, and ``finite_sample`` refuses that range.

References: Croux, C. & Haesbroeck, G. (1999) Influence function and efficiency of the minimum
covariance determinant scatter matrix estimator, J. Multivariate Anal. 71, 161–190; Pison, G.,
Van Aelst, S. & Willems, G. (2002) Small sample corrections for LTS and MCD, Metrika 55, 111–123.

Example
-------
>>> round(consistency_factor(2, 0.5), 6), round(finite_sample(2, 100, reweighted=False), 6)
(3.258891, 1.088403)
"""

from __future__ import annotations

import math

from ...errors import MeasureError

__all__ = ["consistency_factor", "finite_sample", "chi2_ppf", "chi2_cdf", "SMALL_N_MAX"]

#: largest n (by p = 1 … 9) for which robustbase uses simulated finite-sample factors
SMALL_N_MAX = {1: 2, 2: 6, 3: 10, 4: 13, 5: 16, 6: 18, 7: 20, 8: 20, 9: 20}

# (c0, c1) for p = 1, 2 and the (alpha_q, beta_q) curves for q = 2, 3 (p > 2), alpha = 1/2
_RAW = {1: (0.262024211897096, 0.604756680630497), 2: (0.673292623522027, 0.691365864961895),
        "q": ((-1.42764571687802, 1.26263336932151), (-1.06141115981725, 1.28907991440387))}
_REW = {1: (1.11098143415027, 1.5182890270453), 2: (3.11101712909049, 1.91401056721863),
        "q": ((-1.02842572724793, 1.67659883081926), (-0.26800273450853, 1.35968562893582))}


def chi2_ppf(q: float, k: float) -> float:
    """The χ²_k quantile F_k⁻¹(q), 0 < q < 1: ``2 · gammaincinv(k/2, q)``, the formula of
    ``scipy.stats.chi2.ppf`` (the same float) without its argument handling (a few µs instead
    of a few hundred).

    Example
    -------
    >>> round(chi2_ppf(0.975, 2), 6)
    7.377759
    """
    from scipy.special import gammaincinv

    return float(2.0 * gammaincinv(k / 2.0, q))


def chi2_cdf(x: float, k: float) -> float:
    """The χ²_k distribution function F_k(x): ``chdtr(k, x)``, the formula of
    ``scipy.stats.chi2.cdf`` (the same float).

    Example
    -------
    >>> round(chi2_cdf(chi2_ppf(0.5, 3), 3), 12)
    0.5
    """
    from scipy.special import chdtr

    return float(chdtr(k, x))


def consistency_factor(p: int, a: float) -> float:
    """c(p, a) = a / F_{p+2}(F_p⁻¹(a)): consistency of the covariance of the central fraction a.

    Reference: Croux & Haesbroeck (1999).

    Example
    -------
    >>> round(consistency_factor(1, 0.975), 6)
    1.174779
    """
    return float(a / chi2_cdf(chi2_ppf(a, p), p + 2))


def finite_sample(p: int, n: int, *, reweighted: bool) -> float:
    """Pison et al.'s small-sample factor 1/f(p, n) for alpha = 1/2 (raw or reweighted MCD).

    Raises MeasureError for the very small samples where robustbase uses simulated values.

    Reference: Pison, Van Aelst & Willems (2002).

    Example
    -------
    >>> round(finite_sample(8, 1080, reweighted=True), 6)
    1.000855
    """
    if p in SMALL_N_MAX and n <= SMALL_N_MAX[p]:
        raise MeasureError(
            f"mcd: {n} records in {p} variables is too few for robustbase's finite-sample "
            f"correction (it uses simulated factors up to n = {SMALL_N_MAX[p]}); need more records")
    table = _REW if reweighted else _RAW
    if p in (1, 2):
        c0, c1 = table[p]
    else:
        (a2, b2), (a3, b3) = table["q"]
        y2, y3 = math.log(-a2 / p ** b2), math.log(-a3 / p ** b3)
        c1 = (y2 - y3) / math.log(1.5)  # log(3 p²) − log(2 p²)
        c0 = y2 + c1 * math.log(2 * p * p)
    return 1.0 / (1.0 - math.exp(c0) / n ** c1)
