"""risk_threshold: sdcMicro measure_risk's threshold for a global-risk target."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk import risk_threshold


def test_sdcmicro_calcrisks_example_gives_zero():
    # sdcMicro's test_calcRisks: risks 0.5/1, max_global_risk 0.01 -> threshold 0
    r = [0.5, 1.0, 0.5, 1.0, 1.0, 0.5, 1.0, 0.5, 1.0, 1.0]
    assert risk_threshold(r, 0.01) == 0.0


def test_hand_computed_threshold():
    r = [1.0, 1.0, 0.5, 0.5, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]
    # ER = 0.3 * 10 = 3: E(0.5) = 0.6 + 1.0 + 0.5 * 2 = 2.6 < 3
    assert risk_threshold(r, 0.3) == 0.5
    # ER = 2: E(0.5) = 2.6 >= 2, E(0.1) = 0.6 + 0.1 * 4 = 1.0 < 2
    assert risk_threshold(r, 0.2) == 0.1
    # ER = 0.5: E(0.1) = 1.0 >= 0.5 -> none
    assert risk_threshold(r, 0.05) == 0.0
    # the file meets the target: sum 3.6 < 4
    assert risk_threshold(r, 0.4) is None


def test_capping_at_the_threshold_meets_the_target():
    rng = np.random.default_rng(0)
    r = rng.beta(0.5, 3, 500)
    for g in (0.02, 0.05, 0.1):
        t = risk_threshold(r, g)
        assert t is not None and t > 0
        assert np.minimum(r, t).mean() < g
        higher = np.unique(r[r > t])[0]  # the next observed level does not meet it
        assert np.minimum(r, higher).mean() >= g


def test_bad_input_and_session():
    with pytest.raises(ParameterError, match="max_global_risk"):
        risk_threshold([0.1], 1.0)
    with pytest.raises(ParameterError, match="max_global_risk"):
        risk_threshold([0.1], True)
    with pytest.raises(MeasureError):
        risk_threshold([0.1, np.nan], 0.1)
    s = sdc.SdcSession(pd.DataFrame({"a": list("xxyzzz")}), keys=["a"])
    # risks 1/2, 1/2, 1, 1/3 x 3 ; ER = 0.3 * 6 = 1.8: E(1/2) = 1 + 1 + 1/2 = 2.5, E(1/3) = 2
    assert s.risk.threshold(max_global_risk=0.3) == 0.0
    assert s.risk.threshold(max_global_risk=0.45) == 0.5  # ER 2.7 > 2.5
    assert s.risk.threshold(max_global_risk=0.6) is None  # sum 3 < 3.6


def test_documented_alpha_divergence_figures():
    # the example of docs/sdcmicro.md: fk = 1.5 gets the fk > 2 formula (sdcMicro: 0)
    df = pd.DataFrame({"a": list("xxxyyy"), "b": ["u", None, "v", "w", "w", "w"],
                       "w": [10.0, 10, 10, 20, 20, 20]})
    s = sdc.SdcSession(df, keys=["a", "b"], weight="w", alpha=0.5)
    f = s.risk.frequencies
    assert f["fk"].tolist() == [1.5, 3, 1.5, 3, 3, 3]
    assert f["Fk"].tolist() == [15, 30, 15, 60, 60, 60]
    r = s.risk.individual.to_numpy()
    assert r == pytest.approx([0.1 / 0.6, 0.1 / 2.1, 0.1 / 0.6] + [0.05 / 2.05] * 3)
    assert s.risk.global_risk == pytest.approx(0.0757, abs=5e-5)
    sdcmicro = r.copy()
    sdcmicro[(f["fk"] > 1) & (f["fk"] < 2)] = 0.0
    assert sdcmicro.mean() == pytest.approx(0.0201, abs=5e-5)
