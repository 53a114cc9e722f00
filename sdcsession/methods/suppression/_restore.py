"""Restoration pass of local suppression (internal): give back suppressions no longer needed.

`_restore_phase` tests every suppression against the current state, accepts restorations
one per record and slice per round, keeps fk up to date incrementally (`_update_fks`) and
undoes the restorations involved in a violation (`_involved`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ._counter import Counter
from ._rows import _row_ids, first_per_group

if TYPE_CHECKING:
    from ._core import SolveInfo

__all__: list[str] = []

_DEBUG = False


def _restore_phase(X: np.ndarray, orig: np.ndarray, w: np.ndarray, keysets: list[np.ndarray],
                   cards: Sequence[int], k: float | Sequence[float], rank: np.ndarray | None,
                   info: SolveInfo,
                   order: list[tuple[np.ndarray, np.ndarray, np.ndarray]], base: list[Counter],
                   max_rounds: int = 50) -> list[np.ndarray]:
    """Restore suppressed values whose restoration keeps every record at fk >= k.

    fk of every record is counted once; then each round tests the pending suppressions
    independently against the current state: the restored record must reach fk >= k, and no
    record that would lose compatibility with it may be tight (fk - w < k); the number of such
    tight records is a difference of two compatible-sum queries. During this phase fk only
    decreases, so a suppression that fails the test is never tested again. Passing candidates are
    accepted at most one per record and per slice (same codes on the other keys); fk is then
    updated incrementally (only the change caused by the restored rows is counted) and
    restorations involved in a violation are undone.

    ``k``: one number, or one per key set.
    ``base``: a persistent counter per key set (weight column 0 = ``w``), kept in sync with ``X``.
    Returns fk per key set, exact for the final ``X`` (maintained incrementally).
    """
    weighted = not np.all(w == 1.0)
    kl = [float(k)] * len(keysets) if np.ndim(k) == 0 else [float(x) for x in k]
    allcols = keysets_all(keysets)
    seq = _sequence(order, X.shape[1])
    fks = []
    for cnt in base:
        cnt.sync()
        fks.append(cnt.count(X)[:, 0])
    rr, vv = np.nonzero(info.suppressed & (X < 0))
    cnts: dict[int, Counter] = {}  # persistent per key set, synced with X and the tight flags
    for _ in range(max_rounds):
        if len(rr) == 0:
            return fks
        ok = np.ones(len(rr), bool)
        b0 = [np.zeros(len(rr)) for _ in keysets]
        if weighted:
            wq = np.unique(np.quantile(w[rr], [0.25, 0.5, 0.75, 1.0]))
            bucket = np.minimum(np.searchsorted(wq, w[rr]), len(wq) - 1)
        for kk_, (cols, fk) in enumerate(zip(keysets, fks)):
            k = kl[kk_]
            ids = np.flatnonzero(np.isin(vv, cols))
            if len(ids) == 0:
                continue
            if weighted:
                T = np.column_stack([w] + [(fk - b < k - 1e-9).astype(float) for b in wq])
            else:
                T = np.column_stack([w, (fk - 1 < k - 1e-9).astype(float)])
            if kk_ in cnts and cnts[kk_].W.shape[1] == T.shape[1]:
                cnt = cnts[kk_]
                cnt.sync(T)
            else:
                cnt = cnts[kk_] = Counter(X, T, cols, cards, copy=False)
            cur = X[rr[ids]]
            new = cur.copy()
            new[np.arange(len(ids)), vv[ids]] = orig[rr[ids], vv[ids]]
            a = cnt.count(cur)
            b = cnt.count(new)
            if weighted:
                tight = (a[:, 1:] - b[:, 1:])[np.arange(len(ids)), bucket[ids]]
            else:
                tight = a[:, 1] - b[:, 1]
            good = (b[:, 0] >= k - 1e-9) & (tight < 0.5)
            ok[ids[~good]] = False
            b0[kk_][ids] = b[:, 0]
        rr, vv = rr[ok], vv[ok]
        b0 = [x[ok] for x in b0]
        if len(rr) == 0:
            return fks
        # priority: most important key, records with several suppressions, latest first
        nsup = (info.suppressed[rr] & (X[rr] < 0)).sum(axis=1)
        rk = rank[vv] if rank is not None else np.zeros(len(rr))
        sq = seq(rr, vv)
        pri = np.lexsort((-sq, -nsup, rk))
        # one per record and per slice (the key and the codes on the other keys), in order
        slc = X[rr][:, allcols].astype(np.int64) + 1
        slc[vv[:, None] == allcols[None, :]] = -1
        slc = _row_ids(np.column_stack([vv, slc]))
        acc = first_per_group(pri, rr, slc)
        X[rr[acc], vv[acc]] = orig[rr[acc], vv[acc]]
        _update_fks(X, w, keysets, cards, fks, rr[acc], vv[acc], -1, base,
                    [x[acc] for x in b0])
        while True:
            bad = np.zeros(len(X), bool)
            for fk, kk in zip(fks, kl):
                bad |= fk < kk - 1e-9
            if not bad.any():
                break
            undo = _involved(X, np.flatnonzero(bad), rr[acc], vv[acc], allcols, cards)
            if not undo.any():
                undo[:] = True
            X[rr[acc[undo]], vv[acc[undo]]] = -1
            _update_fks(X, w, keysets, cards, fks, rr[acc[undo]], vv[acc[undo]],
                        orig[rr[acc[undo]], vv[acc[undo]]], base)
            acc = acc[~undo]
            if len(acc) == 0:
                break
        if _DEBUG:
            print('restore round', len(rr), 'accepted', len(acc))
        if len(acc) == 0:
            return fks
        info.restored += len(acc)
        keep = np.ones(len(rr), bool)
        keep[acc] = False
        rr, vv = rr[keep], vv[keep]
    return fks


def _sequence(order: list[tuple[np.ndarray, np.ndarray, np.ndarray]], p: int):
    """Lookup of the step at which each cell was last suppressed (0 if never): the entries of
    ``order`` (``(rows, cols, step within the entry)``, `sdcsession.methods.suppression._search.Entry`)
    follow one another."""
    order = [e for e in order if len(e[0])]
    if not order:
        return lambda rr, vv: np.zeros(len(rr), np.int64)
    ends = np.cumsum([int(st.max()) + 1 for _, _, st in order])
    cell = np.concatenate([rows * p + vs for rows, vs, _ in order])
    pos = np.concatenate([st + e - st.max() - 1 for (_, _, st), e in zip(order, ends)])
    srt = np.lexsort((pos, cell))  # by cell, then position: the last of each cell wins
    cell, pos = cell[srt], pos[srt]
    last = np.append(cell[1:] != cell[:-1], True)
    cell, pos = cell[last], pos[last]

    def lookup(rr: np.ndarray, vv: np.ndarray) -> np.ndarray:
        q = rr.astype(np.int64) * p + vv
        at = np.minimum(np.searchsorted(cell, q), len(cell) - 1)
        return np.where(cell[at] == q, pos[at], 0)

    return lookup


def _update_fks(X: np.ndarray, w: np.ndarray, keysets: list[np.ndarray], cards: Sequence[int],
                fks: list[np.ndarray], R: np.ndarray, V: np.ndarray, old: np.ndarray | int,
                base: list[Counter], start: list[np.ndarray] | None = None) -> None:
    """Update fk in place after the values (R, V) of X changed from ``old`` to their current value.

    For records outside R the change is (compatible rows among R now) - (compatible rows among R
    before) (`Counter.delta` of the persistent counters ``base``); the records of R are recounted
    with ``base``.
    """
    if len(R) == 0:
        return
    now = X[R]
    before = now.copy()
    before[np.arange(len(R)), V] = old
    for i, (cols, fk) in enumerate(zip(keysets, fks)):
        inset = np.isin(V, cols)
        if not inset.any():
            continue
        base[i].sync()
        delta = base[i].delta(now, before, w[R])
        fk += delta
        if start is not None:
            # rows of R whose changed key is outside this key set keep fk + delta
            fk[R[inset]] = start[i][inset] + delta[R[inset]]
        else:
            base[i].sync()
            fk[R] = base[i].count(X[R])[:, 0]


def keysets_all(keysets: list[np.ndarray]) -> np.ndarray:
    return np.unique(np.concatenate(keysets))


def _involved(X: np.ndarray, J: np.ndarray, R: np.ndarray, V: np.ndarray,
              allcols: np.ndarray, cards: Sequence[int]) -> np.ndarray:
    """Restorations (R, V) whose record is a violator or made a violator lose compatibility.

    A violator i lost compatibility with restored record r (key v) when it is compatible with r's
    row with v missing but not with r's row as restored: the difference of two counts over the
    violators as data rows (one vectorised lookup per restoration, no pairwise comparison).
    """
    out = np.isin(R, J)
    if len(J) == 0 or len(R) == 0:
        return out
    cnt = Counter(X[J], np.ones(len(J)), allcols, cards)
    now = X[R]
    before = now.copy()
    before[np.arange(len(R)), V] = -1
    lost = cnt.count(before)[:, 0] - cnt.count(now)[:, 0] > 0.5
    return out | lost

