"""PRAM with ``given`` (no impossible combinations) and ``bandwidth`` (ordered categories)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.pram.constrained import (
    band_matrix,
    restrict,
    reversible_matrix,
)
from sdcsession.methods.pram.invariant import Pram, pram


def _survey(n: int = 1500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.choice(["<30", "30-60", ">60"], n)
    occ = np.where(age == ">60", rng.choice(["retired", "employed"], n),
                   rng.choice(["student", "employed", "unemployed"], n))
    sex = rng.choice(["m", "f"], n)
    return pd.DataFrame({"age": age, "sex": sex, "occ": occ})


def _combos(df: pd.DataFrame, cols: list[str]) -> set:
    return set(map(tuple, df[cols].astype(str).to_numpy().tolist()))


@pytest.mark.parametrize("invariant", [True, False])
def test_given_never_creates_a_zero_frequency_combination_in_20_seeds(invariant):
    df = _survey()
    before = _combos(df, ["occ", "age", "sex"])
    changed = 0
    for seed in range(20):
        out, notes = pram(df, ["occ"], pd=0.4, alpha=1.0, given=["age", "sex"],
                          invariant=invariant, rng=np.random.default_rng(seed))
        assert _combos(out, ["occ", "age", "sex"]) <= before
        changed += notes["changed"]["occ"]
    assert changed > 0
    # without given the same PRAM does create them (so the test can fail)
    out, _ = pram(df, ["occ"], pd=0.4, alpha=1.0, rng=np.random.default_rng(0))
    assert ("student", ">60") in _combos(out, ["occ", "age"])


def test_given_keeps_the_table_by_stratum_invariant():
    df = _survey()
    out, notes = pram(df, ["occ"], pd=0.5, alpha=0.8, given=["age"],
                      rng=np.random.default_rng(1))
    cats = notes["matrices"]["occ"][next(iter(notes["matrices"]["occ"]))]["categories"]
    for label, m in notes["matrices"]["occ"].items():
        grp = df[df["age"] == label]["occ"]
        f = np.array([(grp == c).sum() for c in cats], float)
        M = np.array(m["matrix"])
        np.testing.assert_allclose(f @ M, f, atol=1e-9)
        # a category absent from the stratum gets no mass
        assert np.all(M[:, f == 0][f > 0] == 0)


def test_bandwidth_respected_and_invariant():
    rng = np.random.default_rng(2)
    cats = list("abcdefg")
    x = pd.Categorical(rng.choice(cats, 3000, p=[.3, .2, .15, .1, .1, .1, .05]),
                       categories=cats, ordered=True)
    df = pd.DataFrame({"x": x})
    for b in (1, 2):
        out, notes = pram(df, ["x"], pd=0.3, alpha=1.0, bandwidth=b,
                          rng=np.random.default_rng(b))
        step = np.abs(out["x"].cat.codes.to_numpy() - df["x"].cat.codes.to_numpy())
        assert step.max() == b  # moves happen, never further than b
        M = np.array(notes["matrices"]["x"]["all"]["matrix"])
        f = np.bincount(df["x"].cat.codes, minlength=7).astype(float)
        np.testing.assert_allclose(f @ M, f, atol=1e-9)
        far = np.abs(np.subtract.outer(range(7), range(7))) > b
        assert (M[far] == 0).all()
        assert notes["bandwidth"] == b


def test_bandwidth_with_given_and_plain_pram():
    df = _survey()
    df["age"] = pd.Categorical(df["age"], categories=["<30", "30-60", ">60"], ordered=True)
    before = _combos(df, ["age", "occ"])
    for seed in range(5):
        out, _ = pram(df, ["age"], pd=0.2, alpha=1.0, bandwidth=1, given=["occ"],
                      invariant=False, rng=np.random.default_rng(seed))
        assert _combos(out, ["age", "occ"]) <= before
        step = np.abs(out["age"].cat.codes.to_numpy() - df["age"].cat.codes.to_numpy())
        assert step.max() <= 1


def test_matrix_helpers_by_hand():
    assert band_matrix(3, 0.5, 1).tolist() == [[0.5, 0.5, 0.0], [0.25, 0.5, 0.25],
                                                [0.0, 0.5, 0.5]]
    f = np.array([1.0, 3.0, 0.0])
    m = reversible_matrix(band_matrix(3, 0.5, 1), f, 1.0)
    # M[0,1] = min(0.5, 3*0.25/1) = 0.5; M[1,0] = min(0.25, 1*0.5/3) = 1/6
    np.testing.assert_allclose(m[0], [0.5, 0.5, 0.0])
    np.testing.assert_allclose(m[1], [1 / 6, 5 / 6, 0.0])
    np.testing.assert_allclose(f @ m, f)
    r = restrict(np.full((3, 3), 1 / 3), np.array([True, True, False]))
    np.testing.assert_allclose(r, [[.5, .5, 0], [.5, .5, 0], [.5, .5, 0]])


def test_user_matrix_outside_band_refused():
    df = pd.DataFrame({"x": list("abc") * 20})
    m = {"a": {"a": 0.5, "b": 0.0, "c": 0.5}, "b": {"a": 0, "b": 1, "c": 0},
         "c": {"a": 0, "b": 0, "c": 1}}
    with pytest.raises(TreatmentError, match="bandwidth"):
        pram(df, ["x"], matrix=m, bandwidth=1, rng=np.random.default_rng(0))
    out, _ = pram(df, ["x"], matrix=m, bandwidth=2, rng=np.random.default_rng(0))
    assert len(out) == 60


def test_session_replay_and_dask_equal_matrices():
    dd = pytest.importorskip("dask.dataframe")
    from sdcsession.scale.randomised import apply_distributed

    df = _survey(600)
    s = sdc.SdcSession(df, keys=["age", "sex"], seed=3)
    s.pram("occ", pd=0.5, alpha=1.0, given=["age"], bandwidth=1)
    assert _combos(s.data, ["occ", "age"]) <= _combos(df, ["occ", "age"])
    t = s.head.treatment
    assert t.given == ("age",) and t.bandwidth == 1
    res = apply_distributed(t, dd.from_pandas(df, npartitions=3), s.roles, seed=5,
                            progress=False)
    got = res.data.compute()
    assert _combos(got, ["occ", "age"]) <= _combos(df, ["occ", "age"])
    _, notes = pram(df, ["occ"], pd=0.5, alpha=1.0, given=["age"], bandwidth=1,
                    rng=np.random.default_rng(0))
    for label, m in notes["matrices"]["occ"].items():
        np.testing.assert_allclose(res.notes["matrices"]["occ"][label]["matrix"], m["matrix"])


@pytest.mark.parametrize("kw, err", [
    (dict(given="occ"), ParameterError),
    (dict(given=[1]), ParameterError),
    (dict(bandwidth=0), ParameterError),
    (dict(bandwidth=1.5), ParameterError),
    (dict(bandwidth=True), ParameterError),
    (dict(bandwidth="1"), ParameterError),
    (dict(given=["nope"]), TreatmentError),
])
def test_bad_input_named_and_head_unchanged(kw, err):
    s = sdc.SdcSession(_survey(100), keys=["age", "sex"], seed=1)
    head = s.head
    with pytest.raises(err):
        s.pram("occ", **kw)
    assert s.head is head
    if err is ParameterError:
        with pytest.raises(ParameterError):
            Pram(["occ"], **kw)
