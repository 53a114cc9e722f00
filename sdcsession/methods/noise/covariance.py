"""Covariance matrices for correlated noise: the pairwise-complete covariance of a block with
missing values, its repair to a positive semidefinite matrix, and the warning about both
(shared by the in-memory and the Dask noise). Moved from `sdcsession.methods.noise.addition`,
which re-exports these names.

Example
-------
>>> import numpy as np
>>> cov, info = pairwise_covariance(np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 5.0]]))
>>> cov.round(3).tolist(), info["covariance_repaired"]
([[1.0, 1.5], [1.5, 2.333]], False)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from ...errors import SdcWarning, TreatmentError

__all__ = ["pairwise_covariance", "repair_pairwise_covariance"]


def pairwise_covariance(x: np.ndarray) -> tuple[np.ndarray, dict[str, Any]]:
    """Covariance matrix of the columns of ``x`` (NaN = missing) for correlated noise.

    Without missing values the sample covariance (divisor n − 1). Otherwise the pairwise-complete
    covariance: the variance of each column over its observed values and the covariance of each
    pair over the records observing both. A pair observed together fewer than 2 times gets 0; a
    matrix that is then not positive semidefinite is replaced by ``D·R₊·D``, with D the standard
    deviations and R₊ the correlation matrix with its negative eigenvalues set to 0 and its
    diagonal rescaled to 1 (same variances). Every column needs two different observed values
    (else `TreatmentError`). Returns the matrix and notes (``covariance_undefined_pairs``: pairs
    of column numbers, ``covariance_repaired``).

    Example
    -------
    >>> x = np.array([[1.0, 2.0], [2.0, np.nan], [3.0, 5.0], [np.nan, 4.0], [5.0, 7.0]])
    >>> cov, info = pairwise_covariance(x)  # pairwise 5.0 would mean a correlation of 1.41
    >>> cov.round(3).tolist(), info
    ([[2.917, 3.555], [3.555, 4.333]], {'covariance_undefined_pairs': [], 'covariance_repaired': True})
    """
    p = x.shape[1]
    info: dict[str, Any] = {"covariance_undefined_pairs": [], "covariance_repaired": False}
    if not np.isnan(x).any():
        return np.cov(x, rowvar=False).reshape(p, p), info
    cov = pd.DataFrame(x).cov(min_periods=2).to_numpy(copy=True)
    return repair_pairwise_covariance(cov, info)


def repair_pairwise_covariance(cov: np.ndarray, info: dict[str, Any], *, repair: bool = True,
                               ) -> tuple[np.ndarray, dict[str, Any]]:
    """The checks and repairs of `pairwise_covariance` on a pairwise-complete matrix ``cov``
    (NaN where a pair was observed together fewer than 2 times), in place: every variance > 0
    (else `TreatmentError`), undefined pairs set to 0 and listed in ``info``, and with ``repair``
    a matrix that is not positive semidefinite replaced by ``D·R₊·D``. Shared with the Dask
    path, which assembles ``cov`` from per-partition moments."""
    p = cov.shape[0]
    if not (np.diag(cov) > 0).all():
        raise TreatmentError("covariance: every column needs two different observed values")
    undefined = np.isnan(cov)
    if undefined.any():
        info["covariance_undefined_pairs"] = [
            (int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(undefined, 1)), strict=True)]
        cov[undefined] = 0.0
    if not repair:
        return cov, info
    sd = np.sqrt(np.diag(cov))
    r = cov / np.outer(sd, sd)
    w, v = np.linalg.eigh(r)
    if w.min() < -1e-12 * p:
        r = (v * np.clip(w, 0.0, None)) @ v.T
        d = np.sqrt(np.diag(r))
        cov = r / np.outer(d, d) * np.outer(sd, sd)
        info["covariance_repaired"] = True
    return cov, info


def _warn_covariance(info: dict[str, Any], columns: tuple[str, ...]) -> None:
    """One SdcWarning for undefined pairwise covariances or a repaired covariance matrix."""
    msgs = []
    if info["covariance_undefined_pairs"]:
        pairs = [(columns[i], columns[j]) for i, j in info["covariance_undefined_pairs"]]
        msgs.append(f"pairs {pairs} are observed together in fewer than 2 records; their noise "
                    "is drawn independently (covariance 0)")
    if info["covariance_repaired"]:
        msgs.append("the pairwise-complete covariance matrix was not positive semidefinite and "
                    "was replaced by a positive semidefinite one with the same variances, so covariances are "
                    "preserved only approximately")
    if msgs:
        warnings.warn("add_noise: " + "; ".join(msgs), SdcWarning, stacklevel=3)
