"""Disclosure risk of masked continuous variables: interval disclosure and distance-based linkage.

*Interval disclosure* (sdcMicro ``dRisk``): an intruder who knows a record's original values finds
the masked record when every original value lies in an interval around the masked one. With s_j the
standard deviation (n − 1 denominator) of masked variable j,

    risk = (1/n) #{ i : |x_ij − x'_ij| ≤ k s_j for every variable j }.

A record with a missing original or masked value is not counted as at risk (as in sdcMicro, where
the comparison is NA); standard deviations ignore missing values.

*Record-linkage risk*: distance-based record linkage on standardised data (each variable centred
and scaled by the mean and standard deviation of the original). The risk is the share of masked
records whose nearest original record (Euclidean distance, k-d tree) is their own original;
a tie between the own record and another at the minimal distance counts as linked (conservative).

References: Mateo-Sanz, Sebé & Domingo-Ferrer (2004), *Outlier protection in continuous microdata
masking*, PSD 2004, LNCS 3050 (interval disclosure); Domingo-Ferrer & Torra (2001), *A quantitative
comparison of disclosure control methods for microdata*, in Confidentiality, Disclosure and Data
Access (distance-based record linkage); Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4).

Example
-------
>>> import pandas as pd
>>> from sdcsession.risk import interval_disclosure, record_linkage_risk
>>> x = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]})
>>> m = pd.DataFrame({"a": [1.01, 2.5, 3.0, 3.9]})
>>> interval_disclosure(x, m, k=0.05)
0.5
>>> record_linkage_risk(x, m)
1.0
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Real

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from ..errors import MeasureError, ParameterError
from ._codes import as_keys, check_columns, check_frame

__all__ = ["interval_disclosure", "record_linkage_risk"]


def _pair(
    original: pd.DataFrame, masked: pd.DataFrame, columns: str | Iterable[str] | None,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    check_frame(original, "original")
    check_frame(masked, "masked")
    if len(original) != len(masked):
        raise MeasureError(
            f"masked: {len(masked)} records but original has {len(original)}; numeric risk "
            "compares the same records before and after masking")
    if columns is None:
        cols = [str(c) for c in original.columns]
        extra = [str(c) for c in masked.columns if c not in original.columns]
        if extra:
            raise MeasureError(
                f"masked: column(s) {extra} are not in original; give columns=[...] to compare "
                "a subset")
    else:
        cols = as_keys(columns, "columns")
    check_columns(original, cols, "columns (original)")
    check_columns(masked, cols, "columns (masked)")
    for name, frame in (("original", original), ("masked", masked)):
        bad = [c for c in cols if not pd.api.types.is_numeric_dtype(frame[c])
               or pd.api.types.is_bool_dtype(frame[c])]
        if bad:
            raise MeasureError(
                f"{name}: column(s) {bad} are not numeric "
                f"({', '.join(str(frame[c].dtype) for c in bad)}); numeric risk needs numbers")
    x = original[cols].to_numpy(dtype=np.float64, na_value=np.nan)
    xm = masked[cols].to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(x).any() or np.isinf(xm).any():
        raise MeasureError("columns: infinite values in the numeric variables")
    return x, xm, cols


def interval_disclosure(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: str | Iterable[str] | None = None,
    k: float = 0.05,
) -> float:
    """Share of records whose original values all lie within masked ± k·sd (sdcMicro ``dRisk``).

    risk = (1/n) #{i : |x_ij − x'_ij| ≤ k·s_j for all j}, s_j the standard deviation (n − 1) of the
    masked variable j. ``columns`` defaults to all columns of ``original`` (all must be numeric and
    present in ``masked``). ``k`` is a number ≥ 0 (interval half-width in standard deviations).

    Reference: Mateo-Sanz, Sebé & Domingo-Ferrer (2004), PSD 2004; sdcMicro ``dRisk``.

    Example
    -------
    >>> import pandas as pd
    >>> x = pd.DataFrame({"a": [1.0, 2.0, 3.0]}); m = pd.DataFrame({"a": [1.0, 2.5, 3.0]})
    >>> round(interval_disclosure(x, m, k=0.1), 4)
    0.6667
    """
    if isinstance(k, bool) or not isinstance(k, Real):
        raise ParameterError(f"k: expected a number >= 0, got {k!r}")
    kk = float(k)
    if not (kk >= 0 and np.isfinite(kk)):
        raise ParameterError(f"k: expected a finite number >= 0, got {k!r}")
    x, xm, _ = _pair(original, masked, columns)
    n = x.shape[0]
    if n < 2:
        raise MeasureError("masked: at least two records are needed for a standard deviation")
    with np.errstate(invalid="ignore"):
        sd = np.nanstd(xm, axis=0, ddof=1)
    sd = np.where(np.isfinite(sd), sd, 0.0)
    inside = np.abs(x - xm) <= kk * sd  # NaN compares False: not at risk
    return float(inside.all(axis=1).sum() / n)


def record_linkage_risk(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: str | Iterable[str] | None = None,
) -> float:
    """Share of masked records whose nearest original record (standardised Euclidean) is their own.

    Both files are standardised with the mean and standard deviation (n − 1) of the original (a
    constant column is only centred). Nearest neighbours come from a k-d tree; a tie at the minimal
    distance that includes the own record counts as a link. Missing values are not allowed.

    Reference: Domingo-Ferrer & Torra (2001), distance-based record linkage.

    Example
    -------
    >>> import pandas as pd
    >>> x = pd.DataFrame({"a": [1.0, 2.0, 3.0]}); m = pd.DataFrame({"a": [2.1, 1.9, 3.0]})
    >>> round(record_linkage_risk(x, m), 4)
    0.6667
    """
    x, xm, cols = _pair(original, masked, columns)
    for name, a in (("original", x), ("masked", xm)):
        if np.isnan(a).any():
            bad = [c for c, col in zip(cols, np.isnan(a).any(axis=0)) if col]
            raise MeasureError(
                f"{name}: missing values in {bad}; record linkage needs complete numeric data")
    mu = x.mean(axis=0)
    sd = x.std(axis=0, ddof=1) if x.shape[0] > 1 else np.ones(x.shape[1])
    sd = np.where(sd > 0, sd, 1.0)
    z = (x - mu) / sd
    zm = (xm - mu) / sd
    dmin, _ = cKDTree(z).query(zm, k=1)
    down = np.sqrt(((z - zm) ** 2).sum(axis=1))
    linked = down <= dmin * (1 + 1e-12) + 1e-300
    return float(linked.mean())
