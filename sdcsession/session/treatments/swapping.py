"""Session methods of the swapping and shuffling (rank swap, shuffle, targeted record swapping) family (a mixin of `SdcSession`).

Each method builds the frozen treatment of the same name (parameters validated at once, raising
`ParameterError`) and applies it as a new, undoable step; it returns the session so calls chain.
The formulas, references and parameter meanings are in the treatment classes
(``sdcsession.methods.swapping``).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ...errors import ParameterError, SdcWarning, user_stacklevel
from ._build import _build

__all__ = ["SwappingMethods", "session_options", "OPTION_NAMES"]

#: the parameters of `record_swap` that the session's ``options`` may preset (sdcMicro's
#: ``createSdcObj(options = list(...))`` read by ``recordSwap``)
OPTION_NAMES = ("hierarchy", "similar", "swaprate", "k_anonymity", "risk_variables",
                "risk_threshold", "carry_along", "risk", "return_swapped_id")


def session_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The session's ``options`` checked: a dict whose keys are `record_swap` parameters
    (`OPTION_NAMES`); their values are checked when `record_swap` builds its step.

    sdcMicro's ``createSdcObj(options = list(...))`` carries the defaults of ``recordSwap``
    (``hierarchy``, ``similar``, ``swaprate``, ``k_anonymity``, ...); the other entries it knows
    map to constructor parameters here (``seed``, ``alpha``) or have no equivalent (``max_size``,
    ``noUndo``, ``maxUndo``: every step is kept; ``randomizeRecords``: reorder the data before
    creating the session), and are refused with a `ParameterError` saying so.

    Missing values: ``None`` as a value means "not preset".

    >>> session_options({"swaprate": 0.1, "hierarchy": ["region"]})
    {'swaprate': 0.1, 'hierarchy': ['region']}
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ParameterError(f"options: expected a dict of record_swap parameters, got "
                             f"{type(options).__name__}")
    mapped = {"seed": "the constructor's seed=", "alpha": "the constructor's alpha=",
              "max_size": "nothing (every step is kept)", "noUndo": "nothing (undo is free)",
              "maxUndo": "nothing (every step is kept)",
              "randomizeRecords": "nothing (reorder the data before creating the session)"}
    out = {}
    for key, value in options.items():
        if key in mapped:
            raise ParameterError(f"options: {key!r} is sdcMicro's; here it maps to {mapped[key]}")
        if key not in OPTION_NAMES:
            raise ParameterError(f"options: unknown option {key!r}; expected record_swap "
                                 f"parameters {list(OPTION_NAMES)}")
        if value is not None:
            out[key] = value
    return out


class SwappingMethods:
    """Session methods of the swapping and shuffling (rank swap, shuffle, targeted record swapping) family."""

    def apply(self, treatment: Any, *, seed: int | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def rank_swap(self, columns: Iterable[str] | str, *, p: float = 5.0,
                  top: float = 0.0, bottom: float = 0.0, r0: float | None = None,
                  k0: float | None = None, seed: int | None = None) -> Any:
        """Rank swapping within ``p`` % of the rank range (Moore 1996; default 5), or within the
        range Moore's ``r0`` / ``k0`` allow (``p`` left at its default then); ``top`` /
        ``bottom`` percent grouped by their mean first;
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

    def record_swap(self, *, hierarchy: Iterable[str] | str | None = None,
                    similar: str | Sequence[str] | Sequence[Sequence[str]] | None = None,
                    swaprate: float | None = None, k_anonymity: int | None = None,
                    risk_variables: Iterable[str] | str | None = None,
                    risk_threshold: float | None = None,
                    carry_along: Iterable[str] | str | None = None,
                    risk: Iterable[str] | str | None = None,
                    return_swapped_id: bool | None = None, seed: int | None = None) -> Any:
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
        ``seed`` overrides the step's seed. A parameter left out (``None``) takes the value
        of the session's ``options`` (sdcMicro's ``createSdcObj(options=)``), else its default
        (``swaprate=0.05``, ``k_anonymity=3``, no ``carry_along``); ``hierarchy`` and
        ``similar`` have no default. A parameter given both here and in ``options`` is taken
        from the call, with an `SdcWarning` (as sdcMicro). The step's notes count households selected,
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
        given = {"hierarchy": hierarchy, "similar": similar, "swaprate": swaprate,
                 "k_anonymity": k_anonymity, "risk_variables": risk_variables,
                 "risk_threshold": risk_threshold, "carry_along": carry_along, "risk": risk,
                 "return_swapped_id": return_swapped_id}
        preset = getattr(getattr(self, "_tree", None), "options", {}) or {}
        both = [k for k, v in given.items() if v is not None and k in preset]
        if both:
            warnings.warn(f"record_swap: {both} given in the call and in the session's options; "
                          "taking the call's values", SdcWarning, stacklevel=user_stacklevel())
        params = {k: (v if v is not None else preset.get(k)) for k, v in given.items()}
        for name in ("hierarchy", "similar"):
            if params[name] is None:
                raise ParameterError(f"record_swap: {name} is missing; give it, or set it in the "
                                     f"session's options (SdcSession(..., options={{{name!r}: "
                                     f"...}}))")
        defaults = {"swaprate": 0.05, "k_anonymity": 3, "carry_along": (),
                    "return_swapped_id": False}
        params = {k: (defaults[k] if v is None and k in defaults else v)
                  for k, v in params.items()}
        k_anon = params["k_anonymity"]
        if isinstance(k_anon, (int, np.integer)) and not isinstance(k_anon, bool) and (
                k_anon < 0 or (k_anon == 0 and params["risk"] is None)):
            raise ParameterError(f"k_anonymity: expected an integer >= 1, got {k_anon} (0 only "
                                 "with a user-supplied risk=, as sdcMicro; for random swapping "
                                 "only, give risk_variables=[])")
        return self.apply(_build("record_swap", **params), seed=seed)
