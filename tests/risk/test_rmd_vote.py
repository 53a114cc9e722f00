"""rmd_risk's modal vote: the early decision (`certain`, `needed`) against every completion of
the remaining runs, the scheduled runs (calling thread and helper) against the plain loop of
all runs for any number of threads, and the C-step's selection (small sample, order statistics
by counting) against the stable order."""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.errors import MeasureError
from sdcsession.risk.numeric import _rmd_mcd
from sdcsession.risk.numeric._rmd_runs import Runs, certain, needed
from sdcsession.risk.robust._fastmcd import fastmcd
from sdcsession.risk.robust.minimum_covariance import _robustbase_fit


def _winner(seq: list[tuple[str, float]]) -> str:
    """The rule of the modal fit: most votes, then smallest log det, then the first run."""
    votes = Counter(s for s, _ in seq)
    best = max(range(len(seq)), key=lambda j: (votes[seq[j][0]], -seq[j][1]))
    return seq[best][0]


def _state(seq):
    votes, log_det, first = {}, {}, {}
    for i, (s, d) in enumerate(seq):
        votes[s] = votes.get(s, 0) + 1
        log_det.setdefault(s, d)
        first.setdefault(s, i)
    return votes, log_det, first


# subsets with fixed log dets (a and c equal: the first run seen decides their tie)
DETS = {"a": -2.0, "b": -1.0, "c": -2.0}


@settings(max_examples=300, deadline=None)
@given(seq=st.lists(st.sampled_from("abc"), min_size=1, max_size=7), left=st.integers(0, 4))
def test_certain_means_every_completion_keeps_the_leader(seq, left):
    done = [(s, DETS[s]) for s in seq]
    votes, log_det, first = _state(done)
    lead = _winner(done)
    # the remaining runs vote for a, b, c or for subsets not seen yet (one of them can take
    # every remaining vote, with a log det below or above all others)
    options = [(s, DETS[s]) for s in "abc"] + [("x", -9.0), ("y", 9.0)]
    outcomes = {_winner(done + list(rest)) for rest in itertools.product(options, repeat=left)}
    assert certain(votes, log_det, first, left) == (outcomes == {lead})
    r = needed(votes, log_det, first, left)
    assert (r == 0) if left == 0 else 1 <= r <= left
    if 0 < left and r < left:  # r votes for the leader decide, fewer never do
        more = dict(votes)
        more[lead] += r
        assert certain(more, log_det, first, left - r)
        for q in range(1, r):
            more = dict(votes)
            more[lead] += q
            assert not certain(more, log_det, first, left - q)


def test_needed_before_any_vote():
    assert [needed({}, {}, {}, runs) for runs in (1, 2, 5, 10, 11)] == [1, 2, 3, 6, 6]
    # the first three runs agreeing end the vote: three runs are needed in any case
    assert [needed({}, {}, {}, runs, agree=3) for runs in (1, 2, 3, 5, 10)] == [1, 2, 2, 3, 3]


@settings(max_examples=100, deadline=None)
@given(seq=st.lists(st.sampled_from("abc"), min_size=0, max_size=5), runs=st.integers(1, 6))
def test_needed_with_agreement_is_the_fewest_runs_to_a_decision(seq, runs):
    # the vote ends after run i when runs 0..2 agree (i = 2) or the leader is certain; needed
    # says how many further runs that takes at the soonest: never fewer, and that many can
    seq = seq[:runs - 1] if runs > 1 else []
    done = [(s, DETS[s]) for s in seq]

    def decided(votes_seq):
        keys = [s for s, _ in votes_seq]
        if len(keys) >= 3 and len(set(keys[:3])) == 1:
            return True
        return certain(*_state(votes_seq), runs - len(votes_seq)) if votes_seq else False

    if any(decided(done[:j]) for j in range(1, len(done) + 1)):
        return  # the vote had already ended
    left = runs - len(done)
    r = needed(*_state(done), left, agree=3) if done else needed({}, {}, {}, left, agree=3)
    assert 1 <= r <= left
    options = [(s, DETS[s]) for s in "abc"] + [("x", -9.0), ("y", 9.0)]
    soonest = min((q for q in range(1, left + 1)
                   for rest in itertools.product(options, repeat=q)
                   if decided(done + list(rest))), default=left)
    assert r == soonest


def _fit_of(z, subset):
    xs = z[subset]
    cov = np.cov(xs, rowvar=False)
    return float(np.linalg.slogdet(cov)[1]), np.sort(subset), xs.mean(axis=0), cov


@pytest.mark.parametrize("workers", [1, 2])
def test_three_agreeing_runs_end_the_vote(monkeypatch, workers):
    # runs return a, a, a, then b seven times: the plurality of ten would be b (7 votes); the
    # first three runs agree, so the vote ends with a after three searches
    import sdcsession.risk.robust._fastmcd as fm

    z = np.random.default_rng(0).normal(size=(700, 2))
    h = (700 + 2 + 1) // 2
    a, b = _fit_of(z, np.arange(h)), _fit_of(z, np.arange(700 - h, 700))
    plan = iter([a, a, a] + [b] * 7)
    calls = []

    def fake_finish(*args, **kwargs):
        calls.append(1)
        return next(plan)

    monkeypatch.setattr(fm, "finish", fake_finish)
    got = _rmd_mcd._modal(z, 20, 10, 0, "robustbase-0.95", workers)
    assert len(calls) == 3
    assert np.array_equal(np.flatnonzero(got.raw_support), a[1])
    # a, b, a, then b: no agreement; the plurality of the ten runs decides
    plan = iter([a, b, a] + [b] * 7)
    calls.clear()
    got = _rmd_mcd._modal(z, 20, 10, 0, "robustbase-0.95", workers)
    assert np.array_equal(np.flatnonzero(got.raw_support), b[1])
    # after a b a b b b b, b has 5 votes and a 2 with 3 runs left: a can at most tie, and it
    # loses the tie (b's determinant is the smaller one), so the vote ends after 7 searches
    assert b[0] < a[0]
    assert len(calls) == 7


# ----------------------------------------------------------- the runs against the plain loop
def _plain(z, n_starts, runs, seed, factors):
    """Every run's search (no memo, no early stop); the modal subset's reweighted fit (the
    first ``AGREE`` runs' subset when they all return it)."""
    n, p = z.shape
    h = (n + p + 1) // 2
    found = [fastmcd(z, h, n_starts, np.random.default_rng(seed + i), "error")
             for i in range(runs)]
    keys = [f[1].tobytes() for f in found]
    agree = min(_rmd_mcd.AGREE, runs)
    if len(set(keys[:agree])) == 1:
        keys = keys[:agree]
    votes = Counter(keys)
    best = max(range(len(keys)), key=lambda j: (votes[keys[j]], -found[j][0]))
    return _robustbase_fit(z, h, found[best], True, "error", factors)


def _same(a, b):
    for name in ("location", "scatter", "support", "raw_location", "raw_scatter",
                 "raw_support", "raw_distances"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    assert (a.log_det, a.consistency, a.reweight_consistency) == \
        (b.log_det, b.consistency, b.reweight_consistency)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(8, 700), p=st.integers(2, 3), n_starts=st.integers(1, 8),
       runs=st.integers(2, 9), seed=st.integers(0, 2**16), levels=st.sampled_from([4, 30, 0]))
def test_scheduled_runs_choose_the_plain_subset(n, p, n_starts, runs, seed, levels):
    # few starts: the runs disagree (votes, ties and the early stop); coarse values: ties in
    # the distances and singular starts
    rng = np.random.default_rng(seed)
    z = rng.standard_t(2, size=(n, p))
    if levels:
        z = np.round(z * levels / 4) + rng.normal(scale=1e-3, size=(1, p)) * np.arange(p)
    try:
        want = _plain(z, n_starts, runs, seed, "robustbase-0.95")
    except MeasureError as err:  # an exact fit: every path raises the same error
        for workers in (1, 2, 3):
            with pytest.raises(MeasureError) as got:
                _rmd_mcd._modal(z, n_starts, runs, seed, "robustbase-0.95", workers)
            assert str(got.value) == str(err)
        return
    ahead = _rmd_mcd.AHEAD
    try:
        for _rmd_mcd.AHEAD in (0, 1, 2):  # runs computed ahead of the vote: the same result
            for workers in (1, 2, 3):
                _same(_rmd_mcd._modal(z, n_starts, runs, seed, "robustbase-0.95", workers),
                      want)
    finally:
        _rmd_mcd.AHEAD = ahead


def test_missing_values_raise_on_every_path():
    z = np.random.default_rng(0).normal(size=(50, 2))
    z[3, 1] = np.nan
    for workers in (1, 2):
        with pytest.raises(MeasureError, match="missing or infinite"):
            _rmd_mcd._modal(z, 10, 5, 0, "robustbase-0.95", workers)


class _FakeStages:
    """A run's start stages for `Runs`: ``groups`` groups (any thread), then its value."""

    def __init__(self, i, groups, fail=None):
        self.i, self.groups, self.fail = i, groups, fail
        self.next, self.left = 0, groups
        self.lock = threading.Lock()
        self.threads = set()

    def claim(self):
        with self.lock:
            if self.next >= self.groups:
                return None
            self.next += 1
            return self.next - 1

    def group(self, g):
        self.threads.add(threading.get_ident())
        time.sleep(0.002)
        with self.lock:
            self.left -= 1
            return self.left == 0

    def complete(self):
        if self.fail == "complete":
            raise ValueError(f"run {self.i}")
        return self.i * 10


def _fake(groups, fail_at=None, fail="open", made=None):
    """``open_run`` of fake runs (``made`` collects them); run ``fail_at`` raises when opened
    or completed."""
    def open_run(i):
        if i == fail_at and fail == "open":
            raise ValueError(f"run {i}")
        st = _FakeStages(i, groups, fail if i == fail_at else None)
        if made is not None:
            made.append(st)
        return st
    return open_run


def test_runs_hand_out_in_order_and_raise_in_run_order():
    for fail in ("open", "complete"):
        stop = np.zeros(1, dtype=bool)
        made = []
        plan = Runs(_fake(3, 3, fail, made), 6, 2, 2, stop)
        try:
            assert [plan.get(i) for i in range(3)] == [0, 10, 20]
            plan.allow(6)
            with pytest.raises(ValueError, match="run 3"):
                plan.get(3)
            assert plan.get(4) == 40  # later runs are still there
        finally:
            plan.close()
        assert stop[0] and sorted(st.i for st in made)[:4] == [0, 1, 2, 4 - (fail == "complete")]
    one = Runs(_fake(2), 4, 1, 1, np.zeros(1, dtype=bool))  # one thread: the plain loop
    assert [one.get(i) for i in range(4)] == [0, 10, 20, 30]
    one.close()


def test_runs_share_the_groups_of_a_run_between_threads():
    # one run may be opened (the limit): the helpers compute its groups with the caller
    made = []
    plan = Runs(_fake(24, made=made), 3, 1, 3, np.zeros(1, dtype=bool))
    try:
        assert plan.get(0) == 0
        assert [st.i for st in made] == [0]  # nothing opened beyond the limit
        assert len(made[0].threads) >= 2 and made[0].left == 0
        plan.allow(3)
        assert [plan.get(1), plan.get(2)] == [10, 20]
    finally:
        plan.close()


# ------------------------------------------------ the C-step's selection: sample and counting
@settings(max_examples=200, deadline=None)
@given(m=st.one_of(st.integers(1, 120),
                   st.sampled_from([300, 543, 1407, 1500, 1583, 2399, 10_000])),
       seed=st.integers(0, 2**32 - 1),
       shape=st.sampled_from(["uniform", "tied", "heavy", "outliers", "zeros"]),
       where=st.floats(0.0, 1.0))
def test_selection_equals_the_stable_order(m, seed, shape, where):
    # sample sizes at the edges of the counting branch (m // 32 targets, the spacing's rounding);
    # skewed shapes as the C-steps meet them (the guesses interpolate in log d2 above zero):
    # a chi-squared bulk with far outliers, and a block of zero distances
    from sdcsession.risk.robust._fastmcd_select import _ranked2, select

    rng = np.random.default_rng(seed)
    bulk = rng.chisquare(2, m)
    d2 = {"uniform": rng.random(m), "tied": rng.integers(0, 5, m).astype(float),
          "heavy": rng.lognormal(0.0, 5.0, m),
          "outliers": np.where(rng.random(m) < 0.3, bulk * 1e4, bulk),
          "zeros": np.where(rng.random(m) < 0.4, 0.0, bulk)}[shape]
    h = min(m, 1 + int(where * m))
    sub = np.empty(m + 1, np.int64)
    select(d2, h, sub, np.empty(m))
    assert sub[:h].tolist() == np.sort(np.lexsort((np.arange(m), d2))[:h]).tolist()
    ka, kb = sorted(int(v) for v in rng.integers(0, m, 2))
    assert _ranked2(d2.copy(), ka, kb) == (np.sort(d2)[ka], np.sort(d2)[kb])


# ----------------------------------------------- the random starts: the k smallest keys
@settings(max_examples=150, deadline=None)
@given(m=st.integers(1, 400), k=st.integers(1, 40), seed=st.integers(0, 2**32 - 1),
       levels=st.sampled_from([0, 3, 50]))
def test_smallest_keys_equal_the_stable_order(m, k, seed, levels):
    # the positions of a start's k smallest keys, in order, ties to the first records
    from sdcsession.risk.robust._fastmcd_jit import _smallest

    k = min(k, m)
    keys = np.random.default_rng(seed).random(m)
    if levels:
        keys = np.floor(keys * levels) / levels
    out = np.empty(k, np.int64)
    _smallest(keys, k, out, np.full(k + 3, -1.0))  # a larger, dirty buffer
    assert out.tolist() == np.argsort(keys, kind="stable")[:k].tolist()


# ------------------------------------------------------------------ compiled PCG64 numbers
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**63), n=st.integers(0, 3000), before=st.integers(0, 40))
def test_compiled_pcg64_gives_numpys_numbers_and_state(seed, n, before):
    from sdcsession.risk.robust._pcg64 import random_into

    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    a.permutation(before), b.permutation(before)  # 32-bit draws buffered in the state
    got = random_into(a, np.empty(n))
    assert got.tobytes() == b.random(n).tobytes()
    assert a.bit_generator.state == b.bit_generator.state
    assert a.integers(0, 10**9, 5).tolist() == b.integers(0, 10**9, 5).tolist()
    other = np.random.Generator(np.random.Philox(seed))  # other generators: numpy draws them
    assert random_into(other, np.empty(3)).tolist() == \
        np.random.Generator(np.random.Philox(seed)).random(3).tolist()
