"""Helpers of the continuous measures: numeric column selection, checked standard deviations and
complete records of a numeric matrix.

Example
-------
>>> import numpy as np
>>> _complete(np.array([[1.0, 2.0], [np.nan, 3.0], [4.0, 5.0]])).tolist()
[[1.0, 2.0], [4.0, 5.0]]
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from ...errors import MeasureError
from .._align import check_frames, is_numeric_column, resolve_columns


def _numeric_cols(original, masked, columns, measure, min_columns=1):
    check_frames(original, masked, measure)
    if columns is None:
        cols = [c for c in original.columns
                if c in masked.columns and is_numeric_column(original[c])]
        if len(cols) < min_columns:
            raise MeasureError(
                f"{measure}: needs at least {min_columns} common numeric column(s); give columns"
            )
        return cols
    return resolve_columns(original, masked, columns, measure, min_columns=min_columns)


def _sd_checked(x: np.ndarray, cols: Sequence[Hashable], measure: str, which: str) -> np.ndarray:
    nan_cols = [j for j in range(x.shape[1]) if np.isnan(x[:, j]).any()]
    if nan_cols:
        counts = np.array([(~np.isnan(x[:, j])).sum() for j in range(x.shape[1])])
        few = [c for c, k in zip(cols, counts) if k < 2]
        if few:
            raise MeasureError(
                f"{measure}: fewer than two observed values in the {which} file: {few}")
        sd = np.array([np.nanstd(x[:, j], ddof=1) for j in range(x.shape[1])])
    else:
        if x.shape[0] < 2:
            raise MeasureError(f"{measure}: fewer than two records in the {which} file")
        sd = np.array([x[:, j].std(ddof=1) for j in range(x.shape[1])])
    zero = [c for c, s in zip(cols, sd) if not s > 0]
    if zero:
        raise MeasureError(
            f"{measure}: zero standard deviation in the {which} file for {zero}; the scaled "
            "distance is undefined (drop constant variables)"
        )
    return sd


def _complete(x: np.ndarray) -> np.ndarray:
    bad = None
    for j in range(x.shape[1]):
        nj = np.isnan(x[:, j])
        if nj.any():
            bad = nj if bad is None else bad | nj
    return x if bad is None else np.asfortranarray(x[~bad])
