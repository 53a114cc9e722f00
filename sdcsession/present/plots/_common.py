"""What every plot shares: the palette and axis titles, Axes creation and styling, PNG export, and
turning the scenarios or DataFrames given to a plot into named datasets / steps.

matplotlib is imported only inside the functions. The public names (`PALETTE`,
`LABELS`, `to_png`) are importable from `sdcsession.present.plots.accessor`.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ...errors import MeasureError, ParameterError
from ..steps import _is_session, scenarios

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["PALETTE", "ORIGINAL_COLOR", "LABELS", "to_png"]

#: Colour-blind-safe palette (Okabe & Ito 2008); the original data is always dark grey.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#7F3C8D", "#11A579", "#3969AC")
ORIGINAL_COLOR = "#333333"

#: Axis titles of the comparison columns.
LABELS = {
    "expected_reidentifications": "expected re-identifications",
    "household_expected_reidentifications": "household expected re-identifications",
    "global_risk": "global risk (mean individual risk)",
    "k2_violations": "records violating 2-anonymity",
    "k3_violations": "records violating 3-anonymity",
    "k5_violations": "records violating 5-anonymity",
    "interval_disclosure": "interval disclosure (numeric)",
    "record_linkage": "record linkage (numeric)",
    "suppressions": "suppressions in key variables",
    "il1s": "IL1s",
    "eigen": "eigenvalue difference",
    "il_correl": "γ (correlation loss)",
    "lambda": "λ (complex information loss)",
    "gdu": "GDU (global data utility, higher = better)",
}


#: How `_axes` makes a new figure: None (pyplot, constrained layout: the public plots), or
#: ("fixed" | "constrained", dpi) inside `bare_figures` (the report's figures).
_BARE: contextvars.ContextVar[tuple[str, float] | None] = contextvars.ContextVar(
    "sdcsession_bare_figures", default=None)

#: Margins (inches) of the axes in a fixed-layout figure: left, bottom, right, top, inside the
#: figure size the plot asks for; and the blank border around it that catches decorations
#: larger than the margins (cut off again by `_cropped_png`).
_MARGINS = (0.75, 0.55, 0.15, 0.35)
_BORDER = 1.0


@contextlib.contextmanager
def bare_figures(layout: str = "fixed", dpi: float = 110) -> Iterator[None]:
    """Within this context the plots make their figures without pyplot: a bare
    `matplotlib.figure.Figure` on an Agg canvas at ``dpi``, not registered with pyplot (nothing
    to close, pyplot never imported). ``layout="fixed"``: no layout engine; the axes have fixed
    margins inside the asked figure size and the figure has a blank border of `_BORDER` inches
    on every side, so that the axes' geometry is final as soon as they exist (one draw makes the
    image, `_cropped_png` cuts the blank border off). ``layout="constrained"``: the same figure
    as pyplot's (constrained layout) on a bare canvas. Used by the report, whose figures are
    drawn once and closed.

    >>> from sdcsession.present.plots.risk import ci_plot
    >>> import pandas as pd
    >>> t = pd.DataFrame({"scenario": ["a"], "estimate": [1.0], "lower": [0.5], "upper": [2.0]})
    >>> with bare_figures():
    ...     ax = ci_plot(t)
    >>> ax.figure.canvas.manager is None, ax.figure.get_layout_engine() is None
    (True, True)
    """
    token = _BARE.set((layout, float(dpi)))
    try:
        yield
    finally:
        _BARE.reset(token)


# ------------------------------------------------------------------------------------ helpers
def _axes(ax: Any, figsize: tuple[float, float] = (6.4, 4.2)) -> Axes:
    if ax is not None:
        return ax
    bare = _BARE.get()
    if bare is not None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        layout, dpi = bare
        w, h = figsize
        if layout == "constrained":
            fig = Figure(figsize=figsize, dpi=dpi, layout="constrained")
            FigureCanvasAgg(fig)
            return fig.add_subplot()
        b = _BORDER
        left, bottom, right, top = _MARGINS
        fig = Figure(figsize=(w + 2 * b, h + 2 * b), dpi=dpi, facecolor="white")
        FigureCanvasAgg(fig)
        fw, fh = w + 2 * b, h + 2 * b
        return fig.add_axes(((b + left) / fw, (b + bottom) / fh, (w - left - right) / fw,
                             (h - bottom - top) / fh))
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _clean(ax: Axes, grid: str = "y") -> None:
    ax.spines["top"].set_visible(False)
    ax.spines["right"].set_visible(False)
    if grid:
        ax.grid(axis=grid, color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)


def _thousands(axis: Any) -> None:
    """Plain tick labels with thousands separators (no offset / scientific notation)."""
    from matplotlib.ticker import FuncFormatter

    def f(v: float, _pos: Any) -> str:
        if v == 0:
            return "0"
        if abs(v) >= 1000 or float(v).is_integer():
            return f"{v:,.0f}"
        return f"{v:g}"

    axis.set_major_formatter(FuncFormatter(f))


def _label(col: str) -> str:
    return LABELS.get(col, col.replace("_", " "))


def _colors(n: int, original: bool) -> list[str]:
    cols = [PALETTE[i % len(PALETTE)] for i in range(n - (1 if original else 0))]
    return ([ORIGINAL_COLOR] if original else []) + cols


def _frames(items: Sequence[Any], original: bool | pd.DataFrame
            ) -> tuple[list[tuple[str, pd.DataFrame]], bool]:
    """(name, data) for each scenario, the original first when asked; and whether it is there."""
    from ...session.history import Step

    out: list[tuple[str, pd.DataFrame]] = []
    orig: pd.DataFrame | None = original if isinstance(original, pd.DataFrame) else None
    plain: list[Any] = []
    for it in items:
        if isinstance(it, pd.DataFrame):
            plain.append((f"data {len(plain) + 1}", it))
        elif isinstance(it, tuple) and len(it) == 2 and isinstance(it[1], pd.DataFrame):
            plain.append((str(it[0]), it[1]))
        elif _is_session(it) or isinstance(it, Step) or isinstance(it, Sequence):
            for name, st in scenarios(it):
                if st.state.distributed:  # the data plots read the records in memory
                    raise MeasureError("plot: the data plots are drawn from in-memory "
                                       "sessions; compute the Dask frame first "
                                       "(SdcSession(dask_frame.compute(), ...)) or a sample")
                out.append((name, st.state.data))
                if orig is None:
                    orig = st.state.original
        else:
            raise ParameterError(f"expected sessions, steps or DataFrames, got {type(it).__name__}")
    out = out + plain
    has = original is not False and orig is not None
    if has:
        out = [("original", orig)] + out  # type: ignore[list-item]
    if not out:
        raise ParameterError("no data to plot: give sessions, steps or DataFrames")
    return out, has


def _steps(items: Sequence[Any], original: bool) -> tuple[list[tuple[str, Any]], bool]:
    sc = scenarios(*items)
    if not sc:
        raise ParameterError("no scenario to plot: give sessions or steps")
    if original:
        root = sc[0][1].path()[0]
        sc = [("original", root)] + [x for x in sc if x[1] is not root]
    return sc, original


def _cropped_png(fig: Figure, pad: float = 0.1) -> bytes | None:
    """A fixed-layout figure (`bare_figures`) as PNG bytes, drawn once: the blank border is cut
    off around everything drawn (``pad`` inches left around it, as ``bbox_inches="tight"``), so
    that the image holds the plot and its decorations whatever their size. None when something
    is drawn on the edge of the figure (decorations larger than margins and border: lay the
    figure out instead). The same figure gives the same bytes (no metadata, no time stamp).

    >>> with bare_figures():
    ...     ax = _axes(None, (3.0, 2.0))
    >>> _ = ax.plot([0, 1], [0, 1])
    >>> _cropped_png(ax.figure)[1:4]
    b'PNG'
    """
    import numpy as np
    from PIL import Image

    fig.canvas.draw()
    rgba = np.asarray(fig.canvas.buffer_rgba())
    ink = rgba.view(np.uint32)[:, :, 0] != 0xFFFFFFFF  # not opaque white
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if not rows.size:
        return None
    h, w = ink.shape
    if rows[0] == 0 or cols[0] == 0 or rows[-1] == h - 1 or cols[-1] == w - 1:
        return None
    p = int(round(pad * fig.dpi))
    y0, y1 = max(rows[0] - p, 0), min(rows[-1] + 1 + p, h)
    x0, x1 = max(cols[0] - p, 0), min(cols[-1] + 1 + p, w)
    buf = io.BytesIO()
    # RGB (the background is opaque white); zlib level 3: lossless, about half the time of the
    # default level for a few per cent more bytes
    Image.fromarray(np.ascontiguousarray(rgba[y0:y1, x0:x1, :3])).save(buf, format="png",
                                                                       compress_level=3)
    return buf.getvalue()


def to_png(fig: Figure, *, dpi: int = 110) -> bytes:
    """The figure as PNG bytes (for reports).

    >>> import matplotlib; matplotlib.use("Agg")
    >>> from matplotlib.figure import Figure
    >>> to_png(Figure())[:4] == b"\\x89PNG"
    True
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    return buf.getvalue()
