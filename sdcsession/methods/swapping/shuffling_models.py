"""The models behind the shuffling methods: correlation/covariance estimators (``covmethod``),
multivariate regression (``regmethod``) and the perturbed values ``Y*`` of each method.

Every method of `sdcsession.methods.swapping.shuffling.shuffle` draws perturbed values ``Y*`` (n×p) for
the confidential variables X given the non-confidential S; shuffling then gives the record with
the r-th smallest ``Y*_j`` the r-th smallest original value of ``X_j`` (reverse mapping). The
methods differ in how ``Y*`` is generated:

``"ds"`` (Muralidhar & Sarathy 2006, the default)
    Normal scores ``X* = Φ⁻¹((rank − 0.5)/n)``, likewise S*; with C their correlation matrix:
    ``Y* = S*·C_SS⁻¹·C_SX + E``, ``E ~ N(0, C_XX − C_XS·C_SS⁻¹·C_SX)`` (the normal copula
    conditional on S).
``"mvn"``
    The same conditional draw on the original scale, the data taken as multivariate normal
    (GADP, Muralidhar, Parsa & Sarathy 1999): with Σ the covariance of (X, S),
    ``Y* = x̄ + (S − s̄)·Σ_SS⁻¹·Σ_SX + E``, ``E ~ N(0, Σ_XX − Σ_XS·Σ_SS⁻¹·Σ_SX)``.
``"mlm"``
    The fitted values of the multivariate linear model of X on S (with intercept), without
    perturbation (sdcMicro's ``"mlm"``); tied fitted values are ordered at random.
``"mlm_ds"``
    Fitted values plus perturbation: ``Y* = Ŷ + E``, ``E ~ N(0, Σ_res)`` with Σ_res the
    covariance of the regression residuals (the EGADP step of sdcMicro, followed by shuffling).

``covmethod`` (the estimator of C, Σ or Σ_res):

- ``"pearson"`` (default): Pearson correlations (of the normal scores for ``"ds"``) / the sample
  covariance;
- ``"spearman"``: Spearman's ρ_S converted to a normal-copula correlation ``2·sin(π·ρ_S/6)``
  (Muralidhar & Sarathy's choice; sdcMicro's default), with the sample standard deviations on
  the original scale;
- ``"mcd"``: the reweighted minimum covariance determinant estimate (`sdcsession.risk.robust.minimum_covariance.mcd`,
  deterministic start), robust against outliers (Templ & Meindl 2008).

``regmethod`` (``"mlm"``, ``"mlm_ds"``, and ``"mvn"`` when given): with ``"mvn"`` the
conditional mean ``x̄ + (S − s̄)·Σ_SS⁻¹·Σ_SX`` is replaced by the fitted values of the regression
of X on S (``"lm"`` gives the same mean when ``covmethod="pearson"``; ``"mm"`` resists outliers,
as sdcMicro's ``mvn`` runs its regression step with ``regmethod``), the perturbation E staying
``N(0, Σ_XX − Σ_XS·Σ_SS⁻¹·Σ_SX)``. ``"lm"`` least squares, or ``"mm"`` robust regression
per confidential variable: an M-estimator with Tukey's bisquare ψ (c = 4.685, 95 % efficiency at
the normal, scale by the MAD) started from a Huber fit (statsmodels ``RLM``). sdcMicro's
``"MM"`` calls MASS ``rlm(method="MM")``, whose start is an S-estimator: ours has the same
efficiency and resists outliers in X, but not leverage points in S as well.

References: Muralidhar, K. & Sarathy, R. (2006) Data shuffling — a new masking approach for
numerical data, Management Science 52(5), 658–670. Muralidhar, K., Parsa, R. & Sarathy, R.
(1999) A general additive data perturbation method for database security, Management Science
45, 1399–1415. Templ, M. & Meindl, B. (2008) Robustification of microdata masking methods and
the comparison with existing methods, LNCS 5262, 177–189.

Example
-------
>>> x = np.column_stack([np.arange(10.0), np.arange(10.0) ** 2])
>>> correlation(x, "spearman").round(3).tolist()
[[1.0, 1.0], [1.0, 1.0]]
"""

from __future__ import annotations

import numpy as np

from ...errors import TreatmentError
from ...risk.robust.minimum_covariance import mcd

__all__ = ["SHUFFLE_METHODS", "COV_METHODS", "REG_METHODS", "correlation", "covariance",
           "regression", "conditional_draw", "perturbed_values"]

SHUFFLE_METHODS = ("ds", "mvn", "mlm", "mlm_ds")
COV_METHODS = ("pearson", "spearman", "mcd")
REG_METHODS = ("lm", "mm")


def _mcd_cov(x: np.ndarray) -> np.ndarray:
    if len(x) <= x.shape[1] + 1:
        raise TreatmentError(f"shuffle: covmethod='mcd' needs more than {x.shape[1] + 1} "
                             f"complete records, got {len(x)}")
    return mcd(x, h="floor", reweight=True, exact_fit="ridge", subsample=200_000).scatter


def correlation(x: np.ndarray, covmethod: str) -> np.ndarray:
    """Correlation matrix of the columns of ``x`` (n×q, complete) by ``covmethod``.

    >>> correlation(np.array([[1.0, 2], [2, 1], [3, 4], [4, 3]]), "pearson").round(2).tolist()
    [[1.0, 0.6], [0.6, 1.0]]
    """
    from scipy import stats

    q = x.shape[1]
    if covmethod == "pearson":
        return np.corrcoef(x, rowvar=False).reshape(q, q)
    if covmethod == "spearman":
        rho = np.corrcoef(stats.rankdata(x, axis=0), rowvar=False).reshape(q, q)
        r = 2.0 * np.sin(np.pi * rho / 6.0)
        np.fill_diagonal(r, 1.0)
        return r
    s = _mcd_cov(x)
    d = np.sqrt(np.diag(s))
    return s / np.outer(d, d)


def covariance(x: np.ndarray, covmethod: str) -> np.ndarray:
    """Covariance matrix of the columns of ``x`` by ``covmethod`` (``"spearman"``: the converted
    rank correlations scaled by the sample standard deviations).

    >>> covariance(np.array([[1.0, 2], [2, 1], [3, 4], [4, 3]]), "pearson").round(3).tolist()
    [[1.667, 1.0], [1.0, 1.667]]
    """
    q = x.shape[1]
    if covmethod == "pearson":
        return np.cov(x, rowvar=False).reshape(q, q)
    if covmethod == "spearman":
        sd = x.std(axis=0, ddof=1)
        return correlation(x, "spearman") * np.outer(sd, sd)
    return _mcd_cov(x)


def regression(y: np.ndarray, s: np.ndarray, regmethod: str) -> np.ndarray:
    """Fitted values of the regressions of each column of ``y`` on ``s`` with an intercept:
    least squares (``"lm"``) or the bisquare M-estimator of the module docstring (``"mm"``).

    >>> s = np.arange(6.0)[:, None]
    >>> regression(np.column_stack([2 * s[:, 0] + 1]), s, "lm").ravel().round(6).tolist()
    [1.0, 3.0, 5.0, 7.0, 9.0, 11.0]
    """
    design = np.hstack([np.ones((len(s), 1)), s])
    if regmethod == "lm":
        beta = np.linalg.lstsq(design, y, rcond=None)[0]
        return design @ beta
    import statsmodels.api as sm  # lazily: not needed by `import sdcsession`

    out = np.empty_like(y)
    for j in range(y.shape[1]):  # one robust fit per confidential variable (p is small)
        start = sm.RLM(y[:, j], design, M=sm.robust.norms.HuberT()).fit()
        fit = sm.RLM(y[:, j], design, M=sm.robust.norms.TukeyBiweight(4.685)).fit(
            start_params=start.params)
        out[:, j] = design @ fit.params
    return out


def _normal(cov: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n draws of N(0, cov) (cov symmetrised, negative eigenvalues clipped)."""
    cov = (cov + cov.T) / 2
    w, v = np.linalg.eigh(cov)
    return rng.standard_normal((n, cov.shape[0])) @ (v * np.sqrt(np.clip(w, 0, None))).T


def conditional_draw(xs: np.ndarray, s: np.ndarray, joint: np.ndarray, p: int,
                     rng: np.random.Generator) -> np.ndarray:
    """Draws of the p confidential variables given ``s`` (n×q, centred) under the normal model
    with covariance ``joint`` of (X, S): ``s·Σ_SS⁻¹Σ_SX + E``, ``E ~ N(0, Σ_XX − Σ_XS Σ_SS⁻¹ Σ_SX)``.
    ``xs`` is unused except for its row count when there is no ``s``.

    >>> rng = np.random.default_rng(0)
    >>> y = conditional_draw(np.zeros((5, 1)), np.zeros((5, 0)), np.eye(1), 1, rng)
    >>> y.shape
    (5, 1)
    """
    n = len(xs)
    if s.shape[1] == 0:
        return _normal(joint[:p, :p], n, rng)
    cxx, cxs, css = joint[:p, :p], joint[:p, p:], joint[p:, p:]
    try:
        b = np.linalg.solve(css, cxs.T)
    except np.linalg.LinAlgError:
        b = np.linalg.lstsq(css, cxs.T, rcond=None)[0]
    return s @ b + _normal(cxx - cxs @ b, n, rng)


def perturbed_values(x: np.ndarray, s: np.ndarray, *, method: str, covmethod: str,
                     regmethod: str | None, rng: np.random.Generator) -> np.ndarray:
    """``Y*`` of ``"mvn"``, ``"mlm"`` or ``"mlm_ds"`` for complete blocks ``x`` (n×p) and ``s``
    (n×q) (``"ds"`` is computed in `sdcsession.methods.swapping.shuffling.shuffle`).

    >>> s = np.arange(8.0)[:, None]
    >>> x = np.column_stack([s[:, 0] ** 2, -s[:, 0]])
    >>> y = perturbed_values(x, s, method="mlm", covmethod="pearson", regmethod="lm",
    ...                      rng=np.random.default_rng(0))
    >>> y[:, 1].round(6).tolist() == (-s[:, 0]).tolist()
    True
    """
    p = x.shape[1]
    if method == "mvn" and (regmethod is None or s.shape[1] == 0):
        joint = covariance(np.hstack([x, s]), covmethod)
        return x.mean(axis=0) + conditional_draw(x, s - s.mean(axis=0), joint, p, rng)
    if method == "mvn":
        # the conditional mean from the regression ``regmethod``, the conditional covariance
        # from the normal model with ``covmethod``
        joint = covariance(np.hstack([x, s]), covmethod)
        cxx, cxs, css = joint[:p, :p], joint[:p, p:], joint[p:, p:]
        try:
            b = np.linalg.solve(css, cxs.T)
        except np.linalg.LinAlgError:
            b = np.linalg.lstsq(css, cxs.T, rcond=None)[0]
        return regression(x, s, regmethod) + _normal(cxx - cxs @ b, len(x), rng)
    fitted = regression(x, s, regmethod or "lm")
    if method == "mlm":
        return fitted
    return fitted + _normal(covariance(x - fitted, covmethod), len(x), rng)
