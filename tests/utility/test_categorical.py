"""Categorical information loss: hand-computed cases, invariants, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession.utility as u
from sdcsession.errors import MeasureError, ParameterError


@pytest.fixture
def pair():
    o = pd.DataFrame(
        {
            "sex": ["m", "f", "m", "f", "m", "f"],
            "reg": ["a", "a", "b", "b", "c", None],
        }
    )
    m = o.assign(sex=["m", None, "m", "f", None, "f"], reg=["a", "a", "a", "b", "c", None])
    return o, m


def test_missing_values_m_and_mp(pair):
    o, m = pair
    mv = u.missing_values(o, m)
    assert mv.loc["sex"].tolist() == [0, 2, 2, pytest.approx(100 * 2 / 6)]
    assert mv.loc["reg"].tolist() == [1, 1, 0, 0.0]


def test_missing_restored_is_not_additional():
    o = pd.DataFrame({"a": [None, 1.0, 2.0]})
    m = pd.DataFrame({"a": [5.0, None, 2.0]})
    mv = u.missing_values(o, m)
    assert mv.loc["a", "m"] == 1  # only the record missing in masked but not in original


def test_suppressions_like_sdcmicro(pair):
    o, m = pair
    s = u.suppressions(o, m, keys=["sex", "reg"])
    assert list(s.columns) == ["suppressions", "suppressions_pct"]
    assert s.loc["sex", "suppressions"] == 2
    assert s.loc["sex", "suppressions_pct"] == pytest.approx(33.333333333333336)
    assert s.loc["reg", "suppressions"] == 0


def test_records_changed(pair):
    o, m = pair
    rc = u.records_changed(o, m)
    assert rc.loc["sex"].tolist() == [2, pytest.approx(2 / 6)]
    assert rc.loc["reg"].tolist() == [1, pytest.approx(1 / 6)]  # NA vs NA is no change


def test_records_changed_numeric():
    o = pd.DataFrame({"x": [1.0, np.nan, 3.0, np.nan]})
    m = pd.DataFrame({"x": [1.0, np.nan, 4.0, 2.0]})
    assert u.records_changed(o, m).loc["x", "changed"] == 2


def test_pairing_reorders_and_rejects_removed_rows(pair):
    o, m = pair
    shuffled = m.iloc[::-1]
    pd.testing.assert_frame_equal(u.records_changed(o, shuffled), u.records_changed(o, m))
    with pytest.raises(MeasureError, match="paired by index"):
        u.records_changed(o, m.iloc[:4])
    with pytest.raises(MeasureError, match="paired by index"):
        u.missing_values(o, m.set_axis(range(10, 16)))
    # distributional measures still work when records were removed
    assert u.ut(o, m.iloc[:4], columns=["sex"]) >= 0


def test_unknown_columns_and_non_frames(pair):
    o, m = pair
    with pytest.raises(MeasureError, match="not in the masked file: \\['zz'\\]"):
        u.records_changed(o, m.assign(zz=1).drop(columns="zz"), columns=["zz"])
    with pytest.raises(MeasureError, match="must be a pandas DataFrame"):
        u.suppressions(o, [1, 2])


def test_ut_ut2_hand_computed():
    # original 2x2 table: (a,u)=2 (a,v)=1 (b,u)=1 (b,v)=4 ; masked moves one (b,v)->(a,v)
    o = pd.DataFrame({"x": list("aaabbbbb"), "y": list("uuvuvvvv")})
    m = o.copy()
    m.loc[7, "x"] = "a"
    assert u.ut(o, m, columns=["x", "y"]) == pytest.approx(2 / 4)
    # relative changes: (a,v) 1/1, (b,v) 1/4
    assert u.ut2(o, m, columns=["x", "y"]) == pytest.approx(100 * (1 + 0.25) / 4)
    assert u.aad(o, m, columns=["x", "y"]) == u.ut(o, m, columns=["x", "y"])


def test_ut2_zero_cells():
    o = pd.DataFrame({"x": list("aabb"), "y": list("uuvv")})
    m = o.assign(y=list("uvvv"))  # (a,v) is empty in the original, filled in masked
    # defined cells: (a,u) 2->1: 1/2 ; (b,v) 2->2: 0 ; (b,u) empty in both: 0 -> 3 cells
    assert u.ut2(o, m, columns=["x", "y"]) == pytest.approx(100 * 0.5 / 3)
    with pytest.raises(MeasureError, match="empty in the original"):
        u.ut2(o, m, columns=["x", "y"], zero_cells="error")
    with pytest.raises(ParameterError):
        u.ut2(o, m, columns=["x", "y"], zero_cells="nope")


def test_weighted_tables():
    o = pd.DataFrame({"x": list("ab"), "w": [2.0, 3.0]})
    m = o.assign(x=list("bb"))
    # weighted original a=2, b=3 ; masked a=0, b=5
    assert u.ut(o, m, columns=["x"], weight="w") == pytest.approx((2 + 2) / 2)
    t = u.contingency_table(o, m, columns=["x"], weight="w")
    assert t[["original", "masked"]].values.tolist() == [[2.0, 0.0], [3.0, 5.0]]


def test_missing_drop_excludes_records(pair):
    o, m = pair
    t = u.contingency_table(o, m, columns=["sex"], missing="drop")
    assert t["masked"].sum() == 4
    t = u.contingency_table(o, m, columns=["sex"])
    assert t["masked"].sum() == 6 and t["sex"].isna().sum() == 1


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=60),
    st.data(),
)
def test_one_dim_table_distance_is_twice_the_suppressions(values, data):
    o = pd.DataFrame({"k": values})
    mask = data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
    m = o.assign(k=o["k"].where(~np.array(mask)))
    n_supp = int(u.suppressions(o, m)["suppressions"]["k"])
    assert n_supp == sum(mask)
    assert u.ctbil(o, m, columns=["k"], max_dim=1) == 2 * n_supp


def test_ctbil_and_normalised_and_contingency_loss():
    o = pd.DataFrame({"a": list("xxyy"), "b": list("uvuv"), "c": list("pppq")})
    m = o.assign(a=["x", "y", "y", "y"])
    # 1-d: a: |2-1|+|2-3| = 2 ; b: 0 ; c: 0 ; 2-d: a×b: 2 ; a×c: 2 ; b×c: 0
    assert u.ctbil(o, m, columns=["a", "b", "c"], max_dim=2) == 6.0
    cells = 2 + 2 + 2 + 4 + 4 + 4
    assert u.ctbil(o, m, columns=["a", "b", "c"], normalise=True) == pytest.approx(6 / cells)
    assert u.ctbil(o, m, columns=["a", "b", "c"], max_dim=3) == 8.0  # + a×b×c: 2
    cl1 = u.contingency_loss(o, m, columns=["a", "b", "c"], dims=1)
    cl2 = u.contingency_loss(o, m, columns=["a", "b", "c"])
    assert cl1["abs_diff"].sum() + cl2["abs_diff"].sum() == 6.0
    assert list(cl2.index) == ["a × b", "a × c", "b × c"]
    assert cl2.loc["a × b", "false_zeros"] == 1 and cl2.loc["a × b", "false_nonzeros"] == 0
    with pytest.raises(ParameterError):
        u.ctbil(o, m, columns=["a"], max_dim=0)


def test_hellinger_bounds():
    o = pd.DataFrame({"k": list("aabb")})
    assert u.hellinger(o, o, columns=["k"]) == 0.0
    assert u.hellinger(o, o.assign(k=list("cccc")), columns=["k"]) == pytest.approx(1.0)
    m = o.assign(k=list("aaab"))
    expected = np.sqrt(0.5 * ((np.sqrt(0.75) - np.sqrt(0.5)) ** 2 + (np.sqrt(0.25) - np.sqrt(0.5)) ** 2))
    assert u.hellinger(o, m, columns=["k"]) == pytest.approx(expected)
    counts = np.sqrt(0.5 * ((np.sqrt(3) - np.sqrt(2)) ** 2 + (1 - np.sqrt(2)) ** 2))
    assert u.hellinger(o, m, columns=["k"], scale="count") == pytest.approx(counts)


def test_cramers_v_and_loss():
    o = pd.DataFrame({"a": list("xxyy"), "b": list("uuvv")})
    assert u.cramers_v(o, columns=["a", "b"]) == pytest.approx(1.0)
    m = o.assign(b=list("uvvv"))
    # table [[1,1],[0,2]]: chi2 = 4/3, V = sqrt(1/3)
    assert u.cramers_v(m, columns=["a", "b"]) == pytest.approx(np.sqrt(1 / 3))
    assert u.cramers_v_loss(o, m, columns=["a", "b"]) == pytest.approx(100 * (np.sqrt(1 / 3) - 1))
    with pytest.raises(MeasureError, match="undefined"):
        u.cramers_v_loss(o.assign(b="u"), m, columns=["a", "b"])


def test_direct_distance_nominal_and_ordinal():
    cats = list("abcd")
    o = pd.DataFrame({"g": pd.Categorical(list("abcd"), categories=cats, ordered=True),
                      "n": list("pqpq")})
    m = pd.DataFrame({"g": pd.Categorical(["a", "a", "d", None], categories=cats, ordered=True),
                      "n": ["p", "p", None, "q"]})
    dd = u.direct_distance(o, m)
    # ordinal: 0, 1/4, 1/4, suppressed d -> far end a: 3/4
    assert dd["g"] == pytest.approx((0 + 0.25 + 0.25 + 0.75) / 4)
    assert dd["n"] == pytest.approx(2 / 4)
    # numbers declared ordinal
    o2 = pd.DataFrame({"x": [1, 2, 3, 4]})
    m2 = pd.DataFrame({"x": [1, 1, 3, 4]})
    assert u.direct_distance(o2, m2, scales={"x": "ordinal"})["x"] == pytest.approx(0.25 / 4)
    with pytest.raises(MeasureError, match="declared ordinal"):
        u.direct_distance(o, m, scales={"n": "ordinal"})
    with pytest.raises(ParameterError):
        u.direct_distance(o, m, scales={"zz": "ordinal"})


def test_tables_use_union_of_categories_from_both_files():
    o = pd.DataFrame({"k": pd.Categorical(list("ab"))})
    m = pd.DataFrame({"k": pd.Categorical(list("bc"))})
    t = u.contingency_table(o, m, columns=["k"])
    assert t["k"].tolist() == ["a", "b", "c"]
    assert u.ut(o, m, columns=["k"]) == pytest.approx(2 / 3)


def test_contingency_table_of_mixed_label_types():
    """Labels of mixed types (numbers in one file, text in the other) are read into a fresh
    array: no 'assignment destination is read-only' from a pandas view."""
    t = u.contingency_table(pd.DataFrame({"k": [0, 1, 1]}), pd.DataFrame({"k": ["x", "y", "x"]}),
                            columns=["k"])
    assert t.values.tolist() == [[0, 1.0, 0.0, -1.0], [1, 2.0, 0.0, -2.0],
                                 ["x", 0.0, 2.0, 2.0], ["y", 0.0, 1.0, 1.0]]
    t = u.contingency_table(pd.DataFrame({"k": ["x", 3, "y"]}),
                            pd.DataFrame({"k": ["x", "y", None]}), columns=["k"])
    assert t["original"].sum() == 3 and t["masked"].sum() == 3
    assert t["k"].isna().sum() == 1


def test_categories_of_types_pyarrow_cannot_compare():
    """Complex numbers against pyarrow-backed text: pyarrow cannot look the labels up (an
    ArrowNotImplementedError); the union of categories is built as plain objects instead."""
    o = pd.DataFrame({"a": np.arange(4) + 1j})
    m = pd.DataFrame({"a": pd.Series(["x", "y", "x", "y"], dtype="str")})
    assert u.ut(o, m, columns=["a"]) == pytest.approx(4 / 3)  # 6 cells, |diff| sums to 8
    t = u.contingency_table(o, m, columns=["a"])
    assert t["original"].tolist() == [1.0] * 4 + [0.0] * 2
    assert t["masked"].tolist() == [0.0] * 4 + [2.0] * 2
