"""``s.risk.explain(name)`` and ``s.utility.explain(name)``: a figure, its formula and its value.

The text comes from the registry `sdcsession.session.views.figures.FIGURES` (which the docs page
*What every figure means* renders too); this module adds the current value of the figure on a
state and the quantities that produce it. `explain_figure` is the one function a front end (the
workbench's "?" beside a figure) calls; `figure_names` lists what can be explained.

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["sex"], seed=1)
>>> e = s.risk.explain("k3_violations")
>>> e.value, e.quantities["k"]
(0.0, 3)
"""

from __future__ import annotations

import re
from typing import Any

import attrs
import numpy as np

from ...errors import ParameterError
from .figures import FIGURES, Figure, base_name

__all__ = ["Explanation", "explain_figure", "figure_names"]


@attrs.frozen
class Explanation:
    """A figure explained: the registry text, the current value and its quantities."""

    name: str
    figure: Figure
    value: Any = None
    quantities: dict[str, Any] = attrs.field(factory=dict)
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain values (for a front end or JSON)."""
        return {"name": self.name, "title": self.figure.title, "formula": self.figure.formula,
                "source": self.figure.source, "assumptions": self.figure.assumptions,
                "up": self.figure.up, "down": self.figure.down,
                "direction": self.figure.direction, "value": self.value,
                "quantities": dict(self.quantities), "note": self.note}

    def to_text(self) -> str:
        f = self.figure
        lines = [f"{self.name}: {f.title}", f"  formula: {f.formula}", f"  source: {f.source}",
                 f"  assumptions: {f.assumptions}"]
        lines.append(f"  value: {_fmt(self.value)}" if self.value is not None
                     else f"  value: not computed ({self.note})")
        lines += [f"    {k} = {_fmt(v)}" for k, v in self.quantities.items()]
        lines += [f"  moves it up: {f.up}", f"  moves it down: {f.down}",
                  f"  direction: {f.direction}"]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        f = self.figure
        out = [f"**{f.title}** (`{self.name}`)", "", f"$${f.formula}$$", "",
               f"- *Source:* {f.source}", f"- *Assumptions:* {f.assumptions}"]
        if self.value is not None:
            q = ", ".join(f"{k} = {_fmt(v)}" for k, v in self.quantities.items())
            out.append(f"- *Value:* {_fmt(self.value)}" + (f" ({q})" if q else ""))
        else:
            out.append(f"- *Value:* not computed ({self.note})")
        out += [f"- *Up:* {f.up}", f"- *Down:* {f.down}"]
        return "\n".join(out)

    def __str__(self) -> str:
        return self.to_text()

    __repr__ = __str__

    def _repr_markdown_(self) -> str:
        return self.to_markdown()


def _fmt(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_fmt(x)}" for k, x in v.items())
    return str(v)


def figure_names(view: Any) -> list[str]:
    """The names ``explain`` accepts for a risk or utility view: those of its ``to_frame()``."""
    frame = view.to_frame()
    if "measure" in frame.columns:
        return list(dict.fromkeys(frame["measure"]))
    return list(frame.index)


def explain_figure(view: Any, name: str) -> Explanation:
    """Explain figure ``name`` of a risk view (``s.risk``) or utility view (``s.utility``).

    ``name`` is a row of ``view.to_frame()`` (``"global_risk"``, ``"k3_violations"``,
    ``"model_risk[default].gr1"``, ``"il1s"``, ``"suppressions"``...) or its registry name.
    Missing values: the figure's own rule (in its assumptions).

    Raises
    ------
    ParameterError
        A name that is not a figure of the registry.
    """
    if not isinstance(name, str):
        raise ParameterError(f"name: expected the name of a figure, got {name!r}")
    key = base_name(name)
    figure = FIGURES.get(key)
    if figure is None:
        known = ", ".join(sorted(FIGURES))
        raise ParameterError(f"name: {name!r} is not a figure; known figures: {known}")
    frame = view.to_frame()
    if "measure" in frame.columns:  # utility: one row per variable
        rows = frame[frame["measure"] == name]
        if rows.empty:
            return Explanation(name, figure, note="not applicable to the roles of this session")
        per = {("all" if v is None or v != v else str(v)): float(x)
               for v, x in zip(rows["variable"], rows["value"])}
        if list(per) == ["all"]:  # one figure for all variables
            return Explanation(name, figure, per["all"], _utility_quantities(view, key, {}))
        # per variable: the value is the total (a count) or the largest (a loss)
        value = sum(per.values()) if key in ("suppressions", "records_changed") \
            else max(per.values())
        return Explanation(name, figure, value, _utility_quantities(view, key, per))
    matches = [m for m in frame.index if m == name or base_name(m) == key
               and (key != "k_violations" or m == name)]
    if not matches and key == "k_violations" and re.fullmatch(r"k\d+_violations", name):
        k = int(name[1:-len("_violations")])  # any k, not only the k = 2, 3, 5 of to_frame()
        return Explanation(name, figure, float(view.k_violations(k)),
                           _risk_quantities(view, name, key))
    if not matches:
        return Explanation(name, figure, note=_how_to_compute(key))
    value = float(frame.loc[matches[0], "value"])
    return Explanation(matches[0], figure, value, _risk_quantities(view, name, key))


def _how_to_compute(key: str) -> str:
    head = key.split(".")[0]
    call = {"model_risk": "s.risk.model()", "population_uniques": "s.risk.population_uniques()",
            "rmd_risk": "s.risk.rmd()", "record_linkage": "s.risk.record_linkage()",
            "suda2": "s.risk.suda2()", "l_diversity": "s.risk.l_diversity"}.get(head)
    if call:
        return f"run {call} on this state first"
    return "not applicable to the roles of this session"


def _risk_quantities(view: Any, name: str, key: str) -> dict[str, Any]:
    state = view._state
    n = int(state.n)
    if key in ("global_risk", "expected_reidentifications"):
        r = view.individual
        return {"n": n, "sum of r_i": float(np.nansum(r)), "max r_i": float(np.nanmax(r)),
                "alpha": view.alpha, "keys": list(state.roles.keys)}
    if key == "k_violations":
        k = int(re.fullmatch(r"k(\d+)_violations", name)[1])  # type: ignore[index]
        fk = view.fk.to_numpy()
        keys = list(state.roles.keys)
        small = state.data.loc[fk < k, keys]
        return {"k": k, "n": n, "records with f_k < k": int((fk < k).sum()),
                "key combinations with f_k < k": int(len(small.drop_duplicates())),
                "keys": keys}
    if key == "household_expected_reidentifications":
        hh = state.roles.household
        return {"households": int(state.data[hh].nunique()) if hh else 0, "n": n}
    if key == "n_records":
        return {"keys": list(state.roles.keys)}
    if key.startswith("numeric."):
        return {"numeric variables": list(state.roles.numeric)}
    if key.split(".")[0] in ("prosecutor", "journalist") or key == "marketer":
        return {"n": n, "threshold τ": 0.2, "keys": list(state.roles.keys)}
    return {"n": n}


def _utility_quantities(view: Any, key: str, per: dict[str, float]) -> dict[str, Any]:
    state = view._state
    q: dict[str, Any] = {"n": int(state.n)}
    if per:
        q["per variable"] = per
    if key in ("il1s", "eigen", "il_correl", "correlation_discrepancy"):
        q["numeric variables"] = list(state.roles.numeric)
    return q
