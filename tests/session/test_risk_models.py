"""Session access to the model-based risk measures: s.risk.model(...) and
s.risk.population_uniques(...) are the pure functions on the current data, cached per state."""

from __future__ import annotations

import pytest

import sdcsession as sdc
from sdcsession.errors import MeasureError
from sdcsession.risk import model_risk, population_uniques


@pytest.fixture(scope="module")
def session():
    df = sdc.datasets.synthetic_survey(400, seed=3)
    return sdc.SdcSession(df, keys=["sex", "region", "age5"], weight="w", seed=1)


def test_model_is_the_kernel_on_the_current_data(session):
    r = session.risk.model()
    ref = model_risk(session.data, "~ sex + region + age5", weight="w")
    assert r.gr1 == pytest.approx(ref.gr1) and r.tau2 == pytest.approx(ref.tau2)
    assert session.risk.model() is r  # cached on the state
    ipf = session.risk.model(method="IPF", bound=5)
    assert ipf.method == "IPF" and ipf.bound == 5
    assert session.risk.model("~ sex * region", method="CE").formula == "~ sex * region"


def test_model_after_a_recode_drops_unused_categories(session):
    s = session.branch("recoded")
    s.group_categories("age5", {"0-9": ["0-4", "5-9"]})
    data = s.data.assign(age5=s.data["age5"].astype("category"))
    with pytest.raises(MeasureError, match="zero count"):  # the kernel refuses unused categories
        model_risk(data.assign(age5=data["age5"].cat.add_categories(["never"])),
                   "~ sex + age5", weight="w", method="IPF")
    assert s.risk.model(method="IPF").n_cells > 0


def test_population_uniques(session):
    r = session.risk.population_uniques()
    ref = population_uniques(session.data, ["sex", "region", "age5"], weight="w")
    assert r.uniques == pytest.approx(ref.uniques) and r.model == ref.model
    assert session.risk.population_uniques("zayatz").method == "zayatz"


def test_no_weight_role_is_a_named_error():
    s = sdc.SdcSession(sdc.datasets.synthetic_survey(50, seed=1), keys=["sex"], seed=1)
    with pytest.raises(MeasureError, match="weight"):
        s.risk.model()
    with pytest.raises(MeasureError, match="weight"):
        s.risk.population_uniques()
