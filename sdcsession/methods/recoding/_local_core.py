"""Engine of progressive local recoding (internal): `Hierarchy`, `recode`.

Every key variable v has *levels* 0 (its own value), 1..L_v (its ancestor columns, fine to
coarse) and L_v + 1 ("top": missing, a wildcard in the frequency counts). A record's state is
its level per variable; its released value on v is its value at that level. Codes of different
levels live in disjoint ranges of one code space per variable, so a record recoded to an
ancestor value never matches a record that still shows a finer value (the risk counts compare
released values; were an ancestor value spelled like an original value, the counts could only
grow). Climbing one level of v costs ``w_v / (L_v + 1)`` per record.

A round (see `recode`):

1. fk of every record, by the project's own count (`sdcsession.risk.frequencies_from_codes`,
   missing values as wildcards weighted by ``alpha``); records with fk < k are *rare*, records
   with equal released values form a *unit* a (n_a records, levels l_a).
2. Candidate common values (`sdcsession.methods.recoding._local_search.choose`). A *pattern* g
   is a level per variable; the target of unit a at g >= l_a is its combination recoded to the
   levels g (missing where g is top). Patterns are visited in increasing cost
   c(g) = sum_v w_v g_v / (L_v + 1), lazily (best first through the lattice of patterns; equal
   costs: the variable with more distinct values first), and a unit stops looking once
   n_a (c(g) - c(l_a)) reaches its best cost. For a pattern, two wildcard counts over the
   records give per target: A, the records compatible with it now, and D, those compatible once
   every *descendant* (a record whose values lie below the target's, at finer levels) is
   recoded to it. Two moves are priced:

   * *move*: the unit's records join the target (A + n_a records; n_a already counted in A when
     the unit is at the pattern's levels on every kept variable); if that is < k, m = k - that
     many partners are recoded to the target too, possible when D leaves m descendants. A value
     recoded to missing matches every partner already (wildcard), so partners are recoded only
     on the variables where the target keeps a (possibly coarser) value. Cost
     ``n_a (c(g) - c(l_a)) + m * (levels a partner climbs)``. The all-missing target is always
     feasible with alpha = 1 (fk = n >= k).
   * *donors* (the other direction of the same pairing, when the target keeps the unit's own
     values): d = k - fk_a records that agree with the unit on the kept variables give up their
     values where they differ from it, and become compatible with all n_a records at once.
     Cost ``d (c(g) - c(l_a))``; cheaper than moving a unit of n_a > d records.

   After 64 patterns (many key variables) the units still without a target follow a greedy
   chain of patterns: each step climbs the one variable level that most raises
   sum over the open units of min(A + own, k); a unit takes the first feasible pattern.
3. Recoding: units taking donors are served first (one unit per target slice and round; donors
   among equally cheap ones are rare records first, so one change helps two rare records);
   then the other units move to their targets, except that, per target, a unit whose fk the
   units moving before it (lower fk first) already lift to k waits for the next round; per
   target, the shortfall k - (records compatible with it) is filled with descendants that are
   not rare, cheapest first and, among equally cheap, from the most frequent combinations (so
   that their own groups stay safe). A pair (Takemura 2002) is the case k = 2: a unique record
   and one partner.

Rounds repeat until no record has fk < k. Every round moves at least one record to a coarser
level (if no target changed anything, the next round only considers moves of the rare unit
itself; with alpha < 1, if no rare unit can move, partly missing records become wholly
missing), so the loop ends. With alpha = 1 a restoration pass (the one of local suppression,
`sdcsession.methods.suppression._core.restore_only`) then gives back every suppressed value whose
return keeps all records at fk >= k (the simultaneous choices of one round may suppress two
records where one suffices), most important variable (largest weight) first.
"""

from __future__ import annotations

import numpy as np

from ...risk.frequencies import frequencies_from_codes
from ..suppression._core import restore_only
from ..suppression._rows import _row_ids, _unique_rows
from ._local_search import EPS, Choice, Hierarchy, choose, gen_codes

__all__ = ["Hierarchy", "recode"]


def _donors(H: Hierarchy, lev: np.ndarray, X: np.ndarray, taken: np.ndarray, rare: np.ndarray,
            rep: np.ndarray, pattern: np.ndarray, d: np.ndarray, patterns: list[np.ndarray]
            ) -> np.ndarray:
    """Give each unit its d donors (in place in ``lev``; donors are marked ``taken``): one unit
    per slice (same values on the kept variables) and pattern; among equally cheap donors rare
    records first. Returns which units were served."""
    served = np.zeros(len(rep), bool)
    for pi in np.unique(pattern).tolist():  # the few distinct patterns
        g = patterns[pi]
        nt, tv = np.flatnonzero(g < H.top), np.flatnonzero(g == H.top)
        U = np.flatnonzero(pattern == pi)
        ids = _row_ids(X[rep[U]][:, nt])
        U = U[np.unique(ids, return_index=True)[1]]  # first unit of each slice
        cand = np.flatnonzero(~taken)
        if len(cand) == 0:
            break
        _, _, inv = _unique_rows(np.vstack([X[rep[U]][:, nt], X[cand][:, nt]]))
        slot = np.full(int(inv.max()) + 1, -1, np.int64)
        slot[inv[:len(U)]] = np.arange(len(U))
        cu = slot[inv[len(U):]]
        cand, cu = cand[cu >= 0], cu[cu >= 0]
        xc, xu = X[cand][:, tv], X[rep[U[cu]]][:, tv]
        diff = (xc >= 0) & (xu >= 0) & (xc != xu)
        has = diff.any(axis=1)
        cand, cu, diff = cand[has], cu[has], diff[has]
        if len(cand) == 0:
            continue
        cost = (diff * H.step[tv] * (H.top[tv] - lev[cand][:, tv])).sum(axis=1)
        order = np.lexsort((cand, ~rare[cand], cost, cu))
        cand, cu, diff = cand[order], cu[order], diff[order]
        start = np.searchsorted(cu, np.arange(len(U)))
        rank = np.arange(len(cu)) - start[cu]
        pick = rank < d[U[cu]]
        sub = lev[cand[pick]][:, tv]
        lev[np.ix_(cand[pick], tv)] = np.where(diff[pick], H.top[tv], sub)
        taken[cand[pick]] = True
        got = np.bincount(cu[pick], minlength=len(U))
        served[U[got >= d[U] - EPS]] = True
    return served


def _partners(H: Hierarchy, lev: np.ndarray, fk: np.ndarray, taken: np.ndarray,
              ch: Choice, k: int) -> None:
    """Recode the partners each target still needs (step 3), in place in ``lev``; records
    already ``taken`` (rare, or donors) are not used (and the partners are marked taken)."""
    tid = _row_ids(np.column_stack([ch.pattern, ch.target]))
    nt_ = int(tid.max()) + 1
    first = np.full(nt_, -1, np.int64)
    first[tid[::-1]] = np.arange(len(tid))[::-1]
    have = ch.joined[first] + np.bincount(tid, weights=ch.own, minlength=nt_)
    need = np.maximum(k - have, 0).round().astype(np.int64)
    for pi in np.unique(ch.pattern[first[need > 0]]).tolist():  # the few distinct patterns
        g = ch.patterns[pi]
        nt = np.flatnonzero(g < H.top)
        G = g[nt]
        T = np.flatnonzero((need > 0) & (ch.pattern[first] == pi))
        L = lev[:, nt]
        cand = np.flatnonzero(~taken & (L <= G).all(axis=1) & (L < G).any(axis=1))
        if len(cand) == 0 or len(nt) == 0:
            continue
        C = gen_codes(H, cand, nt, G)
        Trows = ch.target[first[T]][:, nt]
        _, _, inv = _unique_rows(np.vstack([Trows, C]))
        slot = np.full(int(inv.max()) + 1, -1, np.int64)
        slot[inv[:len(T)]] = np.arange(len(T))
        ct = slot[inv[len(T):]]
        ok = ct >= 0
        cand, ct = cand[ok], ct[ok]
        if len(cand) == 0:
            continue
        cost = ((G - lev[cand][:, nt]) * H.step[nt]).sum(axis=1)
        order = np.lexsort((cand, -fk[cand], cost, ct))
        cand, ct = cand[order], ct[order]
        start = np.searchsorted(ct, np.arange(len(T)))
        rank = np.arange(len(ct)) - start[ct]
        pick = cand[rank < need[T][ct]]
        sub = lev[pick]
        sub[:, nt] = G
        lev[pick] = sub
        taken[pick] = True


def _movers(ch: Choice, fk: np.ndarray, n_a: np.ndarray, k: int) -> np.ndarray:
    """Units that move this round: per target, in increasing fk, a unit waits when the units
    moving before it to the same target (compatible with it once there) already lift it to k."""
    tid = _row_ids(np.column_stack([ch.pattern, ch.target]))
    order = np.lexsort((np.arange(len(tid)), fk, tid))
    t, nn = tid[order], n_a[order]
    cs = np.cumsum(nn)
    start = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
    before = cs - nn - np.repeat(cs[start] - nn[start], np.diff(np.r_[start, len(t)]))
    move = np.empty(len(tid), bool)
    move[order] = (fk[order] + before < k - EPS) | (ch.own[order] > 0)
    return move


def recode(H: Hierarchy, lev: np.ndarray, k: int, alpha: float = 1.0,
           rank: np.ndarray | None = None) -> tuple[np.ndarray, int, int]:
    """Rounds of progressive local recoding on levels ``lev`` ``(n, p)`` until fk >= k.

    Returns the final levels, the number of rounds and the number of restored values.
    ``rank``: restoration priority per variable (lowest first).

    >>> H = Hierarchy.from_levels([[np.array([0, 1, 2, 2]), np.array([0, 0, 1, 1])]], [1.0])
    >>> lev, rounds, restored = recode(H, np.zeros((4, 1), np.int64), k=2)
    >>> lev.ravel().tolist(), rounds
    ([1, 1, 0, 0], 1)
    """
    lev = lev.copy()
    n, p = lev.shape
    start = lev.copy()
    pre = lev.copy()  # level before a value was suppressed (restoration target)
    rounds, strict = 0, False
    while True:
        X = H.released(lev)
        fk, _ = frequencies_from_codes(X, H.cards.tolist(), alpha=alpha)
        rare = fk < k - EPS
        if not rare.any():
            break
        rounds += 1
        ridx = np.flatnonzero(rare)
        _, first, inv = _unique_rows(X[ridx])
        rep = ridx[first]
        n_a = np.bincount(inv, minlength=len(first)).astype(np.float64)
        before = lev.copy()
        fk1 = fk if alpha == 1.0 else frequencies_from_codes(X, H.cards.tolist())[0]
        ch = choose(H, lev, rep, n_a, fk1[rep], k, strict)
        donor = np.flatnonzero(ch.dcost < ch.cost - EPS)
        served = np.zeros(len(rep), bool)
        taken = np.zeros(n, bool)
        if len(donor):
            # records of the units wanting donors keep their values; rare records of other
            # units may serve as donors (two rare records helped by one change)
            isd = np.zeros(len(rep), bool)
            isd[donor] = True
            taken[ridx[isd[inv]]] = True
            served[donor] = _donors(H, lev, X, taken, rare, rep[donor], ch.dpattern[donor],
                                    np.maximum(k - fk1[rep[donor]], 1.0), ch.patterns)
        donated = taken & (lev != before).any(axis=1)
        taken |= rare
        sub = np.flatnonzero(np.isfinite(ch.cost) & ~served)
        if len(sub):
            sub = sub[_movers(ch.take(sub), fk[rep[sub]], n_a[sub], k)]
            found = np.zeros(len(rep), bool)
            found[sub] = True
            mv = found[inv] & ~donated[ridx]
            g = np.array(ch.patterns)[ch.pattern[inv[mv]]]
            lev[ridx[mv]] = np.maximum(lev[ridx[mv]], g)
            _partners(H, lev, fk, taken, ch.take(sub), k)
        changed = lev != before
        newtop = changed & (lev == H.top)
        pre[newtop] = before[newtop]
        if changed.any():
            strict = False
            continue
        if not strict:
            strict = True
            continue
        # alpha < 1 and every rare unit wholly missing: partly missing records become missing
        miss = lev == H.top
        part = miss.any(axis=1) & ~miss.all(axis=1)
        pre[part] = np.where(miss[part], pre[part], lev[part])
        lev[part] = H.top[None, :]
    restored = 0
    if alpha == 1.0:
        X = H.released(lev)
        orig = H.released(pre)
        cand = (lev == H.top) & (start < H.top)
        restored = restore_only(X, orig, np.ones(n), [np.arange(p)], H.cards.tolist(), k,
                                rank, cand)
        if restored:
            back = cand & (X >= 0)
            lev[back] = pre[back]
    return lev, rounds, restored
