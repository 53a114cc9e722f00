"""Disclosure risk of masked numeric variables.

- `disclosure`: `interval_disclosure` (sdcMicro ``dRisk``), `record_linkage_risk`;
- `linkage`: `record_linkage` — distance-based record linkage (sdcMicro ``recordLinkage``);
- `rmd`: `rmd_risk` — robust-distance disclosure risk (sdcMicro ``dRiskRMD``);
- `_rmd_mcd`: its modal MCD (repeated searches in threads, a cache of the last fits);
- `_rmd_near`: its compiled fixed-radius neighbour test (RMDID2).
"""

from . import disclosure as _main
from .disclosure import interval_disclosure, record_linkage_risk  # noqa: F401
from .linkage import LinkageResult, record_linkage  # noqa: F401
from .rmd import RMDRisk, rmd_risk  # noqa: F401

__all__ = ['interval_disclosure', 'record_linkage_risk', 'LinkageResult', 'record_linkage', 'RMDRisk', 'rmd_risk']


def __getattr__(name: str) -> object:
    """Other names of `disclosure`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
