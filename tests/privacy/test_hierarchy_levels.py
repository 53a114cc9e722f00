"""Hierarchies with levels: ARX tables, intervals, masking, dates, nested trees (issue 19)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import MeasureError, ParameterError
from sdcsession.utility import Hierarchy as UtilityHierarchy
from sdcsession.utility import loss_metric

H = sdc.Hierarchy

AGE = pd.DataFrame([["31", "30-39", "<50", "*"], ["35", "30-39", "<50", "*"],
                    ["42", "40-49", "<50", "*"], ["57", "50-59", ">=50", "*"]])


def test_top_level_name_is_the_utility_class():
    assert sdc.Hierarchy is UtilityHierarchy and "Hierarchy" in sdc.__all__


def test_from_frame_levels_and_height():
    h = H.from_frame(AGE)
    assert h.height == 3
    vals = pd.Series(["35", "57", None, "31"], index=[10, 11, 12, 13])
    assert h.generalize(vals, 1).tolist() == ["30-39", "50-59", None, "30-39"]
    assert h.generalize(vals, 2).tolist() == ["<50", ">=50", None, "<50"]
    assert h.generalize(vals, 3).tolist() == ["*", "*", None, "*"]
    assert list(h.generalize(vals, 2).index) == [10, 11, 12, 13]
    assert h.generalize(vals, 0).tolist()[:2] == ["35", "57"]
    # leaves for Iyengar's loss metric: "<50" covers 3 of the 4 values
    assert h.leaves["<50"] == 3 and h.loss("<50") == pytest.approx(2 / 3)


def test_from_frame_missing_values_are_named():
    h = H.from_frame(AGE)
    with pytest.raises(ParameterError, match=r"'77'.*'88'|'88'.*'77'"):
        h.generalize(["31", "77", "88"], 1, column="age")
    # numbers of the data match a table read as text
    assert h.generalize([31, 57], 1, column="age").tolist() == ["30-39", "50-59"]
    with pytest.raises(ParameterError, match="age.*32"):
        h.generalize([31, 32], 1, column="age")


def test_from_frame_not_a_function():
    bad = [["a", "x", "*"], ["a", "y", "*"]]
    with pytest.raises(ParameterError, match="not a function"):
        H.from_frame(bad)
    bad2 = [["a", "x", "P"], ["b", "x", "Q"]]   # x has two parents at level 2
    with pytest.raises(ParameterError, match="not a function.*level 1"):
        H.from_frame(bad2)
    with pytest.raises(ParameterError, match="missing cells"):
        H.from_frame([["a", None, "*"]])


def test_intervals():
    h = H.intervals([[0, 10, 20, 30, 40], [0, 20, 40]])
    assert h.height == 3
    assert h.generalize([0, 9.5, 10, 39, 40], 1).tolist() == \
        ["[0, 10)", "[0, 10)", "[10, 20)", "[30, 40]", "[30, 40]"]
    assert h.generalize([0, 25], 2).tolist() == ["[0, 20)", "[20, 40]"]
    assert h.generalize([7], 3).tolist() == ["*"]
    with pytest.raises(ParameterError, match=r"outside.*\[0, 40\]"):
        h.generalize([41], 1, column="age")
    with pytest.raises(ParameterError, match="subset"):
        H.intervals([[0, 10, 20], [0, 15, 20]])
    with pytest.raises(ParameterError, match="increasing"):
        H.intervals([[0, 0, 1]])


def test_masking():
    h = H.masking(5)
    assert h.height == 5
    assert [h.generalize(["12345"], j).tolist()[0] for j in range(6)] == \
        ["12345", "1234*", "123**", "12***", "1****", "*****"]
    with pytest.raises(ParameterError, match="exactly 5 characters"):
        h.generalize(["1234"], 1, column="zip")
    with pytest.raises(ParameterError, match="width"):
        H.masking(0)


def test_dates():
    h = H.dates()
    d = pd.Series(pd.to_datetime(["2020-03-15", "2021-12-01", None]))
    assert h.height == 4
    assert h.generalize(d, 1).tolist() == ["2020-03", "2021-12", None]
    assert h.generalize(d, 2).tolist() == ["2020Q1", "2021Q4", None]
    assert h.generalize(d, 3).tolist() == ["2020", "2021", None]
    assert h.generalize(d, 4).tolist() == ["*", "*", None]
    assert H.dates(("year", "decade")).generalize(d, 2).tolist()[0] == "2020s"
    with pytest.raises(ParameterError, match="fine to coarse"):
        H.dates(("year", "month"))
    with pytest.raises(ParameterError, match="unknown date level"):
        H.dates(("week",))


def test_nested_tree_levels_pad_to_the_root():
    h = H.from_nested({"Any": {"Gov": ["Fed", "State"], "Private": None}})
    assert h.height == 2
    assert h.generalize(["Fed", "Private"], 1).tolist() == ["Gov", "Any"]
    assert h.generalize(["Fed", "Private"], 2).tolist() == ["Any", "Any"]
    # the loss metric keeps working on nested trees
    o = pd.DataFrame({"w": ["Fed"]})
    assert loss_metric(o, pd.DataFrame({"w": ["Gov"]}), hierarchies={"w": h}).total == 0.5
    with pytest.raises(MeasureError):
        h.loss("nope")


def test_level_out_of_range():
    with pytest.raises(ParameterError, match=r"level: expected an integer in \[0, 2\]"):
        H.from_frame(AGE.iloc[:, :3]).generalize(["31"], 3)


def test_code_maps_are_consistent_with_generalize():
    h = H.from_frame(AGE)
    vals = pd.Series(["42", "31", None, "57", "31"])
    codes, maps, labels = h.code_maps(vals)
    assert codes[2] == -1
    for j in range(h.height + 1):
        got = [labels[j][maps[j][c]] if c >= 0 else None for c in codes]
        assert got == [None if pd.isna(x) else x for x in h.generalize(vals, j)]


@pytest.mark.parametrize("h", [H.from_frame(AGE), H.intervals([[0, 5, 10]]), H.masking(3),
                               H.dates(("month", "year")),
                               H.from_nested({"*": {"a": ["x", "y"], "b": None}})])
def test_to_dict_round_trip(h):
    back = H.from_dict(h.to_dict())
    assert back == h and back.height == h.height and hash(back) == hash(h)


def test_generalisation_is_vectorised_over_distinct_values():
    h = H.masking(3)
    vals = np.array(["123", "124", "999"] * 20000, dtype=object)
    out = h.generalize(vals, 2)
    assert out.nunique() == 2 and len(out) == 60000
