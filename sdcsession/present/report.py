"""A self-contained HTML report of one or more scenarios (inline CSS, inline SVG figures).

The report is one file that opens offline in any browser: no script, no external resource (a
Content-Security-Policy forbids any), figures embedded as inline SVG drawn without matplotlib. It
describes the data (sizes, roles, per-variable aggregates), every scenario's steps (parameters,
seeds, what each changed), the risk before and after (global, households, k-anonymity,
l-diversity, numeric risk), the utility tables, the comparison of the scenarios with the R-U map,
and each scenario's recipe.

**Confidentiality.** The public variant (default) prints aggregates only: counts, means, standard
deviations, numbers of categories, risk and loss measures — never a record-level value of the
original data (no minimum, maximum, quantile, outlier point or key combination) and no seed (the
session's and the steps' seeds would regenerate the released file's record order and random
draws: the public recipes show ``"withheld"``). Category labels
appear only where a treatment's parameters name them (e.g. a recoding map), as in the recipe.
``internal=True`` adds, for the internal reader only, the riskiest key combinations of each
scenario (key values with their frequencies and risk) and is marked as internal at the top.

Example
-------
>>> import pandas as pd, sdcsession as sdc
>>> df = pd.DataFrame({"sex": list("mfmfmf"), "age": list("aabbcc"), "x": [1.5, 2, 3, 4, 5, 6.25]})
>>> s = sdc.SdcSession(df, keys=["sex", "age"], numeric=["x"], seed=1)
>>> r = report(s.branch("merged").recode("age", {"b": "a"}), s)
>>> r.html.startswith("<!DOCTYPE html>") and "6.25" not in r.html
True
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DataFileError, MeasureError, ParameterError, SdcError, user_stacklevel
from .display import esc
from .report_attacks import attack_section
from .report_sections import (
    WITHHELD,
    _data_section,
    _internal_section,
    _release_section,
    _risk_section,
    _steps_section,
    _table,
    _utility_section,
    withhold_seeds,
)
from .report_tables import tables_section

__all__ = ["report", "Report", "REPORT_CSS"]

REPORT_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:14px;color:#222;
max-width:72em;margin:2em auto;padding:0 1.5em;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid
#ccd;padding-bottom:.2em}h3{font-size:1.05em;margin-top:1.4em}
table{border-collapse:collapse;margin:.6em 0 1em 0;font-size:13px}
th,td{padding:3px 10px;border-bottom:1px solid #e4e4ea;text-align:left;vertical-align:top}
th{background:#f3f3f7;font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:
tabular-nums}
.muted{color:#777}.badge{display:inline-block;padding:2px 8px;border-radius:10px;font-size:12px;
font-weight:600}.public{background:#e6f2e6;color:#235723}.internal{background:#fbe3e3;color:#8a1f1f}
pre{background:#f6f6f9;border:1px solid #e4e4ea;padding:8px 10px;overflow-x:auto;font-size:12px}
figure{margin:1em 0}figure svg{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:12px;color:#555}nav ol{columns:2;font-size:13px}
.front{font-weight:600}.wide{overflow-x:auto}
"""

_CSP = ("default-src 'none'; style-src 'unsafe-inline'; "
        "base-uri 'none'; form-action 'none'")


# -------------------------------------------------------------------------------- helpers


def _figure(make: Any, alt: str, caption: str) -> str:
    """A figure as inline SVG (``make(alt)`` returns the ``<svg>`` text, see
    `sdcsession.present.plots.report_svg`) with its caption; a failing figure becomes a note.
    No matplotlib: the SVG is written directly."""
    try:
        svg = make(alt)
    except SdcError as e:
        return f'<p class="muted">({esc(alt)}: not drawn — {esc(e)})</p>'
    return f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>"


class Report:
    """A built report not written to a file: ``html`` (the whole document), ``title``,
    `save` to write it, and a notebook display (``_repr_html_``) that shows the report in a
    sandboxed frame instead of printing its text.

    >>> r = Report("<!DOCTYPE html><html><body>hi</body></html>", "t")
    >>> r
    Report 't' (43 characters of HTML; .save(path) writes it, .html is the text)
    """

    def __init__(self, html: str, title: str, sessions: list[Any] | None = None) -> None:
        self.html = html
        self.title = title
        self._sessions = list(sessions or [])  # their data files are never written over

    def save(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write the report to ``path`` (a file whose directory exists; an existing file only
        with ``overwrite=True``) and return the path."""
        p = _check_args(path, False, None, True, overwrite, self._sessions)
        if p is None:
            raise ParameterError("path: expected a file path (str or pathlib.Path), got None")
        return _write(p, self.html, overwrite, self._sessions)

    def __repr__(self) -> str:
        return (f"Report {self.title!r} ({len(self.html):,} characters of HTML; .save(path) "
                "writes it, .html is the text)")

    def _repr_html_(self) -> str:
        return (f'<iframe title="{esc(self.title)}" sandbox="" style="width:100%;height:640px;'
                f'border:1px solid #ccd" srcdoc="{esc(self.html)}"></iframe>')


def _sources(sessions: list[Any]) -> list[Any]:
    """The data files the sessions were read from (never written over)."""
    return [src for s in sessions
            if (src := getattr(getattr(s, "_tree", None), "source", None)) is not None]


def _write(path: Path, html: str, overwrite: bool = False,
           sessions: list[Any] | None = None) -> Path:
    from ..io.write import write_text

    return write_text(path, html, overwrite=overwrite, protect=_sources(sessions or []))


def _sessions(items: tuple[Any, ...], what: str = "sessions") -> list[Any]:
    from .compare import _is_session

    out, stack, seen = [], list(reversed(items)), 0
    while stack:  # iterative: nested lists of sessions, never a RecursionError
        it, seen = stack.pop(), seen + 1
        if _is_session(it):
            out.append(it)
        elif isinstance(it, Iterable) and not isinstance(it, (str, bytes)) and seen < 10_000:
            stack.extend(reversed(list(it)))
        else:
            raise ParameterError(f"{what}: expected SdcSession objects, got {type(it).__name__}")
    if not out:
        raise ParameterError(f"{what}: give at least one SdcSession")
    return out


def _path_maxima(sessions: list[Any], loss: str | None) -> tuple[float | None, float | None]:
    """1.1 × the largest expected re-identifications and loss on the paths of ``sessions`` (one
    scale for all their risk-path figures; the loss scale of measures bounded by 1 is [0, 1])."""
    from .compare import compare
    from .plots.ru import BOUNDED_BY_ONE

    if not sessions:
        return None, None
    cols = ["expected_reidentifications"] + ([loss] if loss else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = compare([st for s in sessions for st in s.head.path()], measures=cols)
    top = [float(np.nanmax(_finite(t[c]))) if _finite(t[c]).size else np.nan for c in cols]
    rmax = 1.1 * top[0] if np.isfinite(top[0]) and top[0] > 0 else None
    lmax = None
    if loss and loss not in BOUNDED_BY_ONE and np.isfinite(top[1]) and top[1] > 0:
        lmax = 1.1 * top[1]
    return rmax, lmax


def _finite(s: Any) -> np.ndarray:
    """A column as floats with the missing values left out."""
    v = np.asarray(s, dtype=float)
    return v[~np.isnan(v)]


def _check_args(path: Any, internal: Any, title: Any, figures: Any, overwrite: Any = False,
                sessions: list[Any] | None = None) -> Path | None:
    """The output path (or None), checked before anything is built (see `report`)."""
    for name, flag in (("internal", internal), ("figures", figures), ("overwrite", overwrite)):
        if not isinstance(flag, (bool, np.bool_)):
            raise ParameterError(f"{name}: expected True or False, got {flag!r}"[:200])
    if title is not None and not isinstance(title, str):
        raise ParameterError(f"title: expected a string or None, got {type(title).__name__}")
    if path is None:
        return None
    if not isinstance(path, (str, Path)) or not str(path).strip() or "\x00" in str(path):
        hint = (" (s.report(path, *others) takes the file path first: write s.report(None, other)"
                " or sdc.report(s, other, path=...))") if hasattr(path, "history") else ""
        raise ParameterError(f"path: expected a file path (str or pathlib.Path) or None, got "
                             f"{type(path).__name__}{hint}")
    p = Path(path)
    if p.is_dir():
        raise DataFileError(f"{p}: is a directory; give a file name such as report.html")
    if not p.parent.is_dir():
        raise DataFileError(f"{p}: the directory {str(p.parent)!r} does not exist")
    if not os.access(p.parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise DataFileError(f"{p}: permission denied, cannot write the report there")
    from ..io.write import check_target

    check_target(p, overwrite=overwrite, protect=[Path(q) for q in _sources(sessions or [])])
    return p


# ------------------------------------------------------------------------------- sections


# --------------------------------------------------------------------------------- report
def report(*sessions: Any, path: str | Path | None = None, internal: bool = False,
           title: str | None = None, figures: bool = True,
           overwrite: bool = False) -> Path | Report:
    """A self-contained HTML report of one or more scenarios; written to ``path`` if given.

    Sections: data (sizes, roles, aggregates per variable), scenarios (steps with parameters,
    seeds and what each changed), disclosure risk before and after (global, households,
    k-anonymity for k = 2, 3, 5, l-diversity of sensitive variables, numeric risk), information
    loss (suppressions per key, IL1s, eigen, γ, λ), risk and utility by attack and model (only
    the figures already computed with ``s.risk.attacks`` / ``s.utility.ml``), the comparison of the scenarios with the
    risk–utility frontier and R-U map, figures (suppressions, individual-risk distribution,
    numeric distributions before/after, risk along each scenario) and each scenario's recipe.
    Every measure is read through the states' caches (nothing already computed is recomputed).

    The public variant never prints a record-level value of the original data (see the module
    docstring); ``internal=True`` adds the riskiest key combinations. ``figures=False`` leaves
    the PNG figures out (faster, smaller). The HTML has no script and no external resource.

    Returns the path written (a `pathlib.Path`) when ``path`` is given, else a `Report` (its
    ``html`` is the text; in a notebook it shows the report, and ``.save(path)`` writes it) —
    never the long HTML string itself. Arguments are checked before anything is computed: sessions
    (`ParameterError` for anything else), ``path`` (None or a file path whose directory exists:
    `ParameterError` / `DataFileError`; an existing file is replaced only with
    ``overwrite=True``, the file a session's data were read from never), ``internal`` and ``figures`` (True or False), ``title``
    (a string or None).

    Example
    -------
    >>> import pandas as pd, sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxy")}), keys=["a"], seed=1)
    >>> "Risk–utility" in report(s, figures=False).html
    True
    """
    from .._version import __version__
    from .compare import compare, frontier, pick_loss

    ss = _sessions(sessions)
    if any(s.state.distributed for s in ss):  # its sections read the data in memory
        raise MeasureError("report: the report is made from in-memory sessions; compute the "
                           "Dask frame first (SdcSession(dask_frame.compute(), ...)) or a "
                           "sample of it")
    out_path = _check_args(path, internal, title, figures, overwrite, ss)
    for s in ss[1:]:
        if s.history[0] is not ss[0].history[0]:
            warnings.warn("report: the scenarios do not share one original; the data section "
                          "and the 'original' column describe the first one", stacklevel=user_stacklevel())
            break
    title = title or f"Disclosure control report: {', '.join(s.name for s in ss)}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cmp = compare(*ss, original=True)
    cmp_notes = [str(w.message) for w in caught]
    attacks = attack_section(ss)  # figures already computed in the session, or ""
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    badge = ('<span class="badge internal">INTERNAL — contains key values of risky records, do '
             'not release</span>' if internal else
             '<span class="badge public">public variant — aggregates only</span>')
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{esc(title)}</title><style>{REPORT_CSS}</style></head><body>",
           f"<h1>{esc(title)}</h1>",
           f'<p class="muted">sdcsession {esc(__version__)} · {esc(now)} · {badge}</p>',
           "<nav><ol><li><a href='#data'>Data</a></li><li><a href='#scenarios'>Scenarios</a>"
           "</li><li><a href='#risk'>Disclosure risk</a></li><li><a href='#release'>Release check</a>"
           "</li><li><a href='#utility'>Information loss</a></li>"
           + ("<li><a href='#attacks'>Risk and utility by attack and model</a></li>" if attacks
              else "")
           + "<li><a href='#compare'>Comparison</a></li>"
           + ("<li><a href='#figures'>Figures</a></li>" if figures else "")
           + "<li><a href='#recipes'>Recipes</a></li>"
           + ("<li><a href='#internal'>Riskiest combinations</a></li>" if internal else "")
           + "</ol></nav>"]
    out.append(_data_section(ss))
    out.append("<h2 id='scenarios'>Scenarios</h2>")
    for s in ss:
        out.append(f"<h3>{esc(s.name)}</h3><p class='muted'>session seed "
                   f"{esc(s.seed) if internal else WITHHELD} · "
                   f"HEAD {esc(s.head.label)} (depth {s.head.depth})</p>")
        out.append(_steps_section(s, internal))
    out.append(_risk_section(ss))
    out.append(_release_section(ss))
    out.append(tables_section(ss))
    out.append(_utility_section(ss, cmp))
    out.append(attacks)
    # comparison
    out.append("<h2 id='compare'>Comparison of the scenarios</h2>")
    shown = cmp.drop(columns=["depth"]).set_index("scenario")
    loss = None
    front_names: list[str] = []
    try:
        loss = pick_loss(cmp)
        if "expected_reidentifications" in cmp.columns:
            front_names = frontier(cmp, loss=loss)["scenario"].tolist()
    except SdcError:
        loss = None
    bold = [i for i, n in enumerate(shown.index) if n in front_names]
    out.append(_table(shown, bold_rows=bold))
    if front_names:
        out.append(f"<p>Not dominated on (expected re-identifications, {esc(loss)}) — the "
                   f"risk–utility frontier, in bold: <b>{esc(', '.join(front_names))}</b>.</p>")
    for note in cmp_notes:
        out.append(f'<p class="muted">{esc(note)}</p>')
    if figures and loss and "expected_reidentifications" in cmp.columns:
        from .plots import report_svg as V

        sc = cmp[cmp.scenario != "original"]
        sc.attrs = cmp.attrs
        out.append(_figure(lambda alt: V.svg_ru_map(sc, loss, alt), "Risk–utility map",
                           "Risk–utility map (Duncan, Keller-McNulty & Stokes 2001): filled "
                           "points are not dominated; the star is the original data, the cross "
                           "no release."))
    elif not figures:
        out.append('<p class="muted">Risk–utility map: figures were not requested.</p>')
    if figures:
        from .plots import report_svg as V

        out.append("<h2 id='figures'>Figures</h2>")
        if ss[0].roles.keys:
            out.append(_figure(lambda alt: V.svg_suppressions(ss, alt), "Suppressions per key variable",
                               "Values of key variables suppressed in each scenario."))
            out.append(_figure(lambda alt: V.svg_risk_distribution(ss, alt), "Individual risk",
                               "Cumulative distribution of the individual risk, original and "
                               "each scenario."))
        root_data = ss[0].history[0].state.data
        for c in ss[0].history[0].state.roles.numeric:
            changed = [s for s in ss if c in s.data.columns
                       and not s.state.data[c].equals(root_data[c])]
            if not changed:
                out.append(f'<p class="muted">{esc(c)}: unchanged in every scenario.</p>')
                continue
            out.append(_figure(lambda alt, c=c, ch=changed: V.svg_distribution(ch, c, alt),
                               f"Distribution of {c}",
                               f"Density histograms of {c}, original (grey) and the scenarios "
                               "that change it; the long right tail is cut at the 99.5th "
                               "percentile."))
        along = [s for s in ss if s.head.depth > 0 and s.roles.keys]
        loss_s = loss if loss in ("lambda", "il1s", "suppressions") else None
        rmax, lmax = _path_maxima(along, loss_s)
        for s in along:  # one risk scale and one loss scale for all these figures
            out.append(_figure(lambda alt, s=s: V.svg_risk_path(s, loss_s, rmax, lmax, alt),
                               f"Risk along {s.name}",
                               f"Expected re-identifications after each step of {s.name}"
                               + (f" and {loss_s} (dashed, right axis)" if loss_s else "")
                               + "; every scenario's figure has the same scales."))
    out.append("<h2 id='recipes'>Recipes</h2><p class='muted'>Replay with "
               "<code>SdcSession.from_recipe(data, recipe)</code>; the fingerprint identifies the"
               " original file." + ("" if internal else " The seeds are withheld: with them the "
                                    "released file's record order and random draws could be "
                                    "regenerated (the internal report and the saved recipe "
                                    "hold them).") + "</p>")
    for s in ss:
        rec = json.dumps(s.to_recipe() if internal else withhold_seeds(s.to_recipe()), indent=2,
                         ensure_ascii=False)
        out.append(f"<h3>{esc(s.name)}</h3><pre>{esc(rec)}</pre>")
    if internal:
        out.append(_internal_section(ss))
    out.append("</body></html>")
    html = "\n".join(out)
    if out_path is not None:
        return _write(out_path, html, overwrite, ss)
    return Report(html, title, ss)
