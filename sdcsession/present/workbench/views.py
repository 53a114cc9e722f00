"""The workbench's **Views** tab: figures too slow or too large for the live panel, computed
when asked (**Show views**) for the current state.

- numeric disclosure risk beside the key risk: interval disclosure and record linkage of the
  numeric variables (``s.risk.numeric``: the share of original values that fall in the interval
  around their masked value, and the share of records re-linked by distance), and the expected
  re-identifications of the keys;
- suppressions per key variable (``s.utility.suppressions``: count and percent);
- risky records: the records whose individual risk (``s.risk.individual``) exceeds a threshold,
  riskiest first (their key values and risk), and how many there are;
- the comparison table of every scenario of the tree and the original (what `sdcsession.compare`
  shows: risk, k-violations, suppressions, information loss).

Every value is shown as text (pandas ``to_html`` escapes it).

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["region", "sex"], seed=1)
>>> bool(risky_records(s, 0.05)["risk"].min() > 0.05)
True
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import pandas as pd

__all__ = ["risky_records", "numeric_risk", "ViewsPanel"]


def risky_records(session: Any, threshold: float, n: int = 50) -> pd.DataFrame:
    """The records whose individual risk exceeds ``threshold`` (riskiest first, at most ``n``):
    their key values and ``risk``.

    Missing values: a missing key value counts as the session's alpha says (as in ``s.risk``).
    """
    risk = session.risk.individual
    data = session.state.data[list(session.roles.keys)]
    out = data.assign(risk=risk.to_numpy())
    out = out[out["risk"] > float(threshold)]
    return out.sort_values("risk", ascending=False, kind="stable").head(int(n))


def numeric_risk(session: Any) -> dict[str, float]:
    """Interval disclosure and record linkage of the numeric variables (empty without numeric
    variables), with the key risk (expected re-identifications) beside them."""
    out = {"expected re-identifications (keys)": float(session.risk.expected_reidentifications)}
    if list(getattr(session.roles, "numeric", ()) or ()):
        for name, v in (session.risk.numeric or {}).items():
            out[f"{name.replace('_', ' ')} (numeric)"] = float(v)
    return out


def _table(df: pd.DataFrame, **kw: Any) -> str:
    return ("<div style='max-height:260px;overflow:auto'>"
            + df.to_html(escape=True, border=0, float_format=lambda x: f"{x:.4g}", **kw)
            + "</div>")


class ViewsPanel:
    """The Views tab; ``session()`` gives the active session and ``scenarios()`` every scenario
    of its tree."""

    def __init__(self, session: Callable[[], Any], scenarios: Callable[[], list[Any]],
                 error: Callable[[BaseException | str], None]) -> None:
        import ipywidgets as w

        self._session, self._scenarios, self._error = session, scenarios, error
        self.threshold = w.BoundedFloatText(
            value=0.05, min=0.0, max=1.0, step=0.01, style={"description_width": "initial"},
            layout=w.Layout(width="360px"),
            description="Risky records above risk (0 to 1, default 0.05)")
        self.show_button = w.Button(description="Show views",
                                    tooltip="compute the views for the current state")
        self.numeric = w.HTML()
        self.suppressions = w.HTML()
        self.risky = w.HTML()
        self.comparison = w.HTML()
        self.show_button.on_click(lambda _: self.show())
        self.box = w.VBox([
            w.HBox([self.show_button]),
            w.HTML("<b>Disclosure risk: keys and numeric variables</b>"), self.numeric,
            w.HTML("<b>Suppressions per key variable</b>"), self.suppressions,
            self.threshold, self.risky,
            w.HTML("<b>All scenarios compared</b>"), self.comparison])

    def show(self) -> None:
        """Compute and show every view for the current state."""
        s = self._session()
        if s is None:
            return
        try:
            rows = numeric_risk(s)
            body = "".join(f"<tr><td>{html.escape(k)}</td><td style='text-align:right'>"
                           f"<b>{v:.4g}</b></td></tr>" for k, v in rows.items())
            note = "" if len(rows) > 1 else "<i>no numeric variables in the roles</i>"
            self.numeric.value = f"<table>{body}</table>{note}"
            self.suppressions.value = _table(s.utility.suppressions.round(2))
            risky = risky_records(s, float(self.threshold.value))
            n_all = int((s.risk.individual > float(self.threshold.value)).sum())
            self.risky.value = (f"<b>{n_all:,}</b> record(s) above the threshold"
                                + (f" (the {len(risky)} riskiest shown)" if n_all > len(risky)
                                   else "") + _table(risky))
            from ..compare import compare

            table = compare(*self._scenarios(), original=True)
            self.comparison.value = _table(pd.DataFrame(table), index=False)
        except Exception as e:  # noqa: BLE001 - a view failing must not break the widget
            self._error(e)
