"""Projects of Dask sessions: saved with the path of their Parquet dataset, reopened on Dask from
it (lazily), refused when the dataset changed; apply_to gives the pandas path's findings and
risk figures on a Dask frame."""

from __future__ import annotations

import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError, RecipeError

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

KEYS = ["region", "sex", "age5"]


@pytest.fixture(autouse=True)
def sync_scheduler():
    with dask.config.set(scheduler="sync"):
        yield


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    return sdc.datasets.synthetic_survey(150, seed=5)


def _session(path):
    return sdc.SdcSession.from_parquet(path, keys=KEYS, numeric=["income"], pram=["water"],
                                       weight="w", seed=2)


def test_reopens_on_dask_from_the_parquet_path(survey, tmp_path):
    src = tmp_path / "census"
    dd.from_pandas(survey, npartitions=3).to_parquet(src, write_index=False)
    s = _session(src)
    b = s.branch("b")
    s.recode("region", {"R01": "R02"}).pram(["water"]).add_noise(["income"])
    b.global_recode("income", [-1, 10000, 1e9])
    with pytest.raises(ParameterError, match="include_data"):
        s.save_project(tmp_path / "p.sdcproj", include_data=True)
    path = s.save_project(tmp_path / "p.sdcproj")
    s2 = sdc.open_project(path)
    assert s2.state.distributed and not any(st.state.ready for st in s2.steps[1:])
    assert s2.name == "main" and s2.head.id == s.head.id and sorted(s2.scenarios) == ["b", "main"]
    pd.testing.assert_frame_equal(s2.data.compute(), s.data.compute())
    pd.testing.assert_frame_equal(s2.scenarios["b"].data.compute(), b.data.compute())
    assert [st.notes for st in s2.steps] == [st.notes for st in s.steps]
    # the dataset changed: refused, naming what differs
    changed = survey.copy()
    changed.loc[0, "income"] += 1
    dd.from_pandas(changed, npartitions=3).to_parquet(src, write_index=False, overwrite=True)
    with pytest.raises(RecipeError, match="changed since the project was saved"):
        sdc.open_project(path)


def test_apply_to_on_dask_equals_pandas(survey, tmp_path):
    src = tmp_path / "census"
    dd.from_pandas(survey, npartitions=2).to_parquet(src, write_index=False)
    new = survey.copy()
    new["water"] = new["water"].cat.add_categories(["tank"])
    new.loc[[0, 1], "water"] = "tank"
    new.loc[2, "income"] = -7.0
    steps = [("group_categories", {"column": "region", "groups": {"n": ["R01", "R02"]}}),
             ("pram", {"columns": ["water"]}),
             ("top_bottom_code", {"column": "income", "value": 40000, "replacement": 40000})]
    reports = []
    for s, data in ((_session(src), dd.from_pandas(new, npartitions=3)),
                    (sdc.SdcSession(pd.read_parquet(src), keys=KEYS, numeric=["income"],
                                    pram=["water"], weight="w", seed=2), new)):
        for name, kw in steps:
            getattr(s, name)(**kw)
        reports.append(s.apply_to(data)[1])
    dask_report, pandas_report = reports
    cols = ["step", "kind", "column", "values", "count"]
    found = pandas_report[pandas_report["kind"] != "measure"]
    assert found[cols].values.tolist() == \
        dask_report[dask_report["kind"] != "measure"][cols].values.tolist()
    assert sorted(found["kind"]) == ["new_category", "outside_range", "pram_matrix_missing"]
    risk = ["records", "global_risk", "expected_reidentifications", "k3_violations"]
    p = pandas_report.set_index("column").loc[risk, ["old", "new"]]
    d = dask_report.set_index("column").loc[risk, ["old", "new"]]
    pd.testing.assert_frame_equal(p.astype(float), d.astype(float))


def test_reopens_a_project_saved_with_dasks_string_dtype(survey, tmp_path, monkeypatch):
    """A project saved when Dask sessions held text read from Parquet as Dask's
    ``string[pyarrow]`` (now pandas's ``str``) reopens from the same dataset, in the recorded
    dtype, with the same data at every step; a project saved now reopens in ``str``."""
    import sdcsession.scale.parquet as pq

    src = tmp_path / "census"
    text = survey.astype({c: "str" for c in KEYS})
    with dask.config.set({"dataframe.convert-string": False}):
        dd.from_pandas(text, npartitions=3).to_parquet(src, write_index=False)
    now = pq.read_parquet(src)
    assert str(now._meta.dtypes["region"]) == "str"
    real = pq.read_parquet

    def as_before(*a, **kw):  # Dask's conversion of text columns, as earlier versions read them
        d = real(*a, **kw)
        return d.astype({c: pd.StringDtype("pyarrow") for c, t in d._meta.dtypes.items()
                         if str(t) == "str"})

    monkeypatch.setattr(pq, "read_parquet", as_before)
    s = _session(src)
    assert str(s.data.dtypes["region"]) == "string"
    s.recode("region", {"R01": "R02"}).local_suppression(k=3, strata=["region"])
    path = s.save_project(tmp_path / "old.sdcproj")
    monkeypatch.setattr(pq, "read_parquet", real)
    s2 = sdc.open_project(path)
    assert str(s2.data.dtypes["region"]) == "string"
    for a, b in zip(s.steps, s2.steps, strict=True):
        pd.testing.assert_frame_equal(b.state.data.compute(), a.state.data.compute())
    s3 = _session(src)
    s3.recode("region", {"R01": "R02"})
    s4 = sdc.open_project(s3.save_project(tmp_path / "new.sdcproj"))
    assert str(s4.data.dtypes["region"]) == "str"
    pd.testing.assert_frame_equal(s4.data.compute(), s3.data.compute())
