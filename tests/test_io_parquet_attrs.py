"""A Parquet file written by `write_data` stores no notes of ``df.attrs`` but the variable
labels: the source file's value labels (which name categories no record holds any more), the
source path and the per-record missing codes stay out of the file's metadata."""

from __future__ import annotations

import pandas as pd
import pyarrow.parquet as pq
import pytest

from sdcsession.io import read_data, write_data


def test_parquet_metadata_keeps_only_the_variable_labels(tmp_path):
    pytest.importorskip("pyarrow")
    df = pd.DataFrame({"occ": pd.Categorical(["clerk", "teacher"])})
    df.attrs = {"value_labels": {"occ": {1: "clerk", 2: "teacher", 3: "astronaut"}},
                "source": "/secret/original.dta", "untouched": [],
                "extended_missing": {"occ": {"a": [17]}},
                "column_labels": {"occ": "Occupation"}}
    path = write_data(df, tmp_path / "out.parquet")
    raw = path.read_bytes()
    assert b"astronaut" not in raw and b"/secret/" not in raw
    meta = pq.read_schema(path).metadata
    assert b"value_labels" not in meta.get(b"PANDAS_ATTRS", b"")
    back = read_data(path)
    assert back.attrs["column_labels"] == {"occ": "Occupation"}
    assert "value_labels" not in back.attrs and "extended_missing" not in back.attrs
    assert df.attrs["source"] == "/secret/original.dta"  # the caller's frame is unchanged
