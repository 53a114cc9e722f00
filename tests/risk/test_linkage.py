"""Global distance-based record linkage (sdcMicro recordLinkage): hand-computed distances, the
daisy rules re-implemented pair by pair, brute-force optimality, ties and bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from conftest import read_csv, reference

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk import record_linkage


def test_euclidean_with_missing_scales_by_observed_share():
    x = pd.DataFrame({"a": [0.0, 3.0, 10.0], "b": [0.0, 4.0, np.nan]})
    y = pd.DataFrame({"a": [0.0, 3.0, 10.0], "b": [1.0, 4.0, 10.0]})
    r = record_linkage(x, y, variables=["a", "b"], return_matrix=True)
    d = r.distance_matrix.to_numpy()
    assert d[0].tolist() == pytest.approx([1.0, 5.0, math.sqrt(200)])
    # x2 has only a: sqrt(sum over observed * p/q) = sqrt(10^2 * 2)
    assert d[2].tolist() == pytest.approx([math.sqrt(200), math.sqrt(98), 0.0])
    assert r.correct_matches == 3 and r.correct_match_rate == 1.0
    assert r.mean_distance == pytest.approx(1 / 3) and r.total_distance == pytest.approx(1.0)
    m = record_linkage(x, y, variables=["a", "b"], distance="manhattan", return_matrix=True)
    assert m.distance_matrix.to_numpy()[2].tolist() == pytest.approx([20.0, 14.0, 0.0])
    assert m.distance_matrix.to_numpy()[0].tolist() == pytest.approx([1.0, 7.0, 20.0])


def test_matching_by_index_not_position():
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0]}, index=["p", "q", "r"])
    y = pd.DataFrame({"a": [3.0, 1.0, 2.0]}, index=["r", "p", "q"])
    r = record_linkage(x, y, variables="a")
    assert r.correct_matches == 3
    assert r.matches["match"].tolist() == ["p", "q", "r"]
    assert r.matches.index.tolist() == ["p", "q", "r"]


def test_optimal_vs_nearest():
    x = pd.DataFrame({"a": [0.0, 1.0]})
    y = pd.DataFrame({"a": [0.6, 5.0]})
    opt = record_linkage(x, y, variables="a")
    assert opt.correct_matches == 2 and opt.total_distance == pytest.approx(4.6)
    near = record_linkage(x, y, variables="a", assignment="nearest")
    assert near.matches["match"].tolist() == [0, 0]
    assert near.correct_matches == 1 and near.mean_distance == pytest.approx(0.5)


def test_ties_reported():
    x = pd.DataFrame({"a": [0.0, 2.0, 5.0]})
    y = pd.DataFrame({"a": [1.0, 1.0, 5.0]})
    r = record_linkage(x, y, variables="a")
    assert r.matches["n_best"].tolist() == [2, 2, 1]
    assert r.n_tied == 2
    assert r.total_distance == pytest.approx(2.0)
    assert r.matches.loc[2, "correct"]


def test_gower_hand_computed_mixed():
    lv = ["lo", "mid", "hi"]
    x = pd.DataFrame({
        "num": [1.0, 5.0, 9.0], "nom": ["a", "b", None], "flag": [True, False, False],
        "ord": pd.Categorical(["lo", "hi", "mid"], categories=lv, ordered=True)})
    y = pd.DataFrame({
        "num": [2.0, 5.0, 7.0], "nom": ["a", "a", "b"], "flag": [True, False, True],
        "ord": pd.Categorical(["lo", "mid", "mid"], categories=lv, ordered=True)})
    r = record_linkage(x, y, variables=list(x.columns), distance="gower", return_matrix=True)
    d = r.distance_matrix.to_numpy()
    # ranges over both files: num 8, ord codes 1..3 -> 2, flag 1
    assert d[0, 0] == pytest.approx(0.125 / 4)
    # False/False does not count (asymmetric binary): (0 + 1 + 0.5) / 3
    assert d[1, 1] == pytest.approx(1.5 / 3)
    # nom missing in x2: (0.25 + 1 + 0) / 3
    assert d[2, 2] == pytest.approx(1.25 / 3)
    # x0 vs y1: num 4/8, nom 0, flag T/F differ 1, ord 1/2 -> 2 / 4
    assert d[0, 1] == pytest.approx(2.0 / 4)
    w = record_linkage(x, y, variables=list(x.columns), distance="gower",
                       weights={"num": 2.0, "nom": 1.0, "flag": 1.0, "ord": 0.0},
                       return_matrix=True)
    assert w.distance_matrix.to_numpy()[0, 1] == pytest.approx((2 * 0.5 + 1) / 4)


def _daisy_pair(xr, yr, kinds, ranges, weights):
    """Gower distance of one pair, straight from Gower (1971) / daisy's rules."""
    num = den = 0.0
    for k, kind in enumerate(kinds):
        a, b = xr[k], yr[k]
        if a is None or b is None or (isinstance(a, float) and math.isnan(a)) \
                or (isinstance(b, float) and math.isnan(b)):
            continue
        w = weights[k]
        if kind == "num":
            num += w * abs(a - b) / ranges[k]
            den += w
        elif kind == "nom":
            num += w * (a != b)
            den += w
        else:  # asymmetric binary
            if a or b:
                den += w
            num += w * (a != b)
    return num / den


def test_gower_matrix_equals_pairwise_rules_with_missing():
    rng = np.random.default_rng(5)
    n = 40
    x = pd.DataFrame({"u": rng.normal(size=n), "v": rng.integers(0, 5, n).astype(float),
                      "c": rng.choice(["a", "b", "c"], n), "f": rng.random(n) < 0.3})
    y = x.copy()
    y["u"] += rng.normal(scale=0.5, size=n)
    y["c"] = np.where(rng.random(n) < 0.2, "b", y["c"])
    x.loc[rng.random(n) < 0.1, "u"] = np.nan
    y.loc[rng.random(n) < 0.1, "c"] = None
    r = record_linkage(x, y, variables=list(x.columns), distance="gower", return_matrix=True)
    kinds = ["num", "num", "nom", "bin"]
    both = pd.concat([x, y])
    ranges = [both["u"].max() - both["u"].min(), both["v"].max() - both["v"].min(), 1, 1]
    xs = x.astype(object).where(x.notna(), None).to_numpy()
    ys = y.astype(object).where(y.notna(), None).to_numpy()
    want = np.array([[_daisy_pair(xs[i], ys[j], kinds, ranges, [1] * 4) for j in range(n)]
                     for i in range(n)])
    np.testing.assert_allclose(r.distance_matrix.to_numpy(), want, rtol=1e-12, atol=1e-15)
    rowmin = want.min(axis=1, keepdims=True)
    assert r.matches["n_best"].tolist() == (np.abs(want - rowmin) <= 1.49e-8).sum(axis=1).tolist()


def test_optimal_assignment_is_brute_force_minimum():
    rng = np.random.default_rng(11)
    for _ in range(5):
        x = pd.DataFrame(rng.normal(size=(6, 2)), columns=["a", "b"])
        y = x + rng.normal(scale=1.0, size=(6, 2))
        r = record_linkage(x, y, variables=["a", "b"], return_matrix=True)
        d = r.distance_matrix.to_numpy()
        best = min(sum(d[i, p[i]] for i in range(6)) for p in itertools.permutations(range(6)))
        assert r.total_distance == pytest.approx(best, rel=1e-12)


def test_casc_masked_file_runs_and_beats_chance():
    ref = reference()["casc"]
    x = read_csv("casc")[ref["vars"]]
    y = read_csv("casc_masked")[ref["vars"]]
    r = record_linkage(x, y, variables=ref["vars"], distance="euclidean")
    g = record_linkage(x, y, variables=ref["vars"], distance="gower")
    assert 0.5 < r.correct_match_rate <= 1.0 and 0.5 < g.correct_match_rate <= 1.0
    assert r.mean_distance == pytest.approx(r.total_distance / len(x))
    # the optimum is never worse than linking each record to itself
    own = np.sqrt(((x.to_numpy() - y.to_numpy()) ** 2).sum(axis=1)).sum()
    assert r.total_distance <= own * (1 + 1e-12)


def test_bad_input():
    x = pd.DataFrame({"a": [1.0, 2.0], "s": ["u", "v"]})
    y = x.copy()
    with pytest.raises(MeasureError, match="same records"):
        record_linkage(x, y.set_axis([0, 5]), variables="a")
    with pytest.raises(MeasureError, match="same records"):
        record_linkage(x, y.iloc[:1], variables="a")
    with pytest.raises(MeasureError, match="duplicated"):
        record_linkage(x.set_axis([0, 0]), y.set_axis([0, 0]), variables="a")
    with pytest.raises(MeasureError, match="'b'"):
        record_linkage(x, y, variables=["a", "b"])
    with pytest.raises(MeasureError, match="gower"):
        record_linkage(x, y, variables=["a", "s"], distance="euclidean")
    with pytest.raises(MeasureError, match="missing in every record"):
        record_linkage(x.assign(a=np.nan), y.assign(a=np.nan), variables=["a", "s"],
                       distance="gower")
    with pytest.raises(MeasureError, match="no linkage variable observed"):
        record_linkage(x.assign(a=[np.nan, 1.0]), y.assign(a=[np.nan, 2.0]), variables="a")
    with pytest.raises(MeasureError, match="same type"):
        record_linkage(x, y.assign(a=["1", "2"]), variables="a", distance="gower")
    with pytest.raises(ParameterError, match="distance"):
        record_linkage(x, y, variables="a", distance="mahalanobis")
    with pytest.raises(ParameterError, match="assignment"):
        record_linkage(x, y, variables="a", assignment="greedy")
    with pytest.raises(ParameterError, match="gower.? only"):
        record_linkage(x, y, variables="a", weights=[1.0])
    with pytest.raises(ParameterError, match="weights"):
        record_linkage(x, y, variables=["a", "s"], distance="gower", weights=[1.0])
    with pytest.raises(ParameterError, match="tol"):
        record_linkage(x, y, variables="a", tol=-1)
    lv = pd.CategoricalDtype(["lo", "hi"], ordered=True)
    with pytest.raises(MeasureError, match="ordered"):
        record_linkage(pd.DataFrame({"o": pd.Series(["lo", "hi"], dtype=lv)}),
                       pd.DataFrame({"o": pd.Series(["hi", "lo"], dtype=pd.CategoricalDtype(
                           ["hi", "lo"], ordered=True))}), variables="o", distance="gower")


def test_overflowing_distances_are_refused():
    """Squared distances beyond the largest double are infinite for every candidate: refused
    (the optimal assignment would fail, the nearest match would be arbitrary)."""
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1e300, -1e300, 5e299]})
    for assignment in ("optimal", "nearest"):
        with pytest.raises(MeasureError, match="overflow"):
            record_linkage(x, x + 1.0, variables=["a", "b"], assignment=assignment)
    small = x.assign(b=x["b"] * 1e-150)  # large but finite distances: linked as before
    assert record_linkage(small, small + 1.0, variables=["a", "b"]).correct_matches == 3


def test_indexes_of_different_depths_are_refused():
    """Records are matched by index label: a two-level index against a one-level index is a
    MeasureError saying so (pandas' isin raised a ValueError)."""
    x = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    y = x.set_axis(pd.MultiIndex.from_arrays([[0, 1, 2], ["u", "u", "u"]]), axis=0)
    for a, b in ((x, y), (y, x)):
        with pytest.raises(MeasureError, match="level"):
            record_linkage(a, b + 0.1, variables=["a"])
    assert record_linkage(y, y + 0.1, variables=["a"]).correct_matches == 3
