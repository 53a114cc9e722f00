"""SUDA2 attribute-level contributions and DIS table; l-diversity summaries (sdcMicro's prints)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import load, reference

from sdcsession.errors import ParameterError
from sdcsession.risk import l_diversity, l_diversity_summary, suda2


def test_level_contributions_hand_computed():
    df = pd.DataFrame({"a": [2, 1, 1, 1, 1], "b": [0, 3, 0, 0, 0], "c": [0, 6, 0, 5, 0]})
    r = suda2(df, ["a", "b", "c"], dis_fraction=0.5)
    # MSUs: record 0 {a}, record 1 {b} and {c}, record 3 {c}; each scores 2
    lc = r.level_contributions.set_index(["variable", "attribute"])["contribution"]
    assert lc.loc[("a", 1)] == 0 and lc.loc[("a", 2)] == 100
    assert lc.loc[("c", 5)] == 50 and lc.loc[("c", 6)] == 50 and lc.loc[("c", 0)] == 0
    assert r.dis_table()["records"].tolist() == [2, 0, 0, 0, 0, 0, 2, 0, 1]


def test_level_contributions_no_msu_is_nan():
    df = pd.DataFrame({"a": [1, 1, 2, 2], "b": [1, 1, 2, 2]})
    r = suda2(df, ["a", "b"])
    assert r.level_contributions["contribution"].isna().all()
    assert r.dis_table()["records"].tolist() == [4] + [0] * 8


def test_level_contributions_on_testdata_sum_to_100():
    ref = reference()["testdata"]
    keys = ref["keys"][:7]
    r = suda2(load("testdata"), keys)
    lc = r.level_contributions
    assert set(lc["variable"]) == set(keys)
    sums = lc.groupby("variable")["contribution"].sum()
    np.testing.assert_allclose(sums.loc[keys].to_numpy(), 100.0, rtol=1e-12)
    # per variable: record contributions x score, summed within each level
    df = load("testdata")
    credited = r.record_contributions.mul(r.score, axis=0)
    for v in ("roof", "relat"):
        by = credited[v].groupby(df[v].astype(object)).sum()
        want = 100 * by / credited[v].sum()
        got = lc[lc["variable"] == v].set_index("attribute")["contribution"]
        np.testing.assert_allclose(got.loc[want.index].to_numpy(), want.to_numpy(), rtol=1e-12)
    assert r.dis_table()["records"].sum() == len(df)


def test_l_diversity_summary_hand_computed():
    df = pd.DataFrame({"sex": ["m"] * 4 + ["f"] * 2, "ill": ["a", "a", "b", "c", "a", "a"]})
    s = l_diversity_summary(l_diversity(df, ["sex"], "ill"), c=2)
    # distinct per record: 3, 3, 3, 3, 1, 1
    assert s.table.loc[("ill", "distinct")].tolist() == pytest.approx(
        [1, 1.5, 3, 14 / 6, 3, 3])
    ent = 2 ** 1.5  # exp(entropy) of (2, 1, 1)/4
    assert s.mean("entropy").loc["ill"] == pytest.approx((4 * ent + 2) / 6)
    assert s.distribution["ill"].to_dict() == {1: 2, 3: 4}
    assert "Records by distinct l" in repr(s)
    with pytest.raises(ParameterError, match="measure"):
        s.mean("foo")
    with pytest.raises(ParameterError, match="l_diversity"):
        l_diversity_summary(pd.DataFrame({"x": [1]}))


def test_l_diversity_summary_matches_sdcmicro_distinct():
    ref = reference()["testdata"]
    df = load("testdata")
    keys = ref["keys"][:6]
    sens = list(ref["ldiversity"])
    s = l_diversity_summary(l_diversity(df, keys, sens))
    for v in sens:
        for m in ("distinct", "entropy", "recursive"):
            x = np.asarray(ref["ldiversity"][v][m], dtype=float)
            want = [x.min(), *np.quantile(x, [0.25, 0.5]), x.mean(), np.quantile(x, 0.75), x.max()]
            np.testing.assert_allclose(s.table.loc[(v, m)].to_numpy(), want, rtol=1e-9)
        counts = pd.Series(ref["ldiversity"][v]["distinct"]).value_counts()
        assert s.distribution[v][s.distribution[v] > 0].to_dict() == counts.to_dict()


def test_l_diversity_summary_refuses_columns_that_are_not_its_numbers():
    """An edited l_diversity result (a text value, a column twice) is a ParameterError naming
    the column, not a float conversion or groupby ValueError."""
    df = pd.DataFrame({"sex": ["m"] * 4 + ["f"] * 2, "ill": ["a", "a", "b", "c", "a", "a"]})
    ld = l_diversity(df, ["sex"], "ill")
    text = ld.assign(ill_entropy=ld["ill_entropy"].astype(object).where(ld.index > 0, "x"))
    with pytest.raises(ParameterError, match="ldiv: column ill_entropy must be one numeric"):
        l_diversity_summary(text)
    twice = pd.concat([ld, ld[["ill_distinct"]]], axis=1)
    with pytest.raises(ParameterError, match="ldiv: column ill_distinct must be one numeric"):
        l_diversity_summary(twice)
    assert l_diversity_summary(ld).table.loc[("ill", "distinct")].tolist()[-1] == 3.0
