"""Swapping and shuffling: records or values exchanged between records.

- `rank_swapping`: `RankSwap` / `rank_swap` (sdcMicro ``rankSwap``), with the options in
  `rank_swap_criteria`;
- `record_swapping`: `RecordSwap` / `record_swap` — targeted record swapping of households
  (sdcMicro ``recordSwap``), built from `_record_core` and `_record_steps`;
- `shuffling`: `Shuffle` / `shuffle` (sdcMicro ``shuffle``), models in `shuffling_models`.
"""

from . import rank_swapping as _main
from .rank_swapping import RankSwap, rank_swap, swap_pairs  # noqa: F401
from .record_swapping import RecordSwap, record_swap  # noqa: F401
from .shuffling import Shuffle, shuffle  # noqa: F401

__all__ = ['rank_swap', 'RankSwap', 'swap_pairs', 'record_swap', 'RecordSwap', 'shuffle', 'Shuffle']


def __getattr__(name: str) -> object:
    """Other names of `rank_swapping`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
