"""PRAM, the post-randomisation method (sdcMicro ``pram``).

- `invariant`: `Pram` / `pram` — invariant PRAM and its transition matrices.
"""

from . import invariant as _main
from .invariant import (  # noqa: F401
    MAX_CATEGORIES,
    MAX_NUMERIC_CATEGORIES,
    Pram,
    invariant_matrix,
    pram,
    pram_matrix,
)

__all__ = ['pram', 'Pram', 'pram_matrix', 'invariant_matrix', 'MAX_NUMERIC_CATEGORIES', 'MAX_CATEGORIES']


def __getattr__(name: str) -> object:
    """Other names of `invariant`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
