"""Pandas and Dask give one answer: every step offered on both paths, run on a Parquet dataset
split at random (one partition, many tiny ones, uneven ones, several pandas files, Dask's writer
with and without the index, the index read with ``from_parquet(index=...)``, one file of row
groups of 2 records, i.e. households split over partitions, an empty file), equals the pandas path
on the same data and seed bit for bit — data, notes, roles, the risk and utility figures and the
release check's findings (noise included: the same normal draws per record, moments from exact
sums); the same inputs are refused on both paths, and what Dask cannot offer is refused by name;
roles are validated at construction on both; a recipe recorded on a Parquet session replays bit
for bit in a fresh process on both.

Cost: the layouts are written once per module and read once per layout (kept in memory, the
partitions as read); the pandas reference of a step is computed once for all layouts; the
steps that work partition by partition run on every layout (data, notes, roles), every step gets
every figure on one layout (`FIGURED_ON`), and the steps by strata (a shuffle each) run on every
layout with ``SDCSESSION_PARITY_FULL=1``."""

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
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _data(n: int = N) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    df = pd.DataFrame({
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
    # no role, never above inc: the release check's ``bound`` after noise or microaggregation
    df["inc_low"] = np.floor(np.minimum(df["inc"], rng.uniform(40, 140, n)) / 10) * 10
    return df


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


def _pandas_frame(path: str, index: str | None) -> pd.DataFrame:
    """The dataset as the pandas path reads it (the index as Dask reads it)."""
    df = pd.read_parquet(path)
    if df.index.name == "__null_dask_index__":  # Dask's unnamed index, as Dask reads it
        df = df.rename_axis(None)
    return df.set_index(index) if index is not None else df


def _dask_frame(path: str, read: dict, index: str | None = None):
    """The dataset read lazily by Dask (one row group a partition when ``read`` says so)."""
    if read:
        return dd.read_parquet(path, index=index, **read)
    return sdc.scale.read_parquet(path, index=index)


def _sessions(path: str, read: dict, index: str | None = None, **kw):
    """A Dask session over the Parquet dataset (``from_parquet``, the documented way in) and the
    pandas session of the same data."""
    roles = {**ROLES, **kw}
    if read:
        s = sdc.SdcSession(_dask_frame(path, read, index), **roles)
    else:
        s = sdc.SdcSession.from_parquet(path, index=index, **roles)
    return s, sdc.SdcSession(_pandas_frame(path, index), **roles)


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
    "local_suppression_household": lambda s: s.local_suppression(k=2, strata=["region"],
                                                                 household=True),
    "local_suppression_strata_other": lambda s: s.local_suppression(k=2, strata=["note"]),
    "local_suppression_weighted": lambda s: s.local_suppression(k=4, strata=["note"],
                                                                weighted=True),
    "local_suppression_importance": lambda s: s.local_suppression(
        k=2, strata=["sex"], importance=["agegr", "region", "sex"]),
    # a k per stratum: a mapping (a stratum below its k is left, counted as unresolvable), a
    # list aligned with the sorted strata, a mapping over two strata columns
    "local_suppression_k_per_stratum": lambda s: s.local_suppression(
        k={"a": 2, "b": 3, "c": 10, "d": 2}, strata=["region"], household=True),
    "local_suppression_k_list_weighted": lambda s: s.local_suppression(
        k=[3, 5], strata=["note"], weighted=True),
    "local_suppression_k_two_strata": lambda s: s.local_suppression(
        k={("f", "x"): 2, ("f", "y"): 3, ("m", "x"): 3, ("m", "y"): 2}, strata=["sex", "note"],
        importance=["agegr", "region", "sex"]),
    "microaggregation_strata": lambda s: s.microaggregation(["inc", "exp"], k=3,
                                                            strata=["region"]),
    "microaggregation_onedims": lambda s: s.microaggregation(["inc", "exp"], k=3,
                                                             method="onedims", strata=["sex"]),
    "two_steps": lambda s: s.recode("region", {"d": "c"}).pram(["sex"], pd=0.8),
}

#: the partitionings every step runs on: (layout kind, seed, index read from Parquet); kinds as
#: `_layout` (0 random cuts into 1..8 files, 1 Dask's writer with the index, 2 without it,
#: 3 one file of row groups of 2 records, i.e. smaller than a household, 4 with an empty file)
LAYOUTS = [(0, 0, None), (1, 1, None), (2, 2, None), (3, 0, None), (0, 5, "id"), (4, 0, None),
           (1, 3, "id"), (0, 7, None)]


#: the steps solved by strata (a shuffle each): on every layout only with
#: ``SDCSESSION_PARITY_FULL=1`` (about twice the time), else on the layout of `_figured_on`
BY_STRATA = {s for s in STEPS if s.startswith(("local_suppression", "microaggregation"))}
FULL = os.environ.get("SDCSESSION_PARITY_FULL") == "1"


#: the layout (index in `LAYOUTS`) on which a step is also compared on every figure (risk,
#: utility, release check): a few steps each, one by strata at least; the row groups of 2
#: records (18 partitions, a figure there costs three times as much) get the steps that
#: households split over partitions test hardest
FIGURED_ON = {
    "recode": 0, "noise_correlated2": 0, "local_suppression_k_list_weighted": 0, "remove": 0,
    "group_categories": 1, "new_ids": 1, "noise_bounds": 1, "local_suppression_k_two_strata": 1,
    "global_recode_breaks": 2, "pram": 2, "local_suppression_strata_key": 2,
    "microaggregation_strata": 2,
    "pram_strata_two": 3, "local_suppression_household": 3,
    "global_recode_equidistant": 4, "pram_given": 4, "local_suppression_strata_other": 4,
    "two_steps": 4,
    "top_code": 5, "noise_additive": 5, "local_suppression_weighted": 5, "global_recode_n": 5,
    "bottom_code": 6, "noise_additive0": 6, "local_suppression_importance": 6,
    "microaggregation_onedims": 6,
    "round": 7, "noise_correlated": 7, "local_suppression_k_per_stratum": 7,
}


def _figured_on(step: str) -> tuple[int, int, str | None]:
    """The layout on which ``step`` is also compared on every figure (`FIGURED_ON`)."""
    return LAYOUTS[FIGURED_ON[step]]


def _steps_on(layout: tuple[int, int, str | None]) -> list[str]:
    """The steps run on a layout: the partition-by-partition steps (recoding, PRAM, noise, ids)
    on every layout, the steps by strata on their `_figured_on` layout (all layouts with
    ``SDCSESSION_PARITY_FULL=1``)."""
    return [s for s in STEPS if FULL or s not in BY_STRATA or _figured_on(s) == layout]


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


def _light(s, data: pd.DataFrame) -> dict:
    """What every step is compared on, on every layout: data, notes and roles."""
    return {"data": _norm(data), "notes": [st.notes for st in s.history], "roles": s.roles}


def _figures(s) -> dict:
    """Everything else both paths offer after a step: risk, utility, release findings."""
    out = {"risk": _risk(s)}
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


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    """Every layout of `LAYOUTS` written once for the module: layout -> (path, read options)."""
    root = tmp_path_factory.mktemp("layouts")
    return {lay: _layout(lay[0], lay[1] + 31 * lay[0], root) for lay in LAYOUTS}


@pytest.fixture(scope="module")
def reference(layouts):
    """The pandas result of a step, computed once per step and pandas frame (the layouts hold
    the same records; pandas reads them with the index asked for and, from Dask's writer, other
    string dtypes): ``(step, layout, figures)`` -> the compared items (with ``figures``: all)."""
    frames: dict = {}
    read: dict = {}
    keys: dict = {}
    cache: dict = {}

    def get(step: str, layout: tuple, figures: bool = False) -> dict:
        if layout not in read:  # each layout read by pandas once
            df = read[layout] = _pandas_frame(layouts[layout][0], layout[2])
            key = keys[layout] = (layout[2], str(df.index.dtype), tuple(map(str, df.dtypes)))
            frames.setdefault(key, df)
            pd.testing.assert_frame_equal(df, frames[key])  # the same records in every layout
        key = keys[layout]
        if (step, key) not in cache:
            p = sdc.SdcSession(frames[key], **ROLES)
            STEPS[step](p)
            cache[step, key] = (p, _light(p, p.data))
        p, items = cache[step, key]
        if figures and "risk" not in items:
            items.update(_figures(p))
        return items

    return get


@pytest.fixture(scope="module", autouse=True)
def _sync_module():
    with dask.config.set(scheduler="sync"):
        yield


@pytest.mark.parametrize("layout", LAYOUTS, ids=[f"kind{k}-seed{s}-index{i}"
                                                 for k, s, i in LAYOUTS])
def test_every_step_equals_pandas_bit_for_bit(layout, layouts, reference):
    """The steps of `_steps_on` a layout: data, notes and roles equal the pandas path bit for
    bit (noise included: the same draws per record, moments from exact sums); on the layout
    that `_figured_on` gives a step, also the risk, utility and release findings. The records
    are read once per layout and kept in memory (the partitions as read), the steps' results
    are computed together; the pandas reference is computed once per step for all layouts."""
    path, read = layouts[layout]
    base = _dask_frame(path, read, layout[2]).persist()
    sessions = {}
    for step in _steps_on(layout):
        s = sdc.SdcSession(base, **ROLES)
        STEPS[step](s)
        sessions[step] = s
    datas = dask.compute(*[s.data for s in sessions.values()])
    bad = {}
    for (step, s), data in zip(sessions.items(), datas, strict=True):
        full = _figured_on(step) == layout
        ref = reference(step, layout, full)
        got = {**_light(s, data), **(_figures(s) if full else {})}
        assert len(data) == N and set(got) == set(ref) - (set() if full else set(_FIGURES))
        diff = [k for k in got if not _equal(got[k], ref[k])]
        if diff:
            bad[step] = {k: (got[k], ref[k]) if k != "data" else "differs" for k in diff}
    assert not bad, (layout, bad)


def test_every_step_is_figured_once_and_runs_on_every_kind_of_layout():
    """Coverage of the layout test: every step gets every figure on one layout, the steps by
    partition run on all layouts, and every layout has a step by strata."""
    assert set(FIGURED_ON) == set(STEPS) and {_figured_on(s) for s in STEPS} == set(LAYOUTS)
    for lay in LAYOUTS:
        assert set(STEPS) - BY_STRATA <= set(_steps_on(lay))
        assert BY_STRATA & set(_steps_on(lay))
    assert all(any(s in _steps_on(lay) for lay in LAYOUTS) for s in STEPS)


def test_the_data_hold_a_bound_the_release_check_finds():
    """``inc_low`` makes the figured steps compare ``bound`` findings (not only their absence):
    the pandas reference of a noise step and of a microaggregation has one."""
    for step in ("noise_additive", "microaggregation_onedims"):
        s = sdc.SdcSession(_data(), **ROLES)
        STEPS[step](s)
        found = s.release_check()
        assert [v for c, v in zip(found["check"], found["variables"]) if c == "bound"] == [
            ["inc_low", "inc"]]


#: the items of `_figures`
_FIGURES = ("risk", "suppressions", "records_changed", "entropy_change", "il1s",
            "correlation_discrepancy", "release")


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
    "remove_every_key": lambda s: s.remove(["sex", "region", "agegr"]),
    "k_above_the_file": lambda s: s.local_suppression(k=40, strata=["sex"]),
    "k_above_the_total_weight": lambda s: s.local_suppression(k=200, strata=["sex"],
                                                              weighted=True),
    "k_without_a_stratum": lambda s: s.local_suppression(k={"m": 2}, strata=["sex"]),
    "k_for_an_absent_stratum": lambda s: s.local_suppression(k={"m": 2, "f": 2, "z": 2},
                                                             strata=["sex"]),
    "k_list_too_long": lambda s: s.local_suppression(k=[2, 3, 4], strata=["sex"]),
    "k_per_stratum_without_strata": lambda s: s.local_suppression(k={"m": 2, "f": 3}),
    "microaggregation_k_above_a_stratum": lambda s: s.microaggregation(["inc"], k=20,
                                                                       strata=["region"]),
    "microaggregation_k_above_the_file": lambda s: s.microaggregation(["inc"], k=40,
                                                                      strata=["region"]),
    "microaggregation_unknown_weights": lambda s: s.microaggregation(["inc"], strata=["sex"],
                                                                     weights="nope"),
    "microaggregation_unknown_strata": lambda s: s.microaggregation(["inc"], strata=["nope"]),
    "microaggregation_key": lambda s: s.microaggregation(["sex"], strata=["region"]),
    "remove_unknown": lambda s: s.remove("nope"),
    # counted over the whole file, not in the first partition that fails
    "global_recode_outside_the_breaks": lambda s: s.global_recode("inc", breaks=[90, 110]),
    "global_recode_outside_left_closed": lambda s: s.global_recode("age", breaks=[30, 60],
                                                                   right=False),
}


def test_same_inputs_refused_on_both_paths(layouts):
    """Each input refused on one path is refused on the other with the same error class and
    message, and leaves both sessions where they were (so the sessions serve every case)."""
    s, p = _sessions(*layouts[LAYOUTS[0]])
    bad = {}
    for case, step in REFUSED.items():
        errors = []
        for x in (s, p):
            with pytest.raises(SdcError) as e:
                step(x)
            assert x.head.depth == 0, case
            errors.append((type(e.value), str(e.value)))
        if errors[0] != errors[1]:
            bad[case] = errors
    assert not bad


@pytest.mark.parametrize("values", [[-5.0, 0.0, 3.0, -1.0], [-np.inf, 2.0, 0.0, 1.0]])
def test_log_intervals_refuse_the_same_count_on_both_paths(values):
    """Values <= 0 spread over several partitions: both paths count all of them (the Dask
    path once counted only the two extremes it had computed)."""
    df = pd.DataFrame({"k": ["a", "b"] * 20, "x": np.resize(values + [5.0, 7.0], 40)})
    errors = []
    for data in (df, dd.from_pandas(df, npartitions=4)):
        s = sdc.SdcSession(data, keys=["k"], numeric=["x"], seed=1)
        with pytest.raises(TreatmentError) as e:
            s.global_recode("x", method="log_equidistant", n=3)
        errors.append(str(e.value))
    assert errors[0] == errors[1]
    assert f"has {sum(v <= 0 for v in np.resize(values + [5.0, 7.0], 40))} such" in errors[0]


def test_what_dask_cannot_offer_is_named(layouts):
    """Steps that need the whole file at once are refused on Dask by name (the pandas path
    takes them); the strata role is no default for microaggregation on either path."""
    s, p = _sessions(*layouts[LAYOUTS[0]], strata=["sex"])
    p.local_suppression(k=2, strata=["sex"], household=True)  # in memory: households across
    p.local_suppression(k=2, strata=[])  # strata, the whole file,
    p.microaggregation(["inc"], k=3)  # the whole file (not by the strata role)
    assert p.history[-1].notes.get("strata") is None
    for step in (lambda x: x.local_suppression(k=2, strata=[]),
                 lambda x: x.microaggregation(["inc"], k=3),
                 lambda x: x.local_suppression(k=2, strata=["sex"], household=True),
                 lambda x: x.add_noise(["inc"], method="restricted"),
                 lambda x: x.global_recode("inc", method="quantile", n=3)):
        with pytest.raises(TreatmentError, match="cannot be distributed"):
            step(s)
        assert s.head.depth == 0
    s.local_suppression(k={"m": 2, "f": 3})  # by the strata role, a k per stratum
    assert s.history[-1].notes["k"] == {"m": 2, "f": 3}


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
path, recipe, out = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
result = {}
for engine in ("dask", "pandas"):
    data = dask.dataframe.read_parquet(path) if engine == "dask" else pd.read_parquet(path)
    s = sdc.SdcSession.from_recipe(data, recipe)
    got = s.data.compute() if engine == "dask" else s.data
    got = got.astype(object).where(got.notna(), None).reset_index(drop=True)
    result[engine] = {"hash": pd.util.hash_pandas_object(got, index=False).tolist(),
                      "notes": [st.notes for st in s.history]}
json.dump(result, open(out, "w"), default=str)
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
    lambda s: s.local_suppression(k={"a": 3, "b": 2, "c": 2}, strata=["region"]),
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
    out = tmp_path / "replayed.json"
    run = subprocess.run([sys.executable, str(script), path, str(rec), str(out)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(out.read_text())
    for engine in ("dask", "pandas"):
        assert result[engine]["hash"] == [int(h) for h in want]  # bit for bit
        assert result[engine]["notes"] == notes


def test_old_module_path_of_the_dask_session():
    import importlib

    pkg = importlib.import_module("sdcsession.session.distributed")
    steps = importlib.import_module("sdcsession.session.distributed.steps")
    assert pkg.run_step is steps.run_step and pkg.validate_roles is steps.validate_roles
