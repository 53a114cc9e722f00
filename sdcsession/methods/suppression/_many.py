"""Many keys: the greedy key-set search of local suppression (internal).

When no single suppression helps a violating combination, the suppression rounds
(`sdcsession.methods.suppression._search._fallback`) look for a set of keys whose suppression
lifts it to k. With few keys (at most `EXACT_KEYS` allowed keys) they try every subset of the
keys by increasing size and take the first that works: the smallest set, but up to ``2^p``
subsets, each one count over all the combinations left. That search is kept while the number
of combinations times ``2^p`` stays below `EXACT_WORK` (small files give the same result as
before). With 15 keys on a census file almost
every record is unique and needs four or more suppressions, so that enumeration takes
``C(15, 2) + ... + C(15, 5) = 4,928`` counts per round (more than an hour on 1M records).

`greedy_key_sets` replaces it beyond `EXACT_KEYS` keys and `EXACT_WORK`: per combination, keys are added one at
a time, each time the key whose suppression gives the combination the most compatible records
(capped at k: beyond k all are equally good), ties broken by importance (least important
first) or else by the rarest value (the smallest marginal frequency of the combination's
value on that key: the most identifying one). A combination stops as soon as it reaches k.
Every step costs one vectorised count per allowed key over the combinations still below k,
so the search costs at most ``p^2`` counts per round instead of ``2^p`` (and in practice
``p`` times the number of suppressions the hardest combination needs). The sets found may be
larger than the smallest one; the restoration pass of `sdcsession.methods.suppression._restore`
then gives back the values no longer needed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._counter import Counter

__all__ = ["EXACT_KEYS", "EXACT_WORK", "greedy_key_sets"]

#: the exhaustive subset search is used up to this many allowed keys (2^11 = 2,048 subsets) ...
EXACT_KEYS = 11
#: ... or while (combinations) x 2^(allowed keys) stays at most this (small files: as before)
EXACT_WORK = 1 << 21


def greedy_key_sets(X: np.ndarray, cols: np.ndarray, k: float, rank: np.ndarray | None,
                    cells: np.ndarray, pos_order: Sequence[int],
                    cnt: Counter) -> tuple[np.ndarray, np.ndarray]:
    """Greedy key sets lifting each violating combination to fk >= k (see the module).

    ``cells``: the distinct violating combinations (codes on ``cols``); ``pos_order``: the key
    positions that may be suppressed; ``cnt``: the counter of all records on ``cols``. Returns
    ``(sel, step)``: ``sel[c, t]`` True when key position t is in the set of combination c (all
    False: no set works), ``step[c, t]`` the order in which it was added.

    Missing values: missing codes (-1) in ``cells`` are wildcards and are never chosen.
    """
    nc, pcols = cells.shape
    sel = np.zeros((nc, pcols), bool)
    step = np.full((nc, pcols), -1, np.int64)
    pos = np.asarray(list(pos_order), np.int64)
    if nc == 0 or len(pos) == 0:
        return sel, step
    # marginal frequency of each cell's value per key (ties: the rarest value first)
    marg = np.zeros((nc, pcols))
    for t in pos.tolist():
        col = X[:, cols[t]]
        freq = np.bincount(col[col >= 0].astype(np.int64),
                           minlength=int(max(col.max(initial=0), cells[:, t].max(initial=0))) + 1)
        v = cells[:, t]
        marg[v >= 0, t] = freq[v[v >= 0]]
    tie = (marg / (marg.max() + 1.0)) if rank is None else -np.asarray(rank, float)[None, :] / (
        float(np.max(rank)) + 1.0)
    q = np.full((nc, X.shape[1]), -1, X.dtype)
    q[:, cols] = cells
    todo = np.arange(nc)
    for s in range(len(pos)):
        if len(todo) == 0:
            break
        F = np.full((len(todo), pcols), -1.0)
        for t in pos.tolist():
            obs = np.flatnonzero(q[todo, cols[t]] >= 0)
            if len(obs) == 0:
                continue
            qq = q[todo[obs]]
            qq[:, cols[t]] = -1
            F[obs, t] = cnt.count(qq)[:, 0]
        score = np.where(F >= 0, np.minimum(F, k) - tie[todo], -np.inf)
        best = np.argmax(score, axis=1)
        okb = np.isfinite(score[np.arange(len(todo)), best])
        todo, best, Fb = todo[okb], best[okb], F[okb][np.arange(okb.sum()), best[okb]]
        sel[todo, best] = True
        step[todo, best] = s
        q[todo, cols[best]] = -1
        todo = todo[Fb < k - 1e-9]
    if len(todo):  # no set of the allowed keys lifts these combinations
        sel[todo] = False
        step[todo] = -1
    return sel, step
