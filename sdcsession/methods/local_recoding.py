"""Progressive local recoding by pairing records (sdcMicro ``LocalRecProg``; Takemura 2002).

Idea (Takemura 2002): a record whose combination of the key variables is too rare is *paired*
with another record, and in every variable where the two differ both are recoded to their
closest common value: the lowest common ancestor in a hierarchy of coarser versions of the
variable (``ancestors``), or, without a common ancestor, a missing value (local suppression).
The pair then shares one combination. Pairs are chosen to keep as much information as possible
(Takemura: a maximum-weight matching). Repeating this on the recoded data — the merged
combinations are the new "records" — reaches k-anonymity for any k ("progressive" local
recoding; sdcMicro's documentation: "to achieve bigger category sizes one can form new
categories based on the recoding result and repeatedly apply this algorithm").

Definitions. Each variable v has levels 0 (the original value), 1..L_v (its ancestor columns,
fine to coarse) and L_v + 1 (suppressed). A *unit* is a set of records with the same levels and
values; n_u its records. Two units a, b meet on v at the smallest level ℓ ≥ max(ℓ_a, ℓ_b) at
which their values agree (always at L_v + 1). The cost of merging them is the information their
records lose,

    cost(a, b) = Σ_v w_v [n_a (ℓ_v − ℓ_av) + n_b (ℓ_v − ℓ_bv)] / (L_v + 1),

with variable weights w_v (default 1; a larger weight protects the variable). Each round:

1. units with n_u < k are *risky*; each risky unit finds its cheapest partner among all other
   units (one vectorised cost matrix per block of risky units);
2. a partner that is not risky and does not change (the risky unit is recoded into it) takes the
   risky unit at once: any number of risky units may join one such partner in a round;
3. the other proposals form a greedy matching: a pair is made when it is the cheapest proposal
   of both its units (so all pairs of a round are disjoint; the cheapest proposal is always made,
   and the rounds end);
4. the records of each matched pair are recoded to their meeting levels.

Rounds repeat until no unit has fewer than k records. Every resulting combination of the
``columns`` is then shared by at least k records (counting a missing value as a value of its own,
which is stricter than the wildcard rule of the frequency counts).

Differences from sdcMicro: ``LocalRecProg`` computes an exact maximum-weight matching (Edmonds'
algorithm, O(n³)) for k = 2 and iterates it; we use the greedy matching of step 3 (a ½-
approximation of the maximum weight, linear work per round) and let units of any size take part,
so one call reaches any k. Its ``FindLowestK`` search and numeric variables are not offered.

Reference: Takemura, A. (2002) Local recoding and record swapping by maximum weight matching for
disclosure control of microdata sets, Journal of Official Statistics 18(2), 275–289. sdcMicro
``LocalRecProg`` documentation.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"sex": ["m", "m", "f", "f", "f"], "age": ["20", "30", "20", "20", "40"]})
>>> out, notes = local_recode(df, ["sex", "age"], k=2)
>>> bool(out.value_counts(dropna=False).min() >= 2), notes["suppressed"]
(True, {'sex': 0, 'age': 5})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError, TreatmentError
from ..roles import Roles
from .base import Result, Treatment, check_int, check_number, require_columns
from .noise import _names

__all__ = ["local_recode", "LocalRecode"]

#: the cost matrix of one block of risky units has at most this many cells
BLOCK_CELLS = 4_000_000


def _levels(data: pd.DataFrame, columns: tuple[str, ...], ancestors: dict[str, tuple[str, ...]]
            ) -> list[np.ndarray]:
    """Per variable a (L_v + 2) × n array of codes at each level (top level: all 0)."""
    out = []
    for c in columns:
        chain = [c, *ancestors.get(c, ())]
        rows = []
        for a in chain:
            codes, _ = pd.factorize(data[a], sort=False)
            rows.append(codes.astype(np.int64))
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
        rows.append(np.zeros(len(data), dtype=np.int64))
        out.append(np.vstack(rows))
    return out


def _meet(codes: np.ndarray, la: np.ndarray, lb: np.ndarray, ra: np.ndarray, rb: np.ndarray
          ) -> np.ndarray:
    """Meeting level of units (rows: la/ra, columns: lb/rb) on one variable."""
    top = codes.shape[0] - 1
    lo = np.maximum(la[:, None], lb[None, :])
    meet = np.full(lo.shape, top, dtype=np.int64)
    for lev in range(top - 1, -1, -1):  # loops over the few levels of one variable
        eq = (codes[lev, ra][:, None] == codes[lev, rb][None, :]) & (lev >= lo)
        meet = np.where(eq, lev, meet)
    return meet


def local_recode(data: pd.DataFrame, columns: Sequence[str], *, k: int = 2,
                 weights: Mapping[str, float] | None = None,
                 ancestors: Mapping[str, Sequence[str]] | None = None
                 ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Recode rare combinations of ``columns`` locally, pair by pair, until k-anonymity.

    Parameters
    ----------
    data : the microdata (not modified).
    columns : categorical key variables.
    k : every combination of ``columns`` ends with at least k records (≥ 2).
    weights : importance of each column (default 1; cost of recoding it).
    ancestors : ``{column: [coarser column, even coarser column, ...]}``: nested coarser versions
        of a column to recode to before suppressing (sdcMicro's ``ancestors``).

    Returns the new DataFrame and notes: ``recoded`` (records moved to an ancestor) and
    ``suppressed`` (values set missing) per column, ``rounds``.

    Reference: Takemura (2002); see the module docstring for the algorithm.

    Example
    -------
    >>> df = pd.DataFrame({"town": ["a", "b", "c", "c"], "region": ["N", "N", "S", "S"]})
    >>> out, notes = local_recode(df, ["town"], k=2, ancestors={"town": ["region"]})
    >>> out["town"].tolist(), notes["recoded"]
    (['N', 'N', 'c', 'c'], {'town': 2})
    """
    columns = _names(columns, "columns")
    k = check_int("k", k, 2)
    w = _check_weights(weights, columns)
    anc = _check_ancestors(ancestors, columns)
    require_columns(data, list(columns) + [a for v in anc.values() for a in v], "local_recode")
    n = len(data)
    if n < k:
        raise TreatmentError(f"local_recode: k={k} exceeds the {n} records")
    codes = _levels(data, columns, anc)
    p = len(columns)
    top = np.array([cd.shape[0] - 1 for cd in codes])
    wv = np.array([w.get(c, 1.0) for c in columns]) / top  # weight per level climbed
    lev = np.column_stack([np.where(cd[0] < 0, t, 0) for cd, t in zip(codes, top, strict=True)])
    start = lev.copy()
    rounds = 0
    while True:
        cur = np.column_stack([codes[j][lev[:, j], np.arange(n)] for j in range(p)])
        _, first, inv, cnt = np.unique(np.hstack([lev, cur]), axis=0, return_index=True,
                                       return_inverse=True, return_counts=True)
        inv = inv.ravel()
        risky = np.flatnonzero(cnt < k)
        if len(risky) == 0:
            break
        rounds += 1
        ulev = lev[first]
        best_b, best_cost, best_meet = _proposals(codes, ulev, first, cnt, risky, wv)
        newlev = ulev.copy()
        b_changes = (best_meet != ulev[best_b]).any(axis=1)
        absorb = ~b_changes & (cnt[best_b] >= k)
        newlev[risky[absorb]] = best_meet[absorb]
        used = np.zeros(len(cnt), dtype=bool)
        used[risky[absorb]] = True
        used[best_b[absorb]] = True
        m = np.flatnonzero(~absorb & ~used[risky] & ~used[best_b])
        if len(m):
            m = m[np.argsort(best_cost[m], kind="stable")]
            rank = np.arange(len(m))
            firsts = np.full(len(cnt), len(m))
            np.minimum.at(firsts, risky[m], rank)
            np.minimum.at(firsts, best_b[m], rank)
            take = m[(firsts[risky[m]] == rank) & (firsts[best_b[m]] == rank)]
            newlev[risky[take]] = best_meet[take]
            newlev[best_b[take]] = best_meet[take]
        lev = newlev[inv]
    out = data.assign(**{c: _decode(data, c, anc.get(c, ()), lev[:, j], int(top[j]))
                         for j, c in enumerate(columns)})
    notes = {
        "k": k, "rounds": rounds,
        "recoded": {c: int(((lev[:, j] > start[:, j]) & (lev[:, j] < top[j])).sum())
                    for j, c in enumerate(columns)},
        "suppressed": {c: int(((lev[:, j] == top[j]) & (start[:, j] < top[j])).sum())
                       for j, c in enumerate(columns)},
    }
    return out, notes


def _proposals(codes: list[np.ndarray], ulev: np.ndarray, rep: np.ndarray, cnt: np.ndarray,
               risky: np.ndarray, wv: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cheapest partner of each risky unit: partner, cost and meeting levels."""
    n_units, p = ulev.shape
    best_b = np.empty(len(risky), dtype=np.int64)
    best_cost = np.empty(len(risky))
    best_meet = np.empty((len(risky), p), dtype=np.int64)
    step = max(1, BLOCK_CELLS // max(n_units * p, 1))
    for s in range(0, len(risky), step):  # blocks of risky units, vectorised inside
        a = risky[s:s + step]
        cost = np.zeros((len(a), n_units))
        meets = []
        for j in range(p):
            mt = _meet(codes[j], ulev[a, j], ulev[:, j], rep[a], rep)
            meets.append(mt)
            cost += wv[j] * (cnt[a][:, None] * (mt - ulev[a, j][:, None])
                             + cnt[None, :] * (mt - ulev[:, j][None, :]))
        cost[np.arange(len(a)), a] = np.inf
        b = np.argmin(cost, axis=1)
        best_b[s:s + step] = b
        best_cost[s:s + step] = cost[np.arange(len(a)), b]
        best_meet[s:s + step] = np.column_stack([mt[np.arange(len(a)), b] for mt in meets])
    return best_b, best_cost, best_meet


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
        out[c] = check_number(f"weights[{c!r}]", v, 0, lo_open=True)
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

    >>> LocalRecode(["sex", "age5"], k=3).to_dict()["k"]
    3
    """

    type: ClassVar[str] = "local_recode"
    random: ClassVar[bool] = False

    columns: tuple[str, ...] = attrs.field(converter=lambda v: _names(v, "columns"))
    k: int = attrs.field(default=2)
    weights: dict[str, float] | None = attrs.field(
        default=None, converter=lambda v: dict(v) if isinstance(v, Mapping) else v)
    ancestors: dict[str, tuple[str, ...]] | None = attrs.field(
        default=None, converter=lambda v: dict(v) if isinstance(v, Mapping) else v)

    def __hash__(self) -> int:
        return hash((self.columns, self.k, repr(self.weights), repr(self.ancestors)))

    @k.validator
    def _k(self, _a: Any, v: Any) -> None:
        check_int("k", v, 2)

    @weights.validator
    def _w(self, _a: Any, v: Any) -> None:
        _check_weights(v, self.columns)

    @ancestors.validator
    def _an(self, _a: Any, v: Any) -> None:
        _check_ancestors(v, self.columns)

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        anc = _check_ancestors(self.ancestors, self.columns)
        require_columns(data, list(self.columns) + [a for v in anc.values() for a in v],
                        "local_recode")
        if len(data) < self.k:
            raise TreatmentError(f"local_recode: k={self.k} exceeds the {len(data)} records")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = local_recode(data, self.columns, k=self.k, weights=self.weights,
                                  ancestors=self.ancestors)
        return Result(out, notes=notes)
