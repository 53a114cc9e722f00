"""A Dask session releases what a pandas session releases: new ids, the record order of the
export, and the same release-check findings (households, identifiers, linked and undeclared
linked columns, derived columns, order, weights)."""

from __future__ import annotations

import contextlib
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import SdcWarning

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
callbacks = pytest.importorskip("dask.callbacks")

EUSILC = Path("/work/shared/conformance/data/eusilc.csv")
COLUMNS = ["db030", "hsize", "db040", "rb030", "age", "rb090", "py010n", "eqSS", "rb050"]


@pytest.fixture(scope="module")
def silc() -> pd.DataFrame:
    if not EUSILC.exists():
        pytest.skip("the conformance data are not available")
    df = pd.read_csv(EUSILC, usecols=COLUMNS)
    df["rid"] = np.arange(1.0, len(df) + 1)
    df.loc[7, "rid"] = np.nan
    df["inc2"] = (df["py010n"] / 1000).round(1)
    return df


def _steps(data):
    s = sdc.SdcSession(data, keys=["hsize", "db040", "rb090"], numeric=["py010n"],
                       household="db030", weight="rb050", linked={"rb090": ["age"]}, seed=5)
    s.top_bottom_code("hsize", 6, 6, kind="top")
    s.recode("rb090", {"female": "person", "male": "person"})
    return s.add_noise(["py010n"], noise=0.2)


@pytest.mark.parametrize("npartitions,on", [
    (2, "sync"), (5, "sync"), pytest.param(5, "cluster", marks=pytest.mark.slow)])
def test_release_check_same_findings_as_pandas(silc, npartitions, on, request):
    """Sync scheduler on two layouts, the LocalCluster on one (a cluster run costs 15-30 s)."""
    p = _steps(silc)
    d = _steps(dd.from_pandas(silc, npartitions=npartitions))
    with contextlib.ExitStack() as stack:
        if on == "cluster":
            client = request.getfixturevalue("cluster_client")
            # the setting is made (and so undone) inside as_current(): built before it, it was
            # undone first and as_current() then put the client back as the default scheduler
            stack.enter_context(client.as_current())
            stack.enter_context(dask.config.set(scheduler=client))
        else:
            stack.enter_context(dask.config.set(scheduler="sync"))
        found = [(p.release_check(shuffle=sh), d.release_check(shuffle=sh))
                 for sh in (True, False)]
    for a, b in found:
        cols = ["severity", "check", "records"]
        assert a[cols].equals(b[cols]), (a[cols], b[cols])
        assert a["variables"].tolist() == b["variables"].tolist()
    checks = set(a["check"])
    assert {"household_structure", "identifier", "derived", "order"} <= checks
    # linked variables are blanked by the steps themselves (on both engines): nothing left
    assert "linked" not in checks


class _Computes(callbacks.Callback):
    """Counts the scheduler calls (``dask.compute``, ``.compute()``, ``persist``)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def _start(self, dsk) -> None:
        self.calls += 1


@pytest.mark.parametrize("shuffle", [True, False])
def test_release_check_computes_are_bounded(silc, shuffle):
    """The structure's and the risk's counts are computed in three passes (the identifiers
    and the changed records; every finding's counts; the counts that depend on those),
    whatever the number of columns; a fresh state adds its record count and its risk model.
    The findings stay those of pandas."""
    wide = silc.assign(**{f"x{j}": silc["py010n"] * (j + 2) for j in range(2)},
                       **{f"c{j}": silc["db040"] + str(j) for j in range(2)})
    p = _steps(wide)
    # the synchronous scheduler throughout (not a client another test left as the default)
    with dask.config.set(scheduler="sync"):
        d = _steps(dd.from_pandas(wide, npartitions=7))
        fresh = _Computes()
        with fresh:
            b = d.release_check(shuffle=shuffle)
        again = _Computes()
        with again:  # the state's record count and risk measures are cached now
            c = d.release_check(shuffle=shuffle)
    a = p.release_check(shuffle=shuffle)
    cols = ["severity", "check", "records"]
    for got in (b, c):
        assert a[cols].equals(got[cols]) and a["variables"].tolist() == got["variables"].tolist()
    assert {"household_structure", "identifier", "derived"} <= set(a["check"])
    assert again.calls == 3
    # + the record count + the risk model's passes (5) + the model at alpha = 0 (keys are
    # missing after the suppression: the ``wildcards`` count, 5)
    assert fresh.calls <= 3 + 1 + 5 + 5


@pytest.mark.parametrize("npartitions", [1, 7])  # any partitioning: the hypothesis test below
def test_new_ids_and_export_order_equal_pandas(silc, npartitions, tmp_path):
    p = _steps(silc).new_ids()
    d = _steps(dd.from_pandas(silc, npartitions=npartitions)).new_ids()
    assert d.data.compute()["db030"].reset_index(drop=True).equals(p.data["db030"])
    assert not (p.data["db030"] == silc["db030"]).any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        out = d.export(tmp_path / "silc.parquet", force=True)
    back = pd.read_parquet(out)
    mine = p.data_for_release()
    assert back["db030"].tolist() == mine["db030"].tolist()
    assert back["hsize"].tolist() == mine["hsize"].tolist()
    assert d.data_for_release().compute()["db030"].tolist() == mine["db030"].tolist()
    from sdcsession.session.release.order import order_seed

    assert d.last_export["shuffled"] and d.last_export["order_seed"] == order_seed(p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        kept = pd.read_parquet(d.export(tmp_path / "kept.parquet", force=True, shuffle=False))
    assert kept["db030"].tolist() == p.data["db030"].tolist()


def _small(n: int = 80, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 60, n)
    df = pd.DataFrame({"sex": rng.choice(["m", "f"], n), "age": age,
                       "age5": (age // 5 * 5).astype(str), "income": rng.gamma(2, 1000, n),
                       "w": np.repeat([10.0, 20.0], n // 2), "rid": np.arange(1.0, n + 1)})
    df.loc[0, "w"] = 77.0
    df.loc[3, "rid"] = np.nan
    df["income_k"] = (df["income"] / 1000).round(1)
    return df.rename_axis("pid")


def test_small_file_findings_equal_pandas(scheduler):
    df = _small()

    def steps(data):
        s = sdc.SdcSession(data, keys=["sex", "age5"], numeric=["income"], weight="w", seed=2)
        s.recode("age5", {"20": "20-29", "25": "20-29"})
        return s.add_noise(["income"], noise=0.2)

    a = steps(df).release_check(shuffle=False)
    b = steps(dd.from_pandas(df, npartitions=3)).release_check(shuffle=False)
    cols = ["severity", "check", "records"]
    assert a[cols].equals(b[cols]) and a["variables"].tolist() == b["variables"].tolist()
    got = {(r.check, tuple(r.variables)): r.records for r in a.itertuples()}
    assert got[("identifier", ("rid",))] == len(df) - 1
    assert got[("identifier", ("pid",))] == len(df)
    assert got[("undeclared_linked", ("age5", "age"))] == int(df["age5"].isin(["20", "25"]).sum())
    assert got[("derived", ("income_k", "income"))] == len(df)
    assert got[("weights", ("w",))] == 1


@settings(max_examples=8, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 9), st.none()), min_size=2, max_size=30),
       st.integers(1, 4), st.integers(0, 2**32))
def test_new_ids_dask_equal_pandas_any_partitioning(labels, npartitions, seed):
    df = pd.DataFrame({"hid": pd.array(labels, dtype="Int64").astype("float64"),
                       "sex": ["m", "f"] * (len(labels) // 2) + ["m"] * (len(labels) % 2)})
    with dask.config.set(scheduler="sync"):
        p = sdc.SdcSession(df, keys=["sex"], seed=seed).new_ids("hid")
        d = sdc.SdcSession(dd.from_pandas(df, npartitions=npartitions), keys=["sex"],
                           seed=seed).new_ids("hid")
        got = d.data.compute()["hid"].reset_index(drop=True)
    assert got.equals(p.data["hid"])
