"""Shared helpers of the risk kernels: input validation and integer encoding of key variables.

Key variables are read as categories: only equality of values matters, never their order. Every key
column is encoded once as integer codes (``-1`` for a missing value); combinations of keys are
encoded as mixed-radix integers (``code = sum_k c_k * stride_k``) which are made dense (0..G-1) with a
hash factorisation only when the radix space is much larger than the number of records.

Example
-------
>>> import pandas as pd
>>> from sdcsession.risk._codes import encode_keys, combine
>>> df = pd.DataFrame({"a": ["x", "y", "x", None], "b": [1, 1, 1, 2]})
>>> codes, cards = encode_keys(df, ["a", "b"])
>>> codes[:, 0].tolist(), cards
([0, 1, 0, -1], [2, 2])
>>> g, ng = combine(codes[:3], cards)
>>> g.tolist(), ng
([0, 2, 0], 4)
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError, RoleError

__all__ = [
    "as_keys",
    "check_frame",
    "check_columns",
    "check_flag",
    "check_number",
    "encode_column",
    "encode_keys",
    "code_dtype",
    "combine",
    "weights_of",
    "check_alpha",
    "check_k",
    "float_array",
]

#: a mixed-radix space up to this many times the number of records is counted with bincount directly
_DENSE_FACTOR = 4
_MAX_RADIX = 2**62


def check_frame(df: object, what: str = "data") -> pd.DataFrame:
    """The DataFrame ``df``, checked: a non-empty DataFrame with flat, unique column names.

    Raises `MeasureError` when ``df`` is not a DataFrame or has no records, and `RoleError`
    naming the columns when they are a MultiIndex or a name occurs twice (a variable must be one
    column: ``df["a"]`` of a duplicated name is a DataFrame, not a variable).

    >>> check_frame(pd.DataFrame({"a": [1]})).shape
    (1, 1)
    """
    if not isinstance(df, pd.DataFrame):
        raise MeasureError(f"{what}: expected a pandas DataFrame, got {type(df).__name__}")
    if isinstance(df.columns, pd.MultiIndex):
        shown = [tuple(str(x) for x in c) for c in df.columns[:5]]
        raise RoleError(
            f"{what}: the columns are a MultiIndex ({df.columns.nlevels} levels, e.g. {shown}); "
            "give one level of column names, e.g. df.columns = ['_'.join(map(str, c)) for c in "
            "df.columns]")
    if len(df) == 0:
        raise MeasureError(f"{what}: the DataFrame has no records")
    if not df.columns.is_unique:
        dup = sorted({str(c) for c in df.columns[df.columns.duplicated()]})
        raise RoleError(
            f"{what}: duplicated column names {dup}: every variable needs a unique column name")
    return df


def as_keys(keys: str | Iterable[str] | None, what: str = "keys") -> list[str]:
    """Normalise a column name or list of names; raise `ParameterError` when empty/invalid."""
    if keys is None:
        raise ParameterError(f"{what}: no columns given")
    if isinstance(keys, str):
        out = [keys]
    elif isinstance(keys, (Mapping, set, frozenset, bytes, pd.DataFrame)):
        raise ParameterError(
            f"{what}: expected a column name or a list of names, got a {type(keys).__name__}")
    else:
        try:
            out = list(keys)
        except TypeError:
            raise ParameterError(
                f"{what}: expected a column name or a list of names, got {keys!r}") from None
    if not out:
        raise ParameterError(f"{what}: no columns given (expected at least one column name)")
    for k in out:
        if not isinstance(k, str):
            raise ParameterError(f"{what}: expected column names (str), got {k!r}")
    if len(set(out)) != len(out):
        rep = sorted({k for k in out if out.count(k) > 1})
        raise ParameterError(f"{what}: column(s) {rep} named more than once")
    return out


def check_columns(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    """Raise `MeasureError` naming every column of ``columns`` absent from ``df``."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise MeasureError(
            f"{what}: unknown column(s) {missing}; the data has {[str(c) for c in df.columns]}")


def _unhashable(s: pd.Series, what: str) -> RoleError:
    """The RoleError for a column holding unhashable cells (lists, dicts, sets, arrays)."""
    bad = s.map(lambda v: not isinstance(v, Hashable)).to_numpy(dtype=bool)
    pos = np.flatnonzero(bad)
    first = s.iloc[int(pos[0])] if pos.size else None
    where = (f"{pos.size} record(s), e.g. a {type(first).__name__} at index {s.index[pos[0]]!r}"
             if pos.size else "some records")
    return RoleError(
        f"{what}: column {str(s.name)!r} holds values that are not categories ({where}); "
        "key variables need scalar values (strings, numbers, missing) in every record")


def encode_column(s: pd.Series, what: str = "keys") -> tuple[np.ndarray, int]:
    """Integer codes (``-1`` = missing) and number of categories of one column, read as categories.

    A column holding lists, dicts or other unhashable values raises `RoleError` naming it.

    >>> encode_column(pd.Series(["b", "a", None, "b"]))[0].tolist()
    [0, 1, -1, 0]
    """
    if isinstance(s.dtype, pd.CategoricalDtype):
        cat = s.array
        return np.asarray(cat.codes), max(len(cat.categories), 1)
    try:
        codes, uniques = pd.factorize(s, use_na_sentinel=True)
    except TypeError:
        raise _unhashable(s, what) from None
    return np.asarray(codes, dtype=np.int64), max(len(uniques), 1)


def code_dtype(max_card: int) -> np.dtype:
    """The smallest signed integer dtype holding codes ``-1 .. max_card + 1``.

    Codes of categories are ``0 .. card - 1``; the margin leaves room for ``card`` itself (a
    "missing" symbol) and for shifting codes by one (missing -> 0).

    >>> code_dtype(12), code_dtype(126), code_dtype(127), code_dtype(40_000)
    (dtype('int8'), dtype('int8'), dtype('int16'), dtype('int32'))
    """
    for dt in (np.int8, np.int16, np.int32):
        if max_card + 1 <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.int64)


def encode_keys(df: pd.DataFrame, keys: Sequence[str], what: str = "keys",
                ) -> tuple[np.ndarray, list[int]]:
    """Codes of the key columns as an ``(n, p)`` integer matrix (``-1`` missing) and cardinalities.

    The matrix has the smallest signed dtype holding every code, the cardinalities and one more
    (`code_dtype`: int8 up to 126 categories per key, then int16, int32, int64), so it costs what
    the categorical columns cost; arithmetic that combines codes must widen them first (as
    `combine` does). It is Fortran-ordered: every column ``codes[:, j]`` is contiguous.

    >>> codes, cards = encode_keys(pd.DataFrame({"a": ["x", "y", None]}), ["a"])
    >>> codes.dtype, codes[:, 0].tolist(), cards
    (dtype('int8'), [0, 1, -1], [2])
    """
    n = len(df)
    cols = []
    cards: list[int] = []
    for k in keys:
        c, m = encode_column(df[k], what)
        cols.append(c)
        cards.append(m)
    codes = np.empty((n, len(keys)), dtype=code_dtype(max(cards, default=1)), order="F")
    for j, c in enumerate(cols):
        codes[:, j] = c
    return codes, cards


def _densify(code: np.ndarray) -> tuple[np.ndarray, int]:
    dense, uniq = pd.factorize(code)
    return np.asarray(dense, dtype=np.int64), len(uniq)


def combine(
    codes: np.ndarray | Sequence[np.ndarray], cards: Sequence[int], *, dense: bool = False,
) -> tuple[np.ndarray, int]:
    """Combine per-key codes (all non-negative) into one group code per record.

    Returns ``(code, size)`` with ``0 <= code < size``; ``size`` is the radix space when it is at most
    ``4 n + 1024`` (suitable for ``np.bincount``), otherwise codes are made dense. ``dense=True``
    always returns dense codes (``size`` = number of distinct combinations).
    """
    cols = [codes[:, j] for j in range(codes.shape[1])] if isinstance(codes, np.ndarray) else list(
        codes)
    n = len(cols[0]) if cols else 0
    if not cols:
        return np.zeros(n, dtype=np.int64), 1
    out = cols[0].astype(np.int64, copy=True)
    size = int(cards[0])
    for c, m in zip(cols[1:], cards[1:]):
        m = int(m)
        if size * m >= _MAX_RADIX:
            out, size = _densify(out)
        out *= m
        out += c
        size *= m
    if dense or size > _DENSE_FACTOR * n + 1024:
        out, size = _densify(out)
    return out, size


def weights_of(df: pd.DataFrame, weight: str | None) -> np.ndarray | None:
    """The sampling weights as float64, validated (numeric, finite, > 0, finite sum), or ``None``."""
    if weight is None:
        return None
    if not isinstance(weight, str):
        raise ParameterError(f"weight: expected one column name (str), got {weight!r}")
    check_columns(df, [weight], "weight")
    s = df[weight]
    if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
        raise MeasureError(f"weight: column {weight!r} must be numeric, has dtype {s.dtype}")
    w = s.to_numpy(dtype="float64", na_value=np.nan)
    bad = ~np.isfinite(w)
    if bad.any():
        raise MeasureError(
            f"weight: column {weight!r} has {int(bad.sum())} missing or infinite value(s)")
    if (w <= 0).any():
        raise MeasureError(
            f"weight: column {weight!r} has {int((w <= 0).sum())} zero or negative value(s); "
            "sampling weights must be > 0")
    with np.errstate(over="ignore"):
        total = w.sum()
    if not np.isfinite(total):
        raise MeasureError(f"weight: the weights of column {weight!r} are too large to sum "
                           "(the total overflows)")
    return w


def check_flag(value: object, what: str) -> bool:
    """``value`` as a bool; `ParameterError` unless it is True or False (no "yes", 1 or None).

    >>> check_flag(True, "weighted")
    True
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ParameterError(f"{what}: expected True or False, got {value!r}")
    return bool(value)


def check_number(value: object, what: str, expected: str, *, finite: bool = True) -> float:
    """``value`` as a float; `ParameterError` unless it is a real number (not a bool, not text),
    representable as a float (no 10**400) and, with ``finite``, not infinite. NaN is refused.

    >>> check_number(3, "k", "a number >= 1")
    3.0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise ParameterError(f"{what}: expected {expected}, got {value!r:.60}")
    try:
        f = float(value)
    except (OverflowError, ValueError, TypeError):
        raise ParameterError(f"{what}: expected {expected}, got a number too large "
                             f"({_short(value)})") from None
    if math.isnan(f) or (finite and math.isinf(f)):
        raise ParameterError(f"{what}: expected {expected} (finite), got {value!r}")
    return f


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_alpha(alpha: float) -> float:
    """Validate the wildcard weight ``alpha`` (a number in [0, 1])."""
    a = check_number(alpha, "alpha", "a number in [0, 1]")
    if not 0.0 <= a <= 1.0:
        raise ParameterError(f"alpha: expected a number in [0, 1], got {alpha!r}")
    return a


def check_k(k: float, what: str = "k") -> float:
    """Validate a threshold ``k >= 1`` (finite; larger than the number of records is allowed)."""
    kk = check_number(k, what, "a number >= 1")
    if not kk >= 1:
        raise ParameterError(f"{what}: expected a number >= 1, got {k!r}")
    return kk


def float_array(values: Any, what: str) -> np.ndarray:
    """A one-dimensional float64 array of ``values``; `MeasureError` naming ``what`` when they are
    not numbers (text, nested lists, mappings) or not one-dimensional.

    >>> float_array([1, 2.5], "risk").tolist()
    [1.0, 2.5]
    """
    if isinstance(values, (str, bytes, Mapping)) or values is None:
        raise MeasureError(
            f"{what}: expected a one-dimensional array of numbers, got {type(values).__name__}")
    try:
        if isinstance(values, pd.Series) and pd.api.types.is_numeric_dtype(values):
            raw = values.to_numpy(dtype=np.float64, na_value=np.nan) \
                if not pd.api.types.is_bool_dtype(values) else values.to_numpy()
        else:
            raw = np.asarray(values)
    except (TypeError, ValueError, OverflowError):
        raise MeasureError(
            f"{what}: expected a one-dimensional array of numbers, got {_short(values)}") from None
    if raw.dtype.kind not in "iuf":
        raise MeasureError(
            f"{what}: expected numbers, got values of type {raw.dtype} ({_short(values)})")
    if raw.ndim != 1:
        raise MeasureError(f"{what}: expected a one-dimensional array, got shape {raw.shape}")
    return raw.astype(np.float64, copy=False)
