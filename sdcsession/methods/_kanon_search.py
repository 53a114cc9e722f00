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

from ._kanon_counter import Counter
from ._kanon_rows import _first_positions, _row_ids, _unique_rows

if TYPE_CHECKING:
    from ..progress import Bar
    from ._kanon_core import SolveInfo

__all__: list[str] = []

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
                    rank: np.ndarray, info: SolveInfo, order: list[tuple[np.ndarray, int]],
                    max_rounds: int = 10_000, cnt: Counter | None = None,
                    bar: Bar | None = None, cost: np.ndarray | None = None,
                    allowed: np.ndarray | None = None,
                    active: np.ndarray | None = None) -> tuple[Counter, np.ndarray]:
    """Greedy rounds that suppress until every record of ``X`` has fk >= k on ``cols``.

    ``allowed``: key positions that may be suppressed (default all); ``active``: the records
    that may still violate (default all). Returns the (persistent) counter of ``X`` on ``cols``
    (weight column 0 = ``w``) and the records still violating (none unless ``allowed`` or the
    data leave no way).
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
                             allowed):
                return cnt, active
            continue
        cand = np.flatnonzero(ok)
        cand = cand[np.argsort(-bgain[cand], kind="stable")]
        # locks: a candidate (c, t) touches the violator cells of its t-slice
        slice_ids = {}
        slice_members = {}
        locked = np.zeros(nc, dtype=np.uint8)
        acc_self: list[tuple[int, int]] = []
        acc_don: list[tuple[int, int]] = []
        # (arrays, not lists: a Python int costs 36 bytes, and there is one per cell and key)
        for c, t in zip(cand.tolist(), best[cand].tolist()):
            if t not in slice_ids:
                slice_ids[t] = _slice_ids(cells, t)
                slice_members[t] = _csr(slice_ids[t])
            members, bounds = slice_members[t]
            sid = slice_ids[t][c]
            a, b = int(bounds[sid]), int(bounds[sid + 1])
            if b - a == 1:  # a slice of one cell: the cell itself
                if locked[c]:
                    continue
                locked[c] = 1
            else:
                mem = members[a:b]
                if locked[mem].any():
                    continue
                locked[mem] = 1
            (acc_don if kind[c, t] == 2 else acc_self).append((c, t))
        if _DEBUG:
            print('viol', len(vi), 'cells', nc, 'cand', len(cand), 'self', len(acc_self),
                  'don', len(acc_don))
        changed = 0
        for c, t in acc_self:
            r = vi[first[c]]
            X[r, cols[t]] = -1
            info.suppressed[r, cols[t]] = True
            order.append((np.array([r]), int(cols[t])))
            changed += 1
        if acc_don:
            changed += _apply_donors(X, cols, acc_don, cell_rows, vmask, info, order)
        if changed == 0:
            if not _fallback(X, w, cols, cards, k, rank, vi, cell_of, cells, info, order, cnt,
                             allowed):
                return cnt, active
    return cnt, active


def _apply_donors(X: np.ndarray, cols: np.ndarray, acc: list[tuple[int, int]],
                  cell_rows: np.ndarray, vmask: np.ndarray, info: SolveInfo,
                  order: list[tuple[np.ndarray, int]]) -> int:
    """Suppress key t in one non-violating record of the t-slice of each accepted cell.

    The donor of a cell is the first record (in row order) that does not violate, is observed on
    key t and equals the cell on the other keys (missing equal to missing). Rows are encoded on
    the other keys (mixed radix, missing as one more symbol) in blocks and looked up among the
    cells' codes, so no copy of all rows is made.
    """
    done = 0
    by_t: dict[int, list[int]] = {}
    for c, t in acc:
        by_t.setdefault(t, []).append(c)
    cards = np.maximum(X.max(axis=0).astype(np.int64) + 1, cell_rows.max(axis=0) + 1)
    for t, cs in by_t.items():
        v = cols[t]
        other = [int(c) for j, c in enumerate(cols) if j != t]
        radix = [int(cards[c]) + 1 for c in other]  # code + 1; 0 = missing
        if np.prod([float(r) for r in radix]) >= 2.0 ** 62:
            done += _apply_donors_rows(X, cols, t, cs, cell_rows, vmask, info, order)
            continue

        qcode = _radix_code(cell_rows[cs], other, radix)
        index = pd.Index(qcode)
        first: dict[int, int] = {}
        step = 1 << 18
        for a in range(0, len(X), step):
            blk = X[a:a + step]
            hit = np.flatnonzero(index.get_indexer(_radix_code(blk, other, radix)) >= 0)
            if len(hit) == 0:
                continue
            hit = hit[~vmask[a + hit] & (blk[hit, v] >= 0)]
            for r, cd in zip((hit + a).tolist(), _radix_code(blk[hit], other, radix).tolist()):
                first.setdefault(cd, r)
        for cd in qcode.tolist():
            r = first.get(cd)
            if r is None or X[r, v] < 0:
                continue
            X[r, v] = -1
            info.suppressed[r, v] = True
            order.append((np.array([r]), int(v)))
            done += 1
    return done


def _radix_code(rows: np.ndarray, cols: list[int], radix: list[int]) -> np.ndarray:
    """Mixed-radix int64 code of ``rows`` on ``cols`` (code + 1 per column, 0 = missing)."""
    code = np.zeros(len(rows), dtype=np.int64)
    for c, r in zip(cols, radix):
        code *= r
        code += rows[:, c].astype(np.int64) + 1
    return code


def _apply_donors_rows(X: np.ndarray, cols: np.ndarray, t: int, cs: list[int],
                       cell_rows: np.ndarray, vmask: np.ndarray, info: SolveInfo,
                       order: list[tuple[np.ndarray, int]]) -> int:
    """`_apply_donors` for one key when the codes overflow int64: rows grouped by sorting."""
    done = 0
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
    for j in np.flatnonzero(qinv < len(first)):
        r = cand[first[qinv[j]]]
        if X[r, v] < 0:
            continue
        X[r, v] = -1
        info.suppressed[r, v] = True
        order.append((np.array([r]), int(v)))
        done += 1
    return done


def _fallback(X: np.ndarray, w: np.ndarray, cols: np.ndarray, cards: Sequence[int], k: float,
              rank: np.ndarray | None, vi: np.ndarray, cell_of: np.ndarray, cells: np.ndarray,
              info: SolveInfo, order: list[tuple[np.ndarray, int]], cnt: Counter,
              allowed: np.ndarray | None = None) -> bool:
    """No single suppression helps: suppress, per violating cell, the smallest key set that works."""
    pcols = len(cols)
    nc = len(cells)
    todo = np.ones(nc, bool)
    choice: list[tuple[int, ...] | None] = [None] * nc
    cell_rows = np.full((nc, X.shape[1]), -1, np.int64)
    cell_rows[:, cols] = cells
    pos_order = [t for t in range(pcols) if allowed is None or allowed[t]]
    if rank is not None:  # least important first
        pos_order = sorted(pos_order, key=lambda t: -rank[t])
    for size in range(2, pcols + 1):
        for sub in itertools.combinations(pos_order, size):
            ids = np.flatnonzero(todo)
            if len(ids) == 0:
                break
            q = cell_rows[ids].copy()
            q[:, cols[list(sub)]] = -1
            F = cnt.count(q)[:, 0]
            okc = ids[F >= k - 1e-9]
            for c in okc.tolist():
                choice[c] = sub
            todo[okc] = False
    changed = 0
    for c in range(nc):
        if choice[c] is None:
            continue
        recs = vi[cell_of == c]
        for t in choice[c]:
            v = cols[t]
            r = recs[X[recs, v] >= 0]
            if len(r):
                X[r, v] = -1
                info.suppressed[r, v] = True
                order.append((r, int(v)))
                changed += len(r)
    return changed > 0

