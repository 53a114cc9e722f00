"""Models that relate the data to a population — k-map and δ-presence — and how all models combine
when a research subset is given.

**k-map** (Sweeney's k-map; El Emam & Dankar 2008): every released class's combination occurs at
least k times in the population. ``KMap(k, population=...)`` takes either

- a population table (key columns and a ``count`` column): the class's population count
  ``F_E ≥ k`` (the table is generalised with the data);
- or an estimator, when only the sample is known. The sample is a fraction ``π = n / N`` of the
  population (``n`` records, ``N`` from ``population_size`` or the sum of the sampling weight
  column ``weight``); a population class of size F shows f ~ Binomial(F, π) sample records.

  * ``"poisson"`` (El Emam & Dankar's D3; Pannekoek 1999) and ``"zero_truncated_poisson"``
    (their D4, the sample class is known to be non-empty): with X ~ Poisson(λ = k·π) (or its
    zero-truncated version, ``P(X = x) = e^{−λ} λ^x / (x! (1 − e^{−λ}))`` for x ≥ 1), the derived
    sample threshold is ``k' = min(k, smallest c ≥ 1 with P(X ≥ c) ≤ α)`` (α = ``significance``):
    a population class with only k members reaches k' sample records with probability at most
    α. The class satisfies k-map when ``f_E ≥ k'`` — k'-anonymity of the sample (monotone).
    ARX derives the same k' for D4; for D3 its loop returns one more (``c + 1``), we keep the
    paper's definition for both.
  * ``"zayatz"`` (Zayatz 1991, extended from sample uniques to every sample size): the
    distribution of population class sizes is approximated, as Zayatz does, by the distribution
    of the released classes' sample sizes (``π_j`` = share of released classes of size j), and
    a sample class of size f is drawn from a population class of size j with the
    hypergeometric probability ``h(f; N, j, n)``:
    ``P(F < k | f) = Σ_{f ≤ j < k} π_j h(f; N, j, n) / Σ_{j ≥ f} π_j h(f; N, j, n)``; the
    class satisfies k-map when this is at most α (always when f ≥ k). The verdict depends on the
    other released classes (not monotone): the search suppresses violating classes and
    re-evaluates on the classes left until all released classes pass (a fixed point), so that
    `check` on the released file agrees.

**δ-presence** (Nergiz, Atzori & Clifton 2007): the data are the population, ``subset`` marks the
research sample that is released; ``δ(E) = |E ∩ subset| / |E| ∈ [δ_min, δ_max]`` for every class
E of the data.

**A research subset changes every model** (as in ARX): when a `DeltaPresence` is given, the
released records are the subset's; every other model is evaluated on the subset's records of
each class (class sizes, sensitive distributions, and the overall distribution p(s) of
t-closeness, δ-disclosure and β-likeness are over the subset), a class without subset records is
not released and violates none of them; the suppression limit counts the subset's records, and
the information-loss metrics are over the subset's records. A suppressed class is suppressed with
all its records (the population's too), so that the released file passes `check` with the same
subset mask.

Examples
--------
>>> derived_k(10, 0.2, 0.05, "poisson")     # λ = 2: P(X ≥ 5) = 0.053, P(X ≥ 6) = 0.017
6
>>> t = ClassTable(np.array([1, 2]), universe=np.array([4, 2]))
>>> DeltaPresence(0.0, 0.5, [True, False]).violations(t, Context()).tolist()   # δ = 1/4, 1
[False, True]
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..methods.params import check_int, check_number
from .models import ClassTable, Context, PrivacyModel

__all__ = ["KMap", "DeltaPresence", "ESTIMATORS", "derived_k", "zayatz_probability",
           "violation_matrix", "research_subset"]

#: the k-map estimators (``population=`` one of these instead of a table)
ESTIMATORS = ("poisson", "zero_truncated_poisson", "zayatz")


def _population(v: Any) -> tuple[tuple[str, ...], tuple[tuple[Any, ...], ...]] | str:
    """A population table as (columns, rows) with the count last, or an estimator's name."""
    if isinstance(v, str):
        if v not in ESTIMATORS:
            raise ParameterError(f"population: expected a table or one of the estimators "
                                 f"{list(ESTIMATORS)}, got {v!r:.40}")
        return v
    if isinstance(v, Mapping) and set(v) == {"columns", "rows"}:
        frame = pd.DataFrame([tuple(r) for r in v["rows"]], columns=list(v["columns"]))
    elif isinstance(v, pd.DataFrame):
        frame = v
    else:
        raise ParameterError("population: expected a DataFrame of key columns and a 'count' "
                             f"column, or one of {list(ESTIMATORS)}, got {type(v).__name__}")
    if "count" not in frame.columns or len(frame.columns) < 2:
        raise ParameterError("population: expected key columns and a column named 'count'")
    cnt = frame["count"]
    if isinstance(cnt, pd.DataFrame) or pd.api.types.is_bool_dtype(cnt) or \
            not pd.api.types.is_numeric_dtype(cnt):
        raise ParameterError("population: the 'count' column needs whole numbers >= 0 (one "
                             "numeric column; counts given as text are not converted)")
    cnt = cnt.astype(np.float64)
    if len(frame) == 0 or not np.isfinite(cnt).all() or (cnt < 0).any() or \
            (cnt != np.floor(cnt)).any():
        raise ParameterError("population: the 'count' column needs whole numbers >= 0, "
                             "finite and not missing")
    keys = [c for c in frame.columns if c != "count"]
    if not all(isinstance(c, str) for c in keys):
        raise ParameterError("population: key column names must be text")
    rows = tuple(tuple(r) for r in frame[keys].astype(object).itertuples(index=False))
    return (*keys, "count"), tuple((*r, int(c)) for r, c in zip(rows, cnt, strict=True))


def derived_k(k: int, fraction: float, significance: float, estimator: str) -> int:
    """The sample threshold k' of the Poisson (D3) or zero-truncated Poisson (D4) estimator:
    ``min(k, smallest c ≥ 1 with P(X ≥ c) ≤ significance)``, X ~ Poisson(k · ``fraction``)
    (zero-truncated for D4). El Emam & Dankar (2008).

    >>> derived_k(5, 0.1, 0.05, "poisson"), derived_k(5, 0.1, 0.05, "zero_truncated_poisson")
    (3, 3)
    >>> derived_k(4, 1.0, 0.05, "poisson")    # a census: the sample is the population
    4
    """
    from scipy import stats

    lam = k * float(fraction)
    c = np.arange(1, k + 1)
    tail = stats.poisson.sf(c - 1, lam)  # P(X >= c)
    if estimator == "zero_truncated_poisson":
        tail = tail / max(-np.expm1(-lam), 1e-300)
    ok = np.flatnonzero(tail <= significance + 1e-15)
    return int(min(k, c[ok[0]])) if len(ok) else int(k)


def zayatz_probability(sizes: np.ndarray, prior: np.ndarray, k: int, n: int,
                       big_n: int) -> np.ndarray:
    """``P(F < k | f)`` for sample class sizes ``sizes``, the population class sizes having the
    distribution of the sample sizes ``prior`` (Zayatz 1991), with n records sampled from
    ``big_n`` (see the module docstring). A size with no possible population class gets 1.

    >>> p = zayatz_probability(np.array([1, 3]), np.array([1, 1, 3]), k=3, n=5, big_n=10)
    >>> p.round(4).tolist()   # (2/3 · 1/2) / (2/3 · 1/2 + 1/3 · 5/12)
    [0.7059, 0.0]
    """
    from scipy import stats

    sizes = np.asarray(sizes, dtype=np.int64)
    out = np.zeros(len(sizes))
    low = sizes < k
    if not low.any():
        return out
    js, cnt = np.unique(np.asarray(prior, dtype=np.int64), return_counts=True)
    pi = cnt / max(cnt.sum(), 1)
    fs, inv = np.unique(sizes[low], return_inverse=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.exp(stats.hypergeom.logpmf(fs[:, None], big_n, js[None, :], n))
    h = np.where(js[None, :] >= fs[:, None], np.nan_to_num(h), 0.0) * pi[None, :]
    num = (h * (js[None, :] < k)).sum(axis=1)
    den = h.sum(axis=1)
    p = np.divide(num, den, out=np.ones_like(num), where=den > 0)
    out[low] = p[inv]
    return out


def _size(v: Any) -> int | None:
    return None if v is None else check_int("population_size", v, 1, 2**62)


def _weight(v: Any) -> str | None:
    if v is None or (isinstance(v, str) and v.strip()):
        return v
    raise ParameterError(f"weight: expected the name of a sampling-weight column, got {v!r:.60}")


@attrs.frozen(eq=False)
class KMap(PrivacyModel):
    """k-map: every class's combination occurs at least ``k`` times in the population.
    ``population`` is a table of key columns and a ``count`` column (counts per combination at
    the quasi-identifiers' original values; the search generalises it with the data), or an
    estimator in ``ESTIMATORS`` with the population size from ``population_size`` or the sum of
    the ``weight`` column (a session's weight when neither is given), and ``significance`` α (see
    the module docstring).

    >>> pop = pd.DataFrame({"sex": ["m", "f"], "count": [10, 2]})
    >>> t = ClassTable(np.array([1, 1]), population=np.array([10, 2]))
    >>> KMap(3, population=pop).violations(t, Context()).tolist()
    [False, True]
    >>> t = ClassTable(np.array([2, 3, 9]))
    >>> KMap(10, "poisson", population_size=70).violations(t, Context(n=14)).tolist()  # k' = 6
    [True, True, False]
    """

    tag: ClassVar[str] = "k_map"
    k: int = attrs.field(converter=lambda v: check_int("k", v, 1, 2**62))
    population: Any = attrs.field(converter=_population)
    population_size: int | None = attrs.field(default=None, kw_only=True, converter=_size)
    weight: str | None = attrs.field(default=None, kw_only=True, converter=_weight)
    significance: float = attrs.field(default=0.05, kw_only=True, converter=lambda v: check_number(
        "significance", v, 0.0, 1.0, hi_open=True))

    def __attrs_post_init__(self) -> None:
        if self.estimator is None and (self.population_size is not None or self.weight):
            raise ParameterError("population_size/weight: only with an estimator "
                                 f"(population= one of {list(ESTIMATORS)}), not with a table")
        if self.population_size is not None and self.weight is not None:
            raise ParameterError("population_size: give either population_size or weight")

    @property
    def estimator(self) -> str | None:
        """The estimator's name, or None for a population table."""
        return self.population if isinstance(self.population, str) else None

    @property
    def monotone(self) -> bool:  # type: ignore[override]
        """A table and the Poisson estimators are monotone; Zayatz's is not."""
        return self.estimator != "zayatz"

    @property
    def needs_release(self) -> bool:  # type: ignore[override]
        """Zayatz's estimator reads the other released classes."""
        return self.estimator == "zayatz"

    def frame(self) -> pd.DataFrame:
        """The population table as a DataFrame (`ParameterError` for an estimator)."""
        if self.estimator is not None:
            raise ParameterError(f"population: {self.estimator!r} is an estimator, not a table")
        cols, rows = self.population
        return pd.DataFrame(list(rows), columns=list(cols))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"model": self.tag, "k": self.k}
        if self.estimator is None:
            cols, rows = self.population
            out["population"] = {"columns": list(cols), "rows": [list(r) for r in rows]}
            return out
        out.update(population=self.estimator, population_size=self.population_size,
                   weight=self.weight, significance=self.significance)
        return out

    def describe(self) -> str:
        if self.estimator is None:
            return f"k_map(k={self.k}, population table)"
        size = self.population_size if self.weight is None else f"sum of {self.weight!r}"
        return (f"k_map(k={self.k}, {self.estimator}, population_size={size}, "
                f"significance={self.significance})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KMap) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self.k, self.estimator, self.population_size, self.weight))

    def sampling(self, ctx: Context) -> tuple[int, int]:
        """``(n, N)``: released records and the population size (`ParameterError` when N is
        unknown or smaller than n)."""
        if self.population_size is not None:
            big = self.population_size
        elif self.weight is not None and self.weight in ctx.totals:
            big = int(round(ctx.totals[self.weight]))
        else:
            raise ParameterError(f"population_size: the k-map estimator {self.estimator!r} "
                                 "needs the population size (population_size=N or weight= a "
                                 "sampling-weight column)")
        if big < ctx.n:
            raise ParameterError(f"population_size: the population ({big}) must be at least the "
                                 f"number of records of the sample ({ctx.n})")
        return ctx.n, big

    def threshold(self, ctx: Context) -> int:
        """k' of a Poisson estimator (k for a table)."""
        if self.estimator in ("poisson", "zero_truncated_poisson"):
            n, big = self.sampling(ctx)
            return derived_k(self.k, n / max(big, 1), self.significance, self.estimator)
        return self.k

    def violations(self, t: ClassTable, ctx: Context) -> np.ndarray:
        sizes = np.asarray(t.sizes)
        if self.estimator is None:
            pop = np.zeros(len(sizes)) if t.population is None else t.population
            return pop < self.k
        if self.estimator != "zayatz":
            return sizes < self.threshold(ctx)
        n, big = self.sampling(ctx)
        rel = sizes > 0 if t.released is None else np.asarray(t.released) & (sizes > 0)
        p = zayatz_probability(sizes, sizes[rel], self.k, n, big)
        return p > self.significance + 1e-12


def _subset(v: Any) -> tuple[bool, ...]:
    if isinstance(v, (pd.Series, np.ndarray, list, tuple)):
        arr = np.asarray(v, dtype=object)
        if arr.ndim == 1 and all(isinstance(x, (bool, np.bool_)) for x in arr):
            return tuple(bool(x) for x in arr)
    raise ParameterError("subset: expected a boolean mask (one True/False per record: True for "
                         "the records of the research sample)")


@attrs.frozen(eq=False)
class DeltaPresence(PrivacyModel):
    """δ-presence: the share of research-sample records (``subset``, a boolean mask over the
    data's records, which are the population) in every class is in [``dmin``, ``dmax``]; the
    other models are then evaluated on the subset's records (see the module docstring).

    >>> t = ClassTable(np.array([1, 2]), universe=np.array([4, 2]))
    >>> DeltaPresence(0.0, 0.5, [True, False]).violations(t, Context()).tolist()
    [False, True]
    """

    tag: ClassVar[str] = "delta_presence"
    dmin: float = attrs.field(converter=lambda v: check_number("dmin", v, 0.0, 1.0))
    dmax: float = attrs.field(converter=lambda v: check_number("dmax", v, 0.0, 1.0))
    subset: tuple[bool, ...] = attrs.field(converter=_subset)

    def __attrs_post_init__(self) -> None:
        if self.dmin > self.dmax:
            raise ParameterError(f"dmin: expected dmin <= dmax, got {self.dmin} > {self.dmax}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeltaPresence) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self.dmin, self.dmax, sum(self.subset)))

    def __repr__(self) -> str:
        return (f"DeltaPresence(dmin={self.dmin}, dmax={self.dmax}, subset=<{sum(self.subset)} of "
                f"{len(self.subset)} records>)")

    def violations(self, t: ClassTable, ctx: Context) -> np.ndarray:
        sizes = np.asarray(t.sizes, dtype=np.float64)
        tot = sizes if t.universe is None else np.asarray(t.universe, dtype=np.float64)
        d = np.divide(sizes, tot, out=np.zeros_like(sizes), where=tot > 0)
        return (d < self.dmin - 1e-12) | (d > self.dmax + 1e-12)


def research_subset(models: Sequence[PrivacyModel], n: int) -> np.ndarray | None:
    """The research subset of the `DeltaPresence` models (a boolean mask of length ``n``), or
    None; `ParameterError` for a wrong length or two different subsets.

    >>> research_subset([DeltaPresence(0, 1, [True, False])], 2).tolist()
    [True, False]
    """
    subs = {m.subset for m in models if isinstance(m, DeltaPresence)}
    if not subs:
        return None
    if len(subs) > 1:
        raise ParameterError("subset: every DeltaPresence model must use the same research subset")
    sub = np.asarray(next(iter(subs)), dtype=bool)
    if len(sub) != n:
        raise ParameterError(f"subset: expected one True/False per record ({n}), got {len(sub)}")
    return sub


def violation_matrix(models: Sequence[PrivacyModel], t: ClassTable, ctx: Context, *,
                     fixpoint: bool = False) -> np.ndarray:
    """Classes × models: True where a class-level model is violated. A class without released
    records (``sizes == 0``, possible with a research subset) violates only `DeltaPresence`.
    Models with ``needs_release`` read the released classes: with ``fixpoint`` (the search) the
    classes violating any other model are left out, and violators are removed until the
    classes left all pass; without it (`check`) every class with records is released.

    >>> t = ClassTable(np.array([1, 3]))
    >>> violation_matrix([KMap(2, "poisson", population_size=4)], t, Context(n=4)).tolist()
    [[True], [False]]
    """
    sizes = np.asarray(t.sizes)
    out = np.zeros((len(sizes), len(models)), dtype=bool)
    has = sizes > 0
    later = []
    for i, m in enumerate(models):
        if m.scope != "class":
            continue
        if m.needs_release:
            later.append(i)
            continue
        v = np.asarray(m.violations(t, ctx), dtype=bool)
        out[:, i] = v if isinstance(m, DeltaPresence) else v & has
    if later:
        keep = has & ~out.any(axis=1) if fixpoint else has
        saved = t.released
        try:
            while True:
                t.released = keep
                for i in later:
                    out[:, i] = np.asarray(models[i].violations(t, ctx), dtype=bool) & has
                new = keep & ~out[:, later].any(axis=1)
                if not fixpoint or new.sum() == keep.sum():
                    break
                keep = new
        finally:
            t.released = saved
    return out


def weight_totals(data: pd.DataFrame, models: Sequence[PrivacyModel],
                  released: np.ndarray | None) -> dict[Hashable, float]:
    """Sum of every k-map ``weight`` column over the released records (`ParameterError` for a
    missing, non-numeric or negative weight)."""
    out: dict[Hashable, float] = {}
    for m in models:
        w = getattr(m, "weight", None)
        if w is None or w in out:
            continue
        if w not in data.columns:
            raise ParameterError(f"weight: unknown column {w!r} of {m.describe()}")
        vals = pd.to_numeric(data[w], errors="coerce").to_numpy(np.float64)
        if released is not None:
            vals = vals[released]
        if np.isnan(vals).any() or (vals < 0).any():
            raise ParameterError(f"weight: column {w!r} needs non-negative numbers")
        out[w] = float(vals.sum())
    return out
