"""Running a sweep: the plan's product walked as a tree, serially or in parallel.

The scenarios of a plan are the leaves of a tree whose level ``l`` branches over the
alternatives of step ``l``. `walk` visits it depth first: each alternative of a step is applied
once to the state its prefix produced and every scenario below it continues from there, so a
shared prefix is computed once (3 recodings × 4 values of k apply 3 + 12 treatments, not 24).
A skipped step (``None``) applies nothing. Every step is applied through the session method on a
handle of the same history tree, so it gets the generator of a normal session
(`sdcsession.session.history.step_seed` of the tree seed and its depth): a scenario equals the
same steps applied by hand.

In parallel (`run_parallel`) the trunk of the tree (the leading steps with one alternative) is
applied in the calling process; the tree is split at the first step with several alternatives,
one task per alternative. A task carries only plain data: the JSON recipe of the trunk's end,
the plan suffix as JSON and the measure columns; the original data are sent once per worker
process. The worker (`run_task`) replays the recipe, walks its subtree (its shared prefixes
once) and sends back, for every step it made, the treatment as JSON, its seed, notes, roles and
only the columns that changed; the caller adds those steps to its own tree (`rebuild`) without
recomputing anything, so the returned scenarios are real branches of the session, bit-identical
to a serial run. Workers are processes (``concurrent.futures.ProcessPoolExecutor``, started by
fork on Linux) or, when a Dask ``distributed`` client is active, tasks on its cluster.

Example
-------
>>> subtree_size([], 0)
1
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import pandas as pd

from ...errors import SdcWarning, user_stacklevel
from ...methods.base import Treatment, decode_value, encode_value
from ...roles import Roles
from ..state import State
from ..views.scenario_measures import MeasureSpec, measure_value
from .plan import SESSION_CLASSES, PlanStep, plan_from_json, plan_to_json

if TYPE_CHECKING:  # pragma: no cover
    from ..history import Step

__all__ = ["Leaf", "Counts", "handle", "walk", "subtree_size", "run_serial", "run_parallel",
           "run_task", "rebuild", "specs_to_json", "specs_from_json", "INTERRUPTED"]

#: the error text of scenarios a Ctrl-C stopped before they ran
INTERRUPTED = "interrupted before this scenario finished"


@attrs.define
class Leaf:
    """The outcome of one scenario: its final ``step`` (``None`` when it failed), the ``error``
    text, the measure ``values`` by column, and plain scalar cache entries to seed its state."""

    step: Any
    error: str | None
    values: dict[str, Any]
    cache: dict[Any, Any] = attrs.field(factory=dict)


@attrs.define
class Counts:
    """Bookkeeping of a run: treatment ``applications`` of the plan (each method call, failed
    ones included), ``replays`` (recipe steps workers re-applied to rebuild their start),
    measures that failed (column → message), warnings seen in workers."""

    applications: int = 0
    replays: int = 0
    failed: dict[str, str] = attrs.field(factory=dict)
    warnings: list[str] = attrs.field(factory=list)


def handle(session: Any, step: Step) -> Any:
    """A nameless handle of ``session``'s tree with HEAD at ``step`` (not registered as a
    scenario: it never clashes with a branch name)."""
    h = object.__new__(type(session))
    h._tree = session._tree
    h._head = step
    h._redo = []
    h._name = "(sweep)"
    h.watch = list(session.watch)
    return h


def subtree_size(steps: list[PlanStep], level: int) -> int:
    """Number of scenarios below a node at ``level`` (product of the later steps' alternatives)."""
    return math.prod(len(p.alternatives) for p in steps[level:])


def _error_text(ps: PlanStep, alt: dict[str, Any], e: BaseException) -> str:
    args = ", ".join(f"{k}={v!r:.40}" for k, v in alt.items())
    return f"{ps.label}({args}): {type(e).__name__}: {e}"


def walk(walker: Any, steps: list[PlanStep], node: Step,
         on_leaf: Callable[[Step | None, str | None], None], counts: Counts,
         level: int = 0) -> None:
    """Depth-first walk of the product tree below ``node`` (at ``level``), calling
    ``on_leaf(step, error)`` once per scenario in product order. ``walker`` is a `handle` of the
    tree; its HEAD is moved, nothing else is."""
    if level == len(steps):
        on_leaf(node, None)
        return
    ps = steps[level]
    for alt in ps.alternatives:
        if alt is None:
            walk(walker, steps, node, on_leaf, counts, level + 1)
            continue
        walker._head = node
        counts.applications += 1
        try:
            getattr(walker, ps.method)(**alt)
        except Exception as e:  # noqa: BLE001 — a failed scenario is a row, not an exception
            text = _error_text(ps, alt, e)
            for _ in range(subtree_size(steps, level + 1)):
                on_leaf(None, text)
            continue
        walk(walker, steps, walker._head, on_leaf, counts, level + 1)


def _plain(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating))


def _measure(specs: list[MeasureSpec], step: Step | None, error: str | None, name: str,
             failed: dict[str, str]) -> Leaf:
    if step is None:
        return Leaf(None, error, {m.column: np.nan for m in specs})
    try:
        values = {m.column: measure_value(m, step.state, name, failed) for m in specs}
    except Exception as e:  # noqa: BLE001 — not a MeasureError (those are NaN): the row fails
        return Leaf(step, f"measures: {type(e).__name__}: {e}", {m.column: np.nan for m in specs})
    return Leaf(step, None, values)


def run_serial(session: Any, steps: list[PlanStep], start: Step, specs: list[MeasureSpec],
               names: list[str], leaves: list[Leaf | None], counts: Counts, bar: Any,
               offset: int = 0) -> None:
    """Walk the plan from ``start`` in this process, filling ``leaves[offset:]`` in product
    order (measures computed when a scenario is reached)."""
    walker = handle(session, start)
    pos = [offset]

    def on_leaf(step: Step | None, error: str | None) -> None:
        i = pos[0]
        leaves[i] = _measure(specs, step, error, names[i], counts.failed)
        pos[0] += 1
        bar.update(1)

    walk(walker, steps, start, on_leaf, counts)


# ----------------------------------------------------------------------------- measure specs
def specs_to_json(specs: list[MeasureSpec]) -> list[dict[str, Any]]:
    """Measure columns as JSON data (parameters encoded losslessly).

    >>> specs_to_json([MeasureSpec("kv7", "k_violations", (("k", 7),))])[0]["params"]
    [['k', 7]]
    """
    return [{"column": m.column, "measure": m.measure,
             "params": [[k, encode_value(v, where=f"measure {m.column!r}")] for k, v in m.params],
             "role": m.role, "attr": m.attr} for m in specs]


def specs_from_json(data: list[dict[str, Any]]) -> list[MeasureSpec]:
    """Inverse of `specs_to_json`.

    >>> specs_from_json(specs_to_json([MeasureSpec("k3", "k_violations_3")]))[0].column
    'k3'
    """
    return [MeasureSpec(d["column"], d["measure"],
                        tuple((k, decode_value(v)) for k, v in d.get("params", [])),
                        role=d.get("role", "risk"), attr=d.get("attr")) for d in data]


# ----------------------------------------------------------------------------- worker side
_ORIGINAL: pd.DataFrame | None = None


def _init_worker(original: pd.DataFrame) -> None:
    global _ORIGINAL
    _ORIGINAL = original


def _same(a: pd.Series, b: pd.Series) -> bool:
    """Whether two columns are identical (dtype, values, bit patterns of floats)."""
    if a.dtype != b.dtype:
        return False
    if isinstance(a.dtype, pd.CategoricalDtype):
        return np.array_equal(a.cat.codes.to_numpy(), b.cat.codes.to_numpy())
    if isinstance(a.dtype, np.dtype) and a.dtype.kind in "biufcmM":
        x, y = a.to_numpy(), b.to_numpy()
        if a.dtype.kind in "fc":
            return bool(np.array_equal(x, y, equal_nan=True)
                        and np.array_equal(np.signbit(x.real), np.signbit(y.real)))
        return bool(np.array_equal(x, y))
    return bool(a.equals(b))


def _encode_step(st: Step, pos: dict[int, int]) -> dict[str, Any]:
    parent = st.parent
    assert parent is not None and st.treatment is not None
    old, new = parent.state.data, st.state.data
    out: dict[str, Any] = {
        "parent": pos.get(parent.id, -1), "treatment": st.treatment.to_dict(), "seed": st.seed,
        "seconds": st.seconds, "notes": st.notes, "roles": st.state.roles.to_dict(),
        "columns": new.columns, "changed": None, "frame": None}
    if (new.index.equals(old.index) and new.index.dtype == old.index.dtype
            and new.columns.is_unique and old.columns.is_unique):
        out["changed"] = {c: new[c] for c in new.columns
                          if c not in old.columns or not _same(old[c], new[c])}
    else:
        out["frame"] = new
    return out


def session_class(name: str) -> type:
    """The session class registered under ``module.qualname`` (by `register_session_class`)."""
    cls = SESSION_CLASSES.get(name) or SESSION_CLASSES.get("sdcsession.session.session.SdcSession")
    if cls is None:  # pragma: no cover — sdcsession registers SdcSession on import
        raise RuntimeError("no session class registered")
    return cls


def run_task(payload: dict[str, Any], original: pd.DataFrame | None = None) -> dict[str, Any]:
    """Worker: replay ``payload["recipe"]`` on the original data, walk ``payload["plan"]`` from
    there, and return the steps made (changed columns only) and one leaf per scenario."""
    data = _ORIGINAL if original is None else original
    assert data is not None
    cls = session_class(payload["session_class"])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        s = cls.from_recipe(data, payload["recipe"])
        start = s.head
        steps = plan_from_json(payload["plan"])
        specs = specs_from_json(payload["specs"])
        counts = Counts(replays=len(payload["recipe"]["steps"]))
        leaves: list[Leaf | None] = [None] * subtree_size(steps, 0)
        run_serial(s, steps, start, specs, payload["names"], leaves, counts, _NoBar())
    created = [st for st in s._tree if st.id > start.id]
    pos = {st.id: i for i, st in enumerate(created)}
    out_leaves = []
    for lf in leaves:
        assert lf is not None
        node = None if lf.step is None else pos.get(lf.step.id, -1)
        cache = {} if lf.step is None else {k: v for k, v in lf.step.state.cache.items()
                                            if _plain(v)}
        out_leaves.append({"node": node, "error": lf.error, "values": lf.values, "cache": cache})
    return {"nodes": [_encode_step(st, pos) for st in created], "leaves": out_leaves,
            "applications": counts.applications, "replays": counts.replays,
            "failed": counts.failed,
            "warnings": sorted({f"{w.category.__name__}: {w.message}" for w in seen})}


# ----------------------------------------------------------------------------- caller side
def rebuild(session: Any, start: Step, result: dict[str, Any]) -> list[Leaf]:
    """Add a worker's steps to ``session``'s tree below ``start`` (no recomputation: the
    unchanged columns are shared with the parent state) and return its leaves."""
    made: list[Step] = []
    for nd in result["nodes"]:
        parent = start if nd["parent"] < 0 else made[nd["parent"]]
        pst = parent.state
        if nd["frame"] is not None:
            data = nd["frame"]
        else:
            data = pst.data.copy(deep=False)
            for c, col in nd["changed"].items():
                data[c] = col
            if not data.columns.equals(nd["columns"]):
                data = data[list(nd["columns"])]
            data.columns = nd["columns"]
        state = State(data, Roles.from_dict(nd["roles"]), original=pst.original,
                      original_roles=pst.original_roles, alpha=pst.alpha)
        made.append(session._tree.add(state, parent, Treatment.from_dict(nd["treatment"]),
                                      nd["seed"], nd["seconds"], nd["notes"]))
    leaves = []
    for lf in result["leaves"]:
        step = None if lf["node"] is None else (start if lf["node"] < 0 else made[lf["node"]])
        if step is not None:
            for k, v in lf["cache"].items():
                step.state.cache.setdefault(k, v)
        leaves.append(Leaf(step, lf["error"], lf["values"]))
    return leaves


def _dask_client() -> Any:
    """The active Dask ``distributed`` client, if any (dask is never imported for this)."""
    if "distributed" not in sys.modules:
        return None
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError):
        return None


def _context() -> Any:
    """``fork`` on Linux (workers start at once, inherit the imported package and need no
    ``if __name__ == "__main__":`` guard in scripts); elsewhere the platform's default (spawn:
    scripts need the guard, as for any process pool)."""
    import multiprocessing as mp

    if sys.platform.startswith("linux"):
        return mp.get_context("fork")
    return mp.get_context()


def run_parallel(session: Any, steps: list[PlanStep], start: Step, specs: list[MeasureSpec],
                 names: list[str], leaves: list[Leaf | None], counts: Counts, bar: Any,
                 n_jobs: int) -> str:
    """Run the plan in worker processes (or on the active Dask cluster), filling ``leaves``.
    Returns the backend used (``"processes"``, ``"dask"``, ``"serial"``). A task whose worker
    fails is run in this process instead (with an `SdcWarning`); a KeyboardInterrupt
    propagates after the finished tasks were added."""
    level = next((i for i, p in enumerate(steps) if len(p.alternatives) > 1), None)
    if level is None:
        run_serial(session, steps, start, specs, names, leaves, counts, bar)
        return "serial"
    # the trunk (one alternative per step) in this process: its end is every task's start
    walker = handle(session, start)
    node: Step | None = start
    err: str | None = None

    def end(step: Step | None, error: str | None) -> None:
        nonlocal node, err
        node, err = step, error

    walk(walker, steps[:level], start, end, counts)
    if node is None:
        for i in range(len(leaves)):
            leaves[i] = Leaf(None, err, {m.column: np.nan for m in specs})
        bar.update(len(leaves))
        return "serial"
    recipe = handle(session, node).to_recipe()
    block = subtree_size(steps, level + 1)
    payloads = []
    cls = type(session)
    try:
        for j, alt in enumerate(steps[level].alternatives):
            sub = [PlanStep(steps[level].method, (alt,), steps[level].label), *steps[level + 1:]]
            payloads.append({"session_class": f"{cls.__module__}.{cls.__qualname__}",
                             "recipe": recipe, "plan": plan_to_json(sub),
                             "specs": specs_to_json(specs),
                             "names": names[j * block:(j + 1) * block]})
    except Exception as e:  # noqa: BLE001 — e.g. an alternative JSON cannot carry
        warnings.warn(f"sweep: running serially, the plan cannot be sent to workers as JSON "
                      f"({e})", SdcWarning, stacklevel=user_stacklevel())
        run_serial(session, steps[level:], node, specs, names, leaves, counts, bar)
        return "serial"
    results: dict[int, dict[str, Any] | BaseException] = {}
    client = _dask_client()
    backend = "dask" if client is not None else "processes"
    interrupted = False
    try:
        if client is not None:
            _run_dask(client, payloads, session.original, results, bar, block)
        else:
            _run_pool(payloads, session.original, results, bar, block, n_jobs)
    except BaseException:
        interrupted = True
        raise
    finally:
        for j in sorted(results):  # in plan order: step ids do not depend on timing
            res = results[j]
            if isinstance(res, BaseException):
                if interrupted:
                    continue
                warnings.warn(f"sweep: a worker failed ({type(res).__name__}: {res}); its "
                              "scenarios ran in this process", SdcWarning, stacklevel=user_stacklevel())
                sub = [PlanStep(steps[level].method, (steps[level].alternatives[j],),
                                steps[level].label), *steps[level + 1:]]
                run_serial(session, sub, node, specs, names, leaves, counts, _NoBar(),
                           offset=j * block)
                continue
            leaves[j * block:(j + 1) * block] = rebuild(session, node, res)
            counts.applications += res["applications"]
            counts.replays += res["replays"]
            for k, v in res["failed"].items():
                counts.failed.setdefault(k, v)
            counts.warnings.extend(w for w in res["warnings"] if w not in counts.warnings)
    return backend


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass


def _run_pool(payloads: list[dict[str, Any]], original: pd.DataFrame,
              results: dict[int, Any], bar: Any, block: int, n_jobs: int) -> None:
    from concurrent.futures import ProcessPoolExecutor, as_completed

    pool = ProcessPoolExecutor(max_workers=min(n_jobs, len(payloads)), mp_context=_context(),
                               initializer=_init_worker, initargs=(original,))
    futures = {pool.submit(run_task, p): j for j, p in enumerate(payloads)}
    try:
        for f in as_completed(futures):
            j = futures[f]
            try:
                results[j] = f.result()
            except Exception as e:  # noqa: BLE001 — the task is rerun in this process
                results[j] = e
            bar.update(block)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _run_dask(client: Any, payloads: list[dict[str, Any]], original: pd.DataFrame,
              results: dict[int, Any], bar: Any, block: int) -> None:
    from distributed import as_completed

    data = client.scatter(original, broadcast=True, hash=False)
    futures = [client.submit(run_task, p, data, pure=False) for p in payloads]
    index = {f.key: j for j, f in enumerate(futures)}
    try:
        for f in as_completed(futures):
            j = index[f.key]
            try:
                results[j] = f.result()
            except Exception as e:  # noqa: BLE001 — the task is rerun in this process
                results[j] = e
            bar.update(block)
    except BaseException:
        client.cancel(futures)
        raise
