"""Treatments: pure kernels on DataFrames and the frozen Treatment specs that wrap them.

Importing this package registers every treatment type (see `TREATMENTS`).
"""

from .base import TREATMENTS, Result, Treatment
from .basic import Recode, RemoveColumns
from .local_recoding import LocalRecode
from .microaggregation import Microaggregation
from .microaggregation_gower import MicroaggregationGower
from .mv_top_coding import MvTopCode
from .noise import AddNoise
from .pram import Pram
from .recoding import GlobalRecode, GroupCategories, RoundValues, TopBottomCode
from .shuffling import Shuffle
from .suppression import LocalSuppression, SuppressByRisk
from .swapping import RankSwap

__all__ = [
    "TREATMENTS",
    "Result",
    "Treatment",
    "Recode",
    "RemoveColumns",
    "GlobalRecode",
    "GroupCategories",
    "TopBottomCode",
    "RoundValues",
    "LocalSuppression",
    "SuppressByRisk",
    "Pram",
    "AddNoise",
    "Microaggregation",
    "RankSwap",
    "Shuffle",
    "MvTopCode",
    "MicroaggregationGower",
    "LocalRecode",
]

# targeted record swapping (issue 18)
from .record_swapping import RecordSwap  # noqa: E402

__all__ += ["RecordSwap"]
