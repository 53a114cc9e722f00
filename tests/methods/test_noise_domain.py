"""Noise keeps the variable's domain: ``bounds=(low, high)`` by reflection, sdcMicro's
``additive0`` (zeros stay zero, signs kept), warnings naming the variable and counting the values
when noise leaves the domain (negatives from a non-negative variable, non-whole values from a
count); the same parameters on Dask; bad parameters named, HEAD unchanged."""

from __future__ import annotations

import json
import warnings

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, SdcWarning, TreatmentError
from sdcsession.methods.base import Treatment
from sdcsession.methods.noise import AddNoise, add_noise
from sdcsession.methods.noise.domain import keep_sign, reflect


def zero_inflated(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    """A zero-inflated amount (60 % zeros, the rest from 1 upwards) and a count (0..4, mostly
    0 and 1), both non-negative; a region key."""
    rng = np.random.default_rng(seed)
    amount = np.where(rng.random(n) < 0.6, 0.0,
                      np.minimum(np.round(rng.lognormal(3, 1.2, n) + 1, 2), 400.0))
    count = rng.choice([0, 1, 2, 3, 4], n, p=[0.5, 0.3, 0.1, 0.06, 0.04])
    return pd.DataFrame({"region": rng.choice(list("abcd"), n), "amount": amount,
                         "count": count.astype("int64")})


def run(df, cols=("amount",), **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        return add_noise(df, list(cols), rng=np.random.default_rng(kw.pop("seed", 1)), **kw)


# ----------------------------------------------------------------------------- rules
def test_reflect_and_keep_sign_by_hand():
    z = np.array([-3.0, -0.5, 0.0, 2.0, 5.5, 13.0, np.nan])
    assert np.array_equal(reflect(z, 0.0, None), [3.0, 0.5, 0.0, 2.0, 5.5, 13.0, np.nan],
                          equal_nan=True)
    assert np.array_equal(reflect(z, None, 5.0), [-3.0, -0.5, 0.0, 2.0, 4.5, -3.0, np.nan],
                          equal_nan=True)
    # folded onto [0, 5] with period 10: 13 -> 3, 5.5 -> 4.5, -3 -> 3
    assert np.array_equal(reflect(z, 0.0, 5.0), [3.0, 0.5, 0.0, 2.0, 4.5, 3.0, np.nan],
                          equal_nan=True)
    x = np.array([0.0, 2.0, 2.0, -1.0, -1.0])
    assert keep_sign(x, np.array([0.7, -0.5, 3.0, 0.25, -2.0])).tolist() == \
        [0.0, 0.5, 3.0, -0.25, -2.0]


@settings(max_examples=200, deadline=None)
@given(x=st.floats(-50, 50), e=st.floats(-1e3, 1e3), low=st.floats(-60, 0) | st.none(),
       width=st.floats(0.5, 200) | st.none())
def test_reflection_stays_in_bounds_and_never_moves_further_than_the_noise(x, e, low, width):
    high = None if (width is None or low is None) else low + width
    if low is not None and x < low or high is not None and x > high:
        return
    z = reflect(np.array([x + e]), low, high)[0]
    assert low is None or z >= low - 1e-9
    assert high is None or z <= high + 1e-9
    assert abs(z - x) <= abs(e) + 1e-9 * (1 + abs(e))


# ----------------------------------------------------------------- zero-inflated variables
def test_bounds_zero_none_gives_no_negative_value():
    df = zero_inflated()
    plain, pn = run(df, noise=1.0, method="additive")
    assert (plain["amount"] < 0).sum() > 500  # without bounds, many zeros turn negative
    out, notes = run(df, noise=1.0, method="additive", bounds=(0, None))
    assert (out["amount"] >= 0).all()
    # the same draws, reflected at 0: |out| of the unbounded values
    np.testing.assert_allclose(out["amount"], plain["amount"].abs())
    assert notes["bounded"] == {"amount": int((plain["amount"] < 0).sum())}
    assert notes["domain"] == {}  # nothing outside the domain any more (amount is not whole)


@pytest.mark.parametrize("method", ["additive", "correlated", "correlated2", "outliers"])
def test_bounds_hold_for_every_bounded_method(method):
    df = zero_inflated(3000, seed=2)
    out, notes = run(df, ("amount", "count"), noise=1.2, method=method, bounds=(0, 400))
    assert ((out[["amount", "count"]] >= 0) & (out[["amount", "count"]] <= 400)).all().all()
    assert notes["bounded"]["amount"] > 0


def test_additive0_keeps_zeros_and_gives_no_negative_value():
    df = zero_inflated()
    out, notes = run(df, ("amount", "count"), noise=1.5, method="additive0")
    for c in ("amount", "count"):
        zero = df[c] == 0
        assert (out.loc[zero, c] == 0).all()
        assert (out[c] >= 0).all() and (out.loc[~zero, c] > 0).all()
        assert notes["changed"][c] == int((~zero).sum())
    # sdcMicro's scale: noise * sd over all observed values, zeros included
    assert notes["sd_spec"]["amount"] == pytest.approx(1.5 * df["amount"].std(), rel=1e-12)
    # the draws are those of additive noise, zeros restored and signs kept
    plain, _ = run(df, ("amount", "count"), noise=1.5, method="additive")
    nz = df["amount"] != 0
    np.testing.assert_allclose(out.loc[nz, "amount"], plain.loc[nz, "amount"].abs())


def test_warning_names_the_variable_and_counts_negatives_and_non_whole_values():
    df = zero_inflated()
    with pytest.warns(SdcWarning, match=r"'amount' had no negative value and now has [\d,]+"):
        out, notes = add_noise(df, ["amount", "count"], noise=1.0,
                               rng=np.random.default_rng(3))
    neg = int((out["amount"] < 0).sum())
    assert notes["domain"]["amount"] == {"negative": neg}
    assert f"now has {neg:,}" in str(notes) or neg > 0
    count = notes["domain"]["count"]
    assert count["negative"] == int((out["count"] < 0).sum()) > 0
    assert count["not_whole"] == int((out["count"] % 1 != 0).sum()) > 0
    # a variable with negative values before: no negative warning; bounds on that side: none
    with warnings.catch_warnings():
        warnings.simplefilter("error", SdcWarning)
        add_noise(df.assign(amount=df["amount"] - 5), ["amount"], noise=1.0,
                  rng=np.random.default_rng(3))
        add_noise(df, ["amount"], noise=1.0, bounds=(0, None), rng=np.random.default_rng(3))
        _, quiet = add_noise(df, ["amount", "count"], noise=1.0, warn_domain=False,
                             rng=np.random.default_rng(3))
    assert quiet["domain"] == notes["domain"]  # counted even when not warned


def test_session_step_replay_and_recipe():
    df = zero_inflated(800)
    s = sdc.SdcSession(df, keys=["region"], numeric=["amount", "count"], seed=3)
    s.add_noise(["amount", "count"], noise=1.0, bounds=(0, None), warn_domain=False)
    assert (s.data[["amount", "count"]] >= 0).all().all()
    r = sdc.SdcSession.from_recipe(df, json.loads(json.dumps(s.to_recipe())))
    pd.testing.assert_frame_equal(r.data, s.data)
    t = AddNoise(["amount"], method="additive0", bounds=[None, 100], warn_domain=False)
    assert t.bounds == (None, 100.0)
    assert Treatment.from_dict(json.loads(json.dumps(t.to_dict()))) == t
    # recipes written before these parameters replay unchanged (defaults)
    old = {"type": "add_noise", "columns": ["amount"], "method": "additive", "noise": 0.5,
           "block": 20}
    assert Treatment.from_dict(old) == AddNoise(["amount"], noise=0.5)


BAD = [
    ({"bounds": "0"}, ParameterError, "bounds"),
    ({"bounds": (0,)}, ParameterError, "bounds"),
    ({"bounds": (5, 1)}, ParameterError, "lower bound must be below"),
    ({"bounds": (1, 1)}, ParameterError, "lower bound must be below"),
    ({"bounds": (0, float("inf"))}, ParameterError, "finite"),
    ({"bounds": (True, 5)}, ParameterError, "bounds"),
    ({"bounds": ("0", None)}, ParameterError, "bounds"),
    ({"bounds": {0: 1}}, ParameterError, "bounds"),
    ({"warn_domain": "no"}, ParameterError, "warn_domain"),
    ({"warn_domain": 0}, ParameterError, "warn_domain"),
    ({"method": "romm", "bounds": (0, None)}, ParameterError, "preserves the means"),
    ({"method": "restricted", "bounds": (0, None)}, ParameterError, "preserves the means"),
    ({"method": "additive1"}, ParameterError, "method"),
    ({"bounds": (1, None)}, TreatmentError, r"'amount' has values below 1 \(minimum 0\)"),
    ({"bounds": (None, 10)}, TreatmentError, "'amount' has values above 10"),
]


@pytest.mark.parametrize(("kw", "error", "match"), BAD)
def test_bad_parameters_are_named_and_head_stays(kw, error, match):
    df = zero_inflated(300)
    s = sdc.SdcSession(df, keys=["region"], numeric=["amount", "count"], seed=3)
    head = s.head
    with pytest.raises(error, match=match):
        s.add_noise(["amount"], **kw)
    assert s.head is head
    with pytest.raises(error, match=match):
        add_noise(df, ["amount"], rng=np.random.default_rng(0), **kw)


# ----------------------------------------------------------------------------- Dask
def _dask_session(df, npartitions):
    return sdc.SdcSession(dd.from_pandas(df, npartitions=npartitions), keys=["region"],
                          numeric=["amount", "count"], seed=3)


@pytest.mark.parametrize("npartitions", [1, 4])
@pytest.mark.parametrize(("method", "bounds"), [("additive", (0, None)), ("additive0", None),
                                                ("correlated", (0, 450)),
                                                ("additive0", (0, 400))])
def test_dask_accepts_the_same_parameters_with_the_same_rules(method, bounds, npartitions):
    df = zero_inflated(2000, seed=5)
    s = _dask_session(df, npartitions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        s.add_noise(["amount", "count"], method=method, noise=1.0, bounds=bounds)
    out = s.data.compute()
    lo, hi = bounds or (0, None)
    assert (out[["amount", "count"]] >= lo).all().all()
    if hi is not None:
        assert (out[["amount", "count"]] <= hi).all().all()
    if method == "additive0":
        for c in ("amount", "count"):
            assert (out.loc[df[c] == 0, c] == 0).all()
    notes = s.head.notes
    p = sdc.SdcSession(df, keys=["region"], numeric=["amount", "count"], seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        p.add_noise(["amount", "count"], method=method, noise=1.0, bounds=bounds)
    # the same notes (draws differ: partition-seeded), the same global scale
    assert set(notes) == set(p.head.notes)
    assert notes["sd_spec"] == pytest.approx(p.head.notes["sd_spec"], rel=1e-10)
    assert set(notes["bounded"]) == set(p.head.notes["bounded"])
    if bounds is not None:
        assert 0 < notes["bounded"]["amount"] < len(df)


def test_dask_warns_counts_and_refuses_like_pandas():
    df = zero_inflated(2000, seed=6)
    s = _dask_session(df, 3)
    with pytest.warns(SdcWarning, match=r"'amount' had no negative value and now has"):
        s.add_noise(["amount", "count"], noise=1.0)
    out = s.data.compute()
    dom = s.head.notes["domain"]
    assert dom["amount"] == {"negative": int((out["amount"] < 0).sum())}
    assert dom["count"] == {"negative": int((out["count"] < 0).sum()),
                            "not_whole": int((out["count"] % 1 != 0).sum())}
    s.undo()
    head = s.head
    for kw, err in [({"bounds": (1, None)}, TreatmentError), ({"bounds": (3, 2)}, ParameterError),
                    ({"warn_domain": "no"}, ParameterError),
                    ({"method": "romm", "bounds": (0, None)}, ParameterError)]:
        with pytest.raises(err):
            s.add_noise(["amount"], **kw)
        assert s.head is head


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_additive0_needs_no_reflection_at_zero(engine):
    """additive0 keeps signs before the bounds apply, so bounds=(0, None) reflects nothing: the
    notes count the same on both engines (no zero counted as reflected)."""
    df = zero_inflated(1500, seed=8)
    s = _dask_session(df, 3) if engine == "dask" else sdc.SdcSession(
        df, keys=["region"], numeric=["amount", "count"], seed=3)
    s.add_noise(["amount", "count"], method="additive0", noise=2.0, bounds=(0, None),
                warn_domain=False)
    assert s.head.notes["bounded"] == {"amount": 0, "count": 0}
    out = s.data.compute() if engine == "dask" else s.data
    assert (out.loc[df["amount"] == 0, "amount"] == 0).all() and (out["amount"] >= 0).all()
