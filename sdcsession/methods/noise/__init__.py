"""Noise addition (sdcMicro ``addNoise``), with its variants.

- `addition`: `AddNoise` / `add_noise` — additive, additive0, correlated, correlated2, outliers,
  ROMM and restricted noise;
- `domain`: bounds (reflection), additive0's zeros, warnings when noise leaves a domain;
- `covariance`: pairwise-complete covariance and its repair (correlated noise);
- `restricted`: restricted noise (mean vector and covariance kept exactly);
- `outliers`: the outlier rule of ``addNoise(method="outdect")``;
- `romm`: random orthogonal matrix masking in blocks;
- `weights`: `PerturbWeights` / `perturb_weights` — noise on the sampling weights that keeps
  their (stratum) totals.
"""

from . import addition as _main
from .addition import NOISE_METHODS, AddNoise, add_noise, pairwise_covariance, robust_distance  # noqa: F401

__all__ = ['add_noise', 'AddNoise', 'NOISE_METHODS', 'robust_distance', 'pairwise_covariance']


def __getattr__(name: str) -> object:
    """Other names of `addition`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
