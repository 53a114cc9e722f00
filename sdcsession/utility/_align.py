"""Pairing, column selection, type checks and categorical encoding shared by the utility measures.

Every utility measure takes ``(original, masked)`` DataFrames. Measures that compare records one by
one (IL1s, λ, records changed, ...) need the two files *paired by index*: the same index labels
(in any order; the masked file is re-ordered to the original's order). When rows were removed or
added they raise `MeasureError`; distributional measures (tables,
entropies, eigenvalues, KS, ...) do not need pairing and work on files of different lengths.

Example
-------
>>> import pandas as pd
>>> from sdcsession.utility._align import paired
>>> o = pd.DataFrame({"a": [1, 2, 3]}); m = pd.DataFrame({"a": [3, 2]}, index=[2, 1])
>>> paired(o, m, "demo")
Traceback (most recent call last):
...
sdcsession.errors.MeasureError: demo: needs the original and masked records paired by index, but the files have 3 and 2 records (1 index labels only in the original: [0]); use a distributional measure or align the files first
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError, RoleError

__all__ = [
    "check_frames",
    "check_frame",
    "check_cells",
    "check_seed",
    "check_progress",
    "check_types",
    "column_list",
    "resolve_columns",
    "paired",
    "numeric_matrix",
    "shares_values",
    "is_numeric_column",
    "encode_pair",
    "encode_one",
    "weights_of",
    "EncodedPair",
    "as_values",
]


def check_frame(df: Any, which: str, measure: str) -> None:
    """Raise unless ``df`` is a usable DataFrame: records, unique flat column names.

    MeasureError for a non-DataFrame or an empty file, RoleError for duplicated or MultiIndex
    column names; every message names ``which`` (``original``, ``masked``, ``data``).
    """
    if not isinstance(df, pd.DataFrame):
        raise MeasureError(f"{measure}: {which} must be a pandas DataFrame, got {type(df).__name__}")
    if isinstance(df.columns, pd.MultiIndex):
        raise RoleError(f"{measure}: the {which} file has MultiIndex columns; flatten them to "
                        "one name per column first")
    dup = list(pd.unique(df.columns[df.columns.duplicated()]))
    if dup:
        raise RoleError(f"{measure}: the {which} file has duplicated column names {dup}: every "
                        "variable needs a unique column name")
    if len(df) == 0:
        raise MeasureError(f"{measure}: the {which} file has no records")


def check_frames(original: Any, masked: Any, measure: str) -> None:
    """Raise unless both inputs are usable DataFrames (see `check_frame`)."""
    check_frame(original, "original", measure)
    check_frame(masked, "masked", measure)


_UNUSABLE = (list, dict, set, tuple, np.ndarray, pd.Series, pd.DataFrame)


def check_cells(df: pd.DataFrame, columns: Sequence[Hashable], which: str, measure: str) -> None:
    """RoleError when an object column holds lists, dicts, sets, arrays (not values to compare)."""
    for c in columns:
        s = df[c]
        if s.dtype != object:
            continue
        bad = s.map(lambda v: isinstance(v, _UNUSABLE)).to_numpy(dtype=bool)
        if bad.any():
            first = s[bad].iloc[0]
            raise RoleError(
                f"{measure}: column {c!r} of the {which} file holds values that are not numbers "
                f"or categories ({int(bad.sum())} record(s), e.g. a {type(first).__name__} at "
                f"index {s.index[bad][0]!r})")


def check_types(types: Any, measure: str) -> dict[Hashable, str]:
    """``types`` as a dict (None → {}); ParameterError unless a mapping of names to type names."""
    if types is None:
        return {}
    if not isinstance(types, Mapping):
        raise ParameterError(f"{measure}: types must be a mapping {{column: type name}}, got "
                             f"{type(types).__name__}")
    bad = {c: t for c, t in types.items() if not isinstance(t, str)}
    if bad:
        raise ParameterError(f"{measure}: types must map columns to type names, got {bad}")
    return dict(types)


def check_seed(seed: Any, measure: str, name: str = "seed", *, allow_none: bool = False) -> int | None:
    """``seed`` as an int in [0, 2**32 - 1] (None allowed when ``allow_none``); else ParameterError."""
    if seed is None and allow_none:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ParameterError(f"{measure}: {name} must be an integer in [0, 2**32 - 1], got "
                             f"{seed!r}")
    if not 0 <= int(seed) < 2**32:
        raise ParameterError(f"{measure}: {name} must be an integer in [0, 2**32 - 1], got {seed!r}")
    return int(seed)


def check_progress(progress: Any, measure: str) -> None:
    """ParameterError unless ``progress`` is True, False or None (automatic)."""
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise ParameterError(f"{measure}: progress must be True, False or None, got "
                             f"{progress!r:.60}")


def mapping_arg(value: Any, measure: str, what: str) -> dict[Any, Any]:
    """``value`` (a mapping, or None for none) as a dict; `ParameterError` naming ``what`` for
    anything else (a bool, a list, text).

    >>> mapping_arg(None, "ebil", "scales"), mapping_arg({"a": 1}, "ebil", "scales")
    ({}, {'a': 1})
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ParameterError(f"{measure}: {what} must be a mapping {{column: value}}, got "
                             f"{type(value).__name__}")
    return dict(value)


def column_list(columns: Any, measure: str, what: str = "columns") -> list[Hashable]:
    """``columns`` (one name or a list of names) as a list; ParameterError for anything else."""
    if isinstance(columns, str):
        return [columns]
    if isinstance(columns, (pd.DataFrame, Mapping, set, bytes)) or not isinstance(
            columns, Iterable):
        raise ParameterError(f"{measure}: {what} must be a list of column names, got "
                             f"{type(columns).__name__}")
    cols = list(columns)
    unhashable = [c for c in cols if not isinstance(c, Hashable)]
    if unhashable:
        raise ParameterError(f"{measure}: {what} must be a list of column names, got "
                             f"{unhashable[0]!r} in it")
    return cols


def resolve_columns(
    original: pd.DataFrame,
    masked: pd.DataFrame | None,
    columns: str | Iterable[Hashable] | None,
    measure: str,
    *,
    min_columns: int = 1,
    what: str = "columns",
) -> list[Hashable]:
    """The columns to compare: ``columns`` checked against both files, or the common columns.

    Without ``columns`` the columns present in both files are taken, in the original's order.
    """
    if columns is None:
        cols = list(original.columns)
        if masked is not None:
            mset = set(masked.columns)
            cols = [c for c in cols if c in mset]
    else:
        cols = column_list(columns, measure, what)
        if len(set(cols)) != len(cols):
            raise ParameterError(f"{measure}: {what} contains duplicates: {cols}")
        missing_o = [c for c in cols if c not in original.columns]
        missing_m = [] if masked is None else [c for c in cols if c not in masked.columns]
        problems = []
        if missing_o:
            problems.append(f"not in the original: {missing_o}")
        if missing_m:
            problems.append(f"not in the masked file: {missing_m}")
        if problems:
            raise MeasureError(f"{measure}: {what} " + "; ".join(problems))
    if len(cols) < min_columns:
        raise MeasureError(
            f"{measure}: {what}: needs at least {min_columns} common column(s), got {len(cols)}: "
            f"{cols}"
        )
    check_cells(original, cols, "original" if masked is not None else "data", measure)
    if masked is not None:
        check_cells(masked, cols, "masked", measure)
    return cols


def check_named(names: Iterable[Hashable], cols: Sequence[Hashable], measure: str,
                what: str) -> None:
    """ParameterError when a per-variable option (``what``) names variables not compared."""
    unknown = [c for c in names if c not in cols]
    if unknown:
        raise ParameterError(f"{measure}: {what} variables not compared: {unknown}")


def paired(original: pd.DataFrame, masked: pd.DataFrame, measure: str) -> pd.DataFrame:
    """The masked file re-ordered to the original's index; MeasureError when records differ."""
    oi, mi = original.index, masked.index
    if oi.equals(mi):
        return masked
    if not oi.is_unique or not mi.is_unique:
        raise MeasureError(f"{measure}: needs unique index labels to pair records")
    if len(oi) == len(mi) and oi.sort_values().equals(mi.sort_values()):
        return masked.reindex(oi)
    only_o = oi.difference(mi)
    only_m = mi.difference(oi)
    parts = []
    if len(only_o):
        parts.append(f"{len(only_o)} index labels only in the original: {list(only_o[:5])}")
    if len(only_m):
        parts.append(f"{len(only_m)} index labels only in the masked file: {list(only_m[:5])}")
    raise MeasureError(
        f"{measure}: needs the original and masked records paired by index, but the files have "
        f"{len(oi)} and {len(mi)} records ({'; '.join(parts)}); use a distributional measure "
        "or align the files first"
    )


def _buffer(s: pd.Series) -> tuple | None:
    """Where the values of ``s`` live (data address, shape, strides) when they are one numpy
    array (numbers, or a categorical's codes), else None."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        a = s.array.codes
    elif isinstance(s.dtype, np.dtype):
        a = s.to_numpy()
    else:
        return None
    return (a.__array_interface__["data"][0], a.shape, a.strides) if isinstance(a, np.ndarray) \
        else None


def shares_values(a: pd.Series, b: pd.Series) -> bool:
    """Whether two columns of the same dtype read the same memory (numbers, or a categorical's
    codes): then they hold the same values, position by position, without a pass over them
    (frames share the columns a treatment left alone). False says nothing. Missing values: read
    like any other value (missing in the same places, as `pandas.Series.equals` counts them).

    >>> o = pd.DataFrame({"x": [1.0, None]})
    >>> shares_values(o["x"], o.assign(y=1)["x"]), shares_values(o["x"], o["x"] + 0)
    (True, False)
    """
    if a.dtype != b.dtype:
        return False
    ba = _buffer(a)
    return ba is not None and ba == _buffer(b)


def is_numeric_column(s: pd.Series) -> bool:
    """True for real/integer columns (not bool, not categorical)."""
    dt = s.dtype
    return (
        pd.api.types.is_numeric_dtype(dt)
        and not pd.api.types.is_bool_dtype(dt)
        and not isinstance(dt, pd.CategoricalDtype)
    )


def numeric_matrix(df: pd.DataFrame, columns: Sequence[Hashable], measure: str, which: str
                   ) -> np.ndarray:
    """Columns as a float64 (n, p) array; MeasureError naming non-numeric columns or infinities."""
    bad = [c for c in columns if not is_numeric_column(df[c])]
    if bad:
        kinds = {c: str(df[c].dtype) for c in bad}
        raise MeasureError(
            f"{measure}: expects numeric (continuous) columns, but in the {which} file these are "
            f"not: {kinds}"
        )
    x = np.empty((len(df), len(columns)), dtype=np.float64, order="F")
    for j, c in enumerate(columns):
        x[:, j] = df[c].to_numpy(dtype=np.float64, na_value=np.nan)
    inf_cols = [c for j, c in enumerate(columns) if np.isinf(x[:, j]).any()]
    if inf_cols:
        raise MeasureError(f"{measure}: infinite values in the {which} file, columns {inf_cols}")
    return x


class EncodedPair:
    """Integer codes of one variable in both files over the union of their categories.

    ``codes_o``/``codes_m``: int64 arrays, -1 for missing; ``categories``: the union (pd.Index);
    ``ordered``: True when the categories carry an order (ordered categorical or numbers).
    """

    __slots__ = ("codes_o", "codes_m", "categories", "ordered")

    def __init__(self, codes_o: np.ndarray, codes_m: np.ndarray, categories: pd.Index,
                 ordered: bool):
        self.codes_o = codes_o
        self.codes_m = codes_m
        self.categories = categories
        self.ordered = ordered

    @property
    def n_categories(self) -> int:
        return len(self.categories)


def _codes_of(s: pd.Series, cats: pd.Index) -> np.ndarray:
    if isinstance(s.dtype, pd.CategoricalDtype):
        # one lookup: own code i -> position of category i in cats, the last entry (-1) for
        # the missing code -1
        mapping = cats.get_indexer(s.cat.categories).astype(np.int64)
        return np.append(mapping, np.int64(-1))[s.array.codes]
    return cats.get_indexer(s).astype(np.int64)


def _cats_of(s: pd.Series) -> pd.Index:
    if isinstance(s.dtype, pd.CategoricalDtype):
        return pd.Index(s.cat.categories)
    return pd.Index(pd.unique(s.dropna()))


def encode_pair(o: pd.Series, m: pd.Series) -> EncodedPair:
    """Encode a variable of both files on the union of categories (missing = -1).

    Ordered categoricals with identical categories keep their order; numeric columns are sorted.
    """
    ordered = False
    if isinstance(o.dtype, pd.CategoricalDtype) and isinstance(m.dtype, pd.CategoricalDtype):
        co, cm = o.cat.categories, m.cat.categories
        if co.equals(cm):
            cats = pd.Index(co)
            ordered = bool(o.cat.ordered and m.cat.ordered)
            if len(cats) < 2**31:
                return EncodedPair(o.cat.codes.to_numpy().astype(np.int64),
                                   m.cat.codes.to_numpy().astype(np.int64), cats, ordered)
        else:
            cats = pd.Index(co).append(pd.Index(cm).difference(co, sort=False))
    else:
        cats = _cats_of(o)
        extra = _cats_of(m)
        try:
            cats = cats.append(extra[~extra.isin(cats)])
        except (TypeError, NotImplementedError):  # mixed types (pyarrow text vs complex)
            known = set(cats)
            cats = pd.Index(list(cats) + [v for v in extra if v not in known], dtype=object)
        if is_numeric_column(o) and is_numeric_column(m):
            cats = cats.sort_values()
            ordered = True
    return EncodedPair(_codes_of(o, cats), _codes_of(m, cats), cats, ordered)


def encode_one(s: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes (-1 missing) and categories of one column."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        return s.cat.codes.to_numpy().astype(np.int64), pd.Index(s.cat.categories)
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    return codes.astype(np.int64), pd.Index(uniques)


def weights_of(df: pd.DataFrame, weight: Hashable | np.ndarray | pd.Series | None, measure: str,
               which: str = "original") -> np.ndarray | None:
    """Weights as a float array (column name, Series or array), checked finite and >= 0."""
    if weight is None:
        return None
    if isinstance(weight, (str, int)) and not isinstance(weight, bool) and weight in df.columns:
        w = df[weight]
        if not is_numeric_column(w):
            raise MeasureError(f"{measure}: weight column {weight!r} must be numeric")
        arr = w.to_numpy(dtype=np.float64, na_value=np.nan)
    elif isinstance(weight, (pd.Series, np.ndarray, list)):
        try:
            arr = np.asarray(weight, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise MeasureError(f"{measure}: weight must hold numbers, one per record of the "
                               f"{which} file") from None
        if arr.shape != (len(df),):
            raise MeasureError(
                f"{measure}: weight has {arr.shape[0] if arr.ndim else 0} values, the {which} "
                f"file {len(df)} records"
            )
    else:
        raise MeasureError(f"{measure}: weight {weight!r} is not a column of the {which} file")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise MeasureError(f"{measure}: weights must be finite and >= 0 (in the {which} file)")
    return arr


def as_values(values: Any, column: Any) -> pd.Series:
    """``values`` (a list, 1-d array or Series) as a Series of single values, or `ParameterError`;
    ``column`` must be a name (a hierarchy's values and the column they come from)."""
    if not isinstance(column, str):
        raise ParameterError(f"column: expected a column name (text), got {column!r:.40}")
    if isinstance(values, pd.Series):
        s = values
    elif isinstance(values, (list, tuple, pd.Index, pd.Categorical)) or (
            isinstance(values, np.ndarray) and values.ndim == 1):
        s = pd.Series(list(values))
    else:
        raise ParameterError(f"values of {column!r}: expected a list, a one-dimensional array "
                             f"or a Series, got {type(values).__name__}")
    try:
        if s.dtype == object:
            pd.factorize(s)
    except TypeError:
        raise ParameterError(f"values of {column!r}: expected single values, got lists, sets "
                             "or other containers") from None
    return s
