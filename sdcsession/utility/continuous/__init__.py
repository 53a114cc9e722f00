"""Information loss for continuous variables.

- `measures`: IL1s, IL1, the discrepancy measures, eigenvalues, robust covariances, ...;
- `_discrepancy`: the Domingo-Ferrer / Mateo-Sanz / Torra table;
- `_numeric`: numeric column selection, checked standard deviations and the numeric
  matrices shared by the measures of one comparison (`reuse_matrices`);
- `exact`: IL1s and the correlation discrepancy from exact sums, chunk by chunk (pandas and
  Dask give the same doubles).
"""

from . import measures as _main
from .measures import (  # noqa: F401
    ILVariables,
    discrepancy_table,
    eigen_difference,
    il1,
    il1s,
    il1s_sdcmicro,
    il_correl,
    il_variables,
    mcd_covariance,
)

__all__ = ['il1s', 'il1s_sdcmicro', 'il1', 'discrepancy_table', 'mcd_covariance', 'eigen_difference', 'il_correl', 'ILVariables', 'il_variables']


def __getattr__(name: str) -> object:
    """Other names of `measures`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
