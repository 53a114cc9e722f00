"""Contracts on estimates: a weighted indicator per group, and regression coefficients.

Both compare the released file's estimate with the original's, in one of two ways:

- ``within="relative"``: the relative deviation ``|θ_m − θ_o| / |θ_o|`` must not exceed
  ``tolerance`` (0 when equal, infinite when ``θ_o = 0 ≠ θ_m``); the value is the largest
  deviation over the groups (terms), the bound is ``tolerance``;
- ``within="ci"``: ``θ_m`` must lie inside the original's confidence interval ``[l_o, u_o]``;
  the value is the standardised distance ``(θ_m − θ_o) / (u_o − θ_o)`` above the estimate and
  ``(θ_o − θ_m) / (θ_o − l_o)`` below it (0 at the estimate, 1 at the interval's edge), the
  bound is 1. This is the "in CI" criterion of Templ (2017, ch. 6) and Karr et al. (2006).

Estimates and intervals come from the benchmarking indicators
(`sdcsession.utility.benchmark.indicator_ci`: linearised normal intervals by default, the
bootstrap with ``method="bootstrap"``) and from `sdcsession.utility.compare_regression`
(Wald intervals of the fit; formulas in the safe formula language of `sdcsession.formula`).

References: Templ, M. (2017), *Statistical Disclosure Control for Microdata*, ch. 6; Karr, A. F.
et al. (2006), A framework for evaluating the utility of data altered to protect
confidentiality, *The American Statistician* 60(3).

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": list("aabb")})
>>> c = EstimateContract(indicator="mean:x", by="g", tolerance=0.05)
>>> r = c.evaluate(o, o.assign(x=[1.0, 2.0, 3.0, 4.5]))
>>> r.passed, round(r.value, 4), r.detail
(False, 0.0714, 'g=b: 3.5 in the original, 3.75 released')
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from ...methods.base import check_int, check_number
from .base import Contract, worst

__all__ = ["EstimateContract", "CoefficientContract", "deviation"]

WITHIN = ("relative", "ci")


def deviation(within: str, est_o: Any, est_m: Any, lower: Any = None,
              upper: Any = None) -> np.ndarray:
    """The deviation of released estimates ``est_m`` from original ones ``est_o``: relative
    (``|m − o| / |o|``) or standardised by the original's interval (1 at its edge).

    >>> deviation("relative", [2.0, 0.0], [2.2, 0.0]).round(12).tolist()
    [0.1, 0.0]
    >>> deviation("ci", [2.0], [2.5], [1.0], [3.0]).tolist()
    [0.5]
    """
    o, m = np.asarray(est_o, dtype=float), np.asarray(est_m, dtype=float)
    d = m - o
    with np.errstate(divide="ignore", invalid="ignore"):
        if within == "relative":
            dev = np.abs(d) / np.abs(o)
        else:
            lo, hi = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
            dev = np.abs(d) / np.where(d >= 0, hi - o, o - lo)
    dev = np.where(d == 0, 0.0, dev)
    return np.where(np.isnan(dev) & ~np.isnan(d), np.inf, dev)


def _within(value: Any) -> str:
    if not isinstance(value, str) or value not in WITHIN:
        raise ParameterError(f"within: expected 'relative' or 'ci', got {value!r:.60}")
    return value


def _name_or_none(what: str) -> Any:
    def conv(value: Any) -> str | None:
        if value is not None and (not isinstance(value, str) or not value):
            raise ParameterError(f"{what}: expected a column name or None, got {value!r:.60}")
        return value
    return conv


def _fmt(x: float) -> str:
    return f"{x:.6g}"


@attrs.frozen(kw_only=True)
class EstimateContract(Contract):
    """A weighted estimate, overall and per group of ``by``, stays close to the original's.

    ``indicator``: a benchmarking indicator in short form (``"mean:income"``,
    ``"total:income"``, ``"ratio:expend/income"``, ``"median:income"``, ``"quantile:income:0.9"``,
    ``"gini:income"``, see `sdcsession.utility.benchmark.Indicator`); ``by``: the grouping
    column (every group of the original is checked, and the total); ``within``:
    ``"relative"`` (deviation at most ``tolerance``) or ``"ci"`` (inside the original's
    ``level`` interval, computed by ``method`` ``"normal"`` or ``"bootstrap"``, ``n_boot``
    replicates, ``seed``); ``weight``: the weight column (None: the session's weight).

    Missing values: records with a missing value of the indicator's variables are left out
    (each file); records whose group is missing in the released file count in the total only.
    A group of the original without records in the released file fails the contract.
    """

    type = "estimate"
    indicator: str = attrs.field()
    by: str | None = attrs.field(default=None, converter=_name_or_none("by"))
    tolerance: float = 0.02
    within: str = attrs.field(default="relative", converter=_within)
    level: float = 0.95
    method: str = "normal"
    n_boot: int = 200
    seed: int = 0
    weight: str | None = attrs.field(default=None, converter=_name_or_none("weight"))

    def __attrs_post_init__(self) -> None:
        from ..benchmark import Indicator

        if not isinstance(self.indicator, str):
            raise ParameterError(f"indicator: expected a short form such as 'mean:income', got "
                                 f"{self.indicator!r:.60}")
        Indicator.parse(self.indicator)
        check_number("tolerance", self.tolerance, 0)
        check_number("level", self.level, 0, 1, lo_open=True, hi_open=True)
        if self.method not in ("normal", "bootstrap"):
            raise ParameterError(f"method: expected 'normal' or 'bootstrap', got "
                                 f"{self.method!r:.60}")
        check_int("n_boot", self.n_boot, 2, 10**6)
        check_int("seed", self.seed, 0, 2**63 - 1)

    def describe(self) -> str:
        from ..benchmark import Indicator

        what = Indicator.parse(self.indicator).name + (f" by {self.by}" if self.by else "")
        return f"{what} within {self.tolerance:.4g}" if self.within == "relative" else \
            f"{what} in its {self.level:.0%} CI"

    def bound_value(self) -> float:
        return float(self.tolerance) if self.within == "relative" else 1.0

    def _reference(self, original: pd.DataFrame, weight: str | None,
                   household: str | None) -> pd.DataFrame:
        from ..benchmark import indicator_ci

        return indicator_ci(original, self.indicator, weight=weight, household=household,
                            by=self.by, method=self.method, n_boot=self.n_boot,
                            level=self.level, seed=self.seed, na_rm=True, progress=False)

    def measure(self, original: pd.DataFrame, masked: pd.DataFrame, *, weight: str | None,
                household: str | None) -> tuple[float, float, str]:
        from ..benchmark import Indicator
        from ..benchmark._specs import _evaluate, _frame_inputs

        w = self.weight or weight
        ref = self._reference(original, w, household)
        ind = Indicator.parse(self.indicator)
        cols, wv, _, _, _ = _frame_inputs(masked, ind, w, None, None, True)
        est = [float(_evaluate(ind, cols, wv, None, 0)[0])]
        groups = ["total"]
        if self.by is not None:
            if self.by not in masked.columns:
                raise MeasureError(f"by: column {self.by!r} is not in the released data")
            labels = pd.Index(ref["group"].iloc[1:].tolist())
            sub = masked[masked[self.by].notna()]
            cols, wv, codes, labs, _ = _frame_inputs(sub, ind, w, self.by, None, True, labels)
            est += _evaluate(ind, cols, wv, codes, len(labs))[1:len(labels) + 1].tolist()
            groups += [f"{self.by}={g}" for g in labels]
        o = ref["estimate"].to_numpy(float)
        dev = deviation(self.within, o, est, ref["lower"].to_numpy(float),
                        ref["upper"].to_numpy(float))
        value, i = worst(np.where(np.isnan(est), np.nan, dev), groups)
        if math.isnan(est[i]):
            detail = f"{groups[i]}: no released record has an estimate"
        else:
            detail = f"{groups[i]}: {_fmt(o[i])} in the original, {_fmt(est[i])} released"
            if self.within == "ci":
                detail += (f" (CI [{_fmt(ref['lower'].iloc[i])}, "
                           f"{_fmt(ref['upper'].iloc[i])}])")
        return value, self.bound_value(), detail


def _terms(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(
            isinstance(t, str) and t for t in value):
        raise ParameterError(f"terms: expected a term name or a list of them (None: every term "
                             f"but the intercept), got {value!r:.80}")
    return tuple(value)


@attrs.frozen(kw_only=True)
class CoefficientContract(Contract):
    """Regression coefficients of ``formula`` fitted on the released file stay close to those
    fitted on the original.

    ``formula``: the analyst's model in the safe formula language (`sdcsession.formula`,
    patsy notation, never evaluated as Python); ``terms``: the coefficients checked (patsy's
    names, e.g. ``"C(sex)[T.male]"``; None: every term but the intercept); ``within``:
    ``"ci"`` (inside the original's ``level`` Wald interval) or ``"relative"`` (deviation at
    most ``tolerance``); ``model``: ``"ols"``, ``"wls"`` or ``"logit"`` (the last two use
    ``weight``, None: the session's weight).

    Missing values: records with a missing value in a model variable are left out of that fit
    (listwise). A term absent from the released fit fails the contract.
    """

    type = "coefficients"
    formula: str = attrs.field()
    terms: tuple[str, ...] | None = attrs.field(default=None, converter=_terms)
    within: str = attrs.field(default="ci", converter=_within)
    tolerance: float = 0.05
    level: float = 0.95
    model: str = "ols"
    weight: str | None = attrs.field(default=None, converter=_name_or_none("weight"))

    def __attrs_post_init__(self) -> None:
        from ...formula import parse_formula
        from ..regression import MODELS

        if not isinstance(self.formula, str):
            raise ParameterError(f"formula: expected a formula such as 'income ~ age + sex', "
                                 f"got {self.formula!r:.60}")
        parse_formula(self.formula)
        if self.model not in MODELS:
            raise ParameterError(f"model: expected one of {MODELS}, got {self.model!r:.60}")
        check_number("tolerance", self.tolerance, 0)
        check_number("level", self.level, 0, 1, lo_open=True, hi_open=True)

    def describe(self) -> str:
        which = ", ".join(self.terms) if self.terms else "coefficients"
        how = f"within {self.tolerance:.4g}" if self.within == "relative" else \
            f"in their {self.level:.0%} CI"
        return f"{self.formula}: {which} {how}"

    def bound_value(self) -> float:
        return float(self.tolerance) if self.within == "relative" else 1.0

    def measure(self, original: pd.DataFrame, masked: pd.DataFrame, *, weight: str | None,
                household: str | None) -> tuple[float, float, str]:
        from ..regression import compare_regression

        w = (self.weight or weight) if self.model != "ols" else None
        if self.model == "wls" and w is None:
            raise ParameterError("model='wls' needs a weight (weight= or the session's weight)")
        co = compare_regression(original, masked, self.formula, model=self.model, weight=w,
                                level=self.level).coefficients.set_index("term")
        fitted = [t for t in co.index if t != "Intercept"]
        terms = list(self.terms) if self.terms else fitted
        unknown = [t for t in terms if t not in co.index]
        if unknown:
            raise ParameterError(f"terms: {unknown} are not terms of {self.formula!r}; its "
                                 f"terms are {list(co.index)}")
        if not terms:
            raise ParameterError(f"terms: {self.formula!r} has no term but the intercept; name "
                                 "the terms to check")
        c = co.loc[terms]
        dev = deviation(self.within, c["coef_original"], c["coef_masked"], c["orig_lower"],
                        c["orig_upper"])
        value, i = worst(dev, terms)
        r = c.iloc[i]
        if math.isnan(r["coef_masked"]):
            return value, self.bound_value(), (f"{terms[i]}: not a term of the model fitted on "
                                               "the released data (a recoded variable?)")
        detail = (f"{terms[i]}: {_fmt(r['coef_original'])} in the original, "
                  f"{_fmt(r['coef_masked'])} released")
        if self.within == "ci":
            detail += f" (CI [{_fmt(r['orig_lower'])}, {_fmt(r['orig_upper'])}])"
        return value, self.bound_value(), detail
