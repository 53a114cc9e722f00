"""The report's five figures as inline SVG (`svg_ru_map`, `svg_suppressions`,
`svg_risk_distribution`, `svg_distribution`, `svg_risk_path`), drawn on `svg.Canvas` without
matplotlib from the same numbers as the matplotlib plots (`ru_data`, `suppression_data`,
`risk_data`, `distribution_data`, `path_data`).

Each function returns the ``<svg>`` text (``role="img"``, ``alt`` as its title); the same
input gives the same text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._common import ORIGINAL_COLOR, PALETTE, _colors, _label
from .data import distribution_data
from .labels import _PAD, place_boxes
from .risk import ecdf, risk_data, suppression_data
from .ru import path_data, ru_data
from .svg import Canvas, log_ticks, nice_ticks, text_width, tick_label

__all__ = ["svg_ru_map", "svg_suppressions", "svg_risk_distribution", "svg_distribution",
           "svg_risk_path"]

_LABEL_SIZE = 11.0  # px, the scenario labels of the R-U map


def _yaxis(lo: float, hi: float, n: int = 5) -> tuple[list[float], list[str], float]:
    """Ticks, labels and the width of the widest label of a linear axis [lo, hi]."""
    t = nice_ticks(lo, hi, n)
    step = t[1] - t[0] if len(t) > 1 else 1.0
    labs = [tick_label(v, step) for v in t]
    shown = [lab for v, lab in zip(t, labs) if lo - 1e-9 * (hi - lo) <= v <= hi + 1e-9 * (hi - lo)]
    return t, labs, max((text_width(lab, 11) for lab in shown), default=10.0)


def svg_ru_map(df: pd.DataFrame, loss: str | None, alt: str,
               risk: str = "expected_reidentifications") -> str:
    """The R-U map of `sdcsession.present.plots.ru.ru_map` (anchors, frontier, labels) as SVG.

    Labels are placed with the same greedy algorithm (`labels.place_boxes`) on estimated text
    widths. Missing values: scenarios with a missing risk or loss are not drawn.

    >>> t = pd.DataFrame({"scenario": ["a", "b"], "expected_reidentifications": [5.0, 2.0],
    ...                   "lambda": [0.1, 0.3]})
    >>> out = svg_ru_map(t, "lambda", "map"); out.startswith("<svg") and ">a</text>" in out
    True
    """
    d = ru_data(df, risk=risk, loss=loss)
    loss, x, y, ok, on = d["loss"], d["x"], d["y"], d["ok"], d["on"]
    xlim, ylim = d["xlim"], d["ylim"]
    yt, ylab, yw = _yaxis(*ylim)
    w, h = 640.0, 470.0
    c = Canvas(w, h, left=34 + yw, right=16, top=32, bottom=92)
    c.set_x(*xlim)
    c.set_y(*ylim)
    xt = nice_ticks(*xlim)
    xstep = xt[1] - xt[0] if len(xt) > 1 else 1.0
    c.yticks(yt, ylab)
    c.xticks(xt, [tick_label(v, xstep) for v in xt], grid=True)
    c.frame()
    color = PALETTE[0]
    if d["fx"] is not None:
        c.line(d["fx"], d["fy"], color, 1.2, step=True)
    pts: list[tuple[float, float, float]] = []  # pixel centre and radius of every marker
    for i in np.flatnonzero(ok):
        px, py = c.x(x[i]), c.y(y[i])
        c.marker(px, py, "circle", color, 4.5, bool(on[i]))
        pts.append((px, py, 5.2))
    fixed: list[tuple[float, float, float, float]] = []  # y-up boxes of the anchors' texts

    def note(px: float, py: float, s: str, anchor: str) -> None:
        c.text(px, py, s, _LABEL_SIZE, anchor, ORIGINAL_COLOR)
        tw = text_width(s, _LABEL_SIZE)
        x0 = px - tw if anchor == "end" else px
        fixed.append((x0 - _PAD, h - py - 3 - _PAD, x0 + tw + _PAD, h - py + 10 + _PAD))

    legend = [("non-dominated", "circle", color)]
    if (ok & ~on).any():
        legend.append(("dominated", "hollow", color))
    if d["fx"] is not None:
        legend.append(("frontier", "line", color))
    if d["r0"] is not None:
        px, py = c.x(0.0), c.y(d["r0"])
        c.marker(px, py, "star", ORIGINAL_COLOR, 8.0)
        pts.append((px, py, 8.0))
        note(px + 8, py + 16, "original data", "start")
        legend.append(("original data", "star", ORIGINAL_COLOR))
    px, py = c.x(d["xr"]), c.y(0.0)
    c.marker(px, py, "cross", ORIGINAL_COLOR, 6.0)
    pts.append((px, py, 6.0))
    note(px - 10, py - 10, "no release" if d["bound"] is not None else "no release →", "end")
    legend.append(("no release", "cross", ORIGINAL_COLOR))
    c.labels("Risk–utility map", f"information loss: {_label(loss)}  →",
             f"disclosure risk: {_label(risk)}  →")
    c.legend(legend, (c.x0 + c.x1) / 2, c.y0 + 48, ncol=3, anchor="middle")
    names = [d["names"][i] for i in np.flatnonzero(ok)]
    if names:  # y-up geometry for the placement, as in place_labels
        up = np.array([(px, h - py) for px, py, _ in pts[:len(names)]])
        markers = np.array([(px - r, h - py - r, px + r, h - py + r) for px, py, r in pts])
        sizes = [(text_width(n, _LABEL_SIZE) + 1, _LABEL_SIZE * 1.2) for n in names]
        boxes, leads = place_boxes(up, sizes, (c.x0, h - c.y0, c.x1, h - c.y1),
                                   np.array(fixed).reshape(-1, 4), markers, 5.2)
        for name, box, lead in zip(names, boxes, leads):
            if lead is not None:
                c.add(f'<line x1="{lead[0]:.1f}" y1="{h - lead[1]:.1f}" x2="{lead[2]:.1f}" '
                      f'y2="{h - lead[3]:.1f}" stroke="#888888" stroke-width="0.7"/>')
            c.text(box[0] + _PAD, h - box[1] - _PAD - 3.5, name, _LABEL_SIZE)
    return c.svg(alt)


def svg_suppressions(sessions: Sequence[Any], alt: str) -> str:
    """The grouped bars of `sdcsession.present.plots.risk.suppressions` as SVG.

    Missing values: a suppression is a key value present in the original and missing after.

    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxy")}), keys=["a"], seed=1)
    >>> ">a</text>" in svg_suppressions([s], "bars")
    True
    """
    keys, series = suppression_data(*sessions)
    nser = len(series)
    w = 100 * min(9.0, max(5.0, 0.55 * len(keys) * max(1, nser) ** 0.5 + 2.5))
    top = max((float(v.max()) for _, v in series if v.size), default=0.0)
    ymax = top * 1.15 if top > 0 else 1.0
    yt, ylab, yw = _yaxis(0, ymax)
    rotate = sum(text_width(k, 11) + 12 for k in keys) > w - yw - 60
    tall = max((text_width(k, 10.5) for k in keys), default=0) * 0.5 if rotate else 0
    legend_h = 16 * ((nser + 2) // 3) if nser > 1 else 0
    c = Canvas(w, 400 + tall + legend_h, left=34 + yw, top=32, bottom=50 + tall + legend_h)
    c.set_x(-0.5, len(keys) - 0.5)
    c.set_y(0, ymax)
    c.yticks(yt, ylab)
    c.xticks(list(range(len(keys))), keys, rotate=rotate)
    width = 0.8 / max(nser, 1)
    colors = _colors(nser, False)
    for j, ((_, v), col) in enumerate(zip(series, colors)):
        for i, val in enumerate(v):
            xc = i + (j - (nser - 1) / 2) * width
            c.bar(xc, width * 0.95, val, col)
            if val:
                c.text(c.x(xc), c.y(val) - 3, f"{int(val):,}", 9, "middle", "#333333")
    c.frame()
    c.labels("Suppressions per key variable", "", "suppressed values")
    if nser > 1:
        c.legend([(name, "bar", col) for (name, _), col in zip(series, colors)],
                 (c.x0 + c.x1) / 2, c.y0 + 30 + tall, ncol=3, anchor="middle")
    return c.svg(alt)


def svg_risk_distribution(sessions: Sequence[Any], alt: str) -> str:
    """The ECDF of the individual risk of `sdcsession.present.plots.risk.risk_distribution`
    (original first, log risk axis) as SVG.

    Missing values: left out of each distribution.

    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxyx")}), keys=["a"], seed=1)
    >>> "individual risk r (log scale)" in svg_risk_distribution([s], "ecdf")
    True
    """
    names, data, lo, has = risk_data(*sessions)
    yt, ylab, yw = _yaxis(0, 1.02)
    ncol = 4
    legend_h = 16 * ((len(names) + ncol - 1) // ncol)
    c = Canvas(640, 420 + legend_h, left=34 + yw, top=32, bottom=66 + legend_h)
    c.set_x(lo / 1.3, 1.3, log=True)
    c.set_y(0, 1.02)
    c.yticks(yt, ylab)
    xt = log_ticks(lo / 1.3, 1.3)
    c.xticks(xt, [tick_label(v) for v in xt], grid=True)
    c.frame()
    colors = _colors(len(names), has)
    for name, r, col in zip(names, data, colors):
        if not r.size:
            continue
        xs, ys = ecdf(r, lo)
        c.line(xs, ys, col, 2.0 if name == "original" and has else 1.4, step=True)
    c.labels("Individual risk", "individual risk r (log scale)",
             "share of records with risk ≤ r")
    c.legend([(n, "line", col) for n, col in zip(names, colors)], (c.x0 + c.x1) / 2,
             c.y0 + 48, ncol=ncol, anchor="middle")
    return c.svg(alt)


def svg_distribution(sessions: Sequence[Any], column: str, alt: str, bins: int = 40) -> str:
    """The density histograms of `sdcsession.present.plots.data.distributions` (``kind="hist"``,
    original filled grey, the tail cut at the 99.5th percentile) as SVG.

    Missing values: left out of every dataset.

    >>> import sdcsession as sdc
    >>> df = pd.DataFrame({"a": list("xyxy"), "x": [1.0, 2.0, 3.0, 4.0]})
    >>> s = sdc.SdcSession(df, keys=["a"], numeric=["x"], seed=1)
    >>> "Distribution of x" in svg_distribution([s], "x", "hist")
    True
    """
    frames, vals, lo, hi, cut, has = distribution_data(*sessions, column=column)
    edges = np.linspace(lo, hi, bins + 1)
    dens = [np.histogram(v, bins=edges, density=True)[0] if v.size else np.zeros(bins)
            for v in vals]
    top = max((float(np.nanmax(dv)) for dv in dens if dv.size), default=1.0)
    top = top * 1.05 if np.isfinite(top) and top > 0 else 1.0
    yt, ylab, yw = _yaxis(0, top)
    names = [n for n, _ in frames]
    ncol = 4
    legend_h = 16 * ((len(names) + ncol - 1) // ncol)
    c = Canvas(640, 420 + legend_h, left=34 + yw, top=32, bottom=66 + legend_h)
    c.set_x(lo, hi)
    c.set_y(0, top)
    c.yticks(yt, ylab)
    xt = nice_ticks(lo, hi)
    xstep = xt[1] - xt[0] if len(xt) > 1 else 1.0
    c.xticks(xt, [tick_label(v, xstep) for v in xt])
    colors = _colors(len(frames), has)
    legend = []
    for j, (name, dv, col) in enumerate(zip(names, dens, colors)):
        xs, ys = np.repeat(edges, 2), np.r_[0.0, np.repeat(dv, 2), 0.0]  # the bars' outline
        if j == 0 and has:
            c.line(xs, ys, ORIGINAL_COLOR, 0.8, fill="#d0d0d0")
            legend.append((name, "fill", ORIGINAL_COLOR))
        else:
            c.line(xs, ys, col, 1.5)
            legend.append((name, "line", col))
    c.frame()
    if cut:
        c.text(c.x1, c.y0 + 32, "axis cut at the 99.5th percentile", 9.5, "end", "#666666")
    c.labels(f"Distribution of {column}", column, "density", xlabel_dy=32)
    c.legend(legend, (c.x0 + c.x1) / 2, c.y0 + 48, ncol=ncol, anchor="middle")
    return c.svg(alt)


def svg_risk_path(session: Any, loss: str | None, risk_max: float | None,
                  loss_max: float | None, alt: str) -> str:
    """The risk along a scenario's steps of `sdcsession.present.plots.ru.risk_path` (risk on
    the left axis, ``loss`` dashed on the right one, the given axis tops) as SVG.

    Missing values: a measure missing at a step leaves a gap in its line.

    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxz")}), keys=["a"], seed=1)
    >>> "#1 recode" in svg_risk_path(s.recode("a", {"z": "y"}), None, None, None, "path")
    True
    """
    d = path_data(session, loss=loss, risk_max=risk_max, loss_max=loss_max)
    risks, df, ticks = d["risks"], d["table"], d["ticks"]
    n = len(ticks)
    many = n > 5
    yt, ylab, yw = _yaxis(0, d["risk_max"])
    right = 16.0
    if loss:
        y2t, y2lab, y2w = _yaxis(0, d["loss_max"])
        right = 34 + y2w
    tall = max(text_width(t, 10.5) for t in ticks) * 0.5 if many else 0
    w = 100 * max(5.5, 1.3 * n + 2.5)
    c = Canvas(w, 400 + tall, left=34 + yw, right=right, top=32, bottom=72 + tall)
    c.set_x(-0.35, n - 1 + 0.35)
    c.set_y(0, d["risk_max"])
    c.yticks(yt, ylab)
    if loss:
        c.set_y2(0, d["loss_max"])
        c.yticks(y2t, y2lab, grid=False, right=True)
    c.xticks(list(range(n)), ticks, rotate=many)
    c.frame(right=bool(loss))
    xs = np.arange(n, dtype=float)
    legend = []
    for j, r in enumerate(risks):
        col = PALETTE[j % len(PALETTE)]
        v = df[r].to_numpy(float)
        c.line(xs, v, col, 1.6)
        for xv, yv in zip(xs, v):
            if np.isfinite(yv):
                c.marker(c.x(xv), c.y(min(yv, d["risk_max"])), "circle", col, 3.6)
        legend.append((_label(r), "line", col))
    if loss:
        v = df[loss].to_numpy(float)
        c.line(xs, v, "#555555", 1.3, dash="5 3", right=True)
        for xv, yv in zip(xs, v):
            if np.isfinite(yv):
                c.marker(c.x(xv), c.y2(min(yv, d["loss_max"])), "square", "#555555", 3.2)
        legend.append((_label(loss), "dash", "#555555"))
    c.labels(d["title"], "", _label(risks[0]) if len(risks) == 1 else "risk",
             _label(loss) if loss else "")
    c.legend(legend, (c.x0 + c.x1) / 2, c.y0 + 30 + tall, ncol=2, anchor="middle")
    return c.svg(alt)
