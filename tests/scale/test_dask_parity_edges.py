"""Pandas and Dask give one answer on awkward data and partitionings: partitions of one record,
empty partitions (an empty Parquet file among others), a column missing in a whole partition,
object columns left by a step, categorical keys read from files of which one is empty; and
what Dask does not offer is refused by name (an `SdcError`, never a raw traceback)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import DataFileError, MeasureError, TreatmentError

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

N = 24


@pytest.fixture(autouse=True)
def _sync_quiet():
    # frames built here keep pandas' dtypes (object columns not converted to Dask's strings)
    with dask.config.set({"scheduler": "sync", "dataframe.convert-string": False}), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _data() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    sex = rng.choice(["m", "f"], N).astype(object)
    sex[[1, 2, 9]] = None  # records 1 and 2: partitions of missing values only (cuts below)
    return pd.DataFrame({
        "sex": pd.array(sex, dtype="str"),
        "region": pd.Categorical(rng.choice(["a", "b", "c"], N // 4)[np.arange(N) // 4]),
        "flag": rng.choice([True, False], N),
        "inc": rng.normal(100, 20, N).round(2),
        "hid": np.arange(N) // 2,
    }, index=rng.permutation(N) * 10)  # an unsorted index


#: partitionings (cuts of the records): one partition, partitions of one record, empty
#: partitions at the start, the middle and the end (with records of one), uneven ones
CUTS = [[0, N], [0, 1, 2, 3, 4, 5, 6, N], [0, 0, 1, 2, 3, 3, 11, N, N], [0, 5, 6, 17, N]]
IDS = ["one", "single-records", "empty-partitions", "uneven"]
ROLES = {"keys": ["sex", "region", "flag"], "numeric": ["inc"], "household": "hid", "seed": 11}


def _split(df: pd.DataFrame, cuts: list[int]):
    """A Dask frame whose partitions are ``df.iloc[a:b]`` for the consecutive ``cuts``."""
    pieces = [dask.delayed(df.iloc[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
    return dd.from_delayed(pieces, meta=df.iloc[:0], verify_meta=False)


def _both(cuts: list[int]) -> tuple[sdc.SdcSession, sdc.SdcSession]:
    df = _data()
    return sdc.SdcSession(_split(df, cuts), **ROLES), sdc.SdcSession(df, **ROLES)


@pytest.mark.parametrize("cuts", CUTS, ids=IDS)
def test_pram_with_a_partition_of_missing_values_only_equals_pandas(cuts):
    """A partition where the PRAMed column is missing everywhere keeps its records (the Dask
    path once failed there with an IndexError); data, index, dtypes and notes equal pandas."""
    s, p = _both(cuts)
    s.pram(["sex"], pd=0.6, alpha=0.5)
    p.pram(["sex"], pd=0.6, alpha=0.5)
    pd.testing.assert_frame_equal(s.data.compute(), p.data)
    assert s.history[-1].notes == p.history[-1].notes


def test_pram_of_an_all_missing_column_is_refused_with_the_pandas_message():
    df = _data().assign(sex=pd.array([None] * N, dtype="str"))
    errors = []
    for data in (df, _split(df, CUTS[2])):
        with pytest.raises(TreatmentError) as e:
            sdc.SdcSession(data, **ROLES).pram(["sex"])
        errors.append(str(e.value))
    assert errors[0] == errors[1] == "pram: column 'sex' has only missing values"


@pytest.mark.parametrize("cuts", CUTS, ids=IDS)
def test_parquet_of_object_columns_equals_pandas(cuts, tmp_path):
    """Object columns (a bool key blanked, numbers with missing values, text, all missing):
    the meta holds no value of them, so Dask's writer once failed in pyarrow on the meta's
    placeholder; their type is now read from the values of every partition, and the dataset
    reads back as the pandas file."""
    from sdcsession.scale.parquet import write_parquet

    df = pd.DataFrame({
        "flag": pd.Series([True, None, False, None] * 6, dtype=object),
        "num": pd.Series([None, 1, 2.5, 3] * 6, dtype=object),
        "text": pd.Series(["x", None, "y", "z"] * 6, dtype=object),
        "none": pd.Series([None] * N, dtype=object)})
    df.to_parquet(tmp_path / "pandas.parquet", index=False)
    got = pd.read_parquet(write_parquet(_split(df, cuts), tmp_path / "dask", progress=False))
    pd.testing.assert_frame_equal(got, pd.read_parquet(tmp_path / "pandas.parquet"))


def test_object_columns_of_mixed_types_are_refused_as_on_pandas(tmp_path):
    """Text in one partition, booleans in another: no Parquet type, a `DataFileError` naming
    the column on Dask as the pandas path's writer gives one (not pyarrow's own error)."""
    from sdcsession.io import write_data
    from sdcsession.scale.parquet import write_parquet

    p = sdc.SdcSession(_data(), **ROLES)
    p.recode("flag", {True: "yes"})
    with pytest.raises(DataFileError, match="cannot write as parquet"):
        write_data(p.data, tmp_path / "pandas.parquet")
    with pytest.raises(DataFileError, match="cannot write as parquet.*'flag'"):
        write_parquet(_split(p.data, CUTS[2]), tmp_path / "dask", progress=False)


def test_export_of_a_blanked_bool_key_equals_pandas(tmp_path):
    """A bool key mapped to a blank is object in every partition: the Dask export reads back
    as the pandas export, values, dtypes, record order and index."""
    s, p = _both(CUTS[2])
    for x in (s, p):
        x.recode("flag", {True: None})
    assert p.data["flag"].dtype == object and p.data["flag"].isna().any()
    got = pd.read_parquet(s.export(tmp_path / "dask", force=True))
    want = pd.read_parquet(p.export(tmp_path / "pandas.parquet", force=True))
    pd.testing.assert_frame_equal(got, want)


def test_categorical_keys_read_with_an_empty_file_equal_pandas(tmp_path):
    """An empty Parquet file has no categories of its own: the Dask session takes the other
    files' categories (as pandas reads the dataset) instead of refusing them as different."""
    df = _data().reset_index(drop=True)
    for i, (a, b) in enumerate([(0, 0), (0, 7), (7, 7), (7, N)]):
        df.iloc[a:b].to_parquet(tmp_path / f"part{i}.parquet")
    s = sdc.SdcSession.from_parquet(tmp_path, **ROLES)
    p = sdc.SdcSession(pd.read_parquet(tmp_path), **ROLES)
    pd.testing.assert_frame_equal(s.data.compute().reset_index(drop=True), p.data)
    assert s.risk.k_violations(3) == p.risk.k_violations(3)
    s.recode("region", {"c": "a"})
    p.recode("region", {"c": "a"})
    pd.testing.assert_frame_equal(s.data.compute().reset_index(drop=True), p.data)


def test_what_the_dask_views_do_not_offer_is_refused_by_name():
    s, p = _both(CUTS[3])
    assert isinstance(p.utility.contingency_loss, pd.DataFrame)  # offered in memory
    for name in ("eigen", "contingency_loss", "lambda_", "score", "to_frame"):
        with pytest.raises(MeasureError, match=f"utility.{name} is not distributed"):
            getattr(s.utility, name)
    with pytest.raises(AttributeError):
        s.utility.no_such_measure  # noqa: B018
    with pytest.raises(MeasureError, match="report"):
        s.report()
    for plot in (lambda x: x.plot.distributions("inc"), lambda x: x.plot.mosaic(["sex"])):
        with pytest.raises(MeasureError, match="in-memory sessions"):
            plot(s)
    with pytest.raises(TreatmentError, match="optimize: the search runs on in-memory"):
        s.optimize()
    assert s.head.depth == 0


def test_the_workbench_refuses_a_dask_session_by_name():
    pytest.importorskip("ipywidgets")
    from sdcsession.errors import ParameterError

    s, _ = _both(CUTS[3])
    with pytest.raises(ParameterError, match="source: the workbench works on in-memory data"):
        s.workbench()


@pytest.mark.parametrize("cuts", CUTS, ids=IDS)
def test_data_for_release_has_the_pandas_index(cuts):
    """The released records in the release order with a fresh index 0..n-1 over the whole
    frame, as pandas gives (each partition once restarted at 0: duplicated labels)."""
    s, p = _both(cuts)
    got = s.data_for_release().compute()
    pd.testing.assert_frame_equal(got, p.data_for_release())
    assert got.index.tolist() == list(range(N))
    pd.testing.assert_frame_equal(s.data_for_release(shuffle=False).compute(),
                                  p.data_for_release(shuffle=False))


def test_stratum_memory_check_reads_a_partition_with_records(monkeypatch):
    """The size of a record is read from the first partition that has records: an empty first
    partition (an empty file) once gave the size of an empty frame (about 140 bytes) for
    records of 2,000 characters and let a stratum through that does not fit."""
    from sdcsession.scale import by_strata

    df = _data().assign(sex=lambda d: (d["sex"] + "x" * 2000).astype("str"))
    s = sdc.SdcSession(_split(df, CUTS[2]), **ROLES)
    # the largest stratum: 12 records x > 2,000 bytes x 6 > 144,000 bytes; 12 x 140 x 6 < 11,000
    monkeypatch.setattr(by_strata, "worker_memory_limit", lambda: 20_000.0)
    with pytest.raises(TreatmentError, match="more than a worker's memory limit"):
        s.local_suppression(k=2, strata=["region"])
    assert s.head.depth == 0
