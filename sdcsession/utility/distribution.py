"""Distributional utility measures that need no pairing of records (Woo et al. 2009 and others).

Two-sample Kolmogorov–Smirnov statistics per variable, the empirical-CDF measures, the propensity
score measure U_p and the cluster-analysis measure U_c of Woo, Reiter, Oganian & Karr (2009), as
summarised in the global data utility paper and Templ (2019) (``shared/literature``). All work on
files of different lengths (sampling, synthetic data, removed records).

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
>>> float(ks_test(o, o + 10)["statistic"]["x"])
1.0
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Sequence
from typing import Literal

import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from ..risk._codes import check_flag, check_number
from ._align import check_frames, check_seed, is_numeric_column, numeric_matrix, resolve_columns

__all__ = ["ks_test", "ecdf_measures", "propensity_score", "cluster_utility"]


def _numeric(original, masked, columns, measure):
    check_frames(original, masked, measure)
    if columns is None:
        cols = [c for c in original.columns
                if c in masked.columns and is_numeric_column(original[c])]
        if not cols:
            raise MeasureError(f"{measure}: no common numeric columns; give columns")
        return cols
    return resolve_columns(original, masked, columns, measure)


def _observed(x: np.ndarray, z: np.ndarray, cols: Sequence[Hashable], measure: str):
    """Per variable: its name and the observed values in the original and the masked file."""
    for j, c in enumerate(cols):
        a, b = x[:, j], z[:, j]
        a, b = a[~np.isnan(a)], b[~np.isnan(b)]
        if len(a) == 0 or len(b) == 0:
            raise MeasureError(f"{measure}: {c!r} has no observed values in one of the files")
        yield c, a, b


def ks_test(
    original: pd.DataFrame, masked: pd.DataFrame, *, columns: Iterable[Hashable] | None = None
) -> pd.DataFrame:
    """Two-sample Kolmogorov–Smirnov test per numeric variable (missing values dropped).

    ``D = sup_t |F_X(t) − F_X'(t)|`` with F the empirical distribution functions, and its exact or
    asymptotic p-value (scipy ``ks_2samp``, two-sided). Direction: higher D (lower p) = more
    distortion; D ∈ [0, 1]. Does not need pairing.

    Missing values: dropped per variable and file; a variable with no observed value in a file is a
    MeasureError.

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}); m = pd.DataFrame({"x": [3.0, 4.0, 5.0, 6.0]})
    >>> float(ks_test(o, m)["statistic"]["x"])
    0.5
    """
    from scipy.stats import ks_2samp

    name = "ks_test"
    cols = _numeric(original, masked, columns, name)
    x = numeric_matrix(original, cols, name, "original")
    z = numeric_matrix(masked, cols, name, "masked")
    rows = {}
    for c, a, b in _observed(x, z, cols, name):
        r = ks_2samp(a, b)
        rows[c] = {"statistic": float(r.statistic), "pvalue": float(r.pvalue)}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("variable")


def _ecdf_diff_marginal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    pooled = np.concatenate([a, b])
    sa, sb = np.sort(a), np.sort(b)
    fa = np.searchsorted(sa, pooled, side="right") / len(a)
    fb = np.searchsorted(sb, pooled, side="right") / len(b)
    return fa - fb


def _ecdf_diff_joint(x: np.ndarray, z: np.ndarray, chunk: int) -> np.ndarray:
    pooled = np.vstack([x, z])
    out = np.empty(len(pooled))
    for s in range(0, len(pooled), chunk):
        q = pooled[s: s + chunk]
        fa = (x[None, :, :] <= q[:, None, :]).all(axis=2).mean(axis=1)
        fb = (z[None, :, :] <= q[:, None, :]).all(axis=2).mean(axis=1)
        out[s: s + chunk] = fa - fb
    return out


def ecdf_measures(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    joint: bool = False,
    max_joint_records: int = 20000,
) -> pd.DataFrame:
    """Empirical-CDF utility measures of Woo et al. (2009), per variable and optionally joint.

    With S_X and S_X' the empirical distribution functions of the original and masked data,
    evaluated at every record z of the pooled file (N records),
    ``U_m = max_z |S_X(z) − S_X'(z)|`` and ``U_s = (1/N) Σ_z (S_X(z) − S_X'(z))²``.
    One row per numeric variable (marginal ECDFs); ``joint=True`` adds a row "(joint)" with the
    multivariate ECDFs (z ≤ record componentwise) over complete records — O(N²·p), refused above
    ``max_joint_records`` pooled records. Direction: higher = more loss; U_m ∈ [0, 1],
    U_s ∈ [0, 1]. Does not need pairing.

    Missing values: dropped per variable and file (marginal); the joint ECDF uses the complete
    records; a variable with no observed value in a file is a MeasureError.

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 2.0]}); m = pd.DataFrame({"x": [3.0, 4.0]})
    >>> ecdf_measures(o, m).loc["x"].tolist()   # differences 1/2, 1, 1/2, 0
    [1.0, 0.375]
    """
    name = "ecdf_measures"
    check_flag(joint, "joint")
    if isinstance(max_joint_records, bool) or not isinstance(max_joint_records, (int, np.integer)) \
            or max_joint_records < 1:
        raise ParameterError(f"max_joint_records: expected an integer >= 1, got "
                             f"{max_joint_records!r:.40}")
    cols = _numeric(original, masked, columns, name)
    x = numeric_matrix(original, cols, name, "original")
    z = numeric_matrix(masked, cols, name, "masked")
    rows = {}
    for c, a, b in _observed(x, z, cols, name):
        d = _ecdf_diff_marginal(a, b)
        rows[c] = {"U_m": float(np.abs(d).max()), "U_s": float(np.mean(d**2))}
    if joint:
        xc = x[~np.isnan(x).any(axis=1)]
        zc = z[~np.isnan(z).any(axis=1)]
        if len(xc) == 0 or len(zc) == 0:
            raise MeasureError(f"{name}: no complete records in one of the files")
        if len(xc) + len(zc) > max_joint_records:
            raise MeasureError(
                f"{name}: the joint ECDF needs O(N²) work; {len(xc) + len(zc)} pooled records "
                f"exceed max_joint_records={max_joint_records} (raise it or sample)"
            )
        chunk = max(1, int(2e7 // max(1, (len(xc) + len(zc)) * len(cols))))
        d = _ecdf_diff_joint(xc, zc, chunk)
        rows["(joint)"] = {"U_m": float(np.abs(d).max()), "U_s": float(np.mean(d**2))}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("variable")


def _design(original: pd.DataFrame, masked: pd.DataFrame, cols: Sequence[Hashable],
            interactions: bool, measure: str) -> np.ndarray:
    """Stacked design matrix: standardised numbers (+ missing indicator), dummies of categories."""
    blocks = []
    num_blocks = []
    for c in cols:
        o, m = original[c], masked[c]
        if is_numeric_column(o) and is_numeric_column(m):
            v = np.concatenate([o.to_numpy(dtype=np.float64, na_value=np.nan),
                                m.to_numpy(dtype=np.float64, na_value=np.nan)])
            if np.isinf(v).any():
                raise MeasureError(f"{measure}: infinite values in {c!r}")
            na = np.isnan(v)
            mu = np.nanmean(v) if (~na).any() else 0.0
            sd = np.nanstd(v) if (~na).any() else 0.0
            v = np.where(na, mu, v)
            v = (v - mu) / sd if sd > 0 else v - mu
            if sd > 0:
                blocks.append(v[:, None])
                num_blocks.append(v)
            if na.any() and not na.all():
                blocks.append(na[:, None].astype(np.float64))
        else:
            s = pd.concat([o.astype(object), m.astype(object)], ignore_index=True)
            codes, uniq = pd.factorize(s, use_na_sentinel=False)
            k = len(uniq)
            if k >= 2:
                d = np.zeros((len(codes), k - 1))
                rows = np.flatnonzero(codes > 0)
                d[rows, codes[rows] - 1] = 1.0
                blocks.append(d)
    if interactions and len(num_blocks) > 1:
        for i in range(len(num_blocks)):
            for j in range(i + 1, len(num_blocks)):
                blocks.append((num_blocks[i] * num_blocks[j])[:, None])
    n = len(original) + len(masked)
    const = np.ones((n, 1))
    return np.hstack([const] + blocks) if blocks else const


def propensity_score(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    interactions: bool = False,
    c: float | None = None,
) -> float:
    """Propensity score utility U_p of Woo et al. (2009) with a logistic regression (statsmodels).

    The two files are stacked, T = 1 marks the masked records, and a logit of T on the variables
    (numbers standardised with a missing-value indicator, categories as dummies with missing as a
    category, optionally all pairwise products of the numbers) gives the estimated propensities
    p̂_i. ``U_p = (1/N) Σ_i (p̂_i − c)²`` with N the stacked size and c the share of masked
    records (default; Templ uses c = 0.5 for equal sizes). Direction: higher = more loss; range
    [0, c(1 − c)] — 0 when the files cannot be told apart, 1/4 for completely distinguishable
    files of equal size. Does not need pairing.

    Missing values: numbers are mean-imputed with a missing-value indicator; categories get a
    missing category; an all-missing variable adds nothing.

    Example
    -------
    >>> o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0] * 5})
    >>> propensity_score(o, o.copy())
    0.0
    """
    import statsmodels.api as sm

    name = "propensity_score"
    check_flag(interactions, "interactions")
    if c is not None:
        check_number(c, "c", "a number in [0, 1]")
    check_frames(original, masked, name)
    cols = resolve_columns(original, masked, columns, name)
    if len(original) == 0 or len(masked) == 0:
        raise MeasureError(f"{name}: a file has no records")
    X = _design(original, masked, cols, interactions, name)
    y = np.concatenate([np.zeros(len(original)), np.ones(len(masked))])
    N = len(y)
    cc = float(len(masked) / N) if c is None else float(c)
    if not 0 <= cc <= 1:
        raise ParameterError(f"c: expected a number in [0, 1], got {c!r}")
    # drop linearly dependent columns so the logit is identifiable
    # (with more design columns than records, those past the rank are dependent by count)
    diag = np.abs(np.diag(np.linalg.qr(X, mode="r")))
    keep = np.zeros(X.shape[1], dtype=bool)
    keep[:len(diag)] = diag > 1e-10 * max(1.0, diag.max())
    X = X[:, keep]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = sm.Logit(y, X).fit(disp=0, maxiter=200, method="newton")
            p = np.asarray(res.predict(X))
        except np.linalg.LinAlgError as exc:  # pragma: no cover - degenerate designs
            raise MeasureError(f"{name}: the logistic regression failed: {exc}") from exc
        except Exception as exc:  # perfect separation in older statsmodels
            if "separation" in str(exc).lower():
                p = y.copy()
            else:  # pragma: no cover
                raise MeasureError(f"{name}: the logistic regression failed: {exc}") from exc
    if not np.isfinite(p).all():
        raise MeasureError(f"{name}: the logistic regression gave non-finite propensities")
    return float(np.mean((p - cc) ** 2))


def cluster_utility(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    n_clusters: int = 20,
    cluster_weights: Literal["equal", "size"] = "equal",
    seed: int = 0,
) -> float:
    """Cluster-analysis utility U_c of Woo et al. (2009).

    The stacked file is clustered into G = ``n_clusters`` groups (k-means, k-means++ start from
    ``seed``, on the design of `propensity_score`: standardised numbers, category dummies);
    with n_j records in cluster j of which n_j^o original and c the share of original records,
    ``U_c = (1/G) Σ_j w_j (n_j^o / n_j − c)²`` with w_j = 1 (``cluster_weights="equal"``) or
    w_j = G·n_j/N (``"size"``, so the weights average 1). Empty clusters are dropped from G.
    Direction: higher = more loss; range [0, max(c, 1 − c)²]; 0 when every cluster has the
    overall mix. Does not need pairing.

    Missing values: as `propensity_score` (mean-imputed with a missing-value indicator; an
    all-missing variable adds nothing).

    Example
    -------
    >>> o = pd.DataFrame({"x": [0.0, 0.1, 10.0, 10.1]})
    >>> cluster_utility(o, o.copy(), n_clusters=2)
    0.0
    """
    from scipy.cluster.vq import kmeans2

    name = "cluster_utility"
    check_frames(original, masked, name)
    cols = resolve_columns(original, masked, columns, name)
    if isinstance(n_clusters, bool) or not isinstance(n_clusters, int) or n_clusters < 1:
        raise ParameterError(f"n_clusters: expected an integer >= 1, got {n_clusters!r}")
    if not isinstance(cluster_weights, str) or cluster_weights not in ("equal", "size"):
        raise ParameterError(f"cluster_weights: expected 'equal' or 'size', got {cluster_weights!r}")
    N = len(original) + len(masked)
    if n_clusters > N:
        raise ParameterError(f"n_clusters={n_clusters} exceeds the {N} stacked records")
    X = _design(original, masked, cols, False, name)[:, 1:]
    if X.shape[1] == 0:
        raise MeasureError(f"{name}: the variables {cols} carry no variation to cluster on")
    rng = np.random.default_rng(check_seed(seed, name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, labels = kmeans2(X, n_clusters, minit="++", seed=rng)
    is_orig = np.concatenate([np.ones(len(original)), np.zeros(len(masked))])
    n_j = np.bincount(labels, minlength=n_clusters).astype(np.float64)
    n_jo = np.bincount(labels, weights=is_orig, minlength=n_clusters)
    used = n_j > 0
    g = int(used.sum())
    cc = len(original) / N
    terms = (n_jo[used] / n_j[used] - cc) ** 2
    w = np.ones(g) if cluster_weights == "equal" else g * n_j[used] / N
    return float((w * terms).sum() / g)
