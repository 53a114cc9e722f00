"""Many keys: k-anonymity by "hub" records over the trie of sorted records (internal).

Under the project's frequency counts (sdcMicro's convention) a missing key value is a wildcard
that matches every value. So a group of records can be made safe without blanking all of them:
k - 1 *hub* records blanked on the keys where the group's records differ are compatible with
every record of the group, and every record of the group is then compatible with itself and
the k - 1 hubs. This module chooses such groups and hubs exactly over a trie, with a cap on the
values any one record loses.

Algorithm (`hub_trie`), on an ``(n, p)`` matrix of integer codes (``-1`` = missing):

1. *Sort.* Keys are taken by increasing number of categories, records sorted
   lexicographically on them (one ``np.lexsort``). The sorted records form a trie: a node at
   depth d is a run of records sharing their first d keys (depth 0: all records; depth p:
   records equal on every key). A missing code is a value of its own in the trie
   (conservative: the counts, where it is a wildcard, can only find more compatible records).
2. *Hub cost.* A node N with m >= k records and V(N) = the keys after depth d on which N holds
   two different observed values is made safe by its first k - 1 records (in sorted order),
   its *hubs*, blanked on V(N): ``H(N) = (k - 1) * w(V)`` (w: column weights, default 1;
   w(V) their sum over V), allowed when ``|V| <= cap`` (the most values one record may lose).
   When ``cap < |V| <= 2 cap`` and m >= 2k - 2 the node is *split*: the hubs blank the ``cap``
   heaviest keys B of V, every other record of N blanks the rest A = V minus B, cost
   ``(k - 1) w(B) + (m - k + 1) w(A)``: a non-hub record is compatible with itself and the
   k - 1 hubs (on A it is missing, on B they are), a hub with itself and the m - k + 1
   non-hubs (>= k - 1 of them), and nobody loses more than ``cap`` values. A leaf (depth p)
   with m >= k is safe as it is (H = 0).
3. *Dynamic programme*, bottom-up over the depths, per node a pair (records left uncovered,
   cost), minimised lexicographically: ``best(N) = (0, H(N))`` when the hub is allowed and
   not dearer than the children, else the sum of ``best`` over N's children; a leaf with
   fewer than k records leaves its records uncovered ``(m, 0)``. So the programme first
   leaves the fewest records without a capped solution, then suppresses the fewest values;
   within the trie model the choice is exact.
4. *Selection*, top-down: a node whose hub is chosen and that no chosen ancestor covers gets
   its hubs blanked (only observed values are blanked).
5. *Fallback* (records no capped hub can cover: e.g. a record alone in its branch whose every
   ancestor with k records varies on more than ``cap`` keys). Such a record r suppresses its
   own values: at its deepest ancestor node with at least k records, among the windows of k
   consecutive sorted records of that node containing r, the one where r differs (observed
   values) from the others on the fewest keys; r is blanked on those keys and is then
   compatible with the k records of the window. These records may lose more than ``cap``
   values (they are counted in the notes); everybody else loses at most ``cap``.

Every record ends compatible with at least k records (its node's hubs and itself, a hub with
the node's records, a fallback record with its window), and suppression never lowers anyone's count, so the result is k-anonymous by
construction (with unit record weights; alpha = 1).

Complexity: one lexicographic sort, O(n p log n); per depth d a segmented min/max over the
remaining p - d keys, O(n (p - d)); in all O(n p^2) time and O(n p) memory (a few copies of the
code matrix: about 0.5 GB at 1,000,000 x 15 int64 codes), no loop over records.

References: Sweeney (2002), *k-anonymity: a model for protecting privacy*; Meyerson & Williams
(2004), *On the complexity of optimal k-anonymity* (optimal suppression is NP-hard: the trie
restricts the groups to nested runs of the sorted order, where it is solved exactly);
Templ, Kowarik & Meindl (2015), *Statistical disclosure control for micro-data using the R
package sdcMicro*, J. Stat. Software 67(4) (frequency counts with missing values as wildcards).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["HubResult", "hub_trie", "default_cap"]


def default_cap(p: int) -> int:
    """The default cap for ``p`` keys: floor(p / 2), at least 1 (every record's k-anonymity rests
    on records that keep at least half of their key values)."""
    return max(1, p // 2)


@dataclass
class HubResult:
    """Cells to blank (``mask``, ``(n, p)`` bool, columns as given) and the fallback records."""

    mask: np.ndarray
    fallback: np.ndarray  # (n,) bool: records that blanked themselves (may exceed the cap)
    changed: int  # records with a blanked value (hubs, split nodes, fallback)


def _vary(Smin: np.ndarray, S: np.ndarray, st: np.ndarray, d: int) -> np.ndarray:
    """Per node starting at rows ``st``: the keys after depth d holding two observed values."""
    lo = np.minimum.reduceat(Smin[:, d:], st, axis=0)
    hi = np.maximum.reduceat(S[:, d:], st, axis=0)
    return (lo < hi) & (hi >= 0)


def _node_cost(v: np.ndarray, m: np.ndarray, k: int, cap: int, w: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per node (varying keys ``v``, ``m`` records): hub cost, allowed, and the keys the hubs
    blank (all of V, or for a split node the ``cap`` heaviest of V; module docstring)."""
    nv = v.sum(1)
    pure = nv <= cap
    split = ~pure & (nv <= 2 * cap) & (m >= 2 * k - 2)
    ok = (m >= k) & (pure | split)
    B = v.copy()
    if split.any():
        ow = np.argsort(-w, kind="stable")
        vs = v[:, ow]
        keep = vs & (np.cumsum(vs, axis=1) <= cap)
        Bs = np.zeros_like(v)
        Bs[:, ow] = keep
        B[split] = Bs[split]
    wB = B @ w
    wA = (v & ~B) @ w
    H = (k - 1) * wB + np.maximum(m - k + 1, 0) * wA
    return H, ok, B


def hub_trie(X: np.ndarray, k: int, cap: int, cards: np.ndarray | None = None,
             weights: np.ndarray | None = None, order: np.ndarray | None = None) -> HubResult:
    """The hub-trie programme (module docstring) on codes ``X`` (``-1`` missing); ``n >= k``.

    ``cards``: categories per column (sort order, fewest first; default: distinct codes);
    ``weights``: cost of blanking one value per column (default 1); ``order``: the columns'
    order in the trie (default: by ``cards``).

    >>> X = np.array([[0, 0], [0, 1], [0, 2], [1, 0]])
    >>> r = hub_trie(X, 2, 1)
    >>> r.mask.astype(int).tolist(), r.fallback.tolist()
    ([[1, 0], [0, 1], [0, 1], [0, 1]], [False, False, False, False])
    """
    X = np.asarray(X, dtype=np.int64)
    n, p = X.shape
    if cards is None:
        cards = np.array([len(np.unique(X[:, j])) for j in range(p)])
    w = np.ones(p) if weights is None else np.asarray(weights, dtype=float)
    if order is None:
        order = np.argsort(np.asarray(cards), kind="stable")
    S = X[:, order]
    wS = w[order]
    perm = np.lexsort(S.T[::-1])
    S = S[perm]
    chg = np.zeros((n, p + 1), bool)
    chg[0] = True
    if n > 1:
        chg[1:, 1:] = np.cumsum(S[1:] != S[:-1], axis=1) > 0
    Smin = np.where(S < 0, np.iinfo(np.int64).max, S)
    starts: list[np.ndarray] = []
    take_at: list[np.ndarray] = []
    cL = cV = cst = None
    for d in range(p, -1, -1):
        st = np.flatnonzero(chg[:, d])
        m = np.diff(np.r_[st, n])
        if d < p:
            H, ok, _ = _node_cost(_vary(Smin, S, st, d), m, k, cap, wS[d:])
        else:
            ok = m >= k
            H = np.zeros(len(st))
        if cL is None:
            subL, subV = np.where(ok, 0, m), np.zeros(len(st))
        else:
            par = np.cumsum(chg[:, d])[cst] - 1
            subL = np.bincount(par, weights=cL, minlength=len(st))
            subV = np.bincount(par, weights=cV, minlength=len(st))
        take = ok & ((subL > 0) | (H <= subV))
        cL, cV, cst = np.where(take, 0, subL), np.where(take, H, subV), st
        starts.append(st)
        take_at.append(take)
    starts, take_at = starts[::-1], take_at[::-1]
    covered = np.zeros(n, bool)
    M = np.zeros((n, p), bool)
    for d in range(p + 1):
        st = starts[d]
        idx = np.flatnonzero(take_at[d] & ~covered[st])
        if len(idx) == 0:
            continue
        mark = np.zeros(len(st), bool)
        mark[idx] = True
        nid = np.cumsum(chg[:, d]) - 1
        if d < p:
            v = _vary(Smin, S, st, d)[idx]
            _, _, B = _node_cost(v, np.diff(np.r_[st, n])[idx], k, cap, wS[d:])
            rows = (st[idx][:, None] + np.arange(k - 1)).ravel()
            M[rows, d:] |= np.repeat(B, k - 1, axis=0) & (S[rows, d:] >= 0)
            A = v & ~B  # split nodes: the other records blank the rest
            if A.any():
                where = np.full(len(st), -1)
                where[idx] = np.arange(len(idx))
                r = np.flatnonzero(mark[nid] & (np.arange(n) - st[nid] >= k - 1))
                r = r[A[where[nid[r]]].any(1)]
                M[r, d:] |= A[where[nid[r]]] & (S[r, d:] >= 0)
        covered |= mark[nid]
    left = np.flatnonzero(~covered)
    if len(left):
        _fallback(S, chg, starts, left, k, M)
    out = np.zeros((n, p), bool)
    out[np.ix_(perm, order)] = M
    fb = np.zeros(n, bool)
    fb[perm[left]] = True
    return HubResult(out, fb, int(out.any(1).sum()))


def _fallback(S: np.ndarray, chg: np.ndarray, starts: list[np.ndarray], left: np.ndarray,
              k: int, M: np.ndarray) -> None:
    """Blank each uncovered sorted row of ``left`` where it differs from the best window of k
    sorted rows of its deepest ancestor node with >= k rows (module docstring, step 5)."""
    n, p = S.shape
    lo = np.zeros(len(left), np.int64)
    hi = np.full(len(left), n, np.int64)
    for d in range(p + 1):
        st = starts[d]
        nid = np.cumsum(chg[:, d])[left] - 1
        s, e = st[nid], np.r_[st, n][nid + 1]
        deep = e - s >= k
        lo[deep], hi[deep] = s[deep], e[deep]
    best = np.full(len(left), p + 1)
    pick = np.zeros((len(left), p), bool)
    own = S[left]
    for o in range(k):
        a = left - o
        ok = (a >= lo) & (a + k <= hi)
        diff = np.zeros((len(left), p), bool)
        for t in range(k):
            q = np.clip(a + t, 0, n - 1)
            other = S[q]
            diff |= (other >= 0) & (own >= 0) & (other != own)
        c = np.where(ok, diff.sum(1), p + 1)
        better = c < best
        best[better] = c[better]
        pick[better] = diff[better]
    M[left] |= pick
