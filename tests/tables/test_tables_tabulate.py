"""Frequency and magnitude tables with the cell-key method (kernel): hand-computed cells,
margins, weights, thresholds, primary rules and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.tables import PTable, build_ptable, handoff, published, tabulate
from sdcsession.tables.rules import check_rules

#: v = -1 on [0, 0.5), +1 on [0.5, 1) for every count >= 1
PT = PTable(rows=(((0,), (1.0,)), ((-1, 1), (0.5, 1.0))), label="pm1")


def _small() -> tuple[pd.DataFrame, np.ndarray]:
    df = pd.DataFrame({"a": ["x", "x", "y", "y", "y"], "b": ["p", "q", "p", "p", "q"]})
    keys = np.array([3, 7, 5, 6, 1])
    return df, keys


def test_cell_keys_and_perturbation_by_hand() -> None:
    df, keys = _small()
    t = tabulate(df, "a", "b", keys=keys, modulus=8, ptable=PT, margins="none")
    got = {(r.a, r.b): (r.records, r.cell_key, int(r.perturbed)) for r in t.itertuples()}
    # (x,p): key 3 -> u 3/8 < .5 -> -1;  (x,q): 7 -> +1;  (y,p): 5+6=11 mod 8 = 3 -> -1;
    # (y,q): 1 -> -1
    assert got == {("x", "p"): (1, 3, 0), ("x", "q"): (1, 7, 2), ("y", "p"): (2, 3, 1),
                   ("y", "q"): (1, 1, 0)}


def test_margins_from_microdata_are_perturbed_independently() -> None:
    df, keys = _small()
    t = tabulate(df, "a", "b", keys=keys, modulus=8, ptable=PT)
    row = t[(t.a == "y") & (t.b == "Total")].iloc[0]
    assert (row.records, row.cell_key, int(row.perturbed)) == (3, 4, 4)   # 12 mod 8 = 4 -> +1
    grand = t[(t.a == "Total") & (t.b == "Total")].iloc[0]
    assert (grand.records, grand.cell_key, grand.margin) == (5, 6, 2)    # 22 mod 8
    one_way = tabulate(df, "a", keys=keys, modulus=8, ptable=PT, margins="none")
    assert int(one_way.set_index("a").loc["y", "perturbed"]) == int(row.perturbed)


def test_margins_from_cells_add_up() -> None:
    df, keys = _small()
    t = tabulate(df, "a", "b", keys=keys, modulus=8, ptable=PT, margins="cells")
    inner = t[t.margin == 0]
    assert int(t[(t.a == "y") & (t.b == "Total")].perturbed.iloc[0]) == \
        int(inner[inner.a == "y"].perturbed.sum())
    assert int(t[t.margin == 2].perturbed.iloc[0]) == int(inner.perturbed.sum())


def test_empty_cells_and_missing_categories() -> None:
    df = pd.DataFrame({"a": ["x", "y", None], "b": ["p", "p", "q"]})
    t = tabulate(df, "a", "b", keys=np.array([1, 2, 3]), modulus=8, ptable=PT, margins="none")
    assert len(t) == 6                                   # 3 categories (missing one) × 2
    zero = t[(t.a == "x") & (t.b == "q")].iloc[0]
    assert (zero.records, zero.cell_key, int(zero.perturbed)) == (0, 0, 0)
    t2 = tabulate(df, "a", "b", keys=np.array([1, 2, 3]), modulus=8, ptable=PT,
                  margins="none", empty=False)
    assert len(t2) == 3 and t2.a.isna().sum() == 1


def test_threshold_marks_and_blanks_small_counts() -> None:
    df, keys = _small()
    t = tabulate(df, "a", "b", keys=keys, modulus=8, ptable=PT, margins="none", threshold=2)
    assert t.below_threshold.tolist() == [True, False, True, True]
    assert t.perturbed.isna().tolist() == [True, False, True, True]
    assert "original" not in published(t) and "cell_key" not in published(t)


def test_weighted_counts_scale_the_perturbed_count_by_the_average_weight() -> None:
    df, keys = _small()
    df["w"] = [1.0, 2.0, 3.0, 5.0, 4.0]
    t = tabulate(df, "a", "b", keys=keys, modulus=8, ptable=PT, weights="w", margins="none")
    r = t[(t.a == "y") & (t.b == "p")].iloc[0]
    assert r.original == 8.0 and r.records_perturbed == 1
    assert float(r.perturbed) == pytest.approx((2 - 1) * 8.0 / 2)
    c = tabulate(df, "a", "b", keys=keys, modulus=8, ptable=PT, weights="w", margins="cells")
    inner = c[c.margin == 0]
    assert float(c[c.margin == 2].perturbed.iloc[0]) == pytest.approx(
        float(inner.perturbed.sum()))


def test_the_same_cell_gets_the_same_value_in_every_table() -> None:
    rng = np.random.default_rng(5)
    n = 3000
    df = pd.DataFrame({"r": rng.integers(0, 4, n), "s": rng.integers(0, 2, n),
                       "g": rng.integers(0, 6, n), "h": rng.integers(0, 3, n)})
    keys = rng.integers(0, 256, n)
    pt = build_ptable(D=3, V=1, js=2)
    two = tabulate(df, "r", "s", keys=keys, modulus=256, ptable=pt, margins="none")
    three = tabulate(df, ["r", "s"], "g", keys=keys, modulus=256, ptable=pt)
    other = tabulate(df, "s", "h", by="r", keys=keys, modulus=256, ptable=pt)
    m3 = three[(three.g == "Total") & (three.margin == 1)][["r", "s", "perturbed"]].astype({"r": int, "s": int})
    mo = other[(other.h == "Total") & (other.margin == 1)][["r", "s", "perturbed"]].astype({"r": int, "s": int})
    a = two.merge(m3, on=["r", "s"]).merge(mo, on=["r", "s"])
    assert len(a) == 8
    assert (a.perturbed_x == a.perturbed_y).all() and (a.perturbed_x == a.perturbed).all()
    # the records of the data in another order: the same table
    perm = rng.permutation(n)
    again = tabulate(df.iloc[perm], "r", "s", keys=keys[perm], modulus=256, ptable=pt,
                     margins="none")
    assert again.perturbed.tolist() == two.perturbed.tolist()


def test_magnitude_table_by_hand() -> None:
    noise = PTable(rows=[((-1.0, 1.0), (0.5, 1.0))])
    df = pd.DataFrame({"a": ["x", "x", "x", "y"], "v": [60.0, 30.0, 10.0, 0.0]})
    keys = np.array([1, 2, 1, 7])
    t = tabulate(df, "a", keys=keys, modulus=8, value="v", noise=noise, share=0.1,
                 top_k=2, epsilon=(1.0, 0.5), margins="none")
    x = t.set_index("a")
    # x: sum 100, key 4/8 -> v = +1; 100 + 0.1*60 + 0.5*0.1*30 = 107.5
    assert x.loc["x", "original"] == 100.0 and x.loc["x", "cell_key"] == 4
    assert float(x.loc["x", "perturbed"]) == pytest.approx(107.5)
    # y: only a zero value: its key leaves the zero record out, its sum stays 0
    assert x.loc["y", "cell_key"] == 0 and float(x.loc["y", "perturbed"]) == 0.0


def test_magnitude_noise_never_flips_the_sign() -> None:
    noise = PTable(rows=[((-30.0, 30.0), (0.5, 1.0))])
    df = pd.DataFrame({"a": ["x"], "v": [50.0]})
    t = tabulate(df, "a", keys=np.array([0]), modulus=8, value="v", noise=noise, share=0.1,
                 margins="none")
    assert float(t.perturbed.iloc[0]) == 0.0       # 50 − 0.1·50·30 would be −100: stops at 0


def test_primary_rules_by_hand() -> None:
    df = pd.DataFrame({"a": ["x"] * 3 + ["y"] * 4 + ["z"],
                       "v": [90.0, 6.0, 4.0, 40.0, 30.0, 20.0, 10.0, 5.0]})
    t = tabulate(df, "a", keys=np.zeros(8, dtype=np.int64), modulus=8, value="v",
                 method="none", margins="none",
                 rules={"frequency": 2, "dominance": (1, 85), "p": 10})
    f = t.set_index("a")
    assert f.frequency_rule.tolist() == [False, False, True]     # z: 1 record
    assert f.dominance.tolist() == [True, False, True]           # 90 > 85% of 100; z: 5 of 5
    # p %: x: 100 − 90 − 6 = 4 < 9 -> True; y: 100 − 40 − 30 = 30 >= 4; z: 0 < 0.5
    assert f.p_rule.tolist() == [True, False, True]
    assert f.sensitive.tolist() == [True, False, True]
    assert f.perturbed.tolist() == [100.0, 100.0, 5.0]           # method="none"
    t2 = tabulate(df, "a", keys=np.zeros(8, dtype=np.int64), modulus=8, value="v",
                  method="none", margins="none", rules={"dominance": (2, 95)})
    assert t2.dominance.tolist() == [True, False, True]          # 96 > 95; 70 < 95
    h = handoff(t, ["a"])
    assert h.columns.tolist() == ["a", "freq", "value", "status"]
    assert h.status.tolist() == ["u", "s", "u"]


def test_dominance_on_margins_uses_the_margin_top_contributors() -> None:
    df = pd.DataFrame({"a": ["x", "x", "y"], "b": ["p", "q", "p"], "v": [10.0, 80.0, 10.0]})
    t = tabulate(df, "a", "b", keys=np.zeros(3, dtype=np.int64), modulus=8, value="v",
                 method="none", rules={"dominance": (1, 75)})
    grand = t[t.margin == 2].iloc[0]
    assert grand.original == 100.0 and bool(grand.dominance)     # 80 > 75 of 100
    col_p = t[(t.a == "Total") & (t.b == "p")].iloc[0]
    assert not col_p.dominance                                    # 10 of 20


@pytest.mark.parametrize("rules", [{"frequency": 0}, {"dominance": (0, 80)},
                                   {"dominance": (1, 120)}, {"p": -5}, {"p": 0},
                                   {"nk": 3}, {"dominance": 3}, [("p", 10)]])
def test_impossible_rule_parameters_are_named(rules) -> None:
    with pytest.raises(ParameterError):
        check_rules(rules)


def test_rules_needing_values_on_a_count_table_and_negative_values() -> None:
    df, keys = _small()
    with pytest.raises(ParameterError, match="value"):
        tabulate(df, "a", keys=keys, modulus=8, rules={"p": 10})
    df["v"] = [1.0, -2.0, 3.0, 4.0, 5.0]
    with pytest.raises(MeasureError, match="negative"):
        tabulate(df, "a", keys=keys, modulus=8, value="v", rules={"dominance": (1, 80)})


@pytest.mark.parametrize("kw, match", [
    ({"rows": "nope"}, "unknown"),
    ({"rows": "a", "columns": "a"}, "twice"),
    ({"rows": "a", "margins": "both"}, "margins"),
    ({"rows": "a", "threshold": -1}, "threshold"),
    ({"rows": "a", "ptable": "D3"}, "ptable"),
    ({"rows": "a", "keys": np.array([1, 2, 3, 4, 99])}, "keys"),
    ({"rows": "a", "keys": np.array([1.5, 2, 3, 4, 5])}, "keys"),
    ({"rows": "a", "total": "x"}, "total"),
    ({"rows": "a", "value": "b"}, "numeric"),
    ({"rows": "a", "empty": "no"}, "empty"),
])
def test_bad_input_is_a_parameter_error(kw, match) -> None:
    df, keys = _small()
    args = {"keys": keys, "modulus": 8, "ptable": PT, **kw}
    rows = args.pop("rows")
    with pytest.raises((ParameterError, MeasureError), match=match):
        tabulate(df, rows, **args)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 255)),
                min_size=1, max_size=60))
def test_margins_are_the_lower_tables_and_cells_margins_add_up(records) -> None:
    df = pd.DataFrame(records, columns=["a", "b", "k"])
    keys = df["k"].to_numpy()
    pt = build_ptable(D=3, V=1, js=2)
    two = tabulate(df, "a", "b", keys=keys, modulus=256, ptable=pt)
    one = tabulate(df, "a", keys=keys, modulus=256, ptable=pt, margins="none")
    marg = two[(two.b == "Total") & (two.margin == 1)]
    assert marg.perturbed.tolist() == one.perturbed.tolist()
    assert marg.cell_key.tolist() == one.cell_key.tolist()
    assert int(two[two.margin == 2].records.iloc[0]) == len(df)
    assert int(two[two.margin == 2].cell_key.iloc[0]) == int(keys.sum() % 256)
    assert (two.perturbed.astype(int) >= 0).all()
    assert not ((two.perturbed.astype(int) >= 1) & (two.perturbed.astype(int) <= 2)).any()
    added = tabulate(df, "a", "b", keys=keys, modulus=256, ptable=pt, margins="cells")
    inner = added[added.margin == 0]
    assert int(added[added.margin == 2].perturbed.iloc[0]) == int(inner.perturbed.sum())
