"""Utility contracts: declarative requirements on the released data, checked against the original.

A contract says what must survive the anonymisation: "mean income by region within 2 %",
"the coefficients of this regression inside their confidence intervals", "no category of
``edu`` suppressed in more than 5 % of its records". Each is a frozen, hashable, JSON-serialisable
value; evaluated on (original, released) it gives a `ContractResult`: ``passed``, the
``value`` it measured, its ``bound`` and the ``margin = bound - value`` (see `base`).

- `base`: `Contract`, `ContractResult`, `check`, JSON (`contract_from_dict`, ...);
- `estimates`: `EstimateContract` (weighted indicators per group), `CoefficientContract`;
- `shares`: `CategoryContract`, `DistanceContract`, `MeasureContract`.

The functions below build them with short names: `estimate`, `coefficients`,
`category_share`, `distance`, `measure`. In a session, ``s.utility.check(contracts)`` checks
them on the current state, ``s.declare_contracts(...)`` makes them part of the release check,
and ``s.optimize(keep=contracts)`` keeps only plans that meet them.

Example
-------
>>> import sdcsession as sdc
>>> df = sdc.datasets.synthetic_survey(300, seed=1)
>>> keep = [sdc.contracts.estimate("mean:income", by="region", tolerance=0.02),
...         sdc.contracts.category_share("sex", max_share=0.05)]
>>> check(df, df, keep, weight="w")["passed"].tolist()
[True, True]
"""

from __future__ import annotations

from typing import Any

from .base import (
    CONTRACT_TYPES,
    RESULT_COLUMNS,
    Contract,
    ContractResult,
    as_contracts,
    check,
    contract_from_dict,
    contracts_from_json,
    contracts_to_json,
)
from .estimates import CoefficientContract, EstimateContract
from .shares import CategoryContract, DistanceContract, MeasureContract

__all__ = ["Contract", "ContractResult", "EstimateContract", "CoefficientContract",
           "CategoryContract", "DistanceContract", "MeasureContract", "CONTRACT_TYPES",
           "RESULT_COLUMNS", "estimate", "coefficients", "category_share", "distance", "measure",
           "check", "as_contracts", "contract_from_dict", "contracts_to_json",
           "contracts_from_json"]


def estimate(indicator: str, *, by: str | None = None, tolerance: float = 0.02,
             within: str = "relative", level: float = 0.95, method: str = "normal",
             weight: str | None = None, label: str | None = None,
             severity: str = "block") -> EstimateContract:
    """A weighted estimate (``"mean:income"``, ``"total:x"``, ``"median:x"``, ``"gini:x"``, ...)
    overall and per group of ``by`` within ``tolerance`` (relative: ``|θ_m − θ_o| / |θ_o| <=
    tolerance``) or, with ``within="ci"``, inside the original's ``level`` confidence interval.
    See `EstimateContract` (missing values: left out of each file's estimate).

    >>> estimate("mean:income", by="region").describe()
    'mean(income) by region within 0.02'
    """
    return EstimateContract(indicator=indicator, by=by, tolerance=tolerance, within=within,
                            level=level, method=method, weight=weight, label=label,
                            severity=severity)


def coefficients(formula: str, *, terms: Any = None, within: str = "ci",
                 tolerance: float = 0.05, level: float = 0.95, model: str = "ols",
                 weight: str | None = None, label: str | None = None,
                 severity: str = "block") -> CoefficientContract:
    """Coefficients of ``formula`` (``terms``; None: all but the intercept) fitted on the released
    file inside the original fit's ``level`` Wald intervals (``within="ci"``) or within a
    relative ``tolerance``. See `CoefficientContract` (missing values: listwise per fit).

    >>> coefficients("income ~ age", terms="age").describe()
    'income ~ age: age in their 95% CI'
    """
    return CoefficientContract(formula=formula, terms=terms, within=within, tolerance=tolerance,
                               level=level, model=model, weight=weight, label=label,
                               severity=severity)


def category_share(column: str, *, categories: Any = None, max_share: float = 0.05,
                   change: str = "suppressed", label: str | None = None,
                   severity: str = "block") -> CategoryContract:
    """At most ``max_share`` of the records of each category of ``column`` (or of the
    ``categories`` named) suppressed (``change="changed"``: changed). See `CategoryContract`
    (missing values: missing in the original = no category).

    >>> category_share("edu", max_share=0.05).describe()
    'edu suppressed <= 0.05'
    """
    return CategoryContract(column=column, categories=categories, max_share=max_share,
                            change=change, label=label, severity=severity)


def distance(columns: Any, *, distance: str = "correlation", bound: float = 0.05,
             label: str | None = None, severity: str = "block") -> DistanceContract:
    """The correlation difference (``"correlation"``) or a distribution distance (``"ks"``,
    ``"hellinger"``, ``"total_variation"``) of ``columns`` at most ``bound``. See
    `DistanceContract` (missing values: pairwise complete / left out).

    >>> distance(["income", "expend"], bound=0.1).describe()
    'correlation distance of income, expend <= 0.1'
    """
    return DistanceContract(columns=columns, distance=distance, bound=bound, label=label,
                            severity=severity)


def measure(name: str, *, bound: float, params: Any = None, field: str | None = None,
            reduce: str = "max", label: str | None = None,
            severity: str = "block") -> MeasureContract:
    """Any measure of the utility catalogue, read as one number, at most ``bound``. See
    `MeasureContract` (missing values: the measure's rule).

    >>> measure("il1s", bound=0.5, params={"columns": ["income"]}).describe()
    'il1s <= 0.5'
    """
    return MeasureContract(measure_name=name, bound=bound, params=params, field=field,
                           reduce=reduce, label=label, severity=severity)
