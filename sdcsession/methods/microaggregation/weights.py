"""Weighted group aggregates of microaggregation (sdcMicro's ``weights`` argument).

`weighted_aggregate` replaces each value by its group's weighted mean ``Σ w_i x_i / Σ w_i`` or
weighted median, and `check_weights` validates the weight column. The weighted median of a group
is the smallest value (in ascending order) whose cumulative weight share reaches 1/2; when the
share equals 1/2 exactly, the mean of that value and the next one (sdcMicro's
``weightedMedian``). A group whose weights sum to 0 gets its unweighted mean or median.

Example
-------
>>> weighted_aggregate(np.array([1.0, 3.0, 10.0, 20.0]), np.array([0, 0, 1, 1]), "mean",
...                    np.array([1.0, 3.0, 1.0, 0.0])).tolist()
[2.5, 2.5, 10.0, 10.0]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...errors import TreatmentError
from ..params import require_columns

__all__ = ["weighted_aggregate", "check_weights"]


def check_weights(data: pd.DataFrame, column: str, what: str) -> np.ndarray:
    """The weight column as float64: numeric, no missing, finite and non-negative, else
    `TreatmentError` naming the column.

    >>> check_weights(pd.DataFrame({"w": [1, 2]}), "w", "microaggregation").tolist()
    [1.0, 2.0]
    """
    require_columns(data, [column], f"{what} weights")
    s = data[column]
    if (not pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype)
            or isinstance(s.dtype, pd.CategoricalDtype)):
        raise TreatmentError(f"{what}: weights column {column!r} must be numeric, has dtype "
                             f"{s.dtype}")
    w = s.to_numpy(dtype=np.float64, na_value=np.nan)
    if not np.isfinite(w).all() or (w < 0).any():
        raise TreatmentError(f"{what}: weights column {column!r} must be finite, non-negative "
                             "and never missing")
    return w


def weighted_aggregate(col: np.ndarray, labels: np.ndarray, how: str,
                       w: np.ndarray) -> np.ndarray:
    """Each value replaced by its group's weighted mean (``how="mean"``) or weighted median.

    >>> weighted_aggregate(np.array([1.0, 2.0, 3.0, 4.0]), np.zeros(4, int), "median",
    ...                    np.array([1.0, 1.0, 1.0, 5.0])).tolist()
    [4.0, 4.0, 4.0, 4.0]
    """
    col = np.asarray(col, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    _, inv = np.unique(labels, return_inverse=True)
    cnt = np.bincount(inv).astype(np.float64)
    tw = np.bincount(inv, weights=w)
    zero = tw <= 0
    if how == "mean":
        m = np.bincount(inv, weights=w * col) / np.where(zero, 1.0, tw)
        m[zero] = (np.bincount(inv, weights=col) / cnt)[zero]
        return m[inv]
    ww = np.where(zero[inv], 1.0, w)  # zero-weight groups: unweighted median
    tw = np.bincount(inv, weights=ww)
    order = np.lexsort((col, inv))
    g, v, ws = inv[order], col[order], ww[order]
    cum = np.cumsum(ws)
    start = np.concatenate([[0.0], np.cumsum(tw)[:-1]])
    share = (cum - start[g]) / tw[g]
    tol = 1e-12
    reach = share >= 0.5 - tol
    first = np.flatnonzero(reach & np.concatenate([[True], (g[1:] != g[:-1]) | ~reach[:-1]]))
    first = first[np.concatenate([[True], g[first[1:]] != g[first[:-1]]])]
    med = v[first].copy()
    exact = np.abs(share[first] - 0.5) <= tol
    nxt = np.minimum(first + 1, len(v) - 1)
    same = exact & (g[nxt] == g[first]) & (nxt != first)
    med[same] = (v[first][same] + v[nxt][same]) / 2.0
    return med[inv]
