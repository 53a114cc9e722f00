"""The ``engine`` of local suppression: what each value runs.

``"auto"`` is the choice made before the parameter existed (rounds up to 11 keys, the hub trie
beyond, both on small files); ``"rounds"``, ``"hub_trie"`` and ``"cluster"`` name one engine for
any number of keys. Replay of steps stored without ``engine`` is tested in
``tests/test_recorded_defaults.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sdcsession.datasets import synthetic_survey
from sdcsession.methods.schema import treatment_schema
from sdcsession.methods.suppression import LocalSuppression, _cluster, _core
from sdcsession.methods.suppression.local import local_suppression
from sdcsession.risk import k_violations

KEYS10 = ["region", "urbrur", "hhsize", "sex", "age5", "marstat", "educ", "occup", "water",
          "relat"]


def _census(n: int, p: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    prof = rng.integers(0, 40, n)
    cols = {}
    for j in range(p):
        c = 2 + j % 5
        base = rng.integers(0, c, n)
        shift = rng.integers(0, c, 40)
        cols[f"k{j}"] = pd.Categorical(np.where(rng.random(n) < 0.7, (base + shift[prof]) % c,
                                                base))
    return pd.DataFrame(cols)


def _mask(df: pd.DataFrame, out: pd.DataFrame, keys: list[str]) -> np.ndarray:
    return np.column_stack([out[c].isna().to_numpy() & df[c].notna().to_numpy() for c in keys])


def test_up_to_eleven_keys_auto_is_the_rounds():
    df = synthetic_survey(400, seed=8)
    for kw in ({"k": 3}, {"k": 2, "importance": ["sex", "region"]}, {"k": 2, "strata": "sex"}):
        a, na = local_suppression(df, KEYS10, engine="auto", progress=False, **kw)
        r, nr = local_suppression(df, KEYS10, engine="rounds", progress=False, **kw)
        pd.testing.assert_frame_equal(a, r, check_exact=True)
        assert na == nr and na["total"] > 0


@pytest.mark.parametrize("engine", ["hub_trie", "cluster"])
def test_many_keys_engines_on_few_keys_are_k_anonymous(engine):
    df = synthetic_survey(300, seed=4)
    keys = ["region", "sex", "age5", "marstat", "educ"]
    out, notes = local_suppression(df, keys, k=3, engine=engine, progress=False)
    assert k_violations(out, keys, 3) == 0 and notes["violations_after"] == 0
    rounds, nr = local_suppression(df, keys, k=3, engine="rounds", progress=False)
    assert not out.equals(rounds)  # another engine really ran
    assert ("fallback_records" in notes) == (engine == "hub_trie")


def test_named_engines_equal_auto_beyond_the_small_files(monkeypatch):
    # beyond BOTH_ROWS records "auto" runs the many-keys engine alone on a 12-key set
    df = _census(400, 12, 3)
    keys = list(df.columns)
    hub, nh = local_suppression(df, keys, k=3, engine="hub_trie", progress=False)
    clu, nc = local_suppression(df, keys, k=3, engine="cluster", progress=False)
    monkeypatch.setattr(_core, "BOTH_ROWS", 0)
    auto, na = local_suppression(df, keys, k=3, progress=False)
    pd.testing.assert_frame_equal(auto, hub, check_exact=True)
    assert na == nh
    monkeypatch.setattr(_cluster, "MANY_KEYS_ENGINE", "cluster")
    auto_c, _ = local_suppression(df, keys, k=3, progress=False)
    pd.testing.assert_frame_equal(auto_c, clu, check_exact=True)
    assert not clu.equals(hub)


def test_rounds_search_every_key_subset_beyond_eleven_keys(monkeypatch):
    # "rounds" never takes the greedy key sets of _many (the rounds as first written): with
    # the greedy's budget lowered to nothing "auto"-style rounds change, "rounds" do not
    from sdcsession.methods.suppression import _search

    df = _census(150, 12, 5)
    keys = list(df.columns)
    before, _ = local_suppression(df, keys, k=3, engine="rounds", progress=False)
    monkeypatch.setattr(_search, "EXACT_WORK", 0)
    after, _ = local_suppression(df, keys, k=3, engine="rounds", progress=False)
    pd.testing.assert_frame_equal(before, after, check_exact=True)
    monkeypatch.setattr(_core, "CLUSTER_KEYS", 99)  # "auto" = the rounds with greedy sets
    greedy, _ = local_suppression(df, keys, k=3, engine="auto", progress=False)
    assert not greedy.equals(before)
    assert k_violations(before, keys, 3) == 0 and k_violations(greedy, keys, 3) == 0


def test_weighted_records_keep_the_rounds():
    df = synthetic_survey(300, seed=2)
    keys = ["region", "sex", "age5"]
    a, _ = local_suppression(df, keys, k=20, weight="w", weighted=True, progress=False)
    r, _ = local_suppression(df, keys, k=20, weight="w", weighted=True, engine="rounds",
                             progress=False)
    pd.testing.assert_frame_equal(a, r, check_exact=True)


def test_engine_is_offered_in_the_schema_and_the_form():
    assert treatment_schema("local_suppression")["parameters"]["properties"]["engine"][
        "enum"] == list(_core.ENGINES)
    pytest.importorskip("ipywidgets")
    from sdcsession.present.workbench.treat import treatment_fields

    (spec,) = [f for f in treatment_fields(LocalSuppression) if f.name == "engine"]
    assert spec.kind == "choice" and spec.choices == _core.ENGINES and spec.default == "auto"


def test_the_cap_binds_the_hub_trie_engine():
    df = _census(300, 12, 9)
    keys = list(df.columns)
    out, notes = local_suppression(df, keys, k=3, engine="hub_trie", max_suppressed_per_record=3,
                                   progress=False)
    per_record = _mask(df, out, keys).sum(1)
    assert k_violations(out, keys, 3) == 0
    assert int((per_record > 3).sum()) <= notes["fallback_records"]
