"""The tables section of the HTML report: the tables made with ``SdcSession.tabulate`` in the
reported scenarios (what was tabulated, at which step, with which perturbation), never their
original values.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .display import esc
from .report_sections import _table

__all__ = ["tables_section"]


def _given(v: Any) -> Any:
    """``v``, or None for a missing entry (None or NaN in the log)."""
    return None if v is None or (isinstance(v, float) and pd.isna(v)) else v


def _names(v: Any) -> str:
    return " × ".join(map(str, v)) if isinstance(v, (list, tuple)) and v else "–"


def tables_section(sessions: list[Any]) -> str:
    """HTML listing every tabulation of the sessions' trees made in one of these scenarios
    (one row per table: scenario, step, variables, value, method and ptable, threshold, margins,
    cells and sensitive cells); an empty string when there is none.

    Missing values: a parameter not given is shown as a dash.

    Example
    -------
    >>> tables_section([])
    ''
    """
    names = {s.name for s in sessions}
    seen: set[int] = set()
    rows = []
    for s in sessions:
        log = s.tabulations
        if id(s._tree) in seen or log.empty:
            continue
        seen.add(id(s._tree))
        for r in log.itertuples(index=False):
            if r.scenario not in names:
                continue
            rows.append({
                "scenario": r.scenario, "step": f"#{r.step}", "by": _names(r.by),
                "rows": _names(r.rows), "columns": _names(r.columns),
                "value": _given(r.value) or "count",
                "weighted": "yes" if _given(r.weights) else "no", "method": r.method,
                "perturbation": (_given(r.ptable) or _given(r.noise) or "–")
                if r.method == "ckm" else "none",
                "threshold": "–" if _given(r.threshold) is None else str(int(r.threshold)),
                "margins": r.margins, "cells": int(r.cells),
                "sensitive cells": "–" if _given(r.sensitive) is None
                else str(int(r.sensitive))})
    if not rows:
        return ""
    return ("<h2 id='tables'>Tables</h2><p>Tables made from the scenarios with the cell-key "
            "method (a table is a view of a step: it changes no data). Record keys are kept "
            f"with the session and never released. {esc(len(rows))} table(s).</p>"
            + _table(pd.DataFrame(rows), index=False))
