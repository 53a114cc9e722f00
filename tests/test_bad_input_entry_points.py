"""Generated bad input for the entry points outside risk and utility: privacy models, checks and
the lattice search, hierarchies, file reading, formulas, synthetic data, the treatment kernels
with flags and options, and the command-line level functions.

Every argument of every function below is replaced, one at a time, by each of the bad values.
A call either succeeds or raises an ``SdcError`` (never another exception type) and never modifies
the caller's frame. Each argument also has a *kind* (a flag, an integer in a range, a number in a
range, one of some choices, a frame, ...): a value that the kind does not allow must be refused,
so that no invalid value is accepted silently. The grid makes a few thousand calls.
"""

from __future__ import annotations

import math
import os
import tempfile
import warnings
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession import datasets, privacy
from sdcsession.errors import SdcError
from sdcsession.formula import (
    build_design,
    columns_of,
    evaluate,
    model_matrix,
    parse_formula,
    render,
)
from sdcsession.io import format_of, read_data, sniff_delimiter, write_data
from sdcsession.utility.hierarchy import Hierarchy

NAN, INF = float("nan"), float("inf")
BAD_VALUES: list[Any] = [
    None, True, False, np.True_, 0, 1, -1, 2, 10**30, -(10**30), 10**400, 0.5, -0.5, 1.5, NAN,
    INF, -INF, np.int64(3), Fraction(1, 3), 1 + 2j, "", " ", "3", "0.5", "no", "nan", "zz",
    "a", b"a", [], [None], ["zz"], ["a", "a"], [1], [[1]], [["a"]], [1.5, "x"], (), ("a",), {},
    {"a": 1}, {"a"}, object(), pd.Series([1, 2]), pd.DataFrame({"a": [1]}), np.array([[1, 2]]),
    np.array([]),
]


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "zip": ["12", "13", "12", "22", "23", "12", "13", "22"],
        "age": [31, 47, 33, 52, 58, 35, 41, 50],
        "ill": ["a", "b", "b", "a", "c", "a", "b", "c"],
        "w": [2.0, 3.0, 1.5, 2.0, 4.0, 1.0, 2.5, 3.0],
        "y": [1.0, 2.0, 3.5, 4.0, 5.0, 6.5, 7.0, 8.0],
    })


def _bad_frames() -> list[Any]:
    df = _frame()
    return [df.iloc[:0], df.set_axis(["zip", "zip", "ill", "w", "y"], axis=1),
            df.set_axis(pd.MultiIndex.from_tuples([(c, "1") for c in df.columns]), axis=1),
            df.to_numpy(), df["zip"], {"zip": ["1"]}]


# ------------------------------------------------------------------------------ argument kinds
def _is_bool(v: Any) -> bool:
    return isinstance(v, (bool, np.bool_))


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not _is_bool(v)


def _is_real(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not _is_bool(v)


def flag(v: Any) -> bool:
    """True when ``v`` must be refused by a flag: anything but True/False."""
    return not _is_bool(v)


def integer(lo: int | None = None, hi: int | None = None, none: bool = False) -> Callable:
    def refuse(v: Any) -> bool:
        if v is None:
            return not none
        return not _is_int(v) or (lo is not None and v < lo) or (hi is not None and v > hi)
    return refuse


def number(lo: float | None = None, hi: float | None = None, *, lo_open: bool = False,
           hi_open: bool = False, none: bool = False, inf: bool = False) -> Callable:
    def refuse(v: Any) -> bool:
        if v is None:
            return not none
        if not _is_real(v):
            return True
        try:
            f = float(v)
        except OverflowError:
            return True
        if math.isnan(f) or (math.isinf(f) and not inf):
            return True
        return (lo is not None and (f < lo or (lo_open and f == lo))) or \
            (hi is not None and (f > hi or (hi_open and f == hi)))
    return refuse


def choice(*options: Any, none: bool = False) -> Callable:
    def refuse(v: Any) -> bool:
        if v is None:
            return not none
        return not isinstance(v, str) or v not in options
    return refuse


def frame(v: Any) -> bool:
    """A frame argument refuses every bad value (none of them is a usable data frame)."""
    return not (isinstance(v, pd.DataFrame) and len(v) > 0 and v.columns.is_unique
                and not isinstance(v.columns, pd.MultiIndex) and "zip" in v.columns)


def not_frame(v: Any) -> bool:
    """A frame argument that may have no records (a prediction on none) or a duplicated column
    the call does not read."""
    return not isinstance(v, pd.DataFrame)


# ------------------------------------------------------------------------------ specifications
_DIR = tempfile.mkdtemp(prefix="sdc-bad-input-")
CSV = os.path.join(_DIR, "survey.csv")
_frame().to_csv(CSV, index=False)

#: name -> (function, positional argument names, valid arguments, {argument: kind})
Spec = tuple[Callable, list[str], dict[str, Any], dict[str, Callable]]


def _specs() -> dict[str, Spec]:
    df = _frame()
    hz = {"zip": Hierarchy.masking(2)}
    k2 = [privacy.KAnonymity(2)]
    pop = pd.DataFrame({"zip": ["12", "13", "22", "23"], "count": [10, 20, 30, 5]})
    subset = [True, True, False, True, True, False, True, True]
    f = parse_formula("y ~ age")
    return {
        # privacy models
        "KAnonymity": (privacy.KAnonymity, ["k"], {"k": 2}, {"k": integer(1)}),
        "DistinctLDiversity": (privacy.DistinctLDiversity, ["column", "l"],
                               {"column": "ill", "l": 2}, {"l": integer(1)}),
        "EntropyLDiversity": (privacy.EntropyLDiversity, ["column", "l"],
                              {"column": "ill", "l": 1.5}, {"l": number(1, inf=False)}),
        "RecursiveCLDiversity": (privacy.RecursiveCLDiversity, ["column", "c", "l"],
                                 {"column": "ill", "c": 2.0, "l": 2},
                                 {"c": number(0, lo_open=True), "l": integer(1)}),
        "TCloseness": (privacy.TCloseness, ["column", "t"],
                       {"column": "ill", "t": 0.3, "distance": "equal"},
                       {"t": number(0, 1), "distance": choice("equal", "ordered",
                                                              "hierarchical")}),
        "DeltaDisclosure": (privacy.DeltaDisclosure, ["column", "delta"],
                            {"column": "ill", "delta": 1.0}, {"delta": number(0, lo_open=True)}),
        "BetaLikeness": (privacy.BetaLikeness, ["column", "beta"],
                         {"column": "ill", "beta": 1.0}, {"beta": number(0, lo_open=True)}),
        "KMap": (privacy.KMap, ["k", "population"], {"k": 2, "population": pop,
                                                     "significance": 0.05},
                 {"k": integer(1)}),
        "DeltaPresence": (privacy.DeltaPresence, ["dmin", "dmax", "subset"],
                          {"dmin": 0.0, "dmax": 0.9, "subset": subset},
                          {"dmin": number(0, 1), "dmax": number(0, 1)}),
        "AverageRisk": (privacy.AverageRisk, ["max_risk"], {"max_risk": 0.5},
                        {"max_risk": number(0, 1, lo_open=True)}),
        # privacy functions
        "check": (privacy.check, ["data", "keys", "models"],
                  {"data": df, "keys": ["zip"], "models": k2}, {"data": frame}),
        "search": (privacy.search, ["data", "hierarchies", "models"], {
            "data": df, "hierarchies": hz, "models": k2, "max_suppression": 0.25,
            "metric": "precision", "search": "optimal"}, {
            "data": frame, "max_suppression": number(0, 1),
            "metric": choice(*privacy.METRICS), "search": choice("optimal", "heuristic"),
            "engine": lambda v: v is not None}),
        "evaluate_node": (privacy.evaluate_node, ["data", "hierarchies", "models", "levels"], {
            "data": df, "hierarchies": hz, "models": k2, "levels": {"zip": 1},
            "max_suppression": 0.25, "metric": "precision"}, {
            "data": frame, "max_suppression": number(0, 1),
            "metric": choice(*privacy.METRICS)}),
        "generalize_frame": (privacy.generalize_frame, ["data", "hierarchies", "levels"], {
            "data": df, "hierarchies": hz, "levels": {"zip": 1}}, {"data": frame}),
        # hierarchies
        "Hierarchy.masking": (Hierarchy.masking, ["width"], {"width": 2},
                              {"width": integer(1, 64)}),
        "Hierarchy.from_parents": (Hierarchy.from_parents, ["parents"],
                                   {"parents": {"a": "*", "b": "*"}}, {}),
        "Hierarchy.from_nested": (Hierarchy.from_nested, ["tree"],
                                  {"tree": {"*": ["a", "b"]}}, {}),
        "Hierarchy.from_frame": (Hierarchy.from_frame, ["frame"],
                                 {"frame": [["a", "*"], ["b", "*"]]}, {}),
        "Hierarchy.intervals": (Hierarchy.intervals, ["edges_per_level"],
                                {"edges_per_level": [[0, 40, 80]]}, {}),
        "Hierarchy.dates": (Hierarchy.dates, ["levels"], {"levels": ["month", "year"]}, {}),
        "Hierarchy.from_dict": (Hierarchy.from_dict, ["d"], {"d": Hierarchy.masking(2).to_dict()},
                                {}),
        "Hierarchy.generalize": (Hierarchy.masking(2).generalize, ["values", "level"], {
            "values": ["12", "13"], "level": 1, "column": "zip"},
            {"level": integer(0, 2), "column": lambda v: not isinstance(v, str)}),
        # files
        "format_of": (format_of, ["path"], {"path": "x.csv", "format": None},
                      {"format": choice("csv", "tsv", "parquet", "stata", "spss", "sas7bdat",
                                        "xport", "CSV", none=True)}),
        "sniff_delimiter": (sniff_delimiter, ["sample"], {"sample": "a;b\n1;2\n"},
                            {"sample": lambda v: not isinstance(v, str)}),
        "read_data": (read_data, ["path"], {
            "path": CSV, "format": "csv", "columns": ["zip", "age"], "categorical": ["zip"],
            "sep": ",", "encoding": "utf-8", "max_decompressed": 10**6}, {
            "path": lambda v: True, "max_decompressed": integer(1, none=True),
            "format": choice("csv", "tsv", "parquet", "stata", "spss", "sas7bdat", "xport",
                             none=True)}),
        "write_data": (write_data, ["df", "path"], {
            "df": df, "path": os.path.join(_DIR, "out.csv"), "protect": [CSV], "overwrite": True,
            "sep": ";"}, {  # no format: a bad path has no extension and is never written
            "df": lambda v: not isinstance(v, pd.DataFrame), "path": lambda v: True,
            "overwrite": flag,
            "protect": lambda v: v is not None and not isinstance(v, (list, tuple, set, str))}),
        # formulas
        "parse_formula": (parse_formula, ["text"], {"text": "y ~ age"},
                          {"text": lambda v: not isinstance(v, str)}),
        "build_design": (build_design, ["formula", "data"], {"formula": f, "data": df}, {
            "formula": lambda v: True, "data": frame}),
        "model_matrix": (model_matrix, ["spec", "data"], {
            "spec": build_design(f, df).spec, "data": df}, {"spec": lambda v: True, "data": not_frame}),
        "evaluate": (evaluate, ["node", "data"], {"node": f.outcome, "data": df},
                     {"node": lambda v: True, "data": not_frame}),
        "render": (render, ["node"], {"node": f.outcome}, {"node": lambda v: True}),
        "columns_of": (columns_of, ["node"], {"node": f.outcome}, {"node": lambda v: True}),
        # synthetic data
        "synthetic_survey": (datasets.synthetic_survey, ["n_households"],
                             {"n_households": 5, "seed": 0},
                             {"n_households": integer(1), "seed": integer(0)}),
        "synthesize": (datasets.synthesize, ["data", "columns", "n"], {
            "data": df, "columns": ["age", "y"], "n": 5, "seed": 1},
            {"data": frame, "n": integer(1), "seed": integer(0, none=True)}),
    }


SPECS = _specs()
FRAME_ARGS = {"data"}


def _call(name: str, args: dict[str, Any]) -> Any:
    fn, pos, _, _ = SPECS[name]
    return fn(*[args[p] for p in pos if p in args],
              **{k: v for k, v in args.items() if k not in pos})


def check_call(name: str, args: dict[str, Any], replaced: str | None = None) -> str:
    """Call; return "ok" or the error class name. Fails on a non-SdcError exception, on a
    modified input frame, and on an invalid value (by the argument's kind) that is accepted."""
    before = {k: v.copy(deep=True) for k, v in args.items() if isinstance(v, pd.DataFrame)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _call(name, args)
        outcome = "ok"
    except SdcError as e:
        outcome = type(e).__name__
    except Exception as e:  # noqa: BLE001 - the point of the test
        raise AssertionError(f"{name}({replaced}={_short(args.get(replaced))}) raised "
                             f"{type(e).__name__}: {e}") from e
    for k, fr in before.items():
        pd.testing.assert_frame_equal(args[k], fr, obj=f"{name}: argument {k}")
    if outcome == "ok" and replaced is not None:
        refuse = SPECS[name][3].get(replaced)
        assert refuse is None or not refuse(args[replaced]), \
            f"{name}({replaced}={_short(args[replaced])}) was accepted"
    return outcome


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) < 60 else text[:57] + "..."


def test_the_valid_calls_are_valid():
    for name, (_, _, valid, _) in SPECS.items():
        assert check_call(name, dict(valid)) == "ok", name


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_argument_with_every_bad_value(name):
    _, _, valid, _ = SPECS[name]
    failures = []
    for arg in valid:
        values = BAD_VALUES + (_bad_frames() if arg in FRAME_ARGS else [])
        for v in values:
            try:
                check_call(name, {**valid, arg: v}, arg)
            except AssertionError as e:
                failures.append(str(e).splitlines()[0])
    assert failures == []



def test_enough_calls():
    """The grid: functions x arguments x bad values (about 3,300 calls)."""
    n = sum(len(valid) * len(BAD_VALUES) + (len(_bad_frames()) if "data" in valid else 0)
            for _, _, valid, _ in SPECS.values())
    assert n >= 3000


# ------------------------------------------------------------------------------ named refusals
def _session() -> sdc.SdcSession:
    df = datasets.synthetic_survey(40, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sdc.SdcSession(df, keys=["region", "sex", "age5"], numeric=["income", "expend"],
                              weight="w", household="hid", identifiers=["pid"], seed=11)


SESSION_CASES: list[tuple[str, dict[str, Any], type, str]] = [
    ("top_bottom_code", {"column": "income", "value": "3", "replacement": 3.0},
     sdc.TreatmentError, "value='3' is text but column 'income' is numeric"),
    ("mv_top_code", {"columns": ["income", "region"]}, sdc.RoleError,
     "'region' is a categorical key variable"),
    ("local_recode", {"columns": ["sex", "income"]}, sdc.RoleError,
     "'income' is a numeric variable; local_recode is for categorical key variables"),
    ("record_swap", {"hierarchy": ["region"], "similar": ["hhsize"], "k_anonymity": 0},
     sdc.ParameterError, "k_anonymity: expected an integer >= 1, got 0"),
    ("record_swap", {"hierarchy": ["region"], "similar": ["hhsize"], "risk_variables": ["pid"]},
     sdc.RoleError, "'pid' is a direct identifier"),
    ("record_swap", {"hierarchy": ["region"], "similar": [["hhsize"], ["pid"]]},
     sdc.RoleError, "'pid' is a direct identifier"),
    ("record_swap", {"hierarchy": ["region"], "similar": ["hhsize"], "carry_along": ["w"]},
     sdc.RoleError, "'w' is the sampling weight"),
    ("generalize", {"hierarchies": {"sex": Hierarchy.masking(1)},
                    "privacy": [privacy.KAnonymity(2)], "search": "no_such"},
     sdc.ParameterError, "search: expected one of ['optimal', 'heuristic'], got 'no_such'"),
    ("generalize", {"hierarchies": {"sex": Hierarchy.masking(1)},
                    "privacy": [privacy.KAnonymity(2)], "max_suppression": 1.5},
     sdc.ParameterError, "max_suppression: expected a finite number in [0, 1], got 1.5"),
]


@pytest.mark.parametrize("case", range(len(SESSION_CASES)))
def test_session_methods_refuse_and_keep_head(case):
    method, kw, err, text = SESSION_CASES[case]
    s = _session()
    head, data = s.head, s.data.copy()
    with pytest.raises(err) as e:
        getattr(s, method)(**kw)
    assert text in str(e.value)
    assert s.head is head
    pd.testing.assert_frame_equal(s.data, data)


def _named_cases() -> list[tuple[Callable, type, str]]:
    df = _frame()
    hz = {"zip": Hierarchy.masking(2)}
    k2 = [privacy.KAnonymity(2)]
    o = df[["y", "w"]]
    m = o + 0.1
    rec = _session().recode("region", {"R01": "R02"}).to_recipe()
    return [
        (lambda: privacy.search(df, hz, k2, search="no_such"), sdc.ParameterError,
         "search: expected one of ['optimal', 'heuristic'], got 'no_such'"),
        (lambda: privacy.search(df, hz, k2, max_suppression=1.5), sdc.ParameterError,
         "max_suppression: expected a finite number in [0, 1], got 1.5"),
        (lambda: privacy.search(None, hz, k2), sdc.MeasureError,
         "data: expected a pandas DataFrame, got NoneType"),
        (lambda: privacy.search(df, {"nope": Hierarchy.masking(2)}, k2), sdc.ParameterError,
         "hierarchies: unknown column(s) ['nope']"),
        (lambda: privacy.search(df, hz, None), sdc.ParameterError,
         "privacy: expected one or more privacy models"),
        (lambda: privacy.evaluate_node(df, hz, k2, {"zip": 3}), sdc.ParameterError,
         "levels['zip']: expected an integer in [0, 2], got 3"),
        (lambda: privacy.evaluate_node(df, hz, k2, {}), sdc.ParameterError,
         "levels: expected a level for each of ['zip']; unknown [], missing ['zip']"),
        (lambda: privacy.check(df.set_axis(["zip", "zip", "ill", "w", "y"], axis=1), ["zip"],
                               k2), sdc.RoleError, "duplicated column names ['zip']"),
        (lambda: privacy.generalize_frame(df, hz, {"zip": 1}, suppressed=[1, 0]),
         sdc.ParameterError, "suppressed: expected a boolean mask of 8 records"),
        (lambda: Hierarchy.from_parents(None), sdc.ParameterError,
         "parents: expected a non-empty mapping {child: parent}, got NoneType"),
        (lambda: Hierarchy.from_parents({"a": ["x"]}), sdc.ParameterError,
         "parents: every parent must be a single value"),
        (lambda: Hierarchy.masking(2).generalize([["1"]], 1), sdc.ParameterError,
         "expected single values"),
        (lambda: read_data(None), sdc.ParameterError, "path: expected a file path"),
        (lambda: read_data(CSV, columns=5), sdc.ParameterError,
         "columns: expected a column name or a list of names"),
        (lambda: read_data(CSV, categorical=5), sdc.ParameterError,
         "categorical: expected a column name or a list of names"),
        (lambda: read_data(CSV, encoding="no-such-codec"), sdc.ParameterError,
         "encoding: unknown text encoding 'no-such-codec'"),
        (lambda: read_data(CSV, max_decompressed=0), sdc.ParameterError,
         "max_decompressed: expected an integer >= 1, got 0"),
        (lambda: sniff_delimiter(None), sdc.ParameterError, "sample: expected the text"),
        (lambda: build_design("y ~ age", df), sdc.ParameterError,
         "formula: expected a Formula (from parse_formula / build_design), got str"),
        (lambda: datasets.synthetic_survey(10**30), sdc.ParameterError,
         "n_households: expected an integer in [1, 10000000]"),
        (lambda: sdc.utility.il1s(o, m, normalise="no"), sdc.ParameterError,
         "normalise: expected True or False, got 'no'"),
        (lambda: sdc.utility.propensity_score(o, m, c="x"), sdc.ParameterError,
         "c: expected a number in [0, 1], got 'x'"),
        (lambda: sdc.utility.weighted_mean([1.0, 2.0], na_rm="no"), sdc.ParameterError,
         "na_rm: expected True or False, got 'no'"),
        (lambda: sdc.utility.il_correl(o, m, constant="1"), sdc.ParameterError,
         "constant: expected a positive number, got '1'"),
        (lambda: sdc.risk.risky_cells(df, ["zip"], by_table=1), sdc.ParameterError,
         "by_table: expected True or False, got 1"),
        (lambda: sdc.SdcSession.from_recipe(datasets.synthetic_survey(40, seed=3), rec,
                                            strict="no"), sdc.ParameterError,
         "strict: expected True or False, got 'no'"),
    ]


@pytest.mark.parametrize("case", range(len(_named_cases())))
def test_named_errors(case):
    call, err, text = _named_cases()[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(err) as e:
            call()
    assert text in str(e.value)


def test_run_app_checks_every_argument_before_starting(tmp_path):
    from sdcsession.present.workbench.app import run_app

    cases = [({"data": None}, sdc.ParameterError, "data: expected the path of a data file"),
             ({"data": tmp_path / "no.csv"}, sdc.DataFileError, "no data file"),
             ({"data": CSV, "port": "x"}, sdc.ParameterError,
              "port: expected an integer in [1, 65535] or None, got 'x'"),
             ({"data": CSV, "port": 70000}, sdc.ParameterError, "port: expected an integer"),
             ({"data": CSV, "open_browser": "no"}, sdc.ParameterError,
              "open_browser: expected True or False"),
             ({"data": CSV, "seed": "1"}, sdc.ParameterError, "seed: expected an integer"),
             ({"data": CSV, "keys": 5}, sdc.ParameterError, "keys: expected a column name")]
    for kw, err, text in cases:
        with pytest.raises(err) as e:
            run_app(**kw)
        assert text in str(e.value)


class _Stop(Exception):
    """Raised in place of starting the app's server."""


def test_run_app_takes_numpy_integers_as_integers(monkeypatch):
    """Numpy integers count as integers (as every other integer parameter), numpy bools not."""
    from sdcsession.present.workbench import app

    seen = {}

    def started(notebook, *, port, **kw):
        seen.update(port=port, **kw)
        raise _Stop  # stop before anything starts

    monkeypatch.setattr(app, "voila_command", started)
    with pytest.raises(_Stop):
        app.run_app(CSV, port=np.int64(8899), max_kernels=np.int32(2), pool=np.int64(1),
                    idle_minutes=np.int64(5), open_browser=False)
    assert seen["port"] == 8899 and type(seen["port"]) is int
    assert seen["pool"] == 1 and type(seen["pool"]) is int
    for kw in ({"port": np.bool_(True)}, {"max_kernels": np.bool_(True)}, {"pool": np.float64(1)}):
        with pytest.raises(sdc.ParameterError):
            app.run_app(CSV, **kw)


def test_the_old_sessions_still_valid_values():
    """Values on the edge stay accepted: k_anonymity=1, an empty risk_variables list (random
    swapping only), the largest port, and a recipe replayed with strict=False."""
    s = _session()
    s.record_swap(hierarchy=["region"], similar=["hhsize"], k_anonymity=1, swaprate=0.2)
    s.record_swap(hierarchy=["region"], similar=["hhsize"], risk_variables=[], swaprate=0.2)
    assert len(s.steps) == 3  # the root and the two steps
    r = sdc.SdcSession.from_recipe(s.original, s.to_recipe(), strict=False)
    pd.testing.assert_frame_equal(r.data, s.data)


#: numeric or flag parameters of session methods where a missing value is documented as valid
#: (top_bottom_code: a missing replacement blanks the values, None replaces by the threshold)
_MISSING_OK = {("top_bottom_code", "replacement")}


def test_session_methods_refuse_invalid_numbers_and_flags():
    """Every numeric or True/False parameter of every treatment method refuses NaN, infinity,
    numbers as text, bools as numbers, lists and integers too large for a float; flags refuse
    "no", 1 and None. HEAD stays where it was."""
    import inspect

    from test_bad_input_session import TEMPLATES
    from test_bad_input_session import session as small_session

    numbers = [NAN, INF, -INF, "3", True, [1], 10**400]
    accepted = []
    for method, kw in TEMPLATES.items():
        sig = inspect.signature(getattr(sdc.SdcSession, method))
        for p, par in sig.parameters.items():
            d = kw.get(p, par.default)
            if isinstance(d, bool):
                values: list[Any] = ["no", 1, None]
            elif isinstance(d, (int, float)) and (method, p) not in _MISSING_OK:
                values = numbers
            else:
                continue
            for v in values:
                s = small_session()
                head = s.head
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        getattr(s, method)(**{**kw, p: v})
                    accepted.append(f"{method}({p}={v!r:.20})")
                except SdcError:
                    assert s.head is head
    assert accepted == []


def test_cli_main_refuses_an_argv_that_is_not_a_list_of_strings(capsys):
    from sdcsession.cli import main

    for argv in (5, True, "risk", b"risk", [1], ["risk", None], {"risk": 1}, object()):
        assert main(argv) == 2
        assert "sdcsession: error: argv: expected a list of strings" in capsys.readouterr().err
    assert main(["demo", "--households", "0"]) == 2
    assert "n_households: expected an integer in [1, 10000000], got 0" in capsys.readouterr().err


# ------------------------------------------------------------------------------ bounded work
def test_formula_designs_have_a_size_limit():
    from sdcsession.formula.design import column_limit

    # min(1000, max(50, n // 10), 10**8 // n, isqrt(10**10 // n))
    assert [column_limit(n) for n in (3, 100, 600, 5000, 20_000, 10**5, 10**6, 10**7)] == [
        50, 50, 60, 500, 707, 316, 100, 10]
    rng = np.random.default_rng(0)
    n = 600
    df = pd.DataFrame({"y": rng.normal(size=n), "g": np.arange(n) % 60, "h": np.arange(n) % 61})
    assert build_design(parse_formula("y ~ C(g)"), df).X.shape == (600, 60)  # at the limit
    with pytest.raises(sdc.MeasureError, match=r"61 columns for 600 complete records \(C\(h\) "
                                               r"has 61 levels\); at most 60 columns"):
        build_design(parse_formula("y ~ C(h)"), df)
    # a level per record (C(pid)): 5,000 columns for 5,000 records, refused before building
    big = pd.DataFrame({"y": rng.normal(size=5000), "pid": np.arange(5000)})
    with pytest.raises(sdc.MeasureError, match="5000 columns for 5000 complete records"):
        sdc.utility.compare_regression(big, big, "y ~ C(pid)")
    # an interaction of wide factors is counted, never enumerated (10**9 columns)
    wide = pd.DataFrame({c: np.arange(1000) for c in "abc"}).assign(y=1.0)
    with pytest.raises(sdc.MeasureError, match="1000000000 columns"):
        build_design(parse_formula("y ~ C(a):C(b):C(c)"), wide)


def test_compressed_inputs_stop_at_the_limit(tmp_path, monkeypatch):
    import bz2
    import gzip
    import lzma
    import zipfile

    from sdcsession.io import compressed

    df = read_data(CSV)
    df.attrs = {}
    text = df.to_csv(index=False).encode()
    bomb = b"a,b\n" + b"0,0\n" * 2**19  # 2 MiB of text, a few KB compressed
    for name, pack in (("gz", gzip.compress), ("bz2", bz2.compress), ("xz", lzma.compress)):
        (tmp_path / f"ok.csv.{name}").write_bytes(pack(text))
        pd.testing.assert_frame_equal(read_data(tmp_path / f"ok.csv.{name}"), df,
                                      check_flags=False)
        (tmp_path / f"bomb.csv.{name}").write_bytes(pack(bomb))
        assert len(read_data(tmp_path / f"bomb.csv.{name}")) == 2**19  # within 64 MiB
        with pytest.raises(sdc.DataFileError, match="decompresses to more than 1,000,000 bytes"):
            read_data(tmp_path / f"bomb.csv.{name}", max_decompressed=10**6)
    with zipfile.ZipFile(tmp_path / "ok.csv.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("survey.csv", text)
    pd.testing.assert_frame_equal(read_data(tmp_path / "ok.csv.zip", columns=["zip", "age"]),
                                  df[["zip", "age"]])
    with zipfile.ZipFile(tmp_path / "two.csv.zip", "w") as z:
        z.writestr("a.csv", text)
        z.writestr("b.csv", text)
    with pytest.raises(sdc.DataFileError, match="exactly one data file, it holds 2"):
        read_data(tmp_path / "two.csv.zip")
    # the default limit: 200 x the file size, at least the floor (lowered here to 1 MiB)
    monkeypatch.setattr(compressed, "DECOMPRESSION_FLOOR", 2**20)
    size = (tmp_path / "bomb.csv.gz").stat().st_size
    assert compressed.expansion_limit(tmp_path / "bomb.csv.gz") == max(200 * size, 2**20)
    with pytest.raises(sdc.DataFileError, match="may expand to at most 200 times its size"):
        read_data(tmp_path / "bomb.csv.gz")
    (tmp_path / "ok.csv.zst").write_bytes(b"x")
    with pytest.raises(sdc.DataFileError, match="compression 'zst' is not supported"):
        read_data(tmp_path / "ok.csv.zst", format="csv")
    # Parquet: checked from its metadata (rows x columns x 8 bytes) before reading
    pytest.importorskip("pyarrow")
    pq = tmp_path / "zeros.parquet"
    pd.DataFrame({"a": np.zeros(2**17)}).to_parquet(pq)
    assert len(read_data(pq)) == 2**17
    with pytest.raises(sdc.DataFileError, match="holds about 1,048,576 bytes of data once read"):
        read_data(pq, max_decompressed=10**6)


if __name__ == "__main__":  # a report of every failure: python tests/test_bad_input_entry_points.py
    import sys
    only = sys.argv[1:]
    for nm, (_, _, ok_args, _) in SPECS.items():
        if only and nm not in only:
            continue
        try:
            check_call(nm, dict(ok_args))
        except AssertionError as err:
            print("VALID CALL FAILS", nm, str(err)[:200])
        for a in ok_args:
            for val in BAD_VALUES + (_bad_frames() if a in FRAME_ARGS else []):
                try:
                    check_call(nm, {**ok_args, a: val}, a)
                except AssertionError as err:
                    print(str(err).splitlines()[0][:220])
