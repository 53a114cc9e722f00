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
4. Refinement (not in sdcMicro): `refine_by_swaps` exchanges records between groups while an
   exchange lowers the within-group sum of squares; group sizes do not change and the sum of
   squares never increases, so the result is at least as homogeneous as step 3's.

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

#: neighbours of each record tried as exchange partners, and the most rounds, of the refinement
SWAP_NEIGHBOURS, SWAP_ROUNDS = 4, 50

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


def rmd_groups(z: np.ndarray, k: int, d2: np.ndarray | None = None) -> np.ndarray:
    """Group labels of robust-distance microaggregation (module docstring).

    Parameters
    ----------
    z : n×p standardised values without missing values.
    k : minimum group size.
    d2 : the squared robust distances that order the records (default `robust_distances`).

    Returns labels 0, 1, ... with ⌊n/k⌋ groups: ⌊n/k⌋ − 1 of k records, the last of k..2k−1.

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
    return refine_by_swaps(z, labels)


def _swap_gain(s: np.ndarray, cnt: np.ndarray, a: np.ndarray, b: np.ndarray, d: np.ndarray,
               dd: np.ndarray) -> np.ndarray:
    """Decrease of the within-group SS when the pair's records (groups a and b) are exchanged."""
    return ((2 * (s[a] * d).sum(axis=1) + dd) / cnt[a]
            + (dd - 2 * (s[b] * d).sum(axis=1)) / cnt[b])


def refine_by_swaps(z: np.ndarray, labels: np.ndarray, *, neighbours: int = SWAP_NEIGHBOURS,
                    rounds: int = SWAP_ROUNDS) -> np.ndarray:
    """Exchange records between groups while that lowers the within-group sum of squares.

    Candidates: each record i and its ``neighbours`` nearest records j (Euclidean, a k-d tree)
    in other groups. Exchanging i (group A, n_A records, sum vector S_A) and j (group B) with
    d = z_j − z_i lowers the within-group SS by
    ``gain = (2 S_A·d + |d|²)/n_A + (|d|² − 2 S_B·d)/n_B`` (from SS = Σ|z|² − |S|²/n per group).
    Per round every group takes part in at most one exchange: a candidate is made when it has the
    largest positive gain of both its groups, so all exchanges of a round are independent and each
    lowers the SS by its gain. Rounds repeat until no candidate gains (at most ``rounds``). Group
    sizes are unchanged. Returns new labels. After the first round only the gains of pairs that
    touch a group changed by the last round are recomputed (the others are the same numbers), so a
    round costs what it changes.

    >>> z = np.array([[0.0], [10.0], [1.0], [11.0]])
    >>> refine_by_swaps(z, np.array([0, 0, 1, 1])).tolist()  # groups {0, 1} and {10, 11}
    [1, 0, 1, 0]
    """
    from scipy.spatial import cKDTree

    z = np.asarray(z, dtype=np.float64)
    if z.ndim == 1:
        z = z[:, None]
    z = z - z.mean(axis=0)
    lab = np.asarray(labels, dtype=np.int64).copy()
    n, p = z.shape
    m = min(neighbours, n - 1)
    if m < 1 or lab.max() == lab.min():
        return lab
    _, nb = cKDTree(z).query(z, k=m + 1)
    i = np.repeat(np.arange(n), m)
    j = nb[:, 1:].ravel()
    d = z[j] - z[i]
    dd = (d * d).sum(axis=1)
    keep = dd > 0
    i, j, d, dd = i[keep], j[keep], d[keep], dd[keep]
    g_count = int(lab.max()) + 1
    cnt = np.bincount(lab, minlength=g_count).astype(np.float64)
    tol = 1e-12 * max(1.0, float((z * z).sum()))
    a, b = lab[i], lab[j]
    s = np.column_stack([np.bincount(lab, weights=z[:, c], minlength=g_count) for c in range(p)])
    gain = _swap_gain(s, cnt, a, b, d, dd)
    for _ in range(rounds):  # rounds of independent exchanges, vectorised inside
        ok = np.flatnonzero((a != b) & (gain > tol))
        if len(ok) == 0:
            break
        ok = ok[np.argsort(-gain[ok], kind="stable")]
        rank = np.arange(len(ok))
        first = np.full(g_count, len(ok))
        np.minimum.at(first, a[ok], rank)
        np.minimum.at(first, b[ok], rank)
        take = ok[(first[a[ok]] == rank) & (first[b[ok]] == rank)]
        ri, rj = i[take], j[take]
        lab[ri], lab[rj] = b[take], a[take]
        # only the groups that exchanged records changed: their sums (recomputed in record
        # order, as a full bincount would, so every gain is the same float as from scratch)
        # and the pairs that touch them or the moved records
        changed = np.zeros(g_count, dtype=bool)
        changed[a[take]] = True
        changed[b[take]] = True
        members = np.flatnonzero(changed[lab])
        sub = lab[members]
        for c in range(p):
            s[changed, c] = 0.0
            s[:, c] += np.bincount(sub, weights=z[members, c], minlength=g_count) * changed
        moved = np.zeros(n, dtype=bool)
        moved[ri] = moved[rj] = True
        as_i, as_j = np.flatnonzero(moved[i]), np.flatnonzero(moved[j])
        a[as_i] = lab[i[as_i]]
        b[as_j] = lab[j[as_j]]
        redo = np.flatnonzero(changed[a] | changed[b])
        gain[redo] = _swap_gain(s, cnt, a[redo], b[redo], d[redo], dd[redo])
    return lab
