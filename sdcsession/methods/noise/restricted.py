"""Restricted noise: noise addition that keeps the sample mean vector and covariance matrix exactly.

Kim's linear transformation of correlated noise (Kim 1986; Brand 2002, sec. 2.3; Tendick &
Matloff 1994) releases ``z = c·(x + e) + (1 − c)·x̄`` with ``e ~ N_p(0, noise²·Σ)`` and
``c = 1/sqrt(1 + noise²)``: means and covariances are preserved *in expectation* only, because
the drawn noise has a sample covariance different from ``noise²·Σ`` and is correlated with
``x`` by chance. "Restricted" noise removes both chance effects: the noise is restricted to be
exactly orthogonal to the data and to have exactly the prescribed covariance. With ``x_c`` the
centred n×p block (Σ = x_c'x_c/(n − 1)):

1. draw ``G`` (n×p) standard normal;
2. project G onto the orthogonal complement of the constant vector and the columns of ``x_c``:
   ``G⊥ = G − Q₁Q₁'G`` with Q₁ an orthonormal basis of ``[1, x_c]``;
3. orthonormalise: ``G⊥ = Q₂R₂`` (QR), ``e₀ = sqrt(n − 1)·Q₂``, so ``1'e₀ = 0``, ``x_c'e₀ = 0``
   and ``e₀'e₀/(n − 1) = I`` exactly;
4. colour: ``e = noise·e₀·F`` with ``F'F = Σ`` (Cholesky factor, or the symmetric square root
   when Σ is singular), so ``1'e = 0``, ``x_c'e = 0`` and ``e'e/(n − 1) = noise²·Σ``;
5. release ``z = x̄ + c·(x_c + e)``, ``c = 1/sqrt(1 + noise²)``.

Then ``z̄ = x̄`` and ``Cov(z) = c²·(Σ + noise²·Σ) = Σ`` hold exactly (up to rounding), and the
change ``z − x = (c − 1)·x_c + c·e`` has standard deviation exactly ``s_j·sqrt(2(1 − c))`` in
every column (``sd_spec`` equals ``sd_realised``). ``noise`` has the meaning it has for
``"correlated2"``: the noise standard deviation as a fraction of each variable's before the
rescaling. The construction needs ``n ≥ 2p + 1`` complete records (room for p noise directions
orthogonal to the data).

Difference to sdcMicro. sdcMicro's ``addNoise(method="restr", noise=N)`` computes Kim's c for a
noise variance ratio ``w = N/100`` with a small-sample correction (``c = sqrt((n − 1)/(n(1 + w)
− 1))``, another formula for n < 500) and returns ``c·x + (1 − c)·x̄`` *without adding any
noise*: the released values are a deterministic, invertible affine function of the originals
(no protection) and every variance shrinks by the factor c². That is a bug; we add the noise.
sdcMicro's ``noise=N`` corresponds to ``noise = sqrt(N/100)`` here (its default 150 is about
``noise=1.22``).

Missing values: only records complete on all treated columns are perturbed (and the means and
covariance preserved are those of the complete records); incomplete records are left as they
are (notes ``untouched_incomplete``).

References: Kim, J. (1986) A method for limiting disclosure in microdata based on random noise
and transformation, Proc. ASA SRM, 370–374. Tendick, P. & Matloff, N. (1994) A modified random
perturbation method for database security, ACM TODS 19(1), 47–63. Brand, R. (2002) Microdata
protection through noise addition, LNCS 2316, 97–116. Domingo-Ferrer, J., Sebé, F. &
Castellà-Roca, J. (2004) On the security of noise addition for privacy in statistical databases,
LNCS 3050, 149–161.

Example
-------
>>> import numpy as np
>>> x = np.random.default_rng(0).normal(size=(50, 2)) @ [[1.0, 0.5], [0.0, 2.0]]
>>> z, c = restricted_noise(x, 0.5, np.random.default_rng(1))
>>> bool(np.allclose(z.mean(0), x.mean(0)) and np.allclose(np.cov(z.T), np.cov(x.T)))
True
"""

from __future__ import annotations

import numpy as np

from ...errors import TreatmentError

__all__ = ["restricted_noise", "orthogonal_noise", "restricted_block"]


def _factor(cov: np.ndarray) -> np.ndarray:
    """A p×p matrix F with ``F'F = cov``: the upper Cholesky factor, or the symmetric square root
    of the positive part when ``cov`` is singular."""
    try:
        return np.linalg.cholesky(cov).T
    except np.linalg.LinAlgError:
        w, v = np.linalg.eigh((cov + cov.T) / 2)
        return (v * np.sqrt(np.clip(w, 0.0, None))) @ v.T


def orthogonal_noise(xc: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """An n×p block ``e₀`` with zero column means, ``xc'e₀ = 0`` and ``e₀'e₀ = (n − 1)·I``.

    ``xc`` is the centred n×p data (steps 1–3 of the module docstring: Gaussian draws projected
    off ``[1, xc]`` and orthonormalised by QR). Needs n ≥ 2p + 1.

    Example
    -------
    >>> xc = np.arange(10.0).reshape(5, 2) ** 2; xc -= xc.mean(0)
    >>> e = orthogonal_noise(xc, np.random.default_rng(0))
    >>> bool(np.allclose(e.T @ xc, 0) and np.allclose(e.T @ e, 4 * np.eye(2)))
    True
    """
    n, p = xc.shape
    if n < 2 * p + 1:
        raise TreatmentError(
            f"restricted noise: needs at least 2p + 1 = {2 * p + 1} complete records for {p} "
            f"variable(s), got {n}")
    g = rng.standard_normal((n, p))
    q1, _ = np.linalg.qr(np.hstack([np.ones((n, 1)), xc]))
    g -= q1 @ (q1.T @ g)
    g -= q1 @ (q1.T @ g)  # second pass: orthogonality to rounding level
    q2, r2 = np.linalg.qr(g)
    # fix the signs so the result is a deterministic function of the draws
    q2 *= np.where(np.diag(r2) < 0, -1.0, 1.0)
    return np.sqrt(n - 1.0) * q2


def restricted_noise(x: np.ndarray, noise: float,
                     rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """Restricted noise on a complete n×p float block (see the module docstring).

    Returns the perturbed block, whose column means and sample covariance equal those of ``x``
    exactly (to rounding), and the factor ``c = 1/sqrt(1 + noise²)``.

    Reference: Kim (1986); Tendick & Matloff (1994); Brand (2002).

    Example
    -------
    >>> x = np.column_stack([np.arange(9.0), np.arange(9.0) ** 2])
    >>> z, c = restricted_noise(x, 1.0, np.random.default_rng(3))
    >>> round(c, 4), bool(np.allclose(np.cov(z.T), np.cov(x.T)))
    (0.7071, True)
    """
    n, p = x.shape
    mean = x.mean(axis=0)
    xc = x - mean
    cov = (xc.T @ xc) / (n - 1)
    e = noise * orthogonal_noise(xc, rng) @ _factor(cov)
    c = 1.0 / np.sqrt(1.0 + noise ** 2)
    return mean + c * (xc + e), float(c)


def restricted_block(x: np.ndarray, noise: float, rng: np.random.Generator,
                     notes: dict) -> tuple[np.ndarray, np.ndarray]:
    """`restricted_noise` on the complete records of ``x`` (NaN = missing; incomplete records
    unchanged); fills the notes ``c`` and ``untouched_incomplete``. Returns the new block and the
    standard deviation of the change per column, ``s_j·sqrt(2(1 − c))``.

    Example
    -------
    >>> x = np.column_stack([np.arange(9.0), np.r_[np.nan, np.arange(8.0) ** 2]])
    >>> notes = {}
    >>> z, sd = restricted_block(x, 0.5, np.random.default_rng(0), notes)
    >>> notes["untouched_incomplete"], bool(np.isnan(z[0, 1]) and z[0, 0] == 0)
    (1, True)
    """
    complete = ~np.isnan(x).any(axis=1)
    idx = np.flatnonzero(complete)
    z = x.copy()
    if noise == 0:
        c = 1.0
    else:
        z[idx], c = restricted_noise(x[idx], noise, rng)
    notes["c"] = c
    notes["untouched_incomplete"] = int((~complete).sum())
    sd = x[idx].std(axis=0, ddof=1) if len(idx) > 1 else np.full(x.shape[1], np.nan)
    return z, sd * np.sqrt(2.0 * (1.0 - c))
