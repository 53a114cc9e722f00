"""Session methods for multivariate treatments (issue 18): `mv_top_code`, `microaggregation_gower`,
`local_recode`.

Each builds the frozen treatment of the same name (parameters validated at once, raising
`ParameterError`) and applies it as a new, undoable step; formulas and references are in
``sdcsession.methods.mv_top_coding``, ``sdcsession.methods.microaggregation_gower`` and
``sdcsession.methods.local_recoding``.

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(300, seed=1),
...                    keys=["region", "sex", "age5"], numeric=["income", "expend"], seed=1)
>>> s.mv_top_code(["income", "expend"]).history[-1].notes["changed"] >= 0
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .treatment_methods import _build

__all__ = ["MultivariateMethods"]


class MultivariateMethods:
    """Session methods for multivariate treatments (issue 18)."""

    def mv_top_code(self, columns: Iterable[str] | str, *, alpha: float = 0.025) -> Any:
        """Pull multivariate outliers (robust Mahalanobis distance above χ²_p(1 − alpha)) back
        onto the robust ellipsoid (sdcMicro ``mvTopCoding``)."""
        return self.apply(_build("mv_top_code", columns=columns, alpha=alpha))

    def microaggregation_gower(self, columns: Iterable[str] | str, *, k: int = 3,
                               variable_weights: Mapping[str, float] | None = None,
                               aggregate: str = "mean") -> Any:
        """MDAV microaggregation of mixed categorical/numeric columns with the Gower distance
        (sdcMicro ``microaggrGower``): numeric columns get group means, categorical ones the
        group's most frequent category."""
        return self.apply(_build("microaggregation_gower", columns=columns, k=k,
                                 variable_weights=variable_weights, aggregate=aggregate))

    def local_recode(self, columns: Iterable[str] | str | None = None, *, k: int = 2,
                     weights: Mapping[str, float] | None = None,
                     ancestors: Mapping[str, Sequence[str]] | None = None) -> Any:
        """Progressive local recoding (sdcMicro ``LocalRecProg``, Takemura 2002): each record
        with fk < k is recoded with the fewest partners to their cheapest common value (lowest
        common ancestor, else missing), until every record has fk ≥ k under the session's own
        counts (missing = wildcard, the session's ``alpha``). ``columns`` default: the keys."""
        if columns is None:
            columns = list(self.roles.keys)
        return self.apply(_build("local_recode", columns=columns, k=k, weights=weights,
                                 ancestors=ancestors, alpha=self.alpha))
