"""IL1s and the correlation discrepancy from exact sums, chunk by chunk: the in-memory measures
(one chunk) and the Dask measures (one chunk per partition) give the same doubles.

Both measures are sums over records: their sums are exact (`sdcsession.risk.exact_sum`) and their
moments come from `sdcsession.risk.exact_moments`, so the result does not depend on how the
records are split. Two passes over the (original, masked) pairs of chunks: `first_parts` (counts
and exact sums of every column of both files), then `second_parts` around the exact means
(variances, cross products, absolute differences); `il1s_from_parts` and
`discrepancy_from_parts` finish.

* IL1s = (1/(n·p)) Σ_j T_j / (√2·S_j), ``T_j = Σ_i |x_ij − z_ij|`` over the records observing
  both, ``S_j`` the standard deviation (divisor n_j − 1) of the observed original values
  (Yancey, Winkler & Creecy 2002, published normalisation; sdcMicro's missing-value rule: a
  variable with fewer than two observed original values adds nothing, n·p counts all cells).
* correlation discrepancy = the mean of ``|r_jk(original) − r_jk(masked)|`` over the pairs
  j < k, each r the pairwise-complete correlation of its file.

Reference: Yancey, W. E., Winkler, W. E. & Creecy, R. H. (2002) Disclosure risk assessment in
perturbative microdata protection, LNCS 2316, 135–152.

Missing values: as above (observed values per column, pairwise-complete correlations).

Example
-------
>>> import numpy as np
>>> x = np.array([[1.0], [3.0]]); z = np.array([[2.0], [3.0]])
>>> f = first_parts(x, z); s = second_parts(x, z, *means([f]))
>>> round(il1s_from_parts([f], [s], ["x"]), 6)
0.25
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from ...errors import MeasureError
from ...risk.exact_moments import (
    column_means,
    column_parts,
    combine_pairs,
    correlation,
    covariance,
    pair_parts,
)
from ...risk.exact_sum import combine, partial_sum, to_float

__all__ = ["first_parts", "means", "second_parts", "original_parts", "abs_parts",
           "il1s_from_parts", "discrepancy_from_parts", "select", "observed_counts"]


def first_parts(x: np.ndarray, z: np.ndarray) -> dict[str, Any]:
    """Pass 1 on a chunk of the original ``x`` and masked ``z`` blocks (NaN = missing)."""
    return {"n": len(x), "x": column_parts(x), "z": column_parts(z)}


def means(first: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """The exact means of the original and masked columns (NaN without a value)."""
    return column_means([f["x"] for f in first])[1], column_means([f["z"] for f in first])[1]


def second_parts(x: np.ndarray, z: np.ndarray, mx: np.ndarray, mz: np.ndarray, *,
                 cross: bool = False) -> dict[str, Any]:
    """Pass 2 on a chunk: the `pair_parts` of both blocks around their means (the cross
    products with ``cross``) and the exact sums of ``|x − z|`` per column."""
    return {"x": pair_parts(x, np.nan_to_num(mx), cross=cross),
            "z": pair_parts(z, np.nan_to_num(mz), cross=cross),
            # a difference with a missing side is NaN: left out (the records observing both)
            "abs": abs_parts(x, z)}


def original_parts(x: np.ndarray) -> dict[str, Any]:
    """The original's side of IL1s on one in-memory block ``x``: ``{"first": {"n": records},
    "x": the pair_parts of x around its exact means (diagonal)}`` — the same sums as the
    ``"x"`` entries of `first_parts` and `second_parts` (what `il1s_from_parts` reads of them).
    Missing values: NaN is left out of each column's counts and sums.

    >>> original_parts(np.array([[1.0], [3.0]]))["x"]["n"].tolist()
    [[2]]
    """
    _, mx = column_means([column_parts(x)])
    return {"first": {"n": len(x)}, "x": pair_parts(x, np.nan_to_num(mx), cross=False)}


def abs_parts(x: np.ndarray, z: np.ndarray, *, same: bool = False) -> list:
    """Per column, the exact sum of ``|x − z|`` over the records observing both (the ``"abs"``
    entry of `second_parts`); ``same=True`` (``z`` is ``x``): every sum is 0, no pass.
    Missing values: a record missing in either block is left out of that column's sum.

    >>> abs_parts(np.array([[1.0], [3.0]]), np.array([[2.0], [np.nan]]))
    [(1, 0)]
    """
    if same:
        return [(0, 0)] * x.shape[1]
    return [partial_sum(np.abs(x[:, j] - z[:, j]), skip_nan=True) for j in range(x.shape[1])]


def il1s_from_parts(first: Sequence[dict[str, Any]], second: Sequence[dict[str, Any]],
                    columns: Sequence[Hashable], *, normalise: bool = True,
                    name: str = "il1s") -> float:
    """IL1s from the parts of every chunk (see the module docstring). `MeasureError` for a
    variable whose observed original values are all equal (S_j = 0) or without records."""
    n = sum(f["n"] for f in first)
    p = len(columns)
    pairs = combine_pairs([s["x"] for s in second])
    var = np.diag(covariance(pairs))
    counts = pairs["n"].diagonal()
    zero = [c for c, k, v in zip(columns, counts, var) if k >= 2 and not v > 0]
    if zero:
        raise MeasureError(
            f"{name}: zero standard deviation in the original file for {zero}; the scaled "
            "distance is undefined (drop constant variables)")
    total = 0.0
    for j in range(p):
        if counts[j] >= 2:  # fewer than two observed values: S_j undefined, adds nothing
            t = to_float(combine(s["abs"][j] for s in second))
            total += t / (np.sqrt(2.0) * np.sqrt(var[j]))
    total = float(total)
    if not normalise:
        return total
    if n == 0:
        raise MeasureError(f"{name}: no records")
    return total / (n * p)


def discrepancy_from_parts(second: Sequence[dict[str, Any]], columns: Sequence[Hashable],
                           ) -> float:
    """The correlation discrepancy from the parts (computed with ``cross=True``) of every
    chunk; `MeasureError` when a variable is constant (an undefined correlation)."""
    ro = correlation(combine_pairs([s["x"] for s in second]))
    rz = correlation(combine_pairs([s["z"] for s in second]))
    iu = np.triu_indices(len(columns), 1)
    d = np.abs(ro[iu] - rz[iu])
    if not np.isfinite(d).all():
        raise MeasureError(f"correlation discrepancy: a numeric variable of {list(columns)} is "
                           "constant")
    return float(d.mean())


def select(second: dict[str, Any], idx: Sequence[int]) -> dict[str, Any]:
    """The `second_parts` of a chunk restricted to the columns ``idx``."""
    def sub(pairs: dict[str, Any]) -> dict[str, Any]:
        return {"n": pairs["n"][np.ix_(idx, idx)],
                **{k: [[pairs[k][j][i] for i in idx] for j in idx] for k in ("a", "s", "q")}}

    return {"x": sub(second["x"]), "z": sub(second["z"]),
            "abs": [second["abs"][j] for j in idx]}


def observed_counts(first: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """The numbers of observed values per column in the original and the masked file."""
    return column_means([f["x"] for f in first])[0], column_means([f["z"] for f in first])[0]
