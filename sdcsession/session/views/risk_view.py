"""RiskSummary: the disclosure risk of one state, computed lazily through the state's cache.

Everything is read through `State.measure`, so each figure is computed once per state, on
first access. SUDA2 runs only when ``.suda2`` is read (never because of display).

Example
-------
>>> import pandas as pd, sdcsession as sdc
>>> df = pd.DataFrame({"sex": ["m", "f", "m", "f", "m"], "w": [10.0, 10, 10, 10, 10]})
>>> r = sdc.SdcSession(df, keys=["sex"], weight="w", seed=1).risk
>>> r.fk.tolist(), r.k_violations(3)
([3, 2, 3, 2, 3], 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...errors import ParameterError, SdcError
from ...risk.exact_sum import exact_mean, exact_sum
from ..formatting import fmt
from ..measures import register
from ..state import State
from ._numeric_columns import numeric_columns

__all__ = ["RiskSummary"]


class RiskSummary:
    """Disclosure risk of a state (see the attributes); text and HTML display, ``to_dict()``."""

    def __init__(self, state: State, alpha: float | None = None) -> None:
        self._state = state
        self.alpha = state.alpha if alpha is None else alpha

    # --------------------------------------------------------------- frequencies
    @property
    def frequencies(self) -> pd.DataFrame:
        """fk and Fk per record (missing keys as wildcards; see `sdcsession.risk.frequencies`)."""
        return self._state.measure("frequencies", alpha=self.alpha)

    @property
    def fk(self) -> pd.Series:
        """Sample frequency of each record's key combination."""
        return self.frequencies["fk"]

    @property
    def Fk(self) -> pd.Series:  # noqa: N802 - the literature's name
        """Estimated population frequency (sum of weights) of each record's key combination."""
        return self.frequencies["Fk"]

    @property
    def individual(self) -> pd.Series:
        """Individual re-identification risk per record (Benedetti–Franconi approximation)."""
        return self._state.measure("individual_risk", alpha=self.alpha)

    @property
    def global_risk(self) -> float:
        """Mean individual risk (exact sum, rounded once: `sdcsession.risk.exact_sum`)."""
        return exact_mean(self.individual.to_numpy())

    def threshold(self, max_global_risk: float = 0.01) -> float | None:
        """The individual-risk threshold meeting the global-risk target ``max_global_risk``
        (sdcMicro ``measure_risk``'s ``threshold``): the largest risk level t such that capping
        every individual risk above t at t brings the global risk below the target; ``None``
        when the file already meets it, 0.0 when no level does (see
        `sdcsession.risk.risk_threshold`). Missing values: as the individual risk.

        >>> import sdcsession as sdc, pandas as pd
        >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xxyz")}), keys=["a"])
        >>> s.risk.threshold(max_global_risk=0.6)
        0.5
        """
        from ...risk.individual import risk_threshold

        return risk_threshold(self.individual.to_numpy(), max_global_risk)

    @property
    def expected_reidentifications(self) -> float:
        """Sum of individual risks: the expected number of re-identifications."""
        return exact_sum(self.individual.to_numpy())

    @property
    def household(self) -> pd.Series | None:
        """Household risk 1 − ∏(1 − r_i) over each record's household (None without household)."""
        return self._state.measure("household_risk", alpha=self.alpha)

    @property
    def household_expected_reidentifications(self) -> float | None:
        """Sum of household risks over records (None without household)."""
        h = self.household
        return None if h is None else exact_sum(h.to_numpy())

    def k_violations(self, k: int = 3, *, weighted: bool = False) -> int:
        """Number of records with fk < k (Fk < k when ``weighted``, True or False)."""
        if not isinstance(weighted, (bool, np.bool_)):
            raise ParameterError(f"weighted: expected True or False, got {weighted!r}")
        return self._state.measure("k_violations", k=k, weighted=bool(weighted),
                                   alpha=self.alpha)

    def unsafe_combinations(self, k: float = 3, max_dim: int | None = None) -> pd.DataFrame:
        """μ-ARGUS-style table of key combinations (up to ``max_dim`` variables) rarer than k."""
        return self._state.measure("unsafe_combinations", k=k, max_dim=max_dim)

    @property
    def l_diversity(self) -> pd.DataFrame | None:
        """Distinct, entropy and recursive (c = 2) l-diversity of each sensitive variable."""
        return self._state.measure("l_diversity", c=2)

    def suda2(self, dis_fraction: float = 0.01, max_size: int | None = None,
              original_scores: bool = True) -> Any:
        """SUDA2 scores, DIS-SUDA scores and contributions (`sdcsession.risk.suda2`).

        Computed only when called (never by display, never on every step), then cached.
        ``original_scores=False``: the IHSN weights (sdcMicro's ``original_scores = FALSE``).
        """
        return self._state.measure("suda2", dis_fraction=dis_fraction, max_size=max_size,
                                   original_scores=original_scores)

    @property
    def numeric(self) -> dict[str, float] | None:
        """Numeric risk vs the original: interval disclosure and record linkage (None if no numeric).

        Missing values: dRisk leaves out comparisons with a missing original or masked value (as
        sdcMicro); record linkage uses the records complete in both files; NaN when a measure
        cannot be computed at all (e.g. no complete record).
        """
        return self._state.measure("numeric_risk")

    @property
    def attacks(self) -> Any:
        """Risk measured by attack (`AttackView`): ``s.risk.attacks(control)`` gives one row per
        attack (singling out, linkability, inference: risk with its confidence interval and the
        attack, baseline and control success rates); ``.singling_out(...)``, ``.linkability``,
        ``.inference``, ``.tcap`` and ``.dcr`` give each result (`sdcsession.risk.attacks`).
        Computed when called, then cached on the state."""
        from .attack_view import AttackView

        return AttackView(self._state)

    # -------------------------------------------------------------------- output
    def to_dict(self) -> dict[str, Any]:
        """Scalar figures as a JSON-serialisable dict."""
        out: dict[str, Any] = {
            "n_records": self._state.n,
            "keys": list(self._state.roles.keys),
            "global_risk": self.global_risk,
            "expected_reidentifications": self.expected_reidentifications,
            "household_expected_reidentifications": self.household_expected_reidentifications,
        }
        for k in (2, 3, 5):
            out[f"k{k}_violations"] = self.k_violations(k)
        num = self.numeric
        if num is not None:
            out["numeric"] = {k: float(v) for k, v in num.items()}
        return out

    def to_frame(self) -> pd.DataFrame:
        """The scalar risk figures as a one-column table (``measure`` index, ``value``), like
        ``s.utility.to_frame()``.

        >>> import sdcsession as sdc
        >>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["sex"], seed=1)
        >>> float(s.risk.to_frame().loc["k3_violations", "value"])
        0.0
        """
        d = self.to_dict()
        rows = [(k, float(v)) for k, v in d.items()
                if k not in ("keys", "numeric") and v is not None]
        rows += [(f"numeric.{k}", float(v)) for k, v in (d.get("numeric") or {}).items()]
        rows += self._model_rows()
        return pd.DataFrame(rows, columns=["measure", "value"]).set_index("measure")

    #: figures of the issue-17 models shown by ``to_frame`` once computed on this state
    _MODEL_FIGURES = {
        "model_risk": ("gr1", "gr2", "tau1", "tau2"),
        "population_uniques": ("uniques", "proportion"),
        "rmd_risk": ("risk1", "risk2", "wrisk1", "wrisk2"),
        "record_linkage": ("correct_matches", "correct_match_rate", "mean_distance"),
    }

    def _model_rows(self) -> list[tuple[str, float]]:
        """Attacker-model figures (cheap: derived from the same counts) and the figures of the
        model-based measures already computed on this state (``s.risk.model()``,
        ``population_uniques()``, ``rmd()``, ``record_linkage()``), named
        ``<measure>[<method>].<figure>``; a measure never runs because of this table."""
        rows: list[tuple[str, float]] = []
        try:
            att = self.attacker_models()
        except SdcError:
            att = None
        if att is not None:
            for model in ("prosecutor", "journalist"):
                rows += [(f"{model}.{k}", float(v)) for k, v in getattr(att, model).items()
                         if isinstance(v, (int, float, np.integer, np.floating))]
            rows.append(("marketer", float(att.marketer)))
        for key, value in list(self._state.cache.items()):
            name = key[0] if isinstance(key, tuple) and key else None
            figures = self._MODEL_FIGURES.get(name)
            if figures is None or value is None:
                continue
            # a label: the method or distance name (RMDRisk.distance is a Series, not a label)
            tags = [getattr(value, t, None) for t in ("method", "distance")]
            tag = next((t for t in tags if isinstance(t, str) and t), None)
            label = f"{name}[{tag}]" if tag else name
            rows += [(f"{label}.{f}", float(getattr(value, f))) for f in figures
                     if isinstance(getattr(value, f, None), (int, float, np.integer, np.floating))]
        return rows

    def explain(self, name: str) -> Any:
        """What figure ``name`` of ``to_frame()`` means: its formula, source and assumptions, its
        current value with the quantities that produce it, and what moves it up or down.

        The text comes from the registry `sdcsession.session.views.figures.FIGURES`, which the
        docs page *What every figure means* renders too. Missing values: the figure's own rule.

        >>> import sdcsession as sdc
        >>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["sex"], seed=1)
        >>> s.risk.explain("global_risk").figure.kind
        'risk'
        """
        from .explain import explain_figure

        return explain_figure(self, name)

    def summary_rows(self) -> list[tuple[str, str]]:
        d = self.to_dict()
        n = d["n_records"]
        rows = [("records", fmt(n)), ("key variables", ", ".join(d["keys"])),
                ("global risk (mean)", f"{d['global_risk']:.6g}"),
                ("expected re-identifications", f"{d['expected_reidentifications']:.4f}")]
        if d["household_expected_reidentifications"] is not None:
            rows.append(("household expected re-identifications",
                         f"{d['household_expected_reidentifications']:.4f}"))
        for k in (2, 3, 5):
            v = d[f"k{k}_violations"]
            rows.append((f"records violating {k}-anonymity", f"{v:,} ({100 * v / n:.2f} %)"))
        for name, v in (d.get("numeric") or {}).items():
            rows.append((name.replace("_", " "), f"{v:.4f}"))
        return rows

    def __repr__(self) -> str:
        rows = self.summary_rows()
        w = max(len(r[0]) for r in rows)
        return "Disclosure risk\n" + "\n".join(f"  {a:<{w}}  {b}" for a, b in rows)

    # ------------------------------------------------------- model-based risk
    def model(self, formula: str | None = None, *, method: str = "default",
              bound: float | None = None) -> Any:
        """Log-linear model risk of the current data (`sdcsession.risk.population.loglinear_model`): sdcMicro's
        ``gr1``/``gr2`` and Skinner–Holmes ``tau1``/``tau2``; the default formula is the main
        effects of the key variables. Needs the weight role. Computed when called, then cached.

        >>> import sdcsession as sdc
        >>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(300, seed=1),
        ...                    keys=["sex", "region"], weight="w", seed=1)
        >>> 0 <= s.risk.model().gr1 <= 1
        True
        """
        return self._state.measure("model_risk", formula=formula, method=method, bound=bound)

    def population_uniques(self, method: str = "dankar") -> Any:
        """Estimated number and proportion of population uniques on the key variables
        (`sdcsession.risk.population.uniques`; N = sum of the weights). Needs the weight role."""
        return self._state.measure("population_uniques", method=method)


    # ------------------------------------------------- risk models
    def risky_cells(self, threshold: Any = 3, max_dim: int | None = None,
                    combinations: Any = None, levels: Any = None,
                    by_table: bool = False) -> pd.DataFrame:
        """Unsafe cells (count <= threshold) of the tables of the keys (`sdcsession.risk.risky_cells`)."""
        return self._state.measure("risky_cells", threshold=threshold, max_dim=max_dim,
                                   combinations=combinations, levels=levels, by_table=by_table)

    def attacker_models(self, threshold: float = 0.2, population: pd.DataFrame | None = None) -> Any:
        """Prosecutor, journalist and marketer risk (`sdcsession.risk.attacker_models`).

        Uses the session's weight for the population frequencies unless a ``population`` frame is
        given (that call is not cached).
        """
        if population is not None:
            from ...risk import attacker_models

            r = self._state.roles
            return attacker_models(self._state.data, list(r.keys), population=population,
                                   threshold=threshold)
        return self._state.measure("attacker_models", threshold=threshold, alpha=self.alpha)

    def record_linkage(self, distance: str = "euclidean", assignment: str = "optimal",
                       variables: list[str] | None = None) -> Any:
        """Distance-based linkage of the current numeric variables to the original ones
        (`sdcsession.risk.record_linkage`; default variables: the numeric role)."""
        return self._state.measure("record_linkage", distance=distance, assignment=assignment,
                                   variables=variables)

    def l_diversity_summary(self) -> Any:
        """Summaries of the l-diversity of the sensitive variables (None without sensitive)."""
        from ...risk import l_diversity_summary

        ld = self.l_diversity
        return None if ld is None else l_diversity_summary(ld, c=2)

    def rmd(self, k: float = 0.01, k2: float = 0.05, missing: str = "error") -> Any:
        """Robust-distance risk of the numeric variables vs the original (sdcMicro ``dRiskRMD``).

        An ``RMDRisk`` (``risk1``, ``risk2``, ``wrisk1``, ``wrisk2`` and the per-record vectors;
        see ``sdcsession.risk.rmd_risk``), None without numeric variables. Computed when called,
        then cached.

        Missing values: missing original values are refused with a MeasureError
        (``missing="error"``) or give sdcMicro's all-zero result (``missing="sdcmicro"``);
        missing masked values are handled as sdcMicro does; a numeric variable with fewer than
        two observed values in either file is left out.
        """
        return self._state.measure("rmd_risk", k=k, k2=k2, missing=missing)


def _weight_role(state: State, what: str) -> str:
    from ...errors import MeasureError

    if state.roles.weight is None:
        raise MeasureError(f"{what} needs sampling weights: declare the weight role "
                           "(SdcSession(..., weight='w'))")
    return state.roles.weight


@register("model_risk", "log-linear model risk of sample uniques (sdcMicro modRisk)")
def _model_risk(state: State, formula: str | None = None, method: str = "default",
                bound: float | None = None) -> Any:
    from ...risk import model_risk

    weight = _weight_role(state, "model risk")
    keys = list(state.roles.keys)
    if formula is None:
        formula = "~ " + " + ".join(k if k.isidentifier() else f'Q("{k}")' for k in keys)
    data = state.data
    cats = {k: data[k].cat.remove_unused_categories() for k in keys
            if isinstance(data[k].dtype, pd.CategoricalDtype)}
    return model_risk(data.assign(**cats) if cats else data, formula, weight=weight,
                      method=method, bound=bound)


@register("population_uniques", "estimated population uniques (Pitman, Zayatz, SNB, Dankar)")
def _population_uniques(state: State, method: str = "dankar") -> Any:
    from ...risk import population_uniques

    weight = _weight_role(state, "population uniqueness")
    return population_uniques(state.data, list(state.roles.keys), weight=weight, method=method)



@register("unsafe_combinations", "key combinations rarer than k, by dimension (mu-ARGUS style)")
def _unsafe(state: State, k: float = 3, max_dim: int | None = None) -> pd.DataFrame:
    from ...risk import unsafe_combinations

    return unsafe_combinations(state.data, list(state.roles.keys), k=k, max_dim=max_dim)


@register("risky_cells", "unsafe cells (count <= threshold) of low-dimensional tables of the keys")
def _risky_cells(state: State, threshold: Any = 3, max_dim: int | None = None,
                 combinations: Any = None, levels: Any = None, by_table: bool = False) -> Any:
    from ...risk import risky_cells

    return risky_cells(state.data, list(state.roles.keys), threshold=threshold, max_dim=max_dim,
                       combinations=combinations, levels=levels, by_table=by_table)


@register("attacker_models", "prosecutor, journalist and marketer re-identification risk")
def _attacker(state: State, threshold: float = 0.2, alpha: float | None = None) -> Any:
    from ...risk import attacker_models

    r = state.roles
    return attacker_models(state.data, list(r.keys), weight=r.weight, threshold=threshold,
                           alpha=1.0 if alpha is None else alpha)


@register("record_linkage", "distance-based record linkage of the numeric variables to the original")
def _linkage(state: State, distance: str = "euclidean", assignment: str = "optimal",
             variables: Any = None) -> Any:
    from ...errors import ParameterError
    from ...risk import record_linkage

    if variables is None:  # numeric in both files, observed at least twice in each
        cols = numeric_columns(state.original, state.data, state.roles.numeric, observed=True)
    else:
        from ...methods.params import param_names

        cols = list(param_names(variables, "variables"))
    if not cols:
        raise ParameterError("variables: the session has no numeric variables (numbers observed "
                             "in the original and now); name some")
    return record_linkage(state.original, state.data, variables=cols, distance=distance,
                          assignment=assignment)


@register("l_diversity", "l-diversity of the sensitive variables within key combinations")
def _ldiv(state: State, c: int = 2) -> pd.DataFrame | None:
    from ...risk import l_diversity

    if not state.roles.sensitive:
        return None
    return l_diversity(state.data, list(state.roles.keys), list(state.roles.sensitive), c=c)


@register("l_violations", "records whose key combination has fewer than l distinct values of a "
          "sensitive variable (0 without sensitive variables)")
def _lviol(state: State, l: int = 2) -> int:  # noqa: E741 — the l of l-diversity
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise ParameterError(f"l: expected an integer >= 1, got {l!r}")
    ldiv = state.measure("l_diversity")
    if ldiv is None:
        return 0
    distinct = [c for c in ldiv.columns if str(c).endswith("_distinct")]
    return int((ldiv[distinct].to_numpy() < l).any(axis=1).sum())


@register("max_individual_risk", "largest individual re-identification risk of a record")
def _max_risk(state: State) -> float:
    r = state.measure("individual_risk").to_numpy(dtype=float)
    return float(r.max()) if len(r) else 0.0


@register("suda2", "SUDA2 scores, DIS-SUDA scores and variable contributions")
def _suda2(state: State, dis_fraction: float = 0.01, max_size: int | None = None,
           original_scores: bool = True) -> Any:
    from ...risk import suda2

    return suda2(state.data, list(state.roles.keys), dis_fraction=dis_fraction,
                 max_size=max_size, original_scores=original_scores)


@register("numeric_risk", "interval disclosure (dRisk) and record-linkage risk of numeric variables")
def _numeric(state: State) -> dict[str, float] | None:
    """Both numeric risk measures on the numeric variables that are numbers in the original and
    the current data (a variable recoded into categories has left the numeric role, or is skipped).

    Missing values are handled by the measures (`sdcsession.risk.numeric.disclosure`): dRisk leaves out
    comparisons with a missing value, as sdcMicro; record linkage uses the complete records. A
    variable with fewer than two observed values in either file is left out of both; a measure
    that cannot be computed at all (fewer than two records, no complete record) is NaN. A state
    whose numeric variables are the original's (a step on the keys only) reuses the original's
    figures (`sdcsession.session.per_original.on_unchanged`: computed once per tree).
    """
    from ...errors import MeasureError
    from ...risk import interval_disclosure, record_linkage_risk
    from ..per_original import on_unchanged

    cols = numeric_columns(state.original, state.data, state.roles.numeric, observed=True)
    if not cols:
        return None

    def both(orig: pd.DataFrame, masked: pd.DataFrame) -> dict[str, float]:
        out: dict[str, float] = {}
        for name, fn in (("interval_disclosure", interval_disclosure),
                         ("record_linkage", record_linkage_risk)):
            try:
                out[name] = fn(orig[cols], masked[cols], columns=cols)
            except MeasureError:
                out[name] = float("nan")
        return out

    return dict(on_unchanged(state.original, state.data, cols, ("numeric_risk", tuple(cols)),
                             both))


@register("rmd_risk", "robust-Mahalanobis-distance interval disclosure (sdcMicro dRiskRMD)")
def _rmd(state: State, k: float = 0.01, k2: float = 0.05, missing: str = "error") -> Any:
    from ...risk import rmd_risk

    cols = numeric_columns(state.original, state.data, state.roles.numeric, observed=True)
    if not cols:
        return None
    return rmd_risk(state.original[cols], state.data[cols], k=k, k2=k2, columns=cols,
                    missing=missing)
