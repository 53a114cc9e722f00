"""Statistical tests of the global data utility (GDU) model: the univariate comparison of one
variable (two-sample Kolmogorov–Smirnov or chi-squared → LDU_uni) and the bivariate tests on one
file (chi-squared, ANOVA, Kruskal–Wallis, Pearson, Spearman) with their coefficients and direction
measures, chosen by the pair's measurement levels. Used by `sdcsession.utility.gdu.model`.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ._dist import chi2_sf, chi2_table, f_sf, ranks_average, t_sf
from ._variables import _LEVEL_NAME, _Side, _Var
from .formulas import ldu_psr

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
    p = chi2_sf(chi2, df)
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
        p = f_sf(f, kk - 1, n - kk)
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
    p = chi2_sf(h, kk - 1)
    eps2 = min(h / (n - 1), 1.0)
    return _Test(p, eps2, eps2, signed / tss)


def _zscore(v: np.ndarray) -> np.ndarray | None:
    """Centred values scaled to unit norm (None when constant)."""
    c = v - v.mean()
    ss = float(np.einsum("i,i", c, c))  # not np.dot: threaded BLAS spins under load
    return c / math.sqrt(ss) if ss > 0 else None


def _corr_z(za: np.ndarray | None, zb: np.ndarray | None, n: int) -> _Test:
    """Pearson correlation of unit-norm centred vectors, with its t-test p-value."""
    if n < 3 or za is None or zb is None:
        return _NONE
    r = max(-1.0, min(1.0, float(np.einsum("i,i", za, zb))))
    if abs(r) >= 1:
        p = 0.0
    else:
        t = r * math.sqrt((n - 2) / (1 - r * r))
        p = 2 * t_sf(abs(t), n - 2)
    return _Test(p, r, r * r, None)


def _corr(x: np.ndarray, y: np.ndarray) -> _Test:
    """Pearson correlation test of two complete vectors."""
    return _corr_z(_zscore(x), _zscore(y), len(x))


def _ranks(v: np.ndarray) -> tuple[np.ndarray, float]:
    """Average ranks and the tie term Σ(t³ − t)."""
    r, t = ranks_average(v)
    t = t.astype(float)
    return r, float(np.sum(t**3 - t))


# --------------------------------------------------------------------------------------------
# univariate test of one variable
# --------------------------------------------------------------------------------------------


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
                res = chi2_table(tab)
                if res is None:  # an empty file: scipy's error, as before
                    from scipy import stats

                    stats.chi2_contingency(tab, correction=False)
                stat, p = res  # type: ignore[misc]
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
            from scipy import stats  # the only test here that needs scipy.stats

            with warnings.catch_warnings():  # "exact calculation unsuccessful" -> asymptotic
                warnings.simplefilter("ignore", RuntimeWarning)
                res = stats.ks_2samp(a, b)
            stat, p = float(res.statistic), float(res.pvalue)
            psr, step = ldu_psr(p), "kolmogorov-smirnov"
    return {**row, "test": test, "statistic": stat, "p_value": p, "ldu_psr": psr,
            "ldu_uni": v.ldu_gr * psr, "step": step}



# --------------------------------------------------------------------------------------------
# choosing and running the bivariate test of a pair
# --------------------------------------------------------------------------------------------


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
        # the ranks depend only on the selected rows: cached per variable and file when they are
        # all rows or exactly the variable's observed rows (the usual case)
        sel = "all" if ok.all() else "observed" if np.array_equal(ok, ~np.isnan(snum.values)) \
            else None
        key = (id(snum), sel)
        if sel is not None and key in cache:
            r, ties = cache[key]
        else:
            r, ties = _ranks(y)
            if sel is not None:
                cache[key] = (r, ties)
        return _kruskal(snom.codes[ok], r, ties, nom.k)
    obs_a, obs_b = ~np.isnan(sa.values), ~np.isnan(sb.values)
    ok = obs_a & obs_b
    rank = test == "spearman"
    complete = bool(ok.all())
    if complete or (np.array_equal(ok, obs_a) and np.array_equal(ok, obs_b)):
        # complete, or both missing on the same rows: the standardised (ranked) vectors of the
        # selected rows are cached per variable and file
        zs = []
        for sd in (sa, sb):
            key = (id(sd), "rz" if rank else "z", complete)
            if key not in cache:
                x = sd.values if complete else sd.values[ok]
                cache[key] = _zscore(ranks_average(x)[0] if rank else x)
            zs.append(cache[key])
        return _corr_z(zs[0], zs[1], int(ok.sum()))
    x, y = sa.values[ok], sb.values[ok]
    if rank:
        x, y = ranks_average(x)[0], ranks_average(y)[0]
    return _corr(x, y)

