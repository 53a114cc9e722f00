"""What a session *is*: `SdcSession` (the one mutable HEAD), its roles, frozen states, the history
tree, cached measures, the risk and utility views, recipes and projects (`projects`: the whole
tree saved and reopened lazily, `SdcSession.apply_to` with its drift report).

This layer imports the kernels (``risk``, ``methods``, ``utility``) and ``io``, never the
presentation layer; plots, HTML, compare and report are attached to the session from above
(see `sdcsession.session.extensions`).
"""

from ..roles import Roles
from .extensions import register_method, register_session_accessor
from .history import Step, Tree, step_seed
from .recipes.recipe import load_recipe, parse_recipe, save_recipe, to_recipe
from .session import HistoryView, SdcSession
from .state import State
from .views.risk_view import RiskSummary
from .views.utility_view import UtilitySummary

__all__ = ["SdcSession", "HistoryView", "Roles", "State", "Step", "Tree", "step_seed",
           "RiskSummary", "UtilitySummary", "to_recipe", "parse_recipe", "load_recipe",
           "save_recipe", "register_session_accessor", "register_method"]

#: names imported on first use (PEP 562): the sweep engine and the optimiser load with the first
#: ``s.sweep``/``s.optimize`` (or the first use of these names), not with ``import sdcsession``
_LAZY = {"Sweep": ".sweeps.grid", "Optimization": ".optimize.result"}
__all__ += ["Sweep", "Optimization"]


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
