"""The plan of a scenario sweep: checked before anything runs, and written as JSON.

A plan is a list of steps ``(method_name, alternatives)``. ``method_name`` is a treatment method
of `SdcSession` (`treatment_method_names`); ``alternatives`` is a list of keyword dicts for that
method, an entry ``None`` meaning "skip this step" in the scenarios that take it (``alternatives``
itself ``None`` skips the step everywhere). The scenarios are the Cartesian product of the
alternatives, in the order of ``itertools.product`` (the last step varies fastest).

`check_plan` refuses, with a `ParameterError` naming the step, the alternative and what was
expected: an empty plan, an unknown method (the valid ones listed), alternatives that are not
dicts or ``None``, parameters the method does not take (named, with the method's parameters
listed, read from ``inspect.signature``), missing required parameters, and more than
`MAX_SCENARIOS` scenarios. `probe_plan` then builds every alternative's treatment without
applying it, so a parameter value a treatment refuses at construction is reported before any
scenario runs.

Example
-------
>>> import sdcsession as sdc
>>> steps = check_plan(sdc.SdcSession, [("local_suppression", [{"k": 3}, {"k": 5}]),
...                                     ("pram", None)])
>>> [(p.label, len(p.alternatives)) for p in steps]
[('local_suppression', 2), ('pram', 1)]
>>> plan_from_json(plan_to_json(steps)) == steps
True
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from typing import Any

import attrs

from ...errors import ParameterError, RecipeError
from ...methods.base import decode_value, encode_value
from ..classes import SESSION_CLASSES  # (re-exported: the registry lives where importing is free)

__all__ = ["PlanStep", "MAX_SCENARIOS", "SESSION_CLASSES", "treatment_method_names", "check_plan", "probe_plan",
           "plan_to_json", "plan_from_json", "n_scenarios", "parameter_columns"]

#: the largest number of scenarios a sweep runs (a plan beyond it is refused before it runs)
MAX_SCENARIOS = 10_000


@attrs.frozen
class PlanStep:
    """One step of a checked plan: the session ``method``, its ``alternatives`` (dicts, or
    ``None`` = skip) and the ``label`` of its columns in the sweep table (the method name; a
    method used again later in the plan is labelled ``method#2``, ``method#3``...).

    >>> PlanStep("pram", ({"columns": "water"}, None), "pram").alternatives[1] is None
    True
    """

    method: str
    alternatives: tuple[dict[str, Any] | None, ...]
    label: str


def treatment_method_names(cls: type) -> list[str]:
    """The treatment methods of a session class: the public methods of its ``*Methods`` mixins
    (session layer) plus ``recode`` and ``remove``.

    >>> import sdcsession as sdc
    >>> {"global_recode", "local_suppression", "pram"} <= set(treatment_method_names(sdc.SdcSession))
    True
    """
    mixins = [c for c in cls.__mro__
              if c.__name__.endswith("Methods") and c.__module__.startswith("sdcsession.session")]
    names = {n for c in mixins for n, f in vars(c).items()
             if callable(f) and not n.startswith("_") and n != "apply"}
    return sorted(names | {"recode", "remove"})


def _signature(cls: type, method: str) -> inspect.Signature:
    return inspect.signature(getattr(cls, method))


def _parameters(sig: inspect.Signature) -> list[str]:
    return [p.name for p in list(sig.parameters.values())[1:]
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def check_plan(cls: type, plan: Any) -> list[PlanStep]:
    """Check ``plan`` against the treatment methods of ``cls``; the steps as `PlanStep`.

    Every problem found is listed in one `ParameterError` (see the module docstring).

    >>> import sdcsession as sdc
    >>> check_plan(sdc.SdcSession, [("local_supression", [{"k": 3}])])
    Traceback (most recent call last):
    ...
    sdcsession.errors.ParameterError: plan: step 1: unknown method 'local_supression'; ...
    """
    if isinstance(plan, (str, bytes, Mapping)) or not isinstance(plan, (list, tuple)):
        raise ParameterError(
            f"plan: expected a list of (method_name, alternatives) steps, got "
            f"{type(plan).__name__}")
    if not plan:
        raise ParameterError("plan: empty; give at least one (method_name, alternatives) step, "
                             "e.g. [('local_suppression', [{'k': 3}, {'k': 5}])]")
    valid = treatment_method_names(cls)
    problems: list[str] = []
    steps: list[PlanStep] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(plan, 1):
        if not (isinstance(entry, (list, tuple)) and len(entry) == 2):
            problems.append(f"step {i}: expected a pair (method_name, alternatives), got "
                            f"{entry!r:.80}")
            continue
        method, alts = entry
        if not isinstance(method, str) or method not in valid:
            problems.append(f"step {i}: unknown method {method!r:.60}; the treatment methods "
                            f"are {valid}")
            continue
        if alts is None:
            alts = [None]
        if isinstance(alts, (str, bytes, Mapping)) or not isinstance(alts, (list, tuple)):
            problems.append(f"step {i} ({method}): alternatives must be a list of keyword dicts "
                            f"(or None to skip), got {type(alts).__name__}")
            continue
        if not alts:
            problems.append(f"step {i} ({method}): no alternatives; give a list of keyword "
                            "dicts (None in it skips the step)")
            continue
        sig = _signature(cls, method)
        accepted = _parameters(sig)
        takes_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
        clean: list[dict[str, Any] | None] = []
        for j, alt in enumerate(alts, 1):
            where = f"step {i} ({method}), alternative {j}"
            if alt is None:
                clean.append(None)
                continue
            if not isinstance(alt, Mapping) or not all(isinstance(k, str) for k in alt):
                problems.append(f"{where}: expected a dict of keyword arguments or None, got "
                                f"{alt!r:.80}")
                continue
            unknown = sorted(set(alt) - set(accepted))
            if unknown and not takes_any:
                problems.append(f"{where}: {method} takes no parameter(s) {unknown}; its "
                                f"parameters are {accepted}")
                continue
            try:
                sig.bind(None, **alt)
            except TypeError as e:
                problems.append(f"{where}: {e}; {method} takes {accepted}")
                continue
            clean.append(dict(alt))
        seen[method] = seen.get(method, 0) + 1
        label = method if seen[method] == 1 else f"{method}#{seen[method]}"
        steps.append(PlanStep(method, tuple(clean), label))
    if problems:
        raise ParameterError("plan: " + "; ".join(problems) if len(problems) == 1 else
                             "plan has problems:\n" + "\n".join(f"  - {p}" for p in problems))
    n = n_scenarios(steps)
    if n > MAX_SCENARIOS:
        raise ParameterError(f"plan: {n} scenarios (the product of the alternatives); a sweep "
                             f"runs at most {MAX_SCENARIOS}")
    return steps


def n_scenarios(steps: list[PlanStep]) -> int:
    """Number of scenarios of a plan (the product of the numbers of alternatives).

    >>> n_scenarios([PlanStep("pram", (None, {}), "pram")] * 3)
    8
    """
    return math.prod(len(p.alternatives) for p in steps)


class _Captured(BaseException):
    """Raised by a probe's ``apply``: carries the treatment a method built (BaseException, so
    no ``except Exception`` inside a method swallows it)."""

    def __init__(self, treatment: Any) -> None:
        super().__init__()
        self.treatment = treatment


def probe_plan(session: Any, steps: list[PlanStep]) -> None:
    """Build every alternative's treatment on a throw-away handle whose ``apply`` only captures
    it: a `ParameterError` a treatment raises at construction is reported (all of them in one
    `ParameterError`, naming step and alternative) before any scenario runs. Nothing is applied
    and the session does not change. Errors that depend on the state a step meets (missing
    columns, roles) are left to the run, where they make that scenario a failed row.
    """
    probe = object.__new__(type(session))
    probe._tree = session._tree
    probe._head = session._head
    probe._redo = []
    probe._name = "(probe)"
    probe.watch = []

    def capture(treatment: Any, *, seed: Any = None) -> Any:
        raise _Captured(treatment)

    probe.apply = capture
    problems = []
    for i, ps in enumerate(steps, 1):
        for j, alt in enumerate(ps.alternatives, 1):
            if alt is None:
                continue
            try:
                getattr(probe, ps.method)(**alt)
            except _Captured:
                pass
            except ParameterError as e:
                problems.append(f"step {i} ({ps.method}), alternative {j}: {e}")
            except Exception:  # noqa: BLE001 — state-dependent: reported by the run
                pass
    if problems:
        raise ParameterError("plan: " + problems[0] if len(problems) == 1 else
                             "plan has problems:\n" + "\n".join(f"  - {p}" for p in problems))


def plan_to_json(steps: list[PlanStep]) -> list[list[Any]]:
    """The plan as JSON data: ``[[method, [alternative | null, ...]], ...]``, every value encoded
    losslessly (`sdcsession.methods.base.encode_value`); a value JSON cannot hold raises
    `RecipeError` naming the step.

    >>> plan_to_json([PlanStep("local_suppression", ({"k": 3}, None), "local_suppression")])
    [['local_suppression', [{'k': 3}, None]]]
    """
    return [[ps.method, [None if a is None else
                         encode_value(a, where=f"plan step {i} ({ps.method})")
                         for a in ps.alternatives]]
            for i, ps in enumerate(steps, 1)]


def plan_from_json(data: Any) -> list[PlanStep]:
    """Inverse of `plan_to_json` (`RecipeError` when ``data`` is not such a list). The plan is
    checked again by `check_plan` when it runs.

    >>> plan_from_json([["pram", [None]]])[0].label
    'pram'
    """
    if not isinstance(data, list):
        raise RecipeError(f"plan: expected a list of [method, alternatives], got "
                          f"{type(data).__name__}")
    steps: list[PlanStep] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(data, 1):
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                and isinstance(entry[1], list)):
            raise RecipeError(f"plan: step {i}: expected [method, [alternatives]], got "
                              f"{entry!r:.80}")
        method, alts = entry
        decoded = tuple(None if a is None else decode_value(a, where=f"plan step {i}")
                        for a in alts)
        if not all(a is None or isinstance(a, dict) for a in decoded):
            raise RecipeError(f"plan: step {i}: alternatives must be objects or null")
        seen[method] = seen.get(method, 0) + 1
        steps.append(PlanStep(method, decoded,
                              method if seen[method] == 1 else f"{method}#{seen[method]}"))
    return steps


def parameter_columns(cls: type, steps: list[PlanStep],
                      combos: list[tuple[int, ...]]) -> dict[str, list[Any]]:
    """The parameter columns of the sweep table: ``"<label>.<parameter>"`` for every parameter
    given in some alternative of a step, one value per scenario (``combos``: the alternative
    index of each step). A parameter an alternative leaves out shows the method's default;
    a skipped step shows ``None``.

    >>> import sdcsession as sdc
    >>> st = [PlanStep("local_suppression", ({"k": 3}, None), "local_suppression")]
    >>> parameter_columns(sdc.SdcSession, st, [(0,), (1,)])
    {'local_suppression.k': [3, None]}
    """
    out: dict[str, list[Any]] = {}
    for s, ps in enumerate(steps):
        names: list[str] = []
        for a in ps.alternatives:
            for k in a or {}:
                if k not in names:
                    names.append(k)
        params = _signature(cls, ps.method).parameters
        for k in names:
            default = params[k].default if k in params else None
            default = None if default is inspect.Parameter.empty else default
            out[f"{ps.label}.{k}"] = [
                None if ps.alternatives[c[s]] is None else ps.alternatives[c[s]].get(k, default)
                for c in combos]
    return out
