"""Sessions over Dask frames: validating roles, running a step as Dask work, linked variables,
the release check and the export of a Dask state. Imported only when a Dask frame is given, so
``import sdcsession`` never imports dask.

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

import numpy as np
import pandas as pd

from ...errors import ParameterError, RoleError, SdcError, TreatmentError
from ...methods.base import Treatment
from ...roles import Roles
from ..guards import check_identifiers, follow_linked
from ..release.check import check_export_flags, enforce_release_check

if TYPE_CHECKING:  # pragma: no cover
    from ..session import SdcSession
    from ..state import State

__all__ = ["validate_roles", "run_step", "release_check", "export", "n_records"]


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
    try:
        res = apply_distributed(treatment, state.data, state.roles, seed=seed)
    except SdcError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, ArithmeticError) as e:
        raise TreatmentError(
            f"{treatment.type}: cannot be applied to this state ({type(e).__name__}: {e}); "
            "the session is unchanged") from e
    roles = res.roles if res.roles is not None else state.roles
    notes = dict(res.notes)
    data = _follow_linked(state.data, res.data, roles, notes)
    return data, roles, notes


def release_check(session: SdcSession, *, k: int | None = None,
                  risk_threshold: float = 0.1) -> pd.DataFrame:
    """The release check of a Dask state: ``untreated``, ``k_anonymity``, ``risk``,
    ``numeric`` (unperturbed numeric variables) and ``no_role`` findings as for pandas. The
    ``identifier`` and ``linked`` checks of the in-memory check are not run on Dask (declare the
    identifiers; linked variables follow suppressions in every step)."""
    import dask

    from ...methods.base import check_number
    from ...scale._base import compute
    from ..release.check import _finding, _same, findings_table

    k = session.k if k is None else k
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k < 2**31:
        raise ParameterError(f"k: expected an integer >= 1, got {k!r}")
    thr = check_number("risk_threshold", risk_threshold, 0, 1, lo_open=True)
    state, roles = session.state, session.roles
    n = state.n
    out: list[dict[str, Any]] = []
    if session.head.parent is None:
        out.append(_finding("block", "untreated", [], n,
                            "the state is the untreated original: apply treatments first"))
    keys = [c for c in roles.keys if c in state.data.columns]
    if keys:
        viol = session.risk.k_violations(k)
        if viol:
            out.append(_finding("block", "k_anonymity", keys, viol,
                                f"{viol:,} record(s) violate {k}-anonymity on the key variables"))
        risk = session.risk.individual
        (above,) = compute(risk.map_partitions(lambda r: pd.Series([int((r > thr).sum())]),
                                               meta=pd.Series(dtype="int64")).sum())
        if above:
            out.append(_finding("warn", "risk", keys, int(above),
                                f"{int(above):,} record(s) have an individual risk above {thr:g}"))
    num = [c for c in roles.numeric if c in state.data.columns and c in state.original.columns]
    if num and state.data.npartitions == state.original.npartitions:
        same = compute(*[dask.delayed(lambda a, b: [bool(_same(a[c], b[c]).all()) for c in num])(
            a, b) for a, b in zip(state.data[num].to_delayed(), state.original[num].to_delayed())])
        for j, c in enumerate(num):
            if all(s[j] for s in same):
                out.append(_finding("warn", "numeric", [c], n,
                                    f"numeric variable {c!r} is released unperturbed"))
    roled = set(roles.columns())
    free = [c for c in state.data.columns if c not in roled and c not in roles.identifiers]
    if free:
        out.append(_finding("warn", "no_role", free, n,
                            f"column(s) with no role are released as they are: {free}"))
    return findings_table(out)


def export(session: SdcSession, path: Any, *, force: bool = False, overwrite: bool = False,
           protect: Any = None, k: int | None = None, risk_threshold: float = 0.1,
           **kw: Any) -> Any:
    """Run the release check, then write the released data (without direct identifiers) as a
    partitioned Parquet dataset into the directory ``path`` (`sdcsession.scale.parquet`)."""

    from ...scale.parquet import write_parquet

    check_export_flags(force=force, overwrite=overwrite)
    if not isinstance(path, (str, bytes)) and not hasattr(path, "__fspath__"):
        raise ParameterError(f"path: expected a directory path (str or pathlib.Path), got "
                             f"{path!r:.60}")
    if str(path).lower().endswith((".csv", ".tsv", ".dta", ".sav", ".xpt", ".sas7bdat")):
        raise ParameterError(f"path: a Dask session exports a partitioned Parquet dataset (a "
                             f"directory, e.g. 'release/' or 'release.parquet'), got {path!r}")
    enforce_release_check(release_check(session, k=k, risk_threshold=risk_threshold), force)
    protected = [protect] if isinstance(protect, (str, bytes)) or hasattr(protect, "__fspath__") \
        else list(protect or [])
    source = getattr(session._tree, "source", None)
    if source:
        protected.append(source)
    data = session.state.data
    drop = [c for c in session.roles.identifiers if c in data.columns]
    if drop:
        data = data.drop(columns=drop)
    return write_parquet(data, path, overwrite=overwrite, protect=protected, **kw)
