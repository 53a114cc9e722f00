"""The default search is never worse than the Datafly node (anjana's greedy rule).

The Datafly path is recomputed independently with pandas (each candidate node released with
`generalize_frame`, classes counted with ``groupby``), and the default result is checked against
the brute force over the whole lattice: the least loss among the nodes that suppress no more
records and generalise no more than the Datafly node.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcsession as sdc
from sdcsession import privacy as P
from sdcsession.methods.base import Treatment

H = sdc.Hierarchy
HS = {"age": H.intervals([list(range(0, 81, 10)), [0, 20, 40, 60, 80], [0, 40, 80]]),
      "zip": H.masking(3),
      "sex": H.from_nested({"*": ["m", "f"]}),
      "educ": H.from_frame([["none", "low", "*"], ["primary", "low", "*"],
                            ["secondary", "high", "*"], ["tertiary", "high", "*"]])}


def census(n: int = 1200, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = np.minimum(rng.gamma(4.0, 10.0, n).astype(int), 79)
    zp = np.array([f"{z:03d}" for z in rng.choice([101, 102, 115, 131, 207, 208, 290], n,
                                                   p=[.3, .2, .15, .1, .1, .1, .05])])
    return pd.DataFrame({"age": age, "zip": zp, "sex": rng.choice(["m", "f"], n),
                         "educ": rng.choice(["none", "primary", "secondary", "tertiary"], n,
                                            p=[.1, .3, .4, .2])})


def suppressed(df: pd.DataFrame, levels: tuple[int, ...], k: int) -> int:
    """Records in classes smaller than k at ``levels``, counted with pandas."""
    out = P.generalize_frame(df, HS, dict(zip(HS, levels, strict=True)))
    size = out.groupby(list(HS), dropna=False, observed=True)[list(HS)[0]].transform("size")
    return int((size < k).sum())


def datafly_by_hand(df: pd.DataFrame, k: int, limit: int) -> tuple[int, ...]:
    """anjana's ``k_anonymity`` walk: raise the column with the most distinct values."""
    lv = [0] * len(HS)
    hs = list(HS.values())
    while suppressed(df, tuple(lv), k) > limit:
        out = P.generalize_frame(df, HS, dict(zip(HS, lv, strict=True)))
        distinct = [out[c].nunique(dropna=False) if lv[i] < hs[i].height else -1
                    for i, c in enumerate(HS)]
        lv[int(np.argmax(distinct))] += 1
    return tuple(lv)


def frac(levels) -> float:
    return sum(lv / h.height for lv, h in zip(levels, HS.values(), strict=True))


@pytest.mark.parametrize("k, ms, seed", [(5, 0.01, 5), (3, 0.0, 6), (10, 0.05, 7),
                                          (4, 0.02, 8)])
def test_default_is_best_loss_among_nodes_no_worse_than_datafly(k, ms, seed):
    df = census(seed=seed)
    models = [P.KAnonymity(k)]
    limit = int(np.floor(ms * len(df) + 1e-9))
    ref = datafly_by_hand(df, k, limit)
    eng = P.lattice.Engine(df, HS, models, max_suppression=ms, metric="loss")
    assert P.datafly(eng).levels == ref
    s_ref = suppressed(df, ref, k)
    r = P.search(df, HS, models, max_suppression=ms)
    assert r.metric == "loss" and r.baseline == {"levels": dict(zip(HS, ref, strict=True)),
                                                 "suppressed": s_ref}
    # brute force: every node no worse than the Datafly node, its loss from evaluate_node
    ok = []
    for lv in itertools.product(*[range(h.height + 1) for h in HS.values()]):
        sup = suppressed(df, lv, k)
        if sup <= min(s_ref, limit) and frac(lv) <= frac(ref) + 1e-12:
            loss = P.evaluate_node(df, HS, models, dict(zip(HS, lv, strict=True)),
                                   max_suppression=ms, metric="loss").loss
            ok.append((loss, lv, sup))
    best = min(o[0] for o in ok)
    assert r.value == pytest.approx(best, rel=1e-12)
    chosen = tuple(r.levels.values())
    assert chosen in {o[1] for o in ok if abs(o[0] - best) < 1e-12}
    # never worse than anjana's node: suppressions, and precision with and without them
    assert r.suppressed == suppressed(df, chosen, k) <= s_ref
    prec = {lv: P.evaluate_node(df, HS, models, dict(zip(HS, lv, strict=True)),
                                max_suppression=ms, metric="precision").loss
            for lv in (chosen, ref)}
    assert prec[chosen] <= prec[ref] + 1e-12 and frac(chosen) <= frac(ref) + 1e-12


def test_without_baseline_the_loss_optimum_can_suppress_more():
    """The guard matters: on this file the unconstrained loss optimum suppresses more records
    than the Datafly node, and the default does not."""
    df = census(seed=5)
    models = [P.KAnonymity(5)]
    free = P.search(df, HS, models, max_suppression=0.05, metric="loss", baseline=None)
    guarded = P.search(df, HS, models, max_suppression=0.05)
    ref = guarded.baseline["suppressed"]
    assert guarded.suppressed <= ref
    assert free.value <= guarded.value
    assert free.suppressed > ref or frac(free.levels.values()) > frac(
        guarded.baseline["levels"].values())


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 8),
       ms=st.sampled_from([0.0, 0.01, 0.03, 0.1]),
       metric=st.sampled_from(["loss", "precision", "entropy", "discernibility"]),
       how=st.sampled_from(["optimal", "heuristic"]))
def test_never_worse_than_datafly_property(seed, k, ms, metric, how):
    df = census(200, seed=seed)
    models = [P.KAnonymity(k)]
    eng = P.lattice.Engine(df, HS, models, max_suppression=ms, metric=metric)
    ref = P.datafly(eng)
    r = P.search(df, HS, models, max_suppression=ms, metric=metric, search=how)
    assert ref is not None                      # the top node is feasible for k <= 8 here
    assert r.suppressed <= ref.suppressed
    assert frac(r.levels.values()) <= frac(ref.levels) + 1e-12
    p = [P.evaluate_node(df, HS, models, lv, max_suppression=ms).loss
         for lv in (r.levels, dict(zip(HS, ref.levels, strict=True)))]
    assert p[0] <= p[1] + 1e-12


def test_recipes_without_baseline_replay_unguarded():
    g = P.Generalize(HS, [P.KAnonymity(2)])
    assert g.metric == "loss" and g.baseline == "datafly"
    d = g.to_dict()
    assert d["baseline"] == "datafly" and Treatment.from_dict(d) == g
    old = {k: v for k, v in d.items() if k != "baseline"}
    assert Treatment.from_dict(old).baseline is None
    assert P.Generalize(HS, [P.KAnonymity(2)], baseline=None).to_dict()["baseline"] is None
    with pytest.raises(sdc.ParameterError, match="baseline"):
        P.Generalize(HS, [P.KAnonymity(2)], baseline="arx")
    with pytest.raises(sdc.ParameterError, match="baseline"):
        P.search(census(50), HS, [P.KAnonymity(2)], baseline=True)
