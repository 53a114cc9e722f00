"""Microaggregation of numeric variables: MDAV, individual ranking, single-axis, optimal univariate.

Records are partitioned into groups of at least ``k`` (and at most ``2k − 1``) records and each
value is replaced by its group's mean (or median).

Methods
-------
``"mdav"``
    Maximum Distance to Average Vector (Domingo-Ferrer & Mateo-Sanz 2002; Domingo-Ferrer & Torra
    2005) on the variables standardised to mean 0 and sample standard deviation 1 (ddof = 1, as R's
    ``scale``): while at least 3k records remain, take the centroid c of the remaining records,
    the record r farthest from c and the record s farthest from r; form a group of r and its k − 1
    nearest remaining records, then a group of s and its k − 1 nearest remaining records. If
    between 2k and 3k − 1 remain, form one group around the record farthest from the centroid and
    put the rest in a last group; fewer than 2k remaining form the last group. All columns are
    aggregated with the same groups.
``"individual_ranking"``
    Each variable separately: sort its values, consecutive groups of k (the last group takes the
    remainder, k..2k−1 records) (Defays & Nanopoulos 1993).
``"single"``
    Sort the records by one variable (``sort_by``, default the first column), consecutive groups of
    k as above; all columns aggregated with these groups.
``"onedims"``
    sdcMicro's individual ranking: as ``"individual_ranking"``, but the group with the n mod k
    extra records goes where it adds the least within-group sum of squares (not always last);
    `sdcsession.methods.microaggregation.sorting`.
``"rmd"``
    Robust-distance ordering (Templ & Meindl 2008): the most outlying remaining record (robust
    Mahalanobis distance from the MCD fit) and its k − 1 nearest neighbours form a group, until
    k..2k−1 remain; `sdcsession.methods.microaggregation.robust`.
``"simple"``, ``"pca"``, ``"mcdpca"``, ``"pppca"``, ``"influence"``, ``"clustpppca"``
    Consecutive groups of k along one order of the records (file order, first principal
    component, MCD principal component, projection-pursuit component, or sorted clusters);
    `sdcsession.methods.microaggregation.sorting`. ``"single"`` also comes from there.
``"optimal_univariate"``
    Each variable separately: the optimal k-partition of sorted values minimising the within-group
    sum of squares (Hansen & Mukherjee 2003): the optimal groups are contiguous in sorted order and
    have sizes k..2k−1, so ``best[j] = min_{s=k..2k−1} best[j−s] + SSE(j−s, j)`` (prefix sums give
    SSE in O(1)); computed k entries at a time (O(n·k) work in n/k vectorised steps).

Notes
-----
Speed of MDAV: see `sdcsession.methods.microaggregation.mdav` (compiled iterations on a k-d tree whose boxes
shrink as records are grouped; exact).

Weights. With ``weights`` (a column of non-negative sampling weights) each group's value is the
weighted mean ``Σ w_i x_i / Σ w_i`` (or the weighted median: the smallest value whose cumulative
weight reaches half the group's weight, averaged with the next value when it reaches exactly
half, as sdcMicro's weighted median); a group whose weights sum to 0 gets the unweighted value.
The grouping itself does not use the weights (sdcMicro neither).

Missing values. Records complete on the treated columns are aggregated as above. Records with a
missing value keep it (missing stays missing) and are aggregated among themselves by missingness
pattern using their observed columns (a pattern with at least k records); records of patterns with
fewer than k records are pooled and each of their observed values is aggregated per variable by
individual ranking within the pool; observed values that cannot be placed in a group of k (fewer
than k of them in the pool) are set to missing (counted in the notes as ``suppressed``).

Strata: every method runs separately within each stratum (k must not exceed a stratum's size).

References: Domingo-Ferrer, J. & Mateo-Sanz, J. M. (2002) Practical data-oriented microaggregation
for statistical disclosure control, IEEE TKDE 14(1), 189–201. Domingo-Ferrer, J. & Torra, V. (2005)
Ordinal, continuous and heterogeneous k-anonymity through microaggregation, DMKD 11, 195–212.
Hansen, S. L. & Mukherjee, S. (2003) A polynomial algorithm for optimal univariate
microaggregation, IEEE TKDE 15(4), 1043–1044. Defays, D. & Nanopoulos, P. (1993) Panels of
enterprises and confidentiality: the small aggregates method.

Example
-------
>>> import numpy as np, pandas as pd
>>> df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0]})
>>> out, notes = microaggregation(df, ["x"], k=3)
>>> out["x"].tolist(), notes["group_sizes"]
([2.0, 2.0, 2.0, 11.0, 11.0, 11.0], {'3': 2})
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError, TreatmentError
from ...progress import Bar
from ...risk.exact_sum import exact_sum
from ...roles import Roles
from ..base import Result, Treatment, check_choice, check_int, param_names, require_columns
from ..noise.addition import _names, _put, numeric_block
from .mdav import (  # noqa: F401  (the private MDAV kernels: re-exported)
    _mdav_labels,
    _mdav_scan,
    _mdav_small,
    mdav_groups,
)
from .robust import rmd_groups
from .sorting import onedims_groups, sorting_groups
from .univariate import optimal_univariate_groups, ranking_groups
from .weights import check_weights, weighted_aggregate

__all__ = [
    "microaggregation", "Microaggregation", "mdav_groups", "ranking_groups",
    "optimal_univariate_groups", "within_group_ss", "MICROAGGREGATION_METHODS",
]

MICROAGGREGATION_METHODS = ("mdav", "individual_ranking", "single", "optimal_univariate", "rmd",
                            "onedims", "simple", "pca", "mcdpca", "pppca", "influence",
                            "clustpppca")
_UNIVARIATE = ("individual_ranking", "optimal_univariate", "onedims")


def within_group_ss(z: np.ndarray, labels: np.ndarray) -> float:
    """Σ_groups Σ_records Σ_variables (z − group mean)² (NaN-free ``z``).

    >>> within_group_ss(np.array([[1.0], [3.0], [10.0]]), np.array([0, 0, 1]))
    2.0
    """
    z = np.asarray(z, dtype=np.float64)
    if z.ndim == 1:
        z = z[:, None]
    _, inv = np.unique(labels, return_inverse=True)
    cnt = np.bincount(inv)
    total = 0.0
    for j in range(z.shape[1]):
        m = np.bincount(inv, weights=z[:, j]) / cnt
        total += float(((z[:, j] - m[inv]) ** 2).sum())
    return total


def _aggregate(col: np.ndarray, labels: np.ndarray, how: str,
               w: np.ndarray | None = None) -> np.ndarray:
    """Replace each value by its group's mean/median (labels ≥ 0 dense per call), weighted by
    ``w`` when given (`weighted_aggregate`)."""
    if w is not None:
        return weighted_aggregate(col, labels, how, w)
    _, inv = np.unique(labels, return_inverse=True)
    cnt = np.bincount(inv)
    if how == "mean":
        return (np.bincount(inv, weights=col) / cnt)[inv]
    order = np.lexsort((col, inv))
    starts = np.concatenate([[0], np.cumsum(cnt)[:-1]])
    lo = col[order[starts + (cnt - 1) // 2]]
    hi = col[order[starts + cnt // 2]]
    return ((lo + hi) / 2.0)[inv]


# --------------------------------------------------------------------------- kernel
def _stratum_codes(data: pd.DataFrame, strata: tuple[str, ...]) -> tuple[np.ndarray, list[Any]]:
    if not strata:
        return np.zeros(len(data), dtype=np.int64), ["all"]
    require_columns(data, list(strata), "strata")
    codes = []
    for c in strata:
        f, _ = pd.factorize(data[c], use_na_sentinel=False)
        codes.append(f)
    if len(codes) == 1:
        key = codes[0]
    else:
        key = np.ravel_multi_index(codes, [int(c.max()) + 1 for c in codes])
    inv_codes, uniq = pd.factorize(key, sort=True)
    first = np.zeros(len(uniq), dtype=np.int64)
    first[inv_codes[::-1]] = np.arange(len(data))[::-1]
    labels = [" / ".join(str(data[c].iloc[i]) for c in strata) for i in first]
    return inv_codes.astype(np.int64), labels


def total_squares(z: np.ndarray) -> float:
    """``Σ_j Σ_i (z_ij − z̄_j)²`` of a NaN-free block: per column from exact sums rounded once
    (`sdcsession.risk.exact_moments.centred_squares`), the columns added in order, so any split
    of the records gives the same double (the Dask path adds the sums of its partitions).

    Missing values: none (the complete records are given).

    >>> total_squares(np.array([[1.0], [2.0], [4.0]]))
    4.666666666666667
    """
    from ...risk.exact_moments import centred_squares, column_means, column_parts, pair_parts

    if not len(z):
        return 0.0
    _, m = column_means([column_parts(z)])
    return float(sum(centred_squares(pair_parts(z, m, cross=False)).tolist()))


def standardisation(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and sample standard deviation (ddof 1, as R's ``scale``) of every column of ``x``,
    from exact sums rounded once (`sdcsession.risk.exact_sum`): the same doubles for any order
    or split of the records, so a file processed in parts standardises as the whole file.

    mean_j = (1/n_j) Σ x_ij, sd_j = sqrt(Σ (x_ij − mean_j)² / (n_j − 1)) over the observed x_ij.

    Missing values: ignored per column (n_j observed values; sd is NaN when n_j < 2).

    >>> m, s = standardisation(np.array([[1.0, np.nan], [2.0, 4.0], [3.0, 6.0]]))
    >>> m.tolist(), s.tolist()
    ([2.0, 5.0], [1.0, 1.4142135623730951])
    """
    from ...risk.exact_sum import partial_sum, to_float

    mean = np.full(x.shape[1], np.nan)
    sd = np.full(x.shape[1], np.nan)
    for j in range(x.shape[1]):
        v = x[:, j][~np.isnan(x[:, j])]
        if len(v):
            mean[j] = to_float(partial_sum(v), len(v))
        if len(v) > 1:
            sd[j] = np.sqrt(to_float(partial_sum((v - mean[j]) ** 2), len(v) - 1))
    return mean, sd


def microaggregation(data: pd.DataFrame, columns: list[str] | tuple[str, ...], *, k: int = 3,
                     method: str = "mdav", strata: list[str] | tuple[str, ...] | None = None,
                     aggregate: str = "mean", sort_by: str | None = None,
                     weights: str | None = None, progress: bool | None = None,
                     standardise: tuple[Any, Any] | None = None,
                     ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Microaggregate numeric ``columns`` in groups of k..2k−1 records (see module docstring).

    Parameters
    ----------
    data : the microdata (not modified).
    columns : numeric columns.
    k : minimum group size (≥ 2).
    method : one of ``MICROAGGREGATION_METHODS`` (module docstring).
    strata : columns within whose categories to work separately.
    aggregate : ``"mean"`` or ``"median"``.
    sort_by : the sort variable of ``"single"``.
    weights : a column of sampling weights for weighted group means/medians (None: unweighted).
    progress : progress bar for MDAV; None is automatic (on in terminals and notebooks, off in CI).
    standardise : the means and standard deviations to standardise with (default: those of
        ``data``, `standardisation`); a Dask session passes those of the whole file when it
        runs one stratum at a time.

    Returns the new DataFrame (treated columns float64) and notes: ``n_groups`` (per column for
    univariate methods), ``group_sizes`` ({size: number of groups}), ``sse_std``/``sst_std``
    (within-group and total sum of squares of the standardised complete records, multivariate
    methods), ``incomplete`` records and ``suppressed`` values.

    Example
    -------
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6, 7], "b": [7.0, 6, 5, 4, 3, 2, 1]})
    >>> out, notes = microaggregation(df, ["a", "b"], k=3, method="single")
    >>> out["a"].tolist()
    [2.0, 2.0, 2.0, 5.5, 5.5, 5.5, 5.5]
    """
    columns = tuple(columns)
    strata = tuple(strata or ())
    if method not in MICROAGGREGATION_METHODS:
        raise ParameterError(f"method: expected one of {MICROAGGREGATION_METHODS}, got {method!r:.60}")
    if aggregate not in ("mean", "median"):
        raise ParameterError(f"aggregate: expected 'mean' or 'median', got {aggregate!r}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ParameterError(f"k: expected an integer ≥ 2, got {k!r}")
    x = numeric_block(data, columns, "microaggregation")
    w = None if weights is None else check_weights(data, weights, "microaggregation")
    if method == "single":
        sort_by = sort_by or columns[0]
        if sort_by not in columns:
            raise ParameterError(f"sort_by: {sort_by!r} is not one of the columns {list(columns)}")
    sidx, slabels = _stratum_codes(data, strata)
    sizes_all = np.bincount(sidx)
    small = [slabels[i] for i in np.flatnonzero(sizes_all < k)]
    if small:
        raise TreatmentError(
            f"microaggregation: k={k} is larger than stratum/strata {small[:10]} "
            f"(sizes {sizes_all[sizes_all < k][:10].tolist()}); lower k or merge strata")
    mean, sd = standardisation(x) if standardise is None else \
        (np.asarray(standardise[0], dtype=np.float64), np.asarray(standardise[1], dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        z_all = (x - mean) / sd
    miss = np.isnan(x)
    out = x.copy()
    p = len(columns)
    group_sizes: dict[int, int] = {}
    n_groups: Any = dict.fromkeys(columns, 0) if method in _UNIVARIATE else 0
    sse = 0.0
    suppressed = dict.fromkeys(columns, 0)

    def count(labels: np.ndarray) -> int:
        cnt = np.bincount(np.unique(labels, return_inverse=True)[1])
        for sz, m in zip(*np.unique(cnt, return_counts=True)):
            group_sizes[int(sz)] = group_sizes.get(int(sz), 0) + int(m)
        return len(cnt)

    def univariate(rows: np.ndarray, j: int) -> None:
        nonlocal n_groups, sse
        v = x[rows, j]
        lab = (optimal_univariate_groups(v, k) if method == "optimal_univariate"
               else onedims_groups(v, k) if method == "onedims" else ranking_groups(v, k))
        out[rows, j] = _aggregate(v, lab, aggregate, None if w is None else w[rows])
        n_groups[columns[j]] += count(lab)
        sse += within_group_ss(z_all[rows, j], lab)

    def multivariate(rows: np.ndarray, cols: np.ndarray) -> None:
        nonlocal n_groups, sse
        z = z_all[np.ix_(rows, cols)]
        if method == "mdav":
            lab = _mdav_labels(z, k, bar)
        elif method == "rmd":
            lab = rmd_groups(z, k)
        else:
            jj = columns.index(sort_by) if method == "single" else 0
            sort_j = int(np.flatnonzero(cols == jj)[0]) if (cols == jj).any() else 0
            lab = sorting_groups(method, z, k, sort_j)
        wr = None if w is None else w[rows]
        for j in cols:
            out[rows, j] = _aggregate(x[rows, j], lab, aggregate, wr)
        n_groups += count(lab)
        if len(cols) == p:
            sse += within_group_ss(z, lab)

    n_incomplete = 0
    bar = Bar(len(data), desc="MDAV", enabled=progress if method == "mdav" else False)
    sse_strata = []  # each stratum's within-group SS, added exactly (any order of the strata)
    for st in range(len(slabels)):
        sse_strata.append(sse)
        sse = 0.0
        in_st = sidx == st
        if method in _UNIVARIATE:
            for j in range(p):
                rows = np.flatnonzero(in_st & ~miss[:, j])
                if 0 < len(rows) < k:
                    out[rows, j] = np.nan
                    suppressed[columns[j]] += len(rows)
                elif len(rows):
                    univariate(rows, j)
            n_incomplete += int((in_st & miss.any(axis=1)).sum())
            continue
        pattern = miss[in_st]
        rows_st = np.flatnonzero(in_st)
        pat_code = pattern @ (1 << np.arange(p, dtype=np.int64)) if p < 62 else None
        if pat_code is None:  # pragma: no cover - absurdly many columns
            raise TreatmentError("microaggregation: at most 61 columns at once")
        pool: list[np.ndarray] = []
        for code in np.unique(pat_code):
            rows = rows_st[pat_code == code]
            cols = np.flatnonzero(~pattern[pat_code == code][0])
            if code != 0:
                n_incomplete += len(rows)
            if len(cols) == 0:
                continue
            if len(rows) >= k:
                multivariate(rows, cols)
            else:
                pool.append(rows)
        if pool:
            prow = np.concatenate(pool)
            for j in range(p):
                rows = prow[~miss[prow, j]]
                if 0 < len(rows) < k:
                    out[rows, j] = np.nan
                    suppressed[columns[j]] += len(rows)
                elif len(rows):
                    v = x[rows, j]
                    lab = ranking_groups(v, k)
                    out[rows, j] = _aggregate(v, lab, aggregate, None if w is None else w[rows])
    bar.update(len(data) - bar.n)
    bar.close()
    sse = exact_sum(sse_strata[1:] + [sse])
    out[miss] = np.nan
    notes: dict[str, Any] = {
        "method": method, "k": int(k), "n_groups": n_groups,
        "group_sizes": {str(s): group_sizes[s] for s in sorted(group_sizes)},
        "changed": {c: int(((out[:, j] != x[:, j]) & ~miss[:, j]).sum())
                    for j, c in enumerate(columns)},
    }
    # within-group SS of the standardised values (univariate methods: per variable)
    zc = z_all[~miss.any(axis=1)]
    notes["sse_std"] = sse
    notes["sst_std"] = total_squares(zc)
    notes["incomplete"] = n_incomplete
    if any(suppressed.values()):
        notes["suppressed"] = suppressed
    if strata:
        notes["strata"] = len(slabels)
    return _put(data, columns, out), notes


# --------------------------------------------------------------------------- treatment
@attrs.frozen
class Microaggregation(Treatment):
    """Microaggregation treatment (tag ``"microaggregation"``); see `microaggregation`.

    >>> Microaggregation(["income"], k=3).describe()
    "microaggregation(columns=['income'], k=3, method='mdav', strata=[], aggregate='mean', sort_by=None, weights=None)"
    """

    type: ClassVar[str] = "microaggregation"
    random: ClassVar[bool] = False

    columns: tuple[str, ...] = attrs.field(converter=lambda v: _names(v, "columns"))
    k: int = attrs.field(default=3)
    method: str = attrs.field(default="mdav")
    strata: tuple[str, ...] = attrs.field(default=(), converter=lambda v: param_names(v, "strata"))
    aggregate: str = attrs.field(default="mean")
    sort_by: str | None = attrs.field(default=None)
    weights: str | None = attrs.field(default=None)

    @k.validator
    def _k(self, _a: Any, v: Any) -> None:
        check_int("k (minimum group size)", v, 2)

    @method.validator
    def _m(self, _a: Any, v: Any) -> None:
        check_choice("method", v, MICROAGGREGATION_METHODS)

    @aggregate.validator
    def _g(self, _a: Any, v: Any) -> None:
        check_choice("aggregate", v, ("mean", "median"))

    @weights.validator
    def _w(self, _a: Any, v: Any) -> None:
        if v is not None and (not isinstance(v, str) or not v):
            raise ParameterError(f"weights: expected a column name or None, got {v!r:.60}")

    @sort_by.validator
    def _s(self, _a: Any, v: Any) -> None:
        if v is not None and (not isinstance(v, str) or v not in self.columns):
            raise ParameterError(
                f"sort_by: {v!r:.60} is not one of the columns {list(self.columns)}")

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        numeric_block(data, self.columns, "microaggregation")
        require_columns(data, list(self.strata), "microaggregation strata")
        if self.weights is not None:
            check_weights(data, self.weights, "microaggregation")
        if len(data) < self.k:
            raise TreatmentError(f"microaggregation: k={self.k} exceeds the {len(data)} records")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = microaggregation(data, self.columns, k=self.k, method=self.method,
                                      strata=self.strata, aggregate=self.aggregate,
                                      sort_by=self.sort_by, weights=self.weights,
                                      progress=None)
        return Result(out, notes=notes)
