"""Recipes keep the type of every parameter (format 2): integer, float, text, boolean and missing
labels and missing-value replacements replay bit for bit through JSON; recipes of format 1 still
replay as they did."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, RecipeError, SdcError
from sdcsession.methods import GlobalRecode, GroupCategories, Pram, TopBottomCode
from sdcsession.methods.base import (
    Treatment,
    decode_value,
    encode_value,
    freeze,
    typed_freeze,
)
from sdcsession.methods.basic import Recode
from sdcsession.methods.category_grouping import group_categories
from sdcsession.methods.top_bottom_coding import top_bottom_code
from sdcsession.session.recipe import load_recipe

MISSING = [None, np.nan, pd.NA, pd.NaT]


def _json(obj):
    """Through strict JSON (NaN/Infinity refused) and back."""
    return json.loads(json.dumps(obj, allow_nan=False))


def _typed_cells(df: pd.DataFrame) -> dict:
    """Every column's dtype, categories with their types, and the types of object cells."""
    out = {}
    for c in df.columns:
        s = df[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            out[c] = (str(s.dtype.categories.dtype), s.cat.ordered,
                      [(type(v).__name__, repr(v)) for v in s.cat.categories])
        elif s.dtype == object:
            out[c] = [(type(v).__name__, repr(v)) for v in s]
        else:
            out[c] = str(s.dtype)
    return out


def assert_identical(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert a.equals(b)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert list(a.dtypes) == list(b.dtypes)
    assert _typed_cells(a) == _typed_cells(b)


# ----------------------------------------------------------------- the two cases of the issue
@pytest.fixture
def df():
    return pd.DataFrame({
        "region": pd.Categorical(["a", "b", "c", "c", "a", None]),
        "walls": [1, 2, 3, 2, 1, 3],
        "urban": [True, False, True, True, False, True],
        "income": [1200.0, 560.0, np.nan, 99000.0, 43000.0, 7.5],
        "n": [3, 1, 4, 1, 5, 9],
    })


@pytest.fixture
def session(df):
    return sdc.SdcSession(df, keys=["region", "walls", "urban"], numeric=["income", "n"], seed=3)


def _replay(s, df, tmp_path=None):
    if tmp_path is None:
        return sdc.SdcSession.from_recipe(df, _json(s.to_recipe()))
    return sdc.SdcSession.from_recipe(df, s.save_recipe(tmp_path / "r.json"))


def test_group_categories_integer_label_replays(session, df, tmp_path):
    s = session.group_categories("region", {1: ["a", "b"]})
    assert s.data["region"].cat.categories.tolist() == [1, "c"]
    assert type(s.data["region"].cat.categories[0]) is int
    assert s.data["region"].tolist()[:4] == [1, 1, "c", "c"]
    assert s.to_recipe()["steps"][0]["groups"] == {"$map": [[1, ["a", "b"]]]}
    assert_identical(_replay(s, df).data, s.data)
    assert_identical(_replay(s, df, tmp_path).data, s.data)
    # integer codes grouped into integer, float and boolean labels
    s.group_categories("walls", {10: [1, 2], 2.5: [3]})
    assert s.data["walls"].cat.categories.tolist() == [10, 2.5]
    s.group_categories("urban", {0: [False]})
    assert_identical(_replay(s, df).data, s.data)


@pytest.mark.parametrize("replacement", [np.nan, float("nan"), pd.NA])
def test_top_bottom_code_missing_replacement_replays(session, df, replacement, tmp_path):
    s = session.top_bottom_code("income", 50000.0, replacement)
    assert s.data["income"].isna().tolist() == [False, False, True, True, False, False]
    assert s.data["income"].dtype == np.float64
    s.top_bottom_code("n", 4, replacement)  # int64 -> float64 with NaN
    assert s.data["n"].tolist()[:3] == [3.0, 1.0, 4.0] and np.isnan(s.data["n"].iloc[4])
    r = _replay(s, df)
    assert_identical(r.data, s.data)
    assert_identical(_replay(s, df, tmp_path).data, s.data)
    assert r.history[1].treatment == s.history[1].treatment


def test_top_bottom_code_none_means_the_threshold(session, df):
    s = session.top_bottom_code("income", 50000.0, None)
    assert s.data["income"].tolist()[3] == 50000.0
    assert s.to_recipe()["steps"][0]["replacement"] is None
    assert_identical(_replay(s, df).data, s.data)


# ----------------------------------------------------------------- the encoding
@pytest.mark.parametrize("value, encoded", [
    ({1: "a"}, {"$map": [[1, "a"]]}),
    ({"1": "a"}, {"1": "a"}),
    ({True: 1.5, 2.0: False}, {"$map": [[True, 1.5], [2.0, False]]}),
    ({"$x": 1}, {"$map": [["$x", 1]]}),
    ({np.nan: [pd.NA, pd.NaT, None]},
     {"$map": [[{"$missing": "nan"}, [{"$missing": "NA"}, {"$missing": "NaT"}, None]]]}),
    ((float("inf"), -np.inf, np.int64(3), np.float32(0.5), np.bool_(True)),
     [{"$float": "inf"}, {"$float": "-inf"}, 3, 0.5, True]),
    ({"a": {2: "b"}}, {"a": {"$map": [[2, "b"]]}}),
])
def test_encoding(value, encoded):
    assert encode_value(value) == encoded
    back = decode_value(_json(encode_value(value)))
    assert typed_freeze(back) == typed_freeze(value)


def test_encoding_refuses_what_json_cannot_hold():
    # a label a recipe cannot hold is refused when the treatment is built (nothing is applied)
    with pytest.raises(ParameterError, match="mapping key.*Timestamp"):
        Recode("d", {pd.Timestamp("2020-01-01"): "x"})
    # and the encoder refuses it too, should such a value reach it another way
    with pytest.raises(RecipeError, match="Timestamp"):
        encode_value({pd.Timestamp("2020-01-01"): "x"}, where="mapping")


@pytest.mark.parametrize("bad, match", [
    ({"$map": "x"}, "list of"), ({"$map": [[1]]}, "pairs"), ({"$map": [[[1], 2]]}, "single value"),
    ({"$map": [[1, "a"], [1.0, "b"]]}, "twice"), ({"$map": [[1, "a"], [True, "b"]]}, "twice"),
    ({"$missing": "none"}, "missing value"), ({"$float": "big"}, "inf"),
])
def test_decoding_errors(bad, match):
    with pytest.raises(RecipeError, match=match):
        Treatment.from_dict({"type": "recode", "column": "a", "mapping": bad})


def test_decoding_depth_and_file_errors(df, tmp_path):
    deep: object = "x"
    for _ in range(200):
        deep = [deep]
    with pytest.raises(RecipeError, match="nested"):
        Treatment.from_dict({"type": "recode", "column": "a", "mapping": {"k": deep}})
    p = tmp_path / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RecipeError, match="nested too deeply"):
        load_recipe(p)
    p.write_bytes(b'{"roles": {"keys": ["\xff"]}, "steps": []}')
    with pytest.raises(RecipeError, match="not UTF-8"):
        load_recipe(p)
    with pytest.raises(RecipeError, match="format_version"):
        sdc.SdcSession.from_recipe(df, {"format_version": 0, "roles": {"keys": ["walls"]},
                                        "steps": []})


def test_typed_equality_and_hash():
    g = [GroupCategories("x", {k: ["a"]}) for k in (1, 1.0, True, "1")]
    assert all(g[i] != g[j] for i in range(4) for j in range(4) if i != j)
    assert GroupCategories("x", {1: ["a"]}) == GroupCategories("x", {np.int64(1): ("a",)})
    nan, na = TopBottomCode("x", 5, np.nan), TopBottomCode("x", 5, pd.NA)
    assert nan != na and nan == TopBottomCode("x", 5, float("nan"))  # never "ambiguous"
    assert hash(nan) == hash(TopBottomCode("x", 5, np.float64("nan")))
    assert TopBottomCode("x", 5) != TopBottomCode("x", 5.0)
    assert freeze({2: "x", "2": "y"}) == ((2, "x"), ("2", "y"))


# ----------------------------------------------------------------- format 1 still replays
V1 = """{"format": "sdcsession-recipe", "format_version": 1, "package_version": "0.1.0",
 "name": "old", "seed": 7, "roles": {"keys": ["region", "walls", "urban"],
 "numeric": ["income", "n"]},
 "steps": [{"type": "group_categories", "column": "walls", "groups": {"1-2": ["1", "2"]},
            "seed": 1},
           {"type": "recode", "column": "region", "mapping": {"$missing": "nan"}, "seed": 2},
           {"type": "top_bottom_code", "column": "income", "value": 50000.0,
            "replacement": null, "kind": "top", "seed": 3}]}"""


def test_format_1_recipes_replay_as_before(df, tmp_path):
    (tmp_path / "v1.json").write_text(V1)
    df = df.assign(region=pd.Categorical(["a", "$missing", "c", "c", "a", None]))
    s = sdc.SdcSession.from_recipe(df, tmp_path / "v1.json")
    assert s.data["walls"].tolist() == ["1-2", "1-2", 3, "1-2", "1-2", 3]
    # in format 1 a one-key object is a plain mapping: category "$missing" becomes "nan"
    assert s.data["region"].tolist()[:2] == ["a", "nan"]
    assert s.data["income"].tolist()[3] == 50000.0  # null: the threshold
    # read as format 2 the same object is a missing value, not a mapping
    v2 = json.loads(V1)
    v2["format_version"] = 2
    with pytest.raises(RecipeError, match="step 2: treatment 'recode'"):
        sdc.SdcSession.from_recipe(df, v2)
    v2["steps"][1]["mapping"] = {"$map": [[{"$missing": "nan"}, "x"], ["$missing", "nan"]]}
    s2 = sdc.SdcSession.from_recipe(df, v2)
    assert s2.history[2].treatment == Recode("region", {np.nan: "x", "$missing": "nan"})
    assert s2.data["region"].tolist()[:2] == ["a", "nan"]


# ----------------------------------------------------------------- group / top-bottom semantics
def test_group_categories_missing_labels():
    s = pd.Series(["a", "b", "c", None, "a"])
    out = group_categories(s, {"ab?": ["a", "b", None]})
    assert out.tolist() == ["ab?", "ab?", "c", "ab?", "ab?"]
    out = group_categories(s, {np.nan: ["a"]})
    assert out.astype(object).isna().tolist() == [True, False, False, True, True]
    assert out.cat.categories.tolist() == ["b", "c"]
    only = group_categories(s, {"unknown": [pd.NA]})
    assert only.cat.categories.tolist() == ["a", "b", "c", "unknown"]
    with pytest.raises(ParameterError, match="missing values are in two groups"):
        GroupCategories("x", {"p": [None], "q": [np.nan]})
    for bad in ({"g": [["a"]]}, {"g": [("a", "b")]}, {("a",): ["b"]}, {"g": [{"a": 1}]}):
        with pytest.raises(ParameterError, match="single value"):
            GroupCategories("x", bad)


def test_top_bottom_code_missing_replacement_kinds():
    nullable = pd.Series([1, 5, None, 9], dtype="Int64")
    out = top_bottom_code(nullable, 4, pd.NA, kind="top")
    assert out.dtype == "Int64" and out.isna().tolist() == [False, True, True, True]
    ints = top_bottom_code(pd.Series([1, 5, 9]), 4, np.nan, kind="bottom")
    assert ints.dtype == np.float64 and np.isnan(ints.iloc[0]) and ints.tolist()[1:] == [5.0, 9.0]
    cats = pd.Series(pd.Categorical(["0-4", "60-64", "65-69", "90+"], ordered=True,
                                    categories=["0-4", "60-64", "65-69", "90+"]))
    out = top_bottom_code(cats, "60-64", np.nan, kind="top")
    assert out.cat.categories.tolist() == ["0-4", "60-64"] and out.isna().tolist() == [
        False, False, True, True]
    with pytest.raises(ParameterError, match="missing"):
        TopBottomCode("x", pd.NA)
    with pytest.raises(ParameterError, match="single number"):
        TopBottomCode("x", 5, [1])


# ----------------------------------------------------------------- properties
numbers = st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans())
texts = st.one_of(st.text(max_size=4), st.sampled_from(["$map", "$missing", "nan", "1", "True"]))
labels = st.one_of(numbers, texts, st.sampled_from(MISSING))


def _groups(draw_new, draw_olds):
    return st.dictionaries(draw_new, st.lists(draw_olds, min_size=1, max_size=3), min_size=1,
                           max_size=3)


def _maybe(cls, *args, **kw):
    try:
        return cls(*args, **kw)
    except ParameterError:
        return None


treatments = st.one_of(
    st.builds(Recode, st.just("c"), st.dictionaries(labels, labels, min_size=1, max_size=4)),
    st.builds(_maybe, st.just(GroupCategories), st.just("c"), _groups(labels, labels)),
    st.builds(_maybe, st.just(TopBottomCode), st.just("c"), numbers | texts,
              labels, kind=st.sampled_from(["top", "bottom"])),
    st.builds(GlobalRecode, st.just("c"), breaks=st.integers(1, 50) | st.lists(
        st.floats(allow_nan=False), min_size=2, max_size=5, unique=True).map(sorted).filter(
            lambda b: all(x < y for x, y in zip(b, b[1:]))),
        right=st.booleans()),
    st.builds(Pram, st.just(["c"]), matrix=st.lists(numbers | texts, min_size=2, max_size=3,
                                                    unique_by=lambda v: (type(v), v)).filter(
        lambda ls: len({freeze(v) for v in ls}) == len(ls)).map(
        lambda ls: {a: {b: 1.0 / len(ls) for b in ls} for a in ls})),
).filter(lambda t: t is not None)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(treatments)
def test_treatment_roundtrip_through_json(t):
    d = _json(t.to_dict())
    back = Treatment.from_dict(d)
    assert back == t and hash(back) == hash(t)
    assert repr(back) == repr(t)  # types too: 1, 1.0 and True have different reprs
    assert typed_freeze(back.to_dict()) == typed_freeze(t.to_dict())


DF = pd.DataFrame({
    "s": pd.Categorical(["a", "b", "c", None, "a", "b", "c", "c"]),
    "i": [1, 2, 3, 2, 1, 3, 3, 1],
    "u": [True, False, True, True, False, True, False, True],
    "f": [1.5, np.nan, 7.0, 3.0, 1e6, -2.0, 0.0, 42.0],
    "g": [3, 1, 4, 1, 5, 9, 2, 6],
})
EXISTING = {"s": ["a", "b", "c"], "i": [1, 2, 3], "u": [True, False]}

key_steps = st.sampled_from(list(EXISTING)).flatmap(lambda c: st.one_of(
    st.builds(_maybe, st.just(GroupCategories), st.just(c),
              _groups(labels, st.sampled_from(EXISTING[c] + [None]))),
    st.builds(Recode, st.just(c), st.dictionaries(st.sampled_from(EXISTING[c]), labels,
                                                  min_size=1, max_size=3)),
))
num_steps = st.sampled_from(["f", "g"]).flatmap(lambda c: st.one_of(
    st.builds(_maybe, st.just(TopBottomCode), st.just(c), st.integers(-5, 50) | st.floats(
        -5, 50, allow_nan=False), st.one_of(st.sampled_from(MISSING), st.integers(-9, 9),
                                            st.floats(-9, 9, allow_nan=False)),
              kind=st.sampled_from(["top", "bottom"])),
    st.builds(GlobalRecode, st.just(c), breaks=st.integers(1, 8)),
))


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(st.one_of(key_steps, num_steps).filter(lambda t: t is not None), min_size=1,
                max_size=5), st.integers(0, 2**32))
def test_session_replays_bit_identical_through_json(ts, seed):
    s = sdc.SdcSession(DF, keys=["s", "i", "u"], numeric=["f", "g"], seed=seed)
    for t in ts:
        try:
            s.apply(t)
        except SdcError:
            continue
    assume(len(s.history) > 1)
    recipe = _json(s.to_recipe())
    s2 = sdc.SdcSession.from_recipe(DF, recipe)
    assert_identical(s2.data, s.data)
    assert [st.treatment for st in s2.history[1:]] == [st.treatment for st in s.history[1:]]
