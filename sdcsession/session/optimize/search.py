"""The search: a greedy climb of the lattice of plans, then a small deterministic NSGA-II.

Plans are integer vectors ``x`` (one alternative index per dimension, alternatives ordered
from the weakest to the strongest treatment), so the plans form a lattice ordered by ``x <= y``
componentwise. Each evaluated plan has two objectives, ``risk`` and ``loss`` (both lower is
better), and a constraint violation ``cv >= 0`` (the privacy targets' violations scaled to
[0, 1] plus every contract's shortfall ``max(0, -margin)``; 0 = feasible).

1. **Greedy lattice climb** (bottom-up, as in Samarati's and ARX's searches of generalisation
   lattices): start at the bottom plan (weakest alternatives); while the current plan is
   infeasible, evaluate its direct successors (one dimension one level stronger) and move to
   the best by constrained domination. It reaches a feasible plan with few evaluations.
2. **NSGA-II** (Deb, Pratap, Agarwal & Meyarivan 2002, *IEEE Trans. Evol. Comput.* 6(2)) with
   Deb's constrained domination: a feasible plan dominates an infeasible one, of two infeasible
   plans the one with the smaller ``cv`` dominates, two feasible plans compare by Pareto
   dominance on (risk, loss). A population of the best plans so far (non-dominated sorting,
   then crowding distance) breeds children by binary tournaments, uniform crossover and a
   ±1-level mutation per dimension with probability 1/D; a child evaluated before is replaced
   by an unevaluated neighbour of a frontier plan (local search), else by an unevaluated plan
   drawn at random. The search stops when the budget of evaluations is spent, when every plan
   of the space has been evaluated, or after `PATIENCE` generations that add nothing to the
   frontier. When the whole space fits in the budget there is no early stop: every plan is
   evaluated and the frontier is exact (so it is never worse than any grid over that space).

The bottom plan (the weakest alternative everywhere) is always evaluated first; when it meets
every target and contract it is usually the least-loss plan.

Every random choice comes from ``numpy.random.default_rng(seed)`` and every sort is stable with
the plan vector as last key, so the same seed evaluates the same plans in the same order and
gives the same frontier, bit for bit. We implement NSGA-II here rather than use pymoo
(0.6.2 installs cleanly, but brings seven packages: autograd, cma, moocore, alive-progress...):
the space is small and integer, every evaluation is a real anonymisation, the constraint
values and the cache of states are ours, and the frontier must not depend on a library's
version; the algorithm itself is a hundred lines.

Example
-------
>>> nondominated_sort([(0.0, 1.0, 2.0), (0.0, 2.0, 1.0), (0.0, 2.0, 2.0), (1.0, 0.0, 0.0)])
[[0, 1], [2], [3]]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np

__all__ = ["dominates", "nondominated_sort", "crowding", "search", "PATIENCE"]

#: generations without a change of the frontier after which the search stops
PATIENCE = 3

Score = tuple[float, float, float]  # (cv, risk, loss)


def dominates(a: Score, b: Score) -> bool:
    """Deb's constrained domination of scores ``(cv, risk, loss)``.

    >>> dominates((0.0, 1.0, 1.0), (0.5, 0.0, 0.0)), dominates((0.0, 1.0, 2.0), (0.0, 1.0, 2.0))
    (True, False)
    """
    if a[0] > 0 or b[0] > 0:
        return a[0] < b[0]
    return a[1] <= b[1] and a[2] <= b[2] and (a[1] < b[1] or a[2] < b[2])


def nondominated_sort(scores: list[Score]) -> list[list[int]]:
    """Fronts of non-dominated positions (Deb et al. 2002, fast non-dominated sort)."""
    n = len(scores)
    dominated: list[list[int]] = [[] for _ in range(n)]
    count = [0] * n
    for i in range(n):
        for j in range(n):
            if i != j and dominates(scores[i], scores[j]):
                dominated[i].append(j)
            elif i != j and dominates(scores[j], scores[i]):
                count[i] += 1
    fronts = [[i for i in range(n) if count[i] == 0]]
    while fronts[-1]:
        nxt = []
        for i in fronts[-1]:
            for j in dominated[i]:
                count[j] -= 1
                if count[j] == 0:
                    nxt.append(j)
        fronts.append(sorted(nxt))
    return fronts[:-1]


def crowding(scores: list[Score], front: list[int]) -> dict[int, float]:
    """Crowding distance of the positions of one front on (risk, loss)."""
    out = {i: 0.0 for i in front}
    for k in (1, 2):
        order = sorted(front, key=lambda i: (scores[i][k], i))
        lo, hi = scores[order[0]][k], scores[order[-1]][k]
        out[order[0]] = out[order[-1]] = math.inf
        if hi > lo:
            for a, i, b in zip(order, order[1:], order[2:]):
                out[i] += (scores[b][k] - scores[a][k]) / (hi - lo)
    return out


def _rank(plans: list[tuple[int, ...]], score: Callable[[tuple[int, ...]], Score]
          ) -> list[tuple[int, ...]]:
    """``plans`` ordered by front, then by decreasing crowding, then by plan vector."""
    scores = [score(p) for p in plans]
    key: dict[int, tuple[int, float]] = {}
    for r, front in enumerate(nondominated_sort(scores)):
        for i, d in crowding(scores, front).items():
            key[i] = (r, -d)
    return [plans[i] for i in sorted(range(len(plans)), key=lambda i: (*key[i], plans[i]))]


def search(sizes: list[int], evaluate: Callable[[list[tuple[int, ...]]], None],
           score: Callable[[tuple[int, ...]], Score], evaluated: Callable[[], set],
           frontier: Callable[[], list[tuple[int, ...]]], budget: int, seed: int,
           population: int = 8) -> None:
    """Run the two phases (see the module docstring). ``evaluate(plans)`` evaluates a batch
    (at most what the budget allows is passed), ``score(plan)`` reads an evaluated plan's
    ``(cv, risk, loss)``, ``evaluated()`` the set of evaluated plans, ``frontier()`` the current
    feasible frontier."""
    rng = np.random.default_rng(seed)
    dims = len(sizes)
    space = math.prod(sizes)

    def left() -> int:
        return min(budget, space) - len(evaluated())

    def run(batch: list[tuple[int, ...]]) -> None:
        seen = evaluated()
        batch = [p for p in dict.fromkeys(batch) if p not in seen][:max(left(), 0)]
        if batch:
            evaluate(batch)

    # 1. greedy climb from the bottom of the lattice
    current = (0,) * dims
    run([current])
    while left() > 0 and score(current)[0] > 0:
        succ = [current[:d] + (current[d] + 1,) + current[d + 1:]
                for d in range(dims) if current[d] + 1 < sizes[d]]
        if not succ:
            break
        run(succ)
        done = [p for p in succ if p in evaluated()]
        if not done:
            break
        current = _rank(done, score)[0]
    # 2. NSGA-II
    pop = _rank(sorted(evaluated()), score)[:population]
    stale = 0
    exhaustive = space <= budget
    while left() > 0 and (exhaustive or stale < PATIENCE):
        before = list(frontier())
        seen = evaluated()
        children: list[tuple[int, ...]] = []
        tries = 0
        while len(children) < min(population, left()) and tries < 20 * population:
            tries += 1
            a, b = (min(rng.choice(len(pop), size=2, replace=len(pop) < 2)) for _ in range(2))
            pa, pb = pop[a], pop[b]
            mask = rng.random(dims) < 0.5
            child = [pa[d] if mask[d] else pb[d] for d in range(dims)]
            for d in range(dims):
                if rng.random() < 1.0 / dims:
                    child[d] = int(np.clip(child[d] + rng.choice((-1, 1)), 0, sizes[d] - 1))
            c = tuple(int(v) for v in child)
            if c in seen or c in children:
                c = _neighbour(frontier() or pop, sizes, seen | set(children), rng)
            if c is not None and c not in seen and c not in children:
                children.append(c)
        if not children:
            break
        run(children)
        pop = _rank(sorted(set(pop) | (set(children) & evaluated())), score)[:population]
        stale = stale + 1 if frontier() == before else 0


def _neighbour(base: list[tuple[int, ...]], sizes: list[int], taken: set,
               rng: np.random.Generator) -> tuple[int, ...] | None:
    """An unevaluated plan one level away from a plan of ``base`` (in a random order), else an
    unevaluated plan drawn at random, else the first one left (None when every plan is
    taken)."""
    cands = []
    for p in base:
        for d in range(len(sizes)):
            for step in (-1, 1):
                v = p[d] + step
                if 0 <= v < sizes[d]:
                    q = p[:d] + (v,) + p[d + 1:]
                    if q not in taken:
                        cands.append(q)
    cands = sorted(set(cands))
    if cands:
        return cands[int(rng.integers(len(cands)))]
    for _ in range(64):
        q = tuple(int(rng.integers(s)) for s in sizes)
        if q not in taken:
            return q
    if math.prod(sizes) <= 100_000:  # nearly every plan taken: the first one left
        for q in itertools.product(*(range(s) for s in sizes)):
            if q not in taken:
                return q
    return None
