"""Benchmarking indicators with confidence intervals (data-specific utility).

Weighted point estimators (mean, total, ratio, quantiles, Gini coefficient, at-risk-of-poverty
rate), all with a ``by=`` breakdown; their confidence intervals by the bootstrap (seeded, household-
clustered when a household id is given, optionally calibrated to known totals) or by the normal
approximation; and :func:`compare_indicators`, which puts the estimates on the original and the
masked file side by side with the relative difference, both intervals, whether the masked estimate
lies in the original interval and the confidence-interval overlap of Karr et al. (2006).

References
----------
* Templ, M. (2017). *Statistical Disclosure Control for Microdata*, ch. 6 (benchmarking indicators).
* Alfons, A. & Templ, M. (2013). Estimation of social exclusion indicators from complex surveys:
  the R package laeken. *Journal of Statistical Software* 54(15). (Gini, ARPR, weighted median.)
* Karr, A. F., Kohnen, C. N., Oganian, A., Reiter, J. P. & Sanil, A. P. (2006). A framework for
  evaluating the utility of data altered to protect confidentiality. *The American Statistician*
  60(3), 224-232. (Confidence-interval overlap.)

Example
-------
>>> import numpy as np
>>> round(gini([1.0, 1.0, 1.0, 1.0]), 12)
0.0
>>> weighted_median([1.0, 2.0, 3.0, 4.0])
2.5
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd
from scipy import stats

from ..errors import MeasureError, ParameterError, SdcWarning
from ..progress import Bar

__all__ = [
    "weighted_mean",
    "weighted_total",
    "weighted_ratio",
    "weighted_quantile",
    "weighted_median",
    "gini",
    "arpr",
    "ArprResult",
    "Indicator",
    "indicator_ci",
    "compare_indicators",
    "ci_overlap",
]

STATS = ("mean", "total", "ratio", "quantile", "median", "gini", "arpr", "threshold")


# --------------------------------------------------------------------------------------------
# input handling
# --------------------------------------------------------------------------------------------


def _float_array(values: Any, name: str) -> np.ndarray:
    """Values as a 1-d float array; non-numeric input raises MeasureError naming ``name``."""
    if isinstance(values, pd.DataFrame):
        raise MeasureError(f"{name}: expected one column (Series or 1-d array), got a DataFrame")
    if isinstance(values, pd.Series):
        s = values
        if isinstance(s.dtype, pd.CategoricalDtype) or not (
            pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype)
        ):
            raise MeasureError(f"{name}: expected numeric values, got dtype {s.dtype}")
        arr = s.to_numpy(dtype=float, na_value=np.nan)
    else:
        try:
            arr = np.asarray(values)
        except Exception as exc:  # pragma: no cover - exotic input
            raise MeasureError(f"{name}: cannot read values ({exc})") from None
        if arr.dtype.kind not in "biuf":
            raise MeasureError(f"{name}: expected numeric values, got {arr.dtype} values")
        arr = arr.astype(float)
    if arr.ndim != 1:
        raise MeasureError(f"{name}: expected a 1-d sequence, got shape {arr.shape}")
    if np.isinf(arr).any():
        raise MeasureError(f"{name}: contains infinite values")
    return arr


def _weights(weights: Any, n: int, name: str = "weights") -> np.ndarray:
    if weights is None:
        return np.ones(n)
    w = _float_array(weights, name)
    if len(w) != n:
        raise MeasureError(f"{name}: length {len(w)} differs from the values' length {n}")
    nan = np.isnan(w)
    if nan.any():
        raise MeasureError(f"{name}: {int(nan.sum())} missing (NaN) weights; weights must be set")
    if (w < 0).any():
        raise MeasureError(f"{name}: negative weights are not allowed")
    return w


def _groups(by: Any, n: int) -> tuple[np.ndarray, pd.Index] | None:
    """Breakdown as integer codes 0..G-1 and the group labels (sorted)."""
    if by is None:
        return None
    s = by if isinstance(by, pd.Series) else pd.Series(np.asarray(by))
    if len(s) != n:
        raise MeasureError(f"by: length {len(s)} differs from the values' length {n}")
    if s.isna().any():
        raise MeasureError(f"by: {int(s.isna().sum())} missing values in the breakdown variable")
    codes, labels = pd.factorize(s, sort=True)
    return codes.astype(np.int64), pd.Index(labels, name=s.name)


def _prepare(values: Any, weights: Any, by: Any, na_rm: bool, name: str = "values"):
    x = _float_array(values, name)
    n = len(x)
    if n == 0:
        raise MeasureError(f"{name}: no records")
    w = _weights(weights, n)
    g = _groups(by, n)
    miss = np.isnan(x)
    if miss.any():
        if not na_rm:
            raise MeasureError(
                f"{name}: {int(miss.sum())} missing values; pass na_rm=True to drop those records"
            )
        keep = ~miss
        x, w = x[keep], w[keep]
        if g is not None:
            g = (g[0][keep], g[1])
        if len(x) == 0:
            raise MeasureError(f"{name}: all values are missing")
    if w.sum() <= 0:
        raise MeasureError("weights: the weights sum to zero")
    return x, w, g


# --------------------------------------------------------------------------------------------
# array kernels (x, w already clean)
# --------------------------------------------------------------------------------------------


def _k_mean(x: np.ndarray, w: np.ndarray) -> float:
    return float(np.dot(w, x) / w.sum())


def _k_total(x: np.ndarray, w: np.ndarray) -> float:
    return float(np.dot(w, x))


def _k_ratio(y: np.ndarray, x: np.ndarray, w: np.ndarray) -> float:
    den = np.dot(w, x)
    if den == 0:
        raise MeasureError("ratio: the weighted total of the denominator is zero")
    return float(np.dot(w, y) / den)


def _k_quantile(x: np.ndarray, w: np.ndarray, q: float) -> float:
    """laeken's weighted quantile: the smallest x whose cumulated weight share reaches q; the mean
    of that value and the next one when the share equals q exactly."""
    o = np.argsort(x, kind="stable")
    xs, ws = x[o], w[o]
    rw = np.cumsum(ws) / ws.sum()
    if q <= 0:
        return float(xs[0])
    if q >= 1:
        return float(xs[-1])
    s = int(np.searchsorted(rw, q, side="left"))
    s = min(s, len(xs) - 1)
    if rw[s] == q and s + 1 < len(xs):
        return float((xs[s] + xs[s + 1]) / 2)
    return float(xs[s])


def _k_gini(x: np.ndarray, w: np.ndarray) -> float:
    o = np.argsort(x, kind="stable")
    xs, ws = x[o], w[o]
    cw = np.cumsum(ws)
    wx = np.dot(ws, xs)
    if wx == 0:
        raise MeasureError("gini: the weighted total of the values is zero")
    return float((2 * np.dot(ws * xs, cw) - np.dot(ws * ws, xs)) / (cw[-1] * wx) - 1)


def _by(fn: Callable[..., float], arrays: list[np.ndarray], w: np.ndarray, g, name: str):
    if g is None:
        return fn(*arrays, w)
    codes, labels = g
    out = np.empty(len(labels))
    for j in range(len(labels)):
        m = codes == j
        out[j] = fn(*(a[m] for a in arrays), w[m])
    return pd.Series(out, index=labels, name=name)


# --------------------------------------------------------------------------------------------
# public point estimators
# --------------------------------------------------------------------------------------------


def weighted_mean(values: Any, weights: Any = None, *, by: Any = None, na_rm: bool = False):
    """Weighted mean ``Σ w x / Σ w`` (Horvitz–Thompson ratio / Hájek estimator).

    Returns a float, or a Series indexed by the groups of ``by``.

    >>> weighted_mean([1.0, 3.0], [1.0, 3.0])
    2.5
    """
    x, w, g = _prepare(values, weights, by, na_rm)
    return _by(_k_mean, [x], w, g, "mean")


def weighted_total(values: Any, weights: Any = None, *, by: Any = None, na_rm: bool = False):
    """Weighted (Horvitz–Thompson) total ``Σ w x``.

    >>> weighted_total([1.0, 3.0], [2.0, 2.0])
    8.0
    """
    x, w, g = _prepare(values, weights, by, na_rm)
    return _by(_k_total, [x], w, g, "total")


def weighted_ratio(
    numerator: Any, denominator: Any, weights: Any = None, *, by: Any = None, na_rm: bool = False
):
    """Ratio of weighted totals ``Σ w y / Σ w x``.

    >>> weighted_ratio([2.0, 4.0], [1.0, 1.0])
    3.0
    """
    y = _float_array(numerator, "numerator")
    x = _float_array(denominator, "denominator")
    if len(x) != len(y):
        raise MeasureError("ratio: numerator and denominator differ in length")
    both = np.where(np.isnan(x), np.nan, y)
    yy, w, g = _prepare(both, weights, by, na_rm, "numerator/denominator")
    xx = x[~np.isnan(both)]
    return _by(_k_ratio, [yy, xx], w, g, "ratio")


def weighted_quantile(
    values: Any, weights: Any = None, *, q: float = 0.5, by: Any = None, na_rm: bool = False
):
    """Weighted quantile as in laeken (Alfons & Templ 2013).

    Sort x; with cumulated weight shares ``r_i = Σ_{j≤i} w_j / Σ w``, the q-quantile is ``x_s`` for
    the first s with ``r_s ≥ q``, or ``(x_s + x_{s+1}) / 2`` when ``r_s = q`` exactly.

    >>> weighted_quantile([1.0, 2.0, 3.0, 4.0], q=0.25)
    1.5
    """
    if not (isinstance(q, (int, float)) and 0 <= q <= 1):
        raise ParameterError(f"q: expected a probability in [0, 1], got {q!r}")
    x, w, g = _prepare(values, weights, by, na_rm)
    return _by(lambda a, ww: _k_quantile(a, ww, float(q)), [x], w, g, f"quantile{q:g}")


def weighted_median(values: Any, weights: Any = None, *, by: Any = None, na_rm: bool = False):
    """Weighted median: :func:`weighted_quantile` with q = 0.5.

    >>> weighted_median([1.0, 2.0, 10.0], [1.0, 1.0, 5.0])
    10.0
    """
    return weighted_quantile(values, weights, q=0.5, by=by, na_rm=na_rm)


def gini(values: Any, weights: Any = None, *, by: Any = None, na_rm: bool = False):
    """Weighted Gini coefficient as a fraction in [0, 1] (laeken reports percent).

    With x sorted increasingly and weights w::

        G = (2 Σ_i w_i x_i Σ_{j≤i} w_j − Σ_i w_i² x_i) / (Σ_i w_i · Σ_i w_i x_i) − 1

    (EU-SILC definition; Alfons & Templ 2013). Returns a float, or a Series per group of ``by``.
    The coefficient is defined for non-negative values; negative values (losses) are used as they
    are, as laeken does, but an :class:`SdcWarning` says how many there are, since G may then
    leave [0, 1].

    >>> round(gini([0.0, 0.0, 0.0, 1.0]), 6)
    0.75
    """
    x, w, g = _prepare(values, weights, by, na_rm)
    neg = int((x < 0).sum())
    if neg:
        warnings.warn(f"gini: {neg} negative values; the Gini coefficient assumes non-negative "
                      "values and may leave [0, 1]", SdcWarning, stacklevel=2)
    return _by(_k_gini, [x], w, g, "gini")


@attrs.frozen
class ArprResult:
    """At-risk-of-poverty rate: ``value`` (fraction), ``threshold`` (currency), ``median``;
    ``by`` is a Series of rates per group (using the overall threshold) or None."""

    value: float
    threshold: float
    median: float
    by: pd.Series | None = None


def _k_arpr(x: np.ndarray, w: np.ndarray, p: float, q: float) -> tuple[float, float, float]:
    med = _k_quantile(x, w, q)
    thr = p * med
    return float(w[x < thr].sum() / w.sum()), thr, med


def arpr(
    values: Any,
    weights: Any = None,
    *,
    by: Any = None,
    p: float = 0.6,
    q: float = 0.5,
    na_rm: bool = False,
) -> ArprResult:
    """At-risk-of-poverty rate: weighted share of persons with income below the threshold
    ``p · weighted q-quantile`` (default 60 % of the weighted median, laeken/EU-SILC definition).

    The rate is a fraction (laeken reports percent). With ``by``, the rates per group use the
    overall (national) threshold, as laeken does by default.

    >>> r = arpr([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> r.threshold, r.value
    (1.7999999999999998, 0.2)
    """
    if not (0 < p <= 1) or not (0 < q < 1):
        raise ParameterError(f"arpr: expected 0 < p <= 1 and 0 < q < 1, got p={p!r}, q={q!r}")
    x, w, g = _prepare(values, weights, by, na_rm)
    rate, thr, med = _k_arpr(x, w, p, q)
    per = None
    if g is not None:
        codes, labels = g
        poor = (x < thr).astype(float)
        num = np.bincount(codes, weights=w * poor, minlength=len(labels))
        den = np.bincount(codes, weights=w, minlength=len(labels))
        per = pd.Series(num / den, index=labels, name="arpr")
    return ArprResult(value=rate, threshold=thr, median=med, by=per)


# --------------------------------------------------------------------------------------------
# indicator specs and their evaluation on (data, weights, groups)
# --------------------------------------------------------------------------------------------


@attrs.frozen
class Indicator:
    """A benchmarking indicator: ``stat`` of ``column`` (``denominator`` for a ratio, ``q`` for a
    quantile). Parse the short form with :meth:`parse`: ``"mean:income"``, ``"total:income"``,
    ``"ratio:expend/income"``, ``"quantile:income:0.9"``, ``"median:income"``, ``"gini:income"``,
    ``"arpr:income"`` (rate), ``"threshold:income"`` (poverty threshold).

    >>> Indicator.parse("ratio:expend/income").name
    'ratio(expend/income)'
    """

    stat: str
    column: str
    denominator: str | None = None
    q: float | None = None

    def __attrs_post_init__(self) -> None:
        if self.stat not in STATS:
            raise ParameterError(f"indicator: unknown statistic {self.stat!r}; known: {STATS}")
        if self.stat == "ratio" and not self.denominator:
            raise ParameterError("indicator: a ratio needs a denominator ('ratio:y/x')")
        if self.stat == "quantile" and (self.q is None or not 0 <= self.q <= 1):
            raise ParameterError("indicator: a quantile needs q in [0, 1] ('quantile:x:0.9')")

    @property
    def name(self) -> str:
        if self.stat == "ratio":
            return f"ratio({self.column}/{self.denominator})"
        if self.stat == "quantile":
            return f"quantile{self.q:g}({self.column})"
        return f"{self.stat}({self.column})"

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,) + ((self.denominator,) if self.denominator else ())

    @classmethod
    def parse(cls, spec: str | Indicator | Sequence[Any]) -> Indicator:
        """Indicator from a short string, a tuple ``(stat, column[, denominator|q])`` or itself."""
        if isinstance(spec, Indicator):
            return spec
        if isinstance(spec, str):
            parts = spec.split(":")
            if len(parts) < 2:
                raise ParameterError(f"indicator: expected 'stat:column', got {spec!r}")
            stat, col = parts[0].strip(), parts[1].strip()
            if stat == "ratio":
                if "/" not in col:
                    raise ParameterError(f"indicator: expected 'ratio:y/x', got {spec!r}")
                num, den = col.split("/", 1)
                return cls("ratio", num.strip(), den.strip())
            if stat == "quantile":
                try:
                    return cls("quantile", col, q=float(parts[2]))
                except (IndexError, ValueError):
                    raise ParameterError(f"indicator: expected 'quantile:x:q', got {spec!r}") from None
            return cls(stat, col)
        if isinstance(spec, Sequence) and len(spec) >= 2:
            stat, col = spec[0], spec[1]
            if stat == "ratio":
                return cls("ratio", col, spec[2] if len(spec) > 2 else None)
            if stat == "quantile":
                return cls("quantile", col, q=float(spec[2]) if len(spec) > 2 else None)
            return cls(stat, col)
        raise ParameterError(f"indicator: cannot read {spec!r}")


def _evaluate(ind: Indicator, cols: list[np.ndarray], w: np.ndarray, codes, G: int) -> np.ndarray:
    """Estimates of ``ind``: element 0 the total, elements 1..G the groups (NaN if empty)."""
    out = np.full(G + 1, np.nan)
    x = cols[0]
    st = ind.stat
    if st in ("arpr", "threshold"):
        rate, thr, _ = _k_arpr(x, w, 0.6, 0.5)
        if st == "threshold":
            out[0] = thr
            if G:
                for j in range(G):
                    m = codes == j
                    if m.any():
                        out[j + 1] = 0.6 * _k_quantile(x[m], w[m], 0.5)
            return out
        out[0] = rate
        if G:
            num = np.bincount(codes, weights=w * (x < thr), minlength=G)
            den = np.bincount(codes, weights=w, minlength=G)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[1:] = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
        return out
    if st == "mean":
        fn: Callable[..., float] = _k_mean
    elif st == "total":
        fn = _k_total
    elif st == "ratio":
        fn = _k_ratio
    elif st == "gini":
        fn = _k_gini
    else:
        qq = 0.5 if st == "median" else float(ind.q)  # type: ignore[arg-type]

        def fn(a, ww):
            return _k_quantile(a, ww, qq)

    out[0] = fn(*cols, w)
    for j in range(G):
        m = codes == j
        if m.any():
            out[j + 1] = fn(*(c[m] for c in cols), w[m])
    return out


def _frame_inputs(
    data: pd.DataFrame,
    ind: Indicator,
    weight: str | None,
    by: str | None,
    household: str | None,
    na_rm: bool,
    labels: pd.Index | None = None,
):
    """Clean arrays for ``ind`` on ``data``: columns, weights, group codes, labels, cluster ids."""
    if not isinstance(data, pd.DataFrame):
        raise MeasureError(f"data: expected a DataFrame, got {type(data).__name__}")
    need = list(ind.columns) + [c for c in (weight, by, household) if c]
    missing = [c for c in need if c not in data.columns]
    if missing:
        raise MeasureError(f"{ind.name}: unknown column(s) {missing}; columns: {list(data.columns)}")
    cols = [_float_array(data[c], f"column {c!r}") for c in ind.columns]
    w = _weights(data[weight] if weight else None, len(data), f"weight {weight!r}")
    miss = np.zeros(len(data), dtype=bool)
    for c in cols:
        miss |= np.isnan(c)
    keep = None
    if miss.any():
        if not na_rm:
            raise MeasureError(
                f"{ind.name}: {int(miss.sum())} missing values; pass na_rm=True to drop them"
            )
        keep = ~miss
        cols = [c[keep] for c in cols]
        w = w[keep]
    if len(w) == 0 or w.sum() <= 0:
        raise MeasureError(f"{ind.name}: no records with positive weight")
    codes = None
    if by:
        s = data[by] if keep is None else data[by][keep]
        if s.isna().any():
            raise MeasureError(f"by: {int(s.isna().sum())} missing values in {by!r}")
        if labels is None:
            labels = pd.Index(pd.unique(s.to_numpy())).sort_values()
        codes = labels.get_indexer(s.to_numpy())
        if (codes < 0).any():  # groups present in masked only: append them
            extra = pd.Index(pd.unique(s.to_numpy()[codes < 0]))
            labels = labels.append(extra)
            codes = labels.get_indexer(s.to_numpy())
        codes = codes.astype(np.int64)
    clusters = None
    if household:
        h = data[household] if keep is None else data[household][keep]
        if h.isna().any():
            raise MeasureError(f"household: {int(h.isna().sum())} missing ids in {household!r}")
        clusters = pd.factorize(h)[0].astype(np.int64)
    return cols, w, codes, labels, clusters


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
    redirected output; see :mod:`sdcsession.progress`).

    Returns columns ``indicator, group, estimate, se, lower, upper`` (group "total" first).

    >>> df = pd.DataFrame({"x": np.arange(1.0, 101.0)})
    >>> ci = indicator_ci(df, "mean:x", method="normal")
    >>> round(float(ci.estimate[0]), 2), round(float(ci.se[0]), 4)
    (50.5, 2.9011)
    """
    with Bar(n_boot if isinstance(n_boot, (int, np.integer)) else None,
             desc=f"bootstrap {Indicator.parse(indicator).name}", enabled=progress) as bar:
        return _indicator_ci(data, indicator, weight=weight, household=household, by=by,
                             method=method, n_boot=n_boot, level=level, seed=seed,
                             calibrate=calibrate, na_rm=na_rm, labels=labels, bar=bar)


def _indicator_ci(data, indicator, *, weight, household, by, method, n_boot, level, seed,
                  calibrate, na_rm, labels, bar) -> pd.DataFrame:
    """:func:`indicator_ci` with a given progress bar (advanced by one per replicate)."""
    ind = Indicator.parse(indicator)
    if method not in ("bootstrap", "normal"):
        raise ParameterError(f"method: expected 'bootstrap' or 'normal', got {method!r}")
    if not (0 < level < 1):
        raise ParameterError(f"level: expected a probability in (0, 1), got {level!r}")
    if not isinstance(n_boot, (int, np.integer)) or n_boot < 2:
        raise ParameterError(f"n_boot: expected an integer >= 2, got {n_boot!r}")
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
        rng = np.random.default_rng(seed)
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

    >>> float(ci_overlap(0.0, 2.0, 1.0, 3.0))
    0.5
    """
    lo, uo, lm, um = (np.asarray(v, dtype=float) for v in (lower_o, upper_o, lower_m, upper_m))
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
    ``orig_lower/orig_upper``, ``masked_lower/masked_upper`` (see :func:`indicator_ci`; both files
    use the same seed), ``in_ci`` (masked estimate within the original interval) and
    ``ci_overlap`` (:func:`ci_overlap`, Karr et al. 2006). The files need not have the same records.
    ``progress``: one progress bar over all bootstrap replicates (2 files × indicators × n_boot;
    None: automatic, see :mod:`sdcsession.progress`).

    >>> rng = np.random.default_rng(1)
    >>> o = pd.DataFrame({"x": rng.lognormal(size=500)})
    >>> t = compare_indicators(o, o, ["mean:x", "gini:x"], seed=1, n_boot=50)
    >>> t.ci_overlap.tolist(), t.rel_diff_pct.tolist()
    ([1.0, 1.0], [0.0, 0.0])
    """
    if isinstance(indicators, (str, Indicator)):
        indicators = [indicators]
    if not isinstance(masked, pd.DataFrame):
        raise MeasureError(f"masked: expected a DataFrame, got {type(masked).__name__}")
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

