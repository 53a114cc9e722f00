"""Session methods for census-style targeted record swapping (issue 18): `record_swap`."""

from __future__ import annotations

__all__ = ["RecordSwapMethods"]


class RecordSwapMethods:
    """Session methods for census-style targeted record swapping (issue 18)."""
