"""Scenario sweeps (issue 22): `SdcSession.sweep` and `Sweep`.

Every scenario must equal the same steps applied by hand on a branch (bit for bit), the base
HEAD must not move, shared prefixes are applied once, parallel runs give the serial table, failed
steps are rows, and bad plans are refused before anything runs.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError, RecipeError, SdcError, SdcWarning
from sdcsession.present.compare import compare, frontier
from sdcsession.progress import add_listener, remove_listener
from sdcsession.session import sweep_run

DF = sdc.datasets.synthetic_survey(120, seed=4)
ROLES = dict(keys=["region", "sex", "age", "marstat"], numeric=["income", "expend"], weight="w",
             household="hid", pram=["water"])
MEASURES = ["expected_reidentifications", "k3_violations", "suppressions", "lambda"]
BREAKS = ([-1, 20, 40, 60, 120], [-1, 30, 60, 120], [-1, 15, 30, 45, 60, 75, 120])
PLAN_2x2 = [("global_recode", [{"column": "age", "breaks": list(b)} for b in BREAKS[:2]]),
            ("local_suppression", [{"k": 2}, {"k": 3}])]


def session(**kw) -> sdc.SdcSession:
    return sdc.SdcSession(DF, **ROLES, seed=17, **kw)


@pytest.fixture(scope="module")
def base() -> sdc.SdcSession:
    s = session()
    s.recode("marstat", {"widowed": "married"})  # the sweep starts from a HEAD with a step
    return s


@pytest.fixture(scope="module")
def sw(base):
    return base.sweep(PLAN_2x2, measures=MEASURES)


def by_hand(s: sdc.SdcSession, name: str, *calls) -> sdc.SdcSession:
    b = s.branch(name)
    for method, kw in calls:
        if kw is not None:
            getattr(b, method)(**kw)
    return b


# ------------------------------------------------------------------------------ the 2 x 2 grid
def test_four_rows_in_product_order_with_parameter_and_measure_columns(sw):
    t = sw.table
    assert len(t) == 4 and len(sw.sessions) == 4 and len(sw) == 4
    assert list(t.columns) == ["scenario", "global_recode.column", "global_recode.breaks",
                               "local_suppression.k", *MEASURES, "frontier", "error"]
    assert t["scenario"].tolist() == ["sweep-1", "sweep-2", "sweep-3", "sweep-4"]
    assert t["local_suppression.k"].tolist() == [2, 3, 2, 3]
    assert t["global_recode.breaks"].tolist() == [list(BREAKS[0])] * 2 + [list(BREAKS[1])] * 2
    assert t["error"].isna().all() and t["frontier"].dtype == bool
    assert [s.name for s in sw.sessions] == t["scenario"].tolist()
    assert t["k3_violations"].tolist()[1::2] == [0, 0]  # k = 3 reached


def test_every_scenario_equals_the_steps_applied_by_hand(base, sw):
    for i, (gr, ls) in enumerate([(g, k) for g in PLAN_2x2[0][1] for k in PLAN_2x2[1][1]]):
        hand = by_hand(base, f"hand-{i}", ("global_recode", gr), ("local_suppression", ls))
        pd.testing.assert_frame_equal(sw.sessions[i].data, hand.data)
        assert [st.seed for st in sw.sessions[i].history] == [st.seed for st in hand.history]
        assert sw.table.loc[i, "expected_reidentifications"] == \
            hand.risk.expected_reidentifications


def test_base_head_is_unchanged_and_scenarios_are_branches(base, sw):
    assert base.head.depth == 1 and base.head.treatment.type == "recode"
    assert len(base.history) == 2
    for s in sw.sessions:
        assert s._tree is base._tree
        assert s.history[1] is base.head  # they share the base's steps
    # shared prefix: the two scenarios of one recoding have the same parent step
    assert sw.sessions[0].head.parent is sw.sessions[1].head.parent
    assert sw.applications == 2 + 4


def test_measures_are_those_of_compare(sw):
    c = compare(*sw.sessions, measures=MEASURES)
    pd.testing.assert_frame_equal(sw.table[MEASURES], c[MEASURES])
    f = frontier(c, loss="lambda")
    assert sw.table.index[sw.table["frontier"]].tolist() == sorted(f.index.tolist())


def test_default_measures_are_the_columns_of_compare():
    s = sdc.SdcSession(DF, keys=["region", "sex", "age5"], numeric=["income"], seed=2)
    sw = s.sweep([("local_suppression", [{"k": 2}, {"k": 3}])])
    c = compare(*sw.sessions)
    measures = list(c.columns[4:])
    assert "gdu" in measures and "lambda" in measures
    assert list(sw.table.columns) == ["scenario", "local_suppression.k", *measures, "frontier",
                                      "error"]
    pd.testing.assert_frame_equal(sw.table[measures], c[measures])


def test_best_is_the_least_loss_among_qualifying(sw):
    t = sw.table
    r = t["expected_reidentifications"].to_numpy()
    target = float(np.sort(r)[2])  # three scenarios qualify
    ok = t[t["expected_reidentifications"] <= target]
    expect = ok["lambda"].idxmin()
    assert sw.best(max_risk=target) is sw.sessions[expect]
    assert sw.best(target, loss="suppressions") is sw.sessions[ok["suppressions"].idxmin()]
    # the least-risk scenario only
    assert sw.best(float(r.min())) is sw.sessions[int(np.argmin(r))]


def test_best_ties_go_to_the_first_in_product_order():
    s = session()
    sw = s.sweep([("local_suppression", [{"k": 3}, {"k": 3}])], measures=MEASURES)
    assert sw.table["lambda"].nunique() == 1
    assert sw.best(1e9) is sw.sessions[0]


def test_best_refuses_a_target_below_every_scenario(sw):
    least = sw.table["expected_reidentifications"].min()
    with pytest.raises(ParameterError, match=r"max_risk=.*the least reached is .*scenario"):
        sw.best(max_risk=least / 2)
    with pytest.raises(ParameterError, match="risk: 'nope' is not a measure"):
        sw.best(1.0, risk="nope")
    with pytest.raises(ParameterError, match="max_risk: expected a number"):
        sw.best("5")


# ------------------------------------------------------------------ shared prefixes, skipping
def test_three_recodings_by_four_k_apply_fifteen_treatments():
    s = session()
    plan = [("global_recode", [{"column": "age", "breaks": list(b)} for b in BREAKS]),
            ("local_suppression", [{"k": k} for k in (2, 3, 4, 5)])]
    n_steps = len(s.steps)
    sw = s.sweep(plan, measures=["k3_violations"])
    assert len(sw) == 12 and sw.applications == 15
    assert len(s.steps) == n_steps + 15  # the tree grew by exactly the applications
    assert len({x.head.parent.id for x in sw.sessions}) == 3


def test_none_skips_a_step(base):
    plan = [("pram", [None, {"columns": "water", "pd": 0.7}]),
            ("local_suppression", [{"k": 2}])]
    sw = base.sweep(plan, measures=MEASURES, name="skip")
    assert sw.applications == 1 + 2
    assert sw.table["pram.columns"].tolist() == [None, "water"]
    assert pd.isna(sw.table["pram.pd"].iloc[0]) and sw.table["pram.pd"].iloc[1] == 0.7
    pd.testing.assert_frame_equal(sw.sessions[0].data, by_hand(
        base, "h-skip", ("local_suppression", {"k": 2})).data)
    pd.testing.assert_frame_equal(sw.sessions[1].data, by_hand(
        base, "h-pram", ("pram", {"columns": "water", "pd": 0.7}),
        ("local_suppression", {"k": 2})).data)
    assert base.sweep([("pram", None)], measures=MEASURES, name="none").applications == 0


def test_a_repeated_method_gets_its_own_columns_and_defaults_fill_in():
    s = session()
    sw = s.sweep([("local_suppression", [{"k": 2}, {"k": 2, "importance": ["sex"]}]),
                  ("local_suppression", [{"k": 3}])], measures=["k3_violations"])
    assert list(sw.table.columns[1:4]) == ["local_suppression.k", "local_suppression.importance",
                                           "local_suppression#2.k"]
    assert sw.table["local_suppression.importance"].tolist() == [None, ["sex"]]


# --------------------------------------------------------------------------------- parallel
def test_two_jobs_give_the_serial_table_and_real_branches(base, sw):
    par = base.sweep(PLAN_2x2, measures=MEASURES, n_jobs=2, name="par")
    assert par.backend == "processes"
    pd.testing.assert_frame_equal(par.table.drop(columns="scenario"),
                                  sw.table.drop(columns="scenario"))
    assert par.applications == sw.applications and par.replays == 2 * 1
    for a, b in zip(par.sessions, sw.sessions):
        assert a._tree is base._tree and a.history[1] is base.head
        pd.testing.assert_frame_equal(a.data, b.data)
        assert [st.seed for st in a.history] == [st.seed for st in b.history]
        # measures were computed in the workers and are cached on the rebuilt states
        assert a.state.is_cached("expected_reidentifications")
    # the rebuilt steps share the columns they did not change with their parents
    st = par.sessions[0].head
    assert np.shares_memory(st.state.data["income"].to_numpy(),
                            st.parent.state.data["income"].to_numpy())


def test_the_same_sweep_twice_gives_equal_tables(base, sw):
    again = base.sweep(PLAN_2x2, measures=MEASURES, n_jobs=2)
    pd.testing.assert_frame_equal(again.table, sw.table)
    assert again.sessions[0].name == "sweep-1 (2)"  # the first sweep's branches are alive


def test_parallel_counts_shared_prefixes_once_and_runs_a_single_trunk_here():
    s = session()
    plan = [("global_recode", [{"column": "age", "breaks": list(BREAKS[0])}]),  # trunk
            ("local_suppression", [{"k": 2}, {"k": 3}]),
            ("pram", [None, {"columns": "water"}])]
    serial = s.sweep(plan, measures=MEASURES, name="a")
    par = s.sweep(plan, measures=MEASURES, n_jobs=2, name="b")
    assert serial.applications == par.applications == 1 + 2 + 2
    assert par.replays == 2  # each worker replayed the one trunk step
    pd.testing.assert_frame_equal(par.table.drop(columns="scenario"),
                                  serial.table.drop(columns="scenario"))


def test_a_failing_worker_is_rerun_here(monkeypatch):
    s = session()

    def broken(payload, original=None):
        raise RuntimeError("worker lost")

    monkeypatch.setattr(sweep_run, "run_task", broken)
    with pytest.warns(SdcWarning, match="worker failed"):
        par = s.sweep(PLAN_2x2, measures=MEASURES, n_jobs=2, name="p")
    serial = s.sweep(PLAN_2x2, measures=MEASURES, name="q")
    pd.testing.assert_frame_equal(par.table.drop(columns="scenario"),
                                  serial.table.drop(columns="scenario"))


def test_dask_client_runs_on_the_cluster():
    distributed = pytest.importorskip("distributed")
    s = session()
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2,
                            dashboard_address=None):
        par = s.sweep(PLAN_2x2, measures=MEASURES, n_jobs=2, name="dask")
    assert par.backend == "dask"
    serial = s.sweep(PLAN_2x2, measures=MEASURES, name="ser")
    pd.testing.assert_frame_equal(par.table.drop(columns="scenario"),
                                  serial.table.drop(columns="scenario"))


# ------------------------------------------------------------------- failures, interruption
def test_a_failed_step_is_a_row_with_the_error_and_nan_measures():
    s = session()
    plan = [("remove", [None, {"columns": "age"}]),
            ("global_recode", [{"column": "age", "breaks": list(BREAKS[1])}])]
    for n_jobs in (1, 2):
        sw = s.sweep(plan, measures=MEASURES, n_jobs=n_jobs, name=f"f{n_jobs}")
        assert sw.backend == ("serial" if n_jobs == 1 else "processes")
        t = sw.table
        assert t["error"].isna().tolist() == [True, False]
        assert "global_recode" in t["error"].iloc[1] and "age" in t["error"].iloc[1]
        assert t.loc[1, MEASURES].isna().all() and t.loc[0, MEASURES].notna().all()
        assert sw.sessions[1] is None and sw.sessions[0] is not None
        assert not t["frontier"].iloc[1]
        assert sw.best(1e9) is sw.sessions[0]


def test_ctrl_c_keeps_the_finished_scenarios():
    s = session()

    def stop(desc, n, total):
        if desc.startswith("sweep") and n == 2:
            raise KeyboardInterrupt

    add_listener(stop)
    try:
        with pytest.warns(SdcWarning, match="interrupted; 2 of 4"):
            sw = s.sweep(PLAN_2x2, measures=MEASURES)
    finally:
        remove_listener(stop)
    assert sw.partial
    assert [x is not None for x in sw.sessions] == [True, True, False, False]
    assert sw.table["error"].isna().tolist() == [True, True, False, False]
    assert s.head.depth == 0


# ------------------------------------------------------------------------------- recipes
def test_recipes_replay_each_scenario_and_the_whole_sweep(sw, tmp_path):
    for x in sw.sessions:
        again = sdc.SdcSession.from_recipe(DF, x.to_recipe())
        pd.testing.assert_frame_equal(again.data, x.data)
    recipe = json.loads(json.dumps(sw.to_recipe()))
    assert recipe["format"] == "sdcsession-sweep" and len(recipe["plan"]) == 2
    replay = sdc.Sweep.from_recipe(DF, recipe)
    pd.testing.assert_frame_equal(replay.table, sw.table)
    for a, b in zip(replay.sessions, sw.sessions):
        pd.testing.assert_frame_equal(a.data, b.data)
    path = sw.save_recipe(tmp_path / "sweep.json")
    pd.testing.assert_frame_equal(sdc.Sweep.from_recipe(DF, path, n_jobs=2).table, sw.table)


def test_a_typed_plan_round_trips():
    s = session()
    plan = [("recode", [{"column": "marstat", "mapping": {"widowed": None}}]),
            ("round_values", [{"columns": "income", "base": 1000}])]
    sw = s.sweep(plan, measures=["suppressions"])
    replay = sdc.Sweep.from_recipe(DF, json.loads(json.dumps(sw.to_recipe())))
    pd.testing.assert_frame_equal(replay.sessions[0].data, sw.sessions[0].data)


def test_bad_sweep_recipes_are_recipe_errors(sw):
    good = sw.to_recipe()
    for bad in ({**good, "format": "x"}, {k: v for k, v in good.items() if k != "plan"},
                {**good, "plan": [["local_suppression", {"k": 3}]]}, [1, 2],
                {**good, "measures": "lambda"}):
        with pytest.raises(RecipeError):
            sdc.Sweep.from_recipe(DF, bad)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("plan, match", [
    ([], "empty"),
    ("global_recode", "expected a list"),
    ({"local_suppression": [{"k": 3}]}, "expected a list"),
    ([("local_supression", [{"k": 3}])],
     r"unknown method 'local_supression'; the treatment methods are \[.*'local_suppression'"),
    ([("local_suppression", {"k": 3})], "alternatives must be a list"),
    ([("local_suppression", [])], "no alternatives"),
    ([("local_suppression", [3])], "alternative 1: expected a dict"),
    ([("local_suppression", [{"kk": 3}])],
     r"local_suppression takes no parameter\(s\) \['kk'\]; its parameters are \['k', "
     r"'importance'"),
    ([("global_recode", [{"breaks": [0, 5]}])], "missing a required argument: 'column'"),
    ([("local_suppression", [{"k": 0}])], r"step 1 \(local_suppression\), alternative 1: k"),
    ([("local_suppression",)], "expected a pair"),
])
def test_bad_plans_are_refused_before_anything_runs(plan, match):
    s = session()
    n = len(s.steps)
    with pytest.raises(ParameterError, match=match):
        s.sweep(plan)
    assert len(s.steps) == n and s.head.depth == 0


@pytest.mark.parametrize("kw, match", [
    ({"n_jobs": 0}, "n_jobs"), ({"n_jobs": True}, "n_jobs"), ({"n_jobs": 1.5}, "n_jobs"),
    ({"name": ""}, "name"), ({"name": 3}, "name"),
    ({"measures": ["nope"]}, "measures: 'nope' is not a registered measure"),
])
def test_bad_options_are_refused(kw, match):
    s = session()
    with pytest.raises(ParameterError, match=match):
        s.sweep(PLAN_2x2, **kw)
    assert len(s.steps) == 1


def test_too_many_scenarios_are_refused():
    s = session()
    plan = [("local_suppression", [{"k": k} for k in range(2, 102)])] * 3
    with pytest.raises(SdcError, match="1000000 scenarios"):
        s.sweep(plan)


# ---------------------------------------------------------------------------------- plot
def test_plot_marks_the_best_scenario_and_the_frontier(sw):
    import matplotlib

    matplotlib.use("Agg")
    target = float(sw.table["expected_reidentifications"].max())
    ax = sw.plot(max_risk=target)
    best = sw.best(target).name
    assert f"best: {best}" in [t.get_text() for t in ax.texts]
    assert "frontier" in [t.get_text() for t in ax.get_legend().get_texts()] or \
        sw.table["frontier"].sum() < 2
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        sw.plot(max_risk=-1.0)
    assert any("no best scenario" in str(w.message) for w in seen)
    import matplotlib.pyplot as plt

    plt.close("all")


# ------------------------------------------------------------------------- generated garbage
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

GARBAGE = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([10**30, -1.5, float("nan")]),
    st.text(max_size=4), st.sampled_from(["age", "nope", "local_suppression", ""]),
    st.lists(st.integers(-2, 2), max_size=3), st.dictionaries(st.text(max_size=3),
                                                              st.integers(), max_size=2),
    st.sampled_from([object(), print, np.array([1, 2]), pd.DataFrame({"a": [1]}), (1,), {1: 2},
                     [{"k": 3}], [None], {"k": 3}, ("pram", None)]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.sampled_from(["plan", "step", "method", "alternatives", "alternative", "k",
                              "importance", "measures", "n_jobs", "name"]), value=GARBAGE)
def test_garbage_is_an_sdc_error_or_a_sweep_and_never_moves_head(where, value):
    s = session()
    plan = [["local_suppression", [{"k": 2}]]]
    kw: dict = {"measures": ["k3_violations"]}
    if where == "plan":
        plan = value
    elif where == "step":
        plan = [value]
    elif where == "method":
        plan[0][0] = value
    elif where == "alternatives":
        plan[0][1] = value
    elif where == "alternative":
        plan[0][1] = [value]
    elif where in ("k", "importance"):
        plan[0][1] = [{"k": 2, where: value}]
    else:
        kw[where] = value
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sw = s.sweep(plan, **kw)
    except SdcError:
        assert s.head.depth == 0 and len(s.steps) == 1
        return
    assert s.head.depth == 0
    assert len(sw.table) == len(sw.sessions) >= 1


def test_sweep_shows_as_a_table_in_a_notebook():
    df = sdc.datasets.synthetic_survey(200, seed=2)
    s = sdc.SdcSession(df, keys=["region", "sex", "age5"], seed=3)
    sw = s.sweep([("local_suppression", [{"k": 2}, {"k": 3}])])
    html = sw._repr_html_()
    assert html.startswith("<p>Sweep ") and html.count("<tr>") == 1 + len(sw.table)
    assert "local suppression.k" in html and "frontier" in html
