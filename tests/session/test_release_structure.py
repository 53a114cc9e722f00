"""What the file's structure gives away: new ids, the record order of the release, and the
release-check findings on households, identifiers, undeclared linked and derived columns, order
and weights (pandas here; the same findings on Dask in tests/scale/test_dask_release.py)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, ReleaseError, RoleError, SdcWarning, TreatmentError
from sdcsession.methods.basic import NewIds, new_id_mapping, observed_ids

EUSILC = Path("/work/shared/conformance/data/eusilc.csv")


def _checks(found: pd.DataFrame) -> set[str]:
    return set(found["check"])


def _row(found: pd.DataFrame, check: str, variables: list[str] | None = None) -> pd.Series:
    sel = found[found["check"] == check]
    if variables is not None:
        sel = sel[sel["variables"].map(lambda v: v == variables)]
    assert len(sel) == 1, found[["check", "variables", "records"]]
    return sel.iloc[0]


# ----------------------------------------------------------------------------- new ids
def test_new_ids_keep_grouping_and_change_every_id():
    df = pd.DataFrame({"hid": [1, 1, 2, 3, 3, 3, 4], "sex": list("mfmfmfm")})
    s = sdc.SdcSession(df, keys=["sex"], household="hid", seed=2).new_ids()
    new = s.data["hid"]
    assert sorted(new.unique()) == [1, 2, 3, 4]
    assert (new != df["hid"]).all()  # no record keeps its id
    # same grouping: the partition of the records is the same
    assert pd.crosstab(df["hid"], new).astype(bool).sum(axis=1).eq(1).all()
    assert s.roles.household == "hid"
    assert s.history[-1].notes == {"column": "hid", "groups": 4, "missing": 0}
    # replay gives the same ids; undo gives the original back
    assert sdc.SdcSession.from_recipe(df, s.to_recipe()).data["hid"].equals(new)
    assert s.undo().data["hid"].equals(df["hid"])


def test_new_ids_missing_ids_and_other_columns():
    df = pd.DataFrame({"pid": [10.0, 11.0, np.nan, 13.0], "sex": list("mfmf")})
    s = sdc.SdcSession(df, keys=["sex"], seed=1).new_ids("pid")
    assert str(s.data["pid"].dtype) == "Int64"
    assert s.data["pid"].isna().tolist() == [False, False, True, False]
    assert sorted(s.data["pid"].dropna().tolist()) == [1, 2, 3]
    head = s.head
    with pytest.raises(TreatmentError, match="role"):
        s.new_ids("sex")
    with pytest.raises(RoleError, match="household"):
        s.new_ids()
    with pytest.raises(ParameterError):
        s.new_ids(3)
    assert s.head is head


def test_new_id_mapping_fixes_the_one_fixed_point():
    # a permutation leaving exactly one id in place is corrected by an exchange
    for seed in range(200):
        ids = np.array([1, 2, 3, 4, 5], dtype=object)
        new = new_id_mapping(ids, np.random.default_rng(seed))
        assert sorted(new) == [1, 2, 3, 4, 5]
        assert not any(a == b for a, b in zip(ids, new))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=2, max_size=40), st.integers(0, 2**32))
def test_new_ids_keep_any_partition_of_records(labels, seed):
    df = pd.DataFrame({"hid": labels})
    out = NewIds("hid").apply(df, sdc.Roles(household="hid"), np.random.default_rng(seed)).data
    new = out["hid"].to_numpy()
    old = np.asarray(labels)
    # same partition: equal old ids <=> equal new ids
    assert ((old[:, None] == old[None, :]) == (new[:, None] == new[None, :])).all()
    assert sorted(set(new)) == list(range(1, len(set(labels)) + 1))
    if len(set(labels)) >= 2:
        assert (new != old).all()


def test_observed_ids_canonical_order_mixed_types():
    assert observed_ids(pd.Series(["b", 2, "a", None], dtype=object)).tolist() == [2, "a", "b"]


# ------------------------------------------------------------------------- release order
def test_export_writes_data_for_release_in_random_order(tmp_path):
    df = sdc.datasets.synthetic_survey(300, seed=4)
    s = sdc.SdcSession(df, keys=["region", "sex"], numeric=["income"], seed=9)
    s.local_suppression(k=3).add_noise(["income"], noise=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        p = s.export(tmp_path / "r.csv", force=True)
        back = pd.read_csv(p)
        rel = s.data_for_release()
        assert back["pid"].tolist() == rel["pid"].tolist()
        assert np.allclose(back["income"], rel["income"])
        assert rel.index.equals(pd.RangeIndex(len(df)))
        assert sorted(back["pid"]) == sorted(df["pid"])
        rho = np.corrcoef(np.arange(len(df)), back["pid"].rank())[0, 1]
        assert abs(rho) < 0.2
        assert s.last_export["shuffled"] and s.last_export["order_seed"] is not None
        # file order with shuffle=False
        p2 = s.export(tmp_path / "f.csv", force=True, shuffle=False)
        assert pd.read_csv(p2)["pid"].tolist() == df["pid"].tolist()
        assert s.last_export["shuffled"] is False
    # the order replays with the recipe
    r = sdc.SdcSession.from_recipe(df, s.to_recipe())
    assert r.data_for_release()["pid"].tolist() == rel["pid"].tolist()
    for bad in ("no", 1, None):
        with pytest.raises(ParameterError, match="shuffle"):
            s.export(tmp_path / "x.csv", shuffle=bad)
        with pytest.raises(ParameterError, match="shuffle"):
            s.data_for_release(shuffle=bad)
    assert not (tmp_path / "x.csv").exists()


# ----------------------------------------------------------------------- acceptance: EU-SILC
@pytest.fixture(scope="module")
def eusilc() -> pd.DataFrame:
    if not EUSILC.exists():
        pytest.skip("the conformance data are not available")
    return pd.read_csv(EUSILC)


def _silc(df: pd.DataFrame) -> sdc.SdcSession:
    s = sdc.SdcSession(df, keys=["hsize", "db040", "rb090"], household="db030",
                       identifiers=["rb030"], weight="rb050", seed=11)
    s.top_bottom_code("hsize", 6, 6, kind="top")
    return s.local_suppression(k=3)


def test_eusilc_household_size_blocks_until_the_household_id_goes(eusilc, tmp_path):
    s = _silc(eusilc)
    found = s.release_check()
    row = _row(found, "household_structure", ["hsize", "db030"])
    changed = (s.data["hsize"].astype(object) != eusilc["hsize"].astype(object)).sum()
    # every changed hsize comes back: hsize = number of records per db030 in this file
    assert row["severity"] == "block" and row["records"] == changed
    assert "s.remove('db030')" in row["message"]
    with pytest.raises(ReleaseError, match="household_structure"):
        s.export(tmp_path / "blocked.csv")
    gone = s.branch("no_hid").remove("db030").release_check()
    assert "household_structure" not in _checks(gone)


def test_eusilc_new_ids_grouping_kept_and_order_random(eusilc, tmp_path):
    s = _silc(eusilc).new_ids()
    new = s.data["db030"]
    assert not (new == eusilc["db030"]).any()
    assert pd.crosstab(eusilc["db030"], new).astype(bool).sum(axis=1).eq(1).all()
    # the household-size leak stays as long as the grouping is released
    assert "household_structure" in _checks(s.release_check())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        out = pd.read_csv(s.export(tmp_path / "silc.csv", force=True))
    assert "rb030" not in out.columns
    order = s.data_for_release(shuffle=True)
    assert out["db030"].tolist() == order["db030"].tolist()
    # where each released record stood in the original file
    from sdcsession.session.release.order import order_seed, shuffled

    key = s.state.data.assign(_pos=np.arange(len(eusilc)))
    released_pos = shuffled(key, order_seed(s))["_pos"].to_numpy()
    rho = np.corrcoef(np.arange(len(eusilc)), released_pos)[0, 1]
    assert abs(rho) < 0.05
    assert abs(np.corrcoef(np.arange(len(eusilc)), out["db030"].rank())[0, 1]) < 0.05


# --------------------------------------------------------------------------- the findings
def _base(n: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 60, n)
    return pd.DataFrame({"sex": rng.choice(["m", "f"], n), "age": age,
                         "age5": (age // 5 * 5).astype(str), "income": rng.gamma(2, 1000, n),
                         "w": np.repeat([10.0, 20.0, 30.0], n // 3)})


def test_identifier_float_ids_missing_and_named_index():
    df = _base()
    df["rid"] = np.arange(1.0, len(df) + 1)
    df.loc[3, "rid"] = np.nan
    s = sdc.SdcSession(df, keys=["sex", "age5"], numeric=["income", "age"], weight="w", seed=1)
    row = _row(s.release_check(), "identifier", ["rid"])
    assert row["severity"] == "block" and row["records"] == len(df) - 1
    assert "identifiers=['rid']" in row["message"]
    named = sdc.SdcSession(df.drop(columns="rid").rename_axis("pid"), keys=["sex", "age5"],
                           numeric=["income", "age"], weight="w", seed=1)
    row = _row(named.release_check(), "identifier", ["pid"])
    assert row["records"] == len(df) and "reset_index" in row["message"]
    ok = sdc.SdcSession(df, keys=["sex", "age5"], numeric=["income", "age"], weight="w",
                        identifiers=["rid"], seed=1)
    assert "identifier" not in _checks(ok.release_check())


def test_undeclared_linked_age_next_to_recoded_age5():
    df = _base()
    s = sdc.SdcSession(df, keys=["sex", "age5"], numeric=["income"], weight="w", seed=1)
    s.recode("age5", {"20": "20-29", "25": "20-29"})
    row = _row(s.release_check(), "undeclared_linked", ["age5", "age"])
    assert row["severity"] == "block"
    assert row["records"] == int(df["age5"].isin(["20", "25"]).sum())
    assert "linked={'age5': ['age']}" in row["message"]
    # declared as linked, the step itself blanks age in the same records: nothing left to find
    d = sdc.SdcSession(df, keys=["sex", "age5"], numeric=["income"], weight="w",
                       linked={"age5": ["age"]}, seed=1)
    found = d.recode("age5", {"20": "20-29", "25": "20-29"}).release_check()
    assert "undeclared_linked" not in _checks(found) and "linked" not in _checks(found)
    assert d.head.notes["linked_suppressed"] == {"age": row["records"]}


def test_derived_and_weights_and_order():
    df = _base(90)
    df["income_k"] = (df["income"] / 1000).round(1)  # ties: not an identifier
    df.loc[0, "w"] = 99.0  # one weight value held by one record
    s = sdc.SdcSession(df.drop(columns="age"), keys=["sex", "age5"], numeric=["income"],
                       weight="w", seed=3)
    s.add_noise(["income"], noise=0.2)
    found = s.release_check()
    der = _row(found, "derived", ["income_k", "income"])
    assert der["severity"] == "warn" and der["records"] == len(df)
    w = _row(found, "weights", ["w"])
    assert w["records"] == 1 and "fewer than 3" in w["message"]
    assert "order" not in _checks(found)
    # records sorted by a key: the order finding with shuffle=False only
    srt = df.drop(columns="age").sort_values("age5").reset_index(drop=True)
    o = sdc.SdcSession(srt, keys=["sex", "age5"], numeric=["income"], weight="w", seed=3)
    o.add_noise(["income"], noise=0.2)
    assert _row(o.release_check(shuffle=False), "order", ["age5"])["severity"] == "warn"
    assert "order" not in _checks(o.release_check())


def test_household_structure_from_other_members():
    # the household type is the same for every member: suppressed in one member, it comes back
    # from the others. Household 1 is the only 'r' and has one man: local suppression (sex more
    # important) blanks his household type, which his two housemates still show.
    hid = np.repeat(np.arange(1, 9), 3)
    df = pd.DataFrame({"hid": hid, "hh": np.where(hid == 1, "r", np.where(hid % 2 == 0, "p", "q")),
                       "sex": list("mff") * 8})
    s = sdc.SdcSession(df, keys=["hh", "sex"], household="hid", seed=1)
    s.local_suppression(k=2, importance=["sex", "hh"])
    assert s.data["hh"].isna().tolist() == [True] + [False] * 23
    row = _row(s.release_check(), "household_structure", ["hh", "hid"])
    assert row["records"] == 1 and "other members" in row["message"]
    assert "household_structure" not in _checks(s.remove("hid").release_check())


# --------------------------------------------------------------------------- file writes
def test_no_file_written_over(tmp_path):
    src = tmp_path / "survey.csv"
    sdc.datasets.synthetic_survey(120, seed=2).to_csv(src, index=False)
    df = sdc.read_data(src)
    s = sdc.SdcSession(df, keys=["region", "sex"], seed=1).local_suppression(k=2)
    before = src.read_bytes()
    with pytest.raises(sdc.DataFileError, match="input file"):
        s.save_recipe(src, overwrite=True)
    with pytest.raises(sdc.DataFileError, match="input file"):
        s.report(src, figures=False, overwrite=True)
    with pytest.raises(sdc.DataFileError, match="input file"):
        sdc.write_data(df, src, overwrite=True)
    r = sdc.SdcSession.from_recipe(df, s.to_recipe())
    with pytest.raises(sdc.DataFileError, match="input file"):
        r.save_recipe(src, overwrite=True)
    assert src.read_bytes() == before
    rec = s.save_recipe(tmp_path / "r.json")
    text = rec.read_text()
    with pytest.raises(sdc.DataFileError, match="exists"):
        s.save_recipe(rec)
    with pytest.raises(ParameterError, match="overwrite"):
        s.save_recipe(rec, overwrite="no")
    assert rec.read_text() == text
    s.save_recipe(rec, overwrite=True)
    rep = s.report(tmp_path / "r.html", figures=False)
    with pytest.raises(sdc.DataFileError, match="exists"):
        s.report(rep, figures=False)
    with pytest.raises(ParameterError, match="overwrite"):
        s.report(rep, figures=False, overwrite="no")
    assert s.report(rep, figures=False, overwrite=True) == rep
    built = sdc.report(s, figures=False)
    with pytest.raises(sdc.DataFileError, match="exists"):
        built.save(rep)
    with pytest.raises(sdc.DataFileError, match="input file"):
        built.save(src, overwrite=True)
    out = sdc.write_data(df.head(3), tmp_path / "o.csv")
    with pytest.raises(sdc.DataFileError, match="exists"):
        sdc.write_data(df.head(3), out)
    for bad in ("no", 0, None):
        with pytest.raises(ParameterError, match="overwrite"):
            sdc.write_data(df.head(3), out, overwrite=bad)
    sw = s.sweep([("local_suppression", [{"k": 2}, {"k": 3}])])
    p = sw.save_recipe(tmp_path / "sweep.json")
    with pytest.raises(sdc.DataFileError, match="exists"):
        sw.save_recipe(p)
    with pytest.raises(sdc.DataFileError, match="input file"):
        sw.save_recipe(src, overwrite=True)
    assert src.read_bytes() == before


def test_release_check_on_unhashable_cells():
    df = pd.DataFrame({"a": list("xyxyxyxy"), "l": [[i] for i in range(8)],
                       "m": [[i % 2] for i in range(8)]})
    s = sdc.SdcSession(df, keys=["a"], seed=1).recode("a", {"x": "z"})
    found = s.release_check(shuffle=False)
    assert _row(found, "identifier", ["l"])["records"] == 8
    assert _row(found, "undeclared_linked", ["a", "m"])["records"] == 4


def test_determines_from_codes_equals_the_frame_path():
    """The pandas fast path (integer codes) gives what distinct (x, y) pairs grouped by x give."""
    from sdcsession.session.release.codes import determines_codes as _determines_codes
    from sdcsession.session.release.structure import _pairs_part

    rng = np.random.default_rng(3)
    n = 500
    f = pd.DataFrame({"a": rng.integers(0, 20, n).astype(float),
                      "b": rng.choice(["x", "y", None], n),
                      "c": rng.integers(0, 3, n),
                      "d": np.full(n, np.nan)})
    f.loc[rng.random(n) < 0.2, "a"] = np.nan
    pairs = [(x, y) for x in f.columns for y in f.columns if x != y]
    want = []
    for (x, _y), u in zip(pairs, _pairs_part(f, pairs)):
        u = u.drop_duplicates()
        want.append(float(u.groupby(x).size().max()) if len(u) else float("nan"))
    np.testing.assert_array_equal(_determines_codes(f, pairs), want)
    assert _determines_codes(f, [("a", "c")])[0] > 1 and np.isnan(_determines_codes(f, [("d", "a")])[0])


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_household_id_released_with_its_original_values(engine):
    """The original household id is a warn finding until a new_ids step renumbers it (or the
    column is removed); the finding comes from the history, so both engines agree."""
    df = sdc.datasets.synthetic_survey(300, seed=1)
    data = df if engine == "pandas" else pytest.importorskip("dask.dataframe").from_pandas(
        df, npartitions=3)
    s = sdc.SdcSession(data, keys=["region", "sex"], household="hid", seed=1)
    s.recode("sex", {"m": "m"})
    found = s.release_check().set_index("check")
    assert found.loc["household_id", "severity"] == "warn"
    assert found.loc["household_id", "variables"] == ["hid"]
    s.new_ids()
    assert "household_id" not in set(s.release_check()["check"])
    s.undo()
    s.new_ids("pid")  # another id column: the household id still has its original values
    assert "household_id" in set(s.release_check()["check"])
    s.remove("hid")
    assert "household_id" not in set(s.release_check()["check"])


def _households_by_region():
    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 4, 120)
    region = np.repeat(np.sort(rng.choice(list("ABCD"), 120)), sizes)  # ids ordered by region
    return pd.DataFrame({"hid": np.repeat(np.arange(120), sizes), "region": region,
                         "sex": rng.choice(["m", "f"], len(region)),
                         "size": np.repeat(sizes, sizes)})


def test_household_id_blocks_after_a_household_swap():
    """Household ids assigned by area give a swapped household's original region back (its id
    sits among its unswapped neighbours'): after record_swap the original household id blocks
    the release until new_ids renumbers it (record swapping runs on pandas only)."""
    df = _households_by_region()
    s = sdc.SdcSession(df, keys=["region", "sex"], household="hid", seed=1)
    s.record_swap(hierarchy=["region"], similar=["size"], swaprate=0.1)
    changed = s.data["region"].to_numpy() != df["region"].to_numpy()
    assert changed.any()
    # the attack: each released id's original region, from its id range
    by_id = df.groupby("hid")["region"].first()
    assert (by_id.loc[s.data["hid"]].to_numpy()[changed]
            == df["region"].to_numpy()[changed]).all()
    found = s.release_check().set_index("check")
    assert found.loc["household_id", "severity"] == "block"
    assert "record_swap" in found.loc["household_id", "message"]
    s.new_ids()
    assert "household_id" not in set(s.release_check()["check"])


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_household_id_warns_after_household_wide_suppression(engine):
    """A household-wide suppression keeps the household id a warning (as any suppression: the
    README's first session exports after it), with the same finding on both engines."""
    df = _households_by_region()
    data = df if engine == "pandas" else pytest.importorskip("dask.dataframe").from_pandas(
        df, npartitions=2)
    s = sdc.SdcSession(data, keys=["region", "sex"], household="hid", seed=1)
    s.local_suppression(k=3, household=True, strata=["region"])
    found = s.release_check().set_index("check")
    assert found.loc["household_id", "severity"] == "warn"
    s.new_ids()
    assert "household_id" not in set(s.release_check()["check"])
