"""Attacks with a control set (singling out, linkability, inference): the Wilson rates and the
excess risk against hand-computed values, the compiled predicate counts against a brute-force
evaluation, and the risks against anonymeter's confidence intervals on the same data, control set
and numbers of attacks (an original file and a noise-masked one)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk.attacks import (
    AttackResult,
    excess_risk,
    inference,
    linkability,
    singling_out,
    success_rate,
)
from sdcsession.risk.attacks._common import encode_frames
from sdcsession.risk.attacks._queries import (
    Table,
    multivariate_queries,
    random_queries,
    univariate_queries,
)


# ------------------------------------------------------------------------- rates and risk
def test_wilson_rate_by_hand() -> None:
    z = 1.959963984540054
    k, n = 30, 200
    rate = (k + z * z / 2) / (n + z * z)
    err = z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4)
    assert success_rate(k, n) == pytest.approx((rate, err), rel=1e-12)


def test_excess_risk_by_hand() -> None:
    risk, err = excess_risk((0.6, 0.05), (0.2, 0.04))
    assert risk == pytest.approx(0.5)
    assert err == pytest.approx(math.sqrt((0.05 / 0.8) ** 2 + (0.04 * 0.4 / 0.64) ** 2))
    assert excess_risk((0.6, 0.05), None) == (0.6, 0.05)


def test_result_is_clipped_and_nan_when_control_always_succeeds() -> None:
    r = AttackResult.from_counts("singling_out", n_attacks=100, n_success=10, n_baseline=0,
                                 n_control=40)
    assert r.risk == 0.0 and r.ci[0] == 0.0 and r.ci[1] == 0.0
    r = AttackResult.from_counts("singling_out", n_attacks=100, n_success=100, n_baseline=0,
                                 n_control=100)
    assert r.risk < 1 or math.isnan(r.risk)  # Wilson rate of 100/100 stays below 1


# ---------------------------------------------------------------- counting vs brute force
def _brute_count(x: np.ndarray, cols, ops, vals) -> np.ndarray:
    out = []
    for c, o, v in zip(cols, ops, vals):
        m = np.ones(len(x), dtype=bool)
        for j, op, val in zip(c, o, v):
            if j < 0:
                continue
            col = x[:, j]
            nan = np.isnan(col)
            with np.errstate(invalid="ignore"):
                t = {0: col == val, 1: col != val, 2: col > val, 3: col < val, 4: col >= val,
                     5: col <= val, 6: nan, 7: ~nan}[int(op)]
            if op not in (6, 7):
                t = t & ~nan
            m &= t
        out.append(int(m.sum()))
    return np.array(out)


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": rng.choice(["x", "y", "z"], n), "b": rng.integers(0, 4, n).astype(float),
        "c": rng.normal(size=n).round(1), "d": rng.choice(["p", "q"], n)})
    df.loc[rng.random(n) < 0.1, "b"] = np.nan
    df.loc[rng.random(n) < 0.05, "a"] = None
    return df


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 400))
def test_counts_equal_brute_force(seed: int, n: int) -> None:
    df = _frame(n, seed)
    (x,), numeric = encode_frames([df], list(df.columns))
    t = Table(x)
    rng = np.random.default_rng(seed)
    q, _ = multivariate_queries(t, numeric, 30, 2, 300, rng)
    base = random_queries(t, numeric, 60, 3, rng)  # ==, !=, <, >, <=, >=, null tests
    uni, _ = univariate_queries(t, numeric, 30, rng)
    for queries in (q, base, uni):
        brute = _brute_count(x, *queries)
        for cap in (2, 10**9):
            assert t.count(*queries, cap=cap).tolist() == np.minimum(brute, cap).tolist()
    assert (_brute_count(x, *q) == 1).all() and (_brute_count(x, *uni) == 1).all()


def test_wide_slices_use_the_bitsets_and_agree() -> None:
    """Many records: most queries go through the bitset path (slices wider than 6 words)."""
    df = _frame(5000, 3)
    (x,), numeric = encode_frames([df], list(df.columns))
    t = Table(x)
    base = random_queries(t, numeric, 300, 2, np.random.default_rng(1))
    assert t.count(*base, cap=10**9).tolist() == _brute_count(x, *base).tolist()


# ------------------------------------------------------------------------- behaviour
@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    df = sdc.datasets.synthetic_survey(2200, seed=3).drop(columns=["hid", "pid", "w"])
    return df.iloc[:2000].reset_index(drop=True)


def test_seeded_and_reproducible(survey: pd.DataFrame) -> None:
    o, c = survey.iloc[:1000], survey.iloc[1000:]
    a = singling_out(o, o, c, n_attacks=100, seed=5)
    b = singling_out(o, o, c, n_attacks=100, seed=5)
    assert a.to_dict() == b.to_dict()


def test_release_of_the_original_is_riskier_than_noise(survey: pd.DataFrame) -> None:
    o, c = survey.iloc[:1000], survey.iloc[1000:]
    m = _masked(o)
    cols = ["age", "sex", "region", "income", "expend"]
    so = singling_out(o[cols], o[cols], c[cols], n_attacks=200, seed=1)
    so_m = singling_out(o[cols], m[cols], c[cols], n_attacks=200, seed=1)
    assert so.risk > 0.9 and so_m.risk < so.risk
    inf = inference(o, o, c, aux_cols=cols, secret="educ", n_attacks=200)
    assert inf.attack_rate > 0.95 and inf.risk > 0.8


def test_bad_input(survey: pd.DataFrame) -> None:
    o, c = survey.iloc[:1000], survey.iloc[1000:]
    with pytest.raises(MeasureError, match="mismatched columns"):
        singling_out(o, o.drop(columns=["age"]), c)
    with pytest.raises(MeasureError, match="mismatched columns"):
        singling_out(o, o.assign(age=o["age"].astype(str)), c)
    with pytest.raises(MeasureError, match="control set is too small"):
        linkability(o, o, c.iloc[:5], aux_cols=(["age"], ["sex"]))
    with pytest.raises(MeasureError, match="constant"):
        inference(o.assign(k=1), o.assign(k=1), c.assign(k=1), aux_cols=["age"], secret="k")
    with pytest.raises(ParameterError, match="aux_cols"):
        linkability(o, o, c, aux_cols=(["age"], ["age"]))
    with pytest.raises(ParameterError, match="n_attacks"):
        singling_out(o, o, c, n_attacks=0)
    with pytest.raises(ParameterError, match="mode"):
        singling_out(o, o, c, mode="bivariate")
    with pytest.raises(ParameterError, match="seed"):
        singling_out(o, o, c, seed=True)


def test_too_few_queries_warns() -> None:
    """Two distinct records (duplicates count once): at most 2 predicates single out; the
    control is the original itself, so the excess risk is 0."""
    df = pd.DataFrame({"a": ["x", "y"] * 50, "b": ["u", "v"] * 50})
    with pytest.warns(sdc.SdcWarning, match="single out"):
        r = singling_out(df, df, df, n_attacks=10, n_cols=2, max_attempts=500)
    assert r.details["queries"] == r.n_success == r.n_control == 2 and r.risk == 0


# ------------------------------------------------------------------- against anonymeter
def _masked(df: pd.DataFrame) -> pd.DataFrame:
    rng = np.random.default_rng(9)
    m = df.copy()
    for c in ("income", "expend"):
        m[c] = m[c] * np.exp(rng.normal(0, 0.3, len(m)))
    m["age"] = (m["age"] + rng.integers(-3, 4, len(m))).clip(0, 99)
    return m


COLS = ["age", "sex", "region", "educ", "income", "expend"]


def _split(survey: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Original and control of 900 distinct records each: equal sizes, so that neither tool
    corrects for the size of the control set (they correct differently)."""
    d = survey[COLS].drop_duplicates()
    return d.iloc[:900], d.iloc[900:1800]


@pytest.fixture(scope="module")
def anonymeter() -> object:
    pytest.importorskip("polars")
    return pytest.importorskip("anonymeter.evaluators")


@pytest.mark.slow
@pytest.mark.parametrize("masked", [False, True])
def test_singling_out_within_anonymeter_ci(anonymeter, survey: pd.DataFrame,
                                           masked: bool) -> None:
    o, c = _split(survey)
    r = _masked(o) if masked else o
    for mode, n in (("univariate", 300), ("multivariate", 300)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = anonymeter.SinglingOutEvaluator(o, r, n_attacks=n, n_cols=3, control=c,
                                                 seed=2).evaluate(mode=mode)
            theirs = ev.risk()
        ours = singling_out(o, r, c, n_attacks=n, n_cols=3, mode=mode, seed=2)
        lo, hi = theirs.ci
        assert lo - 1e-9 <= ours.risk <= hi + 1e-9, (mode, masked, ours, theirs)


@pytest.mark.slow
@pytest.mark.parametrize("masked", [False, True])
def test_linkability_and_inference_within_anonymeter_ci(anonymeter, survey: pd.DataFrame,
                                                        masked: bool) -> None:
    o, c = _split(survey)
    r = _masked(o) if masked else o
    aux = (["age", "sex", "region"], ["educ", "income", "expend"])
    np.random.seed(4)  # anonymeter draws its targets with pandas' sample (global state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = anonymeter.LinkabilityEvaluator(o, r, aux_cols=aux, n_attacks=300,
                                                 control=c).evaluate(n_jobs=1).risk()
        ours = linkability(o, r, c, aux_cols=aux, n_attacks=300, seed=4)
        assert theirs.ci[0] - 1e-9 <= ours.risk <= theirs.ci[1] + 1e-9, (ours, theirs)
        aux_i = ["age", "sex", "region", "income"]
        theirs = anonymeter.InferenceEvaluator(o, r, aux_cols=aux_i, secret="educ",
                                               n_attacks=300, control=c
                                               ).evaluate(n_jobs=1).risk()
    ours = inference(o, r, c, aux_cols=aux_i, secret="educ", n_attacks=300, seed=4)
    assert theirs.ci[0] - 1e-9 <= ours.risk <= theirs.ci[1] + 1e-9, (ours, theirs)
