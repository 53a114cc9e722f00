"""rmd_risk's modal MCD pinned: the chosen h-subset and every figure on generated data, computed
with the implementation that ran all ``runs`` searches in full (each through ``mcd``) before the
shortcuts (one reweighting, C-steps shared between runs, early stop), and the shortcuts checked
against that definition directly."""

from __future__ import annotations

import hashlib
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from sdcsession.risk.numeric.rmd import _modal_mcd, rmd_risk
from sdcsession.risk.robust._fastmcd import fastmcd
from sdcsession.risk.robust.minimum_covariance import mcd


def _data(kind: str, n: int, p: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    if kind == "lognormal":
        x = np.exp(rng.multivariate_normal(np.zeros(p), 0.5 * np.eye(p) + 0.5, n))
    else:
        x = rng.standard_t(3, size=(n, p))
        x[: n // 10] += 6
    x = pd.DataFrame(x, columns=[f"v{j}" for j in range(p)])
    return x, x + rng.normal(size=x.shape) * 0.05 * x.std().to_numpy()


# (kind, n, p, seed): sha256 of the raw support's row numbers (first 16 hex digits), log det,
# risk1, risk2, wrisk1, wrisk2 with the defaults (runs=10, n_starts=500, seed=0)
PINNED = [
    (("lognormal", 400, 3, 1), "ae4d06d408dfa380", -10.588224857234437, 0.065, 0.0575,
     0.6667605447032617, 0.5717684202606219),
    (("lognormal", 2000, 2, 2), "a3aa42891090d51f", -7.270222886852636, 0.04, 0.015,
     0.8051536088762705, 0.22157345998782083),
    (("t", 7000, 3, 3), "43f5e62acd5b59d6", -6.86414266464857, 0.053, 0.042,
     4.029677940363285, 2.8696199944733625),
    (("lognormal", 12000, 4, 4), "fb8d3b6f70f4a605", -12.278369656647685, 0.10275,
     0.08708333333333333, 41.03217856316235, 32.910149560602775),
]


@pytest.mark.parametrize(("case", "digest", "log_det", "r1", "r2", "w1", "w2"), PINNED)
def test_rmd_default_figures_pinned(case, digest, log_det, r1, r2, w1, w2):
    x, m = _data(*case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = rmd_risk(x, m)
    support = np.flatnonzero(r.mcd.raw_support)
    assert hashlib.sha256(support.tobytes()).hexdigest()[:16] == digest
    assert r.mcd.log_det == log_det
    assert (r.risk1, r.risk2, r.wrisk1, r.wrisk2) == (r1, r2, w1, w2)


def _modal_by_definition(z, n_starts, runs, seed, factors):
    """Every run through ``mcd``; the subset of the first three runs when they agree, else the
    most frequent subset (ties: smallest det, first run)."""
    fits = [mcd(z, n_starts=n_starts, seed=seed + i, search="fastmcd", reweight=True,
                exact_fit="error", consistency=factors) for i in range(runs)]
    keys = [f.raw_support.tobytes() for f in fits]
    if len(set(keys[:3])) == 1:
        return fits[0]
    count = Counter(keys)
    return fits[max(range(runs), key=lambda i: (count[keys[i]], -fits[i].log_det))]


@pytest.mark.parametrize(("n", "p", "n_starts", "runs", "seed"),
                         [(300, 3, 6, 7, 0), (900, 2, 4, 9, 5), (6000, 2, 20, 5, 1)])
def test_modal_mcd_equals_definition(n, p, n_starts, runs, seed):
    # few starts: the runs disagree, so votes, ties and the early stop are exercised
    rng = np.random.default_rng(n + seed)
    z = rng.standard_t(2, size=(n, p))
    z = (z - z.mean(axis=0)) / z.std(axis=0, ddof=1)
    want = _modal_by_definition(z, n_starts, runs, seed, "robustbase-0.95")
    got = _modal_mcd(z, n_starts, runs, seed, "robustbase-0.95")
    assert np.array_equal(got.raw_support, want.raw_support)
    assert got.log_det == want.log_det
    for a in ("location", "scatter", "raw_location", "raw_scatter", "raw_distances", "support"):
        assert np.array_equal(getattr(got, a), getattr(want, a)), a


def test_fastmcd_memo_gives_the_same_search():
    rng = np.random.default_rng(3)
    x = rng.lognormal(size=(6000, 3))
    h = (6000 + 3 + 1) // 2
    memo: dict = {}
    for s in range(4):
        plain = fastmcd(x, h, 40, np.random.default_rng(s), "error")
        shared = fastmcd(x, h, 40, np.random.default_rng(s), "error", memo=memo)
        assert plain[0] == shared[0]
        for a, b in zip(plain[1:], shared[1:]):
            assert np.array_equal(a, b)
    assert memo  # the last stage's starts were stored
