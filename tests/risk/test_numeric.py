"""Numeric risk: interval disclosure (sdcMicro dRisk) and distance-based record linkage."""

import numpy as np
import pandas as pd
import pytest
from conftest import read_csv, reference

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk import interval_disclosure, record_linkage_risk


def _casc():
    return read_csv("casc"), read_csv("casc_masked")


def test_conformance_drisk_casc():
    ref = reference()["casc"]
    x, m = _casc()
    got = interval_disclosure(x, m, columns=ref["vars"], k=0.05)
    assert got == pytest.approx(ref["numeric_utility"]["drisk"], rel=1e-9)


def test_interval_disclosure_hand_case():
    x = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "b": [10.0, 10.0, 10.0, 10.0]})
    m = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "b": [10.0, 12.0, 10.0, 8.0]})
    # sd(b masked) = sqrt(8/3) = 1.633; k = 1: |dev| <= 1.633 holds for records 0, 2
    assert interval_disclosure(x, m, k=1) == 0.5
    assert interval_disclosure(x, m, k=2) == 1.0
    assert interval_disclosure(x, m, columns=["a"], k=0) == 1.0
    m2 = m.copy()
    m2.loc[0, "a"] = np.nan
    assert interval_disclosure(x, m2, k=2) == 0.75  # a missing value is not counted at risk


def test_drisk_increases_with_k_and_record_linkage_decreases_with_noise():
    ref = reference()["casc"]
    x, m = _casc()
    v = ref["vars"]
    vals = [interval_disclosure(x, m, columns=v, k=k) for k in (0.01, 0.05, 0.2, 1.0)]
    assert vals == sorted(vals) and vals[-1] > vals[0]
    rng = np.random.default_rng(1)
    xs = x[v]
    small = xs + rng.normal(0, 0.01, xs.shape) * xs.std().to_numpy()
    big = xs + rng.normal(0, 1.0, xs.shape) * xs.std().to_numpy()
    assert record_linkage_risk(xs, xs) == 1.0
    assert record_linkage_risk(xs, small) > record_linkage_risk(xs, big)
    assert record_linkage_risk(xs, small) > 0.9


def test_record_linkage_hand_case():
    x = pd.DataFrame({"a": [0.0, 1.0, 2.0, 10.0]})
    m = pd.DataFrame({"a": [0.9, 0.1, 2.0, 9.0]})
    # record 0 links to 1 and 1 to 0 (swapped), 2 and 3 to themselves
    assert record_linkage_risk(x, m) == 0.5


def test_bad_input():
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0], "s": ["u", "v", "w"]})
    m = x.copy()
    with pytest.raises(MeasureError, match="not numeric"):
        interval_disclosure(x, m)
    with pytest.raises(MeasureError, match="records"):
        interval_disclosure(x[["a"]], m[["a"]].iloc[:2])
    with pytest.raises(MeasureError, match="'zz'"):
        record_linkage_risk(x, m, columns=["zz"])
    with pytest.raises(MeasureError, match="not in original"):
        interval_disclosure(x[["a"]], m.assign(b=1.0)[["a", "b"]])
    with pytest.raises(ParameterError, match="k"):
        interval_disclosure(x, m, columns="a", k=-1)
    with pytest.raises(MeasureError, match="missing"):
        record_linkage_risk(x[["a"]], pd.DataFrame({"a": [1.0, np.nan, 2.0]}))
