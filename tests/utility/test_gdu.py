"""Global data utility model: the paper's numbers, each bivariate branch by hand, invariants, bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.utility.gdu import gdu, grc, ldu_biv_rule, ldu_psr, ldu_recoding


def _pair(r: object, a: str, b: str) -> pd.Series:
    t = r.bivariate
    row = t[((t.var1 == a) & (t.var2 == b)) | ((t.var1 == b) & (t.var2 == a))]
    assert len(row) == 1
    return row.iloc[0]


@pytest.fixture(scope="module")
def mixed() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    n = 600
    g = rng.choice(["a", "b", "c"], n)
    shift = pd.Series(g).map({"a": 0.0, "b": 0.8, "c": 1.6}).to_numpy()
    x = rng.normal(size=n) + shift
    return pd.DataFrame({
        "g": g,
        "h": np.where(rng.random(n) < 0.7, g, rng.choice(["a", "b", "c"], n)),
        "x": x,
        "z": np.exp(x + rng.normal(size=n)),   # skewed, associated with x
        "o": pd.Categorical(np.clip((x + 2).round(), 0, 4).astype(int), categories=range(5),
                            ordered=True),
    })


# ---------------------------------------------------------------- the paper's numeric examples


def test_ldu_psr_paper_values():
    assert ldu_psr(0.05) == pytest.approx(0.50, abs=0.005)
    assert ldu_psr(0.01) == pytest.approx(0.13, abs=0.005)
    assert ldu_psr(0.05) == pytest.approx(1 - math.exp(-0.7), rel=1e-15)
    assert ldu_psr(0.0) == 0.0


def test_grc_paper_values():
    assert round(grc(100, 95), 3) == 0.902
    assert grc(100, 95) == 95 * 94 / (100 * 99)
    assert grc(10, 5) == 10 / 45
    assert grc(10, 10) == 1.0


def test_recoding_variants_by_hand():
    # 10 -> 5 groups: 10 of 45 comparisons kept
    assert ldu_recoding(np.arange(10), np.arange(10) // 2) == 10 / 45
    # paper's example: 39 (30s) is closer to 40 (40s) than to 33 (30s); 40 closer to 39 than 49
    vals = [33.0, 39.0, 40.0, 49.0]
    grp = ["30s", "30s", "40s", "40s"]
    assert ldu_recoding(vals, grp, variant="biased_allocation") == 0.5
    # MAD: values 0, 2 | 10, 12: groups MAD 1, one group MAD 5 -> 1 - 1/5
    assert ldu_recoding([0.0, 2.0, 10.0, 12.0], [0, 0, 1, 1], variant="mad") == pytest.approx(0.8)
    with pytest.raises(MeasureError, match="numeric"):
        ldu_recoding(["a", "b"], [1, 1], variant="mad")


def test_ldu_biv_rule_steps():
    assert ldu_biv_rule(0.2, 0.9, 0.3, 0.1)[:2] == (1.0, 1)
    assert ldu_biv_rule(0.001, 0.2, 0.3, 0.1)[:2] == (0.0, 1)
    assert ldu_biv_rule(0.2, 0.001, 0.3, 0.1)[:2] == (0.0, 1)
    assert ldu_biv_rule(0.001, 0.001, 0.3, 0.1, reversed_direction=True)[:2] == (0.0, 2)
    assert ldu_biv_rule(0.001, 0.001, 0.2, 0.5) == (1 - 0.3 / 0.5, 3, "strength compared")
    # threshold P_t is a parameter
    assert ldu_biv_rule(0.03, 0.2, 0.3, 0.1, alpha=0.01)[0] == 1.0


# ---------------------------------------------------------------- invariants


def test_identical_files_give_one(mixed):
    r = gdu(mixed, mixed)
    assert r.gdu == 1.0 and r.aldu_uni == 1.0 and r.aldu_biv == 1.0 and r.grc == 1.0
    assert set(r.univariate.step) == {"identical"}
    assert len(r.bivariate) == 10


def test_types_are_inferred_and_tests_follow_table_1(mixed):
    r = gdu(mixed, mixed, types={"x": "normal"})
    lv = dict(zip(r.univariate.variable, r.univariate.level, strict=True))
    assert lv == {"g": "nominal", "h": "nominal", "x": "normal", "z": "nonnormal", "o": "ordinal"}
    expect = {("g", "h"): "chi-squared", ("g", "x"): "anova", ("g", "z"): "kruskal-wallis",
              ("g", "o"): "kruskal-wallis", ("x", "z"): "spearman", ("x", "o"): "spearman",
              ("z", "o"): "spearman"}
    for (a, b), test in expect.items():
        assert _pair(r, a, b).test == test, (a, b)
    r2 = gdu(mixed, mixed, types={"x": "normal", "z": "normal"})
    assert _pair(r2, "x", "z").test == "pearson"


def test_coefficients_and_p_values_match_scipy(mixed):
    r = gdu(mixed, mixed, types={"x": "normal", "z": "normal"})
    row = _pair(r, "g", "h")
    tab = pd.crosstab(mixed.g, mixed.h).to_numpy()
    chi = stats.chi2_contingency(tab, correction=False)
    assert row.p_original == pytest.approx(chi.pvalue, rel=1e-9)
    v = stats.contingency.association(tab, method="cramer")
    assert row.coef_original == pytest.approx(v, rel=1e-9)
    groups = [mixed.x[mixed.g == k] for k in "abc"]
    row = _pair(r, "g", "x")
    assert row.p_original == pytest.approx(stats.f_oneway(*groups).pvalue, rel=1e-9)
    row = _pair(r, "x", "z")
    pr = stats.pearsonr(mixed.x, mixed.z)
    assert row.coef_original == pytest.approx(pr.statistic, rel=1e-9)
    assert row.p_original == pytest.approx(pr.pvalue, rel=1e-6, abs=1e-300)
    r3 = gdu(mixed, mixed)
    row = _pair(r3, "g", "z")
    kw = stats.kruskal(*[mixed.z[mixed.g == k] for k in "abc"])
    assert row.p_original == pytest.approx(kw.pvalue, rel=1e-9, abs=1e-300)
    assert row.coef_original == pytest.approx(kw.statistic / (len(mixed) - 1), rel=1e-9)
    row = _pair(r3, "x", "o")
    sp = stats.spearmanr(mixed.x, mixed.o.cat.codes)
    assert row.coef_original == pytest.approx(sp.statistic, rel=1e-9)


# ---------------------------------------------------------------- bivariate branches by hand


def test_branch_no_association_in_either():
    rng = np.random.default_rng(2)
    o = pd.DataFrame({"x": rng.normal(size=400), "y": rng.normal(size=400)})
    m = o.assign(y=o.y + rng.normal(0, 0.01, 400))
    row = _pair(gdu(o, m), "x", "y")
    assert row.p_original >= 0.05 and row.p_protected >= 0.05
    assert (row.ldu_biv, row.step) == (1.0, 1)


def test_branch_association_lost():
    rng = np.random.default_rng(3)
    o = pd.DataFrame({"x": rng.normal(size=400)})
    o["y"] = o.x + rng.normal(size=400)
    m = o.assign(y=rng.permutation(o.y.to_numpy()))
    row = _pair(gdu(o, m), "x", "y")
    assert (row.ldu_biv, row.step, row.decision) == (0.0, 1, "association lost")


def test_branch_direction_reversed_correlation():
    rng = np.random.default_rng(4)
    o = pd.DataFrame({"x": rng.normal(size=400)})
    o["y"] = o.x + rng.normal(size=400)
    m = o.assign(y=-o.y)
    row = _pair(gdu(o, m), "x", "y")
    assert row.coef_original > 0 > row.coef_protected
    assert (row.ldu_biv, row.step, row.decision) == (0.0, 2, "direction reversed")


def test_branch_direction_reversed_chi_squared():
    # 2 x 2: original concentrated on the diagonal, masked on the anti-diagonal
    o = pd.DataFrame({"a": ["p"] * 40 + ["q"] * 40,
                      "b": ["u"] * 30 + ["v"] * 10 + ["u"] * 10 + ["v"] * 30})
    m = o.assign(b=o.b.map({"u": "v", "v": "u"}))
    row = _pair(gdu(o, m), "a", "b")
    # standardised residuals all change sign: D = mean(|2 M| - |M|) = mean |M| > 0
    assert row.direction > 0
    assert (row.ldu_biv, row.step) == (0.0, 2)


def test_branch_direction_reversed_groups():
    rng = np.random.default_rng(5)
    g = np.repeat(["a", "b"], 200)
    y = np.where(g == "a", 0.0, 1.0) + rng.normal(size=400)
    o = pd.DataFrame({"g": g, "y": y})
    m = o.assign(y=np.where(g == "a", 1.0, 0.0) + (y - np.where(g == "a", 0.0, 1.0)))
    for types in ({"y": "normal"}, {"y": "nonnormal"}):
        row = _pair(gdu(o, m, types=types), "g", "y")
        assert row.test == ("anova" if types["y"] == "normal" else "kruskal-wallis")
        assert (row.ldu_biv, row.step) == (0.0, 2)


def test_branch_strength_compared_by_hand():
    rng = np.random.default_rng(6)
    o = pd.DataFrame({"x": rng.normal(size=500)})
    o["y"] = o.x + rng.normal(size=500)
    m = o.assign(y=o.y + rng.normal(0, 1.0, 500))   # weaker but significant association
    r = gdu(o, m, types={"x": "normal", "y": "normal"})
    row = _pair(r, "x", "y")
    ro = np.corrcoef(o.x, o.y)[0, 1] ** 2
    rp = np.corrcoef(m.x, m.y)[0, 1] ** 2
    assert row.step == 3
    assert row.ldu_biv == pytest.approx(1 - abs(ro - rp) / max(ro, rp), rel=1e-9)
    # and the global figures are the means of the parts
    assert r.aldu_biv == pytest.approx(row.ldu_biv)
    assert r.gdu == pytest.approx(0.5 * (r.aldu_uni + r.aldu_biv))
    uni_y = r.univariate.set_index("variable").loc["y"]
    assert uni_y.ldu_uni == pytest.approx(1 - math.exp(-14 * uni_y.p_value))
    assert uni_y.p_value == pytest.approx(stats.ks_2samp(o.y, m.y).pvalue, rel=1e-9)


# ---------------------------------------------------------------- recoding, removal, weights


def test_recoded_ten_to_five_groups_gives_ten_of_45():
    rng = np.random.default_rng(7)
    age10 = rng.integers(0, 10, 1000)
    o = pd.DataFrame({"age": pd.Series(age10).map(lambda v: f"{10 * v}-{10 * v + 9}"),
                      "s": rng.choice(["m", "f"], 1000)})
    m = o.assign(age=pd.Series(age10 // 2).map(lambda v: f"{20 * v}-{20 * v + 19}"))
    r = gdu(o, m)
    u = r.univariate.set_index("variable").loc["age"]
    assert bool(u.recoded) and u.ldu_gr == 10 / 45 and u.ldu_psr == 1.0
    assert u.ldu_uni == 10 / 45
    # explicit mapping gives the same, and the files may then differ in size
    mapping = {f"{10 * v}-{10 * v + 9}": f"{20 * (v // 2)}-{20 * (v // 2) + 19}" for v in range(10)}
    r2 = gdu(o, m.iloc[:700], recoded={"age": mapping})
    assert r2.univariate.set_index("variable").loc["age"].ldu_gr == 10 / 45
    with pytest.raises(MeasureError, match="recoded"):
        gdu(o, m.iloc[:700])


def test_recoded_continuous_with_breaks_and_variants():
    rng = np.random.default_rng(8)
    o = pd.DataFrame({"age": rng.integers(0, 100, 2000).astype(float)})
    o["inc"] = o.age * 10 + rng.normal(0, 100, 2000)
    breaks = [0, 19, 39, 59, 79, 99]
    m = o.assign(age=pd.cut(o.age, breaks, include_lowest=True).astype(str))
    r = gdu(o, m, recoded={"age": breaks}, recode_variant="mad")
    u = r.univariate.set_index("variable").loc["age"]
    grp = pd.cut(o.age, breaks, include_lowest=True)
    assert u.ldu_gr == pytest.approx(ldu_recoding(o.age, grp, variant="mad"), rel=1e-12)
    assert u.ldu_psr == 1.0
    row = _pair(r, "age", "inc")
    assert row.test == "spearman" and row.step == 3 and 0.8 < row.ldu_biv < 1


def test_recoded_and_perturbed_is_the_product():
    rng = np.random.default_rng(9)
    v = rng.integers(0, 6, 3000)
    o = pd.DataFrame({"c": pd.Series(v).astype(str)})
    rec = pd.Series(v // 2).astype(str).map(lambda s: "g" + s)
    rec[:300] = "g0"                                   # further perturbation after recoding
    m = pd.DataFrame({"c": rec})
    mapping = {str(i): f"g{i // 2}" for i in range(6)}
    u = gdu(o, m, recoded={"c": mapping}).univariate.iloc[0]
    assert u.ldu_gr == 3 * 2 / (6 * 5)
    assert 0 <= u.ldu_psr < 1
    assert u.ldu_uni == pytest.approx(u.ldu_gr * u.ldu_psr, rel=1e-15)


def test_removed_variable_and_grc(mixed):
    r = gdu(mixed, mixed.drop(columns=["h"]))
    u = r.univariate.set_index("variable")
    assert u.loc["h", "ldu_uni"] == 0.0 and u.loc["g", "ldu_uni"] == 1.0
    assert r.grc == grc(5, 4)
    assert (r.bivariate[(r.bivariate.var1 == "h") | (r.bivariate.var2 == "h")].ldu_biv == 0).all()
    assert r.aldu_uni == pytest.approx(4 / 5)
    assert r.gdu_reduced == pytest.approx(r.gdu * 0.6)


def test_user_weights_and_uni_share(mixed):
    r = gdu(mixed, mixed.drop(columns=["h"]), weights={"h": 0.0}, uni_share=1.0)
    assert r.aldu_uni == 1.0 and r.gdu == 1.0


def test_drill_down_tables(mixed):
    m = mixed.assign(x=np.random.default_rng(0).permutation(mixed.x.to_numpy()))
    r = gdu(mixed, m)
    worst = r.worst_pairs(3)
    assert set(worst.columns) >= {"var1", "var2", "test", "p_original", "p_protected",
                                  "coef_original", "coef_protected", "step", "ldu_biv"}
    assert (worst.ldu_biv == 0).all() and (((worst.var1 == "x") | (worst.var2 == "x")).all())
    bv = r.by_variable.set_index("variable")
    assert bv.ldu_biv.idxmin() == "x"


# ---------------------------------------------------------------- degenerate and bad input


def test_constant_variables_give_documented_values():
    rng = np.random.default_rng(10)
    o = pd.DataFrame({"k": ["same"] * 200, "x": rng.normal(size=200), "c0": np.zeros(200)})
    r = gdu(o, o.assign(x=o.x + rng.normal(0, 0.01, 200)))
    assert not r.univariate.ldu_uni.isna().any() and not r.bivariate.ldu_biv.isna().any()
    assert (r.bivariate.ldu_biv == 1.0).all()           # constant: no association, P = 1
    assert (r.bivariate.p_original == 1.0).all()
    assert r.univariate.set_index("variable").loc["k", "ldu_uni"] == 1.0


def test_different_numbers_of_records_work():
    rng = np.random.default_rng(12)
    o = pd.DataFrame({"x": rng.normal(size=1000), "g": rng.choice(list("ab"), 1000)})
    r = gdu(o, o.sample(500, random_state=1))
    assert 0.5 < r.gdu <= 1 and len(r.bivariate) == 1


def test_single_variable():
    o = pd.DataFrame({"x": np.arange(50.0)})
    r = gdu(o, o)
    assert r.aldu_biv is None and r.gdu == 1.0 and r.bivariate.empty


def test_bad_input():
    o = pd.DataFrame({"x": np.arange(10.0), "s": list("ababababab")})
    with pytest.raises(ParameterError, match="types"):
        gdu(o, o, types={"x": "interval"})
    with pytest.raises(MeasureError, match="numeric"):
        gdu(o, o, types={"s": "continuous"})
    with pytest.raises(MeasureError, match="not in the original"):
        gdu(o, o, columns=["x", "nope"])
    with pytest.raises(MeasureError, match="DataFrame"):
        gdu(o, o.x)
    with pytest.raises(ParameterError, match="recode_variant"):
        gdu(o, o.assign(s=list("cdcdcdcdcd")), recode_variant="median")
    with pytest.raises(MeasureError, match="weights"):
        gdu(o, o, weights={"y": 1.0})
    with pytest.raises(MeasureError, match="recoded"):
        gdu(o, o, recoded=["nope"])


def test_progress_bar(monkeypatch):
    import io
    import sys

    from sdcsession import progress

    monkeypatch.setattr(progress, "MIN_SECONDS", 0.0)
    rng = np.random.default_rng(3)
    o = pd.DataFrame({"x": rng.normal(size=200), "y": rng.normal(size=200),
                      "z": rng.normal(size=200)})
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    on = gdu(o, o, progress=True)
    assert buf.getvalue().startswith("\rGDU pairs:") and "3/3" in buf.getvalue()
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    off = gdu(o, o, progress=False)
    assert buf.getvalue() == "" and on.gdu == off.gdu == 1.0


def _masked_variants(mixed: pd.DataFrame) -> list[pd.DataFrame]:
    rng = np.random.default_rng(5)
    n = len(mixed)
    miss = rng.random(n) < 0.1
    return [
        mixed.copy(),                                               # unchanged
        mixed.assign(x=mixed.x + rng.normal(scale=0.5, size=n)),    # one variable perturbed
        mixed.assign(g=mixed.g.where(rng.random(n) > 0.2)),         # suppressions
        mixed.assign(h=mixed.h.map({"a": "a", "b": "bc", "c": "bc"})),  # recoded
        mixed.assign(x=mixed.x.where(~miss), z=mixed.z.where(~miss)),   # same rows missing
        mixed.assign(z=mixed.z.where(rng.random(n) > 0.1)),         # own missing rows
        mixed.drop(columns="o"),                                    # removed
    ]


def test_cache_gives_the_same_result_and_reuses_the_original_tests(mixed):
    cache: dict = {}
    for masked in _masked_variants(mixed):
        plain = gdu(mixed, masked, columns=list(mixed.columns))
        for _ in range(2):  # first call fills the cache, second reads it
            hit = gdu(mixed, masked, columns=list(mixed.columns), cache=cache)
            assert hit.gdu == plain.gdu and hit.aldu_uni == plain.aldu_uni
            pd.testing.assert_frame_equal(hit.bivariate, plain.bivariate)
            pd.testing.assert_frame_equal(hit.univariate, plain.univariate)
            pd.testing.assert_frame_equal(hit.by_variable, plain.by_variable)
    # 10 pairs: the original's tests once, then only pairs touching a changed variable
    biv = [k for k in cache if k[0] == "biv"]
    assert 10 <= len(biv) < 10 * 2 * len(_masked_variants(mixed))


def test_pairs_missing_on_the_same_rows_match_scipy(mixed):
    miss = np.random.default_rng(2).random(len(mixed)) < 0.2
    m = mixed.assign(x=mixed.x.where(~miss), z=mixed.z.where(~miss))
    r = gdu(mixed, m, types={"x": "nonnormal", "z": "nonnormal"}, columns=["g", "x", "z"])
    row = _pair(r, "x", "z")
    sp = stats.spearmanr(m.x[~miss], m.z[~miss])
    assert row.test == "spearman"
    assert row.coef_protected == pytest.approx(sp.statistic, rel=1e-12)
    assert row.p_protected == pytest.approx(sp.pvalue, rel=1e-6, abs=1e-300)
    kw = stats.kruskal(*[m.z[~miss & (m.g == k)] for k in "abc"])
    assert _pair(r, "g", "z").p_protected == pytest.approx(kw.pvalue, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("dtype", [object, np.float64, "Float64"])
def test_all_missing_masked_column_whatever_its_dtype(dtype):
    """A masked column with every value missing is 'all values missing' (LDU_psr 0) whether it
    holds None (object), NaN (float) or pd.NA: never taken for a recoding, never an IndexError."""
    o = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "k": [1, 1, 2, 2, 3, 3],
                      "a": list("ppqqrr")})
    gone = pd.Series([None] * 6, dtype=dtype)
    r = gdu(o, o.assign(x=gone, k=gone))
    uni = r.univariate.set_index("variable")
    assert uni.loc["x", "step"] == uni.loc["k", "step"] == "all values missing"
    assert uni.loc["x", "ldu_psr"] == uni.loc["k", "ldu_psr"] == 0.0
    ref = gdu(o, o.assign(x=np.nan, k=np.nan))
    assert r.gdu == pytest.approx(ref.gdu)
