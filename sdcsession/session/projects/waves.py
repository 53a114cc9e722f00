"""Carrying a plan to the next wave: `apply_to` replays a branch's steps on new data and reports
the drift.

Algorithm: the steps from the original to the branch's HEAD are applied, in order, to a new
session over ``new_data`` (same roles, options, session seed, and each step's recorded seed).
First the key and PRAM variables that no step recodes are compared between the two originals
(`sdcsession.session.projects.drift.key_drift`); then, before each step, the data it receives in
the new wave are compared with those it received in the old wave
(`sdcsession.session.projects.drift.step_drift`). A step that fails on the new
data stops the replay (finding ``step_failed``; the new session's HEAD is the last step that
ran). Last, the risk and utility measures of both HEADs are listed side by side (kind
``measure``): records, global risk (the mean individual re-identification risk, which compares
waves of different sizes), expected re-identifications (also of households), k-anonymity
violations for k = 2, 3, 5, suppressions in the keys and IL1s of the numeric variables, as the
session's ``risk`` and ``utility`` views give them (on pandas and on Dask).

The drift report has one row per finding: ``step`` (the step's id in the old tree),
``treatment``, ``kind``, ``column``, ``values``, ``count`` (records of the new wave), ``old``
and ``new`` (the measure in each wave; for findings, None), ``detail``. ``strict=True`` raises
`DriftError` listing every finding (the measures alone are not drift). New data that do not
have the session's role columns are a `RoleError` (nothing can be replayed on them).

Example
-------
>>> import pandas as pd, sdcsession as sdc
>>> old = pd.DataFrame({"age": [20, 35, 50, 64], "sex": list("mfmf")})
>>> s = sdc.SdcSession(old, keys=["sex"], numeric=["age"], seed=1)
>>> _ = s.global_recode("age", [0, 40, 65])
>>> new = pd.DataFrame({"age": [20, 70, 80], "sex": list("mfx")})
>>> s2, drift = s.apply_to(new)
>>> drift[["kind", "column", "count"]].values.tolist()[:3]
[['new_category', 'sex', 1], ['outside_intervals', 'age', 2], ['step_failed', 'age', 0]]
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import DriftError, ParameterError, RoleError, SdcError
from ...methods.params import check_bool
from ...scale._base import is_dask_frame
from .drift import SELF_CHECKING, key_drift, step_drift

if TYPE_CHECKING:  # pragma: no cover
    from ..session import SdcSession

__all__ = ["apply_to", "COLUMNS"]

#: the columns of the drift report
COLUMNS = ["step", "treatment", "kind", "column", "values", "count", "old", "new", "detail"]


def _scenario(session: SdcSession, branch: str | None) -> SdcSession:
    if branch is None:
        return session
    named = session.scenarios
    if not isinstance(branch, str) or branch not in named:
        raise ParameterError(f"branch: expected the name of a scenario of this tree "
                             f"({sorted(named)}), got {branch!r:.60}")
    return named[branch]


def _new_session(source: SdcSession, data: Any) -> SdcSession:
    roles = source._tree.root.state.roles
    if is_dask_frame(data):
        from ..distributed.steps import validate_roles

        data = validate_roles(roles, data)
    elif isinstance(data, pd.DataFrame):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            roles.validate(data)
        data = data.copy(deep=True)
    else:
        raise RoleError(f"new_data: expected a pandas or Dask DataFrame, got "
                        f"{type(data).__name__}")
    new = object.__new__(type(source))
    new._init(data, roles, source.seed, source.name, alpha=source.alpha, k=source.k)
    return new


#: the measures of both waves: (column, what, lower is better?, getter of a session)
_MEASURES: list[tuple[str, str, Any]] = [
    ("global_risk", "risk", lambda s: s.risk.global_risk),
    ("expected_reidentifications", "risk", lambda s: s.risk.expected_reidentifications),
    ("household_expected_reidentifications", "risk",
     lambda s: s.risk.household_expected_reidentifications),
    ("k2_violations", "risk", lambda s: s.risk.k_violations(2)),
    ("k3_violations", "risk", lambda s: s.risk.k_violations(3)),
    ("k5_violations", "risk", lambda s: s.risk.k_violations(5)),
    ("suppressions", "loss", lambda s: s.utility.suppressions_total),
    ("il1s", "loss", lambda s: s.utility.il1s),
]


def _measures(old: SdcSession, new: SdcSession) -> list[dict[str, Any]]:
    """The risk and utility measures of both HEADs (pandas and Dask alike)."""
    rows = [{"kind": "measure", "column": "records", "old": old.state.n, "new": new.state.n,
             "detail": "records in each wave"}]
    roles = old.roles
    for column, what, get in _MEASURES:
        if not roles.keys and what == "risk" or column == "il1s" and not roles.numeric \
                or column.startswith("household") and not roles.household \
                or column == "suppressions" and not roles.keys:
            continue
        vals, failed = [], []
        for s in (old, new):
            try:
                v = get(s)
                vals.append(np.nan if v is None else (int(v) if isinstance(
                    v, (int, np.integer)) else float(v)))
            except (SdcError, TypeError, ValueError, ArithmeticError) as e:
                vals.append(np.nan)
                failed.append(str(e).splitlines()[0][:120])
        rows.append({"kind": "measure", "column": column, "old": vals[0], "new": vals[1],
                     "detail": f"{what} (lower is better)" + (
                         f"; not computable: {failed[0]}" if failed else "")})
    for r in rows:
        r.update(step=None, treatment=None, values=None, count=None)
    return rows


def _columns_of(t: Any) -> list[str]:
    """The columns a treatment works on (``column``, ``columns`` or its hierarchies)."""
    if getattr(t, "column", None) is not None:
        return [t.column]
    if getattr(t, "hierarchies", None) is not None:
        return list(t.hierarchies)
    return list(getattr(t, "columns", ()) or ())


def apply_to(session: SdcSession, new_data: Any, *, branch: str | None = None,
             strict: bool = False) -> tuple[SdcSession, pd.DataFrame]:
    """Replay the steps of ``branch`` (default: ``session``) on ``new_data``; returns the new
    session and the drift report (see the module docstring).

    Missing values: never reported as new categories or out-of-range values.
    """
    strict = check_bool("strict", strict)
    source = _scenario(session, branch)
    new = _new_session(source, new_data)
    rows: list[dict[str, Any]] = []
    path = source.head.path()
    covered = {c for st in path[1:] if st.treatment.type in SELF_CHECKING  # type: ignore[union-attr]
               for c in _columns_of(st.treatment)}
    roles = path[0].state.roles
    rows += [{"step": 0, "treatment": "original", **f} for f in key_drift(
        path[0].state.data, new.state.data, [*roles.keys, *roles.pram], covered)]
    for step in path[1:]:
        t = step.treatment
        assert t is not None and step.parent is not None
        old_in = step.parent.state.data
        new_in = new.state.data
        before = len(rows)
        try:
            new.apply(t, seed=step.seed)
            ran = new.head.notes
        except SdcError as e:
            ran = None
            failure = str(e).splitlines()[0][:300]
        found = step_drift(t, old_in, new_in, step.notes, ran)
        rows += [{"step": step.id, "treatment": t.type, **f} for f in found]
        if ran is None:
            col = next((r["column"] for r in rows[before:]), getattr(t, "column", None))
            rows.append({"step": step.id, "treatment": t.type, "kind": "step_failed",
                         "column": col, "values": [], "count": 0,
                         "detail": f"the step cannot run on the new data: {failure}"})
            break
    findings = list(rows)
    rows += _measures(source, new)
    report = pd.DataFrame(rows, columns=COLUMNS)
    report["step"] = report["step"].astype("Int64")
    report["count"] = report["count"].astype("Int64")
    if strict and findings:
        lines = [f"step #{r['step']} {r['treatment']}: {r['kind']} in {r['column']!r}: "
                 f"{r['detail']}" + (f" {r['values'][:5]}" if r["values"] else "")
                 for r in findings]
        raise DriftError(f"the new data drift from the plan of scenario {source.name!r} "
                         f"({len(findings)} finding(s)):\n" + "\n".join(f"  - {x}" for x in lines))
    return new, report
