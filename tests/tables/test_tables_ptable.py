"""Perturbation tables: the maximum-entropy construction, file layouts, checks and lookup."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.errors import DataFileError, ParameterError
from sdcsession.tables import (
    PTable,
    build_ptable,
    check_ptable,
    noise_ptable,
    ptable_frame,
    read_ptable,
)


def test_matches_the_ptable_package_vignette_d2_v1() -> None:
    """create_cnt_ptable(D = 2, V = 1) in the ptable vignette: row 1 is 0.3665, 0.3665, 0.1676,
    0.0995 (variance 0.932), row 2 keeps its count with probability 0.383 (variance 1)."""
    pt = build_ptable(D=2, V=1)
    assert pt.max_value == 2
    row1 = pt.probabilities(1)
    assert list(row1) == [-1, 0, 1, 2]
    assert np.allclose(list(row1.values()), [0.3665, 0.3665, 0.1676, 0.0995], atol=6e-5)
    assert pt.variance(1) == pytest.approx(0.932, abs=5e-4)
    row2 = pt.probabilities(2)
    assert row2[0] == pytest.approx(0.383, abs=5e-4)
    assert row2[-2] == pytest.approx(0.0638, abs=5e-5)
    assert pt.variance(2) == pytest.approx(1.0, abs=1e-7)
    assert pt.probabilities(0) == {0: 1.0}


@pytest.mark.parametrize("js", [0, 1, 2])
def test_d3_v1_has_the_requested_variance_and_deviation(js: int) -> None:
    pt = build_ptable(D=3, V=1, js=js)
    last = 3 if js == 0 else 3 + js + 1
    assert pt.max_value == last
    for i in range(pt.max_value + 1):
        pr = pt.probabilities(i)
        assert sum(pr.values()) == pytest.approx(1.0, abs=1e-9)      # rows sum to 1
        assert max(abs(v) for v in pr) <= 3                          # maximum deviation D
        assert sum(v * p for v, p in pr.items()) == pytest.approx(0, abs=1e-7)  # unbiased
        j = [i + v for v, p in pr.items() if p > 0]
        assert min(j) >= 0
        assert not any(1 <= x <= js for x in j)                      # blocked: 1..js
    for i in (last, last + 1, 1000):                                 # the symmetric rows
        assert pt.variance(i) == pytest.approx(1.0, abs=1e-7)
        assert sorted(pt.probabilities(i)) == [-3, -2, -1, 0, 1, 2, 3]
    assert check_ptable(pt).js == js


def test_rows_are_monotone_and_pstay_is_kept() -> None:
    pt = build_ptable(D=3, V=1.5, pstay=0.5)
    for i in range(1, pt.max_value + 1):
        pr = pt.probabilities(i)
        assert pr[0] == pytest.approx(0.5, abs=1e-6)
        pos = [pr[v] for v in sorted(pr) if v >= 0]
        neg = [pr[v] for v in sorted(pr, reverse=True) if v <= 0]
        assert all(a >= b - 1e-7 for a, b in zip(pos, pos[1:]))
        assert all(a >= b - 1e-7 for a, b in zip(neg, neg[1:]))


def test_blocked_small_counts_move_to_the_nearest_allowed_values() -> None:
    """D = 3, js = 2: a count of 1 can only become 0 or 3 or 4; the unbiased perturbation of
    least variance is −1 w.p. 2/3 and +2 w.p. 1/3 (variance 2, above V: no room for less)."""
    pr = build_ptable(D=3, V=1, js=2).probabilities(1)
    assert pr == pytest.approx({-1: 2 / 3, 2: 1 / 3})


@pytest.mark.parametrize("kw", [{"D": 0, "V": 1}, {"D": 2, "V": 0}, {"D": 2, "V": 5},
                                {"D": 1, "V": 1, "js": 3}, {"D": 2, "V": 1, "pstay": 1.0},
                                {"D": "3", "V": 1}, {"D": 2, "V": 1, "mono": "yes"}])
def test_impossible_parameters_are_named(kw: dict) -> None:
    with pytest.raises(ParameterError):
        build_ptable(**kw)


def test_lookup_uses_the_interval_holding_the_key() -> None:
    pt = PTable(rows=(((0,), (1.0,)), ((-1, 0, 1), (0.25, 0.75, 1.0))))
    assert pt.lookup([1, 1, 1, 1, 1], [0.0, 0.2499, 0.25, 0.7499, 0.75]).tolist() == \
        [-1, -1, 0, 0, 1]
    assert pt.lookup([0, 9], [0.9, 0.9]).tolist() == [0, 1]
    with pytest.raises(ParameterError):
        pt.lookup([1], [1.0])
    with pytest.raises(ParameterError):
        pt.lookup([-1], [0.5])


def test_rows_not_summing_to_one_are_refused() -> None:
    with pytest.raises(ParameterError, match="sum"):
        PTable(rows=(((0,), (1.0,)), ((-1, 1), (0.3, 0.9))))
    bad = pd.DataFrame({"i": [0, 1, 1], "j": [0, 0, 2], "p": [1, 0.5, 0.4], "v": [0, -1, 1]})
    with pytest.raises(ParameterError, match="sum to 0.9"):
        read_ptable(bad)


def test_check_finds_a_perturbation_into_the_blocked_range() -> None:
    pt = PTable(rows=(((0,), (1.0,)), ((0, 1), (0.5, 1.0)), ((-1, 1), (0.5, 1.0))))
    with pytest.raises(ParameterError, match=r"\[1\]"):
        check_ptable(pt, js=1)
    neg = PTable(rows=(((0,), (1.0,)), ((-2, 2), (0.5, 1.0))))
    with pytest.raises(ParameterError, match="negative"):
        check_ptable(neg)


def test_cellkey_layout_round_trip() -> None:
    pt = build_ptable(D=3, V=1, js=1)
    df = ptable_frame(pt, "cellkey")
    assert set(df.columns) >= {"i", "j", "p", "v", "p_int_lb", "p_int_ub"}
    assert (df["j"] == df["i"] + df["v"]).all()
    back = read_ptable(df)
    u = np.linspace(0, 0.999, 97)
    for i in range(0, 12):
        assert back.lookup(np.full(97, i), u).tolist() == pt.lookup(np.full(97, i), u).tolist()


def test_ons_layout_round_trip_and_file(tmp_path) -> None:
    pt = build_ptable(D=2, V=1)
    ons = ptable_frame(pt, "ons", modulus=256)
    assert len(ons) == 2 * 256 and set(ons.columns) == {"pcv", "ckey", "pvalue"}
    path = tmp_path / "pt.csv"
    ons.to_csv(path, index=False)
    back = read_ptable(path)
    assert back.cycle == 1
    k = np.arange(256)
    for i in (1, 2, 3, 50):
        assert back.lookup(np.full(256, i), k / 256).tolist() == \
            pt.lookup(np.full(256, i), k / 256).tolist()


def test_ons_cycle_reuses_rows_501_to_750() -> None:
    rows = [((0,), (1.0,))] + [(((i % 7) - 3,), (1.0,)) for i in range(1, 751)]
    pt = PTable(rows=rows, cycle=250)
    n = np.array([750, 751, 1000, 1001, 5000])
    ons_rule = ((n - 1) % 250) + 501          # the ONS package's rule for counts above 750
    assert pt.row_of(n)[1:].tolist() == ons_rule[1:].tolist()


@pytest.mark.parametrize("frame", [
    pd.DataFrame({"a": [1]}),
    pd.DataFrame({"pcv": [1, 1], "ckey": [0, 0], "pvalue": [0, 0]}),
    pd.DataFrame({"pcv": [1, 1], "ckey": [0, 1], "pvalue": [0, None]}),
    pd.DataFrame({"i": [1], "v": [0], "p": [1.0]}),
])
def test_malformed_ptable_files_are_data_file_errors(frame: pd.DataFrame) -> None:
    with pytest.raises(DataFileError):
        read_ptable(frame)


def test_missing_file_is_named(tmp_path) -> None:
    with pytest.raises(DataFileError, match="no file"):
        read_ptable(tmp_path / "absent.csv")


def test_noise_ptable_has_the_variance() -> None:
    pt = noise_ptable(D=4, V=2, step=2)
    assert pt.variance(0) == pytest.approx(2.0, abs=1e-9)
    assert min(pt.probabilities(0)) == -4 and max(pt.probabilities(0)) == 4
    with pytest.raises(ParameterError):
        noise_ptable(D=1, V=5)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 400), st.floats(0, 0.999999))
def test_lookup_stays_in_range(n: int, u: float) -> None:
    pt = build_ptable(D=3, V=1, js=2)
    v = int(pt.lookup([n], [u])[0])
    assert -3 <= v <= 3 and n + v >= 0 and not 1 <= n + v <= 2
