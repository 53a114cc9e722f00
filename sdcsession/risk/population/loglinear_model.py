"""Log-linear model risk: population uniqueness of sample uniques from a model of the cell counts.

The key variables of a formula cross-classify the records into cells k with sample counts f_k.
A log-linear model of the counts (Skinner & Holmes 1998) gives each cell an expected count; with
the population count F_k = f_k + (Poisson number of unsampled units), Skinner and Holmes' two file
measures over the sample uniques are

    tau1 = sum_{k: f_k = 1} P(F_k = 1 | f_k = 1)   = sum exp(-v_k)
    tau2 = sum_{k: f_k = 1} E[1 / F_k | f_k = 1]   = sum (1 - exp(-v_k)) / v_k,
    v_k  = (1 - pi_k) lambda_k,

pi_k the sampling fraction and lambda_k the expected population count of the cell.

sdcMicro's ``modRisk`` (version 5.8.1) is reproduced exactly by ``gr1`` and ``gr2``:

- cells are every combination of the observed values of the model's variables (values seen in any
  record, also one with another variable missing), including the empty ones; records with a
  missing model variable take no part in the fit nor in the risk;
- per cell: f_k (records), W_k (sum of weights), pi_k = sum of 1/w_i (for a sample unique the
  record's inclusion probability 1/w);
- the model's fitted value mu_k is plugged in as lambda_k, v_k = (1 - pi_k) mu_k;
- ``gr1 = sum_{f_k = 1} exp(-v_k) / K`` and ``gr2 = sum_{f_k = 1} (1 - exp(-v_k)) / v_k / K``
  where K is the number of non-empty cells with ``f_k <= bound`` (not the number of records);
  ``bound`` (default infinity) changes only K.

The methods differ in what is fitted (all Poisson log-linear models of the cells):

- ``"default"``: f_k ~ formula, Poisson IRLS (as statsmodels' GLM; R's start and stopping rule);
- ``"CE"`` (Clogg & Eliason 1987; Skinner & Shlomo 2008): f_k ~ formula + offset
  log(f_k / W_k + 0.1) (0 for empty cells before adding 0.1);
- ``"PML"`` (pseudo maximum likelihood, Skinner & Shlomo 2008): round(W_k n / N) ~ formula, n the
  number of records and N the sum of all weights;
- ``"weightedLLM"``: f_k ~ formula + W_k (the weight total as a linear covariate);
- ``"IPF"``: iterative proportional fitting of the one-way margins (main effects only).

sdcMicro's fitted mu_k is on the scale of the sample, not of the population, so gr1 and gr2 are
much larger than the published estimators when weights are large. ``tau1``/``tau2`` and the
per-record risks follow the publication instead: lambda_k is the model's estimate of the
population count (mu_k / (f_k / W_k) for default, weightedLLM and IPF; mu_k divided by the CE
offset's exp for CE; mu_k N / n for PML).

Factor variables are categories: a plain column name in the formula is a categorical factor
whatever its dtype. Numeric codes are fitted as a linear term only inside ``I()`` (``I(age)``).
sdcMicro passes the data frame to R's ``glm``, which fits integer-coded columns as linear terms;
to reproduce sdcMicro on such data write ``I(x)`` for every integer-coded ``x`` (IPF reads
``I(x)`` as the margin of ``x``, as sdcMicro's IPF cross-tabulates every variable).

References
----------
Skinner, C.J. and Holmes, D.J. (1998). Estimating the re-identification risk per record in
microdata. Journal of Official Statistics 14, 361-372.
Skinner, C.J. and Shlomo, N. (2008). Assessing identification risk in survey microdata using
log-linear models. Journal of the American Statistical Association 103, 989-1001.
Rinott, Y. and Shlomo, N. (2006). A generalized negative binomial smoothing model for sample
disclosure risk estimation. Privacy in Statistical Databases, LNCS 4302, 82-93.
Clogg, C.C. and Eliason, S.R. (1987). Some common problems in log-linear analysis. Sociological
Methods and Research 16, 8-44.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"a": list("xxyyxy"), "b": list("uvuvvu"), "w": [10.0] * 6})
>>> r = model_risk(df, "~ a + b", weight="w")
>>> r.n_cells, round(r.gr1, 6)
(4, 0.12962)
"""

from __future__ import annotations

import math
import warnings

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError, SdcWarning, user_stacklevel
from ...formula import build_design, parse_formula
from ...formula.nodes import Cat, Column, Formula, Ident
from .._codes import check_frame, check_number, encode_column, weights_of
from ._loglinear import fit_ipf, fit_poisson

__all__ = ["ModelRisk", "model_risk", "METHODS", "MAX_CELLS"]

METHODS = ("default", "CE", "PML", "weightedLLM", "IPF")
#: largest cross-classification accepted (cells x design columns is bounded too)
MAX_CELLS = 20_000_000
_MAX_DESIGN = 400_000_000


@attrs.frozen(eq=False)
class ModelRisk:
    """Result of `model_risk`.

    Attributes
    ----------
    gr1, gr2 : sdcMicro's ``modRisk`` figures (fractions): sums over sample uniques of
        exp(-v) and (1 - exp(-v)) / v divided by ``n_cells``.
    tau1, tau2 : Skinner–Holmes expected numbers of sample uniques that are population unique and
        of their correct matches, with the population-scale lambda (see the module doc).
    n_cells : the denominator of gr1/gr2: non-empty cells with f_k <= bound.
    sample_uniques : number of cells (= records) with f_k == 1.
    unique_probability : per record P(F_k = 1 | f_k) (0 where f_k > 1, NaN where a model
        variable is missing), aligned to the data's index.
    risk : per record E[1 / F_k | f_k] (probability of a correct match), NaN where a model
        variable is missing.
    cells : one row per non-empty complete cell: the model's variables, ``fk``, ``weight``
        (W_k), ``pi`` (sum of 1/w), ``fitted`` (mu_k), ``lam`` (population-scale lambda_k),
        ``risk1``/``risk2`` (sdcMicro's per-cell terms, NaN where fk > 1).
    method, formula, bound : what was fitted.
    """

    gr1: float
    gr2: float
    tau1: float
    tau2: float
    n_cells: int
    sample_uniques: int
    unique_probability: pd.Series = attrs.field(repr=False)
    risk: pd.Series = attrs.field(repr=False)
    cells: pd.DataFrame = attrs.field(repr=False)
    method: str
    formula: str
    bound: float

    @property
    def gr1perc(self) -> float:
        """gr1 in percent (sdcMicro's ``gr1perc``)."""
        return 100.0 * self.gr1

    @property
    def gr2perc(self) -> float:
        """gr2 in percent (sdcMicro's ``gr2perc``)."""
        return 100.0 * self.gr2

    def to_dict(self) -> dict[str, float | int | str]:
        """The scalar figures as a JSON-serialisable dict."""
        return {"method": self.method, "formula": self.formula,
                "bound": None if math.isinf(self.bound) else self.bound,
                "gr1": self.gr1, "gr2": self.gr2, "tau1": self.tau1, "tau2": self.tau2,
                "n_cells": self.n_cells, "sample_uniques": self.sample_uniques}


# ------------------------------------------------------------------------------ arguments
def _check_method(method: object) -> str:
    if not isinstance(method, str) or method not in METHODS:
        raise ParameterError(f"method: expected one of {list(METHODS)}, got {method!r}")
    return method


def _check_bound(bound: object) -> float:
    if bound is None:
        return math.inf
    b = check_number(bound, "bound", "a number >= 1 (cells with more records are left out of "
                     "the denominator) or None", finite=False)
    if not b >= 1:
        raise ParameterError(f"bound: expected a number >= 1 (cells with more records are left "
                             f"out of the denominator) or None, got {bound!r}")
    return b


def _free_name(base: str, taken: set[str]) -> str:
    name = base
    while name in taken:
        name += "_"
    return name


def _parse(text: object, columns: set[str]) -> tuple[Formula, str]:
    """The formula with a fresh outcome column (the cell count) and plain columns as categories."""
    if not isinstance(text, str) or "~" not in text:
        raise ParameterError(f"formula: expected a one-sided formula such as '~ sex + age + "
                             f"region', got {text!r}")
    yname = _free_name("cellcount", columns)
    if text.strip().startswith("~"):
        f = parse_formula(f"{yname} {text.strip()}")
    else:
        f = parse_formula(text)
        warnings.warn(f"formula: the left side {f.outcome_name!r} is ignored; model risk models "
                      "the cell counts", SdcWarning, stacklevel=user_stacklevel())
        f = parse_formula(f"{yname} ~ {text.split('~', 1)[1]}")
    if not f.terms:
        raise ParameterError(f"formula: {text!r} names no variable")
    terms = tuple(tuple(Cat(node) if isinstance(node, Column) else node for node in t)
                  for t in f.terms)
    return attrs.evolve(f, terms=terms), yname


def _ipf_columns(f: Formula) -> list[str]:
    """The margins of an IPF model: one column per term, order 1 only."""
    out = []
    for t in f.terms:
        node = t[0]
        if isinstance(node, Ident) and isinstance(node.inner, Column):
            node = Cat(node.inner)
        if len(t) > 1 or not isinstance(node, Cat):
            raise ParameterError("method='IPF' fits main effects of columns only (no interaction, "
                                 f"no transform); got {f.text!r}")
        out.append(node.column.name)
    return list(dict.fromkeys(out))


# ------------------------------------------------------------------------------ cells
def _encode(s: pd.Series, name: str) -> tuple[np.ndarray, pd.Series]:
    """Codes (-1 missing) and the observed values (a Series usable as a grid column)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        codes = s.cat.codes.to_numpy(dtype=np.int64)
        used = np.unique(codes[codes >= 0])
        remap = np.full(len(s.cat.categories) + 1, -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        cats = s.cat.categories[used]
        levels = pd.Series(pd.Categorical(cats, categories=cats))
        return remap[codes], levels
    try:
        codes, uniques = pd.factorize(s, sort=True)
    except TypeError:  # mixed types that do not sort
        codes, uniques = pd.factorize(s)
    return np.asarray(codes, dtype=np.int64), pd.Series(np.asarray(uniques), name=name)


def _cells(data: pd.DataFrame, columns: list[str], w: np.ndarray) -> dict:
    """Aggregate the records to the full grid of observed values (sdcMicro's ``expand.grid``)."""
    codes, levels, cards = [], [], []
    for c in columns:
        k, lv = _encode(data[c], c)
        if len(lv) == 0:
            raise MeasureError(f"model_risk: variable {c!r} is missing in every record")
        if len(lv) < 2:
            raise MeasureError(f"model_risk: data: variable {c!r} has a single category "
                               f"({lv.iloc[0]!r}); it cannot enter a model, leave it out")
        codes.append(k)
        levels.append(lv)
        cards.append(len(lv))
    G = math.prod(cards)
    if G > MAX_CELLS:
        raise MeasureError(f"model_risk: the cross-classification of {columns} has {G:,} cells "
                           f"(more than {MAX_CELLS:,}); use fewer or coarser variables")
    C = np.column_stack(codes)
    complete = (C >= 0).all(axis=1)
    if not complete.any():
        raise MeasureError(f"model_risk: no record has all of {columns} non-missing")
    cell = np.ravel_multi_index(tuple(C[complete].T), cards)
    wc = w[complete]
    grid_codes = np.column_stack(np.unravel_index(np.arange(G), cards)) if G else C[:0]
    grid = pd.DataFrame({c: lv.iloc[grid_codes[:, j]].reset_index(drop=True)
                         for j, (c, lv) in enumerate(zip(columns, levels))})
    return {"cell": cell, "complete": complete, "cards": cards, "grid_codes": grid_codes,
            "grid": grid,
            "fk": np.bincount(cell, minlength=G).astype(float),
            "W": np.bincount(cell, weights=wc, minlength=G),
            "pi": np.bincount(cell, weights=1.0 / wc, minlength=G)}


# ------------------------------------------------------------------------------ risk terms
def _risk_terms(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """exp(-v) and (1 - exp(-v)) / v (its limit 1 at v = 0, where sdcMicro gives NaN)."""
    v = np.asarray(v, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r2 = np.where(v > 0, -np.expm1(-v) / np.where(v > 0, v, 1.0), 1.0)
        return np.exp(-v), r2


def _expected_inverse(f: np.ndarray, v: np.ndarray) -> np.ndarray:
    """E[1 / (f + X)] with X ~ Poisson(v): (1/f) 1F1(1; f + 1; -v)."""
    from scipy.special import hyp1f1

    out = np.empty(len(f))
    one = f == 1
    out[one] = _risk_terms(v[one])[1]
    out[~one] = hyp1f1(1.0, f[~one] + 1.0, -v[~one]) / f[~one]
    return out


# ------------------------------------------------------------------------------ main
def model_risk(data: pd.DataFrame, formula: str, *, weight: str, method: str = "default",
               bound: float | None = None) -> ModelRisk:
    """Global risk of sample uniques from a log-linear model of the cell counts (sdcMicro modRisk).

    Missing values: records with a missing model variable take no part in the fit nor in the
    risk (their per-record risk is NaN); missing weights are refused with a MeasureError.

    Parameters
    ----------
    data : the records.
    formula : one-sided model formula of the safe formula language, e.g. ``"~ sex + age + region
        + sex:age"``; plain columns are categorical, ``I(x)`` is a linear term.
    weight : column of sampling weights (> 0).
    method : ``"default"``, ``"CE"``, ``"PML"``, ``"weightedLLM"`` or ``"IPF"`` (module doc).
    bound : count up to which a cell enters the denominator of gr1/gr2 (None = all cells).

    Returns
    -------
    ModelRisk
        ``gr1``, ``gr2`` (sdcMicro), ``tau1``, ``tau2`` (Skinner–Holmes), per-record
        ``unique_probability`` and ``risk``, and the per-cell table ``cells``.

    Formula
    -------
    gr1 = (1/K) sum_{f_k=1} exp(-(1 - pi_k) mu_k);  gr2 = (1/K) sum_{f_k=1} (1 - exp(-v_k)) / v_k.

    Raises
    ------
    ParameterError
        Unknown method, bad bound, a formula outside the language, interactions with IPF.
    MeasureError
        Columns missing from the data, weights <= 0 or missing, an all-missing variable, a
        variable with one category, a zero margin in IPF, too many cells.

    References
    ----------
    Skinner & Holmes (1998); Skinner & Shlomo (2008); sdcMicro 5.8.1 ``modRisk``.

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": list("xxyyxy"), "b": list("uvuvvu"), "w": [10.0] * 6})
    >>> r = model_risk(df, "~ a + b", weight="w", method="IPF")
    >>> round(r.gr1, 6), round(r.gr2, 6)
    (0.12962, 0.274355)
    """
    data = check_frame(data, "data")
    method = _check_method(method)
    bnd = _check_bound(bound)
    if not isinstance(weight, str):
        raise ParameterError(f"weight: expected the name of the weight column, got {weight!r}")
    w = weights_of(data, weight)
    assert w is not None
    f, yname = _parse(formula, {str(c) for c in data.columns})
    columns = _ipf_columns(f) if method == "IPF" else f.columns[1:]
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise MeasureError(f"model_risk: formula column(s) {missing} not in the data "
                           f"(columns: {[str(c) for c in data.columns][:30]})")
    for c in columns:
        if data[c].dtype == object:
            encode_column(data[c], "keys")  # refuses unhashable cells (RoleError naming c)
    if method == "IPF":
        for c in columns:
            s = data[c]
            if isinstance(s.dtype, pd.CategoricalDtype) and s.cat.codes.nunique() < len(
                    s.cat.categories) + int((s.cat.codes < 0).any()):
                unused = sorted(set(map(str, s.cat.categories)) - set(map(str, s.dropna())))
                raise MeasureError(f"IPF: variable {c!r} has categories with zero count "
                                   f"{unused[:10]}: IPF cannot fit a zero-count margin; "
                                   "remove the unused categories first")
    cells = _cells(data, columns, w)
    fk, W, pi = cells["fk"], cells["W"], cells["pi"]
    n_all, N_all = float(len(data)), float(w.sum())
    G = len(fk)
    offset = None
    if method == "IPF":
        mu = fit_ipf(cells["grid_codes"], cells["cards"], fk)
        scale = None
    else:
        grid = cells["grid"]
        y = fk
        if method == "CE":
            with np.errstate(invalid="ignore", divide="ignore"):
                ec = np.where(W > 0, fk / np.where(W > 0, W, 1.0), 0.0)
            offset = np.log(ec + 0.1)
        elif method == "PML":
            y = np.round(W * (n_all / N_all))
        design_formula = f
        if method == "weightedLLM":
            wname = _free_name("cellweight", set(grid.columns) | {yname})
            grid = grid.assign(**{wname: W})
            design_formula = attrs.evolve(f, terms=f.terms + ((Column(wname, wname),),))
        grid = grid.assign(**{yname: y})
        # a model of the cells has at most one parameter per cell (the saturated model)
        X = build_design(design_formula, grid, records_per_column=1,
                         max_cells=_MAX_DESIGN).X.to_numpy()
        if X.shape[0] != G:  # pragma: no cover - the grid has no missing values
            raise MeasureError("model_risk: the design lost cells")
        if G * X.shape[1] > _MAX_DESIGN:
            raise MeasureError(f"model_risk: the design would have {G:,} cells x {X.shape[1]} "
                               "columns; use fewer or coarser variables")
        mu = fit_poisson(X, y, offset)
        scale = {"CE": None if offset is None else np.exp(offset),
                 "PML": np.full(G, n_all / N_all)}.get(method)
    nonempty = fk > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = mu / (fk / W if scale is None else scale)
    v_sdc = (1.0 - pi) * mu
    r1, r2 = _risk_terms(v_sdc)
    uniq = fk == 1
    in_bound = nonempty & (fk <= bnd) & (mu > 0)
    K = int(in_bound.sum())
    gr1 = float(r1[uniq & in_bound].sum() / K) if K else 0.0
    gr2 = float(r2[uniq & in_bound].sum() / K) if K else 0.0
    # published (population-scale) terms per non-empty cell
    pi_pub = np.where(nonempty, fk / np.where(W > 0, W, 1.0), 0.0)
    v_pub = np.clip((1.0 - pi_pub) * lam, 0.0, None)
    idx = np.flatnonzero(nonempty)
    p_unique = np.where(uniq[idx], np.exp(-v_pub[idx]), 0.0)
    e_inv = _expected_inverse(fk[idx], v_pub[idx])
    tau1 = float(p_unique[uniq[idx]].sum())
    tau2 = float(e_inv[uniq[idx]].sum())
    table = cells["grid"].iloc[idx].reset_index(drop=True)
    table = table.assign(fk=fk[idx].astype(np.int64), weight=W[idx], pi=pi[idx], fitted=mu[idx],
                         lam=lam[idx], risk1=np.where(uniq[idx], r1[idx], np.nan),
                         risk2=np.where(uniq[idx], r2[idx], np.nan))
    # per record: position of its cell among the non-empty ones
    pos = np.full(G, -1, dtype=np.int64)
    pos[idx] = np.arange(len(idx))
    rec_pu = np.full(len(data), np.nan)
    rec_risk = np.full(len(data), np.nan)
    where = pos[cells["cell"]]
    rec_pu[cells["complete"]] = p_unique[where]
    rec_risk[cells["complete"]] = e_inv[where]
    return ModelRisk(gr1=gr1, gr2=gr2, tau1=tau1, tau2=tau2, n_cells=K,
                     sample_uniques=int(uniq.sum()),
                     unique_probability=pd.Series(rec_pu, index=data.index,
                                                  name="unique_probability"),
                     risk=pd.Series(rec_risk, index=data.index, name="model_risk"),
                     cells=table, method=method, formula=str(formula), bound=bnd)
