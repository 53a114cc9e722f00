"""The ``generalize`` treatment: optimal full-domain generalisation under privacy models.

`Generalize` (tag ``"generalize"``) searches the lattice of the ``hierarchies`` (see
``sdcsession.privacy.lattice``), then releases the chosen node: every quasi-identifier replaced
by its value at the chosen level, and the records of classes that violate a model suppressed
(all their quasi-identifiers set to missing). The step's notes hold the chosen ``levels``, the
metric and its ``value``, the ``suppressed`` records, ``nodes_checked`` / ``nodes_total`` and
the lattice (for ``s.plot.lattice()``); `GeneralizationResult.from_notes` reads them back
(``s.generalization`` on a session).

Examples
--------
>>> import pandas as pd
>>> from sdcsession.utility.hierarchy import Hierarchy
>>> from sdcsession.privacy.models import KAnonymity
>>> df = pd.DataFrame({"zip": ["12", "13", "12", "22"]})
>>> generalize_frame(df, {"zip": Hierarchy.masking(2)}, {"zip": 1})["zip"].tolist()
['1*', '1*', '1*', '2*']
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError, TreatmentError
from ..methods.base import Result, Treatment, check_choice, check_number, encode_value
from ..risk._codes import check_frame
from ..roles import Roles
from ..utility.hierarchy import Hierarchy
from .check import as_hierarchies, as_models, check_model_columns
from .lattice import BASELINES, Engine, check_levels, search
from .metrics import METRICS
from .models import PrivacyModel
from .population import KMap

__all__ = ["Generalize", "GeneralizationResult", "generalize_frame", "as_hierarchies"]

#: nodes listed in the step's notes (larger lattices keep only the checked nodes)
MAX_NOTED_NODES = 20_000


def generalize_frame(data: pd.DataFrame, hierarchies: Mapping[str, Hierarchy | Any],
                     levels: Mapping[str, int],
                     suppressed: np.ndarray | pd.Series | None = None) -> pd.DataFrame:
    """``data`` with each column of ``levels`` generalised to its level (other columns shared);
    ``suppressed`` (a boolean mask) sets those records' generalised columns to missing. Level 0
    keeps the column's values and type.

    >>> df = pd.DataFrame({"age": [31, 47]})
    >>> generalize_frame(df, {"age": Hierarchy.intervals([[0, 40, 80]])}, {"age": 1})["age"].tolist()
    ['[0, 40)', '[40, 80]']
    """
    check_frame(data, "data")
    hs = as_hierarchies(hierarchies)
    levels = check_levels(levels, hs, all_columns=False)
    miss = [c for c in levels if c not in data.columns]
    if miss:
        raise ParameterError(f"levels: column(s) {miss} are not in the data")
    sup = None
    if suppressed is not None:
        sup = np.asarray(suppressed)
        if sup.shape != (len(data),) or sup.dtype != bool:
            raise ParameterError(f"suppressed: expected a boolean mask of {len(data)} records, "
                                 f"got {type(suppressed).__name__} of shape {sup.shape}")
    new = {}
    for c, lv in levels.items():
        h = hs[c]
        col = data[c]
        if lv == 0:
            h.generalize(col.drop_duplicates(), 0, column=c)  # coverage check
            out = col
        else:
            out = h.generalize(col, lv, column=c)
            if isinstance(col.dtype, pd.CategoricalDtype):
                out = out.astype("category")
        if sup is not None and sup.any():
            out = out.mask(pd.Series(sup, index=col.index))
        new[c] = out
    return data.assign(**new)


@attrs.frozen
class GeneralizationResult:
    """What a ``generalize`` step chose: ``levels`` ({column: level}), ``metric``, ``value``,
    ``suppressed``, ``nodes_checked``, ``nodes_total``, ``search``, ``models`` (descriptions)
    and ``lattice`` (a DataFrame, one row per listed node: levels, status, loss, suppressed);
    ``baseline``: the Datafly node's ``levels`` and ``suppressed`` (None without a baseline)."""

    levels: dict[str, int]
    metric: str
    value: float
    suppressed: int
    nodes_checked: int
    nodes_total: int
    search: str
    models: list[str]
    lattice: pd.DataFrame
    baseline: dict[str, Any] | None = None

    @classmethod
    def from_notes(cls, notes: Mapping[str, Any]) -> GeneralizationResult:
        """Read the notes of a ``generalize`` step."""
        lat = notes.get("lattice", {})
        frame = pd.DataFrame(lat.get("rows", []), columns=lat.get("columns", []))
        return cls(dict(notes["levels"]), notes["metric"], float(notes["value"]),
                   int(notes["suppressed"]), int(notes["nodes_checked"]),
                   int(notes["nodes_total"]), notes["search"], list(notes.get("models", [])),
                   frame, notes.get("baseline"))

    def __repr__(self) -> str:
        lv = ", ".join(f"{c}={v}" for c, v in self.levels.items())
        return (f"GeneralizationResult(levels: {lv}; {self.metric} {self.value:.6g}; "
                f"{self.suppressed} suppressed; {self.nodes_checked} of {self.nodes_total} "
                f"nodes checked, {self.search})")


def _baseline(v: Any) -> str | None:
    if v is not None and not (isinstance(v, str) and v in BASELINES):
        raise ParameterError(f"baseline: expected 'datafly' or None, got {v!r:.40}")
    return v


def _models(v: Any) -> tuple[PrivacyModel, ...]:
    ms = as_models(v)
    if sum(isinstance(m, KMap) for m in ms) > 1:
        raise ParameterError("privacy: at most one KMap model (one population table)")
    return ms


@attrs.frozen(eq=False)
class Generalize(Treatment):
    """Optimal full-domain generalisation under privacy models (tag ``"generalize"``).

    ``hierarchies``: {quasi-identifier: `Hierarchy`}; ``privacy``: models (`KAnonymity`, ...);
    ``max_suppression``: the share of records that may be suppressed; ``metric``: one of
    ``METRICS`` (default "loss"); ``search``: "optimal" or "heuristic"; ``baseline``: "datafly"
    (default: never more suppressed records nor less precision than the Datafly node) or None.
    See the module docstring and ``sdcsession.privacy.lattice``. A recipe written before
    ``baseline`` existed replays with ``baseline=None`` (its metric is stored).

    >>> from sdcsession.privacy.models import KAnonymity
    >>> g = Generalize({"zip": Hierarchy.masking(2)}, [KAnonymity(2)])
    >>> Treatment.from_dict(g.to_dict()) == g
    True
    """

    type: ClassVar[str] = "generalize"
    recorded_defaults: ClassVar[dict[str, Any]] = {"baseline": None}

    hierarchies: dict[str, Hierarchy] = attrs.field(converter=as_hierarchies)
    privacy: tuple[PrivacyModel, ...] = attrs.field(converter=_models)
    max_suppression: float = attrs.field(
        default=0.0, converter=lambda v: check_number("max_suppression", v, 0.0, 1.0))
    metric: str = attrs.field(default="loss",
                              converter=lambda v: check_choice("metric", v, METRICS))
    search: str = attrs.field(default="optimal", converter=lambda v: check_choice(
        "search", v, ("optimal", "heuristic")))
    baseline: str | None = attrs.field(default="datafly", converter=_baseline)

    def __attrs_post_init__(self) -> None:
        check_model_columns(self.privacy, list(self.hierarchies),
                            [c for m in self.privacy for c in m.columns])

    def to_dict(self) -> dict[str, Any]:
        where = "treatment 'generalize'"
        return {"type": self.type,
                "hierarchies": encode_value({c: h.to_dict() for c, h in self.hierarchies.items()},
                                            where=where),
                "privacy": encode_value([m.to_dict() for m in self.privacy], where=where),
                "max_suppression": self.max_suppression, "metric": self.metric,
                "search": self.search, "baseline": self.baseline}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Generalize) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_dict(), sort_keys=True, default=repr))

    def params(self) -> dict[str, Any]:
        return {"hierarchies": {c: f"{h.kind}, height {h.height}"
                                for c, h in self.hierarchies.items()},
                "privacy": [m.describe() for m in self.privacy],
                "max_suppression": self.max_suppression, "metric": self.metric,
                "search": self.search, "baseline": self.baseline}

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        cols = list(self.hierarchies)
        miss = [c for c in cols if c not in data.columns]
        if miss:
            raise TreatmentError(f"generalize: unknown column(s) {miss}; the data has "
                                 f"{list(data.columns)[:20]}")
        if roles.keys:
            not_keys = [c for c in cols if c not in roles.keys]
            if not_keys:
                raise TreatmentError(f"generalize: hierarchies name column(s) {not_keys} that are "
                                     f"not key variables (keys: {list(roles.keys)})")
        try:
            check_model_columns(self.models(roles), cols, data.columns)
        except ParameterError as e:
            raise TreatmentError(f"generalize: {e}") from None

    def models(self, roles: Roles) -> tuple[PrivacyModel, ...]:
        """The models, a k-map estimator without ``population_size`` or ``weight`` taking the
        session's weight (`TreatmentError` when there is none)."""
        out = []
        for m in self.privacy:
            if isinstance(m, KMap) and m.estimator is not None and m.population_size is None \
                    and m.weight is None:
                if not roles.weight:
                    raise TreatmentError(
                        f"generalize: {m.describe()} needs the population size: give "
                        "population_size=N or weight=, or declare a weight in the session")
                m = attrs.evolve(m, weight=roles.weight)
            out.append(m)
        return tuple(out)

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        models = self.models(roles)
        eng = Engine(data, self.hierarchies, models, max_suppression=self.max_suppression,
                     metric=self.metric)
        res = search(data, self.hierarchies, models, max_suppression=self.max_suppression,
                     metric=self.metric, search=self.search, baseline=self.baseline,
                     engine=eng)
        levels = tuple(res.levels[c] for c in eng.names)
        supp = eng.record_suppression(levels)
        out = generalize_frame(data, self.hierarchies, res.levels, supp)
        lat = res.lattice
        if len(lat) > MAX_NOTED_NODES:
            lat = lat[lat["status"].isin(["chosen", "feasible", "infeasible"])]
        lv = ", ".join(f"{c}={v}" for c, v in res.levels.items())
        notes = {
            "summary": (f"levels {lv}; {res.metric} {res.value:.6g}; {res.suppressed} records "
                        f"suppressed; {res.nodes_checked} of {res.nodes_total} nodes checked "
                        f"({res.search})"),
            "levels": {c: int(v) for c, v in res.levels.items()},
            "metric": res.metric, "value": float(res.value),
            "suppressed": int(res.suppressed),
            "suppressed_total": int(supp.sum()),
            "nodes_checked": int(res.nodes_checked), "nodes_total": int(res.nodes_total),
            "search": res.search, "models": [m.describe() for m in self.privacy],
            "baseline": res.baseline,
            "lattice": {"columns": list(map(str, lat.columns)),
                        "rows": [[None if isinstance(v, float) and np.isnan(v) else
                                  (v.item() if hasattr(v, "item") else v) for v in row]
                                 for row in lat.itertuples(index=False)]},
        }
        return Result(out, notes=notes)
