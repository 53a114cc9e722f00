"""Generalisation metrics: counting, C_avg, DM, Iyengar's LM (worked examples)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession.utility as u
from sdcsession.errors import MeasureError, ParameterError

EMPLOYMENT = {
    "Employment": {
        "Self-employed": ["Incorporated", "Not incorporated"],
        "Government": ["Federal", "State", "Local"],
        "Unemployed": ["Without pay", "Never worked"],
        "Private": None,
    }
}


def test_lm_employment_tree_worked_example():
    o = pd.DataFrame({"emp": ["Local"]})
    m = pd.DataFrame({"emp": ["Government"]})
    lm = u.loss_metric(o, m, hierarchies={"emp": EMPLOYMENT})
    assert lm.total == pytest.approx(2 / 7, rel=1e-12)
    h = u.Hierarchy.from_nested(EMPLOYMENT)
    assert h.n_leaves == 8
    assert h.loss("Employment") == 1.0 and h.loss("Private") == 0.0


def test_lm_average_suppression_numeric_and_weights():
    o = pd.DataFrame({"emp": ["Local", "Federal", "Private", "State"],
                      "age": [20, 30, 62, 70]})
    m = pd.DataFrame({"emp": ["Government", "Federal", None, "Employment"],
                      "age": ["[20, 30]", "20-30", "55-64", "70"]})
    lm = u.loss_metric(o, m, hierarchies={"emp": EMPLOYMENT})
    assert lm.by_variable["emp"] == pytest.approx((2 / 7 + 0 + 1 + 1) / 4)
    assert lm.by_variable["age"] == pytest.approx((10 / 50 + 10 / 50 + 9 / 50 + 0) / 4)
    assert lm.total == pytest.approx(lm.by_variable.sum())
    w = u.loss_metric(o, m, hierarchies={"emp": EMPLOYMENT}, weights={"emp": 2.0})
    assert w.total == pytest.approx(2 * lm.by_variable["emp"] + lm.by_variable["age"])
    iv = m.assign(age=pd.arrays.IntervalArray.from_tuples([(20, 30), (20, 30), (55, 64), (70, 70)]))
    assert u.loss_metric(o, iv, hierarchies={"emp": EMPLOYMENT}).by_variable["age"] == \
        pytest.approx(lm.by_variable["age"])


def test_lm_parent_links_flat_default_and_errors():
    parents = {"Federal": "Gov", "State": "Gov", "Private": "Any", "Gov": "Any"}
    h = u.Hierarchy.from_parents(parents)
    assert h.n_leaves == 3 and h.loss("Gov") == 0.5
    o = pd.DataFrame({"k": list("abcd")})
    flat = u.loss_metric(o, o.assign(k=["a", None, "c", "d"]))
    assert flat.total == pytest.approx(0.25)
    with pytest.raises(MeasureError, match="not in its hierarchy"):
        u.loss_metric(o, o.assign(k=["a", "zz", "c", "d"]))
    with pytest.raises(MeasureError, match="range"):
        u.loss_metric(pd.DataFrame({"x": [1, 5]}), pd.DataFrame({"x": ["young", "old"]}))
    with pytest.raises(ParameterError, match="one root"):
        u.Hierarchy.from_parents({"a": "r1", "b": "r2"})


def test_generalisation_counts():
    o = pd.DataFrame({"zip": ["94141", "94142", "94139"], "race": ["A", "B", "C"]})
    m = pd.DataFrame({"zip": ["9414*", "9414*", None], "race": ["person", "B", "C"]})
    g = u.generalisation_counts(o, m)
    assert g.loc["zip", ["generalised", "suppressed", "operations"]].tolist() == [2, 1, 3]
    assert g.loc["race", "operations"] == 1
    assert g.loc["(total)", "operations"] == 4
    assert g.loc["(total)", "records_touched"] == 3


def test_c_avg_and_discernibility():
    m = pd.DataFrame({"age": ["<30"] * 2 + ["30+"] * 4, "sex": ["m"] * 6})
    assert u.c_avg(m, keys=["age", "sex"], k=2) == pytest.approx(6 / (2 * 2))
    assert u.discernibility(m, keys=["age", "sex"]) == 2**2 + 4**2
    m2 = pd.concat([m, pd.DataFrame({"age": [None], "sex": [None]})], ignore_index=True)
    assert u.discernibility(m2, keys=["age", "sex"]) == 7 * 1 + 2**2 + 4**2
    mask = np.zeros(7, dtype=bool)
    mask[0] = True
    assert u.discernibility(m2, keys=["age", "sex"], suppressed=mask) == 7 * 2 + 1 + 16
    sizes = u.equivalence_class_sizes(m2, keys=["age", "sex"])
    assert sizes.tolist() == [2, 2, 4, 4, 4, 4, 0]
    with pytest.raises(ParameterError):
        u.c_avg(m, keys=["age"], k=0)


def test_hierarchy_depth_and_cycles_are_parameter_errors():
    """Nested dicts or parent chains deeper than MAX_HEIGHT levels are refused as they are
    walked (not a RecursionError); parent links going round in a cycle beside the root are
    refused (they were dropped silently); a deep list is 'not a single value'."""
    from sdcsession.utility.hierarchy import MAX_HEIGHT, Hierarchy

    chain = {i: i + 1 for i in range(MAX_HEIGHT - 1)}
    assert Hierarchy.from_parents(chain).height == MAX_HEIGHT - 1
    assert Hierarchy.from_parents(chain).generalize([0], 3).tolist() == [3]
    with pytest.raises(ParameterError, match=f"more than {MAX_HEIGHT} levels deep"):
        Hierarchy.from_parents({i: i + 1 for i in range(100_000)})
    tree: dict = {}
    node = tree
    for i in range(5_000):
        node[i] = {}
        node = node[i]
    with pytest.raises(ParameterError, match=f"more than {MAX_HEIGHT} levels deep"):
        Hierarchy.from_nested(tree)
    deep: list = []
    inner = deep
    for _ in range(5_000):
        inner.append([])
        inner = inner[0]
    with pytest.raises(ParameterError, match="node of type list is not a single value"):
        Hierarchy.from_nested({"*": deep})
    with pytest.raises(ParameterError, match=r"the links of \['a', 'b'\] form a cycle"):
        Hierarchy.from_parents({"a": "b", "b": "a", "c": "r"})
