"""Input checks and weighted array kernels of the benchmarking indicators: values, weights and
breakdowns read into clean float arrays, and the estimators (mean, total, ratio, laeken's weighted
quantile, Gini, at-risk-of-poverty rate) on arrays without missing values. Used by
`sdcsession.utility.benchmark.indicators`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ...errors import MeasureError
from ...risk._codes import check_flag

# --------------------------------------------------------------------------------------------
# input handling
# --------------------------------------------------------------------------------------------


def _float_array(values: Any, name: str) -> np.ndarray:
    """Values as a 1-d float array; non-numeric input raises MeasureError naming ``name``."""
    if isinstance(values, pd.DataFrame):
        raise MeasureError(f"{name}: expected one column (Series or 1-d array), got a DataFrame")
    if isinstance(values, pd.Series):
        s = values
        if isinstance(s.dtype, pd.CategoricalDtype) or not (
            pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype)
        ):
            raise MeasureError(f"{name}: expected numeric values, got dtype {s.dtype}")
        arr = s.to_numpy(dtype=float, na_value=np.nan)
    else:
        try:
            arr = np.asarray(values)
        except Exception as exc:  # pragma: no cover - exotic input
            raise MeasureError(f"{name}: cannot read values ({exc})") from None
        if arr.dtype.kind not in "biuf":
            raise MeasureError(f"{name}: expected numeric values, got {arr.dtype} values")
        arr = arr.astype(float)
    if arr.ndim != 1:
        raise MeasureError(f"{name}: expected a 1-d sequence, got shape {arr.shape}")
    if np.isinf(arr).any():
        raise MeasureError(f"{name}: contains infinite values")
    return arr


def _weights(weights: Any, n: int, name: str = "weights") -> np.ndarray:
    if weights is None:
        return np.ones(n)
    w = _float_array(weights, name)
    if len(w) != n:
        raise MeasureError(f"{name}: length {len(w)} differs from the values' length {n}")
    nan = np.isnan(w)
    if nan.any():
        raise MeasureError(f"{name}: {int(nan.sum())} missing (NaN) weights; weights must be set")
    if (w < 0).any():
        raise MeasureError(f"{name}: negative weights are not allowed")
    return w


def _groups(by: Any, n: int) -> tuple[np.ndarray, pd.Index] | None:
    """Breakdown as integer codes 0..G-1 and the group labels (sorted)."""
    if by is None:
        return None
    if isinstance(by, pd.Series):
        s = by
    else:
        try:
            arr = np.asarray(by)
        except (ValueError, TypeError):
            arr = np.empty((0, 0))
        if arr.ndim != 1:
            raise MeasureError(f"by: expected one group label per value (one-dimensional), got "
                               f"{arr.ndim} dimension(s)")
        s = pd.Series(arr)
    if len(s) != n:
        raise MeasureError(f"by: length {len(s)} differs from the values' length {n}")
    if s.isna().any():
        raise MeasureError(f"by: {int(s.isna().sum())} missing values in the breakdown variable")
    codes, labels = pd.factorize(s, sort=True)
    return codes.astype(np.int64), pd.Index(labels, name=s.name)


def _prepare(values: Any, weights: Any, by: Any, na_rm: bool, name: str = "values"):
    check_flag(na_rm, "na_rm")
    x = _float_array(values, name)
    n = len(x)
    if n == 0:
        raise MeasureError(f"{name}: no records")
    w = _weights(weights, n)
    g = _groups(by, n)
    miss = np.isnan(x)
    if miss.any():
        if not na_rm:
            raise MeasureError(
                f"{name}: {int(miss.sum())} missing values; pass na_rm=True to drop those records"
            )
        keep = ~miss
        x, w = x[keep], w[keep]
        if g is not None:
            g = (g[0][keep], g[1])
        if len(x) == 0:
            raise MeasureError(f"{name}: all values are missing")
    if w.sum() <= 0:
        raise MeasureError("weights: the weights sum to zero")
    return x, w, g


# --------------------------------------------------------------------------------------------
# array kernels (x, w already clean)
# --------------------------------------------------------------------------------------------


def _k_mean(x: np.ndarray, w: np.ndarray) -> float:
    return float(np.dot(w, x) / w.sum())


def _k_total(x: np.ndarray, w: np.ndarray) -> float:
    return float(np.dot(w, x))


def _k_ratio(y: np.ndarray, x: np.ndarray, w: np.ndarray) -> float:
    den = np.dot(w, x)
    if den == 0:
        raise MeasureError("ratio: the weighted total of the denominator is zero")
    return float(np.dot(w, y) / den)


def _k_quantile(x: np.ndarray, w: np.ndarray, q: float) -> float:
    """laeken's weighted quantile: the smallest x whose cumulated weight share reaches q; the mean
    of that value and the next one when the share equals q exactly."""
    o = np.argsort(x, kind="stable")
    xs, ws = x[o], w[o]
    rw = np.cumsum(ws) / ws.sum()
    if q <= 0:
        return float(xs[0])
    if q >= 1:
        return float(xs[-1])
    s = int(np.searchsorted(rw, q, side="left"))
    s = min(s, len(xs) - 1)
    if rw[s] == q and s + 1 < len(xs):
        return float((xs[s] + xs[s + 1]) / 2)
    return float(xs[s])


def _k_gini(x: np.ndarray, w: np.ndarray) -> float:
    o = np.argsort(x, kind="stable")
    xs, ws = x[o], w[o]
    cw = np.cumsum(ws)
    wx = np.dot(ws, xs)
    if wx == 0:
        raise MeasureError("gini: the weighted total of the values is zero")
    return float((2 * np.dot(ws * xs, cw) - np.dot(ws * ws, xs)) / (cw[-1] * wx) - 1)


def _by(fn: Callable[..., float], arrays: list[np.ndarray], w: np.ndarray, g, name: str):
    if g is None:
        return fn(*arrays, w)
    codes, labels = g
    out = np.empty(len(labels))
    for j in range(len(labels)):
        m = codes == j
        out[j] = fn(*(a[m] for a in arrays), w[m])
    return pd.Series(out, index=labels, name=name)


def _k_arpr(x: np.ndarray, w: np.ndarray, p: float, q: float) -> tuple[float, float, float]:
    med = _k_quantile(x, w, q)
    thr = p * med
    return float(w[x < thr].sum() / w.sum()), thr, med

