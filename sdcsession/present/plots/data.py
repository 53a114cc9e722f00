"""The data before and after: distributions of a numeric variable (`distributions`:
histogram, kernel density, box plot) and mosaic plots of one or two categorical variables
(`mosaic`), original vs masked or across scenarios.

matplotlib, scipy and statsmodels are imported inside the functions; both are importable from
`sdcsession.present.plots.accessor`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import ParameterError
from ._common import ORIGINAL_COLOR, PALETTE, _axes, _clean, _colors, _frames, _thousands

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["distributions", "mosaic", "distribution_data"]


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
    if not isinstance(kind, str) or kind not in ("hist", "kde", "box"):
        raise ParameterError(f"kind: expected 'hist', 'kde' or 'box', got {kind!r:.40}")
    if not isinstance(column, str):
        raise ParameterError(f"column: expected a column name, got {column!r:.40}")
    frames, vals, lo, hi, cut, has_orig = distribution_data(*items, column=column,
                                                            original=original,
                                                            upper_quantile=upper_quantile)
    colors = _colors(len(frames), has_orig)
    ax = _axes(ax)
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



def distribution_data(*items: Any, column: str, original: bool = True,
                      upper_quantile: float | None = 0.995
                      ) -> tuple[list[tuple[str, pd.DataFrame]], list[np.ndarray], float, float,
                                 bool, bool]:
    """The numbers `distributions` draws: the (name, data) pairs, each one's values of
    ``column`` (missing values left out), the axis range [lo, hi] (hi: the pooled
    ``upper_quantile``, or the maximum), whether the tail is cut there and whether the original
    comes first. Histograms use ``numpy.linspace(lo, hi, bins + 1)`` as common bin edges.

    Missing values: left out of every dataset.

    >>> o = pd.DataFrame({"x": [1.0, 2.0, np.nan, 4.0]})
    >>> _, vals, lo, hi, cut, has = distribution_data(o, column="x", original=False,
    ...                                               upper_quantile=None)
    >>> vals[0].tolist(), lo, hi, bool(cut), has
    ([1.0, 2.0, 4.0], 1.0, 4.0, False, False)
    """
    frames, has_orig = _frames(items, original)
    vals = []
    for name, df in frames:
        if column not in df.columns:
            raise ParameterError(f"column: {column!r} is not in {name!r}")
        v = pd.to_numeric(df[column], errors="coerce").to_numpy(float)
        vals.append(v[~np.isnan(v)])
    pooled = np.concatenate(vals) if vals else np.array([0.0])
    lo = float(pooled.min()) if pooled.size else 0.0
    hi = float(np.quantile(pooled, upper_quantile)) if upper_quantile and pooled.size else \
        float(pooled.max() if pooled.size else 1.0)
    if hi <= lo:
        hi = lo + 1.0
    cut = bool(upper_quantile is not None and pooled.size and hi < pooled.max())
    return frames, vals, lo, hi, cut, has_orig


# ----------------------------------------------------------------------------------- mosaic
def mosaic(*items: Any, columns: str | Sequence[str], original: bool = True,
           ax: Axes | Sequence[Axes] | None = None, max_categories: int = 12,
           max_columns: int = 4) -> Figure:
    """Mosaic plots of one or two categorical variables, one panel per dataset (original first).

    Tile areas are proportional to the joint frequencies (statsmodels' ``mosaic``); missing values
    (suppressions) are a category ``"(missing)"``; tiles are coloured by the categories of the
    last variable, with the same colours in every panel, so that a change of the distribution
    shows as a change of the tiles. Variables with more than ``max_categories`` categories are
    refused (the plot would be unreadable). The panels are facets of a grid with at most
    ``max_columns`` panels per row (7 scenarios: two rows of 4), so that the figure stays readable
    however many scenarios are shown. ``ax`` is one Axes (one dataset) or one per dataset.

    Example
    -------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> o = pd.DataFrame({"a": list("xxyy"), "b": list("pqpq")})
    >>> fig = mosaic(o, o.assign(b=["p", None, "p", "q"]), columns=["a", "b"], original=False)
    >>> [a.get_title(loc="left") for a in fig.axes if a.get_title(loc="left")]
    ['data 1', 'data 2']
    """
    from statsmodels.graphics.mosaicplot import mosaic as sm_mosaic

    if isinstance(max_columns, bool) or not isinstance(max_columns, (int, np.integer)) or \
            max_columns < 1:
        raise ParameterError(f"max_columns: expected a whole number >= 1, got {max_columns!r}")

    cols = [columns] if isinstance(columns, str) else list(columns) \
        if isinstance(columns, (list, tuple)) else []
    if not 1 <= len(cols) <= 2 or not all(isinstance(c, str) for c in cols) \
            or len(set(cols)) < len(cols):
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
        ncols = min(n, max_columns)
        nrows = -(-n // ncols)
        fig, axs = plt.subplots(nrows, ncols, figsize=(3.6 * ncols + 0.6, 3.4 * nrows + 0.4),
                                layout="constrained", squeeze=False)
        axes = list(axs.ravel()[:n])
        for extra in axs.ravel()[n:]:  # the empty cells of the last row
            extra.remove()
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

