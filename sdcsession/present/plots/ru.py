"""Risk against information loss: the R-U confidentiality map with the non-dominated frontier
(`ru_map`) and the risk along the steps of one scenario (`risk_path`).

matplotlib is imported lazily (by the Axes helpers); both functions are importable from
`sdcsession.present.plots.accessor`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import ParameterError
from ..compare import compare, pick_loss
from ..compare import frontier as _frontier
from ..steps import _is_session
from ._common import ORIGINAL_COLOR, PALETTE, _axes, _clean, _label, _thousands
from .labels import place_labels

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["ru_map", "risk_path", "ru_data", "path_data", "BOUNDED_BY_ONE"]

#: Loss / utility columns whose values lie in [0, 1] (their axis is always [0, 1]).
BOUNDED_BY_ONE = frozenset({"lambda", "il_correl", "gdu"})


def _untreated(df: pd.DataFrame) -> np.ndarray:
    """Rows that are the untreated original (depth 0, or named "original" without depth)."""
    if "depth" in df.columns:
        return pd.to_numeric(df["depth"], errors="coerce").to_numpy(float) == 0
    if "scenario" in df.columns:
        return (df["scenario"].astype(str) == "original").to_numpy(bool)
    return np.zeros(len(df), bool)


def _place_labels(ax: Axes, names: list[str], x: np.ndarray, y: np.ndarray,
                  fontsize: float = 8.5, fixed: Sequence[Any] = ()) -> list[Any]:
    """Label the points so that no two labels overlap (`sdcsession.present.plots.labels`)."""
    return place_labels(ax, names, x, y, fontsize=fontsize, fixed=fixed)


def ru_data(data: Any, *more: Any, risk: str = "expected_reidentifications",
            loss: str | None = None, frontier: bool = True, anchors: bool = True,
            threshold: float | None = None) -> dict[str, Any]:
    """The numbers `ru_map` draws (any drawing back end uses them): ``loss`` (the column
    chosen), ``x``/``y`` (loss and risk per scenario), ``names``, ``ok`` (both finite), ``on``
    (non-dominated), ``fx``/``fy`` (the frontier staircase, or None), ``r0`` (the original's
    risk, or None), ``xr`` (where "no release" is), ``bound`` (the loss maximum, or None) and
    the axis limits ``xlim``/``ylim`` (None: the back end's automatic limits). See `ru_map`.

    Missing values: scenarios with a missing risk or loss are not drawn (``ok`` is False).

    >>> t = pd.DataFrame({"scenario": ["a", "b"], "expected_reidentifications": [5.0, 2.0],
    ...                   "lambda": [0.1, 0.3]})
    >>> d = ru_data(t, anchors=False); d["names"], d["on"].tolist(), d["xr"]
    (['a', 'b'], [True, True], 1.0)
    """
    df = data if isinstance(data, pd.DataFrame) else compare(data, *more)
    if loss is None:
        loss = pick_loss(df)
    for c, what in ((risk, "risk"), (loss, "loss")):
        if c not in df.columns:
            raise ParameterError(f"{what}: column {c!r} not in the comparison {list(df.columns)}")
    if anchors and (df.attrs.get("original") or {}).get(risk) is not None:
        attrs_ = df.attrs
        df = df[~_untreated(df)]  # the original is the star anchor, not a second point
        df.attrs = attrs_
    x = pd.to_numeric(df[loss], errors="coerce").to_numpy(float)
    y = pd.to_numeric(df[risk], errors="coerce").to_numpy(float)
    names = df["scenario"].astype(str).tolist() if "scenario" in df else [str(i) for i in df.index]
    front = _frontier(df, risk=risk, loss=loss) if frontier else df.iloc[:0]
    on = np.isin(np.arange(len(df)), [df.index.get_loc(i) for i in front.index])
    ok = ~np.isnan(x) & ~np.isnan(y)
    fx = fy = None
    if frontier and len(front) > 1:
        fx = pd.to_numeric(front[loss]).to_numpy(float)
        fy = pd.to_numeric(front[risk]).to_numpy(float)
    orig = df.attrs.get("original") or {}
    xmax = float(np.nanmax(x)) if ok.any() else 1.0
    r0 = orig.get(risk) if anchors else None
    r0 = None if r0 is None or pd.isna(r0) else float(r0)
    bound = (df.attrs.get("loss_max") or {}).get(loss)
    if bound is None and loss in ("lambda", "il_correl"):
        bound = 1.0
    xr = float(bound) if bound is not None else max(xmax, 1e-12) * 1.25
    xlim = ylim = None
    if anchors:
        xlim = (min(0.0, np.nanmin(x) if ok.any() else 0.0) - 0.02 * max(xmax, xr, 1e-12),
                1.04 * max(xmax, xr, 1e-12))
        ytop = max(float(np.nanmax(y)) if ok.any() else 1.0, r0 or 0.0, threshold or 0.0,
                   1e-12)
        ylim = (-0.04 * ytop, 1.08 * ytop)
    elif ok.any():  # zoom on the scenarios
        yv = y[ok] if threshold is None else np.append(y[ok], threshold)
        lims = []
        for v in (x[ok], yv):
            lo, hi = float(v.min()), float(v.max())
            pad = 0.08 * (hi - lo) if hi > lo else 0.1 * max(abs(hi), 1e-12)
            lims.append((lo - pad, hi + 1.5 * pad))
        xlim, ylim = lims
    return {"loss": loss, "x": x, "y": y, "names": names, "ok": ok, "on": on, "fx": fx,
            "fy": fy, "r0": r0, "xr": xr, "bound": bound, "xlim": xlim, "ylim": ylim}


def ru_map(data: Any, *more: Any, risk: str = "expected_reidentifications",
           loss: str | None = None, ax: Axes | None = None, labels: bool = True,
           frontier: bool = True, anchors: bool = True, threshold: float | None = None) -> Axes:
    """R-U confidentiality map: one point per scenario on (information loss, disclosure risk).

    Duncan, Keller-McNulty & Stokes (2001) plot disclosure risk R against data utility U; here
    the horizontal axis is an information-loss measure (utility decreasing to the right), so the
    literature's anchors become **original data** (no loss, the original risk) and **no release**
    (total loss, zero risk; at loss 1 for measures bounded by 1 — λ, γ —, at the number of key
    cells for suppressions, else at the right edge, marked with an arrow). The non-dominated
    scenarios (`sdcsession.present.compare.frontier`) are joined by the frontier staircase, the
    dominated ones are drawn hollow. ``threshold`` draws the maximum tolerable risk.
    ``anchors=False`` leaves the anchors out and zooms on the scenarios. With the anchors, a row of
    the table that is the untreated original (``compare(..., original=True)``) is the "original
    data" star, not a second labelled point. Labels never overlap each other, the points or the
    anchors' texts: each takes the first free place around its point
    (`sdcsession.present.plots.labels.place_labels`; a line joins a label placed away from it).

    ``data`` is the DataFrame of `sdcsession.present.compare.compare` or sessions/steps (compared
    with the default measures). ``loss=None`` picks λ, else IL1s, else suppressions.

    Example
    -------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> t = pd.DataFrame({"scenario": ["a", "b"], "expected_reidentifications": [5.0, 2.0],
    ...                   "lambda": [0.1, 0.3]})
    >>> ax = ru_map(t, anchors=False)
    >>> [x.get_text() for x in ax.texts]
    ['a', 'b']
    """
    d = ru_data(data, *more, risk=risk, loss=loss, frontier=frontier, anchors=anchors,
                threshold=threshold)
    loss, x, y, names, ok, on = d["loss"], d["x"], d["y"], d["names"], d["ok"], d["on"]
    r0, xr, bound = d["r0"], d["xr"], d["bound"]
    ax = _axes(ax, (6.4, 4.6))
    color = PALETTE[0]
    ax.scatter(x[ok & on], y[ok & on], s=46, color=color, zorder=3, label="non-dominated")
    if (ok & ~on).any():
        ax.scatter(x[ok & ~on], y[ok & ~on], s=46, facecolors="white", edgecolors=color,
                   linewidths=1.4, zorder=3, label="dominated")
    if d["fx"] is not None:
        ax.step(d["fx"], d["fy"], where="post", color=color, linewidth=1.2, alpha=0.8, zorder=2,
                label="frontier")
    if d["xlim"] is not None:  # axis limits first (label placement needs them)
        ax.set_xlim(*d["xlim"])
        ax.set_ylim(*d["ylim"])
    fixed = []
    if anchors:
        if r0 is not None:
            ax.scatter([0.0], [r0], marker="*", s=150, color=ORIGINAL_COLOR, zorder=4,
                       label="original data")
            fixed.append(ax.annotate("original data", (0.0, r0), xytext=(6, -12),
                                     textcoords="offset points", fontsize=8.5,
                                     color=ORIGINAL_COLOR))
        ax.scatter([xr], [0.0], marker="X", s=80, color=ORIGINAL_COLOR, zorder=4,
                   label="no release")
        txt = "no release" if bound is not None else "no release →"
        fixed.append(ax.annotate(txt, (xr, 0.0), xytext=(-8, 8), textcoords="offset points",
                                 ha="right", fontsize=8.5, color=ORIGINAL_COLOR))
    if threshold is not None:
        ax.axhline(threshold, color="#B22222", linestyle="--", linewidth=1,
                   label="maximum tolerable risk")
    ax.set_xlabel(f"information loss: {_label(loss)}  →")
    ax.set_ylabel(f"disclosure risk: {_label(risk)}  →")
    ax.set_title("Risk–utility map", loc="left", fontsize=11)
    ax.legend(fontsize=8, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.14),
              ncol=3)
    _thousands(ax.yaxis)
    _clean(ax, "both")
    if labels:  # last: the layout (legend, axis titles) decides where the labels fit
        _place_labels(ax, [names[i] for i in np.flatnonzero(ok)], x[ok], y[ok], fixed=fixed)
    return ax


# ------------------------------------------------------------------------------- risk path
def risk_path(scenario: Any, *, risk: str | Sequence[str] = "expected_reidentifications",
              loss: str | None = None, ax: Axes | None = None, risk_max: float | None = None,
              loss_max: float | None = None) -> Axes:
    """Risk after every step from the original to a scenario's HEAD (or a given step).

    One line per ``risk`` column of `sdcsession.present.compare.compare` on the left axis, and
    ``loss`` (optional) dashed on a right-hand axis. The steps are the x-axis, labelled with
    their short text.

    Both axes start at 0. The loss axis has one fixed scale, so that the figures of different
    scenarios can be read side by side: [0, 1] for the measures bounded by 1 (λ, γ, GDU), or
    [0, ``loss_max``] when given (the report passes the largest loss over all its scenarios);
    ``risk_max`` likewise fixes the top of the risk axis (default: 1.1 × the largest risk on the
    path).

    Example
    -------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxz")}), keys=["a"], seed=1)
    >>> ax = risk_path(s.recode("a", {"z": "y"}), risk="k3_violations")
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['original', '#1 recode']
    """
    d = path_data(scenario, risk=risk, loss=loss, risk_max=risk_max, loss_max=loss_max)
    risks, df, ticks = d["risks"], d["table"], d["ticks"]
    ax = _axes(ax, (max(5.5, 1.3 * len(ticks) + 2.5), 4.0))
    xs = np.arange(len(ticks))
    for j, r in enumerate(risks):
        ax.plot(xs, df[r].to_numpy(float), marker="o", color=PALETTE[j % len(PALETTE)],
                linewidth=1.6, label=_label(r))
    ax.set_ylabel(_label(risks[0]) if len(risks) == 1 else "risk")
    many = len(ticks) > 5
    ax.set_xticks(xs, ticks, rotation=30 if many else 0, ha="right" if many else "center",
                  fontsize=8)
    ax.set_ylim(0, d["risk_max"])
    _thousands(ax.yaxis)
    lines, names = ax.get_legend_handles_labels()
    if loss:
        ax2 = ax.twinx()
        ax2.plot(xs, df[loss].to_numpy(float), marker="s", linestyle="--", color="#555555",
                 linewidth=1.3, label=_label(loss))
        ax2.set_ylabel(_label(loss))
        ax2.set_ylim(0, d["loss_max"])
        ax2.spines["top"].set_visible(False)
        l2, n2 = ax2.get_legend_handles_labels()
        lines, names = lines + l2, names + n2
    ax.legend(lines, names, fontsize=8, frameon=False, loc="upper center",
              bbox_to_anchor=(0.5, -0.16 if many else -0.1), ncol=2)
    ax.set_title(d["title"],
                 loc="left", fontsize=11)
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.spines["top"].set_visible(False)
    if not loss:
        ax.spines["right"].set_visible(False)
    return ax



def path_data(scenario: Any, *, risk: str | Sequence[str] = "expected_reidentifications",
              loss: str | None = None, risk_max: float | None = None,
              loss_max: float | None = None) -> dict[str, Any]:
    """The numbers `risk_path` draws (any drawing back end uses them): ``risks`` (the risk
    columns), ``table`` (`sdcsession.present.compare.compare` of the steps), ``ticks`` (the
    steps' short labels), ``risk_max`` and ``loss_max`` (the tops of the axes, see
    `risk_path`; ``loss_max`` None without ``loss``) and ``title``.

    Missing values: a measure missing at a step leaves a gap in its line.

    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxz")}), keys=["a"], seed=1)
    >>> d = path_data(s.recode("a", {"z": "y"}), risk="k3_violations", risk_max=10)
    >>> d["ticks"], d["risk_max"], d["table"]["k3_violations"].tolist()
    (['original', '#1 recode'], 10.0, [4, 4])
    """
    step = scenario.head if _is_session(scenario) else scenario
    path = step.path()
    risks = [risk] if isinstance(risk, str) else list(risk)
    df = compare(path, measures=risks + ([loss] if loss else []))
    ticks = ["original" if st.treatment is None else st.label for st in path]
    for name, v in (("risk_max", risk_max), ("loss_max", loss_max)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float, np.number))
                              or not np.isfinite(v) or v <= 0):
            raise ParameterError(f"{name}: expected a positive number or None, got {v!r}")
    top = float(risk_max) if risk_max is not None else \
        1.1 * max(float(np.nanmax(df[risks].to_numpy(float))), 1e-12)
    ltop = None
    if loss:
        ltop = float(loss_max) if loss_max is not None else 1.0 if loss in BOUNDED_BY_ONE else \
            1.1 * max(float(np.nanmax(df[loss].to_numpy(float))), 1e-12)
    return {"risks": risks, "table": df, "ticks": ticks, "risk_max": top, "loss_max": ltop,
            "title": "Risk along scenario "
                     + (scenario.name if _is_session(scenario) else step.label)}
