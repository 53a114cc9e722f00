"""Risk and utility of a session over a Dask frame: the same names as `RiskSummary` and
`UtilitySummary`, computed as Dask work and cached per state.

Per-record figures (``fk``, ``Fk``, ``individual``, ``household``, ``l_diversity``) are lazy Dask
collections with the data's partitions (``.compute()`` brings them into memory); scalar figures
are Python numbers, computed once per state (one pass for the global risk, the expected
re-identifications and the 2-, 3- and 5-anonymity violations together). The frequency tables are
built once per state and alpha and kept on the cluster (persisted).

Measures that are not distributed (SUDA2, model-based risk, record linkage, numeric risk...)
raise `MeasureError` saying so.

Example
-------
>>> import pandas as pd, dask.dataframe as dd, sdcsession as sdc
>>> df = pd.DataFrame({"sex": ["m", "f", "m", "f", "m"]})
>>> s = sdc.SdcSession(dd.from_pandas(df, npartitions=2), keys=["sex"], seed=1)
>>> s.risk.k_violations(3), s.risk.fk.compute().tolist()
(2, [3, 2, 3, 2, 3])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError, user_stacklevel
from ...risk.exact_sum import combine, partial_sum, to_float
from ..measures import register
from ..state import State
from ..views.risk_view import RiskSummary

__all__ = ["DaskRiskSummary", "DaskUtilitySummary", "DASK_MEASURES"]

#: measures computed on Dask states (the others raise MeasureError there)
DASK_MEASURES: set[str] = set()


def _reg(name: str, description: str, kind: str = "risk") -> Any:
    DASK_MEASURES.add(name)
    return register(name, description, kind)


@_reg("dask.frequency_model", "global frequency tables of a Dask state (persisted)")
def _model(state: State, alpha: float | None = None) -> Any:
    from ...scale.freq_tables import frequency_model

    r = state.roles
    return frequency_model(state.data, list(r.keys), weight=r.weight, alpha=alpha)


def _freq(state: State, alpha: float) -> Any:
    return state.measure("dask.frequency_model", alpha=alpha).frame(state.data)


def _individual(state: State, alpha: float) -> Any:
    from ...scale.risk_measures import individual_risk

    return individual_risk(_freq(state, alpha), weighted=state.roles.weight is not None)


def _scalar_part(f: pd.DataFrame, weighted: bool) -> np.ndarray:
    from ...risk.individual import individual_risk_from_freq

    r = individual_risk_from_freq(f["fk"], f["Fk"] if weighted else None, warn=False).to_numpy()
    fk, Fk = f["fk"].to_numpy(), f["Fk"].to_numpy()
    return partial_sum(r), np.array([len(r), (fk < 2).sum(), (fk < 3).sum(), (fk < 5).sum(),
                                     (Fk < fk * (1 - 1e-12)).sum()], dtype=np.int64)


@_reg("dask.risk_scalars", "sum of risks, records and k-violations (2, 3, 5) in one pass")
def _scalars(state: State, alpha: float | None = None) -> dict[str, float]:
    import dask

    from ...scale._base import compute

    f = _freq(state, alpha)
    parts = compute(*[dask.delayed(_scalar_part)(p, state.roles.weight is not None)
                      for p in f.to_delayed()])
    n, k2, k3, k5, above = (int(v) for v in np.sum([c for _, c in parts], axis=0))
    exact = combine(s for s, _ in parts)
    if above:
        import warnings

        from ...errors import SdcWarning

        warnings.warn(f"weight: {above} record(s) have an estimated population "
                      "frequency Fk below their sample frequency fk (weights smaller than 1), so "
                      "pk = fk/Fk > 1; their individual risk is computed with pk = 1 (risk 1/fk).",
                      SdcWarning, stacklevel=user_stacklevel())
    return {"sum": to_float(exact), "mean": to_float(exact, max(n, 1)), "n": n,
            "k2": k2, "k3": k3, "k5": k5, "fk_above_Fk": above}


@_reg("dask.k_violations", "records with fk < k (Fk < k if weighted) on a Dask state")
def _kviol(state: State, k: int = 3, weighted: bool = False, alpha: float | None = None) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ParameterError(f"k: expected an integer >= 1, got {k!r}")
    if not weighted and int(k) in (2, 3, 5):
        return state.measure("dask.risk_scalars", alpha=alpha)[f"k{int(k)}"]
    from ...scale.risk_measures import k_violations

    return k_violations(_freq(state, alpha), int(k), weighted=bool(weighted))


@_reg("dask.household_model", "household risk sums of a Dask state (persisted)")
def _household(state: State, alpha: float | None = None) -> Any:
    from ...scale.risk_measures import household_risk

    h = state.roles.household
    if h is None:
        return None
    return household_risk(_individual(state, alpha), state.data[h]).persist()


@_reg("dask.household_sum", "sum of household risks on a Dask state")
def _household_sum(state: State, alpha: float | None = None) -> float | None:
    from ...scale.risk_measures import expected_reidentifications

    h = state.measure("dask.household_model", alpha=alpha)
    return None if h is None else expected_reidentifications(h)


@_reg("dask.l_diversity", "l-diversity of the sensitive variables on a Dask state")
def _ldiv(state: State, c: int = 2) -> Any:
    from ...scale.risk_measures import l_diversity

    if not state.roles.sensitive:
        return None
    return l_diversity(state.data, list(state.roles.keys), list(state.roles.sensitive), c=c)


class DaskRiskSummary(RiskSummary):
    """`RiskSummary` of a state whose data are a Dask frame (see the module docstring)."""

    @property
    def frequencies(self) -> Any:
        """fk and Fk per record (a lazy Dask frame with the data's partitions)."""
        return _freq(self._state, self.alpha)

    @property
    def individual(self) -> Any:
        """Individual risk per record (a lazy Dask Series)."""
        return _individual(self._state, self.alpha)

    def _s(self) -> dict[str, float]:
        return self._state.measure("dask.risk_scalars", alpha=self.alpha)

    @property
    def global_risk(self) -> float:
        """Mean individual risk (computed once per state)."""
        return self._s()["mean"]

    @property
    def expected_reidentifications(self) -> float:
        """Sum of individual risks (computed once per state)."""
        return self._s()["sum"]

    @property
    def household(self) -> Any:
        """Household risk per record (a Dask Series; None without household)."""
        return self._state.measure("dask.household_model", alpha=self.alpha)

    @property
    def household_expected_reidentifications(self) -> float | None:
        """Sum of household risks (None without household)."""
        return self._state.measure("dask.household_sum", alpha=self.alpha)

    def k_violations(self, k: int = 3, *, weighted: bool = False) -> int:
        """Number of records with fk < k (Fk < k when ``weighted``)."""
        if not isinstance(weighted, (bool, np.bool_)):
            raise ParameterError(f"weighted: expected True or False, got {weighted!r}")
        return self._state.measure("dask.k_violations", k=k, weighted=bool(weighted),
                                   alpha=self.alpha)

    @property
    def l_diversity(self) -> Any:
        """Distinct, entropy and recursive l-diversity per record (a lazy Dask frame)."""
        return self._state.measure("dask.l_diversity", c=2)

    @property
    def numeric(self) -> None:
        """Numeric risk is not distributed: `MeasureError`."""
        raise MeasureError("numeric risk (interval disclosure, record linkage) is not "
                           "distributed; compute it on a sample in memory")

    def to_dict(self) -> dict[str, Any]:
        """Scalar figures as a JSON-serialisable dict (no numeric risk on Dask)."""
        s = self._s()
        return {"n_records": s["n"], "keys": list(self._state.roles.keys),
                "global_risk": s["mean"], "expected_reidentifications": s["sum"],
                "household_expected_reidentifications": self.household_expected_reidentifications,
                **{f"k{k}_violations": s[f"k{k}"] for k in (2, 3, 5)}}


# -------------------------------------------------------------------------------- utility
@_reg("dask.utility", "per-variable utility of a Dask state vs the original", kind="utility")
def _utility(state: State) -> dict[str, Any]:
    from ...scale.dask_utility import utility_measures
    from ..views._numeric_columns import numeric_columns

    ro = state.original_roles
    both = [c for c in state.data.columns if c in state.original.columns]
    keys = [c for c in ro.keys if c in both]
    # a numeric variable recoded into intervals has left the numeric measures (as in memory)
    num = numeric_columns(state.original._meta, state.data._meta, [c for c in ro.numeric
                                                                   if c in both])
    changed = [c for c in ro.columns() if c in both]  # as in memory: every role variable
    return utility_measures(state.original, state.data, keys=keys, numeric=num, changed=changed)


def _raise(value: Any) -> Any:
    if isinstance(value, Exception):
        raise value
    return value


class DaskUtilitySummary:
    """Information loss of a Dask state vs the original: the measures of `UtilitySummary` that
    are sums, moments or tables (`sdcsession.scale.dask_utility.utility_measures`), with the
    same names and the same values as on a pandas session, computed in two passes per state."""

    def __init__(self, state: State, step: Any = None) -> None:
        self._state = state

    def __getattr__(self, name: str) -> Any:
        from ..views.utility_view import UtilitySummary

        if not name.startswith("_") and hasattr(UtilitySummary, name):
            raise MeasureError(f"utility.{name} is not distributed; on Dask the utility "
                               "summary gives suppressions, records_changed, entropy_change, "
                               "il1s, moments and correlation_discrepancy (compute the others "
                               "on a sample in memory)")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _u(self) -> dict[str, Any]:
        return self._state.measure("dask.utility")

    @property
    def suppressions(self) -> pd.DataFrame:
        """Suppressions per key variable: values missing now that were not in the original."""
        return self._u()["suppressions"]

    @property
    def suppressions_total(self) -> int:
        """Total number of suppressed key values."""
        return int(self.suppressions["suppressions"].sum())

    @property
    def records_changed(self) -> pd.DataFrame:
        """Records whose value changed, per role variable (count and share)."""
        return self._u()["records_changed"]

    @property
    def entropy_change(self) -> pd.DataFrame:
        """Entropy of each key variable in the original and now (natural log) and the loss."""
        return self._u()["entropy"]

    @property
    def il1s(self) -> float | None:
        """IL1s of the numeric variables (published, normalised by n·p); None without numeric."""
        return _raise(self._u()["il1s"])

    @property
    def moments(self) -> pd.DataFrame | None:
        """Means and standard deviations of the numeric variables, original and now."""
        return self._u()["moments"]

    @property
    def correlation_discrepancy(self) -> float | None:
        """Mean absolute difference of the correlation matrices (off-diagonal), numeric vars."""
        return _raise(self._u()["correlation_discrepancy"])

    def to_dict(self) -> dict[str, Any]:
        """Scalar figures as a JSON-serialisable dict."""
        return {"suppressions_total": self.suppressions_total, "il1s": self.il1s,
                "correlation_discrepancy": self.correlation_discrepancy}

    def __repr__(self) -> str:
        d = self.to_dict()
        return "Information loss (Dask)\n" + "\n".join(f"  {k:<24} {v}" for k, v in d.items())
