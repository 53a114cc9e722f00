"""Privacy models (k-anonymity, l-diversity, t-closeness, δ-disclosure, β-likeness, k-map,
δ-presence, average risk) and the optimal generalisation-lattice search (issue 19).

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

from ..utility.hierarchy import Hierarchy
from .check import CheckResult, check
from .distances import SensitiveDomain, emd_equal, emd_hierarchical, emd_ordered
from .lattice import NodeResult, SearchResult, evaluate_node, search
from .metrics import METRICS
from .models import (
    AverageRisk,
    BetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    RecursiveCLDiversity,
    TCloseness,
)
from .population import ESTIMATORS, DeltaPresence, KMap
from .treatment import GeneralizationResult, Generalize, generalize_frame

__all__ = [
    "Hierarchy", "PrivacyModel", "KAnonymity", "DistinctLDiversity", "EntropyLDiversity",
    "RecursiveCLDiversity", "TCloseness", "DeltaDisclosure", "BetaLikeness", "KMap",
    "DeltaPresence", "AverageRisk", "check", "CheckResult", "search", "SearchResult",
    "evaluate_node", "NodeResult", "generalize_frame", "Generalize", "GeneralizationResult",
    "METRICS", "SensitiveDomain", "emd_equal", "emd_ordered", "emd_hierarchical",
    "ESTIMATORS",
]
