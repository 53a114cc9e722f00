"""Tests of SUDA2 (sdcsession.risk.suda2): sdcMicro conformance, hand-computed cases, invariants."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from conftest import read_csv, reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk.suda2 import Suda2Result, suda2


def _load(name: str, keys: list[str]) -> pd.DataFrame:
    df = read_csv(name)
    for k in keys:
        df[k] = df[k].astype("category")
    return df


# --------------------------------------------------------------------------- conformance

# sdcMicro's suda2 was run on the first 7 keys of testdata and the first 5 of free1's key list
CASES = [("testdata", 7), ("free1", 5)]


@pytest.fixture(scope="module")
def ref() -> dict:
    return reference()


@pytest.mark.parametrize("name,m", CASES)
def test_conformance_sdcmicro(ref: dict, name: str, m: int) -> None:
    keys = ref[name]["keys"][:m]
    expected = ref[name]["suda2"]
    assert list(expected["contribution"]) == keys
    df = _load(name, keys)
    r = suda2(df, keys, dis_fraction=0.01)
    # scores are sums of factorials: exact
    np.testing.assert_array_equal(r.score.to_numpy(), np.asarray(expected["score"], dtype=float))
    np.testing.assert_allclose(r.dis_score.to_numpy(), np.asarray(expected["dis_score"]),
                               rtol=1e-9, atol=0)
    np.testing.assert_allclose(r.contributions.loc[keys].to_numpy(),
                               [expected["contribution"][k] for k in keys], rtol=1e-9, atol=0)
    # contributions recomputed from the per-record shares (sdcMicro's definition)
    rc = (r.record_contributions.to_numpy() * r.score.to_numpy()[:, None]).sum(axis=0)
    np.testing.assert_allclose(100 * rc / r.score.sum(), r.contributions.to_numpy(), rtol=1e-12)


def test_conformance_does_not_depend_on_dtype_or_codes(ref: dict) -> None:
    """Keys are categories: raw ints, strings and relabelled codes give the same result."""
    keys = ref["free1"]["keys"][:5]
    raw = read_csv("free1")
    r0 = suda2(raw, keys)
    relabelled = raw.copy()
    for k in keys:
        relabelled[k] = ("v" + (raw[k] * 7 + 3).astype(str)).astype(object)
    r1 = suda2(relabelled, keys)
    np.testing.assert_array_equal(r0.score.to_numpy(), r1.score.to_numpy())
    np.testing.assert_array_equal(r0.dis_score.to_numpy(), r1.dis_score.to_numpy())


def test_conformance_msu_counts_testdata(ref: dict) -> None:
    keys = ref["testdata"]["keys"][:7]
    r = suda2(_load("testdata", keys), keys)
    # score = sum_k count_k (7 - k)!
    w = np.array([math.factorial(7 - k) for k in range(1, 8)], dtype=float)
    np.testing.assert_array_equal(r.msu_counts.to_numpy() @ w, r.score.to_numpy())
    assert r.msu_counts.sum().tolist() == [1, 11, 94, 86, 35, 7, 1]
    # the records with an MSU are exactly the 157 full-key sample uniques
    df = _load("testdata", keys)
    sizes = df.groupby(keys, observed=True)[keys[0]].transform("size")
    assert ((r.score > 0) == (sizes == 1)).all()


# --------------------------------------------------------------------------- hand-computed


def test_sdcmicro_small_example_contributions() -> None:
    # the example of sdcMicro's test suite: contributions 50, 37.5, 37.5 whatever the column order
    a, b, c = [2, 1, 1], [0, 3, 0], [0, 6, 0]
    r = suda2(pd.DataFrame({"a": a, "b": b, "c": c}), ["a", "b", "c"])
    # r0: {a} -> 2! ; r1: {b}, {c} -> 2 * 2! ; r2: {a,b}, {a,c} -> 2 * 1!
    assert r.score.tolist() == [2.0, 4.0, 2.0]
    assert r.contributions.tolist() == [50.0, 37.5, 37.5]
    assert r.msu_counts.to_numpy().tolist() == [[1, 0, 0], [2, 0, 0], [0, 2, 0]]
    r2 = suda2(pd.DataFrame({"a": a, "c": c, "b": b}), ["a", "c", "b"])
    assert r2.contributions.tolist() == [50.0, 37.5, 37.5]
    # no pairs: theta = 1, every record with an MSU gets DIS-SUDA 1
    assert r.dis_score.tolist() == [1.0, 1.0, 1.0]


def test_four_records_by_hand() -> None:
    df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": [1, 2, 1, 1], "c": ["p", "p", "q", "r"]})
    r = suda2(df, ["a", "b", "c"], dis_fraction=0.5)
    # r0 (x,1,p): a,b,c all shared; {a,b}=(x,1) unique; {b,c}=(1,p) unique; {a,c} shared -> 2 x 1!
    # r1 (x,2,p): {b}=2 unique -> 2!
    # r2 (y,1,q): {c}=q unique -> 2! ; r3 (y,1,r): {c}=r unique -> 2!
    assert r.score.tolist() == [2.0, 2.0, 2.0, 2.0]
    assert r.msu_counts.to_numpy().tolist() == [[0, 2, 0], [1, 0, 0], [1, 0, 0], [1, 0, 0]]
    # contributions: a: 1 (r0) ; b: 1 + 1 (r0) + 2 (r1) ; c: 1 (r0) + 2 + 2 ; total score 8
    np.testing.assert_allclose(r.contributions.to_numpy(), [12.5, 50.0, 62.5])
    np.testing.assert_allclose(r.record_contributions.loc[0].to_numpy(), [0.5, 1.0, 0.5])
    assert r.dis_score.tolist() == [1.0, 1.0, 1.0, 1.0]  # no pairs


def test_dis_score_by_hand_with_a_pair() -> None:
    df = pd.DataFrame({"a": [2, 1, 1, 1, 1], "b": [0, 3, 0, 0, 0], "c": [0, 6, 0, 5, 0]})
    r = suda2(df, ["a", "b", "c"], dis_fraction=0.5)
    assert r.score.tolist() == [2.0, 4.0, 0.0, 2.0, 0.0]
    # P = 2 records in a pair, pi = 0.5: U/theta - U = P (1 - pi) / pi = 2 ; Q = 1 + (8 - 3)/20
    q = 1.25
    adj = 2 * 2.0**-q + 4.0**-q
    expected = [1 / (1 + 2 / (s**q * adj)) if s else 0.0 for s in (2, 4, 0, 2, 0)]
    np.testing.assert_allclose(r.dis_score.to_numpy(), expected, rtol=1e-12)
    # a smaller sampling fraction means lower DIS-SUDA scores
    r01 = suda2(df, ["a", "b", "c"], dis_fraction=0.1)
    assert (r01.dis_score.to_numpy()[[0, 1, 3]] < r.dis_score.to_numpy()[[0, 1, 3]]).all()
    # dis_fraction = 1: a unique match is always correct
    assert suda2(df, ["a", "b", "c"], dis_fraction=1.0).dis_score.tolist() == [1, 1, 0, 1, 0]


def test_missing_value_is_never_part_of_an_msu() -> None:
    df = pd.DataFrame({"a": [1.0, 1.0, np.nan], "b": [1, 2, 1]})
    r = suda2(df, ["a", "b"])
    # r0 (1,1): {a,b} unique (r2's missing a does not match 1) -> 0! = 1
    # r1 (1,2): {b} unique -> 1! = 1 ; r2 (NA,1): only {b}, shared -> no MSU
    assert r.score.tolist() == [1.0, 1.0, 0.0]
    assert r.msu_counts.to_numpy().tolist() == [[0, 1], [1, 0], [0, 0]]
    # records identical including the missing value are duplicates
    df2 = pd.DataFrame({"a": ["u", None, None], "b": [1, 1, 1]})
    r2 = suda2(df2, ["a", "b"])
    assert r2.score.tolist() == [1.0, 0.0, 0.0]  # r0: {a} = "u" unique


def test_max_size_truncates() -> None:
    df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": [1, 2, 1, 1], "c": ["p", "p", "q", "r"]})
    r = suda2(df, ["a", "b", "c"], max_size=1)
    assert r.score.tolist() == [0.0, 2.0, 2.0, 2.0]
    assert r.max_size == 1 and list(r.msu_counts.columns) == [1]


def test_no_uniques_and_single_key() -> None:
    df = pd.DataFrame({"a": [1, 1, 2, 2], "b": ["x", "x", "y", "y"]})
    r = suda2(df, ["a", "b"])
    assert r.score.tolist() == [0.0] * 4 and r.dis_score.tolist() == [0.0] * 4
    assert r.contributions.tolist() == [0.0, 0.0]
    r1 = suda2(pd.DataFrame({"a": [1, 1, 2]}), "a")
    assert r1.score.tolist() == [0.0, 0.0, 1.0]  # 0! for a 1-MSU when m = 1
    assert r1.contributions.tolist() == [100.0]


def test_index_alignment_and_result_type() -> None:
    df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]}, index=["r", "s", "t"])
    r = suda2(df, ["a", "b", "c"])
    assert isinstance(r, Suda2Result)
    for obj in (r.score, r.dis_score, r.record_contributions, r.msu_counts):
        assert list(obj.index) == ["r", "s", "t"]
    assert list(r.contributions.index) == ["a", "b", "c"]
    assert r.keys == ("a", "b", "c") and r.dis_fraction == 0.01
    assert "Suda2Result" in repr(r)
    df_before = df.copy()
    suda2(df, ["a", "b", "c"])
    pd.testing.assert_frame_equal(df, df_before)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, "a", None, True, float("nan")])
def test_bad_dis_fraction(bad: object) -> None:
    with pytest.raises(ParameterError, match="dis_fraction"):
        suda2(pd.DataFrame({"a": [1, 2]}), ["a"], dis_fraction=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, 3, 1.5, "2", True])
def test_bad_max_size(bad: object) -> None:
    with pytest.raises(ParameterError, match="max_size"):
        suda2(pd.DataFrame({"a": [1, 2], "b": [1, 1]}), ["a", "b"], max_size=bad)  # type: ignore


def test_bad_keys_and_data() -> None:
    df = pd.DataFrame({"a": [1, 2], "b": [1, 1]})
    with pytest.raises(MeasureError, match="zz"):
        suda2(df, ["a", "zz"])
    with pytest.raises(ParameterError, match="keys"):
        suda2(df, [])
    with pytest.raises(ParameterError, match="more than once"):
        suda2(df, ["a", "a"])
    with pytest.raises(MeasureError, match="DataFrame"):
        suda2([[1, 2]], ["a"])  # type: ignore[arg-type]
    with pytest.raises(MeasureError, match="no records"):
        suda2(df.iloc[:0], ["a"])
    wide = pd.DataFrame({f"k{i}": [0, 0] for i in range(20)})
    with pytest.raises(ParameterError, match="max_size"):
        suda2(wide, list(wide.columns))
    assert suda2(wide, list(wide.columns), max_size=2).score.tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------- invariants


def _brute_force(rows: list[tuple], m: int) -> tuple[list[float], list[list[int]], list[list[float]]]:
    """Record-by-record MSU enumeration straight from the definition (None = missing)."""
    n = len(rows)
    scores, counts, contrib = [0.0] * n, [[0] * m for _ in range(n)], [[0.0] * m for _ in range(n)]
    for i, row in enumerate(rows):
        unique: set[tuple[int, ...]] = set()
        for k in range(1, m + 1):
            for s in combinations(range(m), k):
                n_same = sum(all(rows[h][j] == row[j] for j in s) for h in range(n))
                if n_same != 1:
                    continue
                unique.add(s)
                if any(row[j] is None for j in s):
                    continue
                if any(tuple(x for x in s if x != j) in unique for j in s):
                    continue
                w = float(math.factorial(m - k))
                scores[i] += w
                counts[i][k - 1] += 1
                for j in s:
                    contrib[i][j] += w
    return scores, counts, contrib


_cell = st.one_of(st.none(), st.integers(0, 3))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 4).flatmap(
    lambda m: st.lists(st.tuples(*[_cell] * m), min_size=1, max_size=12)))
def test_matches_brute_force(rows: list[tuple]) -> None:
    m = len(rows[0])
    keys = [f"k{j}" for j in range(m)]
    df = pd.DataFrame([[np.nan if v is None else v for v in row] for row in rows], columns=keys,
                      dtype=float)
    r = suda2(df, keys)
    scores, counts, contrib = _brute_force(rows, m)
    assert r.score.tolist() == scores
    assert r.msu_counts.to_numpy().tolist() == counts
    total = sum(scores)
    expected_c = [100 * sum(c[j] for c in contrib) / total if total else 0.0 for j in range(m)]
    np.testing.assert_allclose(r.contributions.to_numpy(), expected_c, rtol=1e-12)
    d = r.dis_score.to_numpy()
    s = r.score.to_numpy()
    assert ((d > 0) == (s > 0)).all() and (d <= 1).all()
    order = np.argsort(s[s > 0], kind="stable")
    assert (np.diff(d[s > 0][order]) >= -1e-15).all()  # DIS-SUDA increases with the score


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_permutations(data: st.DataObject) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 10_000)))
    n, m = data.draw(st.integers(2, 40)), data.draw(st.integers(1, 5))
    df = pd.DataFrame(rng.integers(0, 3, size=(n, m)), columns=[f"k{j}" for j in range(m)])
    keys = list(df.columns)
    r = suda2(df, keys)
    perm_rows = rng.permutation(n)
    rp = suda2(df.iloc[perm_rows], keys)
    pd.testing.assert_series_equal(rp.score, r.score.iloc[perm_rows])
    np.testing.assert_allclose(rp.dis_score.to_numpy(), r.dis_score.iloc[perm_rows].to_numpy(),
                               rtol=1e-12)
    perm_keys = [keys[j] for j in rng.permutation(m)]
    rk = suda2(df, perm_keys)
    pd.testing.assert_series_equal(rk.score, r.score)
    np.testing.assert_allclose(rk.contributions.loc[keys].to_numpy(), r.contributions.to_numpy(),
                               rtol=1e-12)
    # records with an MSU are exactly the sample uniques on all keys
    fk = df.groupby(keys)[keys[0]].transform("size").to_numpy()
    assert ((r.score.to_numpy() > 0) == (fk == 1)).all()
    # a smaller max_size drops exactly the larger MSUs
    if m > 1:
        rs = suda2(df, keys, max_size=m - 1)
        w = np.array([math.factorial(m - k) for k in range(1, m)], dtype=float)
        np.testing.assert_array_equal(rs.msu_counts.to_numpy(), r.msu_counts.to_numpy()[:, :-1])
        np.testing.assert_array_equal(rs.score.to_numpy(), rs.msu_counts.to_numpy() @ w)


def test_progress_bar(monkeypatch):
    import io
    import sys

    from sdcsession import progress

    monkeypatch.setattr(progress, "MIN_SECONDS", 0.0)
    df = pd.DataFrame({"a": list("xxyyz"), "b": list("uvuvu"), "c": list("ppqqp")})
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    on = suda2(df, ["a", "b", "c"], progress=True)
    assert buf.getvalue().startswith("\rSUDA2 subsets:") and buf.getvalue().endswith("\n")
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    off = suda2(df, ["a", "b", "c"], progress=False)
    assert buf.getvalue() == ""
    pd.testing.assert_series_equal(on.score, off.score)
