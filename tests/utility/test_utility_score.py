"""utility_score: sdcMicro 5.8.1's ai_utility_score (hand-computed values)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import MeasureError, ParameterError
from sdcsession.utility import compute, utility_score


def _orig() -> pd.DataFrame:
    return pd.DataFrame({"a": ["x", "y", "z", "z", "x", "y"], "b": [1, 1, 2, 2, 3, 3],
                         "v": [1.0, 2.0, 4.0, 4.0, 6.0, 7.0], "w": [0.0, 1, 0, 1, 0, 1]})


def test_identical_files_score_zero():
    o = _orig()
    r = utility_score(o, o, keys=["a", "b"], numeric=["v", "w"])
    assert (r.total, r.suppression_rate, r.category_loss, r.il1) == (0.0, 0.0, 0.0, 0.0)


def test_suppression_only():
    o = _orig()
    m = o.copy()
    m.loc[[0, 3], "a"] = None
    m.loc[5, "b"] = None
    r = utility_score(o, m, keys=["a", "b"], numeric=["v"])
    assert r.suppression_rate == pytest.approx(3 / 12)
    # a: observed rows 1, 2, 4, 5 -> x, y, z in both; b: rows 0-4 -> 1, 2, 3 in both
    assert r.category_loss == 0.0
    assert r.total == pytest.approx(3 / 12 / 3)
    supp_only = utility_score(o, m, keys=["a", "b"], numeric=["v"], weights=(1, 0, 0))
    assert supp_only.total == pytest.approx(supp_only.suppression_rate)
    assert supp_only.weights == (1.0, 0.0, 0.0)


def test_category_loss_of_a_merge():
    o = _orig()
    m = o.assign(a=o["a"].replace({"z": "y"}))  # 3 categories -> 2
    r = utility_score(o, m, keys=["a", "b"])
    assert r.category_loss == pytest.approx((1 - 2 / 3 + 0) / 2)
    assert r.suppression_rate == 0.0 and r.il1 == 0.0
    assert r.total == pytest.approx(r.category_loss / 3)


def test_il1_is_the_normalised_il1s():
    o = _orig()
    m = o.assign(v=o["v"] + np.array([1.0, 0, 0, 0, 0, -1.0]))
    sd = o["v"].std(ddof=1)
    want = 2 / (np.sqrt(2) * sd) / (6 * 2)  # two numeric variables, w unchanged
    r = utility_score(o, m, keys="a", numeric=["v", "w"], weights=[0, 0, 2])
    assert r.il1 == pytest.approx(want)
    assert r.total == pytest.approx(want)


def test_existing_missing_values_are_not_suppressions():
    o = _orig()
    o.loc[0, "a"] = None
    m = o.copy()
    m.loc[1, "a"] = None
    r = utility_score(o, m, keys=["a"])
    assert r.suppression_rate == pytest.approx(1 / 6)


def test_catalogue_and_session():
    o = _orig()
    m = o.copy()
    m.loc[0, "a"] = None
    assert compute("utility_score", o, m, keys=["a"]).suppression_rate == pytest.approx(1 / 6)
    s = sdc.SdcSession(o, keys=["a", "b"], numeric=["v"], seed=1)
    assert s.utility.score().total == 0.0
    s.local_suppression(k=2)
    r = s.utility.score()
    n_supp = int(s.data[["a", "b"]].isna().to_numpy().sum())
    assert r.suppression_rate == pytest.approx(n_supp / 12)
    assert r.total == pytest.approx((r.suppression_rate + r.category_loss) / 3)


@pytest.mark.parametrize("weights", [(1, 1), (1, -1, 0), (0, 0, 0), "abc", (1, True, 0),
                                     (1, float("nan"), 0)])
def test_bad_weights(weights):
    o = _orig()
    with pytest.raises(ParameterError, match="weights"):
        utility_score(o, o, keys="a", weights=weights)


def test_bad_frames():
    o = _orig()
    with pytest.raises(MeasureError, match="length"):
        utility_score(o, o.iloc[:3], keys="a")
    with pytest.raises(MeasureError, match="nope"):
        utility_score(o, o, keys=["nope"])
