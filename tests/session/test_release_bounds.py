"""The release check's ``bound`` finding (pandas; the same findings on Dask over random
partitionings in tests/scale/test_dask_release_bounds.py): a column with no role that is a
lower or an upper bound of a treated numeric variable gives back part of what the treatment
hid, in the records where it crosses the released value."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import SdcWarning
from sdcsession.session.release.aligned import Aligned
from sdcsession.session.release.bounds import bound_rounds, without_repeats
from sdcsession.session.release.rounds import run


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        yield


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    return sdc.datasets.synthetic_survey(2000, seed=1)


def _bounds(found: pd.DataFrame) -> dict[tuple[str, ...], tuple[int, str]]:
    sel = found[found["check"] == "bound"]
    assert (sel["severity"] == "warn").all()
    return {tuple(r.variables): (r.records, r.message) for r in sel.itertuples()}


def _hhsize_top_coded(df: pd.DataFrame, **kw) -> sdc.SdcSession:
    s = sdc.SdcSession(df, keys=["region", "sex", "age5", "hhsize"], household="hid", seed=1,
                       **kw)
    s.top_bottom_code("hhsize", value=6, replacement=6)
    return s.new_ids().remove("hid")


def test_person_number_undoes_the_top_coded_household_size(survey):
    s = _hhsize_top_coded(survey)
    # by hand: pid <= hhsize in every record (pid = 1..hhsize), and after the top code at 6
    # exactly the records with pid > 6 show a released hhsize (6) below their pid
    assert (survey["pid"] <= survey["hhsize"]).all() and (survey["pid"] < survey["hhsize"]).any()
    want = int((survey["pid"] > 6).sum())
    assert want == int((survey["pid"] > s.data["hhsize"]).sum()) == 192
    found = _bounds(s.release_check())
    assert list(found) == [("pid", "hhsize")]
    m, msg = found["pid", "hhsize"]
    assert m == want
    assert msg == (
        "'pid' (no role) is never above the original 'hhsize' and exceeds the released 'hhsize' "
        "in 192 record(s), which shows that their original value was larger: declare 'pid' "
        "numeric and top-code it at 6 (s.top_bottom_code('pid', value=6, replacement=6)), "
        "declare it linked={'hhsize': ['pid']} (then it is blanked where 'hhsize' changes), or "
        "remove it (s.remove('pid'))")
    # the undeclared_linked check does not see it: pid does not determine hhsize
    others = s.release_check().query("check not in ['no_role', 'bound']")["variables"]
    assert not any("pid" in v for v in others)


def test_each_suggested_fix_ends_the_finding(survey):
    top = _hhsize_top_coded(survey, numeric=["pid"]).top_bottom_code("pid", value=6,
                                                                      replacement=6)
    assert not _bounds(top.release_check())
    assert top.data["pid"].max() == 6
    linked = _hhsize_top_coded(survey, linked={"hhsize": ["pid"]})
    assert not _bounds(linked.release_check())
    # the linked pid is blanked in every record whose hhsize was top-coded (hhsize > 6)
    assert linked.data["pid"].isna().sum() == int((survey["hhsize"] > 6).sum())
    assert not _bounds(_hhsize_top_coded(survey).remove("pid").release_check())


def _residence(n: int = 60, seed: int = 3) -> pd.DataFrame:
    """Years in residence (a numeric key) never above age (no role)."""
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 80, n)
    age[:6] = [0, 1, 2, 3, 4, 4]
    yrs = np.where(rng.random(n) < 0.3, age, np.floor(age * rng.random(n))).astype(int)
    return pd.DataFrame({"sex": rng.choice(["m", "f"], n), "yrs": yrs, "age": age})


def test_upper_bound_after_a_bottom_code():
    df = _residence()
    s = sdc.SdcSession(df, keys=["sex", "yrs"], seed=1)
    s.top_bottom_code("yrs", value=5, replacement=5, kind="bottom")
    # by hand: age >= yrs everywhere; the released yrs (5) is above age where age < 5
    assert (df["age"] >= df["yrs"]).all()
    want = int((df["age"] < 5).sum())
    assert want == int((s.data["yrs"] > df["age"]).sum()) == 11
    (m, msg), = _bounds(s.release_check()).values()
    assert m == want
    assert msg.startswith("'age' (no role) is never below the original 'yrs' and is below the "
                          "released 'yrs' in 11 record(s), which shows that their original "
                          "value was smaller: ")
    assert "declare 'age' numeric and bottom-code it at 5 (s.top_bottom_code('age', value=5, " \
           "replacement=5, kind='bottom'))" in msg
    fixed = sdc.SdcSession(df, keys=["sex", "yrs"], numeric=["age"], seed=1)
    for c in ("yrs", "age"):
        fixed.top_bottom_code(c, value=5, replacement=5, kind="bottom")
    assert not _bounds(fixed.release_check())


def _wages(n: int = 80, seed: int = 5) -> pd.DataFrame:
    """Income (numeric) = wage (no role) + other income, zero for about 40% of the records."""
    rng = np.random.default_rng(seed)
    wage = rng.gamma(2.0, 1000.0, n).round(-2)
    other = np.where(rng.random(n) < 0.4, 0.0, rng.gamma(2.0, 1500.0, n)).round(2)
    return pd.DataFrame({"sex": rng.choice(["m", "f"], n), "wage": wage, "income": wage + other})


def test_noised_variable_below_its_lower_bound():
    df = _wages()
    s = sdc.SdcSession(df, keys=["sex"], numeric=["income"], seed=1)
    s.add_noise(["income"], noise=0.5, bounds=(0, None))
    want = int((df["wage"] > s.data["income"]).sum())
    assert want == 18
    found = _bounds(s.release_check())
    m, msg = found["wage", "income"]
    assert m == want
    assert msg.endswith("was larger: declare 'wage' numeric and perturb it too, or remove it "
                        "(s.remove('wage'))")
    assert "linked" not in msg  # linked variables follow key variables only


def test_bounds_the_treatment_never_crosses_or_that_only_separate_the_ranges(survey):
    # a bound by construction that the top code never crosses: rooms <= min(hhsize, 5)
    rng = np.random.default_rng(2)
    df = survey.assign(rooms=np.minimum(survey["hhsize"], rng.integers(1, 6, len(survey))))
    s = _hhsize_top_coded(df)
    assert (df["rooms"] <= df["hhsize"]).all() and (df["rooms"] > s.data["hhsize"]).sum() == 0
    assert list(_bounds(s.release_check())) == [("pid", "hhsize")]
    # small counts (1..9) below every original value of a variable (20 and more): a bound of
    # the ranges only; a strong noise takes some released values below them, still no finding
    rng = np.random.default_rng(6)
    df = pd.DataFrame({"sex": rng.choice(["m", "f"], 200), "count": rng.integers(1, 10, 200),
                       "v": rng.uniform(20, 60, 200).round(1)})
    s = sdc.SdcSession(df, keys=["sex"], numeric=["v"], seed=3)
    s.add_noise(["v"], noise=1.0, bounds=(0, None))
    assert df["count"].max() < df["v"].min()
    assert int((df["count"] > s.data["v"]).sum()) > 0
    assert not _bounds(s.release_check())
    # the same counts drawn up to 30, where the ranges overlap: a bound record by record
    low = df.assign(count=np.minimum(rng.integers(1, 30, 200), df["v"].astype(int)))
    t = sdc.SdcSession(low, keys=["sex"], numeric=["v"], seed=3)
    t.add_noise(["v"], noise=1.0, bounds=(0, None))
    assert _bounds(t.release_check())["count", "v"][0] == int((low["count"] > t.data["v"]).sum())


def test_missing_values_are_compared_only_where_both_are_observed():
    df = pd.DataFrame({
        "sex": list("mfmfmfmfmf"),
        "hhsize": [1, 2, 2, 8, 8, 9, np.nan, 7, 3, 9],
        "pid": pd.array([1, 1, None, 7, 8, 9, 12, 7, 3, None], dtype="Int64"),
    })
    s = sdc.SdcSession(df, keys=["sex", "hhsize"], seed=1)
    s.top_bottom_code("hhsize", value=8, replacement=np.nan)  # blanks the 9s
    s.top_bottom_code("hhsize", value=6, replacement=6)
    assert s.data["hhsize"].fillna(-1).tolist() == [1, 2, 2, 6, 6, -1, -1, 6, 3, -1]
    # record 6 (pid 12 with no household size) is compared with nothing; record 5 (pid 9,
    # hhsize 9) would cross, but its hhsize is blanked; records 3, 4 and 7 cross 6
    (m, _), = _bounds(s.release_check()).values()
    assert m == 3


def test_booleans_categories_and_text_are_not_numbers():
    df = pd.DataFrame({"sex": list("mfmfmf"), "hhsize": [1, 2, 8, 8, 3, 9],
                       "flag": [True] * 6, "pidc": pd.Categorical([1, 1, 7, 8, 2, 9]),
                       "pidt": ["1", "1", "7", "8", "2", "9"]})
    s = sdc.SdcSession(df, keys=["sex", "hhsize"], seed=1)
    s.top_bottom_code("hhsize", value=6, replacement=6)
    assert not _bounds(s.release_check())
    # the same values as numbers are a lower bound crossed in two records
    t = sdc.SdcSession(df.assign(pid=[1, 1, 7, 8, 2, 9]), keys=["sex", "hhsize"], seed=1)
    assert _bounds(t.top_bottom_code("hhsize", value=6, replacement=6).release_check())[
        "pid", "hhsize"][0] == 3
    # a numeric key recoded into categories: no finding
    u = sdc.SdcSession(df.assign(pid=[1, 1, 7, 8, 2, 9]), keys=["sex", "hhsize"], seed=1)
    u.global_recode("hhsize", breaks=[0, 5, 10])
    assert not _bounds(u.release_check())


def test_equal_variables_and_derived_pairs_are_left_to_their_checks():
    rng = np.random.default_rng(4)
    inc = rng.gamma(2.0, 1000.0, 50).round(-2)
    df = pd.DataFrame({"sex": rng.choice(["m", "f"], 50), "income": inc, "copy": inc,
                       "share": (inc * 0.9).round(2)})
    s = sdc.SdcSession(df, keys=["sex"], numeric=["income"], seed=2)
    s.add_noise(["income"], noise=0.5, bounds=(0, None))
    found = s.release_check()
    # 'share' (0.9 income) is a lower bound crossed by the noise, and a derived column: the
    # derived finding only
    al = Aligned(s.state.data, s.state.original)
    raw = run(bound_rounds(al, ["copy", "share"], [], [], ["income"], []), al.compute)
    assert [f["variables"] for f in raw] == [["share", "income"]]  # 'copy' equals income
    assert raw[0]["records"] == int((df["share"] > s.data["income"]).sum()) > 0
    assert not _bounds(found)
    assert {tuple(v) for v in found.query("check == 'derived'")["variables"]} == {
        ("copy", "income"), ("share", "income")}
    f = [{"check": "undeclared_linked", "variables": ["k", "c"]},
         {"check": "bound", "variables": ["c", "k"]}, {"check": "bound", "variables": ["c", "j"]}]
    assert [x["variables"] for x in without_repeats(f)] == [["k", "c"], ["c", "j"]]


def test_readme_session_gains_no_bound_finding(survey):
    """The README's first session: pid and hhsize (no role) are below every original
    expenditure, but only as ranges (at most 9 against 1,086 and more), and the noise never
    takes a released expenditure under 33: no ``bound`` finding, rightly."""
    s = sdc.SdcSession(survey, keys=["region", "urbrur", "sex", "age5", "marstat"],
                       numeric=["income", "expend", "savings"], weight="w", household="hid",
                       linked={"age5": ["age"]}, seed=42)
    s.local_suppression(k=3, household=True)
    s.add_noise(["income", "expend", "savings"], noise=0.1, bounds=(0, None))
    assert survey["hhsize"].max() < survey["expend"].min()
    assert s.data["expend"].min() > survey["hhsize"].max()
    assert not _bounds(s.release_check())
