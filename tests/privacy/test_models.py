"""Privacy models on tiny tables, values computed by hand (issue 19)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession import privacy as P
from sdcsession.errors import ParameterError
from sdcsession.privacy.distances import SensitiveDomain, hierarchy_tree
from sdcsession.privacy.models import ClassTable, Context, model_from_dict

SALARY = [3, 4, 5, 6, 7, 8, 9, 10, 11]


def frame(classes: dict[str, list]) -> pd.DataFrame:
    """One row per record: key = class name, s = sensitive value."""
    rows = [(k, v) for k, vals in classes.items() for v in vals]
    return pd.DataFrame(rows, columns=["key", "s"])


def emd(df: pd.DataFrame, model: P.TCloseness) -> dict:
    """EMD per class through `check` internals (class order = sorted keys)."""
    ctx = Context({"s": SensitiveDomain.build(df["s"], "s")})
    dom = ctx.domains["s"]
    keys = sorted(df["key"].unique())
    counts = np.stack([np.bincount(dom.codes[(df["key"] == k).to_numpy()], minlength=dom.m)
                       for k in keys])
    vals = model.emd(ClassTable(counts.sum(axis=1), {"s": counts}), ctx)
    return dict(zip(keys, vals.tolist(), strict=True))


def test_k_anonymity_and_distinct_l():
    df = frame({"a": ["x", "y", "x"], "b": ["x", "x"], "c": ["z"]})
    r = P.check(df, ["key"], [P.KAnonymity(2), P.DistinctLDiversity("s", 2)])
    assert r.holds == (False, False)
    f = r.to_frame()
    assert f["failing_classes"].tolist() == [1, 2]
    assert f["failing_records"].tolist() == [1, 3]
    assert r.failing_records(1).tolist() == [False] * 3 + [True] * 3


def test_entropy_and_recursive_l_diversity():
    df = frame({"a": ["x", "x", "y", "z"], "b": ["x", "x", "x", "y", "y", "z"]})
    ent = lambda lv: P.EntropyLDiversity("s", lv)  # noqa: E731
    # class a: counts (2,1,1): H = ln 2 · 1.5 = 1.0397; class b: (3,2,1): H = 1.0114
    h_a = -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))
    h_b = -sum(p * math.log(p) for p in (0.5, 1 / 3, 1 / 6))
    assert h_a > h_b > math.log(2.7)
    r = P.check(df, "key", [ent(2), ent(math.exp(h_b) + 1e-9), ent(3)])
    assert r.holds == (True, False, False)
    assert r.violations[:, 1].tolist() == [False, True]
    # recursive: b has r = (3, 2, 1): 3 < 2·(2+1) holds for l = 2; 3 < 2·1 fails for l = 3
    r = P.check(df, "key", [P.RecursiveCLDiversity("s", 2, 2), P.RecursiveCLDiversity("s", 2, 3),
                            P.RecursiveCLDiversity("s", 1, 2)])
    assert r.holds == (True, False, False)   # a: 2 < 1·(1+1) fails


def test_t_closeness_ordered_li_2007_salary_example():
    df = frame({"P1": [3, 4, 5], "P2": [6, 8, 11], "P3": [7, 9, 10]})
    d = emd(df, P.TCloseness("s", 0.2, distance="ordered"))
    assert d["P1"] == pytest.approx(0.375)          # Li et al. 2007, Table 4
    assert d["P2"] == pytest.approx(1 / 6)          # cumulative |−1 −2 −3 −1 −2 0 −1 −2 0| / 9 / 8
    # the value order is numeric, not the order of appearance
    shuffled = df.sample(frac=1.0, random_state=3)
    assert emd(shuffled, P.TCloseness("s", 0.2, distance="ordered")) == pytest.approx(d)


def test_t_closeness_equal_distance_is_half_l1():
    df = frame({"a": ["x", "x", "y", "y"], "b": ["x", "z", "z", "z"]})
    # overall: x 3/8, y 2/8, z 3/8; a = (1/2, 1/2, 0): ½(1/8 + 2/8 + 3/8) = 3/8
    d = emd(df, P.TCloseness("s", 0.2))
    assert d["a"] == pytest.approx(3 / 8)
    assert d["b"] == pytest.approx(0.5 * (1 / 8 + 2 / 8 + 3 / 8))
    r = P.check(df, "key", [P.TCloseness("s", 0.375), P.TCloseness("s", 0.37)])
    assert r.holds == (True, False)


DISEASE = {"*": {"respiratory": {"infection": ["flu", "pneumonia", "bronchitis"],
                                 "vascular": ["edema", "embolism"]},
                 "digestive": {"stomach": ["gastric ulcer", "gastritis", "stomach cancer"],
                               "colon": ["colitis", "colon cancer"]}}}


def test_t_closeness_hierarchical_li_2007_disease_example():
    h = sdc.Hierarchy.from_nested(DISEASE)
    df = frame({"1": ["gastric ulcer", "gastritis", "stomach cancer"],
                "2": ["gastritis", "flu", "bronchitis"],
                "3": ["bronchitis", "pneumonia", "stomach cancer"]})
    d = emd(df, P.TCloseness("s", 0.5, distance="hierarchical", hierarchy=h))
    # class 1: 4/9 of the mass crosses the root (distance 1); inside "stomach" nothing moves
    assert d["1"] == pytest.approx(4 / 9)
    # class 2: extras gastritis +1/9, ulcer −1/9, cancer −2/9 | flu +2/9, bronchitis +1/9,
    # pneumonia −1/9: stomach min(1/9, 3/9)·1/3, infection min(3/9, 1/9)·1/3, root 2/9·1
    assert d["2"] == pytest.approx(1 / 27 + 1 / 27 + 2 / 9)
    tree = hierarchy_tree(SensitiveDomain.build(df["s"], "s"), h)
    assert len(tree) == 3


def test_delta_disclosure_by_hand():
    df = frame({"a": ["x", "y", "x", "y"], "b": ["x", "x", "y"], "c": ["x", "x"]})
    # overall x 6/9, y 3/9. a: (1/2, 1/2): |ln(3/4)| = 0.288, |ln(3/2)| = 0.405
    # b equals the overall distribution (0); c lacks y: ln 0 = -inf, violated for any delta
    r = P.check(df, "key", [P.DeltaDisclosure("s", 0.41), P.DeltaDisclosure("s", 0.40),
                            P.DeltaDisclosure("s", 10.0)])
    assert math.log(1.5) == pytest.approx(0.405465, abs=1e-6)
    assert r.violations[:, 0].tolist() == [False, False, True]
    assert r.violations[:, 1].tolist() == [True, False, True]
    assert r.violations[:, 2].tolist() == [False, False, True]
    # strict inequality: delta equal to the largest |ln ratio| fails
    assert P.check(df[df.key == "a"], "key", [P.DeltaDisclosure("s", math.log(1.5))]).holds == \
        (True,)   # within a alone the overall distribution is its own: ratio 1
    assert P.check(df, "key", [P.DeltaDisclosure("s", math.log(1.5))]).violations[0, 0]


def test_beta_likeness_enhanced_by_hand():
    df = frame({"a": ["x", "y"], "b": ["y", "y", "y", "y", "y", "y"]})
    # overall x 1/8, y 7/8. a: x gains (1/2 − 1/8)/(1/8) = 3 ≤ min(β, ln 8 = 2.079)? no for β ≥ 2.08
    # b: x absent, y (1 − 7/8)/(7/8) = 1/7 = 0.1429 vs −ln(7/8) = 0.1335: violated for any β
    r = P.check(df, "key", [P.BetaLikeness("s", 3.0), P.BetaLikeness("s", 100.0)])
    assert r.violations.tolist() == [[True, True], [True, True]]
    df2 = frame({"a": ["x", "y", "y", "y"], "b": ["x", "y", "y", "y"]})
    assert bool(P.check(df2, "key", [P.BetaLikeness("s", 0.01)]))


def test_kmap_delta_presence_average_risk():
    df = pd.DataFrame({"sex": ["m", "m", "f"], "s": [1, 2, 3]})
    pop = pd.DataFrame({"sex": ["m", "f", "x"], "count": [10, 2, 50]})
    r = P.check(df, "sex", [P.KMap(3, population=pop), P.KMap(2, population=pop)])
    assert r.violations[:, 0].tolist() == [True, False] or r.violations[:, 0].sum() == 1
    assert r.holds == (False, True)
    sub = [True, False, True]
    r = P.check(df, "sex", [P.DeltaPresence(0.0, 0.5, sub), P.DeltaPresence(0.5, 1.0, sub)])
    assert r.holds == (False, True)      # δ(m) = 1/2, δ(f) = 1
    r = P.check(df, "sex", [P.AverageRisk(2 / 3), P.AverageRisk(0.6)])
    assert r.holds == (True, False)      # 2 classes / 3 records


def test_missing_keys_rule():
    df = pd.DataFrame({"a": ["x", "x", None, None, None], "b": ["u", "u", "u", "u", None],
                       "s": [1, 2, 1, 2, 1]})
    r = P.check(df, ["a", "b"], [P.KAnonymity(2)])
    assert r.n_suppressed == 1                      # all keys missing: excluded
    assert r.sizes.tolist() == [2, 2]               # (None, u) is a class of its own
    assert r.class_ids.tolist()[-1] == -1 and r.holds == (True,)


def test_reference_distribution_includes_suppressed_records():
    df = pd.DataFrame({"k": ["a", "a", None], "s": ["x", "y", "y"]})
    # overall x 1/3, y 2/3 over all three records; class a = (1/2, 1/2): EMD 1/6
    assert P.check(df, "k", [P.TCloseness("s", 1 / 6)]).holds == (True,)
    assert P.check(df, "k", [P.TCloseness("s", 0.16)]).holds == (False,)


@pytest.mark.parametrize("make, msg", [
    (lambda: P.TCloseness("s", 1.5), "t: "),
    (lambda: P.TCloseness("s", -0.1), "t: "),
    (lambda: P.TCloseness("s", 0.2, distance="weird"), "distance"),
    (lambda: P.TCloseness("s", 0.2, distance="hierarchical"), "hierarchy"),
    (lambda: P.DeltaDisclosure("s", 0), "delta"),
    (lambda: P.DeltaDisclosure("s", float("inf")), "delta"),
    (lambda: P.BetaLikeness("s", -1), "beta"),
    (lambda: P.KAnonymity(0), "k: "),
    (lambda: P.KAnonymity(2.5), "k: "),
    (lambda: P.DistinctLDiversity("", 2), "column"),
    (lambda: P.RecursiveCLDiversity("s", 0, 2), "c: "),
    (lambda: P.DeltaPresence(0.6, 0.5, [True]), "dmin"),
    (lambda: P.DeltaPresence(0.1, 0.5, [1, 0]), "subset"),
    (lambda: P.KMap(2, population=pd.DataFrame({"a": [1]})), "count"),
    (lambda: P.AverageRisk(0), "max_risk"),
])
def test_bad_parameters(make, msg):
    with pytest.raises(ParameterError, match=msg):
        make()


def test_check_bad_input():
    df = frame({"a": ["x"]})
    with pytest.raises(ParameterError, match="quasi-identifier"):
        P.check(df.assign(s2=1), ["key", "s"], [P.DistinctLDiversity("s", 2)])
    with pytest.raises(ParameterError, match="unknown sensitive column"):
        P.check(df, ["key"], [P.DistinctLDiversity("nope", 2)])
    with pytest.raises(ParameterError, match="keys"):
        P.check(df, ["nope"], [P.KAnonymity(2)])
    with pytest.raises(ParameterError, match="privacy models"):
        P.check(df, ["key"], [])


def test_models_round_trip_as_dicts():
    h = sdc.Hierarchy.from_nested({"*": ["x", "y"]})
    ms = [P.KAnonymity(3), P.DistinctLDiversity("s", 2), P.EntropyLDiversity("s", 1.5),
          P.RecursiveCLDiversity("s", 2.0, 2), P.TCloseness("s", 0.2, "hierarchical", h),
          P.DeltaDisclosure("s", 1.0), P.BetaLikeness("s", 2.0),
          P.KMap(2, population=pd.DataFrame({"key": ["a"], "count": [4]})),
          P.DeltaPresence(0.1, 0.9, [True, False]), P.AverageRisk(0.1)]
    for m in ms:
        assert model_from_dict(m.to_dict()) == m


@pytest.mark.parametrize("count", [[10, 2.5, 50], ["10", "2", "50"], [10, np.inf, 50],
                                   [True, False, True], [10, np.nan, 50], [10, -2, 50]])
def test_kmap_population_counts_are_whole_numbers(count):
    """Population counts are whole numbers >= 0 of a numeric column: 2.5 is not truncated to 2,
    text is not converted, an infinity is not an OverflowError."""
    pop = pd.DataFrame({"sex": ["m", "f", "x"], "count": pd.Series(count, dtype=object)
                        .infer_objects()})
    with pytest.raises(ParameterError, match="population: the 'count' column needs whole"):
        P.KMap(3, population=pop)


def test_kmap_population_whole_floats_are_counts():
    df = pd.DataFrame({"sex": ["m", "m", "f"], "s": [1, 2, 3]})
    ints = pd.DataFrame({"sex": ["m", "f", "x"], "count": [10, 2, 50]})
    floats = ints.assign(count=[10.0, 2.0, 50.0])
    assert P.KMap(3, population=floats) == P.KMap(3, population=ints)
    assert P.check(df, "sex", [P.KMap(3, population=floats)]).holds == (False,)


def test_check_names_a_key_column_of_lists():
    """Cells holding lists cannot be categories: a RoleError (an SdcError) naming the column and
    a record, not pandas' 'unhashable type' TypeError."""
    from sdcsession.errors import RoleError

    df = pd.DataFrame({"a": [[1], [2], [1]], "b": ["x", "y", "x"]})
    with pytest.raises(RoleError, match="column 'a' holds values that are not categories"):
        P.check(df, ["a", "b"], [P.KAnonymity(2)])
    assert P.check(df.assign(a=["p", "q", "p"]), ["a", "b"], [P.KAnonymity(1)]).holds == (True,)
