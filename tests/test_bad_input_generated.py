"""Generated bad input over every public entry point, with oracles derived from the signatures.

Every parameter of every entry point below (the public session methods — treatments, measures,
views, release, export, report, recipes, projects, sweeps, optimisation, attacks, tables — the
public functions of risk, methods, utility, privacy, tables and io, the hierarchy constructors,
the session constructors, `sdc.compare`, the app and the command line) is replaced, one at a
time, by each of a list of bad values, the other arguments staying valid. A call must either
succeed or raise an `SdcError` subclass; it never modifies the caller's frames, and a failed
session call leaves HEAD where it was.

Whether a value must be refused is decided by an oracle derived from the parameter's annotation
and default (a ``bool`` takes only True/False; an ``int`` only integers; a ``float`` only finite
real numbers, not NaN, not text, not a bool; a ``str`` only text; ``None`` only where the
annotation or the default allows it), refined by explicit kinds for the parameters whose range
or choices are documented (probabilities in [0, 1], option names, column names, k >= 1, ...).
An invalid value that is accepted is a defect, as is any exception that is not an `SdcError`.

Run ``python tests/test_bad_input_generated.py`` for a report of every defect with its call.
"""

from __future__ import annotations

import inspect
import math
import os
import sys
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession import datasets, privacy
from sdcsession.errors import SdcError
from sdcsession.utility.hierarchy import Hierarchy

NAN, INF = float("nan"), float("inf")


class _Unhashable:
    __hash__ = None  # type: ignore[assignment]


#: the generated values: each replaces one argument of a valid call
BAD_VALUES: list[Any] = [
    None, True, False, np.True_, "no", "yes", 0, 1, -1, 2, 10**30, 10**400, 0.5, 1.5, -0.1,
    2.5, NAN, np.float64("nan"), INF, -INF, np.int64(3), Fraction(1, 3), 1 + 2j, "", "3",
    "no_such", b"a", [], [None], ["no_such"], ["region", "region"], [[1]], {}, {"no_such": 1},
    {"a"}, object(), _Unhashable(), pd.Series([1, 2]), np.array([[1, 2]]),
]


# ------------------------------------------------------------------------------ oracles
def _is_bool(v: Any) -> bool:
    return isinstance(v, (bool, np.bool_))


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not _is_bool(v)


def _is_real(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not _is_bool(v)


def _finite(v: Any) -> bool:
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def flag(none: bool = False) -> Callable[[Any], bool]:
    return lambda v: not ((none and v is None) or _is_bool(v))


def integer(lo: int | None = None, hi: int | None = None, *, none: bool = False,
            huge: bool = True) -> Callable[[Any], bool]:
    """``huge``: an integer beyond any sensible bound (10**30) must be refused too."""
    def refuse(v: Any) -> bool:
        if v is None:
            return not none
        if not _is_int(v):
            return True
        return (lo is not None and v < lo) or (hi is not None and v > hi) or \
            (huge and abs(int(v)) >= 10**30)
    return refuse


def number(lo: float | None = None, hi: float | None = None, *, lo_open: bool = False,
           hi_open: bool = False, none: bool = False, inf: bool = False) -> Callable[[Any], bool]:
    def refuse(v: Any) -> bool:
        if v is None:
            return not none
        if isinstance(v, Fraction):
            return False  # a rational number: refusing it or reading it as a float are both fine
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


def choice(*options: Any, none: bool = False) -> Callable[[Any], bool]:
    return lambda v: not ((none and v is None) or (isinstance(v, str) and v in options))


def text(none: bool = False) -> Callable[[Any], bool]:
    return lambda v: not ((none and v is None) or isinstance(v, str))


def names(none: bool = True, empty: bool = True) -> Callable[[Any], bool]:
    """Column names: a name or a list of names of the data (``["no_such"]`` and a name twice
    are refused)."""
    def refuse(v: Any) -> bool:
        if v is None:
            return not none
        if isinstance(v, str):
            return v == "no_such" or not v.strip()
        if not isinstance(v, (list, tuple)):
            return True
        if not v:
            return not empty
        return any(not isinstance(x, str) or x == "no_such" for x in v) or len(set(v)) < len(v)
    return refuse


def anything(v: Any) -> bool:
    return False


def oracle(param: inspect.Parameter) -> Callable[[Any], bool]:
    """The refusal rule derived from a parameter's annotation and default."""
    ann = param.annotation if isinstance(param.annotation, str) else \
        getattr(param.annotation, "__name__", str(param.annotation))
    default = param.default
    tokens = {t.strip() for t in str(ann).split("|")}
    none = "None" in tokens or default is None
    core = tokens - {"None"}
    if core == {"bool"} or (core <= {"Any", "inspect._empty", "_empty"}
                            and isinstance(default, bool)):
        return flag(none)
    if core == {"int"}:
        return integer(none=none, huge=False)
    if core <= {"int", "float"} and core:
        return number(none=none, inf=True)
    if core == {"str"}:
        return text(none)
    return anything


@dataclass
class Spec:
    """One entry point: ``target(session)`` (or ``target()`` without a session) is the callable;
    ``pos`` the arguments given by position; ``valid`` a valid call; ``kinds`` refusal rules
    that replace the annotation-derived ones; ``skip`` parameters not generated."""

    target: Callable[..., Callable]
    valid: dict[str, Any]
    pos: list[str] = field(default_factory=list)
    kinds: dict[str, Callable[[Any], bool]] = field(default_factory=dict)
    skip: set[str] = field(default_factory=set)
    session: bool = False
    values: list[Any] | None = None
    make: Callable[[], Any] | None = None  # the session (default: `_session`)


# ------------------------------------------------------------------------------ fixtures
_DIR = tempfile.mkdtemp(prefix="sdc-generated-")
SURVEY = datasets.synthetic_survey(40, seed=3)
ROLES: dict[str, Any] = dict(
    keys=["region", "sex", "age5"], numeric=["income", "expend"], weight="w", household="hid",
    identifiers=["pid"], pram=["water"], sensitive=["health"])
CSV = os.path.join(_DIR, "survey.csv")
SURVEY.to_csv(CSV, index=False)
PARQUET = os.path.join(_DIR, "survey.parquet")


def _session() -> sdc.SdcSession:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sdc.SdcSession(SURVEY.copy(), **ROLES, seed=11)


def _keyed_session() -> sdc.SdcSession:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _session().add_record_keys()


def small() -> pd.DataFrame:
    return pd.DataFrame({
        "a": ["x", "x", "y", "y", "z", "x", "y", "z", "x", "y"],
        "b": ["u", "v", "u", "u", "v", "v", "u", "u", "v", "u"],
        "w": [2.0, 3.0, 1.5, 2.0, 4.0, 1.0, 2.5, 3.0, 2.0, 1.0],
        "h": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
        "x": [1.0, 2.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
        "y": [10.0, 9.0, 8.5, 7.0, 6.0, 5.0, 4.0, 3.5, 2.0, 1.5],
    })


P01 = number(0, 1)
POS = number(0, lo_open=True)
K1 = integer(1, huge=False)  # a threshold: any size is meaningful
SEED = integer(0, none=True, huge=False)


def _specs() -> dict[str, Spec]:
    df = small()
    num = df[["x", "y"]]
    masked = num + 0.25
    hz = {"b": Hierarchy.masking(1)}
    k2 = [privacy.KAnonymity(2)]
    t = sdc.tables
    u = sdc.utility
    r = sdc.risk
    specs: dict[str, Spec] = {
        # ------------------------------------------------------------ session treatments
        "s.rank_swap": Spec(lambda s: s.rank_swap, {"columns": "income", "p": 5}, session=True,
                            kinds={"p": number(0, 100, lo_open=True)}),
        "s.record_swap": Spec(lambda s: s.record_swap, {
            "hierarchy": ["region"], "similar": ["hhsize"], "swaprate": 0.1,
            "risk_variables": ["sex", "age5"]}, session=True,
            kinds={"swaprate": number(0, 1, none=True), "k_anonymity": integer(1, none=True)}),
        "s.mv_top_code": Spec(lambda s: s.mv_top_code, {"columns": ["income", "expend"],
                                                         "alpha": 0.025}, session=True,
                              kinds={"alpha": number(0, 1, lo_open=True, hi_open=True)}),
        "s.local_recode": Spec(lambda s: s.local_recode, {"columns": ["sex", "age5"], "k": 2},
                               session=True, kinds={"k": K1}),
        "s.generalize": Spec(lambda s: s.generalize, {
            "hierarchies": {"sex": Hierarchy.from_nested({"*": ["m", "f"]})},
            "privacy": [privacy.KAnonymity(2)], "max_suppression": 0.1}, session=True,
            kinds={"max_suppression": P01, "search": choice("optimal", "heuristic")}),
        # ------------------------------------------------------------ session measures
        "s.risk.suda2": Spec(lambda s: s.risk.suda2, {}, session=True,
                             kinds={"dis_fraction": P01, "max_size": integer(1, none=True)}),
        "s.risk.k_violations": Spec(lambda s: s.risk.k_violations, {}, session=True,
                                    kinds={"k": K1}),
        "s.risk.unsafe_combinations": Spec(lambda s: s.risk.unsafe_combinations, {},
                                           session=True, kinds={"k": number(1), "max_dim": integer(
                                               1, none=True, huge=False)}),
        "s.risk.threshold": Spec(lambda s: s.risk.threshold, {}, session=True,
                                 kinds={"max_global_risk": P01}),
        "s.risk.model": Spec(lambda s: s.risk.model, {"formula": "~ sex + age5"}, session=True,
                             kinds={"method": choice("default", "CE", "PLM", "IPF"),
                                    "bound": number(0, lo_open=True, none=True, inf=True)}),
        "s.risk.population_uniques": Spec(lambda s: s.risk.population_uniques, {},
                                          session=True, kinds={"method": choice(
                                              "dankar", "pitman", "zayatz", "sns", "ps")}),
        "s.risk.record_linkage": Spec(lambda s: s.risk.record_linkage, {}, session=True),
        "s.risk.risky_cells": Spec(lambda s: s.risk.risky_cells, {}, session=True,
                                   kinds={"max_dim": integer(1, none=True)}),
        "s.risk.rmd": Spec(lambda s: s.risk.rmd, {}, session=True,
                           kinds={"k": number(0), "k2": number(0),
                                  "missing": choice("error", "drop", "impute")}),
        "s.risk.attacker_models": Spec(lambda s: s.risk.attacker_models, {}, session=True,
                                       kinds={"threshold": P01}),
        "s.risk.attacks": Spec(lambda s: s.risk.attacks, {"n_attacks": 20}, session=True,
                               kinds={"n_attacks": integer(1), "n_cols": K1, "seed": SEED,
                                      "confidence": number(0, 1, lo_open=True, hi_open=True)}),
        "s.risk.explain": Spec(lambda s: s.risk.explain, {"name": "global_risk"}, session=True),
        "s.utility.ebil": Spec(lambda s: s.utility.ebil, {"column": "water"}, session=True,
                               make=lambda: _session().pram("water")),
        "s.utility.regression": Spec(lambda s: s.utility.regression,
                                     {"formula": "income ~ age"}, session=True,
                                     kinds={"level": number(0, 1, lo_open=True, hi_open=True)}),
        "s.utility.ml": Spec(lambda s: s.utility.ml, {"target": "sex", "features": ["age"]},
                             session=True, kinds={"test_size": number(0, 1, lo_open=True,
                                                                      hi_open=True),
                                                  "seed": SEED}),
        "s.utility.gdu": Spec(lambda s: s.utility.gdu, {}, session=True, kinds={
            "alpha": number(0, 1, lo_open=True, hi_open=True),
            "recode_variant": lambda v: not isinstance(v, dict) and choice(
                "comparisons", "biased_allocation", "mad")(v)}),
        "s.utility.benchmark": Spec(lambda s: s.utility.benchmark, {
            "indicators": "mean:income", "n_boot": 5}, session=True,
            kinds={"n_boot": K1, "level": number(0, 1, lo_open=True, hi_open=True),
                   "seed": SEED}),
        "s.utility.score": Spec(lambda s: s.utility.score, {}, session=True),
        "s.utility.measure": Spec(lambda s: s.utility.measure, {"name": "il1s"}, session=True),
        "s.utility.check": Spec(lambda s: s.utility.check, {"contracts": []}, session=True),
        "s.utility.explain": Spec(lambda s: s.utility.explain, {"name": "il1s"}, session=True),
        # ------------------------------------------------------------ session, the rest
        "s.release_check": Spec(lambda s: s.release_check, {}, session=True,
                                kinds={"k": integer(1, none=True), "risk_threshold": P01}),
        "s.data_for_release": Spec(lambda s: s.data_for_release, {}, session=True),
        "s.tabulate": Spec(lambda s: s.tabulate, {"rows": "region", "columns": "sex"},
                           session=True, make=_keyed_session, kinds={
                               "rows": names(none=False, empty=False), "columns": names(),
                               "by": names(), "share": P01, "top_k": K1,
                               "threshold": integer(0, none=True),
                               "method": choice("ckm", "none", "rules", "dp"),
                               "margins": choice("microdata", "table")}),
        "s.sweep": Spec(lambda s: s.sweep, {"plan": [("local_suppression", [{"k": 2}])]},
                        session=True, kinds={"n_jobs": lambda v: v != -1 and K1(v)}),
        "s.optimize": Spec(lambda s: s.optimize, {"budget": 2}, session=True, kinds={
            "budget": K1, "n_jobs": lambda v: v != -1 and K1(v), "seed": integer(0, huge=False)}),
        "s.branch": Spec(lambda s: s.branch, {"name": "b1"}, session=True),
        "s.checkout": Spec(lambda s: s.checkout, {"step": 0}, session=True),
        "s.undo": Spec(lambda s: s.undo, {}, session=True, kinds={"n": K1},
                       make=lambda: _session().recode("region", {"R01": "R02"})),
        "s.redo": Spec(lambda s: s.redo, {}, session=True, kinds={"n": K1},
                       make=lambda: _session().recode("region", {"R01": "R02"}).undo()),
        "s.save_recipe": Spec(lambda s: s.save_recipe, {
            "path": os.path.join(_DIR, "r.json"), "overwrite": True}, session=True,
            kinds={"path": lambda v: True}),
        "s.save_project": Spec(lambda s: s.save_project, {
            "path": os.path.join(_DIR, "p.sdcproj"), "overwrite": True}, session=True,
            kinds={"path": lambda v: True}),
        "s.export": Spec(lambda s: s.export, {"path": os.path.join(_DIR, "e.csv"),
                                              "overwrite": True, "force": True},
                         session=True, kinds={"path": lambda v: True, "k": integer(1, none=True),
                                              "risk_threshold": P01}),
        "s.report": Spec(lambda s: s.report, {"path": os.path.join(_DIR, "rep.html"),
                                              "overwrite": True, "figures": False},
                         session=True, kinds={"path": lambda v: v is not None}),
        "s.compare": Spec(lambda s: s.compare, {}, session=True),
        "s.apply_to": Spec(lambda s: s.apply_to, {"new_data": SURVEY}, pos=["new_data"],
                           session=True, kinds={"new_data": lambda v: True}),
        "SdcSession.from_recipe": Spec(lambda: sdc.SdcSession.from_recipe, {
            "data": SURVEY, "recipe": _session().recode("region", {"R01": "R02"}).to_recipe()},
            pos=["data", "recipe"], kinds={"data": lambda v: True, "recipe": lambda v: True}),
        "SdcSession": Spec(lambda: sdc.SdcSession, {"data": SURVEY, **ROLES}, pos=["data"],
                           kinds={"data": lambda v: True, "seed": SEED,
                                  **dict.fromkeys(("keys", "numeric", "strata", "sensitive",
                                                   "pram", "identifiers"), names()),
                                  "weight": choice("w", "income", none=True),
                                  "household": choice("hid", "region", none=True)}),
        "SdcSession.from_parquet": Spec(lambda: sdc.SdcSession.from_parquet, {
            "path": PARQUET, "keys": ["region", "sex"], "columns": ["region", "sex", "age"]},
            pos=["path"], kinds={"path": lambda v: True, "columns": names(),
                                 "index": choice("region", "sex", "age", none=True)}),
        # ------------------------------------------------------------ standalone functions
        "privacy.search": Spec(lambda: privacy.search, {
            "data": df, "hierarchies": hz, "models": k2, "max_suppression": 0.25},
            pos=["data", "hierarchies", "models"], kinds={
                "data": lambda v: True, "max_suppression": P01,
                "search": choice("optimal", "heuristic"),
                "metric": choice(*privacy.METRICS)}),
        "privacy.check": Spec(lambda: privacy.check, {"data": df, "keys": ["a", "b"],
                                                      "models": k2},
                              pos=["data", "keys", "models"], kinds={"data": lambda v: True,
                                                                     "keys": names(
                                                                         empty=False)}),
        "read_data": Spec(lambda: sdc.io.read_data, {"path": CSV}, pos=["path"], kinds={
            "path": lambda v: True, "columns": names(), "categorical": names(),
            "max_decompressed": integer(1, none=True, huge=False)}),
        "Hierarchy.from_parents": Spec(lambda: Hierarchy.from_parents,
                                       {"parents": {"a": "*", "b": "*"}}, pos=["parents"]),
        "run_app": Spec(lambda: _run_app, {"data": CSV}, pos=["data"], kinds={
            "data": lambda v: not isinstance(v, str) or v != CSV,
            "port": integer(1, 65535, none=True), "max_kernels": K1,
            "idle_minutes": number(0, lo_open=True)}),
        "compare": Spec(lambda: sdc.compare, {}, session=False, skip={"items"}),
        "tables.build_ptable": Spec(lambda: t.build_ptable, {}, kinds={
            "D": K1, "V": POS, "js": integer(0), "pstay": number(0, 1, none=True)}),
        "utility.il1s": Spec(lambda: u.il1s, {"original": num, "masked": masked},
                             pos=["original", "masked"],
                             kinds={"original": lambda v: True, "masked": lambda v: True}),
        "utility.propensity_score": Spec(lambda: u.propensity_score, {
            "original": num, "masked": masked}, pos=["original", "masked"],
            kinds={"original": lambda v: True, "masked": lambda v: True,
                   "c": number(0, 1, none=True)}),
        "risk.risky_cells": Spec(lambda: r.risky_cells, {"data": df, "keys": ["a", "b"]},
                                 pos=["data", "keys"], kinds={"data": lambda v: True}),
        "methods.generate_strata": Spec(lambda: sdc.methods.generate_strata, {
            "data": df, "columns": ["a", "b"], "name": "st"}, pos=["data", "columns", "name"],
            kinds={"data": lambda v: True, "columns": names(none=False, empty=False)}),
    }
    specs.update(_more_specs())
    specs.update(_imported_specs())
    return specs


def _more_specs() -> dict[str, Spec]:
    """Attacks, tables, treatment objects, the record-swapping kernel, projects and the CLI."""
    t = sdc.tables
    pt = t.build_ptable()
    tot, top = np.array([10.0, 20.0, 30.0]), np.array([[9.0], [5.0], [10.0]])
    tab = _keyed_session().tabulate("region", "sex")
    swap_kw = dict(household="hid", hierarchy=["region"], similar=["hhsize"], swaprate=0.1,
                   risk_variables=["sex", "age5"], rng=np.random.default_rng(1))
    out: dict[str, Spec] = {
        "s.attacks.singling_out": Spec(lambda s: s.risk.attacks.singling_out,
                                       {"n_attacks": 20}, session=True,
                                       kinds={"n_attacks": integer(1), "seed": SEED,
                                              "mode": choice("multivariate", "univariate")}),
        "s.attacks.linkability": Spec(lambda s: s.risk.attacks.linkability, {"n_attacks": 20},
                                      session=True, kinds={"n_attacks": integer(1),
                                                           "seed": SEED}),
        "s.attacks.inference": Spec(lambda s: s.risk.attacks.inference, {"n_attacks": 20},
                                    session=True, kinds={"n_attacks": integer(1), "seed": SEED,
                                                         "tolerance": number(0)}),
        "s.attacks.tcap": Spec(lambda s: s.risk.attacks.tcap, {}, session=True,
                               kinds={"target": choice(*SURVEY.columns, none=True)}),
        "s.attacks.dcr": Spec(lambda s: s.risk.attacks.dcr, {}, session=True),
        "tables.RecordKeys": Spec(lambda: t.RecordKeys, {}, kinds={
            "kind": choice("integer", "uniform"), "modulus": integer(2, huge=False),
            "digits": integer(1, huge=False)}),
        "tables.draw_record_keys": Spec(lambda: t.draw_record_keys, {
            "n": 5, "rng": np.random.default_rng(0)}, pos=["n", "rng"],
            kinds={"n": integer(0), "kind": choice("integer", "uniform")}),
        "tables.noise_ptable": Spec(lambda: t.noise_ptable, {}, kinds={"V": POS}),
        "tables.ptable_frame": Spec(lambda: t.ptable_frame, {"pt": pt}, pos=["pt"]),
        "tables.check_ptable": Spec(lambda: t.check_ptable, {"pt": pt}, pos=["pt"],
                                    kinds={"js": integer(0, none=True)}),
        "tables.frequency_rule": Spec(lambda: t.frequency_rule, {
            "n": np.array([1, 5, 10]), "minimum": 3}, pos=["n", "minimum"],
            kinds={"minimum": integer(0, huge=False)}),
        "tables.dominance": Spec(lambda: t.dominance, {"total": tot, "top": top, "n": 1,
                                                       "k": 80.0}, pos=["total", "top"],
                                 kinds={"n": integer(1, huge=False), "k": number(0, 100)}),
        "tables.p_percent": Spec(lambda: t.p_percent, {"total": tot, "top": top, "p": 10.0},
                                 pos=["total", "top"], kinds={"p": number(0, 100)}),
        "tables.published": Spec(lambda: t.published, {"table": tab}, pos=["table"]),
        "tables.handoff": Spec(lambda: t.handoff, {"table": tab, "dims": ["region", "sex"]},
                               pos=["table"], kinds={"dims": names(none=False, empty=False)}),
        "methods.record_swap": Spec(lambda: sdc.methods.record_swap, {"data": SURVEY, **swap_kw},
                                    pos=["data"], kinds={
                                        "data": lambda v: True, "swaprate": P01,
                                        "k_anonymity": K1, "return_swapped_id": flag()}),
        "methods.treatment_schema": Spec(lambda: sdc.methods.treatment_schema,
                                         {"tag": "rank_swap"}, pos=["tag"],
                                         kinds={"tag": choice(*sdc.methods.TREATMENTS)}),
        "val_table": Spec(lambda: sdc.val_table, {"data": SURVEY[["income", "expend"]],
                                                  "methods": ["rank_swap"]}, pos=["data"],
                          kinds={"data": lambda v: True, "k": integer(1, huge=False),
                                 "noise": number(0), "p": number(0, 100, lo_open=True),
                                 "seed": integer(0, huge=False)}),
        "report": Spec(lambda: sdc.report, {"path": os.path.join(_DIR, "rep2.html"),
                                            "overwrite": True, "figures": False},
                       kinds={"path": lambda v: v is not None}),
        "s.plot.distributions": Spec(lambda s: s.plot.distributions, {"column": "income"},
                                     session=True, kinds={"column": choice("income", "region",
                                                                           "expend", "sex")}),
        "s.plot.mosaic": Spec(lambda s: s.plot.mosaic, {"columns": ["region", "sex"]},
                              session=True, kinds={"columns": names(none=False, empty=False)}),
        "open_project": Spec(lambda: sdc.open_project, {"path": _project()}, pos=["path"],
                             kinds={"path": lambda v: True}),
        "cli.main": Spec(lambda: _cli, {"argv": ["risk", CSV, "--keys", "region,sex"]},
                         pos=["argv"], kinds={"argv": lambda v: True}),
    }
    for name, kw in _treatment_objects().items():
        out[f"methods.{name}"] = Spec((lambda n: lambda: sdc.methods.TREATMENTS[n])(name),
                                      kw)
    return out


def _project() -> str:
    path = os.path.join(_DIR, "valid.sdcproj")
    if not os.path.exists(path):
        _session().save_project(path, include_data=True)
    return path


def _cli(argv: Any) -> int:
    """The command line: a bad argv is a usage error (exit code 2), never an exception."""
    import contextlib
    import io

    from sdcsession.cli import main

    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    if code not in (0, 1, 2):
        raise AssertionError(f"exit code {code}")
    if code != 0:
        raise sdc.ParameterError("usage error")  # refused, as it should be for bad argv
    return code


def _treatment_objects() -> dict[str, dict[str, Any]]:
    """Valid keyword arguments of each treatment object (a step of a recipe)."""
    sys.path.insert(0, os.path.dirname(__file__))
    import test_bad_input_session as se

    out = {}
    alias = {"remove": "remove_columns", "add_record_keys": "record_keys"}
    for method, kw in se.TEMPLATES.items():
        tag = alias.get(method, method)
        cls = sdc.methods.TREATMENTS.get(tag)
        if cls is None:
            continue
        try:
            cls(**kw)
        except Exception:  # noqa: BLE001 - only treatments built from the template are generated
            continue
        out[tag] = dict(kw)
    return out


def _imported_specs() -> dict[str, Spec]:
    """The valid calls of the other bad-input suites, generated here over *every* parameter of
    the signature (those suites vary only the arguments their templates name)."""
    sys.path.insert(0, os.path.dirname(__file__))
    import test_bad_input_entry_points as ep
    import test_bad_input_functions as fu
    import test_bad_input_session as se
    import test_bad_input_utility as ut
    import test_bad_input_utility_single as us

    out: dict[str, Spec] = {}
    data_kinds = {"data": lambda v: True, "df": lambda v: True, "original": lambda v: True,
                  "masked": lambda v: True, "x": lambda v: True, "y": lambda v: True}
    for name, (fn, pos, valid) in fu.SPECS.items():
        out[f"risk.{name}"] = Spec(lambda fn=fn: fn, dict(valid), pos=list(pos), kinds=data_kinds)
    for name, (fn, pos, valid, kinds) in ep.SPECS.items():
        out.setdefault(f"ep.{name}", Spec(lambda fn=fn: fn, dict(valid), pos=list(pos),
                                          kinds={**data_kinds, **kinds}))
    o, m = ut.base_frames()
    for name, (fn, kw) in ut.SPECS.items():
        if name == "compute":
            continue
        out.setdefault(f"utility.{name}", Spec(
            lambda fn=fn: fn, {"original": o, "masked": m, **kw}, pos=["original", "masked"],
            kinds=data_kinds))
    for name, (fn, pos, valid) in us.SPECS.items():  # data may be a Series here
        out[f"utility.{name}"] = Spec(lambda fn=fn: fn, dict(valid), pos=list(pos))
    for method, kw in se.TEMPLATES.items():
        out.setdefault(f"s.{method}", Spec((lambda m: lambda s: getattr(s, m))(method),
                                           dict(kw), session=True, make=se.session))
    return out


class _Started(Exception):
    """The app passed its checks and would start: counted as accepted."""


def _run_app(*a: Any, **kw: Any) -> Any:
    from sdcsession.present.workbench import app

    old = app.voila_command

    def started(*_a: Any, **_k: Any) -> Any:
        raise _Started

    app.voila_command = started
    try:
        return app.run_app(*a, **kw)
    except _Started:
        return 0
    finally:
        app.voila_command = old


# ------------------------------------------------------------------------------ the runner
def parameters(fn: Callable) -> dict[str, inspect.Parameter]:
    sig = inspect.signature(fn)
    return {n: p for n, p in sig.parameters.items()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and n != "self"}


def _short(v: Any) -> str:
    try:
        text_ = repr(v)
    except Exception:  # noqa: BLE001
        text_ = type(v).__name__
    return text_ if len(text_) < 50 else text_[:47] + "..."


def _frames(args: dict[str, Any]) -> dict[str, Any]:
    return {k: v.copy(deep=True) for k, v in args.items()
            if isinstance(v, (pd.DataFrame, pd.Series))}


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a.equals(b) and list(getattr(a, "columns", [])) == \
        list(getattr(b, "columns", []))


@dataclass
class Outcome:
    calls: int = 0
    raw: list[str] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)


def run_spec(name: str, spec: Spec, out: Outcome, only: str | None = None) -> None:
    s = (spec.make or _session)() if spec.session else None
    fn = spec.target(s) if spec.session else spec.target()
    params = parameters(fn)
    values = spec.values if spec.values is not None else BAD_VALUES
    for p, par in params.items():
        if p in spec.skip or (only and p != only):
            continue
        refuse = spec.kinds.get(p) or oracle(par)
        for v in values:
            if p in PATHS and isinstance(v, (str, bytes)):
                continue  # a text path is a valid file name: it would be written
            args = {**spec.valid, p: v}
            _one(name, spec, s, fn, args, p, v, refuse, out)


def _one(name: str, spec: Spec, s: Any, fn: Callable, args: dict[str, Any], p: str, v: Any,
         refuse: Callable[[Any], bool], out: Outcome) -> None:
    out.calls += 1
    before = _frames(args)
    survey = SURVEY.copy(deep=True) if spec.session else None
    head = s.head if s is not None else None
    n_steps = len(s.steps) if s is not None else 0
    data = s.data if s is not None else None
    where = f"{name}({p}={_short(v)})"
    pos = [args[q] for q in spec.pos if q in args]
    kw = {k: x for k, x in args.items() if k not in spec.pos}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*pos, **kw)
        ok = True
    except SdcError as e:
        ok = False
        if s is not None:
            if s.head is not head or len(s.steps) != n_steps:
                out.other.append(f"{where}: HEAD moved on {type(e).__name__}")
            elif not _same(s.data, data):
                out.other.append(f"{where}: the session's data changed on a refusal")
    except Exception as e:  # noqa: BLE001 - the point of the test
        ok = False
        out.raw.append(f"{where} raised {type(e).__name__}: {str(e)[:120]}")
    for k, fr in before.items():
        if not _same(args[k], fr):
            out.other.append(f"{where}: argument {k} was modified")
    if survey is not None and not _same(SURVEY, survey):
        out.other.append(f"{where}: the caller's data were modified")
    if ok:
        try:
            bad = refuse(v)
        except Exception:  # noqa: BLE001
            bad = False
        if bad:
            out.accepted.append(f"{where} was accepted")
        if s is not None and s.head is not head:
            s.checkout(head)


# ------------------------------------------------------------------------------ the command line
CLI_VALUES = ["", " ", "no", "nan", "inf", "-inf", "-1", "0", "1.5", "1e400", "10" * 16, "no_such",
              "region,region", ",", "a\x00b"]


def _cli_cases() -> list[tuple[list[str], int, str, Callable[[str], bool]]]:
    """(valid argv, index of the value replaced, option, refusal rule) for every option."""
    masked = os.path.join(_DIR, "masked.csv")
    if not os.path.exists(masked):
        SURVEY.assign(income=SURVEY["income"] + 1.0).to_csv(masked, index=False)
    count = lambda lo: lambda v: not (v.strip().isdigit() and int(v) >= lo)  # noqa: E731
    bases = {
        "risk": ["risk", CSV, "--keys", "region,sex", "--weight", "w", "--household", "hid"],
        "measure": ["measure", CSV, masked, "--measures", "il1s", "--columns", "income"],
        "demo": ["demo", "--households", "5", "--seed", "1"],
        "app": ["app", CSV, "--keys", "region,sex", "--weight", "w", "--seed", "1", "--port",
                "8765", "--max-kernels", "2", "--idle-minutes", "5", "--no-browser"],
    }
    rules: dict[str, Callable[[str], bool]] = {
        "--households": count(1), "--seed": count(0), "--port": lambda v: count(1)(v) or
        int(v) > 65535, "--max-kernels": count(1), "--keys": lambda v: v not in ("region,sex",),
        "--weight": lambda v: v != "w", "--household": lambda v: v != "hid",
        "--measures": lambda v: v != "il1s", "--columns": lambda v: v != "income",
        "--idle-minutes": lambda v: v not in ("1.5", "10" * 16) and count(1)(v)}
    out = []
    for argv in bases.values():
        for i, a in enumerate(argv):
            if a.startswith("--") and i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                out.append((argv, i + 1, a, rules.get(a, lambda v: False)))
    return out


def run_cli(out: Outcome) -> None:
    """Every option of the command line with every bad value: exit code 2 (usage) or 1, never
    an exception; an invalid value is never accepted (exit code 0)."""
    for argv, i, option, refuse in _cli_cases():
        for v in CLI_VALUES:
            args = [*argv[:i], v, *argv[i + 1:]]
            out.calls += 1
            where = f"cli {argv[0]} {option} {v!r}"
            try:
                code = _run_app_cli(args)
            except Exception as e:  # noqa: BLE001 - the point of the test
                out.raw.append(f"{where} raised {type(e).__name__}: {str(e)[:120]}")
                continue
            if code == 0 and refuse(v):
                out.accepted.append(f"{where} was accepted")


def _run_app_cli(argv: list[str]) -> int:
    import contextlib
    import io

    from sdcsession.cli import main
    from sdcsession.present.workbench import app

    old = app.voila_command

    def started(*_a: Any, **_k: Any) -> Any:
        raise _Started

    app.voila_command = started
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            return main(argv)
    except _Started:
        return 0
    finally:
        app.voila_command = old


SPECS = _specs()
#: parameters naming a file that a call writes
PATHS = {"path"}


def _setup() -> None:
    if not os.path.exists(PARQUET):
        pytest.importorskip("pyarrow")
        SURVEY.to_parquet(PARQUET)


#: entry points whose accepted calls compute something costly (attacks, robust distances, model
#: fits, reports): the test gives them the values most likely to be wrong (every value with
#: ``SDC_GENERATED_FULL=1`` or ``python tests/test_bad_input_generated.py``)
SLOW = {"s.risk.attacks", "s.attacks.singling_out", "utility.model_utility", "s.risk.rmd",
        "s.utility.ml", "s.report", "report", "s.plot.distributions", "s.plot.mosaic"}
SHORT_VALUES: list[Any] = [
    None, True, "no", 0, -1, 10**30, 10**400, 1.5, NAN, INF, Fraction(1, 3), "", "no_such", [],
    ["no_such"], {}, {"no_such": 1}, object(), _Unhashable(), np.array([[1, 2]])]


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_parameter_with_every_bad_value(name):
    _setup()
    out = Outcome()
    spec = SPECS[name]
    if name in SLOW and not os.environ.get("SDC_GENERATED_FULL"):
        spec = Spec(**{**spec.__dict__, "values": SHORT_VALUES})
    run_spec(name, spec, out)
    assert out.raw == [] and out.accepted == [] and out.other == []


def test_enough_calls():
    """The grid: entry points x parameters x bad values (more than both generated suites of the
    issue together, about 9,600 calls)."""
    n = 0
    for name, spec in SPECS.items():
        s = (spec.make or _session)() if spec.session else None
        params = [p for p in parameters(spec.target(s) if s else spec.target())
                  if p not in spec.skip]
        n += len(params) * len(SHORT_VALUES if name in SLOW else BAD_VALUES)
    assert len(SPECS) >= 200 and n >= 30_000


def test_named_refusals_keep_head():
    """Cases the generated grid found, with their messages; HEAD stays where it was."""
    s = _session()
    head = s.head
    cases: list[tuple[Callable[[], Any], type, str]] = [
        (lambda: s.rank_swap("income", p=None), sdc.ParameterError,
         "p (a percentage): expected a number in (0, 100] (default 5)"),
        (lambda: s.risk.suda2(original_scores=0), sdc.ParameterError, "original_scores"),
        (lambda: s.risk.risky_cells(by_table=0), sdc.ParameterError,
         "by_table: expected True or False, got 0"),
        (lambda: s.risk.k_violations(k=_Unhashable()), sdc.ParameterError,
         "k_violations: k: expected a plain value"),
        (lambda: s.risk.attacks(attacks=None), sdc.ParameterError, "attacks: expected names"),
        (lambda: s.risk.attacks(n_attacks=10**30), sdc.ParameterError,
         "n_attacks: expected a whole number in [1, 10,000,000]"),
        (lambda: s.risk.record_linkage(variables=True), sdc.ParameterError, "variables"),
        (lambda: s.utility.gdu(recode_variant=None), sdc.ParameterError, "recode_variant"),
        (lambda: s.utility.benchmark("mean:income", calibrate=True), sdc.ParameterError,
         "calibrate"),
        (lambda: s.utility.score(weights=None), sdc.ParameterError, "weights: expected three"),
        (lambda: sdc.tables.build_ptable(mono=0), sdc.ParameterError, "mono: expected True"),
        (lambda: sdc.tables.dominance([10.0], [[9.0]], n=1, k=None), sdc.ParameterError, "k: "),
        (lambda: sdc.methods.generate_strata(SURVEY, {"region"}, "st"), sdc.ParameterError,
         "a set has no order"),
        (lambda: sdc.utility.loss_metric(small(), small(), hierarchies=True), sdc.ParameterError,
         "hierarchies must be a mapping"),
        (lambda: sdc.val_table(SURVEY[["income"]], ["rank_swap"], seed=True),
         sdc.ParameterError, "seed: expected an integer"),
    ]
    for call, err, text in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(err) as e:
                call()
        assert text in str(e.value), (text, str(e.value))
        assert s.head is head
    # the default p and Moore's r0: p gives way to r0 (same swap as p=None, r0=0.9 before)
    a = _session().rank_swap("income", r0=0.9, seed=3).data["income"]
    b = _session().rank_swap("income", p=5.0, r0=0.9, seed=3).data["income"]
    pd.testing.assert_series_equal(a, b)
    assert not a.equals(SURVEY["income"])
    assert s.rank_swap("income", seed=3).head.treatment.p == 5.0


def test_the_command_line_with_every_bad_value():
    out = Outcome()
    run_cli(out)
    assert out.raw == [] and out.accepted == []


if __name__ == "__main__":
    _setup()
    total = Outcome()
    sel = sys.argv[1:]
    if not sel or "cli" in sel:
        run_cli(total)
        for line in total.raw + total.accepted:
            print(line)
    for nm, sp in SPECS.items():
        if sel and nm not in sel:
            continue
        o = Outcome()
        run_spec(nm, sp, o)
        total.calls += o.calls
        for line in o.raw + o.accepted + o.other:
            print(line)
        total.raw += o.raw
        total.accepted += o.accepted
        total.other += o.other
    print(f"calls {total.calls}: raw {len(total.raw)}, accepted {len(total.accepted)}, "
          f"other {len(total.other)}")
