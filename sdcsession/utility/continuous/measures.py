"""Information loss for continuous variables: IL1s, IL1, the Domingo-Ferrer/Mateo-Sanz/Torra
discrepancy table, eigenvalue differences, Młodak's γ and the complex measure λ.

IL1s, IL1, the eigenvalue differences and γ are defined here; the discrepancy table (private module
``_discrepancy``) and λ (``_il_variables``) are re-exported here. The minimum covariance
determinant behind ``robust=True`` is `sdcsession.risk.robust.minimum_covariance`.

References (see ``shared/literature``): Yancey, Winkler & Creecy (2002) (IL1s); Domingo-Ferrer,
Mateo-Sanz & Torra (2001) and Domingo-Ferrer & Torra (2001) (discrepancy table); Trottini (2003)
(bounded mean variation); Templ & Meindl (2008) / sdcMicro ``dUtility`` (IL1, eigen, robeigen);
Młodak (2020) and Młodak, Pietrzak & Józefowski (2022) (γ and λ).

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [2.0, 1.0, 4.0, 3.0]})
>>> m = o.assign(x=o["x"] + 0.5)
>>> round(il1s(o, m), 6)   # (4 · 0.5 / (sqrt(2) · sd_x)) / (4 · 2)
0.136931
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Literal

import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from ...risk._codes import check_flag, check_number
from ...risk.robust.minimum_covariance import mcd
from .._align import check_seed, numeric_matrix, paired
from .._il_variables import ILVariables, il_variables
from ._discrepancy import discrepancy_table
from ._numeric import _complete, _numeric_cols, _sd_checked, _sd_missing, shared_matrix
from .exact import abs_parts, il1s_from_parts, original_parts

__all__ = [
    "il1s",
    "il1s_sdcmicro",
    "il1",
    "discrepancy_table",
    "mcd_covariance",
    "eigen_difference",
    "il_correl",
    "ILVariables",
    "il_variables",
]


# ---------------------------------------------------------------------------------- IL1s, IL1
def il1s(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    normalise: bool = True,
    cache: dict | None = None,
) -> float:
    """IL1s: mean absolute difference scaled by the original standard deviations.

    ``IL1s = (1/(p·n)) Σ_j Σ_i |x_ij − z_ij| / (√2 · S_j)`` with S_j the (n−1) standard deviation
    of variable j in the original (Yancey, Winkler & Creecy 2002). ``normalise=False`` omits the
    1/(n·p) factor as sdcMicro's ``dUtility(method="IL1s")`` does (see `il1s_sdcmicro`).
    The sums are exact and S_j comes from exact moments (`sdcsession.utility.continuous.exact`),
    so the value does not depend on the order of the records or on how they are partitioned.
    Missing values: as sdcMicro's ``dUtility`` (``sum(..., na.rm = TRUE)``), cells with a missing
    value in either file add nothing and S_j is taken over the observed original values; a
    variable with fewer than two observed original values (S_j undefined, e.g. all missing) adds
    nothing; n·p still counts all cells. Direction: higher = more loss; range [0, ∞), 0 for
    identical files. Needs pairing;
    MeasureError for non-numeric columns or a zero standard deviation. ``cache``: a dict kept
    with one original file (e.g. one per session tree): the exact sums of the original's side
    (counts, means, centred squares) are stored there and reused by later calls with the same
    columns (the same figures); ``masked is original`` adds no difference pass (every
    ``|x − x|`` is 0).

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 3.0]}); m = pd.DataFrame({"x": [2.0, 3.0]})
    >>> round(il1s(o, m), 6)   # (1 / (sqrt(2) · sqrt(2))) / 2
    0.25
    """
    name = "il1s"
    check_flag(normalise, "normalise")
    _check_cache(cache)
    cols = _numeric_cols(original, masked, columns, name)
    same = masked is original
    masked = paired(original, masked, name)
    x = shared_matrix(original, cols, name, "original")
    z = x if same else shared_matrix(masked, cols, name, "masked")
    # exact sums (utility.continuous.exact): the Dask session gets the same double; IL1s reads
    # the original's side (counts, centred squares) and the sums of |x - z| only
    key = ("il1s", tuple(cols))
    side = cache.get(key) if cache is not None else None
    if side is None:
        side = original_parts(x)
        if cache is not None:
            cache[key] = side
    second = {"x": side["x"], "abs": abs_parts(x, z, same=same)}
    return il1s_from_parts([side["first"]], [second], cols, normalise=normalise, name=name)


def il1s_sdcmicro(
    original: pd.DataFrame, masked: pd.DataFrame, *, columns: Iterable[Hashable] | None = None
) -> float:
    """sdcMicro's IL1s: ``Σ_j Σ_i |x_ij − z_ij| / (√2 · S_j)`` — the published IL1s × n × p.

    See `il1s`. Missing values: as `il1s` (sdcMicro's rule: missing cells and variables with an
    undefined S_j add nothing). Direction: higher = more loss; range [0, ∞). Needs pairing.

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 3.0]}); m = pd.DataFrame({"x": [2.0, 3.0]})
    >>> round(il1s_sdcmicro(o, m), 6)
    0.5
    """
    return il1s(original, masked, columns=columns, normalise=False)


def il1(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    zeros: Literal["error", "skip"] = "error",
) -> float:
    """sdcMicro's IL1: summed relative absolute differences in percent.

    ``IL1 = 100 · Σ_j Σ_i |x_ij − z_ij| / |x_ij|`` (sdcMicro ``dUtility(method="IL1")``; the mean
    variation of X − X' of Domingo-Ferrer et al. without the 1/(n·p) factor). A cell with x = 0
    and z = 0 adds 0. A cell with x = 0 ≠ z has an infinite relative change: MeasureError naming
    the columns (``zeros="error"``) or left out (``zeros="skip"``, what sdcMicro does). Missing
    values: cells with a missing value in either file are left out (sdcMicro's ``na.rm = TRUE``).
    Direction: higher = more loss; range [0, ∞). Needs pairing.

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 4.0]}); m = pd.DataFrame({"x": [2.0, 3.0]})
    >>> il1(o, m)   # 100 · (1/1 + 1/4)
    125.0
    """
    name = "il1"
    if not isinstance(zeros, str) or zeros not in ("error", "skip"):
        raise ParameterError(f"zeros: expected 'error' or 'skip', got {zeros!r}")
    cols = _numeric_cols(original, masked, columns, name)
    masked = paired(original, masked, name)
    x = numeric_matrix(original, cols, name, "original")
    z = numeric_matrix(masked, cols, name, "masked")
    d = np.abs(x - z)
    ax = np.abs(x)
    inf_cells = (ax == 0) & (d > 0)
    if zeros == "error" and inf_cells.any():
        bad = [c for j, c in enumerate(cols) if inf_cells[:, j].any()]
        raise MeasureError(
            f"{name}: original value 0 changed in {int(inf_cells.sum())} cells of {bad}; the "
            "relative change is infinite (use zeros='skip' to leave those cells out)"
        )
    ok = (ax > 0) & ~np.isnan(d)
    return float(100.0 * (d[ok] / ax[ok]).sum())


# ------------------------------------------------------------------------------ eigenvalues
def mcd_covariance(
    x: np.ndarray, *, seed: int = 0, n_starts: int = 50, max_steps: int = 100,
    support_fraction: float | None = None
) -> np.ndarray:
    """Minimum covariance determinant (MCD) estimate of the covariance of x (rows = records).

    FastMCD (Rousseeuw & Van Driessen 1999): random (p+1)-subsets grown by concentration steps
    (keep the h records of smallest Mahalanobis distance, h = ⌊(n+p+1)/2⌋ by default) until the
    subset (and so the determinant) stops changing; the best subset's covariance is multiplied by
    the consistency factor median(d²)/χ²_p(0.5), then one reweighting step keeps records with
    d² ≤ χ²_p(0.975). Deterministic for a given ``seed``; ``n_starts=0`` uses the single
    deterministic median/MAD start instead of random subsets. The estimator is
    `sdcsession.risk.robust.minimum_covariance.mcd` (``reweight=True``, ``exact_fit="error"``).

    Missing values: refused with a MeasureError (drop the incomplete records first).

    Example
    -------
    >>> rng = np.random.default_rng(1); x = rng.normal(size=(200, 2)); x[:20] += 50
    >>> bool(np.all(np.abs(mcd_covariance(x) - np.eye(2)) < 0.5))
    True
    """
    if isinstance(x, (str, bytes, bool)) or x is None:
        raise MeasureError(f"mcd_covariance: x must be a 2-d array of numbers, got {type(x).__name__}")
    try:
        x = np.asarray(x, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise MeasureError("mcd_covariance: x must be a 2-d array of numbers (records × variables)"
                           ) from None
    if x.ndim != 2 or x.shape[1] == 0:
        raise MeasureError(f"mcd_covariance: x must be a 2-d array (records × variables), got shape "
                           f"{x.shape}")
    if not np.isfinite(x).all():
        raise MeasureError("mcd_covariance: x holds missing or infinite values; drop those records")
    n, p = x.shape
    seed = check_seed(seed, "mcd_covariance")
    for name, v, low in (("n_starts", n_starts, 0), ("max_steps", max_steps, 1)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) \
                or not low <= v <= 10**6:
            raise ParameterError(f"mcd_covariance: {name} must be an integer in [{low}, 10**6], "
                                 f"got {v!r:.60}")
    if support_fraction is not None and (
            isinstance(support_fraction, (bool, np.bool_))
            or not isinstance(support_fraction, (int, float, np.integer, np.floating))
            or not 0.5 <= support_fraction <= 1):
        raise ParameterError("mcd_covariance: support_fraction must be a number in [0.5, 1] or "
                             f"None, got {support_fraction!r:.60}")
    if n <= p + 1:
        raise MeasureError(f"mcd_covariance: x needs more than p + 1 = {p + 1} records, got {n}")
    h = "floor" if support_fraction is None else int(np.ceil(support_fraction * n))
    return mcd(x, h=h, n_starts=n_starts, seed=seed, max_steps=max_steps, reweight=True).scatter


def eigen_difference(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    robust: bool = False,
    seed: int = 0,
    cache: dict | None = None,
) -> float:
    """Relative difference of the eigenvalues of the standardised data (sdcMicro ``eigen``).

    Each file is standardised by its own means and standard deviations; with e and e' the
    eigenvalues (decreasing) of the covariance (= correlation) matrices,
    ``eigen = Σ_j |e_j − e'_j| / e_j`` (Templ & Meindl 2008; sdcMicro ``dUtility``). With
    ``robust=True`` the eigenvalues are those of the robust correlation matrices derived from MCD
    covariance estimates (FastMCD with ``seed``, see `mcd_covariance`). This differs from
    sdcMicro's ``robeigen``, which takes the MCD covariance of the classically standardised data
    and so reacts to outliers through the classical scale (and whose covMcd is random).
    Missing values: as sdcMicro (``var(scale(x), use = "pairwise.complete.obs")``), each variable
    is standardised by the mean and standard deviation of its observed values and each
    covariance is taken over the records observing both variables (pairwise complete); a pair
    of variables observed together in fewer than two records is a MeasureError (sdcMicro: NA).
    ``robust=True`` uses the records complete in each file (covMcd takes no missing values).
    Direction: higher = more loss; range [0, ∞). Does not need pairing. ``cache``: a dict kept
    with one original file (the caller's, e.g. one per session tree): the original's eigenvalues
    are stored there and reused by later calls with the same columns (the same figures).

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 3.0, 2.0, 4.0]})
    >>> eigen_difference(o, o * 3 + 1)
    0.0
    """
    name = "eigen_difference"
    check_flag(robust, "robust")
    _check_cache(cache)
    cols = _numeric_cols(original, masked, columns, name)
    seed = check_seed(seed, name)
    key = (name, tuple(cols), robust, seed)
    if cache is not None and key in cache and masked is not original and not robust:
        z = shared_matrix(masked, cols, name, "masked")
        e1 = cache[key]
        e2 = np.sort(np.linalg.eigvalsh(_pairwise_scaled_cov(z, cols, name, "masked")))[::-1]
        return float(np.sum(np.abs(e1 - e2) / e1))
    x = shared_matrix(original, cols, name, "original")
    z = x if masked is original else shared_matrix(masked, cols, name, "masked")
    if robust:
        x, z = _complete(x), _complete(z)
        if len(x) < 2 or len(z) < 2:
            raise MeasureError(f"{name}: fewer than two complete records")
        xs = (x - x.mean(axis=0)) / _sd_checked(x, cols, name, "original")
        zs = (z - z.mean(axis=0)) / _sd_checked(z, cols, name, "masked")
        cx, cz = mcd_covariance(xs, seed=seed), mcd_covariance(zs, seed=seed)
        cx = cx / np.sqrt(np.outer(np.diag(cx), np.diag(cx)))
        cz = cz / np.sqrt(np.outer(np.diag(cz), np.diag(cz)))
    else:
        cx = _pairwise_scaled_cov(x, cols, name, "original")
        # the same frame on both sides (a state compared with its own original): same matrix
        cz = cx if masked is original else _pairwise_scaled_cov(z, cols, name, "masked")
    e1 = np.sort(np.linalg.eigvalsh(cx))[::-1]
    e2 = e1 if cz is cx else np.sort(np.linalg.eigvalsh(cz))[::-1]
    if (e1 <= 1e-12 * max(e1.max(), 1.0)).any():
        raise MeasureError(
            f"{name}: the original correlation matrix of {cols} is singular (an eigenvalue is "
            "0); drop collinear variables"
        )
    if cache is not None and not robust:
        cache[key] = e1
    return float(np.sum(np.abs(e1 - e2) / e1))


def _pairwise_scaled_cov(x: np.ndarray, cols: Sequence[Hashable], measure: str, which: str
                         ) -> np.ndarray:
    """Covariance matrix of the standardised columns over pairwise complete records.

    Each column is centred and scaled by the mean and (n − 1) standard deviation of its observed
    values; entry (j, k) is the covariance over the records observing both j and k (their own
    means, n_jk − 1 denominator). Without missing values this is the correlation matrix.
    """
    if x.shape[0] < 2:
        raise MeasureError(f"{measure}: fewer than two records in the {which} file")
    sd, missing = _sd_missing(x, cols, measure, which)
    # without a missing value, nanmean is mean (the same sum per column, divided by n): no copy
    xs = x - (np.nanmean(x, axis=0) if missing else x.mean(axis=0))
    xs /= sd  # in place: the same quotients, one temporary less
    obs = ~np.isnan(xs)
    if obs.all():
        return np.atleast_2d(np.cov(xs, rowvar=False))
    m = obs.astype(np.float64)
    x0 = np.where(obs, xs, 0.0)
    n_jk = m.T @ m
    few = np.argwhere(np.triu(n_jk < 2))
    if len(few):
        j, k = few[0]
        raise MeasureError(
            f"{measure}: {cols[j]!r} and {cols[k]!r} are observed together in fewer than two "
            f"records of the {which} file; their pairwise covariance is undefined")
    s = x0.T @ m  # s[j, k] = sum of x_j over the records observing j and k
    return (x0.T @ x0 - s * s.T / n_jk) / (n_jk - 1)


# ---------------------------------------------------------------------------------- gamma
def _collinear(r: np.ndarray, cols: Sequence[Hashable], tol: float = 1e-10) -> list[Hashable]:
    vals, vecs = np.linalg.eigh(r)
    small = vals <= tol * max(vals.max(), 1.0)
    if not small.any():
        return []
    null = np.abs(vecs[:, small]).max(axis=1)
    return [c for c, v in zip(cols, null) if v > 1e-6]


def _inverse_diag(x: np.ndarray, cols: Sequence[Hashable], measure: str, which: str
                  ) -> np.ndarray:
    _sd_checked(x, cols, measure, which)
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.atleast_2d(np.corrcoef(x, rowvar=False))
    if not np.isfinite(r).all():
        raise MeasureError(
            f"{measure}: the correlation matrix of the {which} file overflows (values beyond "
            "about 1e154 in absolute value); rescale the variables")
    culprits = _collinear(r, cols)
    if culprits or np.linalg.cond(r) > 1e12:
        raise MeasureError(
            f"{measure}: the correlation matrix of the {which} file is singular; collinear "
            f"variables: {culprits or list(cols)}"
        )
    return np.diag(np.linalg.inv(r))


def il_correl(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    constant: float = 1 / np.sqrt(2),
    cache: dict | None = None,
) -> float:
    """Młodak's γ: loss of the connections between continuous variables (sdcMicro ``IL_correl``).

    With ρ⁻¹_jj and ρ'⁻¹_jj the diagonals of the inverse Pearson correlation matrices of the
    original and masked data (complete records of each file),
    ``γ = c · sqrt( Σ_j ( ρ⁻¹_jj / ||ρ⁻¹_diag|| − ρ'⁻¹_jj / ||ρ'⁻¹_diag|| )² )``. The constant
    ``c = 1/√2`` follows sdcMicro and Młodak, Pietrzak & Józefowski (2022); Młodak (2020)
    originally proposed ``c = 1/2``. Direction: higher = more loss; range [0, 1]. Does not need
    pairing. MeasureError for a singular correlation matrix (naming the collinear variables).

    Missing values: the records complete in each file (listwise), as sdcMicro's ``cor(use =
    "complete.obs")``; a MeasureError when fewer than two remain. ``cache``: a dict kept with one
    original file (e.g. one per session tree): the original's diagonal is stored there and
    reused by later calls with the same columns (the same figures).

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 3.0, 2.0, 4.0]})
    >>> il_correl(o, o * 2)
    0.0
    """
    name = "il_correl"
    check_number(constant, "constant", "a positive number")
    if not (constant > 0):
        raise ParameterError(f"constant: expected a positive number, got {constant!r}")
    _check_cache(cache)
    cols = _numeric_cols(original, masked, columns, name, min_columns=2)
    same = masked is original  # a state compared with its own original: same diagonal
    key = (name, tuple(cols))
    hit = cache is not None and key in cache and not same
    x = None if hit else _complete(shared_matrix(original, cols, name, "original"))
    z = x if same else _complete(shared_matrix(masked, cols, name, "masked"))
    if hit:
        do = cache[key]  # type: ignore[index]
    else:
        do = _inverse_diag(x, cols, name, "original")
        if cache is not None:
            cache[key] = do
    dp = do if same else _inverse_diag(z, cols, name, "masked")
    g = np.sqrt(np.sum((do / np.sqrt(np.sum(do**2)) - dp / np.sqrt(np.sum(dp**2))) ** 2))
    return float(constant * g)


def _check_cache(cache: object) -> None:
    if cache is not None and not isinstance(cache, dict):
        raise ParameterError(f"cache: expected None or a dict, got {type(cache).__name__}")
