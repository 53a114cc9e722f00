"""The measure catalogue: listing, computing by name, registration; every entry runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession.utility as u
from sdcsession.errors import ParameterError


@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(5)
    n = 200
    o = pd.DataFrame({
        "k1": pd.Categorical(rng.choice(list("abc"), n)),
        "k2": pd.Categorical(rng.choice(list("uv"), n)),
        "x": rng.normal(size=n), "y": rng.normal(size=n), "z": rng.normal(size=n),
    })
    m = o.assign(k1=o["k1"].where(rng.random(n) > 0.1), x=o["x"] + rng.normal(0, 0.1, n))
    return o, m


PARAMS = {
    "contingency_table": {"columns": ["k1", "k2"]},
    "ut": {"columns": ["k1", "k2"]},
    "ut2": {"columns": ["k1", "k2"]},
    "aad": {"columns": ["k1", "k2"]},
    "hellinger": {"columns": ["k1", "k2"]},
    "ctbil": {"columns": ["k1", "k2"]},
    "ctbil_normalised": {"columns": ["k1", "k2"]},
    "contingency_loss": {"columns": ["k1", "k2"]},
    "cramers_v_loss": {"columns": ["k1", "k2"]},
    "direct_distance": {"columns": ["k1", "k2"]},
    "entropy_change": {"columns": ["k1", "k2"]},
    "dist": {"columns": ["k1", "k2"]},
    "ebil": {"column": "k2", "transition": pd.DataFrame([[0.9, 0.1], [0.1, 0.9]],
                                                         index=["u", "v"], columns=["u", "v"])},
    "il1s": {"columns": ["x", "y", "z"]},
    "utility_score": {"keys": ["k1", "k2"], "numeric": ["x", "y", "z"]},
    "il1s_sdcmicro": {"columns": ["x", "y", "z"]},
    "il1": {"columns": ["x", "y", "z"]},
    "discrepancy_table": {"columns": ["x", "y", "z"]},
    "eigen_difference": {"columns": ["x", "y", "z"]},
    "eigen_difference_robust": {"columns": ["x", "y", "z"]},
    "il_correl": {"columns": ["x", "y", "z"]},
    "ks_test": {"columns": ["x", "y"]},
    "ecdf_measures": {"columns": ["x", "y"]},
    "cluster_utility": {"n_clusters": 4},
    "c_avg": {"keys": ["k1", "k2"], "k": 3},
    "discernibility": {"keys": ["k1", "k2"]},
}


def test_listing():
    df = u.available_measures()
    assert list(df.columns) == ["name", "description", "kind", "needs_pairing",
                                "variable_types", "direction", "returns"]
    assert df["name"].is_unique
    for name in ("il1s", "eigen_difference", "il_correl", "il_variables", "suppressions",
                 "records_changed", "entropy_change", "contingency_loss", "loss_metric", "dist"):
        assert name in set(df["name"])
    assert (df["description"].str.len() > 10).all()
    assert bool(df.set_index("name").loc["il1s", "needs_pairing"]) is True
    assert bool(df.set_index("name").loc["eigen_difference", "needs_pairing"]) is False


def test_every_measure_runs(pair):
    o, m = pair
    for name in u.available_measures()["name"]:
        if name not in u.CATALOGUE:
            continue
        res = u.compute(name, o, m, **PARAMS.get(name, {}))
        assert res is not None, name
        if isinstance(res, float):
            assert np.isfinite(res), name


def test_compute_unknown_and_register(pair):
    o, m = pair
    with pytest.raises(ParameterError, match="unknown utility measure"):
        u.compute("nope", o, m)
    u.register_measure("rows", lambda a, b: len(a) - len(b), "difference in record counts",
                       kind="other", needs_pairing=False, variable_types="any")
    try:
        assert u.compute("rows", o, m.iloc[:50]) == 150
        with pytest.raises(ParameterError, match="already"):
            u.register_measure("rows", len, "x", kind="o", needs_pairing=False,
                               variable_types="any")
    finally:
        u.CATALOGUE.pop("rows")
