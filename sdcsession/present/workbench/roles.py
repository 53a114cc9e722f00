"""The workbench's Roles panel: the columns with their type, number of categories and missing
share, and the role pickers (keys, numeric, weight, household, strata, sensitive, PRAM, direct
identifiers, linked variables).

Roles are part of every state of a session and of its recipe, so they cannot change under
existing steps. The panel therefore applies new roles in one of two ways (`apply_roles`):

* before the first step (the history tree holds only the original and no other scenario shares
  it) the session is re-initialised *in place* with the new roles: same object, seed, name, k
  and alpha, so ``s`` in the notebook stays the session the workbench shows;
* once steps exist, a **new** session is started on the original data with the new roles (the
  old one and its branches are left as they were); the workbench switches to it.

Invalid roles are reported with the `RoleError` message, never a traceback.

Example
-------
>>> import pandas as pd
>>> t = column_summary(pd.DataFrame({"a": ["x", None, "y"], "n": [1.0, 2.0, 3.0]}))
>>> t[["column", "categories"]].values.tolist(), t["missing"].round(3).tolist()
([['a', 2], ['n', 3]], [0.333, 0.0])
"""

from __future__ import annotations

import html
import warnings
from typing import Any

import pandas as pd

from ...errors import ParameterError, RoleError, SdcError
from ...roles import Roles
from .treat import dropdown

__all__ = ["column_summary", "apply_roles", "RolesPanel", "ROLE_FIELDS"]

#: the role pickers: (role, label, many columns?)
ROLE_FIELDS = (("keys", "Key variables", True), ("numeric", "Numeric", True),
               ("weight", "Weight", False), ("household", "Household id", False),
               ("strata", "Strata", True), ("sensitive", "Sensitive", True),
               ("pram", "PRAM variables", True), ("identifiers", "Direct identifiers", True))


def column_summary(df: pd.DataFrame) -> pd.DataFrame:
    """One row per column: name, dtype, number of distinct non-missing values, missing share.

    Vectorised per column (``nunique``, ``isna().mean()``).
    """
    n = max(len(df), 1)
    return pd.DataFrame({
        "column": [str(c) for c in df.columns],
        "dtype": [str(t) for t in df.dtypes],
        "categories": df.nunique(dropna=True).to_numpy(),
        "missing": df.isna().sum().to_numpy() / n,
    })


def _same_tree_sessions(session: Any) -> list[Any]:
    return [x for x in (r() for r in getattr(session._tree, "sessions", [])) if x is not None]


def apply_roles(session: Any, roles: Roles, *, alpha: float | None = None,
                seed: int | None = None) -> tuple[Any, str]:
    """Apply ``roles`` (validated against the original data first; `RoleError` otherwise).

    Returns ``(session, note)``: the same session re-initialised in place when it has no step
    yet and no other scenario shares its tree, else a new session on the original data (same
    seed, name, k and alpha; ``alpha`` and ``seed`` replace them when given). The note says
    which happened.
    """
    original = session._tree.root.state.data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        roles.validate(original)
    warned = "; ".join(str(w.message) for w in caught)
    tree = session._tree
    opts = {"alpha": session.alpha if alpha is None else alpha, "k": session.k,
            "source": getattr(tree, "source", None)}
    seed = session.seed if seed is None else seed
    if len(tree) == 1 and all(x is session for x in _same_tree_sessions(session)):
        observers = list(getattr(tree, "observers", []))
        watch = list(session.watch)
        session._init(original, roles, seed, session.name, **opts)
        session.watch = watch
        session._tree.observers.extend(observers)
        session._move(session._tree.root)
        note = "roles applied to this session"
    else:
        new = object.__new__(type(session))
        new._init(original, roles, seed, session.name, **opts)
        note = ("steps exist, so a new session was started on the original data with these "
                "roles (the previous scenarios are unchanged)")
        session = new
    return session, note + (f" — warning: {warned}" if warned else "")


class RolesPanel:
    """Role pickers over the columns of the original data, with the column table.

    `roles` reads the pickers into a `Roles` (raising `RoleError`); ``message`` shows the
    validation message of the current choice.
    """

    def __init__(self, data: pd.DataFrame, roles: Roles | None) -> None:
        import ipywidgets as w

        cols = [str(c) for c in data.columns]
        self.columns = cols
        summary = column_summary(data)
        rows = "".join(
            f"<tr><td>{html.escape(r.column)}</td><td>{html.escape(r.dtype)}</td>"
            f"<td style='text-align:right'>{r.categories:,}</td>"
            f"<td style='text-align:right'>{100 * r.missing:.1f} %</td></tr>"
            for r in summary.itertuples())
        self.table = w.HTML(
            "<div style='max-height:260px;overflow:auto'><table class='sdc-cols'>"
            "<tr><th>column</th><th>type</th><th>categories</th><th>missing</th></tr>"
            f"{rows}</table></div>")
        style = {"description_width": "120px"}
        self.pickers: dict[str, Any] = {}
        for role, label, many in ROLE_FIELDS:
            if many:
                wd = w.SelectMultiple(options=cols, rows=min(6, len(cols)), description=label,
                                      style=style)
            else:
                wd = dropdown(options=[("(none)", None)] + [(c, c) for c in cols],
                              description=label, style=style)
            self.pickers[role] = wd
        self.linked_key = w.Dropdown(options=[], description="Linked to key", style=style)
        self.linked_vars = w.SelectMultiple(options=cols, rows=4, description="Linked variables",
                                            style=style)
        self.link_button = w.Button(description="Link", tooltip="link these variables to the key")
        self.unlink_button = w.Button(description="Clear links")
        self.links: dict[str, tuple[str, ...]] = {}
        self.links_html = w.HTML()
        self.alpha = w.BoundedFloatText(
            value=1.0, min=0.0, max=1.0, step=0.1, style=style,
            description="Weight of a missing key value (α, 0 to 1, default 1)")
        self.seed = w.Text(value="", placeholder="(random)", style=style,
                           description="Random seed (a whole number; empty: random)")
        self.apply_button = w.Button(description="Apply roles", button_style="primary")
        self.message = w.HTML()
        self._quiet = False
        self.set_roles(roles)
        self.pickers["keys"].observe(lambda _: self._keys_changed(), names="value")
        for wd in self.pickers.values():
            wd.observe(lambda _: self.check(), names="value")
        self.link_button.on_click(lambda _: self._link())
        self.unlink_button.on_click(lambda _: self._unlink())
        self._data = data
        grid = w.GridBox(list(self.pickers.values()),
                         layout=w.Layout(grid_template_columns="repeat(2, 50%)"))
        self.box = w.VBox([
            w.HTML("<b>Columns</b>"), self.table, w.HTML("<b>Roles</b>"), grid,
            w.HBox([self.linked_key, self.linked_vars]),
            w.HBox([self.link_button, self.unlink_button, self.links_html]),
            w.HTML("<b>Options</b>"), self.alpha, self.seed,
            w.HBox([self.apply_button]), self.message])

    # ------------------------------------------------------------------------------ state
    def set_roles(self, roles: Roles | None) -> None:
        """Show ``roles`` in the pickers."""
        if roles is None:
            roles = Roles()
        self._quiet = True
        try:
            self._show(roles)
        finally:
            self._quiet = False

    def _show(self, roles: Roles) -> None:
        for role, _, many in ROLE_FIELDS:
            v = getattr(roles, role)
            wd = self.pickers[role]
            if many:
                wd.value = tuple(c for c in v if c in self.columns)
            else:
                wd.value = v if v in self.columns else None
        self.links = dict(roles.linked)
        self._keys_changed()

    def options(self) -> dict[str, Any]:
        """``alpha`` and ``seed`` chosen (`ParameterError` for a seed that is no whole
        number; ``seed`` None when empty)."""
        text = self.seed.value.strip()
        if text and not text.isdigit():
            raise ParameterError(f"Random seed: expected a whole number >= 0, got {text!r:.40}")
        return {"alpha": float(self.alpha.value), "seed": int(text) if text else None}

    def show_options(self, alpha: float, seed: int | None) -> None:
        """Show a session's ``alpha`` and ``seed``."""
        self.alpha.value = float(alpha)
        self.seed.value = "" if seed is None else str(seed)

    def roles(self) -> Roles:
        """The chosen roles (`RoleError` for a malformed choice; not yet validated)."""
        kw = {role: self.pickers[role].value for role, _, _ in ROLE_FIELDS}
        keys = set(kw["keys"])
        links = {k: v for k, v in self.links.items() if k in keys}
        return Roles(**kw, linked=links or None)

    def check(self, data: pd.DataFrame | None = None) -> bool:
        """Validate the chosen roles against the data; show the message. True when valid."""
        if self._quiet:
            return True
        data = self._data if data is None else data
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                self.roles().validate(data)
        except SdcError as e:
            self.show_error(e)
            return False
        note = "; ".join(str(w.message) for w in caught)
        self.message.value = (f"<span style='color:#8a6d00'>{html.escape(note)}</span>"
                              if note else "<span style='color:#2e7d32'>roles are valid</span>")
        return True

    def show_error(self, error: BaseException) -> None:
        """Show an error message (the text of ``error``, escaped) in red."""
        text = html.escape(str(error)).replace("\n", "<br>")
        self.message.value = f"<span style='color:#b00020'>{text}</span>"

    def _keys_changed(self) -> None:
        keys = list(self.pickers["keys"].value)
        self.linked_key.options = keys
        self._show_links()

    def _link(self) -> None:
        key = self.linked_key.value
        chosen = tuple(self.linked_vars.value)
        if key is None or not chosen:
            self.show_error(RoleError("linked: choose a key variable and at least one variable "
                                      "to link to it"))
            return
        self.links[key] = tuple(dict.fromkeys((*self.links.get(key, ()), *chosen)))
        self._show_links()
        self.check()

    def _unlink(self) -> None:
        self.links = {}
        self._show_links()
        self.check()

    def _show_links(self) -> None:
        keys = set(self.pickers["keys"].value)
        text = "; ".join(f"{k} → {', '.join(v)}" for k, v in self.links.items() if k in keys)
        self.links_html.value = html.escape(text or "no linked variables")
