"""Session methods of the local suppression (k-anonymity, by risk) family (a mixin of `SdcSession`).

Each method builds the frozen treatment of the same name (parameters validated at once, raising
`ParameterError`) and applies it as a new, undoable step; it returns the session so calls chain.
The formulas, references and parameter meanings are in the treatment classes
(``sdcsession.methods.suppression``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._build import _build

__all__ = ["SuppressionMethods"]


class SuppressionMethods:
    """Session methods of the local suppression (k-anonymity, by risk) family."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def local_suppression(self, k: float | Mapping[Any, float] | Sequence[float] = 3, *,
                          importance: Sequence[str] | None = None,
                          strata: Sequence[str] | str | None = None,
                          combinations: int | None = None, weighted: bool = False,
                          household: bool = False,
                          subsets: Sequence[Sequence[str]] | None = None,
                          max_suppressed_per_record: int | None = None,
                          engine: str = "auto") -> Any:
        """Suppress key values until every record's combination has fk ≥ k (missing = wildcard).

        ``importance``: key names, most important first (suppressed last); ``household=True``
        suppresses key variables that are constant within households for all members. ``k`` may
        be given per stratum: ``{stratum: k}`` or a list aligned with the sorted strata levels.
        ``subsets``: key subsets that must each be k-anonymous, ``k`` then one number or one per
        subset (``subsets=[["sex", "age"], ["region", "age"]], k=[5, 3]``); the release check
        verifies the subsets of the last such step. Missing values count as in
        ``s.risk.frequencies`` (wildcards weighted by the session's alpha).
        ``max_suppressed_per_record``: with more than 11 keys (the hub trie), the most key
        values one record loses (default half the keys; fallback records excepted).
        ``engine``: ``"auto"`` (the suppression rounds up to 11 keys, the hub trie beyond),
        or one engine for any number of keys: ``"rounds"``, ``"hub_trie"`` or ``"cluster"``
        (the last two need ``weighted=False``); recorded in the step, so a recipe replays
        with the engine it ran with.
        See `LocalSuppression` for the algorithm.
        """
        return self.apply(_build(
            "local_suppression", k=k, importance=importance, strata=strata,
            combinations=combinations, weighted=weighted, household=household,
            subsets=subsets, alpha=getattr(self, "alpha", 1.0),
            max_suppressed_per_record=max_suppressed_per_record, engine=engine))

    def suppress_by_risk(self, threshold: float = 0.15, *, column: str | None = None,
                         importance: Sequence[str] | None = None) -> Any:
        """Suppress a key value in each record whose individual risk exceeds ``threshold``."""
        return self.apply(_build("suppress_by_risk", threshold=threshold, column=column,
                                 importance=importance))
