"""Treatments: pure kernels on DataFrames and the frozen Treatment specs that wrap them.

One folder per family, as sdcMicro's manual groups them: `recoding`, `suppression`,
`microaggregation`, `noise`, `swapping`, `pram`; the shared parameter checks (`params`), value
encoding (`encoding`), the `Treatment` base class and its registry (`base`) and the basic
treatments (`basic`: recode categories, remove columns) sit at the top.

Names are imported on first use, so ``import sdcsession`` stays light. The registry
`TREATMENTS` imports every family the first time it is read, so a recipe naming any treatment
type replays without importing anything by hand.
"""


__all__ = [
    "TREATMENTS",
    "Result",
    "Treatment",
    "Recode",
    "RemoveColumns",
    "NewIds",
    "generate_strata",
    "tool_schemas",
    "treatment_schema",
    "validate_step",
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

__all__ += ["RecordSwap", "record_swap"]

#: public name -> the module that defines it (imported on first use, PEP 562), so that importing
#: this package stays light
_LAZY = {
    'TREATMENTS': '.base',
    'Result': '.base',
    'Treatment': '.base',
    'Recode': '.basic',
    'RemoveColumns': '.basic',
    'NewIds': '.basic',
    'generate_strata': '.basic',
    'tool_schemas': '.schema',
    'treatment_schema': '.schema',
    'validate_step': '.schema',
    'MicroaggregationGower': '.microaggregation.gower',
    'Microaggregation': '.microaggregation.treatment',
    'AddNoise': '.noise.addition',
    'PerturbWeights': '.noise.weights',
    'Pram': '.pram.invariant',
    'LocalRecode': '.recoding.local_recoding',
    'MvTopCode': '.recoding.mv_top_coding',
    'GlobalRecode': '.recoding.treatments',
    'GroupCategories': '.recoding.treatments',
    'RoundValues': '.recoding.treatments',
    'TopBottomCode': '.recoding.treatments',
    'LocalSuppression': '.suppression.local',
    'SuppressByRisk': '.suppression.local',
    'RankSwap': '.swapping.rank_swapping',
    'Shuffle': '.swapping.shuffling',
    'RecordSwap': '.swapping.record_swapping',
    'record_swap': '.swapping.record_swapping',
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})

