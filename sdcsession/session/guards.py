"""Guards around every step: treatments may not touch columns whose role forbids it, and linked
variables follow the suppressions of their key variable.

* A treatment that changes values refuses the direct identifiers, the sampling weight and the
  household id (noise made negative weights and scrambled household ids); treatments for numeric
  variables (noise, microaggregation, rank swapping, shuffling, multivariate top coding) refuse
  categorical key variables, and local recoding refuses numeric variables. A direct identifier
  is refused also where a treatment only reads it (the risk variables and similarity profiles
  of record swapping).
  `RemoveColumns` may remove any column. The refusal is a `RoleError` raised before anything
  runs, so the session is unchanged.
* Linked variables (sdcMicro's ghost variables): after a step, every record whose key value became
  missing in that step has its linked variables set to missing too, in the same step (so undo,
  branches and recipe replay include it). The step's notes count them (``linked_suppressed``).

Example
-------
>>> import pandas as pd
>>> from sdcsession.roles import Roles
>>> before = pd.DataFrame({"age5": ["20-24", "25-29"], "age": [21, 27]})
>>> after = before.assign(age5=["20-24", None])
>>> notes = {}
>>> follow_linked(before, after, Roles(keys=["age5"], linked={"age5": ["age"]}), notes)["age"].tolist()
[21.0, nan]
>>> notes
{'linked_suppressed': {'age': 1}}
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..errors import RoleError
from ..roles import Roles

__all__ = ["treatment_columns", "check_identifiers", "follow_linked", "NUMERIC_TREATMENTS",
           "CATEGORICAL_TREATMENTS"]

#: parameters of treatments that name the columns they change or read
_COLUMN_PARAMS = ("column", "columns", "by", "sort_by")
#: parameters of treatments that name columns they only read (a direct identifier is refused there
#: too: it is unique per person, so it would make every record "at risk" or "similar" to none)
_READ_PARAMS = ("similar", "risk_variables")
#: parameters naming columns a treatment exchanges between records (record swapping)
_MOVED_PARAMS = ("hierarchy", "carry_along")
#: treatments meant for continuous variables (never for categorical key variables)
NUMERIC_TREATMENTS = frozenset({"add_noise", "microaggregation", "rank_swap", "shuffle",
                                "mv_top_code"})
#: treatments meant for categorical key variables (never for numeric variables)
CATEGORICAL_TREATMENTS = frozenset({"local_recode"})
#: treatments that may name any column (they remove it rather than change values)
_ANY_COLUMN = frozenset({"remove_columns"})


def treatment_columns(treatment: Any, names: tuple[str, ...] = _COLUMN_PARAMS) -> list[str]:
    """The column names a treatment's parameters ``names`` name (by default ``column``,
    ``columns``, ``by``, ...; lists of lists are flattened)."""
    params = treatment.params() if hasattr(treatment, "params") else {}
    out: list[str] = []
    for name in names:
        v = params.get(name)
        stack = [v]
        while stack:
            x = stack.pop()
            if isinstance(x, str):
                out.append(x)
            elif isinstance(x, (tuple, list)):
                stack.extend(reversed(x))
    return out


def check_identifiers(treatment: Any, roles: Roles) -> None:
    """Raise `RoleError` when ``treatment`` would change a column its role protects."""
    tag = getattr(treatment, "type", "")
    if tag in _ANY_COLUMN:
        return
    problems = []
    for c in treatment_columns(treatment, _READ_PARAMS):
        if c in roles.identifiers:
            problems.append(f"{c!r} is a direct identifier (unique per person, it is never "
                            "released nor used to find records at risk or similar records)")
    for c in treatment_columns(treatment, _COLUMN_PARAMS + _MOVED_PARAMS):
        if c in roles.identifiers:
            problems.append(f"{c!r} is a direct identifier (it is never released; remove it "
                            "instead of treating it)")
        elif c == roles.weight:
            problems.append(f"{c!r} is the sampling weight (treating it would corrupt every "
                            "estimate and risk figure)")
        elif c == roles.household:
            problems.append(f"{c!r} is the household id (treating it would scramble households)")
        elif tag in NUMERIC_TREATMENTS and c in roles.keys:
            problems.append(f"{c!r} is a categorical key variable; {tag} is for numeric variables "
                            "(use pram, recoding or local suppression)")
        elif tag in CATEGORICAL_TREATMENTS and c in roles.numeric:
            problems.append(f"{c!r} is a numeric variable; {tag} is for categorical key "
                            "variables (use microaggregation, noise or rounding)")
    if problems:
        raise RoleError(f"{tag}: " + "; ".join(problems))


def follow_linked(before: pd.DataFrame, after: pd.DataFrame, roles: Roles,
                  notes: dict[str, Any]) -> pd.DataFrame:
    """``after`` with the linked variables of every newly suppressed key value set to missing.

    Only the linked columns that change are replaced (the rest is shared, copy-on-write).
    """
    if not roles.linked:
        return after
    if len(before) != len(after) or not before.index.equals(after.index):
        return after
    new: dict[str, pd.Series] = {}
    counts: dict[str, int] = {}
    for key, cols in roles.linked:
        if key not in before.columns or key not in after.columns:
            continue
        gone = (after[key].isna() & before[key].notna()).to_numpy()
        if not gone.any():
            continue
        for c in cols:
            if c not in after.columns:
                continue
            col = new.get(c, after[c])
            hit = gone & col.notna().to_numpy()
            n = int(hit.sum())
            if n:
                new[c] = col.mask(pd.Series(hit, index=col.index))
                counts[c] = counts.get(c, 0) + n
    if not new:
        return after
    notes["linked_suppressed"] = counts
    return after.assign(**new)


