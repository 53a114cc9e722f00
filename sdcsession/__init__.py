"""sdcsession: statistical disclosure control of microdata as a session.

>>> import sdcsession as sdc
>>> sorted(n for n in ("SdcSession", "compare") if n in sdc.__all__)
['SdcSession', 'compare']
"""

from . import (
    datasets,
    io,
    methods,
    privacy,  # noqa: E402  (registers the "generalize" treatment for recipes)
    risk,
    utility,
)
from ._version import __version__
from .errors import (
    DataFileError,
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
from .io import read_data, write_data
from .methods.base import Treatment
from .present import compare, frontier, report
from .roles import Roles
from .session import SdcSession
from .session.sweep import Sweep
from .utility.hierarchy import Hierarchy

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
    "Hierarchy",

    "Sweep",
]
