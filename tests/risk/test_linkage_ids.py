"""record_linkage: truth from id columns (x_id, y_id) and na_action (sdcMicro 5.8.1's tests)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sdcsession.errors import MeasureError, ParameterError, SdcWarning
from sdcsession.risk import record_linkage


def test_herranz_example_1_all_correct():
    x = pd.DataFrame({"v1": [1, 0, -1, 0], "v2": [0, 1, 0, -1], "id": [1, 2, 3, 4]})
    y = pd.DataFrame({"v1": [0, 0, -2.1, 0], "v2": [0, 2.1, 0, -2.1], "id": [1, 2, 3, 4]})
    r = record_linkage(x, y, variables=["v1", "v2"], x_id="id", y_id="id", na_action="ignore",
                       return_matrix=True)
    assert r.correct_match_rate == 1.0


def test_herranz_example_2_none_correct():
    x = pd.DataFrame({"v1": [1, 2, 3, 4], "id": [1, 2, 3, 4]})
    y = pd.DataFrame({"v1": [2, 3, 4, -0.1], "id": [1, 2, 3, 4]})
    r = record_linkage(x, y, variables="v1", x_id="id", y_id="id")
    assert r.correct_match_rate == 0.0
    assert r.matches["y_id"].tolist() == [4, 1, 2, 3]


def test_ids_not_in_row_order_give_the_truth():
    x = pd.DataFrame({"a": [0.0, 5.0, 9.0], "pid": ["p", "q", "r"]})
    y = pd.DataFrame({"a": [9.1, 0.2, 4.9], "pid": ["r", "p", "q"]}, index=[7, 8, 9])
    r = record_linkage(x, y, variables="a", x_id="pid", y_id="pid")
    assert r.correct_matches == 3 and r.correct_match_rate == 1.0
    assert r.matches["match"].tolist() == [8, 9, 7]
    assert r.matches["correct"].tolist() == [True, True, True]
    assert r.total_distance == pytest.approx(0.2 + 0.1 + 0.1)


def test_missing_ids_give_unknown_correctness():
    x = pd.DataFrame({"id": [1, np.nan, 3], "age": [20, 30, 40]})
    y = pd.DataFrame({"id": [1, 2, 3], "age": [20, 30, 40]})
    with pytest.warns(SdcWarning, match="1 link"):
        r = record_linkage(x, y, variables="age", distance="gower", x_id="id", y_id="id")
    assert r.matches["correct"].isna().tolist() == [False, True, False]
    assert r.correct_matches == 2 and r.correct_match_rate == 1.0
    x2 = pd.DataFrame({"id": [np.nan, np.nan], "age": [20, 30]})
    with pytest.warns(SdcWarning):
        r2 = record_linkage(x2, x2, variables="age", distance="gower", x_id="id", y_id="id")
    assert r2.correct_matches == 0 and np.isnan(r2.correct_match_rate)


def test_na_action():
    x = pd.DataFrame({"a": [1.0, np.nan], "b": [0.0, 1.0]})
    y = pd.DataFrame({"a": [1.0, 2.0], "b": [0.0, 1.0]})
    with pytest.raises(MeasureError, match="na_action='fail'"):
        record_linkage(x, y, variables="a", na_action="fail")
    r = record_linkage(x, y, variables=["a", "b"], na_action="ignore")
    assert np.isfinite(r.matches["distance"]).all() and r.correct_matches == 2
    with pytest.raises(ParameterError, match="na_action"):
        record_linkage(x, y, variables="a", na_action="drop")


def test_bad_ids():
    x = pd.DataFrame({"id": [1, 2], "a": [1, 2]})
    with pytest.raises(ParameterError, match="x_id"):
        record_linkage(x, x, variables="a", x_id=1)
    with pytest.raises(ParameterError, match="y_id"):
        record_linkage(x, x, variables="a", y_id=["id"])
    with pytest.raises(MeasureError, match="x_id"):
        record_linkage(x, x, variables="a", x_id="zzz")
    with pytest.raises(MeasureError, match="y_id"):
        record_linkage(x, x, variables="a", y_id="zzz")
    with pytest.raises(MeasureError, match="same number"):
        record_linkage(x, x.iloc[:1], variables="a", x_id="id", y_id="id")
