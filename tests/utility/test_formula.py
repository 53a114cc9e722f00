"""The safe formula language: code in a formula is refused and never runs; valid formulas give
patsy's design matrices and statsmodels' coefficients, bit for bit."""

from __future__ import annotations

import builtins

import numpy as np
import pandas as pd
import patsy
import pytest
import statsmodels.formula.api as smf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import MeasureError, ParameterError
from sdcsession.present.compare import estimates
from sdcsession.utility.formula import MAX_TERMS, build_design, model_matrix, parse_formula
from sdcsession.utility.regression import compare_regression, fit_formula


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 300
    d = pd.DataFrame({"x": rng.normal(size=n), "z": rng.uniform(1, 5, n),
                      "age": rng.integers(18, 65, n), "a": rng.choice(list("pqr"), n),
                      "b": rng.choice(["u", "v"], n), "k": rng.integers(1, 4, n),
                      "c": pd.Categorical(rng.choice(list("klm"), n), categories=list("mlk")),
                      "t": rng.random(n) > 0.4, "odd name": rng.normal(size=n),
                      "w": rng.uniform(1, 3, n)})
    d["y"] = (1 + 0.5 * d.x + 0.2 * np.log(d.z) + 0.3 * (d.a == "q") - 0.01 * d.age
              + rng.normal(0, 0.3, n))
    d.loc[[3, 8], "x"] = np.nan  # records with a missing value leave the fit
    d.loc[[5], "a"] = None
    return d


# ------------------------------------------------------------------------------ no code runs
def _attack(path) -> str:
    return f'y ~ x + I(__import__("os").system("touch {path}"))'


def test_import_formula_is_refused_and_runs_nothing(df, tmp_path):
    target = tmp_path / "pwned"
    f = _attack(target)
    with pytest.raises(ParameterError, match="__import__"):
        compare_regression(df, df, f)
    with pytest.raises(ParameterError, match="__import__"):
        fit_formula(df, f)
    with pytest.raises(ParameterError, match="__import__"):
        parse_formula(f)
    # the same without the dunder: a call of a function that is not whitelisted
    with pytest.raises(ParameterError, match="'system'"):
        fit_formula(df, f'y ~ I(system("touch {target}"))')
    with pytest.raises(ParameterError, match="'open'"):
        fit_formula(df, f'y ~ I(open("{target}", "w"))')
    assert not target.exists()


def test_attack_through_the_session_and_estimates(tmp_path):
    target = tmp_path / "pwned"
    data = pd.DataFrame({"y": [1.0, 2, 4, 3, 5, 7], "x": [1.0, 2, 3, 4, 5, 6],
                         "k": list("ababab")})
    s = sdc.SdcSession(data, keys=["k"], numeric=["y", "x"], seed=1)
    head = s.head
    with pytest.raises(ParameterError, match="__import__"):
        s.utility.regression(_attack(target))
    with pytest.raises(ParameterError, match="__import__"):
        estimates(s, formula=_attack(target), term="x")
    assert not target.exists()
    assert s.head is head
    # a valid formula still works on the same handle
    c = estimates(s, formula="y ~ x", term="x", original=False)
    assert c.estimate[0] == pytest.approx(np.polyfit(data.x, data.y, 1)[0], rel=1e-12)


@pytest.mark.parametrize("formula, part", [
    ("y ~ x.__class__", "__class__"),
    ("y ~ I(x.__class__.__bases__)", "__class__"),
    ("y ~ I(x.real)", "attribute access 'x.real'"),
    ("y ~ np.linalg.norm(x)", "function 'np.linalg.norm'"),
    ("y ~ np.log.__call__(x)", "__call__"),
    ("y ~ eval('x')", "function 'eval'"),
    ("y ~ exec(x)", "function 'exec'"),
    ("y ~ getattr(x, 'y')", "function 'getattr'"),
    ("y ~ I(np.os)", "attribute access 'np.os'"),
    ("y ~ x[0]", r"'\['"),
    ("y ~ I(x[0:2])", r"'\['"),
    ("y ~ (lambda: x)", "keyword 'lambda'"),
    ("y ~ I(x if x else 0)", "keyword 'if'"),
    ("y ~ I(not x)", "keyword 'not'"),
    ("y ~ 'x'", "string 'x'"),
    ("y ~ I('x' * 3)", "string 'x'"),
    ("y ~ C(a, Treatment('q'))", r"C\(\) takes one column"),
    ("y ~ np.log(x, out=x)", "'='"),
    ("y ~ np.log(x, x)", "takes exactly one argument"),
    ("y ~ C(np.log(x))", "found a call of 'np.log'"),
    ("y ~ I(C(a))", r"C\(\) is only allowed as a whole term"),
    ("y ~ __builtins__", "__builtins__"),
    ("y ~ {x}", "'{'"),
    ("y ~ x @ z", "'@'"),
    ("y ~ x; import os", "';'"),
    ("y ~ x\nimport os", "keyword 'import'"),
    ("y ~ x + 2", "number 2 outside I"),
    ("y ~ I(0x1f)", "invalid number"),
    ("y ~ I(x // 2)", "expected a column name, found '/'"),
    ("y ~ Q('a\\'b')", "unterminated string, or one with a backslash"),
    ("y ~ x ~ z", "unexpected '~'"),
    ("~ x", "outcome"),
    ("y + z ~ x", "outcome"),
    ("y ~ x +", "found the end"),
    ("y ~ " + "(" * 100 + "x" + ")" * 100, "nested more than"),
    ("y ~ I(" + "-" * 100 + "x)", "nested more than"),
    ("y ~ " + "*".join("abcdefghij"), f"more than {MAX_TERMS} terms"),
    ("y ~ -x", "unary minus is only allowed before 0 or 1"),
    ("y ~ 1:x", "intercept"),
])
def test_unsafe_or_malformed_formulas_are_refused(df, formula, part):
    with pytest.raises(ParameterError, match=part):
        parse_formula(formula)
    with pytest.raises(ParameterError):
        compare_regression(df, df, formula)


def test_nothing_is_evaluated_by_python(df, monkeypatch):
    """With eval/exec/compile disabled the whole path still works: no string reaches Python."""
    def boom(*a, **k):
        raise AssertionError("eval/exec/compile called")

    fo = fit_formula(df, "y ~ C(k) + np.log(z) + I(age ** 2)")
    for name in ("eval", "exec", "compile"):
        monkeypatch.setattr(builtins, name, boom)
    r = compare_regression(df, df, "y ~ C(k) + np.log(z) + I(age ** 2)", model="wls", weight="w")
    assert r.coefficients.term.tolist() == list(fo.params.index)


def test_not_a_string():
    for bad in (None, 5, ["y ~ x"], "y"):
        with pytest.raises(ParameterError, match="formula"):
            parse_formula(bad)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="longer than"):
        parse_formula("y ~ " + " + ".join(["x"] * 2000))


# ------------------------------------------------------------------------------ same numbers
FORMULAS = [
    "y ~ x + a", "y ~ C(k) + x", "y ~ I(x**2) + np.log(z)", "y ~ a*b", "y ~ x:a + b",
    "y ~ 0 + a + x", "y ~ C(k):x", "y ~ a*b*c", "y ~ t + c + a:t", "np.log(z) ~ a/x",
    "y ~ (a + b + x)**2", "y ~ I(-x * 2.5 + 1) + np.sqrt(z) + np.exp(x) + np.log1p(z)",
    "y ~ x*z - z - 1", "y ~ I((age - 40) / 10) + I(z ** -1) + C(age > 40)",
    "y ~ Q('odd name') + x",
]


@pytest.mark.parametrize("formula", FORMULAS)
def test_design_equals_patsy(df, formula):
    if "C(age > 40)" in formula:  # comparisons are not in the language
        with pytest.raises(ParameterError, match="'>'"):
            parse_formula(formula)
        formula = formula.replace(" + C(age > 40)", "")
    Y, X = patsy.dmatrices(formula, df, return_type="dataframe")
    d = build_design(parse_formula(formula), df)
    pd.testing.assert_frame_equal(d.X, X, check_exact=True)
    np.testing.assert_array_equal(d.y.to_numpy(), Y.iloc[:, 0].to_numpy())
    assert d.y.name == Y.columns[0]
    pd.testing.assert_frame_equal(model_matrix(d.spec, df[d.keep]), d.X, check_exact=True)


@pytest.mark.parametrize("formula", FORMULAS[:8])
def test_coefficients_equal_statsmodels_formula_api(df, formula):
    fit = fit_formula(df, formula, model="wls", weight="w")
    ref = smf.wls(formula, data=df, weights=df.w).fit()
    assert list(fit.params.index) == list(ref.params.index)
    np.testing.assert_allclose(fit.params, ref.params, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fit.bse, ref.bse, rtol=1e-12)


def test_hand_computed_coefficients():
    d = pd.DataFrame({"x": [0.0, 1, 2, 3, 0, 1, 2, 3], "g": list("aaaabbbb")})
    d["y"] = 3 + 2 * d.x + 5 * (d.g == "b") + 0.5 * d.x**2
    fit = fit_formula(d, "y ~ C(g) + x + I(x ** 2)")
    assert list(fit.params.index) == ["Intercept", "C(g)[T.b]", "x", "I(x ** 2)"]
    np.testing.assert_allclose(fit.params, [3.0, 5.0, 2.0, 0.5], atol=1e-12)
    fit = fit_formula(d.assign(y=np.exp(d.x)), "np.log(y) ~ 0 + g + x")
    np.testing.assert_allclose(fit.params, [0.0, 0.0, 1.0], atol=1e-12)


def test_formula_semantics():
    assert parse_formula("y ~ a*b - a - 1").term_names == ["b", "a:b"]
    assert parse_formula("y ~ (a + b):c").term_names == ["Intercept", "a:c", "b:c"]
    assert parse_formula("y ~ log(x) + sqrt(x) + abs(x)").term_names == [
        "Intercept", "log(x)", "sqrt(x)", "abs(x)"]
    assert parse_formula('y ~ Q("a b")').columns == ["y", "a b"]
    d = pd.DataFrame({"y": [1.0, 2, 3], "x": [1.0, -4, 9]})
    X = build_design(parse_formula("y ~ log(abs(x)) + I(2 ** 3 * x)"), d).X
    np.testing.assert_array_equal(X["log(abs(x))"], np.log([1.0, 4, 9]))
    np.testing.assert_array_equal(X["I(2 ** 3 * x)"], [8.0, -32, 72])


# ------------------------------------------------------------------------------ data errors
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # overflow, log of 0
def test_data_errors_are_measure_errors(df):
    with pytest.raises(MeasureError, match="nosuch"):
        fit_formula(df, "y ~ nosuch")
    with pytest.raises(MeasureError, match="cannot compute I"):
        fit_formula(df, "y ~ I(a * b)")
    with pytest.raises(MeasureError, match="constant"):
        fit_formula(df, "y ~ I(2 ** 10 ** 10)")
    with pytest.raises(MeasureError, match="infinite"):
        fit_formula(df.assign(z=0.0), "y ~ np.log(z)")
    with pytest.raises(MeasureError, match="outcome a must be numeric"):
        fit_formula(df, "a ~ x")
    with pytest.raises(MeasureError, match="0/1"):
        compare_regression(df, df, "y ~ x", model="logit")
    with pytest.raises(MeasureError, match="columns"):
        fit_formula(df.assign(id=np.arange(len(df)), j=np.arange(len(df)) % 17), "y ~ C(id):C(j)")
    with pytest.raises(ParameterError, match="level"):
        compare_regression(df, df, "y ~ x", level="0.95")  # type: ignore[arg-type]


def test_logit_on_boolean_outcome_models_true(df):
    fit = fit_formula(df.assign(hi=df.y > df.y.median()), "hi ~ x", model="logit")
    ref = smf.glm("hi ~ x", data=df.assign(hi=(df.y > df.y.median()).astype(float)),
                  family=__import__("statsmodels.api").api.families.Binomial()).fit()
    assert fit.params["x"] == pytest.approx(ref.params["x"], rel=1e-12) and fit.params["x"] > 0


def test_prediction_quality_falls_back_for_unknown_categories(df):
    m = df.assign(a=df.a.replace({"r": "q"}), y=df.y + 0.5)  # the masked model has no level r
    r = compare_regression(df, m, "y ~ x + a")
    fo = smf.ols("y ~ x + a", data=df).fit()
    fm = smf.ols("y ~ x + a", data=m).fit()
    mo, mm = fo.fittedvalues.mean(), fm.fittedvalues.mean()
    assert r.prediction_quality == pytest.approx(abs((mo - mm) / mo), rel=1e-12)
    assert r.coefficients.set_index("term").loc["a[T.r]", "coef_masked"] != \
        r.coefficients.set_index("term").loc["a[T.r]", "coef_masked"]  # NaN: not in masked model


# ------------------------------------------------------------------------------ generated input
_PIECES = ["y", "x", "a", "z", "~", "+", "-", "*", "/", ":", "**", "(", ")", ",", ".", "0", "1",
           "2", "2.5", "C(", "I(", "np.log(", "log(", "Q('x')", "'s'", "__class__", "os",
           "__import__", "lambda", "[", "]", "=", " ", "np", "eval("]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_PIECES), max_size=14))
def test_generated_formulas_parse_or_raise_parameter_error(df, pieces):
    text = "".join(pieces)
    try:
        f = parse_formula(text)
    except ParameterError:
        return
    assert not ({"__import__", "__class__", "lambda"} & set(f.columns))
    try:
        with np.errstate(all="ignore"):
            fit_formula(df, text)
    except (MeasureError, ParameterError):
        pass
