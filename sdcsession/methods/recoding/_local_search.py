"""Candidate common values of progressive local recoding (internal): `Hierarchy`, `choose`.

`Hierarchy` holds the codes of the key variables at each level; `choose` finds, for every rare
unit, its cheapest feasible target (step 2 of the algorithm in
``sdcsession.methods.recoding._local_core``): a best-first walk through the lattice of level
vectors (`_patterns`), with a wildcard count of the records compatible with each target
(`sdcsession.methods.suppression._counter.Counter`), and after ``BUDGET`` patterns a greedy chain
(`_chain`) for the units still without a target (many key variables).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence

import attrs
import numpy as np

from ..suppression._counter import Counter

__all__ = ["Hierarchy", "Choice", "choose", "gen_codes", "EPS"]

EPS = 1e-9
#: patterns evaluated by the best-first search before the greedy chain takes over
BUDGET = 64


@attrs.frozen
class Hierarchy:
    """Codes of the key variables at each level (see the module docstring).

    ``codes[v]``: ``(L_v + 1, n)`` int64, the code of each record at each non-top level, already
    shifted into the variable's code space (``offset of the level + code``); ``-1`` where the
    value is missing. ``cards[v]``: size of the code space; ``step[v] = w_v / (L_v + 1)``.
    ``first``: the variables by decreasing number of distinct values; among candidates of equal
    cost, those climbing such a variable come first (a fixed order, so that rare records of one
    round suppress the same variable and become compatible with each other).

    >>> H = Hierarchy.from_levels([[np.array([0, 1, 2, 2]), np.array([0, 0, 1, 1])]], [1.0])
    >>> H.codes[0].tolist(), H.cards.tolist(), H.step.tolist()
    ([[0, 1, 2, 2], [3, 3, 4, 4]], [5], [0.5])
    """

    codes: list[np.ndarray]
    cards: np.ndarray
    top: np.ndarray
    step: np.ndarray
    first: np.ndarray  # variables by decreasing number of values: among equal costs, climbed first

    @classmethod
    def from_levels(cls, levels: Sequence[Sequence[np.ndarray]], weights: Sequence[float]
                    ) -> Hierarchy:
        """From per variable a list of factorised code arrays (level 0 first, -1 = missing)."""
        codes, cards = [], []
        for lv in levels:
            rows, off = [], 0
            for c in lv:
                c = np.asarray(c, dtype=np.int64)
                rows.append(np.where(c >= 0, c + off, -1))
                off += int(c.max()) + 1 if len(c) and c.max() >= 0 else 0
            codes.append(np.vstack(rows))
            cards.append(max(off, 1))
        top = np.array([len(lv) for lv in levels], dtype=np.int64)
        step = np.asarray(weights, dtype=np.float64) / top  # top = L_v + 1
        n0 = [int(lv[0].max()) + 1 if len(lv[0]) else 0 for lv in levels]
        first = np.array(sorted(range(len(levels)), key=lambda v: -n0[v]), dtype=np.int64)
        return cls(codes, np.array(cards, dtype=np.int64), top, step, first)

    def released(self, lev: np.ndarray) -> np.ndarray:
        """``(n, p)`` codes of the released values at levels ``lev`` (``-1`` at the top)."""
        n, p = lev.shape
        X = np.full((n, p), -1, dtype=np.int64)
        for v in range(p):
            for ell in range(int(self.top[v])):  # a variable's few levels
                at = lev[:, v] == ell
                X[at, v] = self.codes[v][ell, at]
        return X

    def at(self, v: int, ell: int, rows: np.ndarray) -> np.ndarray:
        """Codes of ``rows`` at level ``ell`` of variable ``v``."""
        return self.codes[v][ell, rows]


def _patterns(top: np.ndarray, step: np.ndarray, first: np.ndarray
              ) -> Iterator[tuple[float, np.ndarray]]:
    """Level vectors 0 <= g <= top in increasing cost sum(step * g), lazily (best first through
    the lattice). Equal costs: climbing the variables listed early in ``first`` comes first."""
    pos = np.empty(len(top), np.int64)
    pos[np.asarray(first)] = np.arange(len(top))[::-1]
    start = tuple([0] * len(top))
    heap: list[tuple[float, tuple[int, ...], tuple[int, ...]]] = [(0.0, start, start)]
    seen = {start}
    tl, pl = top.tolist(), pos.tolist()
    while heap:
        cost, _, g = heapq.heappop(heap)
        yield cost, np.array(g, dtype=np.int64)
        for v in range(len(g)):  # successors: one more level of one variable
            if g[v] < tl[v]:
                h = g[:v] + (g[v] + 1,) + g[v + 1:]
                if h not in seen:
                    seen.add(h)
                    key = [0] * len(h)
                    for u, lv in enumerate(h):
                        key[pl[u]] = lv
                    heapq.heappush(heap, (cost + float(step[v]), tuple(key), h))


@attrs.define
class Choice:
    """Best target found so far per rare unit: moving itself (with partners), or donors."""

    cost: np.ndarray
    pattern: np.ndarray   # index into `patterns`
    target: np.ndarray    # (units, p) target codes (-1 on the pattern's top variables)
    joined: np.ndarray    # records compatible with the target now (A)
    own: np.ndarray       # the unit's records not yet counted in A
    dcost: np.ndarray     # cost of the cheapest donor move (inf: none)
    dpattern: np.ndarray  # its pattern
    patterns: list[np.ndarray] = attrs.field(factory=list)

    def take(self, idx: np.ndarray) -> Choice:
        return Choice(self.cost[idx], self.pattern[idx], self.target[idx], self.joined[idx],
                       self.own[idx], self.dcost[idx], self.dpattern[idx], self.patterns)


def gen_codes(H: Hierarchy, rows: np.ndarray, nt: np.ndarray, G: np.ndarray) -> np.ndarray:
    """Codes of ``rows`` on the variables ``nt`` at the levels ``G`` (one column each).

    >>> H = Hierarchy.from_levels([[np.array([0, 1, 2, 2]), np.array([0, 0, 1, 1])]], [1.0])
    >>> gen_codes(H, np.arange(4), np.array([0]), np.array([1])).ravel().tolist()
    [3, 3, 4, 4]
    """
    return np.column_stack([H.at(int(v), int(G[j]), rows) for j, v in enumerate(nt)])


def _counts(H: Hierarchy, lev: np.ndarray, nt: np.ndarray, G: np.ndarray, Q: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """A and D of the targets ``Q`` (codes on the kept variables ``nt`` at levels ``G``)."""
    if len(nt) == 0:
        return np.full(len(Q), float(len(lev))), np.full(len(Q), float(len(lev)))
    L = lev[:, nt]
    is_top = L == H.top[nt]
    rows = np.flatnonzero(((L <= G) | is_top).all(axis=1))
    Lr, Tr = L[rows], is_top[rows]
    Xg = np.where(Tr, -1, gen_codes(H, rows, nt, G))
    W = np.column_stack([((Lr == G) | Tr).all(axis=1), np.ones(len(rows))]).astype(np.float64)
    res = Counter(Xg, W, np.arange(len(nt)), H.cards[nt]).count(Q)
    return res[:, 0], res[:, 1]


@attrs.frozen
class _Eval:
    """One pattern evaluated for some units: kept variables, targets, counts, own-move cost."""

    nt: np.ndarray
    Q: np.ndarray
    A: np.ndarray
    own: np.ndarray
    finer: np.ndarray
    feasible: np.ndarray
    total: np.ndarray


def _evaluate(H: Hierarchy, lev: np.ndarray, rep: np.ndarray, n_a: np.ndarray,
              delta: np.ndarray, g: np.ndarray, k: int) -> _Eval:
    """Targets of the units ``rep`` (levels <= g) at pattern g, their counts A and D, and the
    cost of moving there (with the partners needed) where feasible."""
    nt = np.flatnonzero(g < H.top)  # variables the pattern keeps
    G = g[nt]
    ul = lev[rep]
    finer = (ul[:, nt] < G).any(axis=1)
    own = np.where(finer, n_a, 0).astype(np.float64)
    Q = gen_codes(H, rep, nt, G) if len(nt) else np.zeros((len(rep), 0), np.int64)
    A, D = _counts(H, lev, nt, G, Q)
    need = np.maximum(k - (A + own), 0.0)
    feasible = need <= D - A - own + EPS
    climb = ((G - ul[:, nt]) * H.step[nt]).sum(axis=1)
    steps = H.step[nt][G > 0]
    part = np.maximum(climb, steps.min() if len(steps) else np.inf)
    pay = need > 0
    total = n_a * delta
    total[pay] += need[pay] * part[pay]
    return _Eval(nt, Q, A, own, finer, feasible, total)


def _store(ch: Choice, b: np.ndarray, e: _Eval, sel: np.ndarray, pi: int) -> None:
    ch.cost[b] = e.total[sel]
    ch.pattern[b] = pi
    tgt = np.full((len(b), ch.target.shape[1]), -1, np.int64)
    tgt[:, e.nt] = e.Q[sel]
    ch.target[b] = tgt
    ch.joined[b] = e.A[sel]
    ch.own[b] = e.own[sel]


def choose(H: Hierarchy, lev: np.ndarray, rep: np.ndarray, n_a: np.ndarray, fk1: np.ndarray,
            k: int, strict: bool, budget: int | None = None) -> Choice:
    """Cheapest feasible target of each rare unit (step 2 of the module docstring).

    ``fk1``: fk of the units with alpha = 1. A *donor* move keeps the unit and suppresses, in
    d = k - fk1 records that agree with it on the pattern's kept variables, the values where
    they differ from it (they become compatible with all n_a records at once). After ``budget``
    patterns the units still without a target follow `_chain`.

    >>> H = Hierarchy.from_levels([[np.array([0, 1, 2, 2]), np.array([0, 0, 1, 1])]], [1.0])
    >>> ch = choose(H, np.zeros((4, 1), np.int64), np.array([0, 1]), np.ones(2),
    ...             np.ones(2), k=2, strict=False)
    >>> ch.cost.tolist(), [ch.patterns[i].tolist() for i in ch.pattern]  # both to the ancestor
    ([1.0, 1.0], [[1], [1]])
    """
    budget = BUDGET if budget is None else budget
    p = lev.shape[1]
    nu = len(rep)
    ulev = lev[rep]
    base = ulev @ H.step
    d = np.maximum(k - fk1, 1.0)
    ch = Choice(np.full(nu, np.inf), np.full(nu, -1, np.int64), np.full((nu, p), -1, np.int64),
                 np.zeros(nu), np.zeros(nu), np.full(nu, np.inf), np.full(nu, -1, np.int64))
    for cost_g, g in _patterns(H.top, H.step, H.first):
        delta = cost_g - base
        live = n_a * delta < ch.cost - EPS
        if not strict:
            live |= d * delta < ch.dcost - EPS
        if not live.any():
            break  # later patterns cost at least as much for every unit
        live &= (ulev <= g).all(axis=1)
        if strict:
            live &= (ulev != g).any(axis=1)
        idx = np.flatnonzero(live)
        if len(idx) == 0:
            continue
        budget -= 1
        if budget < 0:
            _chain(H, lev, rep, n_a, base, k, strict, ch)
            break
        e = _evaluate(H, lev, rep[idx], n_a[idx], delta[idx], g, k)
        pi = len(ch.patterns)
        better = e.feasible & (e.total < ch.cost[idx] - EPS)
        if not strict and len(e.nt):
            dt = d[idx] * delta[idx]
            dbetter = (~e.finer & (ulev[idx] != g).any(axis=1)
                       & (e.A - fk1[idx] >= d[idx] - EPS) & (dt < ch.dcost[idx] - EPS))
            ch.dcost[idx[dbetter]] = dt[dbetter]
            ch.dpattern[idx[dbetter]] = pi
        else:
            dbetter = np.zeros(len(idx), bool)
        if better.any() or dbetter.any():
            ch.patterns.append(g)
        if better.any():
            _store(ch, idx[better], e, better, pi)
    return ch


def _chain(H: Hierarchy, lev: np.ndarray, rep: np.ndarray, n_a: np.ndarray, base: np.ndarray,
           k: int, strict: bool, ch: Choice) -> None:
    """Greedy chain of patterns for the units without a target (many key variables): from
    the all-zero pattern, climb each step the one variable level that most raises
    sum over the open units of min(A + own, k) (units whose levels the pattern does not cover
    count 0); a unit takes the first pattern of the chain where it is feasible. Costs at most
    p × (sum of the levels) pattern evaluations instead of the whole lattice."""
    open_ = ~np.isfinite(ch.cost) & ~np.isfinite(ch.dcost)
    ulev = lev[rep]
    g = np.zeros(len(H.top), np.int64)
    order = H.first.tolist()
    while open_.any() and (g < H.top).any():
        best = None
        for v in order:  # the few variables
            if g[v] >= H.top[v]:
                continue
            h = g.copy()
            h[v] += 1
            idx = np.flatnonzero(open_ & (ulev <= h).all(axis=1))
            if strict:
                idx = idx[(ulev[idx] != h).any(axis=1)]
            if len(idx) == 0:
                score, e = 0.0, None
            else:
                e = _evaluate(H, lev, rep[idx], n_a[idx], float(h @ H.step) - base[idx], h, k)
                score = float(np.minimum(e.A + e.own, k).sum())
            if best is None or score > best[0] + EPS:
                best = (score, h, idx, e)
        assert best is not None
        _, g, idx, e = best
        if e is None:
            continue
        ok = e.feasible
        if ok.any():
            pi = len(ch.patterns)
            ch.patterns.append(g)
            _store(ch, idx[ok], e, ok, pi)
            open_[idx[ok]] = False
