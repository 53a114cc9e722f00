"""The workbench's **Views** tab: figures too slow or too large for the live panel, computed
when asked for the current state. Each runs in the background with the workbench's progress bar
and Cancel (`sdcsession.present.workbench.run.StepRunner`: one step or view at a time), and each
has a "?" that explains its figures (`sdcsession.present.workbench.panels.explain`).

- **Show views**: the numeric disclosure risk beside the key risk, suppressions per key, the
  risky records, l-diversity (when a column can be sensitive) and the comparison of every
  scenario;
- disclosure risk of the keys (expected re-identifications, global risk) and of the numeric
  variables (interval disclosure, record linkage; **RMD risk** on request, it is slow;
  `sdcsession.present.workbench.panels.numeric`);
- suppressions per key variable, and the risky records above a threshold (box or slider);
- **SUDA2** (DIS-SUDA scores with the sampling fraction as a parameter) and **l-diversity** of a
  chosen sensitive variable (`sdcsession.present.workbench.panels.tables`);
- **Compare scenarios**: every scenario of the tree and the original, what `sdcsession.compare`
  shows.

Every value is shown as text (``DataFrame.to_html`` escapes it; names are escaped).

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

from .panels.explain import ExplainButton, header
from .panels.numeric import has_numeric, numeric_figures, rmd_figures
from .panels.tables import (
    comparison_table,
    html_table,
    l_diversity_tables,
    risky_records,
    sensitive_options,
    suda2_tables,
    suppressions_table,
)

__all__ = ["risky_records", "numeric_risk", "ViewsPanel"]

_NAMES = {"numeric.interval_disclosure": "interval disclosure (numeric)",
          "numeric.record_linkage": "record linkage (numeric)",
          "rmd_risk.risk1": "RMD interval risk, risk1 (numeric)",
          "rmd_risk.risk2": "RMD isolated risk, risk2 (numeric)"}


def numeric_risk(session: Any) -> dict[str, float]:
    """The key risk (expected re-identifications) and, with numeric variables, interval
    disclosure and record linkage (and the RMD risk once computed on this state), by label."""
    out = {"expected re-identifications (keys)": float(session.risk.expected_reidentifications),
           "global risk (keys)": float(session.risk.global_risk)}
    figures = numeric_figures(session)
    if figures and any(k and k[0] == "rmd_risk" for k in session.state.cache):
        figures.update(rmd_figures(session))
    out.update({_NAMES.get(k, k): v for k, v in figures.items()})
    return out


def _stamp(s: Any) -> str:
    return (f"<div style='color:#555;font-size:90%'>scenario {html.escape(str(s.name))}, "
            f"step #{s.head.id}</div>")


class ViewsPanel:
    """The Views tab; ``session()`` gives the active session, ``scenarios()`` every scenario of
    its tree; ``runner`` (the workbench's `StepRunner`) runs the views in the background (None:
    at once, in the caller's thread); ``info`` / ``error`` show messages."""

    def __init__(self, session: Callable[[], Any], scenarios: Callable[[], list[Any]],
                 error: Callable[[BaseException | str], None], *, runner: Any = None,
                 info: Callable[[str], None] | None = None) -> None:
        import ipywidgets as w

        self._session, self._scenarios, self._error = session, scenarios, error
        self._runner, self._info = runner, info or (lambda _: None)
        wide = {"style": {"description_width": "initial"}}
        self.show_button = w.Button(description="Show views",
                                    tooltip="compute the views for the current state")
        # disclosure risk: keys and numeric variables
        self.numeric = w.HTML()
        self.rmd_button = w.Button(description="RMD risk",
                                   tooltip="robust-distance interval risk of the numeric "
                                           "variables (slow)")
        self.numeric_help = ExplainButton("the disclosure risk figures", session,
                                          self._numeric_names)
        # suppressions and risky records
        self.suppressions = w.HTML()
        self.suppressions_help = ExplainButton("suppressions", session, lambda: ["suppressions"])
        self.threshold = w.BoundedFloatText(
            value=0.05, min=0.0, max=1.0, step=0.01, layout=w.Layout(width="360px"),
            description="Risky records above risk (0 to 1, default 0.05)", **wide)
        self.threshold_slider = w.FloatSlider(value=0.05, min=0.0, max=1.0, step=0.005,
                                              readout_format=".3f",
                                              description="Risk threshold", **wide)
        w.link((self.threshold, "value"), (self.threshold_slider, "value"))
        self.risky = w.HTML()
        self.risky_help = ExplainButton("the individual risk", session,
                                        lambda: ["global_risk", "expected_reidentifications"])
        self.threshold.observe(lambda _: self._redraw_risky(), names="value")
        # SUDA2
        self.dis_fraction = w.BoundedFloatText(
            value=0.01, min=1e-6, max=1.0, step=0.01, layout=w.Layout(width="430px"),
            description="DIS-SUDA sampling fraction (0 to 1, default 0.01)", **wide)
        self.suda_button = w.Button(description="Compute SUDA2",
                                    tooltip="minimal sample uniques and DIS-SUDA scores of the "
                                            "key variables")
        self.suda = w.HTML()
        self.suda_help = ExplainButton("SUDA2", session, lambda: ["suda2.dis_score"])
        # l-diversity
        self.sensitive = w.Dropdown(options=[], description="Sensitive variable", **wide)
        self.l_value = w.BoundedIntText(value=2, min=1, max=10**6, layout=w.Layout(width="330px"),
                                        description="l: distinct values required (default 2)",
                                        **wide)
        self.ldiv_button = w.Button(description="Show l-diversity",
                                    tooltip="diversity of the sensitive variable within the key "
                                            "combinations")
        self.ldiv = w.HTML()
        self.ldiv_help = ExplainButton("l-diversity", session, lambda: ["l_diversity.distinct"])
        # comparison
        self.compare_button = w.Button(description="Compare scenarios",
                                       tooltip="every scenario of the tree and the original")
        self.comparison = w.HTML()
        self.comparison_help = ExplainButton("the comparison's columns", session,
                                             self._comparison_names)
        self._columns: list[str] = []
        for b, fn in ((self.show_button, self.show), (self.rmd_button, self.show_rmd),
                      (self.suda_button, self.show_suda2), (self.ldiv_button, self.show_ldiv),
                      (self.compare_button, self.show_comparison)):
            b.on_click(lambda _, fn=fn: fn())
        for wd, cls in ((self.numeric, "sdc-numeric"), (self.rmd_button, "sdc-rmd"),
                        (self.suppressions, "sdc-suppressions"), (self.risky, "sdc-risky"),
                        (self.suda_button, "sdc-suda-button"), (self.suda, "sdc-suda"),
                        (self.ldiv_button, "sdc-ldiv-button"), (self.ldiv, "sdc-ldiv"),
                        (self.compare_button, "sdc-compare")):
            wd.add_class(cls)
        h = self
        self.box = w.VBox([
            w.HBox([self.show_button]),
            header("Disclosure risk: keys and numeric variables", h.numeric_help, h.rmd_button),
            h.numeric_help.text, h.numeric,
            header("Suppressions per key variable", h.suppressions_help),
            h.suppressions_help.text, h.suppressions,
            header("Risky records", h.risky_help), h.risky_help.text,
            w.HBox([h.threshold, h.threshold_slider]), h.risky,
            header("SUDA2: special uniques", h.suda_help), h.suda_help.text,
            w.HBox([h.dis_fraction, h.suda_button]), h.suda,
            header("l-diversity", h.ldiv_help), h.ldiv_help.text,
            w.HBox([h.sensitive, h.l_value, h.ldiv_button]), h.ldiv,
            header("All scenarios compared", h.comparison_help, h.compare_button),
            h.comparison_help.text, h.comparison])

    # --------------------------------------------------------------------------- plumbing
    def set_options(self, session: Any) -> None:
        """Offer the columns l-diversity can be measured on (keeping the choice)."""
        opts = sensitive_options(session)
        if opts != self._columns:
            old = self.sensitive.value
            self._columns = opts
            self.sensitive.options = opts
            self.sensitive.value = old if old in opts else (opts[0] if opts else None)
        self.rmd_button.disabled = not has_numeric(session)

    def _run(self, fn: Callable[[Any], Any], what: str) -> None:
        """``fn(session)`` in the background (progress, Cancel), or at once without a runner."""
        s = self._session()
        if s is None:
            return
        r = self._runner
        if r is None:
            try:
                fn(s)
            except Exception as e:  # noqa: BLE001 - a view failing must not break the widget
                self._error(e)
            return
        if r.busy:
            self._error(f"{what}: a step or view is running; wait for it or cancel it")
            return
        r.start(lambda: fn(s), what, ok=self._info, error=self._error)

    def _numeric_names(self) -> list[str]:
        s = self._session()
        names = ["expected_reidentifications", "global_risk"]
        if s is not None and has_numeric(s):
            names += ["numeric.interval_disclosure", "numeric.record_linkage"]
            if any(k and k[0] == "rmd_risk" for k in s.state.cache):
                names += ["rmd_risk.risk1", "rmd_risk.risk2"]
        return names

    def _comparison_names(self) -> list[str]:
        s = self._session()
        if s is None:
            return []
        from ..compare import default_measures

        return [m.column for m in default_measures([s.state])]

    # ------------------------------------------------------------------------------ views
    def show(self) -> None:
        """Compute and show the views for the current state (SUDA2 and RMD have their own
        buttons: they are slow)."""
        def all_views(s: Any) -> None:
            self._numeric(s)
            self._suppressions(s)
            self._risky(s)
            if self.sensitive.value is not None:
                self._ldiv(s)
            self._comparison()
        self._run(all_views, "views")

    def show_rmd(self) -> None:
        """Compute the RMD risk (slow) and show it with the other risk figures."""
        def rmd(s: Any) -> None:
            rmd_figures(s)
            self._numeric(s)
        self._run(rmd, "RMD risk")

    def show_suda2(self) -> None:
        """Compute SUDA2 on the keys (background; Cancel stops it)."""
        self._run(self._suda2, "SUDA2")

    def show_ldiv(self) -> None:
        """Show the l-diversity of the chosen sensitive variable."""
        self._run(self._ldiv, "l-diversity")

    def show_comparison(self) -> None:
        """Compare every scenario of the tree and the original."""
        self._run(lambda _s: self._comparison(), "comparison")

    def _numeric(self, s: Any) -> None:
        rows = numeric_risk(s)
        body = "".join(f"<tr><td>{html.escape(k)}</td><td style='text-align:right'>"
                       f"<b>{v:.4g}</b></td></tr>" for k, v in rows.items())
        note = "" if has_numeric(s) else "<i>no numeric variables in the roles</i>"
        self.numeric.value = f"{_stamp(s)}<table>{body}</table>{note}"
        self.numeric_help.refresh()

    def _suppressions(self, s: Any) -> None:
        self.suppressions.value = _stamp(s) + html_table(suppressions_table(s))
        self.suppressions_help.refresh()

    def _risky(self, s: Any) -> None:
        t = float(self.threshold.value)
        risky = risky_records(s, t)
        n_all = int((s.risk.individual > t).sum())
        self.risky.value = (_stamp(s) + f"<b>{n_all:,}</b> record(s) above the threshold"
                            + (f" (the {len(risky)} riskiest shown)" if n_all > len(risky)
                               else "") + html_table(risky))
        self.risky_help.refresh()

    def _redraw_risky(self) -> None:
        s = self._session()
        if s is None or not self.risky.value:
            return  # not shown yet
        try:
            self._risky(s)  # the risk is cached per state: a cheap filter and sort
        except Exception as e:  # noqa: BLE001 - a view failing must not break the widget
            self._error(e)

    def _suda2(self, s: Any) -> None:
        t = suda2_tables(s, float(self.dis_fraction.value))
        self.suda.value = (
            _stamp(s) + "<div style='display:flex;gap:16px'>"
            + html_table(t["thresholds"], index=False)
            + html_table(t["contributions"].reset_index(), index=False)
            + "</div><i>records with the highest DIS-SUDA score</i>"
            + html_table(t["records"]))
        self.suda_help.refresh()

    def _ldiv(self, s: Any) -> None:
        var = self.sensitive.value
        if var is None:
            self.ldiv.value = "<i>no column to measure (every column is a key variable)</i>"
            return
        l_ = int(self.l_value.value)
        t = l_diversity_tables(s, var, l_)
        self.ldiv.value = (
            _stamp(s) + f"<b>{t['violations']:,}</b> record(s) with fewer than {l_} distinct "
            f"values of {html.escape(str(var))} in their key combination"
            + html_table(t["summary"], index=False)
            + "<i>least diverse key combinations</i>" + html_table(t["classes"], index=False))
        self.ldiv_help.refresh()

    def _comparison(self) -> None:
        scenarios = self._scenarios()
        self.comparison.value = html_table(comparison_table(scenarios), index=False)
        self.comparison_help.refresh()
