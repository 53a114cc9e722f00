"""Disclosure-risk measures as pure functions on DataFrames (no session needed).

Frequencies with missing keys as wildcards, individual / global / household risk, prosecutor /
journalist / marketer attacker models, k-anonymity violations, μ-ARGUS-style unsafe combinations
and risky cells, l-diversity, SUDA2, model-based risk (log-linear models, population uniques) and
numeric (interval disclosure, record linkage, robust-distance) risk. Key variables are read as
categories. Risk measured by attack (singling out, linkability, inference, TCAP, DCR/NNDR) is in
the subpackage `sdcsession.risk.attacks`.

Example
-------
>>> import pandas as pd
>>> import sdcsession.risk as risk
>>> df = pd.DataFrame({"sex": ["m", "m", "f"], "age5": ["0-4", "0-4", "0-4"]})
>>> risk.k_violations(df, ["sex", "age5"], 2)
1
"""


__all__ = [
    "frequencies",
    "frequencies_from_codes",
    "individual_risk",
    "individual_risk_from_freq",
    "global_risk",
    "risk_threshold",
    "expected_reidentifications",
    "household_risk",
    "household_risk_from_individual",
    "k_violations",
    "unsafe_combinations",
    "l_diversity",
    "l_diversity_summary",
    "LDiversitySummary",
    "interval_disclosure",
    "record_linkage_risk",
    "model_risk",
    "ModelRisk",
    "population_uniques",
    "PopulationUniques",
    "risky_cells",
    "tables_from_levels",
    "record_linkage",
    "LinkageResult",
    "attacker_models",
    "AttackerRisk",
    "rmd_risk",
    "RMDRisk",
    "suda2",
]

import sys as _sys  # noqa: E402
import types as _types  # noqa: E402

#: names of functions that are also submodules: imported on first use like every name, and never
#: replaced by their module when it is imported (`_Package`)
_SHADOWED = frozenset({"frequencies", "risky_cells", "suda2"})


class _Package(_types.ModuleType):
    """This package, whose functions ``frequencies``, ``risky_cells`` and ``suda2`` share their
    names with submodules: importing a submodule leaves the function bound to the name (the
    import system would bind the module)."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _SHADOWED and isinstance(value, _types.ModuleType):
            return  # the function is imported from the submodule on first use (_LAZY)
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package

#: public name -> the module that defines it (imported on first use, PEP 562), so that importing
#: this package stays light
_LAZY = {
    'AttackerRisk': '.attacker',
    'attacker_models': '.attacker',
    'frequencies': '.frequencies',
    'frequencies_from_codes': '.frequencies',
    'household_risk': '.household',
    'household_risk_from_individual': '.household',
    'expected_reidentifications': '.individual',
    'global_risk': '.individual',
    'risk_threshold': '.individual',
    'individual_risk': '.individual',
    'individual_risk_from_freq': '.individual',
    'k_violations': '.kanon',
    'unsafe_combinations': '.kanon',
    'LDiversitySummary': '.ldiversity',
    'l_diversity': '.ldiversity',
    'l_diversity_summary': '.ldiversity',
    'interval_disclosure': '.numeric.disclosure',
    'record_linkage_risk': '.numeric.disclosure',
    'LinkageResult': '.numeric.linkage',
    'record_linkage': '.numeric.linkage',
    'RMDRisk': '.numeric.rmd',
    'rmd_risk': '.numeric.rmd',
    'ModelRisk': '.population.loglinear_model',
    'model_risk': '.population.loglinear_model',
    'PopulationUniques': '.population.uniques',
    'population_uniques': '.population.uniques',
    'risky_cells': '.risky_cells',
    'tables_from_levels': '.risky_cells',
    'suda2': '.suda2',
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

