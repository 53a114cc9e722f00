"""Information loss for categorical variables.

- `measures`: missing values, changed records, contingency tables, Cramér's V, ...;
- `_contingency`, `_cramers_v`: the table and association kernels.
"""

from . import measures as _main
from .measures import (  # noqa: F401
    aad,
    contingency_loss,
    contingency_table,
    cramers_v,
    cramers_v_loss,
    ctbil,
    direct_distance,
    hellinger,
    missing_values,
    records_changed,
    suppressions,
    ut,
    ut2,
)

__all__ = ['missing_values', 'suppressions', 'records_changed', 'contingency_table', 'ut', 'ut2', 'aad', 'hellinger', 'ctbil', 'cramers_v', 'cramers_v_loss', 'contingency_loss', 'direct_distance']


def __getattr__(name: str) -> object:
    """Other names of `measures`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
