"""Missing values in numeric variables, measure by measure (issue 16).

Every public risk function (``sdcsession.risk.__all__``), utility function
(``sdcsession.utility.__all__``) and registered session measure (``measures.available()``) has an
entry below; the registry tests fail when a new one has none. Each entry runs the measure on data
with missing numeric values (partly missing, missing only after masking, one all-missing column,
a numeric key with missing values) and checks the documented rule of
docs/concepts/risk.md and docs/concepts/utility.md ("Missing values, measure by measure"): the
result on the complete records computed by hand, sdcMicro's rule, or a named ``SdcError``. No
other exception type may escape.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import sdcsession as sdc
import sdcsession.risk as r
import sdcsession.risk.attacks as ra
import sdcsession.utility as u
from sdcsession.errors import MeasureError, SdcError
from sdcsession.session.measures import available

NAN = np.nan
NUM = ["x", "y", "z"]


def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Original and masked files: x, y partly missing, z missing after masking only, e all
    missing, k a numeric key-like variable (codes) with missing values."""
    rng = np.random.default_rng(5)
    n = 24
    o = pd.DataFrame({
        "a": rng.choice(["p", "q", "r"], n), "b": rng.choice(["u", "v"], n),
        "s": rng.choice(["s1", "s2", "s3"], n), "w": rng.uniform(1, 5, n).round(2),
        "h": np.repeat(np.arange(n // 2), 2), "x": rng.normal(10, 2, n).round(3),
        "z": rng.gamma(2, 2, n).round(3), "e": np.full(n, NAN),
        "k": rng.choice([1.0, 2.0, 3.0], n),
    })
    o["y"] = (0.5 * o["x"] + rng.normal(5, 1, n)).round(3)
    o.loc[[1, 5, 9], "x"] = NAN
    o.loc[[2, 5], "y"] = NAN
    o.loc[[4, 11], "k"] = NAN
    m = o.copy()
    m[NUM] = (o[NUM] + rng.normal(0, 0.3, (n, 3))).round(3)
    m.loc[3, "z"] = NAN
    m.loc[7, "k"] = NAN  # a suppressed key value
    return o, m


def as_cat(df: pd.DataFrame, col: str = "k") -> pd.DataFrame:
    """``col`` as strings, a missing number as a missing category."""
    return df.assign(**{col: df[col].map(lambda v: None if pd.isna(v) else f"c{v:g}")})


def same(a, b) -> None:
    """Equal values (frames/series by value, objects by their numeric fields)."""
    if isinstance(a, pd.DataFrame):
        num = [c for c in a.columns if pd.api.types.is_numeric_dtype(a[c])]
        np.testing.assert_allclose(a[num].to_numpy(float), b[num].to_numpy(float), equal_nan=True)
    elif isinstance(a, pd.Series):
        np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), equal_nan=True)
    elif isinstance(a, (int, float, np.number)):
        assert a == pytest.approx(b, nan_ok=True)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for p, q in zip(a, b):
            same(p, q)
    else:
        fields = {k: v for k, v in vars(a).items() if isinstance(v, (int, float, pd.Series,
                                                                        pd.DataFrame))} \
            if hasattr(a, "__dict__") else {}
        if not fields and hasattr(a, "__attrs_attrs__"):
            fields = {f.name: getattr(a, f.name) for f in a.__attrs_attrs__
                      if isinstance(getattr(a, f.name), (int, float, pd.Series, pd.DataFrame))}
        assert fields, f"cannot compare {type(a).__name__}"
        for k, v in fields.items():
            same(v, getattr(b, k))


def key_equivalent(fn: Callable) -> Callable:
    """A numeric key with missing values is read as a category with missing values."""
    def check(o, m):
        same(fn(o), fn(as_cat(o)))
    return check


# ----------------------------------------------------------------------------- risk kernels
def _complete(df, cols):
    return df[cols].notna().all(axis=1)


def _interval_by_hand(o, m, cols, k=0.05):
    x, z = o[cols].to_numpy(float), m[cols].to_numpy(float)
    sd = np.array([np.nanstd(z[:, j], ddof=1) if (~np.isnan(z[:, j])).sum() >= 2 else NAN
                   for j in range(len(cols))])
    outside = np.abs(x - z) > k * sd  # NaN compares False: left out
    return float((~outside.any(axis=1)).mean())


def _linkage(o, m):
    keep = o.index != 3  # masked record 3 misses z, original 2 and 5 miss y: no common variable
    v = ["y", "z"]
    res = r.record_linkage(o.loc[keep], m.loc[keep], variables=v, return_matrix=True)
    x, y = o.loc[keep, v].to_numpy(), m.loc[keep, v].to_numpy()
    d2 = (x[:, None, :] - y[None, :, :]) ** 2
    q = (~np.isnan(d2)).sum(axis=2)  # euclidean over the q observed variables, scaled by p / q
    hand = np.sqrt(2 / q * np.nansum(d2, axis=2))
    np.testing.assert_allclose(res.distance_matrix.to_numpy(), hand)
    with pytest.raises(MeasureError, match="no linkage variable observed in both"):
        r.record_linkage(o, m, variables=v)
    with pytest.raises(MeasureError, match="missing in every record"):
        r.record_linkage(o, m, variables=["x", "e"])


def _rmd(o, m):
    with pytest.raises(MeasureError, match="missing values"):
        r.rmd_risk(o[NUM], m[NUM])
    res = r.rmd_risk(o[NUM], m[NUM], missing="sdcmicro")
    assert (res.risk1, res.risk2, res.wrisk1, res.wrisk2) == (0, 0, 0, 0)
    ok = _complete(o, NUM)  # complete originals, masked z missing once: runs, in [0, 1]
    assert 0 <= r.rmd_risk(o.loc[ok, NUM], m.loc[ok, NUM], runs=1).risk1 <= 1


def _refused(fn, *args):
    def check(o, m):
        with pytest.raises(SdcError):
            fn(*args)
    return check


def _freq_from_codes(o, m):
    codes = np.column_stack([pd.factorize(o[c], use_na_sentinel=True)[0] for c in ("a", "k")])
    fk, _ = r.frequencies_from_codes(codes, [3, 3])
    np.testing.assert_allclose(fk, r.frequencies(o, ["a", "k"])["fk"].to_numpy())


def _ldiv_summary(o, m):
    same(r.l_diversity_summary(r.l_diversity(o, ["a"], ["k"])),
         r.l_diversity_summary(r.l_diversity(as_cat(o), ["a"], ["k"])))


def _ldiv(o, m):
    key_equivalent(lambda d: r.l_diversity(d, ["a", "k"], ["s"]))(o, m)
    got = r.l_diversity(o, ["a"], ["x"])["x_distinct"]  # missing sensitive values ignored
    hand = o.groupby("a")["x"].transform(lambda v: v.dropna().nunique())
    np.testing.assert_array_equal(got.to_numpy(), hand.to_numpy())


RISK: dict[str, Callable] = {
    "frequencies": key_equivalent(lambda d: r.frequencies(d, ["a", "k"], weight="w")),
    "frequencies_from_codes": _freq_from_codes,
    "individual_risk": key_equivalent(lambda d: r.individual_risk(d, ["a", "k"], weight="w")),
    "individual_risk_from_freq": _refused(r.individual_risk_from_freq, [1.0, NAN], [2.0, 3.0]),
    "global_risk": _refused(r.global_risk, [0.5, NAN]),
    "risk_threshold": _refused(r.risk_threshold, [0.5, NAN]),
    "expected_reidentifications": _refused(r.expected_reidentifications, [0.5, NAN]),
    "household_risk": key_equivalent(
        lambda d: r.household_risk(d, ["a", "k"], weight="w", household="h")),
    "household_risk_from_individual": _refused(r.household_risk_from_individual,
                                               [0.5, NAN], [1, 1]),
    "k_violations": key_equivalent(lambda d: r.k_violations(d, ["a", "k"], 3)),
    "unsafe_combinations": key_equivalent(lambda d: r.unsafe_combinations(d, ["a", "b", "k"])),
    "l_diversity": _ldiv,
    "l_diversity_summary": _ldiv_summary,
    "suda2": key_equivalent(lambda d: r.suda2(d, ["a", "b", "k"], progress=False).score),
    "interval_disclosure": lambda o, m: same(r.interval_disclosure(o[NUM + ["e"]], m[NUM + ["e"]]),
                                             _interval_by_hand(o, m, NUM)),
    "record_linkage_risk": lambda o, m: same(
        r.record_linkage_risk(o[["x", "y"]], m[["x", "y"]]),
        r.record_linkage_risk(o.loc[_complete(o, ["x", "y"]) & _complete(m, ["x", "y"]),
                                    ["x", "y"]],
                              m.loc[_complete(o, ["x", "y"]) & _complete(m, ["x", "y"]),
                                    ["x", "y"]])),
    "model_risk": key_equivalent(lambda d: r.model_risk(d.assign(k=d["k"].astype(str)),
                                                        "~ a + k", weight="w")),
    "population_uniques": key_equivalent(
        lambda d: r.population_uniques(d, ["a", "k"], weight="w", method="pitman").uniques),
    "risky_cells": key_equivalent(lambda d: r.risky_cells(d, ["a", "k"], threshold=2)
                                  [["dim", "count"]]),
    "tables_from_levels": lambda o, m: same(len(r.tables_from_levels({"a": 1, "k": 2})), 3),
    "record_linkage": _linkage,
    "attacker_models": key_equivalent(
        lambda d: r.attacker_models(d, ["a", "k"], weight="w").marketer),
    "rmd_risk": _rmd,
}


# ---------------------------------------------------------------------------- utility kernels
def _cat_equivalent(fn: Callable) -> Callable:
    """Categorical measure on a numeric variable with missing values = on its categories."""
    def check(o, m):
        same(fn(o, m, columns=["a", "k"]), fn(as_cat(o), as_cat(m), columns=["a", "k"]))
    return check


def _il1s(o, m):
    cols = NUM + ["e"]
    x, z = o[cols].to_numpy(float), m[cols].to_numpy(float)
    sd = np.nanstd(x[:, :3], axis=0, ddof=1)
    total = (np.nansum(np.abs(x[:, :3] - z[:, :3]), axis=0) / (np.sqrt(2) * sd)).sum()
    assert u.il1s(o, m, columns=cols) == pytest.approx(total / (len(o) * 4))  # e adds nothing
    assert u.il1s_sdcmicro(o, m, columns=cols) == pytest.approx(total)


def _il1(o, m):
    x, z = o[NUM].to_numpy(float), m[NUM].to_numpy(float)
    assert u.il1(o, m, columns=NUM) == pytest.approx(100 * np.nansum(np.abs(x - z) / np.abs(x)))


def _eigen(o, m):
    def ev(d):
        s = (d[NUM] - d[NUM].mean()) / d[NUM].std()
        return np.sort(np.linalg.eigvalsh(s.cov().to_numpy()))[::-1]  # pairwise complete
    e1, e2 = ev(o), ev(m)
    assert u.eigen_difference(o, m, columns=NUM) == pytest.approx(np.sum(np.abs(e1 - e2) / e1))
    same(u.eigen_difference(o, m, columns=NUM, robust=True, seed=1),
         u.eigen_difference(o[NUM].dropna(), m[NUM].dropna(), robust=True, seed=1))
    with pytest.raises(MeasureError, match="'e'"):
        u.eigen_difference(o, m, columns=NUM + ["e"])


def _discrepancy(o, m):
    st = ["X_mean", "V", "R"]
    same(u.discrepancy_table(o, m, columns=NUM, statistics=st),
         u.discrepancy_table(o[NUM].dropna(), m[NUM].dropna(), statistics=st))
    t = u.discrepancy_table(o, m, columns=NUM, statistics=["X"]).iloc[0]
    d = (o[NUM] - m[NUM]).to_numpy()
    assert t["mse"] == pytest.approx(np.nansum(d**2) / d.size)  # missing cells add nothing


def _il_variables(o, m):
    res = u.il_variables(o, m, columns=["x", "z", "e"])
    x, z = o["z"].to_numpy(), m["z"].to_numpy()
    far = np.where(x[3] <= np.median(x), x.max(), x.min())  # suppressed: the far end
    v = np.abs(x - z)
    v[3] = abs(far - x[3])
    assert res.by_variable["z"] == pytest.approx((2 / np.pi * np.arctan(v)).mean())
    assert res.by_variable["e"] == 0.0  # missing in both files: distance 0


def _ks(o, m):
    t = u.ks_test(o, m, columns=NUM)
    for c in NUM:
        assert t.loc[c, "statistic"] == pytest.approx(
            stats.ks_2samp(o[c].dropna(), m[c].dropna()).statistic)


def _ecdf(o, m):
    t = u.ecdf_measures(o, m, columns=NUM)
    for c in NUM:
        one = u.ecdf_measures(o[[c]].dropna(), m[[c]].dropna())
        same(t.loc[[c]], one)


def _design_based(fn, **kw):
    def check(o, m):  # mean-imputed with a missing indicator; an all-missing column adds nothing
        a = fn(o, m, columns=NUM + ["e"], **kw)
        assert np.isfinite(a)
        assert a == pytest.approx(fn(o, m, columns=NUM, **kw))
    return check


def _indicator_fn(fn, *extra):
    def check(o, m):
        with pytest.raises(MeasureError, match="na_rm"):
            fn(o["x"].to_numpy(), *extra, o["w"].to_numpy())
        ok = o["x"].notna().to_numpy()
        same(fn(o["x"].to_numpy(), *extra, o["w"].to_numpy(), na_rm=True),
             fn(o["x"].to_numpy()[ok], *[e[ok] for e in extra], o["w"].to_numpy()[ok]))
    return check


def _ratio(o, m):
    x, y, w = o["x"].to_numpy(), o["y"].to_numpy(), o["w"].to_numpy()
    with pytest.raises(MeasureError, match="na_rm"):
        u.weighted_ratio(x, y, w)
    ok = ~(np.isnan(x) | np.isnan(y))
    same(u.weighted_ratio(x, y, w, na_rm=True), u.weighted_ratio(x[ok], y[ok], w[ok]))


def _indicator_ci(o, m):
    with pytest.raises(MeasureError, match="na_rm"):
        u.indicator_ci(o, "mean:x", weight="w", n_boot=5, seed=1, progress=False)
    a = u.indicator_ci(o, "mean:x", weight="w", n_boot=5, seed=1, progress=False, na_rm=True)
    b = u.indicator_ci(o.dropna(subset=["x"]), "mean:x", weight="w", n_boot=5, seed=1,
                       progress=False)
    assert a["estimate"].iloc[0] == pytest.approx(b["estimate"].iloc[0])


def _compare_indicators(o, m):
    with pytest.raises(MeasureError, match="na_rm"):
        u.compare_indicators(o, m, "mean:x", weight="w", n_boot=5, seed=1, progress=False)
    a = u.compare_indicators(o, m, "mean:x", weight="w", n_boot=5, seed=1, progress=False,
                             na_rm=True)
    ow = o["x"].notna()
    assert a["original"].iloc[0] == pytest.approx(np.average(o.loc[ow, "x"], weights=o.loc[ow, "w"]))


def _regression(o, m):
    res = u.compare_regression(o, m, "y ~ x + z")
    ok_o, ok_m = _complete(o, ["x", "y", "z"]), _complete(m, ["x", "y", "z"])
    b_o = np.linalg.lstsq(np.column_stack([np.ones(ok_o.sum()), o.loc[ok_o, ["x", "z"]]]),
                          o.loc[ok_o, "y"], rcond=None)[0]
    b_m = np.linalg.lstsq(np.column_stack([np.ones(ok_m.sum()), m.loc[ok_m, ["x", "z"]]]),
                          m.loc[ok_m, "y"], rcond=None)[0]
    np.testing.assert_allclose(res.coefficients["coef_original"].to_numpy(), b_o)
    np.testing.assert_allclose(res.coefficients["coef_masked"].to_numpy(), b_m)


def _fit_formula(o, m):
    fit = u.fit_formula(o, "y ~ x")
    ok = _complete(o, ["x", "y"])
    assert int(fit.nobs) == int(ok.sum())
    np.testing.assert_allclose(np.asarray(fit.params), np.polyfit(o.loc[ok, "x"], o.loc[ok, "y"],
                                                                  1)[::-1])


def _entropy(o, m):
    f = o["k"].value_counts().to_numpy()
    assert u.entropy(o["k"]) == pytest.approx(-(f * np.log(f / len(o))).sum() / len(o))


def _ebil(o, m):
    cats, t = [1.0, 2.0, 3.0], np.full((3, 3), 1 / 3)
    ok = m["k"].notna()  # records with a missing masked value add nothing
    p = o["k"].value_counts(normalize=True).to_numpy()  # uniform PRAM: posterior = prior
    assert u.ebil(o, m, column="k", transition=t, categories=cats) == pytest.approx(
        ok.sum() * -(p * np.log(p)).sum())


def _loss_metric(o, m):
    res = u.loss_metric(o, m, columns=["k"])
    newly = (o["k"].notna() & m["k"].isna()).sum() + (o["k"].isna()).sum()
    assert res.by_variable["k"] == pytest.approx(newly / len(o))  # a missing value costs 1


def _missing_values(o, m):
    t = u.missing_values(o, m, columns=["x", "z", "e"])
    assert t.loc["x", "missing_original"] == 3 and t.loc["z", "m"] == 1 and t.loc["e", "m"] == 0


def _records_changed(o, m):
    t = u.records_changed(o, m, columns=["x", "e"])
    both = o["x"].isna() & m["x"].isna()
    assert t.loc["x", "changed"] == int((~both & (o["x"] != m["x"])).sum())
    assert t.loc["e", "changed"] == 0  # two missing values are equal


def _catalogue(o, m):
    params = {"ebil": {"column": "k", "transition": np.full((3, 3), 1 / 3),
                       "categories": [1.0, 2.0, 3.0]},
              "c_avg": {"keys": ["a", "k"], "k": 2}, "discernibility": {"keys": ["a", "k"]},
              "cluster_utility": {"n_clusters": 3}}
    for name in u.available_measures()["name"]:
        cols = NUM + ["e"] if name in ("il1s", "il1", "il1s_sdcmicro", "il_variables",
                                       "propensity_score") else ["a", "k"]
        kw = params.get(name, {"columns": cols if name not in ("ks_test", "ecdf_measures",
                                                               "discrepancy_table",
                                                               "eigen_difference",
                                                               "eigen_difference_robust",
                                                               "il_correl", "cluster_utility")
                               else NUM})
        if name == "cluster_utility":
            kw["columns"] = NUM
        try:
            u.compute(name, o, m, **kw)
        except SdcError:
            pass
    same(u.compute("il1s", o, m, columns=NUM), u.il1s(o, m, columns=NUM))


def _ldu_recoding(o, m):
    v, g = [1.0, NAN, 3.0, 4.0, 5.0], ["a", "a", "b", None, "b"]
    # comparisons: n distinct observed values (4), m groups of records observed in both (2)
    assert u.ldu_recoding(v, g) == pytest.approx(u.grc(4, 2))
    same(u.ldu_recoding(v, g, variant="mad"),  # mad: the records observed in both
         u.ldu_recoding([1.0, 3.0, 5.0], ["a", "b", "b"], variant="mad"))


def _register(o, m):  # a registered measure gets the data with its missing values unchanged
    u.register_measure("nan_count", lambda a, b: int(b.isna().sum().sum()), "missing cells",
                       kind="other", needs_pairing=False, variable_types="any", replace=True)
    try:
        assert u.compute("nan_count", o, m) == int(m.isna().sum().sum())
    finally:
        u.CATALOGUE.pop("nan_count")


def _model_utility(o, m):
    pytest.importorskip("sklearn")
    res = u.model_utility(o, m, target="y", features=["a", "b", "x"], model="linear",
                          test_size=0.3, seed=1)
    kept = int(o["y"].notna().sum())
    assert res.n_test + res.n_train_original == kept
    assert np.isfinite(res.ratio)


UTILITY: dict[str, Callable] = {
    "available_measures": _catalogue,
    "compute": lambda o, m: same(u.compute("il1s", o, m, columns=NUM + ["e"]),
                                 u.il1s(o, m, columns=NUM + ["e"])),
    "register_measure": _register,
    "missing_values": _missing_values,
    "suppressions": lambda o, m: same(int(u.suppressions(o, m, keys=["z", "k"])["suppressions"]
                                          .sum()), 2),
    "records_changed": _records_changed,
    **{n: _cat_equivalent(getattr(u, n)) for n in (
        "contingency_table", "ut", "ut2", "aad", "hellinger", "ctbil", "contingency_loss",
        "cramers_v_loss", "direct_distance", "entropy_change", "dist", "generalisation_counts")},
    "cramers_v": lambda o, m: same(u.cramers_v(o, columns=["a", "k"]),
                                   u.cramers_v(o.dropna(subset=["k"]), columns=["a", "k"])),
    "entropy": _entropy,
    "ebil": _ebil,
    "il1s": _il1s,
    # a value missing only after masking is a suppression; one missing before is not
    "utility_score": lambda o, m: same(
        u.utility_score(o, m, keys=["z", "k"]).suppression_rate,
        max(0, int(m[["z", "k"]].isna().sum().sum()) - int(o[["z", "k"]].isna().sum().sum()))
        / (2 * len(o))),
    "il1s_sdcmicro": _il1s,
    # records with a missing target are left out of training and testing
    "model_utility": _model_utility,
    "il1": _il1,
    "discrepancy_table": _discrepancy,
    "eigen_difference": _eigen,
    "il_correl": lambda o, m: same(u.il_correl(o, m, columns=NUM),
                                   u.il_correl(o[NUM].dropna(), m[NUM].dropna())),
    "il_variables": _il_variables,
    "mcd_covariance": _refused(u.mcd_covariance, np.array([[1.0, NAN], [2.0, 3.0], [4.0, 5.0]])),
    "ks_test": _ks,
    "ecdf_measures": _ecdf,
    "propensity_score": _design_based(u.propensity_score),
    "cluster_utility": _design_based(u.cluster_utility, n_clusters=3, seed=1),
    "equivalence_class_sizes": lambda o, m: same(u.equivalence_class_sizes(m, keys=["a", "k"]),
                                                 u.equivalence_class_sizes(as_cat(m), keys=["a", "k"])),
    "c_avg": lambda o, m: same(u.c_avg(m, keys=["a", "k"], k=2),
                               u.c_avg(as_cat(m), keys=["a", "k"], k=2)),
    "discernibility": lambda o, m: same(u.discernibility(m, keys=["a", "k"]),
                                        u.discernibility(as_cat(m), keys=["a", "k"])),
    "loss_metric": _loss_metric,
    "weighted_mean": _indicator_fn(u.weighted_mean),
    "weighted_total": _indicator_fn(u.weighted_total),
    "weighted_ratio": _ratio,
    "weighted_quantile": _indicator_fn(u.weighted_quantile),
    "weighted_median": _indicator_fn(u.weighted_median),
    "gini": _indicator_fn(u.gini),
    "arpr": _indicator_fn(lambda x, w, **kw: u.arpr(x, w, **kw).value),
    "indicator_ci": _indicator_ci,
    "ci_overlap": lambda o, m: same(float(u.ci_overlap(NAN, 3.0, 2.0, 4.0)), NAN),
    "compare_indicators": _compare_indicators,
    "ldu_psr": _refused(u.ldu_psr, NAN),
    "grc": _refused(u.grc, NAN, 3),
    "ldu_biv_rule": _refused(u.ldu_biv_rule, NAN, 0.2, 0.5, 0.4),
    "ldu_recoding": _ldu_recoding,
    "gdu": lambda o, m: same(
        0 <= u.gdu(o, m, columns=["a", "k", "x", "y", "e"], progress=False).gdu <= 1, True),
    "compare_regression": _regression,
    "fit_formula": _fit_formula,
    "info_loss": lambda o, m: same(u.info_loss(o, m, tables=[["a", "k"]]).tables[0].hellinger,
                                   u.info_loss(as_cat(o), as_cat(m), tables=[["a", "k"]])
                                   .tables[0].hellinger),
}


def _public_functions(mod) -> set[str]:
    return {n for n in mod.__all__ if callable(getattr(mod, n))
            and not inspect.isclass(getattr(mod, n))}


def test_every_risk_function_has_a_missing_value_check():
    assert set(RISK) == _public_functions(r)


def test_every_utility_function_has_a_missing_value_check():
    assert set(UTILITY) == _public_functions(u)


def _run(check, o, m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            check(o, m)
        except SdcError as e:  # only where the entry expects it (pytest.raises inside)
            raise AssertionError(f"unexpected {type(e).__name__}: {e}") from e


@pytest.mark.parametrize("name", sorted(RISK))
def test_risk_function_with_missing_numeric_values(name):
    _run(RISK[name], *frames())


@pytest.mark.parametrize("name", sorted(UTILITY))
def test_utility_function_with_missing_numeric_values(name):
    _run(UTILITY[name], *frames())


# --------------------------------------------------------------------------- session measures
def session_states() -> dict[str, sdc.SdcSession]:
    """Sessions at three states: the original (numeric NaN, an all-missing numeric variable e,
    a numeric key k with NaN), after noise, after a global recode of the numeric variable x."""
    o, _ = frames()
    out = {}
    for stage in ("original", "noise", "recode"):
        s = sdc.SdcSession(o, keys=["a", "b", "k"], numeric=NUM + ["e"], weight="w",
                           household="h", sensitive=["s"], seed=3)
        if stage != "original":
            s.add_noise(NUM, noise=0.1)
        if stage == "recode":
            s.global_recode("x", breaks=3)
        out[stage] = s
    return out


def _observed(st) -> list[str]:
    """Numeric in both files and observed at least twice in each (multivariate measures)."""
    return [c for c in NUM + ["e"] if pd.api.types.is_float_dtype(st.data[c])
            and st.data[c].notna().sum() >= 2 and st.original[c].notna().sum() >= 2]


def _still_numeric(st) -> list[str]:
    return [c for c in NUM + ["e"] if pd.api.types.is_float_dtype(st.data[c])]


def _kernel(measure: str, fn: Callable) -> Callable:
    def check(st):
        same(st.measure(measure), fn(st))
    return check


def _raises_or(st, name: str, kernel: Callable, attr: str) -> None:
    """The session measure fails with the kernel's MeasureError, or equals the kernel."""
    try:
        expected = kernel()
    except MeasureError:
        with pytest.raises(MeasureError):
            st.measure(name)
        return
    same(getattr(st.measure(name), attr), expected)


def _rmd_session(st):  # missing original values: refused, or sdcMicro's zeros on request
    with pytest.raises(MeasureError, match="missing values"):
        st.measure("rmd_risk")
    res = st.measure("rmd_risk", missing="sdcmicro")
    assert (res.risk1, res.wrisk1) == (0, 0) and res.columns == tuple(_observed(st))


def _benchmark(st):
    with pytest.raises(MeasureError, match="na_rm"):
        st.measure("utility.benchmark", indicators=("mean:y",), n_boot=5, progress=False)
    got = st.measure("utility.benchmark", indicators=("mean:y",), n_boot=5, progress=False,
                     na_rm=True)
    ok = st.data["y"].notna()
    assert got["masked"].iloc[0] == pytest.approx(
        np.average(st.data.loc[ok, "y"], weights=st.data.loc[ok, "w"]))


def _kviol(st, k: int) -> int:
    return r.k_violations(st.data, K(st), k)


def OK(st) -> list[str]:  # the key variables of the original (the utility measures use them)
    return list(st.original_roles.keys)


def K(st) -> list[str]:  # the key variables now (a recoded numeric variable joins them)
    return list(st.roles.keys)
def _contract_check(st) -> None:
    """Contracts on files with missing values: estimates leave the missing values out (z is
    missing in the masked file only), the same values as the kernel ``contracts.check``."""
    cs = [sdc.contracts.estimate("mean:x", by="a", within="ci"),
          sdc.contracts.estimate("mean:z", tolerance=0.5),
          sdc.contracts.coefficients("y ~ x"), sdc.contracts.distance(["x", "y", "z"])]
    got = [st.measure("contract", contract=c.to_dict()) for c in cs]
    want = sdc.contracts.check(st.original, st.data, cs, weight="w", household="h")
    same(pd.Series([g.value for g in got]), want["value"])
    assert [g.passed for g in got] == want["passed"].tolist()


def _attack(measure: str, kernel: str, **params):
    def check(st):
        listed = {k: ([list(x) for x in v] if k == "aux_cols" and isinstance(v[0], tuple)
                      else list(v) if isinstance(v, tuple) else v) for k, v in params.items()}
        try:
            want = getattr(ra, kernel)(st.original, st.data, None, **listed)
        except MeasureError:  # e.g. x recoded into intervals: the measure refuses it too
            with pytest.raises(MeasureError):
                st.measure(measure, **params)
            return
        same(st.measure(measure, **params).risk, want.risk)
    return check


def _dcr(st):
    try:
        want = ra.dcr(st.original, st.data, None, columns=["a", "x", "y"]).dcr
    except MeasureError:
        with pytest.raises(MeasureError):
            st.measure("attack.dcr", columns=("a", "x", "y"))
        return
    same(st.measure("attack.dcr", columns=("a", "x", "y")).dcr, want)


def _ml_measure(st):
    pytest.importorskip("sklearn")
    got = st.measure("utility.ml", target="y", features=("a", "b", "x"), model="linear", seed=1)
    want = u.model_utility(st.original, st.data, target="y", features=["a", "b", "x"],
                           model="linear", seed=1)
    same(got.ratio, want.ratio)


SESSION: dict[str, Callable] = {
    "frequencies": _kernel("frequencies", lambda st: r.frequencies(st.data, K(st), weight="w")),
    "individual_risk": _kernel("individual_risk",
                               lambda st: r.individual_risk(st.data, K(st), weight="w")),
    "household_risk": _kernel("household_risk", lambda st: r.household_risk(
        st.data, K(st), weight="w", household="h")),
    "k_violations": _kernel("k_violations", lambda st: r.k_violations(st.data, K(st), 3)),
    **{f"k_violations_{k}": _kernel(f"k_violations_{k}", functools.partial(_kviol, k=k))
       for k in (2, 3, 5)},
    "global_risk": _kernel("global_risk", lambda st: r.global_risk(
        r.individual_risk(st.data, K(st), weight="w"))),
    "expected_reidentifications": _kernel("expected_reidentifications", lambda st:
                                          r.individual_risk(st.data, K(st), weight="w").sum()),
    "household_expected_reidentifications": _kernel(
        "household_expected_reidentifications",
        lambda st: r.household_risk(st.data, K(st), weight="w", household="h").sum()),
    "l_diversity": _kernel("l_diversity", lambda st: r.l_diversity(st.data, K(st), ["s"])),
    "suda2": lambda st: same(st.measure("suda2").score,
                             r.suda2(st.data, K(st), progress=False).score),
    "unsafe_combinations": _kernel("unsafe_combinations",
                                   lambda st: r.unsafe_combinations(st.data, K(st))),
    "risky_cells": _kernel("risky_cells", lambda st: r.risky_cells(st.data, K(st))),
    "attacker_models": lambda st: same(st.measure("attacker_models").marketer,
                                       r.attacker_models(st.data, K(st), weight="w").marketer),
    "model_risk": lambda st: same(st.measure("model_risk").gr1, r.model_risk(
        st.data.assign(**{c: st.data[c].astype("category").cat.remove_unused_categories()
                          for c in K(st)}), "~ " + " + ".join(K(st)), weight="w").gr1),
    "population_uniques": lambda st: same(st.measure("population_uniques").uniques,
                                          r.population_uniques(st.data, K(st), weight="w").uniques),
    "numeric_risk": lambda st: same(
        st.measure("numeric_risk")["interval_disclosure"],
        r.interval_disclosure(st.original[_observed(st)], st.data[_observed(st)])),
    "record_linkage": lambda st: _raises_or(st, "record_linkage", lambda: r.record_linkage(
        st.original, st.data, variables=_observed(st)).correct_matches, "correct_matches"),
    "rmd_risk": _rmd_session,
    "utility.suppressions": _kernel("utility.suppressions", lambda st: u.suppressions(
        st.original, st.data, keys=OK(st))),
    "suppressions_by_key": lambda st: same(
        st.measure("suppressions_by_key"),
        u.suppressions(st.original, st.data, keys=OK(st))["suppressions"]),
    "suppressions_total": lambda st: same(st.measure("suppressions_total"), int(
        u.suppressions(st.original, st.data, keys=OK(st))["suppressions"].sum())),
    "utility.records_changed": lambda st: same(
        st.measure("utility.records_changed").loc[["x", "y", "z", "e"], ["changed"]],
        u.records_changed(st.original, st.data, columns=NUM + ["e"])[["changed"]]),
    "utility.entropy_change": _kernel("utility.entropy_change", lambda st: u.entropy_change(
        st.original, st.data, columns=OK(st))),
    "utility.contingency_loss": _kernel("utility.contingency_loss", lambda st: u.contingency_loss(
        st.original, st.data, columns=OK(st), dims=2)),
    "utility.il1s": _kernel("utility.il1s", lambda st: u.il1s(st.original, st.data,
                                                              columns=_still_numeric(st))),
    "utility.eigen": _kernel("utility.eigen", lambda st: u.eigen_difference(
        st.original, st.data, columns=_observed(st))),
    "utility.il_correl": _kernel("utility.il_correl", lambda st: u.il_correl(
        st.original, st.data, columns=_observed(st))),
    "utility.correlation_discrepancy": _kernel(
        "utility.correlation_discrepancy", lambda st: float(np.abs(
            st.original[_observed(st)].corr() - st.data[_observed(st)].corr()).to_numpy()[
            np.triu_indices(len(_observed(st)), 1)].mean())),
    "utility.il_variables": lambda st: same(
        st.measure("utility.il_variables").overall,
        u.il_variables(st.original, st.data, columns=OK(st) + _still_numeric(st),
                       types={**{c: "nominal" for c in OK(st)},
                              **{c: "continuous" for c in _still_numeric(st)}}).overall),
    "lambda_overall": lambda st: same(st.measure("lambda_overall"),
                                      st.measure("utility.il_variables").overall),
    "utility.catalogue": lambda st: same(
        st.measure("utility.catalogue", name="il1", params=(("columns", ("y", "z")),)),
        u.il1(st.original, st.data, columns=["y", "z"])),
    "utility.benchmark": _benchmark,
    "utility.regression": lambda st: same(
        st.measure("utility.regression", formula="y ~ z").coefficients,
        u.compare_regression(st.original, st.data, "y ~ z").coefficients),
    "utility.gdu": lambda st: same(0 <= st.measure("utility.gdu", progress=False).gdu <= 1, True),
    "l_violations": lambda st: same(st.measure("l_violations", l=2), int((r.l_diversity(
        st.data, K(st), ["s"]).filter(like="_distinct").to_numpy() < 2).any(axis=1).sum())),
    "max_individual_risk": _kernel("max_individual_risk", lambda st: float(
        r.individual_risk(st.data, K(st), weight="w").max())),
    "contract": _contract_check,
    # the attack measures run the attack kernels on (original, current data), whose rules apply
    "attack.singling_out": _attack("attack.singling_out", "singling_out", columns=("a", "b"),
                                   n_attacks=10, n_cols=2, mode="univariate", seed=1),
    "attack.linkability": _attack("attack.linkability", "linkability",
                                  aux_cols=(("a", "x"), ("b", "y")), n_attacks=10, seed=1),
    "attack.inference": _attack("attack.inference", "inference", secret="s",
                                aux_cols=("a", "b", "x"), n_attacks=10, seed=1),
    "attack.tcap": lambda st: same(st.measure("attack.tcap", target="s", keys=("a", "b")).tcap,
                                   ra.tcap(st.original, st.data, keys=["a", "b"],
                                           target="s").tcap),
    "attack.dcr": _dcr,
    "utility.ml": _ml_measure,
}


def test_every_session_measure_has_a_missing_value_check():
    # ``dask.*`` measures exist once a Dask session was made and apply to Dask states only
    # (tests/scale checks them against the pandas measures)
    assert set(SESSION) == {m for m in available() if not m.startswith("dask.")}


@pytest.fixture(scope="module")
def sessions():
    return session_states()


@pytest.mark.parametrize("stage", ["original", "noise", "recode"])
@pytest.mark.parametrize("name", sorted(SESSION))
def test_session_measure_with_missing_numeric_values(sessions, stage, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        SESSION[name](sessions[stage].state)


@pytest.mark.parametrize("stage", ["original", "noise", "recode"])
def test_session_views_with_missing_numeric_values(sessions, stage):
    """The views never fail on missing numeric values: repr(s.risk), s.risk.to_frame(),
    s.utility.to_frame(), repr(s.utility); the all-missing e is left out of the multivariate
    figures and counted in IL1s as sdcMicro does."""
    s = sessions[stage]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert "interval disclosure" in repr(s.risk)
        risk = s.risk.to_frame()["value"]
        util = s.utility.to_frame()
        assert "Information loss" in repr(s.utility)
    assert np.isfinite(risk["numeric.interval_disclosure"])
    figures = util.set_index("measure")["value"]
    for name in ("il1s", "eigen", "il_correl", "correlation_discrepancy", "lambda_overall"):
        assert np.isfinite(figures[name]), name
    if stage == "recode":  # x is now categorical: measured as a category (lambda), not numeric
        st = s.state
        assert figures["il1s"] == pytest.approx(u.il1s(st.original, st.data, columns=["y", "z", "e"]))
