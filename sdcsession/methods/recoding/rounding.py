"""Rounding of numeric variables to decimals or to multiples of a base: the kernel
`round_values` and the treatment `RoundValues` (``"round_values"``).

Reference: Hundepool et al. (2012), *Statistical Disclosure Control*, Wiley, sec. 3.4.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError, TreatmentError
from ...roles import Roles
from ..base import Result, Treatment, check_int, check_number, param_names, require_columns
from ._checks import _numeric

__all__ = ["round_values", "RoundValues", "MAX_DIGITS"]


def round_values(series: pd.Series, *, digits: int | None = None,
                 base: float | None = None) -> pd.Series:
    """Round a numeric variable to ``digits`` decimals (negative: tens, hundreds...) or to the
    nearest multiple of ``base`` (``base * round(x / base)``; halves to even, as R's ``round``).

    Example
    -------
    >>> import pandas as pd
    >>> round_values(pd.Series([1234.5, 987.0]), base=100).tolist()
    [1200.0, 1000.0]
    >>> round_values(pd.Series([1.26, 3.14159]), digits=1).tolist()
    [1.3, 3.1]
    """
    _check_round(digits, base)
    x = _numeric(series, "round_values")
    with np.errstate(over="ignore", invalid="ignore"):
        if digits is not None:
            y = np.round(x, int(digits))
            # |x| >= 2**52 has no decimals: keep it (x * 10**digits could overflow)
            y = np.where(np.abs(x) >= 2.0**52, x if digits >= 0 else y, y)
        else:
            y = np.round(x / float(base)) * float(base)
    bad = np.isfinite(x) & ~np.isfinite(y)
    if bad.any():
        raise TreatmentError(
            f"round_values: rounding column {series.name!r} to "
            f"{'digits=' + str(digits) if digits is not None else 'base=' + repr(base)} overflows "
            f"for {int(bad.sum())} value(s) (e.g. {x[bad][0]!r}); choose a coarser rounding")
    out = pd.Series(y, index=series.index, name=series.name)
    if pd.api.types.is_integer_dtype(series) and (
            (digits is not None and digits >= 0) or (base is not None and float(base).is_integer())):
        out = out.astype(series.dtype)
    return out


#: float64 holds about 15 significant decimal digits: rounding beyond them changes nothing
MAX_DIGITS = 15


def _check_round(digits: Any, base: Any) -> None:
    if (digits is None) == (base is None):
        raise ParameterError("round_values: give exactly one of digits= or base=")
    if digits is not None:
        check_int("digits", digits, -MAX_DIGITS, MAX_DIGITS)
    if base is not None:
        check_number("base", base, 0, lo_open=True)


@attrs.frozen
class RoundValues(Treatment):
    """Round numeric variables to ``digits`` decimals or to multiples of ``base``.

    Example
    -------
    >>> RoundValues(["income"], base=1000).to_dict()
    {'type': 'round_values', 'columns': ['income'], 'digits': None, 'base': 1000}
    """

    type = "round_values"

    columns: tuple[str, ...] = attrs.field(converter=lambda v: _round_cols(v))
    digits: int | None = attrs.field(default=None)
    base: float | None = attrs.field(default=None)

    def __attrs_post_init__(self) -> None:
        _check_round(self.digits, self.base)

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        require_columns(data, self.columns, "round_values")
        bad = [c for c in self.columns if c not in roles.numeric]
        if bad:
            raise TreatmentError(f"round_values: column(s) {bad} are not numeric variables (role)")
        for c in self.columns:
            _numeric(data[c], "round_values")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        new = {c: round_values(data[c], digits=self.digits, base=self.base) for c in self.columns}
        changed = {c: int((data[c].to_numpy(dtype=float, na_value=np.nan)
                           != new[c].to_numpy(dtype=float, na_value=np.nan)).sum()
                          - (data[c].isna() & new[c].isna()).sum()) for c in self.columns}
        return Result(data.assign(**new), notes={"changed": changed})


def _round_cols(v: Any) -> tuple[str, ...]:
    if v is not None and not isinstance(v, (str, list, tuple)):
        raise ParameterError(f"columns: expected one or more column names, got {v!r:.60}")
    return param_names(v, "columns", required=True)
