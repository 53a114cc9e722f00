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
             invariant: bool = True) -> Any:
        """Invariant PRAM of categorical variables (see `Pram`)."""
        return self.apply(_build("pram", columns=columns, pd=pd, alpha=alpha, matrix=matrix,
                                 strata=() if strata is None else strata, invariant=invariant))
