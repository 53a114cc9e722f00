"""The manifest of a project (``project.json``): the whole history tree as JSON data, and its
checked parse.

Format ``sdcsession-project``, version 1::

    {"format": "sdcsession-project", "format_version": 1, "package_version": "0.1.0",
     "seed": 42, "options": {"alpha": 1.0, "k": 3},
     "data": {"engine": "pandas", "n_records": 4580, "fingerprint": "sha256:…",
              "columns": [{"name": "age", "dtype": "int64"},
                          {"name": "sex", "dtype": "category", "categories": [...],
                           "ordered": false}, ...],
              "column_hashes": {"age": "sha256:…", ...}, "embedded": "data/original.parquet",
              "source": "/data/survey.csv", "source_options": {}},
     "steps": [{"id": 0, "parent": null, "roles": {...}, "seconds": 0.0, "created": "…",
                "notes": {}},
               {"id": 1, "parent": 0, "treatment": {"type": "pram", ...}, "seed": 123,
                "roles": {...}, "fingerprint": "sha256:…", "seconds": 0.02, "created": "…",
                "notes": {...}}, ...],
     "scenarios": [{"name": "main", "head": 3, "redo": [], "watch": [...]}, ...],
     "current": "main"}

Steps are listed by id (a parent before its children); treatments are their ``to_dict()``
(every parameter encoded losslessly as in recipes of format 2,
`sdcsession.methods.base.encode_value`), notes are encoded the same way. ``fingerprint`` is the
SHA-256 of the step's data (`sdcsession.session.recipes.recipe.fingerprint`), null for a Dask
session. ``column_hashes`` (pandas only) are SHA-256 digests of ``pandas.util.hash_pandas_object``
of each column, so that data that do not match can be told column by column. The manifest holds
no time of saving: saving an opened project again gives the same bytes.

Parsing (`parse_manifest`) checks every entry (types, ids, parents, seeds, scenario names) and
builds every treatment before anything is replayed: a problem is one `RecipeError` naming it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import pandas as pd

from ...errors import RecipeError, SdcError
from ...methods.base import Treatment, decode_value, encode_value, to_jsonable
from ...roles import Roles
from ..recipes.recipe import MAX_SEED, _depth_problem
from ..replay import state_fingerprint

if TYPE_CHECKING:  # pragma: no cover
    from ..session import SdcSession

__all__ = ["FORMAT", "FORMAT_VERSION", "OLDEST_FORMAT_VERSION", "DATA_MEMBER", "describe_data",
           "column_hashes", "build_manifest", "parse_manifest", "Plan", "StepPlan", "dumps"]

FORMAT = "sdcsession-project"
FORMAT_VERSION = 1
#: the oldest format this version reads
OLDEST_FORMAT_VERSION = 1
#: the member holding the Parquet copy of the original data (``include_data=True``)
DATA_MEMBER = "data/original.parquet"
#: most steps a project may hold
MAX_STEPS = 100_000
_FP = re.compile(r"sha256:[0-9a-f]{64}\Z")


def dumps(manifest: Mapping[str, Any]) -> bytes:
    """The manifest as UTF-8 JSON bytes (indented, keys in the order built: deterministic)."""
    return (json.dumps(manifest, indent=1, ensure_ascii=False, allow_nan=False) + "\n").encode()


def _encode(value: Any, where: str) -> Any:
    try:
        return encode_value(value, where=where)
    except RecipeError:  # a note holding something the lossless encoding cannot say
        return encode_value(to_jsonable(value), where=where)


# ----------------------------------------------------------------------------- the data
def describe_data(df: Any) -> list[dict[str, Any]]:
    """Column names and dtypes of ``df`` (categories and order of categorical columns)."""
    out = []
    for c, t in df.dtypes.items():
        d: dict[str, Any] = {"name": _encode(c, "column name"), "dtype": str(t)}
        if isinstance(t, pd.CategoricalDtype):
            d["categories"] = _encode(list(t.categories), f"categories of {c!r}")
            d["ordered"] = bool(t.ordered)
        out.append(d)
    return out


def column_hashes(df: pd.DataFrame) -> dict[str, str]:
    """``{column: "sha256:…"}`` of each column's values (index excluded), keyed by the column's
    text; an unhashable column (lists) is hashed through its text."""
    out = {}
    for i, c in enumerate(df.columns):
        s = df.iloc[:, i]
        try:
            rows = pd.util.hash_pandas_object(s, index=False).to_numpy()
        except TypeError:
            rows = pd.util.hash_pandas_object(s.astype(str), index=False).to_numpy()
        out[str(c)] = "sha256:" + hashlib.sha256(np.ascontiguousarray(rows).tobytes()).hexdigest()
    return out


# ----------------------------------------------------------------------------- build
def build_manifest(session: SdcSession, *, embedded: bool) -> dict[str, Any]:
    """The manifest of ``session``'s whole tree (every step of every branch, the live
    scenarios sharing it, ``session`` the current one)."""
    from ..._version import __version__

    tree = session._tree
    root = tree.root.state
    dask = root.distributed
    if dask:
        from ..distributed.steps import n_records

        n = n_records(root)
    else:
        n = len(root.data)
    data = {
        "engine": "dask" if dask else "pandas", "n_records": int(n),
        "fingerprint": state_fingerprint(root) if not dask else _dask_fingerprint(root),
        "columns": describe_data(root.data),
        "column_hashes": None if dask else _cached_hashes(root),
        "embedded": DATA_MEMBER if embedded else None,
        "source": None if getattr(tree, "source", None) is None else str(tree.source),
        "source_options": _encode(getattr(tree, "source_options", None) or {}, "source options"),
    }
    steps = []
    for st in tree:
        d: dict[str, Any] = {"id": st.id, "parent": None if st.parent is None else st.parent.id}
        if st.treatment is not None:
            d["treatment"] = st.treatment.to_dict()
            d["seed"] = int(st.seed)
            d["fingerprint"] = state_fingerprint(st.state)
        d.update(roles=st.state.roles.to_dict(), seconds=float(st.seconds), created=st.created,
                 notes=_encode(st.notes, f"notes of step #{st.id}"))
        steps.append(d)
    live = [r() for r in tree.sessions]
    scenarios = [x for x in live if x is not None]
    if not any(x is session for x in scenarios):  # pragma: no cover - session is registered
        scenarios.append(session)
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "package_version": __version__,
        "seed": int(session.seed), "options": {"alpha": float(session.alpha), "k": session.k},
        "data": data, "steps": steps,
        "scenarios": [{"name": x.name, "head": x.head.id, "redo": [s.id for s in x._redo],
                       "watch": [str(w) for w in x.watch]} for x in scenarios],
        "current": session.name,
    }


def _cached_hashes(state: Any) -> dict[str, str]:
    key = ("project.column_hashes",)
    if key not in state.cache:
        state.cache[key] = column_hashes(state.data)
    return state.cache[key]


def _dask_fingerprint(state: Any) -> str:
    key = ("project.dask_fingerprint",)
    if key not in state.cache:
        from ..recipes.recipe import fingerprint

        state.cache[key] = fingerprint(state.data)
    return state.cache[key]


# ----------------------------------------------------------------------------- parse
@attrs.frozen
class StepPlan:
    """One recorded step: its parent id, treatment, seed, roles, data fingerprint, seconds,
    creation time and notes."""

    id: int
    parent: int | None
    treatment: Treatment | None
    seed: int | None
    roles: Roles
    fingerprint: str | None
    seconds: float
    created: str
    notes: dict[str, Any]


@attrs.frozen
class Plan:
    """A parsed, checked manifest."""

    seed: int
    alpha: float
    k: int
    data: dict[str, Any]
    steps: list[StepPlan]
    scenarios: list[dict[str, Any]]
    current: str
    format_version: int


class _Problems(list):
    def need(self, ok: bool, msg: str) -> bool:
        if not ok:
            self.append(msg)
        return ok


def _is_int(v: Any, lo: int = 0, hi: int = MAX_SEED) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _is_fp(v: Any) -> bool:
    return isinstance(v, str) and _FP.match(v) is not None


def _header(m: Any, where: str) -> int:
    if not isinstance(m, Mapping):
        raise RecipeError(f"{where}: expected a JSON object, got {type(m).__name__}")
    deep = _depth_problem(m)
    if deep:
        raise RecipeError(f"{where}: {deep}")
    if m.get("format") != FORMAT:
        raise RecipeError(f"{where}: format: expected {FORMAT!r}, got {m.get('format')!r:.80}")
    v = m.get("format_version")
    if not _is_int(v, -(2**31), 2**31):
        raise RecipeError(f"{where}: format_version: expected an integer, got {v!r:.40}")
    if v > FORMAT_VERSION:
        raise RecipeError(f"{where}: format_version {v} is newer than this sdcsession reads "
                          f"({FORMAT_VERSION}); upgrade sdcsession")
    if v < OLDEST_FORMAT_VERSION:
        raise RecipeError(f"{where}: format_version: expected {OLDEST_FORMAT_VERSION} to "
                          f"{FORMAT_VERSION}, got {v}")
    return v


def _data(d: Any, p: _Problems) -> dict[str, Any]:
    if not p.need(isinstance(d, Mapping), "data: expected a mapping"):
        return {}
    p.need(d.get("engine") in ("pandas", "dask"), f"data.engine: expected 'pandas' or 'dask', "
           f"got {d.get('engine')!r:.40}")
    p.need(_is_int(d.get("n_records"), 0, 2**62), "data.n_records: expected an integer >= 0")
    p.need(_is_fp(d.get("fingerprint")), "data.fingerprint: expected 'sha256:' and 64 hex digits")
    cols = d.get("columns")
    names: list[Any] = []
    if p.need(isinstance(cols, list) and all(
            isinstance(c, Mapping) and "name" in c and isinstance(c.get("dtype"), str)
            and (c.get("categories") is None or isinstance(c["categories"], list)) for c in cols),
            "data.columns: expected a list of {name, dtype} (categories: a list)"):
        try:
            names = [decode_value(c["name"], where="data.columns: name") for c in cols]
        except RecipeError as e:
            p.append(str(e))
    hashes = d.get("column_hashes")
    p.need(hashes is None or (isinstance(hashes, Mapping) and all(
        isinstance(k, str) and _is_fp(v) for k, v in hashes.items())),
        "data.column_hashes: expected null or {column: fingerprint}")
    p.need(d.get("embedded") in (None, DATA_MEMBER),
           f"data.embedded: expected null or {DATA_MEMBER!r}")
    src = d.get("source")
    p.need(src is None or (isinstance(src, str) and "\x00" not in src and len(src) < 4096),
           "data.source: expected null or a path")
    opts = d.get("source_options", {})
    if p.need(isinstance(opts, Mapping), "data.source_options: expected a mapping"):
        try:
            opts = decode_value(opts, where="data.source_options")
        except RecipeError as e:
            p.append(str(e))
    return {**d, "names": names, "source_options": opts if isinstance(opts, dict) else {}}


def _step(i: int, d: Any, p: _Problems) -> StepPlan | None:
    where = f"step #{i}"
    if not p.need(isinstance(d, Mapping), f"{where}: expected a mapping"):
        return None
    ok = p.need(d.get("id") == i and _is_int(d.get("id")),
                f"{where}: id: expected {i} (steps listed by id), got {d.get('id')!r:.40}")
    parent = d.get("parent")
    if i == 0:
        ok &= p.need(parent is None and "treatment" not in d,
                     f"{where}: the first step is the original (no parent, no treatment)")
    else:
        ok &= p.need(_is_int(parent, 0, i - 1), f"{where}: parent: expected a step id below {i}, "
                     f"got {parent!r:.40}")
    seed = d.get("seed")
    if i:
        ok &= p.need(_is_int(seed), f"{where}: seed: expected an integer in [0, 2**64 - 1]")
    fp = d.get("fingerprint")
    ok &= p.need(fp is None or _is_fp(fp), f"{where}: fingerprint: expected null or 'sha256:…'")
    secs = d.get("seconds", 0.0)
    ok &= p.need(isinstance(secs, (int, float)) and not isinstance(secs, bool)
                 and math.isfinite(secs) and secs >= 0, f"{where}: seconds: expected a number >= 0")
    created = d.get("created", "")
    ok &= p.need(isinstance(created, str) and len(created) <= 64,
                 f"{where}: created: expected a time stamp")
    try:
        roles = Roles.from_dict(dict(d.get("roles")))  # type: ignore[arg-type]
    except (SdcError, TypeError, ValueError, AttributeError, KeyError) as e:
        p.append(f"{where}: roles: {str(e)[:300]}")
        ok = False
    try:
        notes = decode_value(d.get("notes", {}), where=f"{where}: notes")
        ok &= p.need(isinstance(notes, dict), f"{where}: notes: expected a mapping")
    except RecipeError as e:
        p.append(str(e))
        ok = False
    treatment = None
    if i and "treatment" in d:
        try:
            treatment = Treatment.from_dict(d["treatment"], tagged=True)
        except SdcError as e:
            p.append(f"{where}: {e}")
            ok = False
        except (TypeError, ValueError, AttributeError, KeyError, OverflowError,
                RecursionError) as e:
            p.append(f"{where}: treatment: {type(e).__name__}: {str(e)[:200]}")
            ok = False
    elif i:
        p.append(f"{where}: missing 'treatment'")
        ok = False
    if not ok:
        return None
    return StepPlan(i, parent, treatment, seed, roles, fp, float(secs), created, notes)


def parse_manifest(m: Any, where: str = "project") -> Plan:
    """Check the manifest ``m`` (parsed JSON) and build its `Plan`; every problem is listed in
    one `RecipeError` (a format number this version does not read, an unknown treatment type,
    a step whose parent does not exist, ...)."""
    version = _header(m, where)
    p = _Problems()
    seed = m.get("seed")
    p.need(_is_int(seed), "seed: expected an integer in [0, 2**64 - 1]")
    opts = m.get("options")
    alpha, k = 1.0, 3
    if p.need(isinstance(opts, Mapping) and set(opts) <= {"alpha", "k"},
              "options: expected a mapping with alpha and k"):
        alpha, k = opts.get("alpha", 1.0), opts.get("k", 3)
        p.need(isinstance(alpha, (int, float)) and not isinstance(alpha, bool)
               and 0 <= alpha <= 1, "options.alpha: expected a number in [0, 1]")
        p.need(_is_int(k, 1, 2**31 - 1), "options.k: expected an integer >= 1")
    data = _data(m.get("data"), p)
    raw = m.get("steps")
    steps: list[StepPlan] = []
    if p.need(isinstance(raw, list) and 1 <= len(raw) <= MAX_STEPS,
              f"steps: expected a list of 1 to {MAX_STEPS} steps"):
        for i, d in enumerate(raw):
            st = _step(i, d, p)
            if st is not None:
                steps.append(st)
            if len(p) > 50:
                break
    scen = m.get("scenarios")
    names: list[str] = []
    n = len(raw) if isinstance(raw, list) else 0
    if p.need(isinstance(scen, list) and scen, "scenarios: expected a non-empty list"):
        for j, sc in enumerate(scen):
            if not p.need(isinstance(sc, Mapping), f"scenario {j}: expected a mapping"):
                continue
            name = sc.get("name")
            p.need(isinstance(name, str) and name.strip() != "" and len(name) <= 1000,
                   f"scenario {j}: name: expected a non-empty string")
            p.need(name not in names, f"scenario {j}: name {name!r:.60} given twice")
            names.append(name)
            p.need(_is_int(sc.get("head"), 0, max(n - 1, 0)),
                   f"scenario {name!r:.60}: head: expected a step id below {n}")
            redo, watch = sc.get("redo", []), sc.get("watch", [])
            p.need(isinstance(redo, list) and all(_is_int(r, 0, max(n - 1, 0)) for r in redo),
                   f"scenario {name!r:.60}: redo: expected a list of step ids")
            p.need(isinstance(watch, list) and all(isinstance(w, str) for w in watch),
                   f"scenario {name!r:.60}: watch: expected a list of measure names")
    current = m.get("current")
    p.need(current in names, f"current: expected one of the scenario names, got {current!r:.60}")
    if p:
        raise RecipeError(f"{where} has problems:\n" + "\n".join(f"  - {x}" for x in p[:50]))
    return Plan(seed, float(alpha), int(k), data, steps, list(scen), current, version)
