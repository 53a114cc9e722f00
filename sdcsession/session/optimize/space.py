"""The search space and the privacy targets of the optimiser.

The space is a list of *dimensions*, each one treatment method of the session with its
alternatives ordered from the weakest to the strongest (``None``: the step is left out); a
*plan* picks one alternative per dimension and applies them in the order of the dimensions.
It is written exactly like a sweep plan (`sdcsession.session.sweeps.plan`) and checked by the
same code, so a grid sweep and the optimiser can run over the same treatments.

`default_space` builds a space from the roles when none is given:

- a numeric key: ``global_recode`` into 10 or 5 equal-width intervals (or left as it is);
- an ordered categorical key with more than 4 categories: ``group_categories`` merging
  neighbouring categories two by two, or four by four (a hierarchy of adjacent intervals);
- PRAM variables: ``pram`` with ``pd`` 0.9 or 0.7;
- numeric variables (not keys): ``microaggregation`` with k 3 or 5, and ``add_noise`` with
  noise 0.05 or 0.15;
- keys: ``local_suppression`` with the session's k, last, with the default importance or
  with the keys of fewest categories most important (suppressed last).

`parse_targets` reads the privacy targets: ``("k_anonymity", 3)``, ``("l_diversity", 2)``,
``("global_risk", 0.01)`` (mean individual risk at most), ``("max_risk", 0.2)`` (every
individual risk at most), as pairs, a dict or strings ``"k_anonymity=3"`` (also spelled
``"k-anonymity"``, ``"k"``, ``"l-diversity"``, ``"l"``).

Example
-------
>>> parse_targets({"k_anonymity": 3})
[Target(kind='k_anonymity', value=3)]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError
from ...methods.base import check_int, check_number
from ..sweeps.plan import PlanStep, check_plan, probe_plan
from ..views.scenario_measures import MeasureSpec

__all__ = ["Target", "TARGETS", "parse_targets", "default_space", "check_space"]

#: target kind -> (measure column of the target, how its value is read)
TARGETS = ("k_anonymity", "l_diversity", "global_risk", "max_risk")


@attrs.frozen
class Target:
    """A privacy target: ``kind`` (one of `TARGETS`) and its ``value`` (k, l or a risk bound).

    >>> Target("k_anonymity", 3).spec().measure
    'k_violations'
    """

    kind: str
    value: Any

    def spec(self) -> MeasureSpec:
        """The measure column whose value must be at most `bound` for the target to hold."""
        if self.kind == "k_anonymity":
            return MeasureSpec(f"target: {self.value}-anonymity", "k_violations",
                               (("k", self.value),))
        if self.kind == "l_diversity":
            return MeasureSpec(f"target: {self.value}-diversity", "l_violations",
                               (("l", self.value),))
        if self.kind == "global_risk":
            return MeasureSpec(f"target: global risk <= {self.value:g}", "global_risk")
        return MeasureSpec(f"target: max risk <= {self.value:g}", "max_individual_risk")

    @property
    def bound(self) -> float:
        """The largest value of `spec` that meets the target (0 records for k and l)."""
        return 0.0 if self.kind in ("k_anonymity", "l_diversity") else float(self.value)

    def violation(self, value: float, n: int) -> float:
        """How far ``value`` is from the target, scaled to [0, 1] (0: met)."""
        if value is None or np.isnan(value):
            return 1.0
        if self.kind in ("k_anonymity", "l_diversity"):
            return float(value) / max(n, 1)
        return max(0.0, float(value) - self.bound)


#: other spellings of the targets
ALIASES = {"k": "k_anonymity", "kanonymity": "k_anonymity", "l": "l_diversity",
           "ldiversity": "l_diversity", "max_individual_risk": "max_risk"}


def _target(kind: Any, value: Any) -> Target:
    if isinstance(kind, str):
        kind = kind.strip().lower().replace("-", "_").replace(" ", "_")
        kind = ALIASES.get(kind, kind)
    if not isinstance(kind, str) or kind not in TARGETS:
        raise ParameterError(f"privacy: unknown target {kind!r:.40}; the targets are {TARGETS}")
    if kind in ("k_anonymity", "l_diversity"):
        return Target(kind, check_int(f"privacy {kind}", value, 1, 2**31 - 1))
    return Target(kind, check_number(f"privacy {kind}", value, 0, 1))


def parse_targets(privacy: Any) -> list[Target]:
    """The privacy targets of ``privacy`` (see the module docstring); a `ParameterError`
    names an unknown target or a bad value.

    >>> parse_targets(["k_anonymity=3", ("max_risk", 0.2)])[1]
    Target(kind='max_risk', value=0.2)
    """
    if privacy is None:
        raise ParameterError("privacy: give at least one target, e.g. [('k_anonymity', 3)]")
    if isinstance(privacy, Mapping):
        privacy = list(privacy.items())
    elif isinstance(privacy, (str, Target)) or (
            isinstance(privacy, tuple) and len(privacy) == 2 and isinstance(privacy[0], str)):
        privacy = [privacy]
    if not isinstance(privacy, (list, tuple)) or not privacy:
        raise ParameterError(f"privacy: expected a list of targets such as [('k_anonymity', 3)], "
                             f"got {privacy!r:.80}")
    out: list[Target] = []
    for t in privacy:
        if isinstance(t, Target):
            out.append(_target(t.kind, t.value))
        elif isinstance(t, str) and "=" in t:
            kind, _, raw = t.partition("=")
            try:
                num: Any = int(raw) if raw.strip().isdigit() else float(raw)
            except ValueError:
                raise ParameterError(f"privacy: cannot read the value of {t!r:.60}") from None
            out.append(_target(kind.strip(), num))
        elif isinstance(t, (list, tuple)) and len(t) == 2:
            out.append(_target(t[0], t[1]))
        else:
            raise ParameterError(f"privacy: cannot read the target {t!r:.60}; write "
                                 "('k_anonymity', 3), 'k_anonymity=3' or {'k_anonymity': 3}")
    kinds = [t.kind for t in out]
    if len(set(kinds)) < len(kinds):
        raise ParameterError(f"privacy: a target given twice in {kinds}")
    return out


def _adjacent_groups(cats: list[Any], size: int) -> dict[str, list[Any]]:
    return {"-".join(str(c) for c in (g[0], g[-1])) if len(g) > 1 else str(g[0]): g
            for g in (cats[i:i + size] for i in range(0, len(cats), size))}


def default_space(session: Any) -> list[tuple[str, list[dict[str, Any] | None]]]:
    """A search space from the session's roles (see the module docstring), as a plan.

    >>> import sdcsession as sdc
    >>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1),
    ...                    keys=["region", "sex", "age5"], seed=1)
    >>> [m for m, _ in default_space(s)]
    ['group_categories', 'local_suppression']
    """
    data, roles = session.state.data, session.roles
    plan: list[tuple[str, list[dict[str, Any] | None]]] = []
    for c in roles.keys:
        s = data[c]
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s) \
                and s.nunique() > 10:
            plan.append(("global_recode", [None, {"column": c, "breaks": 10},
                                           {"column": c, "breaks": 5}]))
        elif isinstance(s.dtype, pd.CategoricalDtype) and s.cat.ordered \
                and len(s.cat.categories) > 4:
            cats = list(s.cat.categories)
            plan.append(("group_categories", [None, {"column": c,
                                                     "groups": _adjacent_groups(cats, 2)},
                                              {"column": c, "groups": _adjacent_groups(cats, 4)}]))
    if roles.pram:
        plan.append(("pram", [None, {"columns": list(roles.pram), "pd": 0.9},
                              {"columns": list(roles.pram), "pd": 0.7}]))
    num = [c for c in roles.numeric if c not in roles.keys]
    if num:
        plan.append(("microaggregation", [None, {"columns": num, "k": 3},
                                          {"columns": num, "k": 5}]))
        plan.append(("add_noise", [None, {"columns": num, "noise": 0.05},
                                   {"columns": num, "noise": 0.15}]))
    if roles.keys:
        by_size = sorted(roles.keys, key=lambda c: (data[c].nunique(), list(roles.keys).index(c)))
        plan.append(("local_suppression", [{"k": session.k},
                                           {"k": session.k, "importance": list(by_size)}]))
    if not plan:
        raise ParameterError("treatments: the roles give no treatment to search over (no key, "
                             "PRAM or numeric variable); give treatments=[...]")
    return plan


def check_space(session: Any, treatments: Any) -> list[PlanStep]:
    """The dimensions of the search: ``treatments`` (a sweep plan; None: `default_space`)
    checked as a sweep plan is (`check_plan`, `probe_plan`), every treatment built once."""
    plan = default_space(session) if treatments is None else treatments
    if isinstance(plan, (str, bytes, Mapping)) or not isinstance(plan, (list, tuple)) \
            or not plan:
        raise ParameterError(f"treatments: expected a list of (method_name, alternatives) "
                             f"steps as for a sweep, got {plan!r:.80}")
    steps: list[PlanStep] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(plan, 1):  # one by one: the space may exceed a sweep's size
        try:
            (ps,) = check_plan(type(session), [entry])
        except ParameterError as e:
            raise ParameterError(f"treatments: step {i}: {e}") from None
        seen[ps.method] = seen.get(ps.method, 0) + 1
        label = ps.method if seen[ps.method] == 1 else f"{ps.method}#{seen[ps.method]}"
        steps.append(PlanStep(ps.method, ps.alternatives, label))
    probe_plan(session, steps)
    return steps
