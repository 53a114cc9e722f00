"""The release check's pandas fast paths give the frame path's answers: values compared by codes
or as numbers (`same_values`), counts from integer codes (`max_distinct`, `FrameCodes`) and the
household findings from codes (`household_leaks` against the frame operations the Dask path
runs, on pandas frames)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.session.release.aligned import Aligned, same_values
from sdcsession.session.release.codes import FrameCodes, household_leaks, max_distinct
from sdcsession.session.release.rounds import run
from sdcsession.session.release.structure import _household_lazy


def _same_objects(a: pd.Series, b: pd.Series) -> np.ndarray:
    """The reference: value by value as Python objects, missing in both counts as equal."""
    av, bv = a.to_numpy(dtype=object), b.to_numpy(dtype=object)
    return np.array([(pd.isna(x) and pd.isna(y)) or (not pd.isna(x) and not pd.isna(y) and x == y)
                     for x, y in zip(av, bv)], dtype=bool)


def test_same_values_hand_cases():
    a = pd.Series(pd.Categorical(["x", "y", None, "z", "y"], categories=["x", "y", "z"]))
    # other categories, in another order, one that a does not have; the same values
    b = pd.Series(pd.Categorical(["x", "w", None, "z", None], categories=["z", "w", "x"]))
    assert same_values(a, b).tolist() == [True, False, True, True, False]
    f = pd.Series([1.0, np.nan, 2.0, -0.0, np.nan])
    g = pd.Series([1.0, np.nan, 2.5, 0.0, 3.0])
    assert same_values(f, g).tolist() == [True, True, False, True, False]
    i = pd.Series([1, 2, 3], dtype="int64")
    assert same_values(i, pd.Series([1, 5, 3], dtype="int32")).tolist() == [True, False, True]
    # mixed kinds take the object path: 1 == 1.0 as in Python
    assert same_values(i, pd.Series([1.0, np.nan, 3.5])).tolist() == [True, False, False]
    s = pd.Series(["a", None, "c"], dtype=object)
    assert same_values(s, pd.Series(["a", None, "d"], dtype=object)).tolist() == [True, True, False]


_cats = st.lists(st.sampled_from(["a", "b", "c", "d", None]), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(_cats, st.data())
def test_same_values_categorical_equals_the_object_path(left, data):
    right = data.draw(st.lists(st.sampled_from(["a", "b", "c", "e", None]),
                               min_size=len(left), max_size=len(left)))
    order_a = data.draw(st.permutations(["a", "b", "c", "d"]))
    order_b = data.draw(st.permutations(["a", "b", "c", "e"]))
    a = pd.Series(pd.Categorical(left, categories=order_a))
    b = pd.Series(pd.Categorical(right, categories=order_b))
    np.testing.assert_array_equal(same_values(a, b), _same_objects(a, b))
    np.testing.assert_array_equal(same_values(a, a.copy()), np.ones(len(a), dtype=bool))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-3, 3).map(float)), min_size=1, max_size=30),
       st.data())
def test_same_values_floats_equal_the_object_path(left, data):
    right = data.draw(st.lists(st.one_of(st.none(), st.integers(-3, 3).map(float)),
                               min_size=len(left), max_size=len(left)))
    a = pd.Series(left, dtype="float64")
    b = pd.Series(right, dtype="float64")
    np.testing.assert_array_equal(same_values(a, b), _same_objects(a, b))


def _max_distinct_ref(x: np.ndarray, y: np.ndarray) -> float:
    pairs = {(int(u), int(v) if v >= 0 else -1) for u, v in zip(x, y) if u >= 0}
    if not pairs:
        return float("nan")
    per: dict[int, int] = {}
    for u, _ in pairs:
        per[u] = per.get(u, 0) + 1
    return float(max(per.values()))


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 40), st.integers(1, 5000), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_max_distinct_table_and_sort_paths_equal_a_set_count(n, nx, ny, seed):
    # nx up to 5000 with n <= 40: the pairs' table would be too big, the sort path runs
    rng = np.random.default_rng(seed)
    x = rng.integers(-1, nx, n)
    y = rng.integers(-1, ny, n)
    want = _max_distinct_ref(x, y)
    got = max_distinct(x, nx, y, ny)
    assert (np.isnan(want) and np.isnan(got)) or got == want


def test_frame_codes_distinct_and_determines():
    f = pd.DataFrame({"a": [1.0, 1.0, 2.0, np.nan, 2.0], "b": ["x", None, "y", "y", "y"],
                      "c": [np.nan] * 5})
    c = FrameCodes(f)
    assert c.distinct("a") == (4, 2) and c.distinct("b") == (4, 2) and c.distinct("c") == (0, 0)
    got = c.determines([("a", "b"), ("b", "a"), ("c", "a")])
    assert got[:2] == [2.0, 2.0] and np.isnan(got[2])  # None is b's own value under a = 1
    with pytest.raises(TypeError):
        FrameCodes(pd.DataFrame({"l": [[1], [2]]})).distinct("l")


def _household_frame(seed: int, n: int = 80) -> tuple[pd.DataFrame, list[str]]:
    rng = np.random.default_rng(seed)
    hid = rng.integers(0, 25, n).astype(float)
    hid[rng.random(n) < 0.1] = np.nan
    size = pd.Series(hid).map(pd.Series(hid).value_counts()).to_numpy()
    o_size = np.where(np.isnan(size), 0.0, np.minimum(size, 3.0))  # a function of the size
    o_const = pd.Series(hid).map({h: float(rng.integers(0, 3)) for h in np.unique(hid)})
    o_free = rng.integers(0, 4, n).astype(float)
    f = pd.DataFrame({"r:hid": hid})
    for k, o in (("size", o_size), ("const", o_const.to_numpy()), ("free", o_free)):
        o = o.copy()
        if k != "size":  # a missing value is a value of its own: size would not determine it
            o[rng.random(n) < 0.1] = np.nan
        chg = rng.random(n) < 0.3
        f["o:" + k] = o
        f["chg:" + k] = chg
        f["rev:" + k] = ~chg & ~np.isnan(o)
    f["o:one"] = 1.0  # a single original value: never reported
    f["chg:one"] = True
    f["rev:one"] = False
    return f, ["size", "const", "free", "one"]


@pytest.mark.parametrize("seed", range(8))
def test_household_leaks_from_codes_equal_the_frame_operations(seed):
    f, treated = _household_frame(seed)
    al = Aligned(f, f)  # a pandas frame: the frame operations run on pandas here
    got = household_leaks(f, "r:hid", treated)
    want = run(_household_lazy(al, f, "r:hid", treated), al.compute)
    assert got == want
    flags = {k: (size, within) for k, size, within, _ in got}
    assert flags["size"][0] and "free" not in flags and "one" not in flags
    assert flags["const"][1]


def test_household_finding_counts_on_a_hand_case():
    # hs is the household size: merging 1 and 2 changes the three records of households 1 and
    # 2, and the number of records per household gives each of them back
    df = pd.DataFrame({"hid": [1, 1, 2, 3, 3, 3], "hs": ["2", "2", "1", "3", "3", "3"],
                       "sex": list("mfmfmf")})
    s = sdc.SdcSession(df, keys=["hs", "sex"], household="hid", seed=1)
    found = s.recode("hs", {"1": "1-2", "2": "1-2"}).release_check()
    row = found[found["check"] == "household_structure"].iloc[0]
    assert row["variables"] == ["hs", "hid"] and row["records"] == 3
    assert "number of records per household" in row["message"]
