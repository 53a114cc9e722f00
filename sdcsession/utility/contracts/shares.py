"""Contracts on shares, distances and catalogue measures.

- `CategoryContract`: within each category of a variable (or the ones named), the share of the
  original's records whose value was suppressed (missing now, present before) or changed stays
  below ``max_share``;
- `DistanceContract`: the largest absolute difference of the correlation matrices, or the
  largest distribution distance per variable (Kolmogorov–Smirnov ``D = sup |F_o − F_m|``,
  Hellinger ``H = sqrt(½ Σ (√p − √q)²)``, total variation ``½ Σ |p − q|``), stays below
  ``bound``;
- `MeasureContract`: any measure of the utility catalogue (`sdcsession.utility.compute`), read
  as one number, stays below ``bound``.

References: Kolmogorov–Smirnov and ECDF distances as in Woo et al. (2009), *J. Privacy and
Confidentiality* 1(1); Hellinger distance as in Shlomo (2010); total variation distance of
two distributions (Levin, Peres & Wilmer, *Markov Chains and Mixing Times*, 2009, ch. 4).

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"edu": ["a", "a", "b", "b"]})
>>> CategoryContract(column="edu", max_share=0.4).evaluate(o, o.assign(edu=["a", None, "b", "b"])
...                                                          ).detail
"edu='a': 1 of 2 records (50%) suppressed"
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from ...methods.base import check_number, freeze
from .base import Contract, worst

__all__ = ["CategoryContract", "DistanceContract", "MeasureContract", "DISTANCES",
           "ks_distance", "hellinger_distance"]

DISTANCES = ("correlation", "ks", "hellinger", "total_variation")


def _column(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ParameterError(f"column: expected a column name, got {value!r:.60}")
    return value


def _columns(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(
            isinstance(c, str) and c for c in value):
        raise ParameterError(f"columns: expected a column name or a list of them, got "
                             f"{value!r:.80}")
    return tuple(value)


def _categories(value: Any) -> tuple[Any, ...] | None:
    if value is None:
        return None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(
            isinstance(v, Hashable) for v in value):
        raise ParameterError(f"categories: expected a category or a list of them (None: every "
                             f"category), got {value!r:.80}")
    return tuple(value)


def _same(a: pd.Series, b: pd.Series) -> np.ndarray:
    av, bv = a.to_numpy(dtype=object), b.to_numpy(dtype=object)
    with np.errstate(invalid="ignore"):
        eq = np.asarray(av == bv, dtype=bool)
    return eq | (pd.isna(av) & pd.isna(bv))


@attrs.frozen(kw_only=True)
class CategoryContract(Contract):
    """Few records of any category of ``column`` lose their value.

    For each category ``c`` of the original (``categories``: only those), the share of the
    original's records with value ``c`` whose released value is missing (``change=
    "suppressed"``) or differs (``"changed"``, suppressions included) is at most ``max_share``.
    Records are paired by position (the files must have the same records).

    Missing values: records missing ``column`` in the original belong to no category.
    """

    type = "category"
    column: str = attrs.field(converter=_column)
    categories: tuple[Any, ...] | None = attrs.field(default=None, converter=_categories)
    max_share: float = 0.05
    change: str = "suppressed"

    def __attrs_post_init__(self) -> None:
        check_number("max_share", self.max_share, 0, 1)
        if self.change not in ("suppressed", "changed"):
            raise ParameterError(f"change: expected 'suppressed' or 'changed', got "
                                 f"{self.change!r:.60}")

    def describe(self) -> str:
        which = "" if self.categories is None else f" {list(self.categories)}"
        return f"{self.column}{which} {self.change} <= {self.max_share:.4g}"

    def bound_value(self) -> float:
        return float(self.max_share)

    def measure(self, original: pd.DataFrame, masked: pd.DataFrame, *, weight: str | None,
                household: str | None) -> tuple[float, float, str]:
        c = self.column
        if c not in original.columns:
            raise ParameterError(f"column: {c!r} is not a column of the original data")
        if c not in masked.columns:
            raise MeasureError(f"column {c!r} is not in the released data")
        if len(original) != len(masked):
            raise MeasureError(f"{len(original)} records in the original, {len(masked)} "
                               "released: the records must be paired")
        o, m = original[c], masked[c]
        lost = (m.isna() & o.notna()).to_numpy() if self.change == "suppressed" else \
            ~_same(o, m)
        ov = o.to_numpy(dtype=object)
        cats = list(pd.unique(ov[o.notna().to_numpy()])) if self.categories is None \
            else list(self.categories)
        shares, counts = [], []
        for cat in cats:
            where = o.notna().to_numpy() & np.asarray(ov == cat, dtype=bool)
            n = int(where.sum())
            if not n:
                raise ParameterError(f"categories: {cat!r} is not a category of {c!r} in the "
                                     "original data")
            k = int(lost[where].sum())
            shares.append(k / n)
            counts.append((k, n))
        if not cats:
            return 0.0, self.bound_value(), f"{c!r} has no observed value in the original"
        value, i = worst(shares, cats)
        k, n = counts[i]
        return value, self.bound_value(), (f"{c}={cats[i]!r}: {k:,} of {n:,} records "
                                           f"({value:.0%}) {self.change}")


def ks_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov–Smirnov statistic ``D = sup_t |F_a(t) − F_b(t)|`` (NaN dropped).

    >>> ks_distance(np.array([1.0, 2, 3, 4]), np.array([3.0, 4, 5, 6]))
    0.5
    """
    a, b = np.sort(a[~np.isnan(a)]), np.sort(b[~np.isnan(b)])
    if not len(a) or not len(b):
        raise MeasureError("no observed value to compare")
    t = np.concatenate([a, b])
    fa = np.searchsorted(a, t, side="right") / len(a)
    fb = np.searchsorted(b, t, side="right") / len(b)
    return float(np.max(np.abs(fa - fb)))


def _shares(s: pd.Series) -> pd.Series:
    v = s.dropna().astype(object)
    if not len(v):
        raise MeasureError(f"{s.name!r}: no observed value")
    return v.value_counts(normalize=True, sort=False)


def hellinger_distance(a: pd.Series, b: pd.Series, *, total_variation: bool = False) -> float:
    """Hellinger distance of the category distributions of two series (missing values left
    out): ``H = sqrt(½ Σ_c (√p_c − √q_c)²)`` in [0, 1]; with ``total_variation=True`` the total
    variation distance ``½ Σ_c |p_c − q_c|``.

    >>> round(hellinger_distance(pd.Series(list("aabb")), pd.Series(list("aaab"))), 6)
    0.184592
    """
    p, q = _shares(a), _shares(b)
    idx = p.index.union(q.index, sort=False)
    p, q = p.reindex(idx, fill_value=0.0).to_numpy(float), q.reindex(idx, fill_value=0.0
                                                                     ).to_numpy(float)
    if total_variation:
        return float(0.5 * np.abs(p - q).sum())
    return float(math.sqrt(max(0.0, 0.5 * float(((np.sqrt(p) - np.sqrt(q)) ** 2).sum()))))


@attrs.frozen(kw_only=True)
class DistanceContract(Contract):
    """A correlation or distribution distance between the files stays below ``bound``.

    ``distance="correlation"``: the largest absolute difference of the Pearson correlations of
    the (two or more numeric) ``columns``; ``"ks"``: the largest Kolmogorov–Smirnov statistic of
    a numeric column; ``"hellinger"``, ``"total_variation"``: the largest Hellinger or total
    variation distance of a column's category distribution. Unweighted; the records need not be
    paired.

    Missing values: correlations use the pairwise complete records; the distributions leave out
    the missing values of each file.
    """

    type = "distance"
    columns: tuple[str, ...] = attrs.field(converter=_columns)
    distance: str = "correlation"
    bound: float = 0.05

    def __attrs_post_init__(self) -> None:
        if self.distance not in DISTANCES:
            raise ParameterError(f"distance: expected one of {DISTANCES}, got "
                                 f"{self.distance!r:.60}")
        if self.distance == "correlation" and len(self.columns) < 2:
            raise ParameterError("columns: a correlation contract needs two or more columns")
        check_number("bound", self.bound, 0)

    def describe(self) -> str:
        return f"{self.distance} distance of {', '.join(self.columns)} <= {self.bound:.4g}"

    def bound_value(self) -> float:
        return float(self.bound)

    def measure(self, original: pd.DataFrame, masked: pd.DataFrame, *, weight: str | None,
                household: str | None) -> tuple[float, float, str]:
        cols = list(self.columns)
        for what, frame in (("original", original), ("released", masked)):
            missing = [c for c in cols if c not in frame.columns]
            if missing:
                err = ParameterError if what == "original" else MeasureError
                raise err(f"columns: {missing} are not in the {what} data")
        if self.distance == "correlation":
            a, b = (f[cols].apply(pd.to_numeric, errors="coerce").astype(float).corr()
                    for f in (original, masked))
            iu = np.triu_indices(len(cols), 1)
            d = np.abs(a.to_numpy()[iu] - b.to_numpy()[iu])
            pairs = [f"{cols[i]}~{cols[j]}" for i, j in zip(*iu)]
            value, i = worst(d, pairs)
            if math.isnan(value):
                return value, self.bound_value(), f"{pairs[i]}: no correlation (a constant " \
                                                  "or empty variable)"
            return value, self.bound_value(), (f"{pairs[i]}: {a.to_numpy()[iu][i]:.4g} in the "
                                               f"original, {b.to_numpy()[iu][i]:.4g} released")
        out = []
        for c in cols:
            if self.distance == "ks":
                x, y = (pd.to_numeric(f[c], errors="coerce").to_numpy(float)
                        for f in (original, masked))
                out.append(ks_distance(x, y))
            else:
                out.append(hellinger_distance(original[c], masked[c],
                                              total_variation=self.distance != "hellinger"))
        value, i = worst(out, cols)
        return value, self.bound_value(), f"{cols[i]}: {self.distance} distance {value:.4g}"


def _params(value: Any) -> tuple[tuple[str, Any], ...]:
    if value is None:
        return ()
    if isinstance(value, Mapping):
        value = list(value.items())
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(p, (list, tuple)) and len(p) == 2 and isinstance(p[0], str)
            for p in value):
        raise ParameterError(f"params: expected a dict of the measure's parameters, got "
                             f"{value!r:.80}")
    try:
        return tuple(sorted((k, freeze(v)) for k, v in value))
    except TypeError:
        raise ParameterError(f"params: expected plain values (numbers, text, lists), got "
                             f"{value!r:.80}") from None


def _reduce(v: Any, field: str | None, how: str, name: str) -> float:
    if field is not None:
        if isinstance(v, (pd.DataFrame, pd.Series, Mapping)):
            if field not in v:
                raise ParameterError(f"field: {field!r} is not part of {name}'s result")
            v = v[field]
        elif hasattr(v, field):
            v = getattr(v, field)
        else:
            raise ParameterError(f"field: {name}'s result has no {field!r}")
    if isinstance(v, pd.DataFrame):
        num = [c for c in v.columns if pd.api.types.is_numeric_dtype(v[c])]
        if len(num) != 1:
            raise ParameterError(f"field: {name} gives a table; name the column to read with "
                                 f"field= (one of {list(v.columns)})")
        v = v[num[0]]
    if isinstance(v, Mapping):
        v = pd.Series(v, dtype=float)
    if isinstance(v, pd.Series):
        x = v.to_numpy(dtype=float, na_value=np.nan)
        if not len(x):
            raise MeasureError(f"{name}: an empty result")
        return float({"max": np.max, "mean": np.mean, "sum": np.sum}[how](x))
    if hasattr(v, "overall"):
        v = v.overall
    try:
        return float(v)
    except (TypeError, ValueError):
        raise ParameterError(f"field: {name}'s result ({type(v).__name__}) is not a number; "
                             "name the part to read with field=") from None


@attrs.frozen(kw_only=True)
class MeasureContract(Contract):
    """A measure of the utility catalogue (`sdcsession.utility.available_measures`) stays at
    or below ``bound``.

    ``measure``: the catalogue name; ``params``: its parameters (a dict); ``field``: the column
    (of a table), entry or attribute of the result to read; a per-variable result is reduced by
    ``reduce`` (``"max"``, ``"mean"``, ``"sum"``); an object with ``overall`` (λ) gives it. A
    measure whose direction is "|value| higher = more loss" is read as its absolute value.

    Missing values: the measure's own rule.
    """

    type = "measure"
    measure_name: str = attrs.field()
    bound: float = attrs.field()
    params: tuple[tuple[str, Any], ...] = attrs.field(default=(), converter=_params)
    field: str | None = None
    reduce: str = "max"

    def __attrs_post_init__(self) -> None:
        from ..catalogue import CATALOGUE

        if not isinstance(self.measure_name, str) or self.measure_name not in CATALOGUE:
            raise ParameterError(f"measure: {self.measure_name!r:.60} is not a measure of the "
                                 f"utility catalogue; known: {sorted(CATALOGUE)}")
        check_number("bound", self.bound, finite=False)
        if self.reduce not in ("max", "mean", "sum"):
            raise ParameterError(f"reduce: expected 'max', 'mean' or 'sum', got "
                                 f"{self.reduce!r:.60}")
        if self.field is not None and not isinstance(self.field, str):
            raise ParameterError(f"field: expected a name or None, got {self.field!r:.60}")

    def describe(self) -> str:
        part = f"[{self.field}]" if self.field else ""
        return f"{self.measure_name}{part} <= {self.bound:.4g}"

    def bound_value(self) -> float:
        return float(self.bound)

    def measure(self, original: pd.DataFrame, masked: pd.DataFrame, *, weight: str | None,
                household: str | None) -> tuple[float, float, str]:
        from ..catalogue import CATALOGUE, compute

        v = compute(self.measure_name, original, masked, **dict(self.params))
        x = _reduce(v, self.field, self.reduce, self.measure_name)
        if CATALOGUE[self.measure_name].direction.startswith("|value|"):
            x = abs(x)
        return x, self.bound_value(), f"{self.measure_name} = {x:.6g}"
