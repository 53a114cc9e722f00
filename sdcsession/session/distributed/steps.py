"""Sessions over Dask frames: validating roles, running a step as Dask work, linked variables
(the export is in `sdcsession.session.distributed.release`). Imported only when a Dask frame is
given, so ``import sdcsession`` never imports dask.

A state of a Dask session holds a lazy Dask frame: the previous state's frame with the changed
columns replaced by persisted ones (computed once, kept on the workers). Undo, redo, branches and
recipes work as for pandas (a state is never modified); measures are computed once per state and
cached (`sdcsession.session.distributed.views`).

Example
-------
>>> import pandas as pd, dask.dataframe as dd, sdcsession as sdc
>>> df = pd.DataFrame({"sex": ["m", "f", "m", "f"], "region": ["a", "a", "b", "b"]})
>>> s = sdc.SdcSession(dd.from_pandas(df, npartitions=2), keys=["sex", "region"], seed=1)
>>> s.recode("region", {"b": "a"}).data.compute()["region"].tolist()
['a', 'a', 'a', 'a']
>>> s.undo().data.compute()["region"].tolist()
['a', 'a', 'b', 'b']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from ...errors import RoleError, TreatmentError
from ...methods.base import Treatment
from ...roles import Roles
from ..guards import check_identifiers, linked_hits, treatment_failures

if TYPE_CHECKING:  # pragma: no cover
    from ..state import State

__all__ = ["validate_roles", "run_step", "n_records"]


def validate_roles(roles: Roles, ddf: Any) -> Any:
    """Check ``roles`` against the Dask frame ``ddf`` as `Roles.validate` checks a pandas frame
    (one `RoleError` listing every problem): the columns and dtypes from the frame's metadata,
    the values of the weight (missing, zero, negative, infinite) and of the household id
    (missing) in one pass over the partitions. Returns ``ddf`` with a partitioning that column
    selections cannot change (`sdcsession.scale._base.fixed_partitions`) and the categories of
    its categorical role columns known (`sdcsession.scale._encode.known_categories`:
    `RoleError` when partitions disagree)."""
    import dask

    from ...roles import value_counts, value_problems
    from ...scale._base import add_counts, compute, fixed_partitions
    from ...scale._encode import known_categories

    if ddf.npartitions < 1:
        raise RoleError("data: the Dask frame has no partitions")
    roles.validate(ddf._meta_nonempty, values=False)
    ddf = fixed_partitions(ddf)
    cols = [c for c in (roles.weight, roles.household) if c is not None]
    if cols:  # the values of the weight and household id, as the in-memory check: one pass
        counts = compute(*[dask.delayed(value_counts)(p, roles)
                           for p in ddf[cols].to_delayed()])
        problems = value_problems(roles, add_counts(list(counts)))
        if problems:
            raise RoleError(problems)
    return known_categories(ddf, [c for c in roles.columns() if c in ddf.columns])


def n_records(state: State) -> int:
    """Number of records of a Dask state (one pass, cached on the state)."""
    key = ("dask.n",)
    if key not in state.cache:
        from ...scale._base import partition_lengths

        lengths = partition_lengths(state.data)
        state.cache[("dask.lengths",)] = lengths  # the release check's record positions
        state.cache[key] = int(sum(lengths))
    return state.cache[key]


def _load_kernels() -> None:
    from ...scale import (  # noqa: F401  (register)
        by_strata,
        elementwise,
        randomised,
        strata_microaggregation,
    )


def _na_dtype(sample: pd.Series) -> Any:
    """The dtype a column of ``sample``'s dtype gets when a value is masked (pandas' rule:
    integers become float64, booleans object, the rest keeps its dtype)."""
    one = sample.iloc[:1]
    return one.mask(pd.Series([True] * len(one), index=one.index)).dtype


def _linked_part(after: pd.DataFrame, before: pd.DataFrame, roles: Roles, cols: list[str],
                 dtypes: dict[str, Any]) -> pd.DataFrame:
    """One partition: the linked columns of ``after`` blanked where their key changed since
    ``before`` (`sdcsession.session.guards.linked_hits`), each in the dtype ``dtypes`` gives so
    that every partition agrees with the frame's meta."""
    if len(before) != len(after):
        raise TreatmentError("internal: a treated partition changed its number of records")
    hits = linked_hits(before.set_axis(after.index), after, roles)
    out = {}
    for c in cols:
        col = after[c]
        if c in hits:
            col = col.mask(pd.Series(hits[c], index=col.index))
        out[c] = col if col.dtype == dtypes[c] else col.astype(dtypes[c])
    return pd.DataFrame(out, index=after.index)


def _linked_counts(after: pd.DataFrame, linked: pd.DataFrame) -> dict[str, Any]:
    return {c: int((linked[c].isna() & after[c].notna()).sum()) for c in linked.columns}


def _follow_linked(before: Any, after: Any, roles: Roles, notes: dict[str, Any]) -> Any:
    """The Dask version of `sdcsession.session.guards.follow_linked`: ``after`` with the linked
    variables of every record whose key changed since ``before`` set to missing, partition by
    partition (the frames of a step share their partitions, paired explicitly by
    `sdcsession.scale._pairing`), with the same values, dtypes and notes
    (``linked_suppressed``) as the pandas path."""
    from ...scale._base import persist
    from ...scale._pairing import map_paired
    from ...scale.elementwise import partition_stats, replace_columns

    if not roles.linked:
        return after
    keys = [k for k, cs in roles.linked if k in after.columns and k in before.columns
            and any(c in after.columns for c in cs)]
    cols = sorted({c for k, cs in roles.linked if k in keys for c in cs if c in after.columns})
    if not keys or not cols:
        return after
    if before.npartitions != after.npartitions:
        raise TreatmentError(
            "internal: the step changed the partitions of the Dask frame, so the linked "
            f"variables {cols} cannot follow their keys record by record; the session is "
            "unchanged")
    need = list(dict.fromkeys(keys + cols))
    dtypes = {c: _na_dtype(after._meta_nonempty[c]) for c in cols}
    meta = pd.DataFrame({c: pd.Series(dtype=dtypes[c]) for c in cols})
    new = map_paired(_linked_part, [after[need], before[keys]], roles, cols, dtypes, meta=meta,
                     what="the linked variables (the state before and after the step)")
    new = persist(new)
    counts = partition_stats(_linked_counts, after[cols], new)
    counts = {c: int(v) for c, v in counts.items() if v}
    if not counts:
        return after
    notes["linked_suppressed"] = counts
    return replace_columns(after, new[sorted(counts)])


def run_step(treatment: Treatment, state: State, seed: int) -> tuple[Any, Roles, dict[str, Any]]:
    """Run ``treatment`` on a Dask state: its distributed apply (`sdcsession.scale`), then the
    linked variables. Returns the new Dask frame, roles and notes; raises `TreatmentError` for a
    treatment that cannot be distributed (the session is unchanged)."""
    from ...scale.elementwise import apply_distributed

    _load_kernels()
    check_identifiers(treatment, state.roles, state.data.dtypes)
    with treatment_failures(treatment):
        res = apply_distributed(treatment, state.data, state.roles, seed=seed)
    roles = res.roles if res.roles is not None else state.roles
    notes = dict(res.notes)
    data = _follow_linked(state.data, res.data, roles, notes)
    return data, roles, notes
