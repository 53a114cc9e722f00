"""Risk on Dask frames equals the in-memory path: fk/Fk (missing keys as wildcards, alpha),
individual, global and household risk, k-violations, l-diversity — on the default scheduler and
on a LocalCluster, with keys, weights and households spread over partitions."""

from __future__ import annotations

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession import risk as R
from sdcsession import scale
from sdcsession.errors import MeasureError, RoleError
from sdcsession.scale._ordered import empty_carry, fold, local_table


def _data(n: int = 1500, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "a": rng.choice(["x", "y", "z", None], n, p=[0.4, 0.3, 0.25, 0.05]),
        "b": rng.choice([1.0, 2.0, 3.0, np.nan], n, p=[0.3, 0.3, 0.3, 0.1]),
        "c": pd.Categorical(rng.choice(["p", "q", "r"], n)),
        "hid": rng.integers(0, n // 3, n),  # households spread over every partition
        "ill": rng.choice(["u", "v", "w", None], n),
        "w": rng.uniform(0.5, 40.0, n),
    })


def test_ordered_fold_equals_bincount_bit_for_bit():
    rng = np.random.default_rng(3)
    g = rng.integers(0, 50, 5000)
    w = rng.uniform(0, 1, 5000) * 10.0 ** rng.integers(-8, 8, 5000)
    carry = empty_carry(1)
    for lo in range(0, 5000, 700):
        carry = fold(carry, local_table(g[lo:lo + 700], w[lo:lo + 700, None]))
    expect = np.bincount(g, weights=w)
    assert np.array_equal(carry[1][:, 0], expect[carry[0]])
    # partial sums added per partition would not be bit-identical in general
    partial = sum(np.bincount(g[lo:lo + 700], weights=w[lo:lo + 700], minlength=50)
                  for lo in range(0, 5000, 700))
    assert not np.array_equal(partial, expect)


@pytest.mark.parametrize("alpha", [1.0, 0.0, 0.3])
@pytest.mark.parametrize("weight", [None, "w"])
def test_frequencies_equal_pandas(scheduler, alpha, weight):
    df = _data()
    got = scale.frequencies(dd.from_pandas(df, npartitions=5), ["a", "b", "c"], weight=weight,
                            alpha=alpha, progress=False).compute()
    exp = R.frequencies(df, ["a", "b", "c"], weight=weight, alpha=alpha)
    assert list(got.dtypes) == list(exp.dtypes)
    assert np.array_equal(got["fk"].to_numpy(), exp["fk"].to_numpy())
    assert np.array_equal(got["Fk"].to_numpy(), exp["Fk"].to_numpy())  # bit for bit
    assert got.index.equals(exp.index)


def test_hand_computed_wildcards():
    df = pd.DataFrame({"sex": ["m", "m", "f", None], "w": [10.0, 20.0, 5.0, 1.0]})
    f = scale.frequencies(dd.from_pandas(df, npartitions=3), ["sex"], weight="w",
                          progress=False).compute()
    assert f["fk"].tolist() == [3, 3, 2, 4]
    assert f["Fk"].tolist() == [31.0, 31.0, 6.0, 36.0]


def test_risks_equal_pandas(scheduler):
    df = _data()
    ddf = dd.from_pandas(df, npartitions=9)  # several waves of the ordered fold
    f = scale.frequencies(ddf, ["a", "b"], weight="w", progress=False)
    r = scale.individual_risk(f)
    exp_r = R.individual_risk(df, ["a", "b"], weight="w")
    assert np.array_equal(r.compute().to_numpy(), exp_r.to_numpy())
    # exact sums rounded once: the same double as in memory (not only close)
    assert scale.global_risk(r, progress=False) == R.global_risk(exp_r)
    assert scale.expected_reidentifications(r, progress=False) == \
        R.expected_reidentifications(exp_r)
    assert R.global_risk(exp_r) == pytest.approx(exp_r.mean(), rel=1e-13)
    h = scale.household_risk(r, ddf["hid"], progress=False).compute()
    exp_h = R.household_risk(df, ["a", "b"], weight="w", household="hid")
    assert np.array_equal(h.to_numpy(), exp_h.to_numpy())
    fk = R.frequencies(df, ["a", "b"], weight="w")
    for k in (2, 3, 40):
        assert scale.k_violations(f, k, progress=False) == int((fk["fk"] < k).sum())
        assert scale.k_violations(f, k, weighted=True, progress=False) == int(
            (fk["Fk"] < k).sum())


def test_l_diversity_equals_pandas(scheduler):
    df = _data()
    got = scale.l_diversity(dd.from_pandas(df, npartitions=4), ["a", "c"], ["ill", "b"],
                            progress=False).compute()
    exp = R.l_diversity(df, ["a", "c"], ["ill", "b"])
    assert list(got.columns) == list(exp.columns)
    assert list(got.dtypes) == list(exp.dtypes)
    assert np.array_equal(got.to_numpy(), exp.to_numpy())


def test_session_risk_equals_pandas_and_is_cached(scheduler):
    from sdcsession.session.measures import COUNTS

    df = sdc.datasets.synthetic_survey(400, seed=2)
    kw = dict(keys=["region", "sex", "age5"], weight="w", household="hid", seed=1)
    s = sdc.SdcSession(dd.from_pandas(df, npartitions=3), **kw)
    p = sdc.SdcSession(df, **kw)
    assert np.array_equal(s.risk.fk.compute().to_numpy(), p.risk.fk.to_numpy())
    assert np.array_equal(s.risk.Fk.compute().to_numpy(), p.risk.Fk.to_numpy())
    assert s.risk.global_risk == p.risk.global_risk  # bit for bit
    assert s.risk.expected_reidentifications == p.risk.expected_reidentifications
    assert s.risk.household_expected_reidentifications == \
        p.risk.household_expected_reidentifications
    before = COUNTS["dask.risk_scalars"]
    for k in (2, 3, 5):
        assert s.risk.k_violations(k) == p.risk.k_violations(k)
    assert s.risk.to_dict()["k3_violations"] == p.risk.k_violations(3)
    assert COUNTS["dask.risk_scalars"] == before  # computed once per state


def test_unknown_and_mismatched_categories():
    df = pd.DataFrame({"a": pd.Categorical(["x", "y", "x", "y"])})
    ddf = dd.from_pandas(df, npartitions=2)
    unknown = ddf.assign(a=ddf["a"].cat.as_unknown())  # as read from Parquet: consistent
    assert scale.frequencies(unknown, ["a"], progress=False).compute()["fk"].tolist() == [2] * 4
    s = sdc.SdcSession(unknown, keys=["a"])
    assert s.data["a"].cat.known and s.risk.k_violations(3) == 4
    parts = [pd.DataFrame({"a": pd.Categorical(["x"], categories=["x", "y"])}),
             pd.DataFrame({"a": pd.Categorical(["y"], categories=["y", "z"])}, index=[1])]
    import dask

    mixed = dd.from_delayed([dask.delayed(p) for p in parts], meta=parts[0].iloc[:0],
                            verify_meta=False)
    with pytest.raises(RoleError, match="different categories in different partitions"):
        scale.frequencies(mixed, ["a"], progress=False)
    with pytest.raises(RoleError, match="different categories.*set_categories"):
        sdc.SdcSession(mixed, keys=["a"])


def test_bad_household_and_columns():
    df = pd.DataFrame({"a": ["x", "y", "x"], "hid": [1.0, None, 2.0]})
    ddf = dd.from_pandas(df, npartitions=2)
    r = scale.individual_risk(scale.frequencies(ddf, "a", progress=False), weighted=False)
    with pytest.raises(MeasureError, match="household.*missing"):
        scale.household_risk(r, ddf["hid"], progress=False)
    with pytest.raises(MeasureError, match="unknown column"):
        scale.frequencies(ddf, ["nope"], progress=False)
