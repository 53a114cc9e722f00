"""val_table: sdcMicro's valTable (several methods compared on one numeric file)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError
from sdcsession.methods.microaggregation.treatment import microaggregation
from sdcsession.utility import il1s


@pytest.fixture(scope="module")
def tarragona_like() -> pd.DataFrame:
    return pd.DataFrame(np.random.default_rng(0).lognormal(size=(101, 4)), columns=list("abcd"))


def test_sdcmicro_method_lists_give_a_table(tarragona_like):
    first = ["simple", "onedims", "pca", "addNoise:additive", "addNoise:correlated",
             "addNoise:correlated2", "addNoise:restr", "addNoise:outdect", "addNoise:ROMM"]
    t = sdc.val_table(tarragona_like, first)
    assert isinstance(t, pd.DataFrame) and t["method"].tolist() == first
    assert np.isfinite(t[["il1s", "eigen", "il_correl", "interval_disclosure"]]).all().all()
    t2 = sdc.val_table(tarragona_like, ["simple", "onedims", "pca", "clustpppca", "mdav",
                                        "swappNum"])
    assert len(t2) == 6 and (t2["il1s"] > 0).all()


def test_hand_computed_il1s_and_consistency(tarragona_like):
    t = sdc.val_table(pd.DataFrame({"x": [1.0, 2.0, 10.0, 11.0]}), ["mdav"], k=2)
    # groups {1, 2} and {10, 11}: every value moves by 0.5
    sd = np.std([1, 2, 10, 11], ddof=1)
    assert t.loc[0, "il1s"] == pytest.approx(4 * 0.5 / (math.sqrt(2) * sd) / 4)
    assert np.isnan(t.loc[0, "eigen"]) and np.isnan(t.loc[0, "il_correl"])
    # the row of a method is the measure of that method's output
    masked, _ = microaggregation(tarragona_like, list("abcd"), k=3, method="mdav")
    t = sdc.val_table(tarragona_like, ["mdav"])
    assert t.loc[0, "il1s"] == pytest.approx(il1s(tarragona_like, masked))
    # random methods are reproducible from the seed
    a = sdc.val_table(tarragona_like, ["add_noise:additive", "rank_swap"], seed=4)
    b = sdc.val_table(tarragona_like, ["add_noise:additive", "rank_swap"], seed=4)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("methods", [["nope"], ["addNoise"], [], ["mdav", "mdav"], [3]])
def test_bad_methods(tarragona_like, methods):
    with pytest.raises(ParameterError, match="method"):
        sdc.val_table(tarragona_like, methods)


def test_numeric_columns_named_by_numbers_are_refused(tarragona_like):
    """The default columns are every numeric column; one named by a number (0) is refused with
    a ParameterError naming it (the treatments take text names), not a TypeError."""
    df = tarragona_like.assign(**{}).join(pd.DataFrame({0: np.arange(101.0)}))
    with pytest.raises(ParameterError, match=r"column names must be text, got \[0\]"):
        sdc.val_table(df, ["rank_swap"])
    t = sdc.val_table(df, ["mdav"], columns=list("abcd"))
    assert t.loc[0, "il1s"] == pytest.approx(sdc.val_table(tarragona_like, ["mdav"]).loc[0, "il1s"])
