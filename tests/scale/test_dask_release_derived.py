"""The ``derived`` finding on Dask: the correlation ratio from the sums per value of d (one pass
for every pair, a hash shuffle on d's values) gives the pandas findings, record counts and
messages, whatever the partitioning (the pandas cases in
tests/session/test_release_derived.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.session.release.reductions import group_sums, group_sums_rounds
from sdcsession.session.release.rounds import run_dask

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

# the noise leaves the test variables' whole numbers: not what these tests are about
pytestmark = pytest.mark.filterwarnings("ignore:add_noise:sdcsession.errors.SdcWarning")


def _parted(df: pd.DataFrame, cuts: list[int]) -> dd.DataFrame:
    """``df`` in partitions that start at the positions ``cuts`` (any sizes, at least 1)."""
    n = len(df)
    inner = sorted({c for c in cuts if 0 < c < n - 1})
    f = dd.from_pandas(df.reset_index(drop=True), npartitions=1)
    return f.repartition(divisions=[0, *inner, n - 1])


def _functions() -> pd.DataFrame:
    v = np.array([110, 110, 140, 140, 420, 420, 460, 460, 1010, 1010, 990, 990], dtype=float)
    df = pd.DataFrame({"sex": list("mf") * 6, "v": v, "logv": np.log(v),
                       "v100": np.round(v, -2), "odd": np.tile([1.0, 2.0], 6)})
    df.loc[[0, 1], "v100"] = np.nan
    return pd.concat([df, pd.DataFrame({"sex": ["m"], "v": [np.nan], "v100": [400.0],
                                        "odd": [1.0]})], ignore_index=True)


def _households() -> pd.DataFrame:
    size = np.array([2, 2, 4, 4, 3, 3])
    v = np.array([0.0, 60.0, 10.0, 50.0, 20.0, 46.0])
    n = int(size.sum())
    return pd.DataFrame({"hid": np.repeat(np.arange(1, 7), size), "sex": list("mf") * (n // 2),
                         "hhsize": np.repeat(size, size), "v": np.repeat(v, size),
                         "vk": np.repeat(v, size) / 10})


def _check(data, household: str | None = None):
    s = sdc.SdcSession(data, keys=["sex"], numeric=["v"], household=household, seed=4)
    return s.add_noise(["v"], noise=0.2).release_check()


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    cols = ["severity", "check", "records", "message"]
    assert a[cols].equals(b[cols]), (a[cols], b[cols])
    assert a["variables"].tolist() == b["variables"].tolist()


@pytest.mark.parametrize("npartitions", [1, 3, 5])
def test_group_sums_by_hand_and_through_the_shuffle(npartitions, scheduler):
    df = pd.DataFrame({"d": [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, np.nan, 0.0],
                       "v": [1.0, 2.0, 3.0, 4.0, 10.0, 10.0, 100.0, np.nan]})
    f = dd.from_pandas(df, npartitions=npartitions)
    # x = v - 5 = -4, -3 | -2, -1 | 5, 5: n 6, sum 0, sum of squares 80,
    # sum_g S_g²/n_g = 49/2 + 9/2 + 100/2 = 79, v from 1 to 10
    want = [6.0, 0.0, 80.0, 79.0, 1.0, 10.0]
    assert group_sums(f, [("d", "v")], [5.0]) == [want]
    # three output partitions: the sums of one d value meet in one of them
    got = run_dask(group_sums_rounds(f, [("d", "v"), ("v", "d")], [5.0, 0.0], parts=3))
    assert got[0] == want
    # d given v (each v its own group but 10): the d values 0, 0, 1, 1, 2, 2
    assert got[1] == [6.0, 6.0, 10.0, 10.0, 0.0, 2.0]
    empty = dd.from_pandas(pd.DataFrame({"d": [np.nan] * 4, "v": [1.0] * 4}),
                           npartitions=min(npartitions, 4))
    assert group_sums(empty, [("d", "v")], [0.0]) == [[0.0, 0.0, 0.0, 0.0, math.inf,
                                                       -math.inf]]


@settings(max_examples=6, deadline=None)
@given(st.lists(st.integers(1, 18), max_size=5))
def test_functions_and_household_size_equal_pandas_any_partitioning(cuts):
    fn, hh = _functions(), _households()
    a, c = _check(fn), _check(hh, "hid")
    with dask.config.set(scheduler="sync"):
        b = _check(_parted(fn, cuts))
        d = _check(_parted(hh, cuts), "hid")
    _same(a, b)
    _same(c, d)
    got = {tuple(r.variables): r for r in b.itertuples() if r.check == "derived"}
    # log(v) and round(v, -2) warn (eta² 1 and 1 - 400/1,167,440), the household size does not
    assert set(got) == {("logv", "v"), ("v100", "v")}
    assert got[("v100", "v")].records == 10 and "eta^2 = 0.9997" in got[("v100", "v")].message
    assert "eta^2 = 1.0000" in got[("logv", "v")].message
    assert [r.variables for r in d.itertuples() if r.check == "derived"] == [["vk", "v"]]


def _readme(data):
    s = sdc.SdcSession(data, keys=["region", "urbrur", "sex", "age5", "marstat"],
                       numeric=["income", "expend", "savings"], weight="w", household="hid",
                       linked={"age5": ["age"]}, seed=42)
    return s.add_noise(["income", "expend", "savings"], noise=0.1, bounds=(0, None))


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    df = sdc.datasets.synthetic_survey(2000, seed=1)
    # two functions of expend that give it back, next to hhsize that does not
    return df.assign(lexp=np.log1p(df["expend"].round(-2)), exp_k=df["expend"].round(-3))


@pytest.mark.parametrize("cuts", [[], [700, 3100, 3101, 5000], [1, 2, 6000]])
def test_readme_session_equal_pandas(survey, cuts):
    a = _readme(survey).release_check()
    with dask.config.set(scheduler="sync"):
        b = _readme(_parted(survey, cuts)).release_check()
    _same(a, b)
    found = {tuple(v) for c, v in zip(b["check"], b["variables"]) if c == "derived"}
    assert found == {("lexp", "expend"), ("exp_k", "expend")}
