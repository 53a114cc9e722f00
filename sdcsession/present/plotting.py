"""Figures for scenarios (matplotlib, imported lazily inside each function).

Every function returns the matplotlib Axes (or the Figure for multi-panel plots) and takes
``ax=`` to draw into an existing Axes. Scenarios are sessions (their HEAD), steps of a history
tree, or — for the data plots — plain DataFrames; the original data comes from the scenarios'
tree (``original=True``). Record-level values are never written as text; box plots draw outliers
as points only when ``fliers=True`` (the report never uses them).

- :func:`ru_map`: the R-U confidentiality map (Duncan, Keller-McNulty & Stokes 2001) with the
  non-dominated frontier, labels, and the "original data" and "no release" anchors;
- :func:`distributions`: numeric variable before/after (histogram, kernel density, box plot);
- :func:`mosaic`: one or two categorical variables, original vs masked / across scenarios;
- :func:`suppressions`: suppressions per key variable (grouped bars);
- :func:`risk_distribution`: distribution of the individual risk (ECDF or histogram);
- :func:`risk_path`: risk (and information loss) after every step of a scenario;
- :func:`ci_plot`: point estimates with confidence intervals across scenarios.

Example
-------
>>> import sdcsession as sdc
>>> import sys; "matplotlib.pyplot" in sys.modules or True   # nothing imported yet by sdcsession
True
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["ru_map", "distributions", "mosaic", "suppressions", "risk_distribution", "risk_path",
           "ci_plot", "to_png", "SessionPlots", "LABELS", "PALETTE"]

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
    "suppressions": "suppressions in key variables",
    "il1s": "IL1s",
    "eigen": "eigenvalue difference",
    "il_correl": "γ (correlation loss)",
    "lambda": "λ (complex information loss)",
    "gdu": "GDU (global data utility, higher = better)",
}


# ------------------------------------------------------------------------------------ helpers
def _axes(ax: Any, figsize: tuple[float, float] = (6.4, 4.2)) -> Axes:
    if ax is not None:
        return ax
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
    from ..session.history import Step
    from .compare import _is_session, scenarios

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
    from .compare import scenarios

    sc = scenarios(*items)
    if not sc:
        raise ParameterError("no scenario to plot: give sessions or steps")
    if original:
        root = sc[0][1].path()[0]
        sc = [("original", root)] + [x for x in sc if x[1] is not root]
    return sc, original


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


# ---------------------------------------------------------------------------------- R-U map
def _place_labels(ax: Axes, names: list[str], x: np.ndarray, y: np.ndarray,
                  fontsize: float = 8.5) -> None:
    """Annotate points, moving a label to another side of its point when its box would overlap
    one already placed (greedy, in display units; boxes estimated from the text length)."""
    to_px = ax.figure.dpi / 72.0
    pts = ax.transData.transform(np.column_stack([x, y])) if len(x) else np.zeros((0, 2))
    w_char, h = 0.56 * fontsize * to_px, 1.15 * fontsize * to_px
    tries = [(6, 5, "left"), (6, -12, "left"), (-6, 5, "right"), (-6, -12, "right"),
             (6, 16, "left"), (6, -23, "left"), (-6, 16, "right"), (-6, -23, "right")]
    placed: list[tuple[float, float, float, float]] = []
    for name, (px, py), xv, yv in zip(names, pts, x, y):
        wd = w_char * len(name)
        cands = []
        for dx, dy, ha in tries:
            x0 = px + dx * to_px - (wd if ha == "right" else 0.0)
            cands.append(((dx, dy, ha), (x0, py + dy * to_px, x0 + wd, py + dy * to_px + h)))
        (dx, dy, ha), b = next(
            (c for c in cands
             if not any(c[1][0] < o[2] and o[0] < c[1][2] and c[1][1] < o[3] and o[1] < c[1][3]
                        for o in placed)),
            cands[0])
        placed.append(b)
        ax.annotate(name, (xv, yv), xytext=(dx, dy), textcoords="offset points", ha=ha,
                    fontsize=fontsize, color="#222222")


def ru_map(data: Any, *more: Any, risk: str = "expected_reidentifications",
           loss: str | None = None, ax: Axes | None = None, labels: bool = True,
           frontier: bool = True, anchors: bool = True, threshold: float | None = None) -> Axes:
    """R-U confidentiality map: one point per scenario on (information loss, disclosure risk).

    Duncan, Keller-McNulty & Stokes (2001) plot disclosure risk R against data utility U; here
    the horizontal axis is an information-loss measure (utility decreasing to the right), so the
    literature's anchors become **original data** (no loss, the original risk) and **no release**
    (total loss, zero risk; at loss 1 for measures bounded by 1 — λ, γ —, at the number of key
    cells for suppressions, else at the right edge, marked with an arrow). The non-dominated
    scenarios (:func:`sdcsession.present.compare.frontier`) are joined by the frontier staircase, the
    dominated ones are drawn hollow. ``threshold`` draws the maximum tolerable risk.
    ``anchors=False`` leaves the anchors out and zooms on the scenarios. Labels that would overlap
    are moved to another side of their point.

    ``data`` is the DataFrame of :func:`sdcsession.present.compare.compare` or sessions/steps (compared
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
    from .compare import compare, pick_loss
    from .compare import frontier as _frontier

    df = data if isinstance(data, pd.DataFrame) else compare(data, *more)
    if loss is None:
        loss = pick_loss(df)
    for c, what in ((risk, "risk"), (loss, "loss")):
        if c not in df.columns:
            raise ParameterError(f"{what}: column {c!r} not in the comparison {list(df.columns)}")
    ax = _axes(ax, (6.4, 4.6))
    x = pd.to_numeric(df[loss], errors="coerce").to_numpy(float)
    y = pd.to_numeric(df[risk], errors="coerce").to_numpy(float)
    names = df["scenario"].astype(str).tolist() if "scenario" in df else [str(i) for i in df.index]
    front = _frontier(df, risk=risk, loss=loss) if frontier else df.iloc[:0]
    on = np.isin(np.arange(len(df)), [df.index.get_loc(i) for i in front.index])
    ok = ~np.isnan(x) & ~np.isnan(y)
    color = PALETTE[0]
    ax.scatter(x[ok & on], y[ok & on], s=46, color=color, zorder=3, label="non-dominated")
    if (ok & ~on).any():
        ax.scatter(x[ok & ~on], y[ok & ~on], s=46, facecolors="white", edgecolors=color,
                   linewidths=1.4, zorder=3, label="dominated")
    if frontier and len(front) > 1:
        fx = pd.to_numeric(front[loss]).to_numpy(float)
        fy = pd.to_numeric(front[risk]).to_numpy(float)
        ax.step(fx, fy, where="post", color=color, linewidth=1.2, alpha=0.8, zorder=2,
                label="frontier")
    orig = df.attrs.get("original") or {}
    xmax = float(np.nanmax(x)) if ok.any() else 1.0
    r0 = orig.get(risk) if anchors else None
    r0 = None if r0 is None or pd.isna(r0) else float(r0)
    bound = (df.attrs.get("loss_max") or {}).get(loss)
    if bound is None and loss in ("lambda", "il_correl"):
        bound = 1.0
    xr = float(bound) if bound is not None else max(xmax, 1e-12) * 1.25
    # axis limits first (label placement needs them)
    if anchors:
        ax.set_xlim(min(0.0, np.nanmin(x) if ok.any() else 0.0) - 0.02 * max(xmax, xr, 1e-12),
                    1.04 * max(xmax, xr, 1e-12))
        ytop = max(float(np.nanmax(y)) if ok.any() else 1.0, r0 or 0.0, threshold or 0.0,
                   1e-12)
        ax.set_ylim(-0.04 * ytop, 1.08 * ytop)
    elif ok.any():  # zoom on the scenarios
        yv = y[ok] if threshold is None else np.append(y[ok], threshold)
        for lim, v in ((ax.set_xlim, x[ok]), (ax.set_ylim, yv)):
            lo, hi = float(v.min()), float(v.max())
            pad = 0.08 * (hi - lo) if hi > lo else 0.1 * max(abs(hi), 1e-12)
            lim(lo - pad, hi + 1.5 * pad)
    if labels:
        _place_labels(ax, [names[i] for i in np.flatnonzero(ok)], x[ok], y[ok])
    if anchors:
        if r0 is not None:
            ax.scatter([0.0], [r0], marker="*", s=150, color=ORIGINAL_COLOR, zorder=4,
                       label="original data")
            ax.annotate("original data", (0.0, r0), xytext=(6, -12), textcoords="offset points",
                        fontsize=8.5, color=ORIGINAL_COLOR)
        ax.scatter([xr], [0.0], marker="X", s=80, color=ORIGINAL_COLOR, zorder=4,
                   label="no release")
        txt = "no release" if bound is not None else "no release →"
        ax.annotate(txt, (xr, 0.0), xytext=(-8, 8), textcoords="offset points", ha="right",
                    fontsize=8.5, color=ORIGINAL_COLOR)
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
    return ax


# ---------------------------------------------------------------------------- distributions
def distributions(*items: Any, column: str, kind: str = "hist", original: bool = True,
                  bins: int = 40, upper_quantile: float | None = 0.995, fliers: bool = False,
                  ax: Axes | None = None) -> Axes:
    """One numeric variable before/after: histograms, kernel densities or box plots.

    ``kind="hist"``: density histograms (outlines) on common bins; ``"kde"``: Gaussian kernel
    densities (Scott's bandwidth; at most 20,000 values per dataset, a fixed subsample, for
    speed); ``"box"``: box plots (no outlier points unless ``fliers=True``: outliers are
    record-level values). ``upper_quantile`` cuts the long right tail of skewed variables (the
    axis range stops at that pooled quantile; the figure says so). Missing values are left out.

    Example
    -------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> o = pd.DataFrame({"x": np.arange(100.0)}); m = o + 1.0
    >>> ax = distributions(o, ("noisy", m), column="x", original=False)
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['data 1', 'noisy']
    """
    if kind not in ("hist", "kde", "box"):
        raise ParameterError(f"kind: expected 'hist', 'kde' or 'box', got {kind!r}")
    frames, has_orig = _frames(items, original)
    vals = []
    for name, df in frames:
        if column not in df.columns:
            raise ParameterError(f"column: {column!r} is not in {name!r}")
        v = pd.to_numeric(df[column], errors="coerce").to_numpy(float)
        vals.append(v[~np.isnan(v)])
    colors = _colors(len(frames), has_orig)
    ax = _axes(ax)
    pooled = np.concatenate(vals) if vals else np.array([0.0])
    lo = float(pooled.min()) if pooled.size else 0.0
    hi = float(np.quantile(pooled, upper_quantile)) if upper_quantile and pooled.size else \
        float(pooled.max() if pooled.size else 1.0)
    if hi <= lo:
        hi = lo + 1.0
    cut = upper_quantile is not None and pooled.size and hi < pooled.max()
    names = [n for n, _ in frames]
    if kind == "hist":
        edges = np.linspace(lo, hi, bins + 1)
        for j, ((name, _), v, c) in enumerate(zip(frames, vals, colors)):
            if j == 0 and has_orig:
                ax.hist(v, bins=edges, density=True, histtype="stepfilled", color="#d0d0d0",
                        edgecolor=ORIGINAL_COLOR, linewidth=0.8, label=name)
            else:
                ax.hist(v, bins=edges, density=True, histtype="step", color=c, linewidth=1.5,
                        label=name)
        ax.set_ylabel("density")
        ax.set_xlabel(column)
    elif kind == "kde":
        from scipy.stats import gaussian_kde

        grid = np.linspace(lo, hi, 400)
        rng = np.random.default_rng(0)
        for (name, _), v, c in zip(frames, vals, colors):
            if v.size < 2 or np.ptp(v) == 0:
                continue
            sample = v if v.size <= 20000 else rng.choice(v, 20000, replace=False)
            dens = gaussian_kde(sample)(grid)
            if name == "original" and has_orig:
                ax.fill_between(grid, dens, color="#d0d0d0", linewidth=0)
                ax.plot(grid, dens, color=ORIGINAL_COLOR, linewidth=0.8, label=name)
            else:
                ax.plot(grid, dens, color=c, linewidth=1.5, label=name)
        ax.set_ylabel("density")
        ax.set_xlabel(column)
    else:
        bp = ax.boxplot(vals, orientation="horizontal", showfliers=fliers, patch_artist=True,
                        widths=0.55, medianprops={"color": "black"})
        for patch, c in zip(bp["boxes"], colors):
            patch.set_facecolor(c)
            patch.set_alpha(0.55)
        ax.set_yticks(range(1, len(names) + 1), names)
        ax.invert_yaxis()
        ax.set_xlabel(column)
        cut = cut and fliers
        if cut:
            ax.set_xlim(right=hi)
    if kind != "box":
        ax.set_xlim(lo, hi)
        ax.legend(fontsize=8, frameon=False)
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 4))
    _thousands(ax.xaxis)
    if cut:
        ax.text(1.0, -0.13 if kind != "box" else -0.12,
                f"axis cut at the {100 * upper_quantile:g}th percentile",
                transform=ax.transAxes, ha="right", va="top", fontsize=7, color="#666666")
    ax.set_title(f"Distribution of {column}", loc="left", fontsize=11)
    _clean(ax, "x" if kind == "box" else "y")
    return ax


# ----------------------------------------------------------------------------------- mosaic
def mosaic(*items: Any, columns: str | Sequence[str], original: bool = True,
           ax: Axes | Sequence[Axes] | None = None, max_categories: int = 12) -> Figure:
    """Mosaic plots of one or two categorical variables, one panel per dataset (original first).

    Tile areas are proportional to the joint frequencies (statsmodels' ``mosaic``); missing values
    (suppressions) are a category ``"(missing)"``; tiles are coloured by the categories of the
    last variable, with the same colours in every panel, so that a change of the distribution
    shows as a change of the tiles. Variables with more than ``max_categories`` categories are
    refused (the plot would be unreadable). ``ax`` is one Axes (one dataset) or one per dataset.

    Example
    -------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> o = pd.DataFrame({"a": list("xxyy"), "b": list("pqpq")})
    >>> fig = mosaic(o, o.assign(b=["p", None, "p", "q"]), columns=["a", "b"], original=False)
    >>> [a.get_title(loc="left") for a in fig.axes if a.get_title(loc="left")]
    ['data 1', 'data 2']
    """
    from statsmodels.graphics.mosaicplot import mosaic as sm_mosaic

    cols = [columns] if isinstance(columns, str) else list(columns)
    if not 1 <= len(cols) <= 2:
        raise ParameterError(f"columns: expected one or two categorical variables, got {cols}")
    frames, has_orig = _frames(items, original)
    miss = "(missing)"
    prepared = []
    cats: dict[str, list[str]] = {c: [] for c in cols}
    for name, df in frames:
        sub = {}
        for c in cols:
            if c not in df.columns:
                raise ParameterError(f"columns: {c!r} is not in {name!r}")
            s = df[c].astype("object").where(df[c].notna(), miss).astype(str)
            sub[c] = s
            for v in pd.unique(s):
                if v not in cats[c]:
                    cats[c].append(v)
        prepared.append((name, pd.DataFrame(sub)))
    for c in cols:
        if len(cats[c]) > max_categories:
            raise ParameterError(f"columns: {c!r} has {len(cats[c])} categories (more than "
                                 f"max_categories={max_categories}); recode it first")
        # original order of a categorical dtype where there is one, '(missing)' last
        order = [str(x) for x in getattr(frames[0][1][c].dtype, "categories", [])]
        cats[c] = [x for x in order if x in cats[c]] + \
            sorted(x for x in cats[c] if x not in order and x != miss) + \
            ([miss] if miss in cats[c] else [])
    last = cols[-1]
    real = [v for v in cats[last] if v != miss]
    if len(real) <= len(PALETTE):
        cmap = {v: PALETTE[i] for i, v in enumerate(real)}
    else:
        from matplotlib import colormaps

        cm = colormaps["viridis"]
        cmap = {v: cm(i / max(len(real) - 1, 1)) for i, v in enumerate(real)}
    cmap[miss] = "#bbbbbb"

    if ax is None:
        import matplotlib.pyplot as plt

        n = len(prepared)
        fig, axs = plt.subplots(1, n, figsize=(3.6 * n + 0.6, 3.8), layout="constrained",
                                squeeze=False)
        axes = list(axs[0])
    else:
        axes = [ax] if not isinstance(ax, Sequence) else list(ax)
        if len(axes) != len(prepared):
            raise ParameterError(f"ax: {len(prepared)} datasets need {len(prepared)} Axes, got "
                                 f"{len(axes)}")
        fig = axes[0].figure

    def props(key: tuple[str, ...]) -> dict[str, Any]:
        return {"facecolor": cmap.get(key[-1], "#999999"), "edgecolor": "white", "linewidth": 0.6}

    for (name, sub), a in zip(prepared, axes):
        # integer-coded categories in a fixed order so that every panel has the same layout
        counts = sub.groupby(cols, observed=True).size()
        full = pd.MultiIndex.from_product([cats[c] for c in cols]) if len(cols) > 1 \
            else pd.Index(cats[cols[0]])
        counts = counts.reindex(full, fill_value=0)
        table = {(k if isinstance(k, tuple) else (k,)): float(v) for k, v in counts.items()}
        table = {k: v for k, v in table.items() if v > 0}
        sm_mosaic(table, ax=a, properties=props, labelizer=lambda k: "", gap=0.01,
                  axes_label=True, horizontal=True)
        a.set_title(name, fontsize=10, loc="left",
                    color=ORIGINAL_COLOR if name == "original" and has_orig else "black")
        for lab in a.get_xticklabels():
            lab.set_rotation(45)
            lab.set_ha("right")
            lab.set_fontsize(8)
        if len(cols) > 1:  # the legend names the colours; statsmodels' labels would collide
            a.set_yticks([])
            a.set_ylabel(cols[1], fontsize=9)
        a.set_xlabel(cols[0], fontsize=9)
    if len(cols) > 1:
        from matplotlib.patches import Patch

        handles = [Patch(color=cmap[v], label=v) for v in cats[last]]
        fig.legend(handles=handles, title=last, fontsize=8, title_fontsize=8, frameon=False,
                   loc="outside right upper")
    return fig


# ----------------------------------------------------------------------------- suppressions
def suppressions(*items: Any, percent: bool = False, ax: Axes | None = None) -> Axes:
    """Suppressions per key variable: grouped bars, one colour per scenario, counts on the bars.

    A suppression is a key value present in the original and missing in the scenario (measure
    ``"suppressions_by_key"``, cached per state). ``percent=True`` shows 100·m_j/n.

    Example
    -------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxy"), "b": list("pqpq")}), keys=["a", "b"],
    ...                    seed=1)
    >>> [t.get_text() for t in suppressions(s).get_xticklabels()]
    ['a', 'b']
    """
    sc, _ = _steps(items, False)
    from . import compare as _c  # noqa: F401  (registers the measure)

    series = []
    for name, st in sc:
        s = st.state.measure("suppressions_by_key")
        if percent:
            s = 100.0 * s / max(st.state.n, 1)
        series.append((name, s))
    keys: list[str] = []
    for _, s in series:
        keys += [k for k in s.index if k not in keys]
    ax = _axes(ax, (min(9.0, max(5.0, 0.55 * len(keys) * max(1, len(series)) ** 0.5 + 2.5)),
                    4.0))
    nser = len(series)
    width = 0.8 / max(nser, 1)
    xs = np.arange(len(keys))
    top = 0.0
    for j, ((name, s), c) in enumerate(zip(series, _colors(nser, False))):
        v = s.reindex(keys).fillna(0).to_numpy(float)
        top = max(top, float(v.max()) if v.size else 0.0)
        bars = ax.bar(xs + (j - (nser - 1) / 2) * width, v, width=width * 0.95, color=c,
                      label=name)
        ax.bar_label(bars, labels=[(f"{x:.1f}" if percent else f"{int(x):,}") if x else ""
                                   for x in v], fontsize=7, padding=1.5)
    ax.set_xticks(xs, keys)
    ax.set_ylabel("suppressed values (%)" if percent else "suppressed values")
    ax.set_title("Suppressions per key variable", loc="left", fontsize=11)
    ax.set_ylim(0, top * 1.15 if top > 0 else 1)
    _thousands(ax.yaxis)
    if nser > 1:
        ax.legend(fontsize=8, frameon=False)
    _clean(ax, "y")
    return ax


# ------------------------------------------------------------------------- individual risk
def risk_distribution(*items: Any, kind: str = "ecdf", original: bool = True,
                      ax: Axes | None = None) -> Axes:
    """Distribution of the individual re-identification risk, one curve per scenario.

    ``kind="ecdf"``: the share of records with risk ≤ r (log-scaled risk axis), which shows the
    small group of high-risk records that a histogram hides; ``"hist"``: histograms of
    log10(risk). Read through the cached measure ``"individual_risk"``.

    Example
    -------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxyx")}), keys=["a"], seed=1)
    >>> len(risk_distribution(s, original=False).get_lines())
    1
    """
    if kind not in ("ecdf", "hist"):
        raise ParameterError(f"kind: expected 'ecdf' or 'hist', got {kind!r}")
    sc, has = _steps(items, original)
    ax = _axes(ax)
    colors = _colors(len(sc), has)
    lo = 1.0
    data = []
    for _, st in sc:
        r = st.state.measure("individual_risk").to_numpy(float)
        r = np.sort(r[~np.isnan(r)])
        data.append(r)
        if r.size and r[0] > 0:
            lo = min(lo, float(r[0]))
    for (name, _), r, c in zip(sc, data, colors):
        lw = 2.0 if name == "original" and has else 1.4
        if kind == "ecdf":
            y = np.arange(1, r.size + 1) / max(r.size, 1)
            ax.step(np.clip(r, lo, 1.0), y, where="post", color=c, linewidth=lw, label=name)
        else:
            edges = np.linspace(np.log10(lo), 0.0, 41)
            ax.hist(np.log10(np.clip(r, lo, 1.0)), bins=edges, histtype="step", color=c,
                    linewidth=lw, label=name)
    if kind == "ecdf":
        ax.set_xscale("log")
        ax.set_xlabel("individual risk r (log scale)")
        ax.set_ylabel("share of records with risk ≤ r")
        ax.set_ylim(0, 1.02)
    else:
        ax.set_xlabel("log10 individual risk")
        ax.set_ylabel("records")
    ax.set_title("Individual risk", loc="left", fontsize=11)
    ax.legend(fontsize=8, frameon=False, loc="lower right" if kind == "ecdf" else "best")
    _clean(ax, "both")
    return ax


# ------------------------------------------------------------------------------- risk path
def risk_path(scenario: Any, *, risk: str | Sequence[str] = "expected_reidentifications",
              loss: str | None = None, ax: Axes | None = None) -> Axes:
    """Risk after every step from the original to a scenario's HEAD (or a given step).

    One line per ``risk`` column of :func:`sdcsession.present.compare.compare` on the left axis, and
    ``loss`` (optional) dashed on a right-hand axis. The steps are the x-axis, labelled with
    their short text.

    Example
    -------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxz")}), keys=["a"], seed=1)
    >>> ax = risk_path(s.recode("a", {"z": "y"}), risk="k3_violations")
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['original', '#1 recode']
    """
    from .compare import _is_session, compare

    step = scenario.head if _is_session(scenario) else scenario
    path = step.path()
    risks = [risk] if isinstance(risk, str) else list(risk)
    df = compare(path, measures=risks + ([loss] if loss else []))
    ax = _axes(ax, (max(5.5, 1.3 * len(path) + 2.5), 4.0))
    xs = np.arange(len(path))
    for j, r in enumerate(risks):
        ax.plot(xs, df[r].to_numpy(float), marker="o", color=PALETTE[j % len(PALETTE)],
                linewidth=1.6, label=_label(r))
    ax.set_ylabel(_label(risks[0]) if len(risks) == 1 else "risk")
    ticks = ["original" if st.treatment is None else st.label for st in path]
    many = len(path) > 5
    ax.set_xticks(xs, ticks, rotation=30 if many else 0, ha="right" if many else "center",
                  fontsize=8)
    ax.set_ylim(0, 1.1 * max(float(np.nanmax(df[risks].to_numpy(float))), 1e-12))
    _thousands(ax.yaxis)
    lines, names = ax.get_legend_handles_labels()
    if loss:
        ax2 = ax.twinx()
        ax2.plot(xs, df[loss].to_numpy(float), marker="s", linestyle="--", color="#555555",
                 linewidth=1.3, label=_label(loss))
        ax2.set_ylabel(_label(loss))
        ax2.set_ylim(0, 1.1 * max(float(np.nanmax(df[loss].to_numpy(float))), 1e-12))
        ax2.spines["top"].set_visible(False)
        l2, n2 = ax2.get_legend_handles_labels()
        lines, names = lines + l2, names + n2
    ax.legend(lines, names, fontsize=8, frameon=False, loc="upper center",
              bbox_to_anchor=(0.5, -0.16 if many else -0.1), ncol=2)
    ax.set_title(f"Risk along scenario {scenario.name if _is_session(scenario) else step.label}",
                 loc="left", fontsize=11)
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.spines["top"].set_visible(False)
    if not loss:
        ax.spines["right"].set_visible(False)
    return ax


# ----------------------------------------------------------------------------- CI plot
def ci_plot(table: pd.DataFrame, *, label: str = "scenario", estimate: str = "estimate",
            lower: str = "lower", upper: str = "upper", reference: str | None = "original",
            title: str | None = None, ax: Axes | None = None) -> Axes:
    """Point estimates and confidence intervals across scenarios (a forest plot).

    One row per scenario (``table`` as from :func:`sdcsession.present.compare.estimates`); the reference
    row (``"original"``) is drawn in dark grey with its interval shaded across the plot and its
    estimate as a dashed line, so that a scenario whose interval leaves the band stands out.

    Example
    -------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> t = pd.DataFrame({"scenario": ["original", "noise"], "estimate": [1.0, 1.2],
    ...                   "lower": [0.8, 0.9], "upper": [1.2, 1.5]})
    >>> [x.get_text() for x in ci_plot(t).get_yticklabels()]
    ['original', 'noise']
    """
    for c in (label, estimate, lower, upper):
        if c not in table.columns:
            raise ParameterError(f"ci_plot: column {c!r} not in the table {list(table.columns)}")
    n = len(table)
    ax = _axes(ax, (6.0, 0.45 * n + 1.6))
    names = table[label].astype(str).tolist()
    est = table[estimate].to_numpy(float)
    lo, hi = table[lower].to_numpy(float), table[upper].to_numpy(float)
    ys = np.arange(n)
    ref = names.index(reference) if reference is not None and reference in names else None
    if ref is not None:
        ax.axvspan(lo[ref], hi[ref], color="#cccccc", alpha=0.45, linewidth=0,
                   label=f"{reference} interval")
        ax.axvline(est[ref], color=ORIGINAL_COLOR, linestyle="--", linewidth=1)
    colors = [ORIGINAL_COLOR if i == ref else PALETTE[0] for i in range(n)]
    for i in range(n):
        ax.errorbar(est[i], ys[i], xerr=[[est[i] - lo[i]], [hi[i] - est[i]]], fmt="o",
                    color=colors[i], ecolor=colors[i], capsize=3, markersize=5, linewidth=1.4)
    ax.set_yticks(ys, names)
    ax.invert_yaxis()
    ax.set_ylim(n - 0.4, -0.6)
    ax.set_xlabel("point estimate and confidence interval")
    _thousands(ax.xaxis)
    ax.set_title(title or "Estimates with confidence intervals", loc="left", fontsize=11)
    _clean(ax, "x")
    return ax


# ------------------------------------------------------------------------- session accessor
class SessionPlots:
    """``s.plot``: the plotting functions bound to one session (its HEAD and the original).

    >>> import sdcsession as sdc
    >>> SessionPlots(None).__class__.__name__
    'SessionPlots'
    """

    def __init__(self, session: Any) -> None:
        self._s = session

    def ru_map(self, *others: Any, **kw: Any) -> Axes:
        """R-U map of this session and ``others`` (see :func:`ru_map`)."""
        from .compare import compare

        return ru_map(compare(self._s, *others), **kw)

    def distributions(self, column: str, *others: Any, **kw: Any) -> Axes:
        """Before/after distribution of ``column`` (see :func:`distributions`)."""
        return distributions(self._s, *others, column=column, **kw)

    def mosaic(self, columns: str | Sequence[str], *others: Any, **kw: Any) -> Figure:
        """Mosaic of one or two categorical variables, original vs HEAD (see :func:`mosaic`)."""
        return mosaic(self._s, *others, columns=columns, **kw)

    def suppressions(self, *others: Any, **kw: Any) -> Axes:
        """Suppressions per key variable (see :func:`suppressions`)."""
        return suppressions(self._s, *others, **kw)

    def risk_distribution(self, *others: Any, **kw: Any) -> Axes:
        """Individual-risk distribution, original vs HEAD (see :func:`risk_distribution`)."""
        return risk_distribution(self._s, *others, **kw)

    def risk_path(self, **kw: Any) -> Axes:
        """Risk after each step of this scenario (see :func:`risk_path`)."""
        return risk_path(self._s, **kw)
