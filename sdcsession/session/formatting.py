"""Plain-text renderings of session objects: number formatting, the session card, the history.

The text ``repr`` of a session, its history and its risk and utility views is part of what those
objects are (it works in any console); HTML and plots are attached by the presentation layer.

Example
-------
>>> fmt(3.0), fmt(1234), fmt(0.123456), fmt(None)
('3', '1,234', '0.1235', '–')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .history import Step
    from .session import SdcSession

__all__ = ["fmt", "value_text", "notes_text", "roles_rows", "watched", "session_text",
           "history_text"]


def fmt(x: Any) -> str:
    """Format a number for display: integers plainly (also integral floats), floats with 4
    significant digits, ``None`` as a dash.

    >>> fmt(2.5e-7)
    '2.5e-07'
    """
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


def value_text(v: Any, *, items: int = 8) -> str:
    """A parameter or note value as short text: numbers through `fmt`, strings as they are,
    lists as ``a, b, c`` (at most ``items``, then ``… (n items)``), mappings as ``key value``
    pairs separated by commas.

    >>> value_text({"region": 97, "sex": 51.0}), value_text(list(range(20)), items=3)
    ('region 97, sex 51', '0, 1, 2, … (20 items)')
    """
    if isinstance(v, dict):
        parts = [f"{k} {value_text(x, items=items)}" for k, x in list(v.items())[:items]]
        more = f", … ({len(v)} entries)" if len(v) > items else ""
        return ", ".join(parts) + more if parts else "none"
    if isinstance(v, (list, tuple)):
        parts = [value_text(x, items=items) for x in list(v)[:items]]
        more = f", … ({len(v)} items)" if len(v) > items else ""
        return (", ".join(parts) + more) if parts else "none"
    if isinstance(v, str):
        return v
    return fmt(v)


def notes_text(notes: Any, *, width: int = 400) -> str:
    """A step's notes as text (``what: value; ...``), never raw JSON; cut at ``width`` characters.

    >>> notes_text({"suppressed": {"age": 4, "sex": 1}, "total": 5, "sse": 0.123456})
    'suppressed: age 4, sex 1; total: 5; sse: 0.1235'
    """
    if not isinstance(notes, dict):
        return "" if notes is None else value_text(notes)[:width]
    txt = "; ".join(f"{str(k).replace('_', ' ')}: {value_text(v)}" for k, v in notes.items())
    return txt if len(txt) <= width else txt[: width - 1] + "…"


def roles_rows(roles: Any) -> list[tuple[str, str]]:
    """(role, variables) for every role that is set."""
    rows = []
    for role in ("keys", "numeric", "weight", "household", "strata", "sensitive", "pram"):
        v = getattr(roles, role)
        if v:
            rows.append((role, ", ".join(v) if isinstance(v, tuple) else str(v)))
    return rows


def watched(session: SdcSession) -> list[tuple[str, Any, Any]]:
    """(name, value at HEAD, value at HEAD's parent or None) for the session's watched measures.

    A display must never fail: a measure that raises is shown as ``(ErrorType)``.
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
    """Plain-text card of a session: size, seed, HEAD, roles, last step, watched measures."""
    head = s.head
    lines = [f"SdcSession {s.name!r}: {s.state.n:,} records, {len(s.data.columns)} columns, "
             f"seed {s.seed}, HEAD {head.label} (depth {head.depth})"]
    for role, v in roles_rows(s.roles):
        lines.append(f"  {role:<10} {v}")
    if head.treatment is not None:
        lines.append(f"  last step  {head.describe()}")
    for name, now, before in watched(s):
        delta = "" if before is None else f"  (before: {fmt(before)})"
        lines.append(f"  {name:<28} {fmt(now)}{delta}")
    return "\n".join(lines)


def history_text(steps: Sequence[Step]) -> str:
    """One line per step, with its time (and the step's ``summary`` note, if it has one)."""
    return "\n".join(st.describe() + (f"  [{st.seconds:.3f}s]" if st.treatment else "") +
                     (f"\n    -> {st.notes['summary']}" if isinstance(st.notes, dict) and
                      isinstance(st.notes.get("summary"), str) else "")
                     for st in steps)
