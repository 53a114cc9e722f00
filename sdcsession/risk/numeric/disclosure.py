"""Disclosure risk of masked continuous variables: interval disclosure and distance-based linkage.

Both measures compare the *same records* before and after masking. Records are paired by index, as
the utility measures do: ``masked`` may list the records in another order (it is re-ordered to
``original``'s index), but both files must hold the same index labels (unique, unless the two
indexes are identical); other records or other columns raise `MeasureError`.

*Interval disclosure* (sdcMicro ``dRisk``): an intruder who knows a record's original values finds
the masked record when every original value lies in an interval around the masked one. With s_j the
standard deviation (n − 1 denominator, missing values ignored) of masked variable j,

    risk = (1/n) #{ i : no variable j has |x_ij − x'_ij| > k s_j }.

Missing values, as sdcMicro 5.8 (``rowSums(x < mi | x > ma, na.rm = TRUE) == 0``): a comparison
with a missing original or masked value (or a variable whose standard deviation is undefined, fewer
than two masked values) is left out, so a record is at risk when every variable it *can* be
compared on is inside its interval; a record with no comparable variable counts as at risk
(conservative); n counts all records.

*Record-linkage risk*: distance-based record linkage on standardised data (each variable centred
and scaled by the mean and standard deviation of the original). The risk is the share of masked
records whose nearest original record (Euclidean distance, k-d tree) is their own original;
a tie between the own record and another at the minimal distance counts as linked (conservative).
Missing values (not defined by sdcMicro): only records complete on every compared variable in both
files take part, as the records to link and as the candidates; the risk is the share among them.

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

import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from .._codes import as_keys, check_columns, check_frame, check_number

__all__ = ["interval_disclosure", "record_linkage_risk"]


def _paired(original: pd.DataFrame, masked: pd.DataFrame) -> pd.DataFrame:
    """``masked`` re-ordered to ``original``'s index; MeasureError when the records differ."""
    oi, mi = original.index, masked.index
    if oi.equals(mi):
        return masked
    if len(oi) != len(mi):
        raise MeasureError(
            f"masked: {len(mi)} records but original has {len(oi)}; numeric risk compares the "
            "same records before and after masking, paired by index label")
    if not oi.is_unique or not mi.is_unique:
        raise MeasureError(
            "masked: the indexes differ and are not unique, so the records cannot be paired; "
            "give both files the same index (numeric risk pairs records by index label)")
    only_o, only_m = oi.difference(mi), mi.difference(oi)
    if len(only_o) or len(only_m):
        raise MeasureError(
            f"masked: the records differ from the original's: {len(only_o)} index label(s) only "
            f"in original (e.g. {list(only_o[:3])}), {len(only_m)} only in masked (e.g. "
            f"{list(only_m[:3])}); numeric risk pairs records by index label")
    return masked.reindex(oi)


def _pair(
    original: pd.DataFrame, masked: pd.DataFrame, columns: str | Iterable[str] | None,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    check_frame(original, "original")
    check_frame(masked, "masked")
    masked = _paired(original, masked)
    if columns is None:
        cols = [str(c) for c in original.columns]
        if any(not isinstance(c, str) for c in original.columns):
            raise MeasureError(
                f"original: column names must be strings, got {list(original.columns)[:10]}")
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
    for name, a in (("original", x), ("masked", xm)):
        inf = np.isinf(a).any(axis=0)
        if inf.any():
            raise MeasureError(
                f"{name}: infinite values in {[c for c, b in zip(cols, inf) if b]}; numeric risk "
                "needs finite numbers (or missing values)")
    return x, xm, cols


def interval_disclosure(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: str | Iterable[str] | None = None,
    k: float = 0.05,
) -> float:
    """Share of records whose original values all lie within masked ± k·sd (sdcMicro ``dRisk``).

    risk = (1/n) #{i : no j with |x_ij − x'_ij| > k·s_j}, s_j the standard deviation (n − 1,
    missing values ignored) of the masked variable j. ``columns`` defaults to all columns of
    ``original`` (all must be numeric and present in ``masked``). ``k`` is a number ≥ 0 (interval
    half-width in standard deviations). Records are paired by index (``masked`` may be in another
    order). Missing values as sdcMicro: a comparison with a missing original or masked value is
    left out (a record is at risk when all its comparable variables are inside; with none, it
    counts as at risk); n counts every record.

    Reference: Mateo-Sanz, Sebé & Domingo-Ferrer (2004), PSD 2004; sdcMicro ``dRisk``.

    Missing values: comparisons with a missing original or masked value are left out (sdcMicro's
    dRisk; see the module docstring).

    Example
    -------
    >>> import pandas as pd
    >>> x = pd.DataFrame({"a": [1.0, 2.0, 3.0]}); m = pd.DataFrame({"a": [1.0, 2.5, 3.0]})
    >>> round(interval_disclosure(x, m, k=0.1), 4)
    0.6667
    >>> m.loc[1, "a"] = None  # record 1 cannot be compared: at risk, as in sdcMicro
    >>> interval_disclosure(x, m, k=0.1)
    1.0
    """
    kk = check_number(k, "k", "a finite number >= 0")
    if not kk >= 0:
        raise ParameterError(f"k: expected a finite number >= 0, got {k!r}")
    x, xm, _ = _pair(original, masked, columns)
    n = x.shape[0]
    if n < 2:
        raise MeasureError("masked: at least two records are needed for a standard deviation")
    ok = ~np.isnan(xm)
    cnt = ok.sum(axis=0)
    mean = np.where(cnt > 0, np.where(ok, xm, 0.0).sum(axis=0) / np.maximum(cnt, 1), 0.0)
    dev = np.where(ok, xm - mean, 0.0)
    sd = np.sqrt((dev ** 2).sum(axis=0) / np.maximum(cnt - 1, 1))
    sd = np.where(cnt >= 2, sd, np.nan)  # undefined: the variable's comparisons are left out
    half = kk * sd
    with np.errstate(invalid="ignore"):  # as sdcMicro: x < xm - k sd or x > xm + k sd
        outside = (x < xm - half) | (x > xm + half)  # NaN compares False: left out
    return float((~outside.any(axis=1)).sum() / n)


def record_linkage_risk(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: str | Iterable[str] | None = None,
) -> float:
    """Share of masked records whose nearest original record (standardised Euclidean) is their own.

    Both files are standardised with the mean and standard deviation (n − 1) of the original (a
    constant column is only centred). Nearest neighbours come from a k-d tree; a tie at the minimal
    distance that includes the own record counts as a link. Records are paired by index
    (``masked`` may be in another order). Missing values: only the records complete on every
    compared variable in both files take part (as the records linked and as the candidates); the
    risk is the share among them (`MeasureError` when no record is complete).

    Reference: Domingo-Ferrer & Torra (2001), distance-based record linkage.

    Example
    -------
    >>> import pandas as pd
    >>> x = pd.DataFrame({"a": [1.0, 2.0, 3.0]}); m = pd.DataFrame({"a": [2.1, 1.9, 3.0]})
    >>> round(record_linkage_risk(x, m), 4)
    0.6667
    """
    from scipy.spatial import cKDTree

    x, xm, cols = _pair(original, masked, columns)
    complete = ~(np.isnan(x).any(axis=1) | np.isnan(xm).any(axis=1))
    if not complete.all():
        if not complete.any():
            raise MeasureError(
                f"columns: no record is complete on {cols} in both files; record linkage needs "
                "records without missing values")
        x, xm = x[complete], xm[complete]
    mu = x.mean(axis=0)
    sd = x.std(axis=0, ddof=1) if x.shape[0] > 1 else np.ones(x.shape[1])
    sd = np.where(sd > 0, sd, 1.0)
    z = (x - mu) / sd
    zm = (xm - mu) / sd
    dmin, _ = cKDTree(z).query(zm, k=1)
    down = np.sqrt(((z - zm) ** 2).sum(axis=1))
    linked = down <= dmin * (1 + 1e-12) + 1e-300
    return float(linked.mean())
