"""Recoding (non-perturbative, sdcMicro's manual "recoding" family).

- `treatments`: `GlobalRecode` / `global_recode` (sdcMicro ``globalRecode``) and the
  treatments of the modules below;
- `intervals`: computed breaks (``equalAmount``, ``logEqui``);
- `grouping`: `GroupCategories` (``groupAndRename``);
- `top_bottom`: `TopBottomCode` (``topBotCoding``);
- `rounding`: `RoundValues`;
- `local_recoding`: `LocalRecode` (``LocalRecProg``), with its engine `_local_core` and
  `_local_search` (many keys: the hub trie of `sdcsession.methods.suppression._hub_trie`);
- `mv_top_coding`: `MvTopCode` (``mvTopCoding``);
- `_checks`: checks shared by the recodes.
"""

from . import treatments as _main
from .local_recoding import LocalRecode, local_recode  # noqa: F401
from .mv_top_coding import MvTopCode, mv_top_code  # noqa: F401
from .treatments import (  # noqa: F401
    MAX_INTERVALS,
    GlobalRecode,
    GroupCategories,
    RoundValues,
    TopBottomCode,
    global_recode,
    group_categories,
    interval_breaks,
    round_values,
    top_bottom_code,
)

__all__ = ['global_recode', 'interval_breaks', 'MAX_INTERVALS', 'group_categories', 'top_bottom_code', 'round_values', 'GlobalRecode', 'GroupCategories', 'TopBottomCode', 'RoundValues', 'local_recode', 'LocalRecode', 'mv_top_code', 'MvTopCode']


def __getattr__(name: str) -> object:
    """Other names of `treatments`, which this package replaces (its old module path)."""
    if not name.startswith("__") and hasattr(_main, name):
        return getattr(_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
