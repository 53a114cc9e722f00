"""Invariant PRAM (post-randomisation) of categorical variables.

What the parameters mean
------------------------
For a variable with K observed-or-declared categories and frequencies f (a row vector):

``pd`` — the diagonal of the *base* transition matrix P: ``P[i, i] = pd`` (the probability
that the base step keeps a category) and ``P[i, j] = (1 − pd)/(K − 1)`` for j ≠ i (the rest spread
evenly over the other categories). ``pd = 1`` changes nothing; ``pd = 0`` always moves.
(sdcMicro draws its diagonal at random from [pd, 1]; here it is exactly ``pd`` so the matrix is
reproducible from the parameters alone.)

``alpha`` — the share of the invariant matrix in the matrix actually used:
``M = alpha·R + (1 − alpha)·I`` where ``R = P·Q`` is the invariant matrix built from P and the
backward matrix ``Q[j, i] = P[i, j]·f_i / Σ_l P[l, j]·f_l`` (Kooiman, Willenborg & Gouweleeuw 1997;
Gouweleeuw, Kooiman, Willenborg & de Wolf 1998). Because ``f·P·Q = f``, ``f·M = f``: the expected
frequency table after PRAM equals the observed one. ``alpha = 0`` changes nothing; ``alpha = 1``
uses R itself. The probability that a record of category i keeps its category is ``M[i, i]``.

A category with frequency 0 in the data (stratum) gets probability 0 in every column of R, so it
never appears. Each record of category i draws its new category from row i of M (one uniform per
record, inverse CDF). Missing values stay missing and do not count in f.

``matrix`` — a user base matrix replacing P: a mapping ``{from_category: {to_category: prob}}``
(or a square DataFrame, index = from, columns = to). It must be square, labelled by exactly the
same categories on both sides, non-negative with rows summing to 1 (±1e-9), and cover every
observed category. With ``invariant=True`` (default) it goes through the same R = P·Q and alpha
blending; with ``invariant=False`` the matrix used is ``alpha·P + (1 − alpha)·I`` (plain PRAM;
``alpha=1`` applies P as given). For several columns give ``{column: matrix}``.

``strata`` — PRAM within each stratum separately (frequencies and R per stratum).

``given`` — variables whose combinations with the PRAMmed variable must stay possible: PRAM
runs within the strata they define, the matrix restricted to the categories present there, so
no combination of the PRAMmed variable with ``given`` that has zero frequency in the original
is ever produced; ``bandwidth`` — an ordered category moves at most that many steps. How
invariance is kept under both: `sdcsession.methods.pram.constrained`.

References: Kooiman, P., Willenborg, L. & Gouweleeuw, J. (1997) PRAM: a method for disclosure
limitation of microdata, CBS research paper 9705. Gouweleeuw, J. M., Kooiman, P., Willenborg,
L. C. R. J. & de Wolf, P.-P. (1998) Post randomisation for statistical disclosure control: theory
and implementation, Journal of Official Statistics 14(4), 463–478.

Example
-------
>>> import numpy as np, pandas as pd
>>> df = pd.DataFrame({"water": ["pipe"] * 6 + ["well"] * 4})
>>> out, notes = pram(df, ["water"], pd=0.8, alpha=0.0, rng=np.random.default_rng(0))
>>> notes["changed"], out["water"].equals(df["water"])
({'water': 0}, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError, TreatmentError
from ...roles import Roles
from ..base import (
    Result,
    Treatment,
    check_bool,
    check_number,
    freeze,
    param_names,
    require_columns,
)
from ..microaggregation.treatment import _stratum_codes
from .constrained import band_matrix, check_band, check_bandwidth, restrict, reversible_matrix

_pandas = pd

__all__ = ["pram", "Pram", "pram_matrix", "invariant_matrix", "MAX_NUMERIC_CATEGORIES",
           "MAX_CATEGORIES"]

#: a numeric (non-categorical) column with more distinct values is refused (recode it first)
MAX_NUMERIC_CATEGORIES = 20
#: no column may have more categories than this (K×K matrices)
MAX_CATEGORIES = 2000


def pram_matrix(k: int, pd: float) -> np.ndarray:
    """The base matrix: ``pd`` on the diagonal, ``(1 − pd)/(k − 1)`` elsewhere.

    >>> pram_matrix(3, 0.8).round(2).tolist()
    [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]
    """
    if k == 1:
        return np.ones((1, 1))
    p = np.full((k, k), (1.0 - pd) / (k - 1))
    np.fill_diagonal(p, pd)
    return p


def invariant_matrix(p: np.ndarray, freq: np.ndarray, alpha: float) -> np.ndarray:
    """``alpha·P·Q + (1 − alpha)·I`` with Q the backward matrix of P under frequencies ``freq``.

    ``Q[j, i] = P[i, j]·f_i / λ_j`` with ``λ = f·P``. Rows of categories with zero frequency are
    set to the identity (no record uses them); columns of zero-frequency categories are zero.

    >>> r = invariant_matrix(pram_matrix(2, 0.8), np.array([60.0, 40.0]), 1.0)
    >>> np.allclose(np.array([60.0, 40.0]) @ r, [60, 40]), np.allclose(r.sum(axis=1), 1)
    (True, True)
    """
    f = np.asarray(freq, dtype=np.float64)
    lam = f @ p
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(lam[:, None] > 0, (p * f[:, None]).T / lam[:, None], 0.0)
    r = p @ q  # columns of zero-frequency categories are 0 since Q[l, j] ∝ f_j
    zero = f == 0
    r[zero] = np.eye(len(f))[zero]  # unused rows: identity (no record draws from them)
    r /= r.sum(axis=1, keepdims=True)
    return alpha * r + (1.0 - alpha) * np.eye(len(f))


def _categories(s: pd.Series, column: str) -> tuple[np.ndarray, list[Any]]:
    """Integer codes (−1 = missing) and category labels of a column."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        cats = list(s.cat.categories)
        codes = s.cat.codes.to_numpy().astype(np.int64)
    else:
        if pd.api.types.is_float_dtype(s.dtype) or pd.api.types.is_integer_dtype(s.dtype):
            nd = s.nunique(dropna=True)
            if nd > MAX_NUMERIC_CATEGORIES:
                raise TreatmentError(
                    f"pram: column {column!r} is numeric with {nd} distinct values; PRAM is for "
                    "categorical variables: recode it into a few categories first "
                    "(e.g. global_recode with breaks) or use add_noise/microaggregation")
        codes_, uniq = pd.factorize(s, sort=True)
        codes = codes_.astype(np.int64)
        cats = list(uniq)
    if len(cats) > MAX_CATEGORIES:
        raise TreatmentError(f"pram: column {column!r} has {len(cats)} categories (more than "
                             f"{MAX_CATEGORIES}); recode it first")
    if (codes >= 0).sum() == 0:
        raise TreatmentError(f"pram: column {column!r} has only missing values")
    return codes, cats


def _user_matrix(m: Any, cats: list[Any], column: str) -> np.ndarray:
    """Validate a labelled user matrix and order it like ``cats``."""
    if isinstance(m, pd.DataFrame):
        rows = list(m.index)
        cols = list(m.columns)
        vals = m.to_numpy(dtype=np.float64)
    elif isinstance(m, Mapping):
        rows = list(m.keys())
        if not all(isinstance(v, Mapping) for v in m.values()):
            raise TreatmentError(f"pram: matrix for {column!r} must map each category to "
                                 "{category: probability}")
        cols = list(next(iter(m.values())).keys()) if m else []
        if any(list(v.keys()) != cols and set(v.keys()) != set(cols) for v in m.values()):
            raise TreatmentError(f"pram: matrix for {column!r} is not square: rows name "
                                 "different target categories")
        vals = np.array([[float(m[r][c]) for c in cols] for r in rows], dtype=np.float64)
    else:
        raise TreatmentError(f"pram: matrix for {column!r} must be a mapping or DataFrame")
    if len(rows) != len(cols) or set(map(str, rows)) != set(map(str, cols)):
        raise TreatmentError(f"pram: matrix for {column!r} is not square with the same labels on "
                             f"both sides (rows {rows}, columns {cols})")
    if not np.isfinite(vals).all() or (vals < 0).any():
        raise TreatmentError(f"pram: matrix for {column!r} has negative or non-finite entries")
    bad = np.flatnonzero(np.abs(vals.sum(axis=1) - 1.0) > 1e-9)
    if len(bad):
        raise TreatmentError(f"pram: matrix for {column!r} is not stochastic: rows "
                             f"{[rows[i] for i in bad]} do not sum to 1")
    key = {str(c): i for i, c in enumerate(cats)}
    unknown = [r for r in rows if str(r) not in key]
    absent = [c for c in cats if str(c) not in set(map(str, rows))]
    if unknown or absent:
        raise TreatmentError(f"pram: matrix for {column!r} is mislabelled: labels {unknown} are not "
                             f"categories of the column; categories {absent} are missing")
    ri = np.array([key[str(r)] for r in rows])
    ci = np.array([key[str(c)] for c in cols])
    out = np.zeros((len(cats), len(cats)))
    out[np.ix_(ri, ci)] = vals
    return out


def _draw(codes: np.ndarray, group: np.ndarray, cum: np.ndarray, u: np.ndarray) -> np.ndarray:
    """New codes: record i of (group g, code c) takes the first j with u_i < cum[g, c, j]."""
    k = cum.shape[-1]
    ok = codes >= 0
    new = codes.copy()
    if not ok.any():  # only missing values (a Dask partition can hold no other): unchanged
        return new
    row = (group[ok] * k + codes[ok])
    flat = cum.reshape(-1, k)
    # offset trick: rows of flat are searched at once; rows are [0, 1] cumulative so add row ids
    order = np.argsort(row, kind="stable")
    rs = row[order]
    bounds = np.flatnonzero(np.diff(rs)) + 1
    starts = np.concatenate([[0], bounds])
    ends = np.concatenate([bounds, [len(rs)]])
    us = u[ok][order]
    out = np.empty(len(rs), dtype=np.int64)
    for s, e in zip(starts, ends):  # one iteration per (stratum, category) present
        out[s:e] = np.searchsorted(flat[rs[s]], us[s:e], side="right")
    res = np.empty(len(rs), dtype=np.int64)
    res[order] = np.minimum(out, k - 1)
    new[ok] = res
    return new


def pram(data: pd.DataFrame, columns: list[str] | tuple[str, ...], *, pd: float = 0.8,
         alpha: float = 0.5, matrix: Any = None, strata: list[str] | tuple[str, ...] | None = None,
         invariant: bool = True, rng: np.random.Generator,
         given: list[str] | tuple[str, ...] | None = None, bandwidth: int | None = None
         ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Invariant PRAM of categorical ``columns`` (see the module docstring for pd/alpha/matrix).

    ``given``: PRAM within the strata of these variables too, each stratum's matrix restricted
    to the categories present there (no new zero-frequency combination of a PRAMmed column
    with ``given``); ``bandwidth``: a category moves at most this many steps in the category
    order (`sdcsession.methods.pram.constrained`).

    Missing values: missing values of a PRAMmed column stay missing and do not count in the
    frequencies; a missing value of a ``given`` or ``strata`` variable is a stratum of its own.

    Returns the new DataFrame (same dtypes: categorical stays categorical with the same
    categories) and notes: ``matrices`` — per column and stratum ``{"categories": [...],
    "matrix": [[...]]}`` (the matrix M actually used, rows = from, columns = to), ``changed`` —
    number of changed values per column, ``frequencies_before``/``after`` per column.

    Example
    -------
    >>> df = pd.DataFrame({"x": ["a", "b", "c"] * 100})
    >>> out, notes = pram(df, ["x"], pd=0.5, alpha=1.0, rng=np.random.default_rng(3))
    >>> notes["matrices"]["x"]["all"]["categories"], 0 < notes["changed"]["x"] < 300
    (['a', 'b', 'c'], True)
    """
    columns = tuple(columns)
    given = tuple(param_names(given, "given") or ())
    bandwidth = check_bandwidth(bandwidth)
    if set(columns) & set(given):
        raise TreatmentError(f"given: column(s) {sorted(set(columns) & set(given))} cannot be "
                             "both PRAMmed and given")
    strata = tuple(strata or ()) + tuple(c for c in given if c not in (strata or ()))
    pd_ = check_number("pd", pd, 0, 1)
    alpha = check_number("alpha", alpha, 0, 1)
    invariant = check_bool("invariant", invariant)
    require_columns(data, list(columns) + list(strata), "pram")
    if set(columns) & set(strata):
        raise TreatmentError(f"pram: column(s) {sorted(set(columns) & set(strata))} cannot be "
                             "both PRAMmed and strata")
    sidx, slabels = _stratum_codes(data, strata)
    n_st = len(slabels)
    user = _split_matrix(matrix, columns)
    notes: dict[str, Any] = {"pd": pd_, "alpha": alpha, "invariant": bool(invariant),
                             **({"given": list(given)} if given else {}),
                             **({"bandwidth": bandwidth} if bandwidth is not None else {}),
                             "matrices": {}, "changed": {}, "frequencies_before": {},
                             "frequencies_after": {}}
    new_cols: dict[str, pd.Series] = {}
    for col in columns:
        s = data[col]
        codes, cats = _categories(s, col)
        k = len(cats)
        base = column_base(user.get(col), cats, col, pd_, bandwidth)
        ok = codes >= 0
        freq = np.bincount(sidx[ok] * k + codes[ok], minlength=n_st * k).reshape(n_st, k)
        mats = np.empty((n_st, k, k))
        for st in range(n_st):
            mats[st] = stratum_matrix(base, freq[st].astype(np.float64), alpha, invariant,
                                      bandwidth, bool(given))
        cum = np.cumsum(mats, axis=2)
        cum /= cum[:, :, -1:]
        u = rng.random(len(codes))
        new = _draw(codes, sidx, cum, u)
        changed = int((new != codes).sum())
        new_cols[col] = codes_to_column(new, ok, cats, s)
        labels = [_label(c) for c in cats]
        notes["matrices"][col] = {
            slabels[st]: {"categories": labels, "matrix": mats[st].tolist()} for st in range(n_st)}
        notes["changed"][col] = changed
        after = np.bincount(new[ok], minlength=k)
        notes["frequencies_before"][col] = dict(zip(labels, freq.sum(axis=0).tolist()))
        notes["frequencies_after"][col] = dict(zip(labels, after.tolist()))
    return data.assign(**new_cols), notes


def stratum_matrix(base: np.ndarray, freq: np.ndarray, alpha: float, invariant: bool,
                   bandwidth: int | None, given: bool) -> np.ndarray:
    """The matrix used in one stratum (frequencies ``freq``): invariant (``P·Q``, or the
    reversible matrix with a ``bandwidth``) or plain, restricted to the present categories when
    the strata include ``given`` variables (`sdcsession.methods.pram.constrained`)."""
    if invariant:
        if bandwidth is not None:
            return reversible_matrix(base, freq, alpha)
        return invariant_matrix(base, freq, alpha)
    m = alpha * base + (1.0 - alpha) * np.eye(len(freq))
    return restrict(m, np.asarray(freq) > 0) if given else m


def column_base(user: Any, cats: list[Any], column: str, pd: float,
                bandwidth: int | None) -> np.ndarray:
    """The base matrix of one column: the user's (checked against the bandwidth) or the default
    one (`pram_matrix`, or `band_matrix` with a bandwidth)."""
    if user is not None:
        base = _user_matrix(user, cats, column)
        if bandwidth is not None:
            check_band(base, bandwidth, cats, column)
        return base
    return pram_matrix(len(cats), pd) if bandwidth is None else band_matrix(len(cats), pd,
                                                                            bandwidth)


def codes_to_column(new: np.ndarray, ok: np.ndarray, cats: Any, s: Any) -> Any:
    """The PRAMmed codes ``new`` (of categories ``cats``) as a column like ``s``: the same
    categorical dtype, or the values in ``s``'s dtype with missing records (``~ok``) missing."""
    if isinstance(s.dtype, _pandas.CategoricalDtype):
        return _pandas.Series(_pandas.Categorical.from_codes(new, dtype=s.dtype), index=s.index,
                              name=s.name)
    vals = np.asarray(list(cats), dtype=object)[np.maximum(new, 0)]
    out = _pandas.Series(vals, index=s.index, name=s.name)
    out[~ok] = None
    try:
        return out.astype(s.dtype)
    except (TypeError, ValueError):  # pragma: no cover - exotic dtypes
        return out


def _label(c: Any) -> Any:
    if isinstance(c, np.generic):
        return c.item()
    return c if isinstance(c, (str, int, float, bool)) or c is None else str(c)


def _split_matrix(matrix: Any, columns: tuple[str, ...]) -> dict[str, Any]:
    """``{column: matrix or None}`` from a single matrix or a per-column mapping."""
    if matrix is None:
        return dict.fromkeys(columns)
    if isinstance(matrix, Mapping) and matrix and set(matrix) <= set(columns) and all(
            isinstance(v, (Mapping, pd.DataFrame)) and (isinstance(v, pd.DataFrame) or all(
                isinstance(w, Mapping) for w in v.values())) for v in matrix.values()):
        return {c: matrix.get(c) for c in columns}
    if len(columns) != 1:
        raise TreatmentError("pram: with several columns give matrix={column: matrix}")
    return {columns[0]: matrix}


# --------------------------------------------------------------------------- treatment
def _matrix_conv(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, pd.DataFrame):
        return {r: {c: float(v.loc[r, c]) for c in v.columns} for r in v.index}
    if isinstance(v, Mapping):
        if not v:
            raise ParameterError("matrix: expected a non-empty mapping {from: {to: p}} (or None)")
        return {k: _matrix_conv(w) if isinstance(w, (Mapping, pd.DataFrame)) else w
                for k, w in v.items()}
    raise ParameterError(f"matrix: expected a mapping {{from: {{to: p}}}} or DataFrame, got "
                         f"{type(v).__name__}")


def _check_stochastic(m: Any, where: str) -> None:
    """Construction-time checks of a user matrix (square, labelled, stochastic)."""
    if not isinstance(m, Mapping) or not m:
        raise ParameterError(f"matrix{where}: expected a non-empty mapping {{from: {{to: p}}}}")
    rows = list(m)
    for r, row in m.items():
        if not isinstance(row, Mapping):
            raise ParameterError(f"matrix{where}: row {r!r} must map categories to probabilities")
        if set(map(str, row)) != set(map(str, rows)):
            raise ParameterError(f"matrix{where}: not square with the same labels: row {r!r} names "
                                 f"{list(row)}, rows are {rows}")
        vals = np.array([check_number(f"matrix{where}: row {r!r:.40}", x, 0, 1)
                         for x in row.values()])
        if not np.isfinite(vals).all() or (vals < 0).any() or abs(vals.sum() - 1) > 1e-9:
            raise ParameterError(f"matrix{where}: row {r!r} must be probabilities summing to 1, "
                                 f"got {vals.tolist()}")


@attrs.frozen
class Pram(Treatment):
    """Invariant PRAM treatment (tag ``"pram"``); see `pram` for pd, alpha and matrix,
    ``given`` (no impossible combinations) and ``bandwidth`` (ordered categories).

    >>> Pram(["water"], pd=0.8, alpha=0.5).params()["alpha"]
    0.5
    """

    type: ClassVar[str] = "pram"
    random: ClassVar[bool] = True

    columns: tuple[str, ...] = attrs.field(
        converter=lambda v: param_names(v, "columns", required=True))
    pd: float = attrs.field(default=0.8, converter=lambda v: check_number("pd", v, 0, 1))
    alpha: float = attrs.field(default=0.5, converter=lambda v: check_number("alpha", v, 0, 1))
    matrix: Any = attrs.field(default=None, converter=_matrix_conv, eq=False, hash=False)
    strata: tuple[str, ...] = attrs.field(default=(), converter=lambda v: param_names(v, "strata"))
    invariant: bool = attrs.field(default=True, validator=lambda _s, a, v: check_bool(a.name, v))
    given: tuple[str, ...] = attrs.field(default=(), converter=lambda v: param_names(v, "given"))
    bandwidth: int | None = attrs.field(default=None, converter=check_bandwidth)
    _matrix_key: Any = attrs.field(init=False, eq=True, repr=False)

    @_matrix_key.default
    def _mk(self) -> Any:
        return freeze(self.matrix)

    def __attrs_post_init__(self) -> None:
        if self.matrix is not None:
            per_column = set(self.matrix) <= set(self.columns) and all(
                isinstance(v, Mapping) and all(isinstance(w, Mapping) for w in v.values())
                for v in self.matrix.values())
            if per_column:
                for c, m in self.matrix.items():
                    _check_stochastic(m, f" for {c!r}")
            elif len(self.columns) == 1:
                _check_stochastic(self.matrix, "")
            else:
                raise ParameterError("matrix: with several columns give matrix={column: matrix}")
        if set(self.columns) & set(self.strata):
            raise ParameterError("strata: a PRAMmed column cannot also be a stratum")
        if set(self.columns) & set(self.given):
            raise ParameterError("given: a PRAMmed column cannot also be a given variable")

    def params(self) -> dict[str, Any]:
        d = super().params()
        d.pop("_matrix_key", None)
        d.pop("matrix_key", None)
        return d

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        require_columns(data, list(self.columns) + list(self.strata) + list(self.given), "pram")
        user = _split_matrix(self.matrix, self.columns)
        for c in self.columns:
            codes, cats = _categories(data[c], c)
            if user.get(c) is not None:
                column_base(user[c], cats, c, self.pd, self.bandwidth)

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = pram(data, self.columns, pd=self.pd, alpha=self.alpha, matrix=self.matrix,
                          strata=self.strata, invariant=self.invariant, rng=rng,
                          given=self.given, bandwidth=self.bandwidth)
        return Result(out, notes=notes)
