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



def test_interval_disclosure_missing_values_as_sdcmicro():
    # sdcMicro 5.8 dRisk: rowSums(x < mi | x > ma, na.rm = TRUE) == 0 -- a comparison with a
    # missing value is left out; n counts every record.
    x = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "b": [10.0, 10.0, 10.0, 10.0]})
    m = pd.DataFrame({"a": [np.nan, 1.0, 2.0, 3.0], "b": [10.0, 12.0, 10.0, 8.0]})
    # sd(b masked) = sqrt(8/3) = 1.633 (k = 1: records 1 and 3 are outside on b);
    # sd(a masked) over 1, 2, 3 = 1; record 0 has no masked a: compared on b only (inside)
    assert interval_disclosure(x, m, k=1) == 0.5  # records 0 and 2
    x2 = x.copy()
    x2.loc[1, "b"] = np.nan  # record 1: b left out, a inside -> at risk
    assert interval_disclosure(x2, m, k=1) == 0.75
    # a record with nothing to compare counts as at risk (conservative, as sdcMicro)
    x3 = x2.copy()
    x3.loc[3, ["a", "b"]] = np.nan
    assert interval_disclosure(x3, m, k=1) == 1.0
    # a variable with fewer than two masked values has no sd: its comparisons are left out
    m4 = m.assign(a=[np.nan, np.nan, np.nan, 5.0])
    assert interval_disclosure(x, m4, k=1) == 0.5
    assert interval_disclosure(x, m4, columns=["a"], k=1) == 1.0


def test_numeric_risk_pairs_records_by_index():
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0], "b": [5.0, 3.0, 4.0, 1.0, 2.0]})
    m = x + 0.001
    shuffled = m.sample(frac=1, random_state=3)
    assert not shuffled.index.equals(x.index)
    assert interval_disclosure(x, shuffled, k=0.05) == interval_disclosure(x, m, k=0.05) == 1.0
    assert record_linkage_risk(x, shuffled) == record_linkage_risk(x, m) == 1.0
    other = m.set_axis([10, 11, 12, 13, 14])
    for f in (interval_disclosure, record_linkage_risk):
        with pytest.raises(MeasureError, match="index label"):
            f(x, other)
    dup = m.set_axis([0, 0, 1, 2, 3])
    with pytest.raises(MeasureError, match="not unique"):
        interval_disclosure(x, dup)
    # identical (even duplicated) indexes pair by position
    same = x.set_axis([0, 0, 1, 2, 3])
    assert record_linkage_risk(same, m.set_axis([0, 0, 1, 2, 3])) == 1.0


def test_record_linkage_missing_values_complete_records_only():
    x = pd.DataFrame({"a": [0.0, 1.0, 2.0, 10.0, 20.0]})
    m = pd.DataFrame({"a": [0.9, 0.1, 2.0, 9.0, np.nan]})
    # record 4 takes no part; among 0..3: 0 and 1 swap, 2 and 3 link (as the hand case above)
    assert record_linkage_risk(x, m) == 0.5
    with pytest.raises(MeasureError, match="no record is complete"):
        record_linkage_risk(x, m.assign(a=np.nan))


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
    with pytest.raises(MeasureError, match="infinite"):
        record_linkage_risk(x[["a"]], pd.DataFrame({"a": [1.0, np.inf, 2.0]}))
    for bad in ("0.05", True, 10**400, float("inf"), None):
        with pytest.raises(ParameterError, match="k"):
            interval_disclosure(x, m, columns="a", k=bad)
