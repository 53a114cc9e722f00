"""Global data utility (GDU) model: univariate and bivariate local utilities combined.

- `model`: `gdu`, `GduResult`;
- `formulas`: the local utility formulas (``ldu_psr``, ``grc``, ...);
- `_stats`, `_variables`: the statistical tests and the variable model;
- `_cache`: the result cache of the tests across calls (by content fingerprint).
"""

from . import model as _main
from .model import TYPES, GduResult, gdu, grc, ldu_biv_rule, ldu_psr, ldu_recoding  # noqa: F401

__all__ = ['ldu_psr', 'grc', 'ldu_biv_rule', 'ldu_recoding', 'GduResult', 'gdu', 'TYPES']


def __getattr__(name: str) -> object:
    """Other names of `model`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
