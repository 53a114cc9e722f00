"""Benchmarking indicators with confidence intervals (data-specific utility).

- `indicators`: weighted means, totals, ratios, quantiles, Gini, ARPR; `indicator_ci`,
  `compare_indicators`;
- `_specs`, `_intervals`, `_kernels`: indicator specs, intervals and weighted kernels.
"""

from . import indicators as _main
from .indicators import (  # noqa: F401
    ArprResult,
    Indicator,
    arpr,
    ci_overlap,
    compare_indicators,
    gini,
    indicator_ci,
    weighted_mean,
    weighted_median,
    weighted_quantile,
    weighted_ratio,
    weighted_total,
)

__all__ = ['weighted_mean', 'weighted_total', 'weighted_ratio', 'weighted_quantile', 'weighted_median', 'gini', 'arpr', 'ArprResult', 'Indicator', 'indicator_ci', 'ci_overlap', 'compare_indicators']


def __getattr__(name: str) -> object:
    """Other names of `indicators`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
