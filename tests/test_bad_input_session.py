"""Generated bad input against the session and its treatment methods.

Every treatment method of `SdcSession` (found by introspection, so a new method without a
template below fails `test_every_treatment_method_has_a_template`) is called on a small session
with one or two of its parameters replaced by generated garbage: None, bools, numbers as text,
huge integers, negative and zero values, NaN, infinities, lists, nested lists, dicts, sets,
unknown and duplicated column names, columns of the wrong role, odd objects. Each call must
either succeed (the value happened to be valid) or raise an `SdcError`; on an error HEAD is the
same step, the session's data are unchanged and the caller's DataFrame is untouched. Any other
exception type fails the test.

The session-level entry points (constructor, branch, undo, redo, checkout, apply) get the same
treatment, and the scenario tree keeps unique step ids when branches are used from several
threads.
"""

from __future__ import annotations

import inspect
import sys
import threading
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import (
    HistoryError,
    ParameterError,
    RoleError,
    SdcError,
    TreatmentError,
)
from sdcsession.methods import LocalSuppression, Recode
from sdcsession.session.treatment_methods import TreatmentMethods

DF = sdc.datasets.synthetic_survey(60, seed=3)
PRISTINE = DF.copy(deep=True)
ROLES: dict[str, Any] = dict(
    keys=["region", "sex", "age5", "urbrur"], numeric=["income", "expend", "savings", "age"],
    weight="w", household="hid", pram=["water"], sensitive=["health"])

#: a valid call of every treatment method (the generated values replace some of these)
TEMPLATES: dict[str, dict[str, Any]] = {
    "recode": {"column": "region", "mapping": {"R01": "R02"}},
    "remove": {"columns": "tenure"},
    "global_recode": {"column": "age", "breaks": [-1, 30, 60, 120]},
    "group_categories": {"column": "region", "groups": {"north": ["R01", "R02"]}},
    "top_bottom_code": {"column": "income", "value": 50_000.0, "replacement": 50_000.0},
    "round_values": {"columns": "income", "base": 100},
    "local_suppression": {"k": 3},
    "suppress_by_risk": {"threshold": 0.15},
    "pram": {"columns": "water", "pd": 0.8, "alpha": 0.5},
    "add_noise": {"columns": "income", "noise": 0.15},
    "microaggregation": {"columns": ["income", "expend"], "k": 3},
    "rank_swap": {"columns": "income", "p": 5},
    "shuffle": {"columns": "income", "by": ["expend"]},
    "mv_top_code": {"columns": ["income", "expend"], "alpha": 0.025},
    "microaggregation_gower": {"columns": ["sex", "income"], "k": 3},
    "local_recode": {"columns": ["sex", "age5"], "k": 2},
    "new_ids": {"column": "hid"},
    "generalize": {"hierarchies": {"sex": sdc.Hierarchy.from_nested({"*": ["m", "f"]})},
                   "privacy": [sdc.privacy.KAnonymity(2)], "max_suppression": 0.1},
}
TEMPLATES["add_record_keys"] = {"name": "rk", "kind": "integer", "modulus": 256}
TEMPLATES["perturb_weights"] = {"noise": 0.1}
TEMPLATES["record_swap"] = {"hierarchy": ["region"], "similar": ["hhsize"], "swaprate": 0.1,
                            "risk_variables": ["sex", "age5"]}


def treatment_methods() -> list[str]:
    """The public treatment methods of a session (the mixin's methods plus recode and remove)."""
    mixins = [c for c in sdc.SdcSession.__mro__
              if c.__name__.endswith("Methods") and c.__module__.startswith("sdcsession.session")]
    assert TreatmentMethods in mixins
    names = [n for c in mixins for n, f in vars(c).items()
             if callable(f) and not n.startswith("_") and n != "apply"]
    return sorted({*names, "recode", "remove"})


def parameters(method: str) -> list[str]:
    sig = inspect.signature(getattr(sdc.SdcSession, method))
    return [p for p in sig.parameters if p != "self"]


def session() -> sdc.SdcSession:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sdc.SdcSession(DF, **ROLES, seed=11)


# ----------------------------------------------------------------------------- bad values
COLUMNS = list(DF.columns)
names = st.one_of(
    st.sampled_from(["nope", "", " ", "Region", "income ", "w", "hid", "health", "water"]),
    st.sampled_from(COLUMNS),
    st.lists(st.sampled_from([*COLUMNS, "nope", ""]), max_size=4),
    st.sampled_from(COLUMNS).map(lambda c: [c, c]),  # duplicated names
    st.lists(st.one_of(st.sampled_from(COLUMNS), st.integers(), st.none()), min_size=1,
             max_size=3),
    st.sampled_from(COLUMNS).map(lambda c: [[c]]),  # nested
    st.sampled_from(COLUMNS).map(lambda c: {c: 1}),
)
numbers = st.one_of(
    st.sampled_from([0, -1, 1, 2, -10**30, 10**30, 10**400, -10**400, 2**63, 2**64 + 1]),
    st.integers(-10, 10),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-320, 1e308]),
    st.sampled_from([np.int64(-1), np.int64(2**62), np.float64("nan"), np.float32("inf"),
                     np.bool_(True), np.uint8(0)]),
    st.complex_numbers(max_magnitude=10),
)
text = st.one_of(
    st.sampled_from(["3", "0.8", "1e400", "nan", "inf", "-1", "yes", "no", "True", "", "top"]),
    st.text(max_size=6),
    st.binary(max_size=4),
)
structures = st.one_of(
    st.lists(st.integers(-3, 3), max_size=4),
    st.lists(st.lists(st.integers(0, 3), max_size=2), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(-2, 2), max_size=3),
    st.dictionaries(st.sampled_from(["R01", "R02", "x"]),
                    st.one_of(st.lists(st.integers(), max_size=2),
                              st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
                              st.sets(st.integers(), max_size=2), st.none()),
                    max_size=2),
    st.dictionaries(st.sampled_from(["R01", "R02", "x"]),
                    st.one_of(st.lists(st.sampled_from(["R01", "R03", "zz"]), max_size=3),
                              st.lists(st.lists(st.sampled_from(["R01", "R03"]), max_size=2),
                                       max_size=2)),
                    max_size=2),
    st.sets(st.integers(), max_size=3),
    st.tuples(st.integers(), st.text(max_size=2)),
    st.just({}), st.just([]), st.just(()),
    st.just(range(10**9)), st.just(range(10**30)),
)
odd = st.sampled_from([None, True, False, object(), print, type, Ellipsis, np.array([1, 2]),
                       pd.Series([1.0, 2.0]), pd.DataFrame({"a": [1]}), slice(1, 2)])
BAD = st.one_of(names, numbers, text, structures, odd)


def same_frame(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Equal values, dtypes, columns and index (``DataFrame.equals``: fast, NaN equals NaN)."""
    assert list(a.columns) == list(b.columns) and a.index.equals(b.index)
    assert a.equals(b), "the data changed"


def call(s: sdc.SdcSession, method: str, kwargs: dict[str, Any]) -> SdcError | None:
    """Call ``method``; return the SdcError it raised (None on success). Any other exception
    propagates and fails the test; on an SdcError HEAD and data must be unchanged."""
    head, before = s.head, s.data
    n_steps = len(s.steps)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(s, method)(**kwargs)
    except SdcError as e:
        assert s.head is head, f"{method}: HEAD moved on {type(e).__name__}: {e}"
        assert len(s.steps) == n_steps, f"{method}: a step was added although it failed"
        same_frame(s.data, before)
        return e
    return None


# ----------------------------------------------------------------------------- tests
def test_every_treatment_method_has_a_template():
    assert sorted(TEMPLATES) == treatment_methods()
    for m, kw in TEMPLATES.items():
        assert set(kw) <= set(parameters(m)), m


@pytest.mark.parametrize("method", sorted(TEMPLATES))
def test_templates_are_valid(method):
    s = session()
    assert call(s, method, TEMPLATES[method]) is None
    assert s.head.treatment is not None


@pytest.mark.parametrize("method", sorted(TEMPLATES))
@settings(max_examples=220, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_bad_parameters_raise_sdc_error(method, data):
    params = parameters(method)
    chosen = data.draw(st.lists(st.sampled_from(params), min_size=1, max_size=2, unique=True),
                       label="parameters")
    kwargs = dict(TEMPLATES[method])
    for p in chosen:
        kwargs[p] = data.draw(BAD, label=p)
    s = session()
    err = call(s, method, kwargs)
    if err is not None:
        msg = str(err)
        assert msg.strip(), f"{method}{kwargs}: empty error message"
        assert "Traceback" not in msg
    same_frame(DF, PRISTINE)


CASES = [  # the cases of issue 16 section 3: each one refused with a named error
    ("local_suppression", {"k": 10**30}, TreatmentError, "larger than the number of records"),
    ("local_suppression", {"k": len(DF) + 1}, TreatmentError,
     "larger than the number of records"),
    ("local_suppression", {"k": "3"}, ParameterError, "k: .*text"),
    ("local_suppression", {"weighted": "no"}, ParameterError, "weighted: expected True or False"),
    ("local_suppression", {"household": 1}, ParameterError, "household: expected True or False"),
    ("local_suppression", {"k": True}, ParameterError, "k: "),
    ("recode", {"column": "region", "mapping": "a"}, ParameterError, "mapping: expected"),
    ("recode", {"column": "region", "mapping": None}, ParameterError, "mapping: expected"),
    ("recode", {"column": "region", "mapping": {"R01": [1, 2]}}, ParameterError,
     r"mapping\['R01'\]: expected a category label"),
    ("recode", {"column": "region", "mapping": {"R01": {"a": 1}}}, ParameterError,
     "category label|single value"),
    ("recode", {"column": "region", "mapping": range(10**9)}, ParameterError, "mapping"),
    ("global_recode", {"column": "age", "breaks": [0, 50, 120], "labels": 5}, ParameterError,
     "labels: expected a list"),
    ("global_recode", {"column": "age", "method": "equidistant", "n": 10**9}, ParameterError,
     "n: expected (an integer in|a number of intervals)"),
    ("global_recode", {"column": "age", "breaks": range(10**9)}, ParameterError, "breaks: "),
    ("global_recode", {"column": "age", "breaks": [0, 10**400]}, ParameterError, "breaks: "),
    ("group_categories", {"column": "region", "groups": {"x": [["R01", "R02"]]}},
     ParameterError, "category label|single value"),
    ("group_categories", {"column": "region", "groups": {"x": ["R01", "ZZZ"]}}, TreatmentError,
     r"\['ZZZ'\] is not a category of column 'region'"),
    ("group_categories", {"column": "region", "groups": {"x": range(10**9)}}, ParameterError,
     "at most"),
    ("round_values", {"columns": "income", "digits": 10**30}, ParameterError, "digits: "),
    ("round_values", {"columns": "income", "base": float("inf")}, ParameterError, "base: "),
    ("round_values", {"columns": ["income", "income"], "base": 10}, ParameterError,
     "more than once"),
    ("pram", {"columns": "water", "pd": "0.8"}, ParameterError, "pd: .*text"),
    ("pram", {"columns": "water", "invariant": "yes"}, ParameterError, "invariant: "),
    ("pram", {"columns": ["water", "water"]}, ParameterError, "named more than once"),
    ("pram", {"columns": "water", "alpha": 10**400}, ParameterError, "alpha: "),
    ("add_noise", {"columns": "income", "noise": 10**30}, ParameterError, "noise"),
    ("top_bottom_code", {"column": "income", "value": 10**400, "replacement": 1},
     ParameterError, "value: "),
    ("suppress_by_risk", {"threshold": "0.1"}, ParameterError, "threshold: "),
    ("rank_swap", {"columns": "income", "p": float("nan")}, ParameterError, "p "),
    ("microaggregation", {"columns": "income", "strata": ["sex", "sex"]}, ParameterError,
     "named more than once"),
    ("shuffle", {"columns": "income", "by": ["expend", "expend"]}, ParameterError,
     "named more than once"),
]


@pytest.mark.parametrize(("method", "kwargs", "error", "match"), CASES)
def test_issue_cases_are_refused_by_name(method, kwargs, error, match):
    s = session()
    head = s.head
    with pytest.raises(error, match=match):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(s, method)(**kwargs)
    assert s.head is head
    same_frame(DF, PRISTINE)


def test_k_equal_to_the_number_of_records_is_allowed():
    s = session()
    s.local_suppression(k=len(DF), importance=None)
    assert s.head.notes["violations_after"] == 0
    with pytest.raises(TreatmentError, match="larger than the total weight"):
        s.undo().local_suppression(k=float(DF["w"].sum()) * 1.01, weighted=True)


def test_the_pure_kernel_refuses_k_above_n_too():
    from sdcsession.methods.suppression import local_suppression

    with pytest.raises(TreatmentError, match="larger than the number of records"):
        local_suppression(DF, ["region", "sex"], k=len(DF) + 1)


# ------------------------------------------------------------------ session-level entry points
history_ops = st.sampled_from(["undo", "redo", "checkout", "branch", "apply"])


@settings(max_examples=350, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(op=history_ops, value=BAD, seed=st.one_of(st.none(), BAD))
def test_bad_history_calls_raise_sdc_error(op, value, seed):
    s = session().recode("region", {"R01": "R02"})
    head, before, n_steps = s.head, s.data, len(s.steps)
    try:
        if op == "apply":
            out = s.apply(value) if seed is None else s.apply(Recode("sex", {"m": "x"}),
                                                              seed=seed)
        else:
            out = getattr(s, op)(value)
    except SdcError:
        assert s.head is head and len(s.steps) == n_steps
        same_frame(s.data, before)
        return
    # accepted: only values that are legitimately valid get here
    if op == "branch":
        assert isinstance(value, str) and value.strip() and out.head is head
    elif op == "apply":
        assert isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_))
    else:
        assert isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(call_=st.sampled_from(["release_check.k", "release_check.risk_threshold",
                              "save_recipe.path", "export.path", "export.protect",
                              "export.force", "export.overwrite", "export.k"]),
       value=BAD)
def test_bad_release_and_recipe_arguments_raise_sdc_error(call_, value, tmp_path_factory):
    method, param = call_.split(".")
    if param == "path" and isinstance(value, str):
        value = None  # never write files named by generated text
    s = session()
    kw: dict[str, Any] = {param: value}
    if method == "export" and param != "path":
        kw["path"] = tmp_path_factory.mktemp("x") / "out.csv"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(s, method)(**kw)
    except SdcError:
        pass
    else:  # only legitimately valid values get here
        assert param != "path"
    assert s.head.depth == 0


def test_named_history_refusals():
    s = session()
    with pytest.raises(ParameterError, match="name: expected a non-empty string"):
        s.branch(5)
    with pytest.raises(ParameterError, match="name: expected a non-empty string"):
        s.branch("")
    with pytest.raises(ParameterError, match="n: expected an integer"):
        s.undo("1")
    with pytest.raises(HistoryError, match="step"):
        s.checkout("x")
    with pytest.raises(ParameterError, match="apply: expected a Treatment"):
        s.apply(5)
    with pytest.raises(ParameterError, match="seed: "):
        s.apply(LocalSuppression(k=3), seed=10**30)


# ------------------------------------------------------------------------- the constructor
def _frames() -> st.SearchStrategy[pd.DataFrame]:
    base = DF[["region", "sex", "age5", "income", "w", "hid"]]

    def dup(_: Any) -> pd.DataFrame:
        d = base.copy()
        d.columns = ["region", "sex", "region", "income", "w", "hid"]
        return d

    def multi(level: int) -> pd.DataFrame:
        d = base.copy()
        d.columns = pd.MultiIndex.from_tuples(
            [(c, "") if level == 0 else ("x", c) for c in base.columns])
        return d

    def cells(arg: tuple[str, Any, int]) -> pd.DataFrame:
        col, v, i = arg
        d = base.copy()
        d[col] = d[col].astype(object)
        d[col] = [v if j % (i + 1) == 0 else d[col].iloc[j] for j in range(len(d))]
        return d

    unhashable = st.one_of(st.lists(st.integers(), max_size=2),
                           st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
                           st.sets(st.integers(), max_size=2))
    return st.one_of(
        st.just(None).map(dup),
        st.sampled_from([0, 1]).map(multi),
        st.tuples(st.sampled_from(["region", "sex", "hid"]), unhashable,
                  st.integers(0, 50)).map(cells),
        st.just(base.iloc[:0]),
    )


@settings(max_examples=150, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(frame=_frames())
def test_bad_frames_raise_role_error(frame):
    copy = frame.copy(deep=True)
    with pytest.raises(RoleError):
        sdc.SdcSession(frame, keys=["region", "sex"], household="hid", weight="w")
    same_frame(frame, copy)


ROLE_ARGS = ["keys", "numeric", "weight", "household", "strata", "sensitive", "pram",
             "identifiers", "linked", "alpha", "k", "seed", "name"]


@settings(max_examples=400, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(arg=st.sampled_from(ROLE_ARGS), value=BAD)
def test_bad_constructor_arguments_raise_sdc_error(arg, value):
    kw = {**ROLES, arg: value}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = sdc.SdcSession(DF, **kw, **({} if arg == "seed" else {"seed": 1}))
    except SdcError:
        pass
    else:
        assert s.head.depth == 0
    same_frame(DF, PRISTINE)


# --------------------------------------------------------------------------------- threads
@pytest.fixture
def fast_switching():
    """Make the interpreter switch threads very often, so that races show up."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def test_tree_add_is_thread_safe(fast_switching):
    tree = session()._tree
    root = tree.root
    n_threads, per_thread = 8, 3000
    start = threading.Barrier(n_threads)

    def work() -> None:
        start.wait()
        for _ in range(per_thread):
            tree.add(root.state, root, None, None, 0.0, {})

    threads = [threading.Thread(target=work) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [st_.id for st_ in tree]
    assert len(ids) == 1 + n_threads * per_thread == len(set(ids))
    assert ids == list(range(len(ids)))
    assert len(root.children) == n_threads * per_thread


def test_step_ids_stay_unique_across_threads(fast_switching):
    root = session()
    n_threads, per_thread = 8, 25
    branches = [root.branch(f"t{i}") for i in range(n_threads)]
    start = threading.Barrier(n_threads)
    errors: list[BaseException] = []

    def work(b: sdc.SdcSession) -> None:
        try:
            start.wait()
            for j in range(per_thread):
                b.recode("sex", {"m": f"m{j}"} if j % 2 == 0 else {f"m{j - 1}": "m"})
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(b,)) for b in branches]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    ids = [st_.id for st_ in root.steps]
    assert len(ids) == 1 + n_threads * per_thread
    assert sorted(ids) == list(range(len(ids)))  # unique, and equal to the position
    for b in branches:
        assert b.head.depth == per_thread
        assert [s.id for s in b.history] == sorted(s.id for s in b.history)
        assert root.checkout(b.head.id).head is b.head
