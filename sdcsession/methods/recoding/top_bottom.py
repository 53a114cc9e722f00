"""Top and bottom coding of a numeric or ordered categorical variable (sdcMicro ``topBotCoding``):
the kernel `top_bottom_code` and the treatment `TopBottomCode` (``"top_bottom_code"``).

Reference: Hundepool et al. (2012), *Statistical Disclosure Control*, Wiley, sec. 3.4.
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError, TreatmentError
from ...roles import Roles
from ..base import (
    Result,
    Treatment,
    canonical,
    check_choice,
    check_number,
    is_missing,
    require_columns,
    typed_freeze,
)
from ._checks import _col, _numeric

__all__ = ["top_bottom_code", "TopBottomCode"]


def _scalar(v: Any, what: str, *, missing_ok: bool) -> Any:
    """A threshold or replacement: one scalar (number, text, boolean; or missing if allowed)."""
    v = canonical(v)
    if is_missing(v):
        if not missing_ok:
            raise ParameterError(f"{what}: expected the top/bottom coding threshold, got a missing "
                                 "value")
        return v
    if not isinstance(v, (str, int, float)):
        raise ParameterError(f"{what}: expected a single number or category, got {type(v).__name__} "
                             f"{v!r}")
    return v


def top_bottom_code(series: pd.Series, value: Any, replacement: Any = None, *,
                    kind: str = "top") -> pd.Series:
    """Top code (values above ``value``) or bottom code (values below) with ``replacement``.

    Numeric: ``x > value`` (top) or ``x < value`` (bottom) become ``replacement`` (default, when
    ``None``: ``value``). A missing replacement (NaN, ``pd.NA``, ``pd.NaT``) makes those values
    missing: the column becomes float64 with NaN, or keeps its dtype with ``pd.NA`` when it is a
    nullable (``Int64``, ``Float64``) column. Ordered categorical: the categories after (before)
    ``value`` in the order are merged into ``replacement`` (default ``value``), placed at the end
    (start); a missing replacement makes them missing and drops those categories. Unordered
    categorical or text columns raise `TreatmentError`.

    Example
    -------
    >>> import numpy as np, pandas as pd
    >>> top_bottom_code(pd.Series([1.0, 5.0, 9.0]), 6, kind="top").tolist()
    [1.0, 5.0, 6.0]
    >>> top_bottom_code(pd.Series([1, 5, 9]), 3, 0, kind="bottom").tolist()
    [0, 5, 9]
    >>> top_bottom_code(pd.Series([1, 5, 9]), 6, np.nan).tolist()
    [1.0, 5.0, nan]
    """
    if kind not in ("top", "bottom"):
        raise ParameterError(f"kind: expected 'top' or 'bottom', got {kind!r}")
    if not isinstance(series, pd.Series):
        raise TreatmentError(f"top_bottom_code: expected a pandas Series, got {type(series).__name__}")
    value = _scalar(value, "value", missing_ok=False)
    rep = value if replacement is None else _scalar(replacement, "replacement", missing_ok=True)
    blank = is_missing(rep)
    if isinstance(series.dtype, pd.CategoricalDtype):
        if not series.cat.ordered:
            raise TreatmentError(
                f"top_bottom_code: column {series.name!r} is an unordered categorical; top/bottom "
                "coding needs a numeric or ordered variable (use group_categories)")
        cats = list(series.cat.categories)
        if value not in cats:
            raise TreatmentError(f"top_bottom_code: {value!r} is not a category of {series.name!r}: {cats}")
        i = cats.index(value)
        affected = cats[i + 1:] if kind == "top" else cats[:i]
        if blank:
            new_cats = cats[:i + 1] if kind == "top" else cats[i:]
        elif kind == "top":
            keep = [c for c in cats[:i + 1] if c != rep]
            new_cats = keep + [rep] if rep not in keep else keep
        else:
            keep = [c for c in cats[i:] if c != rep]
            new_cats = [rep] + keep
        mapping = {c: rep for c in affected}
        vals = series.astype(object).map(lambda v: mapping.get(v, v))
        cat = pd.Categorical(vals, categories=new_cats, ordered=True)  # not a category: missing
        return pd.Series(cat, index=series.index, name=series.name)
    x = _numeric(series, "top_bottom_code")
    try:
        v = float(value)
        r = math.nan if blank else float(rep)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(
            f"top_bottom_code: value and replacement must be numbers for numeric column "
            f"{series.name!r}, got {value!r}, {rep!r}") from None
    hit = (x > v) if kind == "top" else (x < v)
    if not hit.any():
        return series.copy()
    out = series.copy()
    nullable = isinstance(series.dtype, pd.api.extensions.ExtensionDtype)
    if blank and nullable:
        out[hit] = pd.NA
    elif not blank and pd.api.types.is_integer_dtype(series) and float(r).is_integer():
        out[hit] = int(r)
    else:
        out = out.astype("Float64" if nullable else "float64")
        out[hit] = r
    return out


def _check_threshold(name: str, v: Any) -> None:
    """A threshold or replacement: a finite number, or a category label of an ordered column."""
    if isinstance(v, (str, np.str_)):
        return
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ParameterError(f"{name}: expected a number (or a category of an ordered variable), "
                             f"got {type(v).__name__} {v!r:.60}")
    check_number(name, v)


@attrs.frozen
class TopBottomCode(Treatment):
    """Top or bottom coding of a numeric (or ordered categorical) variable (see `top_bottom_code`).

    ``replacement=None`` replaces by the threshold ``value`` itself; a missing replacement
    (``np.nan``, ``pd.NA``) blanks the values. Each is kept as given, also through a recipe.

    Example
    -------
    >>> TopBottomCode("income", 1e6, kind="top").to_dict()["kind"]
    'top'
    >>> import numpy as np
    >>> TopBottomCode("income", 1e6, np.nan).to_dict()["replacement"]
    {'$missing': 'nan'}
    """

    type = "top_bottom_code"

    column: str = attrs.field(validator=_col)
    value: Any = attrs.field(converter=lambda v: _scalar(v, "value", missing_ok=False),
                             eq=typed_freeze)
    replacement: Any = attrs.field(
        default=None, converter=lambda v: _scalar(v, "replacement", missing_ok=True),
        eq=typed_freeze)
    kind: str = attrs.field(default="top")

    @kind.validator
    def _k(self, _a: Any, v: Any) -> None:
        check_choice("kind", v, ("top", "bottom"))

    @value.validator
    def _v(self, _a: Any, v: Any) -> None:
        if v is None or is_missing(v):
            raise ParameterError("value: expected the top/bottom coding threshold, got a missing value")
        _check_threshold("value", v)

    @replacement.validator
    def _r(self, _a: Any, v: Any) -> None:
        if v is not None and not is_missing(v):
            _check_threshold("replacement", v)

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        require_columns(data, [self.column], "top_bottom_code")
        if self.column not in roles.keys and self.column not in roles.numeric:
            raise TreatmentError(
                f"top_bottom_code: column {self.column!r} is neither a key nor a numeric variable")
        s = data[self.column]
        if isinstance(s.dtype, pd.CategoricalDtype):
            if not s.cat.ordered:
                raise TreatmentError(
                    f"top_bottom_code: column {self.column!r} is an unordered categorical; "
                    "top/bottom coding needs a numeric or ordered variable")
        elif not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            raise TreatmentError(
                f"top_bottom_code: column {self.column!r} is categorical (dtype {s.dtype}); "
                "top/bottom coding needs a numeric or ordered variable")
        else:
            text = [f"{n}={v!r:.40}" for n, v in (("value", self.value),
                                                  ("replacement", self.replacement))
                    if isinstance(v, (str, np.str_))]
            if text:
                raise TreatmentError(
                    f"top_bottom_code: {', '.join(text)} is text but column {self.column!r} is "
                    "numeric; give numbers (numbers given as text are not converted)")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        old = data[self.column]
        new = top_bottom_code(old, self.value, self.replacement, kind=self.kind)
        changed = int((old.astype(object) != new.astype(object)).sum() - (
            old.isna() & new.isna()).sum())
        return Result(data.assign(**{self.column: new}),
                      notes={"column": self.column, "changed": changed, "kind": self.kind})
