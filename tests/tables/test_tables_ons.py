"""Cell by cell against the ONS ``cell-key-perturbation`` package (3.1.0) with its shipped
``ptable_10_5_rule.csv`` and the same record keys: 1-, 2- and 3-way tables, with and without a
geography; and a hand-computed case of its documented algorithm that runs without it."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pandas as pd
import pytest

from sdcsession.errors import ParameterError
from sdcsession.tables import check_ptable, read_ptable, tabulate


def _ons_ptable_path():
    import importlib.metadata as md

    try:
        files = md.files("cell-key-perturbation") or []
    except md.PackageNotFoundError:
        return None
    for f in files:
        if f.name == "ptable_10_5_rule.csv":
            return f.locate()
    return None


def _rule_10_5(pcv: int) -> int:
    """The 10-5 rule of the ONS package's documentation: counts below 10 go to 0, others are
    rounded to a multiple of 5 (…1 → −1, …2 → −2, …3 → +2, …4 → +1)."""
    if pcv < 10:
        return -pcv
    return {0: 0, 1: -1, 2: -2, 3: 2, 4: 1}[pcv % 5]


def _ptable_10_5() -> pd.DataFrame:
    pcv = np.repeat(np.arange(1, 751), 256)
    return pd.DataFrame({"pcv": pcv, "ckey": np.tile(np.arange(256), 750),
                         "pvalue": [_rule_10_5(int(p)) for p in pcv]})


def test_the_10_5_table_blocks_counts_1_to_9() -> None:
    pt = read_ptable(_ptable_10_5())
    assert pt.label == "ONS layout" and pt.cycle == 250
    assert check_ptable(pt, js=9) is pt
    with pytest.raises(ParameterError, match=r"\[10\]"):
        check_ptable(pt, js=10)                  # 11 -> 10, 12 -> 10: counts of 10 occur


def test_hand_computed_10_5_rule() -> None:
    """Counts 3, 12, 23 and 1003 (row ((1003 − 1) mod 250) + 501 = 753 − 250 = 503, pvalue of
    503 = +2) with threshold 10: −, 10, 25, 1005."""
    pt = read_ptable(_ptable_10_5())
    df = pd.DataFrame({"g": ["a"] * 3 + ["b"] * 12 + ["c"] * 23 + ["d"] * 1003})
    keys = np.arange(len(df)) % 256
    t = tabulate(df, "g", keys=keys, modulus=256, ptable=pt, threshold=10, margins="none")
    assert t.perturbed.astype("Float64").tolist()[1:] == [10, 25, 1005]
    assert t.perturbed.isna().tolist() == [True, False, False, False]
    assert t.original.tolist() == [3, 12, 23, 1003]


@pytest.fixture(scope="module")
def ons():
    pytest.importorskip("cell_key_perturbation")
    from cell_key_perturbation.create_perturbed_table import create_perturbed_table
    from cell_key_perturbation.utils.generate_test_data import generate_test_data

    path = _ons_ptable_path()
    ptable = pd.read_csv(path) if path is not None else _ptable_10_5()
    micro = generate_test_data(size=30_000)
    return create_perturbed_table, micro, ptable


@pytest.mark.parametrize("geog, tab_vars", [
    ([], ["var1"]), ([], ["var2"]), ([], ["var5", "var8"]), ([], ["var1", "var5", "var9"]),
    (["var1"], ["var3"]), (["var1"], ["var5", "var8"]), (["var10"], ["var5", "var8"]),
    (["var10"], ["var4", "var5", "var9"]),
])
def test_equals_the_ons_package_cell_by_cell(ons, geog, tab_vars) -> None:
    create_perturbed_table, micro, ptable = ons
    with contextlib.redirect_stdout(io.StringIO()):
        theirs = create_perturbed_table(micro, ptable, geog, tab_vars, "record_key")
    ours = tabulate(micro, tab_vars, by=geog, keys="record_key", modulus=256,
                    ptable=read_ptable(ptable), threshold=10, margins="none")
    m = theirs.merge(ours, on=geog + tab_vars, how="outer", indicator=True)
    assert (m["_merge"] == "both").all() and len(m) == len(theirs) == len(ours)
    assert (m["pre_sdc_count"] == m["original"]).all()
    assert (m["ckey"] == m["cell_key"]).all()
    assert m["count"].isna().tolist() == m["perturbed"].isna().tolist()
    assert (m["count"].dropna().astype(int) == m["perturbed"].dropna().astype(int)).all()
    if tab_vars == ["var2"]:
        assert m["pre_sdc_count"].min() > 750          # the rows beyond 750 are exercised
