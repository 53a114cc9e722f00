"""s.risk.attacks and its place in compare and the report: the table, the cache (a control set
is part of the key by content), the defaults taken from the roles, and errors."""

from __future__ import annotations

import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk.attacks import inference, singling_out
from sdcsession.session.measures import COUNTS


@pytest.fixture(scope="module")
def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    df = sdc.datasets.synthetic_survey(700, seed=4)
    return df.iloc[:400], df.iloc[400:800]


def _session(df: pd.DataFrame) -> sdc.SdcSession:
    return sdc.SdcSession(df, keys=["region", "sex", "age5"], numeric=["income", "expend"],
                          sensitive=["health"], seed=1)


def test_table_equals_the_kernels(frames) -> None:
    o, c = frames
    s = _session(o)
    t = s.risk.attacks(c, n_attacks=80, seed=2)
    assert t.index.tolist() == ["singling_out", "linkability", "inference"]
    assert list(t.columns[:3]) == ["risk", "ci_low", "ci_high"]
    cols = ["region", "sex", "age5", "income", "expend", "health"]
    so = singling_out(o, o, c, columns=cols, n_attacks=80, seed=2)
    assert t.loc["singling_out", "risk"] == so.risk
    inf = inference(o, o, c, aux_cols=cols[:-1], secret="health", n_attacks=80, seed=2)
    assert t.loc["inference", "n_success"] == inf.n_success


def test_cached_by_control_content(frames) -> None:
    o, c = frames
    s = _session(o)
    before = COUNTS["attack.singling_out"]
    a = s.risk.attacks.singling_out(c, n_attacks=50)
    b = s.risk.attacks.singling_out(c.copy(), n_attacks=50)  # equal content: same entry
    assert a is b and COUNTS["attack.singling_out"] == before + 1
    other = s.risk.attacks.singling_out(c.iloc[:-1], n_attacks=50)
    assert other is not a and COUNTS["attack.singling_out"] == before + 2


def test_without_control_the_risk_is_the_attack_rate(frames) -> None:
    o, _ = frames
    r = _session(o).risk.attacks.singling_out(n_attacks=50)
    assert r.risk == pytest.approx(r.attack_rate) and r.n_attacks_control == 0


def test_tcap_and_dcr_defaults(frames) -> None:
    o, c = frames
    s = _session(o)
    t = s.risk.attacks.tcap()
    assert t.keys == ("region", "sex", "age5") and t.target == "health" and t.tcap == 1.0
    d = s.risk.attacks.dcr(c)
    assert d.exact_matches == len(o) and d.columns == ("region", "sex", "age5", "income",
                                                       "expend", "health")


def test_compare_optional_measures_and_report(frames) -> None:
    o, c = frames
    s = _session(o)
    b = s.branch("noise").add_noise(["income", "expend"], noise=1.0)
    default = sdc.compare(s, b)
    assert "singling_out_risk" not in default.columns  # optional: slow
    t = sdc.compare(s, b, measures=["singling_out_risk", "linkability_risk", "tcap",
                                    "dcr_exact_matches"])
    assert t["dcr_exact_matches"].tolist() == [len(o), 0]
    assert 0 <= t["singling_out_risk"].min() <= t["singling_out_risk"].max() <= 1
    html = sdc.report(s, b, figures=False).html
    assert "Risk and utility by attack and model" in html and "singling out risk" in html
    assert "href='#attacks'" in html
    fresh = _session(o)
    fresh_html = sdc.report(fresh, figures=False).html
    assert "id='attacks'" not in fresh_html and "#attacks" not in fresh_html  # nothing computed


def test_errors(frames) -> None:
    o, c = frames
    s = sdc.SdcSession(o, keys=["region", "sex"], numeric=["income"], seed=1)
    with pytest.raises(ParameterError, match="secret"):
        s.risk.attacks.inference(c)
    assert s.risk.attacks(c, n_attacks=30).index.tolist() == ["singling_out", "linkability"]
    with pytest.raises(MeasureError, match="too small"):
        s.risk.attacks(c.iloc[:3])
    with pytest.raises(ParameterError, match="attacks"):
        s.risk.attacks(c, attacks=["membership"])
    with pytest.raises(ParameterError, match="control"):
        s.risk.attacks([1, 2, 3])
