"""Global recoding, grouping of categories, top/bottom coding and rounding."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.base import Treatment
from sdcsession.methods.recoding import (
    GlobalRecode,
    GroupCategories,
    RoundValues,
    TopBottomCode,
    global_recode,
    group_categories,
    round_values,
    top_bottom_code,
)
from sdcsession.roles import Roles

RNG = np.random.default_rng(0)


# ------------------------------------------------------------------ global recode
def _breaks_from_labels(labels: list[str]) -> list[float]:
    out = []
    for lab in labels:
        a, b = lab.strip("([])").split(",")
        if not out:
            out.append(float(a))
        out.append(float(b))
    return out


def test_recode_age_conformance():
    ref = reference()["testdata"]["recode_age"]
    breaks = _breaks_from_labels(list(ref))
    assert breaks == [-1, 15, 30, 45, 60, 75, 120]
    df = load("testdata")
    r = GlobalRecode("age", breaks=breaks).apply(df, Roles(keys=("sex",), numeric=("age",)),
                                                np.random.default_rng(0))
    s = r.data["age"]
    assert isinstance(s.dtype, pd.CategoricalDtype)
    assert list(s.cat.categories) == list(ref)
    assert r.notes["counts"] == ref
    assert s.value_counts(sort=False).to_dict() == ref
    # a numeric-role column becomes a key variable
    assert "age" in r.roles.keys and "age" not in r.roles.numeric


def test_right_open_and_labels():
    s = pd.Series([0, 15, 30, np.nan])
    left = global_recode(s, [0, 15, 30, 45], right=False)
    assert left.astype(object).tolist()[:3] == ["[0,15)", "[15,30)", "[30,45)"]
    assert pd.isna(left.iloc[3])
    lab = global_recode(s, [-1, 15, 30], labels=["young", "adult"])
    assert lab.astype(object).tolist()[:3] == ["young", "young", "adult"]


def test_outside_values_named_or_included():
    s = pd.Series([5, 200, -3], name="age")
    with pytest.raises(TreatmentError, match=r"outside the breaks.*-3, 200"):
        global_recode(s, [0, 15, 120])
    out = global_recode(s, [0, 15, 120], include_outside=True)
    assert out.astype(object).tolist() == ["(-inf,15]", "(15,inf)", "(-inf,15]"]
    # the lowest break itself is outside a right-closed interval
    with pytest.raises(TreatmentError, match="0"):
        global_recode(pd.Series([0, 3]), [0, 15])


def test_equidistant_and_quantile():
    x = pd.Series(np.arange(100, dtype=float))
    eq = global_recode(x, method="equidistant", n=4)
    assert eq.value_counts(sort=False).tolist() == [25, 25, 25, 25]
    assert eq.cat.categories[0] == "[0,24.75]"
    q = global_recode(pd.Series(RNG.lognormal(size=1000)), method="quantile", n=5)
    assert q.value_counts(sort=False).tolist() == [200] * 5


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=40),
       st.lists(st.integers(-60, 60), min_size=1, max_size=6, unique=True))
@settings(max_examples=60, deadline=None)
def test_property_every_value_in_its_interval(values, inner):
    brks = sorted(set(inner) | {-100, 100})
    s = pd.Series(values)
    out = global_recode(s, brks)
    codes = out.cat.codes.to_numpy()
    e = np.array(brks, dtype=float)
    assert (e[codes] < s.to_numpy()).all() and (s.to_numpy() <= e[codes + 1]).all()


@pytest.mark.parametrize("kwargs", [
    {"breaks": [0, 10, 5]}, {"breaks": [0, 0, 5]}, {"breaks": [3]}, {"breaks": "0,5"},
    {"breaks": [0, float("nan")]}, {"method": "kmeans", "n": 3}, {"method": "quantile"},
    {"method": "quantile", "n": 0}, {"breaks": [0, 5, 10], "labels": ["a"]},
    {"breaks": [0, 5], "method": "quantile", "n": 2}, {},
])
def test_global_recode_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        GlobalRecode("age", **kwargs)


def test_global_recode_bad_data():
    df = pd.DataFrame({"age": [1, 2, 3], "sex": ["m", "f", "m"], "x": [1.0, 2.0, 3.0]})
    roles = Roles(keys=("sex",), numeric=("age",))
    with pytest.raises(TreatmentError, match="neither a key nor a numeric"):
        GlobalRecode("x", breaks=[0, 5]).check(df, roles)
    with pytest.raises(TreatmentError, match="must be numeric"):
        GlobalRecode("sex", breaks=[0, 5]).check(df, Roles(keys=("sex",)))
    with pytest.raises(TreatmentError, match="unknown column"):
        GlobalRecode("nope", breaks=[0, 5]).check(df, roles)
    with pytest.raises(TreatmentError, match="labels"):
        global_recode(df["age"], method="equidistant", n=3, labels=["a", "b"])


def test_global_recode_roundtrip_and_no_mutation():
    t = GlobalRecode("age", breaks=[0, 15, 120], labels=["child", "adult"])
    assert Treatment.from_dict(t.to_dict()) == t
    df = pd.DataFrame({"age": [3, 40]})
    before = df.copy()
    out = t.apply(df, Roles(keys=("age",)), np.random.default_rng(0))
    pd.testing.assert_frame_equal(df, before)
    assert out.data["age"].astype(object).tolist() == ["child", "adult"]
    assert out.roles is None  # already a key


# ------------------------------------------------------------------ group categories
def test_group_categories():
    s = pd.Series(pd.Categorical(["a", "b", "c", "d", None], categories=["d", "c", "b", "a"]))
    out = group_categories(s, {"ab": ["a", "b"], "cc": "c"})
    assert out.astype(object).tolist()[:4] == ["ab", "ab", "cc", "d"] and pd.isna(out.iloc[4])
    assert list(out.cat.categories) == ["d", "cc", "ab"]


def test_group_categories_numeric_codes_from_json():
    df = pd.DataFrame({"walls": [1, 2, 3, 2]})
    t = Treatment.from_dict({"type": "group_categories", "column": "walls",
                             "groups": {"1-2": ["1", "2"]}})
    r = t.apply(df, Roles(keys=("walls",)), np.random.default_rng(0))
    assert r.data["walls"].astype(object).tolist() == ["1-2", "1-2", 3, "1-2"]
    assert r.notes["changed"] == 3


def test_group_categories_bad():
    with pytest.raises(ParameterError, match="two groups"):
        GroupCategories("x", {"ab": ["a", "b"], "bc": ["b", "c"]})
    with pytest.raises(ParameterError):
        GroupCategories("x", {})
    df = pd.DataFrame({"x": ["a", "b"], "y": [1.0, 2.0]})
    with pytest.raises(TreatmentError, match="none of"):
        group_categories(df["x"], {"z": ["q"]})
    with pytest.raises(TreatmentError, match="not a key"):
        GroupCategories("y", {"z": [1.0]}).check(df, Roles(keys=("x",), numeric=("y",)))


# ------------------------------------------------------------------ top / bottom coding
def test_top_bottom_numeric():
    s = pd.Series([1, 50, 100, 1000], name="income")
    assert top_bottom_code(s, 100, kind="top").tolist() == [1, 50, 100, 100]
    assert top_bottom_code(s, 50, 0, kind="bottom").tolist() == [0, 50, 100, 1000]
    assert top_bottom_code(s, 99.5, kind="top").tolist() == [1.0, 50.0, 99.5, 99.5]


def test_top_coding_ordered_categorical():
    s = pd.Series(pd.Categorical(["0-4", "60-64", "65-69", "90+"],
                                 categories=["0-4", "60-64", "65-69", "90+"], ordered=True))
    out = top_bottom_code(s, "60-64", "60+", kind="top")
    assert out.astype(object).tolist() == ["0-4", "60-64", "60+", "60+"]
    assert list(out.cat.categories) == ["0-4", "60-64", "60+"]


def test_top_coding_categorical_is_an_error():
    df = pd.DataFrame({"region": pd.Categorical(["a", "b"]), "t": ["x", "y"]})
    roles = Roles(keys=("region", "t"))
    with pytest.raises(TreatmentError, match="unordered categorical"):
        TopBottomCode("region", "a").check(df, roles)
    with pytest.raises(TreatmentError, match="categorical"):
        TopBottomCode("t", "x").check(df, roles)
    with pytest.raises(ParameterError):
        TopBottomCode("t", 1, kind="middle")
    t = TopBottomCode("income", 10, 9, kind="top")
    assert Treatment.from_dict(t.to_dict()) == t


# ------------------------------------------------------------------ rounding
def test_round_values():
    s = pd.Series([1234.5, 987.0, np.nan])
    assert round_values(s, base=100).tolist()[:2] == [1200.0, 1000.0]
    assert round_values(s, digits=-2).tolist()[:2] == [1200.0, 1000.0]
    assert pd.isna(round_values(s, base=5).iloc[2])
    ints = round_values(pd.Series([12, 17, 25]), base=10)
    assert ints.dtype == np.int64 and ints.tolist() == [10, 20, 20]  # half to even


def test_round_values_treatment():
    df = pd.DataFrame({"income": [1234.5, 987.0], "sex": ["m", "f"]})
    roles = Roles(keys=("sex",), numeric=("income",))
    t = RoundValues("income", base=100)
    assert Treatment.from_dict(t.to_dict()) == t
    r = t.apply(df, roles, np.random.default_rng(0))
    assert r.notes["changed"] == {"income": 2}
    with pytest.raises(TreatmentError, match="not numeric variables"):
        RoundValues("sex", digits=0).check(df, roles)
    for bad in ({}, {"digits": 1, "base": 10}, {"base": -1}, {"digits": 1.5}):
        with pytest.raises(ParameterError):
            RoundValues("income", **bad)
