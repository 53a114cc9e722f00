"""Global data utility (GDU) model: univariate and bivariate local utilities combined.

The model compares the original and the protected file by benchmarking statistics only (no record
linkage), so it works for perturbed, suppressed, recoded, sampled or synthetic files:

* **LDU_uni** per variable. After perturbation, suppression or removal:
  ``LDU_psr = 1 − exp(−14 P)`` with P the p-value of the two-sample Kolmogorov–Smirnov test
  (continuous) or of the chi-squared test on the 2 × K table of category counts (categorical;
  missing values are a category of their own, so suppression costs utility). P = 0.05 gives 0.50,
  P = 0.01 gives 0.13. After global recoding ``LDU_uni = LDU_gr · LDU_psr`` (LDU_psr compares the
  recoded original with the protected variable) with ``LDU_gr`` one of the variants

  - ``"comparisons"``: ``m(m − 1) / (n(n − 1))``, n the distinct original values, m the groups
    (10 → 5 age groups: 10/45);
  - ``"biased_allocation"``: ``1 − n_ba / n``, n_ba the records whose value is strictly closer to a
    value of a neighbouring group than to any other value of their own group;
  - ``"mad"``: ``1 − MAD_groups / MAD_one-group``, mean absolute deviations of the original values
    from their group means and from the grand mean.

  A removed variable has LDU_uni = 0 and all its pairs LDU_biv = 0.
* **LDU_biv** for every pair, with the test chosen by the pair's measurement levels (Table 1 of the
  paper): nominal × nominal chi-squared (Cramér's V²); nominal × ordinal or non-normal
  Kruskal–Wallis (ε² = H/(N − 1)); nominal × normal ANOVA F (η² = SSB/TSS); two normal Pearson (r²);
  any other pair Spearman (ρ²). Normality of a continuous variable is decided on the original file
  by a one-sample Kolmogorov–Smirnov test against the fitted normal (P ≥ ``alpha``). When a
  variable changed level (e.g. continuous → recoded intervals), the lower level of the two files
  is used on both sides so that the coefficients are comparable.
  Steps: (1) both P ≥ ``alpha`` → 1; exactly one → 0; (2) direction: the sign of the correlation,
  or, for chi-squared / ANOVA / Kruskal–Wallis, ``D = mean_i(|M_o,i − M_p,i| − |M_o,i|)`` over the
  cells/groups, with ``M`` the standardised residuals (O − E)/√E divided by √N, or the signed group
  contributions ±n_i(ȳ_i − ȳ)² / TSS (mean ranks for Kruskal–Wallis): D = 0 when the protected file
  has no association, D < 0 when its measures are closer to the original's than to 0, D > 0 when
  they changed sign (or grew beyond twice the original) → reversed → 0; (3) otherwise
  ``1 − |c²_o − c²_p| / max(c²_o, c²_p)``.
* ``ALDU_uni`` and ``ALDU_biv`` are the (optionally weighted) means over the variables (a variable's
  bivariate score is the mean over its pairs), ``GDU = ½(ALDU_uni + ALDU_biv)``, and
  ``GRC = m(m − 1)/(n(n − 1))`` for n original and m kept variables (100 → 95: 0.902), reported and
  applied in ``gdu_reduced = GDU · GRC``.

Documented values where a test is undefined: a file in which a variable is constant (or a pair has
fewer than 3 complete records, or one group) shows "no association" there (P = 1, coefficient 0);
identical univariate distributions give LDU_uni = 1 exactly (the formula would give 1 − e^−14),
so GDU of identical files is exactly 1. The reconstruction of the direction rule D is ours (the
paper's equation was lost in the available text); it satisfies the paper's three stated properties.

Reference
---------
"A new user-centred global data utility measure", Methods paper no. 4/2018 (the global data
utility model; text in shared/literature/global-data-utility-model.txt); Shlomo, N. (2010) for
the Cramér's V information loss it adapts.

Example
-------
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame({"x": rng.normal(size=300), "g": rng.choice(["a", "b"], 300)})
>>> gdu(df, df).gdu
1.0
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd
from scipy import stats

from ..errors import MeasureError, ParameterError
from ..progress import track

__all__ = ["gdu", "GduResult", "ldu_psr", "ldu_recoding", "grc", "ldu_biv_rule", "TYPES"]

TYPES = ("nominal", "ordinal", "continuous", "normal", "nonnormal")
_LEVEL = {"nominal": 0, "ordinal": 1, "nonnormal": 2, "normal": 3}
_LEVEL_NAME = {v: k for k, v in _LEVEL.items()}
RECODE_VARIANTS = ("comparisons", "biased_allocation", "mad")


# --------------------------------------------------------------------------------------------
# small public formulas
# --------------------------------------------------------------------------------------------


def ldu_psr(p_value: float) -> float:
    """Local univariate utility after perturbation/suppression/removal: ``1 − exp(−14 P)``.

    >>> round(ldu_psr(0.05), 2), round(ldu_psr(0.01), 2)
    (0.5, 0.13)
    """
    if not (0 <= p_value <= 1):
        raise ParameterError(f"p_value: expected a probability, got {p_value!r}")
    return 1.0 - math.exp(-14.0 * p_value)


def grc(n_original: int, n_protected: int) -> float:
    """Global reduction coefficient ``m(m − 1) / (n(n − 1))`` for removed variables (also the
    ``"comparisons"`` recoding utility with n original and m reduced categories).

    >>> round(grc(100, 95), 3), grc(10, 5)
    (0.902, 0.2222222222222222)
    """
    n, m = int(n_original), int(n_protected)
    if n < 0 or m < 0 or m > n:
        raise ParameterError(f"grc: expected 0 <= m <= n, got n={n_original!r}, m={n_protected!r}")
    if n < 2:
        return 1.0
    return m * (m - 1) / (n * (n - 1))


def ldu_biv_rule(
    p_original: float,
    p_protected: float,
    coef2_original: float,
    coef2_protected: float,
    *,
    reversed_direction: bool = False,
    alpha: float = 0.05,
) -> tuple[float, int, str]:
    """The three-step LDU_biv rule; returns ``(ldu, step, decision)``.

    >>> ldu_biv_rule(0.3, 0.5, 0.0, 0.0)
    (1.0, 1, 'no association in either file')
    >>> ldu_biv_rule(0.001, 0.4, 0.2, 0.0)
    (0.0, 1, 'association lost')
    >>> ldu_biv_rule(0.001, 0.001, 0.2, 0.1)
    (0.5, 3, 'strength compared')
    """
    so, sp = p_original < alpha, p_protected < alpha
    if not so and not sp:
        return 1.0, 1, "no association in either file"
    if so != sp:
        return 0.0, 1, "association lost" if so else "association appeared"
    if reversed_direction:
        return 0.0, 2, "direction reversed"
    hi = max(coef2_original, coef2_protected)
    if hi <= 0:
        return 1.0, 3, "strength compared"
    return 1.0 - abs(coef2_original - coef2_protected) / hi, 3, "strength compared"


# --------------------------------------------------------------------------------------------
# recoding utilities
# --------------------------------------------------------------------------------------------


def ldu_recoding(values: Any, groups: Any, *, variant: str = "comparisons") -> float:
    """Local univariate utility of a global recoding of ``values`` into ``groups`` (same length:
    the group of each original record). See the module docstring for the three variants.

    >>> ldu_recoding(np.arange(10), np.arange(10) // 2)  # 10 -> 5 groups
    0.2222222222222222
    >>> ldu_recoding([33.0, 39.0, 40.0, 49.0], ["30s", "30s", "40s", "40s"], variant="biased_allocation")
    0.5
    """
    if variant not in RECODE_VARIANTS:
        raise ParameterError(f"variant: expected one of {RECODE_VARIANTS}, got {variant!r}")
    v = pd.Series(np.asarray(values) if not isinstance(values, pd.Series) else values.to_numpy())
    g = pd.Series(np.asarray(groups) if not isinstance(groups, pd.Series) else groups.to_numpy())
    if len(v) != len(g):
        raise MeasureError("ldu_recoding: values and groups differ in length")
    keep = (v.notna() & g.notna()).to_numpy()
    if variant == "comparisons":
        return grc(v[v.notna()].nunique(), g[keep].nunique())
    if not pd.api.types.is_numeric_dtype(v.dtype):
        raise MeasureError(
            f"ldu_recoding: variant {variant!r} needs numeric original values, got {v.dtype}"
        )
    x = v.to_numpy(dtype=float, na_value=np.nan)[keep]
    gc, _ = pd.factorize(g[keep])
    if len(x) == 0:
        return 1.0
    k = int(gc.max()) + 1
    cnt = np.bincount(gc, minlength=k)
    means = np.bincount(gc, weights=x, minlength=k) / cnt
    if variant == "mad":
        mad1 = np.mean(np.abs(x - x.mean()))
        if mad1 == 0:
            return 1.0
        return float(1.0 - np.mean(np.abs(x - means[gc])) / mad1)
    # biased allocation: groups ordered by mean; neighbours are adjacent groups in that order
    order = np.argsort(means, kind="stable")
    sorted_vals = [np.unique(x[gc == j]) for j in range(k)]
    biased = 0
    for pos, j in enumerate(order):
        xs = x[gc == j]
        own = sorted_vals[j]
        if len(own) < 2:  # one distinct value: perfectly homogeneous group
            continue
        # nearest other distinct value of the own group
        i = np.searchsorted(own, xs)
        left = np.where(i > 0, xs - own[np.maximum(i - 1, 0)], np.inf)
        nxt = np.minimum(i + 1, len(own) - 1)
        right = np.where(i + 1 < len(own), own[nxt] - xs, np.inf)
        d_own = np.minimum(left, right)
        d_nb = np.full(len(xs), np.inf)
        for q in (pos - 1, pos + 1):
            if 0 <= q < k:
                nb = sorted_vals[order[q]]
                ii = np.searchsorted(nb, xs)
                lo = np.where(ii > 0, np.abs(xs - nb[np.maximum(ii - 1, 0)]), np.inf)
                hi = np.where(ii < len(nb), np.abs(nb[np.minimum(ii, len(nb) - 1)] - xs), np.inf)
                d_nb = np.minimum(d_nb, np.minimum(lo, hi))
        biased += int(np.sum(d_nb < d_own))
    return 1.0 - biased / len(x)


# --------------------------------------------------------------------------------------------
# bivariate tests on one file (codes: int >= 0, values: float; complete cases already selected)
# --------------------------------------------------------------------------------------------


@attrs.frozen
class _Test:
    p: float
    coef: float  # signed where meaningful (r, rho), else the coefficient itself
    coef2: float
    msd: np.ndarray | None  # direction measures (cells / groups), None for correlations


_NONE = _Test(1.0, 0.0, 0.0, None)


def _chi2(a: np.ndarray, b: np.ndarray, ka: int, kb: int) -> _Test:
    n = len(a)
    tab = np.bincount(a * kb + b, minlength=ka * kb).reshape(ka, kb).astype(float)
    r, c = tab.sum(1), tab.sum(0)
    nr, nc = int((r > 0).sum()), int((c > 0).sum())
    if n < 3 or nr < 2 or nc < 2:
        return _Test(1.0, 0.0, 0.0, np.zeros(ka * kb))
    e = np.outer(r, c) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        res = np.where(e > 0, (tab - e) / np.sqrt(np.where(e > 0, e, 1)), 0.0)
    chi2 = float(np.sum(res**2))
    df = (nr - 1) * (nc - 1)
    p = float(stats.chi2.sf(chi2, df))
    v2 = chi2 / (n * (min(nr, nc) - 1))
    return _Test(p, math.sqrt(v2), v2, (res / math.sqrt(n)).ravel())


def _groups_ss(g: np.ndarray, y: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    cnt = np.bincount(g, minlength=k).astype(float)
    s = np.bincount(g, weights=y, minlength=k)
    grand = y.mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(cnt > 0, s / np.where(cnt > 0, cnt, 1), grand)
    ssb_i = cnt * (mean - grand) ** 2
    tss = float(np.sum((y - grand) ** 2))
    return cnt, np.sign(mean - grand) * ssb_i, float(ssb_i.sum()), tss


def _anova(g: np.ndarray, y: np.ndarray, k: int) -> _Test:
    n = len(y)
    cnt, signed, ssb, tss = _groups_ss(g, y, k)
    kk = int((cnt > 0).sum())
    if n < 3 or kk < 2 or tss <= 0 or n <= kk:
        return _Test(1.0, 0.0, 0.0, np.zeros(k))
    ssw = max(tss - ssb, 0.0)
    if ssw <= 0:
        p = 0.0
    else:
        f = (ssb / (kk - 1)) / (ssw / (n - kk))
        p = float(stats.f.sf(f, kk - 1, n - kk))
    eta2 = min(ssb / tss, 1.0)
    return _Test(p, eta2, eta2, signed / tss)


def _kruskal(g: np.ndarray, ranks: np.ndarray, ties: float, k: int) -> _Test:
    n = len(ranks)
    cnt, signed, ssb, tss = _groups_ss(g, ranks, k)
    kk = int((cnt > 0).sum())
    if n < 3 or kk < 2 or tss <= 0:
        return _Test(1.0, 0.0, 0.0, np.zeros(k))
    h = 12.0 / (n * (n + 1)) * ssb
    corr = 1.0 - ties / (n**3 - n)
    h = h / corr if corr > 0 else h
    p = float(stats.chi2.sf(h, kk - 1))
    eps2 = min(h / (n - 1), 1.0)
    return _Test(p, eps2, eps2, signed / tss)


def _zscore(v: np.ndarray) -> np.ndarray | None:
    """Centred values scaled to unit norm (None when constant)."""
    c = v - v.mean()
    ss = float(np.dot(c, c))
    return c / math.sqrt(ss) if ss > 0 else None


def _corr_z(za: np.ndarray | None, zb: np.ndarray | None, n: int) -> _Test:
    """Pearson correlation of unit-norm centred vectors, with its t-test p-value."""
    if n < 3 or za is None or zb is None:
        return _NONE
    r = max(-1.0, min(1.0, float(np.dot(za, zb))))
    if abs(r) >= 1:
        p = 0.0
    else:
        t = r * math.sqrt((n - 2) / (1 - r * r))
        p = float(2 * stats.t.sf(abs(t), n - 2))
    return _Test(p, r, r * r, None)


def _corr(x: np.ndarray, y: np.ndarray) -> _Test:
    """Pearson correlation test of two complete vectors."""
    return _corr_z(_zscore(x), _zscore(y), len(x))


def _ranks(v: np.ndarray) -> tuple[np.ndarray, float]:
    """Average ranks and the tie term Σ(t³ − t)."""
    r = stats.rankdata(v)
    _, t = np.unique(v, return_counts=True)
    t = t.astype(float)
    return r, float(np.sum(t**3 - t))


# --------------------------------------------------------------------------------------------
# variable preparation
# --------------------------------------------------------------------------------------------


@attrs.define
class _Side:
    codes: np.ndarray  # int, -1 missing (label space shared between the sides where possible)
    values: np.ndarray  # float, NaN missing (for ordinal/continuous use)


@attrs.define
class _Var:
    name: str
    type_o: str
    level_o: int
    level_p: int
    k: int  # size of the shared code space
    o: _Side
    p: _Side | None  # None: removed
    d: _Side | None  # original side for direction matching (recoded variables), else None
    recoded: bool = False
    recoding: Any = None
    ldu_gr: float = 1.0
    gr_variant: str | None = None

    @property
    def level(self) -> int:
        return min(self.level_o, self.level_p)


def _infer_type(s: pd.Series) -> str:
    if isinstance(s.dtype, pd.CategoricalDtype):
        return "ordinal" if s.dtype.ordered else "nominal"
    if pd.api.types.is_bool_dtype(s.dtype):
        return "nominal"
    if pd.api.types.is_numeric_dtype(s.dtype):
        return "continuous"
    return "nominal"


def _is_numeric(s: pd.Series) -> bool:
    return (
        pd.api.types.is_numeric_dtype(s.dtype)
        and not pd.api.types.is_bool_dtype(s.dtype)
        and not isinstance(s.dtype, pd.CategoricalDtype)
    )


def _ordinal_values(s: pd.Series) -> np.ndarray:
    if isinstance(s.dtype, pd.CategoricalDtype):
        c = s.cat.codes.to_numpy().astype(float)
        c[c < 0] = np.nan
        return c
    if _is_numeric(s):
        return s.to_numpy(dtype=float, na_value=np.nan)
    raise MeasureError(
        f"column {s.name!r}: declared ordinal but neither numeric nor an ordered categorical"
    )


def _normal(x: np.ndarray, alpha: float) -> bool:
    x = x[~np.isnan(x)]
    if len(x) < 3 or np.std(x) == 0:
        return False
    p = stats.kstest(x, "norm", args=(x.mean(), x.std(ddof=1))).pvalue
    return bool(p >= alpha)


def _joint_codes(a: pd.Series, b: pd.Series) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Integer codes (-1 missing) of two columns in one shared label space. Labels are compared
    as values when both columns are numeric, else as their string forms."""
    ca, la = pd.factorize(a)
    cb, lb = pd.factorize(b)
    numeric = _is_numeric(a) and _is_numeric(b)
    ka = pd.Index(la if numeric else [str(v) for v in la], dtype=object)
    kb = pd.Index(lb if numeric else [str(v) for v in lb], dtype=object)
    labels = ka.append(kb[~kb.isin(ka)]).unique()
    ma = labels.get_indexer(ka)
    mb = labels.get_indexer(kb)
    oa = np.where(ca >= 0, ma[np.maximum(ca, 0)] if len(ma) else -1, -1).astype(np.int64)
    ob = np.where(cb >= 0, mb[np.maximum(cb, 0)] if len(mb) else -1, -1).astype(np.int64)
    return oa, ob, labels


def _apply_recoding(s: pd.Series, rec: Any) -> pd.Series:
    if callable(rec):
        out = rec(s)
        return out if isinstance(out, pd.Series) else pd.Series(np.asarray(out), index=s.index)
    if isinstance(rec, Mapping):
        return s.map(lambda v: rec.get(v, np.nan) if pd.notna(v) else np.nan)
    if isinstance(rec, Sequence) and not isinstance(rec, str):
        if not _is_numeric(s):
            raise MeasureError(f"recoded[{s.name!r}]: breaks need a numeric original column")
        return pd.cut(s, bins=list(rec), right=True, include_lowest=True)
    raise ParameterError(
        f"recoded[{s.name!r}]: expected a mapping, a list of breaks, a callable or None, got {rec!r}"
    )


def _derive_recoding(o: pd.Series, m: pd.Series) -> pd.Series:
    """Recoded original derived by pairing records: each original value goes to its modal masked
    label. Needs the same number of records in both files."""
    if len(o) != len(m):
        raise MeasureError(
            f"variable {o.name!r} looks globally recoded but the files differ in records "
            f"({len(o)} vs {len(m)}); pass recoded={{{o.name!r}: mapping or breaks}}"
        )
    oc, ol = pd.factorize(o.reset_index(drop=True))
    mc, ml = pd.factorize(m.reset_index(drop=True))
    ok = (oc >= 0) & (mc >= 0)
    if not ok.any():
        return pd.Series(np.nan, index=o.index, dtype=object)
    tab = np.bincount(oc[ok] * len(ml) + mc[ok], minlength=len(ol) * len(ml)).reshape(
        len(ol), len(ml)
    )
    best = tab.argmax(1)
    has = tab.max(1) > 0
    lab = np.asarray(ml, dtype=object)[best]
    mapped = np.where((oc >= 0) & has[np.maximum(oc, 0)], lab[np.maximum(oc, 0)], None)
    return pd.Series(mapped, index=o.index, dtype=object)


def _looks_recoded(o: pd.Series, m: pd.Series) -> bool:
    if _is_numeric(o) and not _is_numeric(m):
        return True
    if _is_numeric(o) and _is_numeric(m):
        return False
    ov = {str(v) for v in pd.unique(o.dropna())}
    mv = {str(v) for v in pd.unique(m.dropna())}
    return not mv <= ov


# --------------------------------------------------------------------------------------------
# the model
# --------------------------------------------------------------------------------------------


@attrs.frozen
class GduResult:
    """Global data utility: ``gdu``, ``aldu_uni``, ``aldu_biv`` (None with a single variable),
    ``grc`` and ``gdu_reduced = gdu · grc``; ``univariate`` (one row per variable), ``bivariate``
    (one row per pair) and ``by_variable`` (LDU_uni, mean LDU_biv of its pairs, weight)."""

    gdu: float
    aldu_uni: float
    aldu_biv: float | None
    grc: float
    univariate: pd.DataFrame
    bivariate: pd.DataFrame
    by_variable: pd.DataFrame
    alpha: float

    @property
    def gdu_reduced(self) -> float:
        return self.gdu * self.grc

    def worst_pairs(self, n: int = 10) -> pd.DataFrame:
        """The ``n`` pairs with the lowest LDU_biv (drill-down)."""
        return self.bivariate.nsmallest(n, "ldu_biv")


def _univariate(v: _Var, o: pd.Series, m: pd.Series | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "variable": v.name,
        "type_original": v.type_o,
        "level": _LEVEL_NAME[v.level],
        "recoded": v.recoded,
        "recode_variant": v.gr_variant,
        "ldu_gr": v.ldu_gr,
    }
    if m is None:
        return {**row, "test": "removed", "statistic": np.nan, "p_value": np.nan, "ldu_psr": 0.0,
                "ldu_uni": 0.0, "step": "removed"}
    oside = v.d if v.recoded else v.o
    categorical = v.recoded or v.level_o <= 1
    if categorical:
        k = v.k
        co = np.bincount(np.where(oside.codes < 0, k, oside.codes), minlength=k + 1)
        cm = np.bincount(np.where(v.p.codes < 0, k, v.p.codes), minlength=k + 1)
        if np.array_equal(co, cm):
            psr, stat, p, step = 1.0, 0.0, 1.0, "identical"
        else:
            tab = np.vstack([co, cm]).astype(float)
            tab = tab[:, tab.sum(0) > 0]
            if tab.shape[1] < 2:
                stat, p = 0.0, 1.0
            else:
                res = stats.chi2_contingency(tab, correction=False)
                stat, p = float(res.statistic), float(res.pvalue)
            psr, step = ldu_psr(p), "chi-squared"
        test = "chi-squared"
    else:
        xo, xm = v.o.values, v.p.values
        no, nm = np.isnan(xo), np.isnan(xm)
        a, b = np.sort(xo[~no]), np.sort(xm[~nm])
        test = "kolmogorov-smirnov"
        if no.sum() == nm.sum() and np.array_equal(a, b):
            psr, stat, p, step = 1.0, 0.0, 1.0, "identical"
        elif len(a) == 0 or len(b) == 0:
            psr, stat, p, step = 0.0, np.nan, 0.0, "all values missing"
        else:
            with warnings.catch_warnings():  # "exact calculation unsuccessful" -> asymptotic
                warnings.simplefilter("ignore", RuntimeWarning)
                res = stats.ks_2samp(a, b)
            stat, p = float(res.statistic), float(res.pvalue)
            psr, step = ldu_psr(p), "kolmogorov-smirnov"
    return {**row, "test": test, "statistic": stat, "p_value": p, "ldu_psr": psr,
            "ldu_uni": v.ldu_gr * psr, "step": step}


def _pair_test(level_a: int, level_b: int) -> str:
    lo, hi = sorted((level_a, level_b))
    if lo == 0:
        return {0: "chi-squared", 1: "kruskal-wallis", 2: "kruskal-wallis", 3: "anova"}[hi]
    if lo == 3:
        return "pearson"
    return "spearman"


_COEF = {"chi-squared": "cramers_v", "kruskal-wallis": "epsilon2", "anova": "eta2",
         "spearman": "rho", "pearson": "r"}


def _run(test: str, a: _Var, b: _Var, sa: _Side, sb: _Side, cache: dict) -> _Test:
    if test == "chi-squared":
        ok = (sa.codes >= 0) & (sb.codes >= 0)
        return _chi2(sa.codes[ok], sb.codes[ok], a.k, b.k)
    if test in ("kruskal-wallis", "anova"):
        nom, num, snom, snum = (a, b, sa, sb) if a.level == 0 else (b, a, sb, sa)
        ok = (snom.codes >= 0) & ~np.isnan(snum.values)
        y = snum.values[ok]
        if test == "anova":
            return _anova(snom.codes[ok], y, nom.k)
        key = (id(snum), ok.all())
        if ok.all() and key in cache:
            r, ties = cache[key]
        else:
            r, ties = _ranks(y)
            if ok.all():
                cache[key] = (r, ties)
        return _kruskal(snom.codes[ok], r, ties, nom.k)
    ok = ~np.isnan(sa.values) & ~np.isnan(sb.values)
    rank = test == "spearman"
    if ok.all():  # complete: standardised (ranked) vectors are cached per variable and file
        zs = []
        for sd in (sa, sb):
            key = (id(sd), "rz" if rank else "z")
            if key not in cache:
                cache[key] = _zscore(stats.rankdata(sd.values) if rank else sd.values)
            zs.append(cache[key])
        return _corr_z(zs[0], zs[1], len(ok))
    x, y = sa.values[ok], sb.values[ok]
    if rank:
        x, y = stats.rankdata(x), stats.rankdata(y)
    return _corr(x, y)


def gdu(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    types: Mapping[str, str] | None = None,
    *,
    columns: Sequence[str] | None = None,
    recoded: Mapping[str, Any] | Sequence[str] | None = None,
    recode_variant: str | Mapping[str, str] = "comparisons",
    weights: Mapping[str, float] | None = None,
    uni_share: float = 0.5,
    alpha: float = 0.05,
    normality_alpha: float = 0.05,
    progress: bool | None = None,
) -> GduResult:
    """Global data utility of ``masked`` relative to ``original`` (model in the module docstring).

    Parameters
    ----------
    types : overrides of the inferred measurement types, ``{column: type}`` with type one of
        ``nominal``, ``ordinal``, ``continuous`` (normality tested), ``normal``, ``nonnormal``.
        Inferred: ordered categorical → ordinal; numeric → continuous; anything else → nominal.
    columns : the variables of the model (default: every column of ``original``; leave out weights
        and ids). A column absent from ``masked`` counts as removed.
    recoded : globally recoded variables: a list of names (recoding derived by pairing records) or
        ``{column: mapping | breaks | callable | None}`` (dict old → new label; breaks give
        right-closed intervals like sdcMicro's globalRecode; callable(Series) → Series).
        Variables not listed are detected as recoded when a numeric original became non-numeric or
        the masked labels are not a subset of the original labels.
    recode_variant : ``"comparisons"``, ``"biased_allocation"`` or ``"mad"`` (or per column).
    weights : user weights of the variables in ALDU_uni/ALDU_biv (default 1 each).
    uni_share : weight of ALDU_uni in GDU (default ½).
    alpha : significance threshold P_t of the bivariate step 1.
    normality_alpha : level of the one-sample KS normality test.
    progress : progress bar over the pairs of variables (None: automatic — on in terminals and
        notebooks, off in CI and redirected output; see :mod:`sdcsession.progress`).

    The files may differ in their number of records (sampling, synthetic data); only a recoding
    derived by pairing needs equal lengths (else :class:`MeasureError`: pass the mapping).

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> o = pd.DataFrame({"x": rng.normal(size=500)})
    >>> o["y"] = o.x + rng.normal(size=500)
    >>> m = o.assign(y=rng.permutation(o.y.to_numpy()))   # association destroyed
    >>> r = gdu(o, m)
    >>> r.aldu_uni, r.aldu_biv, r.gdu
    (1.0, 0.0, 0.5)
    """
    if not isinstance(original, pd.DataFrame) or not isinstance(masked, pd.DataFrame):
        raise MeasureError("gdu: original and masked must be DataFrames")
    if not (0 < alpha < 1) or not (0 < normality_alpha < 1):
        raise ParameterError("gdu: alpha and normality_alpha must lie in (0, 1)")
    if not (0 <= uni_share <= 1):
        raise ParameterError(f"uni_share: expected a value in [0, 1], got {uni_share!r}")
    cols = list(original.columns if columns is None else columns)
    unknown = [c for c in cols if c not in original.columns]
    if unknown:
        raise MeasureError(f"columns: not in the original data: {unknown}")
    if len(set(cols)) != len(cols) or not cols:
        raise ParameterError("columns: expected distinct column names (at least one)")
    if len(original) == 0 or len(masked) == 0:
        raise MeasureError("gdu: a file without records")
    types = dict(types or {})
    for c, t in types.items():
        if c not in original.columns:
            raise MeasureError(f"types: unknown column {c!r}")
        if t not in TYPES:
            raise ParameterError(f"types[{c!r}]: expected one of {TYPES}, got {t!r}")
    if recoded is None:
        rec_map: dict[str, Any] = {}
    elif isinstance(recoded, Mapping):
        rec_map = dict(recoded)
    else:
        rec_map = {c: None for c in recoded}
    for c in rec_map:
        if c not in cols:
            raise MeasureError(f"recoded: unknown column {c!r}")
    wts = {c: 1.0 for c in cols}
    if weights:
        for c, w in weights.items():
            if c not in wts:
                raise MeasureError(f"weights: unknown column {c!r}")
            if not (isinstance(w, (int, float)) and w >= 0 and math.isfinite(w)):
                raise ParameterError(f"weights[{c!r}]: expected a finite number >= 0, got {w!r}")
            wts[c] = float(w)
        if sum(wts.values()) <= 0:
            raise ParameterError("weights: all zero")

    def variant_of(c: str) -> str:
        v = recode_variant.get(c, "comparisons") if isinstance(recode_variant, Mapping) \
            else recode_variant
        if v not in RECODE_VARIANTS:
            raise ParameterError(f"recode_variant: expected one of {RECODE_VARIANTS}, got {v!r}")
        return v

    # ---- prepare variables
    vars_: list[_Var] = []
    uni_rows = []
    for c in cols:
        o = original[c]
        t = types.get(c) or _infer_type(o)
        if t in ("continuous", "normal", "nonnormal") and not _is_numeric(o):
            raise MeasureError(f"types[{c!r}]: {t!r} needs a numeric column, got {o.dtype}")
        removed = c not in masked.columns
        m = None if removed else masked[c]
        if t == "continuous":
            t_eff = "normal" if _normal(o.to_numpy(dtype=float, na_value=np.nan),
                                        normality_alpha) else "nonnormal"
        else:
            t_eff = t
        level_o = _LEVEL[t_eff]
        is_rec = False
        if not removed:
            is_rec = c in rec_map or _looks_recoded(o, m)
        if removed:
            oc, _ = pd.factorize(o)
            vals = _ordinal_values(o) if level_o >= 1 else np.full(len(o), np.nan)
            v = _Var(c, t_eff, level_o, level_o, int(oc.max()) + 1 if len(oc) else 0,
                     _Side(oc.astype(np.int64), vals), None, None)
        elif not is_rec:
            if level_o >= 2 and not _is_numeric(m):
                raise MeasureError(f"column {c!r}: numeric in the original, {m.dtype} in masked")
            if level_o >= 2:  # continuous: codes are never used
                co, cm, labels = np.zeros(0, np.int64), np.zeros(0, np.int64), pd.Index([])
            else:
                co, cm, labels = _joint_codes(o, m)
            vo = _ordinal_values(o) if level_o >= 1 else np.full(len(o), np.nan)
            vm = _ordinal_values(m) if level_o >= 1 else np.full(len(m), np.nan)
            if level_o == 1 and not _is_numeric(o):  # ordered categoricals: codes in a shared order
                cats = list(o.cat.categories)
                if isinstance(m.dtype, pd.CategoricalDtype) and list(m.cat.categories) != cats:
                    vm = m.map({k: i for i, k in enumerate(cats)}).to_numpy(
                        dtype=float, na_value=np.nan)
            v = _Var(c, t_eff, level_o, level_o, len(labels), _Side(co, vo), _Side(cm, vm), None)
        else:
            rec = rec_map.get(c)
            o_rec = _derive_recoding(o, m) if rec is None else _apply_recoding(o, rec)
            if len(o_rec) != len(o):
                raise MeasureError(f"recoded[{c!r}]: the recoding changed the number of records")
            dc, pc, labels = _joint_codes(o_rec, m)
            if ((dc >= 0).any() and (pc >= 0).any()
                    and not np.intersect1d(dc[dc >= 0], pc[pc >= 0]).size):
                raise MeasureError(
                    f"recoded[{c!r}]: the recoding of the original shares no label with the masked "
                    "column; give a mapping that produces the masked labels"
                )
            variant = variant_of(c)
            ldu_gr_ = ldu_recoding(o, o_rec, variant=variant)
            # measurement level of the protected variable and order of its labels
            level_p = 0 if level_o == 0 else 1
            oc_own, _ = pd.factorize(o)
            vo = _ordinal_values(o) if level_o >= 1 else np.full(len(o), np.nan)
            if level_p == 1:
                # order the labels by the mean original value of the records recoded into them
                k = len(labels)
                okd = (dc >= 0) & ~np.isnan(vo)
                cnt = np.bincount(dc[okd], minlength=k)
                mean = np.bincount(dc[okd], weights=vo[okd], minlength=k) / np.maximum(cnt, 1)
                mean[cnt == 0] = np.inf
                if isinstance(m.dtype, pd.CategoricalDtype) and m.dtype.ordered:
                    pos = {str(x): i for i, x in enumerate(m.cat.categories)}
                    rank = np.array([pos.get(str(lab), np.inf) for lab in labels], dtype=float)
                else:
                    rank = stats.rankdata(mean, method="ordinal").astype(float)
                vp = np.where(pc >= 0, rank[np.maximum(pc, 0)], np.nan)
                vd = np.where(dc >= 0, rank[np.maximum(dc, 0)], np.nan)
            else:
                vp = np.full(len(m), np.nan)
                vd = np.full(len(o), np.nan)
            v = _Var(c, t_eff, level_o, level_p, len(labels),
                     _Side(oc_own.astype(np.int64), vo), _Side(pc, vp), _Side(dc, vd),
                     recoded=True, recoding=rec, ldu_gr=ldu_gr_, gr_variant=variant)
            # the original's own codes live in their own label space: keep k for both sides
            v.k = max(len(labels), int(oc_own.max()) + 1 if len(oc_own) else 0)
        vars_.append(v)
        uni_rows.append(_univariate(v, o, m))

    # ---- bivariate
    cache_o: dict = {}
    cache_p: dict = {}
    biv_rows = []
    pairs = itertools.combinations(range(len(vars_)), 2)
    n_pairs = len(vars_) * (len(vars_) - 1) // 2
    for i, j in track(pairs, total=n_pairs, desc="GDU pairs", enabled=progress):
        a, b = vars_[i], vars_[j]
        row: dict[str, Any] = {"var1": a.name, "var2": b.name}
        if a.p is None or b.p is None:
            biv_rows.append({**row, "test": "removed", "coefficient": None, "p_original": np.nan,
                             "p_protected": np.nan, "coef_original": np.nan,
                             "coef_protected": np.nan, "direction": np.nan, "step": 0,
                             "decision": "variable removed", "ldu_biv": 0.0})
            continue
        test = _pair_test(a.level, b.level)
        to = _run(test, a, b, a.o, b.o, cache_o)
        tp = _run(test, a, b, a.p, b.p, cache_p)
        if to.msd is None:
            direction = float(np.sign(to.coef) * np.sign(tp.coef))
            rev = direction < 0
        else:
            if a.recoded or b.recoded:
                da = a.d if a.recoded else a.o
                db = b.d if b.recoded else b.o
                td = _run(test, a, b, da, db, {})
                mo = td.msd
            else:
                mo = to.msd
            mp = tp.msd
            used = (mo != 0) | (mp != 0)
            direction = float(np.mean(np.abs(mo - mp)[used] - np.abs(mo)[used])) \
                if used.any() else 0.0
            rev = direction > 1e-12
        ldu, step, decision = ldu_biv_rule(to.p, tp.p, to.coef2, tp.coef2,
                                           reversed_direction=rev, alpha=alpha)
        biv_rows.append({**row, "test": test, "coefficient": _COEF[test],
                         "p_original": to.p, "p_protected": tp.p,
                         "coef_original": to.coef, "coef_protected": tp.coef,
                         "direction": direction, "step": step, "decision": decision,
                         "ldu_biv": ldu})

    uni = pd.DataFrame(uni_rows)
    biv = pd.DataFrame(biv_rows, columns=["var1", "var2", "test", "coefficient", "p_original",
                                          "p_protected", "coef_original", "coef_protected",
                                          "direction", "step", "decision", "ldu_biv"])
    w = np.array([wts[c] for c in cols])
    ldu_u = uni.ldu_uni.to_numpy(dtype=float)
    if w.sum() <= 0:
        raise ParameterError("weights: the weights of the variables sum to zero")
    aldu_uni = float(np.dot(w, ldu_u) / w.sum())
    by_var = pd.DataFrame({"variable": cols, "ldu_uni": ldu_u, "weight": w})
    if len(cols) >= 2:
        per = []
        for c in cols:
            s = biv.ldu_biv[(biv.var1 == c) | (biv.var2 == c)]
            per.append(float(s.mean()))
        by_var["ldu_biv"] = per
        aldu_biv: float | None = float(np.dot(w, per) / w.sum())
        g = uni_share * aldu_uni + (1 - uni_share) * aldu_biv
    else:
        by_var["ldu_biv"] = np.nan
        aldu_biv = None
        g = aldu_uni
    n_kept = sum(c in masked.columns for c in cols)
    return GduResult(
        gdu=float(g), aldu_uni=aldu_uni, aldu_biv=aldu_biv, grc=grc(len(cols), n_kept),
        univariate=uni, bivariate=biv, by_variable=by_var, alpha=alpha,
    )

