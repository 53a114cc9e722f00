"""record_swap with a user-supplied risk (sdcMicro ``risk``/``risk_threshold``) and
``return_swapped_id``."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError, SdcError, SdcWarning
from sdcsession.methods.swapping.record_swapping import check_risk, record_swap


def _data(n_h: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    reg = rng.integers(0, 3, n_h)
    df = pd.DataFrame({"hid": np.repeat(np.arange(n_h), 2), "reg": np.repeat(reg, 2),
                       "hs": np.repeat(rng.integers(1, 3, n_h), 2)})
    df["mun"] = df["reg"] * 10 + np.repeat(rng.integers(0, 4, n_h), 2)
    return df


def _household_risk(df: pd.DataFrame, risk: np.ndarray) -> np.ndarray:
    hr = np.zeros((df["hid"].nunique(), risk.shape[1]))
    np.maximum.at(hr, df["hid"].to_numpy(), risk)
    return hr


def test_risk_matrix_swaps_every_household_over_the_threshold_and_no_other_with_swaprate_0():
    df = _data()
    rng = np.random.default_rng(3)
    risk = np.full((len(df), 2), 0.0001)
    risk.flat[rng.choice(risk.size, 30, replace=False)] = 99.0  # as sdcMicro's test
    with pytest.warns(SdcWarning, match="largest risk"):
        out, notes = record_swap(df, household="hid", hierarchy=["reg", "mun"], similar="hs",
                                 swaprate=0, risk=risk, risk_threshold=0.9,
                                 return_swapped_id=True, rng=np.random.default_rng(1))
    hr = _household_risk(df, risk)
    at_risk = (hr > 0.9).any(axis=1)
    assert notes["selected_at_risk"] == at_risk.sum()
    # households at risk at the coarsest level: the first level whose risk exceeds 0.9
    first = np.where(at_risk, (hr > 0.9).argmax(axis=1), -1)
    assert notes["selected_at_risk_by_level"] == {"reg": int((first == 0).sum()),
                                                 "mun": int((first == 1).sum())}
    partner = out.groupby("hid")["hid_swapped"].first().to_numpy()
    swapped = partner != np.arange(len(partner))
    assert swapped[at_risk].all()
    # swaprate 0: only the households at risk and their donors move
    assert swapped.sum() == 2 * at_risk.sum() == notes["swapped_households"]
    # a household swapped at level "reg" went to another region
    reg0 = df.groupby("hid")["reg"].first().to_numpy()
    moved_reg = np.flatnonzero(first == 0)
    assert (reg0[moved_reg] != reg0[partner[moved_reg]]).all()


def test_swapped_id_names_the_household_whose_geography_was_received():
    df = _data(seed=2)
    out, _ = record_swap(df, household="hid", hierarchy=["reg", "mun"], similar="hs",
                         swaprate=0.2, k_anonymity=0, return_swapped_id=True,
                         rng=np.random.default_rng(5))
    geo = df.groupby("hid")[["reg", "mun"]].first()
    got = geo.loc[out["hid_swapped"]].to_numpy()
    assert (out[["reg", "mun"]].to_numpy() == got).all()
    assert (out["hid_swapped"] != out["hid"]).any()
    # everything but the geography (and the new column) is unchanged, rows in place
    pd.testing.assert_frame_equal(out.drop(columns=["reg", "mun", "hid_swapped"]),
                                  df.drop(columns=["reg", "mun"]))
    n_sw = out.loc[out["hid"] != out["hid_swapped"], "hid"].nunique()
    assert n_sw == round(0.2 * df["hid"].nunique())  # sdcMicro: swaprate * households


def test_zero_risk_households_are_never_drawn():
    df = _data(seed=4)
    hr_fine = np.where(df["hid"].to_numpy() % 2 == 0, 0.0, 0.1)
    risk = np.column_stack([np.zeros(len(df)), hr_fine])
    out, notes = record_swap(df, household="hid", hierarchy=["reg", "mun"], similar="hs",
                             swaprate=0.2, risk=risk, risk_threshold=0.5,
                             return_swapped_id=True, rng=np.random.default_rng(0))
    assert notes["selected_at_risk"] == 0
    assert notes["selected_random"] > 0
    # initiators drawn at random all have risk > 0: each swap pairs a drawn household and a
    # donor; at least one side of every swap has odd id
    sw = out.groupby("hid")["hid_swapped"].first()
    pairs = sw[sw != sw.index]
    assert ((pairs.index % 2 == 1) | (pairs.to_numpy() % 2 == 1)).all()


def test_default_threshold_is_one_over_k():
    df = _data(seed=6)
    risk = np.zeros((len(df), 2))
    risk[df["hid"].to_numpy() < 5, 1] = 0.4  # > 1/3: at risk at the finest level
    risk[(df["hid"].to_numpy() >= 5) & (df["hid"].to_numpy() < 10), 1] = 0.3  # < 1/3
    _, notes = record_swap(df, household="hid", hierarchy=["reg", "mun"], similar="hs",
                           swaprate=0, risk=risk, k_anonymity=3, rng=np.random.default_rng(0))
    assert notes["selected_at_risk"] == 5
    _, notes = record_swap(df, household="hid", hierarchy=["reg", "mun"], similar="hs",
                           swaprate=0, risk=risk, k_anonymity=0, rng=np.random.default_rng(0))
    assert notes["selected_at_risk"] == 0  # sdcMicro: threshold 2 when k_anonymity is 0


@pytest.mark.parametrize("risk, msg", [
    (np.ones((10, 3)), "shape"),
    (np.full((600, 2), -1.0), ">= 0"),
    (np.full((600, 2), np.nan), ">= 0"),
    (["reg"], "expected 2 column names"),
    (["reg", "nope"], "nope"),
    ([[1.0] * 600, [1.0] * 600], "column name"),
    (np.array([["a", "b"]] * 600), "numbers"),
])
def test_bad_risk_is_a_parameter_error(risk, msg):
    df = _data()
    with pytest.raises(SdcError, match=msg):
        record_swap(df, household="hid", hierarchy=["reg", "mun"], similar="hs", risk=risk,
                    rng=np.random.default_rng(0))


@pytest.mark.parametrize("thr", ["A", [0.5, 2], -1, float("nan")])
def test_bad_risk_threshold(thr):
    df = _data()
    with pytest.raises(ParameterError, match="risk_threshold"):
        record_swap(df, household="hid", hierarchy=["reg", "mun"], similar="hs",
                    risk=np.ones((len(df), 2)), risk_threshold=thr, rng=np.random.default_rng(0))


def test_household_risk_threshold_stays_a_probability_and_flag_is_boolean():
    df = _data()
    with pytest.raises(ParameterError, match="risk_threshold"):
        record_swap(df, household="hid", hierarchy=["reg"], similar="hs", risk_threshold=2,
                    keys=["reg"], rng=np.random.default_rng(0))
    with pytest.raises(ParameterError, match="return_swapped_id"):
        record_swap(df, household="hid", hierarchy=["reg"], similar="hs",
                    return_swapped_id="yes", rng=np.random.default_rng(0))


def test_check_risk_reads_columns():
    df = pd.DataFrame({"r1": [0.1, 0.0], "r2": [1, 2]})
    assert check_risk(["r1", "r2"], df, ("a", "b")).tolist() == [[0.1, 1.0], [0.0, 2.0]]
    assert check_risk(None, df, ("a",)) is None


def test_session_risk_columns_and_swapped_id_role():
    df = _data(seed=8)
    df["r1"] = 0.0
    df["r2"] = np.where(df["hid"] < 4, 5.0, 0.01)
    s = sdc.SdcSession(df, keys=["reg"], household="hid", seed=1)
    head = s.head
    with pytest.raises(ParameterError):
        s.record_swap(hierarchy=["reg", "mun"], similar="hs", risk=["r1"])
    assert s.head == head
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        s.record_swap(hierarchy=["reg", "mun"], similar="hs", swaprate=0.0,
                      risk=["r1", "r2"], risk_threshold=1.0, return_swapped_id=True)
    assert "hid_swapped" in s.roles.identifiers
    sw = s.data.groupby("hid")["hid_swapped"].first()
    assert (sw.loc[[0, 1, 2, 3]] != [0, 1, 2, 3]).all()
    assert (sw != sw.index).sum() == 8
    t = s.history[-1].treatment if hasattr(s.history[-1], "treatment") else None
    if t is not None:
        assert sdc.methods.Treatment.from_dict(t.to_dict()) == t
