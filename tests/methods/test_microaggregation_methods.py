"""The sdcMicro microaggregation methods beyond MDAV: rmd, onedims, single, simple, pca, mcdpca,
pppca, influence, clustpppca; weighted group means; SSE against sdcMicro's cuts and MDAV."""

import numpy as np
import pandas as pd
import pytest
from conftest import load

import sdcsession as sdc
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.microaggregation import (
    MICROAGGREGATION_METHODS,
    Microaggregation,
    microaggregation,
    within_group_ss,
)
from sdcsession.methods.microaggregation_robust import refine_by_swaps, rmd_groups
from sdcsession.methods.microaggregation_sorting import (
    consecutive_groups,
    onedims_groups,
    pp_direction,
    sorting_groups,
)
from sdcsession.methods.microaggregation_weights import weighted_aggregate

NEW = ("rmd", "onedims", "simple", "pca", "mcdpca", "pppca", "influence", "clustpppca", "single")
RNG = np.random.default_rng(5)


def _data(n=301):
    x = np.exp(RNG.multivariate_normal([0, 0, 0], [[1, .6, .3], [.6, 1, .4], [.3, .4, 1]], n))
    return pd.DataFrame(x, columns=["a", "b", "c"])


def _std(x):
    return (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)


@pytest.mark.parametrize("method", NEW)
def test_groups_of_at_least_k_and_means_preserved(method):
    df = _data()
    out, notes = microaggregation(df, ["a", "b", "c"], k=3, method=method)
    for c in "abc":
        assert out[c].mean() == pytest.approx(df[c].mean(), rel=1e-12)
        sizes = out.groupby(c).size()
        assert sizes.min() >= 3
    if method != "onedims":  # one grouping for all columns: identical released rows
        sizes = out.groupby(["a", "b", "c"]).size()
        assert sizes.min() >= 3 and sizes.max() <= 5 and len(sizes) == 301 // 3
        z = _std(df.to_numpy())
        lab = out.groupby(["a", "b", "c"]).ngroup().to_numpy()
        assert notes["sse_std"] == pytest.approx(within_group_ss(z, lab), rel=1e-9)
    assert notes["sse_std"] < notes["sst_std"]
    again, _ = microaggregation(df, ["a", "b", "c"], k=3, method=method)
    pd.testing.assert_frame_equal(out, again)  # deterministic


def test_simple_is_file_order_hand_computed():
    df = pd.DataFrame({"a": [1.0, 9.0, 2.0, 8.0, 3.0, 7.0, 4.0], "b": [1.0] * 6 + [2.0]})
    out, _ = microaggregation(df, ["a", "b"], k=3, method="simple")
    # file order: {1, 9, 2} | {8, 3, 7, 4} or {1, 9, 2, 8} | {3, 7, 4}: the second has SS
    # a: 39 + 4.67, the first 32.67 + 14.75 (raw a); the smaller standardised SS wins
    z = _std(df.to_numpy())
    cost = [within_group_ss(z, np.array(lab)) for lab in
            ([0, 0, 0, 1, 1, 1, 1], [0, 0, 0, 0, 1, 1, 1])]
    best = [0, 0, 0, 1, 1, 1, 1] if cost[0] <= cost[1] else [0, 0, 0, 0, 1, 1, 1]
    expect = df.groupby(np.array(best))["a"].transform("mean")
    assert out["a"].tolist() == pytest.approx(expect.tolist())


def test_onedims_is_individual_ranking_with_the_large_group_placed_best():
    v = np.array([0.0, 1.0, 2.0, 3.0, 100.0, 101.0, 102.0])
    # sdcMicro: {0,1,2} {3,100,101,102}; ours: {0,1,2,3} {100,101,102}
    assert onedims_groups(v, 3).tolist() == [0, 0, 0, 0, 1, 1, 1]
    df = _data(1000)
    for c in "abc":
        sdcmicro = within_group_ss(df[[c]].to_numpy(), consecutive_groups(
            np.argsort(df[c].to_numpy(), kind="stable"), 3))
        ours = within_group_ss(df[[c]].to_numpy(), onedims_groups(df[c].to_numpy(), 3))
        assert ours <= sdcmicro * (1 + 1e-12)


def test_single_never_worse_than_sdcmicros_cut_and_uses_ties():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.integers(0, 5, 200).astype(float),  # many ties
                       "b": rng.normal(size=200), "c": rng.normal(size=200)})
    z = _std(df.to_numpy())
    sdcmicro = within_group_ss(z, consecutive_groups(np.argsort(z[:, 0], kind="stable"), 3))
    _, notes = microaggregation(df, ["a", "b", "c"], k=3, method="single", sort_by="a")
    assert notes["sse_std"] < 0.9 * sdcmicro  # ties ordered by the other variables
    lab = sorting_groups("single", z, 3, 0)
    # groups are still consecutive in the sort variable: group ranges do not overlap
    lo = pd.Series(z[:, 0]).groupby(lab).min().sort_values()
    hi = pd.Series(z[:, 0]).groupby(lab).max()[lo.index]
    assert (lo.to_numpy()[1:] >= hi.to_numpy()[:-1]).all()


def test_rmd_groups_outliers_first_and_refinement_never_hurts():
    z = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [0.1, 0.1], [0.05, 0.05], [5.0, 5.0],
                  [4.9, 5.0], [5.0, 4.9], [0.02, 0.08]])
    lab = rmd_groups(z, 3)
    assert lab[5] == lab[6] == lab[7]
    assert np.bincount(lab).tolist() == [3, 3, 3]
    assert lab[5] == 0  # the most outlying record is grouped first
    x = _std(_data(600).to_numpy())
    start = consecutive_groups(np.arange(600), 3)
    ref = refine_by_swaps(x, start)
    assert np.array_equal(np.bincount(ref), np.bincount(start))  # sizes kept
    assert within_group_ss(x, ref) < within_group_ss(x, start)


def test_sse_on_testdata_rmd_close_to_mdav():
    df = load("testdata", keys_as_category=False)
    cols = ["expend", "income", "savings"]
    sse = {m: microaggregation(df, cols, k=3, method=m)[1]["sse_std"]
           for m in ("mdav", "rmd", "onedims", "individual_ranking", "single", "simple")}
    print("testdata SSE (k = 3):", {m: round(v, 3) for m, v in sse.items()})
    assert sse["mdav"] == pytest.approx(64.1563264856464, rel=1e-9)
    assert sse["rmd"] < 1.05 * sse["mdav"]
    assert sse["onedims"] <= sse["individual_ranking"] * (1 + 1e-12)
    assert sse["single"] < sse["simple"]


def test_weighted_means_hand_computed():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0], "b": [1.0, 2, 3, 10, 11, 12],
                       "w": [1.0, 1.0, 2.0, 0.0, 0.0, 0.0]})
    out, _ = microaggregation(df, ["a", "b"], k=3, method="single", weights="w")
    # group {1,2,3} weights 1,1,2: (1+2+6)/4 = 2.25; group {10,11,12} weights 0: plain mean 11
    assert out["a"].tolist() == [2.25] * 3 + [11.0] * 3
    med, _ = microaggregation(df, ["a", "b"], k=3, method="single", weights="w",
                              aggregate="median")
    # cumulative weight shares 0.25, 0.5 (exactly half: mean of 2 and 3), 1
    assert med["a"].tolist() == [2.5] * 3 + [11.0] * 3
    assert weighted_aggregate(np.array([5.0, 1.0, 3.0]), np.zeros(3, int), "median",
                              np.array([1.0, 1.0, 3.0])).tolist() == [3.0] * 3


def test_pp_direction_follows_the_robust_spread():
    rng = np.random.default_rng(2)
    z = np.column_stack([rng.normal(scale=5, size=500), rng.normal(scale=1, size=500)])
    z[:20, 1] = 1000.0  # gross outliers in the second variable do not pull the direction
    d = pp_direction(z)
    assert abs(d[0]) > 0.95


def test_bad_method_lists_the_valid_ones():
    with pytest.raises(ParameterError, match="method.*rmd.*clustpppca"):
        Microaggregation(["a"], method="kmeans")
    with pytest.raises(ParameterError, match="method"):
        microaggregation(_data(), ["a", "b"], method="nope")
    assert set(NEW) <= set(MICROAGGREGATION_METHODS)


def test_non_numeric_column_and_bad_weights_named():
    df = _data(30).assign(s=list("xyz") * 10, w=np.r_[np.ones(29), -1.0])
    for m in ("rmd", "pca", "onedims"):
        with pytest.raises(TreatmentError, match="'s'.*numeric"):
            microaggregation(df, ["a", "s"], method=m)
    with pytest.raises(TreatmentError, match="weights column 'w'"):
        microaggregation(df, ["a", "b"], method="pca", weights="w")
    with pytest.raises(TreatmentError, match="nope"):
        microaggregation(df, ["a", "b"], weights="nope")
    with pytest.raises(ParameterError, match="weights"):
        Microaggregation(["a"], weights=3)


def test_missing_values_stay_missing():
    df = _data(60)
    df.loc[[3, 17], "b"] = np.nan
    out, notes = microaggregation(df, ["a", "b", "c"], k=3, method="rmd")
    assert out["b"].isna().sum() == 2 and out.loc[3, "b"] != out.loc[3, "b"]
    assert notes["incomplete"] == 2


def test_session_methods_weights_replay_undo():
    df = sdc.datasets.synthetic_survey(400, seed=8)
    s = sdc.SdcSession(df, keys=["region", "sex"], numeric=["income", "expend", "savings"],
                       weight="w", seed=3)
    s.microaggregation(["income", "expend", "savings"], k=3, method="rmd", weights="w")
    s.microaggregation(["income", "expend"], k=4, method="single", sort_by="expend")
    assert s.history[-2].treatment.weights == "w"
    again = sdc.SdcSession.from_recipe(df, s.to_recipe())
    pd.testing.assert_frame_equal(again.data, s.data)
    s.undo()
    s.undo()
    pd.testing.assert_frame_equal(s.data, s.original)
