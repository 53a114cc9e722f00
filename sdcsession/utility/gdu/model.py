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
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from ...progress import track
from ...risk._codes import check_number
from .._align import check_cells, check_frames, check_progress, check_types, column_list
from ._cache import Fingerprints, cached, digest
from ._dist import ranks_ordinal
from ._stats import _COEF, _pair_test, _run, _univariate
from ._variables import (
    _LEVEL,
    TYPES,
    _apply_recoding,
    _derive_recoding,
    _infer_type,
    _is_numeric,
    _joint_codes,
    _looks_recoded,
    _normal,
    _ordinal_values,
    _Side,
    _Var,
)
from .formulas import RECODE_VARIANTS, grc, ldu_biv_rule, ldu_psr, ldu_recoding

__all__ = ["ldu_psr", "grc", "ldu_biv_rule", "ldu_recoding", "GduResult", "gdu", "TYPES"]

# The pieces live in private modules by topic: ``_gdu_formulas`` (the public formulas),
# ``_gdu_variables`` (the data model of a variable) and ``_gdu_stats`` (the univariate and
# bivariate tests); the model itself (`GduResult`, `gdu`) is defined here.

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
    cache: MutableMapping | None = None,
) -> GduResult:
    """Global data utility of ``masked`` relative to ``original`` (model in the module docstring).

    Missing values: a missing value of a categorical variable is a category of its own (a
    suppression costs utility); continuous variables are compared on their observed values.

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
        notebooks, off in CI and redirected output; see `sdcsession.progress`).
    cache : a dict kept between calls (e.g. one per original file): the normality, univariate and
        bivariate tests are stored there under a fingerprint of the data they read and reused, so
        the original's tests run once and a variable the masking left unchanged costs nothing
        (results identical to a call without cache; `sdcsession.utility.gdu._cache`).

    The files may differ in their number of records (sampling, synthetic data); only a recoding
    derived by pairing needs equal lengths (else `MeasureError`: pass the mapping).

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> o = pd.DataFrame({"x": rng.normal(size=500)})
    >>> o["y"] = o.x + rng.normal(size=500)
    >>> m = o.assign(y=rng.permutation(o.y.to_numpy()))   # association destroyed
    >>> r = gdu(o, m)
    >>> r.aldu_uni, r.aldu_biv, r.gdu
    (1.0, 0.0, 0.5)
    """
    check_frames(original, masked, "gdu")
    check_progress(progress, "gdu")
    for what, v in (("alpha", alpha), ("normality_alpha", normality_alpha),
                    ("uni_share", uni_share)):
        check_number(v, what, "a number in (0, 1)" if what != "uni_share" else "a number in [0, 1]")
    if not (0 < alpha < 1) or not (0 < normality_alpha < 1):
        raise ParameterError("gdu: alpha and normality_alpha must lie in (0, 1)")
    if not (0 <= uni_share <= 1):
        raise ParameterError(f"uni_share: expected a value in [0, 1], got {uni_share!r}")
    cols = list(original.columns) if columns is None else column_list(columns, "gdu")
    unknown = [c for c in cols if c not in original.columns]
    if unknown:
        raise MeasureError(f"columns: not in the original data: {unknown}")
    if len(set(cols)) != len(cols) or not cols:
        raise ParameterError("columns: expected distinct column names (at least one)")
    check_cells(original, cols, "original", "gdu")
    check_cells(masked, [c for c in cols if c in masked.columns], "masked", "gdu")
    if len(original) == 0 or len(masked) == 0:
        raise MeasureError("gdu: a file without records")
    types = check_types(types, "gdu")
    for c, t in types.items():
        if c not in original.columns:
            raise MeasureError(f"types: unknown column {c!r}")
        if t not in TYPES:
            raise ParameterError(f"types[{c!r}]: expected one of {TYPES}, got {t!r}")
    if recoded is None:
        rec_map: dict[str, Any] = {}
    elif isinstance(recoded, Mapping):
        rec_map = dict(recoded)
    elif isinstance(recoded, (str, list, tuple)):
        rec_map = {c: None for c in column_list(recoded, "gdu", "recoded")}
    else:
        raise ParameterError(f"recoded: expected a list of column names or a mapping "
                             f"{{column: recoding}}, got {type(recoded).__name__}")
    if isinstance(recode_variant, Mapping):
        bad_v = {c: v for c, v in recode_variant.items()
                 if not isinstance(v, str) or v not in RECODE_VARIANTS}
    else:
        bad_v = {} if isinstance(recode_variant, str) and recode_variant in RECODE_VARIANTS \
            else {"": recode_variant}
    if bad_v:
        raise ParameterError(f"recode_variant: expected one of {RECODE_VARIANTS} (or a mapping "
                             f"{{column: variant}}), got {next(iter(bad_v.values()))!r:.40}")
    if weights is not None and not isinstance(weights, Mapping):
        raise ParameterError(f"weights: expected a mapping {{column: weight}}, got "
                             f"{type(weights).__name__}")
    if cache is not None and not isinstance(cache, MutableMapping):
        raise ParameterError(f"cache: expected a dict kept between calls or None, got "
                             f"{type(cache).__name__}")
    for c in rec_map:
        if c not in cols:
            raise MeasureError(f"recoded: unknown column {c!r}")
    wts = {c: 1.0 for c in cols}
    if weights:
        for c, w in weights.items():
            if c not in wts:
                raise MeasureError(f"weights: unknown column {c!r}")
            if not (isinstance(w, (int, float, np.integer, np.floating))
                    and not isinstance(w, (bool, np.bool_)) and w >= 0 and math.isfinite(w)):
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

    fp = Fingerprints()

    def run(test: str, a: _Var, b: _Var, sa: _Side, sb: _Side, side_cache: dict) -> Any:
        if cache is None:
            return _run(test, a, b, sa, sb, side_cache)
        key = ("biv", test, a.level, b.level, a.k, b.k, fp(sa), fp(sb))
        return cached(cache, key, lambda: _run(test, a, b, sa, sb, side_cache))

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
            x = o.to_numpy(dtype=float, na_value=np.nan)
            t_eff = "normal" if cached(cache, ("normal", digest(x), normality_alpha),
                                       lambda x=x: _normal(x, normality_alpha)) else "nonnormal"
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
            if level_o >= 1 and _is_numeric(o) and not m.notna().any():
                m = pd.Series(np.nan, index=m.index, dtype=np.float64)  # all missing: any dtype
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
            if level_p == 1 and len(labels):
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
                    rank = ranks_ordinal(mean)
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
        if v.p is None or cache is None:
            uni_rows.append(_univariate(v, o, m))
        else:
            ukey = ("uni", v.name, v.type_o, v.level_o, v.level_p, v.k, v.recoded, v.gr_variant,
                    v.ldu_gr, fp(v.o), fp(v.p), None if v.d is None else fp(v.d))
            uni_rows.append(dict(cached(cache, ukey, lambda v=v, o=o, m=m: _univariate(v, o, m))))

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
        to = run(test, a, b, a.o, b.o, cache_o)
        tp = run(test, a, b, a.p, b.p, cache_p)
        if to.msd is None:
            direction = float(np.sign(to.coef) * np.sign(tp.coef))
            rev = direction < 0
        else:
            if a.recoded or b.recoded:
                da = a.d if a.recoded else a.o
                db = b.d if b.recoded else b.o
                td = run(test, a, b, da, db, {})
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

