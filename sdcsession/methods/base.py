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
           "param_names"]

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
