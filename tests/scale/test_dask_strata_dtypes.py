"""The meta of a step by strata on Dask is the dtype the in-memory treatment returns: the
dtypes of ``d.data`` (the meta), of the computed partitions and of the pandas session agree
after microaggregation by strata (means: float64, also for int, float32 and nullable Int64
columns) and local suppression by strata (a column with a blank anywhere in the file: int64
becomes float64 and bool becomes object in every partition, also where the stratum's records
kept their values; columns without a blank keep their dtype), on Parquet datasets of uneven
files whose index restarts at 0 in every file, cut in several ways."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc

from ._files import write_cut

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

N = 60
#: file boundaries: four uneven files (one of a single record), two files, one file
LAYOUTS = {"four-uneven": [0, 7, 8, 37, N], "two": [0, 30, N], "one": [0, N]}
ROLES = {"keys": ["sex", "band", "flag", "grp"], "numeric": ["income", "w", "f32", "nint"],
         "household": "hid", "seed": 7}

#: the steps by strata (and noise, whose Dask meta is float64 by construction)
STEPS = {
    "microaggregation": lambda s: s.microaggregation(["income", "w", "f32", "nint"], k=3,
                                                     strata=["region"]),
    "suppression": lambda s: s.local_suppression(k=2, strata=["region"]),
    "suppression_k_per_stratum": lambda s: s.local_suppression(k={1: 2, 2: 3, 3: 2},
                                                               strata=["region"]),
    "suppression_none_needed": lambda s: s.local_suppression(k=2, strata=["region"],
                                                             subsets=[["sex"]]),
    "microaggregation_then_suppression": lambda s: s.microaggregation(
        ["income"], k=3, strata=["region"]).local_suppression(k=3, strata=["region"]),
    "noise": lambda s: s.add_noise(["income", "nint"], noise=0.2),
}


pytestmark = pytest.mark.usefixtures("sync_quiet")


def _data() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    df = pd.DataFrame({
        "region": np.repeat([1, 2, 3], N // 3),
        "sex": rng.integers(1, 3, N), "band": rng.integers(1, 4, N),
        "flag": rng.random(N) > 0.5,
        "grp": pd.array(rng.integers(1, 3, N), dtype="Int64"),
        "income": rng.integers(100, 900, N), "w": rng.integers(10, 40, N),
        "f32": rng.random(N).astype("float32"),
        "nint": pd.array(rng.integers(0, 50, N), dtype="Int64"),
        "hid": np.arange(N) // 2,
    })
    df.loc[:4, "band"] = 40 + np.arange(5)  # unique records, all in the first file
    df.loc[2, "grp"] = pd.NA
    return df


@pytest.fixture(scope="module", params=sorted(LAYOUTS))
def path(request, tmp_path_factory) -> str:
    return write_cut(_data(), LAYOUTS[request.param], tmp_path_factory.mktemp(request.param))


@pytest.mark.parametrize("step", sorted(STEPS))
def test_meta_equals_partitions_and_pandas_dtypes(path, step):
    p = STEPS[step](sdc.SdcSession(pd.read_parquet(path), **ROLES))
    d = STEPS[step](sdc.SdcSession.from_parquet(path, **ROLES))
    got = d.data.compute()
    cols = list(p.data.columns)
    assert list(d.data.columns) == cols
    want = p.data.dtypes
    assert d.data.dtypes.to_dict() == want.to_dict(), (d.data.dtypes, want)
    assert got.dtypes.to_dict() == want.to_dict(), (got.dtypes, want)
    for part in d.data.to_delayed():  # every partition, not only the concatenation
        assert part.compute().dtypes.to_dict() == want.to_dict()
    pd.testing.assert_frame_equal(got.reset_index(drop=True), p.data.reset_index(drop=True))


def test_the_cases_change_dtypes_as_pandas_does(path):
    """The steps above cover both rules: blanks turn int64 into float64 and bool into object;
    no blank keeps int64; microaggregation gives float64 for int, float32 and Int64."""
    base = pd.read_parquet(path)
    assert base["band"].dtype == np.int64 and base["flag"].dtype == bool
    s = STEPS["suppression"](sdc.SdcSession(base, **ROLES)).data
    assert s["band"].dtype == np.float64 and s["band"].isna().any()
    assert s["grp"].dtype == "Int64"
    none = STEPS["suppression_none_needed"](sdc.SdcSession(base, **ROLES)).data
    assert none["band"].dtype == np.int64 and none["flag"].dtype == bool
    ma = STEPS["microaggregation"](sdc.SdcSession(base, **ROLES)).data
    assert (ma[["income", "w", "f32", "nint"]].dtypes == np.float64).all()


def test_bool_key_blanked_is_object_in_every_partition(path):
    """A bool key blanked in one stratum only: object in the meta and in every partition."""
    roles = {**ROLES, "keys": ["flag", "band"]}
    p = sdc.SdcSession(pd.read_parquet(path), **roles).local_suppression(
        k=2, strata=["region"], importance=["band", "flag"])
    d = sdc.SdcSession.from_parquet(path, **roles).local_suppression(
        k=2, strata=["region"], importance=["band", "flag"])
    obj = np.dtype(object)
    assert p.data["flag"].isna().any()  # the data give blanks in the bool key
    assert p.data["flag"].dtype == obj and d.data.dtypes["flag"] == obj
    parts = [part.compute() for part in d.data.to_delayed()]
    assert all(part["flag"].dtype == obj for part in parts)
    # the values stay bools and blanks (not the texts "True"/"False")
    got = pd.concat(parts)["flag"].reset_index(drop=True)
    assert got.map(type).isin([bool, np.bool_, float]).all()
    pd.testing.assert_series_equal(got, p.data["flag"].reset_index(drop=True))
