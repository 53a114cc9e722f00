"""Computed intervals of global recoding: sdcMicro's ``logEqui`` and ``equalAmount`` breaks.

`global_recode(series, method=..., n=b)` with

``method="log_equidistant"`` (sdcMicro 5.8.1 ``globalRecode(x, breaks=b, method="logEqui")``)
    b intervals of equal width on the log scale, widened by one unit of log on each side:
    ``l_i = log(min) − 1 + i·(log(max) − log(min) + 2)/b`` for i = 0..b (the last exactly
    ``log(max) + 1``), breaks ``exp(l_i)``, rounded to whole numbers (R's ``round``, halves to
    even) unless two rounded breaks coincide. Every value must be positive: the logarithm is
    undefined for x ≤ 0 (a `TreatmentError` names the column and its smallest value; sdcMicro
    stops on zeros with an R error and silently recodes negative values to missing).
``method="quantile"`` (sdcMicro ``method="equalAmount"``)
    Breaks at the ``i/b`` sample quantiles, i = 0..b, of the non-missing values, R's default
    quantile (type 7): with the sorted values ``x_(1) ≤ … ≤ x_(n)``, ``h = 1 + (n − 1)·i/b``,
    ``q = x_(⌊h⌋) + (h − ⌊h⌋)·(x_(⌈h⌉) − x_(⌊h⌋))`` (computed as R does,
    ``(1 − γ)·x_(⌊h⌋) + γ·x_(⌈h⌉)``). When two quantiles coincide (heavy ties) the duplicates are
    dropped, giving fewer intervals; sdcMicro instead jitters the breaks at random (``jitter``),
    so its intervals then depend on R's random number stream and cannot be reproduced.

Both are cut like R's ``cut(x, breaks, include.lowest=TRUE, dig.lab=8)``: right-closed
intervals, the first closed on the left, labels ``[a,b]``, ``(b,c]``, … as R writes them. With
b = 1, as in sdcMicro, the single interval is ``(min − 1, max + 1]``.

Reference: Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4), sec. 4.1 (``globalRecode``);
Hyndman, R. J. & Fan, Y. (1996) Sample quantiles in statistical packages, The American
Statistician 50(4), 361–365 (definition 7).

Example
-------
>>> import numpy as np
>>> log_equidistant_breaks(np.array([1.0, 10, 100]), 2, "x").tolist()
[0.0, 10.0, 272.0]
>>> quantile_breaks(np.array([1.0, 2, 3, 4, 10]), 2).tolist()
[1.0, 3.0, 10.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TreatmentError

__all__ = ["log_equidistant_breaks", "quantile_breaks", "r_quantile", "method_breaks"]


def r_quantile(values: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """R's ``quantile(values, probs)`` (type 7) computed with R's own arithmetic.

    >>> r_quantile(np.array([3.0, 1, 2, 10]), np.array([0, 0.5, 1])).tolist()
    [1.0, 2.5, 10.0]
    """
    x = np.sort(values)
    n = len(x)
    index = 1.0 + max(n - 1, 0) * probs
    lo = np.floor(index).astype(np.int64)
    hi = np.ceil(index).astype(np.int64)
    qs = x[lo - 1].astype(np.float64)
    sel = (index > lo) & (x[hi - 1] != qs)
    h = (index - lo)[sel]
    qs[sel] = (1.0 - h) * qs[sel] + h * x[hi[sel] - 1]
    return qs


def quantile_breaks(values: np.ndarray, b: int) -> np.ndarray:
    """Breaks of ``method="quantile"``: the ``i/b`` quantiles (i = 0..b), duplicates dropped.

    >>> quantile_breaks(np.array([1.0, 1, 1, 1, 2]), 4).tolist()
    [1.0, 2.0]
    """
    probs = np.r_[0.0, np.arange(1, b + 1) / b]
    return np.unique(r_quantile(values, probs))


def nonpositive_error(column: Any, count: int, smallest: float) -> TreatmentError:
    """The `TreatmentError` of ``method="log_equidistant"`` for ``count`` values <= 0."""
    return TreatmentError(
        f"global_recode: method='log_equidistant' takes logarithms, which are undefined for "
        f"values <= 0; column {column!r} has {count} such value(s) (smallest "
        f"{smallest:g}); recode or shift them first, or use method='quantile'")


def log_equidistant_breaks(values: np.ndarray, b: int, column: Any) -> np.ndarray:
    """Breaks of ``method="log_equidistant"`` (see the module docstring); `TreatmentError` naming
    ``column`` when a value is ≤ 0 or infinite.

    >>> log_equidistant_breaks(np.array([2.0, 3.0]), 1, "x").tolist()   # exp(log 2 - 1), ...
    [1.0, 8.0]
    """
    if (values <= 0).any():
        bad = values[values <= 0]
        raise nonpositive_error(column, len(bad), float(bad.min()))
    if not np.isfinite(values).all():
        raise TreatmentError(f"global_recode: column {column!r} has infinite values; "
                             "method='log_equidistant' needs a finite range")
    logs = np.log(values)
    edges = np.exp(np.linspace(float(logs.min()) - 1.0, float(logs.max()) + 1.0, b + 1))
    rounded = np.round(edges)
    return rounded if len(np.unique(rounded)) == len(rounded) else edges


def method_breaks(values: np.ndarray, b: int, method: str, column: Any
                  ) -> tuple[np.ndarray, bool]:
    """Cut points and R's ``include.lowest`` of ``method`` ``"quantile"`` or
    ``"log_equidistant"`` with b intervals on the non-missing ``values`` (b = 1: ``(min − 1,
    max + 1]`` as sdcMicro).

    >>> method_breaks(np.array([5.0, 7.0]), 1, "quantile", "x")
    (array([4., 8.]), False)
    """
    if method == "log_equidistant":
        edges = log_equidistant_breaks(values, b, column)  # checks the values first
    elif not np.isfinite(values).all():
        raise TreatmentError(f"global_recode: column {column!r} has infinite values; "
                             f"method={method!r} needs finite values")
    if b == 1:
        return np.array([float(values.min()) - 1.0, float(values.max()) + 1.0]), False
    if method == "quantile":
        edges = quantile_breaks(values, b)
        if len(edges) < 2:
            raise TreatmentError(
                f"global_recode: every non-missing value of column {column!r} is "
                f"{float(edges[0]):g}; quantile intervals need at least two different values")
    return edges, True
