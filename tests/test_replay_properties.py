"""Property: any scenario of real treatments replays bit for bit from its recipe (through JSON),
and undo restores exactly, whatever the global random state."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession.errors import SdcError
from sdcsession.methods import (
    AddNoise,
    GlobalRecode,
    GroupCategories,
    LocalSuppression,
    Microaggregation,
    Pram,
    RankSwap,
    TopBottomCode,
)

DF = sdc.datasets.synthetic_survey(120, seed=5)
KEYS = ["region", "urbrur", "sex", "age", "marstat"]
NUM = ["income", "expend", "savings"]

treatments = st.one_of(
    st.builds(Pram, st.just(["water"]), pd=st.sampled_from([0.6, 0.8, 1.0]),
              alpha=st.sampled_from([0.0, 0.5, 1.0])),
    st.builds(AddNoise, st.sampled_from([["income"], NUM]),
              method=st.sampled_from(["additive", "correlated2"]),
              noise=st.sampled_from([0.1, 0.5])),
    st.builds(Microaggregation, st.just(NUM), k=st.sampled_from([2, 3, 5])),
    st.builds(RankSwap, st.just(["expend"]), p=st.sampled_from([2.0, 10.0])),
    st.builds(LocalSuppression, k=st.sampled_from([2, 3])),
    st.builds(GlobalRecode, st.just("age"), breaks=st.just([-1, 14, 29, 44, 64, 120])),
    st.builds(TopBottomCode, st.just("income"), st.just(50_000.0),
              st.sampled_from([50_000.0, None, np.nan, pd.NA])),
    st.builds(GroupCategories, st.just("marstat"),
              st.sampled_from([{"other": ["widowed", "divorced"]}, {1: ["widowed", "divorced"]},
                               {True: ["widowed"], 2.5: ["divorced"]}])),
)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(treatments, min_size=1, max_size=4), st.integers(0, 2**31))
def test_recipe_replays_bit_for_bit(ts, seed):
    s = sdc.SdcSession(DF, keys=KEYS, numeric=NUM, weight="w", household="hid", seed=seed)
    datas = [s.data]
    for t in ts:
        try:
            s.apply(t)
        except SdcError:
            continue
        datas.append(s.data)
    recipe = json.loads(json.dumps(s.to_recipe()))
    np.random.seed(seed % 1000)  # the global random state must not matter
    s2 = sdc.SdcSession.from_recipe(DF, recipe)
    pd.testing.assert_frame_equal(s2.data, s.data, check_exact=True)
    assert s2.data.equals(s.data) and list(s2.data.dtypes) == list(s.data.dtypes)
    for c in s.data.select_dtypes("category"):
        assert [repr(v) for v in s2.data[c].cat.categories] == [
            repr(v) for v in s.data[c].cat.categories]
    for i in range(len(datas) - 1, 0, -1):
        s.undo()
        pd.testing.assert_frame_equal(s.data, datas[i - 1], check_exact=True)
    pd.testing.assert_frame_equal(s.original, DF)
