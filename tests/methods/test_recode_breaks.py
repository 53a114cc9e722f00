"""``global_recode(col, breaks=<int>)``: that many intervals, as sdcMicro 5.8.1's
``globalRecode(x, breaks=b)``.

sdcMicro 5.8.1 (R/globalRecode.R, ``globalRecodeWORK``, method "equidistant") does, for b >= 2::

    b1 <- seq(min(x, na.rm=TRUE) - 1, max(x, na.rm=TRUE) + 1, length.out = b + 1)
    rb <- round(b1); if (!any(duplicated(rb))) b1 <- rb
    cut(x, breaks = b1, labels = labels, dig.lab = 8, include.lowest = TRUE)

and for b = 1 ``cut(x, breaks = c(min(x) - 1, max(x) + 1), dig.lab = 8)``. R's ``round`` rounds
half to even; ``cut`` labels are ``formatC(0 + breaks, digits = d)`` (C ``%.<d>g``) for the first
d in 8..12 that tells neighbouring breaks apart. The expected values below are worked out by hand
from these rules. (R's own ``cut(1:10, breaks = 3)`` would give (0.991,4], (4,7], (7,10] — older
sdcMicro versions passed the count to ``cut``; 5.8.1, the version of the conformance figures, does
not.)
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.base import Treatment
from sdcsession.methods.recoding import GlobalRecode, global_recode, interval_breaks
from sdcsession.roles import Roles


def _table(x, b, **kw):
    out = global_recode(pd.Series(x, dtype="float64" if any(pd.isna(x)) else None), b, **kw)
    return out.value_counts(sort=False).to_dict()


@pytest.mark.parametrize("x, b, breaks, table", [
    # seq(0, 11, length.out = 4) = 0, 3.67, 7.33, 11 -> rounded 0, 4, 7, 11
    (range(1, 11), 3, [0, 4, 7, 11], {"[0,4]": 4, "(4,7]": 3, "(7,11]": 3}),
    # seq(2, 71, length.out = 6) = 2, 15.8, 29.6, 43.4, 57.2, 71; the empty interval is kept
    ([3, 20, 50, 70], 5, [2, 16, 30, 43, 57, 71],
     {"[2,16]": 1, "(16,30]": 1, "(30,43]": 0, "(43,57]": 1, "(57,71]": 1}),
    # half to even: seq(-1, 6, 3) = -1, 2.5, 6 -> 2 (half up would give 3)
    ([0, 5], 2, [-1, 2, 6], {"[-1,2]": 1, "(2,6]": 1}),
    # seq(-3.5, 8.25, 3) = -3.5, 2.375, 8.25 -> -4, 2, 8
    ([-2.5, 0, 7.25], 2, [-4, 2, 8], {"[-4,2]": 2, "(2,8]": 1}),
    # rounding would repeat -0 and 1: the unrounded breaks stay, labels with 8 digits
    ([0.1, 0.2, 0.3], 5, [-0.9, -0.46, -0.02, 0.42, 0.86, 1.3],
     {"[-0.9,-0.46]": 0, "(-0.46,-0.02]": 0, "(-0.02,0.42]": 3, "(0.42,0.86]": 0,
      "(0.86,1.3]": 0}),
    # one interval: (min - 1, max + 1], no include.lowest, no rounding
    (range(1, 11), 1, [0, 11], {"(0,11]": 10}),
    ([0.25, 0.5], 1, [-0.75, 1.5], {"(-0.75,1.5]": 2}),
    # missing values are left out of min/max and stay missing
    ([0, 5, np.nan], 5, [-1, 0, 2, 3, 5, 6],
     {"[-1,0]": 1, "(0,2]": 0, "(2,3]": 0, "(3,5]": 1, "(5,6]": 0}),
    # %.8g writes all three as 1.2345679e+08: R goes on to 9 digits
    ([123456789, 123456799], 2, [123456788, 123456794, 123456800],
     {"[123456788,123456794]": 1, "(123456794,123456800]": 1}),
])
def test_sdcmicro_intervals_and_counts(x, b, breaks, table):
    assert interval_breaks(pd.Series(list(x), dtype=float), b) == pytest.approx(breaks, abs=1e-12)
    assert _table(list(x), b) == table


def test_left_closed_and_labels():
    assert _table(list(range(1, 11)), 3, right=False) == {"[0,4)": 3, "[4,7)": 3, "[7,11]": 4}
    out = global_recode(pd.Series(range(1, 11)), 3, labels=["low", "mid", "high"])
    assert out.astype(object).tolist() == ["low"] * 4 + ["mid"] * 3 + ["high"] * 3
    assert out.cat.ordered


@pytest.mark.parametrize("breaks", [True, False, 0, -3, 2.0, 5.5, np.float64(3), 10**30, "5",
                                    np.bool_(True)])
def test_bad_counts(breaks):
    with pytest.raises(ParameterError, match="breaks"):
        GlobalRecode("age", breaks=breaks)


def test_bad_combinations():
    with pytest.raises(ParameterError, match="3 labels"):
        GlobalRecode("age", breaks=3, labels=["a", "b"])
    with pytest.raises(ParameterError, match="include_outside"):
        GlobalRecode("age", breaks=3, include_outside=True)
    with pytest.raises(ParameterError, match="not both"):
        GlobalRecode("age", breaks=3, method="equidistant", n=3)
    with pytest.raises(ParameterError, match="n:"):
        GlobalRecode("age", method="equidistant", n=10**9)
    with pytest.raises(TreatmentError, match="no non-missing"):
        global_recode(pd.Series([np.nan, np.nan]), 3)
    with pytest.raises(TreatmentError, match="infinite"):
        global_recode(pd.Series([1.0, np.inf]), 3)


def test_treatment_session_and_recipe():
    df = pd.DataFrame({"age": [3, 20, 50, 70, 41], "sex": pd.Categorical(list("mfmfm"))})
    t = GlobalRecode("age", breaks=5)
    assert t.to_dict()["breaks"] == 5
    assert Treatment.from_dict(json.loads(json.dumps(t.to_dict()))) == t
    r = t.apply(df, Roles(keys=("sex",), numeric=("age",)), np.random.default_rng(0))
    assert r.notes["breaks"] == [2, 16, 30, 43, 57, 71]
    assert r.notes["counts"] == {"[2,16]": 1, "(16,30]": 1, "(30,43]": 1, "(43,57]": 1,
                                 "(57,71]": 1}
    assert "age" in r.roles.keys
    s = sdc.SdcSession(df, keys=["sex"], numeric=["age"], seed=1).global_recode("age", breaks=5)
    s2 = sdc.SdcSession.from_recipe(df, json.loads(json.dumps(s.to_recipe())))
    assert s2.data.equals(s.data) and s.data["age"].tolist()[2] == "(43,57]"


@given(st.lists(st.integers(-1000, 1000) | st.floats(-1e6, 1e6), min_size=1, max_size=50),
       st.integers(1, 30))
@settings(max_examples=150, deadline=None)
def test_property_b_intervals_cover_every_value(values, b):
    x = pd.Series(values, dtype=float)
    e = np.array(interval_breaks(x, b))
    out = global_recode(x, b)
    assert len(out.cat.categories) == b and len(e) == b + 1 and out.notna().all()
    assert e[0] < x.min() and e[-1] > x.max()
    width = (x.max() - x.min() + 2) / b
    if (e == np.round(e)).all() and b > 1:  # rounded: each point within 1/2 of the equal split
        assert np.abs(e - (x.min() - 1 + width * np.arange(b + 1))).max() <= 0.5 + 1e-9 * abs(e).max()
    codes = out.cat.codes.to_numpy()
    v = x.to_numpy()
    lower_ok = (e[codes] < v) | ((codes == 0) & (v == e[0]))
    assert lower_ok.all() and (v <= e[codes + 1]).all()
