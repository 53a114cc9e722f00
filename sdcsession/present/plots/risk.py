"""Risk and what it cost, per scenario: suppressions per key variable (`suppressions`), the
distribution of the individual risk (`risk_distribution`) and estimates with confidence
intervals across scenarios (`ci_plot`, a forest plot).

matplotlib is imported lazily (by the Axes helpers); the functions are importable from
`sdcsession.present.plots.accessor`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import ParameterError
from ._common import ORIGINAL_COLOR, PALETTE, _axes, _clean, _colors, _steps, _thousands

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["suppressions", "risk_distribution", "ci_plot", "suppression_data", "risk_data", "ecdf"]


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
    keys, series = suppression_data(*items, percent=percent)
    ax = _axes(ax, (min(9.0, max(5.0, 0.55 * len(keys) * max(1, len(series)) ** 0.5 + 2.5)),
                    4.0))
    nser = len(series)
    width = 0.8 / max(nser, 1)
    xs = np.arange(len(keys))
    top = 0.0
    for j, ((name, v), c) in enumerate(zip(series, _colors(nser, False))):
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
    names, data, lo, has = risk_data(*items, original=original)
    ax = _axes(ax)
    colors = _colors(len(names), has)
    for name, r, c in zip(names, data, colors):
        lw = 2.0 if name == "original" and has else 1.4
        if kind == "ecdf":
            # one vertex per distinct risk (the share of records at or below it): the same
            # staircase as one vertex per record, drawn from far fewer points
            x, y = ecdf(r, lo)
            ax.step(x, y, where="post", color=c, linewidth=lw, label=name)
        else:
            edges = np.linspace(np.log10(lo), 0.0, 41)
            ax.hist(np.log10(np.clip(r, lo, 1.0)), bins=edges, histtype="step", color=c,
                    linewidth=lw, label=name)
    if kind == "ecdf":
        from matplotlib.ticker import FuncFormatter, NullFormatter

        ax.set_xscale("log")
        # plain decimal labels (0.001, 0.01, ...): no mathtext to lay out (its parser costs
        # about 0.3 s on first use, most of a report's risk figure)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
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


# ----------------------------------------------------------------------------- CI plot
def ci_plot(table: pd.DataFrame, *, label: str = "scenario", estimate: str = "estimate",
            lower: str = "lower", upper: str = "upper", reference: str | None = "original",
            title: str | None = None, ax: Axes | None = None) -> Axes:
    """Point estimates and confidence intervals across scenarios (a forest plot).

    One row per scenario (``table`` as from `sdcsession.present.compare.estimates`); the reference
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



def suppression_data(*items: Any, percent: bool = False
                     ) -> tuple[list[str], list[tuple[str, np.ndarray]]]:
    """The numbers `suppressions` draws: the key variables (in order of first appearance) and,
    per scenario, its name and its suppressions per key (0 for a key it lacks; percent of its
    records with ``percent=True``).

    Missing values: a suppression is a key value present in the original and missing after.

    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxy")}), keys=["a"], seed=1)
    >>> keys, series = suppression_data(s); keys, series[0][1].tolist()
    (['a'], [0.0])
    """
    sc, _ = _steps(items, False)
    series = []
    for name, st in sc:
        s = st.state.measure("suppressions_by_key")
        if percent:
            s = 100.0 * s / max(st.state.n, 1)
        series.append((name, s))
    keys: list[str] = []
    for _, s in series:
        keys += [k for k in s.index if k not in keys]
    return keys, [(name, s.reindex(keys).fillna(0).to_numpy(float)) for name, s in series]


def risk_data(*items: Any, original: bool = True
              ) -> tuple[list[str], list[np.ndarray], float, bool]:
    """The numbers `risk_distribution` draws: the names, each one's sorted individual risks
    (missing values left out), the smallest positive risk over all (at most 1: the left end of
    the log axis) and whether the original comes first.

    Missing values: left out of each distribution.

    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxyx")}), keys=["a"], seed=1)
    >>> names, data, lo, has = risk_data(s, original=False); names, len(data[0]), has
    (['main'], 5, False)
    """
    sc, has = _steps(items, original)
    lo = 1.0
    data = []
    for _, st in sc:
        r = st.state.measure("individual_risk").to_numpy(float)
        r = np.sort(r[~np.isnan(r)])
        data.append(r)
        if r.size and r[0] > 0:
            lo = min(lo, float(r[0]))
    return [name for name, _ in sc], data, lo, has


def ecdf(r: np.ndarray, lo: float) -> tuple[np.ndarray, np.ndarray]:
    """The empirical distribution function of sorted risks ``r`` clipped to [lo, 1]: one vertex
    per distinct value x with the share of records ≤ x (a post-step staircase).

    Missing values: none expected (`risk_data` leaves them out).

    >>> x, y = ecdf(np.array([0.1, 0.1, 0.5, 1.0]), 0.1); x.tolist(), y.tolist()
    ([0.1, 0.5, 1.0], [0.5, 0.75, 1.0])
    """
    c = np.clip(r, lo, 1.0)
    x = np.unique(c)
    return x, np.searchsorted(c, x, side="right") / max(r.size, 1)
