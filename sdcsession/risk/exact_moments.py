"""Means, variances, covariances and correlations from exact sums: the same doubles however the
records are split into chunks (one in-memory array or the partitions of a Dask frame).

A floating-point mean or covariance depends on the order of its additions (numpy's pairwise
sums of a whole column differ in the last bits from sums of per-partition sums). Here every sum
is exact (`sdcsession.risk.exact_sum`), and the moments are formed from the exact sums in
rational arithmetic (`fractions.Fraction`) and rounded once, so the in-memory and the
distributed paths get bit-identical moments, hence bit-identical noise and utility figures.

Algorithm, for the columns of a block ``x`` (NaN = missing), in two passes:

1. per column j: the number ``n_j`` of observed values and their exact sum; the shift
   ``c_j`` = the exact mean rounded once (`column_means`);
2. ``d_ij = x_ij − c_j`` (one rounding per value, the same on every path); for every pair of
   columns (j, k), over the records observing both: their number ``n_jk`` and the exact sums
   ``A_jk = Σ d_j``, ``S_jk = Σ d_j²`` and ``Q_jk = Σ d_j·d_k`` (`pair_parts`).

Then (exactly, rounded once) ``cov_jk = (Q_jk − A_jk·A_kj / n_jk) / (n_jk − 1)`` — the
pairwise-complete sample covariance of the shifted values, which equals that of the values up to
the rounding of the shift — and the pairwise correlation
``r_jk = C_jk / sqrt(V_j·V_k)`` with ``C_jk = Q_jk − A_jk·A_kj/n_jk`` and
``V_j = S_jk − A_jk²/n_jk`` over the same records (pandas' ``DataFrame.corr()`` definition).
Shifting by the mean first keeps the products small (no cancellation for variables far from 0).

Reference: Chan, T. F., Golub, G. H. & LeVeque, R. J. (1983) Algorithms for computing the sample
variance: analysis and recommendations, The American Statistician 37, 242–247 (two-pass
shifted sums); exact summation as in `sdcsession.risk.exact_sum`.

Missing values: a value is used where it is observed; a pair of columns uses the records
observing both (pairwise complete); fewer than 2 such records give NaN.

Example
-------
>>> import numpy as np
>>> x = np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 5.0]])
>>> mean, cov = block_covariance(x)
>>> mean.tolist(), cov.round(3).tolist()
([2.0, 3.3333333333333335], [[1.0, 1.5], [1.5, 2.333]])
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from .exact_sum import SumPartial, combine, partial_sum, to_float

__all__ = ["column_parts", "column_means", "pair_parts", "combine_pairs", "covariance",
           "correlation", "centred_squares", "block_covariance", "block_correlation", "spread_parts", "spread"]

ColumnParts = list[tuple[int, SumPartial]]


def _frac(part: SumPartial) -> Fraction:
    n, e = part
    return Fraction(n) * (Fraction(2) ** e)


def column_parts(x: np.ndarray) -> ColumnParts:
    """Pass 1 on one chunk: per column, the number of observed values and their exact sum.

    >>> column_parts(np.array([[1.0], [np.nan], [2.5]]))
    [(2, (7, -1))]
    """
    x = np.asarray(x, dtype=np.float64)
    out = []
    for j in range(x.shape[1]):
        v = x[:, j]
        out.append((len(v) - int(np.isnan(v).sum()), partial_sum(v, skip_nan=True)))
    return out


def column_means(parts: Iterable[ColumnParts]) -> tuple[np.ndarray, np.ndarray]:
    """The numbers of observed values and the exact means (rounded once; NaN without a value)
    of the chunks' `column_parts`.

    >>> column_means([column_parts(np.array([[1.0]])), column_parts(np.array([[2.0]]))])
    (array([2]), array([1.5]))
    """
    parts = list(parts)
    p = len(parts[0]) if parts else 0
    n = np.array([sum(c[j][0] for c in parts) for j in range(p)], dtype=np.int64)
    mean = np.full(p, np.nan)
    for j in range(p):
        if n[j]:
            mean[j] = to_float(combine(c[j][1] for c in parts), int(n[j]))
    return n, mean


def pair_parts(x: np.ndarray, shift: np.ndarray, *, cross: bool = True) -> dict[str, Any]:
    """Pass 2 on one chunk: for every pair (j, k) of columns, over the records observing both,
    their number ``n`` (p×p) and the exact sums ``a[j][k] = Σ d_j``, ``s[j][k] = Σ d_j²`` and
    ``q[j][k] = Σ d_j·d_k`` of ``d = x − shift`` (nested lists of exact partial sums).
    ``cross=False``: the diagonal only (variances; the other pairs count 0 records)."""
    x = np.asarray(x, dtype=np.float64)
    p = x.shape[1]
    d = x - np.asarray(shift, dtype=np.float64)
    obs = ~np.isnan(d)
    full = obs.all(axis=0)
    col_a = [partial_sum(d[:, j], skip_nan=True) for j in range(p)]
    col_s = [partial_sum(d[:, j] ** 2, skip_nan=True) for j in range(p)]
    n = np.zeros((p, p), dtype=np.int64)
    a = [[(0, 0)] * p for _ in range(p)]
    s = [[(0, 0)] * p for _ in range(p)]
    q = [[(0, 0)] * p for _ in range(p)]
    for j in range(p):
        n[j, j] = int(obs[:, j].sum())
        a[j][j], s[j][j], q[j][j] = col_a[j], col_s[j], col_s[j]
        for k in range(j + 1, p if cross else j + 1):
            if full[j] and full[k]:
                m = None
                n[j, k] = n[k, j] = len(d)
                a[j][k], a[k][j], s[j][k], s[k][j] = col_a[j], col_a[k], col_s[j], col_s[k]
            else:
                m = obs[:, j] & obs[:, k]
                n[j, k] = n[k, j] = int(m.sum())
                dj, dk = d[m, j], d[m, k]
                a[j][k], a[k][j] = partial_sum(dj), partial_sum(dk)
                s[j][k], s[k][j] = partial_sum(dj ** 2), partial_sum(dk ** 2)
            pr = d[:, j] * d[:, k] if m is None else d[m, j] * d[m, k]
            q[j][k] = q[k][j] = partial_sum(pr)
    return {"n": n, "a": a, "s": s, "q": q}


def combine_pairs(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The `pair_parts` of several chunks added exactly."""
    p = parts[0]["n"].shape[0]
    out: dict[str, Any] = {"n": sum(x["n"] for x in parts)}
    for key in ("a", "s", "q"):
        out[key] = [[combine(x[key][j][k] for x in parts) for k in range(p)] for j in range(p)]
    return out


def _centred(pairs: dict[str, Any], j: int, k: int) -> tuple[int, Fraction, Fraction, Fraction]:
    n = int(pairs["n"][j, k])
    aj, ak = _frac(pairs["a"][j][k]), _frac(pairs["a"][k][j])
    c = _frac(pairs["q"][j][k]) - aj * ak / n
    vj = _frac(pairs["s"][j][k]) - aj * aj / n
    vk = _frac(pairs["s"][k][j]) - ak * ak / n
    return n, c, vj, vk


def covariance(pairs: dict[str, Any]) -> np.ndarray:
    """The pairwise-complete sample covariance matrix (divisor n_jk − 1; NaN where fewer than 2
    records observe both) from combined `pair_parts`, each entry rounded once."""
    p = pairs["n"].shape[0]
    cov = np.full((p, p), np.nan)
    for j in range(p):
        for k in range(j, p):
            if pairs["n"][j, k] >= 2:
                n, c, _, _ = _centred(pairs, j, k)
                cov[j, k] = cov[k, j] = float(c / (n - 1))
    return cov


def correlation(pairs: dict[str, Any]) -> np.ndarray:
    """The pairwise-complete correlation matrix (pandas' ``DataFrame.corr()`` definition: each
    pair over the records observing both) from combined `pair_parts`; NaN where fewer than 2
    records observe both or a variable is constant over them."""
    p = pairs["n"].shape[0]
    r = np.full((p, p), np.nan)
    for j in range(p):
        for k in range(j, p):
            if pairs["n"][j, k] >= 2:
                _, c, vj, vk = _centred(pairs, j, k)
                if vj > 0 and vk > 0:
                    r[j, k] = r[k, j] = float(c) / math.sqrt(float(vj * vk))
    return r


def centred_squares(pairs: dict[str, Any]) -> np.ndarray:
    """Per column, the exact sum of squared deviations from the column's mean over its observed
    values (``Σ (x − x̄)²``), rounded once, from combined `pair_parts`.

    >>> x = np.array([[1.0], [2.0], [4.0]])
    >>> centred_squares(pair_parts(x, column_means([column_parts(x)])[1])).tolist()
    [4.666666666666667]
    """
    p = pairs["n"].shape[0]
    out = np.zeros(p)
    for j in range(p):
        if pairs["n"][j, j] >= 1:
            out[j] = float(_centred(pairs, j, j)[1])
    return out


def block_covariance(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The exact means and the `covariance` matrix of an in-memory block (one chunk)."""
    x = np.asarray(x, dtype=np.float64)
    _, mean = column_means([column_parts(x)])
    return mean, covariance(pair_parts(x, np.nan_to_num(mean)))


def block_correlation(x: np.ndarray) -> np.ndarray:
    """The `correlation` matrix of an in-memory block (one chunk).

    >>> block_correlation(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 7.0]])).round(4).tolist()
    [[1.0, 0.9934], [0.9934, 1.0]]
    """
    x = np.asarray(x, dtype=np.float64)
    _, mean = column_means([column_parts(x)])
    return correlation(pair_parts(x, np.nan_to_num(mean)))


def spread_parts(d: np.ndarray) -> tuple[int, SumPartial, SumPartial]:
    """One chunk of values (no missing): their number and the exact sums of ``d`` and ``d²``."""
    d = np.asarray(d, dtype=np.float64)
    return len(d), partial_sum(d), partial_sum(d * d)


def spread(parts: Iterable[tuple[int, SumPartial, SumPartial]]) -> float:
    """The sample standard deviation (divisor k − 1; 0.0 for fewer than 2 values) of the values
    of several chunks' `spread_parts`: ``sqrt((Σd² − (Σd)²/k) / (k − 1))`` exactly, rounded once
    before the square root.

    >>> spread([spread_parts(np.array([1.0, 2.0])), spread_parts(np.array([3.0]))])
    1.0
    """
    parts = list(parts)
    k = sum(c for c, _, _ in parts)
    if k < 2:
        return 0.0
    s1 = _frac(combine(a for _, a, _ in parts))
    s2 = _frac(combine(b for _, _, b in parts))
    return math.sqrt(max(float((s2 - s1 * s1 / k) / (k - 1)), 0.0))
