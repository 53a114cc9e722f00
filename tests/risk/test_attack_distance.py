"""TCAP and DCR/NNDR against brute-force references written independently from the definitions
(loops over records), on mixed data with missing values; bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk.attacks import dcr, tcap


def _same(a, b) -> bool:
    return (pd.isna(a) and pd.isna(b)) or a == b


def _brute_tcap(o: pd.DataFrame, r: pd.DataFrame, keys: list[str], target: str):
    orec = o[keys + [target]].astype(object).to_numpy().tolist()
    rrec = r[keys + [target]].astype(object).to_numpy().tolist()
    caps, unmatched = [], 0
    for x in rrec:
        same_key = [y for y in rrec if all(_same(a, b) for a, b in zip(x[:-1], y[:-1]))]
        if not all(_same(y[-1], x[-1]) for y in same_key):
            continue  # WEAP < 1: not targeted
        in_o = [y for y in orec if all(_same(a, b) for a, b in zip(x[:-1], y[:-1]))]
        if not in_o:
            unmatched += 1
            continue
        caps.append(sum(_same(y[-1], x[-1]) for y in in_o) / len(in_o))
    values = [y[-1] for y in orec]
    base = 0.0
    distinct = []
    for v in values:
        if not any(_same(v, d) for d in distinct):
            distinct.append(v)
    for d in distinct:
        p = sum(_same(v, d) for v in values) / len(values)
        base += p * p
    dc = []
    for x in orec:
        in_r = [y for y in rrec if all(_same(a, b) for a, b in zip(x[:-1], y[:-1]))]
        if in_r:
            dc.append(sum(_same(y[-1], x[-1]) for y in in_r) / len(in_r))
    return (np.mean(caps) if caps else np.nan, base, len(caps), unmatched,
            np.mean(dc) if dc else np.nan)


def _mixed(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"k1": rng.choice(["a", "b", "c"], n), "k2": rng.integers(0, 3, n),
                       "t": rng.choice(["u", "v", "w"], n),
                       "x": rng.normal(size=n).round(2), "y": rng.integers(0, 50, n) * 1.0})
    for c, p in (("k1", 0.1), ("t", 0.1), ("x", 0.1), ("y", 0.05)):
        df.loc[rng.random(n) < p, c] = None
    return df


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 60), m=st.integers(1, 60))
def test_tcap_equals_brute_force(seed: int, n: int, m: int) -> None:
    o = _mixed(n, seed)
    r = _mixed(m, seed + 1)
    if o["t"].nunique(dropna=False) < 2:
        with pytest.raises(MeasureError, match="constant"):
            tcap(o, r, keys=["k1", "k2"], target="t")
        return
    got = tcap(o, r, keys=["k1", "k2"], target="t")
    want = _brute_tcap(o, r, ["k1", "k2"], "t")
    np.testing.assert_allclose([got.tcap, got.baseline, got.n_targeted, got.n_unmatched,
                                got.dcap], want, rtol=1e-12, equal_nan=True)


def test_tcap_by_hand() -> None:
    o = pd.DataFrame({"sex": ["m", "m", "f", "f"], "ill": ["y", "n", "y", "y"]})
    r = tcap(o, o.iloc[[0, 2, 3]], keys=["sex"], target="ill")
    assert r.tcap == pytest.approx((0.5 + 1 + 1) / 3) and r.baseline == 10 / 16
    assert r.n_targeted == 3 and r.dcap == pytest.approx((1 + 0 + 1 + 1) / 4)


def _gower(a: list, b: list, numeric: list[bool], ranges: list[float]) -> float:
    total = 0.0
    for x, y, num, rg in zip(a, b, numeric, ranges):
        if pd.isna(x) and pd.isna(y):
            d = 0.0
        elif pd.isna(x) or pd.isna(y):
            d = 1.0
        elif num:
            d = abs(x - y) / rg
        else:
            d = 0.0 if x == y else 1.0
        total += d
    return total / len(a)


def _brute_dcr(o: pd.DataFrame, r: pd.DataFrame, h: pd.DataFrame | None):
    cols = list(o.columns)
    numeric = [pd.api.types.is_float_dtype(o[c]) or pd.api.types.is_integer_dtype(o[c])
               for c in cols]
    frames = [o, r] + ([h] if h is not None else [])
    ranges = []
    for c, num in zip(cols, numeric):
        if not num:
            ranges.append(1.0)
            continue
        v = pd.concat([f[c] for f in frames]).dropna()
        rg = v.max() - v.min() if len(v) else 0.0
        ranges.append(rg if rg > 0 else 1.0)
    orec, rrec = o.astype(object).to_numpy().tolist(), r.astype(object).to_numpy().tolist()
    d1, nndr, dh = [], [], []
    for x in rrec:
        ds = sorted(_gower(x, y, numeric, ranges) for y in orec)
        d1.append(ds[0])
        if len(ds) > 1:
            nndr.append(1.0 if ds[1] == 0 else ds[0] / ds[1])
        else:
            nndr.append(np.nan)
        if h is not None:
            dh.append(min(_gower(x, y, numeric, ranges) for y in h.astype(object).to_numpy()))
    return np.array(d1), np.array(nndr), np.array(dh)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 40), m=st.integers(1, 40),
       numeric_only=st.booleans(), with_holdout=st.booleans())
def test_dcr_equals_brute_force(seed: int, n: int, m: int, numeric_only: bool,
                                with_holdout: bool) -> None:
    o, r, h = _mixed(n, seed), _mixed(m, seed + 1), _mixed(15, seed + 2)
    if numeric_only:  # the k-d tree path: numbers only, nothing missing
        o, r, h = (f[["x", "y"]].fillna(0.5) for f in (o, r, h))
    h = h if with_holdout else None
    got = dcr(o, r, h)
    d1, nndr, dh = _brute_dcr(o, r, h)
    np.testing.assert_allclose(got.dcr.to_numpy(), d1, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got.nndr.to_numpy(), nndr, rtol=1e-9, atol=1e-12, equal_nan=True)
    assert got.exact_matches == int((d1 == 0).sum())
    if h is not None:
        np.testing.assert_allclose(got.dcr_holdout.to_numpy(), dh, rtol=1e-12, atol=1e-14)
        share = np.mean((d1 < dh) + 0.5 * (d1 == dh))
        assert got.share_closer_to_original == pytest.approx(share)
        assert got.expected_share == n / (n + 15)


def test_dcr_by_hand() -> None:
    o = pd.DataFrame({"age": [20.0, 40.0, 60.0], "sex": ["m", "f", "m"]})
    r = dcr(o, pd.DataFrame({"age": [20.0, 50.0], "sex": ["m", "f"]}))
    assert r.dcr.tolist() == [0.0, 0.125] and r.nndr.tolist() == [0.0, 0.2]


def test_bad_input() -> None:
    o = _mixed(30, 1)
    with pytest.raises(MeasureError, match="mismatched columns"):
        dcr(o, o.drop(columns=["x"]))
    with pytest.raises(MeasureError, match="mismatched columns"):
        tcap(o, o.drop(columns=["t"]), keys=["k1"], target="t")
    with pytest.raises(MeasureError, match="constant"):
        tcap(o.assign(t="u"), o, keys=["k1"], target="t")
    with pytest.raises(ParameterError, match="target"):
        tcap(o, o, keys=["k1", "t"], target="t")
