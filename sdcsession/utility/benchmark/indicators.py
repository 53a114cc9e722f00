"""Benchmarking indicators with confidence intervals (data-specific utility).

Weighted point estimators (mean, total, ratio, quantiles, Gini coefficient, at-risk-of-poverty
rate), all with a ``by=`` breakdown; their confidence intervals by the bootstrap (seeded, household-
clustered when a household id is given, optionally calibrated to known totals) or by the normal
approximation; and `compare_indicators`, which puts the estimates on the original and the
masked file side by side with the relative difference, both intervals, whether the masked estimate
lies in the original interval and the confidence-interval overlap of Karr et al. (2006).

References
----------
* Templ, M. (2017). *Statistical Disclosure Control for Microdata*, ch. 6 (benchmarking indicators).
* Alfons, A. & Templ, M. (2013). Estimation of social exclusion indicators from complex surveys:
  the R package laeken. *Journal of Statistical Software* 54(15). (Gini, ARPR, weighted median.)
* Karr, A. F., Kohnen, C. N., Oganian, A., Reiter, J. P. & Sanil, A. P. (2006). A framework for
  evaluating the utility of data altered to protect confidentiality. *The American Statistician*
  60(3), 224-232. (Confidence-interval overlap.)

Example
-------
>>> import numpy as np
>>> round(gini([1.0, 1.0, 1.0, 1.0]), 12)
0.0
>>> weighted_median([1.0, 2.0, 3.0, 4.0])
2.5
"""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError, SdcWarning, user_stacklevel
from ._intervals import (  # noqa: F401  (_calibrate, _calibration_matrix re-exported)
    _calibrate,
    _calibration_matrix,
    ci_overlap,
    compare_indicators,
    indicator_ci,
)
from ._kernels import (
    _by,
    _float_array,
    _k_arpr,
    _k_gini,
    _k_mean,
    _k_quantile,
    _k_ratio,
    _k_total,
    _prepare,
)
from ._specs import STATS, Indicator  # noqa: F401  (STATS re-exported)

__all__ = [
    "weighted_mean",
    "weighted_total",
    "weighted_ratio",
    "weighted_quantile",
    "weighted_median",
    "gini",
    "arpr",
    "ArprResult",
    "Indicator",
    "indicator_ci",
    "ci_overlap",
    "compare_indicators",
]


# The pieces live in private modules by topic: ``_benchmark_kernels`` (input checks and weighted
# array kernels), ``_benchmark_indicators`` (`Indicator` and its evaluation on a frame) and
# ``_benchmark_intervals`` (variance, bootstrap, `indicator_ci`, `compare_indicators`,
# `ci_overlap`); the point estimators are defined here.

# --------------------------------------------------------------------------------------------
# public point estimators
# --------------------------------------------------------------------------------------------


def weighted_mean(values: Any, weights: Any = None, *, by: Any = None, na_rm: bool = False):
    """Weighted mean ``Σ w x / Σ w`` (Horvitz–Thompson ratio / Hájek estimator).

    Returns a float, or a Series indexed by the groups of ``by``.

    Missing values: refused with a MeasureError unless ``na_rm=True``, which drops the incomplete
    records (laeken's ``na.rm``).

    >>> weighted_mean([1.0, 3.0], [1.0, 3.0])
    2.5
    """
    x, w, g = _prepare(values, weights, by, na_rm)
    return _by(_k_mean, [x], w, g, "mean")


def weighted_total(values: Any, weights: Any = None, *, by: Any = None, na_rm: bool = False):
    """Weighted (Horvitz–Thompson) total ``Σ w x``.

    Missing values: refused with a MeasureError unless ``na_rm=True`` (drops the incomplete
    records).

    >>> weighted_total([1.0, 3.0], [2.0, 2.0])
    8.0
    """
    x, w, g = _prepare(values, weights, by, na_rm)
    return _by(_k_total, [x], w, g, "total")


def weighted_ratio(
    numerator: Any, denominator: Any, weights: Any = None, *, by: Any = None, na_rm: bool = False
):
    """Ratio of weighted totals ``Σ w y / Σ w x``.

    Missing values: refused with a MeasureError unless ``na_rm=True`` (drops records missing either
    value).

    >>> weighted_ratio([2.0, 4.0], [1.0, 1.0])
    3.0
    """
    y = _float_array(numerator, "numerator")
    x = _float_array(denominator, "denominator")
    if len(x) != len(y):
        raise MeasureError("ratio: numerator and denominator differ in length")
    both = np.where(np.isnan(x), np.nan, y)
    yy, w, g = _prepare(both, weights, by, na_rm, "numerator/denominator")
    xx = x[~np.isnan(both)]
    return _by(_k_ratio, [yy, xx], w, g, "ratio")


def weighted_quantile(
    values: Any, weights: Any = None, *, q: float = 0.5, by: Any = None, na_rm: bool = False
):
    """Weighted quantile as in laeken (Alfons & Templ 2013).

    Sort x; with cumulated weight shares ``r_i = Σ_{j≤i} w_j / Σ w``, the q-quantile is ``x_s`` for
    the first s with ``r_s ≥ q``, or ``(x_s + x_{s+1}) / 2`` when ``r_s = q`` exactly.

    Missing values: refused with a MeasureError unless ``na_rm=True`` (drops the incomplete
    records).

    >>> weighted_quantile([1.0, 2.0, 3.0, 4.0], q=0.25)
    1.5
    """
    if not (isinstance(q, (int, float)) and not isinstance(q, bool) and 0 <= q <= 1):
        raise ParameterError(f"q: expected a probability in [0, 1], got {q!r}")
    x, w, g = _prepare(values, weights, by, na_rm)
    return _by(lambda a, ww: _k_quantile(a, ww, float(q)), [x], w, g, f"quantile{q:g}")


def weighted_median(values: Any, weights: Any = None, *, by: Any = None, na_rm: bool = False):
    """Weighted median: `weighted_quantile` with q = 0.5.

    Missing values: refused with a MeasureError unless ``na_rm=True`` (drops the incomplete
    records).

    >>> weighted_median([1.0, 2.0, 10.0], [1.0, 1.0, 5.0])
    10.0
    """
    return weighted_quantile(values, weights, q=0.5, by=by, na_rm=na_rm)


def gini(values: Any, weights: Any = None, *, by: Any = None, na_rm: bool = False):
    """Weighted Gini coefficient as a fraction in [0, 1] (laeken reports percent).

    With x sorted increasingly and weights w::

        G = (2 Σ_i w_i x_i Σ_{j≤i} w_j − Σ_i w_i² x_i) / (Σ_i w_i · Σ_i w_i x_i) − 1

    (EU-SILC definition; Alfons & Templ 2013). Returns a float, or a Series per group of ``by``.
    The coefficient is defined for non-negative values; negative values (losses) are used as they
    are, as laeken does, but an `SdcWarning` says how many there are, since G may then
    leave [0, 1].

    Missing values: refused with a MeasureError unless ``na_rm=True`` (drops the incomplete records;
    laeken's ``na.rm``).

    >>> round(gini([0.0, 0.0, 0.0, 1.0]), 6)
    0.75
    """
    x, w, g = _prepare(values, weights, by, na_rm)
    neg = int((x < 0).sum())
    if neg:
        warnings.warn(f"gini: {neg} negative values; the Gini coefficient assumes non-negative "
                      "values and may leave [0, 1]", SdcWarning, stacklevel=user_stacklevel())
    return _by(_k_gini, [x], w, g, "gini")


@attrs.frozen
class ArprResult:
    """At-risk-of-poverty rate: ``value`` (fraction), ``threshold`` (currency), ``median``;
    ``by`` is a Series of rates per group (using the overall threshold) or None."""

    value: float
    threshold: float
    median: float
    by: pd.Series | None = None


def arpr(
    values: Any,
    weights: Any = None,
    *,
    by: Any = None,
    p: float = 0.6,
    q: float = 0.5,
    na_rm: bool = False,
) -> ArprResult:
    """At-risk-of-poverty rate: weighted share of persons with income below the threshold
    ``p · weighted q-quantile`` (default 60 % of the weighted median, laeken/EU-SILC definition).

    The rate is a fraction (laeken reports percent). With ``by``, the rates per group use the
    overall (national) threshold, as laeken does by default.

    Missing values: refused with a MeasureError unless ``na_rm=True`` (drops the incomplete records;
    laeken's ``na.rm``).

    >>> r = arpr([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> r.threshold, r.value
    (1.7999999999999998, 0.2)
    """
    for name, v, ok in (("p", p, lambda t: 0 < t <= 1), ("q", q, lambda t: 0 < t < 1)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer,
                                                                 np.floating)) or not ok(v):
            raise ParameterError(
                f"arpr: expected 0 < p <= 1 and 0 < q < 1, got {name}={v!r:.60}")
    x, w, g = _prepare(values, weights, by, na_rm)
    rate, thr, med = _k_arpr(x, w, p, q)
    per = None
    if g is not None:
        codes, labels = g
        poor = (x < thr).astype(float)
        num = np.bincount(codes, weights=w * poor, minlength=len(labels))
        den = np.bincount(codes, weights=w, minlength=len(labels))
        per = pd.Series(num / den, index=labels, name="arpr")
    return ArprResult(value=rate, threshold=thr, median=med, by=per)

