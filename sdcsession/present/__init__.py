"""How a session is *shown*: HTML display, plots, scenario comparison and the frontier, reports.

Importing this package (``import sdcsession`` does) registers the presentation conveniences on the
session classes through `sdcsession.session.extensions` — ``s.plot``, ``s.report()``,
``s.compare()``, ``s.tree()`` and the ``_repr_html_`` of sessions, histories and risk/utility
views — so the session layer never imports this one. matplotlib is imported only when a plot is
drawn.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..session import HistoryView, RiskSummary, SdcSession, UtilitySummary
from ..session.extensions import register_method, register_session_accessor
from . import display
from .compare import TreeView, compare, frontier, tree
from .plots.accessor import SessionPlots
from .report import report

__all__ = ["compare", "frontier", "tree", "report", "SessionPlots", "TreeView"]

register_session_accessor("plot")(SessionPlots)
register_method(SdcSession, "_repr_html_")(display.session_html)
register_method(RiskSummary, "_repr_html_")(display.risk_html)
register_method(UtilitySummary, "_repr_html_")(display.utility_html)


@register_method(HistoryView, "_repr_html_")
def _history_html(self: HistoryView) -> str:
    return display.history_html(list(self))


@register_method(SdcSession, "tree")
def _session_tree(self: SdcSession) -> TreeView:
    """The whole history tree (all branches), HEADs marked (``.to_frame()``, text, HTML)."""
    return tree(self)


@register_method(SdcSession, "compare")
def _session_compare(self: SdcSession, *others: Any, measures: Any = None) -> pd.DataFrame:
    """`sdcsession.compare` of this scenario with ``others``."""
    return compare(self, *others, measures=measures)


@register_method(SdcSession, "report")
def _session_report(self: SdcSession, path: Any = None, *others: Any, internal: bool = False,
                    title: str | None = None, figures: bool = True,
                    overwrite: bool = False) -> Any:
    """Self-contained HTML report of this scenario (and ``others``); see `sdcsession.report`.

    With ``path`` the report is written there and the `pathlib.Path` is returned; without, a
    `sdcsession.present.report.Report` (shown in a notebook, ``.save(path)``, ``.html``). Every
    argument is checked (`ParameterError` naming it) before anything is built. An existing file
    is replaced only with ``overwrite=True``, the file the data were read from never.
    """
    from .report import _check_args, _sessions

    ss = [self, *(_sessions(others, "others") if others else [])]
    _check_args(path, internal, title, figures, overwrite, ss)
    return report(self, *others, path=path, internal=internal, title=title, figures=figures,
                  overwrite=overwrite)


@register_method(SessionPlots, "lattice")
def _plot_lattice(self: SessionPlots, **kw: Any) -> Any:
    """The generalisation lattice of the last ``generalize`` step (see
    `sdcsession.present.plots.lattice.lattice_plot`)."""
    from .plots.lattice import lattice_plot

    return lattice_plot(self._s, **kw)


# ------------------------------------------------------------------- scenario sweeps
from ..session.sweeps.grid import Sweep  # noqa: E402
from .plots.sweep import sweep_map  # noqa: E402

register_method(Sweep, "plot")(sweep_map)
__all__ += ["sweep_map"]


@register_method(Sweep, "_repr_html_")
def _sweep_html(self: Sweep) -> str:
    """A sweep in a notebook: its summary line and the scenario table (formatted numbers, the
    frontier column shows which scenarios are not dominated)."""
    import html as _html

    from .compare_view import Comparison

    table = Comparison(self.table).to_html_table()
    return f"<p>{_html.escape(repr(self))}</p>{table}"


# ------------------------------------------------------------------- the optimiser
from ..session.optimize import Optimization  # noqa: E402
from .plots.optimize import optimization_map  # noqa: E402

register_method(Optimization, "plot")(optimization_map)  # the frontier on the R-U map
__all__ += ["optimization_map"]


@register_method(Optimization, "_repr_html_")
def _optimization_html(self: Optimization) -> str:
    """An optimisation in a notebook: its summary line and the frontier plans."""
    import html as _html

    from .compare_view import Comparison

    cols = [c for c in self.frontier.columns if c not in ("feasible", "frontier", "error")]
    table = Comparison(self.frontier[cols]).to_html_table()
    return f"<p>{_html.escape(repr(self))}</p>{table}"


@register_method(SdcSession, "workbench")
def _session_workbench(self: SdcSession, *, background: bool | None = None) -> Any:
    """The interactive workbench bound to this session (an ``ipywidgets`` widget; needs the
    ``gui`` extra): roles, treatment forms, history with undo/redo/branch and the recipe as code,
    live risk and utility with the R-U map; see `sdcsession.present.workbench.widget`."""
    try:
        import ipywidgets  # noqa: F401
    except ImportError as e:
        from ..errors import MissingDependencyError, install_hint

        raise MissingDependencyError(
            "workbench: needs ipywidgets; install it with " + install_hint("gui")) from e
    from .workbench.widget import workbench

    return workbench(self, background=background)
