"""Session methods for ARX-style optimal generalisation under privacy models (issue 19): `generalize`."""

from __future__ import annotations

__all__ = ["GeneralizeMethods"]


class GeneralizeMethods:
    """Session methods for ARX-style optimal generalisation under privacy models (issue 19)."""
