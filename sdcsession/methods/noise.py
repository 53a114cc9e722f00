"""Noise addition for numeric variables: additive, correlated, correlated2, outliers and ROMM.

Units. ``noise`` is a fraction of a standard deviation (``noise=0.5`` means noise with half the
variable's standard deviation). sdcMicro's ``addNoise`` takes percentages: its ``noise=150`` is our
``noise=1.5`` for ``method="additive"``.

Methods (``x`` the n×p block of the treated columns, ``sd_j`` the sample standard deviation of
column j, ``Σ`` the sample covariance matrix, ``x̄`` the column means):

``"additive"``
    ``z_ij = x_ij + e_ij``, ``e_ij ~ N(0, (noise·sd_j)²)`` independent (Brand 2002, eq. 1).
``"correlated"``
    ``z_i = x_i + e_i``, ``e_i ~ N_p(0, noise²·Σ)``: noise with the covariance structure of the
    data, so correlation coefficients are preserved in expectation while variances grow by the
    factor ``1 + noise²`` (Kim 1986; Brand 2002, section 2.2).
``"correlated2"``
    Kim's transformation (Kim 1986; Brand 2002, section 2.3): ``z_i = c·(x_i + e_i) + (1 − c)·x̄``
    with ``e_i ~ N_p(0, noise²·Σ)`` and ``c = 1/sqrt(1 + noise²)``. Then ``E[z] = x̄`` and
    ``Cov(z) = c²(1 + noise²)Σ = Σ``: means and covariances are preserved in expectation.
``"outliers"``
    Additive noise (as ``"additive"``) only for the multivariate outliers: records whose squared
    robust Mahalanobis distance exceeds the 0.975 quantile of χ²_p. The robust location and
    scatter are a minimum covariance determinant estimate (Rousseeuw & Van Driessen 1999:
    concentration steps with h = ⌈(n + p + 1)/2⌉ started from the coordinatewise median and the
    MAD-scaled diagonal, consistency-corrected).
``"romm"``
    Random orthogonal matrix masking (Ting, Fienberg & Trottini 2008): ``Z = A·X`` with A a
    random orthogonal matrix such that ``A·1 = 1``; then ``1'Z = 1'X`` and ``Z'Z = X'X``: means
    and the covariance matrix are preserved *exactly*. An n×n matrix is impossible for large n, so
    the records are split at random into blocks of ``block`` records (the remainder joins the last
    block) and each block gets its own A = H'·diag(1, B)·H, H the Helmert basis (first row
    ``1'/sqrt(b)``) and B a random rotation of the d = b − 1 contrasts:
    ``B = R_1·R_2 ⋯ R_{d−1}``, where R_k rotates, within coordinates k…d, the axis e_k onto the
    direction of ``v_k = e_k + noise·g_k`` (g_k standard normal on those coordinates) in the plane
    of e_k and v_k, leaving the orthogonal complement of that plane fixed. ``noise = 0`` gives
    B = I (nothing changes); small ``noise`` small rotations; as ``noise → ∞`` each v_k has a
    uniform direction and B is Haar-distributed on SO(d) (Stewart 1980's construction, with plane
    rotations instead of reflections). Each R_k is applied to the block as a rank-two update, so
    the cost is O(b²·p) per block and no b×b matrix is ever formed.
    Block-wise preservation implies global preservation of the means and covariance.

Missing values stay missing. ``sd_j`` and ``Σ`` are computed from the observed values (Σ from the
complete records). ``"additive"``, ``"correlated"`` and ``"correlated2"`` perturb every observed
value; ``"outliers"`` and ``"romm"`` treat complete records only and leave incomplete records as
they are (the notes count them).

References: Brand, R. (2002) Microdata protection through noise addition, LNCS 2316, 97–116.
Kim, J. (1986) A method for limiting disclosure in microdata based on random noise and
transformation, Proc. ASA SRM, 370–374. Ting, D., Fienberg, S. E. & Trottini, M. (2008) Random
orthogonal matrix masking methodology for microdata release, IJICS 2, 86–105. Stewart, G. W.
(1980) The efficient generation of random orthogonal matrices, SIAM J. Numer. Anal. 17, 403–409.

Example
-------
>>> import numpy as np, pandas as pd
>>> df = pd.DataFrame({"x": np.arange(1000.0)})
>>> out, notes = add_noise(df, ["x"], method="additive", noise=0.1, rng=np.random.default_rng(1))
>>> round(notes["sd_spec"]["x"], 2), bool(abs(notes["sd_realised"]["x"] / 28.88 - 1) < 0.1)
(28.88, True)
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd
from scipy import stats

from ..errors import ParameterError, TreatmentError
from ..risk.robust import mcd
from ..roles import Roles
from .base import Result, Treatment, param_names, require_columns

__all__ = ["add_noise", "AddNoise", "NOISE_METHODS", "robust_distance"]

NOISE_METHODS = ("additive", "correlated", "correlated2", "outliers", "romm")


# --------------------------------------------------------------------------- shared helpers
def _names(value: Any, what: str) -> tuple[str, ...]:
    """Column names as a non-empty tuple, or :class:`ParameterError`."""
    return param_names(value, what, required=True)


def _opt_names(value: Any, what: str) -> tuple[str, ...]:
    return param_names(value, what, unique=False)


def _fraction(value: Any, what: str) -> float:
    """A float in [0, 1] or :class:`ParameterError`."""
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{what}: expected a number in [0, 1], got {value!r}") from None
    if isinstance(value, bool) or not (0.0 <= f <= 1.0):
        raise ParameterError(f"{what}: expected a number in [0, 1], got {value!r}")
    return f


def numeric_block(data: pd.DataFrame, columns: tuple[str, ...] | list[str], what: str,
                  *, min_sd: bool = True) -> np.ndarray:
    """The columns as an n×p float64 array (NaN = missing), checked for numeric use.

    Raises :class:`TreatmentError` for unknown, non-numeric (including categorical and boolean),
    all-missing, infinite or (with ``min_sd``) constant columns.

    >>> numeric_block(pd.DataFrame({"a": [1, 2, None]}), ["a"], "noise").ravel().tolist()
    [1.0, 2.0, nan]
    """
    require_columns(data, list(columns), what)
    out = np.empty((len(data), len(columns)), dtype=np.float64)
    for j, c in enumerate(columns):
        s = data[c]
        if (not pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype)
                or isinstance(s.dtype, pd.CategoricalDtype)):
            raise TreatmentError(
                f"{what}: column {c!r} must be numeric (continuous), has dtype {s.dtype}; "
                "categorical variables are treated with pram or recoding")
        v = s.to_numpy(dtype=np.float64, na_value=np.nan)
        obs = v[~np.isnan(v)]
        if obs.size == 0:
            raise TreatmentError(f"{what}: column {c!r} has only missing values")
        if np.isinf(obs).any():
            raise TreatmentError(f"{what}: column {c!r} has infinite values")
        if min_sd and (obs.size < 2 or np.ptp(obs) == 0):
            raise TreatmentError(
                f"{what}: column {c!r} is constant (standard deviation 0); nothing to perturb")
        out[:, j] = v
    return out


def _put(data: pd.DataFrame, columns: tuple[str, ...], z: np.ndarray) -> pd.DataFrame:
    """``data`` with ``columns`` replaced by the float columns of ``z`` (same index)."""
    return data.assign(**{c: pd.Series(z[:, j], index=data.index, name=c)
                          for j, c in enumerate(columns)})


# --------------------------------------------------------------------------- robust distance
def robust_distance(x: np.ndarray, *, max_steps: int = 50) -> np.ndarray:
    """Squared robust Mahalanobis distances from a minimum covariance determinant (MCD) fit.

    Algorithm: start from the coordinatewise median and the diagonal of squared MADs (×1.4826);
    take the h = ⌈(n + p + 1)/2⌉ records with the smallest distance, re-estimate mean and
    covariance from them, repeat until the subset no longer changes (concentration steps,
    Rousseeuw & Van Driessen 1999; each step does not increase the determinant). The scatter is
    multiplied by the consistency factor ``median(d²)/χ²_p(0.5)``. A singular subset covariance
    gets a small ridge instead of an error. The fit is :func:`sdcsession.risk.robust.mcd`
    (``h="ceil"``, ``exact_fit="ridge"``, no random starts).

    For n > ``SUBSAMPLE`` (200,000) records the concentration steps run on a systematic subsample
    of ``SUBSAMPLE`` records (every ⌈n/SUBSAMPLE⌉-th in order: deterministic, no random draw), as
    FastMCD does for large n; the final distances and consistency factor use all records.

    Parameters: ``x`` n×p float array without missing values (n > p). Returns an array of n
    squared distances.

    Example
    -------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(500, 2)); x[0] = [30, -30]
    >>> d2 = robust_distance(x); bool(d2[0] > 100 and np.median(d2) < 2)
    True
    """
    n, p = x.shape
    if n <= p + 1:
        raise TreatmentError(f"robust distance: need more than {p + 1} complete records, got {n}")
    return mcd(x, h="ceil", max_steps=max_steps, subsample=SUBSAMPLE,
               exact_fit="ridge").raw_distances


#: above this many records the MCD concentration steps run on a systematic subsample
SUBSAMPLE = 200_000


# --------------------------------------------------------------------------- kernel
def _rotate_blocks(rng: np.random.Generator, y: np.ndarray, noise: float) -> np.ndarray:
    """``B_i·y_i`` for each block i of ``y`` (m×d×p), B_i = R_1 ⋯ R_{d−1} drawn as in the module
    docstring; the rotations are applied right to left as rank-two updates, vectorised over blocks.

    With ``v = e_k + noise·g`` on coordinates k…d, ``c = v_k/‖v‖``, ``s = ‖v_{k+1:}‖/‖v‖`` and ŵ the
    unit vector of ``v_{k+1:}``, R_k maps ``y_k ↦ c·y_k − s·(ŵ'y)`` and
    ``y_{k+1:} ↦ y_{k+1:} + ŵ·((c − 1)·(ŵ'y) + s·y_k)``: the rotation by arccos c in the plane of e_k
    and ŵ.
    """
    m, d, p = y.shape
    yt = np.ascontiguousarray(np.swapaxes(y, 1, 2))  # (m, p, d): contrasts contiguous
    sizes = np.arange(d, 1, -1)  # dimension of the subspace of R_1 … R_{d−1}
    offs = np.concatenate([[0], np.cumsum(sizes)])
    g = rng.standard_normal((m, int(offs[-1])))
    g *= noise
    for k in range(d - 2, -1, -1):  # loop over the d − 1 rotations, vectorised over blocks
        v = g[:, offs[k]:offs[k + 1]]
        v0 = v[:, 0] + 1.0
        w = v[:, 1:]
        wn2 = np.einsum("ij,ij->i", w, w)
        norm = np.sqrt(wn2 + v0 * v0)
        wn = np.sqrt(wn2)
        c = v0 / norm
        s = wn / norm
        what = w / np.where(wn > 0, wn, 1.0)[:, None]
        yk = yt[:, :, k]
        t = (yt[:, :, k + 1:] @ what[:, :, None])[:, :, 0]
        coef = (c - 1.0)[:, None] * t + s[:, None] * yk
        yt[:, :, k + 1:] += coef[:, :, None] * what[:, None, :]
        yt[:, :, k] = c[:, None] * yk - s[:, None] * t
    return np.swapaxes(yt, 1, 2)


def _helmert(b: int) -> np.ndarray:
    """Orthonormal b×b Helmert matrix; first row 1/sqrt(b)."""
    h = np.zeros((b, b))
    h[0] = 1.0 / np.sqrt(b)
    for i in range(1, b):
        h[i, :i] = 1.0 / np.sqrt(i * (i + 1))
        h[i, i] = -i / np.sqrt(i * (i + 1))
    return h


def _romm(x: np.ndarray, noise: float, block: int, rng: np.random.Generator) -> np.ndarray:
    n, p = x.shape
    perm = rng.permutation(n)
    out = x.copy()
    nb = n // block
    if nb == 0:
        sizes = [n]
    else:
        sizes = [block] * nb
        sizes[-1] += n - nb * block
    # the regular blocks in one batch, the last (larger) block alone
    regular = sizes.count(block) if sizes[-1] != block else len(sizes)
    if regular:
        idx = perm[: regular * block].reshape(regular, block)
        xb = x[idx]  # (regular, block, p)
        h = _helmert(block)
        y = h @ xb
        y[:, 1:, :] = _rotate_blocks(rng, y[:, 1:, :], noise)
        out[idx] = h.T @ y
    if regular < len(sizes):
        idx = perm[regular * block:]
        b = len(idx)
        h = _helmert(b)
        y = h @ x[idx]
        y[1:] = _rotate_blocks(rng, y[None, 1:], noise)[0]
        out[idx] = h.T @ y
    return out


def add_noise(data: pd.DataFrame, columns: list[str] | tuple[str, ...], *,
              method: str = "additive", noise: float = 0.15, block: int = 20,
              rng: np.random.Generator) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Add random noise to numeric columns (see the module docstring for every method's formula).

    Parameters
    ----------
    data : the microdata (not modified).
    columns : numeric columns to perturb.
    method : ``"additive"``, ``"correlated"``, ``"correlated2"``, ``"outliers"`` or ``"romm"``.
    noise : noise standard deviation as a fraction of each variable's standard deviation
        (sdcMicro's ``noise=150`` is ``noise=1.5``); for ``"romm"`` the perturbation strength.
    block : block size for ``"romm"`` (records per random orthogonal matrix).
    rng : the only source of randomness.

    Returns the new DataFrame (treated columns as float64) and notes: ``sd_spec`` (specified noise
    sd per column), ``sd_realised`` (standard deviation of ``new − old`` over the changed values),
    ``changed`` per column, ``n_outliers`` / ``untouched_incomplete`` where relevant.

    Reference: Brand (2002); Kim (1986); Ting, Fienberg & Trottini (2008).

    Example
    -------
    >>> df = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0) ** 2})
    >>> out, notes = add_noise(df, ["a", "b"], method="romm", noise=1.0,
    ...                        rng=np.random.default_rng(0))
    >>> bool(np.allclose(out.cov(), df.cov()) and np.allclose(out.mean(), df.mean()))
    True
    """
    columns = tuple(columns)
    if method not in NOISE_METHODS:
        raise ParameterError(f"method: expected one of {NOISE_METHODS}, got {method!r}")
    x = numeric_block(data, columns, "add_noise")
    n, p = x.shape
    miss = np.isnan(x)
    complete = ~miss.any(axis=1)
    sd = np.nanstd(x, axis=0, ddof=1)
    notes: dict[str, Any] = {"method": method, "noise": float(noise)}
    if method in ("additive", "outliers"):
        rows = np.ones(n, dtype=bool)
        if method == "outliers":
            xc = x[complete]
            d2 = robust_distance(xc)
            flag = d2 > stats.chi2.ppf(0.975, p)
            rows = np.zeros(n, dtype=bool)
            rows[np.flatnonzero(complete)[flag]] = True
            notes["n_outliers"] = int(flag.sum())
            notes["untouched_incomplete"] = int((~complete).sum())
        e = rng.standard_normal((int(rows.sum()), p)) * (noise * sd)
        z = x.copy()
        z[rows] += e
        sd_spec = noise * sd
    elif method in ("correlated", "correlated2"):
        xc = x[complete]
        if len(xc) < 2:
            raise TreatmentError("add_noise: fewer than 2 complete records to estimate covariance")
        cov = np.cov(xc, rowvar=False).reshape(p, p)
        e = rng.multivariate_normal(np.zeros(p), (noise ** 2) * cov, size=n, method="eigh")
        z = x + e
        sd_spec = noise * np.sqrt(np.diag(cov))
        if method == "correlated2":
            c = 1.0 / np.sqrt(1.0 + noise ** 2)
            z = c * z + (1.0 - c) * np.nanmean(x, axis=0)
            notes["c"] = c
            sd_spec = np.sqrt(np.diag(cov) * 2 * (1 - c))  # sd of z − x in expectation
    else:  # romm
        if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 3:
            raise ParameterError(f"block: expected an integer ≥ 3, got {block!r}")
        z = x.copy()
        idx = np.flatnonzero(complete)
        if len(idx) >= 3:
            z[idx] = _romm(x[idx], float(noise), int(min(block, len(idx))), rng)
        notes["untouched_incomplete"] = int((~complete).sum())
        notes["block"] = int(block)
        sd_spec = np.full(p, np.nan)
    z[miss] = np.nan
    d = z - x
    changed = (~miss) & (d != 0)
    notes["sd_spec"] = {c: float(sd_spec[j]) for j, c in enumerate(columns)}
    notes["sd_realised"] = {
        c: (float(np.std(d[changed[:, j], j], ddof=1)) if changed[:, j].sum() > 1 else 0.0)
        for j, c in enumerate(columns)}
    notes["changed"] = {c: int(changed[:, j].sum()) for j, c in enumerate(columns)}
    return _put(data, columns, z), notes


# --------------------------------------------------------------------------- treatment
@attrs.frozen
class AddNoise(Treatment):
    """Noise addition treatment (tag ``"add_noise"``); see :func:`add_noise`.

    >>> AddNoise(["income"], noise=1.5).to_dict()["noise"]
    1.5
    """

    type: ClassVar[str] = "add_noise"
    random: ClassVar[bool] = True

    columns: tuple[str, ...] = attrs.field(converter=lambda v: _names(v, "columns"))
    method: str = attrs.field(default="additive")
    noise: float = attrs.field(default=0.15)
    block: int = attrs.field(default=20)

    @method.validator
    def _m(self, _a: Any, v: Any) -> None:
        if v not in NOISE_METHODS:
            raise ParameterError(f"method: expected one of {NOISE_METHODS}, got {v!r}")

    @noise.validator
    def _n(self, _a: Any, v: Any) -> None:
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                or not np.isfinite(v) or v <= 0:
            raise ParameterError(
                f"noise: expected a positive number (fraction of a standard deviation; "
                f"sdcMicro's noise=150 is 1.5), got {v!r}")
        if v > 50:
            raise ParameterError(
                f"noise: {v!r} is a fraction of a standard deviation, not a percentage "
                f"(sdcMicro's noise={v!r} would be noise={v / 100!r})")

    @block.validator
    def _b(self, _a: Any, v: Any) -> None:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 3:
            raise ParameterError(f"block: expected an integer ≥ 3, got {v!r}")

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        numeric_block(data, self.columns, "add_noise")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = add_noise(data, self.columns, method=self.method, noise=self.noise,
                               block=self.block, rng=rng)
        return Result(out, notes=notes)
