"""A small SVG drawing canvas for the report's figures: axes frame, "nice" ticks, lines, steps,
bars, markers, text and legends, written as inline SVG text without matplotlib.

Everything is deterministic (the same figure gives the same text: coordinates rounded to 0.1 px,
no random id, no time stamp) and every text is escaped for XML (names come from users' files).
The SVG has no script, no external reference and no ``id`` (several figures share one page).
Text widths are estimated from the characters (`text_width`), not measured, so layouts keep a
small safety margin.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["Canvas", "nice_ticks", "log_ticks", "tick_label", "text_width", "xml_text"]

FONT = "system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif"
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_text(s: Any) -> str:
    """``s`` as text safe inside an XML element or a double- or single-quoted attribute:
    ``& < > " '`` escaped, characters XML 1.0 forbids (controls) replaced by U+FFFD.

    Missing values: None becomes "None" (callers pass strings).

    >>> xml_text('<script>"a" & \\'b\\'')
    '&lt;script&gt;&quot;a&quot; &amp; &#x27;b&#x27;'
    """
    return html.escape(_CONTROL.sub("\ufffd", str(s)), quote=True)


def text_width(s: str, size: float) -> float:
    """Estimated width (px) of ``s`` in a sans-serif font of ``size`` px: per-character widths
    of a typical sans-serif font (narrow i, l, punctuation; wide m, w and capitals).

    Missing values: not applicable (a string).

    >>> text_width("ill", 10) < text_width("mmm", 10)
    True
    """
    w = 0.0
    for ch in s:
        if ch in "ijlI.,:;|!'`":
            w += 0.28
        elif ch in " ()[]{}/-ftr":
            w += 0.36
        elif ch in "mwMW@%":
            w += 0.86
        elif ch.isupper():
            w += 0.68
        elif ch.isdigit():
            w += 0.56
        elif ord(ch) < 128:
            w += 0.53
        else:
            w += 0.62
    return w * size


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """Tick values covering [lo, hi] in steps of 1, 2 or 5 × 10^k, about ``n`` intervals.

    Algorithm: step = the smallest of 1, 2, 5, 10 × 10^floor(log10(r)) at least 0.75·r, where
    r = (hi − lo)/n; ticks from floor(lo/step)·step to ceil(hi/step)·step (Heckbert 1990, "Nice
    numbers for graph labels", Graphics Gems). Values rounded to 12 significant digits. An
    empty range [v, v] is widened to v ± 1 (or ± |v|/10).

    Missing values: lo and hi must be finite.

    >>> nice_ticks(0, 97), nice_ticks(0.013, 0.051)
    ([0.0, 20.0, 40.0, 60.0, 80.0, 100.0], [0.01, 0.02, 0.03, 0.04, 0.05, 0.06])
    """
    lo, hi = float(lo), float(hi)
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        d = abs(lo) / 10 if lo else 1.0
        lo, hi = lo - d, hi + d
    raw = (hi - lo) / max(int(n), 1)
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= 0.75 * raw * (1 - 1e-12))
    k0, k1 = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [float(f"{k * step:.12g}") for k in range(k0, k1 + 1)]


def log_ticks(lo: float, hi: float) -> list[float]:
    """The powers of ten covering [lo, hi] (0 < lo ≤ hi), for a log axis.

    Missing values: lo and hi must be finite and positive.

    >>> log_ticks(0.004, 1.0)
    [0.001, 0.01, 0.1, 1.0]
    """
    k0, k1 = math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9)
    return [float(f"{10.0 ** k:.12g}") for k in range(k0, max(k1, k0 + 1) + 1)]


def tick_label(v: float, step: float | None = None) -> str:
    """A tick label: thousands separators, no more decimals than the step needs, "0" for 0.

    Missing values: not applicable (tick values are finite).

    >>> [tick_label(v, 0.5) for v in (0.0, 1.5, 12000.0)], tick_label(0.001)
    (['0', '1.5', '12,000'], '0.001')
    """
    if v == 0:
        return "0"
    if step is None:
        return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:g}"
    d = max(0, -math.floor(math.log10(abs(step)) + 1e-9))
    if abs(v) >= 1000 or float(v).is_integer() and d == 0:
        return f"{v:,.0f}"
    return f"{v:,.{d}f}" if d <= 6 else f"{v:.3g}"


def _f(v: float) -> str:
    """A coordinate with one decimal (deterministic, short)."""
    s = f"{v:.1f}"
    return "0.0" if s == "-0.0" else s


class _Scale:
    """Data to pixels on one axis (linear or log10)."""

    def __init__(self, lo: float, hi: float, p0: float, p1: float, log: bool = False) -> None:
        self.log = log
        self.lo, self.hi = (math.log10(lo), math.log10(hi)) if log else (float(lo), float(hi))
        if self.hi == self.lo:
            self.hi = self.lo + 1.0
        self.p0, self.p1 = p0, p1

    def __call__(self, v: float) -> float:
        t = math.log10(v) if self.log else float(v)
        return self.p0 + (t - self.lo) / (self.hi - self.lo) * (self.p1 - self.p0)

    def inside(self, v: float) -> bool:
        t = math.log10(v) if self.log else v
        eps = 1e-9 * (self.hi - self.lo)
        return self.lo - eps <= t <= self.hi + eps


class Canvas:
    """An SVG figure of ``width`` × ``height`` px whose plot area leaves the given margins.

    Set the scales (`set_x`, `set_y`, optionally `set_y2` for a right axis), draw, then `svg`
    gives the text. ``Y`` values grow upwards as in a chart.

    Missing values: a NaN in a line's values breaks the line there; NaN points are skipped.

    >>> c = Canvas(200, 100, left=30, bottom=20, top=10, right=10)
    >>> c.set_x(0, 1); c.set_y(0, 10); c.line([0, 1], [0, 10], "#000")
    >>> c.svg("a <b>").count("<title>a &lt;b&gt;</title>")
    1
    """

    def __init__(self, width: float, height: float, *, left: float = 60, right: float = 16,
                 top: float = 30, bottom: float = 48) -> None:
        self.w, self.h = float(width), float(height)
        self.x0, self.x1, self.y0, self.y1 = left, width - right, height - bottom, top
        self.parts: list[str] = []
        self.x = self.y = self.y2 = None  # type: Any

    # ------------------------------------------------------------------ scales and frame
    def set_x(self, lo: float, hi: float, log: bool = False) -> None:
        """The x axis shows [lo, hi] (``log``: a log10 scale, lo > 0)."""
        self.x = _Scale(lo, hi, self.x0, self.x1, log)

    def set_y(self, lo: float, hi: float) -> None:
        """The left y axis shows [lo, hi] (linear)."""
        self.y = _Scale(lo, hi, self.y0, self.y1)

    def set_y2(self, lo: float, hi: float) -> None:
        """A right y axis showing [lo, hi] (linear), for lines drawn with ``right=True``."""
        self.y2 = _Scale(lo, hi, self.y0, self.y1)

    def add(self, element: str) -> None:
        """Append raw SVG markup (the caller escapes any text in it)."""
        self.parts.append(element)

    def text(self, x: float, y: float, s: str, size: float = 11, anchor: str = "start",
             color: str = "#222222", rotate: float | None = None, weight: str = "") -> None:
        """Text at pixel (x, y) (its baseline), escaped."""
        rot = f' transform="rotate({_f(rotate)} {_f(x)} {_f(y)})"' if rotate else ""
        wt = f' font-weight="{weight}"' if weight else ""
        self.parts.append(f'<text x="{_f(x)}" y="{_f(y)}" font-size="{_f(size)}" '
                          f'text-anchor="{anchor}" fill="{color}"{wt}{rot}>{xml_text(s)}</text>')

    def _hline(self, y: float, color: str, width: float = 1.0, dash: str = "") -> None:
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<line x1="{_f(self.x0)}" y1="{_f(y)}" x2="{_f(self.x1)}" '
                          f'y2="{_f(y)}" stroke="{color}" stroke-width="{width}"{d}/>')

    def _vline(self, x: float, color: str, width: float = 1.0) -> None:
        self.parts.append(f'<line x1="{_f(x)}" y1="{_f(self.y0)}" x2="{_f(x)}" '
                          f'y2="{_f(self.y1)}" stroke="{color}" stroke-width="{width}"/>')

    def yticks(self, ticks: Sequence[float], labels: Sequence[str], grid: bool = True,
               right: bool = False) -> None:
        """Tick marks and labels on the left (or right) axis; grid lines across the plot."""
        sc = self.y2 if right else self.y
        for v, lab in zip(ticks, labels):
            if not sc.inside(v):
                continue
            py = sc(v)
            if grid:
                self._hline(py, "#dddddd", 0.6)
            xe = self.x1 if right else self.x0
            self.parts.append(f'<line x1="{_f(xe)}" y1="{_f(py)}" x2="{_f(xe + (4 if right else -4))}"'
                              f' y2="{_f(py)}" stroke="#444444" stroke-width="0.8"/>')
            self.text(xe + (7 if right else -7), py + 4, lab, 11, "start" if right else "end",
                      "#333333")

    def xticks(self, ticks: Sequence[float], labels: Sequence[str], grid: bool = False,
               rotate: bool = False) -> None:
        """Tick marks and labels under the plot; ``rotate`` turns the labels by 30°."""
        for v, lab in zip(ticks, labels):
            if not self.x.inside(v):
                continue
            px = self.x(v)
            if grid:
                self._vline(px, "#dddddd", 0.6)
            self.parts.append(f'<line x1="{_f(px)}" y1="{_f(self.y0)}" x2="{_f(px)}" '
                              f'y2="{_f(self.y0 + 4)}" stroke="#444444" stroke-width="0.8"/>')
            if rotate:
                self.text(px + 3, self.y0 + 14, lab, 10.5, "end", "#333333", rotate=-30)
            else:
                self.text(px, self.y0 + 16, lab, 11, "middle", "#333333")

    def frame(self, right: bool = False) -> None:
        """The bottom and left axis lines (and the right one for a second axis)."""
        self.parts.append(f'<path d="M{_f(self.x0)} {_f(self.y1)}V{_f(self.y0)}H{_f(self.x1)}'
                          + (f'V{_f(self.y1)}' if right else "")
                          + '" fill="none" stroke="#444444" stroke-width="0.9"/>')

    def labels(self, title: str, xlabel: str, ylabel: str, y2label: str = "",
               xlabel_dy: float = 34) -> None:
        """The title (top left), the x-axis title and the y-axis title(s), rotated."""
        self.text(self.x0, self.y1 - 12, title, 14, "start", "#222222", weight="600")
        if xlabel:
            self.text((self.x0 + self.x1) / 2, self.y0 + xlabel_dy, xlabel, 12, "middle")
        ymid = (self.y0 + self.y1) / 2
        if ylabel:
            self.text(14, ymid, ylabel, 12, "middle", rotate=-90)
        if y2label:
            self.text(self.w - 8, ymid, y2label, 12, "middle", rotate=-90)

    # ------------------------------------------------------------------------- marks
    def _pts(self, xs: Sequence[float], ys: Sequence[float], right: bool = False
             ) -> list[list[tuple[float, float]]]:
        sy = self.y2 if right else self.y
        runs: list[list[tuple[float, float]]] = [[]]
        for xv, yv in zip(xs, ys):
            if not (np.isfinite(xv) and np.isfinite(yv)):
                if runs[-1]:
                    runs.append([])
                continue
            py = min(max(sy(yv), min(self.y0, self.y1)), max(self.y0, self.y1))
            runs[-1].append((self.x(xv), py))
        return [r for r in runs if len(r) > 1]  # a lone point draws no line

    def line(self, xs: Sequence[float], ys: Sequence[float], color: str, width: float = 1.6,
             dash: str = "", right: bool = False, fill: str = "", step: bool = False) -> None:
        """A polyline through the points (``step``: a post-step staircase; ``fill``: closed
        down to the x axis and filled)."""
        for run in self._pts(xs, ys, right):
            if step:
                st = [run[0]]
                for (x, y) in run[1:]:
                    st += [(x, st[-1][1]), (x, y)]
                run = st
            d = "M" + "L".join(f"{_f(x)} {_f(y)}" for x, y in run)
            if fill:
                d += f"L{_f(run[-1][0])} {_f(self.y0)}L{_f(run[0][0])} {_f(self.y0)}Z"
            ds = f' stroke-dasharray="{dash}"' if dash else ""
            self.parts.append(f'<path d="{d}" fill="{fill or "none"}" stroke="{color}" '
                              f'stroke-width="{width}" stroke-linejoin="round"{ds}/>')

    def bar(self, x: float, w: float, v: float, color: str) -> None:
        """A bar from 0 to ``v`` centred at data x with data width ``w``."""
        px0, px1, py = self.x(x - w / 2), self.x(x + w / 2), self.y(v)
        top, base = min(py, self.y(0)), max(py, self.y(0))
        self.parts.append(f'<rect x="{_f(px0)}" y="{_f(top)}" width="{_f(px1 - px0)}" '
                          f'height="{_f(base - top)}" fill="{color}"/>')

    def marker(self, px: float, py: float, kind: str, color: str, r: float = 4.5,
               filled: bool = True) -> None:
        """A marker at pixel (px, py): ``"circle"``, ``"square"``, ``"star"`` or ``"cross"``."""
        fill = color if filled else "white"
        if kind == "circle":
            self.parts.append(f'<circle cx="{_f(px)}" cy="{_f(py)}" r="{_f(r)}" fill="{fill}" '
                              f'stroke="{color}" stroke-width="1.4"/>')
            return
        if kind == "square":
            self.parts.append(f'<rect x="{_f(px - r)}" y="{_f(py - r)}" width="{_f(2 * r)}" '
                              f'height="{_f(2 * r)}" fill="{fill}" stroke="{color}"/>')
            return
        if kind == "star":
            pts = [(px + (r if k % 2 == 0 else 0.42 * r) * math.sin(k * math.pi / 5),
                    py - (r if k % 2 == 0 else 0.42 * r) * math.cos(k * math.pi / 5))
                   for k in range(10)]
        else:  # cross: a thick X
            a = 0.8 * r
            self.parts.append(f'<path d="M{_f(px - a)} {_f(py - a)}L{_f(px + a)} {_f(py + a)}'
                              f'M{_f(px - a)} {_f(py + a)}L{_f(px + a)} {_f(py - a)}" '
                              f'stroke="{color}" stroke-width="{_f(0.55 * r)}"/>')
            return
        d = " ".join(f"{_f(x)},{_f(y)}" for x, y in pts)
        self.parts.append(f'<polygon points="{d}" fill="{fill}" stroke="{color}" '
                          f'stroke-width="0.8"/>')

    def legend(self, entries: Sequence[tuple[str, str, str]], x: float, y: float,
               ncol: int = 3, anchor: str = "start") -> None:
        """Entries (label, kind, colour) in rows of ``ncol`` from pixel (x, y) (top left, or
        centred on x with ``anchor="middle"``). Kinds: ``line``, ``dash``, ``fill`` (a grey
        patch), ``bar`` and the marker kinds (``circle``, ``hollow``, ``star``, ``cross``,
        ``square``)."""
        rows = [entries[i:i + ncol] for i in range(0, len(entries), max(ncol, 1))]
        for k, row in enumerate(rows):
            widths = [34 + text_width(lab, 11) + 22 for lab, _, _ in row]
            px = x - sum(widths) / 2 if anchor == "middle" else x
            py = y + 16 * k + 6
            for (lab, kind, color), w in zip(row, widths):
                if kind in ("line", "dash"):
                    self.parts.append(f'<line x1="{_f(px)}" y1="{_f(py)}" x2="{_f(px + 24)}" '
                                      f'y2="{_f(py)}" stroke="{color}" stroke-width="1.8"'
                                      + (' stroke-dasharray="5 3"' if kind == "dash" else "")
                                      + "/>")
                elif kind in ("fill", "bar"):
                    self.parts.append(f'<rect x="{_f(px + 4)}" y="{_f(py - 5)}" width="16" '
                                      f'height="10" fill="{"#d0d0d0" if kind == "fill" else color}"'
                                      f' stroke="{color}" stroke-width="0.8"/>')
                else:
                    self.marker(px + 12, py, "circle" if kind == "hollow" else kind, color,
                                5.5 if kind == "star" else 4.5, kind != "hollow")
                self.text(px + 30, py + 4, lab, 11, "start", "#333333")
                px += w

    def svg(self, alt: str) -> str:
        """The figure as an ``<svg>`` element with ``role="img"``, an ``aria-label`` and a
        ``<title>`` (both ``alt``, escaped)."""
        a = xml_text(alt)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_f(self.w)} {_f(self.h)}"'
                f' width="{_f(self.w)}" height="{_f(self.h)}" role="img" aria-label="{a}" '
                f'font-family="{FONT}"><title>{a}</title>'
                f'<rect width="100%" height="100%" fill="white"/>' + "".join(self.parts)
                + "</svg>")
