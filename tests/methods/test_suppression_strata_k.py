"""Local suppression with a k per stratum: every stratum k_s-anonymous (also with
combinations=2), no more suppressions than the largest k everywhere, mapping and aligned list
agree, tuples of strata survive a recipe, bad input named."""

import itertools
import json

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError, RecipeError, TreatmentError
from sdcsession.methods.base import Treatment
from sdcsession.methods.suppression import LocalSuppression, local_suppression
from sdcsession.risk import k_violations

KEYS = ["urbrur", "sex", "age5", "marstat"]
DATA = sdc.datasets.synthetic_survey(400, seed=11)
REGIONS = sorted(DATA["region"].unique().tolist())
K = {r: (3 if i % 3 == 0 else 5 if i % 3 == 1 else 2) for i, r in enumerate(REGIONS)}


def _violations(out: pd.DataFrame, keys: list[str], k: dict, strata: str = "region") -> int:
    return sum(k_violations(out[out[strata] == s], keys, kk) for s, kk in k.items())


def test_each_stratum_reaches_its_own_k():
    out, notes = local_suppression(DATA, KEYS, k=K, strata="region")
    assert _violations(out, KEYS, K) == 0
    assert notes["violations_after"] == 0
    assert notes["k"] == {str(r): K[r] for r in REGIONS}
    # the strata with k = 2 are not held to k = 5: some of them violate 5-anonymity
    small = [r for r in REGIONS if K[r] == 2]
    assert sum(k_violations(out[out["region"] == r], KEYS, 5) for r in small) > 0
    # no more suppressions than asking the largest k everywhere
    _, top = local_suppression(DATA, KEYS, k=5, strata="region")
    assert notes["total"] <= top["total"]
    _, low = local_suppression(DATA, KEYS, k=2, strata="region")
    assert low["total"] <= notes["total"]


def test_aligned_list_equals_mapping():
    seq = [K[r] for r in REGIONS]  # sorted region labels R01, R02, ...
    a, na = local_suppression(DATA, KEYS, k=K, strata="region")
    b, nb = local_suppression(DATA, KEYS, k=seq, strata="region")
    pd.testing.assert_frame_equal(a, b)
    assert na == nb


def test_combinations_two_with_k_per_stratum():
    keys = KEYS[:3] + ["educ"]
    out, notes = local_suppression(DATA, keys, k=K, strata="region", combinations=2)
    for pair in itertools.combinations(keys, 2):
        assert _violations(out, list(pair), K) == 0, pair
    assert notes["violations_after"] == 0


def test_scalar_k_unchanged_by_the_extension():
    a, na = local_suppression(DATA, KEYS, k=3, strata="region")
    b, nb = local_suppression(DATA, KEYS, k={r: 3 for r in REGIONS}, strata="region")
    pd.testing.assert_frame_equal(a, b)
    assert na["total"] == nb["total"] and na["k"] == 3


def test_session_two_strata_columns_and_replay():
    s = sdc.SdcSession(DATA, keys=KEYS, strata=["region", "urbrur"], seed=3)
    levels = DATA[["region", "urbrur"]].drop_duplicates().itertuples(index=False)
    k = {tuple(lv): (4 if lv[1] == "urban" else 2) for lv in levels}
    with pytest.warns(sdc.SdcWarning, match="cannot reach"):
        s.local_suppression(k=k)  # one urban stratum has only 2 records
    assert s.head.notes["unresolvable"] == 2
    for (r, u), kk in k.items():
        part = s.data[(DATA["region"] == r) & (DATA["urbrur"] == u)]
        assert k_violations(part, KEYS, kk) == (len(part) if len(part) < kk else 0)
    recipe = json.loads(json.dumps(s.to_recipe()))
    again = sdc.SdcSession.from_recipe(DATA, recipe)
    pd.testing.assert_frame_equal(again.data, s.data, check_exact=True)
    t = LocalSuppression(k=k)
    assert Treatment.from_dict(t.to_dict()) == t


@pytest.mark.parametrize("k, match", [
    ({"R01": 1}, r"k\['R01'\]: expected a finite number >= 2"),
    ({"R01": "3"}, r"k\['R01'\]"),
    ([3, "x"], "expected a number, a mapping"),
    ([3, float("nan")], r"k\[1\]"),
    ([], "at least one"),
    ({}, "at least one stratum"),
    ([["R01", 3], ["R01", 4]], "given twice"),
    ([[("R01", [1]), 3]], "category label"),
    ([["R01", 3], 4], "expected a number, a mapping"),
])
def test_bad_parameters(k, match):
    with pytest.raises(ParameterError, match=match):
        LocalSuppression(k=k)


def test_bad_against_the_data():
    with pytest.raises(TreatmentError, match="needs strata"):
        local_suppression(DATA, KEYS, k={"R01": 3})
    with pytest.raises(TreatmentError, match=r"no k given for stratum/strata \['R02'"):
        local_suppression(DATA, KEYS, k={"R01": 3}, strata="region")
    extra = {**K, "R99": 3}
    with pytest.raises(TreatmentError, match=r"\['R99'\] not in the data"):
        local_suppression(DATA, KEYS, k=extra, strata="region")
    with pytest.raises(TreatmentError, match=f"3 values given for {len(REGIONS)} strata"):
        local_suppression(DATA, KEYS, k=[2, 3, 4], strata="region")
    s = sdc.SdcSession(DATA, keys=KEYS, seed=1)
    with pytest.raises(TreatmentError, match="needs strata"):
        s.local_suppression(k=K)
    assert s.head.depth == 0
    with pytest.raises(TreatmentError, match="larger than the number of records"):
        s.local_suppression(k={**K, REGIONS[0]: 10**6}, strata="region")
    with pytest.raises(RecipeError):
        Treatment.from_dict({"type": "local_suppression", "k": [[["R01"], "x"]]})


def test_missing_stratum_label_gets_its_own_k():
    df = DATA.copy()
    df["zone"] = np.where(np.arange(len(df)) % 5 == 0, None, "a")
    out, notes = local_suppression(df, KEYS, k={"a": 2, None: 4}, strata="zone")
    assert k_violations(out[df["zone"].isna()], KEYS, 4) == 0
    assert k_violations(out[df["zone"] == "a"], KEYS, 2) == 0
