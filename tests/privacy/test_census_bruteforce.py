"""On a census-like file (20,000 records, 5 quasi-identifiers of heights 2–4, 540 nodes) the
chosen node's precision loss is the brute-force minimum over the whole lattice, and the released
file satisfies every model — by `privacy.check` (suppressed records excluded) and by an
independent pandas ``groupby(dropna=True)`` check (issue 19).

The brute force shares nothing with the search engine: every column is generalised once per
level with the hierarchies' own ``generalize``, and every node's classes are counted with numpy
from those labels.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession import privacy as P

H = sdc.Hierarchy
DIAG = np.array(["flu", "cold", "asthma", "diabetes", "cancer", "injury"])


def census(n: int = 20_000, seed: int = 11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = np.minimum(rng.gamma(3.0, 13.0, n).astype(int), 89)
    district = np.array([f"{a}{b}{c}" for a, b, c in zip(
        rng.choice([1, 2, 3, 4], n, p=[.4, .3, .2, .1]), rng.integers(0, 4, n),
        rng.choice([0, 1, 2], n, p=[.6, .3, .1]), strict=True)])
    marital = rng.choice(["single", "married", "divorced", "widowed"], n, p=[.4, .4, .12, .08])
    edu = rng.choice(["none", "primary", "lower sec", "upper sec", "bachelor", "master"], n,
                     p=[.05, .2, .25, .25, .17, .08])
    occ = rng.choice(["farm", "craft", "clerk", "service", "manager", "prof", "none"], n,
                     p=[.1, .15, .15, .2, .08, .12, .2])
    diag = DIAG[np.minimum((rng.random(n) * 5 + age / 45).astype(int), 5)]
    return pd.DataFrame({"age": age, "district": district, "marital": marital, "edu": edu,
                         "occ": occ, "diag": diag, "w": np.full(n, 25.0)})


HS = {
    "age": H.intervals([list(range(0, 91, 5)), list(range(0, 91, 10)), [0, 30, 60, 90]]),
    "district": H.masking(3),
    "marital": H.from_frame([["single", "alone", "*"], ["divorced", "alone", "*"],
                             ["widowed", "alone", "*"], ["married", "couple", "*"]]),
    "edu": H.from_frame([["none", "basic", "*"], ["primary", "basic", "*"],
                         ["lower sec", "secondary", "*"], ["upper sec", "secondary", "*"],
                         ["bachelor", "tertiary", "*"], ["master", "tertiary", "*"]]),
    "occ": H.from_frame([["farm", "manual", "*"], ["craft", "manual", "*"],
                         ["clerk", "office", "*"], ["manager", "office", "*"],
                         ["prof", "office", "*"], ["service", "other", "*"],
                         ["none", "other", "*"]]),
}
KEYS = list(HS)


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    return census()


@pytest.fixture(scope="module")
def labels(df) -> dict:
    """Every column at every level as integer codes (from the hierarchies' labels)."""
    return {(c, j): pd.factorize(HS[c].generalize(df[c], j).astype(str))[0]
            for c in KEYS for j in range(HS[c].height + 1)}


def brute_force(df, labels, models, max_suppression):
    """(precision loss, levels) of every feasible node, by counting with numpy."""
    n, q = len(df), len(KEYS)
    limit = int(np.floor(max_suppression * n + 1e-9))
    s_codes, s_uniq = pd.factorize(df["diag"])
    m = len(s_uniq)
    p = np.bincount(s_codes, minlength=m) / n
    out = []
    for lv in itertools.product(*[range(HS[c].height + 1) for c in KEYS]):
        key = np.zeros(n, dtype=np.int64)
        for c, j in zip(KEYS, lv, strict=True):
            key = key * (n + 1) + labels[(c, j)]
        _, cls = np.unique(key, return_inverse=True)
        g = cls.max() + 1
        size = np.bincount(cls, minlength=g)
        cnt = np.bincount(cls * m + s_codes, minlength=g * m).reshape(g, m)
        dist = cnt / size[:, None]
        bad = np.zeros(g, dtype=bool)
        for mod in models:
            if isinstance(mod, P.KAnonymity):
                bad |= size < mod.k
            elif isinstance(mod, P.DistinctLDiversity):
                bad |= (cnt > 0).sum(axis=1) < mod.l
            elif isinstance(mod, P.TCloseness):
                bad |= 0.5 * np.abs(dist - p).sum(axis=1) > mod.t + 1e-12
            elif isinstance(mod, P.DeltaDisclosure):
                with np.errstate(divide="ignore"):
                    bad |= ~(np.abs(np.log(dist / p)) < mod.delta).all(axis=1)
        s = int(size[bad].sum())
        if s <= limit:
            frac = sum(j / HS[c].height for c, j in zip(KEYS, lv, strict=True))
            out.append((((n - s) * frac + s * q) / (n * q), lv))
    return out


def independent_check(out: pd.DataFrame, original: pd.DataFrame, models) -> None:
    """Every model on the released file with pandas groupby(dropna=True) (suppressed records,
    all keys missing, drop out); the overall distribution is over all records."""
    p = original["diag"].value_counts(normalize=True)
    assert out["diag"].equals(original["diag"])
    g = out.groupby(KEYS, dropna=True, observed=True)["diag"]
    dist = out.assign(one=1).pivot_table(index=KEYS, columns="diag", values="one",
                                         aggfunc="sum", fill_value=0, dropna=True,
                                         observed=True)
    dist = dist.reindex(columns=p.index, fill_value=0)
    dist = dist.div(dist.sum(axis=1), axis=0)
    assert g.size().sum() == out[KEYS].notna().all(axis=1).sum()
    for mod in models:
        if isinstance(mod, P.KAnonymity):
            assert g.size().min() >= mod.k
        elif isinstance(mod, P.DistinctLDiversity):
            assert g.nunique().min() >= mod.l
        elif isinstance(mod, P.TCloseness):
            assert (0.5 * (dist - p).abs().sum(axis=1)).max() <= mod.t + 1e-12
        elif isinstance(mod, P.DeltaDisclosure):
            assert (dist > 0).all().all()
            assert np.log(dist / p).abs().max().max() < mod.delta


@pytest.mark.parametrize("models, ms", [
    ([P.KAnonymity(5), P.DistinctLDiversity("diag", 3)], 0.02),
    ([P.KAnonymity(4), P.TCloseness("diag", 0.15), P.DeltaDisclosure("diag", 1.6)], 0.04),
])
def test_census_optimum_and_release(df, labels, models, ms):
    s = sdc.SdcSession(df, keys=KEYS, sensitive=["diag"], weight="w", seed=7)
    s.generalize(HS, models, max_suppression=ms, metric="precision", baseline=None)
    g = s.generalization
    feas = brute_force(df, labels, models, ms)
    assert feas, "the lattice has feasible nodes"
    best = min(f[0] for f in feas)
    assert g.value == pytest.approx(best, rel=1e-12, abs=1e-15)
    assert tuple(g.levels[c] for c in KEYS) in {f[1] for f in feas if abs(f[0] - best) < 1e-12}
    assert g.nodes_total == 5 * 4 * 3 * 3 * 3 and g.nodes_checked < g.nodes_total
    out = s.data
    supp = out[KEYS].isna().all(axis=1)
    assert int(supp.sum()) == g.suppressed <= ms * len(df)
    assert not out.loc[~supp, KEYS].isna().any().any()   # no partial missing: dropna = excluded
    chk = P.check(out, KEYS, models)
    assert bool(chk), chk
    assert chk.n_suppressed == g.suppressed
    independent_check(out, df, models)
