"""Prosecutor, journalist and marketer risk (El Emam / ARX): hand-computed values, population
frames, the mapping to sdcMicro's global risk, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk import attacker_models, global_risk, individual_risk


def test_sample_only_hand_computed():
    # classes of size 1, 2, 3: f = 1, 2, 2, 3, 3, 3; J = 3, n = 6
    df = pd.DataFrame({"k": ["a", "b", "b", "c", "c", "c"]})
    r = attacker_models(df, "k", threshold=0.4)
    assert r.population == "sample"
    assert r.prosecutor == {"records_at_risk": pytest.approx(3 / 6), "highest_risk": 1.0,
                            "success_rate": pytest.approx(3 / 6)}
    assert r.journalist == r.prosecutor  # F = f
    assert r.marketer == pytest.approx(0.5)
    assert r.record_risk["prosecutor"].tolist() == pytest.approx([1, .5, .5, 1 / 3, 1 / 3, 1 / 3])
    # sdcMicro without weights: risk 1/fk, global risk = mean = prosecutor success rate
    assert r.sdcmicro_global_risk == pytest.approx(0.5)


def test_weights_hand_computed():
    df = pd.DataFrame({"k": ["a", "b", "b", "c", "c", "c"],
                       "w": [5.0, 10.0, 30.0, 2.0, 2.0, 4.0]})
    # F = 5, 40, 40, 8, 8, 8
    r = attacker_models(df, "k", weight="w", threshold=0.1)
    assert r.population == "weights"
    assert r.journalist["highest_risk"] == pytest.approx(1 / 5)
    assert r.journalist["records_at_risk"] == pytest.approx(4 / 6)  # 1/5 and 1/8 > 0.1
    marketer = (1 / 5 + 2 / 40 + 3 / 8) / 6
    assert r.marketer == pytest.approx(marketer)
    # J / sum over classes of F = 3 / (5 + 40 + 8) is smaller than the marketer average here
    assert r.journalist["success_rate"] == pytest.approx(max(3 / 53, marketer))
    table = r.to_frame()
    assert table.loc["marketer", "success_rate"] == pytest.approx(marketer)
    assert np.isnan(table.loc["marketer", "highest_risk"])
    assert set(r.to_dict()) >= {"prosecutor_highest_risk", "journalist_success_rate", "marketer"}


def test_population_frame():
    sample = pd.DataFrame({"a": ["x", "x", "y", None], "b": [1, 1, 2, 1]})
    pop = pd.DataFrame({"a": ["x"] * 4 + ["y"] * 1 + [None] * 3 + ["z"] * 7,
                        "b": [1] * 4 + [2] + [1] * 3 + [1] * 7})
    r = attacker_models(sample, ["a", "b"], population=pop, threshold=0.5)
    # F = 4, 4, 1, 3 (missing is a category of its own); f = 2, 2, 1, 1
    assert r.record_risk["journalist"].tolist() == pytest.approx([0.25, 0.25, 1.0, 1 / 3])
    assert r.journalist["highest_risk"] == 1.0
    assert r.journalist["records_at_risk"] == pytest.approx(0.25)
    assert r.marketer == pytest.approx((0.25 + 0.25 + 1 + 1 / 3) / 4)
    # J / sum F over classes = 3 / (4 + 1 + 3)
    assert r.journalist["success_rate"] == pytest.approx(max(3 / 8, r.marketer))
    assert np.isnan(r.sdcmicro_global_risk)
    with pytest.raises(MeasureError, match="less often in the population"):
        attacker_models(sample, ["a", "b"], population=pop.iloc[:3])


@pytest.mark.parametrize("name", ["francdat", "testdata", "free1"])
def test_mapping_to_sdcmicro(name):
    ref = reference()[name]
    df = load(name)
    r = attacker_models(df, ref["keys"], weight=ref["weight"])
    assert r.sdcmicro_global_risk == pytest.approx(ref["risk"]["global_risk"], rel=1e-9)
    fk = np.asarray(ref["risk"]["fk"], dtype=float)
    Fk = np.asarray(ref["risk"]["Fk"], dtype=float)
    assert r.prosecutor["success_rate"] == pytest.approx(np.mean(1 / fk), rel=1e-12)
    assert r.prosecutor["highest_risk"] == pytest.approx(1 / fk.min())
    assert r.marketer == pytest.approx(np.mean(1 / Fk), rel=1e-12)
    assert r.journalist["highest_risk"] == pytest.approx(1 / Fk.min())
    unweighted = attacker_models(df, ref["keys"])
    assert unweighted.sdcmicro_global_risk == pytest.approx(
        global_risk(individual_risk(df, ref["keys"])))


def test_bad_input():
    df = pd.DataFrame({"k": [1, 2], "w": [1.0, -1.0]})
    for bad in (0, 1.5, -0.1, "0.2", True):
        with pytest.raises(ParameterError, match="threshold"):
            attacker_models(df, "k", threshold=bad)
    with pytest.raises(MeasureError, match="weight"):
        attacker_models(df, "k", weight="w")
    with pytest.raises(MeasureError, match="population"):
        attacker_models(df, "k", population=[1, 2])
    with pytest.raises(MeasureError, match="'k'"):
        attacker_models(df, "k", population=pd.DataFrame({"j": [1]}))
