"""Privacy models (k-anonymity, l-diversity, t-closeness, δ-disclosure, β-likeness, k-map,
δ-presence, average risk) and the optimal generalisation-lattice search.

- models: `KAnonymity`, `DistinctLDiversity`, `EntropyLDiversity`, `RecursiveCLDiversity`,
  `TCloseness`, `DeltaDisclosure`, `BetaLikeness`, `KMap`, `DeltaPresence`, `AverageRisk`;
- `check(data, keys, models)`: which models hold on a file and where they fail;
- `search(data, hierarchies, models, ...)`: the lattice search (the session's `generalize` step
  is the `Generalize` treatment), `evaluate_node` for one node, `generalize_frame` to release a
  node; the metrics are listed in ``METRICS``.

Examples
--------
>>> import pandas as pd
>>> from sdcsession import privacy
>>> df = pd.DataFrame({"zip": ["12", "13", "12", "22"], "ill": ["a", "b", "b", "a"]})
>>> privacy.check(df, ["zip"], [privacy.KAnonymity(2)]).holds
(False,)
"""

from __future__ import annotations

__all__ = [
    "Hierarchy", "PrivacyModel", "KAnonymity", "DistinctLDiversity", "EntropyLDiversity",
    "RecursiveCLDiversity", "TCloseness", "DeltaDisclosure", "BetaLikeness", "KMap",
    "DeltaPresence", "AverageRisk", "check", "CheckResult", "search", "SearchResult",
    "evaluate_node", "NodeResult", "generalize_frame", "Generalize", "GeneralizationResult",
    "METRICS", "SensitiveDomain", "emd_equal", "emd_ordered", "emd_hierarchical",
    "ESTIMATORS", "datafly",
]

# names that are also submodules are bound eagerly: importing the submodule later must not
# replace the function by the module
from .check import CheckResult, check  # noqa: E402

#: public name -> the module that defines it (imported on first use, PEP 562), so that importing
#: this package stays light
_LAZY = {
    'Hierarchy': '..utility.hierarchy',
    'CheckResult': '.check',
    'check': '.check',
    'SensitiveDomain': '.distances',
    'emd_equal': '.distances',
    'emd_hierarchical': '.distances',
    'emd_ordered': '.distances',
    'NodeResult': '.lattice',
    'SearchResult': '.lattice',
    'evaluate_node': '.lattice',
    'datafly': '.lattice',
    'search': '.lattice',
    'METRICS': '.metrics',
    'AverageRisk': '.models',
    'BetaLikeness': '.models',
    'DeltaDisclosure': '.models',
    'DistinctLDiversity': '.models',
    'EntropyLDiversity': '.models',
    'KAnonymity': '.models',
    'PrivacyModel': '.models',
    'RecursiveCLDiversity': '.models',
    'TCloseness': '.models',
    'ESTIMATORS': '.population',
    'DeltaPresence': '.population',
    'KMap': '.population',
    'GeneralizationResult': '.treatment',
    'Generalize': '.treatment',
    'generalize_frame': '.treatment',
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

