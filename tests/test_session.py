import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import HistoryError, ParameterError, RecipeError, TreatmentError
from sdcsession.methods import Recode, RemoveColumns, Treatment
from sdcsession.session.history import step_seed


@pytest.fixture
def df():
    return pd.DataFrame({
        "region": pd.Categorical(["a", "a", "b", "b", "c", "c"]),
        "sex": pd.Categorical(["m", "f", "m", "f", "m", "m"]),
        "income": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "extra": [0, 1, 0, 1, 0, 1],
    })


@pytest.fixture
def s(df):
    return sdc.SdcSession(df, keys=["region", "sex"], numeric=["income"], seed=3)


def test_undo_redo_branch_checkout(s, df):
    s.recode("region", {"c": "b"})
    s.remove("extra")
    assert list(s.data.columns) == ["region", "sex", "income"]
    assert s.roles.keys == ("region", "sex")
    assert len(s.history) == 3
    s.undo()
    assert "extra" in s.data.columns
    s.undo()
    pd.testing.assert_frame_equal(s.data, df)
    s.redo(2)
    assert list(s.data["region"]) == ["a", "a", "b", "b", "b", "b"]
    with pytest.raises(HistoryError, match="redo"):
        s.redo()
    alt = s.branch("alt")
    alt.undo(2).recode("sex", {"m": "x"})
    assert list(s.data["region"]) == ["a", "a", "b", "b", "b", "b"]
    assert list(alt.data["sex"]) == ["x", "f", "x", "f", "x", "x"]
    assert len(s.steps) == 4  # root, recode, remove, alt's recode
    s.checkout(alt.head.id)
    assert list(s.data["sex"]) == ["x", "f", "x", "f", "x", "x"]
    s.checkout(0)
    pd.testing.assert_frame_equal(s.data, df)


def test_undo_past_root(s):
    with pytest.raises(HistoryError, match="cannot go back 1"):
        s.undo()
    s.recode("sex", {"m": "x"})
    with pytest.raises(HistoryError, match="cannot go back 2"):
        s.undo(2)
    assert s.head.depth == 1
    with pytest.raises(ParameterError):
        s.undo(0)
    with pytest.raises(HistoryError, match="no step #9"):
        s.checkout(9)


def test_new_step_after_undo_clears_redo(s):
    s.recode("sex", {"m": "x"}).undo().recode("sex", {"f": "y"})
    with pytest.raises(HistoryError):
        s.redo()
    assert len(s.steps) == 3  # the undone step stays in the tree


def test_failing_treatment_leaves_head(s):
    head = s.head
    with pytest.raises(TreatmentError, match="unknown column"):
        s.recode("nope", {"a": "b"})
    with pytest.raises(TreatmentError, match="none of"):
        s.recode("sex", {"zz": "b"})
    with pytest.raises(TreatmentError, match="no key variable"):
        s.remove(["region", "sex"])
    assert s.head is head and len(s.steps) == 1


def test_apply_rejects_non_treatment(s):
    with pytest.raises(ParameterError, match="Treatment"):
        s.apply({"type": "recode"})


def test_original_never_mutated_and_private_copy(df, s):
    before = df.copy(deep=True)
    s.recode("region", {"a": "z"})
    d = s.data
    d["income"] = 0.0
    assert s.data["income"].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    df.loc[0, "income"] = 99.0  # the user's frame changes; the session's copy does not
    assert s.original["income"].iloc[0] == 1.0
    pd.testing.assert_frame_equal(df.assign(income=before["income"]), before)


def test_untouched_columns_shared(s):
    s.recode("region", {"a": "z"})
    a = s.history[0].state.data["income"].to_numpy()
    b = s.state.data["income"].to_numpy()
    assert np.shares_memory(a, b)


def test_seeds_recorded_and_derived(s):
    s.recode("sex", {"m": "x"})
    assert s.head.seed == step_seed(3, 1)
    assert step_seed(3, 1) != step_seed(3, 2) and step_seed(3, 1) != step_seed(4, 1)
    assert 0 <= step_seed(3, 1) < 2**63


def test_random_seed_when_none(df):
    a = sdc.SdcSession(df, keys=["sex"])
    assert isinstance(a.seed, int) and a.seed >= 0
    with pytest.raises(ParameterError, match="seed"):
        sdc.SdcSession(df, keys=["sex"], seed=-1)


def test_branch_names_unique(s):
    alt = s.branch("alt")
    with pytest.raises(ParameterError, match="'alt' already exists"):
        s.branch("alt")
    assert alt.name == "alt"


def test_treatment_values():
    a, b = Recode("sex", {"m": "x"}), Recode("sex", {"m": "x"})
    assert a == b and a != Recode("sex", {"m": "y"})
    assert RemoveColumns("x").columns == ("x",)
    assert Treatment.from_dict({"type": "remove_columns", "columns": ["x"]}) == RemoveColumns(["x"])
    with pytest.raises(ParameterError):
        RemoveColumns([])
    with pytest.raises(RecipeError, match="unknown treatment type 'zap'"):
        Treatment.from_dict({"type": "zap"})
    with pytest.raises(RecipeError, match="unknown parameter"):
        Treatment.from_dict({"type": "recode", "column": "a", "mapping": {1: 2}, "x": 1})


def test_history_frame_and_repr(s):
    s.recode("sex", {"m": "x"})
    f = s.history.to_frame()
    assert list(f["treatment"]) == ["original", "recode"]
    assert f["notes"].iloc[1] == {"changed": {"sex": 4}}
    assert "recode(column='sex'" in repr(s.history)
    assert "<script" not in s._repr_html_()


def test_html_is_escaped(df):
    d = df.rename(columns={"sex": "<script>x</script>"})
    s = sdc.SdcSession(d, keys=["<script>x</script>"], seed=1)
    html = s._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_import_does_not_import_matplotlib():
    code = "import sys, sdcsession; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
