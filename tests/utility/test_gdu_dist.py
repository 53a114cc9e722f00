"""The GDU's light statistics equal scipy.stats bit for bit; the Kolmogorov–Smirnov shortcut only
ever says "not normal" when scipy's exact p-value is below alpha; a GDU whose numeric variables
are unchanged and clearly not normal does not import scipy.stats."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sdcsession.utility.gdu._dist import (
    chi2_sf,
    chi2_table,
    f_sf,
    ks_rejects_for_sure,
    ranks_average,
    ranks_ordinal,
    t_sf,
)


@given(st.floats(0, 500, allow_nan=False), st.integers(1, 200))
@settings(max_examples=200, deadline=None)
def test_tails_equal_scipy(x, df):
    assert chi2_sf(x, df) == float(stats.chi2.sf(x, df))
    assert f_sf(x, df, df + 7) == float(stats.f.sf(x, df, df + 7))
    assert t_sf(x, df) == float(stats.t.sf(x, df))
    assert t_sf(-x, df) == float(stats.t.sf(-x, df))


@given(st.lists(st.integers(-5, 5), min_size=0, max_size=60))
@settings(max_examples=200, deadline=None)
def test_ranks_equal_scipy(values):
    v = np.asarray(values, dtype=float)
    r, t = ranks_average(v)
    assert np.array_equal(r, stats.rankdata(v)) and r.dtype == np.float64
    _, counts = np.unique(v, return_counts=True)
    assert t.tolist() == counts.tolist()
    assert np.array_equal(ranks_ordinal(v), stats.rankdata(v, method="ordinal").astype(float))
    w = np.r_[v, np.inf, np.inf]  # the GDU ranks labels whose mean is +inf (no record)
    assert np.array_equal(ranks_ordinal(w), stats.rankdata(w, method="ordinal").astype(float))


@given(st.lists(st.integers(0, 40), min_size=4, max_size=24).filter(lambda v: len(v) % 2 == 0))
@settings(max_examples=200, deadline=None)
def test_chi2_table_equals_chi2_contingency(cells):
    tab = np.asarray(cells, dtype=float).reshape(2, -1)
    tab = tab[:, tab.sum(0) > 0]
    if tab.shape[1] < 2 or (tab.sum(1) == 0).any():
        assert tab.shape[1] < 2 or chi2_table(tab) is None
        return
    res = stats.chi2_contingency(tab, correction=False)
    assert chi2_table(tab) == (float(res.statistic), float(res.pvalue))


def test_chi2_table_by_hand():
    stat, p = chi2_table(np.array([[10.0, 20.0], [20.0, 10.0]]))
    # E = 15 in every cell: Σ (±5)² / 15 = 4 · 25 / 15
    assert stat == pytest.approx(100 / 15) and p == pytest.approx(stats.chi2.sf(100 / 15, 1))
    assert chi2_table(np.array([[3.0, 0.0], [4.0, 0.0]])) is None  # an empty column


@pytest.mark.parametrize("seed", range(12))
def test_ks_shortcut_never_contradicts_the_exact_test(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 3000))
    draws = [rng.normal(size=n), rng.lognormal(size=n), rng.exponential(size=n),
             rng.normal(size=n) + rng.uniform(0, 0.5, size=n), np.round(rng.normal(size=n), 1),
             rng.standard_t(3, size=n)]
    for x in draws:
        mean, sd = x.mean(), x.std(ddof=1)
        p = stats.kstest(x, "norm", args=(mean, sd)).pvalue
        for alpha in (0.01, 0.05, 0.2):
            if ks_rejects_for_sure(x, mean, sd, alpha):
                assert p < alpha, (n, p, alpha)
    # it settles the clear cases: a skewed variable of a few thousand records
    x = rng.lognormal(size=5000)
    assert ks_rejects_for_sure(x, x.mean(), x.std(ddof=1), 0.05)
    assert not ks_rejects_for_sure(x[:3], x[:3].mean(), x[:3].std(ddof=1), 0.05)
    assert not ks_rejects_for_sure(x, 0.0, 0.0, 0.05)


def test_gdu_without_a_perturbed_numeric_variable_does_not_import_scipy_stats():
    # skewed numeric variables (normality settled by the bound), a categorical one suppressed
    code = ("import sys, numpy as np, pandas as pd\n"
            "from sdcsession.utility.gdu import gdu\n"
            "rng = np.random.default_rng(1)\n"
            "o = pd.DataFrame({'x': rng.lognormal(size=400), 'y': rng.exponential(size=400),\n"
            "                  'g': pd.Categorical(rng.choice(list('abc'), 400))})\n"
            "m = o.assign(g=o.g.where(rng.random(400) > 0.1))\n"
            "r = gdu(o, m)\n"
            "print('scipy.stats' in sys.modules, round(r.gdu, 12))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seen, value = out.stdout.split()
    assert seen == "False"
    # the same value as with scipy.stats loaded first (its functions give the same numbers)
    out2 = subprocess.run([sys.executable, "-c", "import scipy.stats\n" + code],
                          capture_output=True, text=True, check=True)
    assert out2.stdout.split() == ["True", value]
