"""Figures for scenarios (matplotlib, imported lazily inside each function).

Every function returns the matplotlib Axes (or the Figure for multi-panel plots) and takes
``ax=`` to draw into an existing Axes. Scenarios are sessions (their HEAD), steps of a history
tree, or — for the data plots — plain DataFrames; the original data comes from the scenarios'
tree (``original=True``). Record-level values are never written as text; box plots draw outliers
as points only when ``fliers=True`` (the report never uses them).

- `ru_map`: the R-U confidentiality map (Duncan, Keller-McNulty & Stokes 2001) with the
  non-dominated frontier, labels, and the "original data" and "no release" anchors;
- `distributions`: numeric variable before/after (histogram, kernel density, box plot);
- `mosaic`: one or two categorical variables, original vs masked / across scenarios;
- `suppressions`: suppressions per key variable (grouped bars);
- `risk_distribution`: distribution of the individual risk (ECDF or histogram);
- `risk_path`: risk (and information loss) after every step of a scenario;
- `ci_plot`: point estimates with confidence intervals across scenarios.

Example
-------
>>> import sdcsession as sdc
>>> import sys; "matplotlib.pyplot" in sys.modules or True   # nothing imported yet by sdcsession
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...session.extensions import attach_registered
from ..compare import compare
from ._common import LABELS, PALETTE, to_png
from .data import distributions, mosaic
from .risk import ci_plot, risk_distribution, suppressions
from .ru import risk_path, ru_map

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["ru_map", "distributions", "mosaic", "suppressions", "risk_distribution", "risk_path",
           "ci_plot", "to_png", "SessionPlots", "LABELS", "PALETTE"]


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
        """R-U map of this session and ``others`` (see `ru_map`)."""
        return ru_map(compare(self._s, *others), **kw)

    def distributions(self, column: str, *others: Any, **kw: Any) -> Axes:
        """Before/after distribution of ``column`` (see `distributions`)."""
        return distributions(self._s, *others, column=column, **kw)

    def mosaic(self, columns: str | Sequence[str], *others: Any, **kw: Any) -> Figure:
        """Mosaic of one or two categorical variables, original vs HEAD (see `mosaic`)."""
        return mosaic(self._s, *others, columns=columns, **kw)

    def suppressions(self, *others: Any, **kw: Any) -> Axes:
        """Suppressions per key variable (see `suppressions`)."""
        return suppressions(self._s, *others, **kw)

    def risk_distribution(self, *others: Any, **kw: Any) -> Axes:
        """Individual-risk distribution, original vs HEAD (see `risk_distribution`)."""
        return risk_distribution(self._s, *others, **kw)

    def risk_path(self, **kw: Any) -> Axes:
        """Risk after each step of this scenario (see `risk_path`)."""
        return risk_path(self._s, **kw)


attach_registered(__name__)  # the methods the presentation layer registered for its classes
