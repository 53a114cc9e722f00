"""Scenario sweeps: a grid of treatment plans run as branches.

- `grid`: `Sweep` and the ``sweep`` method of the session;
- `plan`: the plan, checked before anything runs;
- `run`: running it, serially or in parallel;
- `val_table`: several perturbation methods compared on one numeric file (sdcMicro valTable).
"""

from .grid import SWEEP_FORMAT, Sweep, register_session_class, sweep  # noqa: F401

__all__ = ['Sweep', 'SWEEP_FORMAT', 'sweep', 'register_session_class']
