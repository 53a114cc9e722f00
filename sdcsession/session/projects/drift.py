"""What no longer fits when a step is replayed on new data: the findings of the drift report.

`step_drift` compares the data a step received in the wave the plan was made on (``old``) with
the data it receives in the new wave (``new``) and returns one finding per problem, each a dict
with ``kind``, ``column``, ``values`` (the offending values, at most `MAX_VALUES`, sorted),
``count`` (records of the new wave concerned) and ``detail``:

- ``new_category``: values of the new wave never seen in the old one that the step does not
  name — a ``recode`` mapping or ``group_categories`` group that does not list them (they pass
  through unchanged), or any value of a ``pram`` column not seen before;
- ``pram_matrix_missing``: categories of a ``pram`` column missing from its transition matrix
  (the matrix given, else the one estimated on the old wave, from the step's notes);
- ``outside_intervals``: values of a ``global_recode`` column outside the intervals the step
  used on the old wave (the cut points in its notes: ``x <= lowest`` or ``x > highest`` for
  right-closed intervals, ``x < lowest`` or ``x >= highest`` for left-closed ones; a lowest
  interval written ``[a, b]`` is closed at ``a``);
- ``breaks_changed``: a ``global_recode`` whose cut points are computed from the data
  (``breaks=<number>`` or ``method=``) cut the new wave elsewhere (its categories differ);
- ``outside_range``: values of a ``top_bottom_code`` column outside the range [min, max] of
  the old wave (the code was chosen on a distribution that no longer holds); the detail gives
  the share of records coded in both waves;
- ``hierarchy_uncovered``: values of a ``generalize`` column that a level of its hierarchy does
  not cover (the generalisation would fail or be undefined).

`key_drift` adds, for the original data, the new categories of the key and PRAM variables that
no step of the plan recodes, groups, PRAMs or generalises (``new_category`` of step 0: the plan
never considered them, e.g. a new rare region that local suppression must now handle).

Missing values are never findings (they are neither categories nor out of range). The sets are
read from the distinct values (`unique_values`); on a Dask frame they are computed on the
workers and only the distinct values come back.

Example
-------
>>> import pandas as pd
>>> from sdcsession.methods.basic import Recode
>>> old, new = pd.DataFrame({"a": ["x", "y"]}), pd.DataFrame({"a": ["x", "z", "z"]})
>>> [(f["kind"], f["values"], f["count"]) for f in step_drift(Recode("a", {"y": "x"}), old, new, {})]
[('new_category', ['z'], 2)]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...errors import SdcError
from ...methods.base import label_order

__all__ = ["step_drift", "key_drift", "unique_values", "MAX_VALUES", "SELF_CHECKING"]

#: step types whose own findings cover the new categories of their columns
SELF_CHECKING = {"recode", "group_categories", "pram", "global_recode", "generalize"}

#: offending values listed per finding (the count covers all of them)
MAX_VALUES = 20


def _compute(x: Any) -> Any:
    return x.compute() if hasattr(x, "compute") else x


def unique_values(s: Any) -> list[Any]:
    """The distinct non-missing values of a pandas or Dask series (as Python scalars)."""
    u = _compute(s.dropna().unique())
    return [v.item() if isinstance(v, np.generic) else v for v in pd.unique(np.asarray(u, dtype=object))]


def _count(s: Any, values: list[Any]) -> int:
    return int(_compute(s.isin(values).sum())) if values else 0


def _finding(kind: str, column: str, values: list[Any], count: int, detail: str) -> dict[str, Any]:
    shown = sorted(values, key=label_order)[:MAX_VALUES]
    return {"kind": kind, "column": column, "values": shown, "count": int(count),
            "detail": detail}


def _new_labels(old: Any, new: Any, column: str, known: set[Any] = frozenset()) -> list[Any]:  # type: ignore[assignment]
    seen = set(unique_values(old[column])) | set(known)
    return [v for v in unique_values(new[column]) if v not in seen]


def _recode(t: Any, old: Any, new: Any) -> list[dict[str, Any]]:
    if t.column not in old.columns or t.column not in new.columns:
        return []
    vals = _new_labels(old, new, t.column, set(t.mapping))
    if not vals:
        return []
    return [_finding("new_category", t.column, vals, _count(new[t.column], vals),
                     f"{len(vals)} value(s) not seen before and not in the recode mapping: "
                     "they pass through unchanged")]


def _grouping(t: Any, old: Any, new: Any) -> list[dict[str, Any]]:
    if t.column not in old.columns or t.column not in new.columns:
        return []
    covered = {v for olds in t.groups.values() for v in olds}
    vals = _new_labels(old, new, t.column, covered)
    if not vals:
        return []
    return [_finding("new_category", t.column, vals, _count(new[t.column], vals),
                     f"{len(vals)} value(s) not seen before and in no group: they stay as they "
                     "are")]


def _matrix_labels(t: Any, column: str, notes: Mapping[str, Any]) -> tuple[set[Any], str] | None:
    m = t.matrix
    if m is not None:
        per = m.get(column) if isinstance(m, Mapping) and column in m and isinstance(
            m.get(column), Mapping) and all(isinstance(w, Mapping) for w in m[column].values()) \
            else (m if len(t.columns) == 1 else None)
        if per is not None:
            return {*per, *(str(k) for k in per)}, "the matrix given"
    mats = (notes.get("matrices") or {}).get(column)
    if isinstance(mats, Mapping):
        cats: set[Any] = set()
        for by_stratum in mats.values():
            if isinstance(by_stratum, Mapping):
                cats |= set(by_stratum.get("categories") or [])
        return cats, "the matrix estimated on the old wave"
    return None


def _pram(t: Any, old: Any, new: Any, notes: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for c in t.columns:
        if c not in old.columns or c not in new.columns:
            continue
        vals = _new_labels(old, new, c)
        if vals:
            out.append(_finding("new_category", c, vals, _count(new[c], vals),
                                f"{len(vals)} category(ies) not seen before in a PRAM column"))
        known = _matrix_labels(t, c, notes)
        if known is not None:
            cats, which = known
            miss = [v for v in unique_values(new[c]) if v not in cats and str(v) not in cats]
            if miss:
                out.append(_finding("pram_matrix_missing", c, miss, _count(new[c], miss),
                                    f"{which} has no row for {len(miss)} category(ies)"))
    return out


def _global_recode(t: Any, old: Any, new: Any, notes: Mapping[str, Any],
                   new_notes: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    c = t.column
    cuts = notes.get("breaks")
    if c not in new.columns or not isinstance(cuts, list) or len(cuts) < 2:
        return []
    try:
        edges = sorted(float(b) for b in cuts)  # "inf" / "-inf" text too
    except (TypeError, ValueError):
        return []
    lo, hi = edges[0], edges[-1]
    cats = notes.get("categories")
    lo_closed, hi_closed = not t.right, t.right
    if t.labels is None and isinstance(cats, list) and cats and all(
            isinstance(x, str) for x in cats):  # R's labels: "[a,b]" closes the lowest interval
        lo_closed, hi_closed = cats[0].startswith("["), cats[-1].endswith("]")
    x = pd.to_numeric(new[c], errors="coerce") if isinstance(new, pd.DataFrame) else new[c]
    outside = ((x < lo) if lo_closed else (x <= lo)) | ((x > hi) if hi_closed else (x >= hi))
    out = []
    vals = unique_values(new[c][outside])
    if vals:
        out.append(_finding("outside_intervals", c, vals, _count(new[c], vals),
                            f"{len(vals)} value(s) outside the intervals "
                            f"{'[' if lo_closed else '('}{lo:g}, {hi:g}{']' if hi_closed else ')'}"
                            " used on the old wave"))
    new_cuts = (new_notes or {}).get("breaks")
    if new_cuts is not None and not isinstance(t.breaks, tuple) and new_cuts != cuts:
        out.append(_finding("breaks_changed", c, list(new_cuts), 0,
                            f"the cut points computed from the new wave differ from the old "
                            f"wave's {cuts}: the categories differ between the waves"))
    return out


def _top_bottom(t: Any, old: Any, new: Any) -> list[dict[str, Any]]:
    c = t.column
    if c not in old.columns or c not in new.columns:
        return []
    lo, hi = _compute(old[c].min()), _compute(old[c].max())
    try:
        if lo is None or hi is None or (isinstance(lo, float) and math.isnan(lo)):
            return []
        outside = (new[c] < lo) | (new[c] > hi)
        coded = (new[c] > t.value) if t.kind == "top" else (new[c] < t.value)
        coded_old = (old[c] > t.value) if t.kind == "top" else (old[c] < t.value)
        share_new = float(_compute(coded.mean()))
        share_old = float(_compute(coded_old.mean()))
    except (TypeError, ValueError):
        return []
    vals = unique_values(new[c][outside])
    if not vals:
        return []
    return [_finding("outside_range", c, vals, _count(new[c], vals),
                     f"{len(vals)} value(s) outside the old wave's range [{lo}, {hi}]; "
                     f"{t.kind} code at {t.value}: {share_new:.1%} of the new wave coded "
                     f"({share_old:.1%} of the old)")]


def _generalize(t: Any, new: Any) -> list[dict[str, Any]]:
    out = []
    for c, h in t.hierarchies.items():
        if c not in new.columns:
            continue
        uniq = unique_values(new[c])
        bad: list[Any] = []
        for level in range(h.height + 1):
            try:
                h.generalize(pd.Series(uniq, dtype=object), level, column=c)
                continue
            except SdcError:
                pass
            for v in uniq[:5000]:
                if v in bad:
                    continue
                try:
                    h.generalize(pd.Series([v], dtype=object), level, column=c)
                except SdcError:
                    bad.append(v)
        if bad:
            out.append(_finding("hierarchy_uncovered", c, bad, _count(new[c], bad),
                                f"{len(bad)} value(s) the hierarchy ({h.kind}, height "
                                f"{h.height}) does not cover at every level"))
    return out


def key_drift(old: Any, new: Any, columns: list[str], covered: set[str]) -> list[dict[str, Any]]:
    """``new_category`` findings of the key and PRAM ``columns`` not in ``covered`` (columns a
    step of the plan checks itself): values of ``new`` never seen in ``old``."""
    out = []
    for c in columns:
        if c in covered or c not in old.columns or c not in new.columns:
            continue
        vals = _new_labels(old, new, c)
        if vals:
            out.append(_finding("new_category", c, vals, _count(new[c], vals),
                                f"{len(vals)} category(ies) of a key or PRAM variable not seen "
                                "in the old wave; no step of the plan recodes them"))
    return out


def step_drift(treatment: Any, old: Any, new: Any, notes: Mapping[str, Any],
               new_notes: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The findings of one step: ``treatment`` received ``old`` in the old wave (its notes
    ``notes``) and receives ``new`` in the new wave (``new_notes``: its notes there, if it
    ran). See the module docstring for the kinds."""
    kind = treatment.type
    if kind == "recode":
        return _recode(treatment, old, new)
    if kind == "group_categories":
        return _grouping(treatment, old, new)
    if kind == "pram":
        return _pram(treatment, old, new, notes)
    if kind == "global_recode":
        return _global_recode(treatment, old, new, notes, new_notes)
    if kind == "top_bottom_code":
        return _top_bottom(treatment, old, new)
    if kind == "generalize":
        return _generalize(treatment, new)
    return []
