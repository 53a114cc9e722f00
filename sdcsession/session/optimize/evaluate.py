"""Evaluating treatment plans for the optimiser, with the sweep engine.

A plan is a tuple of alternative indices, one per dimension of the space. `Evaluator` applies
it on a nameless handle of the session's tree (`sdcsession.session.sweeps.run.handle`), step by
step through the session methods, so every step draws from the generator a normal session
would give it (seeded from the session seed and the depth) and a plan equals the same steps
applied by hand. Every prefix is applied once: the step a prefix produced is cached (``nodes``),
and plans sharing it continue from there; the measures of a state are cached on the state.
With ``n_jobs > 1`` a batch of plans is sent to worker processes as the sweeps do
(`sdcsession.session.sweeps.run.run_task`: the recipe of the deepest prefix already made and the
rest of the plan as JSON) and the steps the workers made are added to the tree without
recomputation (`rebuild`): the values are those of a serial run, bit for bit. Steps made serially are
also remembered on the tree by (parent step, method, parameters), so a later search from the
same state reuses them (a step's seed depends only on its depth, so the step would be the
same).

Example
-------
>>> import sdcsession as sdc
>>> from sdcsession.session.sweeps.plan import check_plan
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["region", "sex"],
...                    seed=1)
>>> ev = Evaluator(s, check_plan(type(s), [("local_suppression", [{"k": 2}, {"k": 3}])]),
...                measure_specs(["k3_violations"], []))
>>> ev.run([(0,), (1,)], n_jobs=1)[1].values
{'k3_violations': 0}
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from ...methods.base import typed_freeze
from ..sweeps.plan import PlanStep, plan_to_json
from ..sweeps.run import Leaf, _measure, _run_pool, handle, rebuild, specs_to_json
from ..views.scenario_measures import MeasureSpec, measure_specs

__all__ = ["Evaluator", "Evaluation", "measure_specs"]


@attrs.define
class Evaluation:
    """One evaluated plan: its ``step`` (None when a treatment failed), ``error`` text and
    measure ``values`` by column."""

    plan: tuple[int, ...]
    step: Any
    error: str | None
    values: dict[str, Any]


class Evaluator:
    """Applies plans of ``steps`` below ``session``'s HEAD and measures them (see the module)."""

    def __init__(self, session: Any, steps: list[PlanStep], specs: list[MeasureSpec]) -> None:
        self.session = session
        self.steps = steps
        self.specs = specs
        self.start = session._head
        self.nodes: dict[tuple[int, ...], Any] = {(): self.start}
        self.errors: dict[tuple[int, ...], str] = {}
        self.done: dict[tuple[int, ...], Evaluation] = {}
        self.applications = 0
        self.failed: dict[str, str] = {}

    def _deepest(self, plan: tuple[int, ...]) -> int:
        d = 0
        for i in range(1, len(plan) + 1):
            if plan[:i] in self.errors:
                return -i
            if plan[:i] not in self.nodes:
                break
            d = i
        return d

    def _apply(self, plan: tuple[int, ...]) -> Evaluation:
        d = self._deepest(plan)
        if d < 0:
            return Evaluation(plan, None, self.errors[plan[:-d]], {})
        walker = handle(self.session, self.nodes[plan[:d]])
        made = self.session._tree.__dict__.setdefault("plan_steps", {})
        for level in range(d, len(plan)):
            ps = self.steps[level]
            alt = ps.alternatives[plan[level]]
            if alt is not None:
                key = (walker._head.id, ps.method, typed_freeze(alt))
                if key in made:  # made by an earlier search: the same step, seed and state
                    walker._head = made[key]
                else:
                    self.applications += 1
                    try:
                        getattr(walker, ps.method)(**alt)
                    except Exception as e:  # noqa: BLE001 — a failed plan is a row
                        args = ", ".join(f"{k}={v!r:.40}" for k, v in alt.items())
                        self.errors[plan[:level + 1]] = (f"{ps.label}({args}): "
                                                         f"{type(e).__name__}: {e}")
                        return Evaluation(plan, None, self.errors[plan[:level + 1]], {})
                    made[key] = walker._head
            self.nodes[plan[:level + 1]] = walker._head
        return Evaluation(plan, walker._head, None, {})

    def _finish(self, ev: Evaluation) -> Evaluation:
        lf = _measure(self.specs, ev.step, ev.error, "plan " + str(list(ev.plan)), self.failed)
        ev.values, ev.error = lf.values, lf.error
        self.done[ev.plan] = ev
        return ev

    def run(self, plans: list[tuple[int, ...]], n_jobs: int = 1) -> list[Evaluation]:
        """Evaluate ``plans`` (those evaluated before come from the cache), in order."""
        todo = [p for p in dict.fromkeys(plans) if p not in self.done]
        if n_jobs > 1 and len(todo) > 1:
            self._parallel(todo, n_jobs)
        for p in todo:
            if p not in self.done:
                self._finish(self._apply(p))
        return [self.done[p] for p in plans]

    def _parallel(self, todo: list[tuple[int, ...]], n_jobs: int) -> None:
        cls = type(self.session)
        payloads, starts, which = [], [], []
        for p in todo:
            d = self._deepest(p)
            if d < 0 or d == len(p):
                continue  # failed already, or made: measured in this process
            node = self.nodes[p[:d]]
            sub = [PlanStep(ps.method, (ps.alternatives[p[i]],), ps.label)
                   for i, ps in enumerate(self.steps) if i >= d]
            try:
                payloads.append({"session_class": f"{cls.__module__}.{cls.__qualname__}",
                                 "recipe": handle(self.session, node).to_recipe(),
                                 "plan": plan_to_json(sub), "specs": specs_to_json(self.specs),
                                 "names": [str(list(p))]})
            except Exception:  # noqa: BLE001 — a value JSON cannot carry: run it here
                continue
            starts.append(node)
            which.append(p)
        if len(payloads) < 2:
            return
        results: dict[int, Any] = {}
        try:
            _run_pool(payloads, self.session.original, results, _NoBar(), 1, n_jobs)
        finally:
            for j in sorted(results):  # in plan order: nothing depends on timing
                res = results[j]
                if isinstance(res, BaseException):
                    continue  # evaluated in this process by run()
                if res["nodes"] is None:  # pragma: no cover
                    continue
                (lf,) = rebuild(self.session, starts[j], res)
                self.applications += res["applications"]
                for k, v in res["failed"].items():
                    self.failed.setdefault(k, v)
                self._store(which[j], lf)

    def _store(self, plan: tuple[int, ...], lf: Leaf) -> None:
        if lf.step is not None:
            self.nodes[plan] = lf.step
        self.done[plan] = Evaluation(plan, lf.step, lf.error,
                                     lf.values if lf.step is not None else
                                     {m.column: np.nan for m in self.specs})


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

