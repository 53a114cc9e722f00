"""Vectorised steps of the suppression rounds against their sequential definitions.

`_lock_slices` (parallel rounds, then the compiled greedy) must take the same candidates as the
loop "take a candidate unless a cell of its slice is locked, then lock the slice"; the two donor
searches (mixed-radix codes, and rows grouped by sorting when the codes overflow) the same donors
as "the first non-violating row, observed on the key, equal to the cell on the other keys".
"""

from __future__ import annotations

import numpy as np
import pytest

from sdcsession.methods._kanon_core import SolveInfo
from sdcsession.methods._kanon_restore import _sequence
from sdcsession.methods._kanon_search import (
    _apply_donors,
    _apply_donors_rows,
    _csr,
    _lock_slices,
    _slice_ids,
)


def _lock_loop(cand, tt, cells):
    locked = np.zeros(len(cells), bool)
    out = []
    for c, t in zip(cand.tolist(), tt.tolist()):
        members, bounds = _csr(_slice_ids(cells, t))
        sid = _slice_ids(cells, t)[c]
        mem = members[bounds[sid]:bounds[sid + 1]]
        if locked[mem].any():
            continue
        locked[mem] = True
        out.append(c)
    return out


@pytest.mark.parametrize("rounds", [0, 1, 2, 64])
def test_lock_slices_is_the_sequential_greedy(rounds):
    rng = np.random.default_rng(rounds)
    for _ in range(60):
        p = int(rng.integers(1, 5))
        cells = np.unique(rng.integers(-1, int(rng.integers(1, 4)), (int(rng.integers(1, 90)), p)),
                          axis=0)
        cand = rng.permutation(len(cells))[: int(rng.integers(1, len(cells) + 1))]
        tt = rng.integers(0, p, len(cand))
        assert _lock_slices(cand, tt, cells, rounds).tolist() == _lock_loop(cand, tt, cells)


def _donor_loop(X, cols, t, cs, cell_rows, vmask):
    v = cols[t]
    other = [c for j, c in enumerate(cols) if j != t]
    X = X.copy()
    got = []
    for c in cs:
        for r in range(len(X)):
            if (not vmask[r] and X[r, v] >= 0
                    and np.array_equal(X[r, other], cell_rows[c, other])):
                X[r, v] = -1
                got.append(r)
                break
    return got


@pytest.mark.parametrize("seed", range(6))
def test_donors_both_ways_equal_the_definition(seed):
    rng = np.random.default_rng(seed)
    n, p = 300, 4
    X = rng.integers(-1, 3, (n, p))
    cols = np.arange(p)
    vmask = rng.random(n) < 0.3
    cell_rows = np.unique(X[vmask], axis=0)
    t = int(rng.integers(0, p))
    cs = rng.permutation(len(cell_rows))[:20]
    # one cell per t-slice (as the locks guarantee)
    masked = cell_rows[cs].copy()
    masked[:, t] = -2
    cs = cs[np.sort(np.unique(masked, axis=0, return_index=True)[1])]
    want = _donor_loop(X, cols, t, cs, cell_rows, vmask)
    for way in ("codes", "rows"):
        Xw = X.copy()
        info = SolveInfo(np.zeros(X.shape, bool))
        order = []
        if way == "codes":
            done = _apply_donors(Xw, cols, cs, np.full(len(cs), t), cell_rows, vmask, info, order)
        else:
            done = _apply_donors_rows(Xw, cols, t, cs, cell_rows, vmask, info, order)
        assert done == len(want)
        got = order[0][0].tolist() if order else []
        assert got == want
        assert np.array_equal(np.argwhere(Xw != X)[:, 0], np.sort(want))


def test_sequence_numbers_the_suppressions_in_order():
    order = [(np.array([5, 2]), np.array([1, 0]), np.array([0, 1])),  # steps 0, 1
             (np.array([], np.int64), np.array([], np.int64), np.array([], np.int64)),
             (np.array([7, 8, 5]), np.array([2, 2, 1]), np.array([0, 0, 1]))]  # 2, 2, 3
    seq = _sequence(order, 3)
    assert seq(np.array([5, 2, 7, 8, 9]), np.array([1, 0, 2, 2, 0])).tolist() == [3, 1, 2, 2, 0]
