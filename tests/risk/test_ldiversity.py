"""l-diversity: sdcMicro conformance, hand cases, missing values, bad input."""

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcsession.errors import MeasureError, ParameterError
from sdcsession.risk import l_diversity


def test_conformance_testdata():
    ref = reference()["testdata"]
    keys = ref["keys"][:6]
    out = l_diversity(load("testdata"), keys, ["hhcivil", "age"])
    for var in ("hhcivil", "age"):
        exp = ref["ldiversity"][var]
        np.testing.assert_array_equal(out[f"{var}_distinct"].to_numpy(), exp["distinct"])
        np.testing.assert_allclose(out[f"{var}_entropy"].to_numpy(), exp["entropy"], rtol=1e-9)
        np.testing.assert_array_equal(out[f"{var}_recursive"].to_numpy(), exp["recursive"])


def _brute(keys_vals, sens_vals, c):
    n = len(sens_vals)
    out = np.zeros((n, 3))
    for i in range(n):
        grp = [s for k, s in zip(keys_vals, sens_vals) if k == keys_vals[i] and s is not None]
        vals, cnt = np.unique(np.array(grp, dtype=object), return_counts=True) if grp else ([], [])
        r = np.sort(np.asarray(cnt, dtype=float))[::-1]
        if r.size == 0:
            continue
        p = r / r.sum()
        rec = max([ll for ll in range(1, r.size + 1) if r[0] < c * r[ll - 1:].sum()], default=0)
        out[i] = [r.size, np.exp(-(p * np.log(p)).sum()), rec]
    return out


@settings(max_examples=50, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(["a", "b", None]), st.sampled_from([1, 2]),
                               st.sampled_from(["s1", "s2", "s3", "s4", None])),
                     min_size=1, max_size=40),
       c=st.sampled_from([0.5, 1, 2, 3.5]))
def test_matches_brute_force(rows, c):
    df = pd.DataFrame(rows, columns=["k1", "k2", "s"])
    out = l_diversity(df, ["k1", "k2"], "s", c=c)
    kv = list(zip(df["k1"].fillna("<NA>"), df["k2"]))
    sv = [None if pd.isna(v) else v for v in df["s"]]
    exp = _brute(kv, sv, c)
    np.testing.assert_array_equal(out["s_distinct"].to_numpy(), exp[:, 0])
    np.testing.assert_allclose(out["s_entropy"].to_numpy(), exp[:, 1], rtol=1e-12)
    np.testing.assert_array_equal(out["s_recursive"].to_numpy(), exp[:, 2])


def test_hand_case_and_missing_sensitive():
    df = pd.DataFrame({"k": [1, 1, 1, 1, 2, 2], "s": ["a", "a", "a", "b", None, None]},
                      index=list("uvwxyz"))
    out = l_diversity(df, "k", "s", c=2)
    assert out["s_distinct"].tolist() == [2, 2, 2, 2, 0, 0]
    h = -(0.75 * np.log(0.75) + 0.25 * np.log(0.25))
    np.testing.assert_allclose(out["s_entropy"].to_numpy(), [np.exp(h)] * 4 + [0, 0])
    # r1 = 3 < 2 * (3 + 1) (l = 1) and 3 < 2 * 1 fails (l = 2): recursive (2, l) = 1
    assert out["s_recursive"].tolist() == [1, 1, 1, 1, 0, 0]
    assert l_diversity(df, "k", "s", c=4)["s_recursive"].tolist() == [2] * 4 + [0, 0]
    assert list(out.index) == list("uvwxyz")


def test_bad_input():
    df = pd.DataFrame({"k": [1, 2], "s": ["a", "b"]})
    with pytest.raises(ParameterError, match="'k'.*also key"):
        l_diversity(df, ["k"], ["k"])
    with pytest.raises(MeasureError, match="sensitive.*'t'"):
        l_diversity(df, ["k"], "t")
    with pytest.raises(ParameterError, match="c:"):
        l_diversity(df, ["k"], "s", c=0)
    with pytest.raises(ParameterError, match="sensitive"):
        l_diversity(df, ["k"], [])
