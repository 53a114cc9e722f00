"""Confidence intervals of the benchmarking indicators and the original-vs-masked comparison:
linearised standard errors, the (household-clustered, optionally calibrated) bootstrap,
`indicator_ci`, the confidence-interval overlap `ci_overlap` (Karr et al. 2006) and
`compare_indicators`. Re-exported by `sdcsession.utility.benchmark.indicators`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from ...progress import Bar
from ...risk._codes import check_flag, check_number
from .._align import check_frames, check_progress, check_seed
from ._specs import Indicator, _evaluate, _frame_inputs

# --------------------------------------------------------------------------------------------
# variance: linearisation and bootstrap
# --------------------------------------------------------------------------------------------


def _lin_se(ind: Indicator, cols, w, codes, G, clusters) -> np.ndarray:
    """Linearised (Taylor) standard errors of mean/total/ratio, with-replacement design with
    households (if given) as primary units: ``V = n_c/(n_c-1) Σ_c (z_c - z̄)²`` on the cluster
    totals z_c of the linearised variable."""
    se = np.full(G + 1, np.nan)
    x = cols[0]
    cl = clusters if clusters is not None else np.arange(len(x))
    nc_all = int(cl.max()) + 1

    def var(z: np.ndarray, mask: np.ndarray | None) -> float:
        zc = np.bincount(cl, weights=z if mask is None else z * mask, minlength=nc_all)
        nc = nc_all
        if nc < 2:
            return np.nan
        return float(nc / (nc - 1) * np.sum((zc - zc.mean()) ** 2))

    for j in range(G + 1):
        mask = None if j == 0 else (codes == j - 1).astype(float)
        wm = w if mask is None else w * mask
        if wm.sum() <= 0:
            continue
        if ind.stat == "total":
            z = w * x
        elif ind.stat == "mean":
            est = np.dot(wm, x) / wm.sum()
            z = w * (x - est) / wm.sum()
        else:
            den = np.dot(wm, cols[1])
            r = np.dot(wm, x) / den
            z = w * (x - r * cols[1]) / den
        se[j] = math.sqrt(var(z, mask))
    return se


def _calibration_matrix(data: pd.DataFrame, calibrate: Sequence[str], keep) -> np.ndarray:
    mats = []
    for c in calibrate:
        if c not in data.columns:
            raise MeasureError(f"calibrate: unknown column {c!r}")
        s = data[c] if keep is None else data[c][keep]
        if s.isna().any():
            raise MeasureError(f"calibrate: missing values in {c!r}")
        codes, labels = pd.factorize(s)
        mats.append(np.eye(len(labels))[codes])
    return np.hstack(mats)


def _calibrate(w: np.ndarray, X: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Linear (GREG) calibration: ``g = 1 + X λ`` with ``(XᵀWX) λ = T − Xᵀw``."""
    A = X.T @ (X * w[:, None])
    lam = np.linalg.pinv(A) @ (totals - X.T @ w)
    return w * (1 + X @ lam)


def _bootstrap(
    ind: Indicator, cols, w, codes, G, clusters, n_boot, rng, X=None, totals=None, bar=None
) -> np.ndarray:
    """Replicate estimates (n_boot × (G+1)); resampling records, or whole households."""
    n = len(w)
    reps = np.full((n_boot, G + 1), np.nan)
    if clusters is not None:
        order = np.argsort(clusters, kind="stable")
        sizes = np.bincount(clusters)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        nh = len(sizes)
    for b in range(n_boot):
        if clusters is None:
            idx = rng.integers(0, n, n)
        else:
            hs = rng.integers(0, nh, nh)
            ln = sizes[hs]
            off = np.repeat(starts[hs] - np.concatenate(([0], np.cumsum(ln)[:-1])), ln)
            idx = order[np.arange(ln.sum()) + off]
        wb = w[idx]
        if X is not None:
            wb = _calibrate(wb, X[idx], totals)
        try:
            reps[b] = _evaluate(
                ind, [c[idx] for c in cols], wb, None if codes is None else codes[idx], G
            )
        except MeasureError:
            pass
        if bar is not None:
            bar.update(1)
    return reps


def indicator_ci(
    data: pd.DataFrame,
    indicator: str | Indicator | Sequence[Any],
    *,
    weight: str | None = None,
    household: str | None = None,
    by: str | None = None,
    method: str = "bootstrap",
    n_boot: int = 200,
    level: float = 0.95,
    seed: int | None = None,
    calibrate: Sequence[str] | None = None,
    na_rm: bool = False,
    labels: pd.Index | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Point estimate and confidence interval of one indicator, overall and per group of ``by``.

    ``method="bootstrap"``: percentile interval of ``n_boot`` replicates (records resampled with
    replacement, or whole households when ``household`` is given; with ``calibrate`` the replicate
    weights are linearly calibrated to the full-sample weighted totals of the categories of those
    columns, as in laeken's calibrated bootstrap). ``method="normal"``: estimate ± z·SE with the
    linearised SE for mean/total/ratio and the bootstrap SE for the other statistics.
    Reproducible: the same ``seed`` gives the same intervals. ``progress``: progress bar over the
    bootstrap replicates (None: automatic — on in terminals and notebooks, off in CI and
    redirected output; see `sdcsession.progress`).

    Returns columns ``indicator, group, estimate, se, lower, upper`` (group "total" first).

    Missing values: refused with a MeasureError unless ``na_rm=True`` (drops the records missing a
    variable of the indicator).

    >>> df = pd.DataFrame({"x": np.arange(1.0, 101.0)})
    >>> ci = indicator_ci(df, "mean:x", method="normal")
    >>> round(float(ci.estimate[0]), 2), round(float(ci.se[0]), 4)
    (50.5, 2.9011)
    """
    check_progress(progress, "indicator_ci")
    with Bar(n_boot if isinstance(n_boot, (int, np.integer)) else None,
             desc=f"bootstrap {Indicator.parse(indicator).name}", enabled=progress) as bar:
        return _indicator_ci(data, indicator, weight=weight, household=household, by=by,
                             method=method, n_boot=n_boot, level=level, seed=seed,
                             calibrate=calibrate, na_rm=na_rm, labels=labels, bar=bar)


def _indicator_ci(data, indicator, *, weight, household, by, method, n_boot, level, seed,
                  calibrate, na_rm, labels, bar) -> pd.DataFrame:
    """`indicator_ci` with a given progress bar (advanced by one per replicate)."""
    from scipy import stats

    ind = Indicator.parse(indicator)
    if not isinstance(method, str) or method not in ("bootstrap", "normal"):
        raise ParameterError(f"method: expected 'bootstrap' or 'normal', got {method!r}")
    level = check_number(level, "level", "a probability in (0, 1)")
    check_flag(na_rm, "na_rm")
    if not (0 < level < 1):
        raise ParameterError(f"level: expected a probability in (0, 1), got {level!r}")
    if (not isinstance(n_boot, (int, np.integer)) or isinstance(n_boot, bool) or n_boot < 2
            or n_boot > 10**7):
        raise ParameterError(f"n_boot: expected an integer in [2, 10**7], got {n_boot!r}")
    if calibrate is not None:
        from ...methods.params import param_names

        calibrate = list(param_names(calibrate, "calibrate"))
    if labels is not None and not isinstance(labels, pd.Index):
        raise ParameterError(f"labels: expected a pandas Index of group labels or None, got "
                             f"{type(labels).__name__}")
    cols, w, codes, labels, clusters = _frame_inputs(data, ind, weight, by, household, na_rm, labels)
    G = 0 if labels is None else len(labels)
    est = _evaluate(ind, cols, w, codes, G)
    # a group needs two sampling units for a variance
    unit = clusters if clusters is not None else np.arange(len(w))
    if G:
        for j in range(G):
            nu = len(np.unique(unit[codes == j]))
            if nu < 2:
                raise MeasureError(
                    f"by: group {labels[j]!r} of {by!r} has {nu} "
                    f"{'household' if clusters is not None else 'record'}(s); "
                    "a confidence interval needs at least 2"
                )
    elif len(np.unique(unit)) < 2:
        raise MeasureError("a confidence interval needs at least 2 sampling units")
    z = stats.norm.ppf(0.5 + level / 2)
    if method == "normal" and ind.stat in ("mean", "total", "ratio") and not calibrate:
        se = _lin_se(ind, cols, w, codes, G, clusters)
        lo, hi = est - z * se, est + z * se
    else:
        rng = np.random.default_rng(check_seed(seed, "indicator_ci", allow_none=True))
        X = totals = None
        if calibrate:
            keep = None
            if na_rm:
                keep = np.ones(len(data), dtype=bool)
                for c in ind.columns:
                    keep &= data[c].notna().to_numpy()
            X = _calibration_matrix(data, list(calibrate), keep)
            totals = X.T @ w
        reps = _bootstrap(ind, cols, w, codes, G, clusters, int(n_boot), rng, X, totals, bar)
        se = np.nanstd(reps, axis=0, ddof=1)
        if method == "normal":
            lo, hi = est - z * se, est + z * se
        else:
            a = (1 - level) / 2
            lo = np.nanquantile(reps, a, axis=0)
            hi = np.nanquantile(reps, 1 - a, axis=0)
    groups = ["total"] + ([] if labels is None else list(labels))
    return pd.DataFrame(
        {
            "indicator": ind.name,
            "group": pd.Series(groups, dtype=object),
            "estimate": est,
            "se": se,
            "lower": lo,
            "upper": hi,
        }
    )


def ci_overlap(lower_o: Any, upper_o: Any, lower_m: Any, upper_m: Any) -> np.ndarray:
    """Confidence-interval overlap of Karr et al. (2006)::

        J = ½ [ (U − L) / (u_o − l_o) + (U − L) / (u_m − l_m) ],  L = max(l_o, l_m), U = min(u_o, u_m)

    1 for identical intervals, 0 when they just touch, negative when they are disjoint (the more
    negative, the farther apart). Degenerate (zero-length) intervals give 1 if equal, else 0.

    Missing values: a missing (NaN) bound gives NaN.

    >>> float(ci_overlap(0.0, 2.0, 1.0, 3.0))
    0.5
    """
    bounds = []
    for name, v in (("lower_o", lower_o), ("upper_o", upper_o), ("lower_m", lower_m),
                    ("upper_m", upper_m)):
        try:
            arr = np.asarray(v, dtype=float)
        except (TypeError, ValueError, OverflowError):
            arr = None
        if arr is None or isinstance(v, (bool, str, bytes)) or arr.size == 0 \
                or np.isinf(arr).any():
            raise ParameterError(f"ci_overlap: {name} must be numbers (interval bounds; NaN gives "
                                 f"NaN), got {v!r:.60}")
        bounds.append(arr)
    lo, uo, lm, um = bounds
    try:
        np.broadcast_shapes(lo.shape, uo.shape, lm.shape, um.shape)
    except ValueError:
        raise ParameterError("ci_overlap: lower_o, upper_o, lower_m and upper_m must have the "
                             "same shape") from None
    for lower, upper, a, b in ((lo, uo, "lower_o", "upper_o"), (lm, um, "lower_m", "upper_m")):
        if (upper < lower).any():
            raise ParameterError(f"ci_overlap: {b} is below {a} (an interval needs lower <= upper)")
    L = np.maximum(lo, lm)
    U = np.minimum(uo, um)
    do, dm = uo - lo, um - lm
    with np.errstate(divide="ignore", invalid="ignore"):
        j = 0.5 * ((U - L) / do + (U - L) / dm)
    degenerate = (do <= 0) | (dm <= 0)
    j = np.where(degenerate, np.where((lo == lm) & (uo == um), 1.0, 0.0), j)
    return j


def compare_indicators(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    indicators: Sequence[str | Indicator | Sequence[Any]] | str,
    *,
    weight: str | None = None,
    household: str | None = None,
    by: str | None = None,
    method: str = "bootstrap",
    n_boot: int = 200,
    level: float = 0.95,
    seed: int | None = None,
    calibrate: Sequence[str] | None = None,
    na_rm: bool = False,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Benchmarking indicators on the original and the masked file, side by side.

    For each indicator and group (``"total"`` and the groups of ``by``): ``original``, ``masked``,
    ``rel_diff_pct = 100 |θ_m − θ_o| / |θ_o|`` (Templ 2017; inf when θ_o = 0 ≠ θ_m),
    ``orig_lower/orig_upper``, ``masked_lower/masked_upper`` (see `indicator_ci`; both files
    use the same seed), ``in_ci`` (masked estimate within the original interval) and
    ``ci_overlap`` (`ci_overlap`, Karr et al. 2006). The files need not have the same records.
    ``progress``: one progress bar over all bootstrap replicates (2 files × indicators × n_boot;
    None: automatic, see `sdcsession.progress`).

    Missing values: refused with a MeasureError unless ``na_rm=True`` (drops the incomplete records
    in each file).

    >>> rng = np.random.default_rng(1)
    >>> o = pd.DataFrame({"x": rng.lognormal(size=500)})
    >>> t = compare_indicators(o, o, ["mean:x", "gini:x"], seed=1, n_boot=50)
    >>> t.ci_overlap.tolist(), t.rel_diff_pct.tolist()
    ([1.0, 1.0], [0.0, 0.0])
    """
    check_frames(original, masked, "compare_indicators")
    seed = check_seed(seed, "compare_indicators", allow_none=True)
    check_progress(progress, "compare_indicators")
    if (not isinstance(n_boot, (int, np.integer)) or isinstance(n_boot, bool) or n_boot < 2
            or n_boot > 10**7):
        raise ParameterError(f"n_boot: expected an integer in [2, 10**7], got {n_boot!r}")
    if isinstance(indicators, (str, Indicator)):
        indicators = [indicators]
    elif (not isinstance(indicators, Sequence) or isinstance(indicators, (bytes, pd.DataFrame))
          or len(indicators) == 0):
        raise ParameterError("compare_indicators: indicators must be an indicator or a list of "
                             f"them, got {type(indicators).__name__}")
    if not isinstance(masked, pd.DataFrame):
        raise MeasureError(f"masked: expected a DataFrame, got {type(masked).__name__}")
    if calibrate is not None:
        from ...methods.params import param_names

        calibrate = list(param_names(calibrate, "calibrate"))
    if not isinstance(method, str) or method not in ("bootstrap", "normal"):
        raise ParameterError(f"method: expected 'bootstrap' or 'normal', got {method!r:.40}")
    rows = []
    parsed = [Indicator.parse(spec) for spec in indicators]
    boot = [method == "bootstrap" or bool(calibrate) or ind.stat not in ("mean", "total", "ratio")
            for ind in parsed]
    total = 2 * sum(boot) * n_boot if isinstance(n_boot, (int, np.integer)) else None
    with Bar(total, desc="bootstrap", enabled=progress) as bar:
        for ind in parsed:
            kw = dict(weight=weight, household=household, by=by, method=method, n_boot=n_boot,
                      level=level, seed=seed, calibrate=calibrate, na_rm=na_rm, bar=bar)
            co = _indicator_ci(original, ind, labels=None, **kw)
            labels = None if by is None else pd.Index(co.group.iloc[1:].tolist())
            cm = _indicator_ci(masked, ind, labels=labels, **kw)
            t = co.merge(cm, on=["indicator", "group"], how="left", suffixes=("_o", "_m"))
            extra = cm[~cm.group.isin(co.group)]
            if len(extra):  # groups present in the masked file only
                t = pd.concat([t, extra.rename(columns=lambda c: c if c in ("indicator", "group")
                                              else f"{c}_m")], ignore_index=True)
            rows.append(t)
    t = pd.concat(rows, ignore_index=True)
    o, m = t.estimate_o.to_numpy(), t.estimate_m.to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(o == m, 0.0, 100 * np.abs(m - o) / np.abs(o))
    out = pd.DataFrame(
        {
            "indicator": t.indicator,
            "group": t.group,
            "original": o,
            "masked": m,
            "rel_diff_pct": rel,
            "orig_lower": t.lower_o,
            "orig_upper": t.upper_o,
            "masked_lower": t.lower_m,
            "masked_upper": t.upper_m,
            "in_ci": (m >= t.lower_o.to_numpy()) & (m <= t.upper_o.to_numpy()),
            "ci_overlap": ci_overlap(t.lower_o, t.upper_o, t.lower_m, t.upper_m),
        }
    )
    return out

