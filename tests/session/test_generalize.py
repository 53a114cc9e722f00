"""`s.generalize`: one undoable, replayable step; errors leave HEAD unchanged (issue 19)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession import privacy as P
from sdcsession.errors import ParameterError, SdcError, TreatmentError

H = sdc.Hierarchy


def data(n: int = 800, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(0, 80, n),
        "zip": rng.choice(["1011", "1012", "1045", "2020", "2031"], n),
        "sex": pd.Categorical(rng.choice(["m", "f"], n)),
        "ill": rng.choice(["a", "b", "c", "d"], n, p=[.4, .3, .2, .1]),
        "income": rng.normal(100, 10, n),
    })


HS = {"age": H.intervals([list(range(0, 81, 10)), [0, 40, 80]]), "zip": H.masking(4),
      "sex": H.from_nested({"*": ["m", "f"]})}
MODELS = [P.KAnonymity(5), P.DistinctLDiversity("ill", 2), P.TCloseness("ill", 0.3)]


def session(df: pd.DataFrame | None = None) -> sdc.SdcSession:
    return sdc.SdcSession(data() if df is None else df, keys=["age", "zip", "sex"],
                          numeric=["income"], sensitive=["ill"], seed=4)


def test_step_result_and_release():
    s = session()
    s.generalize(HS, MODELS, max_suppression=0.02)
    g = s.generalization
    assert set(g.levels) == set(HS) and g.metric == "loss"
    assert g.baseline is not None and g.suppressed <= g.baseline["suppressed"]
    assert g.nodes_checked <= g.nodes_total == 4 * 5 * 2
    assert 0 <= g.suppressed <= 16
    out = s.data
    assert bool(P.check(out, list(HS), MODELS))
    supp = out[list(HS)].isna().all(axis=1)
    assert int(supp.sum()) == g.suppressed
    # the released values are the hierarchy's labels at the chosen levels
    for c, lv in g.levels.items():
        exp = HS[c].generalize(s.original[c], lv)
        got = out[c]
        assert [str(x) for x in got[~supp]] == [str(x) for x in exp[~supp]]
    assert out["income"].equals(s.original["income"])      # untouched column
    step = s.history[-1]
    assert step.notes["levels"] == g.levels and "summary" in step.notes
    assert "nodes checked" in repr(s.history) and "levels" in repr(s.history)
    assert g.lattice["status"].eq("chosen").sum() == 1
    json.dumps(step.notes)


def test_optimal_value_matches_search_function():
    df = data()
    s = session(df).generalize(HS, MODELS, max_suppression=0.02, metric="loss")
    r = P.search(df, HS, MODELS, max_suppression=0.02, metric="loss")
    assert s.generalization.value == pytest.approx(r.value)
    assert s.generalization.levels == r.levels


def test_replay_identical_and_undo():
    df = data()
    s = session(df).generalize(HS, MODELS, max_suppression=0.02)
    s.add_noise("income", noise=0.1)
    rec = s.to_recipe()
    json.dumps(rec)
    s2 = sdc.SdcSession.from_recipe(df, rec)
    assert s2.data.equals(s.data)
    assert s2.generalization.levels == s.generalization.levels
    s.undo(2)
    assert s.data.equals(df) and s.generalization is None
    s.redo()
    assert s.generalization is not None


def test_heuristic_search_step():
    s = session().generalize(HS, MODELS, max_suppression=0.02, search="heuristic")
    assert s.generalization.search == "heuristic"
    assert bool(P.check(s.data, list(HS), MODELS))


def test_partial_hierarchies_leave_other_keys():
    s = session().generalize({"zip": H.masking(4)}, [P.KAnonymity(2)], max_suppression=0.5)
    assert s.data["age"].equals(s.original["age"])


@pytest.mark.parametrize("kwargs, err, msg", [
    ({"hierarchies": {"zip": H.masking(3)}}, ParameterError, "exactly 3 characters"),
    ({"hierarchies": {"sex": H.from_nested({"*": ["m"]})}}, ParameterError, "'f'"),
    ({"privacy": [P.DistinctLDiversity("zip", 2)]}, ParameterError, "quasi-identifier"),
    ({"privacy": [P.KAnonymity(10_000)]}, TreatmentError, "least suppression"),
    ({"privacy": []}, ParameterError, "privacy"),
    ({"max_suppression": 1.5}, ParameterError, "max_suppression"),
    ({"metric": "nope"}, ParameterError, "metric"),
    ({"search": "nope"}, ParameterError, "search"),
    ({"baseline": "anjana"}, ParameterError, "baseline"),
    ({"hierarchies": {"income": H.intervals([[0, 1000]])}}, TreatmentError, "not key"),
    ({"hierarchies": {"nope": H.masking(2)}}, TreatmentError, "unknown column"),
    ({"privacy": [P.TCloseness("nope", 0.2)]}, SdcError, "nope"),
])
def test_bad_input_leaves_head(kwargs, err, msg):
    s = session()
    head = s.head
    params = {"hierarchies": HS, "privacy": MODELS, "max_suppression": 0.02, **kwargs}
    with pytest.raises(err, match=msg):
        s.generalize(**params)
    assert s.head is head and len(s.steps) == 1


def test_plot_lattice_is_one_call():
    import matplotlib

    matplotlib.use("Agg")
    s = session().generalize(HS, MODELS, max_suppression=0.02)
    ax = s.plot.lattice()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("chosen (1)") for t in labels)
    with pytest.raises(ParameterError, match="generalize"):
        session().plot.lattice()
