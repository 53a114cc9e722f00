"""The catalogue of utility / information-loss measures: one registry, listed and computed by name.

`available_measures` lists every measure with a one-line description, its kind, whether it
needs the records paired by index, the variable types it applies to and its direction.
`compute` runs one by name on ``(original, masked)`` with keyword parameters. Other modules
(benchmark indicators, global data utility, regression) add theirs with `register_measure`.

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"k": ["a", "b", "c", "d"]}); m = o.assign(k=["a", None, "c", "d"])
>>> int(compute("suppressions", o, m)["suppressions"]["k"])
1
>>> "il1s" in set(available_measures()["name"])
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pandas as pd

from ..errors import ParameterError
from . import distribution as dis
from . import generalization as gen
from .categorical import measures as cat
from .continuous import measures as con
from .entropy import dist as _ent_dist
from .entropy import ebil as _ent_ebil
from .entropy import entropy_change as _ent_entropy_change

__all__ = ["MeasureSpec", "CATALOGUE", "register_measure", "available_measures", "compute"]


@attrs.frozen
class MeasureSpec:
    """One catalogue entry: ``fn(original, masked, **params)`` and what it needs."""

    name: str
    fn: Callable[..., Any]
    description: str
    kind: str
    needs_pairing: bool
    variable_types: str
    direction: str = "higher = more loss"
    returns: str = "float"


CATALOGUE: dict[str, MeasureSpec] = {}


def register_measure(
    name: str,
    fn: Callable[..., Any],
    description: str,
    *,
    kind: str,
    needs_pairing: bool,
    variable_types: str,
    direction: str = "higher = more loss",
    returns: str = "float",
    replace: bool = False,
) -> MeasureSpec:
    """Add a measure ``fn(original, masked, **params)`` to the catalogue under ``name``.

    Missing values: the registered function receives the data with its missing values unchanged.

    Example
    -------
    >>> spec = register_measure("n_rows_diff", lambda o, m: abs(len(o) - len(m)),
    ...                         "difference in record counts", kind="other",
    ...                         needs_pairing=False, variable_types="any")
    >>> compute("n_rows_diff", pd.DataFrame({"a": [1, 2]}), pd.DataFrame({"a": [1]}))
    1
    >>> _ = CATALOGUE.pop("n_rows_diff")
    """
    if not replace and name in CATALOGUE:
        raise ParameterError(f"register_measure: {name!r} is already in the catalogue")
    spec = MeasureSpec(name, fn, description, kind, needs_pairing, variable_types, direction,
                       returns)
    CATALOGUE[name] = spec
    return spec


def available_measures() -> pd.DataFrame:
    """The catalogue as a DataFrame: name, description, kind, needs_pairing, variable_types,
    direction, returns (one row per measure, sorted by kind and name).

    Missing values: each catalogue measure applies its own rule (docs/concepts/utility.md, "Missing
    values, measure by measure").

    Example
    -------
    >>> df = available_measures()
    >>> list(df.columns)[:4]
    ['name', 'description', 'kind', 'needs_pairing']
    """
    rows = [
        {
            "name": s.name,
            "description": s.description,
            "kind": s.kind,
            "needs_pairing": s.needs_pairing,
            "variable_types": s.variable_types,
            "direction": s.direction,
            "returns": s.returns,
        }
        for s in CATALOGUE.values()
    ]
    return pd.DataFrame(rows).sort_values(["kind", "name"]).reset_index(drop=True)


def compute(name: str, original: pd.DataFrame, masked: pd.DataFrame, **params: Any) -> Any:
    """Compute catalogue measure ``name`` on ``(original, masked)`` with keyword ``params``.

    A required parameter left out (e.g. ``columns``) or one the measure does not take is a
    ParameterError. Missing values: each measure's own rule (see its docstring and
    docs/concepts/utility.md, "Missing values, measure by measure").

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 3.0]}); m = pd.DataFrame({"x": [2.0, 3.0]})
    >>> round(compute("il1s_sdcmicro", o, m), 12)
    0.5
    """
    spec = CATALOGUE.get(name)
    if spec is None:
        raise ParameterError(
            f"compute: unknown utility measure {name!r}; known: {sorted(CATALOGUE)}"
        )
    try:
        return spec.fn(original, masked, **params)
    except TypeError as e:  # a required parameter not given, or one the measure does not take
        msg = str(e)
        if "required keyword-only argument" in msg or "unexpected keyword argument" in msg:
            raise ParameterError(f"compute({name!r}): {msg.split(') ', 1)[-1]}") from None
        raise


def _masked_only(fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(original: pd.DataFrame, masked: pd.DataFrame, **params: Any) -> Any:
        return fn(masked, **params)

    wrapper.__doc__ = fn.__doc__
    wrapper.__name__ = fn.__name__
    return wrapper


def _robust_eigen(original, masked, **params):
    return con.eigen_difference(original, masked, robust=True, **params)


def _utility_score(original, masked, **params):
    from .score import utility_score

    return utility_score(original, masked, **params)


def _ctbil_norm(original, masked, **params):
    return cat.ctbil(original, masked, normalise=True, **params)


_CAT, _NUM, _ANY = "categorical", "numeric", "any"
_ENTRIES = [
    # name, fn, description, kind, pairing, types, direction, returns
    ("missing_values", cat.missing_values,
     "missing values per variable before/after and additional missings m_j, mp_j (Templ)",
     "categorical", True, _ANY, "higher = more loss", "DataFrame"),
    ("suppressions", cat.suppressions,
     "suppressions per key variable, count and percent (as sdcMicro prints them)",
     "categorical", True, _ANY, "higher = more loss", "DataFrame"),
    ("records_changed", cat.records_changed,
     "records whose value changed per variable, count and share",
     "categorical", True, _ANY, "higher = more loss", "DataFrame"),
    ("contingency_table", cat.contingency_table,
     "cell counts of a cross-classification in both files (tidy)",
     "categorical", False, _CAT, "n/a", "DataFrame"),
    ("ut", cat.ut, "UT: mean absolute cell difference of a contingency table (Templ)",
     "categorical", False, _CAT, "higher = more loss", "float"),
    ("ut2", cat.ut2, "UT2: mean relative cell change of a contingency table, percent (Templ)",
     "categorical", False, _CAT, "higher = more loss", "float"),
    ("aad", cat.aad, "AAD: average absolute distance per table cell (Gomatam & Karr)",
     "categorical", False, _CAT, "higher = more loss", "float"),
    ("hellinger", cat.hellinger, "Hellinger distance between contingency tables (Shlomo)",
     "categorical", False, _CAT, "higher = more loss", "float"),
    ("ctbil", cat.ctbil,
     "CTBIL: summed cell differences of all sub-tables up to dimension K (Domingo-Ferrer & Torra)",
     "categorical", False, _CAT, "higher = more loss", "float"),
    ("ctbil_normalised", _ctbil_norm, "CTBIL divided by the number of cells of all tables",
     "categorical", False, _CAT, "higher = more loss", "float"),
    ("contingency_loss", cat.contingency_loss,
     "UT, UT2, Hellinger, false zeros for every pair (or d-tuple) of variables",
     "categorical", False, _CAT, "higher = more loss", "DataFrame"),
    ("cramers_v_loss", cat.cramers_v_loss,
     "relative change of Cramér's V of two variables, percent (Shlomo 2010)",
     "categorical", False, _CAT, "|value| higher = more loss", "float"),
    ("direct_distance", cat.direct_distance,
     "mean direct comparison distance per variable, nominal 0/1 or ordinal (Domingo-Ferrer & Torra)",
     "categorical", True, _CAT, "higher = more loss", "Series"),
    ("entropy_change", _ent_entropy_change,
     "entropy per variable before/after and its loss (Templ)",
     "entropy", False, _CAT, "higher loss = more loss", "DataFrame"),
    ("ebil", _ent_ebil, "EBIL: entropy-based information loss of PRAM from its transition matrix",
     "entropy", False, _CAT, "higher = more loss", "float"),
    ("dist", _ent_dist, "DIST: entropy loss of the quasi-identifier distribution / log2 N",
     "entropy", False, _CAT, "higher = more loss", "float"),
    ("il1s", con.il1s, "IL1s: scaled absolute differences / (n p) (Yancey, Winkler & Creecy)",
     "continuous", True, _NUM, "higher = more loss", "float"),
    ("il1s_sdcmicro", con.il1s_sdcmicro, "sdcMicro's IL1s = published IL1s x n x p",
     "continuous", True, _NUM, "higher = more loss", "float"),
    ("il1", con.il1, "sdcMicro's IL1: 100 x summed relative absolute differences",
     "continuous", True, _NUM, "higher = more loss", "float"),
    ("discrepancy_table", con.discrepancy_table,
     "MSE/MAE/mean variation of X, means, V, S, R, RF, C, F (Domingo-Ferrer, Mateo-Sanz & Torra)",
     "continuous", True, _NUM, "higher = more loss", "DataFrame"),
    ("eigen_difference", con.eigen_difference,
     "sum |e - e'| / e of eigenvalues of the standardised data (sdcMicro eigen)",
     "continuous", False, _NUM, "higher = more loss", "float"),
    ("eigen_difference_robust", _robust_eigen,
     "eigenvalue difference of MCD covariances (sdcMicro robeigen)",
     "continuous", False, _NUM, "higher = more loss", "float"),
    ("il_correl", con.il_correl,
     "Mlodak's gamma from the inverse correlation matrices (sdcMicro IL_correl)",
     "continuous", False, _NUM, "higher = more loss", "float"),
    ("il_variables", con.il_variables,
     "Mlodak's lambda overall and per variable, mixed scales (sdcMicro IL_variables)",
     "continuous", True, _ANY, "higher = more loss", "ILVariables"),
    ("ks_test", dis.ks_test, "two-sample Kolmogorov-Smirnov statistic and p-value per variable",
     "distribution", False, _NUM, "higher statistic = more loss", "DataFrame"),
    ("ecdf_measures", dis.ecdf_measures,
     "max and mean squared ECDF difference per variable (Woo et al.)",
     "distribution", False, _NUM, "higher = more loss", "DataFrame"),
    ("propensity_score", dis.propensity_score,
     "propensity score measure U_p from a logit on the stacked files (Woo et al.)",
     "distribution", False, _ANY, "higher = more loss", "float"),
    ("cluster_utility", dis.cluster_utility,
     "cluster-analysis measure U_c on the stacked files (Woo et al.)",
     "distribution", False, _ANY, "higher = more loss", "float"),
    ("generalisation_counts", gen.generalisation_counts,
     "generalised and suppressed values per variable (operation counting)",
     "generalisation", True, _ANY, "higher = more loss", "DataFrame"),
    ("c_avg", _masked_only(gen.c_avg), "average equivalence class size n / (#classes k)",
     "generalisation", False, _CAT, "higher = more loss", "float"),
    ("discernibility", _masked_only(gen.discernibility),
     "discernibility metric DM = n S + sum |EQ|^2",
     "generalisation", False, _CAT, "higher = more loss", "float"),
    ("utility_score", _utility_score,
     "sdcMicro 5.8.1's combined score: weighted suppression rate, category loss and IL1s",
     "combined", True, _ANY, "higher = more loss", "UtilityScore"),
    ("loss_metric", gen.loss_metric,
     "Iyengar's loss metric LM with value hierarchies, per attribute and total",
     "generalisation", False, _ANY, "higher = more loss", "LossMetric"),
]

for _e in _ENTRIES:
    register_measure(_e[0], _e[1], _e[2], kind=_e[3], needs_pairing=_e[4], variable_types=_e[5],
                     direction=_e[6], returns=_e[7])
del _e
