"""Frames paired partition by partition stay paired (`sdcsession.scale._pairing`): on a Parquet
session of uneven files whose index restarts at 0 in every file, each step or measure that pairs
two frames' partitions (a step putting its treated columns back, the linked variables, a k per
stratum, the frequency tables, individual and household risk, utility) gives the pandas result
exactly, also after the column projections, element-wise combinations and reductions that let
Dask's optimiser align a frame of two roots by its index (records against other records, or a
raw "cannot reindex" error, not the same way on every run), each repeated 5 times; and the
helper refuses frames whose partitions differ with a named internal error."""

from __future__ import annotations

import warnings

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import MeasureError, TreatmentError
from sdcsession.scale._pairing import compute_paired, map_paired

N = 24
CUTS = [0, 7, 8, 17, N]  # four uneven files, one of a single record
REPEAT = 5
ROLES = {"keys": ["sex", "region", "agegr"], "numeric": ["inc", "exp", "age"], "weight": "w",
         "household": "hid", "seed": 7}
LINKED = {**ROLES, "linked": {"region": ["rname"]}}

#: the steps that pair a frame with its treated columns (and the linked variables with them)
STEPS = {
    "recode": lambda s: s.recode("region", {"c": "a"}),
    "pram": lambda s: s.pram(["agegr"], pd=0.6),
    "noise": lambda s: s.add_noise(["inc", "exp"], noise=0.5),
    "k_per_stratum": lambda s: s.local_suppression(k={"f": 2, "m": 3}, strata=["sex"]),
}


@pytest.fixture(autouse=True)
def _sync():
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.fixture(scope="module")
def path(tmp_path_factory) -> str:
    rng = np.random.default_rng(3)
    df = pd.DataFrame({
        "sex": rng.choice(["m", "f"], N),
        "region": rng.choice(list("abcd"), N // 3)[np.arange(N) // 3],  # one per household
        "agegr": rng.choice(["y", "o"], N),
        "age": rng.integers(18, 90, N),
        "inc": rng.normal(100, 20, N).round(2),
        "exp": rng.normal(50, 10, N).round(2),
        "w": rng.uniform(1, 4, N).round(3),
        "hid": np.arange(N) // 3,  # households of 3, two of them split between files
    })
    df["rname"] = df["region"].map({"a": "north", "b": "east", "c": "south", "d": "west"})
    out = tmp_path_factory.mktemp("uneven")
    for i, (a, b) in enumerate(zip(CUTS[:-1], CUTS[1:])):
        df.iloc[a:b].to_parquet(out / f"part{i}.parquet", index=False)  # index 0.. per file
    return str(out)


def _pandas(path: str) -> pd.DataFrame:
    return pd.read_parquet(path)


def _norm(x) -> pd.DataFrame:
    x = x.to_frame() if isinstance(x, pd.Series) else x
    return x.astype(object).where(x.notna(), None).reset_index(drop=True)


def _same(got, ref) -> bool:
    if isinstance(ref, (pd.Series, pd.DataFrame)):
        return _norm(got).equals(_norm(ref))
    return got == ref


def _views(d) -> list:
    """Projections, element-wise combinations of a frame's own columns and reductions: the same
    expressions on a pandas and a Dask frame."""
    return [
        d,
        d.assign(twice=d["age"] * 2)[["twice", "region", "rname"]],
        d["inc"] - d["exp"],
        d[d["sex"] == "m"]["age"].sum(),
        (d["region"] == "a").sum(),
        d[["agegr", "sex"]].assign(k=d["agegr"].isna() | d["sex"].isna()),
    ]


def _risk_views(freq, ind, hh) -> list:
    return [freq, freq["fk"] * 10 + freq["Fk"], freq.assign(r=ind)[["r", "fk"]], hh,
            (hh * 2 > hh + 0.5).sum()]


UTILITY = ("suppressions", "records_changed", "il1s", "correlation_discrepancy")


def _results(s) -> dict:
    """Everything compared, after every step of the chain `STEPS` run on ``s``: per step the
    data views and notes; after the last step utility, the risk views (fk and Fk from the
    frequency tables, individual and household risk) and scalars."""
    out: dict = {"views": [], "notes": []}
    for step in STEPS.values():
        step(s)
        out["views"].append(_views(s.data))
        out["notes"].append(s.history[-1].notes)
    out["utility"] = [getattr(s.utility, n) for n in UTILITY]
    r = s.risk
    out["risk"] = _risk_views(r.frequencies, r.individual, r.household)
    out["scalars"] = [r.global_risk, r.household_expected_reidentifications, r.k_violations(3)]
    return out


@pytest.fixture(scope="module")
def runs(path) -> tuple[dict, list[dict]]:
    """The pandas results and those of `REPEAT` Dask sessions read from the Parquet files
    (each computed together)."""
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _results(sdc.SdcSession(_pandas(path), **ROLES))
        root = sdc.SdcSession.from_parquet(path, **ROLES)
        got = []
        for run in range(REPEAT):  # each run a branch from the root: new tasks, new graphs
            s = root.branch(f"run{run}")
            res = _results(s)
            views, risk = dask.compute(res["views"], res["risk"])
            got.append({**res, "views": views, "risk": risk, "parts": s.data.npartitions})
    return ref, got


def _compare(got: list, ref: list) -> list[int]:
    return [i for i, (g, r) in enumerate(zip(got, ref, strict=True)) if not _same(g, r)]


@pytest.mark.parametrize("step", range(len(STEPS)), ids=list(STEPS))
def test_step_on_parquet_equals_pandas_after_projections(step, runs):
    """The data after every step (treated columns put back: recode, PRAM, noise, a k per
    stratum, each on the previous one's frame) and the expressions of
    `_views` over them equal pandas, with the same notes, 5 times over."""
    ref, got = runs
    for run, g in enumerate(got):
        assert g["parts"] == len(CUTS) - 1
        bad = _compare(g["views"][step], ref["views"][step])
        assert not bad, (run, bad)
        assert g["notes"][step] == ref["notes"][step]


def test_linked_variables_follow_their_key(path):
    """The recode of a key blanks its linked variable in the changed records (the states before
    and after the step paired partition by partition): the data and `_views` equal pandas, 5
    times over."""
    p = sdc.SdcSession(_pandas(path), **LINKED)
    STEPS["recode"](p)
    notes = p.history[-1].notes
    assert notes["linked_suppressed"]["rname"] == int(p.data["rname"].isna().sum()) > 0
    ref = _views(p.data)
    root = sdc.SdcSession.from_parquet(path, **LINKED)
    for run in range(REPEAT):
        s = root.branch(f"run{run}")
        STEPS["recode"](s)
        bad = _compare(dask.compute(*_views(s.data)), ref)
        assert not bad, (run, bad)
        assert s.history[-1].notes == notes


def test_risk_and_frequency_tables_equal_pandas(runs):
    """fk and Fk (the frequency tables), individual and household risk after the steps, their
    combinations and the scalar figures equal pandas, 5 times over."""
    ref, got = runs
    for run, g in enumerate(got):
        bad = _compare(g["risk"], ref["risk"])
        assert not bad, (run, bad)
        assert g["scalars"] == ref["scalars"]


def test_utility_equals_pandas(runs):
    """Utility of the state after the steps against the original (paired partition by
    partition) equals pandas, 5 times over."""
    ref, got = runs
    for run, g in enumerate(got):
        bad = _compare(g["utility"], ref["utility"])
        assert not bad, (run, bad)


def _pair(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"s": a["x"].to_numpy() + b["y"].to_numpy()}, index=a.index)


def test_helper_pairs_by_position_whatever_the_index():
    """Partition i meets partition i, whatever the index (repeated here); the result is a frame
    of its own, so combining its columns needs no alignment."""
    a = dd.from_pandas(pd.DataFrame({"x": range(6)}, index=[0, 1, 0, 1, 2, 0]), npartitions=3,
                       sort=False)
    b = dd.from_pandas(pd.DataFrame({"y": [10 * v for v in range(6)]},
                                    index=[0, 1, 0, 1, 2, 0]), npartitions=3, sort=False)
    assert a.npartitions == b.npartitions == 3
    out = map_paired(_pair, [a, b], meta=pd.DataFrame({"s": pd.Series(dtype="int64")}),
                     what="test")
    both = out.assign(t=out["s"] * 2)
    assert both.compute()["t"].tolist() == [22 * v for v in range(6)]
    assert compute_paired(lambda p, q: len(p) + len(q), [a, b], what="test") == [4, 4, 4]


def test_helper_refuses_frames_with_other_partitions():
    """Different numbers of partitions, or partitions holding different numbers of records:
    a named internal error, never a pairing of other records."""
    df = pd.DataFrame({"x": range(6), "y": range(6)})
    a = dd.from_pandas(df[["x"]], npartitions=2)
    b = dd.from_pandas(df[["y"]], npartitions=3)
    with pytest.raises(MeasureError, match=r"internal: household risk.*\(\[2, 3\]\)"):
        map_paired(_pair, [a, b], meta=pd.DataFrame({"s": pd.Series(dtype="int64")}),
                   what="household risk", error=MeasureError)
    c = dd.from_pandas(df[["y"]].iloc[:5], npartitions=2)  # 2 partitions, other records
    out = map_paired(_pair, [a, c], meta=pd.DataFrame({"s": pd.Series(dtype="int64")}),
                     what="the treated columns")
    with pytest.raises(TreatmentError, match="internal: the treated columns: partition 1 .*"
                                             "out of step"):
        out.compute()
