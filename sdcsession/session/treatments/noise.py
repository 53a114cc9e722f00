"""Session methods of the noise addition family (a mixin of `SdcSession`).

Each method builds the frozen treatment of the same name (parameters validated at once, raising
`ParameterError`) and applies it as a new, undoable step; it returns the session so calls chain.
The formulas, references and parameter meanings are in the treatment classes
(``sdcsession.methods.noise``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._build import _build

__all__ = ["NoiseMethods"]


class NoiseMethods:
    """Session methods of the noise addition family."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def perturb_weights(self, noise: float = 0.1, *, by: Sequence[str] | str | None = None,
                        household: bool = False) -> Any:
        """Noise on the sampling weights (the weight role): each weight times a log-normal
        factor ``exp(noise·z − noise²/2)``, then calibrated so that the total of the weights is
        kept exactly, in every stratum of ``by`` when given; weights stay positive.
        ``household=True``: one factor per household. Seeded like every random step (replay
        gives the same weights). See `PerturbWeights`.

        Example
        -------
        >>> import pandas as pd, sdcsession as sdc
        >>> df = pd.DataFrame({"r": list("ab") * 50, "w": [10.0, 30.0] * 50})
        >>> s = sdc.SdcSession(df, keys=["r"], weight="w", seed=1)
        >>> round(float(s.perturb_weights(0.1, by=["r"]).data["w"].sum()), 6)
        2000.0
        """
        return self.apply(_build("perturb_weights", noise=noise,
                                 by=() if by is None else by, household=household))

    def add_noise(self, columns: Iterable[str] | str, *, method: str = "additive",
                  noise: float = 0.15, bounds: tuple[float | None, float | None] | None = None,
                  warn_domain: bool = True) -> Any:
        """Add noise to numeric variables (sdcMicro ``noise=150`` is ``noise=1.5`` here);
        ``method="restricted"`` keeps the means and covariance matrix exactly,
        ``method="additive0"`` (sdcMicro's) leaves zeros at zero and keeps every other value's
        sign. ``bounds=(low, high)`` (``None``: unbounded side) keeps the perturbed values in the
        variables' domain by reflection at the bounds; ``warn_domain`` warns when noise makes a
        non-negative variable negative or a whole-numbered one not whole (see `AddNoise` and
        `sdcsession.methods.noise.domain`).

        Example
        -------
        >>> import pandas as pd, sdcsession as sdc
        >>> df = pd.DataFrame({"r": list("ab") * 50, "n": [0.0, 3.0, 0.0, 12.0] * 25})
        >>> s = sdc.SdcSession(df, keys=["r"], numeric=["n"], seed=1)
        >>> out = s.add_noise("n", method="additive0", noise=1.0).data["n"]
        >>> bool((out[df["n"] == 0] == 0).all() and (out >= 0).all())
        True
        """
        return self.apply(_build("add_noise", columns=columns, method=method, noise=noise,
                                 bounds=bounds, warn_domain=warn_domain))
