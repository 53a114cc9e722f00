"""Which numeric-role variables the session's numeric measures use.

A numeric variable takes part when it is a number (not boolean) in both the original and the
current data: a variable recoded into intervals has left the numeric measures (it is measured as
categorical). The multivariate measures (eigenvalues, correlations, γ, dRisk, record linkage,
RMD) also need at least two observed values of it in each file: a variable that is (almost)
entirely missing carries no information about the others and is left out of them.

Example
-------
>>> import numpy as np, pandas as pd
>>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0], "e": [np.nan] * 3, "c": ["a", "b", "c"]})
>>> numeric_columns(o, o, ["x", "e", "c"]), numeric_columns(o, o, ["x", "e"], observed=True)
(['x', 'e'], ['x'])
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ..per_original import columns_equal, slot

__all__ = ["numeric_columns"]


def _number(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)


def numeric_columns(original: pd.DataFrame, current: pd.DataFrame, cols: Iterable[str], *,
                    observed: bool = False) -> list[str]:
    """The columns of ``cols`` present and numeric in both frames; with ``observed`` only those
    with at least two non-missing values in each frame.

    Example
    -------
    >>> numeric_columns(pd.DataFrame({"a": [1]}), pd.DataFrame({"a": ["1"]}), ["a"])
    []
    """
    out = [c for c in cols if c in original.columns and c in current.columns
           and _number(original[c]) and _number(current[c])]
    if observed:
        out = [c for c in out if _observed(original, original, c) >= 2
               and _observed(original, current, c) >= 2]
    return out


def _observed(original: pd.DataFrame, frame: pd.DataFrame, c: str) -> int:
    """The number of observed values of column ``c`` of ``frame``: the original's counted once
    per original (kept with it), shared by a frame whose column is the original's."""
    memo = slot(original, "observed")
    if c not in memo:
        memo[c] = int(original[c].notna().sum())
    if frame is original or columns_equal(frame[c], original[c]):
        return memo[c]
    return int(frame[c].notna().sum())
