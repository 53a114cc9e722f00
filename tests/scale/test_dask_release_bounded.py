"""The bounded-memory paths of a Dask release: the export's shuffle into equal ranges of the
order key (no pass to find the boundaries), the release check's counts by hash shuffles and
partition-wise reductions (distinct values, functional dependencies, rare weights) and the
one-pass changed counts, each against hand-computed values and the pandas path, over several
partitionings (Parquet files with their index included)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import SdcWarning
from sdcsession.session.release.aligned import Aligned, same_values
from sdcsession.session.release.order import order_keys, order_seed

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from sdcsession.session.distributed.release import order_divisions, released_frame  # noqa: E402
from sdcsession.session.release.reductions import (  # noqa: E402
    determines,
    distinct_counts,
    rare_values,
)

PARTS = [1, 2, 3, 7]


def test_order_divisions_are_equal_ranges_of_int64():
    assert order_divisions(1) == [-2**63, 2**63 - 1]
    assert order_divisions(2) == [-2**63, 0, 2**63 - 1]
    assert order_divisions(4) == [-2**63, -2**62, 0, 2**62, 2**63 - 1]
    assert order_divisions(0) == order_divisions(1)
    d = order_divisions(96)
    assert len(d) == 97 and all(a < b for a, b in zip(d, d[1:]))


def _frame(n: int = 12) -> pd.DataFrame:
    return pd.DataFrame({"sex": list("mfmfmfmfmfmf")[:n], "v": np.arange(n) * 10})


@pytest.mark.parametrize("npartitions", PARTS)
def test_released_frame_is_the_order_of_the_keys(npartitions, scheduler):
    df = _frame()
    p = sdc.SdcSession(df, keys=["sex"], seed=4)
    d = sdc.SdcSession(dd.from_pandas(df, npartitions=npartitions), keys=["sex"], seed=4)
    seed = order_seed(p)
    assert order_seed(d) == seed
    # by hand: record p goes to the rank of mix64(p + seed) among the 12 keys
    want = (np.argsort(order_keys(np.arange(12), seed)) * 10).tolist()
    out = released_frame(d, shuffle=True)
    assert out.npartitions == npartitions
    parts = [out.get_partition(i).compute() for i in range(npartitions)]
    got = pd.concat(parts)
    assert got["v"].tolist() == want == p.data_for_release()["v"].tolist()
    # each output partition holds exactly the records whose keys fall in its range
    div = order_divisions(npartitions)
    keys = order_keys(np.asarray(got["v"]) // 10, seed)
    sizes = [int(((keys >= div[i]) & ((keys < div[i + 1]) | (i == npartitions - 1))).sum())
             for i in range(npartitions)]
    assert [len(q) for q in parts] == sizes


@pytest.mark.parametrize("npartitions", [1, 3, 5])
def test_parquet_export_equals_pandas(npartitions, tmp_path, scheduler):
    rng = np.random.default_rng(7)
    n = 50
    df = pd.DataFrame({"sex": rng.choice(["m", "f"], n), "age5": rng.choice(["0", "5", "10"], n),
                       "x": rng.normal(size=n).round(2), "w": rng.choice([1.0, 2.0, 3.5], n)})
    src = tmp_path / "src"
    dd.from_pandas(df, npartitions=npartitions).to_parquet(src)  # index included
    roles = {"keys": ["sex", "age5"], "numeric": ["x"], "weight": "w", "seed": 3}
    d = sdc.SdcSession.from_parquet(src, **roles).recode("age5", {"5": "0"})
    p = sdc.SdcSession(df, **roles).recode("age5", {"5": "0"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        back = pd.read_parquet(d.export(tmp_path / "out", force=True))
        p.export(tmp_path / "out.parquet", force=True)
    mine = pd.read_parquet(tmp_path / "out.parquet")
    assert list(back.columns) == list(mine.columns) == ["sex", "age5", "x", "w"]
    for c in mine.columns:
        assert back[c].astype(object).tolist() == mine[c].astype(object).tolist(), c
    assert sorted(back["x"]) == sorted(df["x"])


def _hand() -> pd.DataFrame:
    return pd.DataFrame({
        "id": [1, 2, 3, 4, 5, 6, 7, 8],
        "x": ["a", "a", "b", "b", None, "c", "c", "c"],
        "y": [1.0, 2.0, 3.0, 3.0, 4.0, np.nan, np.nan, 5.0],
        "w": [1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 4.0, 4.0],
        "lst": [[1], [1], [2], [2], [3], None, [1], [4]],
    })


@pytest.mark.parametrize("npartitions", PARTS)
def test_distinct_counts_by_hand(npartitions, scheduler):
    f = dd.from_pandas(_hand(), npartitions=npartitions)
    got = distinct_counts(f, ["id", "x", "y", "lst"])
    # observed / distinct observed: ids all distinct; x: a, b, c of 7; y: 1..5 of 6;
    # lst by text: [1], [2], [3], [4] of 7
    assert got == {"id": (8, 8), "x": (7, 3), "y": (6, 5), "lst": (7, 4)}


@pytest.mark.parametrize("npartitions", PARTS)
def test_determines_by_hand(npartitions, scheduler):
    f = dd.from_pandas(_hand(), npartitions=npartitions)
    # x -> y: a has {1, 2}, b {3}, c {NaN, 5}: 2; y -> x: every y one x (NaN y left out): 1;
    # id -> x: 1; w -> id: w = 1.0 has three ids
    assert determines(f, [("x", "y"), ("y", "x"), ("id", "x"), ("w", "id")]) == \
        [2.0, 1.0, 1.0, 3.0]
    empty = dd.from_pandas(pd.DataFrame({"a": [np.nan] * 4, "b": [1, 2, 3, 4]}),
                           npartitions=min(npartitions, 4))
    assert np.isnan(determines(empty, [("a", "b")])[0])


@pytest.mark.parametrize("npartitions", PARTS)
def test_rare_values_by_hand(npartitions, scheduler):
    w = dd.from_pandas(_hand(), npartitions=npartitions)["w"]
    # frequencies: 1.0 x3, 2.0 x2, 3.0 x1, 4.0 x2
    assert rare_values(w, 2) == (1, 1)
    assert rare_values(w, 3) == (5, 3)
    assert rare_values(w, 4) == (8, 4)
    assert rare_values(w, 1) == (0, 0)


@pytest.mark.parametrize("npartitions", PARTS)
def test_changed_counts_both_engines(npartitions, scheduler):
    org = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0, 5.0, 6.0], "b": list("xyzxyz"),
                        "c": [1, 2, 3, 4, 5, 6]})
    rel = org.assign(a=[1.0, np.nan, np.nan, 4.5, 5.0, 6.0], b=list("xyzzyz"))
    want = {"a": 2, "b": 1, "c": 0}
    assert Aligned(rel, org).changed(["a", "b", "c", "absent"]) == want
    al = Aligned(dd.from_pandas(rel, npartitions=npartitions),
                 dd.from_pandas(org, npartitions=npartitions))
    assert al.changed(["a", "b", "c"]) == want
    # the numeric fast path gives what the object comparison gives
    for c in org.columns:
        assert (same_values(rel[c], org[c])
                == same_values(rel[c].astype(object), org[c].astype(object))).all()


def _steps(data):
    s = sdc.SdcSession(data, keys=["x"], numeric=["y"], weight="w", seed=1, k=3)
    return s.recode("x", {"b": "a"})


@pytest.mark.parametrize("npartitions", PARTS)
def test_release_check_counts_equal_pandas_and_hand(npartitions, scheduler):
    df = _hand().drop(columns=["lst"]).assign(z=["p", "p", "q", "q", "r", "s", "s", "s"])
    a = _steps(df).release_check()
    b = _steps(dd.from_pandas(df, npartitions=npartitions)).release_check()
    cols = ["severity", "check", "records"]
    assert a[cols].equals(b[cols]) and a["variables"].tolist() == b["variables"].tolist()
    got = {(r.check, tuple(r.variables)): r.records for r in b.itertuples()}
    assert got[("identifier", ("id",))] == 8  # 8 distinct ids
    # rare weights (k = 3): 2.0 x2, 3.0 x1, 4.0 x2
    assert got[("weights", ("w",))] == 5
    # z (no role) determines the original x (p->a, q->b, r->None, s->c); the two records
    # whose x changed (b -> a) still show z
    assert got[("undeclared_linked", ("x", "z"))] == 2
    assert got[("numeric", ("y",))] == 8


def test_rounds_gather_and_keep_the_order_of_mixed_collections():
    """Counts computed in rounds: side by side, each generator gets its own values back, in
    the order asked, also when a round mixes Dask collections and delayed values (which
    ``dask.compute`` alone returns out of order)."""
    from sdcsession.session.release.rounds import compute_for, gather, run, values

    f = dd.from_pandas(pd.DataFrame({"a": np.arange(10)}), npartitions=3)

    def two_rounds():
        (m,) = yield (f["a"].max(),)
        (s,) = yield (f["a"][f["a"] < m].sum(),)
        return int(m), int(s)

    def mixed():
        got = yield (f["a"].sum(), dask.delayed(lambda: "d1")(), f["a"].min(),
                     dask.delayed(lambda: "d2")(), f["a"])
        return got

    with dask.config.set(scheduler="sync"):
        a, b, c = run(gather(two_rounds(), mixed(), values()), compute_for(f))
    assert a == (9, 36)
    assert b[:4] == (45, "d1", 0, "d2") and b[4].tolist() == list(range(10))
    assert c == ()
    # pandas: the values as they are, the same generators
    p = pd.DataFrame({"a": np.arange(10)})
    assert run(values(p["a"].max(), 3), compute_for(p)) == (9, 3)
