"""Tests of the synthetic household survey generator."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sdcsession.datasets import synthetic_survey
from sdcsession.datasets.synthetic import AGE5, EDUC, _draw
from sdcsession.errors import ParameterError

COLUMNS = [
    "hid", "pid", "region", "urbrur", "hhsize", "tenure", "age", "age5", "sex", "marstat", "educ",
    "occup", "relat", "water", "literacy", "income", "expend", "savings", "w", "health",
    "disability",
]  # fmt: skip
CATEGORICAL = [
    "region", "urbrur", "tenure", "age5", "sex", "marstat", "educ", "occup", "relat", "water",
    "literacy", "health", "disability",
]  # fmt: skip
HOUSEHOLD_LEVEL = ["region", "urbrur", "hhsize", "tenure", "water", "expend", "w"]


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    return synthetic_survey(3000, seed=11)


def test_deterministic_per_seed():
    a = synthetic_survey(400, seed=5)
    b = synthetic_survey(400, seed=5)
    pd.testing.assert_frame_equal(a, b)
    c = synthetic_survey(400, seed=6)
    assert not a["age"].equals(c["age"]) or len(a) != len(c)


def test_columns_and_dtypes(df):
    assert list(df.columns) == COLUMNS
    for c in CATEGORICAL:
        assert isinstance(df[c].dtype, pd.CategoricalDtype), c
    for c in ["hid", "pid", "hhsize", "age"]:
        assert df[c].dtype == np.int64, c
    for c in ["income", "expend", "savings", "w"]:
        assert df[c].dtype == np.float64, c
    assert isinstance(df.index, pd.RangeIndex)
    assert list(df["age5"].cat.categories) == list(AGE5)
    assert df["age5"].cat.ordered and df["educ"].cat.ordered
    assert list(df["educ"].cat.categories) == list(EDUC)
    assert list(df["region"].cat.categories) == [f"R{i:02d}" for i in range(1, 13)]
    assert set(df["urbrur"].cat.categories) == {"urban", "rural"}
    assert set(df["sex"].cat.categories) == {"m", "f"}
    assert set(df["relat"].cat.categories) == {"head", "partner", "child", "other"}


def test_household_structure(df):
    assert df["hid"].nunique() == 3000
    g = df.groupby("hid")
    sizes = g.size()
    assert (g["hhsize"].first() == sizes).all()
    assert df["hhsize"].between(1, 9).all()
    # pid runs 1..hhsize within each household, records sorted by (hid, pid)
    assert (g["pid"].min() == 1).all() and (g["pid"].max() == sizes).all()
    assert (g["pid"].nunique() == sizes).all()
    assert df["hid"].is_monotonic_increasing
    # exactly one head, person 1, an adult; at most one partner
    heads = df["relat"] == "head"
    assert (heads == (df["pid"] == 1)).all()
    assert (df.loc[heads, "age"] >= 18).all()
    assert (df["relat"] == "partner").groupby(df["hid"]).sum().le(1).all()
    assert 2.8 < len(df) / 3000 < 3.8
    # unequal region sizes
    shares = df.groupby("hid")["region"].first().value_counts(normalize=True)
    assert shares.max() > 2.5 * shares.min()


def test_household_variables_constant(df):
    nun = df.groupby("hid", observed=True)[HOUSEHOLD_LEVEL].nunique()
    assert (nun == 1).all().all()


def test_age_and_groups(df):
    assert df["age"].between(0, 95).all()
    expected = np.minimum(df["age"].to_numpy() // 5, 18)
    assert (df["age5"].cat.codes.to_numpy() == expected).all()
    assert df.loc[df["age"] >= 90, "age5"].eq("90+").all()
    assert df.loc[df["age"] == 4, "age5"].eq("0-4").all()


def test_occup_missing_iff_child(df):
    assert (df["occup"].isna() == (df["age"] < 15)).all()


def test_marstat_educ_rules(df):
    young = df["age"] < 15
    assert df.loc[young, "marstat"].eq("single").all()
    miss = df["marstat"].isna().mean()
    assert 0.003 < miss < 0.02
    assert df.loc[df["age"] < 6, "educ"].eq("none").all()
    assert 0.01 < df["educ"].isna().mean() < 0.03
    # couples share a status
    couples = df[df["relat"].isin(["head", "partner"]) & df["marstat"].notna()]
    partnered = couples.groupby("hid").filter(lambda g: (g["relat"] == "partner").any())
    assert partnered["marstat"].isin(["married", "cohabiting"]).all()


def test_numeric_variables(df):
    assert (df["w"] > 0).all()
    assert df.groupby(["region", "urbrur"], observed=True)["w"].mean().nunique() > 12
    assert (df.loc[df["age"] < 15, "income"] == 0).all()
    adults = df[df["age"] >= 15]
    assert 0.05 < (adults["income"] == 0).mean() < 0.6
    assert (df["income"] >= 0).all() and (df["savings"] >= 0).all() and (df["expend"] > 0).all()
    assert (df["savings"] == 0).any() and (df["savings"] > 0).any()
    pos = df.loc[df["income"] > 0, "income"]
    assert pos.mean() > pos.median()  # right-skewed
    hh = df.groupby("hid").agg(inc=("income", "sum"), exp=("expend", "first"))
    assert np.corrcoef(np.log1p(hh["inc"]), np.log(hh["exp"]))[0, 1] > 0.5
    assert df[["income", "expend", "savings", "w"]].notna().all().all()


def test_urbrur_depends_on_region(df):
    urban = (df.groupby("hid")[["region", "urbrur"]].first()
             .assign(u=lambda x: x["urbrur"] == "urban")
             .groupby("region", observed=True)["u"].mean())  # fmt: skip
    assert urban["R01"] > urban["R11"] + 0.3


def test_draw_matches_probabilities():
    rng = np.random.default_rng(0)
    probs = np.array([[0.2, 0.8, 0.0], [0.0, 0.0, 1.0], [0.5, 0.25, 0.25]])
    group = np.repeat([0, 1, 2], 20000)
    codes = _draw(rng, probs, group)
    assert codes.min() >= 0 and codes.max() <= 2
    for g in range(3):
        freq = np.bincount(codes[group == g], minlength=3) / 20000
        np.testing.assert_allclose(freq, probs[g], atol=0.015)
    assert (codes[group == 1] == 2).all() and not (codes[group == 0] == 2).any()


def test_small_and_bad_arguments():
    one = synthetic_survey(1, seed=0)
    assert one["hid"].eq(1).all() and len(one) == one["hhsize"].iloc[0]
    for bad in [0, -3, 2.5, "10", True]:
        with pytest.raises(ParameterError, match="n_households"):
            synthetic_survey(bad)
    with pytest.raises(ParameterError, match="seed"):
        synthetic_survey(10, seed=-1)
