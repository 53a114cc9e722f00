"""`check`: which privacy models a (released) file satisfies, and where it fails them.

Equivalence classes are the combinations of the ``keys`` as they are in the data. Missing
values: a record whose keys are *all* missing is a suppressed record and is left out of every
class (and of the models' checks); a missing value in some keys only is a value of its own
("*"-like, not sdcMicro's wildcard), so such records form classes with the same pattern. The
overall distribution of a sensitive column (t-closeness, δ-disclosure, β-likeness) is over all
records of the data (of the research subset, with a `DeltaPresence`), suppressed ones included
(their sensitive values are released).

Examples
--------
>>> import pandas as pd
>>> from sdcsession.privacy.models import KAnonymity, DistinctLDiversity
>>> df = pd.DataFrame({"age": ["<30"] * 3 + ["30+"] * 2, "ill": ["a", "b", "a", "a", "a"]})
>>> r = check(df, ["age"], [KAnonymity(2), DistinctLDiversity("ill", 2)])
>>> r.to_frame()[["holds", "failing_classes", "failing_records"]].values.tolist()
[[True, 0, 0], [False, 1, 2]]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..risk._codes import _unhashable, check_frame
from ..utility.hierarchy import Hierarchy
from .distances import SensitiveDomain
from .models import ClassTable, Context, PrivacyModel, model_from_dict
from .population import KMap, research_subset, violation_matrix, weight_totals

__all__ = ["check", "CheckResult", "as_models", "as_hierarchies", "build_context",
           "check_model_columns", "check_inputs"]


def as_models(models: Any) -> tuple[PrivacyModel, ...]:
    """One model or a list of models (or their dicts) as a tuple; `ParameterError` otherwise.

    >>> from sdcsession.privacy.models import KAnonymity
    >>> as_models(KAnonymity(2))
    (KAnonymity(k=2),)
    """
    if isinstance(models, (PrivacyModel, dict)):
        models = [models]
    if not isinstance(models, (list, tuple)) or not models:
        raise ParameterError("privacy: expected one or more privacy models, e.g. "
                             "[KAnonymity(5), DistinctLDiversity('disease', 2)]")
    return tuple(model_from_dict(m) for m in models)


def as_hierarchies(value: Any) -> dict[str, Hierarchy]:
    """``{column: Hierarchy}`` from a mapping of columns to hierarchies (or ARX tables, nested
    dicts, or their ``to_dict`` forms); `ParameterError` otherwise.

    >>> as_hierarchies({"zip": Hierarchy.masking(2)})["zip"].height
    2
    """
    if not isinstance(value, Mapping) or not value:
        raise ParameterError("hierarchies: expected a mapping {column: Hierarchy} with at least "
                             "one quasi-identifier")
    out = {}
    for c, h in value.items():
        if not isinstance(c, str) or not c.strip():
            raise ParameterError(f"hierarchies: expected column names as keys, got {c!r:.40}")
        out[c] = Hierarchy.from_dict(h)
    return out


def check_inputs(data: Any, hierarchies: Any, models: Any
                 ) -> tuple[dict[str, Hierarchy], tuple[PrivacyModel, ...]]:
    """The hierarchies and models of a lattice search on ``data``, checked: ``data`` a DataFrame
    with records and unique flat column names (`MeasureError` / `RoleError`), every hierarchy's
    column in it, every model's column in it and not a quasi-identifier (`ParameterError`)."""
    check_frame(data, "data")
    hs = as_hierarchies(hierarchies)
    miss = [c for c in hs if c not in data.columns]
    if miss:
        raise ParameterError(f"hierarchies: unknown column(s) {miss}; the data has "
                             f"{[str(c) for c in data.columns][:20]}")
    ms = as_models(models)
    check_model_columns(ms, list(hs), data.columns)
    return hs, ms


def check_model_columns(models: Sequence[PrivacyModel], keys: Sequence[Hashable],
                        columns: Iterable[Hashable]) -> None:
    """Sensitive columns must exist and must not be quasi-identifiers (`ParameterError`)."""
    cols = set(columns)
    for m in models:
        for c in m.columns:
            if c in keys:
                raise ParameterError(f"privacy: column {c!r} of {m.describe()} is a "
                                     "quasi-identifier; a sensitive attribute must not be one")
            if c not in cols:
                raise ParameterError(f"privacy: unknown sensitive column {c!r} of "
                                     f"{m.describe()}")
        if isinstance(m, KMap) and m.weight is not None:
            if m.weight in keys:
                raise ParameterError(f"weight: column {m.weight!r} of {m.describe()} is a "
                                     "quasi-identifier")
            if m.weight not in cols:
                raise ParameterError(f"weight: unknown column {m.weight!r} of {m.describe()}")
        if isinstance(m, KMap) and m.estimator is None:
            pkeys = [c for c in m.population[0] if c != "count"]
            if sorted(map(str, pkeys)) != sorted(map(str, keys)):
                raise ParameterError(f"population: its key columns {pkeys} must be the "
                                     f"quasi-identifiers {list(keys)}")


def build_context(data: pd.DataFrame, models: Sequence[PrivacyModel],
                  released: np.ndarray | None = None) -> Context:
    """Encode every sensitive column the models read (overall distributions over the
    ``released`` records — a research subset — or all records), with the number of released
    records and the sums of k-map weight columns over them."""
    ctx = Context(n=len(data) if released is None else int(np.count_nonzero(released)))
    for m in models:
        for c in m.columns:
            if c not in ctx.domains:
                ctx.domains[c] = SensitiveDomain.build(data[c], c, released)
    ctx.totals.update(weight_totals(data, models, released))
    return ctx


def _keys(data: pd.DataFrame, keys: Any) -> list[Hashable]:
    if isinstance(keys, str):
        keys = [keys]
    if not isinstance(keys, (list, tuple)) or not keys:
        raise ParameterError("keys: expected one or more column names")
    miss = [k for k in keys if not isinstance(k, str) or k not in data.columns]
    if miss or len(set(keys)) != len(keys):
        raise ParameterError(f"keys: unknown or repeated column(s) {miss or list(keys)}; the data "
                             f"has {list(data.columns)[:20]}")
    return list(keys)


def _joint(frames: list[pd.DataFrame], keys: list[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    """Joint code of the key combination over stacked frames, and the all-missing mask."""
    n = sum(len(f) for f in frames)
    joint = np.zeros(n, dtype=np.int64)
    all_na = np.ones(n, dtype=bool)
    for c in keys:
        col = pd.concat([f[c].astype(object) for f in frames], ignore_index=True)
        try:
            codes, uniq = pd.factorize(col, use_na_sentinel=True)
        except TypeError:  # lists, dicts, sets in the cells
            raise _unhashable(col.rename(c), "keys") from None
        all_na &= codes < 0
        joint = pd.factorize(joint * (len(uniq) + 1) + codes + 1)[0].astype(np.int64)
    return joint, all_na


@attrs.frozen(eq=False)
class CheckResult:
    """Result of `check`: ``holds`` per model, ``class_ids`` per record (−1 = suppressed),
    ``violations`` (classes × models), ``sizes`` of the classes (their research-subset records
    when a `DeltaPresence` is checked), ``n_suppressed``.

    ``to_frame()`` has one row per model; ``failing_records(i)`` is a boolean Series of the
    records in classes violating model i; ``bool(result)`` is True when every model holds.
    """

    models: tuple[PrivacyModel, ...]
    holds: tuple[bool, ...]
    class_ids: pd.Series
    sizes: np.ndarray
    violations: np.ndarray
    n_suppressed: int

    def __bool__(self) -> bool:
        return all(self.holds)

    def failing_records(self, model: int | PrivacyModel = 0) -> pd.Series:
        """Records (a boolean Series on the data's index) in classes that violate ``model``."""
        i = self.models.index(model) if isinstance(model, PrivacyModel) else int(model)
        bad = self.violations[:, i]
        ids = self.class_ids.to_numpy()
        out = np.zeros(len(ids), dtype=bool)
        out[ids >= 0] = bad[ids[ids >= 0]]
        return pd.Series(out, index=self.class_ids.index, name="fails")

    def to_frame(self) -> pd.DataFrame:
        """One row per model: model, holds, failing_classes, failing_records."""
        rows = []
        for i, m in enumerate(self.models):
            bad = self.violations[:, i]
            rows.append({"model": m.describe(), "holds": bool(self.holds[i]),
                         "failing_classes": int(bad.sum()),
                         "failing_records": int(self.sizes[bad].sum())})
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        lines = [f"privacy check: {len(self.sizes)} classes, {self.n_suppressed} suppressed "
                 "records"]
        for r in self.to_frame().itertuples(index=False):
            mark = "holds" if r.holds else (f"FAILS ({r.failing_classes} classes, "
                                            f"{r.failing_records} records)")
            lines.append(f"  {r.model:<40} {mark}")
        return "\n".join(lines)


def check(data: pd.DataFrame, keys: Sequence[str] | str, models: Any) -> CheckResult:
    """Check privacy ``models`` on ``data`` with quasi-identifiers ``keys`` (see the module
    docstring for the missing-value rule; a record with all keys missing is excluded).

    A `KMap` population table is matched on the key values as they are in ``data`` (generalise
    it with `generalize_frame` to check a generalised file); a `DeltaPresence` subset is a
    boolean mask over the records of ``data``, and with it every other model is checked on the
    subset's records of each class (``sdcsession.privacy.population``).

    Examples
    --------
    >>> from sdcsession.privacy.models import TCloseness
    >>> df = pd.DataFrame({"z": ["a", "a", "b", "b"], "s": [1, 2, 1, 1]})
    >>> check(df, "z", [TCloseness("s", 0.3)]).holds    # EMDs 0.25 and 0.25
    (True,)
    """
    check_frame(data, "data")
    keys = _keys(data, keys)
    models = as_models(models)
    check_model_columns(models, keys, data.columns)
    n = len(data)
    sub = research_subset(models, n)
    frames = [data[keys]]
    kmaps = [m for m in models if isinstance(m, KMap) and m.estimator is None]
    pops = [m.frame() for m in kmaps]
    frames += [p[keys] for p in pops]
    joint, all_na = _joint(frames, keys)
    kept = ~all_na[:n]
    ids = np.full(n, -1, dtype=np.int64)
    cls, inv = np.unique(joint[:n][kept], return_inverse=True)
    ids[kept] = inv
    g = len(cls)
    rel = kept if sub is None else kept & sub
    sizes = np.bincount(ids[rel], minlength=g)
    ctx = build_context(data, models, sub)
    table = ClassTable(sizes, universe=None if sub is None else np.bincount(ids[kept],
                                                                            minlength=g))
    for c, dom in ctx.domains.items():
        table.sensitive[c] = np.bincount(ids[rel] * dom.m + dom.codes[rel],
                                         minlength=g * dom.m).reshape(g, dom.m)
    viol = np.zeros((g, len(models)), dtype=bool)
    holds = []
    off = n
    for i, m in enumerate(models):
        if isinstance(m, KMap) and m.estimator is None:
            p = pops[kmaps.index(m)]
            pj = joint[off:off + len(p)]
            off += len(p)
            pos = np.searchsorted(cls, pj)
            hit = (pos < g) & (cls[np.minimum(pos, g - 1)] == pj) if g else np.zeros(0, bool)
            table.population = np.bincount(pos[hit], weights=p["count"].to_numpy(float)[hit],
                                           minlength=g)
            viol[:, i] = violation_matrix([m], table, ctx)[:, 0]
    rest = [i for i, m in enumerate(models) if not (isinstance(m, KMap) and m.estimator is None)]
    viol[:, rest] = violation_matrix([models[i] for i in rest], table, ctx)
    for i, m in enumerate(models):
        holds.append(bool(m.holds_release(sizes) if m.scope == "release"
                          else not viol[:, i].any()))
    return CheckResult(models, tuple(holds), pd.Series(ids, index=data.index, name="class"),
                       sizes, viol, int((~kept).sum()))
