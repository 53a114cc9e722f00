"""Session methods for census-style targeted record swapping (issue 18): `record_swap`.

Example
-------
>>> import numpy as np, pandas as pd, sdcsession as sdc
>>> df = pd.DataFrame({"hid": np.repeat(np.arange(40), 2),
...                    "region": np.repeat(["a", "b"], 40), "hsize": 2,
...                    "sex": ["m", "f"] * 40})
>>> s = sdc.SdcSession(df, keys=["sex"], household="hid", seed=3)
>>> s = s.record_swap(hierarchy=["region"], similar=["hsize"], swaprate=0.2)
>>> s.head.notes["swapped_households"] >= 8, (s.data["sex"] == df["sex"]).all()
(True, np.True_)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .treatment_methods import _build

__all__ = ["RecordSwapMethods"]


class RecordSwapMethods:
    """Session methods for census-style targeted record swapping (issue 18)."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def record_swap(self, *, hierarchy: Iterable[str] | str,
                    similar: str | Sequence[str] | Sequence[Sequence[str]],
                    swaprate: float = 0.05, k_anonymity: int = 3,
                    risk_variables: Iterable[str] | str | None = None,
                    risk_threshold: float | None = None,
                    carry_along: Iterable[str] | str = (), seed: int | None = None) -> Any:
        """Targeted record swapping of whole households between geographic areas.

        Households at risk (a member's ``risk_variables`` combination counted fewer than
        ``k_anonymity`` times in its area at some level of ``hierarchy``, or a household risk
        above ``risk_threshold``) are always swapped; further households are swapped at random
        until ``swaprate`` of all households (both sides of a swap) are swapped. Donors share the
        values of ``similar`` (a list of columns, or a list of such profiles tried in order) and
        lie in a different area, searched from the finest level upwards. The geography columns
        (``hierarchy``, coarse to fine, nested) and ``carry_along`` are exchanged between the two
        households; every other value stays. The household is the session's ``household`` role;
        ``risk_variables=None`` uses the session's key variables other than the hierarchy.
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
                                 carry_along=carry_along), seed=seed)
