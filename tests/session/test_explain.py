"""``s.risk.explain(name)`` / ``s.utility.explain(name)``: every figure of ``to_frame()`` is
explained from the one registry, with its current value and the quantities that produce it."""

from __future__ import annotations

import numpy as np
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError
from sdcsession.session.views.explain import explain_figure, figure_names
from sdcsession.session.views.figures import FIGURES, base_name


@pytest.fixture(scope="module")
def session() -> sdc.SdcSession:
    df = sdc.datasets.synthetic_survey(200, seed=3)
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], numeric=["income", "expend"],
                       weight="w", household="hid", seed=1)
    s.microaggregation(["income", "expend"], k=3)
    s.local_suppression(k=3)
    # the model-based figures appear in to_frame() once computed
    s.risk.model()
    s.risk.population_uniques()
    s.risk.rmd()
    s.risk.record_linkage()
    return s


def test_every_figure_of_to_frame_is_explained(session) -> None:
    risk_names = figure_names(session.risk)
    util_names = figure_names(session.utility)
    assert len(risk_names) >= 25 and len(util_names) >= 9
    for view, names in ((session.risk, risk_names), (session.utility, util_names)):
        for name in names:
            e = view.explain(name)
            assert base_name(name) in FIGURES, name
            f = e.figure
            assert f.formula and f.source and f.assumptions and f.up and f.down, name
            assert e.value is not None, name
            text = str(e)
            assert f.title in text and "moves it up" in text and "moves it down" in text


def test_values_and_quantities_are_the_session_figures(session) -> None:
    risk = session.risk
    g = risk.explain("global_risk")
    assert g.value == pytest.approx(risk.global_risk)
    q = g.quantities
    assert q["sum of r_i"] / q["n"] == pytest.approx(risk.global_risk)  # mean = sum / n
    e = risk.explain("expected_reidentifications")
    assert e.value == pytest.approx(q["sum of r_i"])
    k5 = risk.explain("k5_violations")
    fk = risk.fk.to_numpy()
    assert k5.value == risk.k_violations(5) == k5.quantities["records with f_k < k"]
    assert k5.quantities["k"] == 5 and k5.quantities["records with f_k < k"] == int((fk < 5).sum())
    gr1 = risk.explain("model_risk.gr1")  # the registry name finds the tagged row
    assert gr1.name == "model_risk[default].gr1"
    assert gr1.value == pytest.approx(float(risk.to_frame().loc[gr1.name, "value"]))
    util = session.utility
    sup = util.explain("suppressions")
    per = sup.quantities["per variable"]
    assert sup.value == util.suppressions_total == sum(per.values())
    assert util.explain("il1s").value == pytest.approx(util.il1s)


def test_a_figure_not_computed_says_how_to_compute_it() -> None:
    s = sdc.SdcSession(sdc.datasets.synthetic_survey(50, seed=1), keys=["sex"], seed=1)
    e = s.risk.explain("model_risk.gr2")
    assert e.value is None and "s.risk.model()" in e.note and "not computed" in str(e)
    assert s.utility.explain("il1s").value is None  # no numeric variables


def test_unknown_names_are_refused() -> None:
    s = sdc.SdcSession(sdc.datasets.synthetic_survey(50, seed=1), keys=["sex"], seed=1)
    with pytest.raises(ParameterError, match="not a figure"):
        s.risk.explain("globl_risk")
    with pytest.raises(ParameterError, match="name"):
        explain_figure(s.utility, 3)  # type: ignore[arg-type]


def test_explanation_for_a_front_end() -> None:
    s = sdc.SdcSession(sdc.datasets.synthetic_survey(50, seed=1), keys=["sex", "age5"], seed=1)
    d = s.risk.explain("k3_violations").to_dict()
    assert set(d) >= {"title", "formula", "source", "assumptions", "value", "quantities", "up",
                      "down"}
    assert d["value"] == s.risk.k_violations(3) and np.isfinite(d["value"])
    assert "$$" in s.risk.explain("global_risk")._repr_markdown_()
