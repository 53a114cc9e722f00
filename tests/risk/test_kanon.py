"""k-anonymity violations and the unsafe-combinations table."""

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk import k_violations, unsafe_combinations


@pytest.mark.parametrize("name", ["francdat", "testdata", "testdata_na", "free1", "eusilc"])
def test_conformance_n_fk_lt(name):
    ref = reference()[name]
    df = load(name)
    for k in (2, 3, 5):
        assert k_violations(df, ref["keys"], k) == ref["risk"][f"n_fk_lt{k}"]


def test_weighted_violations_use_Fk():
    df = pd.DataFrame({"a": ["x", "x", "y", "z"], "w": [1.0, 1.5, 10.0, 2.0]})
    # Fk = 2.5, 2.5, 10, 2
    assert k_violations(df, "a", 3, weight="w", weighted=True) == 3
    assert k_violations(df, "a", 2.5, weight="w", weighted=True) == 1
    assert k_violations(df, "a", 2, weight="w") == 2  # unweighted fk: 2, 2, 1, 1


def test_k_violations_bad_input():
    df = pd.DataFrame({"a": ["x", "y"]})
    for bad in (0, 0.5, -1, "3", None, True):
        with pytest.raises(ParameterError, match="k"):
            k_violations(df, "a", bad)
    with pytest.raises(ParameterError, match="weight"):
        k_violations(df, "a", 2, weighted=True)
    with pytest.raises(MeasureError, match="'b'"):
        k_violations(df, "b", 2)


def test_unsafe_combinations_against_groupby():
    ref = reference()["testdata_na"]
    df = load("testdata_na")
    keys = ref["keys"][:4]
    tab = unsafe_combinations(df, keys, k=3, max_dim=3)
    assert len(tab) == 4 + 6 + 4
    assert tab["dim"].tolist() == [1] * 4 + [2] * 6 + [3] * 4
    for row, combo in zip(tab.itertuples(), [c for d in (1, 2, 3)
                                            for c in itertools.combinations(keys, d)]):
        assert row.variables == combo
        sub = df[list(combo)].dropna()
        counts = sub.groupby(list(combo), observed=True).size()
        assert row.n_cells == len(counts)
        assert row.n_unsafe == int((counts < 3).sum())
        assert row.n_records == int(counts[counts < 3].sum())
        assert row.n_missing == len(df) - len(sub)
    # walls is missing in 87 records, water in 65
    assert tab.set_index("keys").loc["walls", "n_missing"] == 87


def test_unsafe_combinations_hand_and_bad_input():
    df = pd.DataFrame({"a": [1, 1, 2, 2, 2], "b": ["u", "v", "u", "u", "u"]})
    t = unsafe_combinations(df, ["a", "b"], k=2)
    assert t["n_unsafe"].tolist() == [0, 1, 2]
    assert t["n_records"].tolist() == [0, 1, 2]
    with pytest.raises(ParameterError, match="max_dim"):
        unsafe_combinations(df, ["a"], max_dim=0)
    with pytest.raises(ParameterError, match="k"):
        unsafe_combinations(df, ["a"], k=0)
    assert np.array_equal(unsafe_combinations(df, ["a", "b"], max_dim=9)["dim"], [1, 1, 2])
