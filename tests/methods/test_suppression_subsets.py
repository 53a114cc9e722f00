"""local_suppression(subsets=..., k per subset): guarantee, few suppressions, alpha, release check."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.methods.suppression.local import LocalSuppression, local_suppression
from sdcsession.risk import frequencies

SUBS = [["a", "b", "c"], ["c", "d", "e"], ["a", "e"]]
KS = [3, 2, 4]


def _data(seed: int, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: rng.integers(0, m, n).astype(str)
                         for c, m in zip("abcde", [3, 4, 5, 3, 6], strict=True)})


def _violations(df: pd.DataFrame, subs, ks, alpha: float = 1.0) -> list[int]:
    return [int((frequencies(df, s, alpha=alpha)["fk"].to_numpy() < k - 1e-9).sum())
            for s, k in zip(subs, ks, strict=True)]


def _sequential_total(df: pd.DataFrame, subs, ks) -> int:
    """The existing engine applied subset by subset, each on the previous result (sdcMicro's
    kAnon(combs=...) order of work)."""
    cur = df
    for s, k in zip(subs, ks, strict=True):
        cur, _ = local_suppression(cur, s, k=k)
    return int((cur.isna() & df.notna()).to_numpy().sum())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_three_subsets_each_k_anonymous_and_no_more_than_sequential(seed):
    df = _data(seed)
    assert sum(_violations(df, SUBS, KS)) > 0
    out, notes = local_suppression(df, list("abcde"), k=KS, subsets=SUBS)
    assert _violations(out, SUBS, KS) == [0, 0, 0]
    assert notes["violations_after"] == 0
    assert notes["k"] == [3.0, 2.0, 4.0] and notes["subsets"] == SUBS
    total = int((out.isna() & df.notna()).to_numpy().sum())
    assert total == notes["total"] > 0
    assert total <= _sequential_total(df, SUBS, KS)
    # keys outside every subset... none here; values are only ever set missing
    kept = out.notna().to_numpy()
    assert (out.to_numpy()[kept] == df.to_numpy()[kept]).all()


def test_one_k_for_all_subsets_and_a_key_outside_every_subset_untouched():
    df = _data(5)
    df["f"] = np.random.default_rng(0).integers(0, 50, len(df)).astype(str)
    out, notes = local_suppression(df, list("abcdef"), k=3, subsets=[["a", "b"], ["c", "d"]])
    assert _violations(out, [["a", "b"], ["c", "d"]], [3, 3]) == [0, 0]
    assert notes["suppressed"]["f"] == 0 and notes["suppressed"]["e"] == 0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 60),
       ks=st.lists(st.integers(2, 4), min_size=3, max_size=3))
def test_property_random_small_data(seed, n, ks):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({c: rng.integers(0, 3, n).astype(str) for c in "abcde"})
    # a few values missing from the start
    df = df.mask(rng.random(df.shape) < 0.05)
    out, notes = local_suppression(df, list("abcde"), k=ks, subsets=SUBS)
    assert _violations(out, SUBS, ks) == [0, 0, 0]
    assert notes["total"] <= _sequential_total(df, SUBS, ks)


def test_alpha_below_one_is_met():
    df = _data(7, 200)
    out, notes = local_suppression(df, list("abcde"), k=KS, subsets=SUBS, alpha=0.3)
    assert _violations(out, SUBS, KS, alpha=0.3) == [0, 0, 0]
    assert notes["violations_after"] == 0


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 40), alpha=st.sampled_from([0.0, 0.3, 0.7]))
def test_property_alpha_with_missing_values(seed, n, alpha):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({c: rng.integers(0, 3, n).astype(str) for c in "abcde"})
    df = df.mask(rng.random(df.shape) < 0.3)
    out, notes = local_suppression(df, list("abcde"), k=KS, subsets=SUBS, alpha=alpha)
    assert _violations(out, SUBS, KS, alpha=alpha) == [0, 0, 0]
    assert notes["violations_after"] == 0


def test_session_uses_its_alpha_and_release_check_verifies_subsets():
    df = _data(4, 250)
    s = sdc.SdcSession(df, keys=list("abcde"), seed=1, alpha=0.5)
    s.local_suppression(k=KS, subsets=SUBS)
    assert s.head.treatment.alpha == 0.5
    assert _violations(s.data, SUBS, KS, alpha=0.5) == [0, 0, 0]
    assert "k_subsets" not in set(s.release_check()["check"])


def test_release_check_verifies_the_subsets_of_the_last_step():
    df = _data(4, 250)
    s = sdc.SdcSession(df, keys=list("abcde"), seed=1)
    s.local_suppression(k=KS, subsets=SUBS)
    assert "k_subsets" not in set(s.release_check()["check"])
    # a later step that breaks a subset is reported by the release check
    head = s.head
    s.pram(["b", "c", "e"], pd=0.0, alpha=1.0, invariant=False)
    table = s.release_check()
    bad = table[table["check"] == "k_subsets"]
    viol = _violations(s.data, SUBS, KS)
    assert len(bad) == sum(v > 0 for v in viol) > 0
    assert sorted(bad["records"]) == sorted(v for v in viol if v)
    assert "local_suppression(subsets=...)" in bad["message"].iloc[0]
    assert head is not s.head


@pytest.mark.parametrize("alpha", [1.5, -0.1, "1", None, True])
def test_bad_alpha_named(alpha):
    with pytest.raises(ParameterError, match="alpha"):
        LocalSuppression(k=3, subsets=[["a", "b"]], alpha=alpha)


@pytest.mark.parametrize("kw, err", [
    (dict(subsets="a"), ParameterError),
    (dict(subsets=[]), ParameterError),
    (dict(subsets=[["a", "a"]]), ParameterError),
    (dict(subsets=[[]]), ParameterError),
    (dict(subsets=[["a"], [1]]), ParameterError),
    (dict(subsets=[["a", "b"]], k=[3, 2]), ParameterError),
    (dict(subsets=[["a", "b"]], k={"x": 3}), ParameterError),
    (dict(subsets=[["a", "b"]], combinations=2), ParameterError),
    (dict(subsets=[["a", "zz"]]), TreatmentError),
])
def test_bad_input_named_and_head_unchanged(kw, err):
    df = _data(1, 50)
    s = sdc.SdcSession(df, keys=list("abcde"), seed=1)
    head = s.head
    with pytest.raises(err):
        s.local_suppression(**kw)
    assert s.head is head
    with pytest.raises((ParameterError, TreatmentError)):
        kw2 = {"k": 3, **kw}
        LocalSuppression(**kw2).check(df, s.roles) if err is TreatmentError else \
            LocalSuppression(**kw2)


def test_dask_by_strata_equals_the_kernel_per_stratum():
    dd = pytest.importorskip("dask.dataframe")
    from sdcsession.roles import Roles
    from sdcsession.scale.by_strata import apply_distributed

    df = _data(11, 500)
    df["r"] = np.random.default_rng(3).choice(["x", "y"], len(df))
    t = LocalSuppression(k=KS, subsets=SUBS, strata=["r"], alpha=0.5)
    res = apply_distributed(t, dd.from_pandas(df, npartitions=2), Roles(keys=tuple("abcde")),
                            seed=1, progress=False)
    got = res.data.compute()
    # the in-memory kernel by strata on the whole file (each stratum solved on its own)
    exp, notes = local_suppression(df, list("abcde"), k=KS, subsets=SUBS, strata=["r"],
                                   alpha=0.5)
    a = got[list("abcde")].astype(object)
    b = exp[list("abcde")].astype(object)
    assert (a.isna().to_numpy() == b.isna().to_numpy()).all()
    assert (a.fillna("-").to_numpy() == b.fillna("-").to_numpy()).all()
    assert res.notes == notes
    assert _violations(got, SUBS, KS, alpha=0.5) == [0, 0, 0]
    assert res.notes["k"] == [3.0, 2.0, 4.0] and res.notes["subsets"] == SUBS
