"""The session's risk slot reproduces sdcMicro through the cache, and is computed once per state."""

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference

import sdcsession as sdc
from sdcsession.session.measures import COUNTS


@pytest.mark.parametrize("name", ["francdat", "testdata", "testdata_na", "free1", "eusilc"])
def test_session_risk_matches_sdcmicro(name):
    ref = reference()[name]
    df = load(name)
    s = sdc.SdcSession(df, keys=ref["keys"], weight=ref["weight"], household=ref.get("household"),
                       seed=1)
    r = s.risk
    rr = ref["risk"]
    np.testing.assert_array_equal(r.fk.to_numpy(), rr["fk"])
    np.testing.assert_allclose(r.Fk.to_numpy(), rr["Fk"], rtol=1e-9)
    np.testing.assert_allclose(r.individual.to_numpy(), rr["risk"], rtol=1e-9)
    assert r.global_risk == pytest.approx(rr["global_risk"], rel=1e-9)
    assert r.expected_reidentifications == pytest.approx(rr["global_risk_ER"], rel=1e-9)
    for k in (2, 3, 5):
        assert r.k_violations(k) == rr[f"n_fk_lt{k}"]
    if "hier_risk" in rr:
        np.testing.assert_allclose(r.household.to_numpy(), rr["hier_risk"], rtol=1e-9)
        assert r.household_expected_reidentifications == pytest.approx(rr["hier_risk_ER"], rel=1e-9)
    else:
        assert r.household is None or ref.get("household")


def test_cached_once_per_state_and_recomputed_after_step():
    df = load("testdata")
    ref = reference()["testdata"]
    s = sdc.SdcSession(df, keys=ref["keys"], weight=ref["weight"], numeric=ref["numeric"], seed=1)
    before = COUNTS["frequencies"]
    s.risk.k_violations(3), s.risk.expected_reidentifications, s.risk.individual
    assert COUNTS["frequencies"] == before + 1
    _ = s.risk.fk
    assert COUNTS["frequencies"] == before + 1
    s.recode("relat", {c: "other" for c in df["relat"].cat.categories[5:]})
    _ = s.risk.fk
    assert COUNTS["frequencies"] == before + 2
    s.undo()
    _ = s.risk.fk  # the root state kept its cache
    assert COUNTS["frequencies"] == before + 2
    assert s.risk.numeric == {"interval_disclosure": 1.0, "record_linkage": 1.0}


def test_numeric_risk_changes_after_numeric_treatment():
    ref = reference()["testdata"]
    s = sdc.SdcSession(load("testdata"), keys=ref["keys"], numeric=ref["numeric"], seed=1)
    s.microaggregation(ref["numeric"], k=3)
    num = s.risk.numeric
    assert num["interval_disclosure"] < 1.0 and num["record_linkage"] < 1.0
    assert num["interval_disclosure"] == pytest.approx(ref["mdav_k3"]["drisk"], abs=0.05)


def test_risk_display_and_dict():
    df = pd.DataFrame({"sex": ["m", "f", "m", "<b>"], "w": [2.0, 2, 2, 2]})
    r = sdc.SdcSession(df, keys=["sex"], weight="w", seed=1).risk
    d = r.to_dict()
    assert d["k2_violations"] == 2 and d["n_records"] == 4
    assert "expected re-identifications" in repr(r)
    assert "<b>" not in r._repr_html_()


def test_ldiversity_and_suda2_through_session():
    ref = reference()["testdata"]
    s = sdc.SdcSession(load("testdata"), keys=ref["keys"][:6], sensitive=["hhcivil"], seed=1)
    ld = s.risk.l_diversity
    np.testing.assert_array_equal(ld["hhcivil_distinct"].to_numpy(),
                                  ref["ldiversity"]["hhcivil"]["distinct"])
    s7 = sdc.SdcSession(load("testdata"), keys=ref["keys"], seed=1)
    before = COUNTS["suda2"]
    repr(s7)
    repr(s7.risk)
    assert COUNTS["suda2"] == before  # never computed by display
    sc = s7.risk.suda2().score
    np.testing.assert_allclose(sc.to_numpy(), ref["suda2"]["score"], rtol=1e-9)


def test_unchanged_keys_share_the_originals_risk_and_changed_keys_do_not():
    """A state whose keys and weight are the original's reuses the original's frequencies and
    risks (computed once per tree); the values equal a direct computation on the state."""
    from sdcsession.methods.noise.addition import AddNoise
    from sdcsession.risk import frequencies
    from sdcsession.session.per_original import unchanged

    df = load("testdata")
    ref = reference()["testdata"]
    s = sdc.SdcSession(df, keys=ref["keys"], weight=ref["weight"], numeric=ref["numeric"], seed=1)
    noisy = s.branch("noise").apply(AddNoise(list(ref["numeric"]), noise=0.1))
    supp = s.branch("ls").local_suppression(k=3)
    assert unchanged(df, noisy.data, ref["keys"]) and not unchanged(df, supp.data, ref["keys"])
    for x in (s, noisy, supp):
        f = frequencies(x.data, ref["keys"], weight=ref["weight"])
        np.testing.assert_array_equal(x.risk.fk.to_numpy(), f["fk"].to_numpy())
        np.testing.assert_array_equal(x.risk.Fk.to_numpy(), f["Fk"].to_numpy())
    assert noisy.risk.individual is s.risk.individual  # shared, not recomputed
    assert supp.risk.k_violations(3) == 0 < s.risk.k_violations(3)
    assert noisy.utility.il1s > 0 and s.utility.il1s == 0.0
