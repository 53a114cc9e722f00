"""Population uniqueness: how many records of the population are unique on the key variables.

Only the sample is known: n records, drawn from a population of N = sum of the weights (or a
given ``population_size``), sampling fraction pi = n / N. The estimators use the sample's
frequencies of frequencies c_j (number of key combinations seen j times; u = sum c_j classes,
c_1 sample uniques):

- ``"zayatz"`` (Zayatz 1991): the population's class sizes are taken to be distributed as the
  sample's; a sample unique comes from a population class of size j with probability
  proportional to c_j h_j, h_j = P(exactly one of j units sampled) = j C(N-j, n-1) / C(N, n)
  (hypergeometric; h_1 = pi). Estimated population uniques
  ``c_1 P(pop. unique | sample unique) / pi = c_1^2 / sum_j c_j h_j``.
- ``"pitman"`` (Hoshino 2001): the partition of the sample follows Pitman's two-parameter sampling
  formula; (theta, alpha) by maximum likelihood,
  ``l = sum_{i<u} log(theta + i alpha) - sum_{i<n} log(theta + i)
  + sum_j c_j sum_{k<j} log(k - alpha)``,
  and the expected number of singletons in a population of N under the fitted model,
  ``N Gamma(theta + 1) Gamma(theta + alpha + N - 1) / (Gamma(theta + alpha) Gamma(theta + N))``
  (about ``Gamma(theta + 1) / Gamma(theta + alpha) N^alpha``).
- ``"snb"`` (slide negative binomial, Chen & Keller-McNulty 1998): K non-empty population classes
  (Shlosser's estimate from the sample, Haas et al. 1995) with sizes 1 + NegBin(a, b); with
  Bernoulli sampling the expected numbers of sample classes of size 1 and 2 are
  ``E c_1 = K pi (b / (1 - d))^a (1 + a d / (1 - d))`` and
  ``E c_2 = K a b^a (1 - b) pi^2 / 2 (1 - d)^-(a + 2) (2 - (1 - a) d)``, d = (1 - pi)(1 - b);
  (a, b) solve E c_1 = c_1, E c_2 = c_2 and the estimate is ``K b^a``.
- ``"dankar"`` (Dankar et al. 2012, as ARX applies it): for pi <= 0.1 Pitman (Zayatz when Pitman
  has no solution), otherwise the smaller of Zayatz and SNB (Zayatz when SNB has no solution).

Missing key values are a category of their own here (the estimators need a partition of the
records). Estimates are expected numbers under a model; see docs/concepts/risk.md for their error
on simulated populations.

References
----------
Zayatz, L. (1991). Estimation of the percent of unique population elements on a microdata file
using the sample. Statistical Research Division Report Census/SRD/RR-91/08, US Census Bureau.
Hoshino, N. (2001). Applying Pitman's sampling formula to microdata disclosure risk assessment.
Journal of Official Statistics 17, 499-520.
Chen, G. and Keller-McNulty, S. (1998). Estimation of identification disclosure risk in
microdata. Journal of Official Statistics 14, 79-95.
Haas, P.J., Naughton, J.F., Seshadri, S. and Stokes, L. (1995). Sampling-based estimation of the
number of distinct values of an attribute. VLDB 1995, 311-322.
Dankar, F.K., El Emam, K., Neisa, A. and Roffey, T. (2012). Estimating the re-identification risk
of clinical data sets. BMC Medical Informatics and Decision Making 12:66.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"a": list("xxyyzw"), "w": [50.0] * 6})
>>> r = population_uniques(df, ["a"], weight="w", method="zayatz")
>>> r.sample_uniques, round(r.uniques, 4)
(2, 33.7091)
"""

from __future__ import annotations

import math
from numbers import Real

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from .._codes import as_keys, check_columns, check_frame, combine, encode_column, weights_of

__all__ = ["PopulationUniques", "population_uniques", "frequency_of_frequencies", "ESTIMATORS"]

ESTIMATORS = ("pitman", "zayatz", "snb", "dankar")


@attrs.frozen(eq=False)
class PopulationUniques:
    """Result of `population_uniques`.

    Attributes
    ----------
    uniques : estimated number of population uniques.
    proportion : ``uniques / population_size`` (fraction of the population that is unique).
    method : the estimator asked for; ``model`` the one that gave ``uniques`` (differs for
        ``"dankar"``).
    estimates : every estimate computed on the way (NaN where an estimator has no solution).
    sample_uniques, n, population_size, sampling_fraction : the inputs the estimate rests on.
    parameters : the fitted model parameters (Pitman theta/alpha, SNB K/a/b).
    """

    uniques: float
    proportion: float
    method: str
    model: str
    sample_uniques: int
    n: int
    population_size: float
    sampling_fraction: float
    estimates: dict[str, float] = attrs.field(repr=False)
    parameters: dict[str, float] = attrs.field(repr=False)

    def to_dict(self) -> dict[str, object]:
        """The figures as a JSON-serialisable dict."""
        return {"method": self.method, "model": self.model, "uniques": self.uniques,
                "proportion": self.proportion, "sample_uniques": self.sample_uniques,
                "n": self.n, "population_size": self.population_size,
                "sampling_fraction": self.sampling_fraction, **{f"estimate_{k}": v for k, v in
                                                                 self.estimates.items()}}


def frequency_of_frequencies(data: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """``c[j]`` = number of key combinations that occur exactly j times (missing = a category).

    Example
    -------
    >>> frequency_of_frequencies(pd.DataFrame({"a": [1, 1, 2, 3]}), ["a"]).tolist()
    [0, 2, 1]
    """
    codes = np.empty((len(data), len(keys)), dtype=np.int64)
    cards = []
    for j, k in enumerate(keys):
        c, uniq = pd.factorize(data[k], use_na_sentinel=False)
        codes[:, j] = c
        cards.append(max(len(uniq), 1))
    group, size = combine(codes, cards)
    sizes = np.bincount(group, minlength=size)
    return np.bincount(sizes[sizes > 0])


# ------------------------------------------------------------------------------ estimators
def _zayatz(c: np.ndarray, n: int, N: float) -> float:
    from scipy import special

    j = np.flatnonzero(c)
    ok = N - j >= n - 1

    def lncomb(a: np.ndarray | float, b: float) -> np.ndarray:
        return special.gammaln(np.asarray(a) + 1) - special.gammaln(b + 1) - special.gammaln(
            np.asarray(a) - b + 1)

    h = np.zeros(len(j))
    h[ok] = np.exp(np.log(j[ok]) + lncomb(N - j[ok], n - 1) - lncomb(N, n))
    return float(c[1] ** 2 / np.sum(c[j] * h))


def _pitman_fit(c: np.ndarray, n: int) -> tuple[float, float]:
    """Maximum-likelihood (theta, alpha) of Pitman's sampling formula, alpha in [0, 1)."""
    from scipy import optimize, special

    u = int(c.sum())
    i = np.arange(1, u, dtype=float)
    j = np.flatnonzero(c)
    cj = c[j].astype(float)

    def negll(x: np.ndarray) -> tuple[float, np.ndarray]:
        alpha, s = x
        theta = math.exp(s) - alpha
        den = theta + i * alpha
        ll = (np.log(den).sum() - (special.gammaln(theta + n) - special.gammaln(theta + 1))
              + np.sum(cj * (special.gammaln(j - alpha) - special.gammaln(1 - alpha))))
        d_theta = (1 / den).sum() - (special.digamma(theta + n) - special.digamma(theta + 1))
        d_alpha = (i / den).sum() - np.sum(cj * (special.digamma(j - alpha)
                                                 - special.digamma(1 - alpha)))
        # theta = exp(s) - alpha: d/ds = d_theta exp(s); d/dalpha|s = d_alpha - d_theta
        return -ll / n, -np.array([d_alpha - d_theta, d_theta * math.exp(s)]) / n

    best = None
    for a0 in (0.5, 0.1, 0.9):
        res = optimize.minimize(negll, np.array([a0, math.log(max(u, 2))]), jac=True,
                                method="L-BFGS-B", bounds=[(0.0, 1 - 1e-9), (-30, 30)],
                                options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 2000})
        if np.isfinite(res.fun) and (best is None or res.fun < best.fun):
            best = res
    if best is None:
        return math.nan, math.nan
    alpha, s = best.x
    return math.exp(s) - alpha, float(alpha)


def _pitman(c: np.ndarray, n: int, N: float) -> tuple[float, dict[str, float]]:
    from scipy import special

    theta, alpha = _pitman_fit(c, n)
    if not (np.isfinite(theta) and np.isfinite(alpha)):
        return math.nan, {}
    est = N * math.exp(special.gammaln(theta + 1) + special.gammaln(theta + alpha + N - 1)
                       - special.gammaln(theta + alpha) - special.gammaln(theta + N))
    ok = np.isfinite(est) and 0 <= est <= N
    return (float(est) if ok else math.nan), {"theta": theta, "alpha": alpha}


def _shlosser(c: np.ndarray, pi: float) -> float:
    """Shlosser's estimate of the number of non-empty population classes (Haas et al. 1995)."""
    j = np.flatnonzero(c)
    q = 1.0 - pi
    num = np.sum(q ** j * c[j])
    den = np.sum(j * pi * q ** (j - 1) * c[j])
    return float(c.sum() + c[1] * num / den)


def snb_expected(K: float, a: float, b: float, pi: float) -> tuple[float, float]:
    """Expected numbers of sample classes of size 1 and 2 under the SNB model (module doc)."""
    d = (1.0 - pi) * (1.0 - b)
    e1 = K * pi * (b / (1 - d)) ** a * (1 + a * d / (1 - d))
    e2 = K * a * b ** a * (1 - b) * pi ** 2 / 2 * (1 - d) ** (-(a + 2)) * (2 - (1 - a) * d)
    return e1, e2


def _snb(c: np.ndarray, pi: float, K: float | None = None) -> tuple[float, dict[str, float]]:
    """SNB estimate from the frequencies of frequencies ``c`` (K by Shlosser unless given)."""
    from scipy import optimize, special

    c1 = float(c[1]) if len(c) > 1 else 0.0
    c2 = float(c[2]) if len(c) > 2 else 0.0
    if c1 == 0 or c2 == 0:
        return math.nan, {}
    K = _shlosser(c, pi) if K is None else float(K)

    def resid(x: np.ndarray) -> np.ndarray:
        e1, e2 = snb_expected(K, math.exp(x[0]), special.expit(x[1]), pi)
        return np.array([math.log(e1 / c1), math.log(e2 / c2)])

    best = None
    for x0 in ([0.0, 0.0], [-2.0, -2.0], [2.0, 2.0], [-4.0, 2.0]):
        try:
            with np.errstate(all="ignore"):
                res = optimize.least_squares(resid, np.array(x0), method="lm", xtol=1e-14,
                                             ftol=1e-14, gtol=1e-14)
        except (ValueError, OverflowError, ZeroDivisionError):
            continue
        if np.all(np.isfinite(res.fun)) and (best is None or res.cost < best.cost):
            best = res
    if best is None or np.max(np.abs(best.fun)) > 1e-8:
        return math.nan, {"K": K}
    a, b = math.exp(best.x[0]), float(special.expit(best.x[1]))
    return K * b ** a, {"K": K, "a": a, "b": b}


# ------------------------------------------------------------------------------ main
def population_uniques(data: pd.DataFrame, keys: str | list[str], *, weight: str | None = None,
                       method: str = "dankar",
                       population_size: float | None = None) -> PopulationUniques:
    """Estimated number and proportion of population uniques from a sample.

    Missing values: a missing key value is a category of its own; missing weights are refused with a
    MeasureError.

    Parameters
    ----------
    data : the sample records.
    keys : key variables (read as categories; a missing value is a category of its own).
    weight : column of sampling weights (> 0); the population size is their sum.
    method : ``"pitman"``, ``"zayatz"``, ``"snb"`` or ``"dankar"`` (module doc).
    population_size : N, instead of the sum of the weights.

    Returns
    -------
    PopulationUniques
        ``uniques`` (expected number), ``proportion`` (uniques / N), the ``model`` used and the
        intermediate ``estimates`` and ``parameters``.

    Formula
    -------
    Zayatz: c_1^2 / sum_j c_j h_j; Pitman: N Gamma(theta+1) Gamma(theta+alpha+N-1) /
    (Gamma(theta+alpha) Gamma(theta+N)); SNB: K b^a (module doc).

    Raises
    ------
    ParameterError
        Unknown method, neither or both of weight / population_size, population_size < n.
    MeasureError
        Missing columns, weights <= 0, an all-missing key or one with a single category, or an
        estimator without a solution (Pitman / SNB asked for directly; Dankar's rule falls back).

    References
    ----------
    Zayatz (1991); Hoshino (2001); Chen & Keller-McNulty (1998); Dankar et al. (2012).

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": list("xxyyzw"), "w": [50.0] * 6})
    >>> r = population_uniques(df, ["a"], weight="w")
    >>> r.model, round(r.proportion, 6)
    ('pitman', 0.013405)
    """
    data = check_frame(data, "data")
    keys = as_keys(keys)
    check_columns(data, keys, "keys")
    for c in keys:
        if data[c].dtype == object:
            encode_column(data[c], "keys")  # refuses unhashable cells (RoleError naming c)
    if not isinstance(method, str) or method not in ESTIMATORS:
        raise ParameterError(f"method: expected one of {list(ESTIMATORS)}, got {method!r}")
    n = len(data)
    if (weight is None) == (population_size is None):
        raise ParameterError("population_uniques: give the sampling weights (weight=) or the "
                             "population size (population_size=), one of the two")
    if population_size is not None:
        if isinstance(population_size, bool) or not isinstance(population_size, Real) or not (
                math.isfinite(population_size) and population_size >= n):
            raise ParameterError(f"population_size: expected a number >= the {n} records, got "
                                 f"{population_size!r}")
        N = float(population_size)
    else:
        w = weights_of(data, weight)
        assert w is not None
        N = float(w.sum())
        if N < n * (1 - 1e-12):
            raise MeasureError(f"weight: the weights sum to {N:.6g}, fewer than the {n} records; "
                               "they are not sampling weights (N = sum of weights >= n)")
        N = max(N, float(n))
    for k in keys:
        s = data[k]
        nun = s.nunique(dropna=True)
        if nun == 0:
            raise MeasureError(f"population_uniques: key {k!r} is missing in every record")
        if nun == 1 and not s.isna().any():
            raise MeasureError(f"population_uniques: key {k!r} has a single category "
                               f"({s.iloc[0]!r}); it cannot tell records apart, leave it out")
    c = frequency_of_frequencies(data, keys)
    c1 = int(c[1]) if len(c) > 1 else 0
    pi = n / N
    estimates: dict[str, float] = {}
    params: dict[str, float] = {}
    model = method
    if c1 == 0 or pi >= 1.0:
        value = float(c1)  # no sample unique, or a census: the sample uniques are the answer
        estimates[method] = value
    elif method == "zayatz":
        value = estimates["zayatz"] = _zayatz(c, n, N)
    elif method == "pitman":
        value, params = _pitman(c, n, N)
        estimates["pitman"] = value
    elif method == "snb":
        value, params = _snb(c, pi)
        estimates["snb"] = value
    else:
        estimates["zayatz"] = _zayatz(c, n, N)
        if pi <= 0.1:
            estimates["pitman"], params = _pitman(c, n, N)
            model = "pitman" if _valid(estimates["pitman"]) else "zayatz"
        else:
            estimates["snb"], params = _snb(c, pi)
            model = ("snb" if _valid(estimates["snb"]) and estimates["snb"] <= estimates["zayatz"]
                     else "zayatz")
        value = estimates[model]
    if not _valid(value) and c1 > 0:
        raise MeasureError(f"population_uniques: the {method} estimator has no solution for "
                           f"these data (c1={c1}, c2={int(c[2]) if len(c) > 2 else 0}, "
                           f"sampling fraction {pi:.4g}); try method='dankar' or 'zayatz'")
    return PopulationUniques(uniques=float(value), proportion=float(value) / N, method=method,
                             model=model, sample_uniques=c1, n=n, population_size=N,
                             sampling_fraction=pi, estimates=estimates,
                             parameters={k: float(v) for k, v in params.items()})


def _valid(x: float) -> bool:
    return bool(np.isfinite(x)) and x > 0
