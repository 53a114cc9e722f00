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
from sdcsession.formula import build_design, parse_formula
from sdcsession.io import format_of, read_data, sniff_delimiter
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


def any_value(v: Any) -> bool:
    return False


# ------------------------------------------------------------------------------ specifications
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
        # formulas
        "parse_formula": (parse_formula, ["text"], {"text": "y ~ age"},
                          {"text": lambda v: not isinstance(v, str)}),
        "build_design": (build_design, ["formula", "data"], {"formula": f, "data": df}, {
            "formula": lambda v: True, "data": frame}),
        # synthetic data
        "synthetic_survey": (datasets.synthetic_survey, ["n_households"],
                             {"n_households": 5, "seed": 0},
                             {"n_households": integer(1), "seed": integer(0)}),
        "synthesize": (datasets.synthesize, ["data", "columns", "n"], {
            "data": df, "columns": ["zip", "age"], "n": 5, "seed": 1},
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
