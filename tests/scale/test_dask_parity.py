"""Pandas and Dask give one answer: every step offered on both paths, run on a Parquet dataset
split at random (one partition, many tiny ones, uneven ones, several pandas files, Dask's writer
with and without the index, the index read with ``from_parquet(index=...)``, one file of row
groups of 2 records, i.e. households split over partitions, an empty file), equals the pandas path
on the same data and seed bit for bit — data, notes, roles, the risk and utility figures and the
release check's findings (noise included: the same normal draws per record, moments from exact
sums); the same inputs are refused on both paths, and what Dask cannot offer is refused by name;
roles are validated at construction on both; a recipe recorded on a Parquet session replays bit
for bit in a fresh process on both."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import sdcsession as sdc
from sdcsession.errors import DataFileError, RoleError, SdcError, TreatmentError

ROLES = {"keys": ["sex", "region", "agegr"], "numeric": ["inc", "exp", "age"], "weight": "w",
         "household": "hid", "seed": 7}
N = 36


@pytest.fixture(autouse=True)
def _sync():
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _data(n: int = N) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    return pd.DataFrame({
        "id": np.arange(n),
        "sex": rng.choice(["m", "f"], n),
        "region": rng.choice(["a", "b", "c", "d"], n // 3 + 1)[np.arange(n) // 3],  # per household
        "agegr": rng.choice(["y", "o"], n),
        "age": rng.integers(18, 90, n),
        "inc": rng.normal(100, 20, n).round(2),
        "exp": rng.normal(50, 10, n).round(2),
        "w": rng.uniform(1, 4, n).round(3),
        "hid": np.arange(n) // 3,  # households of 3: split by cuts and tiny row groups
        "note": rng.choice(["x", "y"], n),
    })


def _layout(kind: int, seed: int, tmp) -> tuple[str, dict]:
    """A Parquet dataset of the data and how to read it: several pandas files cut at random
    (1 to 8 of them, uneven, some of one record), Dask's own writer with and without the index,
    one file of row groups of 2 records read one row group per partition, or files of which one
    is empty."""
    df = _data()
    rng = np.random.default_rng(seed)
    path = str(tmp / f"d{kind}_{seed}")
    if kind == 0:
        k = int(rng.integers(1, 9))
        cuts = np.sort(rng.choice(np.arange(1, N), size=k - 1, replace=False)) if k > 1 else []
        os.makedirs(path)
        for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, N])):
            df.iloc[a:b].to_parquet(f"{path}/part{i:02d}.parquet")
        return path, {}
    if kind == 1:
        dd.from_pandas(df, npartitions=int(rng.integers(1, 7))).to_parquet(path)
        return path, {}
    if kind == 2:
        dd.from_pandas(df, npartitions=int(rng.integers(1, 7))).to_parquet(path,
                                                                          write_index=False)
        return path, {}
    if kind == 4:  # an empty file among others
        os.makedirs(path)
        for i, (a, b) in enumerate([(0, 10), (10, 10), (10, N)]):
            df.iloc[a:b].to_parquet(f"{path}/part{i:02d}.parquet")
        return path, {}
    path += ".parquet"
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path, row_group_size=2)
    return path, {"split_row_groups": True}


def _sessions(path: str, read: dict, index: str | None = None, **kw):
    roles = {**ROLES, **kw}
    if read:
        ddf = dd.read_parquet(path, index=index, **read)
        s = sdc.SdcSession(ddf, **roles)
    else:
        s = sdc.SdcSession.from_parquet(path, index=index, **roles)
    df = pd.read_parquet(path)
    if df.index.name == "__null_dask_index__":  # Dask's unnamed index, as Dask reads it
        df = df.rename_axis(None)
    if index is not None:
        df = df.set_index(index)
    return s, sdc.SdcSession(df, **roles)


def _norm(x: pd.DataFrame) -> pd.DataFrame:
    return x.astype(object).where(x.notna(), None).reset_index(drop=True)


#: every step offered on both paths (name: the step on a session)
STEPS = {
    "recode": lambda s: s.recode("region", {"c": "a", "d": "b"}),
    "group_categories": lambda s: s.group_categories("region", {"ab": ["a", "b"]}),
    "global_recode_breaks": lambda s: s.global_recode("age", breaks=[0, 40, 65, 120]),
    "global_recode_n": lambda s: s.global_recode("inc", breaks=3),
    "global_recode_equidistant": lambda s: s.global_recode("exp", method="equidistant", n=4),
    "top_code": lambda s: s.top_bottom_code("inc", 110, 110, kind="top"),
    "bottom_code": lambda s: s.top_bottom_code("age", 25, 25, kind="bottom"),
    "round": lambda s: s.round_values(["inc", "exp"], digits=0),
    "remove": lambda s: s.remove("note"),
    "new_ids": lambda s: s.new_ids(),
    "pram": lambda s: s.pram(["agegr"], pd=0.6, alpha=0.5),
    "pram_strata_two": lambda s: s.pram(["agegr", "sex"], pd=0.7, strata=["region"]),
    "pram_given": lambda s: s.pram(["agegr"], pd=0.7, given=["sex"]),
    "noise_additive": lambda s: s.add_noise(["inc", "exp"], noise=0.5),
    "noise_additive0": lambda s: s.add_noise(["inc", "age"], method="additive0", noise=0.5),
    "noise_correlated": lambda s: s.add_noise(["inc", "exp", "age"], method="correlated"),
    "noise_correlated2": lambda s: s.add_noise(["inc", "exp"], method="correlated2"),
    "noise_bounds": lambda s: s.add_noise(["age"], noise=2.0, bounds=(18, 90)),
    "local_suppression_strata_key": lambda s: s.local_suppression(k=3, strata=["sex"]),
    "local_suppression_strata_other": lambda s: s.local_suppression(k=2, strata=["note"]),
    "local_suppression_household": lambda s: s.local_suppression(k=2, strata=["region"],
                                                                 household=True),
    "local_suppression_weighted": lambda s: s.local_suppression(k=4, strata=["note"],
                                                                weighted=True),
    "local_suppression_importance": lambda s: s.local_suppression(
        k=2, strata=["sex"], importance=["agegr", "region", "sex"]),
    "microaggregation_strata": lambda s: s.microaggregation(["inc", "exp"], k=3,
                                                            strata=["region"]),
    "microaggregation_onedims": lambda s: s.microaggregation(["inc", "exp"], k=3,
                                                             method="onedims", strata=["sex"]),
    "two_steps": lambda s: s.recode("region", {"d": "c"}).pram(["sex"], pd=0.8),
}

#: the partitionings a step runs on: (layout kind, seed, index read from Parquet); kinds as
#: `_layout` (0 random cuts into 1..8 files, 1 Dask's writer with the index, 2 without it,
#: 3 one file of row groups of 2 records, i.e. smaller than a household, 4 with an empty file)
LAYOUTS = [(0, 0, None), (1, 1, None), (2, 2, None), (3, 0, None), (0, 5, "id"), (4, 0, None),
           (1, 3, "id"), (0, 7, None)]


def _layouts_for(step: str) -> list[tuple[int, int, str | None]]:
    """The partitioning of a step: the steps go round the layouts (every layout is used by
    several steps, every step by one layout; `test_steps_on_every_layout` runs a chain of
    steps on all of them)."""
    return [LAYOUTS[list(STEPS).index(step) % len(LAYOUTS)]]


def _risk(s) -> dict:
    r = s.risk
    out = {"global_risk": r.global_risk, "expected": r.expected_reidentifications,
           "household": r.household_expected_reidentifications,
           **{f"k{k}": r.k_violations(k) for k in (2, 3, 4)},
           "k3w": r.k_violations(3, weighted=True)}
    for name in ("fk", "Fk"):
        v = r.frequencies[name]
        out[name] = (v.compute() if hasattr(v, "compute") else v).to_numpy().tolist()
    ind = r.individual
    out["individual"] = (ind.compute() if hasattr(ind, "compute") else ind).to_numpy().tolist()
    hh = r.household
    out["household_risk"] = (hh.compute() if hasattr(hh, "compute") else hh).to_numpy().tolist()
    return out


def _figures(s) -> dict:
    """Everything both paths offer after a step: data, notes, roles, risk, utility, release."""
    data = s.data
    out = {"data": _norm(data.compute() if hasattr(data, "compute") else data),
           "notes": [st.notes for st in s.history], "roles": s.roles, "risk": _risk(s)}
    u = s.utility
    for name in ("suppressions", "records_changed", "entropy_change", "il1s",
                 "correlation_discrepancy"):
        out[name] = getattr(u, name)
    out["release"] = s.release_check().reset_index(drop=True)
    return out


def _equal(a, b) -> bool:
    if isinstance(a, pd.DataFrame):
        return a.equals(b)
    return a == b


@pytest.mark.parametrize("step", list(STEPS))
def test_every_step_equals_pandas_bit_for_bit(step, tmp_path):
    """Data, notes, roles, risk, utility and release findings equal bit for bit, on two
    partitionings per step (noise included: the same draws per record, moments from exact
    sums)."""
    refs: dict = {}
    for kind, seed, index in _layouts_for(step):
        path, read = _layout(kind, seed + 31 * kind, tmp_path)
        s, p = _sessions(path, read, index=index)
        STEPS[step](s)
        got = _figures(s)
        if index not in refs:  # the pandas session of the same data (index as read)
            STEPS[step](p)
            refs[index] = _figures(p)
        ref = refs[index]
        bad = [k for k in ref if not _equal(got[k], ref[k])]
        assert not bad, (step, kind, seed, index, bad,
                         {k: (got[k], ref[k]) for k in bad if k != "data"})
        assert got["data"].shape[0] == N


@pytest.mark.parametrize("index", [None, "id"])
def test_from_parquet_index_and_notes_equal(index, tmp_path):
    path, read = _layout(0, 5, tmp_path)
    s, p = _sessions(path, read, index=index)
    for t in (lambda x: x.recode("region", {"c": "a"}),
              lambda x: x.pram(["sex"], pd=0.6), lambda x: x.local_suppression(k=2, strata=["sex"])):
        t(s)
        t(p)
        assert s.history[-1].notes["changed" if "changed" in p.history[-1].notes else "total"] \
            == p.history[-1].notes["changed" if "changed" in p.history[-1].notes else "total"]
    got = s.data.compute()
    assert got.index.tolist() == p.data.index.tolist()
    pd.testing.assert_frame_equal(_norm(got), _norm(p.data))


REFUSED = {
    "recode_absent_value": lambda s: s.recode("region", {"zz": "a"}),
    "global_recode_without_role": lambda s: s.global_recode("id", breaks=[0, 10, 100]),
    "strata_unknown": lambda s: s.local_suppression(k=2, strata=["nope"]),
    "pram_weight": lambda s: s.pram(["w"]),
    "noise_key": lambda s: s.add_noise(["sex"]),
    "recode_weight": lambda s: s.recode("w", {1.0: 2.0}),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_same_inputs_refused_on_both_paths(case, tmp_path):
    path, read = _layout(0, 2, tmp_path)
    s, p = _sessions(path, read)
    errors = []
    for x in (s, p):
        head = x.head
        with pytest.raises(SdcError) as e:
            REFUSED[case](x)
        assert x.head is head
        errors.append(type(e.value))
    assert errors[0] is errors[1]


def test_what_dask_cannot_offer_is_named(tmp_path):
    path, read = _layout(0, 3, tmp_path)
    s, p = _sessions(path, read)
    p.local_suppression(k={"m": 2, "f": 3}, strata=["sex"])  # in memory: a k per stratum,
    p.local_suppression(k=2, strata=["sex"], household=True)  # households across strata,
    p.local_suppression(k=2)  # the whole file
    for step in (lambda x: x.local_suppression(k=2), lambda x: x.microaggregation(["inc"], k=3),
                 lambda x: x.local_suppression(k=2, strata=["sex"], household=True),
                 lambda x: x.local_suppression(k={"m": 2, "f": 3}, strata=["sex"]),
                 lambda x: x.add_noise(["inc"], method="restricted"),
                 lambda x: x.global_recode("inc", method="quantile", n=3)):
        with pytest.raises(TreatmentError, match="cannot be distributed"):
            step(s)
        assert s.head.depth == 0


BAD_ROLES = {
    "negative weight": ({"w": -1.0}, "zero or negative"),
    "missing weight": ({"w": None}, "missing"),
    "text weight": ({"w": "x"}, "numeric"),
    "missing household": ({"hid": None}, "household.*missing"),
}


@pytest.mark.parametrize("case", list(BAD_ROLES))
@pytest.mark.parametrize("engine", ["pandas", "dask", "parquet"])
def test_roles_validated_at_construction(case, engine, tmp_path):
    change, match = BAD_ROLES[case]
    df = _data()
    col, value = next(iter(change.items()))
    if isinstance(value, str):
        df[col] = df[col].astype(str)
    else:
        df[col] = df[col].astype(float)
        df.loc[N - 2, col] = np.nan if value is None else value  # in the last partition
    with pytest.raises(RoleError, match=match):
        if engine == "pandas":
            sdc.SdcSession(df, **ROLES)
        elif engine == "dask":
            sdc.SdcSession(dd.from_pandas(df, npartitions=3), **ROLES)
        else:
            df.to_parquet(tmp_path / "bad.parquet")
            sdc.SdcSession.from_parquet(tmp_path / "bad.parquet", **ROLES)


def test_from_parquet_columns_named(tmp_path):
    path, _ = _layout(2, 1, tmp_path)
    with pytest.raises(DataFileError, match="no_such"):
        sdc.SdcSession.from_parquet(path, columns=["no_such"], keys=["sex"])
    with pytest.raises(SdcError, match="columns"):
        sdc.SdcSession.from_parquet(path, columns=[5], keys=["sex"])
    s = sdc.SdcSession.from_parquet(path, columns=["sex", "region"], keys=["sex"])
    assert list(s.data.columns) == ["sex", "region"]


_REPLAY = """
import json, sys, warnings
import dask, dask.dataframe, pandas as pd, sdcsession as sdc
warnings.simplefilter("ignore")
dask.config.set(scheduler="sync")
path, recipe, engine = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
data = dask.dataframe.read_parquet(path) if engine == "dask" else pd.read_parquet(path)
s = sdc.SdcSession.from_recipe(data, recipe)
out = s.data.compute() if engine == "dask" else s.data
out = out.astype(object).where(out.notna(), None).reset_index(drop=True)
pd.util.hash_pandas_object(out, index=False).to_frame().to_parquet(sys.argv[4])
json.dump([st.notes for st in s.history], open(sys.argv[4] + ".json", "w"), default=str)
"""

#: one step of every type a Dask session offers (the recipe replays them all)
RECIPE_STEPS = [
    lambda s: s.recode("region", {"d": "c"}),
    lambda s: s.group_categories("agegr", {"all": ["y", "o"]}),
    lambda s: s.pram(["sex"], pd=0.7),
    lambda s: s.add_noise(["inc", "exp"], method="correlated", noise=0.3),
    lambda s: s.add_noise(["age"], noise=0.2, bounds=(18, 90)),
    lambda s: s.top_bottom_code("exp", 60, 60, kind="top"),
    lambda s: s.round_values(["inc"], digits=1),
    lambda s: s.local_suppression(k=2, strata=["region"], household=True),
    lambda s: s.microaggregation(["exp"], k=3, strata=["region"]),
    lambda s: s.global_recode("age", breaks=[0, 50, 120]),
    lambda s: s.new_ids(),
    lambda s: s.remove("note"),
]


def test_recipe_of_a_parquet_session_replays_in_a_fresh_process(tmp_path):
    """A recipe with a step of every type, recorded on a Parquet session (files cut at
    random), replays bit for bit in a fresh process on Dask and on pandas: the same data and
    the same notes."""
    path, _ = _layout(0, 4, tmp_path)
    s = sdc.SdcSession.from_parquet(path, **ROLES)
    for step in RECIPE_STEPS:
        step(s)
    assert {st.treatment.type for st in s.history if st.treatment} >= {
        "recode", "group_categories", "pram", "add_noise", "top_bottom_code", "round_values",
        "local_suppression", "microaggregation", "global_recode", "new_ids", "remove_columns"}
    rec = tmp_path / "recipe.json"
    rec.write_text(json.dumps(s.to_recipe()))
    want = pd.util.hash_pandas_object(_norm(s.data.compute()), index=False).tolist()
    notes = json.loads(json.dumps([st.notes for st in s.history], default=str))
    script = tmp_path / "replay.py"
    script.write_text(_REPLAY)
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(sdc.__file__))}
    for engine in ("dask", "pandas"):
        out = tmp_path / f"{engine}.parquet"
        run = subprocess.run([sys.executable, str(script), path, str(rec), engine, str(out)],
                             capture_output=True, text=True, env=env, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        assert pd.read_parquet(out).iloc[:, 0].tolist() == want  # bit for bit
        assert json.loads((tmp_path / f"{engine}.parquet.json").read_text()) == notes


def test_old_module_path_of_the_dask_session():
    import importlib

    pkg = importlib.import_module("sdcsession.session.distributed")
    steps = importlib.import_module("sdcsession.session.distributed.steps")
    assert pkg.run_step is steps.run_step and pkg.validate_roles is steps.validate_roles
