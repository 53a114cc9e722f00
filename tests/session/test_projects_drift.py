"""apply_to: a branch's plan replayed on the next wave lists each drift (new categories, values
outside recode intervals and top codes, uncovered hierarchies, PRAM matrices missing a
category, failed steps) with the records concerned, the measures of both waves side by side;
strict=True raises; the CLI's run --drift prints the report."""

from __future__ import annotations

import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.cli import main
from sdcsession.errors import DriftError, ParameterError, RecipeError

KEYS = ["region", "sex", "age5"]


@pytest.fixture(scope="module")
def waves() -> tuple[pd.DataFrame, pd.DataFrame]:
    old = sdc.datasets.synthetic_survey(200, seed=1)
    new = sdc.datasets.synthetic_survey(150, seed=2)
    new["water"] = new["water"].cat.add_categories(["tank"])
    new.loc[[0, 1, 2], "water"] = "tank"
    new["region"] = new["region"].cat.add_categories(["R13"])
    new.loc[[3, 4], "region"] = "R13"
    new.loc[5, "expend"] = 2e9  # above the highest break
    new.loc[[6, 7], "income"] = -5.0  # below the old wave's range
    return old, new


def plan(old: pd.DataFrame) -> sdc.SdcSession:
    s = sdc.SdcSession(old, keys=KEYS, numeric=["income", "expend"], pram=["water"], weight="w",
                       household="hid", seed=5)
    s.pram(["water"]).group_categories("region", {"north": ["R01", "R02"]})
    s.global_recode("expend", [-1, 20000, 40000, 1e9], include_outside=True)
    s.top_bottom_code("income", 50000, 50000)
    s.recode("sex", {"f": "female"})
    return s.local_suppression(k=3)


def _rows(drift, kind):
    return drift[drift["kind"] == kind]


def test_each_drift_is_listed_with_its_records(waves):
    old, new = waves
    s = plan(old)
    s2, drift = s.apply_to(new)
    assert list(drift.columns) == ["step", "treatment", "kind", "column", "values", "count",
                                   "old", "new", "detail"]
    found = drift[drift["kind"] != "measure"]
    got = sorted((r.step, r.kind, r.column, tuple(r.values), r.count) for r in found.itertuples())
    inc, lo, hi = new["income"], old["income"].min(), old["income"].max()
    out = inc[(inc < lo) | (inc > hi)]
    assert -5.0 in out.tolist()
    ages = sorted(set(new["age5"].dropna()) - set(old["age5"].dropna()))
    assert ages == ["90+"]  # a key no step recodes: listed against the original (step 0)
    assert got == [
        (0, "new_category", "age5", ("90+",), int(new["age5"].isin(ages).sum())),
        (1, "new_category", "water", ("tank",), 3),
        (1, "pram_matrix_missing", "water", ("tank",), 3),
        (2, "new_category", "region", ("R13",), 2),
        (3, "outside_intervals", "expend", (2e9,), 1),
        (4, "outside_range", "income", tuple(sorted(out.unique())), len(out)),
    ]
    # the whole plan ran on the new wave, with the recorded seeds
    assert [st.treatment.type for st in s2.history[1:]] == [
        st.treatment.type for st in s.history[1:]]
    assert [st.seed for st in s2.history[1:]] == [st.seed for st in s.history[1:]]
    assert s2.name == s.name and len(s2.data) == len(new)
    # measures side by side: the values of each wave's HEAD
    m = _rows(drift, "measure").set_index("column")
    assert m.loc["records", "old"] == len(old) and m.loc["records", "new"] == len(new)
    assert m.loc["expected_reidentifications", "old"] == s.risk.expected_reidentifications
    assert m.loc["expected_reidentifications", "new"] == s2.risk.expected_reidentifications
    assert m.loc["k3_violations", "new"] == s2.risk.k_violations(3)
    assert m.loc["global_risk", "new"] == pytest.approx(s2.risk.global_risk)


def test_strict_raises_with_every_finding(waves):
    old, new = waves
    s = plan(old)
    with pytest.raises(DriftError) as e:
        s.apply_to(new, strict=True)
    assert isinstance(e.value, RecipeError)
    msg = str(e.value)
    for text in ("6 finding(s)", "'tank'", "'R13'", "'90+'", "outside_intervals in 'expend'",
                 "outside_range in 'income'", "pram_matrix_missing"):
        assert text in msg
    same, drift = s.apply_to(old, strict=True)  # the old wave itself: no drift
    assert set(drift["kind"]) == {"measure"}
    assert same.data.equals(s.data)  # the same plan on the same data: the same release
    with pytest.raises(ParameterError, match="strict"):
        s.apply_to(new, strict="yes")


def test_a_failing_step_stops_the_replay_and_is_listed():
    old = pd.DataFrame({"age": [20, 35, 50, 64], "sex": list("mfmf")})
    s = sdc.SdcSession(old, keys=["sex"], numeric=["age"], seed=1)
    s.global_recode("age", [0, 40, 65]).recode("sex", {"f": "x"})
    s2, drift = s.apply_to(pd.DataFrame({"age": [20, 70, 80], "sex": list("mfm")}))
    found = drift[drift["kind"] != "measure"]
    assert found["kind"].tolist() == ["outside_intervals", "step_failed"]
    assert found["values"].iloc[0] == [70, 80] and found["count"].iloc[0] == 2
    assert "outside the breaks" in found["detail"].iloc[1]
    assert s2.head.depth == 0  # HEAD: the last step that ran


def test_pram_matrix_given_misses_a_category():
    old = pd.DataFrame({"c": list("abab") * 5, "k": list("xxyy") * 5})
    s = sdc.SdcSession(old, keys=["k"], pram=["c"], seed=2)
    s.pram(["c"], matrix={"a": {"a": 0.9, "b": 0.1}, "b": {"a": 0.1, "b": 0.9}})
    s2, drift = s.apply_to(pd.DataFrame({"c": list("abcc"), "k": list("xyxy")}))
    found = drift[drift["kind"] != "measure"]
    rows = {r.kind: (r.column, list(r.values), r.count) for r in found.itertuples()}
    assert rows["pram_matrix_missing"] == ("c", ["c"], 2)
    assert rows["new_category"] == ("c", ["c"], 2)
    assert "step_failed" in rows and s2.head.depth == 0  # the matrix cannot take 'c'
    assert "the matrix given" in found.set_index("kind").loc["pram_matrix_missing", "detail"]


def test_intervals_computed_from_the_data():
    old = pd.DataFrame({"n": range(20), "k": list("xy") * 10})
    s = sdc.SdcSession(old, keys=["k"], numeric=["n"], seed=2)
    s.global_recode("n", breaks=3)  # [-1, 6], (6, 13], (13, 20] on the old wave
    _, drift = s.apply_to(pd.DataFrame({"n": [-1, 5, 100, 7], "k": list("xyxy")}))
    rows = {r.kind: (list(r.values), r.count) for r in drift.itertuples() if r.kind != "measure"}
    assert rows["outside_intervals"] == ([100], 1)  # -1 is inside: the lowest interval is closed
    assert "breaks_changed" in rows  # breaks=3 cuts the new wave elsewhere


def test_generalize_uncovered_values():
    old = pd.DataFrame({"zip": ["1234", "1235", "1299", "1234"] * 5, "c": list("abab") * 5})
    s = sdc.SdcSession(old, keys=["zip", "c"], seed=2)
    s.generalize({"zip": sdc.Hierarchy.masking(4)}, [sdc.privacy.KAnonymity(2)])
    _, drift = s.apply_to(pd.DataFrame({"zip": ["1234", "12345", "999", None],
                                        "c": list("abab")}))
    row = drift[drift["kind"] == "hierarchy_uncovered"].iloc[0]
    assert row["column"] == "zip" and row["values"] == ["12345", "999"] and row["count"] == 2


def test_branch_by_name(waves):
    old, new = waves
    s = sdc.SdcSession(old, keys=KEYS, seed=3)
    alt = s.branch("alt").recode("region", {"R01": "R02"})
    s.recode("sex", {"f": "female"})
    s2, drift = s.apply_to(new, branch="alt")
    assert s2.name == "alt" and s2.history[1].treatment == alt.head.treatment
    assert _rows(drift, "new_category")[["step", "column"]].values.tolist() == [
        [0, "age5"], [1, "region"]]  # region: its recode step; age5: no step recodes it
    with pytest.raises(ParameterError, match="branch"):
        s.apply_to(new, branch="nope")


def test_after_open_project(waves, tmp_path):
    old, new = waves
    s = plan(old)
    path = s.save_project(tmp_path / "wave1.sdcproj", include_data=True)
    s1 = sdc.open_project(path)
    _, d1 = s1.apply_to(new)
    _, d0 = s.apply_to(new)
    pd.testing.assert_frame_equal(d1, d0)


@pytest.mark.filterwarnings("ignore::sdcsession.errors.SdcWarning")
def test_cli_run_drift(waves, tmp_path, capsys):
    old, new = waves
    path = plan(old).save_project(tmp_path / "wave1.sdcproj", include_data=True)
    data = tmp_path / "wave2.parquet"
    new.to_parquet(data)
    out = tmp_path / "wave2_anon.csv"
    code = main(["run", str(path), "--data", str(data), "--out", str(out), "--drift",
                 "--force"])
    printed = capsys.readouterr().out
    assert code == 0 and out.exists()
    assert "pram_matrix_missing" in printed and "R13" in printed and "outside_range" in printed
    code = main(["run", str(path), "--data", str(data), "--out", str(tmp_path / "x.csv"),
                 "--drift", "--strict"])
    assert code == 2 and "drift" in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()
    code = main(["run", str(path), "--data", str(data), "--out", str(out), "--branch", "x"])
    assert code == 2
