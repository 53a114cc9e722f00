"""Noise addition for numeric variables: additive, correlated, correlated2, outliers and ROMM.

Methods (``x`` the n×p block of the treated columns, ``s_j`` the sample standard deviation of the
observed values of column j, ``Σ`` the sample covariance matrix, ``x̄_j`` the mean of the observed
values of column j). What ``noise`` means differs by method:

``"additive"``
    ``z_ij = x_ij + e_ij``, ``e_ij ~ N(0, (noise·s_j)²)`` independent (Brand 2002, eq. 1):
    ``noise`` is the noise standard deviation as a fraction of the variable's.
``"additive0"``
    sdcMicro's ``additive0``: additive noise on every value except the zeros, which stay zero
    (``s_j`` over all observed values, zeros included); here a non-zero value also keeps its
    sign (noise crossing zero is reflected at zero). See `sdcsession.methods.noise.domain`.
``"correlated"``
    ``z_i = x_i + e_i``, ``e_i ~ N_p(0, noise²·Σ)``: each variable's noise has standard deviation
    ``noise·s_j`` as for additive noise, but the noise has the correlations of the data, so
    correlation coefficients are preserved in expectation while variances grow by the factor
    ``1 + noise²`` (Kim 1986; Brand 2002, section 2.2). ``noise²`` scales the covariance.
``"correlated2"``
    Kim's transformation (Kim 1986; Brand 2002, section 2.3): ``z_i = c·(x_i + e_i) + (1 − c)·x̄``
    with ``e_i ~ N_p(0, noise²·Σ)`` and ``c = 1/sqrt(1 + noise²)``. Then ``E[z] = x̄`` and
    ``Cov(z) = c²(1 + noise²)Σ = Σ``: means and covariances are preserved in expectation. The
    released value moves by ``z − x = (c − 1)(x − x̄) + c·e``, standard deviation
    ``s_j·sqrt(2(1 − c))`` (``sd_spec``).
``"outliers"``
    Additive noise only on the outliers of `sdcsession.methods.noise.outliers` (sdcMicro's rule
    for its method ``"outdect"``: a value above its variable's 99 % quantile, or a robust
    Mahalanobis distance above the χ²_p(0.975) limit), with sdcMicro's magnitude for that
    method: ``e_ij ~ N(0, (noise·1.96·s_j/sqrt(n))²)`` for every variable j of an outlier (n all
    records), i.e. ``noise`` is a multiple of the half-width of the 95 % confidence interval of
    the mean, not of ``s_j``.
``"romm"``
    Random orthogonal matrix masking (Ting, Fienberg & Trottini 2008): ``Z = A·X`` with A a
    random orthogonal matrix such that ``A·1 = 1``; then ``1'Z = 1'X`` and ``Z'Z = X'X``: means
    and the covariance matrix are preserved *exactly*. An n×n matrix is impossible for large n, so
    the records are split at random into blocks of ``block`` records (the remainder joins the last
    block) and each block gets its own A = H'·diag(1, B)·H, H the Helmert basis (first row
    ``1'/sqrt(b)``) and B a random rotation of the d = b − 1 contrasts:
    ``B = R_1·R_2 ⋯ R_{d−1}``, where R_k rotates, within coordinates k…d, the axis e_k onto the
    direction of ``v_k = e_k + noise·g_k`` (g_k standard normal on those coordinates) in the plane
    of e_k and v_k, leaving the orthogonal complement of that plane fixed. ``noise`` is the
    perturbation strength: ``noise = 0`` gives B = I (nothing changes); small ``noise`` small
    rotations; as ``noise → ∞`` each v_k has a uniform direction and B is Haar-distributed on
    SO(d) (Stewart 1980's construction, with plane rotations instead of reflections). Each R_k is
    applied to the block as a rank-two update, so the cost is O(b²·p) per block and no b×b matrix
    is ever formed. Block-wise preservation implies global preservation of the means and
    covariance.
``"restricted"``
    Restricted noise (`sdcsession.methods.noise.restricted`): ``z = x̄ + c·(x − x̄ + e)`` with
    ``c = 1/sqrt(1 + noise²)`` and noise ``e`` built to be exactly orthogonal to the data with
    sample covariance exactly ``noise²·Σ``: the sample means and covariance matrix are preserved
    *exactly* (complete records only; sdcMicro's ``"restr"`` forgets to add the noise).

sdcMicro's ``addNoise(noise = N)`` takes percentages and uses them differently per method:
``"additive"`` and ``"outdect"`` (our ``"outliers"``) N/100 → ``noise = N/100`` (its default 150 is
``noise=1.5``); ``"correlated"`` draws with covariance ``(N/100)·Σ`` → ``noise = sqrt(N/100)``;
``"correlated2"`` ignores N and uses ``delta`` (default 0.1): ``z = sqrt(1 − δ²)·x +
(1 − sqrt(1 − δ²))·x̄ + δ·s_j·ε`` → ``noise = δ/sqrt(1 − δ²)`` gives the same c and noise variance,
but sdcMicro's ε is independent across variables, ours has the covariance of the data;
``"ROMM"`` ignores N and uses ``p`` (default 0.001), the same role as our ``noise`` (the identity
plus ``p`` times a Gaussian matrix, orthonormalised) but over all n records at once, without
preserving the means.

Missing values stay missing, and a column with only missing values passes through unchanged
(an `SdcWarning` names it; notes ``all_missing``). ``s_j`` and ``x̄_j``
are computed from the observed values of column j. ``Σ`` is the covariance of the complete
records when there are no missing values and otherwise the **pairwise-complete** covariance: the
variance of each column over its observed values, the covariance of each pair over the records
observing both (R's ``cov(use = "pairwise.complete.obs")``; sdcMicro's ``"correlated"`` uses the
complete records only). A pair observed together in fewer than 2 records gets covariance 0
(independent noise for that pair); a pairwise matrix that is not positive semidefinite is
replaced by a positive semidefinite one close to it with the same variances (negative
eigenvalues of the correlation matrix set to 0, diagonal rescaled to 1); both cases are reported by an ``SdcWarning`` and the
notes (``covariance_undefined_pairs``, ``covariance_repaired``). ``"additive"``, ``"correlated"``
and ``"correlated2"`` perturb every observed value: a record with missing values draws the full
noise vector ``e_i`` and keeps the entries of its observed variables, so the noise of the
observed variables has covariance ``noise²·Σ`` restricted to them and, for ``"correlated2"``,
every pair's covariance over the records observing both is preserved in expectation (unless
the matrix had to be repaired).
``"outliers"`` tests incomplete records by the univariate rule only and perturbs their observed
values when flagged. ``"romm"`` treats complete records only and leaves incomplete records as
they are (notes ``untouched_incomplete``).

Bounds and domain warnings (every method): ``bounds=(low, high)`` folds the perturbed values
into the variable's domain by reflection at the bounds (not for ``"romm"`` and
``"restricted"``, whose exact moments a reflection would break); an `SdcWarning` names a
variable that noise made negative or no longer whole-numbered (`sdcsession.methods.noise.domain`
gives the rules and why reflection).

References: Brand, R. (2002) Microdata protection through noise addition, LNCS 2316, 97–116.
Kim, J. (1986) A method for limiting disclosure in microdata based on random noise and
transformation, Proc. ASA SRM, 370–374. Ting, D., Fienberg, S. E. & Trottini, M. (2008) Random
orthogonal matrix masking methodology for microdata release, IJICS 2, 86–105. Stewart, G. W.
(1980) The efficient generation of random orthogonal matrices, SIAM J. Numer. Anal. 17, 403–409.
Templ, M. & Meindl, B. (2008) Robustification of microdata masking methods and the comparison
with existing methods, LNCS 5262, 177–189.

Example
-------
>>> import numpy as np, pandas as pd
>>> df = pd.DataFrame({"x": np.arange(1000.0)})
>>> out, notes = add_noise(df, ["x"], method="additive", noise=0.1, rng=np.random.default_rng(1))
>>> round(notes["sd_spec"]["x"], 2), bool(abs(notes["sd_realised"]["x"] / 28.88 - 1) < 0.1)
(28.88, True)
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError, SdcWarning, TreatmentError, user_stacklevel
from ...risk.exact_moments import column_means, column_parts, pair_parts, spread_parts
from ...risk.robust.minimum_covariance import mcd
from ...roles import Roles
from ..base import Result, Treatment, check_bool, param_names, require_columns
from .covariance import (  # noqa: F401  (repair_pairwise_covariance: kept importable from here)
    _warn_covariance,
    correlated_draws,
    noise_moments,
    pairwise_covariance,
    realised_sd,
    repair_pairwise_covariance,
)
from .domain import (
    BOUNDED_METHODS,
    bound_block,
    check_bounds,
    check_within,
    domain_counts,
    domain_facts,
    warn_domain_counts,
)
from .outliers import detect_outliers
from .restricted import restricted_block
from .romm import _rotate_blocks, romm  # noqa: F401  (_rotate_blocks: kept importable from here)

__all__ = ["add_noise", "AddNoise", "NOISE_METHODS", "robust_distance", "pairwise_covariance"]

NOISE_METHODS = ("additive", "correlated", "correlated2", "outliers", "romm", "restricted",
                 "additive0")


# --------------------------------------------------------------------------- shared helpers
def _names(value: Any, what: str) -> tuple[str, ...]:
    """Column names as a non-empty tuple, or `ParameterError`."""
    return param_names(value, what, required=True)


def _opt_names(value: Any, what: str) -> tuple[str, ...]:
    return param_names(value, what, unique=False)


def _fraction(value: Any, what: str) -> float:
    """A float in [0, 1] or `ParameterError`."""
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

    Raises `TreatmentError` for unknown, non-numeric (including categorical and boolean),
    all-missing, infinite or (with ``min_sd``) constant columns, and columns whose standard
    deviation underflows to 0 or overflows in double precision (spans below 1e-150 or above
    1e150 are checked).

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
        observed = v.size - int(np.count_nonzero(np.isnan(v)))  # no copy of the observed values
        if observed == 0:
            raise TreatmentError(f"{what}: column {c!r} has only missing values")
        if np.isinf(v).any():
            raise TreatmentError(f"{what}: column {c!r} has infinite values")
        if min_sd and (observed < 2 or np.fmin.reduce(v) == np.fmax.reduce(v)):
            raise TreatmentError(
                f"{what}: column {c!r} is constant (standard deviation 0); nothing to perturb")
        span = np.fmax.reduce(v) - np.fmin.reduce(v) if min_sd else 1.0
        if not 1e-150 < span < 1e150 and not 0 < np.nanstd(v, ddof=1) < np.inf:
            raise TreatmentError(  # squared deviations underflow to 0 or overflow
                f"{what}: column {c!r} has a standard deviation of 0 or infinity in double "
                "precision (values too close together or too large); rescale the variable")
        out[:, j] = v
    return out


def _put(data: pd.DataFrame, columns: tuple[str, ...], z: np.ndarray) -> pd.DataFrame:
    """``data`` with ``columns`` replaced by the float columns of ``z`` (same index)."""
    return data.assign(**{c: pd.Series(z[:, j], index=data.index, name=c)
                          for j, c in enumerate(columns)})


# --------------------------------------------------------------------------- robust distance
def robust_distance(x: np.ndarray, *, max_steps: int = 50) -> np.ndarray:
    """Squared robust Mahalanobis distances from a raw minimum covariance determinant (MCD) fit.

    ``add_noise(method="outliers")`` does not use these raw distances but sdcMicro's rule with the
    reweighted fit (`sdcsession.methods.noise.outliers.detect_outliers`). Algorithm: start from the coordinatewise median and the diagonal of squared MADs (×1.4826);
    take the h = ⌈(n + p + 1)/2⌉ records with the smallest distance, re-estimate mean and
    covariance from them, repeat until the subset no longer changes (concentration steps,
    Rousseeuw & Van Driessen 1999; each step does not increase the determinant). The scatter is
    multiplied by the consistency factor ``median(d²)/χ²_p(0.5)``. A singular subset covariance
    gets a small ridge instead of an error. The fit is `sdcsession.risk.robust.minimum_covariance.mcd`
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


def _check_noise(value: Any, *, allow_zero: bool) -> float:
    """``noise`` as a float, or `ParameterError` (not a number, negative, not finite, or a
    percentage by mistake)."""
    low = "a number >= 0" if allow_zero else "a positive number"
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ParameterError(f"noise: expected {low}, got {value!r}")
    v = float(value) if abs(value) < 1e300 else float("inf")
    if not np.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise ParameterError(
            f"noise: expected {low} (a fraction: sdcMicro's noise=150 is 1.5 for additive noise), "
            f"got {value!r}")
    if v > 50:
        raise ParameterError(
            f"noise: {value!r} is a fraction, not a percentage (sdcMicro's noise={value!r} "
            f"would be noise={v / 100!r} for additive noise)")
    return v


def _all_missing(data: pd.DataFrame, columns: tuple[str, ...]) -> tuple[str, ...]:
    """The columns of ``columns`` without a single observed value."""
    return tuple(c for c in columns if not data[c].notna().any())


def add_noise(data: pd.DataFrame, columns: list[str] | tuple[str, ...], *,
              method: str = "additive", noise: float = 0.15, block: int = 20,
              bounds: tuple[float | None, float | None] | None = None, warn_domain: bool = True,
              rng: np.random.Generator) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Add random noise to numeric columns (see the module docstring for every method's formula).

    Parameters
    ----------
    data : the microdata (not modified).
    columns : numeric columns to perturb; a column with only missing values is passed through
        unchanged with an `SdcWarning`.
    method : ``"additive"``, ``"additive0"`` (no noise on zeros), ``"correlated"``,
        ``"correlated2"``, ``"outliers"``, ``"romm"`` or ``"restricted"``.
    noise : amount of noise, ≥ 0 (0 changes nothing). ``"additive"``, ``"correlated"``,
        ``"correlated2"``: noise standard deviation as a fraction of each variable's standard
        deviation (``noise²·Σ`` is the noise covariance of the correlated methods);
        ``"outliers"``: a multiple of ``1.96·s_j/sqrt(n)``; ``"romm"``: the perturbation
        strength. sdcMicro's ``noise=150`` is ``noise=1.5`` for additive noise; the module
        docstring gives the mapping for every method.
    block : block size for ``"romm"`` (records per random orthogonal matrix).
    bounds : ``(low, high)``, each a number or ``None`` (unbounded side): the variables' domain;
        perturbed values are reflected into it (`sdcsession.methods.noise.domain`); observed
        values outside it are a `TreatmentError`. Not for ``"romm"`` and ``"restricted"``.
    warn_domain : warn (`SdcWarning`) when noise makes a variable without negative values
        negative, or one of whole numbers not whole (default True; the notes count them anyway).
    rng : the only source of randomness.

    Returns the new DataFrame (treated columns as float64) and notes: ``sd_spec`` (specified noise
    sd per column), ``sd_realised`` (standard deviation of ``new − old`` over the changed values),
    ``changed`` per column, ``all_missing``, and per method ``n_outliers``
    (``n_outliers_univariate``, ``n_outliers_robust``, ``quantile_99``, ``robust_limit``,
    ``mcd_singular``), ``c``, ``covariance_undefined_pairs`` / ``covariance_repaired``,
    ``untouched_incomplete``; ``bounded`` (values reflected at the bounds per column) and
    ``domain`` (per column leaving its domain: ``negative``, ``not_whole`` counts).

    Reference: Brand (2002); Kim (1986); Ting, Fienberg & Trottini (2008); Templ & Meindl (2008).

    Example
    -------
    >>> df = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0) ** 2})
    >>> out, notes = add_noise(df, ["a", "b"], method="romm", noise=1.0,
    ...                        rng=np.random.default_rng(0))
    >>> bool(np.allclose(out.cov(), df.cov()) and np.allclose(out.mean(), df.mean()))
    True
    """
    columns = _names(columns, "columns")
    if not isinstance(method, str) or method not in NOISE_METHODS:
        raise ParameterError(f"method: expected one of {NOISE_METHODS}, got {method!r}")
    noise = _check_noise(noise, allow_zero=True)
    bounds = _check_bounds_for(bounds, method)
    warn_domain = check_bool("warn_domain", warn_domain)
    require_columns(data, columns, "add_noise")
    empty = _all_missing(data, columns)
    notes: dict[str, Any] = {"method": method, "noise": noise, "all_missing": list(empty)}
    if empty:
        warnings.warn(f"add_noise: column(s) {list(empty)} have only missing values; passed "
                      "through unchanged", SdcWarning, stacklevel=user_stacklevel())
    columns = tuple(c for c in columns if c not in empty)
    if not columns:
        notes.update(sd_spec={}, sd_realised={}, changed={}, bounded={}, domain={})
        return data.copy(deep=False), notes
    x = numeric_block(data, columns, "add_noise")
    facts = domain_facts(x)
    check_within(columns, facts, bounds)
    n, p = x.shape
    miss = np.isnan(x)
    correlated = method in ("correlated", "correlated2")
    # exact moments (sdcsession.risk.exact_moments): the Dask path gets the same doubles
    first = [column_parts(x)]
    _, mean = column_means(first)
    sd, cov, info = noise_moments(first, [pair_parts(x, mean, cross=correlated)], correlated,
                                  bool(miss.any()))
    if method in ("additive", "additive0"):  # additive0: zeros restored in bound_block
        z = x + rng.standard_normal((n, p)) * (noise * sd)
        sd_spec = noise * sd
    elif method == "outliers":
        z, sd_spec = _outlier_noise(x, columns, noise, sd, rng, notes)
    elif correlated:
        _warn_covariance(info, columns)
        notes["covariance_undefined_pairs"] = [
            [columns[i], columns[j]] for i, j in info["covariance_undefined_pairs"]]
        notes["covariance_repaired"] = info["covariance_repaired"]
        z = x + correlated_draws(rng, (noise ** 2) * cov, n)
        sd_spec = noise * np.sqrt(np.diag(cov))
        if method == "correlated2":
            c = 1.0 / np.sqrt(1.0 + noise ** 2)
            z = c * z + (1.0 - c) * mean
            notes["c"] = c
            sd_spec = np.sqrt(np.diag(cov) * 2 * (1 - c))  # sd of z − x in expectation
    elif method == "restricted":
        z, sd_spec = restricted_block(x, noise, rng, notes)
    else:  # romm
        if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 3:
            raise ParameterError(f"block: expected an integer ≥ 3, got {block!r}")
        complete = ~miss.any(axis=1)
        z = x.copy()
        idx = np.flatnonzero(complete)
        if len(idx) >= 3:
            z[idx] = romm(x[idx], float(noise), int(min(block, len(idx))), rng)
        notes["untouched_incomplete"] = int((~complete).sum())
        notes["block"] = int(block)
        sd_spec = np.full(p, np.nan)
    z, reflected = bound_block(x, z, method, bounds)
    notes["bounded"] = ({c: int(reflected[:, j].sum()) for j, c in enumerate(columns)}
                        if bounds else {})
    notes["domain"] = warn_domain_counts(columns, facts, *domain_counts(x, z), bounds,
                                         warn_domain)
    d = z - x
    changed = (~miss) & (d != 0)
    notes["sd_spec"] = {c: float(sd_spec[j]) for j, c in enumerate(columns)}
    notes["sd_realised"] = {c: realised_sd([spread_parts(d[changed[:, j], j])])
                            for j, c in enumerate(columns)}
    notes["changed"] = {c: int(changed[:, j].sum()) for j, c in enumerate(columns)}
    return _put(data, columns, z), notes


def _check_bounds_for(bounds: Any, method: str) -> tuple[float | None, float | None] | None:
    """``bounds`` checked (`check_bounds`) and refused for the methods that keep moments
    exactly."""
    b = check_bounds(bounds)
    if b is not None and method not in BOUNDED_METHODS:
        raise ParameterError(f"bounds: method {method!r} preserves the means and covariance "
                             f"matrix exactly, which bounds would break; use one of "
                             f"{BOUNDED_METHODS} with bounds")
    return b


def _outlier_noise(x: np.ndarray, columns: tuple[str, ...], noise: float, sd: np.ndarray,
                   rng: np.random.Generator, notes: dict[str, Any]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``x`` with noise ``N(0, (noise·1.96·s_j/sqrt(n))²)`` on the outliers (sdcMicro's "outdect"
    rule and magnitude); fills the outlier notes. Returns the new block and the noise sds."""
    n, p = x.shape
    out = detect_outliers(x, subsample=SUBSAMPLE)
    sd_spec = noise * 1.96 * sd / np.sqrt(n)
    z = x.copy()
    z[out.flag] += rng.standard_normal((int(out.flag.sum()), p)) * sd_spec
    notes.update(n_outliers=int(out.flag.sum()), n_outliers_univariate=int(out.univariate.sum()),
                 n_outliers_robust=int(out.robust.sum()), robust_limit=out.limit,
                 mcd_singular=out.singular,
                 quantile_99={c: float(q) for c, q in zip(columns, out.quantiles, strict=True)})
    if out.singular:
        warnings.warn("add_noise(method='outliers'): more than half of the complete records lie "
                      "on a hyperplane (singular MCD scatter); every complete record off it is "
                      "treated as an outlier", SdcWarning, stacklevel=user_stacklevel())
    return z, sd_spec


# --------------------------------------------------------------------------- treatment
@attrs.frozen
class AddNoise(Treatment):
    """Noise addition treatment (tag ``"add_noise"``); see `add_noise`.

    >>> AddNoise(["income"], noise=1.5).to_dict()["noise"]
    1.5
    """

    type: ClassVar[str] = "add_noise"
    random: ClassVar[bool] = True

    columns: tuple[str, ...] = attrs.field(converter=lambda v: _names(v, "columns"))
    method: str = attrs.field(default="additive")
    noise: float = attrs.field(default=0.15)
    block: int = attrs.field(default=20)
    bounds: tuple[float | None, float | None] | None = attrs.field(default=None,
                                                                   converter=check_bounds)
    warn_domain: bool = attrs.field(default=True,
                                    converter=lambda v: check_bool("warn_domain", v))

    def __attrs_post_init__(self) -> None:
        _check_bounds_for(self.bounds, self.method)

    @method.validator
    def _m(self, _a: Any, v: Any) -> None:
        if not isinstance(v, str) or v not in NOISE_METHODS:
            raise ParameterError(f"method: expected one of {NOISE_METHODS}, got {v!r}")

    @noise.validator
    def _n(self, _a: Any, v: Any) -> None:
        _check_noise(v, allow_zero=False)

    @block.validator
    def _b(self, _a: Any, v: Any) -> None:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 3:
            raise ParameterError(f"block: expected an integer ≥ 3, got {v!r}")

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        require_columns(data, self.columns, "add_noise")
        empty = _all_missing(data, self.columns)
        cols = tuple(c for c in self.columns if c not in empty)
        if cols and self.bounds is not None:
            check_within(cols, domain_facts(numeric_block(data, cols, "add_noise")), self.bounds)
        else:
            numeric_block(data, cols, "add_noise")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = add_noise(data, self.columns, method=self.method, noise=self.noise,
                               block=self.block, bounds=self.bounds,
                               warn_domain=self.warn_domain, rng=rng)
        return Result(out, notes=notes)
