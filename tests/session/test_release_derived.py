"""The release check's ``derived`` finding: a column with no role that is a function of a
perturbed variable's original values warns only when it gives them closely (the correlation
ratio eta² of v given d at least 0.99²), or when it correlates with them at abs(r) >= 0.99
(pandas here; the same findings on Dask in tests/scale/test_dask_release_derived.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.session.release.aligned import Aligned
from sdcsession.session.release.counting import _eta, _eta_many
from sdcsession.session.release.rounds import run
from sdcsession.session.release.structure import CORRELATION_THRESHOLD, ETA_THRESHOLD

# the noise leaves the test variables' whole numbers: not what these tests are about
pytestmark = pytest.mark.filterwarnings("ignore:add_noise:sdcsession.errors.SdcWarning")


def _etas(f: pd.DataFrame, pairs: list[tuple[str, str]], centre: float = 0.0) -> list[float]:
    al = Aligned(f, f)
    return run(_eta_many(al, f, pairs, [centre] * len(pairs)), al.compute)


def test_eta_by_hand():
    f = pd.DataFrame({
        # v = 1, 2 | 3, 4 | 10, 10 in groups d = 0, 1, 2; a record without d and one without v
        "v": [1.0, 2.0, 3.0, 4.0, 10.0, 10.0, 100.0, np.nan],
        "d": [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, np.nan, 0.0],
        # unequal groups: v = 1, 2, 3 | 10
        "v2": [1.0, 2.0, 3.0, 10.0, np.nan, np.nan, np.nan, np.nan],
        "d2": [5, 5, 5, 7, 7, 7, 7, 7],
        "const": [3.0] * 8,
        "alt": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, np.nan, np.nan],
        "odd": [0, 1, 0, 1, 0, 1, 0, 1],
    })
    # mean 5, total SS 16+9+4+1+25+25 = 80; group means 1.5, 3.5, 10:
    # 2*3.5² + 2*1.5² + 2*5² = 79 -> 79/80
    # v2: mean 4, total 9+4+1+36 = 50; group means 2 (3 records), 10 (1): 3*2² + 6² = 48
    # alt: mean 3.5, total 17.5; group means 3 and 4: 6 * 0.5² = 1.5 -> 3/35
    got = _etas(f, [("d", "v"), ("d2", "v2"), ("odd", "alt"), ("odd", "const")])
    assert got[:3] == pytest.approx([79 / 80, 48 / 50, 3 / 35], abs=1e-12)
    assert math.isnan(got[3])  # a constant v: nothing to explain
    # any centre gives the same value (it only keeps the sums accurate)
    assert _etas(f, [("d", "v")], centre=1e6)[0] == pytest.approx(79 / 80, abs=1e-9)
    # the formula on its sums: v = 1, 2, 3, 4, 10, 10 centred at 5
    assert _eta([6, 0.0, 80.0, 79.0, 1.0, 10.0]) == 79 / 80
    assert math.isnan(_eta([1, 0.0, 0.0, 0.0, 2.0, 2.0]))
    assert math.isnan(_eta([0, 0.0, 0.0, 0.0, math.inf, -math.inf]))


def _functions() -> pd.DataFrame:
    v = np.array([110, 110, 140, 140, 420, 420, 460, 460, 1010, 1010, 990, 990], dtype=float)
    return pd.DataFrame({"sex": list("mf") * 6, "v": v, "logv": np.log(v),
                         "v100": np.round(v, -2)})


def _by_variables(found: pd.DataFrame) -> dict[tuple[str, ...], pd.Series]:
    return {tuple(r["variables"]): r for _, r in found[found["check"] == "derived"].iterrows()}


def test_functions_that_give_v_back_warn():
    df = _functions()
    s = sdc.SdcSession(df, keys=["sex"], numeric=["v"], seed=4).add_noise(["v"], noise=0.2)
    assert (s.data["v"] != df["v"]).all()
    got = _by_variables(s.release_check())
    assert set(got) == {("logv", "v"), ("v100", "v")}
    # log(v): one-to-one with v (eta² = 1), though r = 0.959 is below the correlation rule
    assert abs(np.corrcoef(df["logv"], df["v"])[0, 1]) < CORRELATION_THRESHOLD
    assert got[("logv", "v")]["records"] == 12
    assert "eta^2 = 1.0000" in got[("logv", "v")]["message"]
    # round(v, -2): groups 100 = {110, 110, 140, 140}, 400, 500, 1000 = {1010, 1010, 990, 990};
    # within SS 4*15² + 4*10² = 1300, total SS sum(v²) - (sum v)²/12 = 4,839,800 - 6260²/12
    total = 4_839_800 - 6260**2 / 12
    assert 1 - 1300 / total == pytest.approx(0.99917417, abs=1e-8)
    assert "eta^2 = 0.9992" in got[("v100", "v")]["message"]
    assert "function of the original values of 'v'" in got[("v100", "v")]["message"]
    assert ETA_THRESHOLD == pytest.approx(0.9801)


def test_missing_values_leave_the_records_out():
    df = _functions()
    # d missing in both records of v = 110 (in the functional dependency a missing d is a
    # value of its own: v100 is still a function of v) and a record with v missing
    df.loc[[0, 1], "v100"] = np.nan
    df = pd.concat([df, pd.DataFrame({"sex": ["m"], "v": [np.nan], "v100": [400.0]})],
                   ignore_index=True)
    s = sdc.SdcSession(df, keys=["sex"], numeric=["v"], seed=4).add_noise(["v"], noise=0.2)
    got = _by_variables(s.release_check())
    # eta² over the 10 records with both: v = 140, 140 | 420, 420 | 460, 460 | 1010, 1010,
    # 990, 990; within SS 4*10² = 400; total SS 4,815,600 - 6040²/10 = 1,167,440
    eta = 1 - 400 / 1_167_440
    assert f"eta^2 = {eta:.4f}" in got[("v100", "v")]["message"]
    # counted: v perturbed (the missing v stays missing) and v100 observed
    assert got[("v100", "v")]["records"] == 10


def _households() -> pd.DataFrame:
    """Six households of 2, 2, 4, 4, 3 and 3 persons; v (household level) is 0, 60, 10, 50, 20
    and 46: unique per household, so the household size is a function of it."""
    size = np.array([2, 2, 4, 4, 3, 3])
    v = np.array([0.0, 60.0, 10.0, 50.0, 20.0, 46.0])
    n = int(size.sum())
    return pd.DataFrame({"hid": np.repeat(np.arange(1, 7), size), "sex": list("mf") * (n // 2),
                         "hhsize": np.repeat(size, size), "v": np.repeat(v, size)})


def test_household_size_next_to_household_level_v_does_not_warn():
    df = _households()
    # the old rule's conditions hold: hhsize is a function of v, v has 6 <= 18/2 values
    assert df.groupby("v")["hhsize"].nunique().max() == 1
    assert df["v"].nunique() <= len(df) / 2 and df["hhsize"].nunique() >= 2
    # mean v = 558/18 = 31; group means 30 (size 2: 4 records), 30 (size 4: 8), 33 (size 3: 6):
    # between 4 + 8 + 6*2² = 36; total 2*31² + 2*29² + 4*21² + 4*19² + 3*11² + 3*15² = 7850
    assert _etas(df, [("hhsize", "v")], centre=31.0)[0] == pytest.approx(36 / 7850, abs=1e-12)
    s = sdc.SdcSession(df, keys=["sex"], numeric=["v"], household="hid", seed=2)
    found = s.add_noise(["v"], noise=0.2).release_check()
    assert "derived" not in set(found["check"]), found[["check", "variables"]]
    # a column that does give v back still warns in the same session
    t = sdc.SdcSession(df.assign(vk=df["v"] / 10), keys=["sex"], numeric=["v"],
                       household="hid", seed=2)
    got = _by_variables(t.add_noise(["v"], noise=0.2).release_check())
    assert set(got) == {("vk", "v")} and got[("vk", "v")]["records"] == len(df)


def _readme(data):
    s = sdc.SdcSession(data, keys=["region", "urbrur", "sex", "age5", "marstat"],
                       numeric=["income", "expend", "savings"], weight="w", household="hid",
                       linked={"age5": ["age"]}, seed=42)
    return s.add_noise(["income", "expend", "savings"], noise=0.1, bounds=(0, None))


def test_readme_session_has_no_derived_finding():
    df = sdc.datasets.synthetic_survey(2000, seed=1)
    # hhsize is a function of expend (household level, almost unique per household) ...
    assert df.groupby("expend")["hhsize"].nunique().max() == 1
    # ... that tells little about it: eta² (reference: pandas' group means) 0.17, r 0.40
    g = df["expend"].groupby(df["hhsize"])
    m = df["expend"].mean()
    ref = (g.size() * (g.mean() - m) ** 2).sum() / ((df["expend"] - m) ** 2).sum()
    assert ref == pytest.approx(0.171, abs=1e-3)
    assert _etas(df, [("hhsize", "expend")], centre=m)[0] == pytest.approx(ref, rel=1e-9)
    found = _readme(df).release_check()
    assert "derived" not in set(found["check"]), found[["check", "variables"]]
