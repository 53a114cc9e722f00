"""Released categorical columns do not keep the categories that only treated-away records used
(Parquet dictionaries and pandas metadata, Stata/SPSS value labels), on pandas and on Dask."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.session.release.categories import vanished_categories


def _df() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 120
    occ = pd.Categorical(rng.choice(["clerk", "teacher"], n),
                         categories=["clerk", "teacher", "astronaut", "declared"])
    df = pd.DataFrame({"region": rng.choice(list("AB"), n), "sex": rng.choice(["m", "f"], n),
                       "occ": occ})
    df.loc[7, "occ"] = "astronaut"  # the only astronaut: suppressed by local suppression
    return df


def _session(data) -> sdc.SdcSession:
    return sdc.SdcSession(data, keys=["region", "sex", "occ"], seed=1).local_suppression(
        k=3, strata=["region"])


def test_suppressed_unique_category_leaves_the_released_dtype():
    s = _session(_df())
    assert pd.isna(s.data.loc[7, "occ"])
    assert "astronaut" in s.data["occ"].cat.categories  # the working state keeps the dtype
    cats = sorted(s.data_for_release()["occ"].cat.categories)
    assert cats == ["clerk", "declared", "teacher"]  # a domain category unused before stays
    assert sorted(s.data_for_release(shuffle=False)["occ"].cat.categories) == cats


def test_vanished_categories_counts_only_categories_used_before():
    o = pd.DataFrame({"x": pd.Categorical(["a", "b", "c"], categories=["a", "b", "c", "d"])})
    r = pd.DataFrame({"x": pd.Categorical(["a", None, "new"], categories=["a", "b", "c", "d",
                                                                          "new"])})
    assert vanished_categories(r, o) == {"x": ["b", "c"]}
    assert vanished_categories(o, o) == {}


@pytest.mark.parametrize("ext", ["parquet", "dta", "sav"])
def test_exported_files_do_not_name_the_suppressed_category(tmp_path, ext):
    if ext != "parquet":
        pytest.importorskip("pyreadstat")
    s = _session(_df())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = s.export(tmp_path / f"rel.{ext}", force=True)
    if ext == "parquet":
        back = pd.read_parquet(path)
        assert sorted(back["occ"].cat.categories) == ["clerk", "declared", "teacher"]
    else:
        import pyreadstat

        meta = (pyreadstat.read_dta if ext == "dta" else pyreadstat.read_sav)(str(path))[1]
        assert sorted(meta.variable_value_labels["occ"].values()) == ["clerk", "declared",
                                                                      "teacher"]
    assert b"astronaut" not in path.read_bytes()


@pytest.mark.parametrize("npartitions", [1, 4])
def test_dask_release_drops_the_same_categories(tmp_path, npartitions):
    dd = pytest.importorskip("dask.dataframe")
    df = _df()
    s = _session(dd.from_pandas(df, npartitions=npartitions))
    p = _session(df)
    got = s.data_for_release().compute()
    assert sorted(got["occ"].cat.categories) == ["clerk", "declared", "teacher"]
    assert got["occ"].astype(object).tolist() == \
        p.data_for_release()["occ"].astype(object).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = s.export(tmp_path / "rel", force=True)
    back = pd.read_parquet(out)
    assert sorted(back["occ"].cat.categories) == ["clerk", "declared", "teacher"]
