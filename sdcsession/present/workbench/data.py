"""The workbench's **Data** tab: load a file in the page, explore it, compare original and HEAD.

- **Load**: upload a file (CSV/TSV, Stata, SPSS, Parquet, SAS; compressed CSV too) or give the
  path of a file on this computer, with its format (default: from the extension) and CSV
  delimiter (default: detected). `read_upload` writes the uploaded bytes to a private temporary
  file with the upload's extension, reads it with `sdcsession.io.read_data` (its decompression
  limits apply) and deletes it; an upload larger than ``MAX_UPLOAD`` bytes is refused.
  `load_into` then shows the new data in the workbench: the Roles panel of the new columns, no
  session until the roles are applied.
- **Explore** (the current state, or the original): `variable_summaries` (type, missing,
  distinct values, top categories or quantiles of every variable) and `two_way` (a two-way
  table of two variables, with totals).
- **Original vs modified**: `original_vs_modified` (category counts, or quantiles of a numeric
  variable, before and after) and `compare_png` (grouped bars or a mosaic plot of a categorical
  variable, histograms of a numeric one).

Every file name, column name and category value is shown as text (escaped).

Missing values: counted in "missing" and shown as a category "(missing)" in the tables.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"sex": ["f", "m", "f", None], "age": [20, 31, 45, 52]})
>>> variable_summaries(df)[["variable", "missing", "distinct"]].values.tolist()
[['sex', 1, 2], ['age', 0, 4]]
>>> int(two_way(df, "sex", "sex").loc["f", "Total"])
2
"""

from __future__ import annotations

import html
import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...errors import DataFileError, ParameterError, SdcError
from .share import own_layout

__all__ = ["html_table", "variable_summaries", "two_way", "original_vs_modified",
           "compare_png", "read_upload", "load_into", "DataPanel", "MAX_UPLOAD", "FORMATS",
           "tidy"]

#: the largest upload read (bytes; the app's server accepts it, a Jupyter server by default
#: only uploads under 10 MiB); larger files are loaded by their path
MAX_UPLOAD = 200 * 2**20
#: the formats offered: (label, read_data format or None for "from the extension")
FORMATS = (("from the extension", None), ("CSV", "csv"), ("TSV (tab-separated)", "tsv"),
           ("Stata (.dta)", "stata"), ("SPSS (.sav, .zsav)", "spss"), ("Parquet", "parquet"),
           ("SAS (.sas7bdat)", "sas7bdat"), ("SAS transport (.xpt)", "xport"))
_ACCEPT = (".csv,.txt,.tsv,.tab,.dta,.sav,.zsav,.parquet,.pq,.sas7bdat,.xpt,.gz,.bz2,.xz,"
           ".zip")
_SEPS = (("detect", None), ("comma ,", ","), ("semicolon ;", ";"), ("tab", "\t"),
         ("vertical bar |", "|"))
_MISSING = "(missing)"


def _cell(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(v)
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        return "" if np.isnan(v) else f"{v:,.4g}" if abs(v) < 1e6 else f"{v:,.0f}"
    return str(v)


def _align(v: Any) -> str:
    number = isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_))
    return "right" if number else "left"


def html_table(df: pd.DataFrame, *, index: bool = True, cls: str = "sdc-table",
               max_height: int = 320) -> str:
    """``df`` as an HTML table in a scrolling box; every label and value escaped (numbers with
    thousands separators, 4 significant digits).

    >>> html_table(pd.DataFrame({"<b>": [1]})).count("&lt;b&gt;")
    1
    """
    head = ([str(df.index.name or "")] if index else []) + [str(c) for c in df.columns]
    rows = []
    for key, row in zip(df.index, df.itertuples(index=False), strict=True):
        cells = ([f"<th style='text-align:left;padding:0 8px'>{html.escape(_cell(key))}</th>"]
                 if index else [])
        cells += [f"<td style='padding:0 8px;text-align:{_align(v)}'>{html.escape(_cell(v))}</td>"
                  for v in row]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f"<div style='max-height:{int(max_height)}px;overflow:auto'>"
            f"<table class='{html.escape(cls)}'><tr>"
            + "".join(f"<th style='padding:0 8px'>{html.escape(h)}</th>" for h in head) + "</tr>"
            + "".join(rows) + "</table></div>")


def tidy(panel: Any) -> None:
    """Buttons of ``panel`` (its attributes) as wide as their words, labels never cut short."""
    import ipywidgets as w

    for x in vars(panel).values():
        if isinstance(x, (w.Button, w.FileUpload)):
            own_layout(x).width = "max-content"
        elif isinstance(x, w.Widget) and hasattr(getattr(x, "style", None), "description_width"):
            own_layout(x, "style").description_width = "initial"


def natural(text: Any) -> list[Any]:
    """Sort key of natural order: numbers in a text compare as numbers.

    >>> sorted(["10-14", "5-9"], key=natural)
    ['5-9', '10-14']
    """
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]


def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def _summary_text(s: pd.Series, top: int) -> str:
    x = s.dropna()
    if x.empty:
        return "all missing"
    if _numeric(s):
        q = np.quantile(x.to_numpy(dtype=float), [0, 0.25, 0.5, 0.75, 1])
        return "min {} · q1 {} · median {} · q3 {} · max {} · mean {}".format(
            *(_cell(float(v)) for v in (*q, x.mean())))
    counts = x.astype(str).value_counts()
    shown = ", ".join(f"{k} ({n:,})" for k, n in counts.iloc[:top].items())
    return shown + (f", … {len(counts) - top} more" if len(counts) > top else "")


def variable_summaries(df: pd.DataFrame, *, top: int = 3) -> pd.DataFrame:
    """One row per variable: its type ("numeric", "categorical", "text", ...), the number and
    share of missing values, the number of distinct non-missing values, and a summary: the
    ``top`` most frequent categories with their counts, or min, quartiles, max and mean of a
    numeric variable (Hyndman & Fan type 7 quantiles, numpy's default).

    Missing values: counted in "missing", left out of "distinct" and of the summary.
    """
    n = max(len(df), 1)
    rows = []
    for c in df.columns:
        s = df[c]
        kind = ("numeric" if _numeric(s) else
                "categorical" if isinstance(s.dtype, pd.CategoricalDtype) else
                "yes/no" if pd.api.types.is_bool_dtype(s) else
                "date" if pd.api.types.is_datetime64_any_dtype(s) else "text")
        miss = int(s.isna().sum())
        rows.append((str(c), kind, miss, round(100 * miss / n, 1), int(s.nunique(dropna=True)),
                     _summary_text(s, top)))
    return pd.DataFrame(rows, columns=["variable", "type", "missing", "missing %", "distinct",
                                       "summary"])


def _as_categories(s: pd.Series, max_levels: int) -> pd.Series:
    """Values as table categories: missing as "(missing)"; a numeric variable with more than
    ``max_levels`` distinct values in quintile groups."""
    if _numeric(s) and s.nunique() > max_levels:
        s = pd.qcut(s, 5, duplicates="drop").astype(object)
    out = s.astype(object).where(s.notna(), _MISSING)
    return out.map(lambda v: v if isinstance(v, str) else _cell(v) if not isinstance(
        v, pd.Interval) else str(v))


def two_way(df: pd.DataFrame, row: str, column: str, *, max_levels: int = 20) -> pd.DataFrame:
    """The two-way table (numbers of records) of variables ``row`` × ``column`` with totals.

    Missing values: a category "(missing)". A numeric variable with more than ``max_levels``
    distinct values is grouped into quintiles (``pandas.qcut``). `ParameterError` for an unknown
    variable.
    """
    for c in (row, column):
        if c not in df.columns:
            raise ParameterError(f"two-way table: no variable {c!r} in the data")
    a = _as_categories(df[row], max_levels).rename(row)
    b = _as_categories(df[column], max_levels).rename(column if column != row else f"{column} ")
    t = pd.crosstab(a, b, margins=True, margins_name="Total")
    t.columns.name = None
    last = [_MISSING, "Total"]  # natural order; "(missing)" and the totals last

    def order(labels: pd.Index, s: pd.Series) -> list[Any]:
        cats = [str(c) for c in getattr(s.dtype, "categories", [])]
        rest = sorted((x for x in labels if x not in last and x not in cats), key=natural)
        return [c for c in cats if c in labels] + rest + [x for x in last if x in labels]

    t = t.reindex(index=order(t.index, df[row]), columns=order(t.columns, df[column]))
    return t.astype(np.int64)


def original_vs_modified(original: pd.DataFrame, modified: pd.DataFrame,
                         column: str) -> pd.DataFrame:
    """A variable before and after: for a categorical variable the number of records of every
    category (and "(missing)") in both, with the change; for a numeric variable the quantiles
    (type 7), mean, standard deviation and number missing in both, with the change.

    Missing values: a category "(missing)" / a row "missing". `ParameterError` when the
    variable is in neither data set (a removed variable shows as all missing).
    """
    if column not in original.columns and column not in modified.columns:
        raise ParameterError(f"original vs modified: no variable {column!r}")
    o = original[column] if column in original.columns else pd.Series(np.nan, index=original.index)
    m = modified[column] if column in modified.columns else pd.Series(np.nan, index=modified.index)
    if _numeric(o) and (_numeric(m) or m.isna().all()):
        def stats(s: pd.Series) -> list[float]:
            x = s.dropna().to_numpy(dtype=float)
            q = np.quantile(x, [0, .1, .25, .5, .75, .9, 1]) if x.size else [np.nan] * 7
            return [*q, x.mean() if x.size else np.nan, x.std(ddof=1) if x.size > 1 else np.nan,
                    float(s.isna().sum())]
        out = pd.DataFrame({"original": stats(o), "modified": stats(m)},
                           index=pd.Index(["min", "p10", "q1", "median", "q3", "p90", "max",
                                           "mean", "std. dev.", "missing"], name="statistic"))
    else:
        a = o.astype(object).where(o.notna(), _MISSING).astype(str).value_counts()
        b = m.astype(object).where(m.notna(), _MISSING).astype(str).value_counts()
        order = [str(x) for x in getattr(o.dtype, "categories", [])]
        cats = [c for c in order if c in a.index or c in b.index] + sorted(
            (c for c in set(a.index) | set(b.index) if c not in order and c != _MISSING),
            key=natural)
        cats += [_MISSING] if _MISSING in a.index or _MISSING in b.index else []
        out = pd.DataFrame({"original": a.reindex(cats, fill_value=0),
                            "modified": b.reindex(cats, fill_value=0)}).astype(np.int64)
        out.index.name = "category"
    out["change"] = out["modified"] - out["original"]
    return out


def compare_png(original: pd.DataFrame, modified: pd.DataFrame, column: str, *,
                kind: str = "bar") -> bytes:
    """A plot of ``column`` original vs modified, as PNG bytes: ``kind="bar"`` grouped bars of
    the category counts (histograms for a numeric variable), ``"mosaic"`` mosaic plots
    (`sdcsession.present.plots.data.mosaic`; at most 12 categories)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    from ..plots._common import to_png
    from ..plots.data import distributions, mosaic

    if kind not in ("bar", "mosaic"):
        raise ParameterError(f"plot: expected 'bar' or 'mosaic', got {kind!r:.40}")
    table = original_vs_modified(original, modified, column)
    if table.index.name == "statistic":
        ax = distributions(("original", original), ("modified", modified), column=column,
                           original=False)
        return to_png(ax.figure)
    if kind == "mosaic":
        return to_png(mosaic(("original", original), ("modified", modified), columns=column,
                             original=False))
    fig = Figure(figsize=(6.4, 3.6))
    ax = fig.add_subplot()
    x = np.arange(len(table))
    ax.bar(x - 0.2, table["original"], 0.4, label="original", color="#9e9e9e")
    ax.bar(x + 0.2, table["modified"], 0.4, label="modified", color="#1f77b4")
    ax.set_xticks(x, [str(c)[:14] for c in table.index], rotation=45 if len(x) > 6 else 0,
                  ha="right" if len(x) > 6 else "center")
    ax.set_ylabel("records")
    ax.set_title(str(column), loc="left")
    ax.set_ylim(0, 1.18 * max(1, int(table[["original", "modified"]].to_numpy().max())))
    ax.legend(frameon=False, ncol=2, loc="upper right")
    fig.tight_layout()
    return to_png(fig)


def read_upload(name: str, content: bytes, *, format: str | None = None,
                sep: str | None = None, max_bytes: int = MAX_UPLOAD,
                max_decompressed: int | None = None) -> pd.DataFrame:
    """Read an uploaded file (its ``name`` and bytes) with `sdcsession.io.read_data`: the bytes
    go to a private temporary directory under the upload's base name (its extension tells the
    format unless ``format`` is given), are read, and are deleted. `DataFileError` for an empty
    upload, one larger than ``max_bytes``, or a compressed one expanding beyond
    ``max_decompressed`` (read_data's default limit when None).
    """
    from ...io import read_data

    base = Path(str(name).replace("\\", "/")).name.strip() or "upload"
    if len(content) == 0:
        raise DataFileError(f"{base}: the uploaded file is empty")
    if len(content) > max_bytes:
        raise DataFileError(f"{base}: the upload has {len(content):,} bytes, more than "
                            f"{max_bytes:,}; give the file's path instead")
    with tempfile.TemporaryDirectory(prefix="sdcsession-upload-") as d:
        p = Path(d) / base
        p.write_bytes(content)
        return read_data(p, format=format, sep=sep, max_decompressed=max_decompressed)


def load_into(wb: Any, data: pd.DataFrame, *, path: str | None = None,
              name: str | None = None) -> None:
    """Show ``data`` in the workbench ``wb``: a new Roles panel of its columns, no session (the
    previous scenarios are left to the notebook), the forms and the preparation steps offering
    its columns, the title naming the file (as text); ``path`` (a file read from disk) also sets
    the default export, report and autosave paths and offers to resume an autosave."""
    from .release import default_paths
    from .roles import RolesPanel

    wb._unobserve()
    wb.session, wb._data, wb.path = None, data, path
    wb._held.clear()
    rp = RolesPanel(data, None)
    rp.apply_button.on_click(lambda _: wb._apply_roles())
    wb.roles_panel, wb.role_pickers = rp, rp.pickers
    wb.roles_button, wb.roles_message = rp.apply_button, rp.message
    children, titles = list(wb.tabs.children), list(wb.tabs.titles)
    children[wb._tab["Roles"]] = rp.box
    wb.tabs.children = children
    wb.tabs.titles = titles
    wb.forms = {}
    wb._show_form()
    cols = [str(c) for c in data.columns]
    wb.prepare.set_columns(cols)
    d = default_paths(path if path is not None else Path.cwd() / (name or "data"))
    rel = wb.release
    rel.export_path.value, rel.report_path.value = str(d["export"]), str(d["report"])
    rel.project_path.value = str(d["project"])
    shown = name or (Path(path).name if path else "")
    wb.title.value = ("<h3 style='margin:4px 0'>sdcsession workbench"
                      + (f": {html.escape(shown)}" if shown else "") + "</h3>")
    wb.risk_label.value = "<i>no session yet: apply the roles</i>"
    wb.history.recipe.value = ""
    wb.history.tree.options = []
    wb.data_panel.set_columns()
    wb._show_unbound()
    wb._hide_resume()
    wb.offer_resume()


class DataPanel:
    """The Data tab of the workbench ``wb`` (see the module docstring)."""

    def __init__(self, wb: Any) -> None:
        import ipywidgets as w

        from .treat import dropdown

        self.wb, wide = wb, w.Layout(width="430px")
        style = {"description_width": "170px"}
        # load
        self.upload = w.FileUpload(accept=_ACCEPT, multiple=False,
                                   description="Choose a file to upload")
        self.upload_button = w.Button(description="Load the uploaded file",
                                      button_style="primary")
        self.path = w.Text(value="", placeholder="/path/to/survey.dta", style=style,
                           description="File on this computer (path)",
                           layout=w.Layout(width="95%"))
        self.path_button = w.Button(description="Load the file at this path")
        self.format = dropdown(options=FORMATS, value=None, style=style, layout=wide,
                               description="Format (default: from the extension)")
        self.sep = dropdown(options=_SEPS, value=None, style=style, layout=wide,
                            description="CSV delimiter (default: detect)")
        self.upload_button.on_click(lambda _: self.load_upload())
        self.path_button.on_click(lambda _: self.load_path())
        # explore
        self.state = w.Dropdown(options=[("current (HEAD)", "current"), ("original", "original")],
                                value="current", description="Data state", style=style)
        self.summary_button = w.Button(description="Summarise the variables")
        self.row_var = w.Dropdown(options=[], description="Rows: variable", style=style)
        self.col_var = w.Dropdown(options=[], description="Columns: variable", style=style)
        self.crosstab_button = w.Button(description="Two-way table")
        self.summary_button.on_click(lambda _: self.show_summary())
        self.crosstab_button.on_click(lambda _: self.show_two_way())
        # original vs modified
        self.compare_var = w.Dropdown(options=[], description="Variable", style=style)
        self.plot_kind = w.Dropdown(options=[("bar plot", "bar"), ("mosaic plot", "mosaic")],
                                    value="bar", description="Plot (numeric: histograms)",
                                    style=style)
        self.compare_button = w.Button(description="Original vs modified")
        self.compare_image = w.Image(format="png", layout=w.Layout(max_width="560px"))
        self.compare_button.on_click(lambda _: self.show_compare())
        self.load_message, self.summary, self.crosstab = w.HTML(), w.HTML(), w.HTML()
        self.compare_table, self.message = w.HTML(), w.HTML()
        self.box = w.VBox([
            w.HTML("<b>Load a data file</b> (CSV, TSV, Stata, SPSS, Parquet, SAS; a new file "
                   "starts again at the roles)"),
            w.HBox([self.upload, self.upload_button]), self.path, self.path_button, self.format,
            self.sep, self.load_message,
            w.HTML("<b>Explore</b>"), self.state, self.summary_button, self.summary,
            w.HBox([self.row_var, self.col_var]), self.crosstab_button, self.crosstab,
            w.HTML("<b>Original vs modified</b> (the original data and the current step)"),
            w.HBox([self.compare_var, self.plot_kind]), self.compare_button, self.message,
            self.compare_table, self.compare_image])
        for wd, cls in ((self.upload, "sdc-upload"), (self.upload_button, "sdc-load-upload"),
                        (self.path, "sdc-path"), (self.path_button, "sdc-load-path"),
                        (self.load_message, "sdc-load-message"), (self.summary, "sdc-summary"),
                        (self.crosstab, "sdc-crosstab"), (self.compare_table, "sdc-compare")):
            wd.add_class(cls)
        tidy(self)
        self.set_columns()

    # ------------------------------------------------------------------------------ data
    def frames(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(original, current) data of the active scenario (both the loaded data without one)."""
        s = self.wb.session
        if s is None:
            return self.wb._data, self.wb._data
        return s._tree.root.state.data, s.state.data

    def set_columns(self) -> None:
        """Offer the variables of the current data (and of the original, for the comparison)."""
        orig, cur = self.frames()
        cols = [str(c) for c in cur.columns]
        every = list(dict.fromkeys([str(c) for c in orig.columns] + cols))
        for wd, opts in ((self.row_var, cols), (self.col_var, cols), (self.compare_var, every)):
            old = wd.value
            wd.options = opts
            wd.value = old if old in opts else (opts[0] if opts else None)

    # ------------------------------------------------------------------------------ load
    def _loaded(self, df: pd.DataFrame, path: str | None, name: str) -> None:
        load_into(self.wb, df, path=path, name=name)
        self.load_message.value = ("<span style='color:#2e7d32'>" + html.escape(
            f"{name}: {len(df):,} records, {df.shape[1]} variables read; choose the roles")
            + "</span>")

    def _load_error(self, e: BaseException) -> None:
        self.load_message.value = ("<span style='color:#b00020'>" + html.escape(str(e))
                                   + "</span>")

    def load_upload(self) -> pd.DataFrame | None:
        """Read the uploaded file and show it; the data, or None (the message says why)."""
        files = list(self.upload.value)
        if not files:
            self._load_error(DataFileError(
                "choose a file to upload first (a file larger than the server accepts, in a "
                "notebook 10 MB, does not arrive: give its path instead)"))
            return None
        f = files[0]
        name = str(f["name"])
        try:
            df = read_upload(name, bytes(f["content"]), format=self.format.value,
                             sep=self.sep.value)
        except SdcError as e:
            self._load_error(e)
            return None
        finally:
            self.upload.value = ()  # the bytes are not kept in the widget
        self._loaded(df, None, Path(name.replace("\\", "/")).name)
        return df

    def load_path(self) -> pd.DataFrame | None:
        """Read the file at the path given and show it; the data, or None."""
        from ...io import read_data

        text = self.path.value.strip()
        if not text:
            self._load_error(DataFileError("give the path of a data file"))
            return None
        p = Path(text).expanduser()
        try:
            if not p.is_file():
                raise DataFileError(f"no data file {str(p)!r}")
            df = read_data(p, format=self.format.value, sep=self.sep.value)
        except (SdcError, OSError) as e:
            self._load_error(e)
            return None
        self._loaded(df, str(p.resolve()), p.name)
        return df

    # --------------------------------------------------------------------------- explore
    def _data(self) -> pd.DataFrame:
        orig, cur = self.frames()
        return orig if self.state.value == "original" else cur

    def show_summary(self) -> pd.DataFrame:
        """Show the per-variable summaries of the chosen state; the table."""
        t = variable_summaries(self._data())
        self.summary.value = html_table(t.set_index("variable"), cls="sdc-summary-table")
        return t

    def show_two_way(self) -> pd.DataFrame | None:
        """Show the two-way table of the chosen variables; the table, or None."""
        try:
            t = two_way(self._data(), self.row_var.value, self.col_var.value)
        except SdcError as e:
            self.crosstab.value = f"<span style='color:#b00020'>{html.escape(str(e))}</span>"
            return None
        self.crosstab.value = html_table(t, cls="sdc-two-way")
        return t

    def show_compare(self) -> pd.DataFrame | None:
        """Show the table and the plot of the chosen variable, original vs current; the table."""
        orig, cur = self.frames()
        col = self.compare_var.value
        self.message.value = ""
        try:
            t = original_vs_modified(orig, cur, col)
            self.compare_table.value = html_table(t, cls="sdc-compare-table")
            self.compare_image.value = compare_png(orig, cur, col, kind=self.plot_kind.value)
        except SdcError as e:
            self.message.value = f"<span style='color:#b00020'>{html.escape(str(e))}</span>"
            return None
        except ImportError as e:  # the table is shown; the plot needs the plots extra
            self.message.value = html.escape(f"no plot: {e}")
        return t
