"""The meta of an element-wise step on Dask is the dtype the in-memory treatment returns for the
whole file: for every registered distributed treatment outside the steps by strata, the dtypes
of ``d.data`` (the meta), of every computed partition and of the pandas session agree, and the
data are equal, on int64, float32, Int64, bool, category and string columns where the treatment
accepts them (where pandas refuses, Dask refuses too). The files are uneven Parquet files whose
index restarts at 0 in each, cut in several ways, so that some partitions hold values a step
replaces and others hold none (an int column top coded with a float replacement is float64 in
every partition, as in pandas)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import SdcError

from ._files import write_cut

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

N = 48
#: file boundaries: four uneven files (one of a single record), two files, one file
LAYOUTS = {"four-uneven": [0, 5, 6, 30, N], "two": [0, 24, N], "one": [0, N]}
KEYS = ["i64", "f32", "nint", "flag", "cat", "txt", "ocat", "stxt"]
ROLES = {"keys": KEYS, "numeric": ["inc", "nnum", "fnum"], "household": "hid", "seed": 5}

#: the registered distributed treatments (outside the steps by strata) and their steps
STEPS = {
    "TopBottomCode": {
        # values above 8 are only in the first records (the first file): other partitions
        # keep every value
        "i64_float": lambda s: s.top_bottom_code("i64", 8, 8.5),
        "i64_int": lambda s: s.top_bottom_code("i64", 8, 8),
        "i64_none_hit": lambda s: s.top_bottom_code("i64", 100, 100.5),
        "i64_blank": lambda s: s.top_bottom_code("i64", 8, np.nan),
        "f32": lambda s: s.top_bottom_code("f32", 0.9, 0.9),
        "nint_float": lambda s: s.top_bottom_code("nint", 8, 8.5),
        "nint_blank": lambda s: s.top_bottom_code("nint", 8, np.nan, kind="top"),
        "inc_bottom": lambda s: s.top_bottom_code("inc", 150, 149.5, kind="bottom"),
        "i64_bottom_spread": lambda s: s.top_bottom_code("i64", 2, 1.5, kind="bottom"),
        "ocat": lambda s: s.top_bottom_code("ocat", "b", "b"),
        "flag": lambda s: s.top_bottom_code("flag", 0, 0),
        "cat": lambda s: s.top_bottom_code("cat", "b", "b"),
        "txt": lambda s: s.top_bottom_code("txt", "b", "b"),
        "stxt": lambda s: s.top_bottom_code("stxt", "b", "b"),
    },
    "RoundValues": {
        "i64_base": lambda s: s.round_values("inc", base=10),
        "i64_digits": lambda s: s.round_values("inc", digits=-1),
        "i64_half": lambda s: s.round_values("inc", base=2.5),
        "f32": lambda s: s.round_values("fnum", digits=1),
        "nint": lambda s: s.round_values("nnum", base=5),
        "flag": lambda s: s.round_values("flag", digits=0),
        "txt": lambda s: s.round_values("txt", digits=0),
    },
    "Recode": {
        "i64_int": lambda s: s.recode("i64", {9: 1}),
        "i64_float": lambda s: s.recode("i64", {9: 1.5}),
        "i64_text": lambda s: s.recode("i64", {9: "nine"}),
        "i64_blank": lambda s: s.recode("i64", {9: None}),
        "nint": lambda s: s.recode("nint", {9: 1}),
        "nint_float": lambda s: s.recode("nint", {9: 1.5}),
        "f32": lambda s: s.recode("f32", {0.5: 0.25}),
        "flag": lambda s: s.recode("flag", {True: False}),
        "cat": lambda s: s.recode("cat", {"c": "a"}),
        "txt": lambda s: s.recode("txt", {"z": "a"}),
        "txt_int": lambda s: s.recode("txt", {"z": 1}),
        "txt_blank": lambda s: s.recode("txt", {"z": None}),
        "stxt": lambda s: s.recode("stxt", {"z": "a"}),
        "stxt_int": lambda s: s.recode("stxt", {"z": 1}),
        "stxt_blank": lambda s: s.recode("stxt", {"z": None}),
        "flag_blank": lambda s: s.recode("flag", {True: None}),
        "nint_blank": lambda s: s.recode("nint", {9: None}),
        "cat_blank": lambda s: s.recode("cat", {"c": None}),
    },
    "GlobalRecode": {
        "i64": lambda s: s.global_recode("i64", [0, 5, 20]),
        "i64_n": lambda s: s.global_recode("i64", 3),
        "f32": lambda s: s.global_recode("f32", [0, 0.5, 1]),
        "nint": lambda s: s.global_recode("nint", [0, 5, 20]),
        "inc": lambda s: s.global_recode("inc", method="equidistant", n=4),
        "flag": lambda s: s.global_recode("flag", [0, 1]),
        "txt": lambda s: s.global_recode("txt", [0, 1]),
    },
    "GroupCategories": {
        "i64": lambda s: s.group_categories("i64", {"low": [1, 2, 3]}),
        "nint": lambda s: s.group_categories("nint", {"low": [1, 2, 3]}),
        "flag": lambda s: s.group_categories("flag", {"any": [True, False]}),
        "cat": lambda s: s.group_categories("cat", {"ab": ["a", "b"]}),
        "txt": lambda s: s.group_categories("txt", {"xy": ["a", "z"]}),
        "stxt": lambda s: s.group_categories("stxt", {"xy": ["a", "z"]}),
    },
    "Pram": {
        "i64": lambda s: s.pram("i64"),
        "nint": lambda s: s.pram("nint"),
        "flag": lambda s: s.pram("flag"),
        "cat": lambda s: s.pram("cat"),
        "txt": lambda s: s.pram("txt"),
        "stxt": lambda s: s.pram("stxt"),
        "ocat": lambda s: s.pram(["ocat", "flag"]),
    },
    "AddNoise": {
        "i64": lambda s: s.add_noise("inc", noise=0.2),
        "f32": lambda s: s.add_noise(["fnum"], noise=0.2),
        "nint": lambda s: s.add_noise(["nnum", "inc"], method="correlated2", noise=0.2),
        "bounded": lambda s: s.add_noise("inc", noise=0.2, bounds=(100, None)),
    },
    "RemoveColumns": {
        "some": lambda s: s.remove(["f32", "txt"]),
    },
    "NewIds": {
        "hid": lambda s: s.new_ids(),
        "key_refused": lambda s: s.new_ids("i64"),
        "i64": lambda s: s.new_ids("pid"),
        "nint": lambda s: s.new_ids("nid"),
        "txt": lambda s: s.new_ids("sid"),
    },
}
CASES = [(t, c) for t in sorted(STEPS) for c in sorted(STEPS[t])]


pytestmark = pytest.mark.usefixtures("sync_quiet")


def _data() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    i64 = rng.integers(1, 8, N)
    i64[:3] = [9, 10, 12]  # the values above 8 are all in the first file
    nint = pd.array(i64, dtype="Int64")
    nint[7] = pd.NA
    txt = pd.array(rng.choice(["a", "b", "c"], N), dtype="string")
    txt[1] = "z"
    # pandas 3's default text dtype (str, missing = NaN), as pandas reads text from Parquet
    stxt = pd.Series(rng.choice(["a", "b", "c"], N), dtype="str")
    stxt[[2, 9]] = ["z", np.nan]
    nid = pd.array(np.arange(N) // 3, dtype="Int64")
    nid[30] = pd.NA
    f32 = rng.random(N).astype("float32")
    f32[0] = 0.5
    return pd.DataFrame({
        "i64": i64, "f32": f32, "nint": nint,
        "flag": rng.random(N) > 0.4,
        "cat": pd.Categorical(rng.choice(["a", "b", "c"], N)),
        "txt": txt, "stxt": stxt,
        "ocat": pd.Categorical(rng.choice(["a", "b", "c"], N), categories=["a", "b", "c"],
                               ordered=True),
        "inc": rng.integers(100, 900, N),
        "nnum": pd.array(rng.integers(0, 60, N), dtype="Int64"),
        "fnum": (rng.random(N) * 50).astype("float32"),
        "hid": np.arange(N) // 2,
        # id columns without a role (new_ids): int64, Int64 with a missing id, string
        "pid": np.arange(N) % 17, "nid": nid,
        "sid": pd.array([f"p{i // 4}" for i in range(N)], dtype="string"),
    })


@pytest.fixture(scope="module", params=sorted(LAYOUTS))
def path(request, tmp_path_factory) -> str:
    return write_cut(_data(), LAYOUTS[request.param], tmp_path_factory.mktemp(request.param))


def test_every_registered_treatment_is_covered():
    from sdcsession.scale import DISTRIBUTED
    from sdcsession.scale.by_strata import LocalSuppression
    from sdcsession.scale.strata_microaggregation import Microaggregation

    names = {cls.__name__ for cls in DISTRIBUTED} - {LocalSuppression.__name__,
                                                      Microaggregation.__name__}
    assert names == set(STEPS)


#: the cases pandas refuses (Dask must refuse them too): the others are compared
REFUSED = {("GlobalRecode", "flag"), ("GlobalRecode", "txt"), ("NewIds", "key_refused"),
           ("RoundValues", "flag"), ("RoundValues", "txt"), ("TopBottomCode", "cat"),
           ("TopBottomCode", "flag"), ("TopBottomCode", "txt"),
           ("TopBottomCode", "stxt")}


def test_the_refused_cases_are_the_expected_ones():
    """The comparison below is not vacuous: pandas accepts every case but these."""
    df = _data()
    refused = set()
    for t, c in CASES:
        try:
            STEPS[t][c](sdc.SdcSession(df, **ROLES))
        except SdcError:
            refused.add((t, c))
    assert refused == REFUSED


def _check(step, base: pd.DataFrame, dask_session) -> None:
    try:
        p = step(sdc.SdcSession(base, **ROLES))
    except SdcError as e:  # pandas refuses: Dask refuses as well, with the same kind of error
        with pytest.raises(type(e)):
            step(dask_session())
        return
    d = step(dask_session())
    want = p.data.dtypes.to_dict()
    assert list(d.data.columns) == list(p.data.columns)
    assert d.data.dtypes.to_dict() == want
    parts = [part.compute() for part in d.data.to_delayed()]
    for part in parts:  # every partition, not only the concatenation
        assert part.dtypes.to_dict() == want
    got = pd.concat(parts)
    pd.testing.assert_frame_equal(got.reset_index(drop=True), p.data.reset_index(drop=True))


@pytest.mark.parametrize("treatment,case", CASES)
def test_meta_equals_partitions_and_pandas_dtypes(path, treatment, case):
    _check(STEPS[treatment][case], pd.read_parquet(path),
           lambda: sdc.SdcSession.from_parquet(path, **ROLES))


@pytest.mark.parametrize("treatment,case", CASES)
def test_an_empty_first_partition(treatment, case):
    """The first partition holds no record (a kernel run on it meets no value): the meta and
    the other partitions still have the whole file's dtypes."""
    df = _data()
    pieces = [df.iloc[:0], df.iloc[:20].reset_index(drop=True), df.iloc[20:].reset_index(drop=True)]
    ddf = dd.from_delayed([dask.delayed(p) for p in pieces], meta=df.iloc[:0], verify_meta=False)
    _check(STEPS[treatment][case], df, lambda: sdc.SdcSession(ddf, **ROLES))
