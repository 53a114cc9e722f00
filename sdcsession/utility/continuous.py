"""Information loss for continuous variables: IL1s, IL1, the Domingo-Ferrer/Mateo-Sanz/Torra
discrepancy table, eigenvalue differences, Młodak's γ and the complex measure λ.

References (see ``shared/literature``): Yancey, Winkler & Creecy (2002) (IL1s); Domingo-Ferrer,
Mateo-Sanz & Torra (2001) and Domingo-Ferrer & Torra (2001) (discrepancy table); Trottini (2003)
(bounded mean variation); Templ & Meindl (2008) / sdcMicro ``dUtility`` (IL1, eigen, robeigen);
Młodak (2020) and Młodak, Pietrzak & Józefowski (2022) (γ and λ).

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [2.0, 1.0, 4.0, 3.0]})
>>> m = o.assign(x=o["x"] + 0.5)
>>> round(il1s(o, m), 6)   # (4 · 0.5 / (sqrt(2) · sd_x)) / (4 · 2)
0.136931
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Literal

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from ._align import (
    check_frames,
    check_named,
    encode_pair,
    is_numeric_column,
    numeric_matrix,
    paired,
    resolve_columns,
)

__all__ = [
    "il1s",
    "il1s_sdcmicro",
    "il1",
    "discrepancy_table",
    "eigen_difference",
    "il_correl",
    "il_variables",
    "ILVariables",
    "mcd_covariance",
]


def _numeric_cols(original, masked, columns, measure, min_columns=1):
    check_frames(original, masked, measure)
    if columns is None:
        cols = [c for c in original.columns
                if c in masked.columns and is_numeric_column(original[c])]
        if len(cols) < min_columns:
            raise MeasureError(
                f"{measure}: needs at least {min_columns} common numeric column(s); give columns"
            )
        return cols
    return resolve_columns(original, masked, columns, measure, min_columns=min_columns)


def _sd_checked(x: np.ndarray, cols: Sequence[Hashable], measure: str, which: str) -> np.ndarray:
    nan_cols = [j for j in range(x.shape[1]) if np.isnan(x[:, j]).any()]
    if nan_cols:
        counts = np.array([(~np.isnan(x[:, j])).sum() for j in range(x.shape[1])])
        few = [c for c, k in zip(cols, counts) if k < 2]
        if few:
            raise MeasureError(
                f"{measure}: fewer than two observed values in the {which} file: {few}")
        sd = np.array([np.nanstd(x[:, j], ddof=1) for j in range(x.shape[1])])
    else:
        if x.shape[0] < 2:
            raise MeasureError(f"{measure}: fewer than two records in the {which} file")
        sd = np.array([x[:, j].std(ddof=1) for j in range(x.shape[1])])
    zero = [c for c, s in zip(cols, sd) if not s > 0]
    if zero:
        raise MeasureError(
            f"{measure}: zero standard deviation in the {which} file for {zero}; the scaled "
            "distance is undefined (drop constant variables)"
        )
    return sd


# ---------------------------------------------------------------------------------- IL1s, IL1
def il1s(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    normalise: bool = True,
) -> float:
    """IL1s: mean absolute difference scaled by the original standard deviations.

    ``IL1s = (1/(p·n)) Σ_j Σ_i |x_ij − z_ij| / (√2 · S_j)`` with S_j the (n−1) standard deviation
    of variable j in the original (Yancey, Winkler & Creecy 2002). ``normalise=False`` omits the
    1/(n·p) factor as sdcMicro's ``dUtility(method="IL1s")`` does (see :func:`il1s_sdcmicro`).
    Cells with a missing value in either file add nothing (n·p still counts all cells), as in
    sdcMicro. Direction: higher = more loss; range [0, ∞), 0 for identical files. Needs pairing;
    MeasureError for non-numeric columns or a zero standard deviation.

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 3.0]}); m = pd.DataFrame({"x": [2.0, 3.0]})
    >>> round(il1s(o, m), 6)   # (1 / (sqrt(2) · sqrt(2))) / 2
    0.25
    """
    name = "il1s"
    cols = _numeric_cols(original, masked, columns, name)
    masked = paired(original, masked, name)
    x = numeric_matrix(original, cols, name, "original")
    z = numeric_matrix(masked, cols, name, "masked")
    sd = _sd_checked(x, cols, name, "original")
    total = 0.0
    for j in range(len(cols)):
        total += float(np.nansum(np.abs(x[:, j] - z[:, j]))) / (np.sqrt(2.0) * sd[j])
    total = float(total)
    if not normalise:
        return total
    n, p = x.shape
    if n == 0:
        raise MeasureError(f"{name}: no records")
    return total / (n * p)


def il1s_sdcmicro(
    original: pd.DataFrame, masked: pd.DataFrame, *, columns: Iterable[Hashable] | None = None
) -> float:
    """sdcMicro's IL1s: ``Σ_j Σ_i |x_ij − z_ij| / (√2 · S_j)`` — the published IL1s × n × p.

    See :func:`il1s`. Direction: higher = more loss; range [0, ∞). Needs pairing.

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 3.0]}); m = pd.DataFrame({"x": [2.0, 3.0]})
    >>> round(il1s_sdcmicro(o, m), 6)
    0.5
    """
    return il1s(original, masked, columns=columns, normalise=False)


def il1(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    zeros: Literal["error", "skip"] = "error",
) -> float:
    """sdcMicro's IL1: summed relative absolute differences in percent.

    ``IL1 = 100 · Σ_j Σ_i |x_ij − z_ij| / |x_ij|`` (sdcMicro ``dUtility(method="IL1")``; the mean
    variation of X − X' of Domingo-Ferrer et al. without the 1/(n·p) factor). A cell with x = 0
    and z = 0 adds 0. A cell with x = 0 ≠ z has an infinite relative change: MeasureError naming
    the columns (``zeros="error"``) or left out (``zeros="skip"``, what sdcMicro does). Cells with
    a missing value are left out. Direction: higher = more loss; range [0, ∞). Needs pairing.

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 4.0]}); m = pd.DataFrame({"x": [2.0, 3.0]})
    >>> il1(o, m)   # 100 · (1/1 + 1/4)
    125.0
    """
    name = "il1"
    if zeros not in ("error", "skip"):
        raise ParameterError(f"zeros: expected 'error' or 'skip', got {zeros!r}")
    cols = _numeric_cols(original, masked, columns, name)
    masked = paired(original, masked, name)
    x = numeric_matrix(original, cols, name, "original")
    z = numeric_matrix(masked, cols, name, "masked")
    d = np.abs(x - z)
    ax = np.abs(x)
    inf_cells = (ax == 0) & (d > 0)
    if zeros == "error" and inf_cells.any():
        bad = [c for j, c in enumerate(cols) if inf_cells[:, j].any()]
        raise MeasureError(
            f"{name}: original value 0 changed in {int(inf_cells.sum())} cells of {bad}; the "
            "relative change is infinite (use zeros='skip' to leave those cells out)"
        )
    ok = (ax > 0) & ~np.isnan(d)
    return float(100.0 * (d[ok] / ax[ok]).sum())


# ------------------------------------------------------------------------ discrepancy table
def _pca(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eigenvalues (desc.), eigenvectors (columns) and correlation matrix of x (complete cases)."""
    r = np.corrcoef(x, rowvar=False)
    r = np.atleast_2d(r)
    vals, vecs = np.linalg.eigh(r)
    order = np.argsort(vals)[::-1]
    return vals[order], vecs[:, order], r


def _complete(x: np.ndarray) -> np.ndarray:
    bad = None
    for j in range(x.shape[1]):
        nj = np.isnan(x[:, j])
        if nj.any():
            bad = nj if bad is None else bad | nj
    return x if bad is None else np.asfortranarray(x[~bad])


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

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 5.0], "y": [1.0, 3.0, 2.0, 6.0]})
    >>> t = discrepancy_table(o, o * 2, statistics=["X_mean", "R"])
    >>> t[["statistic", "cells", "mae", "mvar"]].values.tolist()
    [['X_mean', 2, 2.875, 1.0], ['R', 1, 0.0, 0.0]]
    """
    name = "discrepancy_table"
    known = ("X", "X_mean", "V", "S", "R", "RF", "C", "F")
    stats = list(statistics)
    bad = [s for s in stats if s not in known]
    if bad:
        raise ParameterError(f"{name}: unknown statistics {bad}; known: {list(known)}")
    if component_weights not in ("variance", "equal"):
        raise ParameterError(f"component_weights: expected 'variance' or 'equal', got "
                             f"{component_weights!r}")
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


# ------------------------------------------------------------------------------ eigenvalues
def mcd_covariance(
    x: np.ndarray, *, seed: int = 0, n_starts: int = 50, max_steps: int = 100,
    support_fraction: float | None = None
) -> np.ndarray:
    """Minimum covariance determinant (MCD) estimate of the covariance of x (rows = records).

    FastMCD (Rousseeuw & Van Driessen 1999): random (p+1)-subsets grown by concentration steps
    (keep the h records of smallest Mahalanobis distance, h = ⌊(n+p+1)/2⌋ by default) until the
    determinant stops falling; the best subset's covariance is multiplied by the consistency
    factor median(d²)/χ²_p(0.5), then one reweighting step keeps records with d² ≤ χ²_p(0.975).
    Deterministic for a given ``seed``.

    Example
    -------
    >>> rng = np.random.default_rng(1); x = rng.normal(size=(200, 2)); x[:20] += 50
    >>> bool(np.all(np.abs(mcd_covariance(x) - np.eye(2)) < 0.5))
    True
    """
    from scipy.stats import chi2

    x = np.asarray(x, dtype=float)
    n, p = x.shape
    if n <= p + 1:
        raise MeasureError(f"mcd_covariance: needs more than p + 1 = {p + 1} records, got {n}")
    h = int((n + p + 1) // 2) if support_fraction is None else int(np.ceil(support_fraction * n))
    h = min(max(h, p + 1), n)
    rng = np.random.default_rng(seed)

    def csteps(idx: np.ndarray) -> tuple[float, np.ndarray]:
        det_old = np.inf
        for _ in range(max_steps):
            sub = x[idx]
            mu = sub.mean(axis=0)
            cov = np.atleast_2d(np.cov(sub, rowvar=False))
            sign, logdet = np.linalg.slogdet(cov)
            if sign <= 0:
                return -np.inf, idx  # exact fit: singular subset
            diff = x - mu
            d2 = np.einsum("ij,ij->i", diff @ np.linalg.inv(cov), diff)
            new = np.argpartition(d2, h - 1)[:h]
            if logdet >= det_old - 1e-12:
                return logdet, idx
            det_old, idx = logdet, new
        return det_old, idx

    best, best_idx = np.inf, None
    for _ in range(n_starts):
        start = rng.choice(n, size=p + 1, replace=False)
        sub = x[start]
        cov = np.atleast_2d(np.cov(sub, rowvar=False))
        if np.linalg.matrix_rank(cov) < p:
            continue
        diff = x - sub.mean(axis=0)
        d2 = np.einsum("ij,ij->i", diff @ np.linalg.pinv(cov), diff)
        idx = np.argpartition(d2, h - 1)[:h]
        logdet, idx = csteps(idx)
        if logdet == -np.inf:
            raise MeasureError("mcd_covariance: more than half of the records lie on a hyperplane")
        if logdet < best:
            best, best_idx = logdet, idx
    if best_idx is None:
        raise MeasureError("mcd_covariance: no non-singular starting subset found")
    sub = x[best_idx]
    mu = sub.mean(axis=0)
    cov = np.atleast_2d(np.cov(sub, rowvar=False))
    diff = x - mu
    d2 = np.einsum("ij,ij->i", diff @ np.linalg.inv(cov), diff)
    cov = cov * (np.median(d2) / chi2.ppf(0.5, p))
    d2 = np.einsum("ij,ij->i", diff @ np.linalg.inv(cov), diff)
    keep = d2 <= chi2.ppf(0.975, p)
    return np.atleast_2d(np.cov(x[keep], rowvar=False))


def eigen_difference(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    robust: bool = False,
    seed: int = 0,
) -> float:
    """Relative difference of the eigenvalues of the standardised data (sdcMicro ``eigen``).

    Each file is standardised by its own means and standard deviations; with e and e' the
    eigenvalues (decreasing) of the covariance (= correlation) matrices,
    ``eigen = Σ_j |e_j − e'_j| / e_j`` (Templ & Meindl 2008; sdcMicro ``dUtility``). With
    ``robust=True`` the eigenvalues are those of the robust correlation matrices derived from MCD
    covariance estimates (FastMCD with ``seed``, see :func:`mcd_covariance`). This differs from
    sdcMicro's ``robeigen``, which takes the MCD covariance of the classically standardised data
    and so reacts to outliers through the classical scale (and whose covMcd is random). Records with a missing value are dropped per file. Direction: higher = more
    loss; range [0, ∞). Does not need pairing.

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 3.0, 2.0, 4.0]})
    >>> eigen_difference(o, o * 3 + 1)
    0.0
    """
    name = "eigen_difference"
    cols = _numeric_cols(original, masked, columns, name)
    x = _complete(numeric_matrix(original, cols, name, "original"))
    z = _complete(numeric_matrix(masked, cols, name, "masked"))
    if len(x) < 2 or len(z) < 2:
        raise MeasureError(f"{name}: fewer than two complete records")
    sx = _sd_checked(x, cols, name, "original")
    sz = _sd_checked(z, cols, name, "masked")
    xs = (x - x.mean(axis=0)) / sx
    zs = (z - z.mean(axis=0)) / sz
    if robust:
        cx, cz = mcd_covariance(xs, seed=seed), mcd_covariance(zs, seed=seed)
        cx = cx / np.sqrt(np.outer(np.diag(cx), np.diag(cx)))
        cz = cz / np.sqrt(np.outer(np.diag(cz), np.diag(cz)))
    else:
        cx = np.atleast_2d(np.cov(xs, rowvar=False))
        cz = np.atleast_2d(np.cov(zs, rowvar=False))
    e1 = np.sort(np.linalg.eigvalsh(cx))[::-1]
    e2 = np.sort(np.linalg.eigvalsh(cz))[::-1]
    if (e1 <= 1e-12 * max(e1.max(), 1.0)).any():
        raise MeasureError(
            f"{name}: the original correlation matrix of {cols} is singular (an eigenvalue is "
            "0); drop collinear variables"
        )
    return float(np.sum(np.abs(e1 - e2) / e1))


# ---------------------------------------------------------------------------------- gamma
def _collinear(r: np.ndarray, cols: Sequence[Hashable], tol: float = 1e-10) -> list[Hashable]:
    vals, vecs = np.linalg.eigh(r)
    small = vals <= tol * max(vals.max(), 1.0)
    if not small.any():
        return []
    null = np.abs(vecs[:, small]).max(axis=1)
    return [c for c, v in zip(cols, null) if v > 1e-6]


def _inverse_diag(x: np.ndarray, cols: Sequence[Hashable], measure: str, which: str
                  ) -> np.ndarray:
    _sd_checked(x, cols, measure, which)
    r = np.atleast_2d(np.corrcoef(x, rowvar=False))
    culprits = _collinear(r, cols)
    if culprits or np.linalg.cond(r) > 1e12:
        raise MeasureError(
            f"{measure}: the correlation matrix of the {which} file is singular; collinear "
            f"variables: {culprits or list(cols)}"
        )
    return np.diag(np.linalg.inv(r))


def il_correl(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    constant: float = 1 / np.sqrt(2),
) -> float:
    """Młodak's γ: loss of the connections between continuous variables (sdcMicro ``IL_correl``).

    With ρ⁻¹_jj and ρ'⁻¹_jj the diagonals of the inverse Pearson correlation matrices of the
    original and masked data (complete records of each file),
    ``γ = c · sqrt( Σ_j ( ρ⁻¹_jj / ||ρ⁻¹_diag|| − ρ'⁻¹_jj / ||ρ'⁻¹_diag|| )² )``. The constant
    ``c = 1/√2`` follows sdcMicro and Młodak, Pietrzak & Józefowski (2022); Młodak (2020)
    originally proposed ``c = 1/2``. Direction: higher = more loss; range [0, 1]. Does not need
    pairing. MeasureError for a singular correlation matrix (naming the collinear variables).

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 3.0, 2.0, 4.0]})
    >>> il_correl(o, o * 2)
    0.0
    """
    name = "il_correl"
    if not (constant > 0):
        raise ParameterError(f"constant: expected a positive number, got {constant!r}")
    cols = _numeric_cols(original, masked, columns, name, min_columns=2)
    x = _complete(numeric_matrix(original, cols, name, "original"))
    z = _complete(numeric_matrix(masked, cols, name, "masked"))
    do = _inverse_diag(x, cols, name, "original")
    dp = _inverse_diag(z, cols, name, "masked")
    g = np.sqrt(np.sum((do / np.sqrt(np.sum(do**2)) - dp / np.sqrt(np.sum(dp**2))) ** 2))
    return float(constant * g)


# ---------------------------------------------------------------------------------- lambda
@attrs.frozen
class ILVariables:
    """Result of :func:`il_variables`: ``overall`` λ, ``by_variable`` λ_j, and the ``types`` used.

    Example
    -------
    >>> r = ILVariables(0.5, pd.Series({"a": 0.5}), {"a": "nominal"})
    >>> r.overall, float(r.by_variable["a"])
    (0.5, 0.5)
    """

    overall: float
    by_variable: pd.Series
    types: dict

    def __float__(self) -> float:
        return float(self.overall)

    def to_frame(self) -> pd.DataFrame:
        """λ_j with the variable types, one row per variable."""
        return pd.DataFrame({"type": pd.Series(self.types), "lambda": self.by_variable})


def _var_type(s: pd.Series) -> str:
    if isinstance(s.dtype, pd.CategoricalDtype):
        return "ordinal" if s.cat.ordered else "nominal"
    if is_numeric_column(s):
        return "continuous"
    return "nominal"


def il_variables(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    types: dict[Hashable, str] | None = None,
    sdcmicro: bool = False,
) -> ILVariables:
    """Młodak's complex information loss λ and the contributions λ_j (sdcMicro ``IL_variables``).

    ``λ = Σ_j Σ_i d(x'_ij, x_ij) / (m·n)`` and ``λ_j = Σ_i d(x'_ij, x_ij) / n`` with distances in
    [0, 1] by measurement scale (Młodak 2020; Młodak, Pietrzak & Józefowski 2022):

    - nominal: 0 if equal, else 1 (missing is a category: a suppressed value counts 1);
    - ordinal: |rank difference| / (r_j − 1) over the r_j ordered categories;
    - continuous: (2/π) · arctan |x' − x|.

    Suppressed (missing) masked values, published rule: ordinal — x' is put at the far end
    (category 1 when x is closer to r_j, r_j when closer to 1); continuous — x' := max_h x_hj if
    x ≤ median_h x_hj, else min_h x_hj (over the original). A value missing in the original but
    present in the masked file is treated symmetrically (x := far end from x'); two missings
    are at distance 0. ``sdcmicro=True`` reproduces sdcMicro's IL_variables instead: a missing on
    one side gets the maximal ordinal distance 1 and, for continuous variables, the distance of
    the largest possible difference max(|min x' − max x|, |max x' − min x|).
    ``types`` maps variables to "nominal", "ordinal" or "continuous"; by default ordered
    categoricals are ordinal, other categoricals/strings/bools nominal, numbers continuous.
    Direction: higher = more loss; range [0, 1]. Needs pairing.

    Example
    -------
    >>> o = pd.DataFrame({"s": ["a", "b", "a", "b"], "x": [0.0, 1.0, 2.0, 3.0]})
    >>> m = o.assign(s=["a", "a", None, "b"])
    >>> r = il_variables(o, m)
    >>> r.overall, r.by_variable.to_dict()
    (0.25, {'s': 0.5, 'x': 0.0})
    """
    name = "il_variables"
    check_frames(original, masked, name)
    cols = resolve_columns(original, masked, columns, name)
    masked = paired(original, masked, name)
    types = dict(types or {})
    check_named(types, cols, name, "types names")
    n = len(original)
    if n == 0:
        raise MeasureError(f"{name}: no records")
    used, lam = {}, {}
    for c in cols:
        o, m = original[c], masked[c]
        t = types.get(c, _var_type(o))
        if t not in ("nominal", "ordinal", "continuous"):
            raise ParameterError(
                f"{name}: type of {c!r} must be 'nominal', 'ordinal' or 'continuous', got {t!r}"
            )
        if t == "continuous":
            d = _lambda_continuous(o, m, c, sdcmicro)
        else:
            enc = encode_pair(o, m)
            if t == "nominal":
                d = (enc.codes_o != enc.codes_m).astype(np.float64)
            else:
                if not enc.ordered:
                    raise MeasureError(
                        f"{name}: {c!r} is ordinal but has no common order (give an ordered "
                        "categorical with the same categories in both files, or numbers)"
                    )
                r = enc.n_categories
                if r < 2:
                    d = (enc.codes_o != enc.codes_m).astype(np.float64)
                else:
                    if sdcmicro:
                        steps = np.abs(enc.codes_o - enc.codes_m).astype(np.float64)
                        one = (enc.codes_o < 0) != (enc.codes_m < 0)
                        steps[one] = r - 1
                        steps[(enc.codes_o < 0) & (enc.codes_m < 0)] = 0
                    else:
                        from .categorical import _ordinal_steps

                        steps = _ordinal_steps(enc.codes_o, enc.codes_m, r)
                    d = steps / (r - 1)
        used[c] = t
        lam[c] = float(d.sum() / n)
    by_var = pd.Series(lam, name="lambda", dtype=np.float64).rename_axis("variable")
    return ILVariables(float(by_var.mean()), by_var, used)


def _lambda_continuous(o: pd.Series, m: pd.Series, col: Hashable, sdcmicro: bool) -> np.ndarray:
    name = "il_variables"
    for s, which in ((o, "original"), (m, "masked")):
        if not is_numeric_column(s):
            raise MeasureError(
                f"{name}: {col!r} is continuous but the {which} column has dtype {s.dtype}"
            )
    x = o.to_numpy(dtype=np.float64, na_value=np.nan)
    z = m.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(x).any() or np.isinf(z).any():
        raise MeasureError(f"{name}: infinite values in {col!r}")
    na_x, na_z = np.isnan(x), np.isnan(z)
    v = np.abs(x - z)
    one = na_x != na_z
    if one.any():
        if na_x.all() or na_z.all():
            raise MeasureError(f"{name}: {col!r} is entirely missing in one file")
        if sdcmicro:
            max_diff = max(abs(np.nanmin(z) - np.nanmax(x)), abs(np.nanmax(z) - np.nanmin(x)))
            v[one] = max_diff
        else:
            med, lo, hi = np.nanmedian(x), np.nanmin(x), np.nanmax(x)
            # suppressed in masked: x' := max if x <= median else min
            sm = na_z & ~na_x
            v[sm] = np.abs(np.where(x[sm] <= med, hi, lo) - x[sm])
            # missing in original only: the far end from x' (median/min/max of the masked file)
            so = na_x & ~na_z
            medz, loz, hiz = np.nanmedian(z), np.nanmin(z), np.nanmax(z)
            v[so] = np.abs(np.where(z[so] <= medz, hiz, loz) - z[so])
    v[na_x & na_z] = 0.0
    return (2.0 / np.pi) * np.arctan(v)
