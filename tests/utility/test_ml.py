"""Utility by model (train on the release, test on the original): ratio 1 on the original
itself, collapse to chance with a shuffled target, regression, holdout, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import MeasureError, ParameterError
from sdcsession.utility import model_utility

pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 800
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    g = rng.choice(["a", "b", "c"], n)
    y = (x1 + 0.5 * x2 + (g == "a") + rng.normal(0, 0.5, n) > 0.5)
    return pd.DataFrame({"x1": x1, "x2": x2, "g": g, "y": np.where(y, "yes", "no"),
                         "z": 3 * x1 - x2 + rng.normal(0, 0.3, n)})


@pytest.mark.parametrize("model", ["random_forest", "linear"])
def test_ratio_is_one_on_the_original(data: pd.DataFrame, model: str) -> None:
    r = model_utility(data, data, target="y", features=["x1", "x2", "g"], model=model, seed=3)
    assert r.ratio == 1.0 and r.original == r.release and r.task == "classification"
    assert r.original["accuracy"] > 0.8 and r.original["auc"] > 0.85
    reg = model_utility(data, data, target="z", features=["x1", "x2", "g"], model=model, seed=3)
    assert reg.task == "regression" and reg.ratio == 1.0 and reg.original["r2"] > 0.9


def test_shuffled_target_collapses_to_chance(data: pd.DataFrame) -> None:
    shuffled = data.assign(y=np.random.default_rng(1).permutation(data["y"].to_numpy()))
    r = model_utility(data, shuffled, target="y", features=["x1", "x2", "g"], seed=3)
    assert r.release["accuracy"] < r.chance + 0.05  # no better than the majority class
    assert r.release["auc"] < 0.6  # ~0.5 up to sampling noise (240 test records)
    assert r.ratio < 0.75
    z = data.assign(z=np.random.default_rng(1).permutation(data["z"].to_numpy()))
    reg = model_utility(data, z, target="z", features=["x1", "x2", "g"], model="linear", seed=3)
    assert reg.release["r2"] < 0.02 and reg.release["rmse"] > 0.98 * reg.chance
    assert reg.ratio < 0.2


def test_gradient_boosting(data: pd.DataFrame) -> None:
    small = data.iloc[:200]
    r = model_utility(small, small, target="y", features=["x1", "x2"], seed=3,
                      model="gradient_boosting")
    assert r.ratio == 1.0 and r.original["accuracy"] > r.chance


def test_no_test_record_is_seen_in_training(data: pd.DataFrame) -> None:
    r = model_utility(data, data, target="y", features=["x1"], seed=5, test_size=0.3)
    assert r.n_train_release == r.n_train_original == len(data) - r.n_test


def test_holdout_and_missing_values(data: pd.DataFrame) -> None:
    d = data.copy()
    d.loc[d.index[::7], "x1"] = np.nan
    d.loc[d.index[::11], "g"] = None
    d.loc[d.index[::13], "y"] = None
    r = model_utility(d.iloc[:500], d.iloc[:500], target="y", holdout=d.iloc[500:],
                      features=["x1", "x2", "g"], seed=1)
    assert r.ratio == 1.0 and r.n_test == int(d.iloc[500:]["y"].notna().sum())


def test_bad_input(data: pd.DataFrame) -> None:
    with pytest.raises(MeasureError, match="constant"):
        model_utility(data.assign(y="yes"), data, target="y")
    with pytest.raises(MeasureError, match="mismatched columns"):
        model_utility(data, data.drop(columns=["g"]), target="y", features=["x1", "g"])
    with pytest.raises(MeasureError, match="paired"):
        model_utility(data, data.reset_index(drop=True).set_axis(data.index + 10**6),
                      target="y")
    with pytest.raises(ParameterError, match="model"):
        model_utility(data, data, target="y", model="svm")
    with pytest.raises(ParameterError, match="regression"):
        model_utility(data, data, target="g", task="regression")
    with pytest.raises(ParameterError, match="test_size"):
        model_utility(data, data, target="y", test_size=1.5)


def test_session_view_and_compare() -> None:
    df = sdc.datasets.synthetic_survey(300, seed=2)
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], numeric=["income"],
                       sensitive=["educ"], seed=1)
    assert s.utility.ml(seed=1).ratio == 1.0
    assert s.utility.ml(seed=1) is s.utility.ml(seed=1)  # cached on the state
    b = s.branch("shuffled")
    b.add_noise(["income"], noise=2.0)
    t = sdc.compare(s, b, measures=["ml_ratio"])
    assert t.loc[t.scenario == "main", "ml_ratio"].item() == 1.0
