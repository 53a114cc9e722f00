"""Regression comparison: the same model fitted on the original and on the masked file.

The analyst's model (a formula in patsy/R notation) is fitted on both files; the coefficients,
their confidence intervals, the relative differences, whether the masked coefficient lies in the
original interval and the confidence-interval overlap of Karr et al. (2006) are returned per term,
with the prediction-quality measure ``|(ŷ̄_o − ŷ̄_m) / ŷ̄_o|``.

Formulas are never evaluated as Python: they are parsed by ``sdcsession.formula`` (column
names, ``+ - * / : ** ~ ( )``, ``C()``, ``I()`` with arithmetic, ``Q("name")`` and a short list of
transforms such as ``np.log``; anything else is a `ParameterError` before any data are touched),
the design matrices are built from the parse tree with numpy/pandas by
``sdcsession.formula.build_design`` (patsy's columns, names and treatment coding), and
statsmodels fits them through its array interface, so patsy never sees the formula.

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

from collections.abc import Hashable
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from ..formula import Design, Formula, build_design, model_matrix, parse_formula
from ..methods.params import check_number
from ._align import check_frame, check_frames
from .benchmark.indicators import ci_overlap

__all__ = ["compare_regression", "fit_formula", "RegressionComparison", "MODELS"]

MODELS = ("ols", "wls", "logit")


@attrs.frozen
class RegressionComparison:
    """Result of `compare_regression`: ``coefficients`` (tidy, one row per term),
    ``prediction_quality`` and the two statsmodels results ``fit_original``/``fit_masked`` (fitted
    on design matrices: ``fit.model.exog_names`` are the term columns; build the columns for other
    records with ``sdcsession.formula.model_matrix``)."""

    coefficients: pd.DataFrame
    prediction_quality: float
    fit_original: Any
    fit_masked: Any
    model: str
    formula: str


def _weights(data: pd.DataFrame, weight: str | None, keep: np.ndarray) -> np.ndarray | None:
    if weight is None:
        return None
    if weight not in data.columns:
        raise MeasureError(f"weight: column {weight!r} not in the data")
    wv = data[weight]
    if not pd.api.types.is_numeric_dtype(wv.dtype) or pd.api.types.is_bool_dtype(wv.dtype):
        raise MeasureError(f"weight {weight!r}: expected numbers, got {wv.dtype}")
    w = wv.to_numpy(dtype=float, na_value=np.nan)[keep]
    if not np.isfinite(w).all() or (w < 0).any():
        raise MeasureError(f"weight {weight!r}: expected finite numbers >= 0 without missing values")
    return w


def _fit(data: pd.DataFrame, formula: Formula, model: str, weight: str | None,
         which: str) -> tuple[Any, Design]:
    import statsmodels.api as sm

    where = f" on the {which} data" if which else ""
    try:
        d = build_design(formula, data)
    except MeasureError as exc:
        raise MeasureError(f"{exc}{where}") from None
    w = _weights(data, weight, d.keep)
    if model == "logit" and not np.isin(d.y.to_numpy(), (0.0, 1.0)).all():
        bad = d.y[~np.isin(d.y.to_numpy(), (0.0, 1.0))].unique()[:5].tolist()
        raise MeasureError(f"model='logit': the outcome {d.y.name} must be 0/1 (or boolean){where}"
                           f", found {bad}")
    try:
        if model == "ols":
            return sm.OLS(d.y, d.X).fit(), d
        if model == "wls":
            return sm.WLS(d.y, d.X, weights=w).fit(), d
        if w is not None:  # survey weights normalised to mean 1: the information stays that of n
            w = w / w.mean()
        return sm.GLM(d.y, d.X, family=sm.families.Binomial(), var_weights=w).fit(), d
    except Exception as exc:  # singular designs, perfect separation, ...
        msg = str(exc).strip().splitlines()
        raise MeasureError(
            f"cannot fit {formula.text!r} ({model}){where}: "
            f"{type(exc).__name__}: {' '.join(msg)[:300]}"
        ) from None


def fit_formula(data: pd.DataFrame, formula: str, *, model: str = "ols",
                weight: str | None = None) -> Any:
    """Fit a model given as a (safe) formula on one DataFrame; statsmodels' results object.

    ``model``: ``"ols"``, ``"wls"`` (``weight`` = the column of weights) or ``"logit"`` (binomial
    GLM with logit link on a 0/1 outcome; ``weight``, normalised to mean 1, as variance weights).
    The formula language is that of ``sdcsession.formula`` (patsy's notation without
    arbitrary Python); coefficient names are patsy's (``"C(sex)[T.m]"``, ``"I(age ** 2)"``).
    Records with a missing value in a variable of the model are left out.

    Missing values: records with a missing value in a model variable are left out (listwise).

    Raises
    ------
    ParameterError
        A formula outside the safe language, or an unknown ``model``.
    MeasureError
        A column missing from ``data``, a non-numeric outcome, bad weights, or a failed fit.

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"y": [1.0, 3, 5, 7], "x": [0, 1, 2, 3]})
    >>> fit_formula(df, "y ~ x").params.round(12).tolist()
    [1.0, 2.0]
    """
    if not isinstance(model, str) or model not in MODELS:
        raise ParameterError(f"model: expected one of {MODELS}, got {model!r:.60}")
    if model == "wls" and weight is None:
        raise ParameterError("model='wls' needs weight=<column of weights>")
    check_frame(data, "data", "fit_formula")
    if weight is not None and (isinstance(weight, bool) or not isinstance(weight, Hashable)
                               or weight not in data.columns):
        raise MeasureError(f"fit_formula: weight must be a column name of the data, got "
                           f"{weight!r:.60}")
    return _fit(data, parse_formula(formula), model, weight, "")[0]


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
    ``"logit"`` (binomial GLM with logit link; ``weight``, normalised to mean 1 over the records
    of the fit, as variance weights if given).
    Per term: ``coef_original``, ``coef_masked``, ``rel_diff_pct = 100 |β_m − β_o| / |β_o|``,
    the ``level`` Wald intervals of both fits, ``in_ci`` (β_m within the original interval) and
    ``ci_overlap`` (Karr et al. 2006). ``prediction_quality = |(ŷ̄_o − ŷ̄_m) / ŷ̄_o|`` with ŷ̄_o the
    (weighted) mean prediction of the original fit and ŷ̄_m the mean prediction of the masked fit,
    both on the original records (so the files need not be paired); if the masked fit cannot
    predict the original records (a category unknown to it) its own fitted values are used.

    Missing values drop the record from that fit (statsmodels' default). ``formula`` is parsed
    by the safe formula language of ``sdcsession.formula`` and never evaluated as Python
    (see the module docstring); ``model="logit"`` needs a 0/1 (or boolean) outcome.

    Missing values: records with a missing value in a model variable are dropped from that fit
    (listwise, statsmodels' default).

    Raises
    ------
    ParameterError
        A bad ``model``, ``level`` or ``formula`` (anything outside the formula language, checked
        before any data are read).
    MeasureError
        Columns missing from a file, bad weights, a non-binary logit outcome or a failed fit.

    Example
    -------
    >>> import pandas as pd
    >>> o = pd.DataFrame({"y": [1.0, 3, 5, 7], "x": [0, 1, 2, 3]})
    >>> r = compare_regression(o, o.assign(y=[1.0, 4, 7, 10]), "y ~ x")
    >>> r.coefficients[["term", "coef_original", "coef_masked"]].round(9).values.tolist()
    [['Intercept', 1.0, 1.0], ['x', 2.0, 3.0]]
    """
    if not isinstance(model, str) or model not in MODELS:
        raise ParameterError(f"model: expected one of {MODELS}, got {model!r}")
    check_number("level", level, 0, 1, lo_open=True, hi_open=True)
    parsed = parse_formula(formula)
    check_frames(original, masked, "compare_regression")
    for name, d in (("original", original), ("masked", masked)):
        if weight is not None:
            if not isinstance(weight, Hashable) or weight not in d.columns:
                raise MeasureError(f"weight: column {weight!r} not in the {name} data")
            wv = d[weight]
            if not pd.api.types.is_numeric_dtype(wv.dtype) or wv.isna().any() or (wv < 0).any():
                raise MeasureError(f"weight {weight!r}: expected non-missing numbers >= 0 ({name})")
    if model == "wls" and weight is None:
        raise ParameterError("model='wls' needs weight=<column of sampling weights>")
    fo, do = _fit(original, parsed, model, weight, "original")
    fm, dm = _fit(masked, parsed, model, weight, "masked")
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
    w = _weights(original, weight, do.keep)
    yo = np.asarray(fo.fittedvalues, dtype=float)
    try:  # the masked model's predictions for the original records (its levels, its columns)
        ym = np.asarray(fm.predict(model_matrix(dm.spec, original[do.keep])), dtype=float)
        if len(ym) != len(yo) or np.isnan(ym).any():
            raise MeasureError("prediction size mismatch")
    except MeasureError:  # a category unknown to the masked model: its own fitted values
        ym = np.asarray(fm.fittedvalues, dtype=float)
        mo, mm = _wmean(yo, w), _wmean(ym, _weights(masked, weight, dm.keep))
    else:
        mo, mm = _wmean(yo, w), _wmean(ym, w)
    if mo == 0:
        pq = 0.0 if mm == 0 else float("inf")
    else:
        pq = abs((mo - mm) / mo)
    return RegressionComparison(coefs, float(pq), fo, fm, model, formula)
