"""Microaggregation on Dask frames by strata: each stratum is one task (`by_strata`).

Whole-file MDAV needs the distances between all records and cannot be split over partitions; by
strata it can. The variables are standardised over the whole file first (exact sums combined over
the partitions, so the same doubles as in memory), each stratum is aggregated as the in-memory
treatment aggregates it with that standardisation, and the notes are put together from every
stratum's notes (the sums of squares from exact sums). The result equals the in-memory
``microaggregation(..., strata=...)`` bit for bit, for any partitioning.

Checked before anything runs (`TreatmentError`, session unchanged): strata given (else not
distributable), every stratum at least ``k`` records, the largest stratum fits a worker
(`check_strata_fit`).

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> from sdcsession.methods.microaggregation.treatment import Microaggregation
>>> from sdcsession.roles import Roles
>>> from sdcsession.scale.elementwise import apply_distributed
>>> df = pd.DataFrame({"r": ["n"] * 3 + ["s"] * 3, "x": [1.0, 2.0, 3.0, 10.0, 20.0, 30.0]})
>>> out = apply_distributed(Microaggregation(["x"], k=3, strata=["r"]),
...                         dd.from_pandas(df, npartitions=2), Roles(numeric=("x",)), seed=1,
...                         progress=False)
>>> out.data.compute()["x"].tolist()
[2.0, 2.0, 2.0, 20.0, 20.0, 20.0]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import TreatmentError
from ..methods.base import require_columns
from ..methods.microaggregation.treatment import Microaggregation, microaggregation
from ..methods.microaggregation.weights import check_weights
from ..methods.noise.addition import numeric_block
from ..roles import Roles
from ._base import compute
from .by_strata import by_strata, check_strata_fit, stratum_notes, with_dtypes
from .elementwise import (
    DistributedResult,
    distributed,
    not_distributable,
    partition_stats,
    replace_columns,
)

__all__ = ["file_standardisation"]


def _ma_fn(t: Microaggregation, mean: np.ndarray, sd: np.ndarray,
           ) -> Callable[[pd.DataFrame], tuple[pd.DataFrame, dict[str, Any]]]:
    def fn(group: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
        return microaggregation(group, t.columns, k=t.k, method=t.method, strata=(),
                                aggregate=t.aggregate, sort_by=t.sort_by, weights=t.weights,
                                progress=False, standardise=(mean, sd))

    return fn


def _complete_z(part: pd.DataFrame, columns: tuple, mean: np.ndarray, sd: np.ndarray,
                ) -> np.ndarray:
    x = part[list(columns)].to_numpy(dtype=np.float64, na_value=np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (x - mean) / sd
    return z[~np.isnan(x).any(axis=1)]


def _z_first(part: pd.DataFrame, columns: tuple, mean: np.ndarray, sd: np.ndarray) -> Any:
    from ..risk.exact_moments import column_parts

    return column_parts(_complete_z(part, columns, mean, sd))


def _z_second(part: pd.DataFrame, columns: tuple, mean: np.ndarray, sd: np.ndarray,
              mz: np.ndarray) -> Any:
    from ..risk.exact_moments import pair_parts

    return pair_parts(_complete_z(part, columns, mean, sd), mz, cross=False)


def _total_squares(ddf: Any, columns: tuple, mean: np.ndarray, sd: np.ndarray,
                   progress: Any) -> float:
    """`sdcsession.methods.microaggregation.treatment.total_squares` of the standardised
    complete records, from exact sums added over the partitions (two passes)."""
    import dask

    from ..risk.exact_moments import centred_squares, column_means, combine_pairs

    parts = ddf[list(columns)].to_delayed()
    first = compute(*[dask.delayed(_z_first)(p, columns, mean, sd) for p in parts],
                    progress=progress)
    counts, mz = column_means(first)
    if not len(counts) or counts[0] == 0:
        return 0.0
    second = compute(*[dask.delayed(_z_second)(p, columns, mean, sd, np.nan_to_num(mz))
                       for p in parts], progress=progress)
    return float(sum(centred_squares(combine_pairs(list(second))).tolist()))


def _ma_notes(t: Microaggregation, parts: list[dict[str, Any]], changed: dict[str, int],
              sst: float) -> dict[str, Any]:
    """The notes of the in-memory microaggregation by strata from every stratum's notes."""
    from ..risk.exact_sum import exact_sum

    first = parts[0]["n_groups"] if parts else 0
    if isinstance(first, dict):
        n_groups: Any = {c: int(sum(p["n_groups"].get(c, 0) for p in parts)) for c in t.columns}
    else:
        n_groups = int(sum(p["n_groups"] for p in parts))
    sizes: dict[int, int] = {}
    for p in parts:
        for size, m in p["group_sizes"].items():
            sizes[int(size)] = sizes.get(int(size), 0) + int(m)
    notes: dict[str, Any] = {
        "method": t.method, "k": int(t.k), "n_groups": n_groups,
        "group_sizes": {str(s): sizes[s] for s in sorted(sizes)}, "changed": changed,
        "sse_std": exact_sum([float(p["sse_std"]) for p in parts]), "sst_std": sst,
        "incomplete": int(sum(p["incomplete"] for p in parts))}
    supp = {c: int(sum(p.get("suppressed", {}).get(c, 0) for p in parts)) for c in t.columns}
    if any(supp.values()):
        notes["suppressed"] = supp
    notes["strata"] = len(parts)
    return notes


def _sums(part: pd.DataFrame, columns: tuple, mean: np.ndarray | None) -> list[Any]:
    from ..risk.exact_sum import partial_sum

    out = []
    for j, c in enumerate(columns):
        v = part[c].to_numpy(dtype=np.float64, na_value=np.nan)
        v = v[~np.isnan(v)]
        out.append((len(v), partial_sum(v if mean is None else (v - mean[j]) ** 2)))
    return out


def file_standardisation(ddf: Any, columns: Sequence[str], *, progress: bool | None = None,
                         ) -> tuple[np.ndarray, np.ndarray]:
    """`sdcsession.methods.microaggregation.treatment.standardisation` of ``columns`` over the
    whole Dask frame: exact per-partition sums combined (`sdcsession.risk.exact_sum`), so the
    same doubles as in memory for any partitioning. Two passes: the means, then the sums of
    squared deviations from them.

    Missing values: ignored per column (the standard deviation is NaN with fewer than 2 values).

    >>> import dask.dataframe as dd
    >>> m, s = file_standardisation(dd.from_pandas(pd.DataFrame({"x": [1.0, 2.0, 3.0]}),
    ...                                            npartitions=2), ["x"], progress=False)
    >>> m.tolist(), s.tolist()
    ([2.0], [1.0])
    """
    import dask

    from ..risk.exact_sum import combine, to_float

    cols = tuple(columns)
    parts = ddf[list(cols)].to_delayed()
    mean, sd = np.full(len(cols), np.nan), np.full(len(cols), np.nan)
    first = compute(*[dask.delayed(_sums)(p, cols, None) for p in parts], progress=progress)
    n = [sum(r[j][0] for r in first) for j in range(len(cols))]
    for j in range(len(cols)):
        if n[j]:
            mean[j] = to_float(combine(r[j][1] for r in first), n[j])
    second = compute(*[dask.delayed(_sums)(p, cols, mean) for p in parts], progress=progress)
    for j in range(len(cols)):
        if n[j] > 1:
            sd[j] = np.sqrt(to_float(combine(r[j][1] for r in second), n[j] - 1))
    return mean, sd


def _changed(old: pd.DataFrame, new: pd.DataFrame) -> dict[str, Any]:
    out = {}
    for c in new.columns:
        a = old[c].to_numpy(dtype=np.float64, na_value=np.nan)
        b = new[c].to_numpy(dtype=np.float64, na_value=np.nan)
        out[c] = int(((a != b) & ~np.isnan(a)).sum())
    return {"changed": out}


@distributed(Microaggregation)
def _microaggregation(t: Microaggregation, ddf: Any, roles: Roles, seed: int, progress: Any,
                      ) -> DistributedResult:
    strata = list(t.strata)  # as in memory: the strata role is not a default here
    if not strata:
        raise not_distributable(t, "whole-file MDAV needs the distances between all records; "
                                   "pass strata=[...] (e.g. strata=['region']) so each stratum "
                                   "is one task")
    # the in-memory checks in their order (`Microaggregation.check`), then the strata's sizes
    require_columns(ddf._meta, list(t.columns), "microaggregation")
    numeric_block(ddf._meta_nonempty, t.columns, "microaggregation", min_sd=False)
    require_columns(ddf._meta, strata, "microaggregation strata")
    if t.weights is not None:
        check_weights(ddf._meta_nonempty, t.weights, "microaggregation")
    columns = list(dict.fromkeys(list(t.columns) + strata + ([t.weights] if t.weights else [])))
    sizes = check_strata_fit(ddf, strata, columns, "microaggregation", progress=progress)
    if int(sizes.sum()) < t.k:
        raise TreatmentError(f"microaggregation: k={t.k} exceeds the {int(sizes.sum())} records")
    small = sizes[sizes < t.k]
    if len(small):  # as in memory: a stratum smaller than k cannot be aggregated
        labels = [" / ".join(map(str, i if isinstance(i, tuple) else (i,))) for i in small.index]
        raise TreatmentError(
            f"microaggregation: k={t.k} is larger than stratum/strata {labels[:10]} "
            f"(sizes {small.to_numpy()[:10].tolist()}); lower k or merge strata")
    mean, sd = file_standardisation(ddf, t.columns, progress=progress)
    flat = [c for c, v in zip(t.columns, np.asarray(sd, dtype=np.float64)) if not 0 < v < np.inf]
    if flat:  # constant, or squared deviations that underflow to 0 / overflow: z is not finite
        raise TreatmentError(f"microaggregation: column(s) {flat} have a standard deviation of 0 "
                             "or infinity in double precision; rescale the variable(s)")
    new = by_strata(ddf, strata, columns, list(t.columns), _ma_fn(t, mean, sd),
                    "microaggregation", progress=progress, checked=True, notes=True)
    parts = stratum_notes(new, progress=progress)
    # the in-memory result's dtype (means: float64) in the meta and in every partition
    new = with_dtypes(new[list(t.columns)], dict.fromkeys(t.columns, np.dtype("float64")))
    st = partition_stats(_changed, ddf[list(t.columns)], new, progress=progress)
    changed = {c: int(st["changed"].get(c, 0)) for c in t.columns}
    sst = _total_squares(ddf, tuple(t.columns), mean, sd, progress)
    return DistributedResult(replace_columns(ddf, new), notes=_ma_notes(t, parts, changed, sst))
