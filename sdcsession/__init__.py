"""sdcsession: statistical disclosure control of microdata as a session.

>>> import sdcsession as sdc
>>> sorted(n for n in ("SdcSession", "compare") if n in sdc.__all__)
['SdcSession', 'compare']
"""

import importlib as _importlib
import importlib.abc as _abc
import importlib.machinery as _machinery
import importlib.util as _util
import sys as _sys

from . import present as _present  # noqa: F401  (registers s.plot, s.report(), ... on the session)
from ._version import __version__
from .errors import (
    DataFileError,
    DriftError,
    HistoryError,
    MeasureError,
    MissingDependencyError,
    ParameterError,
    RecipeError,
    ReleaseError,
    RoleError,
    SdcError,
    SdcWarning,
    TreatmentError,
)
from .roles import Roles
from .session import SdcSession

#: open a project file saved by ``SdcSession.save_project`` (see `SdcSession.open_project`)
open_project = SdcSession.open_project

__all__ = [
    "SdcSession",
    "compare",
    "frontier",
    "report",
    "Roles",
    "Treatment",
    "SdcError",
    "ReleaseError",
    "read_data",
    "write_data",
    "RoleError",
    "ParameterError",
    "TreatmentError",
    "HistoryError",
    "MeasureError",
    "RecipeError",
    "DriftError",
    "open_project",
    "SdcWarning",
    "DataFileError",
    "MissingDependencyError",
    "datasets",
    "io",
    "methods",
    "risk",
    "utility",
    "__version__",
    "privacy",
    "tables",
    "Hierarchy",
    "contracts",

    "Sweep",
    "val_table",
]


# --------------------------------------------------------------------------- old module paths
#: modules that moved into family folders: old path -> new path (relative to ``sdcsession``).
#: ``import sdcsession.methods.microaggregation_gower`` and the like keep working and give the
#: very module object of the new path (recipes name treatment types, never module paths).
_MOVED = {
    "methods._kanon_core": "methods.suppression._core",
    "methods._kanon_counter": "methods.suppression._counter",
    "methods._kanon_jit": "methods.suppression._bits_jit",
    "methods._kanon_pool": "methods.suppression._pool",
    "methods._kanon_restore": "methods.suppression._restore",
    "methods._kanon_rows": "methods.suppression._rows",
    "methods._kanon_search": "methods.suppression._search",
    "methods._local_recode_core": "methods.recoding._local_core",
    "methods._local_recode_search": "methods.recoding._local_search",
    "methods._mdav_jit": "methods.microaggregation._mdav_jit",
    "methods._nearest_index": "methods.microaggregation._nearest_index",
    "methods._recode_checks": "methods.recoding._checks",
    "methods._record_swap_core": "methods.swapping._record_core",
    "methods._record_swap_steps": "methods.swapping._record_steps",
    "methods._risk_suppression": "methods.suppression.by_risk",
    "methods._suppression_args": "methods.suppression._args",
    "methods._suppression_strata": "methods.suppression._strata",
    "methods.category_grouping": "methods.recoding.grouping",
    "methods.local_recoding": "methods.recoding.local_recoding",
    "methods.mdav": "methods.microaggregation.mdav",
    "methods.microaggregation_gower": "methods.microaggregation.gower",
    "methods.microaggregation_robust": "methods.microaggregation.robust",
    "methods.microaggregation_sorting": "methods.microaggregation.sorting",
    "methods.microaggregation_weights": "methods.microaggregation.weights",
    "methods.mv_top_coding": "methods.recoding.mv_top_coding",
    "methods.noise_restricted": "methods.noise.restricted",
    "methods.outlier_detection": "methods.noise.outliers",
    "methods.rank_swap_criteria": "methods.swapping.rank_swap_criteria",
    "methods.recode_intervals": "methods.recoding.intervals",
    "methods.record_swapping": "methods.swapping.record_swapping",
    "methods.romm": "methods.noise.romm",
    "methods.rounding": "methods.recoding.rounding",
    "methods.shuffling": "methods.swapping.shuffling",
    "methods.shuffling_models": "methods.swapping.shuffling_models",
    "methods.top_bottom_coding": "methods.recoding.top_bottom",
    "methods.univariate_groups": "methods.microaggregation.univariate",
    "present._plot_common": "present.plots._common",
    "present.plots_data": "present.plots.data",
    "present.plots_lattice": "present.plots.lattice",
    "present.plots_risk": "present.plots.risk",
    "present.plots_ru": "present.plots.ru",
    "present.plots_sweep": "present.plots.sweep",
    "present.plotting": "present.plots",
    "present.workbench_app": "present.workbench.app",
    "present.workbench_history": "present.workbench.history",
    "present.workbench_live": "present.workbench.live",
    "present.workbench_roles": "present.workbench.roles",
    "present.workbench_run": "present.workbench.run",
    "present.workbench_treat": "present.workbench.treat",
    "risk._fastmcd": "risk.robust._fastmcd",
    "risk._loglinear": "risk.population._loglinear",
    "risk._mcd_factors": "risk.robust._mcd_factors",
    "risk.linkage": "risk.numeric.linkage",
    "risk.model_risk": "risk.population.loglinear_model",
    "risk.population_uniques": "risk.population.uniques",
    "risk.rmd": "risk.numeric.rmd",
    "session._numeric_columns": "session.views._numeric_columns",
    "session.distributed_views": "session.distributed.views",
    "session.generalize_methods": "session.treatments",
    "session.multivariate_methods": "session.treatments",
    "session.recipe": "session.recipes.recipe",
    "session.risk_view": "session.views.risk_view",
    "session.scenario_measures": "session.views.scenario_measures",
    "session.swap_methods": "session.treatments",
    "session.sweep": "session.sweeps.grid",
    "session.sweep_plan": "session.sweeps.plan",
    "session.sweep_run": "session.sweeps.run",
    "session.treatment_methods": "session.treatments",
    "session.utility_view": "session.views.utility_view",
    "utility._benchmark_indicators": "utility.benchmark._specs",
    "utility._benchmark_intervals": "utility.benchmark._intervals",
    "utility._benchmark_kernels": "utility.benchmark._kernels",
    "utility._contingency": "utility.categorical._contingency",
    "utility._cramers_v": "utility.categorical._cramers_v",
    "utility._discrepancy": "utility.continuous._discrepancy",
    "utility._gdu_formulas": "utility.gdu.formulas",
    "utility._gdu_stats": "utility.gdu._stats",
    "utility._gdu_variables": "utility.gdu._variables",
    "utility._numeric": "utility.continuous._numeric",
}


#: subpackages and names imported on first use (PEP 562), so that ``import sdcsession`` stays light
_LAZY = {"datasets": None, "io": None, "methods": None, "privacy": None, "risk": None,
         "utility": None, "tables": None, "read_data": "io", "write_data": "io",
         "Treatment": "methods.base", "Hierarchy": "utility.hierarchy",
         "contracts": "utility.contracts", "val_table": "session.sweeps.val_table",
         "Sweep": "session.sweeps.grid", "compare": "present.compare",
         "frontier": "present.compare", "report": "present.report"}
#: entries of `_LAZY` that are modules themselves (``sdc.contracts``), not names in a module
_LAZY_MODULES = {"contracts"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        where = _LAZY[name]
        module = _importlib.import_module(f"{__name__}.{where or name}")
        value = module if where is None or name in _LAZY_MODULES else getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


_OLD = {f"sdcsession.{new}": f"sdcsession.{old}" for old, new in _MOVED.items()}


class _MovedModules(_abc.MetaPathFinder, _abc.Loader):
    """Old module paths: ``import sdcsession.<old>`` gives the module now at the new path, and
    importing a moved module also lists it under its old name in ``sys.modules``."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> object:
        if not fullname.startswith("sdcsession."):
            return None
        new = _MOVED.get(fullname[11:])
        if new is not None and not new.startswith(fullname[11:] + "."):
            # (an old module that became the package of its new module loads as that package)
            return _util.spec_from_loader(fullname, self)
        old = _OLD.get(fullname)
        if old is not None and old not in _sys.modules:
            spec = _machinery.PathFinder.find_spec(fullname, path)
            if spec is not None and spec.loader is not None:
                spec.loader = _AlsoOldName(spec.loader, old)
            return spec
        return None

    def create_module(self, spec: object) -> None:  # the default module; replaced below
        return None

    def exec_module(self, module: object) -> None:
        name = module.__name__  # type: ignore[attr-defined]
        real = _importlib.import_module("sdcsession." + _MOVED[name[11:]])
        _sys.modules[name] = real  # the import system hands out this object


class _AlsoOldName(_abc.Loader):
    """The file loader of a moved module, which also files the module under its old name."""

    def __init__(self, loader: object, old: str) -> None:
        self._loader, self._old = loader, old

    def create_module(self, spec: object) -> object:
        return self._loader.create_module(spec)  # type: ignore[attr-defined]

    def exec_module(self, module: object) -> None:
        self._loader.exec_module(module)  # type: ignore[attr-defined]
        _sys.modules.setdefault(self._old, module)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> object:  # get_source, get_filename, ... of the file loader
        return getattr(self._loader, name)


if not any(isinstance(f, _MovedModules) for f in _sys.meta_path):
    _sys.meta_path.insert(0, _MovedModules())
