"""The contract base: `Contract`, its `ContractResult`, the registry of contract types, JSON and
the evaluation of a list of contracts (`check`).

A contract is a frozen, hashable value: a requirement on the released data that is evaluated
against the original file. Every contract reduces its requirement to one number ``value`` and a
``bound`` with "lower is better": it passes when ``value <= bound``, and its ``margin`` is
``bound - value`` (positive: room left; negative: how far it is violated). A value that cannot
be computed (a column removed, a group that vanished, a failed fit) is NaN and fails.

Contracts are JSON data: ``to_dict()`` is ``{"type": <tag>, <field>: <value>, ...}`` with every
value encoded losslessly (`sdcsession.methods.base.encode_value`), and `contract_from_dict`
inverts it (unknown types and fields are a `RecipeError`, values a contract refuses a
`ParameterError`), so a session's declared contracts travel in its recipe.

Example
-------
>>> from sdcsession.utility.contracts import category_share
>>> c = category_share("sex", max_share=0.05)
>>> contract_from_dict(c.to_dict()) == c
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError, RecipeError
from ...methods.base import decode_value, encode_value

__all__ = ["Contract", "ContractResult", "CONTRACT_TYPES", "RESULT_COLUMNS", "contract_from_dict",
           "contracts_from_json", "contracts_to_json", "as_contracts", "check", "result",
           "validate_on"]

#: the types of contract by their ``type`` tag (filled by `Contract.__init_subclass__`)
CONTRACT_TYPES: dict[str, type[Contract]] = {}
#: the columns of `check`'s table
RESULT_COLUMNS = ["contract", "type", "passed", "value", "bound", "margin", "severity", "detail"]
SEVERITIES = ("block", "warn")


@attrs.frozen
class ContractResult:
    """The outcome of one contract on one file: ``passed`` (``value <= bound``; False when the
    value is NaN), ``value``, ``bound``, ``margin = bound - value`` and a ``detail`` text naming
    the worst group, term or category.

    >>> ContractResult("c", "estimate", True, 0.01, 0.02, 0.01, "block", "").passed
    True
    """

    contract: str
    type: str
    passed: bool
    value: float
    bound: float
    margin: float
    severity: str
    detail: str

    def as_row(self) -> dict[str, Any]:
        """The result as a row of `check`'s table."""
        return {c: getattr(self, c) for c in RESULT_COLUMNS}


def _severity(value: Any) -> str:
    if not isinstance(value, str) or value not in SEVERITIES:
        raise ParameterError(f"severity: expected 'block' or 'warn', got {value!r:.60}")
    return value


def _label(value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ParameterError(f"label: expected a non-empty string or None, got {value!r:.60}")
    return value


@attrs.frozen(kw_only=True)
class Contract:
    """Base of every contract: a ``label`` (None: a description is made from the fields) and
    the ``severity`` of its release-check finding when it fails (``"block"`` or ``"warn"``).

    Subclasses set the class attribute ``type`` (their JSON tag) and implement ``measure``,
    which returns ``(value, bound, detail)``.
    """

    type: ClassVar[str] = ""
    label: str | None = attrs.field(default=None, converter=_label)
    severity: str = attrs.field(default="block", converter=_severity)

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.__dict__.get("type"):
            CONTRACT_TYPES[cls.type] = cls

    @property
    def name(self) -> str:
        """The label, or a description built from the fields."""
        return self.label or self.describe()

    def describe(self) -> str:  # pragma: no cover - every subclass describes itself
        return self.type

    def measure(self, original: pd.DataFrame, masked: pd.DataFrame, *, weight: str | None,
                household: str | None) -> tuple[float, float, str]:  # pragma: no cover
        raise NotImplementedError

    def evaluate(self, original: pd.DataFrame, masked: pd.DataFrame, *,
                 weight: str | None = None, household: str | None = None) -> ContractResult:
        """The contract on ``masked`` against ``original`` (``weight``, ``household``: the
        columns a contract without its own uses). A `MeasureError` (a column missing, a
        failed fit) gives a failed result with the message as detail."""
        try:
            value, bound, detail = self.measure(original, masked, weight=weight,
                                                household=household)
        except MeasureError as e:
            value, bound, detail = math.nan, self.bound_value(), f"cannot be evaluated: {e}"
        return result(self, value, bound, detail)

    def bound_value(self) -> float:
        """The bound of the contract's value (1 for the confidence-interval forms)."""
        return float(getattr(self, "bound", getattr(self, "tolerance", 1.0)))

    def to_dict(self) -> dict[str, Any]:
        """The contract as JSON data (``type`` and every field, encoded losslessly)."""
        out: dict[str, Any] = {"type": self.type}
        for f in attrs.fields(type(self)):
            out[f.name] = encode_value(getattr(self, f.name), where=f"contract {self.type!r}")
        return out


def result(contract: Contract, value: float, bound: float, detail: str) -> ContractResult:
    """A `ContractResult` of ``contract`` from its value and bound."""
    value, bound = float(value), float(bound)
    passed = bool(not math.isnan(value) and value <= bound)
    margin = bound - value if not math.isnan(value) else math.nan
    return ContractResult(contract.name, contract.type, passed, value, bound, margin,
                          contract.severity, detail)


def contract_from_dict(data: Any) -> Contract:
    """Inverse of `Contract.to_dict`.

    >>> contract_from_dict({"type": "nope"})
    Traceback (most recent call last):
    ...
    sdcsession.errors.RecipeError: contract: unknown type 'nope'; the types are ['category', 'coefficients', 'distance', 'estimate', 'measure']
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("type"), str):
        raise RecipeError(f"contract: expected a mapping with a 'type', got {data!r:.80}")
    cls = CONTRACT_TYPES.get(data["type"])
    if cls is None:
        raise RecipeError(f"contract: unknown type {data['type']!r:.40}; the types are "
                          f"{sorted(CONTRACT_TYPES)}")
    fields = {f.name for f in attrs.fields(cls)}
    kw = {k: v for k, v in data.items() if k != "type"}
    unknown = sorted(set(kw) - fields)
    if unknown:
        raise RecipeError(f"contract {data['type']!r}: unknown field(s) {unknown}; its fields "
                          f"are {sorted(fields)}")
    kw = {k: decode_value(v, where=f"contract {data['type']!r}") for k, v in kw.items()}
    try:
        return cls(**kw)
    except TypeError as e:
        raise RecipeError(f"contract {data['type']!r}: {e}") from None


def as_contracts(contracts: Any, what: str = "contracts") -> tuple[Contract, ...]:
    """``contracts`` (one `Contract`, a list of them, or their dicts) as a tuple of contracts;
    a `ParameterError` names what is not one.

    >>> as_contracts([])
    ()
    """
    if isinstance(contracts, (Contract, Mapping)):
        contracts = [contracts]
    if isinstance(contracts, (str, bytes)) or not isinstance(contracts, Sequence):
        raise ParameterError(f"{what}: expected a contract or a list of contracts "
                             f"(sdcsession.contracts), got {type(contracts).__name__}")
    out = []
    for i, c in enumerate(contracts, 1):
        if isinstance(c, Mapping):
            try:
                c = contract_from_dict(c)
            except RecipeError as e:
                raise ParameterError(f"{what}[{i}]: {e}") from None
        if not isinstance(c, Contract):
            raise ParameterError(f"{what}[{i}]: expected a contract (sdcsession.contracts), got "
                                 f"{type(c).__name__}")
        out.append(c)
    names = [c.name for c in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ParameterError(f"{what}: contract(s) {dup} given twice (give each a distinct label)")
    return tuple(out)


def validate_on(original: pd.DataFrame, contracts: Sequence[Contract], *,
                weight: str | None = None, household: str | None = None,
                what: str = "contracts") -> None:
    """`ParameterError` unless every contract can be evaluated on ``original`` against itself
    (the columns, terms and categories it names exist; a model can be fitted)."""
    for c in contracts:
        r = c.evaluate(original, original, weight=weight, household=household)
        if math.isnan(r.value):
            raise ParameterError(f"{what}: contract {c.name!r} cannot be evaluated on the "
                                 f"original data: {r.detail}")


def contracts_to_json(contracts: Sequence[Contract]) -> list[dict[str, Any]]:
    """A list of contracts as JSON data (`Contract.to_dict` each)."""
    return [c.to_dict() for c in contracts]


def contracts_from_json(data: Any) -> tuple[Contract, ...]:
    """Inverse of `contracts_to_json` (`RecipeError` on anything else)."""
    if not isinstance(data, list):
        raise RecipeError(f"contracts: expected a list of contracts, got {type(data).__name__}")
    try:
        return tuple(contract_from_dict(d) for d in data)
    except ParameterError as e:
        raise RecipeError(f"contracts: {e}") from None


def check(original: pd.DataFrame, masked: pd.DataFrame, contracts: Any, *,
          weight: str | None = None, household: str | None = None) -> pd.DataFrame:
    """Evaluate every contract on ``masked`` against ``original``: one row per contract with
    ``contract`` (its name), ``type``, ``passed``, ``value``, ``bound``, ``margin``
    (``bound - value``), ``severity`` and ``detail``.

    ``weight`` and ``household`` are the columns the contracts without their own use.
    Missing values: each contract's own rule (see its class); a contract that cannot be
    evaluated fails with NaN value and margin.

    Example
    -------
    >>> import pandas as pd
    >>> from sdcsession.utility.contracts import category_share
    >>> o = pd.DataFrame({"sex": ["m", "f", "m", "f"]})
    >>> t = check(o, o.assign(sex=["m", None, "m", "f"]), [category_share("sex", max_share=0.25)])
    >>> t[["passed", "value", "margin"]].values.tolist()
    [[False, 0.5, -0.25]]
    """
    cs = as_contracts(contracts)
    for what, frame in (("original", original), ("masked", masked)):
        if not isinstance(frame, pd.DataFrame):
            raise ParameterError(f"{what}: expected a pandas DataFrame, got "
                                 f"{type(frame).__name__}")
    rows = [c.evaluate(original, masked, weight=weight, household=household).as_row()
            for c in cs]
    return results_table(rows)


def results_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows of results as `check`'s table (typed columns, also when empty)."""
    t = pd.DataFrame(rows, columns=RESULT_COLUMNS)
    t["passed"] = t["passed"].astype(bool)
    for c in ("value", "bound", "margin"):
        t[c] = t[c].astype(float)
    return t


def worst(values: np.ndarray, names: Sequence[Any]) -> tuple[float, int]:
    """The largest value (NaN when any value is NaN: an estimate that cannot be made fails) and
    its position."""
    v = np.asarray(values, dtype=float)
    if not len(v):
        raise MeasureError("nothing to compare")
    if np.isnan(v).any():
        i = int(np.flatnonzero(np.isnan(v))[0])
        return math.nan, i
    i = int(np.argmax(v))
    return float(v[i]), i

