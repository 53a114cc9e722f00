"""Diagnostic: how far "fewest suppressions" can go under wildcard frequency counts.

Run: ``nice -n 5 python benchmarks/bench_wildcard_floor.py [--cap C ...] [sizes...]`` (default
sizes 10,000 / 100,000 / 1,000,000 records of the 15-key census-like file of
``bench_suppression_many_keys.py``; default caps 8, 9, 11; k = 3).

The project's frequency counts (sdcMicro's convention) treat a missing key value as a wildcard
that matches every value. Two consequences, both printed with violations by
`sdcsession.risk.k_violations` (0 expected):

1. *Floor.* Suppressing every key of any k - 1 records makes the file k-anonymous: each other
   record is compatible with itself and those k - 1 blank records. Cost (k - 1) x p values,
   whatever n is (30 for 15 keys and k = 3).
2. *Hub trie* (`hub_trie`, the prototype of `sdcsession.methods.suppression._hub_trie`, the
   many-keys engine of local suppression and local recoding, which adds split nodes and a
   fallback so that a cap of floor(p / 2) always has a solution). Records sorted on the keys
   (fewest categories first) form a trie; a node at depth d holds the records sharing the
   first d keys. A node with m >= k records is made safe by k - 1 "hub" records of it, blanked
   on the keys that vary inside the node (every record of the node is then compatible with the
   hubs); a leaf (all keys equal) with m >= k is safe as it is. A dynamic programme over the
   trie, bottom-up, chooses per node the cheaper of its hubs or the sum of its children:
   ``cost(node) = min((k - 1) * varying keys, sum over children cost(child))``, exactly, in
   O(n p^2) with one sort. With ``cap`` = the most values a hub may lose, the programme
   without a cap returns the floor above; with ``cap = 9`` (the most values the progressive
   local recoding blanks in one record on this file) it suppresses 10,364 values at 10,000
   records and 10,368 at 100,000 and 1,000,000 (1M: 4.8 s CPU), against 35,069 and 197,395 for
   `local_recode` (whose result has the same shape: 56 % of the records untouched, the others
   blanked on 7-9 keys to act as wildcards for them).

So under wildcard counts the number of suppressed values alone does not rank many-key
algorithms: it can be driven to the floor while protecting nobody in substance. A criterion
that rules this out (a cap on the values lost per record, a minimum share of agreeing values
in the records a record's fk rests on, or counting equal released values only) has to be chosen
before comparing them on suppressions.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_suppression_many_keys import CARDS, census_keys  # noqa: E402

from sdcsession.risk import k_violations  # noqa: E402


def _vary(Smin: np.ndarray, S: np.ndarray, st: np.ndarray, d: int) -> np.ndarray:
    """Per node starting at rows ``st``: which keys after depth d hold two observed values."""
    lo = np.minimum.reduceat(Smin[:, d:], st, axis=0)
    hi = np.maximum.reduceat(S[:, d:], st, axis=0)
    return (lo < hi) & (hi >= 0)


def hub_trie(X: np.ndarray, cards: np.ndarray, k: int, cap: int) -> np.ndarray | None:
    """Cells to blank (``(n, p)`` bool) chosen by the hub-trie programme, or None if no
    solution respects ``cap``. Missing codes (-1) are a value in the trie (conservative)."""
    n, p = X.shape
    order = np.argsort(cards, kind="stable")
    S = X[:, order]
    perm = np.lexsort(S.T[::-1])
    S = S[perm]
    chg = np.zeros((n, p + 1), bool)
    chg[0] = True
    chg[1:, 1:] = np.cumsum(S[1:] != S[:-1], axis=1) > 0
    Smin = np.where(S < 0, np.iinfo(np.int64).max, S)
    starts, hub = [], []
    child_cost = child_st = None
    for d in range(p, -1, -1):
        st = np.flatnonzero(chg[:, d])
        m = np.diff(np.r_[st, n])
        if d < p:
            v = _vary(Smin, S, st, d)
            H = np.where(v.sum(1) <= cap, (k - 1) * v.sum(1), np.inf)
        else:
            H = np.zeros(len(st))
        H = np.where(m >= k, H, np.inf)
        if child_cost is None:
            take, tot = np.ones(len(st), bool), H
        else:
            par = np.cumsum(chg[:, d])[child_st] - 1
            sub = np.bincount(par, weights=child_cost, minlength=len(st))
            take = H <= sub
            tot = np.where(take, H, sub)
        starts.append(st)
        hub.append(take)
        child_cost, child_st = tot, st
    if not np.isfinite(child_cost[0]):
        return None
    starts, hub = starts[::-1], hub[::-1]
    covered = np.zeros(n, bool)
    M = np.zeros((n, p), bool)
    for d in range(p):
        st = starts[d]
        idx = np.flatnonzero(hub[d] & ~covered[st])
        if len(idx) == 0:
            continue
        v = _vary(Smin, S, st, d)[idx]
        rows = (st[idx][:, None] + np.arange(k - 1)).ravel()
        M[rows, d:] |= np.repeat(v, k - 1, axis=0) & (S[rows, d:] >= 0)
        mark = np.zeros(len(st), bool)
        mark[idx] = True
        covered |= mark[np.cumsum(chg[:, d]) - 1]
    out = np.zeros((n, p), bool)
    out[np.ix_(perm, order)] = M
    return out


def main() -> None:
    argv = sys.argv[1:]
    caps = []
    while "--cap" in argv:
        i = argv.index("--cap")
        caps.append(int(argv[i + 1]))
        del argv[i:i + 2]
    caps = caps or [8, 9, 11]
    sizes = [int(a) for a in argv] or [10_000, 100_000, 1_000_000]
    k = 3
    keys = [f"k{j}" for j in range(len(CARDS))]
    for n in sizes:
        df = census_keys(n)
        out = df.copy()
        blank = np.zeros(n, bool)
        blank[: k - 1] = True  # any k - 1 records
        for c in keys:
            out[c] = out[c].where(~blank)
        print(f"n={n:>9,}  keys={len(keys)}  k={k}  violations before "
              f"{k_violations(df, keys, k):>9,}", flush=True)
        print(f"    floor (k - 1 blank records): suppressed {(k - 1) * len(keys):>9,}  "
              f"violations {k_violations(out, keys, k)}", flush=True)
        X = np.column_stack([df[c].cat.codes.to_numpy() for c in keys]).astype(np.int64)
        for cap in caps:
            t = time.process_time()
            M = hub_trie(X, np.array(CARDS), k, cap)
            cpu = time.process_time() - t
            if M is None:
                print(f"    hub trie, cap {cap:>2}: no solution", flush=True)
                continue
            rel = df.copy()
            for j, c in enumerate(keys):
                rel[c] = rel[c].where(~M[:, j])
            print(f"    hub trie, cap {cap:>2}: suppressed {int(M.sum()):>9,}  "
                  f"max per record {int(M.sum(1).max())}  {cpu:6.2f} s CPU  "
                  f"violations {k_violations(rel, keys, k)}", flush=True)


if __name__ == "__main__":
    main()
