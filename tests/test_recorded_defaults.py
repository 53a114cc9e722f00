"""Replay of recipes and projects written before a parameter existed.

A treatment's JSON form lists every parameter (`Treatment.to_dict`); a step written by an
earlier version lacks the parameters added since, and `Treatment.from_dict` fills them from the
class's `recorded_defaults` (`Treatment.recorded_params`): the behaviour of the version that
wrote the step, not the default of new steps. The old-format steps below are written by hand as
those versions wrote them (every parameter that existed then, nothing more), and their replay
must equal the engine they ran with, called explicitly (and differ from today's default, so the
tests would fail with the default).
"""

from __future__ import annotations

import json
import warnings

import attrs
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, RecipeError, SdcWarning
from sdcsession.methods.base import TREATMENTS, Treatment
from sdcsession.methods.recoding.local_recoding import LocalRecode, local_recode
from sdcsession.methods.suppression import LocalSuppression, local_suppression

N_KEYS = 12


def _census(n: int, seed: int = 7) -> pd.DataFrame:
    """Correlated categorical keys (a latent profile shifts each key's distribution): with 12
    keys almost every record is unique, where the many-keys engines differ from the rounds."""
    cards = [2, 3, 2, 5, 4, 3, 6, 2, 8, 3, 4, 5]
    rng = np.random.default_rng(seed)
    prof = rng.integers(0, 50, n)
    cols = {}
    for j, c in enumerate(cards):
        p = 1.0 / np.arange(1, c + 1) ** 1.1
        base = rng.choice(c, size=n, p=p / p.sum())
        shift = rng.integers(0, c, 50)
        v = np.where(rng.random(n) < 0.7, (base + shift[prof]) % c, base)
        cols[f"k{j}"] = pd.Categorical([f"v{x}" for x in v])
    cols["stratum"] = np.where(np.arange(n) % 2 == 0, "a", "b")
    cols["w"] = rng.integers(1, 5, n).astype(float)
    return pd.DataFrame(cols)


DF = _census(120)
KEYS = [f"k{j}" for j in range(N_KEYS)]


def _recipe(step: dict) -> dict:
    """A recipe of format 2 holding ``step`` (as an earlier version wrote it)."""
    return {"format": "sdcsession-recipe", "format_version": 2, "package_version": "0.1.0",
            "name": "main", "seed": 11, "roles": {"keys": KEYS}, "steps": [step]}


def _replay(step: dict, data: pd.DataFrame = DF) -> pd.DataFrame:
    recipe = json.loads(json.dumps(_recipe(step)))  # through JSON, as read from a file
    return sdc.SdcSession.from_recipe(data, recipe).data


# ----------------------------------------------------------------------- local suppression
#: as written before ``max_suppressed_per_record`` and ``engine`` existed (k, importance,
#: strata, combinations, weighted, household, subsets, alpha): the suppression rounds ran
OLD_LS = {"type": "local_suppression", "k": 3.0, "importance": None, "strata": None,
          "combinations": None, "weighted": False, "household": False, "subsets": None,
          "alpha": 1.0}
#: the oldest form (before ``subsets`` and ``alpha``)
OLDEST_LS = {"type": "local_suppression", "k": 3.0, "importance": None, "strata": None,
             "combinations": None, "weighted": False, "household": False}


@pytest.mark.parametrize("step", [OLD_LS, OLDEST_LS], ids=["with-alpha", "oldest"])
def test_old_local_suppression_step_replays_with_the_rounds(step):
    got = _replay(step)
    rounds, _ = local_suppression(DF, KEYS, k=3, engine="rounds", progress=False)
    auto, _ = local_suppression(DF, KEYS, k=3, engine="auto", progress=False)
    pd.testing.assert_frame_equal(got, rounds, check_exact=True)
    # today's default suppresses fewer values here: replaying with it would change the output
    assert int(auto[KEYS].isna().sum().sum()) < int(rounds[KEYS].isna().sum().sum())
    t = Treatment.from_dict(step)
    assert t.engine == "rounds" and t.to_dict()["engine"] == "rounds"


def test_old_local_suppression_with_importance_and_strata():
    step = {**OLD_LS, "k": 2.0, "importance": ["k3", "k0"], "strata": ["stratum"]}
    got = _replay(step)
    want, _ = local_suppression(DF, KEYS, k=2, importance=["k3", "k0"], strata="stratum",
                                engine="rounds", progress=False)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    auto, _ = local_suppression(DF, KEYS, k=2, importance=["k3", "k0"], strata="stratum",
                                progress=False)
    assert not auto.equals(want)


def test_step_with_the_cap_but_no_engine_replays_with_auto():
    # written since the hub trie (which brought max_suppressed_per_record), before engine
    step = {**OLD_LS, "max_suppressed_per_record": None}
    got = _replay(step)
    auto, _ = local_suppression(DF, KEYS, k=3, engine="auto", progress=False)
    rounds, _ = local_suppression(DF, KEYS, k=3, engine="rounds", progress=False)
    pd.testing.assert_frame_equal(got, auto, check_exact=True)
    assert not got.equals(rounds)
    assert Treatment.from_dict({**step, "max_suppressed_per_record": 4}).engine == "auto"


@pytest.mark.parametrize("engine", ["auto", "rounds", "hub_trie", "cluster"])
def test_new_recipes_record_the_engine_and_replay_it(engine):
    s = sdc.SdcSession(DF, keys=KEYS, seed=3)
    s.local_suppression(k=3, engine=engine)
    recipe = json.loads(json.dumps(s.to_recipe()))
    assert recipe["steps"][0]["engine"] == engine
    s2 = sdc.SdcSession.from_recipe(DF, recipe)
    pd.testing.assert_frame_equal(s2.data, s.data, check_exact=True)
    want, _ = local_suppression(DF, KEYS, k=3, engine=engine, progress=False)
    pd.testing.assert_frame_equal(s.data, want, check_exact=True)


def test_bad_engine_values_name_the_parameter():
    s = sdc.SdcSession(DF, keys=KEYS, weight="w", seed=3)
    for bad in ("fast", "Rounds", "", None, 1, True):
        with pytest.raises(ParameterError, match="engine"):
            s.local_suppression(k=3, engine=bad)
        with pytest.raises(ParameterError, match="engine"):
            local_suppression(DF, KEYS, k=3, engine=bad)
    assert len(s.history) == 1  # HEAD unchanged
    with pytest.raises(ParameterError, match="engine.*weighted"):
        LocalSuppression(k=3, weighted=True, engine="hub_trie")
    with pytest.raises(ParameterError, match="max_suppressed_per_record"):
        LocalSuppression(k=3, engine="rounds", max_suppressed_per_record=2)
    with pytest.raises(ParameterError, match="max_suppressed_per_record"):
        local_suppression(DF, KEYS, k=3, engine="cluster", max_suppressed_per_record=2)
    with pytest.raises(RecipeError, match="engine"):
        sdc.SdcSession.from_recipe(DF, _recipe({**OLD_LS, "engine": "greedy"}))
    with pytest.raises(RecipeError, match="max_suppressed_per_record"):
        Treatment.from_dict({**OLD_LS, "engine": "rounds", "max_suppressed_per_record": 3})


# --------------------------------------------------------------------------- local recoding
#: as written before ``engine`` and ``max_suppressed_per_record`` existed: the progression ran
OLD_LR = {"type": "local_recode", "columns": KEYS, "k": 3, "weights": None, "ancestors": None,
          "alpha": 1.0}


def test_old_local_recode_step_replays_with_the_progression():
    got = _replay(OLD_LR)
    prog, _ = local_recode(DF, KEYS, k=3, engine="progressive")
    auto, _ = local_recode(DF, KEYS, k=3, engine="auto")
    pd.testing.assert_frame_equal(got, prog, check_exact=True)
    assert not auto.equals(prog)  # the hub trie beyond 11 keys: another answer
    assert Treatment.from_dict(OLD_LR).engine == "progressive"


def test_local_recode_engine_round_trips_and_bad_values():
    for engine in ("auto", "progressive", "hub_trie"):
        t = LocalRecode(KEYS, k=3, engine=engine)
        d = json.loads(json.dumps(t.to_dict()))
        assert d["engine"] == engine and Treatment.from_dict(d) == t
    with pytest.raises(RecipeError, match="engine"):
        Treatment.from_dict({**OLD_LR, "engine": "trie"})
    with pytest.raises(ParameterError, match="engine"):
        LocalRecode(KEYS, engine=["auto"])


# --------------------------------------------------------------------------------- projects
def test_old_project_steps_replay_with_the_recorded_engine(tmp_path):
    from sdcsession.session.projects.archive import read_archive, write_archive

    s = sdc.SdcSession(DF, keys=KEYS, seed=5)
    s.local_suppression(k=3, engine="rounds")
    s.local_recode(KEYS, k=3, engine="progressive")
    want = s.data
    src = s.save_project(tmp_path / "new.sdcproj", include_data=True)
    members = read_archive(src, {"project.json": 2**30, "data/original.parquet": 2**34})
    manifest = json.loads(members.pop("project.json"))
    old = [d["treatment"] for d in manifest["steps"] if "treatment" in d]
    assert [t["engine"] for t in old] == ["rounds", "progressive"]
    for t in old:  # the project as the versions before the engines wrote it
        del t["engine"], t["max_suppressed_per_record"]
    dst = write_archive(tmp_path / "old.sdcproj",
                        [("project.json", json.dumps(manifest).encode(), True)]
                        + [(k, v, False) for k, v in members.items()])
    p = sdc.SdcSession.open_project(dst)
    pd.testing.assert_frame_equal(p.data, want, check_exact=True)
    assert [st.treatment.engine for st in p.history[1:]] == ["rounds", "progressive"]


# ------------------------------------------------------------ every treatment: round trip
def _examples() -> dict[str, list[Treatment]]:
    """One or more valid instances of every registered treatment."""
    from sdcsession.methods import (
        AddNoise,
        GlobalRecode,
        GroupCategories,
        Microaggregation,
        Pram,
        RankSwap,
        TopBottomCode,
    )
    from sdcsession.methods.basic import NewIds, Recode, RemoveColumns
    from sdcsession.methods.microaggregation.gower import MicroaggregationGower
    from sdcsession.methods.noise.weights import PerturbWeights
    from sdcsession.methods.recoding.mv_top_coding import MvTopCode
    from sdcsession.methods.recoding.rounding import RoundValues
    from sdcsession.methods.suppression import SuppressByRisk
    from sdcsession.methods.swapping.record_swapping import RecordSwap
    from sdcsession.methods.swapping.shuffling import Shuffle
    from sdcsession.privacy import Hierarchy, KAnonymity
    from sdcsession.privacy.treatment import Generalize
    from sdcsession.tables.keys import RecordKeys

    ls = [LocalSuppression(k=k, engine=e, max_suppressed_per_record=c,
                           importance=imp, strata=st_)
          for k, e, c, imp, st_ in [(3, "auto", None, None, None), (2, "rounds", None, ["a"], None),
                                    (5, "hub_trie", 2, None, ["s"]), (3, "cluster", None, None,
                                                                      None)]]
    lr = [LocalRecode(["a", "b"], k=2, engine=e, max_suppressed_per_record=c)
          for e, c in [("auto", None), ("progressive", None), ("hub_trie", 1)]]
    return {
        "add_noise": [AddNoise(["x"], noise=0.2), AddNoise(["x", "y"], method="correlated2",
                                                           bounds=(0, 10))],
        "generalize": [Generalize({"zip": Hierarchy.masking(2)}, [KAnonymity(2)]),
                       Generalize({"zip": Hierarchy.masking(2)}, [KAnonymity(3)], baseline=None,
                                  metric="precision")],
        "global_recode": [GlobalRecode("age", breaks=[0, 30, 60, 120])],
        "group_categories": [GroupCategories("m", {"other": ["w", "d"]})],
        "local_recode": lr,
        "local_suppression": ls,
        "microaggregation": [Microaggregation(["x", "y"], k=3)],
        "microaggregation_gower": [MicroaggregationGower(["x", "m"], k=3)],
        "mv_top_code": [MvTopCode(["x", "y"])],
        "new_ids": [NewIds("id")],
        "perturb_weights": [PerturbWeights(noise=0.2)],
        "pram": [Pram(["m"], pd=0.7), Pram(["m"], pd=0.8, given=["s"])],
        "rank_swap": [RankSwap(["x"], p=5.0), RankSwap(["x"], p=None, r0=0.9, top=5.0)],
        "recode": [Recode("m", {"w": "x", 1: None})],
        "record_keys": [RecordKeys(), RecordKeys(name="rk", kind="uniform", digits=6)],
        "record_swap": [RecordSwap(["region"], [["size"]], swaprate=0.1)],
        "remove_columns": [RemoveColumns(["id"])],
        "round_values": [RoundValues(["x"], digits=1)],
        "shuffle": [Shuffle(["x"], by=["y"]), Shuffle(["x"], by=["y"], method="mlm_ds")],
        "suppress_by_risk": [SuppressByRisk(0.1)],
        "top_bottom_code": [TopBottomCode("x", 100.0, 100.0)],
    }


EXAMPLES = _examples()


def test_the_examples_cover_every_registered_treatment():
    ours = {t: c for t, c in TREATMENTS.items() if c.__module__.startswith("sdcsession.")}
    assert set(EXAMPLES) == set(ours)  # (the tests' conftest registers one of its own)
    for tag, cls in ours.items():
        names = {f.alias for f in attrs.fields(cls) if f.init}
        # a recorded default names a parameter, with a value the parameter accepts
        assert set(cls.recorded_defaults) <= names, tag
        assert all(type(t) is cls for t in EXAMPLES[tag])


@settings(max_examples=120, deadline=None)
@given(st.sampled_from([t for ts in EXAMPLES.values() for t in ts]), st.data())
def test_every_treatment_round_trips_with_its_recorded_defaults(t, data):
    cls = type(t)
    d = json.loads(json.dumps(t.to_dict()))
    assert set(d) == {"type"} | {f.alias for f in attrs.fields(cls) if f.init}
    back = Treatment.from_dict(d)
    assert back == t and back.to_dict() == t.to_dict()
    # a step written before some of the recorded parameters existed
    later = data.draw(st.sets(st.sampled_from(sorted(cls.recorded_defaults)))
                      if cls.recorded_defaults else st.just(set()))
    old = {k: v for k, v in d.items() if k not in later}
    got = Treatment.from_dict(old)
    for f in attrs.fields(cls):
        if not f.init:
            continue
        if f.alias in later:
            want = cls.recorded_defaults[f.alias]
            if cls is LocalSuppression and "max_suppressed_per_record" in old:
                want = "auto"  # written since the hub trie: it ran with today's engine choice
            assert getattr(got, f.name) == want, (cls.type, f.alias)
        else:
            assert getattr(got, f.name) == getattr(t, f.name), (cls.type, f.alias)
    assert Treatment.from_dict(json.loads(json.dumps(got.to_dict()))) == got


def test_local_suppression_recorded_params_by_hand():
    assert LocalSuppression.recorded_params({"k": 3})["engine"] == "rounds"
    assert LocalSuppression.recorded_params({"k": 3, "max_suppressed_per_record": None}
                                            )["engine"] == "auto"
    assert LocalSuppression.recorded_params({"k": 3, "engine": "cluster"})["engine"] == "cluster"
    assert LocalRecode.recorded_params({"columns": ["a"]})["engine"] == "progressive"


def test_dask_session_replays_an_old_step_with_the_rounds():
    dd = pytest.importorskip("dask.dataframe")
    dask = pytest.importorskip("dask")
    step = {**OLD_LS, "k": 2.0, "strata": ["stratum"]}
    want, _ = local_suppression(DF, KEYS, k=2, strata="stratum", engine="rounds",
                                progress=False)
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        ddf = dd.from_pandas(DF, npartitions=3)
        got = sdc.SdcSession.from_recipe(ddf, json.loads(json.dumps(_recipe(step))))
        out = got.data.compute()
        assert got.history[-1].treatment.engine == "rounds"
        hub = sdc.SdcSession(ddf, keys=KEYS, seed=1).local_suppression(
            k=2, strata=["stratum"], engine="hub_trie").data.compute()
    pd.testing.assert_frame_equal(out[KEYS], want[KEYS], check_exact=True)
    hub_pd, _ = local_suppression(DF, KEYS, k=2, strata="stratum", engine="hub_trie",
                                  progress=False)
    pd.testing.assert_frame_equal(hub[KEYS], hub_pd[KEYS], check_exact=True)
    assert not hub_pd.equals(want)


def test_workbench_code_of_an_old_step_names_its_engine():
    from sdcsession.present.workbench.history import step_code

    assert step_code(OLDEST_LS) == "s.local_suppression(k=3, engine='rounds')"
    assert step_code({**OLD_LS, "max_suppressed_per_record": None}) == "s.local_suppression(k=3)"
    assert step_code(OLD_LR).endswith("k=3, engine='progressive')")
