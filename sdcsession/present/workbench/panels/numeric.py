"""Numeric disclosure risk beside the key risk, and the R-U map whose risk axis can be chosen.

Figures (all read through the per-state measure cache, so a state is measured once):

- key risk: expected re-identifications, the sum of the individual risks (Benedetti–Franconi;
  ``s.risk.expected_reidentifications``);
- interval disclosure (sdcMicro ``dRisk``, Mateo-Sanz, Sebé & Domingo-Ferrer 2004): the share of
  records whose every original numeric value lies within k standard deviations of its masked
  value, and record linkage (Domingo-Ferrer & Torra 2001): the share of masked records whose
  nearest original record (standardised Euclidean distance) is their own (``s.risk.numeric``);
- RMD risk (sdcMicro ``dRiskRMD``, Templ & Meindl 2008): intervals that grow with a record's
  robust Mahalanobis distance; ``risk1`` = share of records at risk, ``risk2`` = those of them
  with no other masked record near (``s.risk.rmd()``; slow, computed on request only).

The R-U map (`ru_png`) plots one risk against an information-loss measure for every scenario:
``risk="key"`` (expected re-identifications), ``"numeric"`` (interval disclosure) or ``"both"``
(the two maps one above the other, on the same loss axis), so a numeric perturbation shows the numeric
risk it removes instead of pure loss.

Missing values: as the measures (`sdcsession.risk.numeric.disclosure`): interval disclosure leaves
out comparisons with a missing value, record linkage uses the records complete in both files.

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["sex"],
...                    numeric=["income", "expend"], seed=1)
>>> f = numeric_figures(s)
>>> f["numeric.interval_disclosure"] == s.risk.numeric["interval_disclosure"]
True
>>> ru_table([s], "lambda", "numeric")["interval_disclosure"].tolist()
[1.0]
"""

from __future__ import annotations

from typing import Any

import attrs
import pandas as pd

from ....errors import ParameterError
from ...compare import MeasureSpec, compare

__all__ = ["RISK_AXES", "LIVE_NUMERIC_MAX", "has_numeric", "numeric_figures", "rmd_figures",
           "risk_axis_options", "ru_table", "ru_png", "NumericRiskSpec"]

#: the choices of the R-U map's risk axis: (label, value)
RISK_AXES = (("key risk (expected re-identifications)", "key"),
             ("numeric risk (interval disclosure)", "numeric"),
             ("both, one above the other", "both"))
#: the live panel measures the numeric risk up to this many records (record linkage is a k-d
#: tree search, interval disclosure a pass over the values: ~0.75 s for 100,000 records and
#: three variables; a step on the keys only reuses the original's figures); above it the Views
#: tab computes it on request
LIVE_NUMERIC_MAX = 250_000
_KEY = "expected_reidentifications"
_NUM = "interval_disclosure"


@attrs.frozen
class NumericRiskSpec(MeasureSpec):
    """A comparison column read from the ``numeric_risk`` measure's dict (``attr`` is the key:
    ``"interval_disclosure"`` or ``"record_linkage"``); NaN without numeric variables."""

    def value(self, state: Any) -> Any:
        v = state.measure(self.measure)
        return None if v is None else v.get(self.attr)


def _spec(name: str) -> NumericRiskSpec:
    return NumericRiskSpec(name, "numeric_risk", attr=name)


def has_numeric(session: Any) -> bool:
    """Whether the session declares numeric variables."""
    return bool(list(getattr(session.roles, "numeric", ()) or ()))


def numeric_figures(session: Any) -> dict[str, float]:
    """``numeric.interval_disclosure`` and ``numeric.record_linkage`` of the HEAD (the names of
    ``s.risk.to_frame()``); empty without numeric variables.

    Missing values: interval disclosure leaves out comparisons with a missing value, record
    linkage uses the records complete in both files (`sdcsession.risk.numeric.disclosure`).
    """
    if not has_numeric(session):
        return {}
    return {f"numeric.{k}": float(v) for k, v in (session.risk.numeric or {}).items()}


def rmd_figures(session: Any) -> dict[str, float]:
    """``rmd_risk.risk1`` and ``rmd_risk.risk2`` of the HEAD (`s.risk.rmd()`; slow, cached per
    state); empty without numeric variables."""
    if not has_numeric(session):
        return {}
    r = session.risk.rmd()
    return {} if r is None else {"rmd_risk.risk1": float(r.risk1),
                                 "rmd_risk.risk2": float(r.risk2)}


def risk_axis_options(session: Any) -> list[tuple[str, str]]:
    """The risk axes that apply: key risk always, numeric and both with numeric variables."""
    return list(RISK_AXES if has_numeric(session) else RISK_AXES[:1])


def ru_table(sessions: list[Any], loss: str, risk: str = "key") -> pd.DataFrame:
    """The comparison (`sdcsession.present.compare.compare`) the R-U map draws: the key risk
    and/or the interval disclosure, and ``loss``, one row per scenario."""
    if risk not in ("key", "numeric", "both"):
        raise ParameterError(f"risk: expected 'key', 'numeric' or 'both', got {risk!r}")
    cols: list[Any] = [] if risk == "numeric" else [_KEY]
    if risk != "key":
        cols.append(_spec(_NUM))
    return compare(*sessions, measures=[*cols, loss])


def ru_png(sessions: list[Any], loss: str, risk: str = "key") -> bytes:
    """PNG of the R-U map of these scenarios: ``risk`` (``"key"``, ``"numeric"``, ``"both"``: two
    maps, one above the other) against ``loss``. Fixed margins instead of a layout engine (one draw: the map is redrawn
    after every step)."""
    from matplotlib.figure import Figure

    from ...plots._common import to_png
    from ...plots.ru import ru_map

    table = ru_table(sessions, loss, risk)
    columns = {"key": [_KEY], "numeric": [_NUM], "both": [_KEY, _NUM]}[risk]
    rows = len(columns)
    fig = Figure(figsize=(6.0, 4.4 * rows))
    fig.subplots_adjust(left=0.13, right=0.97, top=1 - 0.08 / rows, bottom=0.2 / rows,
                        hspace=0.55)
    for i, col in enumerate(columns):
        ax = fig.add_subplot(rows, 1, i + 1)
        ru_map(table, risk=col, loss=loss, ax=ax)
        ax.set_title("Risk–utility map: " + ("key risk" if col == _KEY else "numeric risk"),
                     loc="left", fontsize=11)
    return to_png(fig, dpi=90)
