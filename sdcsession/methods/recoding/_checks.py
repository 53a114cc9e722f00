"""Checks shared by the recoding treatments: a column-name validator and numeric columns."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...errors import ParameterError, TreatmentError


def _numeric(s: pd.Series, what: str) -> np.ndarray:
    if isinstance(s.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(s) or \
            pd.api.types.is_bool_dtype(s):
        raise TreatmentError(
            f"{what}: column {s.name!r} must be numeric, has dtype {s.dtype}")
    return s.to_numpy(dtype="float64", na_value=np.nan)


def _col(_self: Any, a: Any, v: Any) -> None:
    if not isinstance(v, str) or not v:
        raise ParameterError(f"{a.name}: expected a column name, got {v!r:.60}")
