"""Session access to risky cells, attacker models, record linkage and the l-diversity summary."""

from __future__ import annotations

import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError
from sdcsession.risk import attacker_models, l_diversity, record_linkage, risky_cells
from sdcsession.session.measures import COUNTS


@pytest.fixture()
def session():
    df = sdc.datasets.synthetic_survey(200, seed=3)
    return sdc.SdcSession(df, keys=["region", "sex", "age5"], numeric=["income", "expend"],
                          weight="w", sensitive=["health"], seed=1)


def test_risky_cells_from_session_equal_kernel_and_are_cached(session):
    s = session
    keys = ["region", "sex", "age5"]
    got = s.risk.risky_cells(threshold={1: 5, 2: 3}, by_table=True)
    pd.testing.assert_frame_equal(got, risky_cells(s.data, keys, threshold={1: 5, 2: 3},
                                                   by_table=True))
    before = COUNTS["risky_cells"]
    s.risk.risky_cells(threshold={1: 5, 2: 3}, by_table=True)
    assert COUNTS["risky_cells"] == before
    cells = s.risk.risky_cells(levels={"region": 1, "sex": 2, "age5": 2})
    assert set(cells["table"].cat.categories) == {"region", "sex", "age5", "region × sex",
                                                  "region × age5"}


def test_attacker_models_from_session(session):
    s = session
    r = s.risk.attacker_models(threshold=0.1)
    k = attacker_models(s.data, ["region", "sex", "age5"], weight="w", threshold=0.1)
    pd.testing.assert_frame_equal(r.to_frame(), k.to_frame())
    assert r.sdcmicro_global_risk == pytest.approx(s.risk.global_risk)
    pop = pd.concat([s.data] * 3)
    assert s.risk.attacker_models(population=pop).population == "population"


def test_record_linkage_original_vs_current(session):
    s = session
    r0 = s.risk.record_linkage()
    assert r0.correct_match_rate == 1.0 and r0.mean_distance == 0.0
    s.add_noise(["income", "expend"], method="additive", noise=0.5)
    r1 = s.risk.record_linkage(distance="manhattan")
    want = record_linkage(s.original, s.data, variables=["income", "expend"],
                          distance="manhattan")
    assert r1.correct_matches == want.correct_matches
    assert r1.correct_match_rate < 1.0
    s.undo()
    assert s.risk.record_linkage().correct_match_rate == 1.0
    with pytest.raises(ParameterError, match="numeric"):
        sdc.SdcSession(s.data, keys=["sex"], seed=1).risk.record_linkage()


def test_l_diversity_summary_from_session(session):
    s = session
    summ = s.risk.l_diversity_summary()
    ld = l_diversity(s.data, ["region", "sex", "age5"], "health")
    assert summ.table.loc[("health", "distinct"), "max"] == ld["health_distinct"].max()
    assert sdc.SdcSession(s.data, keys=["sex"], seed=1).risk.l_diversity_summary() is None


def test_to_frame_shows_attacker_models_and_computed_models_only():
    s = sdc.SdcSession(sdc.datasets.synthetic_survey(300, seed=1),
                       keys=["region", "sex", "age5"], weight="w", seed=1)
    before = s.risk.to_frame()
    assert not any(i.startswith("model_risk") for i in before.index)  # never computed for display
    att = s.risk.attacker_models()
    assert before.loc["prosecutor.highest_risk", "value"] == att.prosecutor["highest_risk"]
    assert before.loc["marketer", "value"] == att.marketer
    m = s.risk.model()
    after = s.risk.to_frame()
    assert after.loc["model_risk[default].gr1", "value"] == m.gr1
    assert after.loc["model_risk[default].gr2", "value"] == m.gr2
