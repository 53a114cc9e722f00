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

from collections.abc import Iterable, Sequence
from numbers import Real

import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError

__all__ = [
    "as_keys",
    "check_frame",
    "check_columns",
    "encode_column",
    "encode_keys",
    "combine",
    "weights_of",
    "check_alpha",
    "check_k",
]

#: a mixed-radix space up to this many times the number of records is counted with bincount directly
_DENSE_FACTOR = 4
_MAX_RADIX = 2**62


def check_frame(df: object, what: str = "data") -> pd.DataFrame:
    """Raise :class:`MeasureError` unless ``df`` is a non-empty DataFrame with unique column names."""
    if not isinstance(df, pd.DataFrame):
        raise MeasureError(f"{what}: expected a pandas DataFrame, got {type(df).__name__}")
    if len(df) == 0:
        raise MeasureError(f"{what}: the DataFrame has no records")
    if not df.columns.is_unique:
        dup = sorted({str(c) for c in df.columns[df.columns.duplicated()]})
        raise MeasureError(f"{what}: duplicated column names {dup}")
    return df


def as_keys(keys: str | Iterable[str] | None, what: str = "keys") -> list[str]:
    """Normalise a column name or list of names; raise :class:`ParameterError` when empty/invalid."""
    if keys is None:
        raise ParameterError(f"{what}: no columns given")
    if isinstance(keys, str):
        out = [keys]
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
    """Raise :class:`MeasureError` naming every column of ``columns`` absent from ``df``."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise MeasureError(
            f"{what}: unknown column(s) {missing}; the data has {[str(c) for c in df.columns]}")


def encode_column(s: pd.Series) -> tuple[np.ndarray, int]:
    """Integer codes (``-1`` = missing) and number of categories of one column, read as categories."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        cat = s.array
        return np.asarray(cat.codes), max(len(cat.categories), 1)
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    return np.asarray(codes, dtype=np.int64), max(len(uniques), 1)


def encode_keys(df: pd.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, list[int]]:
    """Codes of the key columns as an ``(n, p)`` int64 matrix (``-1`` missing) and cardinalities.

    The matrix is Fortran-ordered: every column ``codes[:, j]`` is contiguous.
    """
    n = len(df)
    codes = np.empty((n, len(keys)), dtype=np.int64, order="F")
    cards: list[int] = []
    for j, k in enumerate(keys):
        c, m = encode_column(df[k])
        codes[:, j] = c
        cards.append(m)
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
    """The sampling weights as float64, validated (numeric, finite, > 0), or ``None``."""
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
    return w


def check_alpha(alpha: float) -> float:
    """Validate the wildcard weight ``alpha`` (a number in [0, 1])."""
    if isinstance(alpha, bool) or not isinstance(alpha, Real):
        raise ParameterError(f"alpha: expected a number in [0, 1], got {alpha!r}")
    a = float(alpha)
    if not 0.0 <= a <= 1.0:
        raise ParameterError(f"alpha: expected a number in [0, 1], got {alpha!r}")
    return a


def check_k(k: float, what: str = "k") -> float:
    """Validate a threshold ``k >= 1``."""
    if isinstance(k, bool) or not isinstance(k, Real):
        raise ParameterError(f"{what}: expected a number >= 1, got {k!r}")
    kk = float(k)
    if not kk >= 1:
        raise ParameterError(f"{what}: expected a number >= 1, got {k!r}")
    return kk
