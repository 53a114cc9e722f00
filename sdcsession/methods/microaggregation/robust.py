"""Robust-distance microaggregation (sdcMicro's method ``"rmd"``, Templ & Meindl 2008).

The grouping of `microaggregation` with ``method="rmd"``, on the variables standardised to mean 0
and standard deviation 1 (z):

1. Robust location μ and scatter Σ of z by the reweighted minimum covariance determinant (MCD),
   as robustbase's ``covMcd`` computes them (FastMCD with 500 random starts, consistency and
   small-sample factors; `sdcsession.risk.robust.minimum_covariance.mcd` with a fixed seed, so the result is a
   function of the data); the squared robust Mahalanobis distance of every record,
   ``d²_i = (z_i − μ)' Σ⁻¹ (z_i − μ)``.
2. While more than 2k − 1 records remain ungrouped (⌊n/k⌋ − 1 times): take the ungrouped record
   with the largest robust distance and form a group of it and its k − 1 nearest ungrouped
   records (Euclidean distance in z; the record itself is at distance 0).
3. The remaining k..2k − 1 records form the last group.
4. Refinement (not in sdcMicro): `refine_by_swaps`, a local search that exchanges records
   between neighbouring groups, or moves one where the group sizes allow it (k..2k − 1), while
   that lowers the within-group sum of squares (Mortazavi & Jalili 2015). The sum of squares
   never increases, so the result is at least as homogeneous as step 3's; no single exchange or
   move among the candidates lowers it further.

Outlying records are thus grouped first, with their nearest neighbours, before the dense centre
of the data is reached (MDAV instead alternates the two extremes of the distance from the
centroid). The nearest-neighbour queries are exact k-d tree queries over the records not yet
grouped (ties at equal distance: the first record in the original order): on large files a
compiled tree whose node boxes shrink as records are grouped
(`sdcsession.methods.microaggregation._rmd_jit`, O(n log n) in all), on small ones scipy's tree
(`sdcsession.methods.microaggregation._nearest_index`); the labels are the same.

References: Templ, M. & Meindl, B. (2008) Robust statistics meets SDC: new disclosure risk
measures for continuous microdata masking, Privacy in Statistical Databases, LNCS 5262, 113–126.
Templ, M. (2008) Statistical disclosure control for microdata using the R-package sdcMicro,
Transactions on Data Privacy 1(2), 67–85. Rousseeuw, P. J. & Van Driessen, K. (1999) A fast
algorithm for the minimum covariance determinant estimator, Technometrics 41, 212–223.
Mortazavi, R. & Jalili, S. (2015) A novel local search method for microaggregation, ISeCure 7(1),
15–26.

Example
-------
>>> z = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [0.1, 0.1], [0.05, 0.05], [5.0, 5.0],
...               [4.9, 5.0], [0.02, 0.08]])
>>> lab = rmd_groups(z, 2)
>>> bool(lab[5] == lab[6]), np.bincount(lab).tolist()
(True, [2, 2, 2, 2])
"""

from __future__ import annotations

import numpy as np

from ...risk.robust.minimum_covariance import mahalanobis2, mcd
from ._nearest_index import NearestIndex

__all__ = ["rmd_groups", "robust_distances", "refine_by_swaps"]

#: nearest records whose groups are tried for exchanges and moves, and the most passes, of the
#: refinement
SWAP_NEIGHBOURS, SWAP_PASSES = 6, 100

#: from this many records the groups are formed on the compiled tree with removal (`_rmd_jit`,
#: O(n log n)); below, numba's compilation would cost more than it saves (same labels either way)
COMPILED_FROM = 20_000


def robust_distances(z: np.ndarray) -> np.ndarray:
    """Squared robust Mahalanobis distances of the rows of ``z`` from the reweighted MCD
    (covMcd's settings: 500 random starts, fixed seed 0, robustbase's factors; a ridge on exact
    fit). Fewer than p + 2 records: the classical distances.

    >>> d2 = robust_distances(np.vstack([np.random.default_rng(0).normal(size=(99, 2)),
    ...                                  [[8.0, -8.0]]]))
    >>> bool(d2[-1] > 50 and np.median(d2) < 2)
    True
    """
    z = np.asarray(z, dtype=np.float64)
    n, p = z.shape
    if n <= p + 1:
        cov = np.cov(z, rowvar=False).reshape(p, p) if n > 1 else np.eye(p)
        return mahalanobis2(z, z.mean(axis=0), cov)
    fit = mcd(z, n_starts=500, seed=0, search="fastmcd", reweight=True, exact_fit="ridge",
              consistency="robustbase-0.95")
    return mahalanobis2(z, fit.location, fit.scatter)


def rmd_groups(z: np.ndarray, k: int, d2: np.ndarray | None = None, *,
               refine: bool = True) -> np.ndarray:
    """Group labels of robust-distance microaggregation (module docstring).

    Parameters
    ----------
    z : n×p standardised values without missing values.
    k : minimum group size.
    d2 : the squared robust distances that order the records (default `robust_distances`).
    refine : step 4 (`refine_by_swaps`); False gives sdcMicro's grouping (steps 1–3).

    Missing values: not allowed in z (microaggregation groups the complete records).

    Returns labels 0, 1, ... with ⌊n/k⌋ groups of k..2k−1 records (without the refinement:
    ⌊n/k⌋ − 1 of k records, the last of k..2k−1).

    >>> rmd_groups(np.array([[0.0], [0.1], [0.2], [9.0], [9.1], [9.3]]), 3).tolist()
    [1, 1, 1, 0, 0, 0]
    """
    z = np.asarray(z, dtype=np.float64)
    if z.ndim == 1:
        z = z[:, None]
    n = len(z)
    g_count = max(n // k, 1)
    labels = np.full(n, g_count - 1, dtype=np.int64)
    if g_count == 1:
        return labels
    if d2 is None:
        d2 = robust_distances(z)
    if n >= COMPILED_FROM:
        from ._rmd_jit import rmd_groups_jit

        labels = rmd_groups_jit(z, k, d2)
    else:
        index = NearestIndex(z)
        queue = np.argsort(-np.asarray(d2), kind="stable")  # records, most outlying first
        ptr = 0
        for g in range(g_count - 1):  # one iteration per group, vectorised inside
            while not index.alive[queue[ptr]]:
                ptr += 1
            sel = index.nearest(index.x[int(queue[ptr])], k)
            labels[sel] = g
            index.remove(sel)
    return refine_by_swaps(z, labels, k=k) if refine else labels


def refine_by_swaps(z: np.ndarray, labels: np.ndarray, *, k: int | None = None,
                    neighbours: int = SWAP_NEIGHBOURS, passes: int = SWAP_PASSES) -> np.ndarray:
    """Exchange and move records between groups while that lowers the within-group sum of squares.

    A local search for the microaggregation objective under the group-size bounds k .. 2k − 1
    (Mortazavi & Jalili 2015). Candidates of record i: the groups of its ``neighbours`` nearest
    records (Euclidean, a k-d tree). With group sums S and sizes n (SS = Σ|z|² − |S|²/n per
    group), exchanging i (group A) with a member j of group B (d = z_j − z_i) lowers the SS by
    ``gain = (2 S_A·d + |d|²)/n_A + (|d|² − 2 S_B·d)/n_B``; moving i from A to B (allowed while
    n_A > k and n_B < 2k − 1) lowers it by
    ``gain = n_A/(n_A − 1)·|z_i − μ_A|² − n_B/(n_B + 1)·|z_i − μ_B|²``. Passes visit the records
    in the k-d tree's leaf order (neighbours close in memory) and make each record's largest
    positive gain at once, every member of every neighbouring group being tried; they repeat
    until a pass changes nothing (at most ``passes``). Every change lowers the SS, so the result
    is at least as homogeneous as ``labels``, and no single exchange or move among the candidates
    lowers it further. Groups keep their labels and stay within k .. 2k − 1 records (k: the
    smallest group of ``labels`` when not given; a larger group of ``labels`` may keep its size).
    Compiled (`sdcsession.methods.microaggregation._rmd_jit.refine_groups`): a pass costs
    O(n · neighbours · k · p), a record being evaluated again only when its group or a
    neighbour's group changed.

    Missing values: not allowed in z (microaggregation groups the complete records).

    Reference: Mortazavi, R. & Jalili, S. (2015) A novel local search method for microaggregation,
    ISeCure 7(1), 15–26.

    >>> z = np.array([[0.0], [10.0], [1.0], [11.0]])
    >>> refine_by_swaps(z, np.array([0, 0, 1, 1])).tolist()  # groups {0, 1} and {10, 11}
    [1, 0, 1, 0]
    """
    from scipy.spatial import cKDTree

    from ._rmd_jit import refine_groups

    z = np.asarray(z, dtype=np.float64)
    if z.ndim == 1:
        z = z[:, None]
    z = z - z.mean(axis=0)
    lab = np.asarray(labels, dtype=np.int64).copy()
    n = len(z)
    m = min(neighbours + 1, n)  # + 1: the record itself (skipped) or a duplicate of it
    if n < 2 or m < 2 or lab.max() == lab.min():
        return lab
    values, codes = np.unique(lab, return_inverse=True)
    sizes = np.bincount(codes)
    lower = int(sizes.min()) if k is None else int(k)
    upper = max(2 * lower - 1, int(sizes.max()))
    tree = cKDTree(z)
    order = np.asarray(tree.indices, dtype=np.int64)
    zt = np.ascontiguousarray(z[order])
    nb = tree.query(zt, k=m)[1].reshape(n, m)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    nbt = np.ascontiguousarray(rank[nb])
    # groups numbered by their first record in the leaf order (their sums close in memory too)
    ct = codes[order]
    seen = np.full(len(values), n, dtype=np.int64)
    np.minimum.at(seen, ct, np.arange(n))
    renum = np.empty(len(values), dtype=np.int64)
    renum[np.argsort(seen, kind="stable")] = np.arange(len(values))
    lt = renum[ct]
    tol = 1e-12 * max(1.0, float((z * z).sum()))
    refine_groups(zt, lt, nbt, lower, upper, int(passes), tol)
    out = np.empty(n, dtype=np.int64)
    out[order] = values[np.argsort(renum)[lt]]
    return out
