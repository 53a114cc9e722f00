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
    # combined score
    "utility_score", "UtilityScore",
]

#: the names of the global data utility model (`sdcsession.utility.gdu`, imported on first use)
_GDU = ("ldu_psr", "grc", "ldu_biv_rule", "ldu_recoding", "GduResult", "gdu", "TYPES")
__all__ += [*_GDU]
#: the names of the benchmark indicators and the regression comparison (imported on first use)
_BENCHMARK = ("weighted_mean", "weighted_total", "weighted_ratio", "weighted_quantile",
              "weighted_median", "gini", "arpr", "ArprResult", "Indicator", "indicator_ci",
              "ci_overlap", "compare_indicators")
_REGRESSION = ("compare_regression", "fit_formula", "RegressionComparison", "MODELS")
__all__ += [*_BENCHMARK, *_REGRESSION]


__all__ += ["info_loss", "InfoLoss", "TableLoss", "model_utility", "ModelUtility"]

import sys as _sys  # noqa: E402
import types as _types  # noqa: E402

#: names of functions that are also submodules: imported on first use like every name, and never
#: replaced by their module when it is imported (`_Package`): ``utility.gdu`` is the function
_SHADOWED = frozenset({"gdu", "entropy", "info_loss"})


class _Package(_types.ModuleType):
    """This package, whose functions ``gdu``, ``entropy`` and ``info_loss`` share their names with
    submodules: importing a submodule leaves the function bound to the name (the import system
    would bind the module)."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _SHADOWED and isinstance(value, _types.ModuleType):
            return  # the function is imported from the submodule on first use (_LAZY)
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package

#: public name -> the module that defines it (imported on first use, PEP 562), so that importing
#: this package stays light
_LAZY = {
    'CATALOGUE': '.catalogue',
    'MeasureSpec': '.catalogue',
    'available_measures': '.catalogue',
    'compute': '.catalogue',
    'register_measure': '.catalogue',
    'aad': '.categorical.measures',
    'contingency_loss': '.categorical.measures',
    'contingency_table': '.categorical.measures',
    'cramers_v': '.categorical.measures',
    'cramers_v_loss': '.categorical.measures',
    'ctbil': '.categorical.measures',
    'direct_distance': '.categorical.measures',
    'hellinger': '.categorical.measures',
    'missing_values': '.categorical.measures',
    'records_changed': '.categorical.measures',
    'suppressions': '.categorical.measures',
    'ut': '.categorical.measures',
    'ut2': '.categorical.measures',
    'ILVariables': '.continuous.measures',
    'discrepancy_table': '.continuous.measures',
    'eigen_difference': '.continuous.measures',
    'il1': '.continuous.measures',
    'il1s': '.continuous.measures',
    'il1s_sdcmicro': '.continuous.measures',
    'il_correl': '.continuous.measures',
    'il_variables': '.continuous.measures',
    'mcd_covariance': '.continuous.measures',
    'cluster_utility': '.distribution',
    'ecdf_measures': '.distribution',
    'ks_test': '.distribution',
    'propensity_score': '.distribution',
    'dist': '.entropy',
    'ebil': '.entropy',
    'entropy': '.entropy',
    'entropy_change': '.entropy',
    'Hierarchy': '.generalization',
    'LossMetric': '.generalization',
    'c_avg': '.generalization',
    'discernibility': '.generalization',
    'equivalence_class_sizes': '.generalization',
    'generalisation_counts': '.generalization',
    'loss_metric': '.generalization',
    'InfoLoss': '.info_loss',
    'TableLoss': '.info_loss',
    'info_loss': '.info_loss',
    'ModelUtility': '.ml',
    'model_utility': '.ml',
    'UtilityScore': '.score',
    'utility_score': '.score',
    **{name: '.gdu' for name in _GDU},
    **{name: '.benchmark' for name in _BENCHMARK},
    **{name: '.regression' for name in _REGRESSION},
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

