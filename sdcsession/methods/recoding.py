"""Non-perturbative recoding: global recoding into intervals, grouping categories, top/bottom coding,
rounding.

Each treatment is a pure kernel on a Series (usable without a session) plus a frozen
:class:`~sdcsession.methods.base.Treatment`: :class:`GlobalRecode` (``"global_recode"``),
:class:`GroupCategories` (``"group_categories"``), :class:`TopBottomCode` (``"top_bottom_code"``),
:class:`RoundValues` (``"round_values"``).

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
from .base import Result, Treatment, freeze, require_columns

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
        raise ParameterError(f"breaks: expected an increasing list of numbers, got {breaks!r}")
    out = []
    for b in breaks:
        if isinstance(b, bool) or not isinstance(b, (int, float, np.integer, np.floating)):
            raise ParameterError(f"breaks: expected numbers, got {b!r}")
        if math.isnan(float(b)):
            raise ParameterError("breaks: NaN is not a break")
        out.append(int(b) if float(b).is_integer() and not math.isinf(b) else float(b))
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


def _numeric(s: pd.Series, what: str) -> np.ndarray:
    if isinstance(s.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(s) or \
            pd.api.types.is_bool_dtype(s):
        raise TreatmentError(
            f"{what}: column {s.name!r} must be numeric, has dtype {s.dtype}")
    return s.to_numpy(dtype="float64", na_value=np.nan)


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
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ParameterError(f"n: expected a number of groups >= 1, got {n!r}")
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
        labels = [str(v) for v in labels]
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
    if v is not None and v not in _METHODS:
        raise ParameterError(f"method: expected one of {list(_METHODS)} or None, got {v!r}")


def _col(_self: Any, a: Any, v: Any) -> None:
    if not isinstance(v, str):
        raise ParameterError(f"{a.name}: expected a column name, got {v!r}")


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
    labels: tuple[str, ...] | None = attrs.field(
        default=None, converter=lambda v: None if v is None else tuple(str(x) for x in v))
    right: bool = attrs.field(default=True)
    include_outside: bool = attrs.field(default=False)

    def __attrs_post_init__(self) -> None:
        _check_method(self.method)
        if self.breaks is None and self.method is None:
            raise ParameterError("global_recode: give breaks=[...] or method= with n=")
        if self.breaks is not None and (self.method is not None or self.n is not None):
            raise ParameterError("global_recode: give either breaks or method with n, not both")
        if self.method is not None and (isinstance(self.n, bool) or not isinstance(
                self.n, (int, np.integer)) or self.n < 1):
            raise ParameterError(f"n: expected a number of groups >= 1, got {self.n!r}")
        if self.labels is not None and self.breaks is not None and \
                len(self.labels) != len(self.breaks) - 1:
            raise ParameterError(
                f"labels: expected {len(self.breaks) - 1} labels for {len(self.breaks)} breaks, "
                f"got {len(self.labels)}")
        for name in ("right", "include_outside"):
            if not isinstance(getattr(self, name), bool):
                raise ParameterError(f"{name}: expected True or False, got {getattr(self, name)!r}")

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


# ----------------------------------------------------------------------------- grouping
def _check_groups(groups: Any) -> dict[Any, tuple[Any, ...]]:
    if not isinstance(groups, Mapping) or not groups:
        raise ParameterError(f"groups: expected a non-empty {{new: [old, ...]}} mapping, got {groups!r}")
    out: dict[Any, tuple[Any, ...]] = {}
    seen: dict[Any, Any] = {}
    for new, olds in groups.items():
        if isinstance(olds, (str, bytes)) or not isinstance(olds, (Sequence, np.ndarray, set)):
            olds = [olds]
        olds = tuple(olds)
        if not olds:
            raise ParameterError(f"groups: group {new!r} lists no categories")
        for o in olds:
            if o in seen and seen[o] != new:
                raise ParameterError(f"groups: category {o!r} is in two groups ({seen[o]!r}, {new!r})")
            seen[o] = new
        out[new] = olds
    return out


def group_categories(series: pd.Series, groups: Mapping[Any, Sequence[Any]]) -> pd.Series:
    """Merge categories: ``{"new": [old, ...], ...}`` (sdcMicro ``groupAndRename``).

    Categories not listed are kept; missing values stay missing. The result is a Categorical
    whose categories keep the original order, a merged group taking the place of its first member.
    Old values given as strings match numeric codes with the same text (JSON recipes).

    Example
    -------
    >>> import pandas as pd
    >>> group_categories(pd.Series(["a", "b", "c", None]), {"ab": ["a", "b"]}).tolist()
    ['ab', 'ab', 'c', nan]
    """
    if not isinstance(series, pd.Series):
        raise TreatmentError(f"group_categories: expected a pandas Series, got {type(series).__name__}")
    g = _check_groups(groups)
    if isinstance(series.dtype, pd.CategoricalDtype):
        cats = list(series.cat.categories)
        codes = np.asarray(series.cat.codes)
        ordered = bool(series.cat.ordered)
    else:
        codes, uniq = pd.factorize(series, sort=True, use_na_sentinel=True)
        cats = list(uniq)
        ordered = False
    text = {str(c): c for c in cats}
    lookup: dict[Any, Any] = {}
    absent = []
    for new, olds in g.items():
        for o in olds:
            c = o if o in cats else text.get(str(o), _ABSENT)
            if c is _ABSENT:
                absent.append(o)
            else:
                lookup[c] = new
    if len(absent) == sum(len(v) for v in g.values()):
        raise TreatmentError(
            f"group_categories: none of {absent} is a category of column {series.name!r}")
    new_cats: list[Any] = []
    for c in cats:
        v = lookup.get(c, c)
        if v not in new_cats:
            new_cats.append(v)
    pos = np.array([new_cats.index(lookup.get(c, c)) for c in cats] + [-1], dtype=np.int64)
    cat = pd.Categorical.from_codes(pos[codes], categories=new_cats, ordered=ordered)
    out = pd.Series(cat, index=series.index, name=series.name)
    out.attrs["absent"] = [str(a) for a in absent]
    return out


_ABSENT = object()


@attrs.frozen
class GroupCategories(Treatment):
    """Merge categories of a key variable: ``groups={"new": [old, ...]}``.

    Example
    -------
    >>> import numpy as np, pandas as pd
    >>> from sdcsession.roles import Roles
    >>> df = pd.DataFrame({"walls": [1, 2, 3]})
    >>> t = GroupCategories("walls", {"1-2": [1, 2]})
    >>> t.apply(df, Roles(keys=("walls",)), np.random.default_rng(0)).data["walls"].tolist()
    ['1-2', '1-2', 3]
    """

    type = "group_categories"

    column: str = attrs.field(validator=_col)
    groups: dict[Any, tuple[Any, ...]] = attrs.field(converter=_check_groups)

    def __hash__(self) -> int:
        return hash((self.column, freeze(self.groups)))

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        require_columns(data, [self.column], "group_categories")
        if self.column not in roles.keys and self.column not in roles.pram:
            raise TreatmentError(
                f"group_categories: column {self.column!r} is not a key (or PRAM) variable "
                f"(roles: {roles.role_of(self.column) or 'none'})")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        old = data[self.column]
        new = group_categories(old, self.groups)
        absent = new.attrs.pop("absent", [])
        differ = (old.astype(object) != new.astype(object)).to_numpy() & old.notna().to_numpy()
        notes: dict[str, Any] = {"column": self.column,
                                 "changed": int(differ.sum()),
                                 "categories": [str(c) for c in new.cat.categories]}
        if absent:
            notes["not_present"] = absent
        return Result(data.assign(**{self.column: new}), notes=notes)


# ----------------------------------------------------------------------------- top/bottom coding
def top_bottom_code(series: pd.Series, value: Any, replacement: Any = None, *,
                    kind: str = "top") -> pd.Series:
    """Top code (values above ``value``) or bottom code (values below) with ``replacement``.

    Numeric: ``x > value`` (top) or ``x < value`` (bottom) become ``replacement`` (default
    ``value``). Ordered categorical: the categories after (before) ``value`` in the order are merged
    into ``replacement`` (default ``value``), placed at the end (start). Unordered categorical or
    text columns raise :class:`TreatmentError`.

    Example
    -------
    >>> import pandas as pd
    >>> top_bottom_code(pd.Series([1.0, 5.0, 9.0]), 6, kind="top").tolist()
    [1.0, 5.0, 6.0]
    >>> top_bottom_code(pd.Series([1, 5, 9]), 3, 0, kind="bottom").tolist()
    [0, 5, 9]
    """
    if kind not in ("top", "bottom"):
        raise ParameterError(f"kind: expected 'top' or 'bottom', got {kind!r}")
    if not isinstance(series, pd.Series):
        raise TreatmentError(f"top_bottom_code: expected a pandas Series, got {type(series).__name__}")
    rep = value if replacement is None else replacement
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
        if kind == "top":
            keep = [c for c in cats[:i + 1] if c != rep]
            new_cats = keep + [rep] if rep not in keep else keep
        else:
            keep = [c for c in cats[i:] if c != rep]
            new_cats = [rep] + keep
        mapping = {c: rep for c in affected}
        vals = series.astype(object).map(lambda v: mapping.get(v, v))
        cat = pd.Categorical(vals, categories=new_cats, ordered=True)
        return pd.Series(cat, index=series.index, name=series.name)
    x = _numeric(series, "top_bottom_code")
    try:
        v, r = float(value), float(rep)
    except (TypeError, ValueError):
        raise ParameterError(
            f"top_bottom_code: value and replacement must be numbers for numeric column "
            f"{series.name!r}, got {value!r}, {rep!r}") from None
    hit = (x > v) if kind == "top" else (x < v)
    if not hit.any():
        return series.copy()
    out = series.copy()
    if pd.api.types.is_integer_dtype(series) and float(r).is_integer():
        out[hit] = int(r)
    else:
        out = out.astype("float64")
        out[hit] = r
    return out


@attrs.frozen
class TopBottomCode(Treatment):
    """Top or bottom coding of a numeric (or ordered categorical) variable.

    Example
    -------
    >>> TopBottomCode("income", 1e6, kind="top").to_dict()["kind"]
    'top'
    """

    type = "top_bottom_code"

    column: str = attrs.field(validator=_col)
    value: Any = attrs.field()
    replacement: Any = attrs.field(default=None)
    kind: str = attrs.field(default="top")

    @kind.validator
    def _k(self, _a: Any, v: Any) -> None:
        if v not in ("top", "bottom"):
            raise ParameterError(f"kind: expected 'top' or 'bottom', got {v!r}")

    @value.validator
    def _v(self, _a: Any, v: Any) -> None:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            raise ParameterError("value: expected the top/bottom coding threshold, got a missing value")

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

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        old = data[self.column]
        new = top_bottom_code(old, self.value, self.replacement, kind=self.kind)
        changed = int((old.astype(object) != new.astype(object)).sum() - (
            old.isna() & new.isna()).sum())
        return Result(data.assign(**{self.column: new}),
                      notes={"column": self.column, "changed": changed, "kind": self.kind})


# ----------------------------------------------------------------------------- rounding
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
    if digits is not None:
        y = np.round(x, int(digits))
    else:
        y = np.round(x / float(base)) * float(base)
    out = pd.Series(y, index=series.index, name=series.name)
    if pd.api.types.is_integer_dtype(series) and (
            (digits is not None and digits >= 0) or (base is not None and float(base).is_integer())):
        out = out.astype(series.dtype)
    return out


def _check_round(digits: Any, base: Any) -> None:
    if (digits is None) == (base is None):
        raise ParameterError("round_values: give exactly one of digits= or base=")
    if digits is not None and (isinstance(digits, bool) or not isinstance(digits, (int, np.integer))):
        raise ParameterError(f"digits: expected an integer, got {digits!r}")
    if base is not None and (isinstance(base, bool) or not isinstance(
            base, (int, float, np.integer, np.floating)) or not base > 0 or not np.isfinite(base)):
        raise ParameterError(f"base: expected a positive number, got {base!r}")


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
    cols = (v,) if isinstance(v, str) else tuple(v) if isinstance(v, (list, tuple)) else None
    if not cols or not all(isinstance(c, str) for c in cols):
        raise ParameterError(f"columns: expected one or more column names, got {v!r}")
    return cols
