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

from ...errors import RoleError
from ...methods.base import Treatment
from ...roles import Roles
from ..guards import check_identifiers, follow_linked

if TYPE_CHECKING:  # pragma: no cover
    from ..state import State

__all__ = ["validate_roles", "run_step", "n_records"]


def validate_roles(roles: Roles, ddf: Any) -> Any:
    """Check ``roles`` against the columns and dtypes of the Dask frame ``ddf`` (one `RoleError`
    listing every problem); return ``ddf`` with the categories of its categorical role columns
    known (`sdcsession.scale._encode.known_categories`: `RoleError` when partitions disagree)."""
    from ...scale._encode import known_categories

    if ddf.npartitions < 1:
        raise RoleError("data: the Dask frame has no partitions")
    roles.validate(ddf._meta_nonempty)
    return known_categories(ddf, [c for c in roles.columns() if c in ddf.columns])


def n_records(state: State) -> int:
    """Number of records of a Dask state (one pass, cached on the state)."""
    key = ("dask.n",)
    if key not in state.cache:
        from ...scale._base import partition_lengths

        state.cache[key] = int(sum(partition_lengths(state.data)))
    return state.cache[key]


def _load_kernels() -> None:
    from ...scale import by_strata, randomised  # noqa: F401  (register)


def _linked_part(before: pd.DataFrame, after: pd.DataFrame, roles: Roles) -> pd.DataFrame:
    notes: dict[str, Any] = {}
    return follow_linked(before, after, roles, notes)


def _linked_counts(after: pd.DataFrame, linked: pd.DataFrame) -> dict[str, Any]:
    return {c: int((linked[c].isna() & after[c].notna()).sum()) for c in linked.columns}


def _follow_linked(before: Any, after: Any, roles: Roles, notes: dict[str, Any]) -> Any:
    from ...scale._base import persist
    from ...scale.elementwise import partition_stats, replace_columns

    if not roles.linked:
        return after
    cols = sorted({c for _, cs in roles.linked for c in cs if c in after.columns})
    keys = [k for k, _ in roles.linked if k in after.columns and k in before.columns]
    if not cols or not keys or before.npartitions != after.npartitions:
        return after
    need = list(dict.fromkeys(keys + cols))
    new = after[need].map_partitions(_linked_part, before[need], roles, meta=after._meta[need],
                                     align_dataframes=False)[cols]
    new = persist(new)
    counts = partition_stats(_linked_counts, after[cols], new)
    counts = {c: v for c, v in counts.items() if v}
    if not counts:
        return after
    notes["linked_suppressed"] = counts
    return replace_columns(after, new)


def run_step(treatment: Treatment, state: State, seed: int) -> tuple[Any, Roles, dict[str, Any]]:
    """Run ``treatment`` on a Dask state: its distributed apply (`sdcsession.scale`), then the
    linked variables. Returns the new Dask frame, roles and notes; raises `TreatmentError` for a
    treatment that cannot be distributed (the session is unchanged)."""
    from ...scale.elementwise import apply_distributed

    _load_kernels()
    check_identifiers(treatment, state.roles)
    res = apply_distributed(treatment, state.data, state.roles, seed=seed)
    roles = res.roles if res.roles is not None else state.roles
    notes = dict(res.notes)
    data = _follow_linked(state.data, res.data, roles, notes)
    return data, roles, notes
