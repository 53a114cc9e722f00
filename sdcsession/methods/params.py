"""Checks of treatment parameters, shared by every treatment: types are checked, never coerced
(no numbers as text, no bools as numbers), sizes before anything is allocated, and every refusal
is a `ParameterError` naming the parameter and what was expected.

>>> check_int("k", 3, 2)
3
>>> check_bool("weighted", False)
False
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ParameterError, TreatmentError

__all__ = ["MAX_LABELS", "is_missing", "param_names", "check_names", "check_int", "check_number",
           "check_bool", "check_choice", "check_label", "check_size", "require_columns"]

#: the most labels (categories, intervals, mapping entries) one recoding parameter may ask for:
#: larger requests are refused before anything is allocated
MAX_LABELS = 1_000_000


def is_missing(value: Any) -> bool:
    """True for a scalar missing value: ``None``, NaN (Python or numpy float), ``pd.NA``, ``pd.NaT``.

    >>> [is_missing(v) for v in (None, float("nan"), pd.NA, pd.NaT, 0, "", "nan")]
    [True, True, True, True, False, False, False]
    """
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    return False


def param_names(value: Any, what: str, *, required: bool = False,
                unique: bool = True) -> tuple[str, ...]:
    """Column names of a treatment parameter as a tuple, or `ParameterError`.

    ``required``: at least one name; ``unique``: no name twice.

    >>> param_names("a", "columns"), param_names(None, "strata")
    (('a',), ())
    """
    from ..errors import RoleError
    from ..roles import as_names

    try:
        names = as_names(value, what)
    except RoleError as e:
        raise ParameterError(str(e)) from None
    if required and not names:
        raise ParameterError(f"{what}: expected at least one column name")
    if unique:
        rep = sorted({n for n in names if names.count(n) > 1})
        if rep:
            raise ParameterError(f"{what}: column(s) {rep} named more than once")
    return names


#: the documented name of `param_names`
check_names = param_names


def _show(value: Any, width: int = 60) -> str:
    """``repr(value)``, shortened to ``width`` characters (huge integers, long lists)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__}>"
    return text if len(text) <= width else f"{text[:width - 5]}...{text[-2:]}"


def _num(x: float) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"


def _range_text(lo: float | None, hi: float | None, lo_open: bool = False,
                hi_open: bool = False) -> str:
    if lo is not None and hi is not None:
        return f" in {'(' if lo_open else '['}{_num(lo)}, {_num(hi)}{')' if hi_open else ']'}"
    if lo is not None:
        return f" {'>' if lo_open else '>='} {_num(lo)}"
    if hi is not None:
        return f" {'<' if hi_open else '<='} {_num(hi)}"
    return ""


def _type_hint(value: Any) -> str:
    if isinstance(value, str):
        return " (numbers given as text are not converted)"
    if isinstance(value, (bool, np.bool_)):
        return " (True/False is not a number here)"
    return ""


def check_int(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as a Python int in ``[lo, hi]``, or `ParameterError` naming ``name``.

    Only integers are accepted (``int`` or a numpy integer): no bool, no float, no text: types are
    checked, never coerced.

    Example
    -------
    >>> check_int("k", 3, 2)
    3
    >>> check_int("k", "3", 2)
    Traceback (most recent call last):
    ...
    sdcsession.errors.ParameterError: k: expected an integer >= 2, got '3' (numbers given as text are not converted)
    """
    want = f"an integer{_range_text(lo, hi)}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ParameterError(f"{name}: expected {want}, got {_show(value)}{_type_hint(value)}")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ParameterError(f"{name}: expected {want}, got {_show(v)}")
    return v


def check_number(name: str, value: Any, lo: float | None = None, hi: float | None = None, *,
                 lo_open: bool = False, hi_open: bool = False, finite: bool = True) -> float:
    """``value`` as a float in the given range, or `ParameterError` naming ``name``.

    Accepted: ``int``, ``float`` and numpy numbers; refused: bool, text, ``None``, containers,
    NaN, integers too large for a float, and (``finite=True``) infinities. ``lo_open`` /
    ``hi_open`` exclude the bound itself.

    Example
    -------
    >>> check_number("pd", 0.8, 0, 1)
    0.8
    >>> check_number("pd", 10**400, 0, 1)
    Traceback (most recent call last):
    ...
    sdcsession.errors.ParameterError: pd: expected a finite number in [0, 1], got an integer too large for a float
    """
    want = f"a{' finite' if finite else ''} number{_range_text(lo, hi, lo_open, hi_open)}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise ParameterError(f"{name}: expected {want}, got {_show(value)}{_type_hint(value)}")
    try:
        f = float(value)
    except OverflowError:
        raise ParameterError(f"{name}: expected {want}, got an integer too large for a float") \
            from None
    if math.isnan(f) or (finite and math.isinf(f)):
        raise ParameterError(f"{name}: expected {want}, got {f!r}")
    if lo is not None and (f < lo or (lo_open and f == lo)) or \
            hi is not None and (f > hi or (hi_open and f == hi)):
        raise ParameterError(f"{name}: expected {want}, got {_show(value)}")
    return f


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a bool, or `ParameterError`: only ``True``/``False`` (or numpy bools).

    ``"no"``, ``0`` or ``1`` are refused rather than read as a truth value.

    Example
    -------
    >>> check_bool("weighted", False)
    False
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ParameterError(f"{name}: expected True or False, got {_show(value)}")
    return bool(value)


def check_choice(name: str, value: Any, choices: tuple[Any, ...] | list[Any]) -> Any:
    """``value`` if it is one of ``choices`` (compared as text labels), else `ParameterError`.

    >>> check_choice("kind", "top", ("top", "bottom"))
    'top'
    """
    if not isinstance(value, str) or value not in choices:
        raise ParameterError(f"{name}: expected one of {list(choices)}, got {_show(value)}")
    return value


#: scalar types a category label may have (numbers, text, bools, missing)
_LABEL_TYPES = (str, int, float, bool, np.integer, np.floating, np.bool_, np.str_)


def check_label(name: str, value: Any, *, missing: bool = True) -> Any:
    """``value`` if it can be a category label: a string, number or bool (``missing=True``: also
    ``None`` / NaN), else `ParameterError`. Lists, dicts, sets, tuples and other objects
    are refused: they cannot be categories of a column nor be written to a recipe.

    >>> check_label("mapping value", "north")
    'north'
    """
    if is_missing(value):
        if missing:
            return value
        raise ParameterError(f"{name}: expected a category label, got a missing value")
    if not isinstance(value, _LABEL_TYPES):
        raise ParameterError(
            f"{name}: expected a category label (text, number or bool), got "
            f"{type(value).__name__} {_show(value)}")
    return value


def check_size(name: str, value: Any, limit: int = MAX_LABELS) -> int:
    """``len(value)`` when it is at most ``limit``, else `ParameterError` (checked before
    anything is built from ``value``, so a request for 10**9 categories fails at once).

    >>> check_size("labels", ["a", "b"])
    2
    """
    try:
        n = len(value)
    except (TypeError, OverflowError):
        raise ParameterError(f"{name}: expected a list, got {_show(value)}") from None
    if n > limit:
        raise ParameterError(f"{name}: {n} entries asked for; at most {limit} are allowed")
    return n


def require_columns(data: pd.DataFrame, columns: tuple[str, ...] | list[str], what: str) -> None:
    """Raise `TreatmentError` naming every column of ``columns`` absent from ``data``, or held
    by more than one column of ``data`` (a name must pick one column)."""
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise TreatmentError(f"{what}: unknown column(s) {missing}; the data has {list(data.columns)}")
    if not data.columns.is_unique:
        dup = [c for c in columns if (data.columns == c).sum() > 1]
        if dup:
            raise TreatmentError(f"{what}: column name(s) {dup} are used by more than one column "
                                 "of the data; rename the columns")
