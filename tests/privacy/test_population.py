"""k-map with estimators (Poisson, zero-truncated Poisson, Zayatz) and the research subset of
δ-presence combined with the other models (issue 19)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession import privacy as P
from sdcsession.errors import ParameterError, TreatmentError
from sdcsession.privacy.models import model_from_dict
from sdcsession.privacy.population import derived_k, zayatz_probability

H = sdc.Hierarchy


# ---------------------------------------------------------------- k-map estimators
@pytest.mark.parametrize("k, frac, alpha, est, expected", [
    # λ = 2: P(X ≥ 5) = 1 − 0.94735 = 0.05265, P(X ≥ 6) = 0.01656; zero-truncated: / 0.86466
    (20, 0.1, 0.055, "poisson", 5),
    (20, 0.1, 0.055, "zero_truncated_poisson", 6),    # 0.05265 / 0.86466 = 0.0609 > 0.055
    (10, 0.2, 0.05, "poisson", 6),
    (10, 0.2, 0.05, "zero_truncated_poisson", 6),     # 0.01656 / 0.86466 = 0.0192
    # λ = 0.5: P(X ≥ 2) = 0.0902, P(X ≥ 3) = 0.0144
    (5, 0.1, 0.05, "poisson", 3),
    (5, 0.1, 0.10, "poisson", 2),
    (5, 1.0, 0.05, "poisson", 5),                     # a census: never below k
    (7, 0.1, 0.0, "poisson", 7),                      # α = 0: k itself
])
def test_derived_k_by_hand(k, frac, alpha, est, expected):
    assert derived_k(k, frac, alpha, est) == expected


def sample_file(seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 400
    return pd.DataFrame({"a": rng.choice(list("pqrstu"), n, p=[.4, .25, .15, .1, .06, .04]),
                         "b": rng.choice(["x", "y", "z"], n), "w": np.full(n, 10.0),
                         "ill": rng.choice(["u", "v", "w"], n)})


def test_poisson_estimators_are_k_prime_anonymity():
    df = sample_file()
    n = len(df)
    r = P.check(df, ["a", "b"], [
        P.KMap(20, "poisson", population_size=10 * n, significance=0.055),
        P.KMap(20, "zero_truncated_poisson", population_size=10 * n, significance=0.055),
        P.KMap(20, "poisson", weight="w", significance=0.055),
        P.KAnonymity(5), P.KAnonymity(6)])
    v = r.violations
    assert v[:, 0].tolist() == v[:, 3].tolist() == v[:, 2].tolist()
    assert v[:, 1].tolist() == v[:, 4].tolist()
    assert v[:, 3].any() and not v[:, 3].all()
    assert (r.sizes[v[:, 0]] < 5).all() and (r.sizes[~v[:, 0]] >= 5).all()


def test_zayatz_by_hand():
    # classes of sizes 1, 1, 3; n = 5 of N = 10; prior π_1 = 2/3, π_3 = 1/3
    # h(1; 10, 1, 5) = 1/2, h(1; 10, 3, 5) = 3·C(7,4)/C(10,5) = 5/12
    # P(F < 3 | f = 1) = (2/3 · 1/2) / (2/3 · 1/2 + 1/3 · 5/12) = 0.70588; f = 3 ≥ k: 0
    df = pd.DataFrame({"a": ["x", "y", "z", "z", "z"]})
    p = zayatz_probability(np.array([1, 1, 3]), np.array([1, 1, 3]), 3, 5, 10)
    assert p.tolist() == pytest.approx([0.705882352941, 0.705882352941, 0.0])
    r = P.check(df, "a", [P.KMap(3, "zayatz", population_size=10, significance=0.7),
                          P.KMap(3, "zayatz", population_size=10, significance=0.71)])
    assert r.violations.tolist() == [[True, False], [True, False], [False, False]]
    assert r.holds == (False, True)


def test_zayatz_search_releases_a_file_that_passes_check():
    df = sample_file(3)
    hs = {"a": H.from_frame([[v, "g1" if v in "pqr" else "g2", "*"] for v in "pqrstu"]),
          "b": H.from_nested({"*": ["x", "y", "z"]})}
    models = [P.KMap(30, "zayatz", population_size=20 * len(df), significance=0.05),
              P.DistinctLDiversity("ill", 3)]
    s = sdc.SdcSession(df, keys=["a", "b"], sensitive=["ill"], seed=1)
    s.generalize(hs, models, max_suppression=0.3)
    chk = P.check(s.data, ["a", "b"], models)
    assert bool(chk), chk
    assert chk.n_suppressed == s.generalization.suppressed


def test_simulated_population_false_acceptance_at_most_alpha():
    """A population of 100,000, a 10 % sample: among the population classes smaller than k
    that show up in the sample, at most α are accepted; large classes are accepted."""
    rng = np.random.default_rng(3)
    big_n = 100_000
    pop = pd.DataFrame({"a": rng.zipf(1.6, big_n) % 60, "b": rng.integers(0, 8, big_n),
                        "c": rng.choice(list("xyz"), big_n, p=[.6, .3, .1])}).astype(str)
    sample = pop.sample(frac=0.1, random_state=1).reset_index(drop=True)
    keys = ["a", "b", "c"]
    true = pop.value_counts(keys).rename("F")
    table = true.reset_index().rename(columns={"F": "count"})
    for k in (5, 10, 20):
        exact = P.check(sample, keys, [P.KMap(k, population=table)])
        for est in ("poisson", "zero_truncated_poisson", "zayatz"):
            r = P.check(sample, keys, [P.KMap(k, est, population_size=big_n, significance=0.05)])
            cls = sample.assign(cid=r.class_ids).groupby("cid")[keys].first()
            f_true = cls.join(true, on=keys)["F"].to_numpy()
            acc = ~r.violations[:, 0]
            small = f_true < k
            assert (acc & small).sum() <= 0.05 * small.sum(), (k, est)
            large = f_true >= 8 * k
            assert acc[large].mean() >= 0.9, (k, est)
            # the exact k-map (population table) agrees with the truth
            assert (~exact.violations[:, 0]).tolist() == (f_true >= k).tolist()


def test_session_weight_is_the_population_and_replays():
    df = sample_file(2)
    hs = {"a": H.from_frame([[v, "g1" if v in "pqr" else "g2", "*"] for v in "pqrstu"]),
          "b": H.from_nested({"*": ["x", "y", "z"]})}
    s = sdc.SdcSession(df, keys=["a", "b"], weight="w", seed=1)
    s.generalize(hs, [P.KMap(20, "poisson", significance=0.055)], max_suppression=0.05)
    t = sdc.SdcSession(df, keys=["a", "b"], seed=1)
    t.generalize(hs, [P.KAnonymity(5)], max_suppression=0.05)       # k' = 5
    assert s.generalization.levels == t.generalization.levels
    assert s.data.equals(t.data)
    r = sdc.SdcSession.from_recipe(df, s.to_recipe())
    assert r.data.equals(s.data)
    # without a weight or a size: a named error, HEAD unchanged
    u = sdc.SdcSession(df, keys=["a", "b"], seed=1)
    head = u.head
    with pytest.raises(TreatmentError, match="population size"):
        u.generalize(hs, [P.KMap(20, "poisson")])
    assert u.head is head


@pytest.mark.parametrize("make, msg", [
    (lambda: P.KMap(3, "gauss"), "population"),
    (lambda: P.KMap(3, "poisson", population_size=0), "population_size"),
    (lambda: P.KMap(3, "poisson", significance=1.0), "significance"),
    (lambda: P.KMap(3, "poisson", population_size=10, weight="w"), "population_size"),
    (lambda: P.KMap(3, pd.DataFrame({"a": ["x"], "count": [3]}), population_size=10),
     "population_size"),
    (lambda: P.KMap(3, "poisson", weight=""), "weight"),
])
def test_kmap_bad_parameters(make, msg):
    with pytest.raises(ParameterError, match=msg):
        make()


def test_kmap_estimator_needs_a_valid_population_size():
    df = sample_file()
    with pytest.raises(ParameterError, match="population_size"):
        P.check(df, ["a"], [P.KMap(3, "poisson")])
    with pytest.raises(ParameterError, match="at least the number of records"):
        P.check(df, ["a"], [P.KMap(3, "poisson", population_size=10)])
    with pytest.raises(ParameterError, match="weight"):
        P.check(df, ["a"], [P.KMap(3, "poisson", weight="nope")])
    with pytest.raises(ParameterError, match="quasi-identifier"):
        P.check(df, ["a", "w"], [P.KMap(3, "poisson", weight="w")])


def test_kmap_estimators_round_trip():
    for m in (P.KMap(3, "poisson", population_size=100),
              P.KMap(4, "zayatz", weight="w", significance=0.01),
              P.KMap(2, "zero_truncated_poisson", population_size=50)):
        assert model_from_dict(m.to_dict()) == m
    assert P.KMap(3, "zayatz", population_size=9).monotone is False
    assert P.KMap(3, "poisson", population_size=9).monotone is True


# ---------------------------------------------------------------- research subset
def test_subset_models_see_the_subset_records_by_hand():
    # class a: 4 records, 1 in the subset; b: 3 records, 2 in it; c: 2 records, none
    df = pd.DataFrame({"key": list("aaaabbbcc"), "s": list("xyxyxyxxy")})
    sub = [True, False, False, False, True, True, False, False, False]
    r = P.check(df, "key", [P.KAnonymity(2), P.DeltaPresence(0.2, 0.8, sub),
                            P.DistinctLDiversity("s", 2)])
    assert r.sizes.tolist() == [1, 2, 0]                    # subset records per class
    assert r.violations.tolist() == [[True, False, True],   # a: 1 record; δ = 1/4; one value
                                     [False, False, False],  # b: 2 records x, y; δ = 2/3
                                     [False, True, False]]   # c: not released; δ = 0
    # t-closeness: the overall distribution is the subset's (x 2/3, y 1/3)
    r = P.check(df, "key", [P.TCloseness("s", 1 / 6), P.TCloseness("s", 0.16),
                            P.DeltaPresence(0.0, 1.0, sub)])
    # class a = (1, 0): EMD 1/3; class b = (1/2, 1/2): EMD 1/6
    assert r.violations[:, 0].tolist() == [True, False, False]
    assert r.violations[:, 1].tolist() == [True, True, False]


def subset_data(n: int = 900, seed: int = 4) -> tuple[pd.DataFrame, list[bool]]:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(0, 80, n),
                       "zip": rng.choice(["101", "102", "115", "131", "207", "290"], n),
                       "ill": rng.choice(["a", "b", "c"], n, p=[.5, .3, .2])})
    sub = (rng.random(n) < 0.3).tolist()
    return df, sub


SUB_HS = {"age": H.intervals([list(range(0, 81, 10)), [0, 20, 40, 60, 80], [0, 40, 80]]),
          "zip": H.masking(3)}


def brute_subset(df, sub, k, dmin, dmax, l_div, ms):
    """Every node by pandas: (precision over the subset's records, levels, suppressed)."""
    keys = list(SUB_HS)
    sub = np.asarray(sub)
    n_r = int(sub.sum())
    limit = int(np.floor(ms * n_r + 1e-9))
    out = []
    for lv in itertools.product(*[range(h.height + 1) for h in SUB_HS.values()]):
        g = P.generalize_frame(df, SUB_HS, dict(zip(keys, lv, strict=True)))
        key = g[keys].astype(str).agg("|".join, axis=1)
        tot = key.map(key.value_counts())
        ks = key[sub]
        size = key.map(ks.value_counts()).fillna(0)
        div = key.map(df["ill"][sub].groupby(ks).nunique()).fillna(0)
        delta = size / tot
        bad = ((size > 0) & ((size < k) | (div < l_div))) | (delta < dmin) | (delta > dmax)
        s = int((bad & sub).sum())
        if s <= limit:
            frac = sum(j / h.height for j, h in zip(lv, SUB_HS.values(), strict=True))
            out.append((((n_r - s) * frac + s * len(keys)) / (n_r * len(keys)), lv, s))
    return out


def test_search_with_subset_equals_brute_force_and_release_passes():
    df, sub = subset_data()
    models = [P.KAnonymity(5), P.DistinctLDiversity("ill", 2), P.DeltaPresence(0.1, 0.5, sub)]
    r = P.search(df, SUB_HS, models, max_suppression=0.1, metric="precision", baseline=None)
    feas = brute_subset(df, sub, 5, 0.1, 0.5, 2, 0.1)
    best = min(f[0] for f in feas)
    assert r.value == pytest.approx(best, rel=1e-12)
    chosen = [f for f in feas if f[1] == tuple(r.levels.values())]
    assert chosen and chosen[0][2] == r.suppressed
    # the release: whole classes suppressed, and every model holds with the same mask
    s = sdc.SdcSession(df, keys=list(SUB_HS), sensitive=["ill"], seed=2)
    s.generalize(SUB_HS, models, max_suppression=0.1, metric="precision", baseline=None)
    out = s.data
    assert bool(P.check(out, list(SUB_HS), models))
    released = out[np.asarray(sub)]
    grp = released.groupby(list(SUB_HS), dropna=True)["ill"]
    assert grp.size().min() >= 5 and grp.nunique().min() >= 2
    supp = out[list(SUB_HS)].isna().all(axis=1)
    assert int((supp & np.asarray(sub)).sum()) == s.generalization.suppressed == r.suppressed > 0
    assert int(supp.sum()) > r.suppressed          # the classes' population records too


def test_two_different_subsets_are_refused():
    df, sub = subset_data(20)
    other = [not x for x in sub]
    with pytest.raises(ParameterError, match="same research subset"):
        P.check(df, ["zip"], [P.DeltaPresence(0, 1, sub), P.DeltaPresence(0, 1, other)])
