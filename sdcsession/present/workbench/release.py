"""The workbench's **Prepare** and **Release** panels: data preparation steps, and the way out
(Export after the release check, Report, Save project / Open project, autosave).

- `PreparePanel`: remove variables (`SdcSession.remove`), set values of a variable to missing
  (a `SdcSession.recode` of those values to a missing value), new ids (`SdcSession.new_ids`).
  Each is a step of the session, run by the workbench's step runner (undoable, in the recipe).
- `ReleasePanel`: **Check and export** runs `SdcSession.release_check` first: without a block
  finding it writes `SdcSession.export` at once; with block findings it lists them (each with its
  fix, from the finding's message) and shows **Export anyway**, which exports with ``force=True``
  only when the confirmation box is ticked. **Report** writes `SdcSession.report` (public or
  internal). **Save project** / **Open project** call ``s.save_project(path, overwrite=...)``
  and ``sdcsession.open_project(path, data=...)`` (``SdcSession.open_project``); when this version of sdcsession has no
  projects they say so instead.
- `autosave_path`: where the app autosaves the project after every step (beside the release
  folder of the data file) and what it offers to resume.

Every file name, column name and finding is shown as text (escaped).

Example
-------
>>> autosave_path("/data/survey.csv").name
'survey.autosave.sdcproj'
>>> default_paths("/data/survey.csv")["export"].as_posix()
'/data/survey_release/survey_released.csv'
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import ParameterError
from .share import own_layout

__all__ = ["PreparePanel", "ReleasePanel", "autosave_path", "default_paths", "has_projects",
           "findings_html", "EXPORT_FORMATS"]

#: the export formats offered (label, extension)
EXPORT_FORMATS = (("CSV", ".csv"), ("Parquet", ".parquet"), ("Stata", ".dta"),
                  ("SPSS", ".sav"), ("Excel", ".xlsx"))


def default_paths(data: str | Path | None) -> dict[str, Path]:
    """The default file names beside the data file ``data``: the release folder
    ``<stem>_release/`` holding the export, the reports and the project."""
    base = Path(data) if data is not None else Path.cwd() / "data"
    out = base.parent / f"{base.stem}_release"
    return {"folder": out, "export": out / f"{base.stem}_released.csv",
            "report": out / f"{base.stem}_report.html",
            "project": out / f"{base.stem}.sdcproj"}


def autosave_path(data: str | Path) -> Path:
    """The autosaved project of the app for the data file ``data``: ``<stem>.autosave.sdcproj``
    beside the release folder ``<stem>_release/``."""
    p = Path(data)
    return p.parent / f"{p.stem}.autosave.sdcproj"


def has_projects(session: Any) -> bool:
    """Whether this sdcsession can save and open projects (``s.save_project``)."""
    return callable(getattr(session, "save_project", None))


def findings_html(findings: pd.DataFrame) -> str:
    """The release check's findings as an HTML list (block findings first, escaped)."""
    if findings is None or len(findings) == 0:
        return "no findings"
    rank = {"block": 0, "warn": 1}
    rows = sorted(findings.to_dict("records"), key=lambda r: rank.get(str(r["severity"]), 2))
    items = []
    for r in rows:
        colour = "#b00020" if r["severity"] == "block" else "#8a6d00"
        items.append(f"<li><b style='color:{colour}'>{html.escape(str(r['severity']))}</b> "
                     f"{html.escape(str(r['check']))}: {html.escape(str(r['message']))}</li>")
    return "<ul style='margin:2px 0'>" + "".join(items) + "</ul>"


def _parse_values(text: str, column: pd.Series) -> list[Any]:
    """The comma-separated ``text`` as values of ``column`` (numbers for a numeric column)."""
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts:
        raise ParameterError("values: expected one or more values separated by commas")
    if pd.api.types.is_numeric_dtype(column):
        try:
            return [int(p) if p.lstrip("-").isdigit() else float(p) for p in parts]
        except ValueError as e:
            raise ParameterError(f"values: expected numbers for the numeric column "
                                 f"{column.name!r}, got {text!r:.60}") from e
    return parts


class PreparePanel:
    """Data preparation steps; ``run(fn, what)`` runs a step (the workbench's runner) and
    ``session()`` gives the active session."""

    def __init__(self, columns: list[str], session: Callable[[], Any],
                 run: Callable[[Callable[[], Any], str], None],
                 error: Callable[[BaseException | str], None]) -> None:
        import ipywidgets as w

        self._session, self._run, self._error = session, run, error
        style = {"description_width": "150px"}
        self.remove_columns = w.SelectMultiple(options=columns, rows=min(6, len(columns)),
                                               description="Variables to remove", style=style)
        self.remove_button = w.Button(description="Remove variables",
                                      tooltip="remove them from the released data (a step)")
        self.missing_column = w.Dropdown(options=columns, description="Variable", style=style)
        self.missing_values = w.Text(placeholder="e.g. 99, 98", style=style,
                                     description="Values to set missing (comma-separated)")
        self.missing_button = w.Button(description="Set to missing",
                                       tooltip="replace these values by a missing value (a step)")
        self.ids_button = w.Button(description="New ids",
                                   tooltip="replace the household ids by random ids (a step)")
        self.remove_button.on_click(lambda _: self.remove())
        self.missing_button.on_click(lambda _: self.set_missing())
        self.ids_button.on_click(lambda _: self.new_ids())
        self.box = w.VBox([
            w.HTML("<b>Remove variables</b>"), self.remove_columns, self.remove_button,
            w.HTML("<b>Set values to missing</b>"), self.missing_column, self.missing_values,
            self.missing_button,
            w.HTML("<b>New identifiers</b> (random household ids; households stay together)"),
            self.ids_button])

    def set_busy(self, off: bool) -> None:
        """Disable the steps' buttons while a step runs (or without a session)."""
        for b in (self.remove_button, self.missing_button, self.ids_button):
            b.disabled = off

    def set_columns(self, columns: list[str]) -> None:
        """Offer the columns of the current data."""
        self.remove_columns.options = columns
        self.missing_column.options = columns

    def remove(self) -> None:
        s, cols = self._session(), list(self.remove_columns.value)
        if s is None:
            return
        if not cols:
            self._error("Remove variables: choose one or more variables first")
            return
        self._run(lambda: s.remove(cols), "remove variables")

    def set_missing(self) -> None:
        s, col = self._session(), self.missing_column.value
        if s is None or col is None:
            return
        try:
            values = _parse_values(self.missing_values.value, s.data[col])
        except ParameterError as e:
            self._error(e)
            return
        self._run(lambda: s.recode(col, {v: None for v in values}), f"set {col} to missing")

    def new_ids(self) -> None:
        s = self._session()
        if s is not None:
            self._run(lambda: s.new_ids(), "new ids")


class ReleasePanel:
    """Export (after the release check), Report, Save project / Open project.

    ``session()`` gives the active session, ``data()`` the original data (for Open project),
    ``bind(session)`` shows an opened project, ``info`` / ``error`` show a message.
    """

    def __init__(self, path: str | None, session: Callable[[], Any],
                 data: Callable[[], pd.DataFrame], bind: Callable[[Any], None],
                 info: Callable[[str], None], error: Callable[[BaseException | str], None]) -> None:
        import ipywidgets as w

        self._session, self._data, self._bind = session, data, bind
        self._info, self._error = info, error
        d = default_paths(path)
        style = {"description_width": "150px"}
        wide = w.Layout(width="95%")
        # export
        self.export_path = w.Text(value=str(d["export"]), description="Export to file",
                                  style=style, layout=wide)
        self.export_format = w.Dropdown(options=list(EXPORT_FORMATS), value=".csv",
                                        description="Format", style=style)
        self.export_overwrite = w.Checkbox(value=False, description="Replace an existing file",
                                           style={"description_width": "initial"})
        self.export_button = w.Button(description="Export",
                                      button_style="primary",
                                      tooltip="run the release check, then write the data")
        self.findings = w.HTML()
        self.force_confirm = w.Checkbox(value=False, layout=w.Layout(display="none"),
                                        indent=False, style={"description_width": "initial"},
                                        description="I have read the block findings and "
                                                    "release anyway")
        self.force_button = w.Button(description="Export anyway", button_style="danger",
                                     layout=w.Layout(display="none"),
                                     tooltip="export despite the block findings (force)")
        self.export_format.observe(lambda ch: self._format(ch["new"]), names="value")
        self.export_button.on_click(lambda _: self.export())
        self.force_button.on_click(lambda _: self.export(force=True))
        # report
        self.report_path = w.Text(value=str(d["report"]), description="Report file",
                                  style=style, layout=wide)
        self.report_audience = w.Dropdown(
            options=[("public (no original values)", False),
                     ("internal (with original values)", True)],
            value=False, description="Audience", style=style)
        self.report_overwrite = w.Checkbox(value=False, description="Replace an existing file")
        self.report_button = w.Button(description="Report",
                                      tooltip="write the HTML report of this scenario")
        self.report_button.on_click(lambda _: self.report())
        # project
        self.project_path = w.Text(value=str(d["project"]), description="Project file",
                                   style=style, layout=wide)
        self.project_overwrite = w.Checkbox(value=False, description="Replace an existing file")
        self.save_button = w.Button(description="Save project",
                                    tooltip="save every scenario, step and seed")
        self.open_button = w.Button(description="Open project",
                                    tooltip="open a saved project on this data")
        self.save_button.on_click(lambda _: self.save_project())
        self.open_button.on_click(lambda _: self.open_project())
        self.box = w.VBox([
            w.HTML("<b>Export the released data</b>"), self.export_path,
            w.HBox([self.export_format, self.export_overwrite]), self.export_button,
            self.findings, self.force_confirm, self.force_button,
            w.HTML("<b>Report</b>"), self.report_path,
            w.HBox([self.report_audience, self.report_overwrite]), self.report_button,
            w.HTML("<b>Project</b> (all scenarios and steps)"), self.project_path,
            self.project_overwrite, w.HBox([self.save_button, self.open_button])])

    def set_busy(self, busy: bool, unbound: bool) -> None:
        """While a step runs, Export, Report and the projects wait (one run beside it would
        check or write a state the step is about to replace, and the step's closing message
        would overwrite its own); without a session only Open project is offered."""
        for b in (self.export_button, self.force_button, self.report_button, self.save_button):
            b.disabled = busy or unbound
        self.open_button.disabled = busy

    def _format(self, ext: str) -> None:
        self.export_path.value = str(Path(self.export_path.value).with_suffix(ext))

    def _hide_force(self) -> None:
        own_layout(self.force_confirm).display = own_layout(self.force_button).display = "none"
        self.force_confirm.value = False

    @staticmethod
    def _mkdir(path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)

    def export(self, *, force: bool = False) -> Path | None:
        """Check, then export (see the module docstring); the path written, or None."""
        s = self._session()
        if s is None:
            return None
        path = Path(self.export_path.value).expanduser()
        if force and not self.force_confirm.value:
            self._error("Export anyway: tick the confirmation box first")
            return None
        try:
            if not force:
                findings = s.release_check()
                self.findings.value = findings_html(findings)
                if (findings["severity"] == "block").any():
                    own_layout(self.force_confirm).display = own_layout(self.force_button).display = ""
                    self._error("Export stopped: the release check has block findings (listed "
                                "below, each with its fix); treat the data, or confirm and "
                                "export anyway")
                    return None
            self._mkdir(path)
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the findings are shown above
                written = s.export(path, force=force, overwrite=bool(self.export_overwrite.value))
        except Exception as e:  # noqa: BLE001 - shown in the widget
            self._error(e)
            return None
        self._hide_force()
        self._info(f"exported to {written}" + (" (forced past block findings)" if force else ""))
        return Path(written)

    def report(self) -> Path | None:
        """Write the report (public or internal); the path written, or None."""
        s = self._session()
        if s is None:
            return None
        path = Path(self.report_path.value).expanduser()
        try:
            self._mkdir(path)
            written = s.report(path, internal=bool(self.report_audience.value),
                               overwrite=bool(self.report_overwrite.value))
        except Exception as e:  # noqa: BLE001 - shown in the widget
            self._error(e)
            return None
        kind = "internal" if self.report_audience.value else "public"
        self._info(f"{kind} report written to {written}")
        return Path(written)

    def save_project(self, path: str | Path | None = None, *, overwrite: bool | None = None,
                     quiet: bool = False) -> Path | None:
        """Save the project (all scenarios); the path written, or None."""
        s = self._session()
        if s is None:
            return None
        if not has_projects(s):
            self._error("Save project: this version of sdcsession cannot save projects yet")
            return None
        p = Path(self.project_path.value if path is None else path).expanduser()
        ow = bool(self.project_overwrite.value) if overwrite is None else overwrite
        try:
            self._mkdir(p)
            written = s.save_project(p, overwrite=ow)
        except Exception as e:  # noqa: BLE001 - shown in the widget
            self._error(e)
            return None
        if not quiet:
            self._info(f"project saved to {written or p}")
        return Path(written or p)

    def open_project(self, path: str | Path | None = None) -> Any:
        """Open a project on the original data and show it; the session, or None."""
        from ...session import SdcSession

        opener = getattr(SdcSession, "open_project", None)
        if opener is None:
            self._error("Open project: this version of sdcsession cannot open projects yet")
            return None
        p = Path(self.project_path.value if path is None else path).expanduser()
        try:
            s = opener(p, data=self._data())
        except Exception as e:  # noqa: BLE001 - shown in the widget
            self._error(e)
            return None
        self._bind(s)
        self._info(f"project opened from {p}")
        return s
