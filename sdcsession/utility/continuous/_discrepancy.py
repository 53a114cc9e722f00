"""The discrepancy table of Domingo-Ferrer, Mateo-Sanz & Torra (2001) for continuous variables:
mean square error, mean absolute error and mean variation between statistics (data, means,
covariances, variances, correlations, principal-component correlations, communalities, loadings)
of the original and the masked file, with Trottini's (2003) bounded mean variation.

Re-exported and documented by `sdcsession.utility.continuous.measures`.

References (see ``shared/literature``): Domingo-Ferrer, Mateo-Sanz & Torra (2001) and
Domingo-Ferrer & Torra (2001) (discrepancy table); Trottini (2003) (bounded mean variation).

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 5.0], "y": [1.0, 3.0, 2.0, 6.0]})
>>> discrepancy_table(o, o, statistics=["V"])["mse"].tolist()
[0.0]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Literal

import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from ...risk._codes import check_number
from .._align import column_list, numeric_matrix, paired
from ._numeric import _complete, _numeric_cols, _sd_checked

__all__ = ["discrepancy_table"]


def _pca(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eigenvalues (desc.), eigenvectors (columns) and correlation matrix of x (complete cases)."""
    r = np.corrcoef(x, rowvar=False)
    r = np.atleast_2d(r)
    vals, vecs = np.linalg.eigh(r)
    order = np.argsort(vals)[::-1]
    return vals[order], vecs[:, order], r


def discrepancy_table(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    statistics: Sequence[str] = ("X", "X_mean", "V", "S", "R", "RF", "C", "F"),
    n_components: int = 1,
    component_weights: Literal["variance", "equal"] = "variance",
    trottini_bound: float | None = None,
) -> pd.DataFrame:
    """Discrepancies between statistics of the original and masked data, as a tidy DataFrame.

    The table of Domingo-Ferrer, Mateo-Sanz & Torra (2001): for each statistic M (computed on the
    original) and M' (on the masked data) the mean square error ``Σ (m − m')² / cells``, the mean
    absolute error ``Σ |m − m'| / cells`` and the mean variation ``Σ |m − m'| / |m| / cells`` with

    - ``X``: the data, n·p cells (needs pairing); ``X_mean``: the means, p cells;
    - ``V``: covariances, the p(p+1)/2 cells i ≤ j; ``S``: the variances (diagonal), p cells;
    - ``R``: correlations, the p(p−1)/2 cells i < j;
    - ``RF``: correlations between variable i and principal component j, weighted by w_j over p²
      cells; ``F``: loadings (unit eigenvectors), weighted by w_j over p² cells;
    - ``C``: communalities Σ_{j ≤ n_components} rf_ij² (share of variable i explained), p cells.

    Principal components are those of the correlation matrix (standardised data), in decreasing
    order of eigenvalue; the masked eigenvectors are sign-aligned to the original ones. ``w_j`` is
    the share of variance of component j in the original (``component_weights="variance"``) or 1.
    The mean variation is a fraction (×100 for percent). Cells with m = 0 make it infinite: they
    are left out and counted in ``mvar_excluded``, unless ``trottini_bound`` is given — then every
    cell's relative variation is capped at the bound (Trottini 2003), which bounds the mean too.
    Columns: statistic, cells, mse, mae, mvar, mvar_excluded. Direction: higher = more loss; range
    [0, ∞) (mvar ≤ trottini_bound when given). Needs complete cases per file.

    Missing values: the record-level statistic X leaves out cells with a missing value (n·p counts
    all cells); the other statistics use the records complete in each file (listwise).

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 5.0], "y": [1.0, 3.0, 2.0, 6.0]})
    >>> t = discrepancy_table(o, o * 2, statistics=["X_mean", "R"])
    >>> t[["statistic", "cells", "mae", "mvar"]].values.tolist()
    [['X_mean', 2, 2.875, 1.0], ['R', 1, 0.0, 0.0]]
    """
    name = "discrepancy_table"
    known = ("X", "X_mean", "V", "S", "R", "RF", "C", "F")
    stats = column_list(statistics, name, "statistics")
    bad = [s for s in stats if not isinstance(s, str) or s not in known]
    if bad or not stats:
        raise ParameterError(f"{name}: unknown statistics {bad}; known: {list(known)}")
    if not isinstance(component_weights, str) or component_weights not in ("variance",
                                                                            "equal"):
        raise ParameterError(f"component_weights: expected 'variance' or 'equal', got "
                             f"{component_weights!r}")
    if trottini_bound is not None:
        check_number(trottini_bound, "trottini_bound", "a positive number")
    if trottini_bound is not None and not (trottini_bound > 0):
        raise ParameterError(f"trottini_bound: expected a positive number, got {trottini_bound!r}")
    cols = _numeric_cols(original, masked, columns, name)
    p = len(cols)
    if isinstance(n_components, bool) or not isinstance(n_components, int) or \
            not 1 <= n_components <= p:
        raise ParameterError(f"n_components: expected an integer in 1..{p}, got {n_components!r}")
    if "X" in stats:
        masked = paired(original, masked, name)
    x = numeric_matrix(original, cols, name, "original")
    z = numeric_matrix(masked, cols, name, "masked")
    xc, zc = _complete(x), _complete(z)
    if len(xc) < 2 or len(zc) < 2:
        raise MeasureError(f"{name}: fewer than two complete records")
    need_pca = any(s in stats for s in ("RF", "C", "F"))
    if need_pca or "R" in stats:
        _sd_checked(xc, cols, name, "original")
        _sd_checked(zc, cols, name, "masked")

    rows = []

    def add(stat: str, a: np.ndarray, b: np.ndarray, w: np.ndarray | None = None,
            cells: int | None = None):
        a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
        ok = ~(np.isnan(a) | np.isnan(b))
        w = np.ones_like(a) if w is None else np.asarray(w, float).ravel()
        ncell = cells if cells is not None else len(a)
        diff = np.abs(a - b)
        mse = float((w[ok] * diff[ok] ** 2).sum() / ncell)
        mae = float((w[ok] * diff[ok]).sum() / ncell)
        zero = (a == 0) & ok
        rel_ok = ok & ~zero
        rel = np.zeros_like(a)
        rel[rel_ok] = diff[rel_ok] / np.abs(a[rel_ok])
        excluded = 0
        if trottini_bound is not None:
            rel[zero & (diff > 0)] = trottini_bound
            rel = np.minimum(rel, trottini_bound)
            use = ok
        else:
            excluded = int((zero & (diff > 0)).sum())
            use = rel_ok | (zero & (diff == 0))
        denom = ncell - excluded
        mvar = float((w[use] * rel[use]).sum() / denom) if denom > 0 else float("nan")
        rows.append({"statistic": stat, "cells": ncell, "mse": mse, "mae": mae, "mvar": mvar,
                     "mvar_excluded": excluded})

    if "X" in stats:
        add("X", x, z)
    if "X_mean" in stats:
        add("X_mean", xc.mean(axis=0), zc.mean(axis=0))
    iu = np.triu_indices(p)
    iu1 = np.triu_indices(p, 1)
    if "V" in stats or "S" in stats:
        vx = np.atleast_2d(np.cov(xc, rowvar=False))
        vz = np.atleast_2d(np.cov(zc, rowvar=False))
        if "V" in stats:
            add("V", vx[iu], vz[iu])
        if "S" in stats:
            add("S", np.diag(vx), np.diag(vz))
    if need_pca or "R" in stats:
        lx, ex, rx = _pca(xc)
        lz, ez, rz = _pca(zc)
        if "R" in stats:
            if p < 2:
                raise MeasureError(f"{name}: R needs at least two variables")
            add("R", rx[iu1], rz[iu1])
        if need_pca:
            signs = np.sign(np.sum(ex * ez, axis=0))
            signs[signs == 0] = 1.0
            ez = ez * signs
            rfx = ex * np.sqrt(np.clip(lx, 0, None))
            rfz = ez * np.sqrt(np.clip(lz, 0, None))
            wj = lx / lx.sum() if component_weights == "variance" else np.ones(p)
            wmat = np.broadcast_to(wj, (p, p))
            if "RF" in stats:
                add("RF", rfx, rfz, wmat, cells=p * p)
            if "C" in stats:
                add("C", (rfx[:, :n_components] ** 2).sum(axis=1),
                    (rfz[:, :n_components] ** 2).sum(axis=1))
            if "F" in stats:
                add("F", ex, ez, wmat, cells=p * p)
    order = {s: i for i, s in enumerate(stats)}
    out = pd.DataFrame(rows)
    return out.sort_values("statistic", key=lambda s: s.map(order)).reset_index(drop=True)
