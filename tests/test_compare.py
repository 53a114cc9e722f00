"""compare(), frontier(), tree(), estimates(): values against direct computations and hand cases."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import BlankRare
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import ParameterError, SdcWarning
from sdcsession.methods.noise import AddNoise
from sdcsession.present.compare import MeasureSpec, compare, estimates, frontier, steps_text, tree
from sdcsession.session.measures import COUNTS

KEYS = ["region", "sex", "age5", "marstat"]
NUM = ["income", "expend", "savings"]


@pytest.fixture(scope="module")
def survey() -> pd.DataFrame:
    return sdc.datasets.synthetic_survey(300, seed=3)


def make(df: pd.DataFrame, **kw) -> sdc.SdcSession:
    args = dict(keys=KEYS, numeric=NUM, weight="w", household="hid", seed=11)
    args.update(kw)
    return sdc.SdcSession(df, **args)


@pytest.fixture()
def scen(survey):
    s = make(survey)
    a = s.branch("supp").apply(BlankRare(k=3))
    b = s.branch("noise").apply(AddNoise(NUM, noise=0.5))
    c = a.branch("supp+noise").apply(AddNoise(NUM, noise=0.2))
    return s, a, b, c


# ----------------------------------------------------------------------------- hand cases
def test_hand_case_counts_and_steps_text():
    df = pd.DataFrame({"sex": list("mfmfmfmf"), "region": list("aabbccdd")})
    s = sdc.SdcSession(df, keys=["sex", "region"], seed=1)
    merged = s.branch("merged").recode("region", {"b": "a", "d": "c"})
    blank = s.branch("blank").recode("region", {"d": None})
    t = compare(s, merged, blank)
    assert t.scenario.tolist() == ["main", "merged", "blank"]
    # every (sex, region) cell is unique in the original; merging gives cells of 2
    # blanked region = wildcard: (m, NA) is compatible with the 3 other m records (fk = 4) and
    # each (m, a|b|c) with (m, NA) (fk = 2)
    assert t.k2_violations.tolist() == [8, 0, 0]
    assert t.k3_violations.tolist() == [8, 8, 6]
    # region d blanked for 2 records = 2 suppressions; recoding is not a suppression
    assert t.suppressions.tolist() == [0, 0, 2]
    assert t.steps.tolist() == ["(original)", "recode(column=region, mapping={2 entries})",
                                "recode(column=region, mapping={1 entries})"]
    # without weights the individual risk is 1/fk (missing key = wildcard for the blanked ones)
    assert t.expected_reidentifications[0] == pytest.approx(8.0, rel=1e-12)
    assert t.expected_reidentifications[1] == pytest.approx(4.0, rel=1e-12)
    assert t.expected_reidentifications[2] == pytest.approx(6 / 2 + 2 / 4, rel=1e-12)
    assert t.k2_violations.dtype == np.int64
    assert "il1s" not in t.columns and "household_expected_reidentifications" not in t.columns


def test_values_match_the_pure_functions(scen):
    s, a, b, c = scen
    t = compare(s, a, b, c).set_index("scenario")
    for sess in (s, a, b, c):
        row = t.loc[sess.name]
        d, o = sess.data, sess.original
        assert row.k3_violations == sdc.risk.k_violations(d, KEYS, 3)
        assert row.k5_violations == sdc.risk.k_violations(d, KEYS, 5)
        ir = sdc.risk.individual_risk(d, KEYS, weight="w")
        assert row.expected_reidentifications == pytest.approx(float(ir.sum()), rel=1e-9)
        supp = int((~o[KEYS].isna().to_numpy() & d[KEYS].isna().to_numpy()).sum())
        assert row.suppressions == supp
        assert row.il1s == pytest.approx(sdc.utility.continuous.il1s(o[NUM], d[NUM]), rel=1e-12)
        types = {k: "nominal" for k in KEYS} | {c: "continuous" for c in NUM}
        lam = sdc.utility.continuous.il_variables(o[KEYS + NUM], d[KEYS + NUM],
                                                  types=types).overall
        assert row["lambda"] == pytest.approx(lam, rel=1e-12)
    assert t.loc["supp", "suppressions"] > 0
    assert t.loc["noise", "il1s"] > t.loc["supp+noise", "il1s"] > 0
    assert t.loc["supp", "il1s"] == 0.0
    assert t.attrs["original"]["k3_violations"] == t.loc["main", "k3_violations"]
    assert t.attrs["roles"]["il1s"] == "loss"


def test_lambda_after_recoding_an_ordered_key(survey):
    s = make(survey)
    cats = [str(c) for c in survey["age5"].cat.categories]
    merged = {cats[1]: cats[0], cats[3]: cats[2]}
    s.recode("age5", merged)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lam = compare(s)["lambda"][0]
    changed = survey["age5"].astype(str).isin(list(merged)).sum()
    # keys are nominal: each recoded value counts 1; numeric unchanged; 7 variables
    assert lam == pytest.approx(changed / len(survey) / (len(KEYS) + len(NUM)), rel=1e-12)


def test_measures_are_computed_once_per_state(scen):
    s, a, b, c = scen
    same = s.branch("same")  # shares the root state with s
    compare(s, a, b, c, same)
    before = COUNTS.copy()
    t2 = compare(s, a, b, c, same)
    assert COUNTS == before, "cached measures were recomputed"
    # a fresh state computes each default measure exactly once
    d = s.branch("fresh").apply(AddNoise(NUM, noise=0.1))
    compare(d, d, s)
    diff = {k: COUNTS[k] - before[k] for k in COUNTS if COUNTS[k] != before[k]}
    for name in ("expected_reidentifications", "k_violations_3", "utility.il1s",
                 "lambda_overall", "suppressions_total", "frequencies", "utility.gdu"):
        assert diff.get(name) == 1, (name, diff)
    assert len(t2) == 5
    # the session's utility summary reads the same cache entries
    before = COUNTS.copy()
    u = d.utility
    row = compare(d).iloc[0]
    assert u.il1s == row.il1s and u.il_correl == row.il_correl
    assert u.gdu().gdu == row.gdu and 0 < row.gdu <= 1
    assert u.suppressions_total == row.suppressions
    assert COUNTS == before


def test_history_and_steps_of_one_tree(scen):
    s, a, b, c = scen
    t = compare(c.history)
    assert t.scenario.tolist() == ["#0 original", "#1 test_blank_rare", "#3 add_noise"]
    assert t.depth.tolist() == [0, 1, 2]
    assert t.suppressions.iloc[0] == 0 and t.suppressions.iloc[1] == t.suppressions.iloc[2]
    t2 = compare(*s.steps)
    assert len(t2) == len(s.steps) == 4
    t3 = compare(a, a)  # duplicates get a suffix
    assert t3.scenario.tolist() == ["supp", "supp (2)"]
    assert compare(a, original=True).scenario.tolist() == ["original", "supp"]


def test_measure_selection_and_errors(scen):
    s, a, *_ = scen
    t = compare(s, a, measures=["k3_violations", "global_risk", ("k_violations", {"k": 4}),
                                MeasureSpec("kv7", "k_violations", (("k", 7),))])
    assert list(t.columns[4:]) == ["k3_violations", "global_risk", "k_violations_k4", "kv7"]
    assert t.kv7.tolist() == [sdc.risk.k_violations(x.data, KEYS, 7) for x in (s, a)]
    with pytest.raises(ParameterError, match="not a registered measure"):
        compare(s, measures=["nonsense"])
    with pytest.raises(ParameterError, match="SdcSession or Step"):
        compare(s, "main")


def test_uncomputable_measure_is_nan_with_warning():
    df = pd.DataFrame({"k": list("abab"), "x": [1.0, 1.0, 1.0, 1.0], "y": [1.0, 2, 3, 5]})
    s = sdc.SdcSession(df, keys=["k"], numeric=["x", "y"], seed=1)
    with pytest.warns(SdcWarning, match="il1s"):
        t = compare(s)
    assert np.isnan(t.il1s[0])
    assert t.k2_violations[0] == 0


def test_default_measures_follow_roles(survey):
    s = sdc.SdcSession(survey, keys=KEYS, seed=1)
    cols = list(compare(s).columns)
    assert "il1s" not in cols and "household_expected_reidentifications" not in cols
    s2 = make(survey)
    assert {"il1s", "eigen", "il_correl", "lambda",
            "household_expected_reidentifications"} <= set(compare(s2).columns)
    s3 = make(survey, numeric=["income"])
    assert "il_correl" not in compare(s3).columns and "il1s" in compare(s3).columns


# ------------------------------------------------------------------------------- frontier
def test_frontier_hand_case():
    t = pd.DataFrame({"scenario": list("abcde"), "r": [5.0, 3.0, 4.0, 1.0, np.nan],
                      "l": [0.0, 0.1, 0.2, 0.5, 0.0]})
    f = frontier(t, risk="r", loss="l")
    assert f.scenario.tolist() == ["a", "b", "d"] and f.frontier.all()
    assert f.index.tolist() == [0, 1, 3]
    with pytest.raises(ParameterError, match="risk"):
        frontier(t, risk="nope", loss="l")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=12))
def test_frontier_is_exactly_the_non_dominated_set(points):
    t = pd.DataFrame({"scenario": [f"s{i}" for i in range(len(points))],
                      "r": [float(p[0]) for p in points], "l": [float(p[1]) for p in points]})
    f = frontier(t, risk="r", loss="l")
    pts = np.array(points, dtype=float)
    for i in f.index:  # nobody strictly dominates a frontier point
        dom = (pts[:, 0] <= pts[i, 0]) & (pts[:, 1] <= pts[i, 1]) & \
              ((pts[:, 0] < pts[i, 0]) | (pts[:, 1] < pts[i, 1]))
        assert not dom.any()
    fp = pts[f.index]
    for i in set(range(len(points))) - set(f.index):  # every other point is weakly dominated
        assert ((fp[:, 0] <= pts[i, 0]) & (fp[:, 1] <= pts[i, 1])).any()
    assert len({tuple(p) for p in fp}) == len(fp)


def test_frontier_on_compare_output(scen):
    t = compare(*scen)
    f = frontier(t)  # default loss: lambda
    assert set(f.scenario) <= set(t.scenario) and len(f) >= 1
    assert f["lambda"].is_monotonic_increasing
    assert f.expected_reidentifications.is_monotonic_decreasing


# ----------------------------------------------------------------------------------- tree
def test_tree_marks_heads_and_lists_every_branch(scen):
    s, a, b, c = scen
    view = tree(s)
    fr = view.to_frame()
    assert fr.index.tolist() == [0, 1, 3, 2]  # depth first: supp, its child, then noise
    assert fr.parent.tolist()[1:] == [0, 1, 0] and pd.isna(fr.parent.iloc[0])
    assert fr["head"].to_dict() == {0: "main", 1: "supp", 3: "supp+noise", 2: "noise"}
    assert fr.seed.loc[3] == c.head.seed and pd.isna(fr.seed.loc[1])
    text = repr(view)
    assert text.splitlines()[0] == "#0 original  ← HEAD main"
    assert "├─ #1 test_blank_rare" in text and "│  └─ #3 add_noise" in text
    assert text.count("← HEAD") == 4
    html = view._repr_html_()
    assert html.count("<b class=\"sdc-up\">← HEAD") == 4 and "<pre" in html
    assert "<!-- #0 original  ← HEAD main" in html  # the text repr as a fallback


def test_tree_escapes_names(survey):
    s = make(survey)
    b = s.branch("<b>x</b>")
    html = tree(b).to_html()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    with pytest.raises(ParameterError):
        tree("s")


def test_steps_text_shows_every_telling_parameter():
    df = pd.DataFrame({"a": list("xy"), "x": [1.0, 2.0]})
    s = sdc.SdcSession(df, keys=["a"], numeric=["x"], seed=1)
    s.apply(AddNoise(["x"], noise=0.25, method="additive"))
    # no "…": empty values and flags left at their default False are what is left out
    assert steps_text(s.head) == ("add_noise(columns=x, method=additive, noise=0.25, block=20, "
                                  "warn_domain=True)")
    assert set(s.head.treatment.params()) >= {"columns", "method", "noise"}


# ------------------------------------------------------------------------------ estimates
def test_estimates_indicator_and_coefficient():
    rng = np.random.default_rng(5)
    n = 400
    sex = rng.choice(["f", "m"], n)
    x = rng.normal(size=n)
    y = 2.0 + 1.5 * (sex == "m") + 0.5 * x + rng.normal(scale=0.1, size=n)
    df = pd.DataFrame({"sex": sex, "x": x, "y": y, "w": rng.uniform(1, 3, n)})
    s = sdc.SdcSession(df, keys=["sex"], numeric=["y", "x"], weight="w", seed=1)
    e = estimates(s, indicator="mean:y", weight="w")
    want = float(np.average(y, weights=df.w))
    assert e.scenario.tolist() == ["original", "main"]
    assert e.estimate.tolist() == pytest.approx([want, want], rel=1e-12)
    assert (e.lower < e.estimate).all() and (e.estimate < e.upper).all()
    c = estimates(s, formula="y ~ C(sex) + x", term="C(sex)[T.m]", original=False)
    X = np.column_stack([np.ones(n), sex == "m", x]).astype(float)
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    assert c.estimate[0] == pytest.approx(beta[1], rel=1e-9)
    assert c.upper[0] - c.lower[0] < 0.1
    with pytest.raises(ParameterError):
        estimates(s, formula="y ~ x")
    with pytest.raises(ParameterError, match="term"):
        estimates(s, formula="y ~ x", term="nope")


def test_no_warning_on_normal_compare(scen):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare(*scen)


# ---------------------------------------------------------------- original, display (issue 20)
def test_frontier_never_contains_the_untreated_original(scen):
    s, a, b, c = scen
    t = compare(a, b, c, original=True)
    assert t.scenario[0] == "original" and t.expected_reidentifications[0] > 0
    f = frontier(t)
    assert "original" not in f.scenario.tolist() and len(f) >= 1
    # the untreated session itself (depth 0) is the original too
    assert "main" not in frontier(compare(s, a, b, c)).scenario.tolist()
    # a plain table without depth: the row named "original" is left out
    plain = pd.DataFrame({"scenario": ["original", "x"], "r": [9.0, 1.0], "l": [0.0, 0.5]})
    assert frontier(plain, risk="r", loss="l").scenario.tolist() == ["x"]


def test_comparison_display_formats_numbers_and_keeps_steps_whole(scen):
    s, a, b, c = scen
    t = compare(s, a, b, c)
    assert isinstance(t, pd.DataFrame)
    text, html = repr(t), t._repr_html_()
    for line in t.steps:  # the steps in full, in both displays
        assert line in text
    assert "..." not in text and "…" not in "".join(t.steps)
    row = text.splitlines()[1].split()
    k3 = int(t.k3_violations[0])
    assert row[0] == "main" and f"{k3:,}" in row and f"{k3}.0" not in text  # counts: integers
    assert f">{t.k3_violations[0]:,}<" in html and ".0<" not in html
    er = t.expected_reidentifications[1]
    assert f">{er:.4g}<" in html
    # anything derived from it is an ordinary DataFrame with pandas' display
    assert type(t[["scenario", "k3_violations"]]) is pd.DataFrame
    assert type(t.round(3)) is pd.DataFrame


def test_integers_are_shown_as_integers():
    df = pd.DataFrame({"k": list("aabbcd"), "j": list("xyxyxy")})
    s = sdc.SdcSession(df, keys=["k", "j"], seed=1).local_suppression(k=3)
    assert s.head.treatment.k == 3
    for shown in (repr(s), s._repr_html_(), repr(s.history), s.history._repr_html_(),
                  repr(s.tree()), steps_text(s.head)):
        assert "k=3" in shown and "k=3.0" not in shown and "3.0" not in shown
