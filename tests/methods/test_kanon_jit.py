"""The compiled bit index of local suppression against the hash-table counter and plain loops.

`BitIndex` (numba) must give the same sums as `Counter`'s hash tables for integer weights (the
counter switches between them), its incremental `update` the same as a fresh index, `delta` the
same as counting the changed rows with weights +w / -w; `first_per_group` (parallel rounds, then
the compiled sequential greedy) the same as the sequential greedy written as a loop.
"""

from __future__ import annotations

import numpy as np
import pytest

from sdcsession.methods._kanon_counter import Counter
from sdcsession.methods._kanon_jit import BitIndex, _lex_order
from sdcsession.methods._kanon_rows import first_per_group


def _hash_counter(X, W, cols, cards):
    c = Counter(X, W, cols, cards)
    c.BITS_ROWS = -1  # the hash tables only
    return c


def _bit_counter(X, W, cols, cards):
    c = Counter(X, W, cols, cards)
    c.BITS_PATTERNS = 0  # the bit index whenever the weights allow it
    return c


def _data(rng, n, p, miss, dtype=np.int8):
    cards = rng.integers(1, 7, p)
    X = (rng.integers(0, 1000, (n, p)) % cards).astype(dtype)
    X[rng.random((n, p)) < miss] = -1
    return X, cards


def _weights(rng, n):
    # unit weights, 0/1 flags, general integers (negative too): the three ways of summing
    return np.column_stack([np.ones(n), rng.integers(0, 2, n), rng.integers(-3, 6, n)]).astype(float)


@pytest.mark.parametrize("seed", range(12))
def test_count_equals_hash_tables(seed):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(1, 400)), int(rng.integers(1, 7))
    X, cards = _data(rng, n, p, rng.random() * 0.6, dtype=[np.int8, np.int16, np.int64][seed % 3])
    cols = np.sort(rng.choice(p, int(rng.integers(1, p + 1)), replace=False))
    W = _weights(rng, n)
    Q = X[rng.integers(0, n, 80)].copy()
    Q[rng.random(Q.shape) < 0.3] = -1
    Q[0] = -1  # no key observed: the total
    want = _hash_counter(X, W, cols, cards).count(Q)
    got = BitIndex(X, cols, cards[cols]).count(Q, W, cols)
    assert np.array_equal(got, want)
    assert np.array_equal(_bit_counter(X, W, cols, cards).count(Q), want)
    assert np.array_equal(got[0], W.sum(axis=0))


def test_count_in_blocks_and_unseen_codes(monkeypatch):
    rng = np.random.default_rng(7)
    X, cards = _data(rng, 300, 4, 0.2)
    W = _weights(rng, 300)
    Q = X.copy()
    Q[::7, 1] = cards[1] + 3  # a code the data never use: compatible with the missing rows only
    want = _hash_counter(X, W, np.arange(4), cards + 4).count(Q)
    monkeypatch.setattr(BitIndex, "BLOCK", 17)
    got = BitIndex(X, np.arange(4), cards).count(Q, W)
    assert np.array_equal(got, want)
    assert np.array_equal(got[7, 0], ((X[:, 1] < 0) & _compatible(X, Q[7], skip=1)).sum())


def _compatible(X, q, skip=None):
    ok = np.ones(len(X), bool)
    for t in range(X.shape[1]):
        if t != skip and q[t] >= 0:
            ok &= (X[:, t] < 0) | (X[:, t] == q[t])
    return ok


def test_count_by_definition():
    # fk_i: records agreeing with i wherever both are observed
    rng = np.random.default_rng(3)
    X, cards = _data(rng, 200, 5, 0.25)
    got = BitIndex(X, np.arange(5), cards).count(X, np.ones((200, 1)))[:, 0]
    assert got.tolist() == [_compatible(X, X[i]).sum() for i in range(200)]


@pytest.mark.parametrize("seed", range(8))
def test_update_equals_fresh_index(seed):
    rng = np.random.default_rng(100 + seed)
    n, p = int(rng.integers(2, 300)), int(rng.integers(1, 6))
    X, cards = _data(rng, n, p, 0.2, dtype=np.int16)
    ix = BitIndex(X, np.arange(p), cards)
    for _ in range(3):
        R = np.unique(rng.integers(0, n, 12))
        old = X[R].copy()
        new = old.copy()
        new[rng.random(new.shape) < 0.4] = -1
        back = rng.random(new.shape) < 0.2  # and some values come back / change
        new[back] = (rng.integers(0, 1000, back.sum()) % np.broadcast_to(cards, new.shape)[back])
        X[R] = new
        ix.update(R, old, new)
    W = _weights(rng, n)
    Q = X[rng.integers(0, n, 50)].copy()
    Q[rng.random(Q.shape) < 0.3] = -1
    assert np.array_equal(ix.count(Q, W), BitIndex(X, np.arange(p), cards).count(Q, W))
    assert np.array_equal(ix.count(Q, W), _hash_counter(X, W, np.arange(p), cards).count(Q))


@pytest.mark.parametrize("seed", range(8))
def test_delta_equals_counting_the_changed_rows(seed):
    rng = np.random.default_rng(200 + seed)
    n, p = int(rng.integers(2, 400)), int(rng.integers(1, 6))
    X, cards = _data(rng, n, p, 0.3)
    cols = np.sort(rng.choice(p, int(rng.integers(1, p + 1)), replace=False))
    R = rng.choice(n, min(n, 25), replace=False)
    now = X[R].copy()
    before = now.copy()
    V = rng.integers(0, p, len(R))
    before[np.arange(len(R)), V] = np.where(rng.random(len(R)) < 0.5, -1,
                                            rng.integers(0, 1000, len(R)) % cards[V])
    w = rng.integers(1, 4, len(R)).astype(float)
    want = _hash_counter(np.concatenate([now, before]), np.concatenate([w, -w]), cols,
                         cards).count(X)[:, 0]
    got = BitIndex(X, cols, cards[cols]).delta(now[:, cols], before[:, cols], w)
    assert np.array_equal(got, want)
    cnt = _bit_counter(X, np.ones(n), cols, cards)
    assert np.array_equal(cnt.delta(now, before, w), want)


def test_counter_switches_without_changing_counts():
    # the same counter state counted by tables and by the index, through syncs
    rng = np.random.default_rng(11)
    X, cards = _data(rng, 500, 6, 0.15)
    Xa, Xb = X.copy(), X.copy()
    a = _hash_counter(Xa, np.ones(500), np.arange(6), cards)
    b = _bit_counter(Xb, np.ones(500), np.arange(6), cards)
    for _ in range(4):
        R = rng.integers(0, 500, 30)
        V = rng.integers(0, 6, 30)
        Xa[R, V] = -1
        Xb[R, V] = -1
        a.sync()
        b.sync()
        assert np.array_equal(a.count(Xa), b.count(Xb))
        assert b._bix is not None and not a._cache == {}
    T = rng.integers(0, 3, 500).astype(float)  # new integer weights
    a.sync(T)
    b.sync(T)
    assert np.array_equal(a.count(Xa), b.count(Xb))
    b.sync(T + 0.5)  # no longer integer weights: back to the tables
    assert b._bit_index() is None and a.wint


def test_lex_order():
    rng = np.random.default_rng(5)
    S = rng.integers(-1, 4, (300, 4))
    want = np.lexsort(S.T[::-1])
    assert np.array_equal(S[_lex_order(S)], S[want])
    big = S.astype(np.int64) * (1 << 20)  # radix beyond int64: the lexsort
    assert np.array_equal(big[_lex_order(big)], big[want])


def _greedy(pri, rec, grp):
    used_r, used_g, out = set(), set(), []
    for j in pri.tolist():
        if rec[j] in used_r or grp[j] in used_g:
            continue
        used_r.add(rec[j])
        used_g.add(grp[j])
        out.append(j)
    return out


@pytest.mark.parametrize("rounds", [0, 1, 3, 32])
def test_first_per_group_is_the_sequential_greedy(rounds):
    rng = np.random.default_rng(rounds)
    for _ in range(40):
        m = int(rng.integers(1, 200))
        rec = rng.integers(0, max(1, m // int(rng.integers(1, 4))), m) * 3
        grp = rng.integers(0, max(1, m // int(rng.integers(1, 4))), m) + 50
        pri = rng.permutation(m)
        assert first_per_group(pri, rec, grp, rounds).tolist() == _greedy(pri, rec, grp)
    # a chain: each item blocks the next one, two decided per round
    m = 400
    rec, grp, pri = np.arange(m) // 2, (np.arange(m) + 1) // 2, np.arange(m)
    assert first_per_group(pri, rec, grp, rounds).tolist() == list(range(0, m, 2))


def test_huge_integer_weights_stay_on_the_tables():
    # sums beyond 2^53 are not exact in float64: the order of summation would matter
    rng = np.random.default_rng(2)
    X, cards = _data(rng, 50, 3, 0.3)
    c = _bit_counter(X, np.full(50, 2.0 ** 50), np.arange(3), cards)
    want = _hash_counter(X, np.full(50, 2.0 ** 50), np.arange(3), cards).count(X)
    assert np.array_equal(c.count(X), want) and c._bix is None and c.wint and not c.wexact
