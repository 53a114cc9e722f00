"""The interactive workbench: ``s.workbench()``, an ``ipywidgets`` widget bound to a session.

Tabs Data, Roles, Prepare, Treat (a form generated from the treatment's attrs spec), History
(the scenario tree, Undo / Redo / Branch, the recipe), Views and Release, one module each, beside
the live **Risk & utility** panel (`sdcsession.present.workbench.live`). Every click is a step
of the same session: undoable, branchable and replayable from the recipe shown.

Live updates: an observer on the session's history tree (called whenever a HEAD moves) redraws
the panel after a step from code in another cell too, as after the Apply button.

Progress and cancel (`sdcsession.present.workbench.run`): a running step draws its progress bar;
Cancel stops it at its next progress update and HEAD does not move. In a Jupyter kernel (or
Voilà) steps run in a worker thread so that Cancel stays responsive (`Workbench.wait` joins it);
from plain Python (``background=False``) ``apply_button.click()`` returns when the step is done
(while a step runs, Export, Report and the projects wait). ``import sdcsession`` loads no widgets.

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["region", "sex"], seed=1)
>>> wb = s.workbench()
>>> wb.treatment.value = "recode"
>>> wb.form.widgets["column"].value = "sex"
>>> wb.form.widgets["mapping"].value = '{"f": "x", "m": "x"}'
>>> wb.apply_button.click()
>>> len(s.history), wb.figures["k_violations"]
(2, 0)
>>> wb.undo_button.click()
>>> s.head.id
0
"""

from __future__ import annotations

import contextlib
import html
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import pandas as pd

from ...errors import ParameterError, SdcError
from ...methods.base import TREATMENTS
from ...scale._base import is_dask_frame
from ...session import SdcSession
from .data import DataPanel
from .hierarchy import make_form
from .history import HistoryPanel
from .labels import treatment_options
from .live import LivePanel
from .panels.tabs import lazy_tabs
from .release import PreparePanel, ReleasePanel, autosave_path, has_projects
from .roles import RolesPanel, apply_roles
from .run import Cancelled, StepRunner
from .treat import TreatForm, build_treatment
from .views import ViewsPanel

__all__ = ["Workbench", "workbench", "Cancelled"]


class Workbench(widgets.VBox):
    """The workbench widget (see the module docstring); create it with ``s.workbench()``.

    Attributes for driving it from Python: ``session`` (the active scenario), ``treatment``,
    ``form`` (`TreatForm` of the chosen treatment: ``form.widgets[name]``), ``apply_button``,
    ``cancel_button``, ``progress``, ``undo_button``, ``redo_button``, ``branch_name``,
    ``branch_button``, ``scenario``, ``tree`` (click a step to check it out), ``recipe``,
    ``recipe_format``, ``role_pickers`` (role -> widget), ``roles_button``, ``roles_message``,
    ``risk_label`` (the risk figures, HTML), ``combos``, ``loss_measures``, ``loss_label``,
    ``ru_loss``, ``ru_image`` (R-U map PNG), ``k_value``, ``message``, ``figures`` (a dict).
    """

    def __init__(self, source: SdcSession | pd.DataFrame, *, background: bool | None = None,
                 seed: int | None = None, path: str | None = None,
                 lazy_tabs: bool = False) -> None:
        super().__init__()
        self._lazy = lazy_tabs
        #: the data file the app read (shown as text in the title; None in a notebook)
        self.path = None if path is None else str(path)
        self._lock = threading.RLock()
        self._updating = False
        self._quiet = 0
        self._background = background
        self._held: dict[str, SdcSession] = {}
        self._seed = seed
        self.session: SdcSession | None = None
        if isinstance(source, SdcSession):
            data, roles, k = source.original, source.state.original_roles, source.k
        elif isinstance(source, pd.DataFrame):
            data, roles, k = source, None, 3
        else:
            raise ParameterError(f"workbench: expected an SdcSession or a DataFrame, got "
                                 f"{type(source).__name__}")
        self._data = data
        self._build(data, roles, k)
        if isinstance(source, SdcSession):
            self._bind(source)
        else:
            self._show_unbound()
        self._show_tab()  # lazy tabs: the page of the tab shown first
        self.offer_resume()

    # ------------------------------------------------------------------------------- layout
    def _build(self, data: pd.DataFrame, roles: Any, k: int) -> None:
        w = widgets
        self.message = w.HTML()
        self.runner = StepRunner(background=self._background, on_busy=self._set_buttons)
        self.progress, self.status = self.runner.progress, self.runner.status
        self.cancel_button = self.runner.cancel_button
        # roles
        self.roles_panel = RolesPanel(data, roles)
        self.role_pickers = self.roles_panel.pickers
        self.roles_button = self.roles_panel.apply_button
        self.roles_message = self.roles_panel.message
        self.roles_button.on_click(lambda _: self._apply_roles())
        # treat
        self.treatment = w.Dropdown(options=treatment_options(), value="local_suppression",
                                    description="Treatment", layout=w.Layout(width="95%"))
        self.forms: dict[str, TreatForm] = {}
        self.form_box = w.VBox()
        self.apply_button = w.Button(description="Apply", button_style="primary",
                                     tooltip="apply the treatment as a new step")
        # another treatment: its form, and no message about the one before
        self.treatment.observe(lambda _: (self._show_form(), setattr(self.message, "value", "")),
                               names="value")
        self.apply_button.on_click(lambda _: self._apply())
        treat = w.VBox([self.treatment, self.form_box, self.apply_button])
        # history
        self.history = h = HistoryPanel()
        self.scenario, self.tree, self.recipe = h.scenario, h.tree, h.recipe
        self.recipe_format = h.recipe_format
        self.undo_button, self.redo_button = h.undo_button, h.redo_button
        self.branch_name, self.branch_button = h.branch_name, h.branch_button
        self.undo_button.on_click(lambda _: self._act(lambda s: s.undo()))
        self.redo_button.on_click(lambda _: self._act(lambda s: s.redo()))
        self.branch_button.on_click(lambda _: self._branch())
        self.tree.observe(self._tree_clicked, names="value")
        self.scenario.observe(self._scenario_picked, names="value")
        self.recipe_format.observe(lambda _: self.refresh(), names="value")
        # live
        self.live = lv = LivePanel(k)
        self.risk_label, self.combos, self.ru_image = lv.risk_label, lv.combos, lv.ru_image
        self.risk_figure = lv.ru_image  # the R-U map: the figure of the risk, for tests
        self.loss_measures, self.loss_label, self.ru_loss = lv.loss_measures, lv.loss_label, lv.ru_loss
        self.k_value = lv.k
        for wd in lv.controls:
            wd.observe(lambda _: self._refresh_live(), names="value")
        # prepare and release
        self.prepare = PreparePanel(self._columns(), lambda: self.session, self._run_step,
                                    self._error)
        self.release = ReleasePanel(self.path, lambda: self.session, lambda: self._data,
                                    self._open, self._info, self._error)
        r = self.release
        self.export_button, self.report_button = r.export_button, r.report_button
        self.save_button, self.open_button = r.save_button, r.open_button
        self.resume_box = w.HBox()
        self._views: ViewsPanel | None = None  # built on first use (`views`)
        self.data_panel = DataPanel(self)  # Load a file, Explore, Original vs modified
        titles = ("Data", "Roles", "Prepare", "Treat", "History", "Views", "Release")
        pages = [self.data_panel.box, self.roles_panel.box, self.prepare.box, treat, h.box,
                 lambda: self.views.box, self.release.box]
        self.tabs = w.Tab(layout=w.Layout(width="52%"))  # the app: pages drawn when first shown
        self._show_tab = lazy_tabs(self.tabs, pages, lazy=self._lazy)
        self.tabs.titles, self._tab = titles, {t: i for i, t in enumerate(titles)}
        live = w.VBox([w.HTML("<b>Risk &amp; utility (live)</b>"), lv.box],
                      layout=w.Layout(width="46%"))
        name = "" if self.path is None else f": {html.escape(Path(self.path).name)}"
        self.title = w.HTML(f"<h3 style='margin:4px 0'>sdcsession workbench{name}</h3>")
        self.children = [self.title,
                         self.message, self.resume_box,
                         w.HBox([self.undo_button, self.redo_button, self.progress,
                                 self.cancel_button, self.status]),
                         w.HBox([self.tabs, live])]
        # CSS classes: stable handles for browser tests and custom styling
        for wd, cls in ((self.title, "sdc-title"), (self.tabs, "sdc-tabs"),
                        (self.apply_button, "sdc-apply"), (self.undo_button, "sdc-undo"),
                        (self.redo_button, "sdc-redo"), (self.cancel_button, "sdc-cancel"),
                        (self.risk_label, "sdc-risk"), (self.ru_image, "sdc-ru"),
                        (self.message, "sdc-message"), (self.export_button, "sdc-export"),
                        (r.findings, "sdc-findings"), (r.force_button, "sdc-force")):
            wd.add_class(cls)
        self._show_form()

    @property
    def views(self) -> ViewsPanel:
        """The Views tab, built on first use (the app: when the tab is first opened)."""
        if self._views is None:
            v = self._views = ViewsPanel(lambda: self.session, self._scenarios, self._error,
                                         runner=self.runner, info=self._info)
            v.show_button.add_class("sdc-views")
            v.comparison.add_class("sdc-comparison")
            if self.session is not None:
                v.set_options(self.session)
        return self._views

    @property
    def form(self) -> TreatForm:
        """The form of the chosen treatment."""
        return self.forms[self.treatment.value]

    @property
    def figures(self) -> dict[str, Any]:
        """The figures the live panel shows now (risk, k-violations, ``loss.<measure>``)."""
        return dict(self.live.figures)

    def _columns(self) -> list[str]:
        data = self.session.state.data if self.session is not None else self._data
        return [str(c) for c in data.columns]

    def _show_form(self) -> None:
        tag = self.treatment.value
        if tag not in self.forms:
            try:
                self.forms[tag] = make_form(TREATMENTS[tag], self._columns(), self.session)
            except Exception as e:  # noqa: BLE001 - one odd treatment must not break the rest
                self._error(f"{tag}: no form could be generated ({type(e).__name__}: {e})")
                self.form_box.children = []
                return
        self.form_box.children = [self.forms[tag].box]

    # ------------------------------------------------------------------------------ binding
    def _bind(self, session: SdcSession) -> None:
        self._unobserve()  # the session shown before (if any)
        self.session = session
        self._held[session.name] = session
        session._tree.observers.append(self._on_move)  # type: ignore[attr-defined]
        self.tabs.selected_index = self._tab["Treat"]
        self.roles_panel.show_options(session.alpha, session.seed)
        self.refresh()

    def _unobserve(self) -> None:
        obs = [] if self.session is None else getattr(self.session._tree, "observers", [])
        while self._on_move in obs:
            obs.remove(self._on_move)

    def close(self) -> None:
        """Stop observing the session and close the widgets."""
        self._unobserve()
        super().close()

    def _preset(self, roles: dict[str, Any]) -> None:
        """Show ``roles`` in the Roles panel (a malformed value shows its message)."""
        from ...roles import Roles

        try:
            self.roles_panel.set_roles(Roles(**roles))
        except (SdcError, TypeError) as e:
            self.roles_panel.show_error(e)

    def _set_buttons(self) -> None:
        s, busy = self.session, self.runner.busy
        off = busy or s is None
        self.apply_button.disabled = self.branch_button.disabled = off
        self.undo_button.disabled = off or s.head.depth == 0  # type: ignore[union-attr]
        self.redo_button.disabled = off or not s._redo  # type: ignore[union-attr]
        self.cancel_button.disabled = not busy
        self.release.set_busy(busy, s is None)
        self.prepare.set_busy(off)

    def _show_unbound(self) -> None:
        self.tabs.selected_index = self._tab["Roles"]
        self._set_buttons()
        self._info("choose the roles of the variables (at least one key variable), then "
                   "Apply roles")

    def _scenarios(self) -> list[SdcSession]:
        assert self.session is not None
        live = [r() for r in getattr(self.session._tree, "sessions", [])]
        out = [x for x in live if x is not None]
        return out if any(x is self.session for x in out) else [self.session, *out]

    # ------------------------------------------------------------------------------ refresh
    def _on_move(self, _session: Any) -> None:
        self.message.value = ""  # a message about the previous state no longer applies
        if not self._quiet:
            self.refresh()
        self.autosave()

    def autosave(self) -> Path | None:
        """Save the project beside the data file's release folder (`autosave_path`), in the
        app (``path`` given) when this sdcsession can save projects; the path, or None."""
        s = self.session
        if self.path is None or s is None or not has_projects(s):
            return None
        try:
            return self.release.save_project(autosave_path(self.path), overwrite=True,
                                              quiet=True)
        except Exception as e:  # noqa: BLE001 - autosave must never break a step
            self._error(f"autosave failed: {e}")
            return None

    def offer_resume(self) -> bool:
        """Show Resume / Start over when an autosaved project of the data file exists."""
        if self.path is None or getattr(SdcSession, "open_project", None) is None:
            return False
        auto = autosave_path(self.path)
        if not auto.is_file():
            return False
        resume = widgets.Button(description="Resume", button_style="primary",
                                tooltip=f"open the autosaved project {auto.name}")
        fresh = widgets.Button(description="Start over",
                               tooltip="keep the autosave until the next step replaces it")
        resume.on_click(lambda _: (self.release.open_project(auto), self._hide_resume()))
        fresh.on_click(lambda _: self._hide_resume())
        self.resume_button, self.start_over_button = resume, fresh
        self.resume_box.children = [widgets.HTML(
            f"An autosaved project of this file was found ({html.escape(auto.name)}).&nbsp;"),
            resume, fresh]
        return True

    def _hide_resume(self) -> None:
        self.resume_box.children = []

    def _open(self, session: SdcSession) -> None:
        """Show an opened project's session."""
        self._held.clear()
        self._bind(session)
        self.roles_panel.set_roles(session.state.original_roles)

    def _run_step(self, fn: Callable[[], Any], what: str) -> None:
        if self.session is None or self.runner.busy:
            return
        self.message.value = ""
        self.runner.start(fn, what, ok=self._info, error=self._error)

    @contextlib.contextmanager
    def _batch(self) -> Iterator[None]:
        """Observers stay quiet inside; one refresh at the end."""
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1
            if not self._quiet:
                self.refresh()

    def refresh(self) -> None:
        """Redraw every panel for the active scenario (called on every HEAD move)."""
        s = self.session
        if s is None:
            return
        with self._lock:
            self._updating = True
            try:
                self.history.show(s, [x.name for x in self._scenarios()])
                self._set_buttons()
                cols = self._columns()
                for f in self.forms.values():
                    f.set_columns(cols, s)
                self.prepare.set_columns(cols)
                self.data_panel.set_columns()
                self.live.set_options(s)
                if self._views is not None:
                    self._views.set_options(s)
            except Exception as e:  # noqa: BLE001 - the widget must keep working
                self._error(e)
            finally:
                self._updating = False
        self._refresh_live()

    def _refresh_live(self) -> None:
        if self.session is None or self._updating:
            return
        with self._lock:
            try:
                self.live.show(self.session, self._scenarios())
            except Exception as e:  # noqa: BLE001 - a measure failing must not break the widget
                self._error(e)

    # ------------------------------------------------------------------------------ actions
    def _info(self, text: str) -> None:
        self.message.value = f"<span style='color:#2e7d32'>{html.escape(text)}</span>"

    def _error(self, error: BaseException | str) -> None:
        text = str(error) if isinstance(error, SdcError | str) else (
            f"{type(error).__name__}: {error}")
        self.message.value = ("<span style='color:#b00020'>"
                              + html.escape(text).replace("\n", "<br>") + "</span>")

    def _act(self, fn: Callable[[SdcSession], Any]) -> None:
        if self.session is None:
            return
        self.message.value = ""
        try:
            fn(self.session)
        except SdcError as e:
            self._error(e)

    def _tree_clicked(self, change: dict[str, Any]) -> None:
        if self._updating or self.session is None or change["new"] in (None, self.session.head.id):
            return
        self._act(lambda s: s.checkout(int(change["new"])))

    def _scenario_picked(self, change: dict[str, Any]) -> None:
        if self._updating or self.session is None:
            return
        pick = next((x for x in self._scenarios() if x.name == change["new"]), None)
        if pick is not None and pick is not self.session:
            self.session = pick
            self._held.setdefault(pick.name, pick)
            self.refresh()

    def _branch(self) -> None:
        if self.session is None:
            return
        names = {x.name for x in self._scenarios()}
        name = self.branch_name.value.strip() or next(
            f"branch {i}" for i in range(1, len(names) + 2) if f"branch {i}" not in names)
        try:
            with self._batch():
                new = self.session.branch(name)
                self._held[name] = new
                self.session = new
        except SdcError as e:
            self._error(e)
            return
        self.branch_name.value = ""
        self._info(f"branch {name!r} created: the next steps go to it")

    def _apply_roles(self) -> None:
        try:
            roles = self.roles_panel.roles()
            opts = self.roles_panel.options()
            if self.session is None:
                seed = self._seed if opts["seed"] is None else opts["seed"]
                new = SdcSession(self._data, **roles.to_dict(), seed=seed, alpha=opts["alpha"])
                note = "session started with these roles"
            else:
                with self._batch():
                    new, note = apply_roles(self.session, roles, **opts)
        except SdcError as e:
            self.roles_panel.show_error(e)
            return
        if new is not self.session:
            self._held.clear()
            self._bind(new)
        self.roles_panel.message.value = (f"<span style='color:#2e7d32'>{html.escape(note)}"
                                          "</span>")

    def _apply(self) -> None:
        if self.session is None or self.runner.busy or self.treatment.value not in self.forms:
            return
        try:
            t = build_treatment(self.treatment.value, self.form.values())
        except SdcError as e:
            self._error(e)
            return
        session = self.session
        self._run_step(lambda: session.apply(t), t.type)

    def cancel(self) -> None:
        """Ask the running step to stop at its next progress update (HEAD does not move)."""
        self.runner.cancel()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a step running in the worker thread; True when none is running."""
        return self.runner.wait(timeout)


def workbench(source: SdcSession | pd.DataFrame, *, background: bool | None = None,
              seed: int | None = None, path: str | None = None, lazy_tabs: bool = False,
              **roles: Any) -> Workbench:
    """The workbench for a session, or for a DataFrame (``roles`` as for `SdcSession`).

    With a DataFrame and valid ``roles`` (at least ``keys``) a session is started at once;
    otherwise the Roles panel opens with the roles given and the validation message, and the
    session starts when the roles are applied. ``background`` (default: inside a Jupyter kernel)
    runs steps in a worker thread so that Cancel stays responsive. ``path``: the data file
    read (the app passes it; its name is shown, as text, in the title). ``lazy_tabs``: a tab's
    page is drawn in the browser when the tab is first selected (the app's first paint).
    """
    kw = {"background": background, "seed": seed, "path": path, "lazy_tabs": lazy_tabs}
    if is_dask_frame(source) or (isinstance(source, SdcSession) and source.state.distributed):
        raise ParameterError("source: the workbench works on in-memory data; compute the Dask "
                             "frame first (SdcSession(dask_frame.compute(), ...)) or a sample")
    if isinstance(source, SdcSession) or not isinstance(source, pd.DataFrame):
        if roles:
            raise ParameterError(f"workbench: roles {sorted(roles)} are given with a DataFrame; "
                                 "a session has its roles already")
        return Workbench(source, **kw)
    if roles.get("keys"):
        try:
            session = SdcSession(source, **roles, seed=seed)
        except SdcError as e:
            wb = Workbench(source, **kw)
            wb._preset(roles)
            wb.roles_panel.show_error(e)
            return wb
        return Workbench(session, **kw)
    wb = Workbench(source, **kw)
    if roles:
        wb._preset(roles)
    return wb
