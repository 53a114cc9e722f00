"""Session methods of the microaggregation (numeric, Gower) family (a mixin of `SdcSession`).

Each method builds the frozen treatment of the same name (parameters validated at once, raising
`ParameterError`) and applies it as a new, undoable step; it returns the session so calls chain.
The formulas, references and parameter meanings are in the treatment classes
(``sdcsession.methods.microaggregation``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._build import _build

__all__ = ["MicroaggregationMethods"]


class MicroaggregationMethods:
    """Session methods of the microaggregation (numeric, Gower) family."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def microaggregation(self, columns: Iterable[str] | str, *, k: int = 3,
                         method: str = "mdav", strata: Sequence[str] | str | None = None,
                         aggregate: str = "mean", sort_by: str | None = None,
                         weights: str | None = None) -> Any:
        """Replace values by group means of ≥ k similar records (MDAV by default; methods
        ``"rmd"``, ``"onedims"``, ``"single"`` (``sort_by``), ``"pca"``, ``"mcdpca"``,
        ``"pppca"``, ``"influence"``, ``"clustpppca"``, ``"simple"``, ...); ``weights``: a
        sampling-weight column for weighted group means."""
        return self.apply(_build("microaggregation", columns=columns, k=k, method=method,
                                 strata=() if strata is None else strata, aggregate=aggregate,
                                 sort_by=sort_by, weights=weights))

    def microaggregation_gower(self, columns: Iterable[str] | str, *, k: int = 3,
                               variable_weights: Mapping[str, float] | None = None,
                               aggregate: str = "mean") -> Any:
        """MDAV microaggregation of mixed categorical/numeric columns with the Gower distance
        (sdcMicro ``microaggrGower``): numeric columns get group means, categorical ones the
        group's most frequent category."""
        return self.apply(_build("microaggregation_gower", columns=columns, k=k,
                                 variable_weights=variable_weights, aggregate=aggregate))
