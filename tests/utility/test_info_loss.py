"""info_loss: cell counts, metrics, quantiles, margins, false zeros, Hellinger distance —
hand-computed on tiny tables; clear errors for mismatched frames and columns."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import sdcsession.utility as u
from sdcsession.errors import MeasureError, ParameterError, RoleError

ORIG = pd.DataFrame({"reg": ["a", "a", "a", "b", "b", "c"],
                  "sex": ["m", "f", "m", "f", "m", "f"],
                  "hid": [1, 1, 2, 3, 3, 4]})
# household 2 ("a", m) moved to "c"; household 4 ("c", f) moved to "a"
SWAP = ORIG.assign(reg=["a", "a", "c", "b", "b", "a"])


def cell(t, **labels):
    c = t.cells
    mask = c["variables"] == tuple(labels)
    for k, v in labels.items():
        mask &= c[k] == v
    row = c[mask]
    assert len(row) == 1, labels
    return row.iloc[0]


def test_inner_cells_metrics_and_hellinger_by_hand():
    t = u.info_loss(ORIG, SWAP, [["reg", "sex"]], margins=False).tables[0]
    # original: a-m 2, a-f 1, b-f 1, b-m 1, c-f 1 ; swapped: a-m 1, a-f 2, b-f 1, b-m 1, c-m 1
    got = {(r.reg, r.sex): (r.count_o, r.count_s) for r in t.cells.itertuples()}
    assert got == {("a", "m"): (2, 1), ("a", "f"): (1, 2), ("b", "f"): (1, 1),
                   ("b", "m"): (1, 1), ("c", "f"): (1, 0), ("c", "m"): (0, 1)}
    am = cell(t, reg="a", sex="m")
    assert am["abs"] == 1 and am["rel_abs"] == 0.5
    assert am["abs_sqrt"] == pytest.approx(math.sqrt(2) - 1)
    cm = cell(t, reg="c", sex="m")
    assert cm["rel_abs"] == 0.0  # original count 0: sdcMicro sets the relative deviation to 0
    assert t.false_zero == 1 and t.false_nonzero == 1
    hd = math.sqrt(0.5 * (2 * (math.sqrt(2) - 1) ** 2 + 1 + 1))
    assert t.hellinger == pytest.approx(hd, rel=1e-12)
    # measures: quantiles of abs over the 6 cells [1, 1, 0, 0, 1, 1] (type 7) and the mean
    m = t.measures
    assert list(m.index[:6]) == ["Min", "10%", "20%", "30%", "40%", "Mean"]
    assert list(m.index[6:]) == ["Median", "60%", "70%", "80%", "90%", "95%", "99%", "Max"]
    assert m.loc["Mean", "abs"] == pytest.approx(4 / 6)
    assert m.loc["Min", "abs"] == 0 and m.loc["Max", "abs"] == 1
    assert m.loc["30%", "abs"] == pytest.approx(0.5)  # h = 0.3·5 = 1.5 between 0 and 1
    assert m.loc["Median", "abs"] == 1.0
    rel = np.array([0.5, 1.0, 0, 0, 1.0, 0])
    assert m.loc["Mean", "rel_abs"] == pytest.approx(rel.mean())
    ov = t.overview
    assert ov.set_index("noise")["cnt"].to_dict() == {-1: 2, 0: 2, 1: 2}


def test_margins_are_counted_like_sdcmicro():
    t = u.info_loss(ORIG, SWAP, [["reg", "sex"]]).tables[0]
    assert len(t.cells) == 6 + 3 + 2  # inner cells, reg margin, sex margin
    a = cell(t, reg="a")
    assert (a["count_o"], a["count_s"]) == (3, 3)
    c = cell(t, reg="c")
    assert (c["count_o"], c["count_s"]) == (1, 1)
    f = cell(t, sex="f")
    assert (f["count_o"], f["count_s"]) == (3, 3)
    # the Hellinger distance is on the inner cells only
    inner = u.info_loss(ORIG, SWAP, [["reg", "sex"]], margins=False).tables[0]
    assert t.hellinger == inner.hellinger
    cum = t.cumulative["rel_abs"]
    assert cum["cat"].iloc[0] == "[0,0.02]" and cum["cnt"].iloc[-1] == len(t.cells)
    assert cum["cnt"].iloc[0] == int((t.cells["rel_abs"] <= 0.02).sum())


def test_several_tables_summary_households_and_metric_choice():
    r = u.info_loss(ORIG, SWAP, [["reg"], ["sex"], ["reg", "sex"]], metric="abs")
    assert r.summary["table"].tolist() == ["reg", "sex", "reg × sex"]
    assert r.summary["hellinger"].tolist()[:2] == [0.0, 0.0]  # margins unchanged by swapping
    assert list(r.tables[0].measures.columns) == ["abs"]
    assert "rel_abs" not in r.tables[0].cells
    hh = u.info_loss(ORIG, SWAP, [["reg"]], household="hid", margins=False).tables[0]
    got = {x.reg: (x.count_o, x.count_s) for x in hh.cells.itertuples()}
    assert got == {"a": (2, 2), "b": (1, 1), "c": (1, 1)}
    flat = u.info_loss(ORIG, SWAP, ["reg", "sex"]).tables  # a flat list is one table
    assert len(flat) == 1 and flat[0].columns == ("reg", "sex")


def test_missing_values_are_a_category_and_files_may_differ_in_length():
    s = pd.DataFrame({"reg": ["a", None, "b"]})
    t = u.info_loss(ORIG, s, [["reg"]]).tables[0]
    miss = t.cells[t.cells["reg"].isna()].iloc[0]
    assert (miss["count_o"], miss["count_s"]) == (0, 1)
    assert t.false_nonzero == 1 and t.false_zero == 1  # "c" vanished


BAD = [
    (lambda: u.info_loss(ORIG, SWAP, [["zz"]]), MeasureError, r"\['zz'\] not in the original"),
    (lambda: u.info_loss(ORIG, SWAP.drop(columns="sex"), [["sex"]]), MeasureError,
     r"\['sex'\] not in the swapped"),
    (lambda: u.info_loss(ORIG, [1, 2], [["reg"]]), MeasureError, "swapped must be a pandas"),
    (lambda: u.info_loss(ORIG.iloc[:0], SWAP, [["reg"]]), MeasureError, "original file has no records"),
    (lambda: u.info_loss(ORIG, SWAP, []), ParameterError, "at least one table"),
    (lambda: u.info_loss(ORIG, SWAP, "reg"), ParameterError, "list of column lists"),
    (lambda: u.info_loss(ORIG, SWAP, [["reg", "reg"]]), ParameterError, "more than once"),
    (lambda: u.info_loss(ORIG, SWAP, [["reg"]], metric="sq"), ParameterError, "metric must be"),
    (lambda: u.info_loss(ORIG, SWAP, [["reg"]], metric=[]), ParameterError, "metric must be"),
    (lambda: u.info_loss(ORIG, SWAP, [["reg"]], margins="no"), ParameterError, "margins"),
    (lambda: u.info_loss(ORIG, SWAP, [["reg"]], household="zz"), MeasureError, "zz"),
    (lambda: u.info_loss(ORIG.assign(reg=[[1]] * 6), SWAP, [["reg"]]), RoleError, "not numbers"),
]


@pytest.mark.parametrize(("call", "error", "match"), BAD)
def test_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call()
