"""The lattice search equals brute force over the whole lattice (issue 19).

The brute force is independent of the search engine: every node is released with
`generalize_frame` and its classes are counted with pandas ``groupby``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession import privacy as P
from sdcsession.errors import TreatmentError

H = sdc.Hierarchy


def census(n: int = 1200, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = np.minimum(rng.gamma(4.0, 10.0, n).astype(int), 79)
    zp = np.array([f"{z:03d}" for z in rng.choice([101, 102, 115, 131, 207, 208, 290], n,
                                                   p=[.3, .2, .15, .1, .1, .1, .05])])
    sex = rng.choice(["m", "f"], n)
    edu = rng.choice(["none", "primary", "secondary", "tertiary"], n, p=[.1, .3, .4, .2])
    dis = np.array(["flu", "cold", "asthma", "diabetes", "cancer"])
    diag = dis[np.minimum((rng.random(n) * 5 + age / 40).astype(int), 4)]
    return pd.DataFrame({"age": age, "zip": zp, "sex": sex, "educ": edu, "diag": diag})


HS = {"age": H.intervals([list(range(0, 81, 10)), [0, 20, 40, 60, 80], [0, 40, 80]]),
      "zip": H.masking(3),
      "sex": H.from_nested({"*": ["m", "f"]}),
      "educ": H.from_frame([["none", "low", "*"], ["primary", "low", "*"],
                            ["secondary", "high", "*"], ["tertiary", "high", "*"]])}


def brute(df, hs, models, max_suppression, metric="precision"):
    """Every node: (loss, levels, suppressed) of the feasible ones, computed with pandas."""
    keys = list(hs)
    n = len(df)
    limit = int(np.floor(max_suppression * n + 1e-9))
    overall = df["diag"].value_counts(normalize=True)
    out = []
    # each column at each level once, as integer codes (released with generalize_frame)
    codes = {(c, j): pd.factorize(P.generalize_frame(df, hs, {c: j})[c])[0]
             for c in keys for j in range(hs[c].height + 1)}
    for lv in itertools.product(*[range(h.height + 1) for h in hs.values()]):
        key = np.zeros(n, dtype=np.int64)
        for c, j in zip(keys, lv, strict=True):
            key = key * (n + 1) + codes[(c, j)]
        key = pd.Series(pd.factorize(key)[0], index=df.index)
        size = key.map(key.value_counts())
        bad = pd.Series(False, index=df.index)
        for m in models:
            if isinstance(m, P.KAnonymity):
                bad |= size < m.k
            elif isinstance(m, P.DistinctLDiversity):
                bad |= key.map(df.groupby(key)[m.column].nunique()) < m.l
            elif isinstance(m, P.TCloseness):
                dist = pd.crosstab(key, df[m.column], normalize="index")
                dist = dist.reindex(columns=overall.index, fill_value=0.0)
                d = 0.5 * (dist - overall).abs().sum(axis=1)
                bad |= key.map(d) > m.t + 1e-12
        s = int(bad.sum())
        if s > limit:
            continue
        frac = sum(lv_i / h.height for lv_i, h in zip(lv, hs.values(), strict=True))
        if metric == "precision":
            loss = ((n - s) * frac + s * len(keys)) / (n * len(keys))
        elif metric == "discernibility":
            loss = float((size[~bad].astype(float)).sum() + s * n)
        out.append((loss, lv, s))
    return out


@pytest.mark.parametrize("models, ms", [
    ([P.KAnonymity(5), P.DistinctLDiversity("diag", 3)], 0.03),
    ([P.KAnonymity(3), P.DistinctLDiversity("diag", 2)], 0.0),
    ([P.KAnonymity(4), P.TCloseness("diag", 0.25)], 0.05),
    ([P.KAnonymity(2), P.TCloseness("diag", 0.15)], 0.02),
])
def test_optimum_equals_brute_force(models, ms):
    df = census()
    r = P.search(df, HS, models, max_suppression=ms, metric="precision", baseline=None)
    feas = brute(df, HS, models, ms)
    best = min(f[0] for f in feas)
    assert r.value == pytest.approx(best, rel=1e-12, abs=1e-15)
    chosen = [f for f in feas if f[1] == tuple(r.levels.values())]
    assert chosen and chosen[0][0] == pytest.approx(r.value) and chosen[0][2] == r.suppressed
    assert r.nodes_total == 5 * 4 * 2 * 3
    # every checked node's feasibility agrees with the brute force
    lat = r.lattice
    ok = {f[1] for f in feas}
    for row in lat.itertuples(index=False):
        lv = tuple(getattr(row, c) for c in HS)
        if row.status in ("feasible", "chosen"):
            assert lv in ok
        elif row.status == "infeasible":
            assert lv not in ok


@pytest.mark.parametrize("models, ms", [
    ([P.KAnonymity(3)], 0.02),
    ([P.KAnonymity(5), P.DistinctLDiversity("diag", 2)], 0.03),
    ([P.KAnonymity(2), P.TCloseness("diag", 0.2)], 0.0),
])
def test_discernibility_bound_prunes_and_keeps_the_optimum(models, ms):
    df = census(600)
    r = P.search(df, HS, models, max_suppression=ms, metric="discernibility", baseline=None)
    feas = brute(df, HS, models, ms, metric="discernibility")
    assert r.value == pytest.approx(min(f[0] for f in feas), rel=1e-12)
    # exhaustive: every node evaluated by the engine gives the same minimum
    eng = P.lattice.Engine(df, HS, models, max_suppression=ms, metric="discernibility")
    nodes = list(itertools.product(*[range(h.height + 1) for h in HS.values()]))
    vals = [e.loss for lv in nodes if (e := eng.evaluate(lv)).feasible]
    assert r.value == pytest.approx(min(vals), rel=1e-12)
    assert r.nodes_checked < r.nodes_total


def test_discernibility_and_aecs_bounds_are_valid_everywhere():
    """The a-priori bound and the evaluated node's bound never exceed the loss of that node or
    of any generalisation of it (the property the pruning relies on)."""
    df = census(400)
    models = [P.KAnonymity(3), P.DistinctLDiversity("diag", 2)]
    nodes = list(itertools.product(*[range(h.height + 1) for h in HS.values()]))
    for metric in ("discernibility", "aecs"):
        eng = P.lattice.Engine(df, HS, models, max_suppression=1.0, metric=metric)
        res = {lv: eng.evaluate(lv) for lv in nodes}
        for lv, r in res.items():
            assert eng.metric.bound(lv) <= r.loss * (1 + 1e-12)
            for up, q in res.items():
                if all(a >= b for a, b in zip(up, lv, strict=True)):
                    assert r.bound <= q.loss * (1 + 1e-12), (metric, lv, up)


@pytest.mark.parametrize("metric", ["height", "loss", "entropy", "aecs", "kl"])
def test_other_metrics_optimal_over_evaluated_nodes(metric):
    df = census(500)
    models = [P.KAnonymity(3), P.DistinctLDiversity("diag", 2)]
    r = P.search(df, HS, models, max_suppression=0.04, metric=metric, baseline=None)
    eng = P.lattice.Engine(df, HS, models, max_suppression=0.04, metric=metric)
    vals = [e.loss for lv in itertools.product(*[range(h.height + 1) for h in HS.values()])
            if (e := eng.evaluate(lv)).feasible]
    assert r.value == pytest.approx(min(vals), rel=1e-9)
    # the engine's rolled-up evaluation equals a fresh evaluation from the records
    e = P.evaluate_node(df, HS, models, r.levels, max_suppression=0.04, metric=metric)
    assert e.loss == pytest.approx(r.value, rel=1e-9)


def test_search_bound_prunes_nodes():
    r = P.search(census(), HS, [P.KAnonymity(2)], max_suppression=0.0)
    assert r.nodes_checked < r.nodes_total
    assert set(r.lattice["status"]) <= {"chosen", "feasible", "infeasible", "tagged feasible",
                                        "tagged infeasible", "not checked"}
    assert (r.lattice["status"] == "chosen").sum() == 1


def test_output_satisfies_models():
    df = census()
    models = [P.KAnonymity(4), P.DistinctLDiversity("diag", 2), P.TCloseness("diag", 0.2),
              P.DeltaDisclosure("diag", 1.5)]
    s = sdc.SdcSession(df, keys=list(HS), sensitive=["diag"], seed=3)
    s.generalize(HS, models, max_suppression=0.05)
    chk = P.check(s.data, list(HS), models)
    assert bool(chk), chk
    assert chk.n_suppressed == s.generalization.suppressed
    assert s.generalization.suppressed <= 0.05 * len(df)


def test_heuristic_finds_a_feasible_node():
    df = census()
    models = [P.KAnonymity(5), P.TCloseness("diag", 0.2)]
    h = P.search(df, HS, models, max_suppression=0.02, search="heuristic", baseline=None)
    o = P.search(df, HS, models, max_suppression=0.02, baseline=None)
    assert h.value >= o.value - 1e-12
    assert h.nodes_checked <= 1 + 4 * sum(x.height for x in HS.values())
    out = P.generalize_frame(df, HS, h.levels)
    e = P.evaluate_node(df, HS, models, h.levels, max_suppression=0.02)
    assert e.feasible and e.suppressed == h.suppressed and len(out) == len(df)


def test_no_feasible_node_names_the_least_suppression():
    df = census(50)
    with pytest.raises(TreatmentError, match=r"least suppression any checked node needs is \d+"):
        P.search(df, HS, [P.KAnonymity(51)], max_suppression=0.5)
    # l-diversity with more values than exist: even the top node fails
    with pytest.raises(TreatmentError, match="50 records"):
        P.search(df, HS, [P.DistinctLDiversity("diag", 9)], max_suppression=0.1)


def test_kmap_population_rolls_up():
    df = census(300)
    pop = (pd.concat([df] * 3)[list(HS)].value_counts().rename("count").reset_index())
    r = P.search(df, HS, [P.KMap(9, population=pop)], max_suppression=0.0)
    out = P.generalize_frame(df, HS, r.levels)
    gpop = P.generalize_frame(pop, HS, r.levels)
    assert bool(P.check(out, list(HS), [P.KMap(9, population=gpop)]))
    # population x 3: k-map 9 is 3-anonymity of the sample
    r3 = P.search(df, HS, [P.KAnonymity(3)], max_suppression=0.0)
    assert r.value == pytest.approx(r3.value)


def test_delta_presence_and_average_risk_in_search():
    df = census(400)
    sub = (np.arange(len(df)) % 2 == 0).tolist()
    models = [P.DeltaPresence(0.2, 0.8, sub), P.AverageRisk(0.2)]
    r = P.search(df, HS, models, max_suppression=0.1)
    e = P.evaluate_node(df, HS, models, r.levels, max_suppression=0.1)
    assert e.feasible
    supp = P.lattice.Engine(df, HS, models, max_suppression=0.1).record_suppression(
        tuple(r.levels.values()))
    out = P.generalize_frame(df, HS, r.levels, supp)
    assert bool(P.check(out, list(HS), models))
