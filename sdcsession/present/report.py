"""A self-contained HTML report of one or more scenarios (inline CSS, PNG figures in base64).

The report is one file that opens offline in any browser: no script, no external resource (a
Content-Security-Policy forbids any), figures embedded as ``data:image/png;base64`` images. It
describes the data (sizes, roles, per-variable aggregates), every scenario's steps (parameters,
seeds, what each changed), the risk before and after (global, households, k-anonymity,
l-diversity, numeric risk), the utility tables, the comparison of the scenarios with the R-U map,
and each scenario's recipe.

**Confidentiality.** The public variant (default) prints aggregates only: counts, means, standard
deviations, numbers of categories, risk and loss measures — never a record-level value of the
original data (no minimum, maximum, quantile, outlier point or key combination). Category labels
appear only where a treatment's parameters name them (e.g. a recoding map), as in the recipe.
``internal=True`` adds, for the internal reader only, the riskiest key combinations of each
scenario (key values with their frequencies and risk) and is marked as internal at the top.

Example
-------
>>> import pandas as pd, sdcsession as sdc
>>> df = pd.DataFrame({"sex": list("mfmfmf"), "age": list("aabbcc"), "x": [1.5, 2, 3, 4, 5, 6.25]})
>>> s = sdc.SdcSession(df, keys=["sex", "age"], numeric=["x"], seed=1)
>>> html = report(s.branch("merged").recode("age", {"b": "a"}), s)
>>> html.startswith("<!DOCTYPE html>") and "6.25" not in html
True
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import os
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataFileError, ParameterError, SdcError
from .display import esc

__all__ = ["report", "REPORT_CSS"]

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
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:12px;color:#555}nav ol{columns:2;font-size:13px}
.front{font-weight:600}.wide{overflow-x:auto}
"""

_CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        "base-uri 'none'; form-action 'none'")


# -------------------------------------------------------------------------------- helpers
def _num(x: Any) -> str:
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "–"
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    if f == 0:
        return "0"
    if f.is_integer() and abs(f) < 1e15:
        return f"{int(f):,}"
    if abs(f) >= 1000:
        return f"{f:,.1f}"
    return f"{f:.4g}"


def _table(df: pd.DataFrame, *, index: bool = True, bold_rows: Iterable[Any] = ()) -> str:
    """An escaped HTML table of ``df`` (numbers right-aligned and formatted)."""
    bold = set(bold_rows)
    cols = list(df.columns)
    head = "".join(f"<th>{esc(df.index.name or '')}</th>" for _ in [0] if index)
    lab = lambda c: esc(str(c).replace("_", " "))  # noqa: E731
    head += "".join(
        f'<th class="num">{lab(c)}</th>' if pd.api.types.is_numeric_dtype(df[c]) and
        not pd.api.types.is_bool_dtype(df[c]) else f"<th>{lab(c)}</th>" for c in cols)
    rows = []
    for i, (idx, r) in enumerate(df.iterrows()):
        cells = [f"<td>{esc(idx)}</td>"] if index else []
        for c in cols:
            v = r[c]
            if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
                cells.append(f'<td class="num">{esc(_num(v))}</td>')
            else:
                cells.append(f"<td>{esc('–' if v is None else v)}</td>")
        cls = ' class="front"' if i in bold else ""
        rows.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
    return (f'<div class="wide"><table><tr>{head}</tr>' + "".join(rows)
            + "</table></div>")


def _img(fig: Any, alt: str, caption: str) -> str:
    import matplotlib.pyplot as plt

    from .plotting import to_png

    try:
        png = to_png(fig)
    finally:
        plt.close(fig)
    b64 = base64.b64encode(png).decode("ascii")
    return (f'<figure><img alt="{esc(alt)}" src="data:image/png;base64,{b64}">'
            f"<figcaption>{esc(caption)}</figcaption></figure>")


def _figure(make: Any, alt: str, caption: str) -> str:
    """Render a plot (a callable returning Axes/Figure); a failing figure becomes a note."""
    try:
        obj = make()
    except SdcError as e:
        return f'<p class="muted">({esc(alt)}: not drawn — {esc(e)})</p>'
    fig = obj if hasattr(obj, "savefig") else obj.figure
    return _img(fig, alt, caption)


def _compact(v: Any, depth: int = 0) -> Any:
    """Notes for display: long lists become their length, floats 4 significant digits."""
    if isinstance(v, dict):
        if len(v) > 12:
            return f"{{{len(v)} entries}}"
        return {str(k): _compact(x, depth + 1) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        if len(v) > 12:
            return f"[{len(v)} items]"
        return [_compact(x, depth + 1) for x in v]
    if isinstance(v, float):
        return float(f"{v:.4g}")
    return v


def _notes_text(notes: dict[str, Any]) -> str:
    if not notes:
        return ""
    txt = json.dumps(_compact(notes), ensure_ascii=False, default=str)
    return txt if len(txt) <= 400 else txt[:399] + "…"


def _sessions(items: tuple[Any, ...]) -> list[Any]:
    from .compare import _is_session

    out, stack, seen = [], list(reversed(items)), 0
    while stack:  # iterative: nested lists of sessions, never a RecursionError
        it, seen = stack.pop(), seen + 1
        if _is_session(it):
            out.append(it)
        elif isinstance(it, Iterable) and not isinstance(it, (str, bytes)) and seen < 10_000:
            stack.extend(reversed(list(it)))
        else:
            raise ParameterError(f"report: expected SdcSession objects, got {type(it).__name__}")
    if not out:
        raise ParameterError("report: give at least one SdcSession")
    return out


def _check_args(path: Any, internal: Any, title: Any, figures: Any) -> Path | None:
    """The output path (or None), checked before anything is built (see `report`)."""
    for name, flag in (("internal", internal), ("figures", figures)):
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
    return p


# ------------------------------------------------------------------------------- sections
def _data_section(sessions: list[Any]) -> str:
    root = sessions[0].history[0].state
    df, roles = root.data, root.roles
    parts = ["<h2 id='data'>Data</h2>"]
    facts = [("records", f"{len(df):,}"), ("variables", f"{df.shape[1]:,}")]
    if roles.household:
        facts.append(("households", f"{df[roles.household].nunique(dropna=True):,}"))
    if roles.weight:
        facts.append(("sum of weights (estimated population)",
                      _num(float(pd.to_numeric(df[roles.weight]).sum()))))
    parts.append(_table(pd.DataFrame(facts, columns=["", "value"]).set_index("")))
    rows = []
    for role in ("keys", "numeric", "weight", "household", "strata", "sensitive", "pram"):
        v = getattr(roles, role)
        if v:
            rows.append((role, ", ".join(v) if isinstance(v, tuple) else str(v)))
    parts.append("<h3>Roles</h3>")
    parts.append(_table(pd.DataFrame(rows, columns=["role", "variables"]), index=False))
    # per-variable aggregates (never min / max / quantiles: they are record values)
    cat_rows = []
    for c in (*roles.keys, *roles.sensitive, *roles.pram):
        if c in df.columns and c not in [r[0] for r in cat_rows]:
            s = df[c]
            cat_rows.append((c, "key" if c in roles.keys else
                             ("sensitive" if c in roles.sensitive else "pram"),
                             int(s.nunique(dropna=True)), int(s.isna().sum()),
                             100.0 * float(s.isna().mean()) if len(s) else 0.0))
    if cat_rows:
        parts.append("<h3>Categorical variables</h3>")
        parts.append(_table(pd.DataFrame(cat_rows, columns=["variable", "role", "categories",
                                                            "missing", "missing %"]),
                            index=False))
    num_rows = []
    for c in roles.numeric:
        if c in df.columns:
            x = pd.to_numeric(df[c], errors="coerce")
            num_rows.append((c, float(x.mean()), float(x.std(ddof=1)), int(x.isna().sum()),
                             int((x == 0).sum())))
    if num_rows:
        parts.append("<h3>Numeric variables</h3>")
        parts.append(_table(pd.DataFrame(num_rows, columns=["variable", "mean", "sd", "missing",
                                                            "zeros"]), index=False))
        parts.append('<p class="muted">Aggregates only: minima, maxima and quantiles are values '
                     "of single records and are not shown.</p>")
    return "".join(parts)


def _steps_section(s: Any) -> str:
    rows = []
    for st in s.history:
        t = st.treatment
        if t is None:
            continue
        params = ", ".join(f"{k}={json.dumps(_compact(v), ensure_ascii=False, default=str)}"
                           for k, v in t.params().items())
        rows.append({"step": f"#{st.id}", "treatment": t.type, "parameters": params,
                     "seed": str(st.seed) if t.random else "–",
                     "seconds": round(float(st.seconds), 3), "what changed": _notes_text(st.notes)})
    if not rows:
        return '<p class="muted">No treatment applied: this scenario is the original data.</p>'
    return _table(pd.DataFrame(rows), index=False)


def _risk_rows(state: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    keys = bool(state.roles.keys)
    if keys:
        out["global risk (mean individual risk)"] = state.measure("global_risk")
        out["expected re-identifications"] = state.measure("expected_reidentifications")
        if state.roles.household:
            out["household expected re-identifications"] = state.measure(
                "household_expected_reidentifications")
        for k in (2, 3, 5):
            out[f"records violating {k}-anonymity"] = state.measure(f"k_violations_{k}")
    if state.roles.sensitive and keys:
        try:
            ld = state.measure("l_diversity", c=2)
        except SdcError:
            ld = None
        if ld is not None:
            for v in state.roles.sensitive:
                col = f"{v}_distinct"
                if col in ld.columns:
                    x = pd.to_numeric(ld[col], errors="coerce")
                    out[f"{v}: records with distinct l < 2"] = int((x < 2).sum())
                    out[f"{v}: mean distinct l"] = float(x.mean())
    if state.roles.numeric:
        try:
            num = state.measure("numeric_risk")
        except SdcError:
            num = None
        except Exception:  # noqa: BLE001 - a report must not fail on one optional figure
            num = None
        for k, v in (num or {}).items():
            out[k.replace("_", " ") + " (numeric)"] = float(v)
    return out


def _risk_section(sessions: list[Any]) -> str:
    root = sessions[0].history[0].state
    cols = {"original": _risk_rows(root)}
    for s in sessions:
        cols[s.name] = _risk_rows(s.state)
    df = pd.DataFrame(cols)
    df.index.name = "measure"
    return ("<h2 id='risk'>Disclosure risk before and after</h2>" + _table(df)
            + '<p class="muted">Individual risk: Benedetti–Franconi approximation with missing '
            "key values as wildcards; household risk 1 − ∏(1 − r<sub>i</sub>).</p>")


def _utility_section(sessions: list[Any], cmp: pd.DataFrame) -> str:
    parts = ["<h2 id='utility'>Information loss</h2>"]
    sup = {s.name: s.state.measure("suppressions_by_key") for s in sessions}
    sup_df = pd.DataFrame(sup)
    if len(sup_df):
        sup_df.index.name = "key variable"
        n = sessions[0].state.n
        parts.append("<h3>Suppressions per key variable</h3>" + _table(sup_df.astype("int64")))
        tot = sup_df.sum(axis=0)
        parts.append('<p class="muted">Total: ' + esc(", ".join(
            f"{k} {int(v):,} ({100 * v / max(n, 1):.2f} % of records)" for k, v in tot.items()))
            + ".</p>")
    loss_cols = [c for c in ("suppressions", "il1s", "eigen", "il_correl", "lambda", "gdu")
                 if c in cmp.columns]
    if loss_cols:
        t = cmp.set_index("scenario")[loss_cols]
        parts.append("<h3>Information-loss and utility measures</h3>" + _table(t))
        parts.append('<p class="muted">IL1s: mean scaled absolute difference (Yancey, Winkler & '
                     "Creecy 2002); eigen: relative eigenvalue difference of the standardised "
                     "numeric variables; γ: Młodak's correlation loss; λ: Młodak's complex "
                     "information loss over key and numeric variables. Lower is better, except for GDU (global "
                     "data utility model; 1 = full utility).</p>")
    return "".join(parts)


def _internal_section(sessions: list[Any], top: int = 20) -> str:
    parts = ["<h2 id='internal'>Riskiest key combinations (internal only)</h2>",
             '<p><span class="badge internal">INTERNAL</span> Key values of the records with the '
             "highest individual risk at the HEAD of each scenario. Do not release.</p>"]
    for s in sessions:
        st = s.state
        keys = [k for k in st.roles.keys if k in st.data.columns]
        if not keys:
            continue
        risk = st.measure("individual_risk")
        freq = st.measure("frequencies")
        tab = st.data[keys].astype("object").where(st.data[keys].notna(), "(missing)").astype(str)
        tab = tab.assign(fk=freq["fk"].to_numpy(), Fk=freq["Fk"].to_numpy(dtype=float),
                         risk=risk.to_numpy(float))
        agg = (tab.groupby(keys, sort=False, dropna=False)
               .agg(records=("risk", "size"), fk=("fk", "first"), Fk=("Fk", "first"),
                    risk=("risk", "max"))
               .sort_values("risk", ascending=False).head(top).reset_index())
        parts.append(f"<h3>{esc(s.name)}</h3>" + _table(agg, index=False))
    return "".join(parts)


# --------------------------------------------------------------------------------- report
def report(*sessions: Any, path: str | Path | None = None, internal: bool = False,
           title: str | None = None, figures: bool = True) -> str:
    """A self-contained HTML report of one or more scenarios; written to ``path`` if given.

    Sections: data (sizes, roles, aggregates per variable), scenarios (steps with parameters,
    seeds and what each changed), disclosure risk before and after (global, households,
    k-anonymity for k = 2, 3, 5, l-diversity of sensitive variables, numeric risk), information
    loss (suppressions per key, IL1s, eigen, γ, λ), the comparison of the scenarios with the
    risk–utility frontier and R-U map, figures (suppressions, individual-risk distribution,
    numeric distributions before/after, risk along each scenario) and each scenario's recipe.
    Every measure is read through the states' caches (nothing already computed is recomputed).

    The public variant never prints a record-level value of the original data (see the module
    docstring); ``internal=True`` adds the riskiest key combinations. ``figures=False`` leaves
    the PNG figures out (faster, smaller). The HTML has no script and no external resource.

    Returns the HTML text. Arguments are checked before anything is computed: sessions
    (`ParameterError` for anything else), ``path`` (None or a file path whose directory exists:
    `ParameterError` / `DataFileError`), ``internal`` and ``figures`` (True or False), ``title``
    (a string or None).

    Example
    -------
    >>> import pandas as pd, sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxy")}), keys=["a"], seed=1)
    >>> "Risk–utility" in report(s, figures=False)
    True
    """
    from .._version import __version__
    from .compare import compare, frontier, pick_loss

    ss = _sessions(sessions)
    out_path = _check_args(path, internal, title, figures)
    for s in ss[1:]:
        if s.history[0] is not ss[0].history[0]:
            warnings.warn("report: the scenarios do not share one original; the data section "
                          "and the 'original' column describe the first one", stacklevel=2)
            break
    title = title or f"Disclosure control report: {', '.join(s.name for s in ss)}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cmp = compare(*ss, original=True)
    cmp_notes = [str(w.message) for w in caught]
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
           "</li><li><a href='#risk'>Disclosure risk</a></li><li><a href='#utility'>Information"
           " loss</a></li><li><a href='#compare'>Comparison</a></li>"
           + ("<li><a href='#figures'>Figures</a></li>" if figures else "")
           + "<li><a href='#recipes'>Recipes</a></li>"
           + ("<li><a href='#internal'>Riskiest combinations</a></li>" if internal else "")
           + "</ol></nav>"]
    out.append(_data_section(ss))
    out.append("<h2 id='scenarios'>Scenarios</h2>")
    for s in ss:
        out.append(f"<h3>{esc(s.name)}</h3><p class='muted'>session seed {esc(s.seed)} · "
                   f"HEAD {esc(s.head.label)} (depth {s.head.depth})</p>")
        out.append(_steps_section(s))
    out.append(_risk_section(ss))
    out.append(_utility_section(ss, cmp))
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
        from . import plotting as P

        sc = cmp[cmp.scenario != "original"]
        sc.attrs = cmp.attrs
        out.append(_figure(lambda: P.ru_map(sc, loss=loss), "Risk–utility map",
                           "Risk–utility map (Duncan, Keller-McNulty & Stokes 2001): filled "
                           "points are not dominated; the star is the original data, the cross "
                           "no release."))
    elif not figures:
        out.append('<p class="muted">Risk–utility map: figures were not requested.</p>')
    if figures:
        from . import plotting as P

        out.append("<h2 id='figures'>Figures</h2>")
        if ss[0].roles.keys:
            out.append(_figure(lambda: P.suppressions(*ss), "Suppressions per key variable",
                               "Values of key variables suppressed in each scenario."))
            out.append(_figure(lambda: P.risk_distribution(*ss), "Individual risk",
                               "Cumulative distribution of the individual risk, original and "
                               "each scenario."))
        root_data = ss[0].history[0].state.data
        for c in ss[0].history[0].state.roles.numeric:
            changed = [s for s in ss if c in s.data.columns
                       and not s.state.data[c].equals(root_data[c])]
            if not changed:
                out.append(f'<p class="muted">{esc(c)}: unchanged in every scenario.</p>')
                continue
            out.append(_figure(lambda c=c, ch=changed: P.distributions(*ch, column=c,
                                                                       kind="hist"),
                               f"Distribution of {c}",
                               f"Density histograms of {c}, original (grey) and the scenarios "
                               "that change it; the long right tail is cut at the 99.5th "
                               "percentile."))
        for s in ss:
            if s.head.depth > 0 and s.roles.keys:
                loss_s = loss if loss in ("lambda", "il1s", "suppressions") else None
                out.append(_figure(lambda s=s, ls=loss_s: P.risk_path(s, loss=ls),
                                   f"Risk along {s.name}",
                                   f"Expected re-identifications after each step of {s.name}."))
    out.append("<h2 id='recipes'>Recipes</h2><p class='muted'>Replay with "
               "<code>SdcSession.from_recipe(data, recipe)</code>; the fingerprint identifies the"
               " original file.</p>")
    for s in ss:
        rec = json.dumps(s.to_recipe(), indent=2, ensure_ascii=False)
        out.append(f"<h3>{esc(s.name)}</h3><pre>{esc(rec)}</pre>")
    if internal:
        out.append(_internal_section(ss))
    out.append("</body></html>")
    html = "\n".join(out)
    if out_path is not None:
        try:
            out_path.write_text(html, encoding="utf-8")
        except (OSError, ValueError) as e:
            raise DataFileError(f"{out_path}: cannot write the report: "
                                f"{getattr(e, 'strerror', None) or e}") from e
    return html
