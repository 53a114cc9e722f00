"""Generated bad input for the standalone utility measures (``sdcsession.utility.__all__``).

Every function taking ``(original, masked)`` is called with one argument at a time replaced by a
bad value. Each call either succeeds or raises an ``SdcError`` (never another exception type), and
never modifies the caller's frames. Named cases (empty files, duplicate or MultiIndex columns,
list-valued cells, bad ``columns`` / ``types`` / ``seed``, a propensity model that cannot be
fitted) are checked with their messages.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import sdcsession.utility as u
from sdcsession.errors import MeasureError, ParameterError, SdcError

NAN, INF = float("nan"), float("inf")
BAD_VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 10**30, 0.5, -0.5, NAN, INF, -INF, "", "3", "zz", [],
    ["zz"], ["x", "x"], [1], [[1]], [["x"]], (), {}, {"x": 1}, {"x"}, object(),
    pd.Series([1, 2]), np.array([[1, 2]]),
]


def base_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    o = pd.DataFrame({
        "x": [1.0, 2.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
        "y": [10.0, 9.0, 8.5, 7.0, 6.0, 5.0, 4.0, 3.5, 2.0, 1.5],
        "a": ["p", "q", "p", "r", "q", "p", "r", "q", "p", "q"],
        "b": ["u", "v", "u", "u", "v", "v", "u", "u", "v", "u"],
    })
    m = o.copy()
    m["x"] = o["x"] + [0.3, -0.2, 0.1, 0.4, -0.5, 0.2, -0.1, 0.3, -0.4, 0.6]
    m["y"] = o["y"] + [-0.2, 0.1, 0.3, -0.3, 0.2, 0.1, -0.4, 0.2, 0.1, -0.1]
    m.loc[[1, 4], "a"] = "p"
    m.loc[2, "b"] = None
    return o, m


def bad_frames() -> dict[str, Any]:
    o, _ = base_frames()
    return {
        "dup": o.set_axis(["x", "x", "a", "b"], axis=1),
        "multi": o.set_axis(pd.MultiIndex.from_tuples([(c, "1") for c in o.columns]), axis=1),
        "lists": o.assign(a=[[1]] * len(o)),
        "dicts": o.assign(b=[{"q": 1}] * len(o)),
        "empty": o.iloc[:0], "none": None, "list": [[1, 2]], "dict": {"x": [1]},
        "array": o.to_numpy(), "series": o["x"],
    }


def _specs() -> dict[str, tuple[Any, dict[str, Any]]]:
    """name -> (function, keyword arguments besides original and masked)."""
    num, cat = ["x", "y"], ["a", "b"]
    return {
        "missing_values": (u.missing_values, {"columns": cat}),
        "suppressions": (u.suppressions, {"keys": cat}),
        "records_changed": (u.records_changed, {"columns": cat}),
        "contingency_table": (u.contingency_table, {"columns": cat}),
        "ut": (u.ut, {"columns": cat}),
        "ut2": (u.ut2, {"columns": cat}),
        "aad": (u.aad, {"columns": cat}),
        "hellinger": (u.hellinger, {"columns": cat}),
        "ctbil": (u.ctbil, {"columns": cat}),
        "contingency_loss": (u.contingency_loss, {"columns": cat}),
        "cramers_v_loss": (u.cramers_v_loss, {"columns": cat}),
        "direct_distance": (u.direct_distance, {"columns": cat}),
        "entropy_change": (u.entropy_change, {"columns": cat}),
        "ebil": (u.ebil, {"column": "a", "transition": np.full((3, 3), 1 / 3),
                          "categories": ["p", "q", "r"]}),
        "dist": (u.dist, {"columns": cat}),
        "il1s": (u.il1s, {"columns": num}),
        "il1s_sdcmicro": (u.il1s_sdcmicro, {"columns": num}),
        "il1": (u.il1, {"columns": num}),
        "discrepancy_table": (u.discrepancy_table, {"columns": num}),
        "eigen_difference": (u.eigen_difference, {"columns": num, "seed": 1}),
        "il_correl": (u.il_correl, {"columns": num}),
        "il_variables": (u.il_variables, {"columns": ["x", "a"],
                                          "types": {"x": "continuous", "a": "nominal"}}),
        "ks_test": (u.ks_test, {"columns": num}),
        "ecdf_measures": (u.ecdf_measures, {"columns": num}),
        "propensity_score": (u.propensity_score, {"columns": num}),
        "cluster_utility": (u.cluster_utility, {"columns": num, "n_clusters": 3, "seed": 2}),
        "generalisation_counts": (u.generalisation_counts, {"columns": cat}),
        "loss_metric": (u.loss_metric, {"columns": cat}),
        "gdu": (u.gdu, {"columns": ["x", "y", "a"], "types": {"a": "nominal"},
                        "progress": False}),
        "compare_regression": (u.compare_regression, {"formula": "y ~ x"}),
        "compare_indicators": (u.compare_indicators, {"indicators": "mean:x", "n_boot": 5,
                                                      "seed": 1, "progress": False}),
        "compute": (lambda o, m, **kw: u.compute("il1s", o, m, **kw), {"columns": num}),
        "utility_score": (u.utility_score, {"keys": cat, "numeric": num}),
    }


SPECS = _specs()


def _call(name: str, original: Any, masked: Any, kw: dict[str, Any]) -> Any:
    fn, _ = SPECS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(original, masked, **kw)


def check_call(name: str, original: Any, masked: Any, kw: dict[str, Any], what: str) -> str:
    """"ok" or the SdcError class name; fails on any other exception or on modified frames."""
    frames = {k: v.copy(deep=True) for k, v in (("original", original), ("masked", masked))
              if isinstance(v, pd.DataFrame)}
    try:
        _call(name, original, masked, kw)
        outcome = "ok"
    except SdcError as e:
        outcome = type(e).__name__
    except Exception as e:  # noqa: BLE001 - the point of the test
        raise AssertionError(f"{name} with {what} raised {type(e).__name__}: {e}") from e
    for k, v in frames.items():
        pd.testing.assert_frame_equal(original if k == "original" else masked, v,
                                      obj=f"{name}: argument {k}")
    return outcome


def test_the_specs_cover_every_original_masked_function():
    import inspect
    two = {n for n in u.__all__ if callable(getattr(u, n)) and not inspect.isclass(getattr(u, n))
           and list(inspect.signature(getattr(u, n)).parameters)[:2] == ["original", "masked"]}
    assert two <= set(SPECS), sorted(two - set(SPECS))
    o, m = base_frames()
    for name, (_, kw) in SPECS.items():
        assert check_call(name, o, m, kw, "valid arguments") == "ok", name


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_argument_with_every_bad_value(name):
    _, valid = SPECS[name]
    o, m = base_frames()
    outcomes = []
    for arg in valid:
        for v in BAD_VALUES:
            outcomes.append(check_call(name, o, m, {**valid, arg: v}, f"{arg}={v!r:.40}"))
    for which, frame in bad_frames().items():
        outcomes.append(check_call(name, frame, m, valid, f"original={which}"))
        outcomes.append(check_call(name, o, frame, valid, f"masked={which}"))
    assert outcomes.count("ok") < len(outcomes)


@pytest.mark.parametrize("name", sorted(SPECS))
@pytest.mark.parametrize("which", ["original", "masked"])
@pytest.mark.parametrize("frame", ["dup", "multi", "empty"])
def test_unusable_frames_are_refused(name, which, frame):
    o, m = base_frames()
    bad = bad_frames()[frame]
    args = (bad, m) if which == "original" else (o, bad)
    with pytest.raises(SdcError) as e:
        _call(name, *args, SPECS[name][1])
    assert which in str(e.value)


def test_named_cases_have_clear_messages():
    o, m = base_frames()
    with pytest.raises(MeasureError, match="il1s: the original file has no records"):
        u.il1s(o.iloc[:0], m, columns=["x"])
    with pytest.raises(MeasureError, match="propensity_score: the masked file has no records"):
        u.propensity_score(o, m.iloc[:0], columns=["x"])
    with pytest.raises(SdcError, match=r"duplicated column names \['x'\]"):
        u.il1s(bad_frames()["dup"], m)
    with pytest.raises(SdcError, match="the masked file has MultiIndex columns"):
        u.il_correl(o, bad_frames()["multi"])
    with pytest.raises(SdcError, match=r"column 'a' of the masked file holds values that are not "
                                       r"numbers or categories \(10 record\(s\), e.g. a list"):
        u.records_changed(o, bad_frames()["lists"].loc[:, ["x", "y", "a", "b"]], columns=["a"])
    with pytest.raises(ParameterError, match="columns must be a list of column names, got int"):
        u.il1s(o, m, columns=3)
    with pytest.raises(ParameterError, match=r"columns contains duplicates: \['x', 'x'\]"):
        u.il1s(o, m, columns=["x", "x"])
    with pytest.raises(MeasureError, match=r"columns not in the original: \['zz'\]"):
        u.ks_test(o, m, columns=["zz"])
    with pytest.raises(ParameterError, match="types must be a mapping"):
        u.il_variables(o, m, types=["x"])
    with pytest.raises(ParameterError, match="types must be a mapping"):
        u.gdu(o, m, types="nominal", progress=False)
    for seed in (True, -1, 1.5, "3", 10**30):
        with pytest.raises(ParameterError, match=r"seed must be an integer in \[0, 2\*\*32 - 1\]"):
            u.cluster_utility(o, m, columns=["x"], n_clusters=2, seed=seed)
        with pytest.raises(ParameterError, match="eigen_difference: seed must be an integer"):
            u.eigen_difference(o, m, columns=["x", "y"], seed=seed)


def test_valid_calls_still_give_the_hand_checked_numbers():
    o = pd.DataFrame({"x": [1.0, 3.0]})
    m = pd.DataFrame({"x": [2.0, 3.0]})
    assert u.il1s(o, m) == pytest.approx(0.25)  # the module docstring example
    assert u.propensity_score(pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0] * 5}),
                              pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0] * 5})) == pytest.approx(0.0)
