"""The search of the optimiser on synthetic objectives (no data): constrained domination, the
fronts of the non-dominated sort, the budget, exhaustiveness of a small space, determinism."""

from __future__ import annotations

import itertools
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.session.optimize.search import crowding, dominates, nondominated_sort, search
from sdcsession.session.optimize.space import parse_targets


def _run(sizes, budget, seed, score_of):
    order: list = []
    scores: dict = {}

    def evaluate(batch):
        for p in batch:
            scores[p] = score_of(p)
            order.append(p)

    def frontier():
        ok = [p for p in order if scores[p][0] == 0]
        return sorted(p for p in ok if not any(dominates(scores[q], scores[p]) for q in ok))

    search(sizes, evaluate, scores.__getitem__, lambda: set(order), frontier, budget, seed)
    return order, frontier()


def _score(p):  # more treatment: less risk, more loss; infeasible below level 1 of dimension 0
    risk = 10.0 / (1 + sum(p))
    loss = sum((i + 1) * v for i, v in enumerate(p)) + 0.1 * (p[-1] % 2)
    return (0.0 if p[0] >= 1 else 1.0 - 0.1 * sum(p), risk, loss)


def test_small_space_is_searched_exhaustively_and_frontier_is_exact() -> None:
    sizes = [3, 3, 2]
    order, front = _run(sizes, 18, 1, _score)
    assert len(order) == 18 and len(set(order)) == 18
    every = list(itertools.product(*(range(s) for s in sizes)))
    ok = [p for p in every if _score(p)[0] == 0]
    exact = sorted(p for p in ok if not any(dominates(_score(q), _score(p)) for q in ok))
    assert front == exact


def test_budget_is_respected_and_same_seed_same_order() -> None:
    sizes = [4, 4, 3, 3]
    a, fa = _run(sizes, 20, 7, _score)
    b, fb = _run(sizes, 20, 7, _score)
    assert len(a) <= 20 and len(set(a)) == len(a)
    assert a == b and fa == fb
    assert a[0] == (0, 0, 0, 0)  # the bottom of the lattice first
    assert any(_score(p)[0] == 0 for p in a)  # the greedy climb reached a feasible plan


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.5]), st.integers(0, 4), st.integers(0, 4)),
                min_size=1, max_size=12))
def test_fronts_partition_and_respect_domination(raw) -> None:
    scores = [(c, float(r), float(lo)) for c, r, lo in raw]
    fronts = nondominated_sort(scores)
    assert sorted(i for f in fronts for i in f) == list(range(len(scores)))
    rank = {i: k for k, f in enumerate(fronts) for i in f}
    for i, j in itertools.permutations(range(len(scores)), 2):
        if dominates(scores[i], scores[j]):
            assert rank[i] < rank[j]
    d = crowding(scores, fronts[0])
    assert all(v >= 0 for v in d.values()) and (len(fronts[0]) < 2 or math.inf in d.values())


def test_target_spellings() -> None:
    assert parse_targets("k-anonymity=3") == parse_targets({"k": 3}) == parse_targets(
        [("k_anonymity", 3)])
