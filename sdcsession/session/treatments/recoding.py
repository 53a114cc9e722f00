"""Session methods of the recoding (global recode, grouping, top/bottom coding, rounding, multivariate top coding, local recoding) family (a mixin of `SdcSession`).

Each method builds the frozen treatment of the same name (parameters validated at once, raising
`ParameterError`) and applies it as a new, undoable step; it returns the session so calls chain.
The formulas, references and parameter meanings are in the treatment classes
(``sdcsession.methods.recoding``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._build import _build

__all__ = ["RecodingMethods"]


class RecodingMethods:
    """Session methods of the recoding (global recode, grouping, top/bottom coding, rounding, multivariate top coding, local recoding) family."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def global_recode(self, column: str, breaks: Sequence[float] | int | None = None, *,
                      method: str | None = None, n: int | None = None,
                      labels: Sequence[str] | None = None, right: bool = True,
                      include_outside: bool = False) -> Any:
        """Recode a numeric key into intervals: ``breaks`` (right-closed by default; an integer
        means that many equal-width intervals, as sdcMicro's ``globalRecode(breaks=5)``), or
        ``method="equidistant" | "quantile" | "log_equidistant"`` with ``n`` groups
        (``"quantile"`` and ``"log_equidistant"`` are sdcMicro's ``equalAmount`` and ``logEqui``
        intervals; see `GlobalRecode`)."""
        return self.apply(_build("global_recode", column=column, breaks=breaks, method=method,
                                 n=n, labels=labels, right=right,
                                 include_outside=include_outside))

    def group_categories(self, column: str, groups: Mapping[Any, Iterable[Any]]) -> Any:
        """Merge categories: ``{"new": [old, ...], ...}`` (see `GroupCategories`)."""
        return self.apply(_build("group_categories", column=column, groups=groups))

    def top_bottom_code(self, column: str, value: Any, replacement: Any, *,
                        kind: str = "top") -> Any:
        """Replace values above (``kind="top"``) or below (``"bottom"``) ``value`` by ``replacement``."""
        return self.apply(_build("top_bottom_code", column=column, value=value,
                                 replacement=replacement, kind=kind))

    def round_values(self, columns: Iterable[str] | str, *, digits: int | None = None,
                     base: float | None = None) -> Any:
        """Round numeric variables to ``digits`` decimals or to multiples of ``base``."""
        return self.apply(_build("round_values", columns=columns, digits=digits, base=base))

    def mv_top_code(self, columns: Iterable[str] | str, *, alpha: float = 0.025) -> Any:
        """Pull multivariate outliers (robust Mahalanobis distance above χ²_p(1 − alpha)) back
        onto the robust ellipsoid (sdcMicro ``mvTopCoding``)."""
        return self.apply(_build("mv_top_code", columns=columns, alpha=alpha))

    def local_recode(self, columns: Iterable[str] | str | None = None, *, k: int = 2,
                     weights: Mapping[str, float] | None = None,
                     ancestors: Mapping[str, Sequence[str]] | None = None,
                     engine: str = "auto", max_suppressed_per_record: int | None = None) -> Any:
        """Progressive local recoding (sdcMicro ``LocalRecProg``, Takemura 2002): each record
        with fk < k is recoded with the fewest partners to their cheapest common value (lowest
        common ancestor, else missing), until every record has fk ≥ k under the session's own
        counts (missing = wildcard, the session's ``alpha``). ``columns`` default: the keys.
        With many keys (``engine="auto"``: more than 11, no ancestors, alpha = 1) the hub-trie
        programme, where no record loses more than ``max_suppressed_per_record`` key values
        (default half of them) except documented fallbacks; see
        `sdcsession.methods.recoding.local_recoding.local_recode`."""
        if columns is None:
            columns = list(self.roles.keys)
        return self.apply(_build("local_recode", columns=columns, k=k, weights=weights,
                                 ancestors=ancestors, alpha=self.alpha, engine=engine,
                                 max_suppressed_per_record=max_suppressed_per_record))
