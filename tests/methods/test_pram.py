"""Invariant PRAM: invariance over many seeds, alpha = 0, zero categories, missing, matrices."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.base import Treatment
from sdcsession.methods.pram import Pram, invariant_matrix, pram, pram_matrix

CATS = ["a", "b", "c", "d", "e"]


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    x = rng.choice(CATS[:4], size=2000, p=[0.5, 0.3, 0.15, 0.05]).astype(object)
    x[::97] = None
    return pd.DataFrame({
        "x": pd.Categorical(x, categories=CATS),  # "e" declared but never observed
        "s": np.where(np.arange(2000) < 700, "north", "south"),
    })


def test_invariant_matrix_properties():
    f = np.array([50.0, 30.0, 0.0, 20.0])
    m = invariant_matrix(pram_matrix(4, 0.7), f, 1.0)
    assert np.allclose(m.sum(axis=1), 1) and (m >= 0).all()
    assert np.allclose(f @ m, f)  # invariance: f·R = f
    assert np.allclose(m[[0, 1, 3], 2], 0)  # an empty category is never reached
    # hand-computed 2×2 case: P = [[.8, .2], [.2, .8]], f = (60, 40)
    p = pram_matrix(2, 0.8)
    lam = np.array([60 * .8 + 40 * .2, 60 * .2 + 40 * .8])  # 56, 44
    q = np.array([[.8 * 60 / lam[0], .2 * 40 / lam[0]], [.2 * 60 / lam[1], .8 * 40 / lam[1]]])
    assert np.allclose(invariant_matrix(p, np.array([60.0, 40.0]), 0.3),
                       0.3 * p @ q + 0.7 * np.eye(2))


def test_invariance_over_many_seeds(df):
    """Mean perturbed frequency table equals the original within sampling error."""
    ok = df["x"].notna()
    f0 = df["x"].value_counts().reindex(CATS).to_numpy()
    reps = 300
    tables = np.empty((reps, len(CATS)))
    changed = []
    for seed in range(reps):
        out, notes = pram(df, ["x"], pd=0.6, alpha=1.0, rng=np.random.default_rng(seed))
        tables[seed] = out["x"].value_counts().reindex(CATS).to_numpy()
        changed.append(notes["changed"]["x"])
        assert out["x"].isna().equals(~ok)  # missing stays missing, nothing becomes missing
    se = tables.std(axis=0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(tables.mean(axis=0) - f0) <= 4 * se + 1e-12)
    assert tables[:, 4].max() == 0  # the unobserved category never appears
    assert np.mean(changed) > 300  # it did perturb


def test_alpha_zero_and_pd_one_change_nothing(df):
    for kw in (dict(alpha=0.0), dict(pd=1.0, alpha=1.0)):
        out, notes = pram(df, ["x"], rng=np.random.default_rng(1), **kw)
        assert notes["changed"] == {"x": 0}
        pd.testing.assert_series_equal(out["x"], df["x"])


def test_notes_and_strata(df):
    out, notes = pram(df, ["x"], pd=0.8, alpha=0.5, strata=["s"], rng=np.random.default_rng(2))
    mats = notes["matrices"]["x"]
    assert set(mats) == {"north", "south"}
    for st_label, n in (("north", slice(0, 700)), ("south", slice(700, 2000))):
        m = np.array(mats[st_label]["matrix"])
        assert mats[st_label]["categories"] == CATS
        f = df["x"].iloc[n].value_counts().reindex(CATS).to_numpy()
        assert np.allclose(f @ m, f)  # invariant within each stratum
    assert notes["changed"]["x"] == int((out["x"].astype(object) != df["x"].astype(object))
                                        [df["x"].notna()].sum())
    assert out["x"].dtype == df["x"].dtype
    assert (out["s"] == df["s"]).all()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), pd_=st.floats(0, 1), alpha=st.floats(0, 1))
def test_zero_probability_categories_never_appear(seed, pd_, alpha):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.choice(["p", "q", "r"], size=50, p=[0.6, 0.4, 0.0])})
    out, notes = pram(df, ["x"], pd=pd_, alpha=alpha, rng=rng)
    assert set(out["x"]) <= {"p", "q"}
    m = np.array(notes["matrices"]["x"]["all"]["matrix"])
    assert np.allclose(m.sum(axis=1), 1)


def test_user_matrix_applied_as_given():
    df = pd.DataFrame({"x": [1, 2, 3] * 200})
    m = {1: {1: 0.0, 2: 1.0, 3: 0.0}, 2: {1: 0.0, 2: 1.0, 3: 0.0}, 3: {1: 0.0, 2: 0.0, 3: 1.0}}
    out, notes = pram(df, ["x"], matrix=m, alpha=1.0, invariant=False, rng=np.random.default_rng(0))
    assert out["x"].tolist() == [2, 2, 3] * 200 and out["x"].dtype == df["x"].dtype
    assert notes["changed"]["x"] == 200
    # invariant use of the same base matrix keeps the expected frequencies
    m2 = pd.DataFrame([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0], [0.0, 0.0, 1.0]],
                      index=[1, 2, 3], columns=[1, 2, 3])
    t = Pram("x", matrix=m2, alpha=1.0)
    f = np.array([200.0, 200.0, 200.0])
    used = np.array(t.apply(df, None, np.random.default_rng(0)).notes["matrices"]["x"]["all"]
                    ["matrix"])
    assert np.allclose(f @ used, f)
    # JSON roundtrip: keys become strings and still match integer categories
    t2 = Treatment.from_dict({"type": "pram", "columns": ["x"], "alpha": 1.0,
                              "matrix": {str(a): {str(b): v for b, v in r.items()}
                                         for a, r in m.items()}, "invariant": False})
    assert t2.apply(df, None, np.random.default_rng(0)).data["x"].tolist() == [2, 2, 3] * 200


def test_bad_input():
    for kw in (dict(pd=1.5), dict(pd=-0.1), dict(alpha=2), dict(alpha="x")):
        with pytest.raises(ParameterError):
            Pram(["x"], **kw)
    with pytest.raises(ParameterError, match="not square"):
        Pram(["x"], matrix={"a": {"a": 1.0}, "b": {"a": 0.5, "b": 0.5}})
    with pytest.raises(ParameterError, match="summing to 1"):
        Pram(["x"], matrix={"a": {"a": 0.9, "b": 0.2}, "b": {"a": 0.5, "b": 0.5}})
    df = pd.DataFrame({"x": ["a", "b", "c"], "inc": [1.5, 2.5, 3.5], "m": [None] * 3})
    with pytest.raises(TreatmentError, match="mislabelled"):
        Pram(["x"], matrix={"a": {"a": 1.0, "b": 0.0}, "b": {"a": 0.0, "b": 1.0}}).check(df, None)
    big = pd.DataFrame({"inc": np.arange(500.0)})
    with pytest.raises(TreatmentError, match="recode"):
        Pram(["inc"]).check(big, None)
    with pytest.raises(TreatmentError, match="only missing"):
        Pram(["m"]).check(df, None)
    with pytest.raises(TreatmentError, match="unknown column"):
        Pram(["zz"]).check(df, None)
    t = Pram(["x"], pd=0.7)
    assert Treatment.from_dict(t.to_dict()) == t and hash(t) == hash(Pram(["x"], pd=0.7))
