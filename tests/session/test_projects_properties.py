"""Property tests of project files: save → open → save gives the same bytes (a project holds no
time of saving), the reopened tree replays to the same data, and any truncation or flipped bit
is a RecipeError, never another exception."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import RecipeError

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(50, 10, n)
    x[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame({
        "a": pd.Categorical(rng.choice(["p", "q", "r"], n)),
        "b": rng.choice(["u", "v"], n).astype(object),
        "x": x, "y": rng.integers(0, 100, n),
    })


STEPS = st.lists(st.tuples(st.sampled_from(["recode", "pram", "noise", "suppress", "round",
                                            "branch", "undo"]), st.integers(0, 3)),
                 min_size=0, max_size=7)


def _build(df: pd.DataFrame, steps: list[tuple[str, int]], seed: int) -> sdc.SdcSession:
    s = sdc.SdcSession(df, keys=["a", "b"], numeric=["x", "y"], seed=seed)
    keep = [s]
    cur = s
    for kind, i in steps:
        try:
            cur = _step(cur, kind, i, keep)
        except sdc.SdcError:  # a step that cannot apply leaves HEAD where it was
            pass
    s.kept = keep
    return s


def _step(cur: sdc.SdcSession, kind: str, i: int, keep: list) -> sdc.SdcSession:
    if kind == "recode":
        cur.recode("b", {"u": "v"} if i % 2 else {"v": "u"})
    elif kind == "pram":
        cur.pram(["a"], pd=0.7 + 0.05 * i)
    elif kind == "noise":
        cur.add_noise(["x"], noise=0.1 * (i + 1))
    elif kind == "suppress":
        cur.local_suppression(k=2 + i)
    elif kind == "round":
        cur.round_values(["y"], base=5 * (i + 1))
    elif kind == "branch":
        cur = cur.branch(f"b{len(keep)}")
        keep.append(cur)
    elif kind == "undo" and cur.head.depth > 0:
        cur.undo()
    return cur


@SETTINGS
@given(n=st.integers(5, 40), seed=st.integers(0, 2**32), steps=STEPS, embedded=st.booleans())
def test_save_open_save_same_bytes(n, seed, steps, embedded):
    df = _frame(n, seed)
    s = _build(df, steps, seed)
    with tempfile.TemporaryDirectory() as d:
        a = s.save_project(Path(d) / "a.sdcproj", include_data=embedded)
        s2 = sdc.open_project(a, data=None if embedded else df)
        b = s2.save_project(Path(d) / "b.sdcproj", include_data=embedded)
        assert a.read_bytes() == b.read_bytes()  # no replay was needed to save it again
        assert not any(x.state.ready for x in s2.steps[1:])
        for x, y in zip(s.steps, s2.steps, strict=True):
            assert y.state.data.equals(x.state.data)
            assert list(y.state.data.dtypes) == list(x.state.data.dtypes)
        assert {k: v.head.id for k, v in s2.scenarios.items()} == \
            {k: v.head.id for k, v in s.scenarios.items()}
        c = s2.save_project(Path(d) / "c.sdcproj", include_data=embedded)
        assert c.read_bytes() == a.read_bytes()  # after the replays, still the same bytes


@pytest.fixture(scope="module")
def project_bytes() -> bytes:
    s = _build(_frame(30, 1), [("pram", 1), ("branch", 0), ("noise", 2), ("suppress", 0)], 3)
    with tempfile.TemporaryDirectory() as d:
        return s.save_project(Path(d) / "p.sdcproj", include_data=True).read_bytes()


@settings(SETTINGS, max_examples=80)
@given(data=st.data())
def test_truncation_is_a_recipe_error(project_bytes, tmp_path_factory, data):
    cut = data.draw(st.integers(0, len(project_bytes) - 1))
    p = tmp_path_factory.mktemp("t") / "p.sdcproj"
    p.write_bytes(project_bytes[:cut])
    with pytest.raises(RecipeError):
        sdc.open_project(p)


@settings(SETTINGS, max_examples=150)
@given(data=st.data())
def test_bit_flip_is_a_recipe_error(project_bytes, tmp_path_factory, data):
    pos = data.draw(st.integers(0, len(project_bytes) - 1))
    bit = data.draw(st.integers(0, 7))
    raw = bytearray(project_bytes)
    raw[pos] ^= 1 << bit
    p = tmp_path_factory.mktemp("f") / "p.sdcproj"
    p.write_bytes(bytes(raw))
    with pytest.raises(RecipeError):
        sdc.open_project(p)
