"""Session methods for ARX-style optimal generalisation under privacy models:
`generalize` (one undoable, replayable step) and `generalization` (what the last such step on
the path to HEAD chose).

Examples
--------
>>> import sdcsession as sdc
>>> df = sdc.datasets.synthetic_survey(300, seed=1)
>>> s = sdc.SdcSession(df, keys=["region", "sex"], seed=1)
>>> h = {"sex": sdc.Hierarchy.from_nested({"*": list(df["sex"].dropna().unique())})}
>>> s.generalize(h, [sdc.privacy.KAnonymity(2)]).generalization.levels
{'sex': 0}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import ParameterError, SdcError

__all__ = ["PrivacyMethods"]


class PrivacyMethods:
    """Session methods for ARX-style optimal generalisation under privacy models ."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def generalize(self, hierarchies: Mapping[str, Any], privacy: Any, *,
                   max_suppression: float = 0.0, metric: str = "loss",
                   search: str = "optimal", baseline: str | None = "datafly") -> Any:
        """Full-domain generalisation of the key variables in ``hierarchies`` ({column:
        `Hierarchy`}) to the node of the lattice with least ``metric`` that satisfies every
        ``privacy`` model, suppressing (all quasi-identifiers missing) the records of violating
        classes, at most ``max_suppression`` × n of them. ``search``: "optimal" (exact, branch
        and bound) or "heuristic" (greedy). ``metric`` defaults to "loss" (Iyengar's loss,
        ARX's default quality model); ``baseline="datafly"`` (default) accepts only nodes that
        suppress no more records and generalise no more than the Datafly heuristic's node
        (anjana's greedy rule), so the result is never worse than it in suppressions nor in
        precision; ``None`` searches the whole lattice. One step; the choice is in
        ``s.generalization``. See ``sdcsession.privacy`` for the models, metrics and the
        algorithm."""
        from ...privacy.treatment import Generalize

        try:
            t = Generalize(hierarchies, privacy, max_suppression=max_suppression,
                           metric=metric, search=search, baseline=baseline)
        except SdcError:
            raise
        except (TypeError, ValueError, ArithmeticError, KeyError, IndexError,
                AttributeError) as e:
            raise ParameterError(
                f"generalize: invalid parameters ({type(e).__name__}: {str(e)[:200]})") from e
        return self.apply(t)

    @property
    def generalization(self) -> Any:
        """The `GeneralizationResult` of the last ``generalize`` step on the path to HEAD
        (``.levels``, ``.value``, ``.suppressed``, ``.nodes_checked``, ``.lattice``), or None."""
        from ...privacy.treatment import GeneralizationResult

        step = self.head  # type: ignore[attr-defined]
        while step is not None:
            if step.treatment is not None and step.treatment.type == "generalize":
                return GeneralizationResult.from_notes(step.notes)
            step = step.parent
        return None

    @property
    def last_generalization(self) -> Any:
        """Alias of `generalization`."""
        return self.generalization
