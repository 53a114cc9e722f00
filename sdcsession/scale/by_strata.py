"""Local suppression on Dask frames by strata, each stratum one task (and `by_strata`, the
plumbing that microaggregation by strata, `sdcsession.scale.strata_microaggregation`, shares).

Whole-file local suppression (a search over all records) and whole-file MDAV (distances between
all records) cannot be split over partitions. By strata they can: the records are shuffled so
each stratum (e.g. a region) sits in one task, the in-memory treatment runs on it as on a file of
its own, and the changed columns are shuffled back to the records by index. The result equals
applying the in-memory treatment to each stratum separately (for microaggregation this includes
standardising within the stratum).

Every record carries its position in the file (records of the partitions before it plus its row
in its partition); a stratum's task sees its records in file order, and its results return to the
partition whose positions hold them. Nothing depends on the frame's index (it may be unknown,
repeated or unsorted) or on its partitioning (one partition, many tiny ones, a household split
over two).

Local suppression by strata accepts what the in-memory treatment accepts, with the same
answer: one k, a k per stratum (``{stratum: k}`` or a list aligned with the sorted strata; the
strata and their order of first appearance are read from the whole file, every task solves with
its stratum's k, and the notes give the same ``{stratum: k}``), ``combinations``, ``subsets``,
``importance``, ``weighted`` and ``household``. As in memory, only a k above the whole file's
records (total weight) is refused; a stratum below its k is left as it is and counted in
``unresolvable``.

Checked before anything runs (`TreatmentError`, session unchanged):

* ``strata`` given (or the strata role): else the treatment cannot be distributed;
* with an active `distributed` client, the largest stratum (records × bytes per record × a
  working factor of `STRATUM_MEMORY_FACTOR`) must fit in a worker's ``memory_limit``;
* ``household=True``: every household lies within one stratum. In memory a household spanning
  strata gets the suppressions of its household-level keys spread over all its members after
  the strata are solved, and the person-level suppressions of every stratum are then
  re-examined with those spread values as wildcards. On Dask that would be a second round of
  tasks over every stratum after a file-wide join on the household id, for a layout (a
  household split between, say, regions) that the household-level keys already contradict;
  it is refused by name (use strata that hold whole households, e.g. the region).

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

import json
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SdcWarning, TreatmentError, user_stacklevel
from ..methods.base import require_columns
from ..methods.suppression._args import _check_k_fits, _ranks
from ..methods.suppression._strata import _label, _order, k_max, k_note, k_per_group
from ..methods.suppression.local import LocalSuppression, local_suppression
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

__all__ = ["apply_distributed", "STRATUM_MEMORY_FACTOR", "check_strata_fit", "with_dtypes",
           "blanked_dtype"]

#: working memory of a stratum's task as a multiple of the stratum's records (copies, encodings)
STRATUM_MEMORY_FACTOR = 6.0
_ROW = "__sdc_row__"
_GROUP = "__sdc_stratum__"
#: column carrying a stratum's notes (JSON, on its first record) when ``fn`` returns notes
NOTES = "__sdc_notes__"


def check_strata_fit(ddf: Any, strata: Sequence[str], columns: Sequence[str], what: str, *,
                     progress: bool | None = None) -> pd.Series:
    """Records per stratum; `TreatmentError` when the largest stratum would not fit in a
    worker's memory (see the module docstring)."""
    (sizes,) = compute(ddf[list(strata)].groupby(list(strata), dropna=False).size(),
                       progress=progress)
    limit = worker_memory_limit()
    if limit is not None and len(sizes):
        sub = ddf[list(columns)]
        for i in range(sub.npartitions):  # the first partition with records (not an empty file)
            head = sub.partitions[i].compute()
            if len(head):
                break
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


def _with_position(part: pd.DataFrame, offsets: list[int], strata: list[str],
                   partition_info: dict | None = None) -> pd.DataFrame:
    i = (partition_info or {}).get("number", 0)
    start = offsets[i]
    if len(offsets) > 1 and offsets[i + 1] - start != len(part):
        raise TreatmentError(f"internal: partition {i} holds {len(part)} records where "
                             f"{offsets[i + 1] - start} were counted (partitions out of step); "
                             "the session is unchanged")
    out = part.reset_index(drop=True)
    out[_ROW] = np.arange(start, start + len(part), dtype=np.int64)
    for j, c in enumerate(strata):  # grouped on copies: the task sees the strata columns too
        out[f"{_GROUP}{j}"] = out[c]
    return out


def _stratum_task(group: pd.DataFrame, fn: Callable[[pd.DataFrame], pd.DataFrame],
                  out_columns: list[str]) -> pd.DataFrame:
    group = group.sort_values(_ROW, kind="stable").set_index(_ROW)  # the file's order
    group = group.drop(columns=[c for c in group.columns if str(c).startswith(_GROUP)])
    res = fn(group)
    notes = None
    if isinstance(res, tuple):  # (frame, notes): the notes travel on the stratum's first record
        res, notes = res
    out = res[out_columns]
    out.insert(0, _ROW, out.index.to_numpy())
    if notes is not None:
        out[NOTES] = pd.Series([json.dumps(notes)] + [None] * (len(out) - 1), index=out.index,
                               dtype=object)
    return out.reset_index(drop=True)


def _put_back(part: pd.DataFrame, res: pd.DataFrame | None, start: int,
              out_columns: list[str]) -> pd.DataFrame:
    if res is None:
        res = pd.DataFrame({c: part[c].iloc[:0] if c in part.columns else pd.Series(dtype=object)
                            for c in out_columns})
    res = res.sort_index()
    if len(res) != len(part) or (len(res) and (res.index[0] != start
                                               or res.index[-1] != start + len(part) - 1)):
        raise TreatmentError("internal: the strata results do not cover the partition's records; "
                             "the session is unchanged")
    return pd.DataFrame({c: pd.Series(res[c].array, index=part.index, name=c)
                         for c in out_columns}, index=part.index)


def by_strata(ddf: Any, strata: Sequence[str], columns: Sequence[str],
              out_columns: Sequence[str], fn: Callable[[pd.DataFrame], pd.DataFrame], what: str,
              *, progress: bool | None = None, checked: bool = False,
              notes: bool = False, lengths: Sequence[int] | None = None) -> Any:
    """The ``out_columns`` of ``fn(stratum)`` for every stratum of ``ddf`` (each one task),
    returned to the records' partitions and persisted (a Dask frame with ``ddf``'s partitions).

    Every record carries its position in the file (the records before its partition plus its
    row in the partition); a stratum's task sees its records in file order, and the results go
    back to the partition whose range of positions holds them. Nothing depends on the frame's
    index (it may be unknown, repeated or unsorted) or on how the records are partitioned.
    ``checked=True`` skips `check_strata_fit` (the caller ran it). ``notes=True``: ``fn``
    returns ``(frame, notes)`` and the result has a column `NOTES` holding each stratum's notes
    as JSON on the stratum's first record (missing elsewhere; see `stratum_notes`).
    ``lengths``: the records of every partition, when the caller has them.

    Missing values: a missing stratum value is a stratum of its own (``dropna=False``).

    >>> import dask.dataframe as dd
    >>> df = pd.DataFrame({"r": ["n", "s", "n", "s"], "x": [1.0, 2.0, 3.0, 4.0]})
    >>> def total(g): return g.assign(x=g["x"].sum())
    >>> by_strata(dd.from_pandas(df, npartitions=3), ["r"], ["r", "x"], ["x"], total, "sum",
    ...           progress=False).compute()["x"].tolist()
    [4.0, 6.0, 4.0, 6.0]
    """
    import dask
    import dask.dataframe as dd

    from ._base import fixed_partitions, partition_lengths

    ddf = fixed_partitions(ddf)  # every selection below has the partitions counted here
    strata, columns, out_columns = list(strata), list(columns), list(out_columns)
    if not checked:  # (``checked``: the caller ran `check_strata_fit`)
        check_strata_fit(ddf, strata, columns, what, progress=progress)
    if lengths is None:
        lengths = partition_lengths(ddf, progress=progress)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64).tolist()
    src = ddf[columns]
    posm = _with_position(src._meta, [0], strata)
    pos = src.map_partitions(_with_position, offsets, strata, meta=posm)
    meta = ddf._meta[out_columns].reset_index(drop=True)
    meta.insert(0, _ROW, np.zeros(0, dtype=np.int64))
    outm = ddf._meta[out_columns]
    if notes:
        meta[NOTES] = pd.Series(dtype=object)
        outm = outm.assign(**{NOTES: pd.Series(dtype=object)})
    task_columns = list(out_columns)
    if notes:
        out_columns = [*out_columns, NOTES]
    groups = [f"{_GROUP}{j}" for j in range(len(strata))]
    res = pos.groupby(groups, dropna=False, group_keys=False).apply(
        _stratum_task, fn, task_columns, meta=meta)
    full = [i for i, n in enumerate(lengths) if n]
    parts = src.to_delayed()
    if len(parts) != len(lengths):
        raise TreatmentError(f"internal: {what}: the frame has {len(parts)} partitions where "
                             f"{len(lengths)} were counted; the session is unchanged")
    if not full:
        return ddf[out_columns] if not notes else ddf[out_columns[:-1]].assign(**{NOTES: None})
    divisions = [offsets[i] for i in full] + [offsets[full[-1] + 1] - 1]
    back = res.set_index(_ROW, divisions=divisions).to_delayed()
    which = dict(zip(full, back))
    pieces = [dask.delayed(_put_back)(p, which.get(i), offsets[i], out_columns)
              for i, p in enumerate(parts)]
    # object columns as the tasks return them (Dask would turn every object column of the
    # partitions into strings: a bool key blanked in a stratum into "True"/"False")
    with dask.config.set({"dataframe.convert-string": False}):
        new = dd.from_delayed(pieces, meta=outm, divisions=ddf.divisions, verify_meta=False)
    return persist(new, progress=progress)


def _astype(part: pd.DataFrame, dtypes: dict[str, Any]) -> pd.DataFrame:
    return part.astype(dtypes) if dtypes else part


def with_dtypes(new: Any, dtypes: dict[str, Any]) -> Any:
    """The Dask frame ``new`` with the columns of ``dtypes`` in those dtypes, in its meta and in
    every partition.

    A stratum's task returns what the in-memory treatment returns for that stratum, so the
    dtype of a column can differ between partitions (local suppression turns an int column
    into float64 only in the strata where it blanks a value) and from the input's meta; the
    caller gives the dtype the in-memory treatment returns for the whole file
    (microaggregation: float64; local suppression: `blanked_dtype` for the columns with a
    suppression), so that the meta, the partitions and the pandas session agree.

    Missing values: kept (a cast to float64 or object keeps a partition's blanks).

    >>> import dask.dataframe as dd
    >>> f = dd.from_pandas(pd.DataFrame({"x": [1, 2, 3]}), npartitions=2)
    >>> g = with_dtypes(f, {"x": "float64"})
    >>> str(g.dtypes["x"]), str(g.partitions[1].compute().dtypes["x"])
    ('float64', 'float64')
    """
    dtypes = {c: d for c, d in dtypes.items() if new._meta[c].dtype != d}
    if not dtypes:
        return new
    return new.map_partitions(_astype, dtypes, meta=new._meta.astype(dtypes))


def blanked_dtype(meta: pd.Series) -> Any:
    """The dtype of the column ``meta`` once a value is blanked as the in-memory local
    suppression blanks it (``Series.mask``): int64 becomes float64, bool becomes object,
    nullable, float, categorical and string columns keep theirs.

    ``meta``: a non-empty sample of the column (Dask's ``_meta_nonempty``).

    Missing values: the blanked value is the dtype's missing value.

    >>> str(blanked_dtype(pd.Series([1, 2]))), str(blanked_dtype(pd.Series([True, False])))
    ('float64', 'object')
    """
    sample = meta.iloc[:1]
    return sample.mask(np.ones(len(sample), dtype=bool)).dtype


def stratum_notes(new: Any, *, progress: bool | None = None) -> list[dict[str, Any]]:
    """The notes of every stratum of a `by_strata` result made with ``notes=True``."""
    (col,) = compute(new[NOTES], progress=progress)
    return [json.loads(v) for v in col.dropna().tolist()]


# ------------------------------------------------------------------------- local suppression
def _ls_fn(t: LocalSuppression, roles: Roles, strata: list[str], hk: list[str] | None,
           cost: float | None, cats: dict[str, list[Any]], total: float,
           ks: dict[Any, float] | None,
           ) -> Callable[[pd.DataFrame], tuple[pd.DataFrame, dict[str, Any]]]:
    """The task of one stratum: the in-memory search on it, with its own k (``ks``: stratum
    sort key -> k, for a k per stratum) and the whole file's ``total`` as the bound on k."""
    def fn(group: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
        # the keys coded as in the whole file (categories in order of first appearance), so
        # the search in a stratum is the in-memory search of that stratum
        coded = group.assign(**{c: pd.Categorical(group[c], categories=v)
                                for c, v in cats.items()})
        k = t.k if ks is None else (ks[_order(_label(group, strata, 0))],)
        with warnings.catch_warnings():  # the client warns once for all strata
            warnings.simplefilter("ignore", SdcWarning)
            out, notes = local_suppression(
                coded, roles.keys, k=k, importance=t.importance, strata=strata,
                combinations=t.combinations, weight=roles.weight, weighted=t.weighted,
                household=roles.household if t.household else None, household_keys=hk,
                subsets=t.subsets, alpha=t.alpha, progress=False, household_cost=cost,
                k_total=total, max_suppressed_per_record=t.max_suppressed_per_record,
                engine=t.engine)
        new = {c: group[c].mask(out[c].isna().to_numpy() & group[c].notna().to_numpy())
               for c in roles.keys}
        return group.assign(**new), notes

    return fn


def _facts(part: pd.DataFrame, strata: list[str], weight: str | None, keys: list[str],
           ) -> tuple[int, float, pd.DataFrame, list[np.ndarray]]:
    total = (float(part[weight].to_numpy(dtype="float64", na_value=np.nan).sum())
             if weight is not None else float(len(part)))
    return len(part), total, part[strata].drop_duplicates(), _uniques(part, keys)


def _file_facts(ddf: Any, strata: list[str], weight: str | None, keys: list[str],
                progress: Any) -> tuple[list[int], float, pd.DataFrame, dict[str, list[Any]]]:
    """In one pass: the records of every partition, the number of records (``weight``: the
    total weight) of the file, its strata (one row each in order of first appearance: the order
    of the in-memory strata) and the distinct values of every non-categorical key in order
    of first appearance (what `pandas.factorize` of the whole column gives; missing values
    left out)."""
    import dask

    coded = [c for c in keys if not isinstance(ddf._meta[c].dtype, pd.CategoricalDtype)]
    cols = list(dict.fromkeys(strata + coded + ([weight] if weight else [])))
    parts = compute(*[dask.delayed(_facts)(p, strata, weight, coded)
                      for p in ddf[cols].to_delayed()], progress=progress)
    levels = (pd.concat([p[2] for p in parts]).drop_duplicates().reset_index(drop=True)
              if parts else ddf._meta[strata])
    cats = {c: list(pd.unique(np.concatenate([p[3][j] for p in parts]) if parts
                              else np.array([]))) for j, c in enumerate(coded)}
    return [p[0] for p in parts], float(sum(p[1] for p in parts)), levels, cats


def _uniques(part: pd.DataFrame, columns: list[str]) -> list[np.ndarray]:
    return [pd.unique(part[c].dropna()) for c in columns]


def _suppressed(old: pd.DataFrame, new: pd.DataFrame) -> dict[str, Any]:
    return {"suppressed": {c: int((new[c].isna() & old[c].notna()).sum()) for c in new.columns}}


def _household_summary(part: pd.DataFrame, household: str, columns: list[str],
                       ) -> tuple[list[int], int, int]:
    """Of a partition holding whole households: per column the most distinct values (a
    missing value counts as one) within a household, the sum of squared household sizes and
    the number of records."""
    if not len(part):
        return [0] * len(columns), 0, 0
    g = part.groupby(household, sort=False, observed=True)
    size = g.size().to_numpy(dtype=np.int64)
    return ([int(g[c].nunique(dropna=False).max()) for c in columns],
            int((size ** 2).sum()), int(size.sum()))


def _household_keys(ddf: Any, keys: list[str], household: str, strata: list[str],
                    progress: Any) -> tuple[list[str], float]:
    """The keys constant within every household and the price of a household-level suppression
    ``sum(size²) / n`` (the in-memory rules, over the whole file, from one shuffle by household
    and a summary per partition); `TreatmentError` when a household spans several strata (its
    suppressions would have to cross strata, which are separate tasks)."""
    import dask

    cols = list(dict.fromkeys(strata + keys))
    moved = ddf[list(dict.fromkeys([household, *cols]))].shuffle(on=household)
    parts = compute(*[dask.delayed(_household_summary)(p, household, cols)
                      for p in moved.to_delayed()], progress=progress)
    most = {c: max((p[0][j] for p in parts), default=0) for j, c in enumerate(cols)}
    if any(most[c] > 1 for c in strata):
        raise not_distributable(
            LocalSuppression(household=True), f"household=True with households that span "
            f"several strata {strata}: a household's suppressions cross strata, which are "
            "separate tasks; use strata that every household lies within (e.g. the region)")
    squares, n = sum(p[1] for p in parts), sum(p[2] for p in parts)
    cost = float(squares / n) if n else 1.0
    return [c for c in keys if most[c] <= 1], cost


@distributed(LocalSuppression)
def _local_suppression(t: LocalSuppression, ddf: Any, roles: Roles, seed: int, progress: Any,
                       ) -> DistributedResult:
    strata = list(t._strata(roles))
    per_stratum = not isinstance(t.k, float) and t.subsets is None  # a k per stratum
    if per_stratum and not strata:
        raise TreatmentError("k: a k per stratum needs strata (strata=... or the strata role)")
    if not strata:
        raise not_distributable(t, "whole-file local suppression searches over all records at "
                                   "once; pass strata=[...] (e.g. strata=['region']) so each "
                                   "stratum is one task")
    keys = list(roles.keys)
    if not keys:
        raise TreatmentError("local_suppression: no key variables in the roles")
    require_columns(ddf._meta, keys, "local_suppression keys")  # the in-memory checks
    if t.importance is not None:
        _ranks(roles.keys, t.importance)
    missing = [c for c in strata if c not in ddf.columns]
    if missing:
        raise TreatmentError(f"local_suppression: strata column(s) {missing} not in the data")
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
    lengths, total, levels, cats = _file_facts(ddf, strata, roles.weight if t.weighted else None,
                                               keys, progress)
    _check_k_fits(k_max(t.k), total, t.weighted)  # the whole file's bound, as in memory
    ks, k_used = None, {}
    if per_stratum:  # every stratum's k (the in-memory errors for a stratum without one)
        k_of, k_used = k_per_group(t.k, levels, strata, [np.array([i]) for i in range(len(levels))])
        ks = {_order(_label(levels, strata, i)): k for i, k in enumerate(k_of)}
    hk, cost = (_household_keys(ddf, keys, roles.household, strata, progress)
                if t.household else (None, None))
    extra = [c for c in (roles.weight if t.weighted else None,
                         roles.household if t.household else None) if c]
    columns = list(dict.fromkeys(keys + strata + extra))
    new = by_strata(ddf, strata, columns, keys, _ls_fn(t, roles, strata, hk, cost, cats, total, ks),
                    "local_suppression", progress=progress, notes=True, lengths=lengths)
    parts = stratum_notes(new, progress=progress)
    new = new[keys]
    st = partition_stats(_suppressed, ddf[keys], new, progress=progress)
    supp = {c: int(st["suppressed"].get(c, 0)) for c in keys}
    # the dtypes of the in-memory result: a column with a blank anywhere in the file is blanked
    # in every partition's dtype (an int key is float64 also where its strata kept every value)
    new = with_dtypes(new, {c: blanked_dtype(ddf._meta_nonempty[c]) for c in keys if supp[c]})
    notes: dict[str, Any] = {"suppressed": supp, "total": int(sum(supp.values()))}
    for name in ("violations_after", "unresolvable", "restored", "rounds"):
        notes[name] = int(sum(p.get(name, 0) for p in parts))
    notes["k"] = (k_note(t.k, k_used) if per_stratum
                  else parts[0]["k"] if parts else k_note(t.k, {}))
    if t.subsets:
        notes["subsets"] = [list(x) for x in t.subsets]
    for name in ("household_added", "household_restored", "alpha_added"):
        if any(name in p for p in parts):
            notes[name] = int(sum(p.get(name, 0) for p in parts))
    if notes["unresolvable"]:
        warnings.warn(
            f"local_suppression: {notes['unresolvable']} record(s) in "
            f"{sum(1 for p in parts if p.get('unresolvable'))} stratum/strata with fewer than "
            f"their k {'weight' if t.weighted else 'records'} cannot reach k-anonymity; they were "
            "left unsuppressed", SdcWarning, stacklevel=user_stacklevel())
    return DistributedResult(replace_columns(ddf, new), notes=notes)
