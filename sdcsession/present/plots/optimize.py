"""The R-U map of an optimisation (`optimization_map`, attached as ``Optimization.plot()``).

Every feasible plan the optimiser evaluated (every privacy target and contract met) is a point
on (information loss, disclosure risk); the frontier plans are joined by the frontier staircase
of `sdcsession.present.plots.ru.ru_map` and named ``plan-0``, ``plan-1``... as in
``Optimization.apply(i)``. matplotlib is imported lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import ParameterError
from .ru import _place_labels, ru_map

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["optimization_map"]


def optimization_map(opt: Any, *, ax: Axes | None = None, labels: bool = True) -> Axes:
    """R-U map of the feasible plans of ``opt`` with its frontier, the frontier plans named
    ``plan-<i>`` (their position in ``opt.frontier``). Returns the Axes.

    Example
    -------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=2), keys=["region", "sex"],
    ...                    seed=1)
    >>> opt = s.optimize([("k_anonymity", 2)], budget=2, seed=0)
    >>> ax = optimization_map(opt)
    >>> [t.get_text() for t in ax.texts][:1]
    ['plan-0']
    """
    if not isinstance(labels, (bool, np.bool_)):
        raise ParameterError(f"labels: expected True or False, got {labels!r:.40}")
    t = opt.table
    df = t[t["feasible"].to_numpy(bool)].copy() if len(t) else t.copy()
    names = [""] * len(df)
    front = df["frontier"].to_numpy(bool) if len(df) else np.zeros(0, bool)
    order = {tuple(p): i for i, p in enumerate(opt.frontier["plan"])}
    for j, p in enumerate(df["plan"]):
        if tuple(p) in order:
            names[j] = f"plan-{order[tuple(p)]}"
    df["scenario"] = names
    ax = ru_map(df, risk=opt.risk, loss=opt.loss, ax=ax, labels=False, frontier=True,
                anchors=False)
    if labels and front.any():
        x = pd.to_numeric(df[opt.loss], errors="coerce").to_numpy(float)
        y = pd.to_numeric(df[opt.risk], errors="coerce").to_numpy(float)
        _place_labels(ax, [n for n, f in zip(names, front) if f], x[front], y[front])
    ax.set_title(f"Optimisation: {opt.evaluations} plans evaluated, {len(df)} feasible, "
                 f"{len(opt)} on the frontier", loc="left", fontsize=11)
    return ax
