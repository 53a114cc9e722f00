"""Reading a directory of Parquet files (a dataset written by Dask, Spark or the Dask export)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pyarrow")

from sdcsession.errors import DataFileError  # noqa: E402
from sdcsession.io import read_data, write_data  # noqa: E402


def frame(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    return pd.DataFrame({"region": rng.choice(["a", "b", "c"], n), "age": rng.integers(0, 90, n),
                         "income": rng.normal(10, 2, n).round(2)})


def write_parts(df: pd.DataFrame, folder, parts: int, name: str = "part.{}.parquet") -> None:
    folder.mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(df)), parts)):
        df.iloc[chunk].to_parquet(folder / name.format(i))  # each file keeps its own index


def test_files_are_read_in_natural_order(tmp_path):
    df = frame()
    write_parts(df, tmp_path / "ds", 12)  # part.10 and part.11 sort after part.9
    got = read_data(tmp_path / "ds")
    pd.testing.assert_frame_equal(got, df.reset_index(drop=True))
    assert got.attrs["source"] == str((tmp_path / "ds").resolve())


def test_dask_written_dataset_equals_the_frame(tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    df = frame(200)
    with dask.config.set(scheduler="synchronous"):
        dd.from_pandas(df, npartitions=11).to_parquet(tmp_path / "ds")
    got = read_data(tmp_path / "ds", columns=["income", "region"])
    pd.testing.assert_frame_equal(got, df[["income", "region"]].reset_index(drop=True),
                                  check_dtype=False)


def test_refusals(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataFileError, match="without Parquet files"):
        read_data(tmp_path / "empty")
    hive = tmp_path / "hive"
    (hive / "region=a").mkdir(parents=True)
    frame().to_parquet(hive / "region=a" / "p.parquet")
    with pytest.raises(DataFileError, match="Hive-partitioned"):
        read_data(hive)
    write_parts(frame(), tmp_path / "ds", 3)
    with pytest.raises(DataFileError, match="not found|unknown|no_such"):
        read_data(tmp_path / "ds", columns=["no_such"])
    with pytest.raises(DataFileError, match="max_decompressed"):
        read_data(tmp_path / "ds", max_decompressed=100)
    with pytest.raises(DataFileError, match="is a directory"):
        read_data(tmp_path / "ds", format="csv")


def test_nothing_is_written_inside_the_input_dataset(tmp_path):
    write_parts(frame(), tmp_path / "ds", 3)
    df = read_data(tmp_path / "ds")
    with pytest.raises(DataFileError, match="inside the input dataset"):
        write_data(df, tmp_path / "ds" / "out.csv")
    assert sorted(p.name for p in (tmp_path / "ds").iterdir()) == [
        "part.0.parquet", "part.1.parquet", "part.2.parquet"]
    write_data(df, tmp_path / "out.csv")
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "out.csv"), df, check_dtype=False)


def test_cli_reads_a_dataset_directory(tmp_path, capsys):
    from sdcsession.cli import main

    df = frame()
    write_parts(df, tmp_path / "ds", 4)
    df.to_csv(tmp_path / "one.csv", index=False)
    assert main(["risk", str(tmp_path / "ds"), "--keys", "region,age", "--json"]) == 0
    a = capsys.readouterr().out
    assert main(["risk", str(tmp_path / "one.csv"), "--keys", "region,age", "--json"]) == 0
    assert capsys.readouterr().out == a
