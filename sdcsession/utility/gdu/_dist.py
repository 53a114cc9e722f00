"""Light statistics of the GDU tests, on `scipy.special` and numpy only: the upper tails of the
chi-squared, F and t distributions, ranks, Pearson's chi-squared test of a contingency table, and
a bound that settles most Kolmogorov–Smirnov normality checks without the exact distribution.

Importing ``scipy.stats`` costs about half a second (it builds the documentation of a hundred
distributions); these functions give the same numbers as its ``chi2.sf``, ``f.sf``, ``t.sf``,
``rankdata`` and ``chi2_contingency(correction=False)`` (the tests compare them bit for bit),
so that a GDU without a perturbed numeric variable never imports it.

>>> chi2_sf(3.85, 1) < 0.05 < chi2_sf(3.8, 1)  # the 5 % critical value is 3.8415
True
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["chi2_sf", "f_sf", "t_sf", "ranks_average", "ranks_ordinal", "chi2_table",
           "ks_rejects_for_sure"]


def chi2_sf(x: float, df: float) -> float:
    """P(X > x) for X ~ χ²(df): the regularised upper incomplete gamma Q(df/2, x/2)
    (``scipy.special.chdtrc``; Abramowitz & Stegun 26.4.2). Missing values: NaN gives NaN.

    >>> round(chi2_sf(2.0, 2), 6) == round(math.exp(-1.0), 6)
    True
    """
    from scipy.special import chdtrc

    return float(chdtrc(df, x))


def f_sf(x: float, dfn: float, dfd: float) -> float:
    """P(X > x) for X ~ F(dfn, dfd): the regularised incomplete beta I_{dfd/(dfd + dfn x)}(dfd/2,
    dfn/2) (``scipy.special.fdtrc``; Abramowitz & Stegun 26.6.2). Missing values: NaN gives NaN.

    >>> round(f_sf(1.0, 10, 10), 6)
    0.5
    """
    from scipy.special import fdtrc

    return float(fdtrc(dfn, dfd, x))


def t_sf(x: float, df: float) -> float:
    """P(T > x) for T ~ t(df), as the lower tail at −x (``scipy.special.stdtr``; Abramowitz &
    Stegun 26.7.1). Missing values: NaN gives NaN.

    >>> t_sf(0.0, 5)
    0.5
    """
    from scipy.special import stdtr

    return float(stdtr(df, -x))


def ranks_average(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks (1-based, ties get the mean of their positions) and the size of each group
    of tied values (in increasing order of the values). Missing values: give none (NaN sorts
    last and is ranked like a value).

    >>> r, t = ranks_average(np.array([3.0, 1.0, 3.0, 2.0]))
    >>> r.tolist(), t.tolist()
    ([3.5, 1.0, 3.5, 2.0], [1, 1, 2])
    """
    v = np.asarray(v)
    n = len(v)
    order = np.argsort(v, kind="stable")
    s = v[order]
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]]) if n else np.zeros(0, np.int64)
    counts = np.diff(np.r_[start, n])
    out = np.empty(n, dtype=float)
    out[order] = np.repeat(start + (counts + 1) / 2.0, counts)  # integers and halves: exact
    return out, counts


def ranks_ordinal(v: np.ndarray) -> np.ndarray:
    """Ranks 1..n in the order of the values, ties in the order they appear.

    >>> ranks_ordinal(np.array([2.0, 1.0, 2.0])).tolist()
    [2.0, 1.0, 3.0]
    """
    v = np.asarray(v)
    out = np.empty(len(v), dtype=float)
    out[np.argsort(v, kind="stable")] = np.arange(1, len(v) + 1)
    return out


def chi2_table(tab: np.ndarray) -> tuple[float, float] | None:
    """Pearson's chi-squared test of independence of a two-way table of counts without continuity
    correction: statistic Σ (O − E)² / E with E = row total × column total / n, p-value from
    χ² with (r − 1)(c − 1) degrees of freedom (Pearson 1900). None when an expected count is
    zero (an empty row or column: the test is undefined). Missing values: counts, none missing.

    >>> stat, p = chi2_table(np.array([[10.0, 20.0], [20.0, 10.0]]))
    >>> round(stat, 4), round(p, 4)
    (6.6667, 0.0098)
    """
    tab = np.asarray(tab, dtype=np.float64)
    e = tab.sum(axis=1, keepdims=True) * tab.sum(axis=0, keepdims=True) / tab.sum()
    if (e == 0).any():
        return None
    dof = e.size - sum(e.shape) + e.ndim - 1
    if dof == 0:
        return 0.0, 1.0
    stat = float(((tab - e) ** 2 / e).sum())
    return stat, chi2_sf(stat, float(dof))


def ks_rejects_for_sure(x: np.ndarray, mean: float, sd: float, alpha: float) -> bool:
    """True when the two-sided one-sample Kolmogorov–Smirnov test of ``x`` against N(mean, sd²)
    certainly has a p-value below ``alpha``, by the Dvoretzky–Kiefer–Wolfowitz inequality with
    Massart's constant: P(D_n > d) ≤ 2 exp(−2 n d²) (Massart 1990, Ann. Probab. 18(3)). The bound
    is required below alpha / 2 (a margin for rounding); False means "not settled" (compute the
    exact p-value), never "normal". D_n = max over the sorted values of i/n − F(x_(i)) and
    F(x_(i)) − (i − 1)/n. Missing values: give none.

    >>> x = np.arange(1000.0) ** 3
    >>> ks_rejects_for_sure(x, x.mean(), x.std(ddof=1), 0.05)
    True
    >>> ks_rejects_for_sure(np.array([-1.0, 0.0, 1.0]), 0.0, 1.0, 0.05)
    False
    """
    from scipy.special import ndtr

    n = len(x)
    if n == 0 or not sd > 0:
        return False
    cdf = ndtr((np.sort(x) - mean) / sd)
    i = np.arange(1, n + 1)
    d = max(float(np.max(i / n - cdf)), float(np.max(cdf - (i - 1) / n)))
    return 2.0 * math.exp(-2.0 * n * d * d) < alpha / 2
