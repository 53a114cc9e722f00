"""Local suppression on compact key codes (issue 21): int8/int16 codes give the same result as
int64 codes (no overflow where codes are combined), and `encode_keys` picks the smallest dtype."""

import numpy as np
import pandas as pd
import pytest

from sdcsession.methods._kanon_core import solve
from sdcsession.methods._kanon_rows import _row_ids
from sdcsession.methods.suppression import local_suppression
from sdcsession.risk import k_violations
from sdcsession.risk._codes import code_dtype, encode_keys


def test_encode_keys_smallest_dtype():
    df = pd.DataFrame({"a": pd.Categorical(np.arange(300) % 120), "b": np.arange(300) % 3})
    codes, cards = encode_keys(df, ["a", "b"])
    assert codes.dtype == np.int8 and cards == [120, 3]
    df["c"] = np.arange(300)  # 300 categories: int16
    codes, cards = encode_keys(df, ["a", "c"])
    assert codes.dtype == np.int16 and codes[:, 1].max() == 299
    assert code_dtype(126) == np.int8 and code_dtype(127) == np.int16


def test_row_ids_do_not_overflow_small_codes():
    # three keys of 120 categories: the combined code (121^3) overflows int8 and int16
    rng = np.random.default_rng(0)
    A = rng.integers(-1, 120, size=(2000, 3)).astype(np.int8)
    ids = _row_ids(A)
    ref = pd.factorize(pd.MultiIndex.from_arrays([A[:, j] for j in range(3)]))[0]
    assert (ids == ref).all()


@pytest.mark.parametrize("seed", [0, 1])
def test_solve_same_on_int8_and_int64_codes(seed):
    rng = np.random.default_rng(seed)
    n = 3000
    X8 = np.column_stack([rng.integers(0, c, n) for c in (110, 7, 3, 12)]).astype(np.int8)
    X8[rng.random((n, 4)) < 0.02] = -1
    X64 = X8.astype(np.int64)
    cards = [110, 7, 3, 12]
    a = solve(X8, np.ones(n), [[0, 1, 2, 3]], cards, 3)
    b = solve(X64, np.ones(n), [[0, 1, 2, 3]], cards, 3)
    assert (X8 == X64).all() and (a.suppressed == b.suppressed).all()
    assert a.suppressed.sum() > 0 and a.unresolvable == 0


def test_local_suppression_many_categories_is_k_anonymous():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.integers(0, 125, 4000), "b": rng.integers(0, 4, 4000),
                       "c": rng.integers(0, 200, 4000)})
    out, notes = local_suppression(df, ["a", "b", "c"], k=2)
    assert notes["violations_after"] == 0 and k_violations(out, ["a", "b", "c"], 2) == 0
