"""Progressive local recoding by pairing records (sdcMicro ``LocalRecProg``; Takemura 2002).

Idea (Takemura 2002): a record whose combination of the key variables is too rare is *paired*
with a similar record, and in every variable where the two differ both are recoded to their
closest common value: the lowest common ancestor in a hierarchy of coarser versions of the
variable (``ancestors``, e.g. town → district → region), or, without a common ancestor, a
missing value (local suppression). The pair then shares one combination. Takemura chooses the
pairs by a maximum-weight matching (weight: minus the information lost); sdcMicro's
``LocalRecProg`` (Kowarik, Prantner, after the IHSN C++ code of Takemura's method) makes one
such matching of all records, on a graph joining each record to its ``k_level`` nearest
records (``FindLowestK`` searches the smallest such neighbourhood giving a complete matching),
and states that larger groups (k-anonymity) are reached by "forming new categories based on the
recoding result and repeatedly applying the algorithm": progressive local recoding.

This implementation runs that progression to a stated k, on the frequency counts of this
project (sdcMicro's convention: a missing value is a wildcard, matching any value; records with
a missing key weigh ``alpha``), and recodes only what is needed:

* a rare record (fk < k) is recoded to the common value of itself and the fewest partners that
  give its combination k compatible records; partners are taken only where the common value is
  a proper value (an ancestor): a value recoded to missing already matches every partner, so
  the partner keeps its value. Thus 5 × (x, 1) and 1 × (y, 1) with k = 3 costs one suppression
  (y → missing), not six;
* the information lost by a recoding is the number of hierarchy levels climbed, weighted:
  ``w_v / (L_v + 1)`` per level of variable v (L_v ancestor columns; missing is level L_v + 1),
  so the cost of a candidate common value is
  ``n_a Σ_v w_v (g_v − l_av)/(L_v + 1) + m · (levels the m partners climb)``;
* each round every rare combination takes its cheapest common value (candidates visited in
  increasing cost, lazily, over the lattice of level vectors: no table of all pairs), the
  partners are recoded, fk is recounted, and rounds repeat until every record has fk ≥ k;
* with alpha = 1 a final pass gives back suppressed values that are no longer needed
  (two rare records suppressed in the same round where one suffices).

The algorithm, its cost and its termination are detailed in
``sdcsession.methods.recoding._local_core``.

Differences from sdcMicro: ``LocalRecProg`` pairs all records once (2-anonymity at best; unmatched
records keep their values) by an exact matching of O(n³) on the ``k_level``-nearest-neighbour
graph and does not know wildcards; here ``k`` is the anonymity level reached, the pairing is
greedy per round (cheapest common value of each rare combination), and only rare records and
their needed partners change, so ``FindLowestK`` (a parameter of the neighbour graph) has no
counterpart. Numeric variables (sdcMicro recodes a pair to its mean or range) are not offered:
microaggregation (`sdcsession.methods.microaggregation.treatment`) is the method for them.

Reference: Takemura, A. (2002). Local recoding and record swapping by maximum weight matching
for disclosure control of microdata sets. Journal of Official Statistics 18(2), 275–289.
sdcMicro ``LocalRecProg`` ("Local recoding via Edmond's maximum weighted matching algorithm";
A. Kowarik, B. Prantner, IHSN C++ code, A. Takemura).

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"a": ["x"] * 5 + ["y"], "b": ["1"] * 6})
>>> out, notes = local_recode(df, ["a", "b"], k=3)
>>> out["a"].fillna("?").tolist(), notes["suppressed"]
(['x', 'x', 'x', 'x', 'x', '?'], {'a': 1, 'b': 0})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError, TreatmentError
from ...roles import Roles
from ..base import Result, Treatment, check_choice, check_int, check_number, require_columns
from ..noise.addition import _names
from ..suppression._hub_trie import default_cap, hub_trie
from ._local_core import Hierarchy, recode

__all__ = ["local_recode", "LocalRecode", "ENGINES", "HUB_KEYS"]

#: the engines of `local_recode`
ENGINES = ("auto", "progressive", "hub_trie")
#: ``engine="auto"`` takes the hub trie beyond this many keys (without ancestors, alpha = 1):
#: the progression's rounds count compatible records over the missing patterns they create,
#: which grows fast with the keys (15 keys: 3.5 s at 10,000 records, 33 s at 100,000, not
#: finished in 7 minutes at 1,000,000), while up to this many keys it finishes in seconds on
#: 100,000 records; the same threshold as local suppression's many-keys engine
HUB_KEYS = 11


def _levels(data: pd.DataFrame, columns: tuple[str, ...], ancestors: dict[str, tuple[str, ...]]
            ) -> list[list[np.ndarray]]:
    """Per variable the factorised codes at each non-top level (level 0 first, -1 = missing)."""
    out = []
    for c in columns:
        chain = [c, *ancestors.get(c, ())]
        rows = [pd.factorize(data[a], sort=False)[0].astype(np.int64) for a in chain]
        for lo, hi, name in zip(rows[:-1], rows[1:], chain[1:], strict=False):
            ok = lo >= 0
            pairs = np.unique(np.column_stack([lo[ok], hi[ok]]), axis=0)
            if len(pairs) and (np.diff(pairs[:, 0]) == 0).any():
                raise TreatmentError(
                    f"local_recode: ancestor column {name!r} of {c!r} is not nested: some value "
                    "of the finer level maps to several values of it")
            if (ok & (hi < 0)).any():
                raise TreatmentError(f"local_recode: ancestor column {name!r} of {c!r} is "
                                     "missing where the finer level is not")
        out.append(rows)
    return out


def local_recode(data: pd.DataFrame, columns: Sequence[str], *, k: int = 2,
                 weights: Mapping[str, float] | None = None,
                 ancestors: Mapping[str, Sequence[str]] | None = None,
                 alpha: float = 1.0, engine: str = "auto",
                 max_suppressed_per_record: int | None = None
                 ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Recode rare combinations of ``columns`` locally until every record has fk ≥ k.

    Parameters
    ----------
    data : the microdata (not modified).
    columns : categorical key variables.
    k : every record ends with fk ≥ k (≥ 2): at least k records compatible with its combination,
        missing values counting as wildcards (the project's frequency counts).
    weights : importance of each column (default 1; the cost of recoding it; a larger weight
        keeps the column's values more often). sdcMicro ``weight``.
    ancestors : ``{column: [coarser column, even coarser column, ...]}``: nested coarser versions
        of a column to recode to before suppressing (sdcMicro ``ancestors`` /
        ``ancestor_setting``).
    alpha : weight of a record with missing keys in the counts (sdcMicro ``alpha``; the session
        passes its own). With alpha < 1 no restoration pass is made.
    engine : ``"progressive"`` (the progression below), ``"hub_trie"`` (many keys: the hub-trie
        programme, suppression only, see below) or ``"auto"`` (default): the hub trie for more
        than `HUB_KEYS` (11) columns when there are no ``ancestors`` and alpha = 1, else the
        progression. Few keys give the same result as before the hub trie existed.
    max_suppressed_per_record : hub trie only: the most key values one record may lose
        (an integer in 1..len(columns); default floor(len(columns) / 2), at least 1: every
        record's k-anonymity rests on records that keep at least half of their key values).
        Records no capped solution can cover (``notes["fallback_records"]``) blank their own
        values where they differ from k - 1 neighbours and may lose more.

    Returns
    -------
    The new DataFrame and notes: ``recoded`` (values moved to an ancestor) and ``suppressed``
    (values set missing) per column, ``rounds``, ``restored`` (suppressions given back); the
    hub trie adds ``engine``, ``max_suppressed_per_record``, ``records_changed`` and
    ``fallback_records``.

    Algorithm: progressive local recoding (module docstring; Takemura 2002): each round, each
    combination with fk < k is recoded with the fewest partners to its cheapest common value
    (lowest common ancestor per variable, else missing), cost
    ``n_a Σ_v w_v (g_v − l_av)/(L_v + 1) + partners' climb``; until no record has fk < k.

    Hub trie (many keys; `sdcsession.methods.suppression._hub_trie`): records sorted on the keys
    (fewest categories first) form a trie; a node of m ≥ k records is made safe by k − 1 *hub*
    records blanked on the keys that vary inside it (missing values are wildcards, so every
    record of the node is compatible with the hubs), at cost (k − 1) × Σ w over those keys,
    allowed when the hubs lose at most the cap (nodes varying on up to twice the cap split the
    blanking between the hubs and the other records); a bottom-up dynamic programme takes per
    node the cheaper of its hubs and its children's solutions, exactly within this model.
    O(n p²) time, O(n p) memory, one sort. k-anonymous by construction.

    Missing values: wildcards in the counts (both engines). The hub trie treats a missing
    code as a value of its own when it builds the trie (conservative) and never counts an
    already missing value as suppressed.

    Example
    -------
    >>> df = pd.DataFrame({"town": ["a", "b", "c", "c"], "region": ["N", "N", "S", "S"]})
    >>> out, notes = local_recode(df, ["town"], k=2, ancestors={"town": ["region"]})
    >>> out["town"].tolist(), notes["recoded"]
    (['N', 'N', 'c', 'c'], {'town': 2})
    """
    columns = _names(columns, "columns")
    k = check_int("k", k, 2)
    alpha = check_number("alpha", alpha, 0, 1)
    w = _check_weights(weights, columns)
    anc = _check_ancestors(ancestors, columns)
    require_columns(data, list(columns) + [a for v in anc.values() for a in v], "local_recode")
    n = len(data)
    if n < k:
        raise TreatmentError(f"local_recode: k={k} exceeds the {n} records")
    cap = _check_cap(max_suppressed_per_record, len(columns))
    engine = _check_engine(engine, anc, alpha)
    if engine == "auto":
        engine = "hub_trie" if len(columns) > HUB_KEYS and not anc and alpha == 1 else \
            "progressive"
    wv = np.array([w.get(c, 1.0) for c in columns])
    if engine == "hub_trie":
        return _hub(data, columns, k, wv, default_cap(len(columns)) if cap is None else cap)
    levels = _levels(data, columns, anc)
    H = Hierarchy.from_levels(levels, wv)
    start = np.column_stack([np.where(lv[0] < 0, t, 0)
                             for lv, t in zip(levels, H.top.tolist(), strict=True)])
    lev, rounds, restored = recode(H, start, k, alpha, rank=-wv)
    top = H.top
    changed = {c: _decode(data, c, anc.get(c, ()), lev[:, j], int(top[j]))
               for j, c in enumerate(columns) if (lev[:, j] != start[:, j]).any()}
    out = data.assign(**changed) if changed else data.copy(deep=False)
    notes = {
        "k": k, "rounds": rounds, "restored": restored,
        "recoded": {c: int(((lev[:, j] > start[:, j]) & (lev[:, j] < top[j])).sum())
                    for j, c in enumerate(columns)},
        "suppressed": {c: int(((lev[:, j] == top[j]) & (start[:, j] < top[j])).sum())
                       for j, c in enumerate(columns)},
    }
    return out, notes


def _hub(data: pd.DataFrame, columns: tuple[str, ...], k: int, wv: np.ndarray, cap: int
         ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """`local_recode` by the hub-trie programme (suppression only)."""
    codes = [pd.factorize(data[c], sort=False) for c in columns]
    X = np.column_stack([cd.astype(np.int64) for cd, _ in codes])
    res = hub_trie(X, k, cap, np.array([len(u) for _, u in codes]), wv)
    M = res.mask
    changed = {c: data[c].where(~M[:, j]) for j, c in enumerate(columns) if M[:, j].any()}
    out = data.assign(**changed) if changed else data.copy(deep=False)
    notes = {
        "k": k, "rounds": 1, "restored": 0, "engine": "hub_trie",
        "max_suppressed_per_record": cap, "records_changed": res.changed,
        "fallback_records": int(res.fallback.sum()),
        "recoded": {c: 0 for c in columns},
        "suppressed": {c: int(M[:, j].sum()) for j, c in enumerate(columns)},
    }
    return out, notes


def _check_cap(cap: Any, p: int) -> int | None:
    if cap is None:
        return None
    return check_int("max_suppressed_per_record", cap, 1, p)


def _check_engine(engine: Any, anc: dict[str, tuple[str, ...]], alpha: float) -> str:
    if not isinstance(engine, str) or engine not in ENGINES:
        raise ParameterError(f"engine: expected one of {list(ENGINES)}, got {engine!r:.60}")
    if engine == "hub_trie" and anc:
        raise ParameterError("engine: 'hub_trie' only suppresses; ancestors need engine="
                             "'progressive' or 'auto'")
    if engine == "hub_trie" and alpha != 1:
        raise ParameterError(f"engine: 'hub_trie' needs alpha = 1 (records with missing keys "
                             f"counted fully), got alpha={alpha}; use engine='progressive'")
    return engine


def _decode(data: pd.DataFrame, column: str, chain: tuple[str, ...], lev: np.ndarray,
            top: int) -> pd.Series:
    """The released column: original, ancestor values or missing by level."""
    s = data[column]
    if not chain or not (lev[lev < top] > 0).any():
        return s.where(lev < top)
    vals = s.astype(object).to_numpy(copy=True)
    for i, a in enumerate(chain, start=1):
        at = lev == i
        vals[at] = data[a].astype(object).to_numpy()[at]
    vals[lev == top] = None
    out = pd.Series(vals, index=data.index, name=column, dtype=object)
    if isinstance(s.dtype, pd.CategoricalDtype):
        cats = list(s.cat.categories) + [v for v in pd.unique(out.dropna())
                                          if v not in set(s.cat.categories)]
        out = pd.Series(pd.Categorical(out, categories=cats), index=data.index, name=column)
    return out


def _check_weights(weights: Any, columns: tuple[str, ...]) -> dict[str, float]:
    if weights is None:
        return {}
    if not isinstance(weights, Mapping):
        raise ParameterError(f"weights: expected a mapping {{column: weight > 0}} or None, got "
                             f"{type(weights).__name__}")
    out = {}
    for c, v in weights.items():
        if not isinstance(c, str) or c not in columns:
            raise ParameterError(f"weights: {c!r:.60} is not one of the columns {list(columns)}")
        out[c] = check_number(f"weights[{c!r}]", v, 0, 1e6, lo_open=True)
    return out


def _check_ancestors(ancestors: Any, columns: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    if ancestors is None:
        return {}
    if not isinstance(ancestors, Mapping):
        raise ParameterError("ancestors: expected a mapping {column: [coarser columns]} or None, "
                             f"got {type(ancestors).__name__}")
    out = {}
    for c, v in ancestors.items():
        if not isinstance(c, str) or c not in columns:
            raise ParameterError(f"ancestors: {c!r:.60} is not one of the columns {list(columns)}")
        names = _names(v, f"ancestors[{c!r}]")
        if set(names) & set(columns):
            raise ParameterError(f"ancestors[{c!r}]: an ancestor cannot be one of the columns")
        out[c] = names
    return out


@attrs.frozen
class LocalRecode(Treatment):
    """Progressive local recoding (tag ``"local_recode"``); see `local_recode`.

    A recipe step stored before ``engine`` existed replays with ``engine="progressive"`` (the
    progression ran for any number of keys then), not ``"auto"``.

    >>> LocalRecode(["sex", "age5"], k=3).to_dict()["k"]
    3
    """

    type: ClassVar[str] = "local_recode"
    random: ClassVar[bool] = False
    #: steps stored before ``engine`` existed ran the progression for any number of keys
    recorded_defaults: ClassVar[dict[str, Any]] = {"engine": "progressive"}

    columns: tuple[str, ...] = attrs.field(converter=lambda v: _names(v, "columns"))
    k: int = attrs.field(default=2)
    weights: dict[str, float] | None = attrs.field(
        default=None, converter=lambda v: dict(v) if isinstance(v, Mapping) else v)
    ancestors: dict[str, tuple[str, ...]] | None = attrs.field(
        default=None, converter=lambda v: dict(v) if isinstance(v, Mapping) else v)
    alpha: float = attrs.field(default=1.0)
    engine: str = attrs.field(default="auto",
                              converter=lambda v: check_choice("engine", v, ENGINES))
    max_suppressed_per_record: int | None = attrs.field(default=None)

    def __hash__(self) -> int:
        return hash((self.columns, self.k, repr(self.weights), repr(self.ancestors), self.alpha,
                     self.engine, self.max_suppressed_per_record))

    @k.validator
    def _k(self, _a: Any, v: Any) -> None:
        check_int("k", v, 2)

    @weights.validator
    def _w(self, _a: Any, v: Any) -> None:
        _check_weights(v, self.columns)

    @ancestors.validator
    def _an(self, _a: Any, v: Any) -> None:
        _check_ancestors(v, self.columns)

    @alpha.validator
    def _al(self, _a: Any, v: Any) -> None:
        check_number("alpha", v, 0, 1)

    @engine.validator
    def _en(self, _a: Any, v: Any) -> None:
        _check_engine(v, _check_ancestors(self.ancestors, self.columns), self.alpha)

    @max_suppressed_per_record.validator
    def _cap(self, _a: Any, v: Any) -> None:
        _check_cap(v, len(self.columns))

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        anc = _check_ancestors(self.ancestors, self.columns)
        require_columns(data, list(self.columns) + [a for v in anc.values() for a in v],
                        "local_recode")
        if len(data) < self.k:
            raise TreatmentError(f"local_recode: k={self.k} exceeds the {len(data)} records")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = local_recode(data, self.columns, k=self.k, weights=self.weights,
                                  ancestors=self.ancestors, alpha=self.alpha,
                                  engine=self.engine,
                                  max_suppressed_per_record=self.max_suppressed_per_record)
        return Result(out, notes=notes)
