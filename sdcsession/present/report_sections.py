"""The sections of the HTML report (data, steps, risk, release check, information loss, internal
riskiest combinations) and the table helpers they share; `sdcsession.present.report` assembles them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SdcError
from ..session.formatting import notes_text, value_text
from .display import esc

__all__: list[str] = []


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


def _notes_text(notes: dict[str, Any]) -> str:
    """What a step changed, as text (``suppressed: age 4, sex 1; total: 5``), never raw JSON."""
    return notes_text(notes or {}, width=400)


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
    for role in ("keys", "numeric", "weight", "household", "strata", "sensitive", "pram",
                 "identifiers"):
        v = getattr(roles, role)
        if v:
            rows.append((role + (" (never released)" if role == "identifiers" else ""),
                         ", ".join(v) if isinstance(v, tuple) else str(v)))
    for key, cols in roles.linked:
        rows.append((f"linked to {key}", ", ".join(cols)))
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


#: what the public report prints in place of a seed
WITHHELD = "withheld"


def withhold_seeds(recipe: dict[str, Any]) -> dict[str, Any]:
    """``recipe`` with the session seed and every step's seed replaced by ``"withheld"``: with
    the seeds, anyone holding the released file regenerates the release order (the original
    record order) and every random draw (noise, PRAM, swaps), so a public report leaves them
    out."""
    out = dict(recipe)
    if "seed" in out:
        out["seed"] = WITHHELD
    out["steps"] = [{**st, "seed": WITHHELD} if isinstance(st, dict) and "seed" in st else st
                    for st in out.get("steps", [])]
    return out


def _steps_section(s: Any, internal: bool = True) -> str:
    rows = []
    for st in s.history:
        t = st.treatment
        if t is None:
            continue
        params = "; ".join(f"{k}={value_text(v, items=12)}" for k, v in t.params().items())
        rows.append({"step": f"#{st.id}", "treatment": t.type, "parameters": params,
                     "seed": (str(st.seed) if internal else WITHHELD) if t.random else "–",
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


def _release_section(sessions: list[Any]) -> str:
    """The release check of each scenario's HEAD (what still blocks a release)."""
    parts = ["<h2 id='release'>Release check</h2>"]
    for s in sessions:
        found = s.release_check()
        if not len(found):
            parts.append(f"<p><b>{esc(s.name)}</b>: no findings.</p>")
            continue
        shown = found.assign(variables=found["variables"].map(", ".join))
        parts.append(f"<h3>{esc(s.name)}</h3>" + _table(shown, index=False))
    return "".join(parts)


def _utility_section(sessions: list[Any], cmp: pd.DataFrame) -> str:
    parts = ["<h2 id='utility'>Information loss</h2>"]
    sup = {s.name: s.state.measure("suppressions_by_key") for s in sessions}
    sup_df = pd.DataFrame(sup)
    if len(sup_df):
        sup_df.index.name = "key variable"
        parts.append("<h3>Suppressions per key variable</h3>" + _table(sup_df.astype("int64")))
        tot = sup_df.sum(axis=0)
        recs = {s.name: suppressed_records(s.state) for s in sessions}
        parts.append('<p class="muted">Total: ' + esc("; ".join(
            f"{k}: {int(v):,} values in {recs[k][0]:,} records "
            f"({100 * recs[k][0] / max(recs[k][1], 1):.2f} % of records)"
            for k, v in tot.items())) + ".</p>")
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


def suppressed_records(state: Any) -> tuple[int, int]:
    """(records with at least one suppressed key value, records): a key value is suppressed when
    it is present in the original and missing in the state (records paired as in the utility
    measures). The share of records is the first over the second, at most 1."""
    from ..utility._align import paired

    o = state.original
    keys = [c for c in state.original_roles.keys if c in o.columns and c in state.data.columns]
    n = len(o)
    if not keys or not n:
        return 0, n
    d = paired(o, state.data, "suppressions")
    hit = o[keys].notna().to_numpy() & d[keys].isna().to_numpy()
    return int(np.count_nonzero(hit.any(axis=1))), n


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
