"""Fitting log-linear models of cell counts: Poisson IRLS and IPF.

Both work on a vector of cells (the full cross-classification of the model's variables), never on
records, so their cost grows with the number of cells and design columns only.

``fit_poisson`` runs IRLS (the algorithm of statsmodels' GLM and R's ``glm``; the tests check its
fitted means against statsmodels' GLM) with the start and the stopping rule of R's ``glm``
(``mustart = y + 0.1``; stop when ``|dev - dev_old| < 1e-8 (|dev| + 0.1)``, at most 25 steps). The
path of fitted means of IRLS does not depend on how the design's columns are parameterised (each
step is a weighted projection onto the column space), so with the same start and stopping rule the
fitted means agree with R's also where the maximum-likelihood estimate lies on the boundary (a
margin of zero counts drives some fitted means towards 0 and the fit stops when the deviance
settles). Aliased columns are dropped first (pivoted Cholesky of the Gram matrix), as R drops
them by its pivoted QR.

``fit_ipf`` is iterative proportional fitting of one-way margins (the main-effects log-linear model,
what sdcMicro's ``IPF`` method fits with ``MASS::loglm``); it reaches the closed form
``m = prod_j n_(j) / n^(d-1)`` in one cycle and then confirms convergence.

Example
-------
>>> import numpy as np
>>> X = np.array([[1.0, 0], [1, 0], [1, 1], [1, 1]])
>>> fit_poisson(X, np.array([1.0, 3, 2, 2])).round(6).tolist()
[2.0, 2.0, 2.0, 2.0]
>>> fit_ipf(np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), [2, 2], np.array([3.0, 1, 1, 3])).tolist()
[2.0, 2.0, 2.0, 2.0]
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...errors import user_stacklevel

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse

from ...errors import MeasureError, SdcWarning

__all__ = ["fit_poisson", "fit_ipf", "independent_columns"]

#: R's glm.control(): epsilon and maxit
_EPS = 1e-8
_MAXIT = 25


def _gram(X: np.ndarray | scipy.sparse.csr_matrix, w: np.ndarray | None = None) -> np.ndarray:
    """``X' diag(w) X`` as a dense array (X dense or sparse)."""
    import scipy.linalg
    import scipy.linalg.lapack
    import scipy.sparse

    if scipy.sparse.issparse(X):
        wx = X if w is None else X.multiply(w[:, None]).tocsr()
        return np.asarray((X.T @ wx).todense())
    wx = X if w is None else X * w[:, None]
    return X.T @ wx


def _design(X: np.ndarray) -> np.ndarray | scipy.sparse.csr_matrix:
    """Indicator designs are mostly zeros: a sparse matrix keeps each IRLS step off dense BLAS."""
    import scipy.linalg
    import scipy.linalg.lapack
    import scipy.sparse

    if X.size and np.count_nonzero(X) < 0.3 * X.size:
        return scipy.sparse.csr_matrix(X)
    return X


def independent_columns(X: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    """Indices of a maximal set of linearly independent columns of ``X``, in order.

    Pivoted Cholesky decomposition (LAPACK ``dpstrf``) of the Gram matrix of the columns scaled
    to unit length: a column whose squared distance from the span of the pivots before it is below
    ``tol`` is aliased (R's ``glm`` drops such columns through its pivoted QR).
    """
    import scipy.linalg
    import scipy.linalg.lapack
    import scipy.sparse

    p = X.shape[1]
    if p == 0:
        return np.arange(0)
    gram = _gram(_design(X))
    scale = np.sqrt(np.diag(gram))
    live = np.flatnonzero(scale > 0)
    g = gram[np.ix_(live, live)] / np.outer(scale[live], scale[live])
    _, piv, rank, _ = scipy.linalg.lapack.dpstrf(g, tol=tol, lower=0)
    return np.sort(live[piv[:rank] - 1])


def _wls(Xs: np.ndarray | scipy.sparse.csr_matrix, w: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Fitted values of the weighted least-squares fit of ``z`` on ``Xs`` (weights ``w``)."""
    import scipy.linalg
    import scipy.linalg.lapack
    import scipy.sparse

    gram = _gram(Xs, w)
    rhs = np.asarray(Xs.T @ (w * z)).ravel()
    try:
        beta = scipy.linalg.cho_solve(scipy.linalg.cho_factor(gram, check_finite=False), rhs,
                                      check_finite=False)
    except np.linalg.LinAlgError:  # numerically singular weights: least squares by SVD
        dense = Xs.toarray() if scipy.sparse.issparse(Xs) else Xs
        sw = np.sqrt(w)
        beta = np.linalg.lstsq(dense * sw[:, None], z * sw, rcond=None)[0]
    return np.asarray(Xs @ beta).ravel()


def _deviance(y: np.ndarray, mu: np.ndarray) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(y > 0, y * np.log(y / mu), 0.0)
    return float(2.0 * np.sum(t - (y - mu)))


def fit_poisson(X: np.ndarray, y: np.ndarray, offset: np.ndarray | None = None) -> np.ndarray:
    """Fitted means of the Poisson log-linear model ``log E[y] = X b + offset`` (IRLS).

    The iteration of R's ``glm.fit`` and of statsmodels' ``GLM(..., family=Poisson()).fit()``:
    working response ``z = eta - offset + (y - mu) / mu``, working weights ``mu``, weighted least
    squares, ``mu = exp(X b + offset)``; started at ``mu = y + 0.1`` and stopped as R stops (see
    the module doc). Each weighted least-squares step solves the normal equations of the
    unit-scaled columns by Cholesky (the Gram matrix has one row per design column; indicator
    designs are kept sparse), which keeps a fit over hundreds of thousands of cells within a few
    seconds; the tests check
    the fitted means against statsmodels' GLM. Warns (`SdcWarning`) when IRLS has not converged
    after 25 steps, as R does.
    """
    y = np.asarray(y, dtype=float)
    off = np.zeros(len(y)) if offset is None else np.asarray(offset, dtype=float)
    cols = independent_columns(X)
    Xs = X[:, cols]
    Xs = _design(Xs / np.sqrt(np.einsum("ij,ij->j", Xs, Xs)))
    mu = y + 0.1
    eta = np.log(mu)
    dev_old = _deviance(y, mu)
    converged = False
    for _ in range(_MAXIT):
        z = eta - off + (y - mu) / mu
        eta = _wls(Xs, mu, z) + off
        with np.errstate(over="ignore"):
            mu = np.exp(eta)
        if not np.all(np.isfinite(mu)):
            raise MeasureError("log-linear model: the fit diverged (non-finite fitted counts)")
        dev = _deviance(y, mu)
        if abs(dev - dev_old) / (abs(dev) + 0.1) < _EPS:
            converged = True
            break
        dev_old = dev
    if not converged:
        warnings.warn(f"log-linear model: IRLS did not converge in {_MAXIT} iterations "
                      "(as R's glm would warn); the fitted counts are those of the last step",
                      SdcWarning, stacklevel=user_stacklevel())
    return mu


def fit_ipf(codes: np.ndarray, cards: Sequence[int], counts: np.ndarray, *,
            tol: float = 1e-10, max_cycles: int = 100) -> np.ndarray:
    """Iterative proportional fitting of the one-way margins of a table of ``counts``.

    Parameters
    ----------
    codes : (G, d) level index of each cell in each of the d variables.
    cards : number of levels of each variable.
    counts : (G,) observed count of each cell.

    Returns
    -------
    np.ndarray
        Fitted counts with the observed one-way margins (the independence model).

    Raises
    ------
    MeasureError
        A level whose margin is zero (IPF cannot scale a margin of zero counts).
    """
    counts = np.asarray(counts, dtype=float)
    margins = [np.bincount(codes[:, j], weights=counts, minlength=int(cards[j]))
               for j in range(codes.shape[1])]
    for j, m in enumerate(margins):
        if (m <= 0).any():
            raise MeasureError(
                f"IPF: {int((m <= 0).sum())} level(s) of variable {j + 1} of the model have a "
                "zero margin (no complete record): IPF cannot fit a zero-count margin; recode "
                "or drop those categories first")
    fit = np.ones(len(counts))
    for _ in range(max_cycles):
        worst = 0.0
        for j, m in enumerate(margins):
            cur = np.bincount(codes[:, j], weights=fit, minlength=int(cards[j]))
            worst = max(worst, float(np.max(np.abs(cur - m) / m)))
            fit *= (m / cur)[codes[:, j]]
        if worst < tol:
            return fit
    warnings.warn(f"IPF did not converge in {max_cycles} cycles", SdcWarning, stacklevel=user_stacklevel())
    return fit
