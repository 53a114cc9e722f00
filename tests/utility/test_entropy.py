"""Entropy, entropy change, EBIL, DIST: worked examples and invariants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession.utility as u
from sdcsession.errors import MeasureError, ParameterError


def test_entropy_counts_missing_in_n_only():
    s = pd.Series(["a", "a", "b", None])
    expected = -(2 * np.log(2 / 4) + 1 * np.log(1 / 4)) / 4
    assert u.entropy(s) == pytest.approx(expected)
    full = -(2 * np.log(2 / 4) + 2 * np.log(1 / 4)) / 4
    assert u.entropy(s, missing="category") == pytest.approx(full)
    assert u.entropy(pd.Series(list("abcd")), base=2) == pytest.approx(2.0)
    assert u.entropy(pd.Series(["a", "b"]), weight=np.array([1.0, 3.0])) == pytest.approx(
        -(0.25 * np.log(0.25) + 0.75 * np.log(0.75)))
    with pytest.raises(ParameterError):
        u.entropy(s, base=1)
    with pytest.raises(MeasureError):
        u.entropy([1, 2])


def test_joint_entropy_of_frame():
    df = pd.DataFrame({"a": list("aabb"), "b": list("uvuv")})
    assert u.entropy(df, base=2) == pytest.approx(2.0)


def test_entropy_change_recode_and_suppression():
    o = pd.DataFrame({"k": list("abcd")})
    m = o.assign(k=["a", "a", "c", None])
    ec = u.entropy_change(o, m, base=2)
    # masked: a:2, c:1, missing:1 of n=4 -> -(2/4 log2 1/2 + 1/4 log2 1/4) = 1
    assert ec.loc["k", "entropy_masked"] == pytest.approx(1.0)
    assert ec.loc["k", "loss"] == pytest.approx(1.0)
    assert ec.loc["k", "relative_loss"] == pytest.approx(0.5)
    # no pairing needed
    assert u.entropy_change(o, m.iloc[:2], base=2).loc["k", "entropy_masked"] == 0.0


def test_dist_worked_example():
    o = pd.DataFrame(
        {
            "gender": ["M", "M", "F", "M", "F", "F"],
            "race": ["Black", "Asian", "Asian", "White", "White", "Black"],
        }
    )
    m = o.assign(gender="*")
    assert u.dist(o, m) == pytest.approx(1 / np.log2(6), rel=1e-12)
    m2 = o.assign(gender=None)  # suppression as a missing value: same
    assert u.dist(o, m2, columns=["gender", "race"]) == pytest.approx(1 / np.log2(6), rel=1e-12)
    assert u.dist(o, o) == 0.0


def _transition(p: float, cats):
    k = len(cats)
    mat = np.full((k, k), (1 - p) / (k - 1))
    np.fill_diagonal(mat, p)
    return pd.DataFrame(mat, index=cats, columns=cats)


def test_ebil_identity_is_zero_and_uniform_is_maximal():
    cats = ["a", "b", "c"]
    o = pd.DataFrame({"v": ["a", "b", "c", "a", "b", "c"]})
    assert u.ebil(o, o, column="v", transition=_transition(1.0, cats)) == 0.0
    # P(V'|V) uniform -> posterior = prior (uniform here) -> log 3 per record
    full = u.ebil(o, o, column="v", transition=_transition(1 / 3, cats))
    assert full == pytest.approx(6 * np.log(3))


def test_ebil_bayes_by_hand():
    o = pd.DataFrame({"v": ["a", "a", "a", "b"]})  # prior 3/4, 1/4
    m = pd.DataFrame({"v": ["a", "b", "a"]})  # different length is fine
    pmat = np.array([[0.8, 0.2], [0.4, 0.6]])
    # P(V=a|V'=a) = .8*.75 / (.8*.75 + .4*.25) = .6/.7 ; P(V=a|V'=b) = .15/.3 = .5
    def h(q):
        return -(q * np.log(q) + (1 - q) * np.log(1 - q))

    expected = 2 * h(0.6 / 0.7) + h(0.5)
    got = u.ebil(o, m, column="v", transition=pmat, categories=["a", "b"])
    assert got == pytest.approx(expected)
    # DataFrame with permuted columns is aligned by labels
    df = pd.DataFrame(pmat, index=["a", "b"], columns=["a", "b"])[["b", "a"]]
    assert u.ebil(o, m, column="v", transition=df) == pytest.approx(expected)


def test_ebil_bad_input():
    o = pd.DataFrame({"v": ["a", "b"]})
    good = _transition(0.8, ["a", "b"])
    with pytest.raises(ParameterError, match="rows summing to 1"):
        u.ebil(o, o, column="v", transition=good * 2)
    with pytest.raises(MeasureError, match="not in the transition categories"):
        u.ebil(o, o.assign(v=["a", "z"]), column="v", transition=good)
    with pytest.raises(ParameterError, match="give categories"):
        u.ebil(o, o, column="v", transition=good.to_numpy())
