"""Measures bound to states: a registry of named measures and a per-state cache.

A measure is a function ``fn(state, **params) -> value``. `compute` looks the value up in the
state's cache under ``(name, frozen params)`` and computes it on a miss; ``None`` results are cached
too. `COUNTS` counts real computations per name (tests use it to check that nothing is
recomputed).

Example
-------
>>> import pandas as pd
>>> from sdcsession.roles import Roles
>>> from sdcsession.session.state import State
>>> df = pd.DataFrame({"sex": ["m", "f", "m"]})
>>> st = State(df, Roles(keys=("sex",)), original=df, original_roles=Roles(keys=("sex",)))
>>> int(st.measure("k_violations", k=2))
1
"""

from __future__ import annotations

import functools
import inspect
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from ..errors import ParameterError
from ..methods.encoding import typed_freeze
from ..risk.exact_sum import exact_mean, exact_sum
from .per_original import on_unchanged

if TYPE_CHECKING:  # pragma: no cover
    from .state import State

__all__ = ["Measure", "MEASURES", "COUNTS", "register", "compute", "available", "cache_key"]


@attrs.frozen
class Measure:
    """A registered measure: name, function of (state, **params), one-line description."""

    name: str
    fn: Callable[..., Any]
    description: str
    kind: str = "risk"


MEASURES: dict[str, Measure] = {}
COUNTS: Counter[str] = Counter()


def register(name: str, description: str, kind: str = "risk") -> Callable:
    """Decorator registering ``fn(state, **params)`` as measure ``name``."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        MEASURES[name] = Measure(name, fn, description, kind)
        _defaults.cache_clear()
        return fn

    return deco


def cache_key(name: str, params: dict[str, Any]) -> tuple:
    """The cache key of a measure call: ``(name, frozen sorted params)``, the type of every value
    beside it (``0`` and ``False`` are different calls: one is a flag, the other is refused).

    A parameter that cannot be a key (a Series, an object without a hash) is a `ParameterError`
    naming it.
    """
    for p, v in params.items():
        try:
            hash(typed_freeze(v))
        except TypeError:
            raise ParameterError(f"{name}: {p}: expected a plain value (a number, text, a list "
                                 f"of names), got {type(v).__name__}") from None
    return (name, typed_freeze(params))


@functools.cache
def _defaults(name: str) -> dict[str, Any]:
    sig = inspect.signature(MEASURES[name].fn)
    return {p.name: p.default for p in list(sig.parameters.values())[1:]
            if p.default is not inspect.Parameter.empty
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def compute(state: State, name: str, /, **params: Any) -> Any:
    """Value of measure ``name`` on ``state``, from the state's cache when present.

    Omitted parameters are filled with the measure's defaults before the cache is consulted, so
    ``measure("x")`` and ``measure("x", alpha=1.0)`` share one entry.
    """
    m = MEASURES.get(name)
    if m is None:
        raise ParameterError(f"measure: unknown measure {name!r}; known: {sorted(MEASURES)}")
    if state.distributed and not name.startswith("dask."):
        from ..errors import MeasureError

        raise MeasureError(
            f"measure {name!r} is not distributed: on a Dask session the measures are fk/Fk, "
            "individual, global and household risk, k-violations, l-diversity and the utility "
            "measures of s.utility; compute this one on data in memory (e.g. a sample)")
    params = {**_defaults(name), **params}
    if "alpha" in params and params["alpha"] is None:
        params["alpha"] = state.alpha  # the session's alpha (sdcMicro createSdcObj(alpha=))
    key = cache_key(name, params)
    cache = state.cache
    if key in cache:
        return cache[key]
    value = m.fn(state, **params)
    COUNTS[name] += 1
    cache[key] = value
    return value


def available() -> dict[str, str]:
    """Names of the registered measures with their one-line descriptions."""
    return {n: m.description for n, m in sorted(MEASURES.items())}


# ------------------------------------------------------------------------------------- risk
@register("frequencies", "fk and Fk per record (missing keys as wildcards, weight alpha)")
def _frequencies(state: State, alpha: float | None = None) -> Any:
    from ..risk import frequencies

    r = state.roles
    cols = [*r.keys, *([r.weight] if r.weight else [])]
    # a state whose keys and weight are the original's (e.g. after noise on numeric variables)
    # shares the original's frequencies, computed once per tree
    return on_unchanged(state.original, state.data, cols,
                        ("frequencies", tuple(r.keys), r.weight, alpha),
                        lambda o, d: frequencies(d, list(r.keys), weight=r.weight, alpha=alpha))


@register("individual_risk", "individual re-identification risk per record (Benedetti-Franconi)")
def _individual(state: State, alpha: float | None = None, method: str = "approx") -> Any:
    from ..risk.individual import individual_risk_from_freq

    r = state.roles
    weighted = r.weight is not None

    def fn(o: Any, d: Any) -> Any:
        f = state.measure("frequencies", alpha=alpha)
        return individual_risk_from_freq(f["fk"], f["Fk"] if weighted else None, method=method,
                                         warn=False)

    cols = [*r.keys, *([r.weight] if weighted else [])]
    return on_unchanged(state.original, state.data, cols,
                        ("individual_risk", tuple(r.keys), r.weight, alpha, method), fn)


@register("household_risk", "household risk 1 - prod(1 - r_i) per record (None without household)")
def _household(state: State, alpha: float | None = None) -> Any:
    from ..risk.household import household_risk_from_individual

    r = state.roles
    if r.household is None:
        return None
    cols = [*r.keys, *([r.weight] if r.weight else []), r.household]
    return on_unchanged(state.original, state.data, cols,
                        ("household_risk", tuple(r.keys), r.weight, r.household, alpha),
                        lambda o, d: household_risk_from_individual(
                            state.measure("individual_risk", alpha=alpha), d[r.household]))


@register("k_violations", "number of records whose key combination has fk < k (Fk < k if weighted)")
def _kviol(state: State, k: int = 3, weighted: bool = False, alpha: float | None = None) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ParameterError(f"k: expected an integer >= 1, got {k!r}")
    f = state.measure("frequencies", alpha=alpha)
    col = "Fk" if weighted else "fk"
    return int((f[col].to_numpy() < k).sum())


# ---------------------------------------------------------------- scalar summaries (watch list)
def _risk_sum(state: State, name: str, household: bool, fn: Callable[[Any], Any]) -> Any:
    """``fn`` of the state's individual (or household) risk; a state whose keys, weight (and
    household) are the original's shares the original's value, computed once per tree."""
    r = state.roles
    cols = [*r.keys, *([r.weight] if r.weight else []), *([r.household] if household else [])]
    measure = "household_risk" if household else "individual_risk"
    return on_unchanged(state.original, state.data, cols,
                        (name, tuple(r.keys), r.weight, r.household, state.alpha),
                        lambda o, d: fn(state.measure(measure)))


@register("global_risk", "mean individual risk")
def _global(state: State) -> float:
    return _risk_sum(state, "global_risk", False, lambda v: exact_mean(v.to_numpy()))


@register("expected_reidentifications", "sum of individual risks (expected re-identifications)")
def _er(state: State) -> float:
    return _risk_sum(state, "expected_reidentifications", False,
                     lambda v: exact_sum(v.to_numpy()))


@register("household_expected_reidentifications", "sum of household risks (None without household)")
def _her(state: State) -> float | None:
    if state.roles.household is None:
        return None
    return _risk_sum(state, "household_expected_reidentifications", True,
                     lambda v: None if v is None else exact_sum(v.to_numpy()))


for _k in (2, 3, 5):
    register(f"k_violations_{_k}", f"records violating {_k}-anonymity (fk < {_k})")(
        (lambda k: lambda state: state.measure("k_violations", k=k))(_k))
