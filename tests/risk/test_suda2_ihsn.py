"""suda2(original_scores=False): the IHSN SUDA2 weights (2^(m-k) - 1) / C(m, k)."""

from __future__ import annotations

import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import ParameterError
from sdcsession.risk import suda2


def test_ihsn_weights_hand_computed():
    # sdcMicro's small example: record 0 has the MSU {a}, record 1 {b} and {c}, record 2
    # {a, b} and {a, c}; m = 3: Elliot weights 2, 1, 0! = 1; IHSN 3/3 = 1, 1/3, 0
    df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
    assert suda2(df, ["a", "b", "c"]).score.tolist() == [2.0, 4.0, 2.0]
    r = suda2(df, ["a", "b", "c"], original_scores=False)
    assert r.score.tolist() == pytest.approx([1.0, 2.0, 2 / 3])
    # contributions use these scores: a in 1 + 2/3 (record 0 and both of record 2's MSUs)
    assert r.contributions["a"] == pytest.approx(100 * (1 + 2 / 3) / (1 + 2 + 2 / 3))


def test_full_key_msu_scores_zero_and_flag_checked():
    df = pd.DataFrame({"a": [1, 1, 2, 2], "b": [1, 2, 1, 2]})
    # every record's only MSU is {a, b} (size m = 2): IHSN weight (2^0 - 1) / 1 = 0
    assert suda2(df, ["a", "b"], original_scores=False).score.tolist() == [0.0] * 4
    assert suda2(df, ["a", "b"]).score.tolist() == [1.0] * 4
    with pytest.raises(ParameterError, match="original_scores"):
        suda2(df, ["a", "b"], original_scores="no")


def test_session_passes_the_option():
    df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
    s = sdc.SdcSession(df, keys=["a", "b", "c"])
    assert s.risk.suda2(original_scores=False).score.tolist() == pytest.approx([1.0, 2.0, 2 / 3])
    assert s.risk.suda2().score.tolist() == [2.0, 4.0, 2.0]
