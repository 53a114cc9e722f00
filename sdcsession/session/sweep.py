"""Scenario sweeps (issue 22): `SdcSession.sweep` runs a grid of treatment plans as branches."""

from __future__ import annotations

__all__ = ["SweepMixin"]


class SweepMixin:
    """Scenario sweeps (issue 22)."""
