"""Sorting-based microaggregation groupings (sdcMicro's ``simple``, ``single``, ``onedims``,
``pca``, ``mcdpca``, ``pppca``, ``influence`` and ``clustpppca``).

Every method here orders the records along one axis and cuts the order into consecutive groups:
⌊n/k⌋ groups, all of k records except one of k + (n mod k) records. sdcMicro always puts the large
group last; here it goes to the position (of the ⌊n/k⌋ possible) where the within-group sum of
squares of the standardised variables is smallest (ties: the last position, as sdcMicro), so the
result is never worse than sdcMicro's cut of the same order. That choice costs O(n·p) with prefix
sums: the SS of records a..b−1 is ``S2[b] − S2[a] − |S1[b] − S1[a]|² / (b − a)`` with S1, S2 the
prefix sums of the records and of their squared norms in the order.

The orders (z: the variables standardised to mean 0 and standard deviation 1):

``simple``: the file order (a benchmark: how much does sorting help).
``single``: ascending by one variable; records tied on it are ordered by the first principal
component of the other standardised variables; of this order and the plain stable one (sdcMicro:
ties in file order) the one with the smaller within-group SS is kept.
``onedims`` (individual ranking, Defays & Nanopoulos 1993): each variable separately, ascending.
``pca``: the scores of the first principal component of z (eigenvector of the correlation matrix).
``mcdpca``: the first principal component of the minimum covariance determinant (MCD) scatter of
z, scores of the records centred at the MCD location (Templ 2008); the MCD is
`sdcsession.risk.robust.minimum_covariance.mcd` (deterministic start, reweighted).
``pppca``: the first robust principal component by projection pursuit (Croux & Ruiz-Gazen 2005,
sdcMicro's ``prcompRob``): z is centred at its coordinatewise median, the candidate directions are
the centred records themselves (normalised), and the direction whose projections have the
largest median absolute deviation (MAD) wins. To stay fast on large files the candidates are at
most ``PP_CANDIDATES`` (400) records, every ⌈n/400⌉-th in file order, and the MAD is computed on at
most ``PP_SAMPLE`` (20,000) records taken the same way (sdcMicro: all records, n² work).
``influence``: the records are clustered (`kmeans`, ``N_CLUSTERS`` = 8 clusters, sdcMicro's
``nc``); within a cluster they are sorted by the variable with the largest standardised centre
value (the variable that makes the cluster special); clusters are concatenated in the order of
their centres' first principal component score, so that groups straddling two clusters join
neighbouring ones (sdcMicro: cluster number order).
``clustpppca``: clustered as ``influence``; within a cluster sorted by the cluster's robust
projection-pursuit component (clusters with fewer than 2p records by the first variable).

sdcMicro clusters with ``clara`` on the raw values; ours is deterministic k-means on z, started
from ``nc`` equal-size slices of the first principal component order.

References: Templ, M. (2008) Statistical disclosure control for microdata using the R-package
sdcMicro, Transactions on Data Privacy 1(2), 67–85. Defays, D. & Nanopoulos, P. (1993) Panels of
enterprises and confidentiality: the small aggregates method. Croux, C. & Ruiz-Gazen, A. (2005)
High breakdown estimators for principal components: the projection-pursuit approach revisited,
J. Multivariate Anal. 95, 206–226. Domingo-Ferrer, J. & Mateo-Sanz, J. M. (2002) Practical
data-oriented microaggregation for statistical disclosure control, IEEE TKDE 14(1), 189–201.

Example
-------
>>> z = np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [11.0], [12.0]])
>>> consecutive_groups(np.arange(7), 3, z).tolist()  # sdcMicro: [0, 0, 0, 1, 1, 1, 1]
[0, 0, 0, 0, 1, 1, 1]
"""

from __future__ import annotations

import numpy as np

from ...risk.robust.minimum_covariance import mcd

__all__ = ["consecutive_groups", "sorting_groups", "onedims_groups", "pca_scores",
           "mcd_pca_scores", "pp_scores", "kmeans", "SORTING_METHODS", "N_CLUSTERS"]

SORTING_METHODS = ("simple", "single", "pca", "mcdpca", "pppca", "influence", "clustpppca")
#: number of clusters of ``influence`` and ``clustpppca`` (sdcMicro's ``nc`` default)
N_CLUSTERS = 8
#: at most this many candidate directions in the projection pursuit
PP_CANDIDATES = 400
#: the MAD of a candidate direction is computed on at most this many records
PP_SAMPLE = 20_000


def _block_ss(s1: np.ndarray, s2: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Within-block SS of the ordered records a..b−1 from prefix sums (vectorised over blocks)."""
    d1 = s1[b] - s1[a]
    return np.maximum((s2[b] - s2[a]) - (d1 * d1).sum(axis=1) / (b - a), 0.0)


def cut_cost(order: np.ndarray, k: int, z: np.ndarray) -> tuple[int, float]:
    """Best position of the large group for the order and its within-group SS (see module)."""
    n = len(order)
    g_count = max(n // k, 1)
    r = n - g_count * k
    if r == 0 or g_count == 1:
        lab = np.minimum(np.arange(n) // k, g_count - 1)
        zz = z[order]
        return g_count - 1, _labels_ss(zz, lab)
    zz = z[order]
    zz = zz - zz.mean(axis=0)
    s1 = np.vstack([np.zeros((1, zz.shape[1])), np.cumsum(zz, axis=0)])
    s2 = np.concatenate([[0.0], np.cumsum((zz * zz).sum(axis=1))])
    g = np.arange(g_count)
    before = _block_ss(s1, s2, g * k, g * k + k)          # groups left of the large one
    after = _block_ss(s1, s2, g * k + r, g * k + r + k)   # groups right of it (shifted by r)
    big = _block_ss(s1, s2, g * k, g * k + k + r)
    left = np.concatenate([[0.0], np.cumsum(before)])[:g_count]
    right = np.concatenate([np.cumsum(after[::-1])[::-1], [0.0]])[1:]
    total = left + big + right
    # ties (up to rounding): the last position, sdcMicro's
    best = int(np.flatnonzero(total <= total.min() + 1e-9 * max(1.0, total.min()))[-1])
    return best, float(total[best])


def _labels_ss(zz: np.ndarray, lab: np.ndarray) -> float:
    cnt = np.bincount(lab).astype(np.float64)
    tot = 0.0
    for j in range(zz.shape[1]):
        m = np.bincount(lab, weights=zz[:, j]) / cnt
        tot += float(((zz[:, j] - m[lab]) ** 2).sum())
    return tot


def consecutive_groups(order: np.ndarray, k: int, z: np.ndarray | None = None) -> np.ndarray:
    """Group labels (aligned to the records) of consecutive groups of k along ``order``.

    ⌊n/k⌋ groups of k records, one of them with the n mod k extra records: the last one when
    ``z`` is None (sdcMicro's cut), else the one that minimises the within-group sum of squares
    of ``z`` (module docstring). Fewer than 2k records form one group.

    >>> consecutive_groups(np.array([4, 3, 2, 1, 0]), 2).tolist()
    [1, 1, 1, 0, 0]
    """
    order = np.asarray(order, dtype=np.int64)
    n = len(order)
    g_count = max(n // k, 1)
    r = n - g_count * k
    big = g_count - 1
    if z is not None and r and g_count > 1:
        z2 = np.asarray(z, dtype=np.float64)
        big, _ = cut_cost(order, k, z2 if z2.ndim == 2 else z2[:, None])
    pos = np.arange(n)
    g = np.where(pos < big * k, pos // k,
                 np.where(pos < big * k + k + r, big, (pos - r) // k))
    labels = np.empty(n, dtype=np.int64)
    labels[order] = np.minimum(g, g_count - 1)
    return labels


def onedims_groups(values: np.ndarray, k: int) -> np.ndarray:
    """Individual ranking of one variable: consecutive groups of k in ascending order, the
    large group where it adds the least within-group SS.

    >>> onedims_groups(np.array([0.0, 1.0, 2.0, 3.0, 100.0]), 2).tolist()
    [0, 0, 0, 1, 1]
    """
    v = np.asarray(values, dtype=np.float64)
    order = np.argsort(v, kind="stable")
    sd = v.std()
    return consecutive_groups(order, k, (v / sd if sd > 0 else v)[:, None])


# --------------------------------------------------------------------------- projections
def pca_scores(z: np.ndarray) -> np.ndarray:
    """Scores of the first principal component of the (standardised) columns of ``z``.

    >>> s = pca_scores(np.array([[-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]]))
    >>> np.abs(s).round(4).tolist()
    [1.4142, 0.0, 1.4142]
    """
    z = np.asarray(z, dtype=np.float64)
    if z.shape[1] == 1:
        return z[:, 0].copy()
    c = z - z.mean(axis=0)
    _, vec = np.linalg.eigh(np.cov(c, rowvar=False))
    return c @ vec[:, -1]


def mcd_pca_scores(z: np.ndarray) -> np.ndarray:
    """Scores of the first principal component of the reweighted MCD scatter of ``z``, centred
    at the MCD location (`sdcsession.risk.robust.minimum_covariance.mcd`, deterministic start, ridge on exact fit).

    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(200, 2)) @ np.array([[2.0, 0.0], [0.0, 0.3]])
    >>> s = mcd_pca_scores(z)
    >>> bool(abs(np.corrcoef(s, z[:, 0])[0, 1]) > 0.99)
    True
    """
    z = np.asarray(z, dtype=np.float64)
    n, p = z.shape
    if p == 1 or n <= p + 2:
        return pca_scores(z)
    fit = mcd(z, reweight=True, exact_fit="ridge", subsample=200_000)
    _, vec = np.linalg.eigh(fit.scatter)
    return (z - fit.location) @ vec[:, -1]


def pp_direction(z: np.ndarray) -> np.ndarray:
    """Unit direction of largest MAD among the median-centred records (projection pursuit).

    >>> z = np.column_stack([np.arange(50.0), np.zeros(50)])
    >>> np.abs(pp_direction(z)).round(6).tolist()
    [1.0, 0.0]
    """
    z = np.asarray(z, dtype=np.float64)
    n, p = z.shape
    c = z - np.median(z, axis=0)
    cand = c[::max(1, -(-n // PP_CANDIDATES))]
    norm = np.sqrt((cand * cand).sum(axis=1))
    cand = cand[norm > 0] / norm[norm > 0, None]
    if len(cand) == 0:
        return np.eye(p)[0]
    sample = c[::max(1, -(-n // PP_SAMPLE))]
    proj = sample @ cand.T
    mad = np.median(np.abs(proj - np.median(proj, axis=0)), axis=0)
    d = cand[int(np.argmax(mad))]
    return d if d[np.argmax(np.abs(d))] > 0 else -d


def pp_scores(z: np.ndarray) -> np.ndarray:
    """Scores on the robust projection-pursuit direction `pp_direction` (median-centred).

    >>> pp_scores(np.column_stack([np.arange(5.0), np.zeros(5)])).tolist()
    [-2.0, -1.0, 0.0, 1.0, 2.0]
    """
    z = np.asarray(z, dtype=np.float64)
    return (z - np.median(z, axis=0)) @ pp_direction(z)


def kmeans(z: np.ndarray, nc: int = N_CLUSTERS, iterations: int = 30) -> np.ndarray:
    """Deterministic k-means labels (0..m−1, m ≤ nc non-empty clusters).

    Starts from the means of ``nc`` equal-size slices of the first principal component order;
    Lloyd iterations (nearest centre, then centre = mean) until the labels stop changing.

    >>> kmeans(np.array([[0.0], [0.1], [5.0], [5.1]]), 2).tolist()
    [0, 0, 1, 1]
    """
    z = np.asarray(z, dtype=np.float64)
    n = len(z)
    nc = max(1, min(nc, n))
    order = np.argsort(pca_scores(z), kind="stable")
    lab = np.empty(n, dtype=np.int64)
    lab[order] = np.arange(n) * nc // n
    for _ in range(iterations):
        cnt = np.bincount(lab, minlength=nc).astype(np.float64)
        keep = cnt > 0
        cen = np.column_stack([np.bincount(lab, weights=z[:, j], minlength=nc)
                               for j in range(z.shape[1])])[keep] / cnt[keep, None]
        d = ((z[:, None, :] - cen[None, :, :]) ** 2).sum(axis=2)
        new = np.argmin(d, axis=1)
        if np.array_equal(new, lab):
            break
        lab = new
    _, lab = np.unique(lab, return_inverse=True)
    return lab


def _cluster_order(z: np.ndarray, within: str) -> np.ndarray:
    """Record order of ``influence``/``clustpppca``: clusters by centre PC1, sorted inside."""
    lab = kmeans(z)
    m = int(lab.max()) + 1
    cnt = np.bincount(lab, minlength=m).astype(np.float64)
    cen = np.column_stack([np.bincount(lab, weights=z[:, j], minlength=m)
                           for j in range(z.shape[1])]) / cnt[:, None]
    cluster_rank = np.argsort(np.argsort(pca_scores(cen) if m > 2 else cen[:, 0], kind="stable"),
                              kind="stable")
    key = np.empty(len(z))
    p = z.shape[1]
    for c in range(m):  # loops over the (few) clusters, never over records
        rows = np.flatnonzero(lab == c)
        if within == "influence":
            key[rows] = z[rows, int(np.argmax(cen[c]))]
        elif len(rows) >= 2 * p:
            key[rows] = pp_scores(z[rows])
        else:
            key[rows] = z[rows, 0]
    return np.lexsort((key, cluster_rank[lab]))


def _order(method: str, z: np.ndarray, sort_j: int) -> list[np.ndarray]:
    """Candidate record orders of a sorting method."""
    n = len(z)
    if method == "simple":
        return [np.arange(n)]
    if method == "single":
        v = z[:, sort_j]
        plain = np.argsort(v, kind="stable")
        others = np.delete(z, sort_j, axis=1)
        if others.shape[1] == 0 or len(np.unique(v)) == n:
            return [plain]
        return [plain, np.lexsort((pca_scores(others), v))]
    if method == "pca":
        return [np.argsort(pca_scores(z), kind="stable")]
    if method == "mcdpca":
        return [np.argsort(mcd_pca_scores(z), kind="stable")]
    if method == "pppca":
        return [np.argsort(pp_scores(z), kind="stable")]
    if method in ("influence", "clustpppca"):
        return [_cluster_order(z, method)]
    raise ValueError(f"not a sorting method: {method!r}")  # pragma: no cover


def sorting_groups(method: str, z: np.ndarray, k: int, sort_j: int = 0) -> np.ndarray:
    """Group labels of a sorting method (``SORTING_METHODS``) for standardised records ``z``.

    Parameters
    ----------
    method : one of ``SORTING_METHODS`` (module docstring).
    z : n×p standardised values without missing values.
    k : minimum group size.
    sort_j : column of the sort variable of ``single``.

    Returns labels 0, 1, ... with ⌊n/k⌋ groups of k..2k−1 records.

    >>> z = np.array([[1.0, 5.0], [2.0, 1.0], [1.0, 1.0], [2.0, 5.0]])
    >>> sorting_groups("single", z, 2).tolist()
    [0, 1, 0, 1]
    """
    z = np.asarray(z, dtype=np.float64)
    if z.ndim == 1:
        z = z[:, None]
    best, best_cost = None, 0.0
    for order in _order(method, z, sort_j):
        cost = cut_cost(order, k, z)[1] if len(order) >= 2 * k else 0.0
        if best is None or cost < best_cost - 1e-12 * max(1.0, best_cost):
            best, best_cost = order, cost
    return consecutive_groups(best, k, z)
