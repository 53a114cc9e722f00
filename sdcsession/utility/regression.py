"""Regression comparison: the same model fitted on the original and on the masked file.

The analyst's model (a statsmodels/patsy formula) is fitted on both files; the coefficients, their
confidence intervals, the relative differences, whether the masked coefficient lies in the original
interval and the confidence-interval overlap of Karr et al. (2006) are returned per term, with the
prediction-quality measure ``|(ŷ̄_o − ŷ̄_m) / ŷ̄_o|``.

Reference: Templ, M. (2017), *Statistical Disclosure Control for Microdata*, sec. 6.4 (Mincer-type
wage equation with a gender dummy); Karr et al. (2006), The American Statistician 60(3).

Example
-------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame({"educ": rng.integers(8, 18, 400), "sex": rng.choice(["f", "m"], 400)})
>>> df["income"] = np.exp(7 + 0.08 * df.educ + 0.2 * (df.sex == "m") + rng.normal(0, .4, 400))
>>> r = compare_regression(df, df, "np.log(income) ~ educ + sex")
>>> r.coefficients.ci_overlap.tolist(), r.prediction_quality
([1.0, 1.0, 1.0], 0.0)
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from .benchmark import ci_overlap

__all__ = ["compare_regression", "RegressionComparison", "MODELS"]

MODELS = ("ols", "wls", "logit")


@attrs.frozen
class RegressionComparison:
    """Result of :func:`compare_regression`: ``coefficients`` (tidy, one row per term),
    ``prediction_quality`` and the two statsmodels results ``fit_original``/``fit_masked``."""

    coefficients: pd.DataFrame
    prediction_quality: float
    fit_original: Any
    fit_masked: Any
    model: str
    formula: str


def _fit(data: pd.DataFrame, formula: str, model: str, weight: str | None, which: str):
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    try:
        if model == "ols":
            return smf.ols(formula, data=data).fit()
        w = data[weight].to_numpy(dtype=float) if weight else None
        if model == "wls":
            return smf.wls(formula, data=data, weights=w).fit()
        if w is not None:  # survey weights normalised to mean 1: the information stays that of n
            w = w / w.mean()
        return smf.glm(formula, data=data, family=sm.families.Binomial(), var_weights=w).fit()
    except MeasureError:
        raise
    except Exception as exc:  # patsy errors (unknown names, bad formula), singular designs ...
        msg = str(exc).strip().splitlines()
        raise MeasureError(
            f"compare_regression: cannot fit {formula!r} ({model}) on the {which} data: "
            f"{type(exc).__name__}: {' '.join(msg)[:300]}"
        ) from None


def _wmean(x: np.ndarray, w: np.ndarray | None) -> float:
    return float(np.mean(x) if w is None else np.dot(w, x) / w.sum())


def compare_regression(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    formula: str,
    *,
    model: str = "ols",
    weight: str | None = None,
    level: float = 0.95,
) -> RegressionComparison:
    """Fit ``formula`` on both files and compare the coefficients.

    ``model``: ``"ols"``; ``"wls"`` (needs ``weight``, the sampling weights as WLS weights);
    ``"logit"`` (binomial GLM with logit link; ``weight``, normalised to mean 1, as variance
    weights if given).
    Per term: ``coef_original``, ``coef_masked``, ``rel_diff_pct = 100 |β_m − β_o| / |β_o|``,
    the ``level`` Wald intervals of both fits, ``in_ci`` (β_m within the original interval) and
    ``ci_overlap`` (Karr et al. 2006). ``prediction_quality = |(ŷ̄_o − ŷ̄_m) / ŷ̄_o|`` with ŷ̄_o the
    (weighted) mean prediction of the original fit and ŷ̄_m the mean prediction of the masked fit,
    both on the original records (so the files need not be paired); if the masked fit cannot
    predict the original records (a category unknown to it) its own fitted values are used.

    Missing values drop the record from that fit (statsmodels' default).
    """
    if model not in MODELS:
        raise ParameterError(f"model: expected one of {MODELS}, got {model!r}")
    if not (0 < level < 1):
        raise ParameterError(f"level: expected a probability in (0, 1), got {level!r}")
    if not isinstance(formula, str) or "~" not in formula:
        raise ParameterError(f"formula: expected a formula 'y ~ x1 + x2', got {formula!r}")
    for name, d in (("original", original), ("masked", masked)):
        if not isinstance(d, pd.DataFrame):
            raise MeasureError(f"{name}: expected a DataFrame, got {type(d).__name__}")
        if weight is not None:
            if weight not in d.columns:
                raise MeasureError(f"weight: column {weight!r} not in the {name} data")
            wv = d[weight]
            if not pd.api.types.is_numeric_dtype(wv.dtype) or wv.isna().any() or (wv < 0).any():
                raise MeasureError(f"weight {weight!r}: expected non-missing numbers >= 0 ({name})")
    if model == "wls" and weight is None:
        raise ParameterError("model='wls' needs weight=<column of sampling weights>")
    fo = _fit(original, formula, model, weight, "original")
    fm = _fit(masked, formula, model, weight, "masked")
    a = 1 - level
    cio, cim = fo.conf_int(alpha=a), fm.conf_int(alpha=a)
    terms = list(fo.params.index)
    extra = [t for t in fm.params.index if t not in terms]
    terms += extra
    bo = fo.params.reindex(terms).to_numpy(dtype=float)
    bm = fm.params.reindex(terms).to_numpy(dtype=float)
    lo, uo = (cio.reindex(terms)[c].to_numpy(dtype=float) for c in cio.columns)
    lm, um = (cim.reindex(terms)[c].to_numpy(dtype=float) for c in cim.columns)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(bo == bm, 0.0, 100 * np.abs(bm - bo) / np.abs(bo))
    coefs = pd.DataFrame(
        {
            "term": terms,
            "coef_original": bo,
            "coef_masked": bm,
            "rel_diff_pct": rel,
            "orig_lower": lo,
            "orig_upper": uo,
            "masked_lower": lm,
            "masked_upper": um,
            "in_ci": (bm >= lo) & (bm <= uo),
            "ci_overlap": ci_overlap(lo, uo, lm, um),
        }
    )
    # prediction quality on the original records
    rows = fo.model.data.row_labels
    w = None
    if weight is not None:
        w = original.loc[rows, weight].to_numpy(dtype=float) if rows is not None else None
    yo = np.asarray(fo.fittedvalues, dtype=float)
    try:
        ym = np.asarray(fm.predict(original.loc[rows] if rows is not None else original),
                        dtype=float)
        if len(ym) != len(yo) or np.isnan(ym).any():
            raise ValueError("prediction size mismatch")
    except Exception:
        ym = np.asarray(fm.fittedvalues, dtype=float)
        wm = masked.loc[fm.model.data.row_labels, weight].to_numpy(dtype=float) if weight else None
        mo, mm = _wmean(yo, w), _wmean(ym, wm)
    else:
        mo, mm = _wmean(yo, w), _wmean(ym, w)
    if mo == 0:
        pq = 0.0 if mm == 0 else float("inf")
    else:
        pq = abs((mo - mm) / mo)
    return RegressionComparison(coefs, float(pq), fo, fm, model, formula)
