"""Treatments on Dask frames: a registry mapping a `Treatment` type to its distributed apply,
and the element-wise treatments (recode, global recode, grouping, top/bottom coding, rounding,
removing columns, new ids).

An element-wise treatment changes each value from the value alone, once its global parameters are
known: those (values present, minimum and maximum for computed breaks, the categories of the
result) are computed first from the whole frame; then the pandas kernel runs on every partition
(`map_partitions`) and the changed columns are persisted. The result equals the in-memory
treatment bit for bit. Notes (counts of changed values...) are added over the partitions.

A treatment type without a distributed apply raises `TreatmentError` saying it cannot be
distributed (never collecting the data onto one worker).

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> from sdcsession.methods.basic import Recode
>>> from sdcsession.roles import Roles
>>> ddf = dd.from_pandas(pd.DataFrame({"a": ["x", "y", "x"]}), npartitions=2)
>>> out = apply_distributed(Recode("a", {"y": "x"}), ddf, Roles(keys=("a",)), seed=1,
...                         progress=False)
>>> out.data.compute()["a"].tolist(), out.notes["changed"]
(['x', 'x', 'x'], {'a': 1})
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import TreatmentError
from ..methods.base import Treatment, require_columns
from ..methods.basic import (
    NewIds,
    Recode,
    RemoveColumns,
    new_id_mapping,
    observed_ids,
    recode_values,
    replace_ids,
)
from ..methods.recoding.grouping import GroupCategories, group_categories
from ..methods.recoding.intervals import nonpositive_error
from ..methods.recoding.rounding import RoundValues
from ..methods.recoding.top_bottom import TopBottomCode
from ..methods.recoding.treatments import (
    GlobalRecode,
    global_recode,
    interval_breaks,
    interval_codes,
    outside_error,
)
from ..roles import Roles
from ._base import add_counts, compute, fixed_partitions, persist
from ._dtypes import cast_columns, recode_dtype, top_bottom_dtype, top_bottom_hits
from ._encode import scan
from ._pairing import compute_paired, map_paired

__all__ = ["DISTRIBUTED", "distributed", "apply_distributed", "DistributedResult",
           "replace_columns", "map_columns", "not_distributable"]


@attrs.frozen
class DistributedResult:
    """What a distributed apply returns: the new Dask frame, new roles (``None`` = unchanged),
    JSON-serialisable notes."""

    data: Any
    roles: Roles | None = None
    notes: dict[str, Any] = attrs.field(factory=dict)


#: Treatment class -> fn(treatment, ddf, roles, seed, progress) -> DistributedResult
DISTRIBUTED: dict[type, Callable[..., DistributedResult]] = {}


def distributed(cls: type) -> Callable:
    """Decorator registering the distributed apply of a `Treatment` class."""

    def deco(fn: Callable[..., DistributedResult]) -> Callable[..., DistributedResult]:
        DISTRIBUTED[cls] = fn
        return fn

    return deco


def not_distributable(treatment: Treatment, why: str = "") -> TreatmentError:
    """The `TreatmentError` of a treatment that cannot run on a Dask frame."""
    by_strata = "" if "strata=" in why else (
        "run it by strata (strata=..., each stratum one task) where the method offers it, or ")
    return TreatmentError(
        f"{treatment.type}: cannot be distributed on a Dask frame{': ' + why if why else ''}; "
        f"{by_strata}bring the data into memory (SdcSession(ddf.compute(), ...)); the session is "
        "unchanged")


def apply_distributed(treatment: Treatment, ddf: Any, roles: Roles, *, seed: int,
                      progress: bool | None = None) -> DistributedResult:
    """Apply ``treatment`` to the Dask frame ``ddf`` through its registered distributed apply
    (on `sdcsession.scale._base.fixed_partitions` of ``ddf``).

    Raises `TreatmentError` when the treatment type has none (see `not_distributable`).
    """
    fn = DISTRIBUTED.get(type(treatment))
    if fn is None:
        raise not_distributable(treatment)
    # every selection of columns keeps the frame's partitions (a Parquet reader is not fused
    # differently per selection), so the kernels' paired partitions hold the same records
    return fn(treatment, fixed_partitions(ddf), roles, seed, progress)


# ------------------------------------------------------------------------------ plumbing
def _put(part: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    if len(part) != len(new) or not part.index.equals(new.index):
        raise TreatmentError("internal: a treated partition does not hold the records of the "
                             "frame's partition (partitions out of step); the session is unchanged")
    # the dtype given: an object column of texts is not inferred as a str column (pandas 3)
    return part.assign(**{c: pd.Series(new[c].array, index=part.index, name=c, dtype=new[c].dtype)
                          for c in new.columns})


def replace_columns(ddf: Any, new: Any) -> Any:
    """``ddf`` with the columns of ``new`` (a Dask frame with the same partitions) replacing its
    own, partition by partition: partition i of ``new`` goes into partition i of ``ddf``
    (`sdcsession.scale._pairing.map_paired`: paired explicitly, not by index, so the index may
    be unknown or repeated; divisions need not be known). The result is one frame of its own,
    so later projections and reductions of it cannot re-pair its partitions."""
    meta = ddf._meta.assign(**{c: new._meta[c] for c in new.columns})
    # object columns stay object, as in pandas (a bool key blanked by local suppression)
    return map_paired(_put, [ddf, new], meta=meta, what="the treated columns", keep_object=True)


def map_columns(ddf: Any, columns: Sequence[str], kernel: Callable[..., pd.DataFrame],
                *args: Any, meta: pd.DataFrame | None = None, progress: bool | None = None,
                partition_info: bool = False) -> Any:
    """The changed columns: ``kernel(partition[columns], *args)`` on every partition, persisted.

    ``meta`` (the empty result) is, when not given, the kernel's result on the frame's empty
    meta (never a partition's values: a kernel whose dtype depends on the values it meets gives
    its whole-file dtype as ``meta``, and casts, see `sdcsession.scale._dtypes`). With
    ``partition_info=True`` the kernel receives ``partition_info=`` (Dask's dict with the
    partition ``number``). Object columns of the result stay object, as in pandas (Dask would
    turn them, and their values, into strings).
    """
    import dask

    sub = ddf[list(columns)]
    if meta is None:  # no partition computed for it
        extra = {"partition_info": {"number": 0}} if partition_info else {}
        meta = kernel(sub._meta, *args, **extra).iloc[:0]
    with dask.config.set({"dataframe.convert-string": False}):
        return persist(sub.map_partitions(kernel, *args, meta=meta), progress=progress)


def partition_stats(fn: Callable[..., dict[str, Any]], *frames: Any,
                    progress: bool | None = None) -> dict[str, Any]:
    """``fn(part_a, part_b, ...)`` on the paired partitions of ``frames`` (partition i of every
    frame, `sdcsession.scale._pairing.compute_paired`), the counts added."""
    return add_counts(compute_paired(fn, frames, what="the counts of the step", progress=progress))


def _differ(a: pd.Series, b: pd.Series) -> int:
    return int((a.astype(object).fillna("\0na") != b.astype(object).fillna("\0na")).sum())


# ----------------------------------------------------------------------------- recode
def _recode_kernel(part: pd.DataFrame, column: str, mapping: dict) -> pd.DataFrame:
    return pd.DataFrame({column: recode_values(part[column], mapping)}, index=part.index)


def _changed_stats(old: pd.DataFrame, new: pd.DataFrame) -> dict[str, Any]:
    return {"changed": {c: _differ(old[c], new[c]) for c in new.columns}}


@distributed(Recode)
def _recode(t: Recode, ddf: Any, roles: Roles, seed: int, progress: Any) -> DistributedResult:
    t.check(ddf._meta, roles)
    plan = scan(ddf, [t.column], what="recode", progress=progress)
    mapping, unknown = t.resolved_mapping(list(plan.categories[0]))
    # the whole file's dtype (Series.map infers it from the values it meets): from the scan
    dtype = recode_dtype(ddf._meta[t.column], plan.categories[0], plan.has_missing, mapping)
    new = map_columns(ddf, [t.column], _recode_kernel, t.column, mapping, progress=progress,
                      meta=pd.DataFrame({t.column: pd.Series(dtype=dtype)}))
    notes = partition_stats(_changed_stats, ddf[[t.column]], new, progress=progress)
    new = cast_columns(new, {t.column: dtype})  # every partition, also those without a change
    if unknown:
        notes["not_present"] = [str(u) for u in unknown]
    return DistributedResult(replace_columns(ddf, new), notes=notes)


@distributed(RemoveColumns)
def _remove(t: RemoveColumns, ddf: Any, roles: Roles, seed: int, progress: Any,
            ) -> DistributedResult:
    t.check(ddf._meta, roles)  # the in-memory checks (columns and roles only, no values)
    return DistributedResult(ddf.drop(columns=list(t.columns)), roles=roles.without(t.columns),
                             notes={"removed": list(t.columns)})


# ------------------------------------------------------------------------------ new ids
def _ids_part(part: pd.DataFrame, column: str) -> tuple[np.ndarray, int]:
    return observed_ids(part[column]), int(part[column].isna().sum())


def _ids_kernel(part: pd.DataFrame, column: str, ids: np.ndarray, new: np.ndarray,
                nullable: bool) -> pd.DataFrame:
    return pd.DataFrame({column: replace_ids(part[column], ids, new, nullable)}, index=part.index)


@distributed(NewIds)
def _new_ids(t: NewIds, ddf: Any, roles: Roles, seed: int, progress: Any) -> DistributedResult:
    """The distinct ids of every partition, united in the canonical order on the client (the
    same order as in memory), the same seeded mapping, applied partition by partition."""
    import dask

    t.check(ddf._meta, roles)
    parts = compute(*[dask.delayed(_ids_part)(p, t.column) for p in ddf[[t.column]].to_delayed()],
                    progress=progress)
    ids = observed_ids(np.concatenate([u for u, _ in parts]) if parts else [])
    missing = sum(m for _, m in parts)
    new = new_id_mapping(ids, np.random.default_rng(seed))
    dtype = "Int64" if missing else "int64"
    new_col = map_columns(ddf, [t.column], _ids_kernel, t.column, ids, new, missing > 0,
                          meta=pd.DataFrame({t.column: pd.Series(dtype=dtype)}),
                          progress=progress)
    return DistributedResult(replace_columns(ddf, new_col),
                             notes={"column": t.column, "groups": len(ids), "missing": missing})


# ----------------------------------------------------------------------- global recode
def _minmax(part: pd.DataFrame, column: str) -> tuple[float, float, int, bool, int]:
    """Smallest and largest value, how many are present, whether one is infinite, and how many
    are <= 0 (the values method='log_equidistant' refuses)."""
    x = pd.to_numeric(part[column], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    f = x[~np.isnan(x)]
    if not len(f):
        return math.inf, -math.inf, 0, False, 0
    return (float(f.min()), float(f.max()), len(f), bool(np.isinf(f).any()),
            int((f <= 0).sum()))


def _outside(part: pd.DataFrame, column: str, edges: Any, right: bool) -> tuple[int, np.ndarray]:
    """How many values of the partition lie outside the cut points (the rule of
    `global_recode` for given breaks), and the distinct ones."""
    x = pd.to_numeric(part[column], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    _, cut = interval_codes(x, edges, right)
    return int(cut.sum()), np.unique(x[cut])


def _gr_kernel(part: pd.DataFrame, column: str, edges: Any, labels: Any, right: bool,
               outside: bool) -> pd.DataFrame:
    new = global_recode(part[column], edges, labels=labels, right=right, include_outside=outside)
    return pd.DataFrame({column: new}, index=part.index)


def _count_stats(old: pd.DataFrame, new: pd.DataFrame) -> dict[str, Any]:
    c = new.columns[0]
    vc = new[c].value_counts(sort=False)
    return {"counts": {str(k): int(v) for k, v in vc.items()}, "missing": int(new[c].isna().sum())}


@distributed(GlobalRecode)
def _global_recode(t: GlobalRecode, ddf: Any, roles: Roles, seed: int, progress: Any,
                   ) -> DistributedResult:
    import dask

    from ..methods.recoding._checks import _numeric
    from ..methods.recoding.treatments import _fmt

    t.check(ddf._meta_nonempty, roles)  # roles and dtype
    _numeric(ddf._meta_nonempty[t.column], "global_recode")
    if t.method == "quantile":
        raise not_distributable(t, "exact quantiles need the whole column sorted; give the cut "
                                   "points as breaks=[...] (e.g. from ddf[col].quantile(...))")
    if isinstance(t.breaks, tuple):
        edges, labels, outside = list(t.breaks), t.labels, t.include_outside
        sample = pd.Series(t.breaks, name=t.column, dtype="float64")
        if not outside:  # counted over the whole file, as pandas reports them
            found = compute(*[dask.delayed(_outside)(p, t.column, edges, t.right)
                              for p in ddf[[t.column]].to_delayed()], progress=progress)
            count = sum(c for c, _ in found)
            if count:
                vals = np.unique(np.concatenate([v for _, v in found]))
                raise outside_error(t.column, count, vals, edges, t.right)
    else:  # computed breaks depend only on the global minimum and maximum
        parts = compute(*[dask.delayed(_minmax)(p, t.column) for p in
                          ddf[[t.column]].to_delayed()], progress=progress)
        if not any(c for _, _, c, _, _ in parts):
            raise TreatmentError(f"global_recode: column {t.column!r} has no non-missing values")
        lo = min(a for a, _, c, _, _ in parts if c)
        hi = max(b for _, b, c, _, _ in parts if c)
        nonpositive = sum(z for *_, z in parts)
        if t.method == "log_equidistant" and nonpositive:  # counted as pandas counts them
            raise nonpositive_error(t.column, nonpositive, lo)
        if any(inf for *_, inf, _ in parts):
            raise TreatmentError(f"global_recode: column {t.column!r} has infinite values; "
                                 f"breaks={t.breaks} needs a finite range")
        sample = pd.Series([lo, hi], name=t.column, dtype="float64")
        ref = global_recode(sample, t.breaks, method=t.method, n=t.n, labels=t.labels,
                            right=t.right)
        edges = interval_breaks(sample, t.breaks, method=t.method, n=t.n)
        labels, outside = list(ref.cat.categories), True
    new = map_columns(ddf, [t.column], _gr_kernel, t.column, edges, labels, t.right, outside,
                      progress=progress)
    cuts = interval_breaks(sample, t.breaks, method=t.method, n=t.n)
    stats = partition_stats(_count_stats, ddf[[t.column]], new, progress=progress)
    cats = [str(c) for c in new._meta[t.column].cat.categories]
    new_roles = None
    if t.column in roles.numeric:
        new_roles = attrs.evolve(
            roles, numeric=tuple(c for c in roles.numeric if c != t.column),
            keys=(*roles.keys, t.column) if t.column not in roles.keys else roles.keys)
    notes = {"column": t.column, "categories": cats,
             "counts": {c: int(stats.get("counts", {}).get(c, 0)) for c in cats},
             "missing": int(stats.get("missing", 0)),
             "breaks": [_fmt(b) if math.isinf(b) else b for b in cuts]}
    return DistributedResult(replace_columns(ddf, new), roles=new_roles, notes=notes)


# --------------------------------------------------------------------- group categories
def _group_kernel(part: pd.DataFrame, column: str, cats: pd.Index, groups: dict,
                  dtype: pd.CategoricalDtype) -> pd.DataFrame:
    s = part[column]
    if not isinstance(s.dtype, pd.CategoricalDtype):
        s = pd.Series(pd.Categorical(s, categories=cats), index=s.index, name=column)
    new = group_categories(s, groups).astype(dtype)
    return pd.DataFrame({column: new}, index=part.index)


def _group_stats(old: pd.DataFrame, new: pd.DataFrame) -> dict[str, Any]:
    c = new.columns[0]
    differ = (old[c].astype(object) != new[c].astype(object)).to_numpy() & old[c].notna().to_numpy()
    return {"changed": int(differ.sum())}


@distributed(GroupCategories)
def _group(t: GroupCategories, ddf: Any, roles: Roles, seed: int, progress: Any,
           ) -> DistributedResult:
    require_columns(ddf._meta, [t.column], "group_categories")
    if t.column not in roles.keys and t.column not in roles.pram:
        raise TreatmentError(
            f"group_categories: column {t.column!r} is not a key (or PRAM) variable "
            f"(roles: {roles.role_of(t.column) or 'none'})")
    plan = scan(ddf, [t.column], what="group_categories", progress=progress)
    cats = plan.categories[0]
    if plan.categorical[0]:
        ref_dtype = ddf._meta[t.column].dtype
    else:
        cats = pd.Index(pd.factorize(cats, sort=True)[1])  # as the in-memory kernel
        ref_dtype = pd.CategoricalDtype(cats)
    sample = pd.Series(pd.Categorical(list(cats) + ([None] if plan.has_missing else []),
                                      dtype=ref_dtype), name=t.column)
    dtype = group_categories(sample, t.groups).dtype  # checks the groups like the pandas path
    new = map_columns(ddf, [t.column], _group_kernel, t.column, cats, t.groups, dtype,
                      meta=pd.DataFrame({t.column: pd.Series(dtype=dtype)}), progress=progress)
    stats = partition_stats(_group_stats, ddf[[t.column]], new, progress=progress)
    notes = {"column": t.column, "changed": int(stats.get("changed", 0)),
             "categories": [str(c) for c in dtype.categories]}
    return DistributedResult(replace_columns(ddf, new), notes=notes)


# ---------------------------------------------------------------- top/bottom, rounding
def _apply_kernel(part: pd.DataFrame, treatment: Treatment, roles: Roles,
                  columns: list[str]) -> pd.DataFrame:
    out = treatment.apply(part, roles, np.random.default_rng(0)).data
    return out[columns]


def _elementwise(t: Treatment, columns: list[str], ddf: Any, roles: Roles,
                 progress: Any, meta: pd.DataFrame | None = None) -> Any:
    t.check(ddf._meta_nonempty, roles)
    return map_columns(ddf, columns, _apply_kernel, t, roles, columns, progress=progress,
                       meta=meta)


def _tb_stats(old: pd.DataFrame, new: pd.DataFrame, t: TopBottomCode) -> dict[str, Any]:
    c = new.columns[0]
    return {"changed": int((old[c].astype(object) != new[c].astype(object)).sum()
                           - (old[c].isna() & new[c].isna()).sum()),
            "hits": top_bottom_hits(old, t)}


@distributed(TopBottomCode)
def _top_bottom(t: TopBottomCode, ddf: Any, roles: Roles, seed: int, progress: Any,
                ) -> DistributedResult:
    meta = ddf._meta[t.column]
    new = _elementwise(t, [t.column], ddf, roles, progress, meta=pd.DataFrame(
        {t.column: pd.Series(dtype=top_bottom_dtype(t, meta, 0))}))
    stats = partition_stats(lambda a, b: _tb_stats(a, b, t), ddf[[t.column]], new,
                            progress=progress)
    # the whole file's dtype: int64 becomes float64 (...) when a value anywhere is replaced,
    # in every partition, also those where none is
    new = cast_columns(new, {t.column: top_bottom_dtype(t, meta, stats.get("hits", 0))})
    return DistributedResult(replace_columns(ddf, new),
                             notes={"column": t.column, "changed": stats.get("changed", 0),
                                    "kind": t.kind})


def _round_stats(old: pd.DataFrame, new: pd.DataFrame) -> dict[str, Any]:
    return {"changed": {c: int((old[c].to_numpy(dtype=float, na_value=np.nan)
                                != new[c].to_numpy(dtype=float, na_value=np.nan)).sum()
                               - (old[c].isna() & new[c].isna()).sum()) for c in new.columns}}


@distributed(RoundValues)
def _round(t: RoundValues, ddf: Any, roles: Roles, seed: int, progress: Any,
           ) -> DistributedResult:
    new = _elementwise(t, list(t.columns), ddf, roles, progress)
    stats = partition_stats(_round_stats, ddf[list(t.columns)], new, progress=progress)
    return DistributedResult(replace_columns(ddf, new), notes={"changed": stats.get("changed", {})})
