"""Session methods of the swapping and shuffling (rank swap, shuffle, targeted record swapping) family (a mixin of `SdcSession`).

Each method builds the frozen treatment of the same name (parameters validated at once, raising
`ParameterError`) and applies it as a new, undoable step; it returns the session so calls chain.
The formulas, references and parameter meanings are in the treatment classes
(``sdcsession.methods.swapping``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._build import _build

__all__ = ["SwappingMethods"]


class SwappingMethods:
    """Session methods of the swapping and shuffling (rank swap, shuffle, targeted record swapping) family."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def rank_swap(self, columns: Iterable[str] | str, *, p: float | None = None,
                  top: float = 0.0, bottom: float = 0.0, r0: float | None = None,
                  k0: float | None = None, seed: int | None = None) -> Any:
        """Rank swapping within ``p`` % of the rank range (Moore 1996), or within the range
        Moore's ``r0`` / ``k0`` allow; ``top`` / ``bottom`` percent grouped by their mean first;
        ``seed``: the step's seed (default: derived from the session seed). See `RankSwap`."""
        return self.apply(_build("rank_swap", columns=columns, p=p, top=top, bottom=bottom,
                                 r0=r0, k0=k0), seed=seed)

    def shuffle(self, columns: Iterable[str] | str, *, by: Iterable[str] | str,
                method: str = "ds", covmethod: str | None = None,
                regmethod: str | None = None) -> Any:
        """Data shuffling keeping the ranks of a model prediction (Muralidhar & Sarathy):
        ``method="ds" | "mvn" | "mlm" | "mlm_ds"``, ``covmethod="pearson" | "spearman" | "mcd"``,
        ``regmethod="lm" | "mm"`` (mlm, mlm_ds; with mvn the regression giving the conditional
        mean; see `Shuffle`)."""
        return self.apply(_build("shuffle", columns=columns, by=by, method=method,
                                 covmethod=covmethod, regmethod=regmethod))

    def record_swap(self, *, hierarchy: Iterable[str] | str,
                    similar: str | Sequence[str] | Sequence[Sequence[str]],
                    swaprate: float = 0.05, k_anonymity: int = 3,
                    risk_variables: Iterable[str] | str | None = None,
                    risk_threshold: float | None = None,
                    carry_along: Iterable[str] | str = (),
                    risk: Iterable[str] | str | None = None, return_swapped_id: bool = False,
                    seed: int | None = None) -> Any:
        """Targeted record swapping of whole households between geographic areas.

        Households at risk (a member's ``risk_variables`` combination counted fewer than
        ``k_anonymity`` times in its area at some level of ``hierarchy``, or a household risk
        above ``risk_threshold``) are always swapped; further households are swapped at random
        until ``swaprate`` of all households (both sides of a swap) are swapped. Donors share the
        values of ``similar`` (a list of columns, or a list of such profiles tried in order) and
        lie in a different area, searched from the finest level upwards. The geography columns
        (``hierarchy``, coarse to fine; an area is the path of
        its levels, so codes need only be unique within their parent, as in sdcMicro) and ``carry_along`` are exchanged between the two
        households; every other value stays. The household is the session's ``household`` role;
        ``risk_variables=None`` uses the session's key variables other than the hierarchy.
        ``risk`` (column names, one per hierarchy level, numbers >= 0; sdcMicro's ``risk``)
        replaces the k-anonymity rule: a household is at risk at the coarsest level where its
        members' largest risk exceeds ``risk_threshold`` (default 1 / ``k_anonymity``), and
        random draws are proportional to the finest-level risk (0: never drawn).
        ``return_swapped_id=True`` adds ``<household>_swapped``, the partner household's id,
        as a direct identifier (never released).
        ``seed`` overrides the step's seed. The step's notes count households selected,
        swapped and without donor (never their ids). See `RecordSwap` and
        `record_swapping` for the algorithm and references (de Wolf; Eurostat census 2021;
        sdcMicro ``recordSwap``).

        Example
        -------
        >>> import sdcsession as sdc, pandas as pd
        >>> df = pd.DataFrame({"hid": [1, 2, 3, 4], "reg": ["a", "a", "b", "b"], "hs": 1})
        >>> s = sdc.SdcSession(df, keys=["reg"], household="hid", seed=1)
        >>> s.record_swap(hierarchy="reg", similar="hs", swaprate=1.0).data["reg"].tolist()
        ['b', 'b', 'a', 'a']
        """
        return self.apply(_build("record_swap", hierarchy=hierarchy, similar=similar,
                                 swaprate=swaprate, k_anonymity=k_anonymity,
                                 risk_variables=risk_variables, risk_threshold=risk_threshold,
                                 carry_along=carry_along, risk=risk,
                                 return_swapped_id=return_swapped_id), seed=seed)
