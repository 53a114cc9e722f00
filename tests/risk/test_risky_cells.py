"""Risky cells (μ-ARGUS / sdcMicro riskyCells): hand-computed cases, groupby truth, table rules."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk import risky_cells, tables_from_levels


def _toy() -> pd.DataFrame:
    return pd.DataFrame({
        "sex": ["m", "m", "f", "f", "f", "m"],
        "reg": ["a", "a", "a", "b", None, None],
        "age": [1, 2, 1, 1, 2, 2],
    })


def test_hand_computed_cells():
    # sex: m 3, f 3; reg: a 3, b 1, NA 2; age: 1 3, 2 3
    # sex×reg: (m,a) 2, (f,a) 1, (f,b) 1, (f,NA) 1, (m,NA) 1
    out = risky_cells(_toy(), ["sex", "reg"], threshold={1: 2, 2: 1})
    assert out["table"].astype(str).tolist() == ["reg", "reg"] + ["sex × reg"] * 4
    assert out["count"].tolist() == [1, 2, 1, 1, 1, 1]
    assert out["threshold"].tolist() == [2, 2, 1, 1, 1, 1]
    assert out["dim"].tolist() == [1, 1, 2, 2, 2, 2]
    # the missing category comes last within a table; sex is not in the 1-d table of reg
    assert out["reg"].astype(object).tolist()[:2] == ["b", np.nan]
    assert out["sex"].isna().tolist()[:2] == [True, True]
    cells = list(zip(out["sex"].astype(object).iloc[2:], out["reg"].astype(object).iloc[2:]))
    assert cells[:2] == [("f", "a"), ("f", "b")]
    assert cells[2][0] == "f" and pd.isna(cells[2][1])
    assert cells[3][0] == "m" and pd.isna(cells[3][1])
    # categories list every table checked, safe ones included
    assert list(out["table"].cat.categories) == ["sex", "reg", "sex × reg"]
    per = out.groupby("table", observed=False).size().tolist()
    assert per == [0, 2, 4]


def test_by_table_matches_cells_and_sdcmicro_columns():
    df = _toy()
    tab = risky_cells(df, ["sex", "reg", "age"], threshold=[2, 1], max_dim=2, by_table=True)
    cells = risky_cells(df, ["sex", "reg", "age"], threshold=[2, 1], max_dim=2)
    assert tab["unsafe_cells"].tolist() == cells.groupby("table", observed=False).size().tolist()
    assert tab["variables"].tolist() == [("sex",), ("reg",), ("age",), ("sex", "reg"),
                                         ("sex", "age"), ("reg", "age")]
    # reg × age: (a,1) 2, (a,2) 1, (b,1) 1, (NA,2) 2 -> cells <= 1: 2
    row = tab.set_index("table").loc["reg × age"]
    assert (row["n_cells"], row["unsafe_cells"], row["unsafe_records"]) == (4, 2, 2)


@pytest.mark.parametrize("name,max_dim,thr", [("testdata", 2, 3), ("testdata_na", 3, {1: 5, 2: 3, 3: 2}),
                                              ("free1", 2, [10, 3])])
def test_counts_equal_groupby_with_missing_as_category(name, max_dim, thr):
    ref = reference()[name]
    keys = ref["keys"][:5]
    df = load(name)
    tab = risky_cells(df, keys, threshold=thr, max_dim=max_dim, by_table=True)
    cells = risky_cells(df, keys, threshold=thr, max_dim=max_dim)
    combos = [c for d in range(1, max_dim + 1) for c in itertools.combinations(keys, d)]
    assert tab["variables"].tolist() == combos
    for row, combo in zip(tab.itertuples(), combos):
        t = thr if isinstance(thr, int) else thr[len(combo)] if isinstance(thr, dict) \
            else thr[len(combo) - 1]
        counts = df.groupby(list(combo), observed=True, dropna=False).size()
        assert row.n_cells == len(counts)
        assert row.unsafe_cells == int((counts <= t).sum())
        assert row.unsafe_records == int(counts[counts <= t].sum())
        got = cells[cells["table"] == row.table]
        assert sorted(got["count"].tolist()) == sorted(counts[counts <= t].tolist())
    # every listed cell really has that count in the data
    sample = cells.sample(min(200, len(cells)), random_state=1)
    for _, c in sample.iterrows():
        combo = str(c["table"]).split(" × ")
        mask = np.ones(len(df), dtype=bool)
        for k in combo:
            v = c[k]
            col = df[k].astype(object)
            mask &= col.isna().to_numpy() if pd.isna(v) else (col == v).to_numpy()
        assert mask.sum() == c["count"]


def test_missing_values_counted_as_category_pins_testdata_na():
    df = load("testdata_na")
    out = risky_cells(df, ["walls"], threshold=100, max_dim=1)
    # walls is missing in every 53rd record from 7: 87 records, a cell of its own (count > 100? no)
    na = out[out["walls"].isna()]
    assert na["count"].tolist() == [87]


def test_tables_from_levels_dutch_rule():
    # one variable of level 1, two of level 2: "each level-1 variable with each level <= 2"
    assert tables_from_levels({"a": 1, "b": 2, "c": 2}, marginals=False) == [("a", "b"),
                                                                            ("a", "c")]
    # two of level 1 may be combined with each other (nested levels)
    lv = {"a": 1, "b": 1, "c": 2, "d": 3, "e": 0}
    assert tables_from_levels(lv, marginals=False) == [
        ("a", "b", "c"), ("a", "b", "d"), ("a", "c", "d"), ("b", "c", "d")]
    # level numbers need not be consecutive: only their order matters
    assert tables_from_levels({"a": 1, "b": 3, "c": 5}, marginals=False) == [("a", "b", "c")]
    with_marg = tables_from_levels({"a": 1, "b": 2, "c": 2})
    assert with_marg == [("a",), ("b",), ("c",), ("a", "b"), ("a", "c")]


def test_levels_route_and_sdcmicro_equivalent():
    df = _toy()
    out = risky_cells(df, ["sex", "reg", "age"], threshold=1,
                      levels={"sex": 1, "reg": 2, "age": 2}, by_table=True)
    assert out["table"].astype(str).tolist() == ["sex", "reg", "age", "sex × reg", "sex × age"]
    # sdcMicro's useIdentificationLevel=TRUE: all tables up to the number of distinct levels
    sdc = risky_cells(df, ["sex", "reg", "age"], threshold=1, max_dim=2, by_table=True)
    assert len(sdc) == 6


def test_explicit_combinations():
    out = risky_cells(_toy(), ["sex", "reg", "age"], threshold=1,
                      combinations=[["reg", "sex"], ("age",), ["sex", "reg"]], by_table=True)
    assert out["table"].astype(str).tolist() == ["sex × reg", "age"]
    assert out["unsafe_cells"].tolist() == [4, 0]


def test_bad_input():
    df = _toy()
    with pytest.raises(ParameterError, match="one of max_dim, combinations, levels"):
        risky_cells(df, ["sex"], max_dim=1, levels={"sex": 1})
    with pytest.raises(ParameterError, match="dimension 2"):
        risky_cells(df, ["sex", "reg"], threshold={1: 3})
    with pytest.raises(ParameterError, match="max_dim"):
        risky_cells(df, ["sex", "reg"], max_dim=3)
    with pytest.raises(ParameterError, match="threshold"):
        risky_cells(df, ["sex"], threshold=0, max_dim=1)
    with pytest.raises(ParameterError, match="threshold"):
        risky_cells(df, ["sex"], threshold="3", max_dim=1)
    with pytest.raises(ParameterError, match="levels"):
        risky_cells(df, ["sex", "reg"], levels={"sex": 1})
    with pytest.raises(ParameterError, match="levels"):
        risky_cells(df, ["sex", "reg"], levels={"sex": 1, "reg": 7})
    with pytest.raises(ParameterError, match="every level is 0"):
        risky_cells(df, ["sex", "reg"], levels={"sex": 0, "reg": 0})
    with pytest.raises(ParameterError, match="not key variables"):
        risky_cells(df, ["sex", "reg"], combinations=[["sex", "age"]])
    with pytest.raises(MeasureError, match="'zz'"):
        risky_cells(df, ["sex", "zz"])
    with pytest.raises(MeasureError):
        risky_cells(df.iloc[:0], ["sex"])


def test_mixed_type_values_still_work():
    df = pd.DataFrame({"a": [1, "x", 1, None], "b": [True, False, True, True]})
    out = risky_cells(df, ["a", "b"], threshold=1, max_dim=1)
    assert sorted(out["count"].tolist()) == [1, 1, 1]
