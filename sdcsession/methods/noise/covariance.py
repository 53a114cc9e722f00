"""Moments and draws of noise addition, shared by the in-memory and the Dask noise so that both
give the same doubles for any split of the records: the means and (pairwise-complete) covariance
matrix from exact sums (`sdcsession.risk.exact_moments`), its repair to a positive semidefinite
matrix, the warning about both, the correlated normal draws computed record by record, and the
realised noise spread. Moved from `sdcsession.methods.noise.addition`, which re-exports these
names.

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

from ...errors import SdcWarning, TreatmentError, user_stacklevel

__all__ = ["pairwise_covariance", "repair_pairwise_covariance", "noise_moments",
           "correlated_draws", "realised_sd"]


def noise_moments(first: list[Any], second: list[Any], correlated: bool, missing: bool,
                  ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The standard deviations, covariance matrix and notes of noise addition from the exact
    moment sums of the chunks of the records (`sdcsession.risk.exact_moments`: ``first`` their
    `column_parts`, ``second`` their `pair_parts` around the exact means, with the cross
    products when ``correlated``). ``missing``: whether any treated value is missing (then the
    pairwise-complete matrix is checked and repaired, see `repair_pairwise_covariance`).
    Returns ``(sd, cov, info)``; ``cov`` is None unless ``correlated``.

    Missing values: each sum uses the observed values (pairs: the records observing both).

    >>> from sdcsession.risk.exact_moments import column_parts, column_means, pair_parts
    >>> x = np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 5.0]])
    >>> _, m = column_means([column_parts(x)])
    >>> sd, cov, _ = noise_moments([column_parts(x)], [pair_parts(x, m)], True, False)
    >>> sd.round(3).tolist(), cov.round(3).tolist()
    ([1.0, 1.528], [[1.0, 1.5], [1.5, 2.333]])
    """
    from ...risk.exact_moments import combine_pairs, covariance

    cov = covariance(combine_pairs(second))
    sd = np.sqrt(np.diag(cov))
    info: dict[str, Any] = {"covariance_undefined_pairs": [], "covariance_repaired": False}
    if not correlated:
        return sd, None, info
    cov, info = repair_pairwise_covariance(cov, info, repair=missing)
    return sd, cov, info


def correlated_draws(rng: np.random.Generator, cov: np.ndarray, n: int) -> np.ndarray:
    """``n`` draws of ``N_p(0, cov)``, one row per record: ``Z = rng.standard_normal((n, p))``
    and ``e_i = F·z_i`` with ``F = U·diag(sqrt|λ|)`` from the eigendecomposition ``cov = U·Λ·Uᵀ``
    (``F·Fᵀ = cov`` for a positive semidefinite matrix). The product is computed column by
    column with element-wise operations in a fixed order (no matrix-multiply kernel whose
    blocking depends on ``n``), so each record's noise depends on its own normal draws only:
    the same numbers however the records are split into chunks.

    Missing values: not applicable (every record draws its row).

    >>> e = correlated_draws(np.random.default_rng(0), np.array([[4.0, 0.0], [0.0, 1.0]]), 20000)
    >>> np.round(e.std(axis=0), 1).tolist()
    [2.0, 1.0]
    """
    p = cov.shape[0]
    w, u = np.linalg.eigh(cov)
    f = u * np.sqrt(np.abs(w))
    z = rng.standard_normal((int(n), p))
    e = np.empty((int(n), p))
    for j in range(p):
        acc = z[:, 0] * f[j, 0]
        for k in range(1, p):
            acc = acc + z[:, k] * f[j, k]
        e[:, j] = acc
    return e


def realised_sd(parts: list[Any]) -> float:
    """The standard deviation (divisor k − 1; 0 for fewer than 2) of the changes of the changed
    values, from the exact sums of chunks (`sdcsession.risk.exact_moments.spread_parts`).

    >>> from sdcsession.risk.exact_moments import spread_parts
    >>> realised_sd([spread_parts(np.array([1.0, 3.0]))])
    1.4142135623730951
    """
    from ...risk.exact_moments import spread

    return spread(parts)


def pairwise_covariance(x: np.ndarray) -> tuple[np.ndarray, dict[str, Any]]:
    """Covariance matrix of the columns of ``x`` (NaN = missing) for correlated noise.

    Without missing values the sample covariance (divisor n − 1), computed from exact sums
    (`sdcsession.risk.exact_moments`: the same doubles for any split of the records). Otherwise the pairwise-complete
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
    from ...risk.exact_moments import block_covariance

    info: dict[str, Any] = {"covariance_undefined_pairs": [], "covariance_repaired": False}
    _, cov = block_covariance(x)
    return repair_pairwise_covariance(cov, info, repair=bool(np.isnan(x).any()))


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
        warnings.warn("add_noise: " + "; ".join(msgs), SdcWarning, stacklevel=user_stacklevel())
