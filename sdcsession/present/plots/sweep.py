"""The R-U map of a scenario sweep (`sweep_map`, attached as ``Sweep.plot()``).

Every scenario of a `sdcsession.Sweep` is a point on (information loss, disclosure risk), the
non-dominated ones joined by the frontier staircase (`sdcsession.present.plots.ru.ru_map`), the
maximum tolerable risk drawn as a line and the best scenario under it (`Sweep.best`: least loss
among those with risk ≤ ``max_risk``) ringed and named. matplotlib is imported lazily.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import ParameterError, SdcWarning, user_stacklevel
from ...session.views.scenario_measures import measure_value, pick_loss
from ._common import ORIGINAL_COLOR
from .ru import _place_labels, ru_map

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["sweep_map"]


def sweep_map(sweep: Any, max_risk: float | None = None, *,
              risk: str = "expected_reidentifications", loss: str | None = None,
              ax: Axes | None = None, labels: bool | str = "frontier",
              anchors: bool = False) -> Axes:
    """R-U map of all scenarios of a sweep with the frontier drawn and the best one marked.

    ``max_risk`` draws the maximum tolerable risk and rings the scenario `Sweep.best` returns
    for it (the least ``loss`` among the scenarios with ``risk <= max_risk``); when none
    qualifies the map is drawn without it, with an `SdcWarning` giving the least risk reached.
    ``loss=None`` takes λ, else IL1s, else suppressions. ``labels``: ``"frontier"`` names the
    frontier scenarios and the best one, ``"all"`` every scenario, ``False`` none.
    ``anchors=True`` adds the original data and "no release" points of `ru_map`. Failed
    scenarios (NaN measures) are not drawn. Returns the Axes.

    Example
    -------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=2), keys=["region", "sex"],
    ...                    seed=1)
    >>> sw = s.sweep([("local_suppression", [{"k": 2}, {"k": 3}, {"k": 5}])],
    ...              measures=["expected_reidentifications", "suppressions"])
    >>> ax = sweep_map(sw, max_risk=1000)
    >>> [t.get_text() for t in ax.texts if t.get_text().startswith("best")]
    ['best: sweep-1']
    """
    if isinstance(labels, bool):
        labels = "frontier" if labels else "none"
    if labels not in ("frontier", "all", "none"):
        raise ParameterError(f"labels: expected 'frontier', 'all' or False, got {labels!r:.40}")
    measures = [m.column for m in sweep.specs]
    df = sweep.table.copy()
    if loss is None:
        loss = pick_loss(df[measures])
    for c, what in ((risk, "risk"), (loss, "loss")):
        if c not in measures:
            raise ParameterError(f"{what}: {c!r:.60} is not a measure of this sweep; its "
                                 f"measures are {measures}")
    if anchors:
        root = sweep.start.path()[0]
        df.attrs["original"] = {m.column: measure_value(m, root.state, "original", {})
                                for m in sweep.specs}
    ax = ru_map(df, risk=risk, loss=loss, ax=ax, labels=False, frontier=True, anchors=anchors,
                threshold=max_risk)
    x = pd.to_numeric(df[loss], errors="coerce").to_numpy(float)
    y = pd.to_numeric(df[risk], errors="coerce").to_numpy(float)
    best = None
    if max_risk is not None:
        try:
            best = sweep.best_position(max_risk, risk=risk, loss=loss)
        except ParameterError as e:
            warnings.warn(f"sweep plot: no best scenario marked: {e}", SdcWarning, stacklevel=user_stacklevel())
    ok = ~np.isnan(x) & ~np.isnan(y)
    if labels == "all":
        show = ok
    elif labels == "frontier":
        show = ok & df["frontier"].to_numpy(bool)
    else:
        show = np.zeros(len(df), dtype=bool)
    if best is not None:
        show[best] = False
    names = df["scenario"].astype(str).to_numpy()
    _place_labels(ax, list(names[show]), x[show], y[show])
    if best is not None:
        ax.scatter([x[best]], [y[best]], s=260, facecolors="none", edgecolors=ORIGINAL_COLOR,
                   linewidths=2.0, zorder=5, label="best under the risk target")
        ax.annotate(f"best: {names[best]}", (x[best], y[best]), xytext=(10, 10),
                    textcoords="offset points", fontsize=9, fontweight="bold",
                    color=ORIGINAL_COLOR)
    ax.legend(fontsize=8, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.14),
              ncol=3)
    n, failed = len(df), int(df["error"].notna().sum())
    ax.set_title(f"Sweep {sweep.name!r}: {n} scenarios" + (f" ({failed} failed)" if failed
                                                             else ""), loc="left", fontsize=11)
    return ax
