"""Scenarios as steps of the history tree: naming them (`scenarios`), describing them in
one short line (`step_text`, `steps_text`), and the whole tree with the HEADs of the
live sessions marked (`tree`, `TreeView`).

A *scenario* is a session (its HEAD) or any step of a history tree. These are the pieces that
`sdcsession.present.compare.compare`, the plots and the report share.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..errors import ParameterError
from .display import CSS, esc

if TYPE_CHECKING:  # pragma: no cover
    from ..session.history import Step
    from ..session.session import SdcSession

__all__ = ["scenarios", "step_text", "steps_text", "tree", "TreeView"]


def _is_session(x: Any) -> bool:
    return hasattr(x, "head") and hasattr(x, "history") and hasattr(x, "name")


def scenarios(*items: Any) -> list[tuple[str, Step]]:
    """``(name, step)`` for sessions (their HEAD), steps, and iterables of them (``s.history``).

    A session is named by its name, a step by its label (``"#3 pram"``). Duplicate names get a
    ``" (2)"`` suffix.

    >>> scenarios()
    []
    """
    from ..session.history import Step

    flat: list[Any] = []

    def walk(xs: Iterable[Any]) -> None:
        for it in xs:
            if _is_session(it) or isinstance(it, Step):
                flat.append(it)
            elif isinstance(it, Iterable) and not isinstance(it, (str, bytes, pd.DataFrame)):
                walk(it)
            else:
                raise ParameterError(
                    f"compare: expected SdcSession or Step objects (or s.history), got "
                    f"{type(it).__name__}")

    walk(items)
    out: list[tuple[str, Step]] = []
    seen: dict[str, int] = {}
    for it in flat:
        if isinstance(it, Step):
            step = it
            name = step.label
        else:
            step, name = it.head, it.name
        if name in seen:
            seen[name] += 1
            name = f"{name} ({seen[name]})"
        else:
            seen[name] = 1
        out.append((name, step))
    return out


def _short_value(v: Any, width: int = 28) -> str:
    if isinstance(v, (list, tuple)):
        txt = ",".join(_short_value(x, 12) for x in v)
        txt = txt if len(v) <= 4 else ",".join(_short_value(x, 12) for x in v[:3]) + ",…"
    elif isinstance(v, dict):
        txt = f"{{{len(v)} entries}}"
    elif isinstance(v, float):
        txt = f"{v:g}"
    else:
        txt = str(v)
    return txt if len(txt) <= width else txt[: width - 1] + "…"


def _false_by_default(t: Any) -> set[str]:
    """Names of the treatment's flags that default to False (shown only when set)."""
    import attrs

    try:
        return {f.name for f in attrs.fields(type(t)) if f.default is False}
    except (TypeError, attrs.exceptions.NotAnAttrsClassError):
        return set()


def step_text(step: Step, *, max_params: int | None = None) -> str:
    """Short text of a step: ``type(p=v, ...)`` with every parameter that says something (empty
    values and flags left at their default False are left out; long values are abbreviated);
    ``max_params`` cuts the list with ``…``.

    >>> step_text(type("S", (), {"treatment": None})())
    '(original)'
    """
    t = step.treatment
    if t is None:
        return "(original)"
    off = _false_by_default(t)
    params = [(k, v) for k, v in t.params().items()
              if v not in (None, [], (), {}, "") and not (k in off and v is False)]
    shown = params if max_params is None else params[:max_params]
    inner = ", ".join(f"{k}={_short_value(v)}" for k, v in shown)
    if len(shown) < len(params):
        inner += ", …"
    return f"{t.type}({inner})"


def steps_text(step: Step, sep: str = " → ") -> str:
    """The treatments from the root to ``step`` as one short line (``"(original)"`` at the root)."""
    path = [st for st in step.path() if st.treatment is not None]
    if not path:
        return "(original)"
    return sep.join(step_text(st) for st in path)


# -------------------------------------------------------------------------------------- tree
class TreeView:
    """The whole history tree of a session (every branch), with the HEADs marked.

    ``to_frame()`` (one row per step: parent, depth, treatment, parameters, seed, seconds, heads),
    ``to_text()`` (an indented tree; also ``repr``) and ``to_html()`` (also ``_repr_html_``).
    """

    def __init__(self, root: Step, heads: dict[int, list[str]]) -> None:
        self.root = root
        self.heads = heads

    def _walk(self) -> list[tuple[Step, str, str]]:
        """(step, prefix for the step line, prefix for its children) depth first."""
        out: list[tuple[Step, str, str]] = []
        stack: list[tuple[Step, str, str]] = [(self.root, "", "")]
        while stack:
            st, pre, child_pre = stack.pop()
            out.append((st, pre, child_pre))
            kids = st.children
            for j in range(len(kids) - 1, -1, -1):
                last = j == len(kids) - 1
                stack.append((kids[j], child_pre + ("└─ " if last else "├─ "),
                              child_pre + ("   " if last else "│  ")))
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per step (depth-first order), indexed by step id."""
        rows = []
        for st, _, _ in self._walk():
            t = st.treatment
            rows.append({"step": st.id, "parent": st.parent.id if st.parent else None,
                         "depth": st.depth, "treatment": t.type if t else "original",
                         "parameters": t.params() if t else {},
                         "seed": st.seed if (t is not None and t.random) else None,
                         "seconds": round(st.seconds, 6),
                         "head": ", ".join(self.heads.get(st.id, []))})
        df = pd.DataFrame(rows).set_index("step")
        df["parent"] = pd.array([r["parent"] for r in rows], dtype="Int64")
        df["seed"] = pd.array([r["seed"] for r in rows], dtype="Int64")
        return df

    def to_text(self) -> str:
        """An indented text tree; ``← HEAD name`` marks the HEAD of each live session."""
        lines = []
        for st, pre, _ in self._walk():
            h = self.heads.get(st.id)
            mark = f"  ← HEAD {', '.join(h)}" if h else ""
            lines.append(f"{pre}{st.describe()}{mark}")
        return "\n".join(lines)

    def to_html(self) -> str:
        """HTML (escaped): the text tree in a ``<pre>`` with HEADs in bold, inside a card."""
        lines = []
        for st, pre, _ in self._walk():
            h = self.heads.get(st.id)
            mark = f' <b class="sdc-up">← HEAD {esc(", ".join(h))}</b>' if h else ""
            lines.append(f"{esc(pre)}{esc(st.describe())}{mark}")
        return (CSS + '<div class="sdc-card"><h4>History tree</h4><pre style="margin:0">'
                + "\n".join(lines) + f"</pre><!-- {esc(self.to_text())} --></div>")

    def __repr__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        return self.to_html()


def tree(session: SdcSession) -> TreeView:
    """The history tree shared by ``session`` and every branch made from it, HEADs marked.

    Reads the tree's ``sessions`` (weak references to the live sessions sharing it) for the HEAD
    marks; the steps themselves are never copied or recomputed.

    Example
    -------
    >>> import pandas as pd, sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxy")}), keys=["a"], seed=1)
    >>> b = s.branch("b").recode("a", {"y": "x"})
    >>> print(tree(s))
    #0 original  ← HEAD main
    └─ #1 recode(column='a', mapping={'y': 'x'})  ← HEAD b
    >>> tree(s).to_frame()["head"].tolist()
    ['main', 'b']
    """
    if not _is_session(session):
        raise ParameterError(f"tree: expected an SdcSession, got {type(session).__name__}")
    t = session._tree
    heads: dict[int, list[str]] = {}
    refs: list[weakref.ref] = getattr(t, "sessions", [])
    live = [r() for r in refs]
    if not any(x is session for x in live):
        live.append(session)
    for x in live:
        if x is not None:
            heads.setdefault(x.head.id, []).append(x.name)
    return TreeView(t.root, heads)

