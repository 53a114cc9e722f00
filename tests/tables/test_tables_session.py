"""Tables from a session: record keys as a step (undo, branches, recipes, never released),
``s.tabulate`` and its log, and the consistency of cells across tables and branches."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError, RoleError, TreatmentError


@pytest.fixture()
def survey() -> pd.DataFrame:
    return sdc.datasets.synthetic_survey(1500, seed=3)


def _session(df: pd.DataFrame) -> sdc.SdcSession:
    return sdc.SdcSession(df, keys=["region", "sex", "age5"], weight="w", household="hid",
                          seed=11)


def test_tables_is_a_lazy_subpackage() -> None:
    assert sdc.tables.build_ptable(D=2, V=1).max_value == 2


def test_record_keys_are_an_identifier_step(survey) -> None:
    s = _session(survey).add_record_keys()
    assert s.roles.identifiers == ("record_key",)
    k = s.data["record_key"]
    assert k.dtype.kind == "i" and k.min() >= 0 and k.max() <= 255 and k.nunique() > 200
    assert "record_key" not in s.data_for_release().columns
    assert s.record_keys() == {"column": "record_key", "kind": "integer", "modulus": 256,
                               "digits": 8}
    with pytest.raises(TreatmentError, match="already"):
        s.add_record_keys()                         # the column exists already
    with pytest.raises(TreatmentError, match="already"):
        _session(survey.assign(k=1)).add_record_keys(name="k")
    with pytest.raises(sdc.SdcError):
        s.recode("record_key", {1: 2})              # identifiers are never treated


def test_uniform_keys_as_cellkey(survey) -> None:
    s = _session(survey).add_record_keys(kind="uniform", digits=6, name="rkey")
    k = s.data["rkey"]
    assert k.dtype.kind == "f" and 0 <= k.min() and k.max() < 1
    assert np.allclose(k * 1e6, np.round(k * 1e6))
    t = s.tabulate("region", margins="none")
    sums = s.data.groupby("region", observed=True)["rkey"].sum()
    for r in t.itertuples():
        frac = round(sums[r.region] * 1e6) % 10**6
        assert r.cell_key == frac


def test_keys_survive_undo_branches_and_recipes(survey) -> None:
    s = _session(survey).add_record_keys()
    keys = s.data["record_key"].copy()
    t1 = s.tabulate(["region", "sex"], margins="none")
    cats = list(s.data["age5"].dropna().unique())
    s.recode("age5", {cats[0]: cats[1]})
    b = s.branch("other")
    b.remove("literacy")
    assert b.data["record_key"].equals(keys)
    t2 = b.tabulate(["region", "sex"], margins="none")
    assert t1.perturbed.tolist() == t2.perturbed.tolist()     # same keys, same cells
    s.undo(len(s.history) - 2)
    assert s.data["record_key"].equals(keys)
    s2 = sdc.SdcSession.from_recipe(survey, s.to_recipe())
    assert s2.data["record_key"].equals(keys)
    assert s2.tabulate(["region", "sex"], margins="none").perturbed.tolist() == \
        t1.perturbed.tolist()
    s.undo()
    with pytest.raises(RoleError, match="add_record_keys"):
        s.tabulate("region")


def test_one_cell_in_two_tables_gets_one_value(survey) -> None:
    s = _session(survey).add_record_keys()
    a = s.tabulate("region", "sex", ptable={"D": 3, "V": 1, "js": 2})
    b = s.tabulate(["region", "sex", "age5"], ptable={"D": 3, "V": 1, "js": 2})
    inner = a[a.margin == 0].set_index(["region", "sex"])
    marg = b[(b.age5 == "Total") & (b.margin == 1)].set_index(["region", "sex"])
    assert len(inner) > 5
    assert (inner.perturbed == marg.loc[inner.index].perturbed).all()


def test_weighted_and_magnitude_from_the_session(survey) -> None:
    s = _session(survey).add_record_keys()
    t = s.tabulate("region", weighted=True, margins="none")
    w = survey.groupby("region", observed=True)["w"].sum()
    assert np.allclose(t.set_index("region").original, w.loc[t.region])
    ratio = t.perturbed.astype(float) / t.original
    assert np.allclose(ratio, t.records_perturbed / t.records)
    m = s.tabulate("region", value="income", rules={"dominance": (1, 50), "p": 5},
                   margins="none")
    assert {"dominance", "p_rule", "sensitive"} <= set(m.columns)
    assert np.allclose(m.set_index("region").original,
                       survey.groupby("region", observed=True)["income"].sum().loc[m.region])
    with pytest.raises(RoleError):
        sdc.SdcSession(survey, keys=["region"], seed=1).add_record_keys().tabulate(
            "sex", weighted=True)


def test_tabulations_are_logged(survey) -> None:
    s = _session(survey).add_record_keys()
    s.tabulate("region", threshold=10)
    s.branch("b").tabulate("sex", value="income")
    log = s.tabulations
    assert log.scenario.tolist() == ["main", "b"]
    assert log.step.tolist() == [s.head.id, s.head.id]
    assert log.threshold.tolist()[0] == 10 and log.value.tolist()[1] == "income"
    assert "original" not in log.table.iloc[0].columns


def test_ptable_from_a_file_and_bad_ptables(survey, tmp_path) -> None:
    s = _session(survey).add_record_keys()
    path = tmp_path / "pt.csv"
    sdc.tables.ptable_frame(sdc.tables.build_ptable(2, 1), "ons").to_csv(path, index=False)
    t = s.tabulate("region", ptable=str(path))
    assert len(t) > 1
    with pytest.raises(ParameterError):
        s.tabulate("region", ptable={"D": 3, "W": 1})
    with pytest.raises(ParameterError):
        s.tabulate("region", ptable=3)
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"i": [0, 1, 1], "v": [0, -1, 1], "p": [1, 0.5, 0.6]}).to_csv(bad, index=False)
    with pytest.raises(ParameterError, match="sum"):
        s.tabulate("region", ptable=bad)
    with pytest.raises(ParameterError):
        s.tabulate("region", weighted="yes")


def test_missing_or_foreign_keys_are_role_errors() -> None:
    from sdcsession.tables import key_numerators

    with pytest.raises(RoleError, match="1 record"):
        key_numerators(pd.Series([1.0, None, 3.0]), "integer", 256)
    with pytest.raises(RoleError, match="key range"):
        key_numerators(pd.Series([1, 300]), "integer", 256)
    with pytest.raises(RoleError, match="key range"):
        key_numerators(pd.Series([0.5, 1.5]), "uniform", 10**8, 8)


def test_removed_key_column_is_named(survey) -> None:
    s = _session(survey).add_record_keys()
    s.remove("record_key")
    with pytest.raises(RoleError, match="removed"):
        s.tabulate("region")


def test_the_report_lists_the_tables_without_original_values(survey) -> None:
    s = _session(survey)
    assert "id='tables'" not in sdc.report(s).html           # no tables: no section
    s.add_record_keys()
    t = s.tabulate("region", "sex", threshold=10)
    s.tabulate("region", value="income", rules={"p": 10})
    html = sdc.report(s).html
    assert "id='tables'" in html and "D3 V1 js0" in html and "noise D2 V1 step1" in html
    section = html[html.find("id='tables'"):html.find("id='utility'")]
    assert "2 table(s)" in section
    assert str(int(t["original"].iloc[-1])) not in section.replace(",", "")  # grand total hidden


def test_dask_sessions_refuse_tables_by_name(survey) -> None:
    dd = pytest.importorskip("dask.dataframe")
    # Dask sessions need their steps module (importable once the old-path alias
    # ``session.distributed`` no longer shadows the package)
    pytest.importorskip("sdcsession.session.distributed.steps")
    s = sdc.SdcSession(dd.from_pandas(survey, npartitions=2), keys=["region", "sex"], seed=1)
    with pytest.raises(TreatmentError):
        s.add_record_keys()
    assert len(s.history) == 1
    with pytest.raises(TreatmentError, match="in-memory"):
        s.tabulate("region")
