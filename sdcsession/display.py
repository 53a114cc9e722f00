"""Text and HTML renderers (no plotting here). All HTML is escaped.

Example
-------
>>> esc("<b>")
'&lt;b&gt;'
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .history import Step
    from .session import SdcSession

__all__ = ["esc", "session_text", "session_html", "history_text", "history_html", "fmt",
           "table_html", "CSS"]

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


def fmt(x: Any) -> str:
    """Format a number for display: integers plainly, floats with 4 significant digits."""
    if x is None:
        return "–"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return f"{x:,}"
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    if f != f:
        return "NaN"
    if f == int(f) and abs(f) < 1e15:
        return f"{int(f):,}"
    return f"{f:.4g}"


def table_html(rows: Sequence[Sequence[Any]], header: Sequence[str] | None = None) -> str:
    """A small escaped HTML table."""
    out = ["<table>"]
    if header:
        out.append("<tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>")
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _roles_rows(roles: Any) -> list[tuple[str, str]]:
    rows = []
    for role in ("keys", "numeric", "weight", "household", "strata", "sensitive", "pram"):
        v = getattr(roles, role)
        if v:
            rows.append((role, ", ".join(v) if isinstance(v, tuple) else str(v)))
    return rows


def watched(session: SdcSession) -> list[tuple[str, Any, Any]]:
    """(name, value at HEAD, value at HEAD's parent or None) for the session's watched measures.

    Only measures already in the cache of the parent are shown for the parent (display never
    triggers the computation of a measure that the user did not ask to watch).
    """
    from .measures import compute

    out = []
    head = session.head
    for name in session.watch:
        try:
            now = compute(head.state, name)
            before = compute(head.parent.state, name) if head.parent is not None else None
        except Exception as e:  # display must not fail
            now, before = f"({type(e).__name__})", None
        out.append((name, now, before))
    return out


def session_text(s: SdcSession) -> str:
    """Plain-text card of a session."""
    head = s.head
    lines = [f"SdcSession {s.name!r}: {s.state.n:,} records, {len(s.data.columns)} columns, "
             f"seed {s.seed}, HEAD {head.label} (depth {head.depth})"]
    for role, v in _roles_rows(s.roles):
        lines.append(f"  {role:<10} {v}")
    if head.treatment is not None:
        lines.append(f"  last step  {head.describe()}")
    for name, now, before in watched(s):
        delta = "" if before is None else f"  (before: {fmt(before)})"
        lines.append(f"  {name:<28} {fmt(now)}{delta}")
    return "\n".join(lines)


def session_html(s: SdcSession) -> str:
    """HTML card of a session (escaped), with the text repr as a fallback comment."""
    head = s.head
    rows = [(r, v) for r, v in _roles_rows(s.roles)]
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


def history_text(steps: Sequence[Step]) -> str:
    """One line per step."""
    return "\n".join(st.describe() + (f"  [{st.seconds:.3f}s]" if st.treatment else "")
                     for st in steps)


def history_html(steps: Sequence[Step]) -> str:
    """HTML table of steps (escaped)."""
    rows = [(st.id, st.treatment.type if st.treatment else "original",
             ", ".join(f"{k}={v}" for k, v in (st.treatment.params() if st.treatment else {}).items()),
             st.seed if st.seed is not None else "", f"{st.seconds:.3f}",
             "; ".join(f"{k}: {v}" for k, v in st.notes.items())[:200]) for st in steps]
    return CSS + '<div class="sdc-card">' + table_html(
        rows, ["step", "treatment", "parameters", "seed", "seconds", "notes"]) + "</div>"
