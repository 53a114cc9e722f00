"""Privacy models as values: frozen, validated at construction (`ParameterError`), JSON-able.

Every model is checked on a table of equivalence classes (records with equal quasi-identifiers):
class sizes |E|, per sensitive column a count matrix (classes × values), and, where needed,
population counts (k-map) or the data's counts per class (δ-presence). With p(s) the share of
value s among the released records (all records of the data, or the research subset of a
`DeltaPresence`) and q(s|E) its share in class E:

- `KAnonymity` (Sweeney 2002): |E| ≥ k.
- `DistinctLDiversity` (Machanavajjhala et al. 2007): at least l distinct values in E.
- `EntropyLDiversity`: ``−Σ_s q(s|E) ln q(s|E) ≥ ln l``.
- `RecursiveCLDiversity`: with counts r_1 ≥ r_2 ≥ … ≥ r_m in E, ``r_1 < c (r_l + … + r_m)``.
- `TCloseness` (Li, Li & Venkatasubramanian 2007): EMD(q(·|E), p) ≤ t (see
  ``sdcsession.privacy.distances``).
- `DeltaDisclosure` (Brickell & Shmatikov 2008): ``|ln(q(s|E)/p(s))| < δ`` for every value s of
  the data (a value absent from E violates it: ln 0 = −∞).
- `BetaLikeness` (enhanced, Cao & Karras 2012): for every s with q(s|E) > p(s):
  ``(q − p)/p ≤ min(β, −ln p)``.
- `KMap` and `DeltaPresence` (models relating the data to a population) are in
  ``sdcsession.privacy.population``, with the rule for a research subset.
- `AverageRisk` (prosecutor re-identification risk): the mean over records of 1/|E| (= #classes
  / #records) is at most ``max_risk``; a property of the whole release, not of classes.

``monotone`` marks the models for which, with record suppression, a class that satisfies the
model still does after being merged with any other class (k-anonymity, distinct l-diversity,
k-map): the lattice search prunes with these only.

Examples
--------
>>> KAnonymity(5)
KAnonymity(k=5)
>>> model_from_dict(TCloseness("disease", 0.2).to_dict())
TCloseness(column='disease', t=0.2, distance='equal', hierarchy=None)
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd  # noqa: F401  (the doctests use it)

from ..errors import ParameterError
from ..methods.params import check_choice, check_int, check_number
from ..utility.hierarchy import Hierarchy
from .distances import (
    SensitiveDomain,
    distributions,
    emd_equal,
    emd_hierarchical,
    emd_ordered,
    hierarchy_tree,
)

__all__ = ["PrivacyModel", "ClassTable", "Context", "KAnonymity", "DistinctLDiversity",
           "EntropyLDiversity", "RecursiveCLDiversity", "TCloseness", "DeltaDisclosure",
           "BetaLikeness", "AverageRisk", "MODELS", "model_from_dict"]

#: tag -> model class
MODELS: dict[str, type[PrivacyModel]] = {}


@attrs.define
class ClassTable:
    """Equivalence classes: ``sizes`` (G,) released records per class (the research subset's
    records when a `DeltaPresence` subset is given, else all records), ``sensitive`` {column:
    (G, m) counts over those records}, ``population`` (G,) counts of a k-map population table,
    ``universe`` (G,) all records of the data per class (only with a research subset; the
    population of δ-presence) and ``released`` (G,) the classes forming the release (for models
    whose verdict depends on the whole release; None: every class with ``sizes > 0``)."""

    sizes: np.ndarray
    sensitive: dict[Hashable, np.ndarray] = attrs.field(factory=dict)
    population: np.ndarray | None = None
    universe: np.ndarray | None = None
    released: np.ndarray | None = None


@attrs.define
class Context:
    """What the models need beyond the classes: the encoded sensitive columns (overall
    distributions over the released records), cached hierarchy trees, ``n`` the number of
    released records (suppressed ones included) and ``totals`` {weight column: its sum over
    them} (k-map estimators)."""

    domains: dict[Hashable, SensitiveDomain] = attrs.field(factory=dict)
    trees: dict[Any, tuple[np.ndarray, ...]] = attrs.field(factory=dict)
    n: int = 0
    totals: dict[Hashable, float] = attrs.field(factory=dict)


def _column(v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ParameterError(f"column: expected the name of the sensitive column, got {v!r:.60}")
    return v


@attrs.frozen
class PrivacyModel:
    """Base class: ``tag`` (for recipes), ``monotone`` (prunable with suppression), ``scope``
    ("class": violations per class; "release": one verdict for the released classes),
    ``needs_release`` (a class's verdict depends on the other released classes: the search
    suppresses until the released classes all pass, see ``population.violation_matrix``)."""

    tag: ClassVar[str] = ""
    monotone: ClassVar[bool] = False
    scope: ClassVar[str] = "class"
    needs_release: ClassVar[bool] = False

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.__dict__.get("tag"):
            MODELS[cls.tag] = cls

    @property
    def columns(self) -> tuple[str, ...]:
        """Sensitive columns the model reads."""
        col = getattr(self, "column", None)
        return (col,) if col is not None else ()

    def violations(self, t: ClassTable, ctx: Context) -> np.ndarray:
        """Boolean per class: True where the class violates the model."""
        return np.zeros(len(t.sizes), dtype=bool)

    def holds_release(self, sizes: np.ndarray) -> bool:
        """For ``scope == "release"``: does the release with these class sizes satisfy it?"""
        return True

    def to_dict(self) -> dict[str, Any]:
        """``{"model": tag, **parameters}`` (JSON data)."""
        out: dict[str, Any] = {"model": self.tag}
        for f in attrs.fields(type(self)):
            v = getattr(self, f.name)
            out[f.name] = v.to_dict() if isinstance(v, Hierarchy) else (
                list(v) if isinstance(v, tuple) else v)
        return out

    def describe(self) -> str:
        """Short text such as ``k-anonymity(k=5)``."""
        params = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items()
                           if k != "model" and not isinstance(v, (list, dict)))
        return f"{self.tag}({params})"


def model_from_dict(d: Any) -> PrivacyModel:
    """A model from ``{"model": tag, **parameters}`` (or a model itself).

    >>> model_from_dict({"model": "k_anonymity", "k": 3})
    KAnonymity(k=3)
    """
    if isinstance(d, PrivacyModel):
        return d
    if not isinstance(d, Mapping) or d.get("model") not in MODELS:
        raise ParameterError(f"privacy: expected privacy models (e.g. KAnonymity(5)) or their "
                             f"dicts with a 'model' key in {sorted(MODELS)}, got {d!r:.80}")
    cls = MODELS[d["model"]]
    params = {k: v for k, v in d.items() if k != "model"}
    names = {f.name for f in attrs.fields(cls)}
    if set(params) - names:
        raise ParameterError(f"privacy model {d['model']!r}: unknown parameter(s) "
                             f"{sorted(map(str, set(params) - names))}")
    try:
        return cls(**params)
    except TypeError as e:
        raise ParameterError(f"privacy model {d['model']!r}: {e}") from None


def _sdist(t: ClassTable, ctx: Context, col: str) -> tuple[np.ndarray, SensitiveDomain]:
    return t.sensitive[col], ctx.domains[col]


# ------------------------------------------------------------------------------ models
@attrs.frozen
class KAnonymity(PrivacyModel):
    """Every class has at least ``k`` records (Sweeney 2002).

    >>> KAnonymity(2).violations(ClassTable(np.array([1, 3])), Context()).tolist()
    [True, False]
    """

    tag: ClassVar[str] = "k_anonymity"
    monotone: ClassVar[bool] = True
    k: int = attrs.field(converter=lambda v: check_int("k", v, 1, 2**62))

    def violations(self, t: ClassTable, ctx: Context) -> np.ndarray:
        return np.asarray(t.sizes) < self.k


@attrs.frozen
class DistinctLDiversity(PrivacyModel):
    """At least ``l`` distinct values of ``column`` in every class (a missing value counts as a
    value of its own).

    >>> t = ClassTable(np.array([2, 2]), {"s": np.array([[1, 1], [2, 0]])})
    >>> DistinctLDiversity("s", 2).violations(t, Context()).tolist()
    [False, True]
    """

    tag: ClassVar[str] = "distinct_l_diversity"
    monotone: ClassVar[bool] = True
    column: str = attrs.field(converter=_column)
    l: int = attrs.field(converter=lambda v: check_int("l", v, 1, 2**31))  # noqa: E741

    def violations(self, t: ClassTable, ctx: Context) -> np.ndarray:
        return (t.sensitive[self.column] > 0).sum(axis=1) < self.l


@attrs.frozen
class EntropyLDiversity(PrivacyModel):
    """Entropy of ``column`` in every class at least ln ``l``: ``−Σ q ln q ≥ ln l``.

    >>> t = ClassTable(np.array([2, 3]), {"s": np.array([[1, 1], [2, 1]])})
    >>> EntropyLDiversity("s", 2).violations(t, Context()).tolist()
    [False, True]
    """

    tag: ClassVar[str] = "entropy_l_diversity"
    column: str = attrs.field(converter=_column)
    l: float = attrs.field(converter=lambda v: check_number("l", v, 1.0, None))  # noqa: E741

    def violations(self, t: ClassTable, ctx: Context) -> np.ndarray:
        q = distributions(t.sensitive[self.column])
        with np.errstate(divide="ignore", invalid="ignore"):
            h = -np.where(q > 0, q * np.log(np.where(q > 0, q, 1.0)), 0.0).sum(axis=1)
        return h < math.log(self.l) - 1e-12


@attrs.frozen
class RecursiveCLDiversity(PrivacyModel):
    """Recursive (c, l)-diversity: ``r_1 < c · (r_l + … + r_m)`` with the class's counts of
    ``column`` sorted decreasingly (fewer than l values: violated).

    >>> t = ClassTable(np.array([4, 4]), {"s": np.array([[2, 1, 1], [3, 1, 0]])})
    >>> RecursiveCLDiversity("s", c=2, l=2).violations(t, Context()).tolist()
    [False, True]
    """

    tag: ClassVar[str] = "recursive_cl_diversity"
    column: str = attrs.field(converter=_column)
    c: float = attrs.field(converter=lambda v: check_number("c", v, 0.0, None, lo_open=True))
    l: int = attrs.field(converter=lambda v: check_int("l", v, 1, 2**31))  # noqa: E741

    def violations(self, t: ClassTable, ctx: Context) -> np.ndarray:
        r = -np.sort(-np.asarray(t.sensitive[self.column], dtype=np.float64), axis=1)
        tail = r[:, self.l - 1:].sum(axis=1) if r.shape[1] >= self.l else np.zeros(len(r))
        return ~(r[:, 0] < self.c * tail) if r.shape[1] else np.ones(len(r), dtype=bool)


def _hier(v: Any) -> Hierarchy | None:
    return None if v is None else Hierarchy.from_dict(v)


@attrs.frozen
class TCloseness(PrivacyModel):
    """EMD between the class distribution of ``column`` and its distribution in the whole data
    at most ``t`` (Li, Li & Venkatasubramanian 2007). ``distance``: "equal" (half the L1
    distance), "ordered" (values in their natural order) or "hierarchical" (needs
    ``hierarchy``, a `Hierarchy` of the column's values).

    >>> d = SensitiveDomain.build(pd.Series(["a", "a", "b", "b"]), "s")
    >>> t = ClassTable(np.array([2, 2]), {"s": np.array([[1, 1], [2, 0]])})
    >>> TCloseness("s", 0.3).violations(t, Context({"s": d})).tolist()   # EMD 0 and 0.5
    [False, True]
    """

    tag: ClassVar[str] = "t_closeness"
    column: str = attrs.field(converter=_column)
    t: float = attrs.field(converter=lambda v: check_number("t", v, 0.0, 1.0))
    distance: str = attrs.field(default="equal", converter=lambda v: check_choice(
        "distance", v, ("equal", "ordered", "hierarchical")))
    hierarchy: Hierarchy | None = attrs.field(default=None, converter=_hier)

    def __attrs_post_init__(self) -> None:
        if self.distance == "hierarchical" and self.hierarchy is None:
            raise ParameterError("hierarchy: distance='hierarchical' needs the hierarchy of the "
                                 f"sensitive column {self.column!r}")

    def emd(self, t: ClassTable, ctx: Context) -> np.ndarray:
        """The EMD of every class."""
        counts, dom = _sdist(t, ctx, self.column)
        p = distributions(counts)
        if self.distance == "equal":
            return emd_equal(p, dom.reference)
        if self.distance == "ordered":
            return emd_ordered(p, dom.reference, dom.rank)
        key = (self.column, id(self.hierarchy))
        if key not in ctx.trees:
            ctx.trees[key] = hierarchy_tree(dom, self.hierarchy)  # type: ignore[arg-type]
        return emd_hierarchical(p, dom.reference, ctx.trees[key])

    def violations(self, t: ClassTable, ctx: Context) -> np.ndarray:
        return self.emd(t, ctx) > self.t + 1e-12


@attrs.frozen
class DeltaDisclosure(PrivacyModel):
    """``|ln(q(s|E)/p(s))| < δ`` for every value s of ``column`` (Brickell & Shmatikov 2008).

    >>> d = SensitiveDomain.build(pd.Series(["a", "b"] * 2), "s")
    >>> t = ClassTable(np.array([4, 3]), {"s": np.array([[2, 2], [2, 1]])})
    >>> DeltaDisclosure("s", 0.3).violations(t, Context({"s": d})).tolist()  # |ln(2/3)| = 0.405
    [False, True]
    """

    tag: ClassVar[str] = "delta_disclosure"
    column: str = attrs.field(converter=_column)
    delta: float = attrs.field(converter=lambda v: check_number("delta", v, 0.0, None,
                                                                lo_open=True))

    def violations(self, t: ClassTable, ctx: Context) -> np.ndarray:
        counts, dom = _sdist(t, ctx, self.column)
        q = distributions(counts)
        p = dom.reference
        used = p > 0
        with np.errstate(divide="ignore"):
            ratio = np.abs(np.log(np.where(q[:, used] > 0, q[:, used], 0.0) / p[used]))
        return ~(ratio < self.delta).all(axis=1)


@attrs.frozen
class BetaLikeness(PrivacyModel):
    """Enhanced β-likeness (Cao & Karras 2012): for every s with q(s|E) > p(s),
    ``(q − p)/p ≤ min(β, −ln p)``.

    >>> d = SensitiveDomain.build(pd.Series(["a", "b", "b", "b"]), "s")
    >>> t = ClassTable(np.array([2, 2]), {"s": np.array([[1, 1], [0, 2]])})
    >>> BetaLikeness("s", 1.0).violations(t, Context({"s": d})).tolist()  # 1 ≤ 1; 1/3 > −ln 0.75
    [False, True]
    """

    tag: ClassVar[str] = "beta_likeness"
    column: str = attrs.field(converter=_column)
    beta: float = attrs.field(converter=lambda v: check_number("beta", v, 0.0, None,
                                                               lo_open=True))

    def violations(self, t: ClassTable, ctx: Context) -> np.ndarray:
        counts, dom = _sdist(t, ctx, self.column)
        q = distributions(counts)
        p = dom.reference
        used = p > 0
        pu = p[used]
        gain = (q[:, used] - pu) / pu
        bound = np.minimum(self.beta, -np.log(pu))
        return ((q[:, used] > pu) & (gain > bound + 1e-12)).any(axis=1)


@attrs.frozen
class AverageRisk(PrivacyModel):
    """Average re-identification risk of the release, ``mean_r 1/|E_r| = #classes / #records``
    (suppressed records excluded), at most ``max_risk``.

    >>> AverageRisk(0.5).holds_release(np.array([2, 2, 1]))   # 3 classes / 5 records
    False
    """

    tag: ClassVar[str] = "average_risk"
    scope: ClassVar[str] = "release"
    max_risk: float = attrs.field(converter=lambda v: check_number("max_risk", v, 0.0, 1.0,
                                                                   lo_open=True))

    def holds_release(self, sizes: np.ndarray) -> bool:
        n = float(np.sum(sizes))
        return bool(n == 0 or np.count_nonzero(sizes) / n <= self.max_risk + 1e-12)
