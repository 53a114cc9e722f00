"""HTML renderers of sessions, histories and risk/utility views (no plotting here); all HTML is
escaped. The plain-text renderers live with the objects (``sdcsession.session.formatting``).

Example
-------
>>> esc("<b>")
'&lt;b&gt;'
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..session.formatting import (
    fmt,
    history_text,
    notes_text,
    roles_rows,
    session_text,
    value_text,
    watched,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..session.history import Step
    from ..session.session import SdcSession
    from ..session.views.risk_view import RiskSummary
    from ..session.views.utility_view import UtilitySummary

__all__ = ["esc", "session_text", "session_html", "history_text", "history_html", "fmt",
           "table_html", "CSS", "risk_html", "utility_html", "watched"]

CSS = (
    "<style>.sdc-card{font-family:system-ui,sans-serif;font-size:13px;border:1px solid #ccd;"
    "border-radius:6px;padding:8px 12px;max-width:56em}.sdc-card h4{margin:0 0 6px 0}"
    ".sdc-card table{border-collapse:collapse;margin:4px 0}.sdc-card td,.sdc-card th{padding:2px 8px;"
    "border-bottom:1px solid #eee;text-align:left}.sdc-card th{background:#f4f4f8}"
    ".sdc-up{color:#a33}.sdc-down{color:#272}.sdc-muted{color:#777}</style>"
)


def esc(x: Any) -> str:
    """HTML-escape ``str(x)``."""
    return html.escape(str(x), quote=True)


def _cell(c: Any) -> str:
    """A table cell's text: numbers through `fmt` (3, not 3.0), anything else as ``str``."""
    if isinstance(c, (int, float, np.integer, np.floating)) and not isinstance(c, (bool, np.bool_)):
        return fmt(c)
    return str(c)


def table_html(rows: Sequence[Sequence[Any]], header: Sequence[str] | None = None) -> str:
    """A small escaped HTML table (numbers formatted with `fmt`: integers as integers)."""
    out = ["<table>"]
    if header:
        out.append("<tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>")
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{esc(_cell(c))}</td>" for c in r) + "</tr>")
    out.append("</table>")
    return "".join(out)


def session_html(s: SdcSession) -> str:
    """HTML card of a session (escaped), with the text repr as a fallback comment."""
    head = s.head
    rows = roles_rows(s.roles)
    parts = [CSS, '<div class="sdc-card">',
             f"<h4>SdcSession {esc(s.name)}</h4>",
             f"<div>{s.state.n:,} records · {len(s.data.columns)} columns · seed {s.seed} · "
             f"HEAD {esc(head.label)} (depth {head.depth})</div>",
             table_html(rows, ["role", "variables"])]
    if head.treatment is not None:
        parts.append(f"<div>last step: <code>{esc(head.describe())}</code></div>")
    w = watched(s)
    if w:
        trs = []
        for name, now, before in w:
            change = ""
            try:
                if before is not None and now != before:
                    d = float(now) - float(before)
                    cls = "sdc-up" if d > 0 else "sdc-down"
                    change = f'<span class="{cls}">{"+" if d > 0 else ""}{esc(fmt(d))}</span>'
            except (TypeError, ValueError):
                pass
            trs.append(f"<tr><td>{esc(name)}</td><td>{esc(fmt(now))}</td><td>{change}</td></tr>")
        parts.append("<table><tr><th>watched</th><th>value</th><th>change</th></tr>"
                     + "".join(trs) + "</table>")
    parts.append("</div>")
    return "".join(parts)


def history_html(steps: Sequence[Step]) -> str:
    """HTML table of steps (escaped)."""
    rows = [(st.id, st.treatment.type if st.treatment else "original",
             "; ".join(f"{k}={value_text(v)}"
                       for k, v in (st.treatment.params() if st.treatment else {}).items()),
             str(st.seed) if st.seed is not None else "", f"{st.seconds:.3f}",
             notes_text(st.notes, width=300)) for st in steps]
    return CSS + '<div class="sdc-card">' + table_html(
        rows, ["step", "treatment", "parameters", "seed", "seconds", "notes"]) + "</div>"


def risk_html(r: RiskSummary) -> str:
    """HTML card of a risk view (the rows of its text repr)."""
    return (CSS + '<div class="sdc-card"><h4>Disclosure risk</h4>' + table_html(r.summary_rows())
            + f"<!-- {esc(repr(r))} --></div>")


def utility_html(u: UtilitySummary) -> str:
    """HTML card of a utility view: scalar losses and suppressions per key."""
    sup = u.suppressions
    return (CSS + '<div class="sdc-card"><h4>Information loss vs the original</h4>'
            + table_html(u.summary_rows())
            + table_html([(k, int(v)) for k, v in sup["suppressions"].items()],
                         ["key", "suppressions"])
            + f"<!-- {esc(repr(u))} --></div>")
