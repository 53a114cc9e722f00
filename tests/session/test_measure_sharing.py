"""Measures shared between states (per tree) give exactly the figures computed from scratch.

λ is assembled column by column (unchanged columns from the original against itself), the
expected re-identifications of a state with the original's keys come from the original, and
eigen / γ of the original against itself reuse one side: every value must equal, bit for bit,
the kernel run on the state's own data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.risk.exact_sum import exact_sum
from sdcsession.session.measures import COUNTS
from sdcsession.utility.continuous.measures import eigen_difference, il_correl, il_variables

KEYS = ["region", "sex", "age5"]
NUM = ["income", "expend", "savings"]


@pytest.fixture(scope="module")
def tree():
    df = sdc.datasets.synthetic_survey(400, seed=7)
    s = sdc.SdcSession(df, keys=KEYS, numeric=NUM, weight="w", household="hid", seed=3)
    cats = [str(c) for c in df["age5"].cat.categories]
    rec = s.branch("recode").recode("age5", {c: cats[i - 1] for i, c in enumerate(cats)
                                             if i % 2 == 1})
    noise = s.branch("noise").add_noise(NUM, noise=0.3, warn_domain=False)
    both = rec.branch("both").add_noise(["income"], noise=0.5, warn_domain=False)
    return df, s, rec, noise, both


def lam_from_scratch(st) -> float:
    o, m = st.original, st.data
    keys = [c for c in st.original_roles.keys if c in m.columns]
    num = [c for c in st.original_roles.numeric if c in m.columns and c not in keys]
    types = {c: "nominal" for c in keys} | {c: "continuous" for c in num}
    return il_variables(o[keys + num], m[keys + num], columns=keys + num, types=types).overall


def test_lambda_by_column_equals_full_computation(tree):
    _, s, rec, noise, both = tree
    vals = {}
    for sess in (s, rec, noise, both):
        st = sess.state
        vals[sess] = st.measure("lambda_overall")
        assert vals[sess] == lam_from_scratch(st)      # bit for bit
    assert vals[s] == 0.0 < vals[rec] and vals[noise] > 0 and vals[both] > vals[rec]


def test_risk_sums_shared_with_the_original(tree):
    _, s, rec, noise, _ = tree
    for sess in (s, rec, noise):
        st = sess.state
        assert st.measure("expected_reidentifications") == exact_sum(
            st.measure("individual_risk").to_numpy())
        assert st.measure("household_expected_reidentifications") == exact_sum(
            st.measure("household_risk").to_numpy())
    # noise leaves keys and weight: the same figures as the original, computed once per tree
    assert noise.state.measure("expected_reidentifications") == \
        s.state.measure("expected_reidentifications")
    assert rec.state.measure("expected_reidentifications") < \
        s.state.measure("expected_reidentifications")


def test_same_frame_on_both_sides_matches_a_copy():
    df = sdc.datasets.synthetic_survey(300, seed=2)[NUM]
    for fn in (eigen_difference, il_correl):
        assert fn(df, df) == fn(df, df.copy()) == 0.0
    m = df.assign(income=df["income"] * 1.5 + np.arange(len(df)))
    assert eigen_difference(df, m) > 0 and il_correl(df, m) > 0


def test_second_tree_does_not_reuse_the_first(tree):
    df, s, *_ = tree
    other = sdc.SdcSession(df.assign(income=df["income"] * 2), keys=KEYS, numeric=NUM,
                           weight="w", household="hid", seed=3)
    alt = other.branch("r").recode("sex", {str(df["sex"].cat.categories[0]): None})
    before = COUNTS["lambda_overall"]
    assert alt.state.measure("lambda_overall") == lam_from_scratch(alt.state)
    assert COUNTS["lambda_overall"] == before + 1


def test_cached_original_side_gives_the_same_figures():
    df = sdc.datasets.synthetic_survey(300, seed=4)[NUM]
    m = df.assign(income=df["income"] + np.arange(len(df)) % 7, expend=df["expend"] * 0.9)
    m2 = df.assign(savings=df["savings"][::-1].to_numpy())
    for fn in (eigen_difference, il_correl):
        cache: dict = {}
        assert fn(df, df, cache=cache) == 0.0 and len(cache) == 1   # stored by the o-o call
        for x in (m, m2):
            assert fn(df, x, cache=cache) == fn(df, x) > 0            # reused: bit for bit
    with pytest.raises(sdc.MeasureError, match="singular"):
        eigen_difference(df.assign(expend=df["income"]), m, cache={})


def from_scratch(st) -> dict:
    """The compare figures of a state, computed by the kernels on its own data (no cache)."""
    from sdcsession.utility.continuous.measures import il1s

    o, m = st.original[NUM], st.data[NUM]
    return {"il1s": il1s(o, m), "eigen": eigen_difference(o, m), "il_correl": il_correl(o, m),
            "lambda": lam_from_scratch(st),
            "expected_reidentifications": exact_sum(sdc.risk.individual_risk(
                st.data, KEYS, weight="w").to_numpy())}


def test_compare_after_undo_branch_and_checkout_equals_a_fresh_computation():
    from sdcsession.present.compare import compare

    df = sdc.datasets.synthetic_survey(300, seed=11)
    s = sdc.SdcSession(df, keys=KEYS, numeric=NUM, weight="w", household="hid", seed=5)
    cats = [str(c) for c in df["age5"].cat.categories]
    s.recode("age5", {c: cats[i - 1] for i, c in enumerate(cats) if i % 2 == 1})
    b = s.branch("noise")
    b.undo()
    b.add_noise(NUM, noise=0.2, warn_domain=False)
    cols = ["il1s", "eigen", "il_correl", "lambda", "expected_reidentifications"]

    def check(*sessions):
        t = compare(*sessions, measures=cols)
        for i, sess in enumerate(sessions):
            want = from_scratch(sess.state)
            assert {c: t[c].iloc[i] for c in cols} == want     # bit for bit
        return t

    t1 = check(s, b)
    assert t1["il1s"].iloc[0] == 0.0 < t1["il1s"].iloc[1]
    s.undo()                                   # HEAD: the original
    check(s, b)
    s.redo()
    c = s.branch("more").add_noise(["income"], noise=0.6, warn_domain=False)
    check(s, b, c)
    s.checkout(0)
    check(s, c)
    b.undo()                                   # the noise branch back at the original
    t2 = check(b, c)
    assert t2["eigen"].iloc[0] == 0.0 and t2["eigen"].iloc[1] > 0


def test_observed_counts_are_the_states_own():
    from sdcsession.session.views._numeric_columns import numeric_columns

    o = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [1.0, np.nan, np.nan], "z": [4.0, 5.0, 6.0]})
    assert numeric_columns(o, o, ["x", "y", "z"], observed=True) == ["x", "z"]
    assert numeric_columns(o, o.assign(y=[1.0, 2.0, 3.0]), ["x", "y"], observed=True) == ["x"]
    filled = o.assign(y=[1.0, 2.0, 3.0])
    assert numeric_columns(filled, filled, ["y"], observed=True) == ["y"]   # another original
    # a current frame whose column lost its values leaves the measures; a shared one counts as
    # the original's
    assert numeric_columns(o, o.assign(x=[np.nan, np.nan, 1.0]), ["x", "z"],
                           observed=True) == ["z"]
    assert numeric_columns(o, o.assign(w=1), ["x", "z"], observed=True) == ["x", "z"]
