"""Generated bad input for the single-frame and scalar utility functions (those of
``sdcsession.utility.__all__`` that do not take ``(original, masked)``).

Each call with one argument replaced by a bad value either succeeds (the value happened to be
valid) or raises an ``SdcError`` whose message names the argument, never another exception type,
and never modifies the caller's frame.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import sdcsession.utility as u
from sdcsession.errors import SdcError

NAN, INF = float("nan"), float("inf")
BAD_VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 10**30, 0.5, -0.5, 1.5, NAN, INF, -INF, "", "3", "zz", [],
    ["zz"], ["x", "x"], [1], [[1]], [["x"]], (), {}, {"x": 1}, {"x"}, object(), 1 + 2j,
    pd.Series([1, 2]), np.array([[1, 2]]), pd.DataFrame({"q": [1]}),
]
#: words that may name a replaced data argument in an error message
DATA_WORDS = ("data", "values", "masked", "x", "weights", "numerator", "denominator", "column",
              "keys", "original", "swapped", "release")


def frame() -> pd.DataFrame:
    return pd.DataFrame({
        "x": [1.0, 2.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
        "y": [10.0, 9.0, 8.5, 7.0, 6.0, 5.0, 4.0, 3.5, 2.0, 1.5],
        "a": ["p", "q", "p", "r", "q", "p", "r", "q", "p", "q"],
        "b": ["u", "v", "u", "u", "v", "v", "u", "u", "v", "u"],
        "w": [1.0, 2.0, 1.5, 1.0, 3.0, 2.0, 1.0, 2.5, 1.0, 2.0],
        "h": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
    })


def _specs() -> dict[str, tuple[Any, list[str], dict[str, Any]]]:
    """name -> (function, positional parameter names, valid arguments)."""
    df = frame()
    x, w = df["x"].to_numpy(), df["w"].to_numpy()
    return {
        "cramers_v": (u.cramers_v, ["data"], {"data": df, "columns": ["a", "b"], "weight": "w"}),
        "entropy": (u.entropy, ["data"], {"data": df["a"], "base": 2, "missing": "exclude"}),
        "mcd_covariance": (u.mcd_covariance, ["x"], {
            "x": np.column_stack([x, df["y"].to_numpy()]), "seed": 1, "n_starts": 5}),
        "equivalence_class_sizes": (u.equivalence_class_sizes, ["masked"], {
            "masked": df, "keys": ["a", "b"]}),
        "c_avg": (u.c_avg, ["masked"], {"masked": df, "keys": ["a", "b"], "k": 2}),
        "discernibility": (u.discernibility, ["masked"], {
            "masked": df, "keys": ["a", "b"], "suppressed": 1, "n": 11}),
        "weighted_mean": (u.weighted_mean, ["values", "weights"], {"values": x, "weights": w}),
        "weighted_total": (u.weighted_total, ["values", "weights"], {"values": x, "weights": w}),
        "weighted_ratio": (u.weighted_ratio, ["numerator", "denominator", "weights"], {
            "numerator": x, "denominator": df["y"].to_numpy(), "weights": w}),
        "weighted_quantile": (u.weighted_quantile, ["values", "weights"], {
            "values": x, "weights": w, "q": 0.25}),
        "weighted_median": (u.weighted_median, ["values", "weights"], {"values": x, "weights": w}),
        "gini": (u.gini, ["values", "weights"], {"values": x, "weights": w}),
        "arpr": (u.arpr, ["values", "weights"], {"values": x, "weights": w, "p": 0.6, "q": 0.5}),
        "indicator_ci": (u.indicator_ci, ["data", "indicator"], {
            "data": df, "indicator": "mean:x", "weight": "w", "n_boot": 5, "seed": 1,
            "progress": False}),
        "ci_overlap": (u.ci_overlap, ["lower_o", "upper_o", "lower_m", "upper_m"], {
            "lower_o": 1.0, "upper_o": 3.0, "lower_m": 2.0, "upper_m": 4.0}),
        "ldu_psr": (u.ldu_psr, ["p_value"], {"p_value": 0.03}),
        "grc": (u.grc, ["n_original", "n_protected"], {"n_original": 10, "n_protected": 6}),
        "ldu_biv_rule": (u.ldu_biv_rule, ["p_original", "p_protected", "coef2_original",
                                          "coef2_protected"], {
            "p_original": 0.01, "p_protected": 0.2, "coef2_original": 0.5,
            "coef2_protected": 0.4}),
        "ldu_recoding": (u.ldu_recoding, ["values", "groups"], {
            "values": ["a", "b", "c", "a"], "groups": ["ab", "ab", "c", "ab"]}),
        "fit_formula": (u.fit_formula, ["data", "formula"], {"data": df, "formula": "y ~ x + a"}),
        "model_utility": (u.model_utility, ["original", "release"], {
            "original": df, "release": df, "target": "y", "features": ["x", "a"],
            "model": "linear", "test_size": 0.3, "seed": 1}),
        "info_loss": (u.info_loss, ["original", "swapped", "tables"], {
            "original": df, "swapped": df.assign(a=df["a"].iloc[::-1].to_numpy()),
            "tables": [["a", "b"]], "metric": "abs"}),
    }


SPECS = _specs()
#: not data functions: the catalogue's registry and listing
NOT_COVERED = {"available_measures", "register_measure", "compute"}


def _call(name: str, args: dict[str, Any]) -> Any:
    fn, pos, _ = SPECS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*[args[p] for p in pos], **{k: v for k, v in args.items() if k not in pos})


def check_call(name: str, args: dict[str, Any], replaced: str) -> str:
    frames = {k: v.copy(deep=True) for k, v in args.items()
              if isinstance(v, (pd.DataFrame, pd.Series))}
    try:
        _call(name, args)
        outcome = "ok"
    except SdcError as e:
        msg = str(e)
        words = (replaced, *DATA_WORDS) if replaced in SPECS[name][1][:1] else (replaced,)
        assert any(wd in msg for wd in words), f"{name}({replaced}=...): {msg!r}"
        outcome = type(e).__name__
    except Exception as e:  # noqa: BLE001 - the point of the test
        raise AssertionError(
            f"{name}({replaced}={args[replaced]!r:.50}) raised {type(e).__name__}: {e}") from e
    for k, v in frames.items():
        if isinstance(v, pd.DataFrame):
            pd.testing.assert_frame_equal(args[k], v, obj=f"{name}: argument {k}")
        else:
            pd.testing.assert_series_equal(args[k], v, obj=f"{name}: argument {k}")
    return outcome


def test_the_specs_cover_every_single_frame_function():
    single = {n for n in u.__all__ if callable(getattr(u, n))
              and not inspect.isclass(getattr(u, n))
              and list(inspect.signature(getattr(u, n)).parameters)[:2] != ["original", "masked"]}
    assert single - NOT_COVERED == set(SPECS)
    for name, (_, _, valid) in SPECS.items():
        assert check_call(name, dict(valid), next(iter(valid))) == "ok", name


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_argument_with_every_bad_value(name):
    _, _, valid = SPECS[name]
    outcomes = [check_call(name, {**valid, arg: v}, arg) for arg in valid for v in BAD_VALUES]
    assert outcomes.count("ok") < len(outcomes) / 2  # most of these values are refused
