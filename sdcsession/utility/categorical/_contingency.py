"""Contingency-table information loss for categorical variables: the cross-classification of both
files, UT, UT2, AAD, the Hellinger distance, CTBIL and all of them per sub-table.

Table measures compare distributions and work on files of different lengths. In tables a missing
value is, by default, a category of its own (``missing="category"``) so that a suppression moves a
record from its category to "missing"; with ``missing="drop"`` records missing on any table
variable are left out. Cell counts may be weighted (``weight``). The public functions are
re-exported and documented by `sdcsession.utility.categorical.measures`; ``_cramers_v`` uses the
weight handling.

References: Templ, *Advanced Survey Statistics: Disclosure Control, part 6* (UT, UT2);
Domingo-Ferrer & Torra (2001) (CTBIL); Gomatam & Karr (2003) and Shlomo (2010) (AAD, Hellinger
distance) — as summarised in the handbook chapter *Measurement of information loss*
(``shared/literature``).

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"sex": ["m", "f", "m", "f"], "reg": ["a", "a", "b", "b"]})
>>> m = o.assign(sex=["m", None, "m", "f"])
>>> ctbil(o, m, columns=["sex"], max_dim=1)   # 1-d table distance = 2 x suppressions
2.0
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import combinations
from typing import Literal

import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from ...risk._codes import check_flag
from .._align import EncodedPair, check_frames, encode_pair, resolve_columns, weights_of

__all__ = [
    "contingency_table",
    "ut",
    "ut2",
    "aad",
    "hellinger",
    "ctbil",
    "contingency_loss",
]

Missing = Literal["category", "drop"]


# ------------------------------------------------------------------------ contingency tables
class _Tables:
    """Cell counts of the same cross-classification in both files (observed cells only)."""

    __slots__ = ("t_o", "t_m", "n_cells", "cells")

    def __init__(self, t_o: np.ndarray, t_m: np.ndarray, n_cells: int, cells: np.ndarray):
        self.t_o, self.t_m, self.n_cells, self.cells = t_o, t_m, n_cells, cells


def _weights_pair(original: pd.DataFrame, masked: pd.DataFrame, weight, measure: str):
    if weight is None:
        return None, None
    w_o = weights_of(original, weight, measure, "original")
    if isinstance(weight, (pd.Series, np.ndarray, list)) or weight not in masked.columns:
        if len(masked) != len(original):
            raise MeasureError(
                f"{measure}: weight {weight!r} is not in the masked file and the files differ in "
                "length; give the weight column in both files"
            )
        return w_o, w_o
    return w_o, weights_of(masked, weight, measure, "masked")


class _Prep:
    """Codes of one variable ready for tabulation (missing shifted to 0 or flagged)."""

    __slots__ = ("co", "cm", "size", "keep_o", "keep_m", "shift", "enc")

    def __init__(self, enc: EncodedPair, missing: Missing):
        if not isinstance(missing, str) or missing not in ("category", "drop"):
            raise ParameterError(f"missing: expected 'category' or 'drop', got {missing!r}")
        self.enc = enc
        self.keep_o = self.keep_m = None
        if missing == "category":
            has_na = bool((enc.codes_o < 0).any() or (enc.codes_m < 0).any())
            self.shift = int(has_na)
            self.size = enc.n_categories + self.shift
            self.co = enc.codes_o + 1 if has_na else enc.codes_o
            self.cm = enc.codes_m + 1 if has_na else enc.codes_m
        else:
            self.shift = 0
            self.size = enc.n_categories
            self.co, self.cm = enc.codes_o, enc.codes_m
            ko, km = enc.codes_o >= 0, enc.codes_m >= 0
            self.keep_o = None if ko.all() else ko
            self.keep_m = None if km.all() else km


def _joint(arrays: Sequence[np.ndarray], sizes: Sequence[int]) -> np.ndarray:
    if len(arrays) == 1:
        return arrays[0]
    j = arrays[0] * sizes[1]
    j += arrays[1]
    for a, s in zip(arrays[2:], sizes[2:]):
        j *= s
        j += a
    return j


def _and_masks(masks) -> np.ndarray | None:
    out = None
    for k in masks:
        if k is not None:
            out = k if out is None else out & k
    return out


def _tables_prepared(preps: Sequence[_Prep], w_o: np.ndarray | None, w_m: np.ndarray | None
                     ) -> _Tables:
    sizes = [p.size for p in preps]
    n_cells = 1
    for s in sizes:
        n_cells *= s
    if n_cells >= 2**62:
        raise MeasureError("contingency table has more than 2**62 cells; use fewer variables")
    jo = _joint([p.co for p in preps], sizes)
    jm = _joint([p.cm for p in preps], sizes)
    keep_o = _and_masks([p.keep_o for p in preps])
    keep_m = _and_masks([p.keep_m for p in preps])
    if keep_o is not None:
        jo = jo[keep_o]
        w_o = None if w_o is None else w_o[keep_o]
    if keep_m is not None:
        jm = jm[keep_m]
        w_m = None if w_m is None else w_m[keep_m]
    if n_cells <= max(4 * (len(jo) + len(jm)), 1 << 16):
        t_o = np.bincount(jo, weights=w_o, minlength=n_cells).astype(np.float64)
        t_m = np.bincount(jm, weights=w_m, minlength=n_cells).astype(np.float64)
        nz = (t_o != 0) | (t_m != 0)
        cells = np.flatnonzero(nz)
        return _Tables(t_o[nz], t_m[nz], n_cells, cells)
    cells, inv = np.unique(np.concatenate([jo, jm]), return_inverse=True)
    k = len(cells)
    t_o = np.bincount(inv[: len(jo)], weights=w_o, minlength=k).astype(np.float64)
    t_m = np.bincount(inv[len(jo):], weights=w_m, minlength=k).astype(np.float64)
    return _Tables(t_o, t_m, n_cells, cells)


def _tables(encs: Sequence[EncodedPair], w_o: np.ndarray | None, w_m: np.ndarray | None,
            missing: Missing) -> _Tables:
    return _tables_prepared([_Prep(e, missing) for e in encs], w_o, w_m)


def _prepare(original, masked, columns, weight, missing, measure, min_columns=1):
    check_frames(original, masked, measure)
    if columns is None:
        raise ParameterError(f"{measure}: columns (the table variables) must be given")
    cols = resolve_columns(original, masked, columns, measure, min_columns=min_columns)
    w_o, w_m = _weights_pair(original, masked, weight, measure)
    encs = [encode_pair(original[c], masked[c]) for c in cols]
    return cols, _tables(encs, w_o, w_m, missing)


def contingency_table(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Sequence[Hashable],
    weight: Hashable | None = None,
    missing: Missing = "category",
) -> pd.DataFrame:
    """The cross-classification of ``columns`` in both files as a tidy DataFrame.

    One row per cell that is non-empty in either file: the category of each variable (missing
    shown as NaN), ``original`` and ``masked`` counts (weighted sums with ``weight``) and their
    ``difference`` (masked − original). Does not need pairing.

    Missing values: a missing value (numeric or not) is a category of its own.

    Example
    -------
    >>> o = pd.DataFrame({"k": ["a", "a", "b"]}); m = pd.DataFrame({"k": ["a", "b", "b"]})
    >>> contingency_table(o, m, columns=["k"])[["k", "original", "masked"]].values.tolist()
    [['a', 2.0, 1.0], ['b', 1.0, 2.0]]
    """
    name = "contingency_table"
    check_frames(original, masked, name)
    cols = resolve_columns(original, masked, columns, name)
    w_o, w_m = _weights_pair(original, masked, weight, name)
    encs = [encode_pair(original[c], masked[c]) for c in cols]
    tab = _tables(encs, w_o, w_m, missing)
    rem = tab.cells.copy()
    labels = {}
    for c, e in reversed(list(zip(cols, encs))):
        shift = 0
        if missing == "category":
            shift = int((e.codes_o < 0).any() or (e.codes_m < 0).any())
        size = e.n_categories + shift
        idx = rem % size - shift
        rem = rem // size
        vals = e.categories.take(np.maximum(idx, 0)).to_numpy(dtype=object, copy=True)
        vals[idx < 0] = np.nan
        labels[c] = vals
    out = pd.DataFrame({c: labels[c] for c in cols})
    out["original"] = tab.t_o
    out["masked"] = tab.t_m
    out["difference"] = tab.t_m - tab.t_o
    return out


def _ut(tab: _Tables) -> float:
    return float(np.abs(tab.t_o - tab.t_m).sum() / tab.n_cells)


def _ut2(tab: _Tables, zero_cells: str, measure: str) -> float:
    pos = tab.t_o > 0
    bad = (~pos) & (tab.t_m > 0)
    if not isinstance(zero_cells, str) or zero_cells not in ("exclude", "error"):
        raise ParameterError(f"zero_cells: expected 'exclude' or 'error', got {zero_cells!r}")
    if zero_cells == "error" and bad.any():
        raise MeasureError(
            f"{measure}: {int(bad.sum())} cells are empty in the original table but not in the "
            "masked one (relative change undefined); use zero_cells='exclude'"
        )
    n_def = int(pos.sum()) + (tab.n_cells - len(tab.t_o))
    if n_def == 0:
        raise MeasureError(f"{measure}: the original table has no non-empty cell")
    return float(100.0 * (np.abs(tab.t_o[pos] - tab.t_m[pos]) / tab.t_o[pos]).sum() / n_def)


def ut(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Sequence[Hashable],
    weight: Hashable | None = None,
    missing: Missing = "category",
) -> float:
    """UT: mean absolute cell difference of the contingency tables of ``columns``.

    ``UT = (1/(n1·n2)) Σ_ij |T^X_ij − T^Y_ij|`` (Templ 2019, eq. 1) for two variables, and in
    general the sum over all cells divided by the number of cells of the full cross-classification
    (product of the numbers of categories seen in either file, plus one for "missing" when a
    missing value occurs). Optionally weighted (cells are sums of weights). Direction: higher =
    more loss; range [0, ∞), 0 when the tables agree. Does not need pairing.

    Missing values: a missing value is a category of its own (cells count it).

    Example
    -------
    >>> o = pd.DataFrame({"k": ["a", "a", "b", "b"]}); m = o.assign(k=["a", "b", "b", "b"])
    >>> ut(o, m, columns=["k"])
    1.0
    """
    return _ut(_prepare(original, masked, columns, weight, missing, "ut")[1])


def ut2(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Sequence[Hashable],
    weight: Hashable | None = None,
    missing: Missing = "category",
    zero_cells: Literal["exclude", "error"] = "exclude",
) -> float:
    """UT2: mean relative cell change of the contingency tables of ``columns``, in percent.

    ``UT2 = 100 · (1/(n1·n2)) Σ_ij |T^X_ij − T^Y_ij| / T^X_ij`` (Templ 2019, eq. 2). The relative
    change is undefined where ``T^X = 0``: cells empty in both tables count as 0 change (they are
    in the denominator, as in the full n1·n2 table); cells empty in the original but filled in the
    masked table are left out of sum and denominator (``zero_cells="exclude"``) or raise
    MeasureError (``zero_cells="error"``). Direction: higher = more loss; range [0, ∞).
    Does not need pairing.

    Missing values: a missing value is a category of its own (see `ut`).

    Example
    -------
    >>> o = pd.DataFrame({"k": ["a", "a", "b", "b"]}); m = o.assign(k=["a", "b", "b", "b"])
    >>> ut2(o, m, columns=["k"])   # (1/2 + 1/2) / 2 cells
    50.0
    """
    tab = _prepare(original, masked, columns, weight, missing, "ut2")[1]
    return _ut2(tab, zero_cells, "ut2")


def aad(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Sequence[Hashable],
    weight: Hashable | None = None,
    missing: Missing = "category",
) -> float:
    """AAD: average absolute distance per cell (Gomatam & Karr 2003, in Shlomo 2010).

    ``AAD(D_orig, D_pert) = Σ_c |D_pert(c) − D_orig(c)| / n_c`` with n_c the number of cells of
    the table of ``columns``; for two variables it coincides with `ut`. Direction: higher =
    more loss; range [0, ∞). Does not need pairing.

    Missing values: a missing value is a category of its own (see `contingency_table`).

    Example
    -------
    >>> o = pd.DataFrame({"k": ["a", "a", "b", "b"]}); m = o.assign(k=["a", "b", "b", "b"])
    >>> aad(o, m, columns=["k"])
    1.0
    """
    return _ut(_prepare(original, masked, columns, weight, missing, "aad")[1])


def _hellinger(tab: _Tables, scale: str) -> float:
    a, b = tab.t_o, tab.t_m
    if not isinstance(scale, str):
        raise ParameterError(f"scale: expected 'proportion' or 'count', got {scale!r:.40}")
    if scale == "proportion":
        so, sm = a.sum(), b.sum()
        if so <= 0 or sm <= 0:
            raise MeasureError("hellinger: a table is empty")
        a, b = a / so, b / sm
    elif scale != "count":
        raise ParameterError(f"scale: expected 'proportion' or 'count', got {scale!r}")
    return float(np.sqrt(0.5 * ((np.sqrt(b) - np.sqrt(a)) ** 2).sum()))


def hellinger(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Sequence[Hashable],
    weight: Hashable | None = None,
    missing: Missing = "category",
    scale: Literal["proportion", "count"] = "proportion",
) -> float:
    """Hellinger distance between the contingency tables of ``columns`` (Shlomo 2010).

    ``HD = sqrt( ½ Σ_c (sqrt(D_pert(c)) − sqrt(D_orig(c)))² )``. With ``scale="proportion"``
    (default) D are cell proportions and HD ∈ [0, 1]; with ``scale="count"`` D are the counts as in
    Shlomo (2010), HD ∈ [0, sqrt(n)]. Direction: higher = more loss. Does not need pairing.

    Missing values: a missing value is a category of its own (see `contingency_table`).

    Example
    -------
    >>> o = pd.DataFrame({"k": ["a", "a", "b", "b"]}); m = o.assign(k=["c", "c", "c", "c"])
    >>> hellinger(o, m, columns=["k"])
    1.0
    """
    return _hellinger(_prepare(original, masked, columns, weight, missing, "hellinger")[1], scale)


def ctbil(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Sequence[Hashable],
    max_dim: int = 2,
    weight: Hashable | None = None,
    missing: Missing = "category",
    normalise: bool = False,
) -> float:
    """CTBIL(F, G; W, K): contingency-table-based information loss (Domingo-Ferrer & Torra 2001).

    ``CTBIL = Σ_{V ⊆ W, 1 ≤ |V| ≤ K} Σ_cells |x^F_cell − x^G_cell|`` over all sub-tables of the
    variables W (``columns``) of dimension at most K (``max_dim``). ``normalise=True`` divides by
    the total number of cells of all the tables considered. A one-dimensional table distance is
    twice the number of suppressions (a suppressed record leaves its category for "missing").
    Direction: higher = more loss; range [0, 2·n·#tables] (normalised: [0, ∞)). No pairing needed.

    Missing values: a missing value is a category of its own, so a suppression moves a record to it.

    Example
    -------
    >>> o = pd.DataFrame({"a": ["x", "y"], "b": ["u", "u"]}); m = o.assign(a=["x", None])
    >>> ctbil(o, m, columns=["a", "b"], max_dim=2)   # table a: 2, table b: 0, table a×b: 2
    4.0
    """
    name = "ctbil"
    check_frames(original, masked, name)
    if isinstance(max_dim, bool) or not isinstance(max_dim, int) or max_dim < 1:
        raise ParameterError(f"max_dim: expected an integer >= 1, got {max_dim!r}")
    check_flag(normalise, "normalise")
    cols = resolve_columns(original, masked, columns, name)
    w_o, w_m = _weights_pair(original, masked, weight, name)
    preps = {c: _Prep(encode_pair(original[c], masked[c]), missing) for c in cols}
    total, cells = 0.0, 0
    for d in range(1, min(max_dim, len(cols)) + 1):
        for sub in combinations(cols, d):
            tab = _tables_prepared([preps[c] for c in sub], w_o, w_m)
            total += float(np.abs(tab.t_o - tab.t_m).sum())
            cells += tab.n_cells
    return total / cells if normalise else total


def contingency_loss(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Sequence[Hashable],
    dims: int = 2,
    weight: Hashable | None = None,
    missing: Missing = "category",
) -> pd.DataFrame:
    """Table-based loss for every sub-table of ``dims`` variables of ``columns`` (default: pairs).

    One row per table (``table`` = "a × b"): ``cells`` (full cross-classification), ``abs_diff``
    (Σ|T^X − T^Y|, the CTBIL term), ``ut`` (= AAD), ``ut2`` (percent, zero original cells
    excluded), ``hellinger`` (proportions), ``false_zeros`` (cells non-empty only in the original)
    and ``false_nonzeros`` (non-empty only in the masked table). ``abs_diff.sum()`` over
    dims = 1..K is CTBIL. Each variable is encoded once; no pairing needed. Higher = more loss.

    Missing values: a missing value is a category of its own (see `contingency_table`).

    Example
    -------
    >>> o = pd.DataFrame({"a": list("xxyy"), "b": list("uvuv"), "c": list("pppq")})
    >>> m = o.assign(a=["x", "y", "y", "y"])
    >>> contingency_loss(o, m, columns=["a", "b", "c"])["abs_diff"].tolist()
    [2.0, 2.0, 0.0]
    """
    name = "contingency_loss"
    check_frames(original, masked, name)
    if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
        raise ParameterError(f"dims: expected an integer >= 1, got {dims!r}")
    cols = resolve_columns(original, masked, columns, name, min_columns=dims)
    w_o, w_m = _weights_pair(original, masked, weight, name)
    preps = {c: _Prep(encode_pair(original[c], masked[c]), missing) for c in cols}
    rows = []
    for sub in combinations(cols, dims):
        tab = _tables_prepared([preps[c] for c in sub], w_o, w_m)
        diff = np.abs(tab.t_o - tab.t_m)
        rows.append(
            {
                "table": " × ".join(str(c) for c in sub),
                "cells": tab.n_cells,
                "abs_diff": float(diff.sum()),
                "ut": float(diff.sum() / tab.n_cells),
                "ut2": _ut2(tab, "exclude", name) if (tab.t_o > 0).any() else float("nan"),
                "hellinger": _hellinger(tab, "proportion")
                if tab.t_o.sum() > 0 and tab.t_m.sum() > 0 else float("nan"),
                "false_zeros": int(((tab.t_o > 0) & (tab.t_m == 0)).sum()),
                "false_nonzeros": int(((tab.t_o == 0) & (tab.t_m > 0)).sum()),
            }
        )
    return pd.DataFrame(rows).set_index("table")
