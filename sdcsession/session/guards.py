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
* Linked variables (sdcMicro's ghost variables): after a step, every record whose key value
  *changed* in that step — became missing (local suppression), or took another value (PRAM,
  recode, global recode, grouping, top/bottom coding, rounding, record swapping, local recoding,
  generalisation, microaggregation, ...) — has its linked variables set to missing too, in the
  same step (so undo, branches and recipe replay include it). A linked variable is a finer or
  derived version of its key (``age`` for ``age5``): left as it was, it would give back the value
  the treatment hid. A global recode of a key blanks its linked variables as well, rather than
  recoding them with the same intervals: the linked variable's scale is in general not the key's
  (``birth_year`` for ``age5``), so only blanking is safe for every linked variable; recode a
  linked variable yourself before treating its key if you want it coarsened instead. The step's
  notes count the blanked values per linked variable (``linked_suppressed``).

Example
-------
>>> import pandas as pd
>>> from sdcsession.roles import Roles
>>> before = pd.DataFrame({"age5": ["20-24", "25-29"], "age": [21, 27]})
>>> after = before.assign(age5=["20-29", None])
>>> notes = {}
>>> follow_linked(before, after, Roles(keys=["age5"], linked={"age5": ["age"]}), notes)["age"].tolist()
[nan, nan]
>>> notes
{'linked_suppressed': {'age': 2}}
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from ..errors import RoleError, SdcError, TreatmentError
from ..roles import Roles

__all__ = ["treatment_columns", "check_identifiers", "follow_linked", "key_changed", "linked_hits",
           "treatment_failures", "NUMERIC_TREATMENTS", "CATEGORICAL_TREATMENTS"]

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
#: of those, the ones that may change a key variable held as numbers (its linked variables follow)
_NUMERIC_KEYS_OK = frozenset({"mv_top_code"})
#: treatments meant for categorical key variables (never for numeric variables)
CATEGORICAL_TREATMENTS = frozenset({"local_recode"})
#: treatments that may name any column (they remove it rather than change values)
_ANY_COLUMN = frozenset({"remove_columns", "new_ids"})  # new_ids checks its own column


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


@contextlib.contextmanager
def treatment_failures(treatment: Any) -> Iterator[None]:
    """Inside the block, an error of the treatment's own code (``ValueError``, ``TypeError``,
    ``KeyError``, ``IndexError``, ``ArithmeticError``) becomes a `TreatmentError` naming the
    treatment and saying the session is unchanged; an `SdcError` passes as it is.

    >>> from sdcsession.methods.basic import RemoveColumns
    >>> try:
    ...     with treatment_failures(RemoveColumns(("a",))):
    ...         raise KeyError("a")
    ... except TreatmentError as e:
    ...     print(e)
    remove_columns: cannot be applied to this state (KeyError: 'a'); the session is unchanged
    """
    try:
        yield
    except SdcError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, ArithmeticError) as e:
        raise TreatmentError(
            f"{treatment.type}: cannot be applied to this state ({type(e).__name__}: {e}); "
            "the session is unchanged") from e


def check_identifiers(treatment: Any, roles: Roles, dtypes: Any = None) -> None:
    """Raise `RoleError` when ``treatment`` would change a column its role protects.

    ``dtypes`` (the data's column dtypes, when known) lets multivariate top coding take a key
    variable held as numbers (e.g. age as a key) while refusing a categorical one."""
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
        elif tag in NUMERIC_TREATMENTS and c in roles.keys and not (
                tag in _NUMERIC_KEYS_OK and dtypes is not None and c in dtypes
                and pd.api.types.is_numeric_dtype(dtypes[c])
                and not pd.api.types.is_bool_dtype(dtypes[c])):
            problems.append(f"{c!r} is a categorical key variable; {tag} is for numeric variables "
                            "(use pram, recoding or local suppression)")
        elif tag in CATEGORICAL_TREATMENTS and c in roles.numeric:
            problems.append(f"{c!r} is a numeric variable; {tag} is for categorical key "
                            "variables (use microaggregation, noise or rounding)")
    if problems:
        raise RoleError(f"{tag}: " + "; ".join(problems))


def key_changed(before: pd.Series, after: pd.Series) -> np.ndarray:
    """Per record: did the value change (missing ↔ observed, or another value)?

    Values are compared as values, not by dtype: ``"20-24"`` as a string and as a category are
    equal, 3 and 3.0 are equal, a number recoded to an interval label is a change. Two missing
    values are equal.

    >>> key_changed(pd.Series([1, 2, None, 4]), pd.Series(["1", 2.0, None, None])).tolist()
    [True, False, False, True]
    """
    if _same_storage(before, after):  # an untouched column (copy-on-write): nothing changed
        return np.zeros(len(before), dtype=bool)
    na_b = before.isna().to_numpy()
    na_a = after.isna().to_numpy()
    if before.dtype == after.dtype and isinstance(before.dtype, pd.CategoricalDtype):
        diff = np.asarray(before.array.codes) != np.asarray(after.array.codes)
    elif (before.dtype == after.dtype and before.dtype.kind in "iufb"
          and not isinstance(before.dtype, pd.api.extensions.ExtensionDtype)):
        with np.errstate(invalid="ignore"):
            diff = before.to_numpy() != after.to_numpy()
    else:
        try:  # by hashing: the values of ``before`` as codes, ``after`` looked up among them
            cb, ub = pd.factorize(before, use_na_sentinel=True)
            ca, ua = pd.factorize(after, use_na_sentinel=True)
            to_b = pd.Index(np.asarray(ub, dtype=object), dtype=object).get_indexer(
                np.asarray(ua, dtype=object))  # each value of ``after`` among those of before
            ca = np.asarray(ca)
            ca = np.append(to_b, -1)[np.where(ca >= 0, ca, len(to_b))]  # missing: -1
            return (na_a != na_b) | ((np.asarray(cb) != ca) & ~na_a & ~na_b)
        except (TypeError, ValueError):
            pass
        b = before.to_numpy(dtype=object)
        a = after.to_numpy(dtype=object)
        both = ~(na_a | na_b)
        diff = np.zeros(len(b), dtype=bool)
        try:
            with np.errstate(invalid="ignore"):
                diff[both] = np.asarray(b[both] != a[both], dtype=bool)
        except (TypeError, ValueError):
            diff[both] = [bool(x != y) for x, y in zip(b[both], a[both])]
    return (na_a != na_b) | (diff & ~na_a & ~na_b)


def _same_storage(before: pd.Series, after: pd.Series) -> bool:
    """Whether both series are views of the same numpy memory (same dtype, start, strides and
    length): the values are then equal without comparing them."""
    if before.dtype != after.dtype or len(before) != len(after):
        return False
    if isinstance(before.dtype, pd.CategoricalDtype):
        x, y = np.asarray(before.array.codes), np.asarray(after.array.codes)
    elif (before.dtype.kind in "iufb"
          and not isinstance(before.dtype, pd.api.extensions.ExtensionDtype)):
        x, y = before.to_numpy(copy=False), after.to_numpy(copy=False)
    else:
        return False
    return (x.__array_interface__["data"][0] == y.__array_interface__["data"][0]
            and x.strides == y.strides and x.dtype == y.dtype)


def linked_hits(before: pd.DataFrame, after: pd.DataFrame, roles: Roles) -> dict[str, np.ndarray]:
    """Per linked variable present in ``after``: the records (boolean array) whose linked value
    is observed and whose key changed between ``before`` and ``after`` (same index)."""
    hits: dict[str, np.ndarray] = {}
    for key, cols in roles.linked:
        if key not in before.columns or key not in after.columns:
            continue
        changed = key_changed(before[key], after[key])
        if not changed.any():
            continue
        for c in cols:
            if c in after.columns:
                hit = changed & after[c].notna().to_numpy()
                hits[c] = hits[c] | hit if c in hits else hit
    return {c: h for c, h in hits.items() if h.any()}


def follow_linked(before: pd.DataFrame, after: pd.DataFrame, roles: Roles,
                  notes: dict[str, Any]) -> pd.DataFrame:
    """``after`` with the linked variables of every record whose key value changed (or became
    missing) between ``before`` and ``after`` set to missing; counts in
    ``notes["linked_suppressed"]``.

    Only the linked columns that change are replaced (the rest is shared, copy-on-write). A step
    that changes the records themselves (their number or index) is left as it is.
    """
    if not roles.linked:
        return after
    if len(before) != len(after) or not before.index.equals(after.index):
        return after
    hits = linked_hits(before, after, roles)
    if not hits:
        return after
    notes["linked_suppressed"] = {c: int(h.sum()) for c, h in hits.items()}
    return after.assign(**{c: after[c].mask(pd.Series(h, index=after.index))
                           for c, h in hits.items()})
