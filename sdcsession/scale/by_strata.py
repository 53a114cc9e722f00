"""Local suppression and microaggregation on Dask frames, by strata: each stratum is one task.

Whole-file local suppression (a search over all records) and whole-file MDAV (distances between
all records) cannot be split over partitions. By strata they can: the records are shuffled so
each stratum (e.g. a region) sits in one task, the in-memory treatment runs on it as on a file of
its own, and the changed columns are shuffled back to the records by index. The result equals
applying the in-memory treatment to each stratum separately (for microaggregation this includes
standardising within the stratum).

Requirements, checked before anything runs (`TreatmentError`, session unchanged):

* ``strata`` given (or the strata role): else the treatment cannot be distributed;
* known divisions and a unique index (results return to their records by index): a frame read
  without an index has unknown divisions — give it one (``ddf.set_index("id")`` or
  ``SdcSession.from_parquet(path, index="id")``);
* with an active `distributed` client, the largest stratum (records × bytes per record × a
  working factor of `STRATUM_MEMORY_FACTOR`) must fit in a worker's ``memory_limit``.

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> from sdcsession.methods.suppression.local import LocalSuppression
>>> from sdcsession.roles import Roles
>>> df = pd.DataFrame({"r": ["n"] * 4 + ["s"] * 4, "a": list("xxxyxxyy")})
>>> ddf = dd.from_pandas(df, npartitions=2)
>>> out = apply_distributed(LocalSuppression(k=2, strata=["r"]), ddf, Roles(keys=("a",)),
...                         seed=1, progress=False)
>>> out.data.compute()["a"].isna().sum(), out.notes["total"]
(np.int64(1), 1)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import TreatmentError
from ..methods.base import require_columns
from ..methods.microaggregation.treatment import Microaggregation
from ..methods.noise.addition import numeric_block
from ..methods.suppression._args import _ranks
from ..methods.suppression.local import LocalSuppression
from ..roles import Roles
from ._base import compute, persist, worker_memory_limit
from .elementwise import (
    DistributedResult,
    apply_distributed,
    distributed,
    not_distributable,
    partition_stats,
    replace_columns,
)

__all__ = ["apply_distributed", "STRATUM_MEMORY_FACTOR", "check_strata_fit"]

#: working memory of a stratum's task as a multiple of the stratum's records (copies, encodings)
STRATUM_MEMORY_FACTOR = 6.0
_ROW = "__sdc_row__"


def check_strata_fit(ddf: Any, strata: Sequence[str], columns: Sequence[str], what: str, *,
                     progress: bool | None = None) -> pd.Series:
    """Records per stratum; `TreatmentError` when the frame's divisions are unknown or the
    largest stratum would not fit in a worker's memory (see the module docstring)."""
    if not ddf.known_divisions:
        raise TreatmentError(
            f"{what}: by strata, each stratum's results return to their records by index, and "
            "this Dask frame has unknown divisions (e.g. read without an index); give it a sorted "
            "unique index first: ddf = ddf.set_index('id') (or SdcSession.from_parquet(path, "
            "index='id')); the session is unchanged")
    (sizes,) = compute(ddf[list(strata)].groupby(list(strata), dropna=False).size(),
                       progress=progress)
    limit = worker_memory_limit()
    if limit is not None and len(sizes):
        head = ddf[list(columns)].partitions[0].compute()
        per_row = float(head.memory_usage(deep=True, index=True).sum()) / max(len(head), 1)
        big = sizes.idxmax()
        need = float(sizes.max()) * per_row * STRATUM_MEMORY_FACTOR
        if need > limit:
            raise TreatmentError(
                f"{what}: stratum {big!r} holds {int(sizes.max()):,} records, about "
                f"{need / 2**20:,.0f} MiB of working memory, more than a worker's memory limit "
                f"({limit / 2**20:,.0f} MiB); use finer strata (e.g. add a variable to "
                f"strata={list(strata)}) or workers with more memory; the session is unchanged")
    return sizes


def _unique_index(part: pd.DataFrame) -> dict[str, int]:
    return {"duplicated": int(part.index.duplicated().sum())}


def _stratum_task(group: pd.DataFrame, fn: Callable[[pd.DataFrame], pd.DataFrame],
                  out_columns: list[str]) -> pd.DataFrame:
    out = fn(group.sort_index(kind="stable"))[out_columns]  # the file's order of records
    out.insert(0, _ROW, out.index.to_numpy())
    return out.reset_index(drop=True)


def _put_back(part: pd.DataFrame, res: pd.DataFrame, out_columns: list[str]) -> pd.DataFrame:
    got = res.reindex(part.index)
    return got[out_columns]


def by_strata(ddf: Any, strata: Sequence[str], columns: Sequence[str],
              out_columns: Sequence[str], fn: Callable[[pd.DataFrame], pd.DataFrame], what: str,
              *, progress: bool | None = None) -> Any:
    """The ``out_columns`` of ``fn(stratum)`` for every stratum of ``ddf`` (each one task),
    returned to the records' partitions by index and persisted (a Dask frame with ``ddf``'s
    partitions)."""
    strata, columns, out_columns = list(strata), list(columns), list(out_columns)
    check_strata_fit(ddf, strata, columns, what, progress=progress)
    dup = partition_stats(_unique_index, ddf[strata], progress=progress)
    if dup.get("duplicated"):
        raise TreatmentError(f"{what}: the index of the Dask frame has duplicated labels; give "
                             "it a unique index first (e.g. ddf = ddf.set_index('id'))")
    meta = ddf._meta[out_columns].reset_index(drop=True)
    meta.insert(0, _ROW, ddf._meta.index.to_numpy())
    res = ddf[columns].groupby(strata, dropna=False, group_keys=False).apply(
        _stratum_task, fn, out_columns, meta=meta)
    back = res.set_index(_ROW, divisions=ddf.divisions)
    new = ddf[columns].map_partitions(_put_back, back, out_columns, meta=ddf._meta[out_columns],
                                      align_dataframes=False)
    return persist(new, progress=progress)


# ------------------------------------------------------------------------- local suppression
def _ls_fn(t: LocalSuppression, roles: Roles) -> Callable[[pd.DataFrame], pd.DataFrame]:
    def fn(group: pd.DataFrame) -> pd.DataFrame:
        inner = LocalSuppression(k=t.k, importance=t.importance, strata=(),
                                 combinations=t.combinations, weighted=t.weighted,
                                 household=t.household, subsets=t.subsets, alpha=t.alpha)
        return inner.apply(group, roles, np.random.default_rng(0)).data

    return fn


def _suppressed(old: pd.DataFrame, new: pd.DataFrame) -> dict[str, Any]:
    return {"suppressed": {c: int((new[c].isna() & old[c].notna()).sum()) for c in new.columns}}


@distributed(LocalSuppression)
def _local_suppression(t: LocalSuppression, ddf: Any, roles: Roles, seed: int, progress: Any,
                       ) -> DistributedResult:
    strata = list(t._strata(roles))
    if not strata:
        raise not_distributable(t, "whole-file local suppression searches over all records at "
                                   "once; pass strata=[...] (e.g. strata=['region']) so each "
                                   "stratum is one task")
    keys = list(roles.keys)
    require_columns(ddf._meta, keys + strata, "local_suppression")
    if t.importance is not None:
        _ranks(roles.keys, t.importance)
    if t.weighted and roles.weight is None:
        raise TreatmentError("local_suppression: weighted=True needs a weight role")
    if t.household and roles.household is None:
        raise TreatmentError("local_suppression: household=True needs a household role")
    if t.subsets is not None:
        unknown = sorted({c for sub in t.subsets for c in sub} - set(keys))
        if unknown:
            raise TreatmentError(f"subsets: {unknown} are not key variables {keys}")
    if t.combinations is not None and max(t.combinations) > len(keys):
        raise TreatmentError(f"combinations: subset size {max(t.combinations)} exceeds the "
                             f"{len(keys)} key variables")
    extra = [c for c in (roles.weight if t.weighted else None,
                         roles.household if t.household else None) if c]
    columns = list(dict.fromkeys(keys + strata + extra))
    new = by_strata(ddf, strata, columns, keys, _ls_fn(t, roles), "local_suppression",
                    progress=progress)
    st = partition_stats(_suppressed, ddf[keys], new, progress=progress)
    supp = {c: int(st["suppressed"].get(c, 0)) for c in keys}
    notes = {"suppressed": supp, "total": int(sum(supp.values())), "strata": strata,
             "k": (t.k if t.k != int(t.k) else int(t.k)) if isinstance(t.k, float)
             else [list(x) if isinstance(x, tuple) else x for x in t.k],
             **({"subsets": [list(x) for x in t.subsets]} if t.subsets else {})}
    return DistributedResult(replace_columns(ddf, new), notes=notes)


# ---------------------------------------------------------------------- microaggregation
def _ma_fn(t: Microaggregation, roles: Roles) -> Callable[[pd.DataFrame], pd.DataFrame]:
    def fn(group: pd.DataFrame) -> pd.DataFrame:
        if len(group) < t.k:
            return group  # a stratum smaller than k cannot be aggregated: left as it is
        inner = Microaggregation(t.columns, k=t.k, method=t.method, strata=(),
                                 aggregate=t.aggregate, sort_by=t.sort_by)
        return inner.apply(group, roles, np.random.default_rng(0)).data

    return fn


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
    strata = list(t.strata) or list(roles.strata)
    if not strata:
        raise not_distributable(t, "whole-file MDAV needs the distances between all records; "
                                   "pass strata=[...] (e.g. strata=['region']) so each stratum "
                                   "is one task")
    require_columns(ddf._meta, list(t.columns) + strata, "microaggregation")
    numeric_block(ddf._meta_nonempty, t.columns, "microaggregation", min_sd=False)
    columns = list(dict.fromkeys(list(t.columns) + strata))
    new = by_strata(ddf, strata, columns, list(t.columns), _ma_fn(t, roles), "microaggregation",
                    progress=progress)
    st = partition_stats(_changed, ddf[list(t.columns)], new, progress=progress)
    notes = {"method": t.method, "k": int(t.k), "strata": strata,
             "changed": {c: int(st["changed"].get(c, 0)) for c in t.columns}}
    return DistributedResult(replace_columns(ddf, new), notes=notes)
