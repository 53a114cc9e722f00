"""Non-perturbative recoding: global recoding into intervals, grouping categories, top/bottom coding,
rounding.

Each treatment is a pure kernel on a Series (usable without a session) plus a frozen
:class:`~sdcsession.methods.base.Treatment`: :class:`GlobalRecode` (``"global_recode"``),
:class:`GroupCategories` (``"group_categories"``), :class:`TopBottomCode` (``"top_bottom_code"``),
:class:`RoundValues` (``"round_values"``).

This module holds global recoding; grouping categories, top/bottom coding and rounding live in
:mod:`sdcsession.methods.category_grouping`, :mod:`sdcsession.methods.top_bottom_coding` and
:mod:`sdcsession.methods.rounding` and are re-exported here.

Reference: Hundepool et al. (2012), *Statistical Disclosure Control*, Wiley, sec. 3.4 (global
recoding, top and bottom coding, rounding); Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4),
sec. 4.1 (sdcMicro ``globalRecode``, ``groupAndRename``, ``topBotCoding``).

Example
-------
>>> import pandas as pd
>>> global_recode(pd.Series([3, 20, 50]), [0, 15, 30, 120]).tolist()
['(0,15]', '(15,30]', '(30,120]']
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError, TreatmentError
from ..roles import Roles
from ._recode_checks import _col, _numeric
from .base import (
    MAX_LABELS,
    Result,
    Treatment,
    check_bool,
    check_int,
    check_label,
    check_number,
    check_size,
    require_columns,
)
from .category_grouping import GroupCategories, group_categories
from .rounding import RoundValues, round_values
from .top_bottom_coding import TopBottomCode, top_bottom_code

__all__ = [
    "global_recode", "group_categories", "top_bottom_code", "round_values",
    "GlobalRecode", "GroupCategories", "TopBottomCode", "RoundValues",
]

_METHODS = ("equidistant", "quantile")


# ----------------------------------------------------------------------------- validation
def _check_breaks(breaks: Any) -> tuple[float, ...] | None:
    if breaks is None:
        return None
    if isinstance(breaks, (str, bytes)) or not isinstance(breaks, (Sequence, np.ndarray)):
        raise ParameterError(f"breaks: expected an increasing list of numbers, got {breaks!r:.60}")
    check_size("breaks", breaks, MAX_LABELS + 1)
    out = []
    for b in breaks:
        if isinstance(b, float) and math.isnan(b):
            raise ParameterError("breaks: NaN is not a break")
        f = check_number("breaks", b, finite=False)
        out.append(int(b) if f.is_integer() and not math.isinf(f) else f)
    if len(out) < 2:
        raise ParameterError(f"breaks: expected at least 2 breaks (one interval), got {list(out)}")
    bad = [(a, b) for a, b in zip(out, out[1:]) if not b > a]
    if bad:
        raise ParameterError(
            f"breaks: must be strictly increasing; {bad[0][1]!r} follows {bad[0][0]!r} in {out}")
    return tuple(out)


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return str(int(x)) if float(x).is_integer() else f"{x:.10g}"


# ----------------------------------------------------------------------------- global recode
def global_recode(
    series: pd.Series,
    breaks: Sequence[float] | None = None,
    *,
    method: str | None = None,
    n: int | None = None,
    labels: Sequence[str] | None = None,
    right: bool = True,
    include_outside: bool = False,
) -> pd.Series:
    """Recode a numeric variable into interval categories (sdcMicro ``globalRecode``).

    With breaks b_0 < b_1 < ... < b_m, value x falls in interval j when b_(j-1) < x <= b_j
    (``right=True``; labels ``"(b_(j-1),b_j]"``) or b_(j-1) <= x < b_j (``right=False``; labels
    ``"[b_(j-1),b_j)"``). ``method="equidistant"``: ``n`` intervals of equal width between the
    minimum and maximum; ``method="quantile"``: breaks at the ``i/n`` quantiles (duplicates
    dropped); computed breaks include both extremes (first/last interval closed). Values outside
    the breaks raise :class:`TreatmentError` naming them, unless ``include_outside=True`` (the
    outer intervals then extend to -inf / inf). Missing values stay missing.

    Returns an ordered pandas Categorical Series (categories = labels in interval order).

    Example
    -------
    >>> import pandas as pd
    >>> s = pd.Series([0, 15, 16, 44, None])
    >>> global_recode(s, [-1, 15, 30, 45]).tolist()
    ['(-1,15]', '(-1,15]', '(15,30]', '(30,45]', nan]
    >>> global_recode(s, method="equidistant", n=2).cat.categories.tolist()
    ['[0,22]', '(22,44]']
    """
    if not isinstance(series, pd.Series):
        raise TreatmentError(f"global_recode: expected a pandas Series, got {type(series).__name__}")
    x = _numeric(series, "global_recode")
    finite = x[~np.isnan(x)]
    include_lowest = False
    if breaks is None:
        if method not in _METHODS:
            raise ParameterError(f"method: expected one of {list(_METHODS)} (or give breaks), got {method!r}")
        check_int("n", n, 1, MAX_LABELS)
        if len(finite) == 0:
            raise TreatmentError(f"global_recode: column {series.name!r} has no non-missing values")
        lo, hi = float(finite.min()), float(finite.max())
        if lo == hi:
            hi = lo + 1.0
        if method == "equidistant":
            b = np.linspace(lo, hi, int(n) + 1)
        else:
            b = np.unique(np.quantile(finite, np.linspace(0, 1, int(n) + 1)))
            if len(b) < 2:
                b = np.array([lo, hi])
        brks = _check_breaks([float(v) for v in b])
        include_lowest = True
    else:
        if method is not None or n is not None:
            raise ParameterError("give either breaks or method with n, not both")
        brks = _check_breaks(breaks)
    assert brks is not None
    edges = np.array(brks, dtype=float)
    if include_outside:
        edges[0], edges[-1] = -np.inf, np.inf
    m = len(edges) - 1
    if labels is not None:
        labels = list(_check_labels(labels) or ())
        if len(labels) != m:
            raise TreatmentError(
                f"labels: expected {m} labels for {m} intervals, got {len(labels)}")
        if len(set(labels)) != m:
            raise TreatmentError(f"labels: must be distinct, got {labels}")
    else:
        labels = []
        for j in range(m):
            a, b = _fmt(edges[j]), _fmt(edges[j + 1])
            if right:
                left = "[" if (include_lowest and j == 0) else "("
                rb = ")" if math.isinf(edges[j + 1]) else "]"
                labels.append(f"{left}{a},{b}{rb}")
            else:
                rb = "]" if (include_lowest and j == m - 1) else ")"
                left = "(" if math.isinf(edges[j]) else "["
                labels.append(f"{left}{a},{b}{rb}")
    ok = ~np.isnan(x)
    if right:
        code = np.searchsorted(edges, x, side="left") - 1
        if include_lowest:
            code[ok & (x == edges[0])] = 0
    else:
        code = np.searchsorted(edges, x, side="right") - 1
        if include_lowest:
            code[ok & (x == edges[-1])] = m - 1
    outside = ok & ((code < 0) | (code >= m))
    if outside.any():
        vals = np.unique(x[outside])
        shown = ", ".join(_fmt(v) for v in vals[:8]) + (" ..." if len(vals) > 8 else "")
        raise TreatmentError(
            f"global_recode: {int(outside.sum())} value(s) of column {series.name!r} outside the "
            f"breaks [{_fmt(edges[0])}, {_fmt(edges[-1])}] ({'right' if right else 'left'}-closed "
            f"intervals): {shown}; widen the breaks or pass include_outside=True")
    code = np.where(ok, code, -1)
    cat = pd.Categorical.from_codes(code, categories=labels, ordered=True)
    return pd.Series(cat, index=series.index, name=series.name)


def _check_method(v: Any) -> None:
    if v is not None and (not isinstance(v, str) or v not in _METHODS):
        raise ParameterError(f"method: expected one of {list(_METHODS)} or None, got {v!r:.60}")


def _check_labels(v: Any) -> tuple[str, ...] | None:
    """Interval labels: a list of text or number labels (stored as text), checked before use."""
    if v is None:
        return None
    if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, (Sequence, np.ndarray, pd.Index)):
        raise ParameterError(f"labels: expected a list of interval labels, got {v!r:.60}")
    check_size("labels", v)
    return tuple(str(check_label("labels", x, missing=False)) for x in v)


@attrs.frozen
class GlobalRecode(Treatment):
    """Recode a numeric key or numeric variable into interval categories (see :func:`global_recode`).

    The column must be a key or numeric role; a numeric-role column becomes a key variable (its
    values are now categories).

    Example
    -------
    >>> import numpy as np, pandas as pd
    >>> from sdcsession.roles import Roles
    >>> df = pd.DataFrame({"age": [3, 20, 50]})
    >>> r = GlobalRecode("age", breaks=[0, 15, 120]).apply(df, Roles(keys=("age",)), np.random.default_rng(0))
    >>> r.data["age"].tolist(), r.notes["counts"]
    (['(0,15]', '(15,120]', '(15,120]'], {'(0,15]': 1, '(15,120]': 2})
    """

    type = "global_recode"

    column: str = attrs.field(validator=_col)
    breaks: tuple[float, ...] | None = attrs.field(default=None, converter=_check_breaks)
    method: str | None = attrs.field(default=None)
    n: int | None = attrs.field(default=None)
    labels: tuple[str, ...] | None = attrs.field(default=None, converter=_check_labels)
    right: bool = attrs.field(default=True)
    include_outside: bool = attrs.field(default=False)

    def __attrs_post_init__(self) -> None:
        _check_method(self.method)
        if self.breaks is None and self.method is None:
            raise ParameterError("global_recode: give breaks=[...] or method= with n=")
        if self.breaks is not None and (self.method is not None or self.n is not None):
            raise ParameterError("global_recode: give either breaks or method with n, not both")
        if self.method is not None:
            check_int("n", self.n, 1, MAX_LABELS)
        if self.labels is not None and self.breaks is not None and \
                len(self.labels) != len(self.breaks) - 1:
            raise ParameterError(
                f"labels: expected {len(self.breaks) - 1} labels for {len(self.breaks)} breaks, "
                f"got {len(self.labels)}")
        if self.labels is not None and self.method is not None and (
                len(self.labels) > self.n or self.method == "equidistant" and
                len(self.labels) != self.n):
            raise ParameterError(
                f"labels: expected {self.n} labels for n={self.n} intervals, got {len(self.labels)}")
        for name in ("right", "include_outside"):
            check_bool(name, getattr(self, name))

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        require_columns(data, [self.column], "global_recode")
        if self.column not in roles.keys and self.column not in roles.numeric:
            raise TreatmentError(
                f"global_recode: column {self.column!r} is neither a key nor a numeric variable "
                f"(roles: {roles.role_of(self.column) or 'none'})")
        _numeric(data[self.column], "global_recode")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        new = global_recode(data[self.column], self.breaks, method=self.method, n=self.n,
                            labels=self.labels, right=self.right,
                            include_outside=self.include_outside)
        new_roles = None
        if self.column in roles.numeric:
            new_roles = attrs.evolve(
                roles, numeric=tuple(c for c in roles.numeric if c != self.column),
                keys=(*roles.keys, self.column) if self.column not in roles.keys else roles.keys)
        counts = new.value_counts(sort=False)
        notes = {"column": self.column, "categories": [str(c) for c in new.cat.categories],
                 "counts": {str(k): int(v) for k, v in counts.items()},
                 "missing": int(new.isna().sum())}
        return Result(data.assign(**{self.column: new}), roles=new_roles, notes=notes)
