"""Tests of sdcsession.io: every format round-trips categorical keys, missing values and labels."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from sdcsession.errors import SdcError, SdcWarning
from sdcsession.io import (
    DataFileError,
    MissingDependencyError,
    format_of,
    read_data,
    sniff_delimiter,
    write_data,
)

pyreadstat = pytest.importorskip("pyreadstat")
pytest.importorskip("pyarrow")

KEYS = ["region", "sex", "educ"]


@pytest.fixture
def frame() -> pd.DataFrame:
    df = pd.DataFrame(
        {
            "region": pd.Categorical(
                ["north", "south", None, "east", "north", "south"],
                categories=["north", "south", "east", "west"],  # "west" unused
            ),
            "sex": pd.Categorical(["m", "f", "f", None, "m", "f"], categories=["m", "f"]),
            "educ": pd.Categorical(
                ["low", "high", "mid", "mid", None, "low"],
                categories=["low", "mid", "high"],
                ordered=True,
            ),
            "age": [34, 51, 7, 88, 23, 40],
            "income": [1234.5, np.nan, 0.0, 987654.125, 1e-3, 2.0 / 3.0],
            "town": pd.array(["Åby", None, "Borg", "Cé", "Dal", "Ely"], dtype="str"),
        }
    )
    df.attrs["column_labels"] = {"region": "Region of residence", "income": "Net income"}
    return df


def _as_plain(df: pd.DataFrame) -> pd.DataFrame:
    """Categoricals to object values (NaN kept) to compare formats that lose category metadata."""
    return df.assign(
        **{
            c: df[c].astype(object).where(df[c].notna(), np.nan)
            for c in df.columns
            if isinstance(df[c].dtype, pd.CategoricalDtype) or df[c].dtype == "str"
        }
    )


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("ext", [".csv", ".tsv", ".csv.gz", ".txt"])
def test_csv_round_trip(tmp_path, frame, ext):
    path = write_data(frame, tmp_path / f"survey{ext}")
    back = read_data(path, categorical=KEYS)
    assert list(back.columns) == list(frame.columns)
    for k in KEYS:
        assert isinstance(back[k].dtype, pd.CategoricalDtype)
        assert back[k].isna().tolist() == frame[k].isna().tolist()
    pd.testing.assert_frame_equal(_as_plain(back), _as_plain(frame), check_dtype=False)
    assert back["income"].tolist()[3] == 987654.125 and back["income"][5] == 2.0 / 3.0


def test_parquet_round_trip_keeps_dtypes(tmp_path, frame):
    path = write_data(frame, tmp_path / "survey.parquet")
    back = read_data(path)
    pd.testing.assert_frame_equal(back, frame)
    assert list(back["region"].cat.categories) == ["north", "south", "east", "west"]
    assert back["educ"].cat.ordered
    assert read_data(path, columns=["income", "sex"]).columns.tolist() == ["income", "sex"]


@pytest.mark.parametrize("ext", [".dta", ".sav"])
def test_labelled_round_trip(tmp_path, frame, ext):
    path = write_data(frame, tmp_path / f"survey{ext}")
    # on disk: codes 1..k with value labels, missing as system missing
    raw, meta = (pyreadstat.read_dta if ext == ".dta" else pyreadstat.read_sav)(str(path))
    np.testing.assert_array_equal(raw["region"].to_numpy(), [1.0, 2.0, np.nan, 3.0, 1.0, 2.0])
    assert {int(k): v for k, v in meta.variable_value_labels["region"].items()} == {
        1: "north",
        2: "south",
        3: "east",
        4: "west",
    }
    back = read_data(path)
    for k in KEYS:
        assert isinstance(back[k].dtype, pd.CategoricalDtype), k
        # categories (also unused ones) in code order
        assert list(back[k].cat.categories) == list(frame[k].cat.categories), k
        assert back[k].isna().equals(frame[k].isna()), k
        assert back[k].dropna().tolist() == frame[k].dropna().tolist(), k
    pd.testing.assert_frame_equal(
        _as_plain(back), _as_plain(frame), check_dtype=False, check_exact=True
    )
    assert back.attrs["column_labels"] == frame.attrs["column_labels"]
    # columns= reads a subset in the requested order
    sub = read_data(path, columns=["sex", "age"])
    assert sub.columns.tolist() == ["sex", "age"] and sub["sex"].tolist() == frame["sex"].tolist()


def test_xport_round_trip(tmp_path, frame):
    df = frame.rename(columns={"income": "inc"})  # xport v8 fine; keep names short anyway
    path = write_data(df, tmp_path / "survey.xpt")
    back = read_data(path, categorical=KEYS)
    for k in KEYS:
        assert back[k].isna().tolist() == df[k].isna().tolist()
        assert back[k].dropna().astype(str).tolist() == df[k].dropna().astype(str).tolist()
    np.testing.assert_array_equal(back["inc"].to_numpy(), df["inc"].to_numpy())


def test_foreign_labelled_file(tmp_path):
    """A Stata file written by someone else: gaps in codes, unused and missing labels."""
    raw = pd.DataFrame({"q": [3.0, 1.0, 7.0, np.nan, 3.0], "x": [1.0, 2.0, 3.0, 4.0, 5.0]})
    path = tmp_path / "foreign.dta"
    pyreadstat.write_dta(
        raw,
        str(path),
        variable_value_labels={"q": {1: "yes", 3: "no", 5: "unsure"}},
        column_labels=["Question", None],
    )
    back = read_data(path)
    assert list(back["q"].cat.categories) == ["yes", "no", "unsure", "7"]
    assert back["q"].tolist()[:3] == ["no", "yes", "7"] and pd.isna(back["q"][3])
    assert back["x"].tolist() == raw["x"].tolist()
    assert back.attrs["column_labels"] == {"q": "Question"}


def test_synthetic_survey_round_trip(tmp_path):
    from sdcsession.datasets import synthetic_survey

    df = synthetic_survey(60, seed=2)
    for ext in (".parquet", ".dta", ".sav"):
        back = read_data(write_data(df, tmp_path / f"s{ext}"))
        for k in ["region", "urbrur", "age5", "marstat", "educ", "occup"]:
            assert back[k].astype(object).equals(df[k].astype(object)), (ext, k)
        np.testing.assert_array_equal(back["income"].to_numpy(), df["income"].to_numpy())


# --------------------------------------------------------------------------- CSV delimiters


def test_sniff_delimiter():
    assert sniff_delimiter("a;b;c\n1;2,5;3\n4;5;6\n") == ";"
    assert sniff_delimiter("a,b,c\n1,2,3\n") == ","
    assert sniff_delimiter("a\tb\n1\t2\n") == "\t"
    assert sniff_delimiter('a,b\n"x;y",2\n') == ","
    assert sniff_delimiter("a|b|c\n1|2|3\n4|5|6") == "|"
    assert sniff_delimiter("only\n1\n2\n") is None
    assert sniff_delimiter("") is None


def test_csv_sniffs_semicolon(tmp_path):
    p = tmp_path / "semi.csv"
    p.write_text("region;income\nR01;12,5\nR02;\n", encoding="utf-8")
    df = read_data(p, columns=["region", "income"])
    assert df.columns.tolist() == ["region", "income"]
    assert df["region"].tolist() == ["R01", "R02"]
    assert df["income"].tolist()[0] == "12,5"  # decimal comma left to the user (decimal=",")
    assert read_data(p, decimal=",")["income"].tolist()[0] == 12.5


def test_wrong_delimiter_is_explained(tmp_path):
    p = tmp_path / "semi.csv"
    p.write_text("region;sex;age\nR01;m;33\nR02;f;40\n", encoding="utf-8")
    with pytest.raises(DataFileError, match=r"single column.*sep=';'") as e:
        read_data(p, sep=",", columns=["region", "sex"])
    assert "semi.csv" in str(e.value)
    with pytest.warns(SdcWarning, match="single column"):
        one = read_data(p, sep=",")
    assert one.shape == (2, 1)


def test_unknown_column_suggests(tmp_path, frame):
    path = write_data(frame, tmp_path / "s.csv")
    with pytest.raises(DataFileError, match=r"'regoin' \(did you mean 'region'\?\)"):
        read_data(path, columns=["regoin"])
    with pytest.raises(DataFileError, match="not found"):
        read_data(write_data(frame, tmp_path / "s.dta"), columns=["nope"])


# --------------------------------------------------------------------------- errors


def test_missing_file(tmp_path):
    for name in ["nope.csv", "nope.parquet", "nope.dta", "nope.sav", "nope.sas7bdat"]:
        with pytest.raises(DataFileError, match="no such file"):
            read_data(tmp_path / name)


def test_unknown_extension_and_format(tmp_path):
    p = tmp_path / "data.xlsx"
    p.write_text("x")
    with pytest.raises(DataFileError, match="extension '.xlsx'"):
        read_data(p)
    with pytest.raises(DataFileError, match="format='excel'"):
        read_data(p, format="excel")
    assert format_of("a/b.SAV") == "spss" and format_of("b.csv.bz2") == "csv"


def test_corrupt_file_is_a_data_file_error(tmp_path):
    for name in ["bad.dta", "bad.sav", "bad.parquet", "bad.sas7bdat", "bad.xpt"]:
        p = tmp_path / name
        p.write_bytes(b"this is not a data file\n")
        with pytest.raises(DataFileError, match=name):
            read_data(p)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DataFileError, match="empty"):
        read_data(empty)


def test_unwritable_paths(tmp_path, frame):
    with pytest.raises(DataFileError, match="does not exist"):
        write_data(frame, tmp_path / "no" / "such" / "dir" / "out.csv")
    (tmp_path / "adir.csv").mkdir()
    with pytest.raises(DataFileError, match="is a directory"):
        write_data(frame, tmp_path / "adir.csv")
    with pytest.raises(DataFileError, match="read only"):
        write_data(frame, tmp_path / "out.sas7bdat")
    existing = write_data(frame, tmp_path / "out.csv")
    with pytest.raises(DataFileError, match="exists"):
        write_data(frame, existing, overwrite=False)
    with pytest.raises(DataFileError, match=r"cannot write as stata"):
        write_data(frame.rename(columns={"age": "bad name!"}), tmp_path / "x.dta")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir.csv", "out.csv"]  # no debris


def test_refuses_to_overwrite_protected_input(tmp_path, frame):
    src = write_data(frame, tmp_path / "in.csv")
    before = src.read_bytes()
    other = tmp_path / "sub" / ".." / "in.csv"
    (tmp_path / "sub").mkdir()
    with pytest.raises(DataFileError, match="refusing to overwrite the input file"):
        write_data(frame.head(1), other, protect=src)
    with pytest.raises(DataFileError, match="refusing"):
        write_data(frame.head(1), str(src), protect=[tmp_path / "x.csv", str(src)])
    assert src.read_bytes() == before
    out = write_data(frame.head(2), tmp_path / "out.csv", protect=src)
    assert len(read_data(out)) == 2


def test_sas_read_falls_back_to_pandas(tmp_path, frame, monkeypatch):
    path = write_data(frame, tmp_path / "v5.xpt", file_format_version=5)
    monkeypatch.setitem(sys.modules, "pyreadstat", None)
    back = read_data(path, categorical=["sex"])
    assert back["sex"].isna().tolist() == frame["sex"].isna().tolist()
    assert back["sex"].dropna().tolist() == frame["sex"].dropna().tolist()
    np.testing.assert_array_equal(back["income"].to_numpy(), frame["income"].to_numpy())
    assert read_data(path, columns=["age"]).columns.tolist() == ["age"]


def test_missing_optional_dependency(tmp_path, frame, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyreadstat", None)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    for ext in [".dta", ".sav", ".xpt", ".parquet"]:
        with pytest.raises(MissingDependencyError, match=r"pip install sdcsession\[io\]"):
            write_data(frame, tmp_path / f"x{ext}")
    assert not list(tmp_path.iterdir())
    (tmp_path / "x.sav").write_bytes(b"xx")
    with pytest.raises(MissingDependencyError, match="pyreadstat") as e:
        read_data(tmp_path / "x.sav")
    assert isinstance(e.value, SdcError) and isinstance(e.value, ImportError)


def test_errors_are_sdc_errors():
    assert issubclass(DataFileError, SdcError) and issubclass(DataFileError, ValueError)
    assert issubclass(MissingDependencyError, SdcError)
    assert issubclass(MissingDependencyError, ImportError)


def _stata_with_extended_missing(path) -> None:
    raw = pd.DataFrame({
        "income": [1200.0, "a", np.nan, "b", 5000.0, 3100.0],  # .a refused, .b don't know
        "educ": [1.0, 2.0, "z", 1.0, np.nan, 2.0],               # .z not asked
        "region": ["n", "s", "n", "s", "n", "s"],
    }, dtype=object)
    raw["region"] = raw["region"].astype(str)
    pyreadstat.write_dta(raw, str(path), missing_user_values={"income": ["a", "b"], "educ": ["z"]},
                         variable_value_labels={"educ": {1: "low", 2: "high"}})


def test_stata_extended_missing_values_are_read_as_missing_and_remembered(tmp_path):
    path = tmp_path / "ext.dta"
    _stata_with_extended_missing(path)
    df = read_data(path)
    assert df["income"].dtype == np.float64
    assert df["income"].isna().tolist() == [False, True, True, True, False, False]
    assert df["educ"].astype(object).where(df["educ"].notna(), None).tolist() == [
        "low", "high", None, "low", None, "high"]
    assert df.attrs["extended_missing"] == {"income": {"a": [1], "b": [3]}, "educ": {"z": [2]}}


def test_stata_export_keeps_extended_missing_distinct_from_suppressions(tmp_path):
    import sdcsession as sdc

    path = tmp_path / "ext.dta"
    _stata_with_extended_missing(path)
    df = read_data(path)
    s = sdc.SdcSession(df, keys=["region", "educ"], numeric=["income"], seed=1)
    s.recode("income", {3100.0: np.nan})  # a suppression of record 5's income
    out = s.export(tmp_path / "release.dta", force=True, shuffle=False)
    back, meta = pyreadstat.read_dta(str(out), user_missing=True)
    assert back["income"].tolist()[1:4:2] == ["a", "b"]          # .a and .b written back
    assert pd.isna(back["income"].iloc[2]) and pd.isna(back["income"].iloc[5])  # system missing
    assert back["educ"].iloc[2] == "z" and pd.isna(back["educ"].iloc[4])
    assert meta.missing_user_values == {"income": ["a", "b"], "educ": ["z"]}
    # in random order the letters stay with their records
    shuffled = s.export(tmp_path / "shuffled.dta", force=True)
    back2, _ = pyreadstat.read_dta(str(shuffled), user_missing=True)
    mine = s.data_for_release()
    assert back2["educ"].where(back2["educ"] != "z").isna().tolist() == mine["educ"].isna().tolist()
    assert sorted(v for v in back2["income"] if isinstance(v, str)) == ["a", "b"]
