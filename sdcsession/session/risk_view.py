"""RiskSummary: the disclosure risk of one state, computed lazily through the state's cache.

Everything is read through :meth:`State.measure`, so each figure is computed once per state, on
first access. SUDA2 runs only when ``.suda2`` is read (never because of display).

Example
-------
>>> import pandas as pd, sdcsession as sdc
>>> df = pd.DataFrame({"sex": ["m", "f", "m", "f", "m"], "w": [10.0, 10, 10, 10, 10]})
>>> r = sdc.SdcSession(df, keys=["sex"], weight="w", seed=1).risk
>>> r.fk.tolist(), r.k_violations(3)
([3, 2, 3, 2, 3], 2)
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .formatting import fmt
from .measures import register
from .state import State

__all__ = ["RiskSummary"]


class RiskSummary:
    """Disclosure risk of a state (see the attributes); text and HTML display, ``to_dict()``."""

    def __init__(self, state: State, alpha: float | None = None) -> None:
        self._state = state
        self.alpha = state.alpha if alpha is None else alpha

    # --------------------------------------------------------------- frequencies
    @property
    def frequencies(self) -> pd.DataFrame:
        """fk and Fk per record (missing keys as wildcards; see :func:`sdcsession.risk.frequencies`)."""
        return self._state.measure("frequencies", alpha=self.alpha)

    @property
    def fk(self) -> pd.Series:
        """Sample frequency of each record's key combination."""
        return self.frequencies["fk"]

    @property
    def Fk(self) -> pd.Series:  # noqa: N802 - the literature's name
        """Estimated population frequency (sum of weights) of each record's key combination."""
        return self.frequencies["Fk"]

    @property
    def individual(self) -> pd.Series:
        """Individual re-identification risk per record (Benedetti–Franconi approximation)."""
        return self._state.measure("individual_risk", alpha=self.alpha)

    @property
    def global_risk(self) -> float:
        """Mean individual risk."""
        return float(self.individual.mean())

    @property
    def expected_reidentifications(self) -> float:
        """Sum of individual risks: the expected number of re-identifications."""
        return float(self.individual.sum())

    @property
    def household(self) -> pd.Series | None:
        """Household risk 1 − ∏(1 − r_i) over each record's household (None without household)."""
        return self._state.measure("household_risk", alpha=self.alpha)

    @property
    def household_expected_reidentifications(self) -> float | None:
        """Sum of household risks over records (None without household)."""
        h = self.household
        return None if h is None else float(h.sum())

    def k_violations(self, k: int = 3, *, weighted: bool = False) -> int:
        """Number of records with fk < k (Fk < k when ``weighted``)."""
        return self._state.measure("k_violations", k=k, weighted=weighted, alpha=self.alpha)

    def unsafe_combinations(self, k: int = 3, max_dim: int | None = None) -> pd.DataFrame:
        """μ-ARGUS-style table of key combinations (up to ``max_dim`` variables) rarer than k."""
        return self._state.measure("unsafe_combinations", k=k, max_dim=max_dim)

    @property
    def l_diversity(self) -> pd.DataFrame | None:
        """Distinct, entropy and recursive (c = 2) l-diversity of each sensitive variable."""
        return self._state.measure("l_diversity", c=2)

    def suda2(self, dis_fraction: float = 0.01, max_size: int | None = None) -> Any:
        """SUDA2 scores, DIS-SUDA scores and contributions (:func:`sdcsession.risk.suda2`).

        Computed only when called (never by display, never on every step), then cached.
        """
        return self._state.measure("suda2", dis_fraction=dis_fraction, max_size=max_size)

    @property
    def numeric(self) -> dict[str, float] | None:
        """Numeric risk vs the original: interval disclosure and record linkage (None if no numeric)."""
        return self._state.measure("numeric_risk")

    # -------------------------------------------------------------------- output
    def to_dict(self) -> dict[str, Any]:
        """Scalar figures as a JSON-serialisable dict."""
        out: dict[str, Any] = {
            "n_records": self._state.n,
            "keys": list(self._state.roles.keys),
            "global_risk": self.global_risk,
            "expected_reidentifications": self.expected_reidentifications,
            "household_expected_reidentifications": self.household_expected_reidentifications,
        }
        for k in (2, 3, 5):
            out[f"k{k}_violations"] = self.k_violations(k)
        num = self.numeric
        if num is not None:
            out["numeric"] = {k: float(v) for k, v in num.items()}
        return out

    def to_frame(self) -> pd.DataFrame:
        """The scalar risk figures as a one-column table (``measure`` index, ``value``), like
        ``s.utility.to_frame()``.

        >>> import sdcsession as sdc
        >>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["sex"], seed=1)
        >>> float(s.risk.to_frame().loc["k3_violations", "value"])
        0.0
        """
        d = self.to_dict()
        rows = [(k, float(v)) for k, v in d.items()
                if k not in ("keys", "numeric") and v is not None]
        rows += [(f"numeric.{k}", float(v)) for k, v in (d.get("numeric") or {}).items()]
        return pd.DataFrame(rows, columns=["measure", "value"]).set_index("measure")

    def summary_rows(self) -> list[tuple[str, str]]:
        d = self.to_dict()
        n = d["n_records"]
        rows = [("records", fmt(n)), ("key variables", ", ".join(d["keys"])),
                ("global risk (mean)", f"{d['global_risk']:.6g}"),
                ("expected re-identifications", f"{d['expected_reidentifications']:.4f}")]
        if d["household_expected_reidentifications"] is not None:
            rows.append(("household expected re-identifications",
                         f"{d['household_expected_reidentifications']:.4f}"))
        for k in (2, 3, 5):
            v = d[f"k{k}_violations"]
            rows.append((f"records violating {k}-anonymity", f"{v:,} ({100 * v / n:.2f} %)"))
        for name, v in (d.get("numeric") or {}).items():
            rows.append((name.replace("_", " "), f"{v:.4f}"))
        return rows

    def __repr__(self) -> str:
        rows = self.summary_rows()
        w = max(len(r[0]) for r in rows)
        return "Disclosure risk\n" + "\n".join(f"  {a:<{w}}  {b}" for a, b in rows)

    def rmd(self, k: float = 0.01, k2: float = 0.05) -> Any:
        """Robust-distance risk of the numeric variables vs the original (sdcMicro ``dRiskRMD``).

        An ``RMDRisk`` (``risk1``, ``risk2``, ``wrisk1``, ``wrisk2`` and the per-record vectors;
        see ``sdcsession.risk.rmd_risk``), None without numeric variables. Computed when called,
        then cached.
        """
        return self._state.measure("rmd_risk", k=k, k2=k2)



@register("unsafe_combinations", "key combinations rarer than k, by dimension (mu-ARGUS style)")
def _unsafe(state: State, k: int = 3, max_dim: int | None = None) -> pd.DataFrame:
    from ..risk import unsafe_combinations

    return unsafe_combinations(state.data, list(state.roles.keys), k=k, max_dim=max_dim)


@register("l_diversity", "l-diversity of the sensitive variables within key combinations")
def _ldiv(state: State, c: int = 2) -> pd.DataFrame | None:
    from ..risk import l_diversity

    if not state.roles.sensitive:
        return None
    return l_diversity(state.data, list(state.roles.keys), list(state.roles.sensitive), c=c)


@register("suda2", "SUDA2 scores, DIS-SUDA scores and variable contributions")
def _suda2(state: State, dis_fraction: float = 0.01, max_size: int | None = None) -> Any:
    from ..risk import suda2

    return suda2(state.data, list(state.roles.keys), dis_fraction=dis_fraction,
                 max_size=max_size)


@register("numeric_risk", "interval disclosure (dRisk) and record-linkage risk of numeric variables")
def _numeric(state: State) -> dict[str, float] | None:
    from ..risk import interval_disclosure, record_linkage_risk

    cols = [c for c in state.roles.numeric if c in state.data.columns]
    if not cols:
        return None
    orig, masked = state.original[cols], state.data[cols]
    return {"interval_disclosure": interval_disclosure(orig, masked, columns=cols),
            "record_linkage": record_linkage_risk(orig, masked, columns=cols)}


@register("rmd_risk", "robust-Mahalanobis-distance interval disclosure (sdcMicro dRiskRMD)")
def _rmd(state: State, k: float = 0.01, k2: float = 0.05) -> Any:
    from ..risk import rmd_risk

    cols = [c for c in state.roles.numeric if c in state.data.columns]
    if not cols:
        return None
    return rmd_risk(state.original[cols], state.data[cols], k=k, k2=k2, columns=cols)
