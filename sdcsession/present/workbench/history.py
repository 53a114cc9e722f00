"""The workbench's History panel: the scenario tree (every step of every branch, HEADs marked),
Undo / Redo / Branch buttons, the scenario picker, and the recipe of the current state as
copyable code (Python or JSON).

The Python code rebuilds the session from the original data and applies each step as one line
calling its session method with the parameters that differ from their defaults
(``s.local_suppression(k=3, importance=['sex', 'region'])``, `step_code`), so it replays bit for
bit like ``SdcSession.from_recipe``; a step the methods cannot express (its own seed, a value
with no literal form) is written with ``Treatment.from_dict`` (the recipe's lossless encoding).

Example
-------
>>> import pandas as pd, sdcsession as sdc
>>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxz")}), keys=["a"], seed=1)
>>> print(recipe_code(s.recode("a", {"z": "y"}).to_recipe()).splitlines()[-1])
s.recode(column='a', mapping={'z': 'y'})
>>> [label for label, _ in tree_rows(s)]
['#0 original', '└─ #1 ← main · recode(column=a, mapping={1 entries})']
"""

from __future__ import annotations

import html
import json
from typing import Any

from ...session.history import step_seed
from ..steps import step_text, tree

__all__ = ["tree_rows", "recipe_code", "step_code", "HistoryPanel"]

_ROLE_ORDER = ("keys", "numeric", "weight", "household", "strata", "sensitive", "pram",
               "identifiers", "linked")


def tree_rows(session: Any) -> list[tuple[str, int]]:
    """``(text, step id)`` per step of the session's tree, depth first, with the branch drawing
    and the names of the scenarios whose HEAD is there (right after the step number, so that a
    long step never hides them)."""
    view = tree(session)
    rows = []
    for st, pre, _ in view._walk():
        heads = view.heads.get(st.id)
        text = "original" if st.treatment is None else step_text(st)
        mark = f" ← {', '.join(heads)} ·" if heads else ""
        rows.append((f"{pre}#{st.id}{mark} {text}", st.id))
    return rows


def recipe_code(recipe: dict[str, Any], data: str = "df") -> str:
    """Python code that rebuilds the recipe's scenario from the original data ``data``.

    Roles, seed, k and alpha become the `SdcSession` call; each step one line (`step_code`).
    """
    roles = recipe.get("roles") or {}
    args = [data]
    for r in _ROLE_ORDER:
        v = roles.get(r)
        if v not in (None, [], {}, ()):
            args.append(f"{r}={v!r}")
    seed = int(recipe.get("seed", 0))
    opts = recipe.get("options") or {}
    args.append(f"seed={seed}")
    if opts.get("k", 3) != 3:
        args.append(f"k={opts['k']!r}")
    if opts.get("alpha", 1.0) != 1.0:
        args.append(f"alpha={opts['alpha']!r}")
    name = recipe.get("name") or "main"
    if name != "main":
        args.append(f"name={name!r}")
    lines = ["import sdcsession as sdc", "",
             f"# {data}: the original data ({recipe.get('data', {}).get('n_records', '?')} "
             "records), e.g. sdc.io.read_data(path)",
             f"s = sdc.SdcSession({', '.join(args)})"]
    for depth, step in enumerate(recipe.get("steps") or [], start=1):
        own = step.get("seed") is not None and int(step["seed"]) != step_seed(seed, depth)
        lines.append(step_code(step, own_seed=int(step["seed"]) if own else None))
    if any(ln.startswith("s.apply(Treatment") for ln in lines):
        lines.insert(1, "from sdcsession.methods.base import Treatment")
    return "\n".join(lines)


#: treatment type -> session method, where the names differ
_METHODS = {"remove_columns": "remove", "record_keys": "add_record_keys"}


def step_code(step: dict[str, Any], *, own_seed: int | None = None) -> str:
    """One recipe step as one line of code: the session method with the parameters that differ
    from their defaults (``s.local_suppression(k=3, importance=['sex', 'region'])``), integral
    numbers written as integers; ``s.apply(Treatment.from_dict({...}))`` when no method takes
    these parameters, a value has no literal form, or the step has its own seed
    (``own_seed``).

    >>> step_code({"type": "local_suppression", "k": 3.0, "importance": ["sex", "age"]})
    "s.local_suppression(k=3, importance=['sex', 'age'])"
    """
    import inspect

    import attrs

    from ...methods.base import TREATMENTS, Treatment
    from ...session import SdcSession

    params = {k: v for k, v in step.items() if k != "seed"}
    fallback = f"s.apply(Treatment.from_dict({params!r})" + (
        f", seed={own_seed})" if own_seed is not None else ")")
    tag = str(params.get("type"))
    method = _METHODS.get(tag, tag)
    fn, cls = getattr(SdcSession, method, None), TREATMENTS.get(tag)
    if own_seed is not None or fn is None or cls is None:
        return fallback
    try:
        t = Treatment.from_dict(params)
        sig = inspect.signature(fn).parameters
        accepted = set(sig)
    except Exception:  # noqa: BLE001 - the lossless form always works
        return fallback
    kw = []
    for f in attrs.fields(cls):
        if not f.init:
            continue
        v, d = getattr(t, f.name), f.default
        if isinstance(d, attrs.Factory):  # type: ignore[arg-type]
            d = attrs.NOTHING if d.takes_self else d.factory()
        needed = f.alias in sig and sig[f.alias].default is inspect.Parameter.empty
        if d is not attrs.NOTHING and _same(v, d) and not needed:
            continue
        text = _literal(v)
        if f.alias not in accepted or text is None:
            return fallback
        kw.append(f"{f.alias}={text}")
    return f"s.{method}({', '.join(kw)})"


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b) or (a is None and b is None)
    except Exception:  # noqa: BLE001 - arrays and frames: not the default
        return False


def _literal(v: Any) -> str | None:
    """``v`` as a Python literal (tuples as lists, integral numbers as integers at the top
    level and in lists of numbers), or None when it has none."""
    import ast
    import numbers

    def plain(x: Any, top: bool) -> Any:
        if hasattr(x, "item") and not isinstance(x, (list, tuple, dict)):
            try:
                x = x.item()
            except (TypeError, ValueError):
                return x
        if isinstance(x, float) and top and x.is_integer() and abs(x) < 2**53:
            return int(x)
        if isinstance(x, (list, tuple)):
            nums = all(isinstance(e, numbers.Real) and not isinstance(e, bool) for e in x)
            return [plain(e, top and nums) for e in x]
        if isinstance(x, dict):
            return {plain(k, False) if not isinstance(k, tuple) else k: plain(e, False)
                    for k, e in x.items()}
        return x

    text = repr(plain(v, True))
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return text


class HistoryPanel:
    """Widgets of the History panel (no behaviour: the workbench wires the buttons and shows
    Undo / Redo in its toolbar, visible from every panel)."""

    def __init__(self) -> None:
        import ipywidgets as w

        style = {"description_width": "110px"}
        self.scenario = w.Dropdown(options=[], description="Scenario", style=style)
        self.tree = w.Select(options=[], rows=10, description="Steps (click)", style=style,
                             layout=w.Layout(width="98%"))
        self.tree.add_class("sdc-mono")
        self.undo_button = w.Button(description="Undo")
        self.redo_button = w.Button(description="Redo")
        self.branch_name = w.Text(value="", placeholder="name of the new branch",
                                  description="Branch name", style=style)
        self.branch_button = w.Button(description="Branch")
        self.recipe_format = w.ToggleButtons(options=["Python", "JSON"], value="Python",
                                             description="Recipe as", style=style)
        self.recipe = w.Textarea(value="", description="Recipe", rows=12, style=style,
                                 layout=w.Layout(width="98%"))
        self.tree.add_class("sdc-mono")
        css = w.HTML("<style>.sdc-mono select, .sdc-mono textarea {font-family: monospace; "
                     "white-space: pre}</style>")
        #: the whole tree as text (every line whole, wrapped; the list above cuts long lines)
        self.tree_text = w.HTML()
        self.box = w.VBox([
            css, self.scenario, self.tree, self.tree_text,
            w.HBox([self.branch_name, self.branch_button]),
            self.recipe_format, self.recipe])

    def show(self, session: Any, scenarios: list[str]) -> None:
        """Show the tree, the scenario names and the recipe of ``session``."""
        self.scenario.options = scenarios
        if session.name in scenarios:
            self.scenario.value = session.name
        rows = tree_rows(session)
        self.tree.options = rows
        self.tree_text.value = (
            "<pre style='white-space:pre-wrap;font-size:85%;margin:2px 0;max-height:220px;"
            "overflow:auto'>" + html.escape("\n".join(t for t, _ in rows)) + "</pre>")
        self.tree.value = session.head.id
        recipe = session.to_recipe()
        self.recipe.value = (recipe_code(recipe) if self.recipe_format.value == "Python"
                             else json.dumps(recipe, indent=2, ensure_ascii=False))
