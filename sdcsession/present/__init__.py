"""How a session is *shown*: HTML display, plots, scenario comparison and the frontier, reports.

Importing this package (``import sdcsession`` does) registers the presentation conveniences on the
session classes through `sdcsession.session.extensions` — ``s.plot``, ``s.report()``,
``s.compare()``, ``s.tree()`` and the ``_repr_html_`` of sessions, histories and risk/utility
views — so the session layer never imports this one. matplotlib is imported only when a plot is
drawn.
"""

from __future__ import annotations

import sys as _sys
import types as _types
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..session import HistoryView, RiskSummary, SdcSession, UtilitySummary
from ..session.extensions import (
    register_method,
    register_method_later,
    register_session_accessor,
)
from . import display

if TYPE_CHECKING:
    from .compare import TreeView

__all__ = ["compare", "frontier", "tree", "report", "SessionPlots", "TreeView"]

#: names imported on first use (PEP 562): the comparison with the first ``compare``/``s.tree()``,
#: the report with the first ``report``, the plots with the first ``s.plot``, the sweep's and
#: the optimiser's figures with their first ``.plot()``
_LAZY = {"compare": ".compare", "frontier": ".compare", "tree": ".compare",
         "TreeView": ".compare", "report": ".report", "SessionPlots": ".plots.accessor",
         "sweep_map": ".plots.sweep", "optimization_map": ".plots.optimize"}
#: names of functions that are also submodules: never replaced by their module when it is
#: imported (`_Package`), so ``sdcsession.present.report`` stays the function
_SHADOWED = frozenset({"compare", "report"})


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


class _Package(_types.ModuleType):
    """This package, whose functions ``compare`` and ``report`` share their names with
    submodules: importing a submodule leaves the function bound to the name (the import system
    would bind the module)."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _SHADOWED and isinstance(value, _types.ModuleType):
            return  # the function is imported from the submodule on first use (_LAZY)
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package


register_session_accessor("plot")("sdcsession.present.plots.accessor:SessionPlots")
register_method(SdcSession, "_repr_html_")(display.session_html)
register_method(RiskSummary, "_repr_html_")(display.risk_html)
register_method(UtilitySummary, "_repr_html_")(display.utility_html)


@register_method(HistoryView, "_repr_html_")
def _history_html(self: HistoryView) -> str:
    return display.history_html(list(self))


@register_method(SdcSession, "tree")
def _session_tree(self: SdcSession) -> TreeView:
    """The whole history tree (all branches), HEADs marked (``.to_frame()``, text, HTML)."""
    from .compare import tree

    return tree(self)


@register_method(SdcSession, "compare")
def _session_compare(self: SdcSession, *others: Any, measures: Any = None) -> pd.DataFrame:
    """`sdcsession.compare` of this scenario with ``others``."""
    from .compare import compare

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
    from .report import _check_args, _sessions, report

    ss = [self, *(_sessions(others, "others") if others else [])]
    _check_args(path, internal, title, figures, overwrite, ss)
    return report(self, *others, path=path, internal=internal, title=title, figures=figures,
                  overwrite=overwrite)


def _plot_lattice(self: Any, **kw: Any) -> Any:
    """The generalisation lattice of the last ``generalize`` step (see
    `sdcsession.present.plots.lattice.lattice_plot`)."""
    from .plots.lattice import lattice_plot

    return lattice_plot(self._s, **kw)


register_method_later("sdcsession.present.plots.accessor", "SessionPlots", "lattice",
                      _plot_lattice)


# ------------------------------------------------------------------- scenario sweeps
# (attached when the sweep engine is imported, on the first ``s.sweep``)
_SWEEP = "sdcsession.session.sweeps.grid"
register_method_later(_SWEEP, "Sweep", "plot", "sdcsession.present.plots.sweep:sweep_map")
__all__ += ["sweep_map"]


def _sweep_html(self: Any) -> str:
    """A sweep in a notebook: its summary line and the scenario table (formatted numbers, the
    frontier column shows which scenarios are not dominated)."""
    import html as _html

    from .compare_view import Comparison

    table = Comparison(self.table).to_html_table()
    return f"<p>{_html.escape(repr(self))}</p>{table}"


register_method_later(_SWEEP, "Sweep", "_repr_html_", _sweep_html)


# ------------------------------------------------------------------- the optimiser
# (attached when the optimiser is imported, on the first ``s.optimize``)
_OPTIMIZATION = "sdcsession.session.optimize.result"
register_method_later(_OPTIMIZATION, "Optimization", "plot",  # the frontier on the R-U map
                      "sdcsession.present.plots.optimize:optimization_map")
__all__ += ["optimization_map"]


def _optimization_html(self: Any) -> str:
    """An optimisation in a notebook: its summary line and the frontier plans."""
    import html as _html

    from .compare_view import Comparison

    cols = [c for c in self.frontier.columns if c not in ("feasible", "frontier", "error")]
    table = Comparison(self.frontier[cols]).to_html_table()
    return f"<p>{_html.escape(repr(self))}</p>{table}"


register_method_later(_OPTIMIZATION, "Optimization", "_repr_html_", _optimization_html)


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
