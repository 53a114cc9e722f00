"""Microaggregation (sdcMicro ``microaggregation`` and ``mafast``-style groupings).

- `treatment`: `Microaggregation` / `microaggregation` — the methods and their dispatch;
- `mdav`: MDAV grouping, compiled in `_mdav_jit` (a k-d tree with removal);
- `robust`: ``rmd`` (robust Mahalanobis distance) with `_nearest_index`;
- `sorting`: ``simple``, ``single``, ``onedims``, ``pca``, ``clustpppca`` ... groupings;
- `univariate`: individual ranking and optimal univariate groupings;
- `weights`: weighted group aggregates;
- `gower`: `MicroaggregationGower` for mixed data (``microaggrGower``).
"""

from . import treatment as _main
from .gower import MicroaggregationGower, gower_groups, microaggregation_gower  # noqa: F401
from .treatment import (  # noqa: F401
    MICROAGGREGATION_METHODS,
    Microaggregation,
    mdav_groups,
    microaggregation,
    optimal_univariate_groups,
    ranking_groups,
    within_group_ss,
)

__all__ = ['microaggregation', 'Microaggregation', 'mdav_groups', 'ranking_groups', 'optimal_univariate_groups', 'within_group_ss', 'MICROAGGREGATION_METHODS', 'microaggregation_gower', 'gower_groups', 'MicroaggregationGower']


def __getattr__(name: str) -> object:
    """Other names of `treatment`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
