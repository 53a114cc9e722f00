"""Robust statistics shared by the risk measures, the treatments (noise, multivariate top
coding) and the robust utility measures.

- `minimum_covariance`: `mcd` (the minimum covariance determinant, as R's robustbase), `MCD`,
  `mahalanobis`, `mahalanobis2`;
- `_fastmcd`: C-steps, random starts, the nested FastMCD search;
- `_fastmcd_jit`: the compiled C-steps and random starts (numba, loaded on first use);
- `_fastmcd_select`: the compiled selection of the h smallest distances of a C-step;
- `_fastmcd_stages`: the compiled random-start stages of one search in one call (no GIL);
- `_fastmcd_shared`: converged C-steps sharing their paths across starts and repeated searches;
- `_pcg64`: numpy's PCG64 uniform numbers in compiled code (the random starts' keys);
- `_mcd_factors`: consistency and finite-sample correction factors.
"""

from . import minimum_covariance as _main
from .minimum_covariance import MCD, mahalanobis2, mcd  # noqa: F401

__all__ = ['MCD', 'mcd', 'mahalanobis2']


def __getattr__(name: str) -> object:
    """Other names of `minimum_covariance`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
