"""The generalisation lattice of a ``generalize`` step, as one figure (matplotlib, lazily).

Every node (one level per quasi-identifier) is a point: on the y-axis the sum of its levels
(bottom = the original data, top = everything generalised to the root), on the x-axis the nodes of
that row side by side. Colours: the chosen node, feasible and infeasible checked nodes, nodes
tagged by monotonicity without a check, and nodes the search never needed. Edges join direct
generalisations when the lattice has at most ``max_edges`` of them.

Examples
--------
>>> import matplotlib; matplotlib.use("Agg")
>>> import pandas as pd, sdcsession as sdc
>>> df = pd.DataFrame({"zip": ["12", "13", "12", "22"] * 3})
>>> s = sdc.SdcSession(df, keys=["zip"], seed=1)
>>> s = s.generalize({"zip": sdc.Hierarchy.masking(2)}, [sdc.privacy.KAnonymity(4)])
>>> len(lattice_plot(s).collections) > 0
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import ParameterError
from ._common import _axes, _clean

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["lattice_plot", "STATUS_COLORS"]

#: colour of each node status (Okabe & Ito palette)
STATUS_COLORS = {"chosen": "#D55E00", "feasible": "#009E73", "infeasible": "#0072B2",
                 "tagged feasible": "#A6DBC9", "tagged infeasible": "#9CC3E0",
                 "not checked": "#DDDDDD"}


def _frame(source: Any) -> tuple[pd.DataFrame, list[str]]:
    lat = getattr(source, "lattice", None)
    if lat is None and hasattr(source, "generalization"):
        g = source.generalization
        if g is None:
            raise ParameterError("lattice: this session has no generalize step on the path to "
                                 "HEAD; call s.generalize(...) first")
        lat = g.lattice
    if not isinstance(lat, pd.DataFrame) or "status" not in lat.columns:
        raise ParameterError("lattice: expected a session with a generalize step, or a "
                             "GeneralizationResult / SearchResult")
    cols = [c for c in lat.columns if c not in ("status", "loss", "suppressed")]
    return lat, cols


def lattice_plot(source: Any, *, ax: Axes | None = None, max_edges: int = 3000) -> Axes:
    """Plot the lattice of a session's last ``generalize`` step (or of a
    `GeneralizationResult` / `SearchResult`); returns the Axes."""
    lat, cols = _frame(source)
    lv = lat[cols].to_numpy(dtype=np.int64)
    height = lv.sum(axis=1)
    order = np.lexsort((np.arange(len(lv)), height))
    xs = np.zeros(len(lv))
    for h in np.unique(height):
        idx = order[height[order] == h]
        xs[idx] = np.arange(len(idx)) - (len(idx) - 1) / 2.0
    width = max(int(np.bincount(height).max(initial=1)), 1)
    ax = _axes(ax, (min(14.0, 4.0 + 0.08 * width), min(9.0, 3.0 + 0.4 * (height.max(initial=0)
                                                                            + 1))))
    pos = {tuple(r): (x, y) for r, x, y in zip(lv.tolist(), xs, height, strict=True)}
    n_edges = int(sum(len(cols) for _ in range(len(lv))))
    if n_edges <= max_edges:
        segs = []
        for r, (x, y) in pos.items():
            for i in range(len(r)):
                up = r[:i] + (r[i] + 1,) + r[i + 1:]
                if up in pos:
                    segs.append([(x, y), pos[up]])
        if segs:
            from matplotlib.collections import LineCollection

            ax.add_collection(LineCollection(segs, colors="#BBBBBB", linewidths=0.5, zorder=1))
    status = lat["status"].to_numpy(dtype=object)
    for st, color in STATUS_COLORS.items():
        m = status == st
        if m.any():
            ax.scatter(xs[m], height[m], s=60 if st == "chosen" else 14, c=color,
                       label=f"{st} ({int(m.sum())})", zorder=3 if st == "chosen" else 2,
                       edgecolors="black" if st == "chosen" else "none")
    chosen = np.flatnonzero(status == "chosen")
    if len(chosen):
        r = lv[chosen[0]]
        ax.annotate(", ".join(f"{c}={v}" for c, v in zip(cols, r, strict=True)),
                    (xs[chosen[0]], height[chosen[0]]), textcoords="offset points",
                    xytext=(6, 6), fontsize=8)
    ax.set_ylabel("sum of levels")
    ax.set_xticks([])
    ax.set_title(f"generalisation lattice ({len(lv)} nodes)", fontsize=10)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    _clean(ax, grid="y")
    return ax
