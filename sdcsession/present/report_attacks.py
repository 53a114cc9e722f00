"""The report section "Risk and utility by attack and model": the attack-based risks (singling
out, linkability, inference with their confidence intervals, TCAP, DCR) and the model utility
already computed on each scenario's HEAD (``s.risk.attacks(...)``, ``s.utility.ml(...)``).
Nothing is computed for the report: these measures are slow and need choices (control set,
target), so the section lists what the user ran and is left out when nothing was.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..session.views.attack_view import cached_attacks
from .display import esc
from .report_sections import _table

__all__ = ["attack_section"]


def _rows(results: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("attack.singling_out", "attack.linkability", "attack.inference"):
        r = results.get(name)
        if r is not None:
            label = r.attack.replace("_", " ")
            out[f"{label} risk"] = r.risk
            out[f"{label} risk CI"] = f"{r.ci[0]:.3f}–{r.ci[1]:.3f}"
            out[f"{label}: attack / baseline / control rate"] = (
                f"{r.attack_rate:.3f} / {r.baseline_rate:.3f} / {r.control_rate:.3f}")
    t = results.get("attack.tcap")
    if t is not None:
        out[f"TCAP of {t.target} (baseline)"] = f"{t.tcap:.3f} ({t.baseline:.3f})"
    d = results.get("attack.dcr")
    if d is not None:
        out["release records copying an original (DCR 0)"] = d.exact_matches
        out["median DCR / NNDR"] = f"{d.dcr.median():.4f} / {d.nndr.median():.4f}"
    m = results.get("utility.ml")
    if m is not None:
        out[f"model utility ratio ({m.metric}, target {m.target})"] = m.ratio
    return out


def attack_section(sessions: list[Any]) -> str:
    """The section's HTML, or ``""`` when no scenario has an attack or model figure computed."""
    cols = {s.name: _rows(cached_attacks(s.state)) for s in sessions}
    cols = {k: v for k, v in cols.items() if v}
    if not cols:
        return ""
    df = pd.DataFrame(cols)
    df.index.name = "measure"
    df = df.astype("object").where(df.notna(), "–")
    return ("<h2 id='attacks'>Risk and utility by attack and model</h2>" + _table(df)
            + '<p class="muted">Attacks after Giomi et al. (2023): risk = (r<sub>attack</sub> − '
            "r<sub>control</sub>)/(1 − r<sub>control</sub>) with a Wilson-score interval (the "
            "attack rate when no control set was given); TCAP after Taub et al. (2018); DCR: "
            "Gower distance to the closest original record; model utility: score of a model "
            "trained on the release over the same model trained on the original, both tested "
            "on held-out original records. " + esc("Only the figures computed in the session "
                                                   "are shown.") + "</p>")
