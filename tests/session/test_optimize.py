"""The optimiser on a generated file with 6 keys and 3 numeric variables: under 3-anonymity and
two contracts (mean income by region within 2 %, a regression coefficient in its CI) every
frontier plan meets them; the least-loss plan is at least as good as the best plan of the 3×3×2
grid sweep over the same treatments, with at most as many evaluations; the same seed gives the
same frontier; bad input is a named error and HEAD does not move."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError

KEYS = ["region", "urbrur", "sex", "age5", "marstat", "educ"]
NUM = ["income", "expend", "savings"]


@pytest.fixture(scope="module")
def setup():
    df = sdc.datasets.synthetic_survey(300, seed=5)
    s = sdc.SdcSession(df, keys=KEYS, numeric=NUM, weight="w", seed=11)
    cats = list(df["age5"].cat.categories)
    pairs = {f"{a}|{b}": [a, b] for a, b in zip(cats[::2], cats[1::2])}
    if len(cats) % 2:
        pairs[cats[-1]] = [cats[-1]]
    quads = {"|".join(cats[i:i + 4]): cats[i:i + 4] for i in range(0, len(cats), 4)}
    plan = [("group_categories", [None, {"column": "age5", "groups": pairs},
                                  {"column": "age5", "groups": quads}]),
            ("add_noise", [None, {"columns": NUM, "noise": 0.01},
                           {"columns": NUM, "noise": 0.05}]),
            ("local_suppression", [{"k": 3, "importance": ["region", "sex", "urbrur", "educ",
                                                           "marstat", "age5"]},
                                   {"k": 3, "importance": ["region", "age5", "educ", "marstat",
                                                           "sex", "urbrur"]}])]
    keep = [sdc.contracts.estimate("mean:income", by="region", tolerance=0.02),
            sdc.contracts.coefficients("expend ~ income", terms="income")]
    return s, plan, keep


def test_frontier_meets_targets_and_beats_the_grid(setup) -> None:
    s, plan, keep = setup
    head = s.head
    opt = s.optimize(privacy=[("k_anonymity", 3)], keep=keep, treatments=plan, budget=18,
                     loss="lambda", seed=1)
    assert s.head is head and len(opt) >= 1
    assert opt.evaluations <= 18
    f = opt.frontier
    assert (f["target: 3-anonymity"] == 0).all()
    for c in keep:
        assert (f[f"contract: {c.name}"] >= 0).all()
    for i in range(len(opt)):  # each plan replays and meets the contracts on its own
        b = sdc.SdcSession.from_recipe(s.original, opt.recipe(i))
        assert b.risk.k_violations(3) == 0
        assert b.utility.check(keep)["passed"].all()
    # the grid sweep over the same treatments
    sw = s.sweep(plan, measures=["lambda", "k3_violations", *keep])
    t = sw.table
    ok = (t["k3_violations"] == 0) & (t[[f"contract: {c.name}" for c in keep]] >= 0).all(axis=1)
    assert len(t) == 18 and ok.any()
    assert f["lambda"].min() <= t.loc[ok, "lambda"].min()
    # same seed, same frontier bit for bit
    again = s.optimize(privacy=[("k_anonymity", 3)], keep=keep, treatments=plan, budget=18,
                       loss="lambda", seed=1)
    pd.testing.assert_frame_equal(again.frontier, opt.frontier)
    assert again.applications == 0  # every step of the first search is reused
    # with the default budget the 18 plans are all evaluated, and no more: the exact frontier
    full = s.optimize(privacy=[("k_anonymity", 3)], keep=keep, treatments=plan, loss="lambda",
                      seed=3)
    assert full.evaluations == 18
    assert full.frontier["lambda"].min() == t.loc[ok, "lambda"].min()
    # apply adds the plan as a branch
    br = opt.apply(0)
    assert br.head is opt._step(0) and s.head is head
    assert [t.type for t in (st.treatment for st in br.history[1:])] == [
        m for m, _ in opt.plan(0)]


def test_parallel_equals_serial(setup) -> None:
    s, plan, keep = setup
    a = s.optimize(privacy={"k_anonymity": 3}, keep=keep[:1], treatments=plan, budget=5, seed=2)
    b = s.optimize(privacy={"k_anonymity": 3}, keep=keep[:1], treatments=plan, budget=5, seed=2,
                   n_jobs=2)
    pd.testing.assert_frame_equal(a.table, b.table)


@pytest.mark.parametrize("kw, match", [
    ({"privacy": [("k_anonymty", 3)]}, "unknown target"),
    ({"privacy": [("k_anonymity", "3")]}, "k_anonymity"),
    ({"budget": 0}, "budget"),
    ({"keep": ["mean income"]}, "keep"),
    ({"keep": [sdc.contracts.estimate("mean:nope")]}, "nope"),
    ({"treatments": [("local_supression", [{"k": 3}])]}, "unknown method"),
    ({"loss": "no_such_measure"}, "not a registered measure"),
    ({"n_jobs": 0}, "n_jobs"),
])
def test_bad_input_is_named_and_head_stays(setup, kw, match) -> None:
    s, plan, keep = setup
    head, n = s.head, len(s.steps)
    args = {"privacy": [("k_anonymity", 3)], "treatments": plan, "budget": 3, **kw}
    with pytest.raises(sdc.SdcError, match=match):
        s.optimize(**args)
    assert s.head is head and len(s.steps) == n


def test_default_space_from_roles() -> None:
    df = sdc.datasets.synthetic_survey(120, seed=1)
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], numeric=["income"], seed=1)
    from sdcsession.session.optimize import default_space

    assert [m for m, _ in default_space(s)] == ["group_categories", "microaggregation",
                                                "add_noise", "local_suppression"]
    opt = s.optimize(privacy=["k_anonymity=2", ("max_risk", 0.5)], budget=6, seed=0)
    assert opt.evaluations <= 6
    assert (opt.frontier["target: 2-anonymity"] == 0).all()
    assert (opt.frontier["target: max risk <= 0.5"] <= 0.5).all()
    assert np.isfinite(opt.frontier["lambda"]).all()


def test_plot_and_html_show_the_frontier() -> None:
    import matplotlib

    matplotlib.use("Agg")
    df = sdc.datasets.synthetic_survey(100, seed=2)
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], seed=1)
    opt = s.optimize([("k_anonymity", 2)], treatments=[
        ("local_suppression", [{"k": 2}, {"k": 2, "importance": ["age5", "sex", "region"]}])],
        budget=2, loss="suppressions", seed=0)
    ax = opt.plot()
    names = [t.get_text() for t in ax.texts]
    assert [f"plan-{i}" for i in range(len(opt))] == sorted(n for n in names
                                                             if n.startswith("plan-"))
    html = opt._repr_html_()
    assert html.startswith("<p>Optimization: 2 plans evaluated") and "<table" in html
    with pytest.raises(ParameterError, match="position of the frontier"):
        opt.apply(len(opt))
    first, second = opt.apply(0), opt.apply(0)  # both alive: the second gets a suffix
    assert [first.name, second.name] == ["plan-0", "plan-0 (2)"]


def test_ctrl_c_returns_a_partial_result(monkeypatch) -> None:
    from sdcsession.errors import SdcWarning
    from sdcsession.session.optimize import evaluate

    df = sdc.datasets.synthetic_survey(100, seed=2)
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], seed=1)
    real = evaluate.Evaluator.run
    calls = []

    def run(self, plans, n_jobs=1):
        calls.append(plans)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, plans, n_jobs)

    monkeypatch.setattr(evaluate.Evaluator, "run", run)
    with pytest.warns(SdcWarning, match="interrupted"):
        opt = s.optimize([("k_anonymity", 2)], treatments=[
            ("local_suppression", [{"k": 2}, {"k": 3}, {"k": 4}])], budget=3, seed=0)
    assert opt.partial and opt.evaluations == 1
    assert opt.table["plan"].tolist() == [[0]] and len(opt) == 1
