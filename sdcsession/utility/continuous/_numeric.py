"""Helpers of the continuous measures: numeric column selection, checked standard deviations,
complete records of a numeric matrix, and matrices shared by the measures of one comparison.

`reuse_matrices` opens a block within which `shared_matrix` builds the numeric matrix of one frame
and columns once: the measures of a comparison (IL1s, eigen, γ of one state) read the same
read-only array, and the checked standard deviations of a shared matrix are computed once
(`_sd_missing`). At most `REUSE_MAX` matrices are kept, and only until the block ends.

Example
-------
>>> import numpy as np, pandas as pd
>>> _complete(np.array([[1.0, 2.0], [np.nan, 3.0], [4.0, 5.0]])).tolist()
[[1.0, 2.0], [4.0, 5.0]]
>>> df = pd.DataFrame({"x": [1.0, 2.0]})
>>> with reuse_matrices():
...     shared_matrix(df, ["x"], "demo", "original") is shared_matrix(df, ["x"], "demo", "original")
True
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Hashable, Iterator, Sequence
from contextvars import ContextVar

import numpy as np
import pandas as pd

from ...errors import MeasureError
from .._align import check_frames, is_numeric_column, numeric_matrix, resolve_columns

#: the matrices of the open `reuse_matrices` block: (id(frame), columns) -> (frame, matrix, memo)
_REUSE: ContextVar[OrderedDict | None] = ContextVar("sdcsession_reuse_matrices", default=None)
#: matrices kept in a block: the original's and the current state's (and one spare)
REUSE_MAX = 3


@contextlib.contextmanager
def reuse_matrices() -> Iterator[None]:
    """A block within which `shared_matrix` of the same frame object and columns returns one
    read-only matrix (the last `REUSE_MAX` kept; all dropped when the block ends). The frames
    must not change within the block. A block inside another one is the outer block."""
    if _REUSE.get() is not None:
        yield
        return
    token = _REUSE.set(OrderedDict())
    try:
        yield
    finally:
        _REUSE.reset(token)


def shared_matrix(df: pd.DataFrame, columns: Sequence[Hashable], measure: str, which: str
                  ) -> np.ndarray:
    """`numeric_matrix` of ``df``; within `reuse_matrices`, built once per frame and columns
    (read-only). A MeasureError is raised again on every call (never kept). Missing values: NaN,
    as `numeric_matrix` writes them."""
    memo = _REUSE.get()
    if memo is None:
        return numeric_matrix(df, columns, measure, which)
    key = (id(df), tuple(columns))
    hit = memo.get(key)
    if hit is not None and hit[0] is df:  # the entry holds the frame: its id is not reused
        memo.move_to_end(key)
        return hit[1]
    x = numeric_matrix(df, columns, measure, which)
    x.flags.writeable = False
    memo[key] = (df, x, {})
    while len(memo) > REUSE_MAX:
        memo.popitem(last=False)
    return x


def _derived(x: np.ndarray) -> dict | None:
    """The dict of values derived from ``x`` when ``x`` is a matrix of the open block."""
    memo = _REUSE.get()
    if memo:
        for _, m, derived in memo.values():
            if m is x:
                return derived
    return None


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
    return _sd_missing(x, cols, measure, which)[0]


def _sd_missing(x: np.ndarray, cols: Sequence[Hashable], measure: str, which: str
                ) -> tuple[np.ndarray, bool]:
    """The checked standard deviations of the columns of ``x`` (see `_sd_checked`) and whether
    ``x`` holds a missing value; computed once for a shared matrix (`shared_matrix`)."""
    derived = _derived(x)
    if derived is None:
        return _sd_missing_of(x, cols, measure, which)
    if "sd" not in derived:
        sd, missing = _sd_missing_of(x, cols, measure, which)  # an error is not kept
        sd.flags.writeable = False
        derived["sd"] = sd, missing
    return derived["sd"]


def _sd_missing_of(x: np.ndarray, cols: Sequence[Hashable], measure: str, which: str
                   ) -> tuple[np.ndarray, bool]:
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
    return sd, bool(nan_cols)


def _complete(x: np.ndarray) -> np.ndarray:
    bad = None
    for j in range(x.shape[1]):
        nj = np.isnan(x[:, j])
        if nj.any():
            bad = nj if bad is None else bad | nj
    return x if bad is None else np.asfortranarray(x[~bad])
