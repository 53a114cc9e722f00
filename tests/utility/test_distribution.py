"""Distributional measures (no pairing): KS, ECDF, propensity score, cluster analysis."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession.utility as u
from sdcsession.errors import MeasureError, ParameterError


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    o = pd.DataFrame({"x": rng.normal(size=300), "y": rng.exponential(size=300),
                      "g": rng.choice(list("abc"), 300)})
    return o, rng


def test_ks(data):
    o, rng = data
    ks = u.ks_test(o, o.iloc[:150])
    assert list(ks.index) == ["x", "y"]
    far = u.ks_test(o, o.assign(x=o["x"] + 100))
    assert far.loc["x", "statistic"] == 1.0 and far.loc["x", "pvalue"] < 1e-10
    assert far.loc["y", "statistic"] == 0.0
    with pytest.raises(MeasureError, match="numeric"):
        u.ks_test(o, o, columns=["g"])


def test_ecdf_hand_and_joint():
    o = pd.DataFrame({"x": [1.0, 2.0], "y": [1.0, 2.0]})
    m = pd.DataFrame({"x": [3.0, 4.0], "y": [1.0, 2.0]})
    e = u.ecdf_measures(o, m, joint=True)
    assert e.loc["x"].tolist() == [1.0, pytest.approx((0.25 + 1 + 0.25 + 0) / 4)]
    assert e.loc["y"].tolist() == [0.0, 0.0]
    # joint: pooled points (1,1),(2,2),(3,1),(4,2): F_o = .5,1,.5,1 ; F_m = 0,0,.5,1
    assert e.loc["(joint)"].tolist() == [1.0, pytest.approx((0.25 + 1) / 4)]
    with pytest.raises(MeasureError, match="max_joint_records"):
        u.ecdf_measures(o, m, joint=True, max_joint_records=3)


def test_propensity_identical_and_separable(data):
    o, _ = data
    assert u.propensity_score(o, o.copy()) == pytest.approx(0.0, abs=1e-10)
    sep = u.propensity_score(o[["x"]], o[["x"]] + 100)
    assert sep == pytest.approx(0.25, abs=1e-3)
    mild = u.propensity_score(o, o.assign(x=o["x"] + 0.3))
    assert 0 < mild < sep
    # different sizes: c = share of masked records
    assert u.propensity_score(o, o.iloc[:100]) == pytest.approx(0.0, abs=1e-3)
    with pytest.raises(ParameterError):
        u.propensity_score(o, o, c=2.0)


def test_cluster_utility(data):
    o, _ = data
    assert u.cluster_utility(o, o.copy(), n_clusters=5) == pytest.approx(0.0)
    sep = u.cluster_utility(o[["x"]], o[["x"]] + 100, n_clusters=4)
    assert sep == pytest.approx(0.25)
    a = u.cluster_utility(o, o.assign(x=o["x"] * 2), n_clusters=6, seed=4)
    assert a == u.cluster_utility(o, o.assign(x=o["x"] * 2), n_clusters=6, seed=4)
    assert 0 <= a <= 0.25
    with pytest.raises(ParameterError):
        u.cluster_utility(o, o, n_clusters=0)


def test_propensity_score_with_more_design_columns_than_records():
    """A text column with a category per record gives more dummies than records: the columns
    past the rank are dropped (no IndexError); files that cannot be told apart score 0, files
    of equal size told apart completely score c(1 - c) = 1/4."""
    o = pd.DataFrame({c: [f"{c}{i}" for i in range(6)] for c in "xyz"})  # 16 columns, 12 rows
    assert u.propensity_score(o, o.copy()) == pytest.approx(0.0, abs=1e-9)
    m = pd.DataFrame({c: [f"{c}{i}" for i in range(6, 12)] for c in "xyz"})
    assert u.propensity_score(o, m) == pytest.approx(0.25, abs=1e-6)
