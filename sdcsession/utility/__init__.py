"""Information loss / utility measures as pure functions of (original, masked) DataFrames.

Usable on files anonymised by any tool. Records are paired by index: measures that compare
records one by one raise `MeasureError` when records were removed or
added; distributional measures work on files of different lengths. ``available_measures()`` lists
the catalogue and ``compute(name, original, masked, **params)`` runs a measure by name.

Example
-------
>>> import pandas as pd
>>> import sdcsession.utility as u
>>> o = pd.DataFrame({"x": [1.0, 3.0]}); m = pd.DataFrame({"x": [2.0, 3.0]})
>>> round(u.il1s(o, m), 12)
0.25
"""

from __future__ import annotations

from .catalogue import CATALOGUE, MeasureSpec, available_measures, compute, register_measure
from .categorical import (
    aad,
    contingency_loss,
    contingency_table,
    cramers_v,
    cramers_v_loss,
    ctbil,
    direct_distance,
    hellinger,
    missing_values,
    records_changed,
    suppressions,
    ut,
    ut2,
)
from .continuous import (
    ILVariables,
    discrepancy_table,
    eigen_difference,
    il1,
    il1s,
    il1s_sdcmicro,
    il_correl,
    il_variables,
    mcd_covariance,
)
from .distribution import cluster_utility, ecdf_measures, ks_test, propensity_score
from .entropy import dist, ebil, entropy, entropy_change
from .generalization import (
    Hierarchy,
    LossMetric,
    c_avg,
    discernibility,
    equivalence_class_sizes,
    generalisation_counts,
    loss_metric,
)

__all__ = [
    # catalogue
    "CATALOGUE", "MeasureSpec", "available_measures", "compute", "register_measure",
    # categorical
    "missing_values", "suppressions", "records_changed", "contingency_table", "ut", "ut2", "aad",
    "hellinger", "ctbil", "contingency_loss", "cramers_v", "cramers_v_loss", "direct_distance",
    # entropy
    "entropy", "entropy_change", "ebil", "dist",
    # continuous
    "il1s", "il1s_sdcmicro", "il1", "discrepancy_table", "eigen_difference", "il_correl",
    "il_variables", "ILVariables", "mcd_covariance",
    # distribution
    "ks_test", "ecdf_measures", "propensity_score", "cluster_utility",
    # generalisation
    "generalisation_counts", "equivalence_class_sizes", "c_avg", "discernibility", "Hierarchy",
    "loss_metric", "LossMetric",
]

# Modules written separately (benchmark indicators, global data utility model, regression): their
# public names are re-exported when present, so this package works before they exist.
for _mod in ("benchmark", "gdu", "regression"):
    try:
        _m = __import__(f"{__name__}.{_mod}", fromlist=["__all__"])
    except ImportError:  # pragma: no cover - module not written yet
        continue
    for _n in getattr(_m, "__all__", []):
        globals()[_n] = getattr(_m, _n)
        if _n not in __all__:
            __all__.append(_n)
del _mod

# frequency-table information loss of record swapping (issue 18)
from .info_loss import InfoLoss, TableLoss, info_loss  # noqa: E402

__all__ += ["info_loss", "InfoLoss", "TableLoss"]
