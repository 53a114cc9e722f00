"""The workbench's History panel: the scenario tree (every step of every branch, HEADs marked),
Undo / Redo / Branch buttons, the scenario picker, and the recipe of the current state as
copyable code (Python or JSON).

The Python code rebuilds the session from the original data and applies each step with
``Treatment.from_dict`` (the recipe's lossless parameter encoding), so it replays bit for bit
like ``SdcSession.from_recipe``; a step's ``seed=`` is written only when it differs from the one
the session seed gives at that depth.

Example
-------
>>> import pandas as pd, sdcsession as sdc
>>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxz")}), keys=["a"], seed=1)
>>> print(recipe_code(s.recode("a", {"z": "y"}).to_recipe()).splitlines()[-1])
s.apply(Treatment.from_dict({'type': 'recode', 'column': 'a', 'mapping': {'z': 'y'}}))
>>> [label for label, _ in tree_rows(s)]
['#0 original', '└─ #1 recode(column=a, mapping={1 entries})  ← main']
"""

from __future__ import annotations

import json
from typing import Any

from ...session.history import step_seed
from ..steps import step_text, tree

__all__ = ["tree_rows", "recipe_code", "HistoryPanel"]

_ROLE_ORDER = ("keys", "numeric", "weight", "household", "strata", "sensitive", "pram",
               "identifiers", "linked")


def tree_rows(session: Any) -> list[tuple[str, int]]:
    """``(text, step id)`` per step of the session's tree, depth first, with the branch drawing
    and the names of the scenarios whose HEAD is there."""
    view = tree(session)
    rows = []
    for st, pre, _ in view._walk():
        heads = view.heads.get(st.id)
        text = "original" if st.treatment is None else step_text(st)
        mark = f"  ← {', '.join(heads)}" if heads else ""
        rows.append((f"{pre}#{st.id} {text}{mark}", st.id))
    return rows


def recipe_code(recipe: dict[str, Any], data: str = "df") -> str:
    """Python code that rebuilds the recipe's scenario from the original data ``data``.

    Roles, seed, k and alpha become the `SdcSession` call; each step one
    ``s.apply(Treatment.from_dict({...}))`` line.
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
    lines = ["import sdcsession as sdc", "from sdcsession.methods.base import Treatment", "",
             f"# {data}: the original data ({recipe.get('data', {}).get('n_records', '?')} "
             "records), e.g. sdc.io.read_data(path)",
             f"s = sdc.SdcSession({', '.join(args)})"]
    for depth, step in enumerate(recipe.get("steps") or [], start=1):
        params = {k: v for k, v in step.items() if k != "seed"}
        extra = ""
        if step.get("seed") is not None and int(step["seed"]) != step_seed(seed, depth):
            extra = f", seed={int(step['seed'])}"
        lines.append(f"s.apply(Treatment.from_dict({params!r}){extra})")
    return "\n".join(lines)


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
        self.undo_button = w.Button(description="Undo", icon="undo")
        self.redo_button = w.Button(description="Redo", icon="redo")
        self.branch_name = w.Text(value="", placeholder="name of the new branch",
                                  description="Branch name", style=style)
        self.branch_button = w.Button(description="Branch", icon="code-fork")
        self.recipe_format = w.ToggleButtons(options=["Python", "JSON"], value="Python",
                                             description="Recipe as", style=style)
        self.recipe = w.Textarea(value="", description="Recipe", rows=12, style=style,
                                 layout=w.Layout(width="98%"))
        self.tree.add_class("sdc-mono")
        css = w.HTML("<style>.sdc-mono select, .sdc-mono textarea {font-family: monospace; "
                     "white-space: pre}</style>")
        self.box = w.VBox([
            css, self.scenario, self.tree,
            w.HBox([self.branch_name, self.branch_button]),
            self.recipe_format, self.recipe])

    def show(self, session: Any, scenarios: list[str]) -> None:
        """Show the tree, the scenario names and the recipe of ``session``."""
        self.scenario.options = scenarios
        if session.name in scenarios:
            self.scenario.value = session.name
        self.tree.options = tree_rows(session)
        self.tree.value = session.head.id
        recipe = session.to_recipe()
        self.recipe.value = (recipe_code(recipe) if self.recipe_format.value == "Python"
                             else json.dumps(recipe, indent=2, ensure_ascii=False))
