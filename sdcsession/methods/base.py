"""Treatments as values: the `Treatment` base class, its registry and `Result`.

A treatment is a frozen attrs class whose fields are its parameters. Parameters are validated at
construction (`ParameterError` at once); `Treatment.check` validates
against the data and roles of a state (`TreatmentError`, session
unchanged); `Treatment.apply` runs the pure kernel and returns a `Result` with the new
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

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError, RecipeError
from ..roles import Roles
from .encoding import (
    canonical,
    decode_value,
    encode_value,
    freeze,
    label_order,
    to_jsonable,
    typed_freeze,
)
from .params import (
    MAX_LABELS,
    check_bool,
    check_choice,
    check_int,
    check_label,
    check_names,
    check_number,
    check_size,
    is_missing,
    param_names,
    require_columns,
)

__all__ = ["Treatment", "Result", "TREATMENTS", "require_columns", "to_jsonable", "freeze",
           "param_names", "canonical", "is_missing", "encode_value", "decode_value", "typed_freeze",
           "label_order", "check_names", "check_int", "check_number", "check_bool", "check_choice",
           "check_label", "check_size", "MAX_LABELS"]

#: the modules whose import registers treatment types: every family of ``sdcsession.methods``
#: and the ``generalize`` treatment of ``sdcsession.privacy`` (a plug-in list, like entry points)
TREATMENT_MODULES = [
    "sdcsession.methods.basic", "sdcsession.methods.recoding", "sdcsession.methods.suppression",
    "sdcsession.methods.microaggregation", "sdcsession.methods.noise",
    "sdcsession.methods.noise.weights",
    "sdcsession.methods.swapping", "sdcsession.methods.pram", "sdcsession.privacy.treatment",
    "sdcsession.tables.keys",
]


class _Registry(dict):
    """tag -> `Treatment` subclass. Reading it imports every module of `TREATMENT_MODULES` once,
    so a recipe may name any treatment type before its family was imported."""

    _complete = False

    def _load(self) -> None:
        if not _Registry._complete:
            _Registry._complete = True
            import importlib

            for name in TREATMENT_MODULES:
                importlib.import_module(name)

    def __getitem__(self, key: Any) -> Any:
        if not dict.__contains__(self, key):
            self._load()
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        if not dict.__contains__(self, key):
            self._load()
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        if not dict.__contains__(self, key):
            self._load()
        return dict.__contains__(self, key)

    def __iter__(self) -> Any:
        self._load()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._load()
        return dict.__len__(self)

    def keys(self) -> Any:
        self._load()
        return dict.keys(self)

    def values(self) -> Any:
        self._load()
        return dict.values(self)

    def items(self) -> Any:
        self._load()
        return dict.items(self)


#: tag -> Treatment subclass (every treatment type, loaded on first read)
TREATMENTS: dict[str, type[Treatment]] = _Registry()


@attrs.frozen
class Result:
    """What a treatment returns: new data, new roles (or ``None`` = unchanged), and notes.

    ``notes`` must be JSON-serialisable (use `to_jsonable`): e.g. suppressions per variable,
    the PRAM transition matrix used, number of changed values per column.
    """

    data: pd.DataFrame
    roles: Roles | None = None
    notes: dict[str, Any] = attrs.field(factory=dict)


def _whole(v: Any) -> Any:
    """Whole-number floats as ints, in nested lists and dicts (display only: ``k=3``, not 3.0)."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return int(v)
    if isinstance(v, list):
        return [_whole(x) for x in v]
    if isinstance(v, dict):
        return {k: _whole(x) for k, x in v.items()}
    return v


@attrs.frozen
class Treatment:
    """Base class of every treatment. Subclasses are ``@attrs.frozen`` with a ``type`` tag.

    Subclasses implement `apply` (and usually `check`); ``random`` tells whether the
    treatment draws from the step's generator.
    """

    type: ClassVar[str] = ""
    random: ClassVar[bool] = False
    #: values of parameters added after recipes were first written, used by `from_dict` when a
    #: stored treatment lacks them (so older recipes replay as they were recorded)
    recorded_defaults: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        tag = cls.__dict__.get("type")
        if tag:
            if (dict.__contains__(TREATMENTS, tag)
                    and dict.__getitem__(TREATMENTS, tag).__qualname__ != cls.__qualname__):
                raise TypeError(f"treatment type {tag!r} registered twice")
            dict.__setitem__(TREATMENTS, tag, cls)

    # ----------------------------------------------------------------- contract
    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        """Raise `TreatmentError` if the treatment cannot apply to this data/roles."""

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        """Return the treated data. Must not mutate ``data``; draw only from ``rng``."""
        raise NotImplementedError

    def describe(self) -> str:
        """One line for history listings: ``type(param=value, ...)``."""
        params = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{self.type}({params})"

    # ------------------------------------------------------------ serialisation
    @classmethod
    def recorded_params(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters of a stored step completed for replay: a parameter the step lacks
        (it was written before the parameter existed) takes its value in `recorded_defaults`,
        the behaviour of the versions that wrote it, not the class default of new steps.
        Subclasses whose old behaviour depends on which other parameters were written override
        this (and call it). `from_dict` applies it to decoded parameters.

        >>> from sdcsession.methods.suppression import LocalSuppression
        >>> LocalSuppression.recorded_params({"k": 3})["engine"]
        'rounds'
        """
        out = dict(params)
        for k, v in cls.recorded_defaults.items():
            out.setdefault(k, v)
        return out

    def params(self) -> dict[str, Any]:
        """The parameters as a JSON-serialisable dict for display (without the type tag; lossy:
        see `to_jsonable`; a whole-number float such as ``k=3.0`` is shown as the integer 3).
        Recipes use `to_dict`."""
        return _whole(to_jsonable(attrs.asdict(self, recurse=False)))

    def to_dict(self) -> dict[str, Any]:
        """``{"type": tag, **parameters}`` as JSON data, every parameter encoded losslessly with
        `encode_value`; inverse of `from_dict`."""
        out: dict[str, Any] = {"type": self.type}
        for f in attrs.fields(type(self)):
            if f.init:
                out[f.alias] = encode_value(getattr(self, f.name),
                                            where=f"treatment {self.type!r}, parameter {f.alias!r}")
        return out

    @staticmethod
    def from_dict(d: Mapping[str, Any], *, tagged: bool = True) -> Treatment:
        """Build a treatment from ``{"type": tag, **parameters}`` (never executes code).

        ``tagged=True`` decodes the typed values of `encode_value` (``$map``, ``$missing``,
        ``$float``); ``tagged=False`` takes the parameters as they are (recipes of format 1).
        """
        if not isinstance(d, Mapping) or "type" not in d:
            raise RecipeError(f"a treatment must be a mapping with a 'type' key, got {d!r}")
        tag = d["type"]
        cls = TREATMENTS.get(tag) if isinstance(tag, str) else None
        if cls is None:
            raise RecipeError(f"unknown treatment type {tag!r}; known: {sorted(TREATMENTS)}")
        names = {f.alias for f in attrs.fields(cls) if f.init}
        params = {k: v for k, v in d.items() if k != "type"}
        unknown = sorted(map(str, set(params) - names))
        if unknown:
            raise RecipeError(f"treatment {tag!r}: unknown parameter(s) {unknown}; expected {sorted(names)}")
        if tagged:
            params = {k: decode_value(v, where=f"treatment {tag!r}, parameter {k!r}")
                      for k, v in params.items()}
        params = cls.recorded_params(params)
        try:
            return cls(**params)
        except ParameterError as e:
            raise RecipeError(f"treatment {tag!r}: {e}") from e
        except TypeError as e:
            raise RecipeError(f"treatment {tag!r}: {e}") from e
