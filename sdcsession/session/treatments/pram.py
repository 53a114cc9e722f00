"""Session methods of the PRAM family (a mixin of `SdcSession`).

Each method builds the frozen treatment of the same name (parameters validated at once, raising
`ParameterError`) and applies it as a new, undoable step; it returns the session so calls chain.
The formulas, references and parameter meanings are in the treatment classes
(``sdcsession.methods.pram``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._build import _build

__all__ = ["PramMethods"]


class PramMethods:
    """Session methods of the PRAM family."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def pram(self, columns: Iterable[str] | str, *, pd: float = 0.8, alpha: float = 0.5,
             matrix: Any = None, strata: Sequence[str] | str | None = None,
             invariant: bool = True, given: Sequence[str] | str | None = None,
             bandwidth: int | None = None) -> Any:
        """Invariant PRAM of categorical variables (see `Pram`).

        ``given``: variables whose combinations with each PRAMmed column must stay possible
        (PRAM within their strata; e.g. ``s.pram("occupation", given=["age_group"])`` never
        makes a student among the over-60s if the original has none); ``bandwidth``: an
        ordered category moves at most that many steps.
        """
        return self.apply(_build("pram", columns=columns, pd=pd, alpha=alpha, matrix=matrix,
                                 strata=() if strata is None else strata, invariant=invariant,
                                 given=() if given is None else given, bandwidth=bandwidth))
