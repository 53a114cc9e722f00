"""Non-perturbative recoding: global recoding into intervals, grouping categories, top/bottom coding,
rounding.

Each treatment is a pure kernel on a Series (usable without a session) plus a frozen
`Treatment`: `GlobalRecode` (``"global_recode"``),
`GroupCategories` (``"group_categories"``), `TopBottomCode` (``"top_bottom_code"``),
`RoundValues` (``"round_values"``).

This module holds global recoding; grouping categories, top/bottom coding and rounding live in
`sdcsession.methods.recoding.grouping`, `sdcsession.methods.recoding.top_bottom` and
`sdcsession.methods.recoding.rounding` and are re-exported here.

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

from ...errors import ParameterError, TreatmentError
from ...roles import Roles
from ..base import (
    MAX_LABELS,
    Result,
    Treatment,
    check_label,
    check_number,
    check_size,
    require_columns,
)
from ._checks import _col, _numeric
from .grouping import GroupCategories, group_categories
from .intervals import method_breaks
from .rounding import RoundValues, round_values
from .top_bottom import TopBottomCode, top_bottom_code

__all__ = [
    "global_recode", "interval_breaks", "MAX_INTERVALS", "group_categories", "top_bottom_code", "round_values",
    "GlobalRecode", "GroupCategories", "TopBottomCode", "RoundValues",
]

_METHODS = ("equidistant", "quantile", "log_equidistant")
#: most intervals a global recode may ask for (``breaks=<int>`` or ``n``): a key variable with more
#: categories than this is no recode, and asking for 10**9 would allocate gigabytes first
MAX_INTERVALS = 10_000


# ----------------------------------------------------------------------------- validation
def _check_count(v: Any, what: str) -> int:
    """A number of intervals: an integer in 1..MAX_INTERVALS (not a bool, not a float)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise ParameterError(f"{what}: expected a whole number of intervals (an int >= 1), got "
                             f"{type(v).__name__} {v!r}")
    if not 1 <= v <= MAX_INTERVALS:
        raise ParameterError(f"{what}: expected a number of intervals from 1 to {MAX_INTERVALS}, "
                             f"got {int(v)}")
    return int(v)


def _check_breaks(breaks: Any) -> tuple[float, ...] | int | None:
    if breaks is None:
        return None
    if isinstance(breaks, (bool, np.bool_, int, np.integer, float, np.floating)):
        if isinstance(breaks, (float, np.floating)):
            raise ParameterError(
                f"breaks: a number of intervals must be an int, got the float {breaks!r}; give a "
                "list for cut points")
        return _check_count(breaks, "breaks")
    if isinstance(breaks, (str, bytes)) or not isinstance(breaks, (Sequence, np.ndarray)):
        raise ParameterError(f"breaks: expected a number of intervals or an increasing list of "
                             f"numbers, got {breaks!r:.60}")
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


def _r_labels(edges: np.ndarray, right: bool, include_lowest: bool, dig_lab: int = 8) -> list[str]:
    """Interval labels as R's ``cut(..., dig.lab=dig_lab)`` writes them (sdcMicro uses 8): the
    breaks in C ``%.<d>g`` for the first d from dig_lab to 12 that tells neighbours apart (else
    ``Range_1, ...``), ``(a,b]`` (``[a,b)`` when not right-closed), include.lowest closing the
    first (last) interval."""
    ch: list[str] = []
    for dig in range(dig_lab, max(12, dig_lab) + 1):
        ch = [format(0.0 + float(b), f".{dig}g") for b in edges]  # 0 + b: no "-0", as R
        if all(p != q for p, q in zip(ch[:-1], ch[1:])):
            break
    else:
        return [f"Range_{i}" for i in range(1, len(edges))]
    lab = [f"({p},{q}]" if right else f"[{p},{q})" for p, q in zip(ch[:-1], ch[1:])]
    if include_lowest:
        if right:
            lab[0] = "[" + lab[0][1:]
        else:
            lab[-1] = lab[-1][:-1] + "]"
    return lab


def _sdcmicro_breaks(finite: np.ndarray, b: int, name: Any) -> tuple[np.ndarray, bool]:
    """sdcMicro 5.8.1 ``globalRecode(x, breaks=b)`` (method "equidistant"): the cut points and
    whether the lowest one is included (R ``include.lowest``)."""
    if len(finite) == 0:
        raise TreatmentError(f"global_recode: column {name!r} has no non-missing values")
    if not np.isfinite(finite).all():
        raise TreatmentError(f"global_recode: column {name!r} has infinite values; breaks={b} "
                             "needs a finite range")
    lo, hi = float(finite.min()), float(finite.max())
    if b == 1:
        return np.array([lo - 1.0, hi + 1.0]), False
    edges = np.linspace(lo - 1.0, hi + 1.0, b + 1)  # R: seq(min-1, max+1, length.out=b+1)
    rounded = np.round(edges)  # half to even, as R's round()
    if len(np.unique(rounded)) == len(rounded):
        edges = rounded
    if not (np.diff(edges) > 0).all():
        raise TreatmentError(
            f"global_recode: the range of column {name!r} ({_fmt(lo)} to {_fmt(hi)}) is too narrow "
            f"for its magnitude to be cut into {b} intervals")
    return edges, True


def _resolve(x: np.ndarray, breaks: Any, method: str | None, n: int | None,
             name: Any) -> tuple[np.ndarray, bool, bool]:
    """Cut points, include_lowest and whether labels follow R's ``cut`` (``breaks=<int>``)."""
    finite = x[~np.isnan(x)]
    if breaks is None:
        if method not in _METHODS:
            raise ParameterError(f"method: expected one of {list(_METHODS)} (or give breaks), got {method!r}")
        n = _check_count(n, "n")
        if len(finite) == 0:
            raise TreatmentError(f"global_recode: column {name!r} has no non-missing values")
        if method != "equidistant":  # sdcMicro's equalAmount / logEqui intervals
            edges, lowest = method_breaks(finite, n, method, name)
            return edges, lowest, True
        lo, hi = float(finite.min()), float(finite.max())
        if lo == hi:
            hi = lo + 1.0
        b = np.linspace(lo, hi, int(n) + 1)
        brks = _check_breaks([float(v) for v in b])
        return np.array(brks, dtype=float), True, False
    if method is not None or n is not None:
        raise ParameterError("give either breaks or method with n, not both")
    brks = _check_breaks(breaks)
    if isinstance(brks, int):
        edges, lowest = _sdcmicro_breaks(finite, brks, name)
        return edges, lowest, True
    assert brks is not None
    return np.array(brks, dtype=float), False, False


# ----------------------------------------------------------------------------- global recode
def interval_breaks(series: pd.Series, breaks: Sequence[float] | int | None = None, *,
                    method: str | None = None, n: int | None = None) -> list[float]:
    """The cut points `global_recode` uses for these arguments (as floats).

    With ``breaks=<int>`` b these are sdcMicro's (5.8.1) ``globalRecode(x, breaks=b)``: b + 1
    equally spaced points from min(x) - 1 to max(x) + 1, rounded to whole numbers (half to even, as
    R's ``round``) unless rounding would make two of them equal; for b = 1 the two points
    min(x) - 1 and max(x) + 1. Missing values are ignored.

    Example
    -------
    >>> import pandas as pd
    >>> interval_breaks(pd.Series(range(1, 11)), 3)
    [0.0, 4.0, 7.0, 11.0]
    """
    if not isinstance(series, pd.Series):
        raise TreatmentError(f"global_recode: expected a pandas Series, got {type(series).__name__}")
    x = _numeric(series, "global_recode")
    return [float(v) for v in _resolve(x, breaks, method, n, series.name)[0]]


def interval_codes(x: np.ndarray, edges: Any, right: bool, include_lowest: bool = False
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The interval of every value of ``x`` among the cut points ``edges`` (0 .. m − 1;
    right-closed with ``right``, the first (or last) interval closed on its other end too with
    ``include_lowest``; a NaN gets a meaningless code) and the mask of the present values outside
    every interval.

    >>> interval_codes(np.array([0.0, 1.0, 5.0, np.nan]), np.array([0.0, 2.0, 4.0]), True)
    (array([-1,  0,  2,  2]), array([ True, False,  True, False]))
    """
    edges = np.asarray(edges, dtype=np.float64)
    m = len(edges) - 1
    ok = ~np.isnan(x)
    if right:
        code = np.searchsorted(edges, x, side="left") - 1
        if include_lowest:
            code[ok & (x == edges[0])] = 0
    else:
        code = np.searchsorted(edges, x, side="right") - 1
        if include_lowest:
            code[ok & (x == edges[-1])] = m - 1
    return code, ok & ((code < 0) | (code >= m))


def outside_error(column: Any, count: int, values: np.ndarray, edges: Any, right: bool
                  ) -> TreatmentError:
    """The `TreatmentError` of `global_recode` for ``count`` values of ``column`` outside the
    cut points ``edges`` (``values``: the distinct ones, sorted; the first 8 are shown)."""
    shown = ", ".join(_fmt(v) for v in values[:8]) + (" ..." if len(values) > 8 else "")
    return TreatmentError(
        f"global_recode: {count} value(s) of column {column!r} outside the "
        f"breaks [{_fmt(edges[0])}, {_fmt(edges[-1])}] ({'right' if right else 'left'}-closed "
        f"intervals): {shown}; widen the breaks or pass include_outside=True")


def global_recode(
    series: pd.Series,
    breaks: Sequence[float] | int | None = None,
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
    ``"[b_(j-1),b_j)"``). Values outside the breaks raise `TreatmentError` naming them,
    unless ``include_outside=True`` (the outer intervals then extend to -inf / inf). Missing values
    stay missing.

    ``breaks=<int>`` b: b intervals exactly as sdcMicro 5.8.1's ``globalRecode(x, breaks=b)``
    (see `interval_breaks`: equally wide between min - 1 and max + 1, cut points rounded to whole
    numbers when they stay distinct), the first interval closed (R ``include.lowest``; not for
    b = 1), labels as R's ``cut(dig.lab=8)`` writes them. For x = 1, ..., 10 and b = 3:
    ``[0,4]``, ``(4,7]``, ``(7,11]`` with counts 4, 3, 3. (Older sdcMicro versions passed b to R's
    ``cut``, whose limits are min - range/1000 and max + range/1000; sdcMicro 5.8.1 does not.)

    ``method="equidistant"`` with ``n``: n intervals of equal width from the minimum to the
    maximum, both extremes included (first interval closed). ``method="quantile"`` (sdcMicro's
    ``equalAmount``): breaks at the ``i/n`` quantiles of R's default definition (duplicates
    dropped); ``method="log_equidistant"`` (sdcMicro's ``logEqui``): n intervals of equal width
    in log(x), widened by one log unit on each side, rounded to whole numbers when they stay
    distinct (values <= 0 are a `TreatmentError`). These two cut and label exactly as sdcMicro
    5.8.1's ``globalRecode(x, breaks=n, method=...)`` (see `sdcsession.methods.recoding.intervals`).

    Returns an ordered pandas Categorical Series (categories = labels in interval order, empty
    intervals kept).

    Example
    -------
    >>> import pandas as pd
    >>> s = pd.Series([0, 15, 16, 44, None])
    >>> global_recode(s, [-1, 15, 30, 45]).tolist()
    ['(-1,15]', '(-1,15]', '(15,30]', '(30,45]', nan]
    >>> global_recode(s, method="equidistant", n=2).cat.categories.tolist()
    ['[0,22]', '(22,44]']
    >>> global_recode(pd.Series(range(1, 11)), 3).value_counts(sort=False).to_dict()
    {'[0,4]': 4, '(4,7]': 3, '(7,11]': 3}
    """
    if not isinstance(series, pd.Series):
        raise TreatmentError(f"global_recode: expected a pandas Series, got {type(series).__name__}")
    x = _numeric(series, "global_recode")
    edges, include_lowest, r_style = _resolve(x, breaks, method, n, series.name)
    if include_outside:
        if r_style:
            raise ParameterError("include_outside: computed intervals (breaks=<number of "
                                 "intervals>, method='quantile' or 'log_equidistant') cover "
                                 "every value already; give cut points to use include_outside")
        edges[0], edges[-1] = -np.inf, np.inf
    m = len(edges) - 1
    if labels is not None:
        labels = list(_check_labels(labels) or ())
        if len(labels) != m:
            raise TreatmentError(
                f"labels: expected {m} labels for {m} intervals, got {len(labels)}")
        if len(set(labels)) != m:
            raise TreatmentError(f"labels: must be distinct, got {labels}")
    elif r_style:
        labels = _r_labels(edges, right, include_lowest)
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
    code, outside = interval_codes(x, edges, right, include_lowest)
    if outside.any():
        raise outside_error(series.name, int(outside.sum()), np.unique(x[outside]), edges, right)
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
    """Recode a numeric key or numeric variable into interval categories (see `global_recode`).

    The column must be a key or numeric role; a numeric-role column becomes a key variable (its
    values are now categories). ``breaks`` is a list of cut points or, as in sdcMicro, a number of
    intervals (``breaks=5``; see `global_recode`); a bool, a float or a count below 1 is a
    `ParameterError`. The notes give the cut points used (``"breaks"``) and the counts.

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
    breaks: tuple[float, ...] | int | None = attrs.field(default=None, converter=_check_breaks)
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
            _check_count(self.n, "n")
            if self.include_outside and self.method != "equidistant":
                raise ParameterError(f"include_outside: method={self.method!r} computes "
                                     "intervals that cover every value already")
        for name in ("right", "include_outside"):
            if not isinstance(getattr(self, name), bool):
                raise ParameterError(f"{name}: expected True or False, got {getattr(self, name)!r}")
        if isinstance(self.breaks, int):
            if self.labels is not None and len(self.labels) != self.breaks:
                raise ParameterError(f"labels: expected {self.breaks} labels for breaks="
                                     f"{self.breaks} intervals, got {len(self.labels)}")
            if self.include_outside:
                raise ParameterError("include_outside: breaks=<number of intervals> covers every "
                                     "value already; give cut points to use include_outside")
        elif self.labels is not None and self.breaks is not None and \
                len(self.labels) != len(self.breaks) - 1:
            raise ParameterError(
                f"labels: expected {len(self.breaks) - 1} labels for {len(self.breaks)} breaks, "
                f"got {len(self.labels)}")
        if self.labels is not None and self.method is not None and (
                len(self.labels) > self.n or self.method != "quantile" and
                len(self.labels) != self.n):
            raise ParameterError(
                f"labels: expected {self.n} labels for n={self.n} intervals, got {len(self.labels)}")

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
        cuts = interval_breaks(data[self.column], self.breaks, method=self.method, n=self.n)
        new_roles = None
        if self.column in roles.numeric:
            new_roles = attrs.evolve(
                roles, numeric=tuple(c for c in roles.numeric if c != self.column),
                keys=(*roles.keys, self.column) if self.column not in roles.keys else roles.keys)
        counts = new.value_counts(sort=False)
        notes = {"column": self.column, "categories": [str(c) for c in new.cat.categories],
                 "counts": {str(k): int(v) for k, v in counts.items()},
                 "missing": int(new.isna().sum()),
                 "breaks": [_fmt(b) if math.isinf(b) else b for b in cuts]}
        return Result(data.assign(**{self.column: new}), roles=new_roles, notes=notes)
