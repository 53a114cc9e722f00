"""The utility contracts a session declares: part of its recipe and of its release check.

``s.declare_contracts(c1, c2, ...)`` (or ``s.contracts = [c1, c2]``) declares the requirements
on the released data that the analyst wants kept (`sdcsession.utility.contracts`). They belong
to the session's history tree (every branch shares them), travel in its recipe (entry
``"contracts"``, present only when some are declared, so older recipes read unchanged) and are
checked by the release check: a failed contract is a finding of check ``contract`` with the
contract's severity (``block`` by default).

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(200, seed=1), keys=["region", "sex"],
...                    weight="w", seed=1)
>>> s.declare_contracts(sdc.contracts.estimate("mean:income", by="region"))
>>> [c.type for c in s.contracts]
['estimate']
>>> sdc.SdcSession.from_recipe(s.original, s.to_recipe()).contracts == s.contracts
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["ContractsMixin", "declared_contracts"]


def declared_contracts(session: Any) -> tuple[Any, ...]:
    """The contracts ``session`` declared (an empty tuple when none)."""
    return tuple(getattr(session._tree, "contracts", ()))


class ContractsMixin:
    """``contracts`` and ``declare_contracts`` of a session (see the module docstring)."""

    _tree: Any

    @property
    def contracts(self) -> tuple[Any, ...]:
        """The declared utility contracts (shared by every branch of the tree)."""
        return declared_contracts(self)

    @contracts.setter
    def contracts(self, value: Any) -> None:
        self.declare_contracts(*([] if value is None else [value]))

    def declare_contracts(self, *contracts: Any) -> None:
        """Declare the utility contracts the release must meet (replacing those declared
        before; no argument clears them). Each is checked on the original at once, so a
        column, term or category it names that does not exist is a `ParameterError` here
        and nothing is declared.

        ``declare_contracts(c1, c2)`` and ``declare_contracts([c1, c2])`` are the same.
        """
        from ..errors import ParameterError
        from ..utility.contracts.base import as_contracts, validate_on

        flat: list[Any] = []
        for c in contracts:
            flat.extend(c if isinstance(c, (list, tuple)) else [c])
        cs = as_contracts(flat)
        root = self._tree.root.state
        if cs and root.distributed:
            raise ParameterError("contracts: utility contracts are evaluated on data in memory; "
                                 "a Dask session cannot declare them (check them on a sample "
                                 "with sdcsession.contracts.check)")
        validate_on(root.original, cs, weight=root.original_roles.weight,
                    household=root.original_roles.household)
        self._tree.contracts = cs

    def _restore_contracts(self, recipe: Mapping[str, Any]) -> None:
        """Declare the contracts of a recipe's ``"contracts"`` entry (if any)."""
        from ..errors import ParameterError, RecipeError
        from ..utility.contracts.base import contracts_from_json

        data = recipe.get("contracts")
        if data is None:
            return
        try:
            self.declare_contracts(*contracts_from_json(data))
        except ParameterError as e:
            raise RecipeError(f"contracts: {e}") from None
