"""Utility contracts: hand-computed values, JSON round trips, the session's declared contracts in
its recipe and release check, contract columns in sweeps, bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError, RecipeError
from sdcsession.utility.contracts import check, contract_from_dict


@pytest.fixture()
def pair():
    o = pd.DataFrame({"g": list("aabbbb"), "x": [1.0, 3.0, 2.0, 2.0, 4.0, 4.0],
                      "y": [2.0, 6.1, 3.9, 4.0, 8.2, 7.9], "w": [1.0, 1, 2, 2, 1, 1],
                      "c": list("uuvvvv")})
    m = o.assign(x=[1.0, 3.3, 2.0, 2.0, 4.0, 4.0], c=["u", None, "v", "z", "v", "v"])
    return o, m


def test_estimate_relative_by_group_hand_computed(pair) -> None:
    o, m = pair
    # weighted means: a: (1+3)/2 = 2 -> (1+3.3)/2 = 2.15 (7.5 %); b: (4+4+4+4)/6 unchanged;
    # total: (1+3+4+4+4+4)/8 = 2.5 -> 2.5375 (1.5 %)
    r = check(o, m, [sdc.contracts.estimate("mean:x", by="g", tolerance=0.05)], weight="w")
    assert not r.passed[0]
    assert r.value[0] == pytest.approx(0.075)
    assert r.margin[0] == pytest.approx(0.05 - 0.075)
    assert r.detail[0].startswith("g=a: 2 in the original, 2.15 released")
    ok = check(o, m, [sdc.contracts.estimate("mean:x", tolerance=0.02)], weight="w")
    assert ok.passed[0] and ok.value[0] == pytest.approx(0.0375 / 2.5)


def test_estimate_in_ci_is_standardised_distance(pair) -> None:
    o, m = pair
    from sdcsession.utility.benchmark import indicator_ci

    ci = indicator_ci(o, "mean:x", method="normal")
    est, hi = float(ci.estimate[0]), float(ci.upper[0])
    r = check(o, m, [sdc.contracts.estimate("mean:x", within="ci")])
    new = m["x"].mean()
    assert r.value[0] == pytest.approx((new - est) / (hi - est))
    assert r.passed[0] == (new <= hi)


def test_coefficients_in_ci(pair) -> None:
    o, m = pair
    from sdcsession.utility.regression import compare_regression

    co = compare_regression(o, m, "y ~ x").coefficients.set_index("term").loc["x"]
    r = check(o, m, [sdc.contracts.coefficients("y ~ x")])
    d = co.coef_masked - co.coef_original
    half = (co.orig_upper - co.coef_original) if d >= 0 else (co.coef_original - co.orig_lower)
    assert r.value[0] == pytest.approx(abs(d) / half)
    assert r.passed[0] == bool(co.in_ci)


def test_category_share_and_distances(pair) -> None:
    o, m = pair
    t = check(o, m, [sdc.contracts.category_share("c", max_share=0.4),
                     sdc.contracts.category_share("c", change="changed", max_share=0.2,
                                                  categories=["v"]),
                     sdc.contracts.distance(["x", "y"], bound=1.0),
                     sdc.contracts.distance("c", distance="total_variation", bound=0.5),
                     sdc.contracts.distance("x", distance="ks", bound=0.2)])
    # c=u: 1 of 2 suppressed; v: 1 of 4 changed; TV of (1/3,2/3) vs (1/5,3/5,1/5)
    assert t.value.tolist()[:2] == [0.5, 0.25]
    assert t.value[3] == pytest.approx(0.5 * (abs(1 / 3 - 1 / 5) + abs(2 / 3 - 3 / 5) + 1 / 5))
    assert t.value[4] == pytest.approx(1 / 6)
    r = np.corrcoef(o.x, o.y)[0, 1] - np.corrcoef(m.x, m.y)[0, 1]
    assert t.value[2] == pytest.approx(abs(r))
    assert t.passed.tolist() == [False, False, True, True, True]


def test_measure_contract_and_json_round_trip(pair) -> None:
    o, m = pair
    c = sdc.contracts.measure("suppressions", bound=0, params={"keys": ["c"]},
                              field="suppressions")
    r = check(o, m, [c])
    assert r.value[0] == 1 and not r.passed[0]
    for k in [c, sdc.contracts.estimate("ratio:y/x", by="g"),
              sdc.contracts.coefficients("y ~ x", terms=["x"], within="relative"),
              sdc.contracts.category_share("c", categories=["u", 1])]:
        back = contract_from_dict(json.loads(json.dumps(k.to_dict())))
        assert back == k and hash(back) == hash(k)


@pytest.mark.parametrize("make, match", [
    (lambda: sdc.contracts.estimate("avg:x"), "unknown statistic"),
    (lambda: sdc.contracts.estimate("mean:x", tolerance=-1), "tolerance"),
    (lambda: sdc.contracts.coefficients("y ~ __import__('os')"), "formula|function"),
    (lambda: sdc.contracts.category_share("c", max_share=2), "max_share"),
    (lambda: sdc.contracts.distance(["x"]), "two or more"),
    (lambda: sdc.contracts.measure("no_such", bound=1), "catalogue"),
    (lambda: sdc.contracts.estimate("mean:x", severity="fatal"), "severity"),
])
def test_bad_contracts_are_parameter_errors(make, match) -> None:
    with pytest.raises(ParameterError, match=match):
        make()


def test_declared_contract_is_a_release_finding_and_in_the_recipe() -> None:
    df = sdc.datasets.synthetic_survey(150, seed=2)
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], numeric=["income"], weight="w",
                       seed=4)
    keep = sdc.contracts.estimate("mean:income", by="region", tolerance=0.02)
    s.declare_contracts(keep)
    assert "contract" not in set(s.release_check()["check"])  # untreated: met
    s.add_noise("income", noise=2.0)
    found = s.release_check()
    row = found[found["check"] == "contract"]
    assert len(row) == 1 and row["severity"].iloc[0] == "block"
    assert row["variables"].iloc[0] == ["region"]
    with pytest.raises(sdc.ReleaseError, match="contract"):
        s.export("/nonexistent-dir/x.csv")
    r = s.to_recipe()
    assert r["contracts"] == [keep.to_dict()]
    again = sdc.SdcSession.from_recipe(df, json.loads(json.dumps(r)))
    assert again.contracts == (keep,)
    assert again.release_check().equals(found)
    r["contracts"] = [{"type": "estimate", "indicator": "mean:nope"}]
    with pytest.raises(RecipeError, match="nope"):
        sdc.SdcSession.from_recipe(df, r)
    head = s.head
    with pytest.raises(ParameterError, match="nope"):
        s.declare_contracts(sdc.contracts.category_share("nope"))
    assert s.contracts == (keep,) and s.head is head
    s.contracts = []
    assert s.contracts == () and "contracts" not in s.to_recipe()


def test_contracts_in_sweep_and_check_cached() -> None:
    df = sdc.datasets.synthetic_survey(150, seed=2)
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], seed=4)
    c = sdc.contracts.category_share("age5", max_share=0.1)
    sw = s.sweep([("local_suppression", [{"k": 2}, {"k": 5}])], measures=["k3_violations", c])
    col = f"contract: {c.name}"
    for i, b in enumerate(sw.sessions):
        t = b.utility.check(c)
        assert sw.table[col][i] == pytest.approx(t.margin[0])
        assert b.state.is_cached("contract", contract=c.to_dict())


def test_contracts_as_compare_columns() -> None:
    df = sdc.datasets.synthetic_survey(150, seed=2)
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], numeric=["income"], weight="w",
                       seed=4)
    c = sdc.contracts.estimate("mean:income", by="region")
    b = s.branch("noisy").add_noise("income", noise=1.0)
    t = sdc.compare(s, b, measures=["lambda", c])
    col = f"contract: {c.name}"
    assert t[col].tolist() == pytest.approx([0.02, b.utility.check(c).margin[0]])
    assert t[col].iloc[1] < 0
