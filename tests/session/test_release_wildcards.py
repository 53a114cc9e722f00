"""The release check's ``wildcards`` finding: records whose k-anonymity rests on other records'
missing key values (wildcards under the session's alpha), counted as the records below k at
alpha = 0 that are not below k at the session's alpha; the same on pandas and Dask."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.errors import SdcWarning
from sdcsession.risk import k_violations

TINY = pd.DataFrame({"a": ["x", "x", "y", None, None], "b": ["p", "q", "p", "p", "q"],
                     "v": [1.0, 2.0, 3.0, 4.0, 5.0]})


def _row(findings: pd.DataFrame, check: str) -> pd.Series | None:
    rows = findings[findings["check"] == check]
    assert len(rows) <= 1
    return None if rows.empty else rows.iloc[0]


def test_hand_case():
    # alpha = 1: (x,p) = itself + (None,p); (x,q) = itself + (None,q); (y,p) = itself +
    # (None,p): fk = 2 each, no violation at k = 2. At alpha = 0 the blanked records of another
    # pattern do not count: fk = 1 for the three complete records -> 3 records
    s = sdc.SdcSession(TINY, keys=["a", "b"], k=2, seed=1)
    f = s.release_check()
    assert _row(f, "k_anonymity") is None
    row = _row(f, "wildcards")
    assert row is not None and row["severity"] == "warn" and row["records"] == 3
    assert row["variables"] == ["a", "b"] and "alpha = 1" in row["message"]
    assert "alpha=0" in row["message"]


def test_no_finding_without_missing_keys_or_at_alpha_zero():
    full = TINY.fillna({"a": "z"})
    assert _row(sdc.SdcSession(full, keys=["a", "b"], k=2, seed=1).release_check(),
                "wildcards") is None
    s0 = sdc.SdcSession(TINY, keys=["a", "b"], k=2, seed=1, alpha=0)
    f0 = s0.release_check()
    assert _row(f0, "wildcards") is None
    assert _row(f0, "k_anonymity")["records"] == 3  # at alpha = 0 they are violations


def test_partial_alpha_counts_the_difference_to_alpha_zero():
    s = sdc.SdcSession(TINY, keys=["a", "b"], k=2, seed=1, alpha=0.5)
    # alpha = 0.5: the complete records count 1 + 0.5 = 1.5 < 2: violations already
    viol = s.risk.k_violations(2)
    assert viol == 3
    assert _row(s.release_check(), "wildcards") is None


@pytest.mark.parametrize("npartitions", [1, 2, 3])
def test_dask_gives_the_same_finding(npartitions):
    dd = pytest.importorskip("dask.dataframe")
    p = sdc.SdcSession(TINY, keys=["a", "b"], k=2, seed=1).release_check()
    d = sdc.SdcSession(dd.from_pandas(TINY, npartitions=npartitions), keys=["a", "b"], k=2,
                       seed=1).release_check()
    cols = ["severity", "check", "records"]
    assert p[cols].equals(d[cols]) and p["variables"].tolist() == d["variables"].tolist()
    assert _row(d, "wildcards")["records"] == 3


def _census(n: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cards = [2, 3, 4, 5, 2, 3, 5, 4, 10, 15, 20, 30, 50]
    prof = rng.integers(0, 20, n)
    cols = {}
    for j, c in enumerate(cards):
        base = rng.integers(0, c, n)
        cols[f"k{j}"] = pd.Categorical(np.where(rng.random(n) < 0.7,
                                                (base + prof) % c, base))
    return pd.DataFrame(cols)


def test_the_hub_trie_rests_on_wildcards_and_alpha_zero_protects():
    df = _census(1500)
    keys = list(df.columns)
    s = sdc.SdcSession(df, keys=keys, k=3, seed=1)
    s.local_suppression(k=3, engine="hub_trie")
    out = s.data
    assert k_violations(out, keys, 3) == 0
    strict = k_violations(out, keys, 3, alpha=0.0)
    row = _row(s.release_check(), "wildcards")
    assert row is not None and row["records"] == strict
    # most records keep every key value and are unique among the complete records
    assert strict > 0.5 * len(df)
    # the fix the message gives: a session with alpha = 0 suppresses until they are protected
    s0 = sdc.SdcSession(df, keys=keys, k=3, seed=1, alpha=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SdcWarning)
        s0.local_suppression(k=3)
    assert k_violations(s0.data, keys, 3, alpha=0.0) == 0
    f0 = s0.release_check()
    assert _row(f0, "wildcards") is None and _row(f0, "k_anonymity") is None
