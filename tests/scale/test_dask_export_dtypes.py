"""A Dask export writes one schema even when a step changed a column's dtype in the partitions
and not in the frame's meta: microaggregation of an int column gives float means, local
suppression blanks int keys (float64 where it suppresses; the meta says int64 for both). Read back, the export equals the pandas export, for Parquet written by
pandas (one file, with its index) and by Dask (several files, without an index)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import SdcWarning

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")

KEYS = ["region", "sex", "band"]
ROLES = dict(keys=KEYS, numeric=["income"], household="hid", weight="w", seed=1)


def _data() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 240
    df = pd.DataFrame({"region": rng.integers(1, 4, n), "sex": rng.integers(1, 3, n),
                       "band": rng.integers(1, 6, n), "income": rng.integers(100, 900, n),
                       "hid": np.arange(n) // 2, "w": rng.integers(10, 40, n)})
    df.loc[:9, "band"] = 40 + np.arange(10)  # ten unique records, all in the first partition
    return df


def _steps(s: sdc.SdcSession) -> sdc.SdcSession:
    s.microaggregation(["income"], k=3, strata=["region"])  # means of int incomes: floats
    s.local_suppression(k=2, strata=["region"])
    return s


@pytest.mark.parametrize("layout", ["pandas-one-file", "dask-four-files"])
def test_export_after_suppression_in_some_partitions_equals_pandas(layout, tmp_path):
    df = _data()
    want = _steps(sdc.SdcSession(df, **ROLES)).data_for_release()
    assert want["band"].isna().any() and want["band"].dtype == np.float64
    src = tmp_path / "src.parquet"
    if layout == "pandas-one-file":
        df.to_parquet(src)
    else:
        dd.from_pandas(df, npartitions=4).to_parquet(src, write_index=False)
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        d = _steps(sdc.SdcSession.from_parquet(src, **ROLES))
        out = d.export(tmp_path / "release.parquet", force=True)
    got = pd.read_parquet(out).reset_index(drop=True)
    assert got["band"].dtype == np.float64 and got["income"].dtype == np.float64
    pd.testing.assert_frame_equal(got, want.reset_index(drop=True))


@pytest.mark.parametrize("layout", ["pandas-one-file", "dask-four-files"])
def test_string_columns_keep_the_dtype_pandas_reads(layout, tmp_path):
    """Text keys read from Parquet: the Dask session holds pandas's ``str`` (missing = NaN),
    not Dask's ``string[pyarrow]`` (missing = NA), so the release read back has the dtypes of
    the pandas release, not only its values."""
    df = _data()
    df["region"] = df["region"].map({1: "north", 2: "south", 3: "west"}).astype("str")
    df["sex"] = df["sex"].map({1: "m", 2: "f"}).astype("str")
    df["band"] = ("b" + df["band"].astype("str")).astype("str")
    src = tmp_path / "src.parquet"
    if layout == "pandas-one-file":
        df.to_parquet(src)
    else:
        with dask.config.set({"dataframe.convert-string": False}):
            dd.from_pandas(df, npartitions=4).to_parquet(src, write_index=False)
    base = pd.read_parquet(src)
    assert base["region"].dtype == "str" and base["region"].dtype.na_value is not pd.NA
    want = _steps(sdc.SdcSession(base, **ROLES)).data_for_release()
    assert want["band"].isna().any()  # suppressed text: NaN in pandas's str
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        d = sdc.SdcSession.from_parquet(src, **ROLES)
        assert d.data.dtypes["region"] == base["region"].dtype
        assert d.data.compute().dtypes["band"] == base["band"].dtype
        _steps(d)
        out = d.export(tmp_path / "release.parquet", force=True)
    got = pd.read_parquet(out).reset_index(drop=True)
    assert got["band"].dtype == want["band"].dtype
    pd.testing.assert_frame_equal(got, want.reset_index(drop=True))
