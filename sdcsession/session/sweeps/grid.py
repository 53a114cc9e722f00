"""Scenario sweeps: `SdcSession.sweep` runs a grid of treatment plans as branches; `Sweep` holds
the result.

A plan is a list of steps ``(method_name, alternatives)`` (see `sdcsession.session.sweeps.plan`):

    sw = s.sweep([("global_recode", [{"column": "age", "breaks": b} for b in breaks]),
                  ("local_suppression", [{"k": k} for k in (2, 3, 4, 5)])])

The scenarios are the Cartesian product of the alternatives, each a branch of ``s`` (``s``'s HEAD
does not move). Every step is applied by the session method on the tree of ``s``, so it draws
from the generator of a normal session (seeded from the session seed and the step's depth): a
scenario equals the same steps applied by hand, and replays from its recipe. The product is
walked as a tree (`sdcsession.session.sweeps.run`): a shared prefix is applied once, so
3 recodings × 4 values of k apply 3 + 12 treatments (`Sweep.applications`), not 24.

`Sweep.table` has one row per scenario in product order: ``scenario``, one column per step
parameter ``"<method>.<parameter>"`` (``None``/NaN where the step was skipped), the measures of
``compare()`` (same columns: `sdcsession.session.views.scenario_measures`), ``frontier`` (the row is
not dominated on expected re-identifications and the first loss column: λ, else IL1s, else
suppressions) and ``error`` (the text of a failed step; its measures are NaN). `Sweep.best`
picks the least-loss scenario under a risk target. ``sw.plot()`` (attached by the presentation
layer) draws the R-U map of all scenarios with the frontier and the best one.

Example
-------
>>> import sdcsession as sdc
>>> df = sdc.datasets.synthetic_survey(150, seed=1)
>>> s = sdc.SdcSession(df, keys=["region", "sex", "age5"], seed=3)
>>> sw = s.sweep([("group_categories", [None, {"column": "age5", "groups": {"60+": [
...     "60-64", "65-69", "70-74", "75-79", "80-84", "85-89", "90+"]}}]),
...               ("local_suppression", [{"k": 2}, {"k": 3}])],
...              measures=["k3_violations", "lambda"])
>>> sw.table[["scenario", "local_suppression.k", "k3_violations"]].values.tolist()[:2]
[['sweep-1', 2, 107], ['sweep-2', 3, 0]]
>>> sw.applications, len(s.history)
(5, 1)
"""

from __future__ import annotations

import json
import os
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...errors import ParameterError, RecipeError, SdcWarning, user_stacklevel
from ...progress import Bar
from ..classes import register_session_class  # (re-exported)
from ..extensions import attach_registered
from ..views.scenario_measures import frontier_positions, measure_specs, pick_loss
from .plan import (
    PlanStep,
    check_plan,
    n_scenarios,
    parameter_columns,
    plan_from_json,
    plan_to_json,
    probe_plan,
)
from .run import (
    INTERRUPTED,
    Counts,
    Leaf,
    run_parallel,
    run_serial,
    session_class,
    specs_from_json,
    specs_to_json,
)

__all__ = ["sweep", "register_session_class", "Sweep", "SWEEP_FORMAT"]

SWEEP_FORMAT = "sdcsession-sweep"
SWEEP_FORMAT_VERSION = 1


class Sweep:
    """The result of `SdcSession.sweep`: the scenarios as branches, their table, the best one
    under a risk target, the sweep's recipe.

    Attributes
    ----------
    sessions : the scenarios' branches in product order (``None`` for a failed scenario).
    table : one row per scenario (see the module docstring for the columns).
    applications : treatment applications the sweep ran (each shared prefix counted once;
        failed ones included).
    replays : recipe steps worker processes re-applied to rebuild their starting state
        (0 serially).
    partial : True when the sweep was interrupted (Ctrl-C); the unfinished scenarios' rows carry
        an ``error`` and no session.
    backend : ``"serial"``, ``"processes"`` or ``"dask"``.
    seconds : wall time of the sweep.

    Example
    -------
    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=2), keys=["region", "sex"],
    ...                    seed=1)
    >>> sw = s.sweep([("local_suppression", [{"k": 2}, {"k": 5}])],
    ...              measures=["expected_reidentifications", "suppressions"])
    >>> sw.best(max_risk=1000).name
    'sweep-1'
    """

    def __init__(self, *, base: Any, start: Any, steps: list[PlanStep], specs: list[Any],
                 measures_given: bool, sessions: list[Any], table: pd.DataFrame,
                 counts: Counts, partial: bool, backend: str, seconds: float, name: str,
                 base_recipe: dict[str, Any]) -> None:
        self.base = base
        self.start = start
        self.steps = steps
        self.specs = specs
        self._measures_given = measures_given
        self.sessions = sessions
        self.table = table
        self.applications = counts.applications
        self.replays = counts.replays
        self.partial = partial
        self.backend = backend
        self.seconds = seconds
        self.name = name
        self._base_recipe = base_recipe
        tree = getattr(base, "_tree", None)
        self._source = getattr(tree, "source", None)  # the data file: never written over

    @property
    def plan(self) -> list[tuple[str, list[dict[str, Any] | None]]]:
        """The plan as checked: ``[(method, [alternative | None, ...]), ...]``."""
        return [(p.method, list(p.alternatives)) for p in self.steps]

    def __len__(self) -> int:
        return len(self.sessions)

    # ------------------------------------------------------------------------- best
    def best_position(self, max_risk: float, *, risk: str = "expected_reidentifications",
                      loss: str | None = None) -> int:
        """Position (row) of the scenario `best` returns."""
        if isinstance(max_risk, (bool, np.bool_)) or not isinstance(
                max_risk, (int, float, np.integer, np.floating)) or np.isnan(max_risk):
            raise ParameterError(f"max_risk: expected a number (the largest acceptable {risk}), "
                                 f"got {max_risk!r:.60}")
        measures = [m.column for m in self.specs]
        if not isinstance(risk, str) or risk not in measures:
            raise ParameterError(f"risk: {risk!r:.60} is not a measure of this sweep; its "
                                 f"measures are {measures}")
        if loss is None:
            loss = pick_loss(self.table[measures])
        elif not isinstance(loss, str) or loss not in measures:
            raise ParameterError(f"loss: {loss!r:.60} is not a measure of this sweep; its "
                                 f"measures are {measures}")
        r = pd.to_numeric(self.table[risk], errors="coerce").to_numpy(float)
        lo = pd.to_numeric(self.table[loss], errors="coerce").to_numpy(float)
        have = ~np.isnan(r) & ~np.isnan(lo)
        if not have.any():
            raise ParameterError(f"max_risk: no scenario of the sweep has both {risk} and {loss} "
                                 "(every one failed?)")
        ok = np.flatnonzero(have & (r <= float(max_risk)))
        if not len(ok):
            least = int(np.flatnonzero(have)[np.argmin(r[have])])
            raise ParameterError(
                f"max_risk={max_risk}: no scenario has {risk} <= {max_risk}; the least reached "
                f"is {r[least]:.6g} (scenario {self.table['scenario'].iloc[least]!r})")
        return int(ok[np.argmin(lo[ok])])  # argmin: ties go to the first in product order

    def best(self, max_risk: float, *, risk: str = "expected_reidentifications",
             loss: str | None = None) -> Any:
        """The scenario of least ``loss`` among those with ``risk <= max_risk`` (ties: the first
        in product order).

        ``risk`` and ``loss`` are measure columns of `table`; ``loss=None`` takes the first loss
        column with values (λ, IL1s, suppressions, eigen, γ). Failed scenarios never qualify.
        When none qualifies, a `ParameterError` says the least risk reached and where.
        """
        return self.sessions[self.best_position(max_risk, risk=risk, loss=loss)]

    # ----------------------------------------------------------------------- recipes
    def to_recipe(self) -> dict[str, Any]:
        """The sweep as JSON data: the recipe of the base session (up to the HEAD it was swept
        from), the plan (typed values encoded losslessly) and the measures (``None`` for the
        defaults). `Sweep.from_recipe` replays it."""
        from ..._version import __version__

        return {"format": SWEEP_FORMAT, "format_version": SWEEP_FORMAT_VERSION,
                "package_version": __version__, "name": self.name, "base": self._base_recipe,
                "plan": plan_to_json(self.steps),
                "measures": specs_to_json(self.specs) if self._measures_given else None}

    def save_recipe(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write `to_recipe` to ``path`` as indented UTF-8 JSON; returns the path. An existing
        file is replaced only with ``overwrite=True``, the file the data were read from never."""
        from ...io.write import write_text

        if not isinstance(path, (str, Path)) or not str(path).strip():
            raise ParameterError(f"path: expected a file path, got {path!r:.60}")
        p = Path(path)
        if not p.parent.is_dir():
            raise RecipeError(f"path: the directory {str(p.parent)!r} does not exist")
        return write_text(p, json.dumps(self.to_recipe(), indent=2, ensure_ascii=False) + "\n",
                          overwrite=overwrite, protect=self._source)

    @classmethod
    def from_recipe(cls, data: pd.DataFrame, recipe: Any, *, n_jobs: int = 1,
                    strict: bool = False, name: str | None = None) -> Sweep:
        """Replay a sweep recipe (dict or JSON path) on ``data``: the base session is rebuilt
        from its recipe (`SdcSession.from_recipe`), then swept with the recorded plan; the
        scenarios are bit-identical to the recorded ones.

        Example
        -------
        >>> import sdcsession as sdc
        >>> df = sdc.datasets.synthetic_survey(100, seed=2)
        >>> s = sdc.SdcSession(df, keys=["region", "sex"], seed=1)
        >>> sw = s.sweep([("local_suppression", [{"k": 2}, {"k": 3}])], measures=["lambda"])
        >>> again = Sweep.from_recipe(df, sw.to_recipe())
        >>> again.table.equals(sw.table)
        True
        """
        if isinstance(recipe, (str, Path)):
            recipe = _load(recipe)
        if not isinstance(recipe, dict):
            raise RecipeError(f"recipe: expected a sweep recipe (mapping), got "
                              f"{type(recipe).__name__}")
        problems = []
        if recipe.get("format") != SWEEP_FORMAT:
            problems.append(f"format: expected {SWEEP_FORMAT!r}, got {recipe.get('format')!r:.60}")
        v = recipe.get("format_version")
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= SWEEP_FORMAT_VERSION:
            problems.append(f"format_version: expected 1 to {SWEEP_FORMAT_VERSION}, got {v!r:.20}")
        for key in ("base", "plan"):
            if key not in recipe:
                problems.append(f"missing required entry {key!r}")
        if not isinstance(recipe.get("name", "sweep"), str):
            problems.append("name: expected a string")
        m = recipe.get("measures")
        if m is not None and not (isinstance(m, list) and all(
                isinstance(d, dict) and isinstance(d.get("column"), str)
                and isinstance(d.get("measure"), str) for d in m)):
            problems.append("measures: expected null or a list of {column, measure, params}")
        if problems:
            raise RecipeError("the sweep recipe has problems:\n"
                              + "\n".join(f"  - {p}" for p in problems))
        steps = plan_from_json(recipe["plan"])
        measures = None if m is None else specs_from_json(m)
        base = session_class("").from_recipe(data, recipe["base"], strict=strict)
        return base.sweep([(p.method, list(p.alternatives)) for p in steps], measures=measures,
                          n_jobs=n_jobs, name=name or recipe.get("name", "sweep"))

    # ----------------------------------------------------------------------- display
    def __repr__(self) -> str:
        n = len(self.sessions)
        failed = int(self.table["error"].notna().sum())
        front = int(self.table["frontier"].sum())
        extra = ", interrupted (partial)" if self.partial else ""
        return (f"Sweep {self.name!r}: {n} scenarios ({n - failed} ok, {failed} failed{extra}), "
                f"{self.applications} treatment applications, {front} on the frontier, "
                f"{self.seconds:.2f} s ({self.backend})")


def _load(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise RecipeError(f"recipe: cannot read {str(p)!r}: {e.strerror or e}") from e
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise RecipeError(f"recipe {str(p)!r} is not a JSON sweep recipe: {e}"[:300]) from None


def _check_jobs(n_jobs: Any) -> int:
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or (
            n_jobs < 1 and n_jobs != -1):
        raise ParameterError(f"n_jobs: expected an integer >= 1 (or -1 for every core), got "
                             f"{n_jobs!r:.60}")
    return (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)


def _table(cls: type, steps: list[PlanStep], specs: list[Any], names: list[str],
           leaves: list[Leaf]) -> pd.DataFrame:
    import itertools

    combos = list(itertools.product(*(range(len(p.alternatives)) for p in steps)))
    cols: dict[str, Any] = {"scenario": names}
    for c, values in parameter_columns(cls, steps, combos).items():
        numbers = all(v is None or (isinstance(v, (int, float, np.integer, np.floating))
                                    and not isinstance(v, (bool, np.bool_))) for v in values)
        # numbers: int or float (NaN where skipped); anything else as given (None where skipped)
        cols[c] = pd.Series(values) if numbers else pd.Series(values, dtype=object)
    df = pd.DataFrame(cols)
    for m in specs:
        s = pd.Series([lf.values.get(m.column, np.nan) for lf in leaves], dtype=object)
        if s.notna().all() and s.map(lambda v: isinstance(v, (int, np.integer))).all():
            df[m.column] = s.astype(np.int64)
        else:
            df[m.column] = pd.to_numeric(s, errors="coerce").astype(float)
    front = np.zeros(len(df), dtype=bool)
    measures = df[[m.column for m in specs]]
    if "expected_reidentifications" in measures.columns:
        try:
            loss = pick_loss(measures)
        except ParameterError:
            loss = None
        if loss is not None:
            front[frontier_positions(df["expected_reidentifications"], df[loss])] = True
    df["frontier"] = front
    df["error"] = pd.Series([lf.error for lf in leaves], dtype=object)
    df.attrs["roles"] = {m.column: m.role for m in specs}
    return df


def sweep(self, plan: Any, *, measures: Any = None, n_jobs: int = 1,
          name: str = "sweep") -> Sweep:
    """Run every combination of the plan's alternatives as a branch of this session.

    ``plan`` is a list of steps ``(method_name, alternatives)``: ``method_name`` a treatment
    method of the session (``"global_recode"``, ``"local_suppression"``, ``"pram"``, ...),
    ``alternatives`` a list of keyword dicts for it, ``None`` in it meaning "skip this
    step". The scenarios are the Cartesian product (``itertools.product`` order), named
    ``"<name>-1"``, ``"<name>-2"``, ... in the table; their branches carry the same names
    (with a suffix `` (2)``, `` (3)``... where a live branch of this tree, e.g. of an
    earlier sweep, already has it). HEAD of this session does not move.

    Each step is seeded as in a normal session, so a scenario equals the same steps applied
    by hand and replays from ``sw.sessions[i].to_recipe()``. Shared prefixes are applied
    once (the product is walked as a tree). ``measures`` are those of ``compare()``
    (``None``: its defaults for this session's roles). ``n_jobs > 1`` (``-1``: every core)
    runs the subtrees below the first step with several alternatives in worker processes,
    or on the cluster of an active Dask ``distributed`` client; the result is identical to
    ``n_jobs=1`` and its scenarios are branches of this session too.

    A step that fails (a `TreatmentError`, ...) makes its scenarios rows with the ``error``
    text and NaN measures. Ctrl-C stops the sweep and returns the finished scenarios
    (``partial=True``). Bad input is refused before any scenario runs, with a
    `ParameterError`: an empty plan, an unknown method (the valid ones listed), alternatives
    that are not dicts or None, unknown or missing parameters (the method's parameters
    listed), parameter values its treatment refuses, an unknown measure.

    Returns
    -------
    Sweep
        ``.sessions``, ``.table``, ``.best(max_risk=...)``, ``.applications``,
        ``.to_recipe()``, ``.plot()``.
    """
    steps = check_plan(type(self), plan)
    jobs = _check_jobs(n_jobs)
    if not isinstance(name, str) or not name.strip():
        raise ParameterError(f"name: expected a non-empty string (the scenarios are named "
                             f"'<name>-1', ...), got {name!r:.60}")
    n = n_scenarios(steps)
    names = [f"{name}-{i}" for i in range(1, n + 1)]
    start = self._head  # type: ignore[attr-defined]
    specs = measure_specs(measures, [start.state])
    probe_plan(self, steps)
    base_recipe = self.to_recipe()  # type: ignore[attr-defined]
    leaves: list[Leaf | None] = [None] * n
    counts = Counts()
    partial, backend = False, "serial"
    t0 = time.perf_counter()
    bar = Bar(total=n, desc=f"sweep {name}")
    try:
        if jobs == 1:
            run_serial(self, steps, start, specs, names, leaves, counts, bar)
        else:
            backend = run_parallel(self, steps, start, specs, names, leaves, counts, bar,
                                   jobs)
    except KeyboardInterrupt:
        partial = True
    finally:
        bar.close()
    done = [lf if lf is not None else Leaf(None, INTERRUPTED, {}) for lf in leaves]
    if partial:
        ok = sum(lf is not None for lf in leaves)
        warnings.warn(f"sweep: interrupted; {ok} of {n} scenarios finished (the Sweep is "
                      "partial)", SdcWarning, stacklevel=user_stacklevel())
    if counts.failed:
        msg = "; ".join(f"{k}: {v}" for k, v in counts.failed.items())
        warnings.warn(f"sweep: some measures could not be computed (NaN): {msg}"[:2000],
                      SdcWarning, stacklevel=user_stacklevel())
    for w in counts.warnings:
        warnings.warn(f"sweep (in a worker): {w}", SdcWarning, stacklevel=user_stacklevel())
    live = {r()._name for r in self._tree.sessions if r() is not None}  # type: ignore[attr-defined]
    sessions = []
    for nm, lf in zip(names, done):
        if lf.step is None:
            sessions.append(None)
            continue
        branch_name, k = nm, 1
        while branch_name in live:  # e.g. the branches of an earlier sweep of this name
            k += 1
            branch_name = f"{nm} ({k})"
        live.add(branch_name)
        sessions.append(self.branch(branch_name).checkout(lf.step))  # type: ignore[attr-defined]
    table = _table(type(self), steps, specs, names, done)
    return Sweep(base=self, start=start, steps=steps, specs=specs,
                 measures_given=measures is not None, sessions=sessions, table=table,
                 counts=counts, partial=partial, backend=backend,
                 seconds=time.perf_counter() - t0, name=name, base_recipe=base_recipe)


attach_registered(__name__)  # the methods the presentation layer registered for its classes
