"""The ``bound`` finding of the release check on Dask equals pandas over random partitionings
(uneven cuts, one partition, partitions of one record), with the hand-computed counts of
tests/session/test_release_bounds.py: a lower bound undoing a top code, an upper bound after a
bottom code, a noised variable, missing values, a bound the treatment never crosses, and the
findings' passes (no pass of its own)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import SdcWarning

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from .test_dask_release import _Computes  # noqa: E402  (counts the scheduler calls)


@pytest.fixture(autouse=True)
def _sync_quiet():
    with warnings.catch_warnings(), dask.config.set(scheduler="sync"):
        warnings.simplefilter("ignore", SdcWarning)
        yield


def _cut(df: pd.DataFrame, seed: int):
    """``df`` as a Dask frame cut at random: 1 to 6 uneven partitions (some of one record)."""
    rng = np.random.default_rng(seed)
    n = len(df)
    k = int(rng.integers(1, min(6, n) + 1))
    cuts = sorted(rng.choice(np.arange(1, n), size=k - 1, replace=False).tolist()) if k > 1 \
        else []
    if seed % 3 == 2 and n > 3:  # a partition of one record
        cuts = sorted({1, 2, *cuts})
    out = dd.from_pandas(df.reset_index(drop=True), npartitions=1)
    return out.repartition(divisions=[0, *cuts, n - 1])


def _survey() -> pd.DataFrame:
    return sdc.datasets.synthetic_survey(400, seed=1)


def _pid(data):
    s = sdc.SdcSession(data, keys=["region", "sex", "age5", "hhsize"], household="hid", seed=1)
    s.top_bottom_code("hhsize", value=6, replacement=6)
    return s.new_ids().remove("hid")


def _residence() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    age = rng.integers(0, 80, 60)
    age[:6] = [0, 1, 2, 3, 4, 4]
    yrs = np.where(rng.random(60) < 0.3, age, np.floor(age * rng.random(60))).astype(int)
    return pd.DataFrame({"sex": rng.choice(["m", "f"], 60), "yrs": yrs, "age": age})


def _yrs(data):
    s = sdc.SdcSession(data, keys=["sex", "yrs"], seed=1)
    return s.top_bottom_code("yrs", value=5, replacement=5, kind="bottom")


def _wages() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    wage = rng.gamma(2.0, 1000.0, 80).round(-2)
    other = np.where(rng.random(80) < 0.4, 0.0, rng.gamma(2.0, 1500.0, 80)).round(2)
    rooms = rng.integers(1, 4, 80)  # (not a bound of income: only of its range)
    return pd.DataFrame({"sex": rng.choice(["m", "f"], 80), "wage": wage, "income": wage + other,
                         "rooms": rooms})


def _noise(data):
    s = sdc.SdcSession(data, keys=["sex"], numeric=["income"], seed=1)
    return s.add_noise(["income"], noise=0.5, bounds=(0, None))


def _missing() -> pd.DataFrame:
    return pd.DataFrame({
        "sex": list("mfmfmfmfmf"),
        "hhsize": [1, 2, 2, 8, 8, 9, np.nan, 7, 3, 9],
        "pid": pd.array([1, 1, None, 7, 8, 9, 12, 7, 3, None], dtype="Int64"),
        "flag": [True, False] * 5,
    })


def _blanked(data):
    s = sdc.SdcSession(data, keys=["sex", "hhsize"], seed=1)
    s.top_bottom_code("hhsize", value=8, replacement=np.nan)
    return s.top_bottom_code("hhsize", value=6, replacement=6)


def _crossings(df: pd.DataFrame, released: pd.DataFrame, d: str, v: str, upper: bool) -> int:
    """By hand: the records where the released v is on the wrong side of d (both observed)."""
    rd, rv = df[d].astype("float64"), released[v].astype("float64")
    return int(((rd < rv) if upper else (rd > rv)).sum())


#: (data, steps, the expected bound pairs: (d, v, upper))
CASES = {
    "top_code": (_survey, _pid, [("pid", "hhsize", False)]),
    "bottom_code": (_residence, _yrs, [("age", "yrs", True)]),
    "noise": (_wages, _noise, [("wage", "income", False)]),
    "missing": (_missing, _blanked, [("pid", "hhsize", False)]),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bound_findings_equal_pandas_on_random_partitionings(case, seed):
    make, steps, want = CASES[case]
    df = make()
    p = steps(df)
    d = steps(_cut(df, seed))
    assert d.data.npartitions >= 1
    a, b = p.release_check(), d.release_check()
    cols = ["severity", "check", "records", "message"]
    assert a[cols].equals(b[cols]), (a[cols], b[cols])
    assert a["variables"].tolist() == b["variables"].tolist()
    got = {tuple(r.variables): r.records for r in a.itertuples() if r.check == "bound"}
    assert got == {(x, v): _crossings(df, p.data, x, v, up) for x, v, up in want}
    assert all(m > 0 for m in got.values())


def test_hand_counts_of_the_cases():
    """The counts the parity test expects, written out: pid > 6 in the survey, age < 5 in the
    residence data, 18 wages above the noised income, 3 crossings with missing values."""
    df = _survey()
    assert _crossings(df, _pid(df).data, "pid", "hhsize", False) == int((df["pid"] > 6).sum())
    df = _residence()
    assert _crossings(df, _yrs(df).data, "age", "yrs", True) == int((df["age"] < 5).sum()) == 11
    assert _crossings(_wages(), _noise(_wages()).data, "wage", "income", False) == 18
    assert _crossings(_missing(), _blanked(_missing()).data, "pid", "hhsize", False) == 3


def test_bounds_add_no_pass():
    """The bound statistics are computed in the round of the other findings' counts: a
    repeated release check costs the same three passes as without bound pairs (see
    tests/scale/test_dask_release.py)."""
    d = _pid(dd.from_pandas(_survey(), npartitions=4))
    d.release_check()
    with _Computes() as c:
        found = d.release_check()
    assert "bound" in set(found["check"])
    assert c.calls == 3
