"""Property tests of the history: original never mutated, undo restores exactly, redo re-applies,
branches are independent, same seed -> bit-identical, global RNG irrelevant, failures keep HEAD."""

from __future__ import annotations

import random as pyrandom
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import SdcError
from sdcsession.methods import Recode, RemoveColumns, Result, Treatment


@attrs.frozen
class _Jitter(Treatment):
    """Test-only random treatment: adds N(0, 1) noise to a numeric column using the step's rng."""

    type: ClassVar[str] = "_test_jitter"
    random: ClassVar[bool] = True
    column: str = "x"

    def apply(self, data, roles, rng):
        if self.column not in data.columns:
            raise sdc.TreatmentError(f"unknown column {self.column!r}")
        return Result(data.assign(**{self.column: data[self.column] + rng.normal(size=len(data))}))


@st.composite
def frames(draw) -> pd.DataFrame:
    n = draw(st.integers(1, 25))
    cat = st.sampled_from(["a", "b", "c", None])
    return pd.DataFrame({
        "k1": pd.Categorical(draw(st.lists(cat, min_size=n, max_size=n))),
        "k2": pd.Categorical(draw(st.lists(st.sampled_from(["x", "y"]), min_size=n, max_size=n))),
        "x": draw(st.lists(st.floats(-1e6, 1e6), min_size=n, max_size=n)),
        "y": draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)),
    })


treatments = st.one_of(
    st.builds(Recode, st.sampled_from(["k1", "k2"]),
              st.dictionaries(st.sampled_from(["a", "b", "c", "x", "y"]),
                              st.sampled_from(["a", "z", None]), min_size=1, max_size=2)),
    st.builds(RemoveColumns, st.sampled_from([["y"], ["x"], ["k2"]])),
    st.builds(_Jitter, st.sampled_from(["x", "nope"])),
)


def run(s: sdc.SdcSession, ts: list[Treatment]) -> list[pd.DataFrame]:
    """Apply what applies; return the data after each successful step (root first)."""
    out = [s.data]
    for t in ts:
        head = s.head
        try:
            s.apply(t)
        except SdcError:
            assert s.head is head  # a failing treatment leaves HEAD unchanged
            continue
        out.append(s.data)
    return out


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(frames(), st.lists(treatments, max_size=6), st.integers(0, 2**32))
def test_undo_redo_original(df, ts, seed):
    before = df.copy(deep=True)
    s = sdc.SdcSession(df, keys=["k1", "k2"], seed=seed)
    datas = run(s, ts)
    pd.testing.assert_frame_equal(df, before)  # the user's frame never mutated
    pd.testing.assert_frame_equal(s.original, before)
    depth = len(datas) - 1
    for i in range(depth, 0, -1):
        s.undo()
        pd.testing.assert_frame_equal(s.data, datas[i - 1])
    for i in range(1, depth + 1):
        s.redo()
        pd.testing.assert_frame_equal(s.data, datas[i])


@SETTINGS
@given(frames(), st.lists(treatments, max_size=5), st.lists(treatments, max_size=4),
       st.integers(0, 2**32))
def test_branch_independent_and_replay_identical(df, ts, more, seed):
    s = sdc.SdcSession(df, keys=["k1", "k2"], seed=seed)
    run(s, ts)
    alt = s.branch("alt")
    frozen = s.data.copy(deep=True)
    run(alt, more)
    pd.testing.assert_frame_equal(s.data, frozen)
    run(s, more)
    # same seed, same treatments -> bit-identical, whatever the global random state
    np.random.seed(pyrandom.randrange(2**32))
    pyrandom.seed(np.random.randint(1 << 30))
    s2 = sdc.SdcSession(df, keys=["k1", "k2"], seed=seed)
    run(s2, ts)
    run(s2, more)
    pd.testing.assert_frame_equal(s2.data, s.data, check_exact=True)
    pd.testing.assert_frame_equal(alt.data, s.data, check_exact=True)


def test_different_seed_differs():
    df = pd.DataFrame({"k1": pd.Categorical(["a"] * 5), "x": np.zeros(5)})
    a = sdc.SdcSession(df, keys=["k1"], seed=1).apply(_Jitter("x")).data
    b = sdc.SdcSession(df, keys=["k1"], seed=2).apply(_Jitter("x")).data
    assert not a.equals(b)


def _params(t: Any) -> dict:
    return t.to_dict()


@SETTINGS
@given(treatments)
def test_treatment_dict_roundtrip(t):
    assert Treatment.from_dict(_params(t)) == t
