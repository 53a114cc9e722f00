"""Building blocks of targeted record swapping (private; see `record_swapping`).

Everything works on integer codes at household level: one row per household, the codes of its
geography at every hierarchy level, of its similarity profiles, its risk flags. No loop runs over
households or records; loops run over hierarchy levels, similarity profiles and matching rounds.

Example
-------
>>> import numpy as np
>>> import pandas as pd
>>> h, first, n_h = household_index(pd.Series([7, 7, 3, 9, 3]))
>>> h.tolist(), first.tolist(), n_h
([0, 0, 1, 2, 1], [0, 2, 3], 3)
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...errors import RoleError, SdcWarning, user_stacklevel
from ...risk._codes import _unhashable, encode_column

__all__ = ["household_index", "codes_of", "household_codes", "path_codes", "combine_codes",
           "k_anonymity_flags", "quotas", "draw_random", "match_donors"]

#: the most matching rounds per (class, profile, level); each round matches every group that
#: still has proposals, so this is a safety net, not a limit reached in practice
MAX_ROUNDS = 200


def household_index(ids: pd.Series) -> tuple[np.ndarray, np.ndarray, int]:
    """Dense household codes per record (in order of first appearance), the position of each
    household's first record, and the number of households; `RoleError` for missing ids."""
    try:
        h, uniq = pd.factorize(ids, use_na_sentinel=True)
    except TypeError:
        raise _unhashable(ids, "household") from None
    h = np.asarray(h, dtype=np.int64)
    if (h < 0).any():
        raise RoleError(f"record_swap: household column {str(ids.name)!r} has "
                        f"{int((h < 0).sum())} missing value(s); every record needs a household id")
    n_h = len(uniq)
    if len(h) == 0:
        return h, np.zeros(0, dtype=np.int64), 0
    # codes appear in increasing order, so a household's first record raises the running maximum
    prev_max = np.maximum.accumulate(h)
    is_first = np.empty(len(h), dtype=bool)
    is_first[0] = True
    is_first[1:] = h[1:] > prev_max[:-1]
    del prev_max
    return h, np.flatnonzero(is_first).astype(np.int64), n_h


def codes_of(data: pd.DataFrame, column: str, what: str) -> np.ndarray:
    """Integer codes of one column read as categories (missing: ``-1``); unhashable cells raise
    `RoleError` naming the column."""
    return np.asarray(encode_column(data[column], what)[0])


def _differ(vals: np.ndarray, hv: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Records whose value differs from their household's value (missing equals missing)."""
    na = pd.isna(vals)
    with np.errstate(invalid="ignore"):
        same = np.asarray(vals == hv[h], dtype=bool)
    return ~(same | (na & pd.isna(hv)[h]))


def household_codes(data: pd.DataFrame, column: str, h: np.ndarray, first: np.ndarray,
                    what: str, *, missing_ok: bool = True) -> np.ndarray:
    """Integer codes (``-1`` missing) of the value of each household (its first record's value).

    `RoleError` naming ``column`` when values are missing (``missing_ok`` false) or the value
    varies within a household. Only the household values are factorised; the records are
    compared with their household's value directly.
    """
    s = data[column]
    if not missing_ok:
        n_na = int(s.isna().sum())
        if n_na:
            raise RoleError(f"record_swap: {what} column {column!r} has {n_na} missing "
                            "value(s); every record needs a value")
    if isinstance(s.dtype, pd.CategoricalDtype):
        rec = np.asarray(s.array.codes)
        hh = rec[first]
        differ = rec != hh[h]
        hh = hh.astype(np.int64)
    else:
        vals = s.to_numpy()
        hv = vals[first]
        try:
            differ = _differ(vals, hv, h)
        except (TypeError, ValueError):  # e.g. pd.NA in an object column: compare codes instead
            rec = codes_of(data, column, what)
            differ = rec != rec[first][h]
        try:
            hh = np.asarray(pd.factorize(hv, use_na_sentinel=True)[0], dtype=np.int64)
        except TypeError:
            raise _unhashable(s, what) from None
    if differ.any():
        n_bad = int(np.unique(h[differ]).size)
        raise RoleError(
            f"record_swap: {what} column {column!r} varies within {n_bad} household(s); it must "
            "be constant within every household (a household-level variable)")
    return hh


def path_codes(geo: Sequence[np.ndarray], hierarchy: Sequence[str]) -> list[np.ndarray]:
    """Per level, the codes of the households' *paths* (level 1, …, level l) (sdcMicro's
    ``recordSwap`` groups by the path of levels): a code unique only within its parent (district 1
    in every region) names a different area in each parent. Codes are dense, in order of first
    appearance, so for globally unique nested codes they equal the level's own dense codes.

    An `SdcWarning` names a level that does not subdivide the level above although it has fewer
    distinct values than that level has areas (levels listed fine to coarse, e.g. municipality
    before district).

    >>> reg, dis = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    >>> [p.tolist() for p in path_codes([reg, dis], ["region", "district"])]
    [[0, 0, 1, 1], [0, 1, 2, 3]]
    """
    out: list[np.ndarray] = []
    for lev, g in enumerate(geo):
        code = g if lev == 0 else combine_codes([out[-1], g])
        dense = np.asarray(pd.factorize(code)[0], dtype=np.int64)
        n_parent = int(out[-1].max()) + 1 if lev and dense.size else 0
        if lev and dense.size and int(dense.max()) + 1 == n_parent \
                and 1 < np.unique(g).size < n_parent:
            warnings.warn(
                f"record_swap: hierarchy level {hierarchy[lev]!r} does not subdivide "
                f"{hierarchy[lev - 1]!r} (every {hierarchy[lev - 1]!r} area holds one "
                f"{hierarchy[lev]!r} value); list the levels from coarse to fine",
                SdcWarning, stacklevel=user_stacklevel())
        out.append(dense)
    return out


def combine_codes(columns: Sequence[np.ndarray]) -> np.ndarray:
    """Codes (int64, ``0 ≤ code < 4 n + 1024``) of the combinations of several code arrays
    (``-1`` = missing is a value of its own): mixed radix, made dense only when the radix space
    grows beyond that bound (so `np.bincount` over the codes stays small)."""
    if not columns:
        raise ValueError("combine_codes needs at least one column")
    n = len(columns[0])
    limit = 4 * n + 1024
    out = np.zeros(n, dtype=np.int64)
    size = 1
    for c in columns:
        c = np.asarray(c, dtype=np.int64) + 1  # missing -1 -> 0
        card = int(c.max()) + 1 if n else 1
        if card > limit:
            c = np.asarray(pd.factorize(c)[0], dtype=np.int64)
            card = int(c.max()) + 1
        if size * card > limit:
            out = np.asarray(pd.factorize(out)[0], dtype=np.int64)
            size = int(out.max()) + 1 if n else 1
        out *= card
        out += c
        size *= card
    return out


def k_anonymity_flags(geo_households: Sequence[np.ndarray], risk_code: np.ndarray,
                      h: np.ndarray, n_h: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per household: the coarsest level at which a member's ``risk_code`` combination is counted
    fewer than ``k`` times within the member's area (``-1``: none), and the smallest count of a
    member at the finest level (used as the sampling weight 1 / count). ``geo_households``: the
    area codes of every household per level; ``h``: the household of every record."""
    m = len(geo_households)
    start = np.full(n_h, -1, dtype=np.int64)
    min_count = np.zeros(n_h, dtype=np.int64)
    for lev in range(m - 1, -1, -1):
        cell = combine_codes([geo_households[lev][h], risk_code])
        counts = np.bincount(cell)[cell]
        del cell
        if lev == m - 1:
            min_count = np.full(n_h, np.iinfo(np.int64).max, dtype=np.int64)
            np.minimum.at(min_count, h, counts)
        if k > 0:
            start[np.unique(h[counts < k])] = lev
    return start, min_count


def quotas(area: np.ndarray, n_areas: int, swaprate: float,
           rng: np.random.Generator) -> np.ndarray:
    """Households to draw per finest area: swaprate · H_a / 2 (a swap moves two households),
    rounded down and the remainder given to areas at random with probability ∝ the fractional
    parts, so that the total is ``ceil(swaprate · H / 2)`` (at most H // 2)."""
    n_h = len(area)
    size = np.bincount(area, minlength=n_areas).astype(np.float64)
    target = swaprate * size / 2.0
    q = np.floor(target + 1e-9).astype(np.int64)
    total = min(int(np.ceil(swaprate * n_h / 2.0 - 1e-9)), n_h // 2)
    rest = total - int(q.sum())
    if rest > 0:
        frac = np.clip(target - q, 0.0, None)
        with np.errstate(divide="ignore"):
            key = np.where(frac > 0, rng.exponential(size=n_areas) / frac, np.inf)
        q[np.argsort(key, kind="stable")[:rest]] += 1
    return q


def draw_random(area: np.ndarray, eligible: np.ndarray, need: np.ndarray,
                weight: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Boolean mask of households drawn without replacement, ``need[a]`` among the eligible
    households of each area a, with probability ∝ ``weight`` (Efraimidis–Spirakis keys
    Exp(1) / weight: the smallest keys of each area win)."""
    idx = np.flatnonzero(eligible)
    key = rng.exponential(size=idx.size) / weight[idx]
    order = idx[np.lexsort((key, area[idx]))]
    a_sorted = area[order]
    starts = np.flatnonzero(np.r_[True, a_sorted[1:] != a_sorted[:-1]]) if order.size else order
    counts = np.diff(np.r_[starts, order.size])
    rank = np.arange(order.size) - np.repeat(starts, counts)
    out = np.zeros(len(area), dtype=bool)
    out[order[rank < need[a_sorted]]] = True
    return out


def match_donors(active: np.ndarray, free: np.ndarray, group: np.ndarray, area: np.ndarray,
                 n_areas: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Pair households ``active`` with donors from ``free`` (boolean mask over households) of the
    same ``group`` and a different ``area``; each donor used once.

    Rounds of proposals: every unmatched household draws a donor uniformly among the free
    candidates of its group outside its own area (a position in the candidates sorted by group
    and area); a candidate proposed several times goes to one proposer at random; taken
    candidates leave the pool and the others propose again. Households whose group has no
    candidate outside their area stop. Returns the matched households and their donors.
    """
    free = free.copy()
    cand = np.flatnonzero(free)
    ckey_all = group * np.int64(n_areas) + area
    cand = cand[np.argsort(ckey_all[cand], kind="stable")]
    ck = ckey_all[cand]
    todo = active.copy()
    got_a: list[np.ndarray] = []
    got_d: list[np.ndarray] = []
    for _ in range(MAX_ROUNDS):
        if todo.size == 0 or cand.size == 0:
            break
        g_lo = np.searchsorted(ck, group[todo] * np.int64(n_areas), "left")
        g_hi = np.searchsorted(ck, (group[todo] + 1) * np.int64(n_areas), "left")
        own = ckey_all[todo]
        a_lo = np.searchsorted(ck, own, "left")
        a_hi = np.searchsorted(ck, own, "right")
        n_other = (g_hi - g_lo) - (a_hi - a_lo)
        keep = n_other > 0
        todo, g_lo, a_lo, a_hi, n_other = (todo[keep], g_lo[keep], a_lo[keep], a_hi[keep],
                                           n_other[keep])
        if todo.size == 0:
            break
        pos = g_lo + np.minimum((rng.random(todo.size) * n_other).astype(np.int64), n_other - 1)
        pos = np.where(pos >= a_lo, pos + (a_hi - a_lo), pos)
        order = np.lexsort((rng.random(todo.size), pos))
        p_sorted = pos[order]
        win = order[np.r_[True, p_sorted[1:] != p_sorted[:-1]]]
        got_a.append(todo[win])
        got_d.append(cand[pos[win]])
        taken = np.ones(cand.size, dtype=bool)
        taken[pos[win]] = False
        cand, ck = cand[taken], ck[taken]
        lost = np.ones(todo.size, dtype=bool)
        lost[win] = False
        todo = todo[lost]
    if not got_a:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return np.concatenate(got_a), np.concatenate(got_d)
