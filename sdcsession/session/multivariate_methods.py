"""Session methods for multivariate treatments (issue 18): `mv_top_code`, `microaggregation_gower`, `local_recode`."""

from __future__ import annotations

__all__ = ["MultivariateMethods"]


class MultivariateMethods:
    """Session methods for multivariate treatments (issue 18)."""
