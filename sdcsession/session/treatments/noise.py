"""Session methods of the noise addition family (a mixin of `SdcSession`).

Each method builds the frozen treatment of the same name (parameters validated at once, raising
`ParameterError`) and applies it as a new, undoable step; it returns the session so calls chain.
The formulas, references and parameter meanings are in the treatment classes
(``sdcsession.methods.noise``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._build import _build

__all__ = ["NoiseMethods"]


class NoiseMethods:
    """Session methods of the noise addition family."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def add_noise(self, columns: Iterable[str] | str, *, method: str = "additive",
                  noise: float = 0.15) -> Any:
        """Add noise to numeric variables (sdcMicro ``noise=150`` is ``noise=1.5`` here);
        ``method="restricted"`` keeps the means and covariance matrix exactly (see `AddNoise`)."""
        return self.apply(_build("add_noise", columns=columns, method=method, noise=noise))
