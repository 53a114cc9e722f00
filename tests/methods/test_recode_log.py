"""global_recode with method="log_equidistant" (sdcMicro logEqui) and method="quantile" (sdcMicro
equalAmount): hand-computed breaks, R's labels, counts equal to sdcMicro's rules on the
conformance files, and the error where logarithms are undefined."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.recode_intervals import r_quantile
from sdcsession.methods.recoding import GlobalRecode, global_recode, interval_breaks

DATA = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "data"


def test_log_equidistant_hand_computed():
    x = pd.Series(np.arange(1, 101), name="age")
    # log range [0, log 100] widened by 1: l_i = -1 + i·(log(100) + 2)/6, breaks round(exp(l_i))
    ell = -1 + np.arange(7) * (np.log(100) + 2) / 6
    assert np.round(np.exp(ell)).tolist() == [0, 1, 3, 10, 30, 90, 272]
    assert interval_breaks(x, method="log_equidistant", n=6) == [0, 1, 3, 10, 30, 90, 272]
    out = global_recode(x, method="log_equidistant", n=6)
    assert out.cat.categories.tolist() == ["[0,1]", "(1,3]", "(3,10]", "(10,30]", "(30,90]",
                                           "(90,272]"]
    assert out.value_counts(sort=False).tolist() == [1, 2, 7, 20, 60, 10]


def test_log_equidistant_unrounded_when_rounding_collides():
    x = pd.Series([0.5, 0.6, 0.7, 0.8])
    # l = log 0.5 − 1 + i·(log 1.6 + 2)/3 = −1.69315, −0.86981, −0.04648, 0.77686;
    # exp: 0.18394, 0.41903, 0.95459, 2.17463 round to 0, 0, 1, 2 (a duplicate): unrounded
    b = interval_breaks(x, method="log_equidistant", n=3)
    assert b == pytest.approx([0.18394, 0.41903, 0.95459, 2.17463], abs=5e-5)
    assert b == np.exp(np.linspace(np.log(0.5) - 1, np.log(0.8) + 1, 4)).tolist()
    out = global_recode(x, method="log_equidistant", n=3)
    # labels and counts as R's cut(x, b, include.lowest=TRUE, dig.lab=8) prints them
    assert out.cat.categories.tolist() == ["[0.18393972,0.41903005]",
                                           "(0.41903005,0.95458547]", "(0.95458547,2.1746255]"]
    assert out.value_counts(sort=False).tolist() == [0, 4, 0]


def test_quantile_hand_computed_r_type7():
    x = pd.Series([1, 2, 3, 4, 10, 20, 7], name="v")
    # sorted 1 2 3 4 7 10 20; h = 1 + 6·i/3 = 1, 3, 5, 7 -> 1, 3, 7, 20
    assert interval_breaks(x, method="quantile", n=3) == [1, 3, 7, 20]
    # h = 1 + 6/4 = 2.5 -> 2 + 0.5·(3 − 2) = 2.5; h = 4 -> 4; h = 5.5 -> 7 + 0.5·3 = 8.5
    assert interval_breaks(x, method="quantile", n=4) == [1, 2.5, 4, 8.5, 20]
    out = global_recode(x, method="quantile", n=4)
    assert out.cat.categories.tolist() == ["[1,2.5]", "(2.5,4]", "(4,8.5]", "(8.5,20]"]
    assert out.value_counts(sort=False).tolist() == [2, 2, 1, 2]
    assert r_quantile(np.array([1.0, 2]), np.array([0.1]))[0] == pytest.approx(1.1)


def test_ties_drop_duplicate_quantiles_and_one_interval():
    x = pd.Series([1, 1, 1, 1, 1, 1, 2, 3])
    assert interval_breaks(x, method="quantile", n=4) == [1, 1.25, 3]  # 1, 1, 1, 1.25, 3
    assert interval_breaks(x, method="quantile", n=1) == [0, 4]  # sdcMicro: (min − 1, max + 1]
    assert global_recode(x, method="quantile", n=1).cat.categories.tolist() == ["(0,4]"]
    with pytest.raises(TreatmentError, match="every non-missing value of column 'c' is 5"):
        global_recode(pd.Series([5, 5, 5], name="c"), method="quantile", n=2)


def test_missing_values_ignored_and_kept():
    x = pd.Series([1.0, np.nan, 10, 100])
    out = global_recode(x, method="log_equidistant", n=2)
    assert out.isna().tolist() == [False, True, False, False]
    assert interval_breaks(x, method="log_equidistant", n=2) == [0, 10, 272]


def test_undefined_logarithm_is_a_named_error():
    with pytest.raises(TreatmentError, match=r"column 'income' has 2 such value\(s\) \(smallest -3\)"):
        global_recode(pd.Series([5.0, 0, -3, 9], name="income"), method="log_equidistant", n=3)
    df = pd.DataFrame({"income": [0.0, 1, 2, 3], "sex": list("mfmf")})
    s = sdc.SdcSession(df, keys=["sex"], numeric=["income"], seed=1)
    with pytest.raises(TreatmentError, match="logarithms.*'income'"):
        s.global_recode("income", method="log_equidistant", n=2)
    assert s.head.depth == 0


@pytest.mark.parametrize("name, column, method, n, labels, counts", [
    # counts and labels of R's cut(x, breaks, include.lowest=TRUE, dig.lab=8) with the breaks of
    # sdcMicro 5.8.1's logEqui / equalAmount rules, computed in R on the conformance files
    ("testdata.csv", "age", "quantile", 6,
     "[0,6] (6,12] (12,19] (19,30] (30,44] (44,95]", [831, 781, 724, 725, 782, 737]),
    ("testdata.csv", "expend", "log_equidistant", 3,
     "[1242,74852] (74852,4509883] (4509883,2.7172501e+08]", [4, 185, 4391]),
    ("free1.csv", "AGE", "log_equidistant", 6,
     "[6,10] (10,18] (18,33] (33,61] (61,110] (110,201]", [0, 251, 1248, 1870, 631, 0]),
    ("free1.csv", "INCOME", "quantile", 5,
     "[100100,277040] (277040,460080] (460080,630320] (630320,807000] (807000,999400]",
     [800, 800, 800, 801, 799]),
])
def test_counts_equal_sdcmicro_rules(name, column, method, n, labels, counts):
    path = DATA / name
    if not path.exists():
        pytest.skip(f"conformance data {path} not available")
    x = pd.read_csv(path)[column]
    out = global_recode(x, method=method, n=n)
    assert " ".join(out.cat.categories) == labels
    assert out.value_counts(sort=False).tolist() == counts


def test_treatment_replay_and_parameters():
    data = sdc.datasets.synthetic_survey(120, seed=1)
    s = sdc.SdcSession(data, keys=["region", "sex"], numeric=["income", "expend"], seed=1)
    s.global_recode("expend", method="log_equidistant", n=4)
    s.global_recode("income", method="quantile", n=5)
    assert s.data["income"].value_counts().sum() == len(data)
    assert s.data["expend"].cat.categories[0].startswith("[")
    again = sdc.SdcSession.from_recipe(data, json.loads(json.dumps(s.to_recipe())))
    pd.testing.assert_frame_equal(again.data, s.data)
    with pytest.raises(ParameterError, match=r"\['equidistant', 'quantile', 'log_equidistant'\]"):
        GlobalRecode("age", method="logEqui", n=3)
    with pytest.raises(ParameterError, match="labels: expected 3 labels"):
        GlobalRecode("age", method="log_equidistant", n=3, labels=["a", "b"])
    with pytest.raises(ParameterError, match="include_outside"):
        GlobalRecode("age", method="log_equidistant", n=3, include_outside=True)
