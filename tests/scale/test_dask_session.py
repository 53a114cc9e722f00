"""Sessions over Dask frames: deterministic treatments and the Parquet export equal the pandas
path, PRAM and noise are reproducible for a seed and partitioning, local suppression and
microaggregation run by strata, what cannot be distributed says so, bad inputs are named."""

from __future__ import annotations

import warnings

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import MeasureError, ReleaseError, TreatmentError
from sdcsession.methods.suppression import local_suppression

KEYS = ["region", "sex", "age5"]


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    return sdc.datasets.synthetic_survey(300, seed=5)


def _pair(df, npartitions=3, **kw):
    kw = {"keys": KEYS, "numeric": ["income", "expend", "age"], "weight": "w", "seed": 11, **kw}
    return sdc.SdcSession(dd.from_pandas(df, npartitions=npartitions), **kw), \
        sdc.SdcSession(df, **kw)


def test_deterministic_steps_and_export_equal_pandas(scheduler, survey, tmp_path):
    s, p = _pair(survey)
    for sess in (s, p):
        sess.recode("region", {"R01": "R02"})
        sess.global_recode("age", breaks=[-1, 20, 40, 60, 120])
        sess.global_recode("income", breaks=4)
        sess.group_categories("age5", {"0-9": ["0-4", "5-9"]})
        sess.top_bottom_code("expend", 2000, 2000)
        sess.round_values(["expend"], base=10)
    assert s.data.compute().equals(p.data)
    for a, b in zip(s.history, p.history):
        assert a.notes == b.notes
    assert s.roles == p.roles
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = s.export(tmp_path / "release", force=True)
    back = pd.read_parquet(path)
    assert back.equals(p.data_for_release().reset_index(drop=True))
    assert s.risk.k_violations(3) == p.risk.k_violations(3)


def test_history_undo_branch_recipe(scheduler, survey):
    s, _ = _pair(survey)
    before = s.data.compute()
    s.recode("sex", {"m": "f"})
    alt = s.branch("alt")
    alt.undo()
    assert alt.data.compute().equals(before)
    assert (s.data.compute()["sex"] == "f").all()
    s.pram(["water"], pd=0.7, alpha=1.0)
    replay = sdc.SdcSession.from_recipe(s.original, s.to_recipe())
    assert replay.data.compute().equals(s.data.compute())
    assert s.undo(2).data.compute().equals(before)


def test_pram_reproducible_for_seed_and_partitioning(scheduler, survey):
    ddf3 = dd.from_pandas(survey, npartitions=3)
    runs = [sdc.SdcSession(ddf3, keys=KEYS, seed=4).pram(["water", "tenure"], pd=0.6, alpha=1)
            for _ in range(2)]
    a, b = (r.data.compute() for r in runs)
    assert a.equals(b)
    assert not a["water"].equals(survey["water"])
    other = sdc.SdcSession(dd.from_pandas(survey, npartitions=4), keys=KEYS, seed=4)
    other.pram(["water", "tenure"], pd=0.6, alpha=1)
    assert other.data.compute().equals(a)  # every record draws its own numbers: any partitioning
    # the transition matrices are estimated globally and the draws are those of the in-memory
    # path: the same data
    mem = sdc.SdcSession(survey, keys=KEYS, seed=4).pram(["water", "tenure"], pd=0.6, alpha=1)
    assert mem.data[["water", "tenure"]].equals(a[["water", "tenure"]])
    got, exp = runs[0].history[-1].notes, mem.history[-1].notes
    assert got["matrices"] == exp["matrices"]
    assert got["frequencies_before"] == exp["frequencies_before"]
    assert sum(got["frequencies_after"]["water"].values()) == survey["water"].notna().sum()


def test_pram_by_strata_matrices_equal_pandas(survey):
    s, p = _pair(survey)
    s.pram(["water"], pd=0.7, alpha=0.5, strata=["urbrur"])
    p.pram(["water"], pd=0.7, alpha=0.5, strata=["urbrur"])
    got, exp = s.history[-1].notes["matrices"]["water"], p.history[-1].notes["matrices"]["water"]
    assert set(got) == set(exp)
    for label in exp:
        assert np.allclose(got[label]["matrix"], exp[label]["matrix"], rtol=0, atol=1e-15)


@pytest.mark.parametrize("method", ["additive", "correlated", "correlated2"])
def test_noise_reproducible_with_global_covariance(method, survey):
    from sdcsession.methods.noise import pairwise_covariance

    def run(seed):
        s, _ = _pair(survey, seed=seed)
        return s.add_noise(["income", "expend"], method=method, noise=0.5)

    a, b = run(3), run(3)
    da = a.data.compute()
    assert da.equals(b.data.compute())
    assert not da["income"].equals(survey["income"])
    x = survey[["income", "expend"]].to_numpy(dtype=float)
    cov, _ = pairwise_covariance(x)
    sd = np.sqrt(np.diag(cov))
    spec = a.history[-1].notes["sd_spec"]
    if method != "correlated2":
        assert spec["income"] == pytest.approx(0.5 * sd[0], rel=1e-10)
    assert a.history[-1].notes["changed"]["income"] == int(survey["income"].notna().sum())


def test_local_suppression_by_strata_equals_pandas_per_stratum(scheduler, survey):
    s, _ = _pair(survey, strata=["urbrur"])
    s.local_suppression(k=3, importance=["region", "sex", "age5"])
    got = s.data.compute()
    for _, g in survey.groupby("urbrur", observed=True):
        exp, _ = local_suppression(g, KEYS, k=3, importance=["region", "sex", "age5"])
        pd.testing.assert_frame_equal(got.loc[g.index, KEYS], exp[KEYS])
    assert s.history[-1].notes["total"] == int(got[KEYS].isna().sum().sum()
                                                - survey[KEYS].isna().sum().sum())
    assert s.risk.k_violations(3) == 0 or s.history[-1].notes["total"] > 0


def test_microaggregation_by_strata_equals_pandas_with_strata(survey):
    # each stratum one task, standardised with the whole file's means and deviations (exact
    # sums): the in-memory microaggregation with strata, bit for bit
    s, p = _pair(survey)
    s.microaggregation(["income", "expend"], k=3, strata=["urbrur"])
    p.microaggregation(["income", "expend"], k=3, strata=["urbrur"])
    pd.testing.assert_frame_equal(s.data.compute()[["income", "expend"]],
                                  p.data[["income", "expend"]])
    s2, _ = _pair(survey)
    with pytest.raises(TreatmentError, match="larger than stratum"):
        s2.microaggregation(["income"], k=3, strata=["hid"])  # households of fewer than 3
    assert s2.head.depth == 0


def test_not_distributable_raises_and_head_stays(survey):
    s, _ = _pair(survey)
    head = s.head
    with pytest.raises(TreatmentError, match="cannot be distributed.*strata"):
        s.microaggregation(["income", "expend"], k=3)
    with pytest.raises(TreatmentError, match="whole-file local suppression.*strata"):
        s.local_suppression(k=3)
    with pytest.raises(TreatmentError, match="cannot be distributed"):
        s.rank_swap(["income"], p=5)
    with pytest.raises(TreatmentError, match="cannot be distributed"):
        s.add_noise(["income"], method="romm", noise=0.5)
    with pytest.raises(TreatmentError, match="quantile"):
        s.global_recode("age", method="quantile", n=4)
    assert s.head is head
    with pytest.raises(MeasureError, match="not distributed"):
        s.risk.suda2()
    with pytest.raises(ReleaseError, match="untreated"):
        s.export("nowhere")


def test_strata_bad_inputs(survey, monkeypatch):
    df = survey
    # unknown divisions and a repeated index: the results return to their records by position
    unknown = dd.from_pandas(df.set_axis(np.arange(len(df)) % 7), npartitions=3, sort=False)
    s = sdc.SdcSession(unknown, keys=KEYS, strata=["urbrur"], seed=1).local_suppression(k=3)
    p = sdc.SdcSession(df, keys=KEYS, strata=["urbrur"], seed=1).local_suppression(k=3)
    assert s.data.compute().reset_index(drop=True).equals(p.data.reset_index(drop=True))
    s2, _ = _pair(df, strata=["urbrur"])
    from sdcsession.scale import by_strata

    monkeypatch.setattr(by_strata, "worker_memory_limit", lambda: 10_000.0)
    with pytest.raises(TreatmentError, match="stratum .* more than a worker's memory limit"):
        s2.local_suppression(k=3)
    assert s2.head.depth == 0


def test_from_parquet_and_utility(scheduler, survey, tmp_path):
    path = tmp_path / "census"
    dd.from_pandas(survey, npartitions=3).to_parquet(path, write_index=False)
    s = sdc.SdcSession.from_parquet(path, keys=KEYS, numeric=["income"], weight="w", seed=2)
    p = sdc.SdcSession(pd.read_parquet(path), keys=KEYS, numeric=["income"], weight="w", seed=2)
    assert np.array_equal(s.risk.Fk.compute().to_numpy(), p.risk.Fk.to_numpy())
    assert s.risk.global_risk == p.risk.global_risk  # bit for bit
    s.recode("region", {"R03": None})
    p.recode("region", {"R03": None})
    assert s.utility.suppressions_total == p.utility.suppressions_total
    s.add_noise(["income"], noise=0.2)
    x = survey["income"].to_numpy()
    y = s.data.compute()["income"].to_numpy()
    ok = ~np.isnan(x)
    il1s = np.abs(x[ok] - y[ok]).sum() / (np.sqrt(2) * np.std(x[ok], ddof=1)) / len(x)
    assert s.utility.il1s == pytest.approx(il1s, rel=1e-9)
    with pytest.raises(sdc.errors.DataFileError):
        s.export(path, force=True, overwrite=True)  # never over the source dataset


def test_microaggregation_by_strata_refuses_an_underflowing_deviation(survey):
    """The whole file's standard deviation underflows to 0 for values about 1e-300 apart: the
    distributed microaggregation refuses it before any stratum runs, as the in-memory one."""
    tiny = survey.assign(income=survey["income"] * 1e-300)
    for sess in _pair(tiny):
        with pytest.raises(TreatmentError, match="standard deviation of 0 or infinity"):
            sess.microaggregation(["income", "expend"], k=3, strata=["urbrur"])
        assert sess.head.depth == 0
