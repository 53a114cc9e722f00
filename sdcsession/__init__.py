"""sdcsession: statistical disclosure control of microdata as a session.

>>> import sdcsession as sdc
>>> sorted(n for n in ("SdcSession", "compare") if n in sdc.__all__)
['SdcSession']
"""

from . import datasets, methods, risk, utility
from .errors import (
    DataFileError,
    HistoryError,
    MeasureError,
    MissingDependencyError,
    ParameterError,
    RecipeError,
    RoleError,
    SdcError,
    SdcWarning,
    TreatmentError,
)
from .methods.base import Treatment
from .roles import Roles
from .session import SdcSession

__version__ = "0.1.0"

__all__ = [
    "SdcSession",
    "Roles",
    "Treatment",
    "SdcError",
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
    "methods",
    "risk",
    "utility",
    "__version__",
]
