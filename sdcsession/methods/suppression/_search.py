"""Suppression rounds of local suppression (internal): the greedy on repair gains.

`_suppress_phase` runs rounds that suppress until every record has fk >= k on one key set:
per violating combination the best *self* or *donor* move, moves taken by decreasing gain at
most one per slice of violators (`_apply_donors` for donor moves), and `_fallback`
(smallest key set per combination) when no single suppression helps.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._counter import Counter
from ._many import EXACT_KEYS, EXACT_WORK, greedy_key_sets
from ._rows import _first_positions, _row_ids, _unique_rows

if TYPE_CHECKING:
    from ...progress import Bar
    from ._core import SolveInfo

__all__: list[str] = []

#: suppressions in the order made: ``(rows, cols, pos)``, cell ``(rows[i], cols[i])`` made at
#: step ``pos[i]`` of the entry (non-decreasing from 0; equal steps: made together); the entries
#: follow one another (`sdcsession.methods.suppression._restore` prefers restoring later ones)
Entry = tuple[np.ndarray, np.ndarray, np.ndarray]

_DEBUG = False


def _slice_ids(cells: np.ndarray, t: int) -> np.ndarray:
    """Id of the slice of each cell for key position ``t``: the cell's codes with key t ignored."""
    masked = cells.copy()
    masked[:, t] = -1
    return _row_ids(masked)


def _csr(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Members of each slice id (ids are ``0..m-1``, the inverse of a unique) in CSR form:
    the members of slice ``i`` are ``members[bounds[i]:bounds[i + 1]]``."""
    order = np.argsort(ids, kind="stable")
    bounds = np.searchsorted(ids[order], np.arange(int(ids.max(initial=-1)) + 2))
    return order, bounds


def _suppress_phase(X: np.ndarray, w: np.ndarray, cols: np.ndarray, cards: Sequence[int], k: float,
                    rank: np.ndarray, info: SolveInfo, order: list[Entry],
                    max_rounds: int = 10_000, cnt: Counter | None = None,
                    bar: Bar | None = None, cost: np.ndarray | None = None,
                    allowed: np.ndarray | None = None,
                    active: np.ndarray | None = None,
                    exhaustive: bool = False) -> tuple[Counter, np.ndarray]:
    """Greedy rounds that suppress until every record of ``X`` has fk >= k on ``cols``.

    ``allowed``: key positions that may be suppressed (default all); ``active``: the records
    that may still violate (default all). Returns the (persistent) counter of ``X`` on ``cols``
    (weight column 0 = ``w``) and the records still violating (none unless ``allowed`` or the
    data leave no way). ``exhaustive``: combinations that no single suppression helps always
    get the smallest key set by trying every subset (`_fallback`), never the greedy key sets of
    `_many` (the rounds as they were before many keys had an engine of their own).
    """
    n = len(X)
    pcols = len(cols)
    active = np.ones(n, bool) if active is None else active.copy()
    allowed = np.ones(pcols, bool) if allowed is None else np.asarray(allowed, bool)
    weighted = not np.all(w == 1.0)
    # persistent counter of all records, updated incrementally after each round; the violators
    # (few after the first rounds) get their own counter per round (weights 1 and w)
    if cnt is None:
        cnt = Counter(X, w, cols, cards)
    vmask = np.zeros(n, bool)
    for _ in range(max_rounds):
        info.rounds += 1
        cnt.sync()
        idx = np.flatnonzero(active)
        fk = cnt.count(X[idx])[:, 0]
        vi = idx[fk < k - 1e-9]
        fk_v = fk[fk < k - 1e-9]
        if bar is not None:
            bar.update(len(idx) - len(vi))
        active[:] = False
        active[vi] = True
        vmask[:] = False
        vmask[vi] = True
        if len(vi) == 0:
            return cnt, active
        vcnt = Counter(X[vi], np.column_stack([np.ones(len(vi)), w[vi]]), cols, cards)
        sub = X[vi][:, cols]
        cells, first, cell_of = _unique_rows(sub)
        nc = len(cells)
        m_c = np.bincount(cell_of, minlength=nc).astype(float)
        fk_c = fk_v[first]
        def_c = k - fk_c
        cell_rows = np.full((nc, X.shape[1]), -1, X.dtype)  # the codes' own (small) dtype
        cell_rows[:, cols] = cells
        # the virtual rows (cell with key t suppressed) are counted one key at a time, so that
        # only one key's copy of the cells exists at once
        obs_t = [np.flatnonzero(cells[:, t] >= 0) for t in range(pcols)]
        base_v = vcnt.count(cell_rows)  # violators compatible with the cell itself
        gain = np.full((nc, pcols), -np.inf)
        kind = np.zeros((nc, pcols), np.int8)  # 1 self, 2 donor
        fself = np.zeros((nc, pcols))
        for t in range(pcols):
            obs = obs_t[t]
            if len(obs) == 0:
                continue
            q = cell_rows[obs]
            q[:, cols[t]] = -1
            F = cnt.count(q)[:, 0]
            res = vcnt.count(q)
            del q
            V = res - base_v[obs]
            vnew, vnew_w = V[:, 0], V[:, 1]
            fself[obs, t] = F
            if weighted:
                g_self = (def_c[obs] - np.maximum(0, k - F)) / np.maximum(def_c[obs], 1e-12)
                g_don_unit = np.minimum(1.0, np.median(w) / np.maximum(def_c[obs], 1e-12))
            else:
                g_self = def_c[obs] - np.maximum(0, k - F)
                g_don_unit = 1.0
            gs = g_self + vnew * (0.5 if weighted else 1.0)
            donors = F - fk_c[obs] - vnew_w > 1e-9  # non-violating rows newly compatible
            gd = np.where(donors, (m_c[obs] + vnew) * g_don_unit, -np.inf)
            use_d = gd > gs
            g = np.where(use_d, gd, gs)
            g[g <= 1e-12] = -np.inf
            gain[obs, t] = g if allowed[t] else -np.inf
            kind[obs, t] = np.where(use_d, 2, 1)
        # choose one candidate per cell
        if rank is not None:
            # importance: least important key that resolves the cell, else least important with gain
            resolves = np.isfinite(gain) & ((fself >= k - 1e-9) | ((kind == 2) & (def_c[:, None] <= 1)))
            pri = np.where(resolves, 2.0, np.where(np.isfinite(gain), 1.0, 0.0))
            score = pri * 1e6 + rank[None, :] * 1e3 + np.where(np.isfinite(gain), np.minimum(gain, 999), 0)
            best = np.argmax(score, axis=1)
        else:
            tieb = fself / (fself.max() + 1.0)
            g_eff = gain if cost is None else gain / cost[None, :]
            score = np.where(np.isfinite(gain), g_eff + 0.5 * tieb, -np.inf)
            best = np.argmax(score, axis=1)
        bgain = gain[np.arange(nc), best]
        ok = np.isfinite(bgain)
        if not ok.any():
            if not _fallback(X, w, cols, cards, k, rank, vi, cell_of, cells, info, order, cnt,
                             allowed, exhaustive):
                return cnt, active
            continue
        cand = np.flatnonzero(ok)
        cand = cand[np.argsort(-bgain[cand], kind="stable")]
        # locks: a candidate (c, t) touches the violator cells of its t-slice
        acc = _lock_slices(cand, best[cand], cells)
        is_don = kind[acc, best[acc]] == 2
        acc_self, acc_don = acc[~is_don], acc[is_don]
        if _DEBUG:
            print('viol', len(vi), 'cells', nc, 'cand', len(cand), 'self', len(acc_self),
                  'don', len(acc_don))
        changed = 0
        if len(acc_self):
            _suppress(X, info, order, vi[first[acc_self]], cols[best[acc_self]],
                      np.arange(len(acc_self)))
            changed += len(acc_self)
        if len(acc_don):
            changed += _apply_donors(X, cols, acc_don, best[acc_don], cell_rows, vmask, info,
                                     order)
        if changed == 0:
            if not _fallback(X, w, cols, cards, k, rank, vi, cell_of, cells, info, order, cnt,
                             allowed, exhaustive):
                return cnt, active
    return cnt, active


def _suppress(X: np.ndarray, info: SolveInfo, order: list[Entry], rows: np.ndarray,
              vs: np.ndarray, pos: np.ndarray) -> None:
    """Suppress the cells ``(rows, vs)`` and record them in ``order`` (steps ``pos``)."""
    if len(rows) == 0:
        return
    rows = np.asarray(rows, np.int64)
    vs = np.asarray(vs, np.int64)
    X[rows, vs] = -1
    info.suppressed[rows, vs] = True
    order.append((rows, vs, np.asarray(pos, np.int64)))


def _lock_slices(cand: np.ndarray, tt: np.ndarray, cells: np.ndarray,
                 rounds: int = 64) -> np.ndarray:
    """Candidates ``(cand[i], tt[i])`` (in priority order) taken greedily: a candidate is taken
    unless a cell of its slice (the cells equal to ``cells[cand[i]]`` except on key ``tt[i]``)
    was locked by a candidate taken before; a taken candidate locks its slice. Returns the cells
    of the taken candidates, in priority order.

    Candidates of the same slice after the first of it are never taken (the same cells). The
    others are decided in rounds: a candidate first among the undecided candidates touching any
    of its cells is taken (all before it that could block it are decided and none taken), and
    the undecided candidates touching the cells it locks are not; after ``rounds`` rounds the
    sequential greedy decides the rest (`sdcsession.methods.suppression._bits_jit.first_unlocked`).
    """
    m = len(cand)
    if m == 0:
        return cand
    gid = np.empty(m, np.int64)
    mem_l, start_l, off = [], [], 0
    for t in np.unique(tt).tolist():  # the slices of each key
        sel = np.flatnonzero(tt == t)
        ids = _slice_ids(cells, t)
        members, bounds = _csr(ids)
        gid[sel] = ids[cand[sel]] + off
        mem_l.append(members + 0)
        start_l.append(bounds[:-1] + sum(len(x) for x in mem_l[:-1]))
        off += len(bounds) - 1
    members = np.concatenate(mem_l)
    starts = np.concatenate(start_l)
    ends = np.append(starts[1:], len(members))
    rep = np.sort(np.unique(gid, return_index=True)[1])  # first candidate of each slice
    g = gid[rep]
    lens = ends[g] - starts[g]
    pc = np.repeat(np.arange(len(rep)), lens)  # (candidate, cell) pairs
    pcell = members[np.repeat(starts[g] - np.cumsum(lens) + lens, lens) + np.arange(lens.sum())]
    nc = len(cells)
    alive = np.ones(len(rep), bool)
    taken = np.zeros(len(rep), bool)
    locked = np.zeros(nc, bool)
    big = len(rep)
    for _ in range(rounds):
        if not alive.any():
            break
        rk = np.where(alive[pc], pc, big)  # the rank of a pair's candidate (rep is in order)
        cell_min = np.full(nc, big)
        np.minimum.at(cell_min, pcell, rk)
        cand_min = np.full(len(rep), big)
        np.minimum.at(cand_min, pc, cell_min[pcell])
        win = alive & (cand_min == np.arange(len(rep)))
        taken |= win
        locked[pcell[win[pc]]] = True
        hit = np.zeros(len(rep), bool)
        hit[pc[locked[pcell]]] = True
        alive &= ~hit
    if alive.any():
        from ._bits_jit import first_unlocked  # numba: on first use only

        idx = np.flatnonzero(alive)
        sel = alive[pc]
        taken[idx[first_unlocked(np.searchsorted(idx, pc[sel]), pcell[sel], locked)]] = True
    return cand[rep[taken]]


def _apply_donors(X: np.ndarray, cols: np.ndarray, acc_c: np.ndarray, acc_t: np.ndarray,
                  cell_rows: np.ndarray, vmask: np.ndarray, info: SolveInfo,
                  order: list[Entry]) -> int:
    """Suppress key ``acc_t[i]`` in one non-violating record of the slice of each accepted cell
    ``acc_c[i]`` (cells of one key in the order accepted, keys in the order first accepted).

    The donor of a cell is the first record (in row order) that does not violate, is observed on
    key t and equals the cell on the other keys (missing equal to missing). Rows are encoded on
    the other keys (mixed radix, missing as one more symbol) in blocks and looked up among the
    cells' codes, so no copy of all rows is made.
    """
    done = 0
    cards = np.maximum(X.max(axis=0).astype(np.int64) + 1, cell_rows.max(axis=0) + 1)
    for t in pd.unique(acc_t).tolist():  # keys in the order first accepted
        cs = acc_c[acc_t == t]
        v = cols[t]
        other = [int(c) for j, c in enumerate(cols) if j != t]
        radix = [int(cards[c]) + 1 for c in other]  # code + 1; 0 = missing
        if np.prod([float(r) for r in radix]) >= 2.0 ** 62:
            done += _apply_donors_rows(X, cols, t, cs, cell_rows, vmask, info, order)
            continue

        qcode = _radix_code(cell_rows[cs], other, radix)
        index = pd.Index(qcode)
        hits, codes = [], []
        step = 1 << 18
        for a in range(0, len(X), step):
            blk = X[a:a + step]
            hit = np.flatnonzero(index.get_indexer(_radix_code(blk, other, radix)) >= 0)
            hit = hit[~vmask[a + hit] & (blk[hit, v] >= 0)]
            hits.append(hit + a)
            codes.append(_radix_code(blk[hit], other, radix))
        if not hits:
            continue
        # the first donor (in row order) of each code
        ucode, at = np.unique(np.concatenate(codes), return_index=True)
        donor = np.concatenate(hits)[at]
        done += _take_donors(X, v, ucode, donor, qcode, info, order)
    return done


def _take_donors(X: np.ndarray, v: int, ucode: np.ndarray, donor: np.ndarray, qcode: np.ndarray,
                 info: SolveInfo, order: list[Entry]) -> int:
    """Suppress key ``v`` of the donor of each query code (in query order; a record once)."""
    pos = np.minimum(np.searchsorted(ucode, qcode), max(len(ucode) - 1, 0))
    found = np.flatnonzero(ucode[pos] == qcode) if len(ucode) else np.zeros(0, np.int64)
    r = donor[pos[found]]
    r = r[X[r, v] >= 0]
    r = r[np.sort(np.unique(r, return_index=True)[1])]  # a record donates once
    _suppress(X, info, order, r, np.full(len(r), v), np.arange(len(r)))
    return len(r)


def _radix_code(rows: np.ndarray, cols: list[int], radix: list[int]) -> np.ndarray:
    """Mixed-radix int64 code of ``rows`` on ``cols`` (code + 1 per column, 0 = missing)."""
    code = np.zeros(len(rows), dtype=np.int64)
    for c, r in zip(cols, radix):
        code *= r
        code += rows[:, c].astype(np.int64) + 1
    return code


def _apply_donors_rows(X: np.ndarray, cols: np.ndarray, t: int, cs: np.ndarray,
                       cell_rows: np.ndarray, vmask: np.ndarray, info: SolveInfo,
                       order: list[Entry]) -> int:
    """`_apply_donors` for one key when the codes overflow int64: rows grouped by sorting."""
    v = cols[t]
    q = cell_rows[cs][:, cols]
    q[:, t] = -1
    cand = np.flatnonzero(~vmask & (X[:, v] >= 0))
    if len(cand) == 0:
        return 0
    rows = X[cand][:, cols].astype(np.int64)
    rows[:, t] = -1
    inv = _row_ids(np.concatenate([rows, q]))
    dinv, qinv = inv[: len(cand)], inv[len(cand):]
    # first donor per code: donors come first, so their ids are 0..m-1 and a query id >= m
    # has no donor
    first = _first_positions(dinv)
    q = np.flatnonzero(qinv < len(first))
    return _take_donors(X, v, np.arange(len(first)), cand[first], qinv[q], info, order)


def _fallback(X: np.ndarray, w: np.ndarray, cols: np.ndarray, cards: Sequence[int], k: float,
              rank: np.ndarray | None, vi: np.ndarray, cell_of: np.ndarray, cells: np.ndarray,
              info: SolveInfo, order: list[Entry], cnt: Counter,
              allowed: np.ndarray | None = None, exhaustive: bool = False) -> bool:
    """No single suppression helps: suppress, per violating cell, the smallest key set that works
    (beyond `EXACT_KEYS` keys and `EXACT_WORK`, unless ``exhaustive``: greedy key sets)."""
    pcols = len(cols)
    nc = len(cells)
    todo = np.ones(nc, bool)
    choice = np.full(nc, -1)  # per cell: the key subset chosen (index into subs)
    subs: list[tuple[int, ...]] = []
    cell_rows = np.full((nc, X.shape[1]), -1, np.int64)
    cell_rows[:, cols] = cells
    pos_order = [t for t in range(pcols) if allowed is None or allowed[t]]
    if rank is not None:  # least important first
        pos_order = sorted(pos_order, key=lambda t: -rank[t])
    if not exhaustive and len(pos_order) > EXACT_KEYS and nc << len(pos_order) > EXACT_WORK:
        # many keys and many combinations: greedy sets (`_many`), not all 2^p subsets
        sel, stp = greedy_key_sets(X, cols, k, rank, cells, pos_order, cnt)
        pi, t = np.nonzero(sel[cell_of])
        r, v, pj = vi[pi], cols[t], stp[cell_of[pi], t]
        keep = X[r, v] >= 0
        pi, pj, r, v = pi[keep], pj[keep], r[keep], v[keep]
        srt = np.lexsort((pi, pj, cell_of[pi]))
        step = np.unique(cell_of[pi][srt] * pcols + pj[srt], return_inverse=True)[1]
        _suppress(X, info, order, r[srt], v[srt], step.ravel())
        return len(r) > 0
    for size in range(2, pcols + 1):
        for sub in itertools.combinations(pos_order, size):
            ids = np.flatnonzero(todo)
            if len(ids) == 0:
                break
            q = cell_rows[ids].copy()
            q[:, cols[list(sub)]] = -1
            F = cnt.count(q)[:, 0]
            okc = ids[F >= k - 1e-9]
            choice[okc] = len(subs)
            subs.append(sub)
            todo[okc] = False
    if not subs:
        return False
    # (violator, j-th key of its cell's subset), by cell, key, violator
    lens = np.array([len(x) for x in subs])
    keys = np.full((len(subs), int(lens.max())), -1)
    for i, sub in enumerate(subs):
        keys[i, :len(sub)] = sub
    ii = np.flatnonzero(choice[cell_of] >= 0)
    sid = choice[cell_of[ii]]
    pi = np.repeat(ii, lens[sid])
    pj = np.arange(len(pi)) - np.repeat(np.cumsum(lens[sid]) - lens[sid], lens[sid])
    r = vi[pi]
    v = cols[keys[np.repeat(sid, lens[sid]), pj]]
    keep = X[r, v] >= 0
    pi, pj, r, v = pi[keep], pj[keep], r[keep], v[keep]
    srt = np.lexsort((pi, pj, cell_of[pi]))
    step = np.unique(cell_of[pi][srt] * len(pos_order) + pj[srt], return_inverse=True)[1]
    _suppress(X, info, order, r[srt], v[srt], step.ravel())
    return len(r) > 0
