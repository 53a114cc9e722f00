"""perturb_weights: totals kept (overall, per stratum), positive, seeded and replayable."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, RoleError, TreatmentError
from sdcsession.methods.noise.weights import PerturbWeights, perturb_weights


def _frame(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    region = rng.choice(["n", "s", "e"], n)
    w = np.where(region == "n", 12.5, np.where(region == "s", 40.0, 7.0))
    return pd.DataFrame({"region": region, "sex": rng.choice(["m", "f"], n), "w": w,
                         "hh": np.repeat(np.arange(n // 4), 4)})


def test_totals_kept_overall_and_by_stratum():
    df = _frame()
    out, notes = perturb_weights(df, "w", noise=0.2, rng=np.random.default_rng(1))
    assert out["w"].sum() == pytest.approx(df["w"].sum(), rel=1e-12)
    assert (out["w"] > 0).all() and notes["distinct_before"] == 3
    assert notes["distinct_after"] == len(df)
    out, notes = perturb_weights(df, "w", noise=0.2, by=["region", "sex"],
                                 rng=np.random.default_rng(1))
    got = out.groupby(["region", "sex"])["w"].sum()
    want = df.groupby(["region", "sex"])["w"].sum()
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-12)
    assert notes["strata"] == 6
    # the noise has the announced size: the relative change has a sd close to noise
    rel = out["w"] / df["w"] - 1
    assert 0.12 < rel.std() < 0.28
    # other columns untouched
    pd.testing.assert_frame_equal(out.drop(columns="w"), df.drop(columns="w"))


def test_noise_zero_changes_nothing():
    df = _frame()
    out, _ = perturb_weights(df, "w", noise=0.0, rng=np.random.default_rng(0))
    np.testing.assert_allclose(out["w"], df["w"])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 1000), noise=st.floats(0.0, 2.0),
       w=st.lists(st.floats(0.01, 1e6), min_size=1, max_size=40))
def test_property_positive_and_total(seed, noise, w):
    df = pd.DataFrame({"w": w, "g": [i % 3 for i in range(len(w))]})
    out, _ = perturb_weights(df, "w", noise=noise, by=["g"], rng=np.random.default_rng(seed))
    assert (out["w"] > 0).all()
    np.testing.assert_allclose(out.groupby("g")["w"].sum(), df.groupby("g")["w"].sum(),
                               rtol=1e-9)


def test_household_one_factor_per_household():
    df = _frame()
    df["w"] = 10.0
    out, _ = perturb_weights(df, "w", noise=0.3, household="hh", rng=np.random.default_rng(2))
    assert out.groupby("hh")["w"].nunique().max() == 1
    assert out["w"].nunique() == df["hh"].nunique()


def test_session_seeded_replayable_and_undoable():
    df = _frame()
    s = sdc.SdcSession(df, keys=["region", "sex"], weight="w", household="hh", seed=5)
    s.perturb_weights(0.1, by="region")
    a = s.data["w"].to_numpy().copy()
    np.testing.assert_allclose(s.data.groupby("region")["w"].sum(),
                               df.groupby("region")["w"].sum(), rtol=1e-12)
    t = s.head.treatment
    assert isinstance(t, PerturbWeights) and t.by == ("region",)
    s2 = sdc.SdcSession(df, keys=["region", "sex"], weight="w", household="hh", seed=5)
    s2.perturb_weights(0.1, by="region")
    np.testing.assert_array_equal(s2.data["w"].to_numpy(), a)
    s.undo()
    np.testing.assert_array_equal(s.data["w"].to_numpy(), df["w"].to_numpy())
    s.perturb_weights(0.1, household=True)
    ratio = (s.data["w"] / df["w"]).round(12)
    assert ratio.groupby(df["hh"]).nunique().max() == 1 and ratio.nunique() > 1


@pytest.mark.parametrize("kw, err", [
    (dict(noise=-0.1), ParameterError),
    (dict(noise="0.1"), ParameterError),
    (dict(noise=float("nan")), ParameterError),
    (dict(by=[1]), ParameterError),
    (dict(household="yes"), ParameterError),
    (dict(by=["nope"]), TreatmentError),
    (dict(by=["w"]), (TreatmentError, RoleError)),
])
def test_bad_input_named_and_head_unchanged(kw, err):
    s = sdc.SdcSession(_frame(40), keys=["region"], weight="w", household="hh", seed=1)
    head = s.head
    with pytest.raises(err):
        s.perturb_weights(**kw)
    assert s.head is head


def test_refusals_without_weight_or_with_bad_weights():
    df = _frame(40)
    s = sdc.SdcSession(df, keys=["region"], seed=1)
    with pytest.raises(TreatmentError, match="weight"):
        s.perturb_weights(0.1)
    s = sdc.SdcSession(df, keys=["region"], weight="w", seed=1)
    with pytest.raises(TreatmentError, match="household"):
        s.perturb_weights(0.1, household=True)
    bad = df.assign(w=df["w"].where(df.index != 3, 0.0))
    with pytest.raises(TreatmentError, match="positive"):
        perturb_weights(bad, "w", rng=np.random.default_rng(0))
