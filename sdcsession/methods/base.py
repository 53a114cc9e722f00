"""Treatments as values: the :class:`Treatment` base class, its registry and :class:`Result`.

A treatment is a frozen attrs class whose fields are its parameters. Parameters are validated at
construction (:class:`~sdcsession.errors.ParameterError` at once); :meth:`Treatment.check` validates
against the data and roles of a state (:class:`~sdcsession.errors.TreatmentError`, session
unchanged); :meth:`Treatment.apply` runs the pure kernel and returns a :class:`Result` with the new
data (sharing untouched columns: copy-on-write), possibly new roles, and JSON-serialisable notes of
what it changed.

Each subclass sets a class attribute ``type`` (its tag in recipes) and is registered automatically.
``to_dict()`` gives ``{"type": tag, **parameters}``; ``Treatment.from_dict`` inverts it.

Example
-------
>>> from sdcsession.methods.base import Treatment
>>> from sdcsession.methods.basic import Recode
>>> t = Recode("sex", {"m": "male"})
>>> Treatment.from_dict(t.to_dict()) == t
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError, RecipeError, TreatmentError
from ..roles import Roles

__all__ = ["Treatment", "Result", "TREATMENTS", "require_columns", "to_jsonable", "freeze",
           "param_names", "check_names", "check_int", "check_number", "check_bool", "check_choice",
           "check_label", "check_size", "MAX_LABELS"]

#: the most labels (categories, intervals, mapping entries) one recoding parameter may ask for:
#: larger requests are refused before anything is allocated
MAX_LABELS = 1_000_000

#: tag -> Treatment subclass
TREATMENTS: dict[str, type[Treatment]] = {}


def to_jsonable(value: Any) -> Any:
    """Convert tuples, numpy scalars/arrays and nested mappings to plain JSON types.

    >>> to_jsonable((1, np.int64(2), {"a": (3.5,)}))
    [1, 2, {'a': [3.5]}]
    """
    if isinstance(value, Mapping):
        return {str(k) if not isinstance(k, str) else k: to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        f = float(value)
        return None if math.isnan(f) else f
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def freeze(value: Any) -> Any:
    """Make parameters hashable (lists -> tuples, dicts -> sorted tuples of pairs).

    >>> freeze({"b": [1, 2], "a": None})
    (('a', None), ('b', (1, 2)))
    """
    if isinstance(value, Mapping):
        return tuple(sorted(((str(k), freeze(v)) for k, v in value.items()), key=lambda kv: kv[0]))
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, np.ndarray):
        return freeze(value.tolist())
    if isinstance(value, set):
        return tuple(sorted(freeze(v) for v in value))
    return value


@attrs.frozen
class Result:
    """What a treatment returns: new data, new roles (or ``None`` = unchanged), and notes.

    ``notes`` must be JSON-serialisable (use :func:`to_jsonable`): e.g. suppressions per variable,
    the PRAM transition matrix used, number of changed values per column.
    """

    data: pd.DataFrame
    roles: Roles | None = None
    notes: dict[str, Any] = attrs.field(factory=dict)


def param_names(value: Any, what: str, *, required: bool = False,
                unique: bool = True) -> tuple[str, ...]:
    """Column names of a treatment parameter as a tuple, or :class:`ParameterError`.

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
    """``value`` as a Python int in ``[lo, hi]``, or :class:`ParameterError` naming ``name``.

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
    """``value`` as a float in the given range, or :class:`ParameterError` naming ``name``.

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
    """``value`` as a bool, or :class:`ParameterError`: only ``True``/``False`` (or numpy bools).

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
    """``value`` if it is one of ``choices`` (compared as text labels), else :class:`ParameterError`.

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
    ``None`` / NaN), else :class:`ParameterError`. Lists, dicts, sets, tuples and other objects
    are refused: they cannot be categories of a column nor be written to a recipe.

    >>> check_label("mapping value", "north")
    'north'
    """
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        if missing:
            return value
        raise ParameterError(f"{name}: expected a category label, got a missing value")
    if not isinstance(value, _LABEL_TYPES):
        raise ParameterError(
            f"{name}: expected a category label (text, number or bool), got "
            f"{type(value).__name__} {_show(value)}")
    return value


def check_size(name: str, value: Any, limit: int = MAX_LABELS) -> int:
    """``len(value)`` when it is at most ``limit``, else :class:`ParameterError` (checked before
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
    """Raise :class:`TreatmentError` naming every column of ``columns`` absent from ``data``."""
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise TreatmentError(f"{what}: unknown column(s) {missing}; the data has {list(data.columns)}")


@attrs.frozen
class Treatment:
    """Base class of every treatment. Subclasses are ``@attrs.frozen`` with a ``type`` tag.

    Subclasses implement :meth:`apply` (and usually :meth:`check`); ``random`` tells whether the
    treatment draws from the step's generator.
    """

    type: ClassVar[str] = ""
    random: ClassVar[bool] = False

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        tag = cls.__dict__.get("type")
        if tag:
            if tag in TREATMENTS and TREATMENTS[tag].__qualname__ != cls.__qualname__:
                raise TypeError(f"treatment type {tag!r} registered twice")
            TREATMENTS[tag] = cls

    # ----------------------------------------------------------------- contract
    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        """Raise :class:`TreatmentError` if the treatment cannot apply to this data/roles."""

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        """Return the treated data. Must not mutate ``data``; draw only from ``rng``."""
        raise NotImplementedError

    def describe(self) -> str:
        """One line for history listings: ``type(param=value, ...)``."""
        params = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{self.type}({params})"

    # ------------------------------------------------------------ serialisation
    def params(self) -> dict[str, Any]:
        """The parameters as a JSON-serialisable dict (without the type tag)."""
        return to_jsonable(attrs.asdict(self, recurse=False))

    def to_dict(self) -> dict[str, Any]:
        """``{"type": tag, **parameters}`` — JSON-serialisable, inverse of :meth:`from_dict`."""
        return {"type": self.type, **self.params()}

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Treatment:
        """Build a treatment from ``{"type": tag, **parameters}`` (never executes code)."""
        if not isinstance(d, Mapping) or "type" not in d:
            raise RecipeError(f"a treatment must be a mapping with a 'type' key, got {d!r}")
        tag = d["type"]
        cls = TREATMENTS.get(tag)
        if cls is None:
            raise RecipeError(f"unknown treatment type {tag!r}; known: {sorted(TREATMENTS)}")
        names = {f.name for f in attrs.fields(cls)}
        params = {k: v for k, v in d.items() if k != "type"}
        unknown = sorted(set(params) - names)
        if unknown:
            raise RecipeError(f"treatment {tag!r}: unknown parameter(s) {unknown}; expected {sorted(names)}")
        try:
            return cls(**params)
        except ParameterError as e:
            raise RecipeError(f"treatment {tag!r}: {e}") from e
        except TypeError as e:
            raise RecipeError(f"treatment {tag!r}: {e}") from e
