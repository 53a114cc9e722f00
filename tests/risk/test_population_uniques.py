"""Tests of the population-uniqueness estimators (sdcsession.risk.population_uniques).

No R package has these estimators, so they are checked by hand-computed cases, by the models'
own moment equations, and on simulated superpopulations whose number of population uniques is
known. The tolerances below are about three times the spread of the relative error over five
independent populations and samples (docs/concepts/risk.md has the table); the seeds are fixed,
so the tests are deterministic and the tolerance only guards against regressions.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pandas as pd
import pytest

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk import population_uniques

PU = sys.modules["sdcsession.risk.population_uniques"]


def _py_population(N: int, theta: float, alpha: float, seed: int, K: int = 2_000_000):
    """Class labels of N units from a Pitman-Yor(theta, alpha) process (stick-breaking)."""
    rng = np.random.default_rng(seed)
    k = np.arange(1, K + 1)
    V = rng.beta(1 - alpha, theta + k * alpha)
    p = V * np.exp(np.concatenate([[0.0], np.cumsum(np.log1p(-V))[:-1]]))
    return np.repeat(np.arange(K), rng.multinomial(N, p / p.sum()))


def _sample(labels: np.ndarray, frac: float, seed: int) -> tuple[pd.DataFrame, int]:
    rng = np.random.default_rng(seed)
    n = int(round(frac * len(labels)))
    s = pd.DataFrame({"k": labels[rng.choice(len(labels), n, replace=False)]})
    return s.assign(w=len(labels) / n), int((np.bincount(labels) == 1).sum())


# --------------------------------------------------------------------------- by hand
def test_zayatz_by_hand():
    # classes x, y twice, z, w once: c1 = 2, c2 = 2; n = 6, N = 300
    df = pd.DataFrame({"a": list("xxyyzw"), "w": [50.0] * 6})
    h1 = 6 / 300
    h2 = 2 * 6 * 294 / (300 * 299)  # 2 C(298, 5) / C(300, 6)
    r = population_uniques(df, "a", weight="w", method="zayatz")
    assert r.uniques == pytest.approx(2 ** 2 / (2 * h1 + 2 * h2), rel=1e-12)
    assert r.proportion == pytest.approx(r.uniques / 300)
    assert (r.n, r.sample_uniques, r.population_size) == (6, 2, 300.0)
    assert r.sampling_fraction == pytest.approx(0.02)
    same = population_uniques(df.drop(columns="w"), "a", population_size=300, method="zayatz")
    assert same.uniques == pytest.approx(r.uniques)


def test_census_and_no_sample_uniques():
    df = pd.DataFrame({"a": list("xxyz"), "w": [1.0] * 4})
    for m in ("pitman", "zayatz", "snb", "dankar"):
        assert population_uniques(df, "a", weight="w", method=m).uniques == 2.0  # pi = 1
    df = pd.DataFrame({"a": list("xxyy"), "w": [10.0] * 4})
    for m in ("pitman", "zayatz", "snb", "dankar"):
        r = population_uniques(df, "a", weight="w", method=m)
        assert r.uniques == 0.0 and r.proportion == 0.0


def test_frequency_of_frequencies_treats_missing_as_a_category():
    df = pd.DataFrame({"a": [1, 1, None, None, 2], "b": ["u", "u", "v", "v", None]})
    assert PU.frequency_of_frequencies(df, ["a", "b"]).tolist() == [0, 1, 2]


def test_pitman_likelihood_gradient_vanishes_at_the_estimate():
    labels = _py_population(50_000, 300.0, 0.5, seed=3)
    s, _ = _sample(labels, 0.1, seed=4)
    c = PU.frequency_of_frequencies(s, ["k"])
    n, u = len(s), int(c.sum())
    theta, alpha = PU._pitman_fit(c, n)
    i = np.arange(1, u)
    j = np.flatnonzero(c)
    from scipy.special import digamma

    d_theta = (1 / (theta + i * alpha)).sum() - (digamma(theta + n) - digamma(theta + 1))
    d_alpha = (i / (theta + i * alpha)).sum() - np.sum(c[j] * (digamma(j - alpha)
                                                              - digamma(1 - alpha)))
    assert abs(d_theta) < 1e-4 * u / theta and abs(d_alpha) < 1e-4 * u
    assert alpha == pytest.approx(0.5, abs=0.05)


def test_snb_moment_equations_and_solution():
    """E c1, E c2 of the slide negative binomial under Bernoulli sampling against a simulation of
    4 million classes (standard errors about 0.1 % and 0.2 %), then the solver recovers (a, b)
    from exact moments when K is known."""
    rng = np.random.default_rng(0)
    K, a, b, pi = 4_000_000, 0.7, 0.3, 0.2
    s = rng.binomial(1 + rng.negative_binomial(a, b, size=K), pi)
    e1, e2 = PU.snb_expected(K, a, b, pi)
    assert (s == 1).sum() == pytest.approx(e1, rel=0.004)
    assert (s == 2).sum() == pytest.approx(e2, rel=0.008)
    c = np.array([0.0, e1, e2])
    est, par = PU._snb(c, pi, K=K)
    assert par["a"] == pytest.approx(a, rel=1e-6) and par["b"] == pytest.approx(b, rel=1e-6)
    assert est == pytest.approx(K * b ** a, rel=1e-6)


# --------------------------------------------------------------------------- simulated truth
def test_pitman_on_a_pitman_yor_population():
    """Where its model holds Pitman's estimator is close: over five populations of 200,000 units
    (about 22,000 uniques) the relative error was within 20 % at a 1 % sample and within 6 % at
    10 %; here one population, tolerance 25 % and 10 %."""
    labels = _py_population(200_000, 1000.0, 0.6, seed=0)
    for frac, tol in ((0.01, 0.25), (0.1, 0.10)):
        s, truth = _sample(labels, frac, seed=50)
        r = population_uniques(s, "k", weight="w", method="pitman")
        assert abs(r.uniques / truth - 1) < tol, (frac, r.uniques, truth)
        assert 0.5 < r.parameters["alpha"] < 0.7
        d = population_uniques(s, "k", weight="w", method="dankar")
        assert d.model == "pitman" and d.uniques == r.uniques


def test_zayatz_and_dankar_at_large_sampling_fractions():
    """With half of the population sampled, Zayatz's estimate was within 8 % of the truth on all
    populations of the study; Dankar's rule then takes the smaller of Zayatz and SNB."""
    labels = _py_population(200_000, 1000.0, 0.6, seed=1)
    s, truth = _sample(labels, 0.5, seed=51)
    z = population_uniques(s, "k", weight="w", method="zayatz")
    assert abs(z.uniques / truth - 1) < 0.08
    d = population_uniques(s, "k", weight="w")
    assert d.model in ("zayatz", "snb")
    assert d.uniques == pytest.approx(min(v for v in d.estimates.values() if v > 0))


# --------------------------------------------------------------------------- bad input
def test_bad_input():
    df = pd.DataFrame({"a": list("xxyz"), "b": list("uuuu"), "w": [10.0] * 4})
    with pytest.raises(ParameterError, match="method"):
        population_uniques(df, "a", weight="w", method="chao")
    with pytest.raises(ParameterError, match="one of the two"):
        population_uniques(df, "a")
    with pytest.raises(ParameterError, match="population_size"):
        population_uniques(df, "a", population_size=2)
    with pytest.raises(MeasureError, match="single category"):
        population_uniques(df, ["a", "b"], weight="w")
    with pytest.raises(MeasureError, match="missing in every record"):
        population_uniques(df.assign(b=np.nan), ["a", "b"], weight="w")
    with pytest.raises(MeasureError, match="weight"):
        population_uniques(df.assign(w=[10.0, 0.0, 1.0, 1.0]), "a", weight="w")
    with pytest.raises(MeasureError, match="fewer than"):
        population_uniques(df.assign(w=0.5), "a", weight="w")
    with pytest.raises(MeasureError, match="zz"):
        population_uniques(df, ["a", "zz"], weight="w")
    # SNB needs sample classes of size two
    with pytest.raises(MeasureError, match="no solution"):
        population_uniques(pd.DataFrame({"a": list("xyz")}), "a", population_size=100,
                           method="snb")
    assert math.isfinite(population_uniques(pd.DataFrame({"a": list("xyz")}), "a",
                                            population_size=1000).uniques)
