"""Saving a session's whole tree as a project file and opening it again, lazily.

`save_project` writes the manifest (`sdcsession.session.projects.manifest`) and, with
``include_data=True``, a Parquet copy of the original data into a sealed archive
(`sdcsession.session.projects.archive`). The copy is read back before anything is written: data
Parquet cannot hold exactly (a column of mixed types, non-text column names) are refused with a
`RecipeError` naming the problem rather than saved approximately.

`open_project` rebuilds the tree with *pending* states (`State.pending`): the original data are
loaded and checked, but no step is replayed until its data are asked for; then the step and any
pending ancestors are replayed from the recorded treatments and seeds and checked against the
recorded fingerprints (`sdcsession.session.replay.Replay`).

The original data are, in this order: ``data=`` (a DataFrame, or a data file read with
`sdcsession.read_data`, or a Parquet dataset directory read on Dask; checked against the
recorded fingerprint:
shape, column names and types, categories, content — a `RecipeError` names what differs), the
embedded Parquet copy, or the recorded source (a Dask session's Parquet dataset, reopened on
Dask; a file read with `sdcsession.read_data`). The engine follows the data: a Dask frame gives
a Dask session.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ...errors import ParameterError, RecipeError, SdcError
from ...methods.params import check_bool
from ...scale._base import is_dask_frame
from ..replay import Replay
from ..state import State
from .archive import read_archive, write_archive
from .manifest import (
    DATA_MEMBER,
    Plan,
    build_manifest,
    column_hashes,
    describe_data,
    dumps,
    parse_manifest,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..session import SdcSession

__all__ = ["save_project", "open_project", "MAX_MANIFEST_BYTES", "MAX_DATA_BYTES",
           "MAX_EXPANSION"]

#: the largest manifest read (bytes)
MAX_MANIFEST_BYTES = 64 * 2**20
#: the largest embedded Parquet copy read (bytes)
MAX_DATA_BYTES = 64 * 2**30
#: the embedded copy may hold at most this many times its stored size in memory (estimated as
#: records × columns × 8 bytes, plus 256 MiB)
MAX_EXPANSION = 1000


def _flag(name: str, v: Any) -> bool:
    return check_bool(name, v)  # True/False or a numpy bool, as every flag


def _parquet_bytes(df: pd.DataFrame) -> bytes:
    """``df`` as Parquet bytes, refused unless reading them back gives the same data."""
    from ..recipes.recipe import fingerprint

    buf = io.BytesIO()
    try:
        df.to_parquet(buf, index=True, compression="zstd")
        back = pd.read_parquet(io.BytesIO(buf.getvalue()))
    except (ValueError, TypeError, ImportError, OSError, NotImplementedError) as e:
        raise RecipeError(f"include_data: the original data cannot be stored as Parquet "
                          f"({type(e).__name__}: {str(e)[:200]}); save without include_data "
                          "and pass data= to open_project") from e
    except Exception as e:  # noqa: BLE001 - pyarrow's own errors (ArrowInvalid, ...)
        raise RecipeError(f"include_data: the original data cannot be stored as Parquet "
                          f"({type(e).__name__}: {str(e)[:200]}); save without include_data "
                          "and pass data= to open_project") from e
    if fingerprint(back) != fingerprint(df) or describe_data(back) != describe_data(df):
        raise RecipeError("include_data: Parquet does not keep these data exactly (types, "
                          "categories or index change); save without include_data and pass "
                          "data= to open_project")
    return buf.getvalue()


def save_project(session: SdcSession, path: str | Path, *, include_data: bool = False,
                 overwrite: bool = False) -> Path:
    """Write ``session``'s whole tree to ``path`` (see `SdcSession.save_project`)."""
    _flag("include_data", include_data)
    _flag("overwrite", overwrite)
    root = session._tree.root.state
    if include_data and root.distributed:
        raise ParameterError("include_data: a Dask session's data stay in their Parquet "
                             "dataset (the project records its path); save without "
                             "include_data")
    members: list[tuple[str, Any, bool]] = []
    parquet = _parquet_bytes(root.data) if include_data else None
    manifest = build_manifest(session, embedded=include_data)
    members.append(("project.json", dumps(manifest), True))
    if parquet is not None:
        members.append((DATA_MEMBER, parquet, False))
    source = getattr(session._tree, "source", None)
    return write_archive(path, members, overwrite=overwrite, protect=[source])


# ----------------------------------------------------------------------------- open
def _load_manifest(raw: bytes, where: str) -> Plan:
    try:
        m = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise RecipeError(f"{where}: project.json is not UTF-8 (byte {e.start})") from None
    except RecursionError:
        raise RecipeError(f"{where}: project.json is nested too deeply") from None
    except ValueError as e:  # JSONDecodeError, huge integers
        raise RecipeError(f"{where}: project.json is not valid JSON: {str(e)[:200]}") from None
    return parse_manifest(m, where)


def _read_embedded(raw: bytes, plan: Plan, where: str) -> pd.DataFrame:
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(io.BytesIO(raw)).metadata
        rows, cols = meta.num_rows, meta.num_columns
    except Exception as e:  # noqa: BLE001 - pyarrow's errors on a damaged file
        raise RecipeError(f"{where}: the embedded data are not a readable Parquet file "
                          f"({type(e).__name__})") from e
    if rows != plan.data["n_records"]:
        raise RecipeError(f"{where}: the embedded data hold {rows} records, the project "
                          f"records {plan.data['n_records']}")
    if rows * max(cols, 1) * 8 > MAX_EXPANSION * len(raw) + 256 * 2**20:
        raise RecipeError(f"{where}: the embedded data would expand more than "
                          f"{MAX_EXPANSION} times in memory")
    try:
        df = pd.read_parquet(io.BytesIO(raw))
    except Exception as e:  # noqa: BLE001
        raise RecipeError(f"{where}: the embedded data cannot be read ({type(e).__name__}: "
                          f"{str(e)[:200]})") from e
    if list(df.columns) != plan.data["names"] or describe_data(df) != plan.data["columns"]:
        raise RecipeError(f"{where}: the embedded data do not have the columns, types and "
                          "categories the project describes")
    return df


#: the categories Dask shows for a categorical column whose categories it does not know
_UNKNOWN = "__UNKNOWN_CATEGORIES__"


def _known(data: Any, plan: Plan) -> Any:
    """A Dask frame with the categories of its role columns known (as its session had)."""
    if not is_dask_frame(data):
        return data
    from ..distributed.steps import validate_roles

    try:
        return validate_roles(plan.steps[0].roles, data)
    except SdcError as e:
        raise RecipeError(f"data: the recorded roles do not fit the data: {e}") from e


def _read_dask(path: Any, plan: Plan) -> Any:
    """The Parquet dataset at ``path`` as a Dask frame, its text columns in the dtype the
    project recorded: pandas's ``str`` (how Dask sessions read Parquet now), or Dask's
    ``string[pyarrow]`` for a project saved when Dask sessions held that one (the columns the
    project records as ``string`` and the file gives as ``str``), so that its steps replay on the
    data they were made on."""
    from ...scale.parquet import read_parquet

    data = read_parquet(path, **dict(plan.data.get("source_options") or {}))
    recorded = {d["name"]: d["dtype"] for d in plan.data["columns"]}
    legacy = {c: pd.StringDtype("pyarrow") for c, t in data._meta.dtypes.items()
              if str(t) == "str" and recorded.get(str(c)) == "string"}
    return data.astype(legacy) if legacy else data


def _differences(data: Any, plan: Plan) -> list[str]:
    """What differs between ``data`` and the recorded original (empty: the same data)."""
    from ..recipes.recipe import fingerprint

    rec = plan.data
    out: list[str] = []
    want = rec["names"]
    have = list(data.columns)
    if have != want:
        miss = [c for c in want if c not in have]
        extra = [c for c in have if c not in want]
        if miss:
            out.append(f"columns missing: {miss[:10]}")
        if extra:
            out.append(f"columns not in the project: {extra[:10]}")
        if not miss and not extra:
            out.append(f"columns in another order: {have[:10]}, the project has {want[:10]}")
        return out
    described = describe_data(data._meta if is_dask_frame(data) else data)
    for got, exp in zip(described, rec["columns"], strict=True):
        if _UNKNOWN in (got.get("categories") or []) + (exp.get("categories") or []):
            got, exp = (  # a Dask column whose categories are not known: its dtype only
                {k: v for k, v in d.items() if k != "categories"} for d in (got, exp))
        if got != exp:
            what = "dtype" if got["dtype"] != exp["dtype"] else "categories"
            out.append(f"{what} of {got['name']!r}: data {got.get(what)!r:.80}, project "
                       f"{exp.get(what)!r:.80}")
    if out:
        return out
    if is_dask_frame(data):
        fp = fingerprint(data)
        return [] if fp == rec["fingerprint"] else ["the values differ (content fingerprint)"]
    if len(data) != rec["n_records"]:
        return [f"n_records: data {len(data)}, project {rec['n_records']}"]
    if fingerprint(data) == rec["fingerprint"]:
        return []
    hashes = rec.get("column_hashes") or {}
    mine = column_hashes(data)
    cols = [c for c, h in hashes.items() if mine.get(c) != h]
    if cols:
        return [f"values differ in column(s) {cols[:10]}"]
    return ["the index (row labels) differs"]


def _original(plan: Plan, data: Any, members: Mapping[str, bytes], where: str) -> Any:
    rec = plan.data
    if isinstance(data, (str, Path)):  # a data file (a directory: a Parquet dataset, on Dask)
        if Path(data).is_dir():
            data = _read_dask(data, plan)
        else:
            from ...io import read_data

            data = read_data(data)
    if data is not None:
        if not isinstance(data, pd.DataFrame) and not is_dask_frame(data):
            raise ParameterError(f"data: expected a pandas or Dask DataFrame, got "
                                 f"{type(data).__name__}")
        data = _known(data, plan)
        diff = _differences(data, plan)
        if diff:
            raise RecipeError("data: not the data the project was made on: " + "; ".join(diff))
        return data if is_dask_frame(data) else data.copy(deep=True)
    if DATA_MEMBER in members:
        return _read_embedded(members[DATA_MEMBER], plan, where)
    src = rec.get("source")
    if src is None:
        raise RecipeError(f"{where} holds no copy of the data and records no source; pass "
                          "data= (the data it was made on)")
    if not Path(src).exists():
        raise RecipeError(f"{where}: the source data {src!r} no longer exist; pass data=")
    if rec["engine"] == "dask":
        loaded = _known(_read_dask(src, plan), plan)
    else:
        from ...io import read_data

        loaded = read_data(src)
    diff = _differences(loaded, plan)
    if diff:
        raise RecipeError(f"{where}: the source data {src!r} changed since the project was "
                          "saved: " + "; ".join(diff))
    return loaded


def open_project(cls: type[SdcSession], path: str | Path, data: Any = None) -> SdcSession:
    """Open the project at ``path`` as sessions of ``cls`` (see `SdcSession.open_project`)."""
    limits = {"project.json": MAX_MANIFEST_BYTES, DATA_MEMBER: MAX_DATA_BYTES}
    members = read_archive(path, limits)
    where = f"project {str(path)!r}"
    plan = _load_manifest(members["project.json"], where)
    original = _original(plan, data, members, where)
    steps = plan.steps
    roles0 = steps[0].roles
    if data is not None or DATA_MEMBER not in members:  # (the embedded copy is the session's)
        if not is_dask_frame(original):  # (a Dask frame was checked by _known)
            try:
                roles0.validate(original)
            except SdcError as e:
                raise RecipeError(f"{where}: the recorded roles do not fit the data: {e}") from e
    scen = plan.scenarios
    first = object.__new__(cls)
    first._init(original, roles0, plan.seed, scen[0]["name"], alpha=plan.alpha, k=plan.k,
                source=plan.data.get("source"))
    tree = first._tree
    tree.source_options = plan.data.get("source_options") or {}  # type: ignore[attr-defined]
    root = tree.root
    root.seconds, root.created, root.notes = steps[0].seconds, steps[0].created, steps[0].notes
    dask = is_dask_frame(original)
    for sp in steps[1:]:
        parent = tree.get(sp.parent)  # type: ignore[arg-type]
        assert sp.treatment is not None and sp.seed is not None
        replay = Replay(parent.state, sp.treatment, sp.seed, sp.roles,
                        None if dask else sp.fingerprint, f"step #{sp.id} {sp.treatment.type}")
        state = State.pending(replay, sp.roles, original=root.state.original,
                              original_roles=root.state.original_roles, alpha=plan.alpha)
        tree.add(state, parent, sp.treatment, sp.seed, sp.seconds, sp.notes, created=sp.created)
    sessions = [first]
    for sc in scen[1:]:
        other = object.__new__(cls)
        other._tree = tree
        other._register(sc["name"])
        sessions.append(other)
    for s, sc in zip(sessions, scen, strict=True):
        s._redo = [tree.get(i) for i in sc.get("redo", [])]
        s.watch = list(sc.get("watch", s.watch if hasattr(s, "watch") else []))
        s._head = tree.get(sc["head"])
    #: the opened scenarios are kept alive with their tree (`SdcSession.scenarios` lists them)
    tree.kept = sessions  # type: ignore[attr-defined]
    return next(s for s in sessions if s.name == plan.current)
