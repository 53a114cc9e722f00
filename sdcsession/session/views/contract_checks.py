"""Utility contracts on states: the ``contract`` measure (cached per state) and the tables.

`check_state` evaluates contracts (`sdcsession.utility.contracts`) on a state against the
original, with the session's weight and household as defaults; every result is the measure
``contract`` of the state, so it is computed once per state and contract. `contract_specs` turns
contracts into comparison columns (their margin: ``bound - value``, >= 0 when met), so that
``compare``, sweeps and the optimiser show them like any other measure.

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(200, seed=1),
...                    keys=["region", "sex", "age5"], seed=1)
>>> c = sdc.contracts.category_share("region", max_share=0.0)
>>> check_state(s.local_suppression(k=3).state, [c])["passed"].tolist()
[False]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from ..measures import register
from .scenario_measures import MeasureSpec, measure_specs

if TYPE_CHECKING:  # pragma: no cover
    from ..state import State

__all__ = ["check_state", "contract_specs", "is_contract"]


@register("contract", "a utility contract on this state: pass/fail and margin", kind="utility")
def _contract(state: State, contract: Any) -> Any:
    from ...utility.contracts import contract_from_dict

    c = contract_from_dict(contract)
    r = state.original_roles
    return c.evaluate(state.original, state.data, weight=r.weight, household=r.household)


def is_contract(value: Any) -> bool:
    """Whether ``value`` is a utility contract (without importing the contracts package)."""
    import sys

    mod = sys.modules.get("sdcsession.utility.contracts.base")
    return mod is not None and isinstance(value, mod.Contract)


def check_state(state: State, contracts: Any) -> pd.DataFrame:
    """The contracts on ``state``: one row per contract (see
    `sdcsession.utility.contracts.check` for the columns), each result cached on the state."""
    from ...utility.contracts.base import as_contracts, results_table

    cs = as_contracts(contracts)
    return results_table([state.measure("contract", contract=c.to_dict()).as_row() for c in cs])


def contract_specs(contracts: Any) -> list[MeasureSpec]:
    """One comparison column per contract: ``"contract: <name>"``, its margin (higher is
    better; negative = violated; NaN = could not be evaluated).

    >>> import sdcsession as sdc
    >>> contract_specs([sdc.contracts.category_share("sex")])[0].column
    'contract: sex suppressed <= 0.05'
    """
    from ...utility.contracts.base import as_contracts

    return measure_specs(list(as_contracts(contracts)), [])
