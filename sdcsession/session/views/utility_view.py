"""UtilitySummary: information loss of a state against the original, chosen by variable roles.

Measures are computed lazily (on first access) and cached on the state; the default set by role:

* key variables: suppressions per key (sdcMicro's count), records changed, entropy change, the
  contingency-table loss over every pair of keys, Młodak's λ_j;
* numeric variables: IL1s (published, normalised by n·p), the eigenvalue difference, Młodak's γ and
  the correlation discrepancy (mean absolute difference of the correlation matrices);
* all role variables: Młodak's λ overall.

Missing values in numeric variables: each measure applies its own rule (docs/concepts/utility.md,
"Missing values, measure by measure"); IL1s counts every numeric variable as sdcMicro does, the
multivariate measures leave out a variable with fewer than two observed values in either file.

``measure(name, **params)`` runs any measure of the catalogue
(`sdcsession.utility.available_measures`) on (original, current) and caches it.

Example
-------
>>> import pandas as pd, sdcsession as sdc
>>> df = pd.DataFrame({"sex": ["m", "f", "m", "f"], "region": ["a", "a", "b", "b"]})
>>> s = sdc.SdcSession(df, keys=["sex", "region"], seed=1).recode("region", {"b": None})
>>> s.utility.suppressions_total
2
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from ...methods.params import param_names
from ...risk._codes import check_flag
from ..formatting import fmt
from ..measures import register
from ..per_original import by_column, gdu_cache, on_unchanged
from ..per_original import slot as per_original_cache
from ..state import State
from ._numeric_columns import numeric_columns

if TYPE_CHECKING:  # pragma: no cover
    from ..history import Step

__all__ = ["UtilitySummary"]


def _cols(state: State, role: str) -> list[str]:
    cols = getattr(state.original_roles, role)
    return [c for c in cols if c in state.data.columns and c in state.original.columns]


class UtilitySummary:
    """Information loss of the current state vs the original (see the module docstring)."""

    def __init__(self, state: State, step: Step | None = None) -> None:
        self._state = state
        self._step = step

    def _m(self, name: str, /, **params: Any) -> Any:
        return self._state.measure(name, **params)

    # --------------------------------------------------------------- categorical
    @property
    def suppressions(self) -> pd.DataFrame:
        """Suppressions per key variable: values missing now that were not in the original."""
        return self._m("utility.suppressions")

    @property
    def suppressions_total(self) -> int:
        """Total number of suppressed key values."""
        return int(self.suppressions["suppressions"].sum())

    @property
    def records_changed(self) -> pd.DataFrame:
        """Records whose value changed, per variable (count and share)."""
        return self._m("utility.records_changed")

    @property
    def entropy_change(self) -> pd.DataFrame:
        """Entropy of each key variable in the original and now (natural log) and the change."""
        return self._m("utility.entropy_change")

    @property
    def contingency_loss(self) -> pd.DataFrame | None:
        """Table-based loss (UT, UT2, Hellinger...) for every pair of key variables."""
        return self._m("utility.contingency_loss")

    # ----------------------------------------------------------------- numeric
    @property
    def il1s(self) -> float | None:
        """IL1s of the numeric variables (published normalisation; None without numeric)."""
        return self._m("utility.il1s")

    @property
    def eigen(self) -> float | None:
        """sdcMicro's eigenvalue difference of the numeric variables (None with < 2 numeric)."""
        return self._m("utility.eigen")

    @property
    def il_correl(self) -> float | None:
        """Młodak's γ of the numeric variables (None with < 2 numeric)."""
        return self._m("utility.il_correl")

    @property
    def correlation_discrepancy(self) -> float | None:
        """Mean absolute difference of the correlation matrices (off-diagonal), numeric vars."""
        return self._m("utility.correlation_discrepancy")

    # --------------------------------------------------------------- all roles
    @property
    def lambda_(self) -> Any:
        """Młodak's λ over every role variable (``.overall``, ``.by_variable``)."""
        return self._m("utility.il_variables")

    @property
    def lambda_overall(self) -> float | None:
        """Młodak's λ overall (0 = no loss, 1 = maximal)."""
        lam = self.lambda_
        return None if lam is None else float(lam.overall)

    def score(self, weights: Any = (1 / 3, 1 / 3, 1 / 3)) -> Any:
        """sdcMicro 5.8.1's combined utility score (``ai_utility_score``) of the session's key and
        numeric variables: weighted suppression rate, category loss and IL1s, lower is better
        (see `sdcsession.utility.utility_score`).

        >>> import sdcsession as sdc, pandas as pd
        >>> s = sdc.SdcSession(pd.DataFrame({"a": ["x", "y", "y"]}), keys=["a"])
        >>> s.utility.score().total
        0.0
        """
        if not isinstance(weights, (list, tuple, np.ndarray)):
            raise ParameterError(f"weights: expected three numbers, got {weights!r:.40}")
        return self.measure("utility_score", keys=_cols(self._state, "keys"),
                            numeric=_cols(self._state, "numeric"), weights=tuple(weights))

    # --------------------------------------------------------------- catalogue
    def measure(self, name: str, **params: Any) -> Any:
        """Any catalogue measure on (original, current data), cached on this state.

        See `sdcsession.utility.available_measures`.
        """
        if not isinstance(name, str):
            raise ParameterError(f"name: expected the name of a catalogue measure, got {name!r:.40}")
        return self._m("utility.catalogue", name=name, params=params)

    def ebil(self, column: str) -> float:
        """Entropy-based information loss of the PRAM applied to ``column`` in this scenario.

        The transition matrix is the one stored in the notes of the last PRAM step that treated
        ``column`` on the path from the original to this state.
        """
        from ...utility.entropy import ebil

        if not isinstance(column, str):
            raise ParameterError(f"column: expected a column name, got {column!r:.40}")
        step = self._step
        matrix = None
        while step is not None:
            t = step.treatment
            if t is not None and t.type == "pram" and column in step.notes.get("matrices", {}):
                matrix = step.notes["matrices"][column]
                break
            step = step.parent
        if matrix is None:
            raise MeasureError(f"ebil: no PRAM step treated column {column!r} in this scenario")
        if isinstance(matrix, dict) and "matrix" in matrix:
            cats = matrix.get("categories")
            matrix = pd.DataFrame(matrix["matrix"], index=cats, columns=cats)
        return float(ebil(self._state.original, self._state.data, column=column, transition=matrix))

    def benchmark(self, indicators: Any, *, by: Any = None, method: str = "bootstrap",
                  n_boot: int = 200, level: float = 0.95, seed: int | None = 0,
                  calibrate: Any = None, na_rm: bool = False) -> pd.DataFrame:
        """Benchmark indicators (e.g. ``["gini:income", "arpr:income", "mean:expend"]``) on the
        original and the current data with CIs: `sdcsession.utility.compare_indicators`
        with the session's weight and household. Cached per state and parameters.

        Missing values: refused (MeasureError) unless ``na_rm=True``, which drops the records
        missing a variable of the indicator in each file (laeken's ``na.rm``)."""
        return self._m("utility.benchmark", indicators=indicators, by=by, method=method,
                       n_boot=n_boot, level=level, seed=seed, calibrate=calibrate,
                       na_rm=check_flag(na_rm, "na_rm"))

    def regression(self, formula: str, *, model: str = "ols", level: float = 0.95) -> Any:
        """The same regression on original and current data
        (`sdcsession.utility.compare_regression`; WLS/logit use the session weight)."""
        return self._m("utility.regression", formula=formula, model=model, level=level)

    def gdu(self, types: Any = None, *, columns: Any = None, recoded: Any = None,
            recode_variant: str = "comparisons", weights: Any = None,
            alpha: float = 0.05) -> Any:
        """The global data utility model (`sdcsession.utility.gdu.model`) on the role variables
        (keys, numeric, sensitive) unless ``columns`` are given. Cached per state and parameters."""
        return self._m("utility.gdu", types=types, columns=columns, recoded=recoded,
                       recode_variant=recode_variant, weights=weights, alpha=alpha)

    def check(self, contracts: Any) -> pd.DataFrame:
        """Check utility contracts (`sdcsession.utility.contracts`) on this state against the
        original: one row per contract with ``contract``, ``type``, ``passed``, ``value``,
        ``bound``, ``margin`` (``bound - value``), ``severity`` and ``detail``. Each result is
        cached on the state; the session's weight and household are the defaults.

        Missing values: each contract's own rule.

        >>> import sdcsession as sdc
        >>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(200, seed=1), keys=["sex"], seed=1)
        >>> s.utility.check([sdc.contracts.category_share("sex")])["passed"].tolist()
        [True]
        """
        from .contract_checks import check_state

        return check_state(self._state, contracts)

    def ml(self, target: str | None = None, *, features: Any = None, task: str = "auto",
           model: str = "random_forest", test_size: float = 0.3, seed: int = 0) -> Any:
        """Utility by model, train on the current data and test on held-out original records
        (`sdcsession.utility.ml.model_utility`; needs scikit-learn, the ``ml`` extra). Default
        target: the first sensitive variable, else the first key; default features: the other
        role variables. Cached per state and parameters."""
        return self._m("utility.ml", target=target, features=features, task=task, model=model,
                       test_size=test_size, seed=seed)

    # -------------------------------------------------------------------- output
    def to_frame(self) -> pd.DataFrame:
        """The default measures as a tidy frame: measure, variable, value."""
        rows: list[dict[str, Any]] = []
        for key, r in self.suppressions.iterrows():
            rows.append({"measure": "suppressions", "variable": key,
                         "value": int(r["suppressions"])})
        ch = self.records_changed
        for key, r in ch.iterrows():
            rows.append({"measure": "records_changed", "variable": key, "value": int(r["changed"])})
        ec = self.entropy_change
        if ec is not None and len(ec):
            col = "change" if "change" in ec.columns else ec.columns[-1]
            for key, r in ec.iterrows():
                rows.append({"measure": "entropy_change", "variable": key, "value": float(r[col])})
        cl = self.contingency_loss
        if cl is not None:
            for key, r in cl.iterrows():
                rows.append({"measure": "ut2_pairs", "variable": key, "value": float(r["ut2"])})
        for name in ("il1s", "eigen", "il_correl", "correlation_discrepancy", "lambda_overall"):
            v = getattr(self, name)
            if v is not None:
                rows.append({"measure": name, "variable": None, "value": float(v)})
        lam = self.lambda_
        if lam is not None:
            for key, v in lam.by_variable.items():
                rows.append({"measure": "lambda", "variable": key, "value": float(v)})
        return pd.DataFrame(rows, columns=["measure", "variable", "value"])

    def explain(self, name: str) -> Any:
        """What figure ``name`` of ``to_frame()`` means: its formula, source and assumptions, its
        current value with the quantities that produce it, and what moves it up or down.

        The text comes from the registry `sdcsession.session.views.figures.FIGURES`, which the
        docs page *What every figure means* renders too. Missing values: the figure's own rule.

        >>> import sdcsession as sdc
        >>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["sex"], seed=1)
        >>> s.utility.explain("il1s").figure.kind
        'utility'
        """
        from .explain import explain_figure

        return explain_figure(self, name)

    def summary_rows(self) -> list[tuple[str, str]]:
        rows = [("suppressed key values", fmt(self.suppressions_total))]
        ch = self.records_changed
        if len(ch):
            rows.append(("records changed (max over variables)", fmt(int(ch["changed"].max()))))
        for label, name in (("IL1s", "il1s"), ("eigenvalue difference", "eigen"),
                            ("Młodak γ (correlations)", "il_correl"),
                            ("correlation discrepancy", "correlation_discrepancy"),
                            ("Młodak λ (all variables)", "lambda_overall")):
            v = getattr(self, name)
            if v is not None:
                rows.append((label, f"{v:.6g}"))
        return rows

    def __repr__(self) -> str:
        rows = self.summary_rows()
        w = max(len(a) for a, _ in rows)
        per = ", ".join(f"{k}: {int(v)}" for k, v in self.suppressions["suppressions"].items())
        return ("Information loss vs the original\n"
                + "\n".join(f"  {a:<{w}}  {b}" for a, b in rows)
                + (f"\n  suppressions per key: {per}" if per else ""))


def _pair(state: State, role: str, observed: bool = False
          ) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    cols = _cols(state, role)
    if role == "numeric":  # a numeric variable recoded into intervals is measured as categorical
        cols = numeric_columns(state.original, state.data, cols, observed=observed)
    return state.original, state.data, cols


def _still_numeric(state: State, cols: list[str]) -> list[str]:
    """The columns that are numeric in both the original and the current data."""
    return numeric_columns(state.original, state.data, cols)


@register("utility.suppressions", "suppressions per key variable", kind="utility")
def _sup(state: State) -> pd.DataFrame:
    from ...utility.categorical.measures import suppressions

    o, m, cols = _pair(state, "keys")
    return on_unchanged(o, m, cols, ("suppressions", tuple(cols)),
                        lambda o, m: suppressions(o, m, keys=cols))


@register("utility.records_changed", "records changed per role variable", kind="utility")
def _changed(state: State) -> pd.DataFrame:
    from ...utility.categorical.measures import records_changed

    cols = [c for c in state.original_roles.columns() if c in state.data.columns]
    return records_changed(state.original, state.data, columns=cols)


@register("utility.entropy_change", "entropy change of the key variables", kind="utility")
def _ent(state: State) -> pd.DataFrame:
    from ...utility.entropy import entropy_change

    o, m, cols = _pair(state, "keys")
    return entropy_change(o, m, columns=cols)


@register("utility.contingency_loss", "contingency-table loss over pairs of keys", kind="utility")
def _ctl(state: State) -> pd.DataFrame | None:
    from ...utility.categorical.measures import contingency_loss

    o, m, cols = _pair(state, "keys")
    if len(cols) < 2:
        return None
    return contingency_loss(o, m, columns=cols, dims=2, weight=None)


def _numeric_measure(state: State, fn_name: str, min_cols: int) -> float | None:
    """A continuous measure on the numeric variables; the multivariate ones (``min_cols`` 2) use
    those with at least two observed values in each file (see ``_numeric_columns``)."""
    from ...utility.continuous import measures as continuous

    o, m, cols = _pair(state, "numeric", observed=min_cols > 1)
    if len(cols) < min_cols:
        return None
    fn = getattr(continuous, fn_name)
    cache = per_original_cache(o, "continuous")  # the original's side, once per tree
    return float(on_unchanged(o, m, cols, (fn_name, tuple(cols)),
                              lambda o, m: fn(o, m, columns=cols, cache=cache)))


@register("utility.il1s", "IL1s of the numeric variables", kind="utility")
def _il1s(state: State) -> float | None:
    return _numeric_measure(state, "il1s", 1)


@register("utility.eigen", "eigenvalue difference of the numeric variables", kind="utility")
def _eigen(state: State) -> float | None:
    return _numeric_measure(state, "eigen_difference", 2)


@register("utility.il_correl", "Mlodak gamma of the numeric variables", kind="utility")
def _gamma(state: State) -> float | None:
    return _numeric_measure(state, "il_correl", 2)


@register("utility.correlation_discrepancy", "mean |R_orig - R_masked| off-diagonal",
          kind="utility")
def _rdisc(state: State) -> float | None:
    o, m, cols = _pair(state, "numeric", observed=True)
    if len(cols) < 2:
        return None
    from ...utility.continuous.exact import discrepancy_from_parts, first_parts, means
    from ...utility.continuous.exact import second_parts as second

    x = o[cols].to_numpy(dtype=np.float64, na_value=np.nan)
    z = m[cols].to_numpy(dtype=np.float64, na_value=np.nan)
    # exact moments (utility.continuous.exact): the Dask session gets the same double
    return discrepancy_from_parts([second(x, z, *means([first_parts(x, z)]), cross=True)], cols)


@register("utility.il_variables", "Mlodak lambda over every role variable", kind="utility")
def _lambda(state: State) -> Any:
    from ...utility.continuous.measures import il_variables

    keys, num = _cols(state, "keys"), _still_numeric(state, _cols(state, "numeric"))
    if not keys + num:
        return None
    # key variables are read as categories (nominal): a recoded ordered key has no common order
    types = {c: "continuous" for c in num} | {c: "nominal" for c in keys}
    return il_variables(state.original, state.data, columns=keys + num, types=types)


@register("utility.catalogue", "any catalogue measure by name", kind="utility")
def _catalogue(state: State, name: str, params: Any) -> Any:
    from ...utility.catalogue import compute

    return compute(name, state.original, state.data, **dict(params))


@register("utility.benchmark", "benchmark indicators with CIs, original vs masked", kind="utility")
def _bench(state: State, indicators: Any, by: Any = None, **kw: Any) -> pd.DataFrame:
    from ...utility.benchmark.indicators import compare_indicators
    from .attack_view import _listed  # lists back from tuples

    r = state.original_roles
    return compare_indicators(state.original, state.data, _listed(indicators),
                              weight=r.weight, household=r.household, by=_listed(by),
                              **{k: _listed(v) for k, v in kw.items()})


@register("utility.regression", "regression comparison, original vs masked", kind="utility")
def _regr(state: State, formula: str, model: str = "ols", level: float = 0.95) -> Any:
    from ...utility.regression import compare_regression

    w = state.original_roles.weight if isinstance(model, str) and model != "ols" else None
    return compare_regression(state.original, state.data, formula, model=model, weight=w,
                              level=level)


@register("utility.gdu", "global data utility model", kind="utility")
def _gdu_measure(state: State, types: Any = None, columns: Any = None, **kw: Any) -> Any:
    from ...utility.gdu.model import gdu

    if columns is None:
        columns = _cols(state, "keys") + _cols(state, "numeric") + _cols(state, "sensitive")
    return gdu(state.original, state.data, types, columns=list(param_names(columns, "columns")),
               cache=gdu_cache(state.original), **kw)


@register("utility.ml", "train on the release, test on the original (model utility ratio)",
          kind="utility")
def _ml(state: State, target: Any = None, features: Any = None, task: str = "auto",
        model: str = "random_forest", test_size: float = 0.3, seed: int = 0) -> Any:
    from ...utility.ml import model_utility

    r = state.original_roles
    both = [c for c in dict.fromkeys((*r.keys, *r.numeric, *r.sensitive))
            if c in state.original.columns and c in state.data.columns]
    if target is None:
        cands = [c for c in (*r.sensitive, *r.keys) if c in both]
        if not cands:
            raise ParameterError("target: name the column to predict (the session has no "
                                 "sensitive or key variable)")
        target = cands[0]
    feats = [c for c in both if c != target] if features is None else \
        list(param_names(features, "features"))
    return model_utility(state.original, state.data, target=target, features=feats, task=task,
                         model=model, test_size=test_size, seed=seed)


def _key_columns(state: State) -> list[str]:
    return [c for c in state.original_roles.keys
            if c in state.original.columns and c in state.data.columns]


@register("suppressions_by_key", "suppressions per key variable (Series)", kind="utility")
def _suppressions_by_key(state: State) -> pd.Series:
    """m_j = #records with key j present in the original and missing now (Templ 2019, part 6);
    read from ``utility.suppressions`` (one shared cache entry)."""
    keys = _key_columns(state)
    if not keys:
        return pd.Series(dtype=np.int64, name="suppressions")
    t = state.measure("utility.suppressions")
    return pd.Series(t["suppressions"].to_numpy(np.int64), index=pd.Index(
        [str(k) for k in t.index], name="key"), name="suppressions")


@register("suppressions_total", "values of key variables missing after treatment but "
          "present in the original (sum over keys)", kind="utility")
def _suppressions_total(state: State) -> int:
    return int(state.measure("suppressions_by_key").sum())


@register("lambda_overall", "Mlodak's lambda over the key (nominal) and numeric "
          "(continuous) variables", kind="utility")
def _lambda_overall(state: State) -> float | None:
    """λ with the key variables as nominal (keys are read as categories: a recoded or suppressed
    value counts 1, whatever the order of the categories) and the numeric ones as continuous."""
    from ...utility.continuous.measures import il_variables

    both = [c for c in state.data.columns if c in state.original.columns]
    keys = [c for c in state.original_roles.keys if c in both]
    num = _still_numeric(state, [c for c in state.original_roles.numeric
                                 if c in both and c not in keys])
    cols = keys + num
    if not cols:
        return None
    types = {c: "nominal" for c in keys} | {c: "continuous" for c in num}
    # λ_j depends on column j alone (unchanged ones computed once per tree); λ is their mean,
    # taken as il_variables takes it (a Series in column order): the same float
    lam = by_column(state.original, state.data, cols, lambda c: ("lambda_j", c, types[c]),
                    lambda o, m, cs: il_variables(o[cs], m[cs], columns=cs, types={
                        c: types[c] for c in cs}).by_variable.to_dict())
    return float(pd.Series(lam, name="lambda", dtype=np.float64).mean())
