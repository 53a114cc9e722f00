"""The workbench's live Risk & utility panel: the risk figures of the current state, its riskiest
key combinations, the numeric disclosure risk (interval disclosure, record linkage) beside the key
risk when numeric variables are declared, the information loss of the chosen measures, and the R-U
map of every scenario of the tree (matplotlib, rendered to PNG in an ``ipywidgets.Image``) whose
risk axis is the key risk, the numeric risk or both (`sdcsession.present.workbench.panels.numeric`).
A "?" beside each block explains its figures (`sdcsession.present.workbench.panels.explain`).

Every figure is read through the per-state measure cache (`sdcsession.session.state.State.measure`
via ``s.risk`` and `sdcsession.present.compare.compare`), so redrawing after undo or on a
scenario already seen recomputes nothing; the PNG is drawn on a ``matplotlib.figure.Figure``
(no pyplot state, safe from the workbench's worker thread).

Definitions: global risk = mean individual risk; expected re-identifications = sum of the
individual risks (Benedetti–Franconi, sdcMicro's ``measure_risk``); k-violations = records whose
key combination has fk < k; the riskiest combinations are the distinct key combinations of the
records with the highest individual risk (fk, Fk and risk per combination).

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["region", "sex"], seed=1)
>>> f = live_figures(s, k=3)
>>> f["k_violations"] == s.risk.k_violations(3), round(f["expected_reidentifications"], 6) == round(
...     s.risk.expected_reidentifications, 6)
(True, True)
>>> riskiest_combinations(s, n=2).columns.tolist()
['region', 'sex', 'fk', 'Fk', 'risk']
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pandas as pd

from ..compare import LOSS_COLUMNS, compare, default_measures
from ..plots._common import LABELS
from .panels.explain import ExplainButton
from .panels.numeric import (
    LIVE_NUMERIC_MAX,
    RISK_AXES,
    has_numeric,
    numeric_figures,
    risk_axis_options,
)
from .panels.numeric import ru_png as _ru_png
from .share import own_layout

__all__ = ["live_figures", "riskiest_combinations", "loss_figures", "ru_png", "loss_options",
           "LivePanel"]


def live_figures(session: Any, k: int) -> dict[str, Any]:
    """The scalar risk figures of the session's HEAD: records, global risk, expected
    re-identifications (and per household), k-violations for ``k``."""
    r = session.risk
    return {"scenario": session.name, "step": session.head.id, "records": session.state.n,
            "global_risk": float(r.global_risk),
            "expected_reidentifications": float(r.expected_reidentifications),
            "household_expected_reidentifications": r.household_expected_reidentifications,
            "k": int(k), "k_violations": int(r.k_violations(int(k)))}


def riskiest_combinations(session: Any, n: int = 5) -> pd.DataFrame:
    """The ``n`` distinct key combinations with the highest individual risk (ties: smaller fk
    first), with their fk, Fk and risk."""
    keys = list(session.roles.keys)
    r = session.risk
    risk = r.individual.to_numpy()
    # The risk is a function of the key combination, so the n riskiest combinations are among
    # the records whose risk is one of the n largest distinct values: only those are sorted.
    rows = _top_rows(risk, int(n))
    df = session.state.data[keys].iloc[rows].copy()
    df["fk"] = r.fk.to_numpy()[rows]
    df["Fk"] = np.asarray(r.Fk.to_numpy(), dtype=float)[rows]
    df["risk"] = risk[rows]
    df = df.sort_values(["risk", "fk"], ascending=[False, True], kind="stable")
    return df.drop_duplicates(keys).head(int(n)).reset_index(drop=True)


def _top_rows(risk: np.ndarray, n: int) -> np.ndarray:
    """Positions (in order) of the records whose risk is among the ``n`` largest distinct values.

    >>> _top_rows(np.array([0.1, 0.5, 0.5, 0.2, 0.3]), 2).tolist()
    [1, 2, 4]
    """
    m = len(risk)
    if n <= 0 or m == 0:
        return np.arange(0)
    k = min(m, max(4 * n, 64))
    while True:
        top = np.unique(np.partition(risk, m - k)[m - k:]) if k < m else np.unique(risk)
        top = top[~np.isnan(top)]
        if len(top) >= n or k >= m:
            break
        k = min(m, 4 * k)
    if len(top) < n or np.isnan(risk).any():  # fewer distinct values than asked, or missing risks
        return np.arange(m)
    return np.flatnonzero(risk >= top[-n])


def loss_options(session: Any) -> list[str]:
    """The information-loss columns of `compare` that apply to this session's roles."""
    return [m.column for m in default_measures([session.state]) if m.column in LOSS_COLUMNS]


def loss_figures(session: Any, measures: list[str]) -> dict[str, float]:
    """The chosen information-loss measures of the session's HEAD (NaN when not computable)."""
    if not measures:
        return {}
    row = compare(session, measures=list(measures)).iloc[0]
    return {m: float(row[m]) for m in measures}


def ru_png(sessions: list[Any], loss: str, risk: str = "key") -> bytes:
    """PNG of the R-U map of these scenarios: ``risk`` (``"key"``: expected re-identifications,
    ``"numeric"``: interval disclosure, ``"both"``: the two, one above the other) against ``loss``
    (`sdcsession.present.workbench.panels.numeric.ru_png`)."""
    return _ru_png(sessions, loss, risk)


def _fmt(v: Any) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "–"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    return f"{float(v):.4g}"


def _table(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><td>{html.escape(a)}</td><td style='text-align:right'>"
                   f"<b>{html.escape(b)}</b></td></tr>" for a, b in rows)
    return f"<table>{body}</table>"


class LivePanel:
    """Widgets of the live panel and `show`, which redraws them for a session."""

    def __init__(self, k: int) -> None:
        import ipywidgets as w

        style = {"description_width": "130px"}
        self.k = w.BoundedIntText(value=int(k), min=1, max=10**6, description="k for violations",
                                  style=style)
        self.risk_label = w.HTML(description="Disclosure risk", style=style)
        self.combos = w.HTML(description="Riskiest combinations", style=style)
        self.loss_measures = w.SelectMultiple(options=[], rows=5, description="Loss measures",
                                              style=style)
        self.loss_label = w.HTML(description="Information loss", style=style)
        self.ru_loss = w.Dropdown(options=[], description="R-U map loss", style=style)
        self.ru_risk = w.Dropdown(options=list(RISK_AXES[:1]), value="key",
                                  description="R-U map risk", style=style)
        self.ru_image = w.Image(format="png", layout=w.Layout(max_width="560px", display="none"))
        self.figures: dict[str, Any] = {}
        #: PNGs of R-U maps already drawn, by (scenarios and their HEADs, loss, risk axis)
        self._png: dict[tuple[Any, ...], bytes] = {}
        #: HTML of the riskiest combinations of the last states shown, by step
        self._combos: dict[Any, str] = {}
        #: the controls whose change redraws the panel
        self.controls = (self.k, self.loss_measures, self.ru_loss, self.ru_risk)
        self.session: Any = None
        shown = self._shown
        self.risk_help = ExplainButton("the risk figures", shown, self._risk_names)
        self.loss_help = ExplainButton("the loss measures", shown,
                                       lambda: list(self.loss_measures.value))
        self.ru_help = ExplainButton("the R-U map's axes", shown, self._ru_names)
        self.combos_help = ExplainButton("the individual risk", shown,
                                         lambda: ["global_risk"])
        self._helps = (self.risk_help, self.combos_help, self.loss_help, self.ru_help)
        for b in self._helps:
            b.button.add_class("sdc-live-explain")
        self.ru_risk.add_class("sdc-ru-risk")
        self.box = w.VBox([self.k, w.HBox([self.risk_label, self.risk_help.button]),
                           self.risk_help.text,
                           w.HBox([self.combos, self.combos_help.button]),
                           self.combos_help.text,
                           w.HBox([self.loss_measures, self.loss_label, self.loss_help.button]),
                           self.loss_help.text,
                           w.HBox([w.VBox([self.ru_loss, self.ru_risk]), self.ru_help.button]),
                           self.ru_help.text, self.ru_image])

    def _shown(self) -> Any:
        """The session shown last (the "?" explains its figures)."""
        return self.session

    def _risk_names(self) -> list[str]:
        f = self.figures
        names = ["global_risk", "expected_reidentifications"]
        if f.get("household_expected_reidentifications") is not None:
            names.append("household_expected_reidentifications")
        names.append(f"k{f.get('k', self.k.value)}_violations")
        return names + [n for n in f if n.startswith("numeric.")]

    def _ru_names(self) -> list[str]:
        risk = {"key": ["expected_reidentifications"], "numeric": ["numeric.interval_disclosure"],
                "both": ["expected_reidentifications", "numeric.interval_disclosure"]}
        return risk.get(self.ru_risk.value, []) + ([self.ru_loss.value] if self.ru_loss.value
                                                    else [])

    def set_options(self, session: Any) -> None:
        """Offer the loss measures that apply to ``session`` (keeping the choice)."""
        opts = loss_options(session)
        if list(self.loss_measures.options) != opts:
            keep = tuple(m for m in self.loss_measures.value if m in opts)
            self.loss_measures.options = [(LABELS.get(m, m), m) for m in opts]
            self.loss_measures.value = keep or tuple(opts)
        if [v for _, v in self.ru_loss.options] != opts:
            old = self.ru_loss.value
            self.ru_loss.options = [(LABELS.get(m, m), m) for m in opts]
            pick = "lambda" if "lambda" in opts else (opts[0] if opts else None)
            self.ru_loss.value = old if old in opts else pick
        axes = risk_axis_options(session)
        if list(self.ru_risk.options) != axes:
            old = self.ru_risk.value
            self.ru_risk.options = axes
            self.ru_risk.value = old if old in [v for _, v in axes] else "key"

    def show(self, session: Any, sessions: list[Any]) -> None:
        """Redraw every figure for ``session`` (HEAD) and the R-U map of ``sessions``."""
        f = live_figures(session, self.k.value)
        rows = [("scenario / step", f"{f['scenario']} / #{f['step']}"),
                ("records", _fmt(f["records"])),
                ("global risk", _fmt(f["global_risk"])),
                ("expected re-identifications", _fmt(f["expected_reidentifications"]))]
        if f["household_expected_reidentifications"] is not None:
            rows.append(("household expected re-identifications",
                         _fmt(f["household_expected_reidentifications"])))
        rows.append((f"records violating {f['k']}-anonymity", _fmt(f["k_violations"])))
        if has_numeric(session) and session.state.n <= LIVE_NUMERIC_MAX:
            f.update(numeric_figures(session))
            rows += [(f"{n[len('numeric.'):].replace('_', ' ')} (numeric)", _fmt(f[n]))
                     for n in f if n.startswith("numeric.")]
        elif has_numeric(session):
            rows.append(("numeric risk", "in the Views tab (large file)"))
        self.risk_label.value = _table(rows)
        text = self._combos.get(session.head)
        if text is None:  # a sort of the records: once per state (kept for the last 16)
            text = self._combos[session.head] = riskiest_combinations(session).to_html(
                index=False, float_format=lambda x: f"{x:.4g}", na_rep="(missing)", border=0)
            while len(self._combos) > 16:
                self._combos.pop(next(iter(self._combos)))
        self.combos.value = text
        losses = loss_figures(session, list(self.loss_measures.value))
        self.loss_label.value = _table([(LABELS.get(m, m), _fmt(v)) for m, v in losses.items()])
        f.update({f"loss.{m}": v for m, v in losses.items()})
        if self.ru_loss.value:
            risk = self.ru_risk.value or "key"
            key = (tuple((x.name, x.head.id) for x in sessions), self.ru_loss.value, risk)
            png = self._png.get(key)
            if png is None:
                png = self._png[key] = ru_png(sessions, self.ru_loss.value, risk)
                while len(self._png) > 64:
                    self._png.pop(next(iter(self._png)))
            self.ru_image.value = png
            own_layout(self.ru_image).display = ""
        self.figures = f
        self.session = session
        for b in self._helps:
            b.refresh()
