"""Core of local suppression to k-anonymity, on integer key codes (internal).

Records are rows of an ``(n, p)`` int64 code matrix ``X`` (``-1`` = missing). Missing values are
wildcards (alpha = 1): record *j* is compatible with record *i* when they agree on every key where
both are non-missing, and ``fk_i = sum of w_j over compatible j`` (``w = 1``: the sample frequency;
sampling weights: ``Fk``).

Counting (:class:`Counter`): the data rows are grouped by missing pattern ``Q`` (bit mask); for a
query row of pattern ``P`` the compatible rows of pattern ``Q`` are those with the query's codes on
the keys observed in both, ``S = K \\ (P | Q)``. For every pair ``(Q, S)`` the data rows of ``Q`` are
encoded once on ``S`` (mixed radix) and summed per code in a hash-indexed table; queries are
answered by hash lookups. Any number of query rows ("virtual" records with one more key suppressed, restored records,
...) costs one vectorised lookup per pattern pair.

The heuristic (:func:`solve`) is described in :func:`sdcsession.methods.suppression.local_suppression`.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..progress import Bar

__all__ = ["Counter", "SolveInfo", "solve", "restore_only", "compat_sum"]

_MAX_RADIX = 1 << 62
_DEBUG = False


def _bits(X: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Missing-pattern bit mask over ``cols`` (bit t set = column ``cols[t]`` missing)."""
    if len(cols) == 0:
        return np.zeros(len(X), dtype=np.int64)
    miss = X[:, cols] < 0
    return (miss.astype(np.int64) << np.arange(len(cols), dtype=np.int64)).sum(axis=1)


def _groups(pat: np.ndarray) -> dict[int, np.ndarray]:
    """Row indices per distinct value of ``pat``."""
    if len(pat) == 0:
        return {}
    order = np.argsort(pat, kind="stable")
    sp = pat[order]
    cut = np.flatnonzero(np.diff(sp)) + 1
    starts = np.concatenate(([0], cut))
    ends = np.concatenate((cut, [len(sp)]))
    return {int(sp[s]): order[s:e] for s, e in zip(starts, ends)}


_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0


def _pool() -> ThreadPoolExecutor | None:
    """Shared thread pool for counting (``SDCSESSION_THREADS``, default: the CPUs, at most 4);
    None when one thread is asked for or available."""
    global _POOL, _POOL_SIZE
    try:
        n = int(os.environ.get("SDCSESSION_THREADS", "0"))
    except ValueError:
        n = 0
    if n <= 0:
        n = min(os.cpu_count() or 1, 4)
    if n <= 1:
        return None
    if _POOL is None or _POOL_SIZE != n:
        _POOL = ThreadPoolExecutor(max_workers=n, thread_name_prefix="sdcsession-count")
        _POOL_SIZE = n
    return _POOL


def _forget_pool() -> None:
    global _POOL
    _POOL = None  # a forked child has no threads: it makes its own pool


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


class _Table:
    """Data rows summed per code on the keys observed in a query pattern (missing = one symbol)."""

    __slots__ = ("obs", "radix", "mult", "plain", "plan", "u", "s", "index", "gen", "us", "uord")

    #: small tables and few needles: binary search (pandas' hash lookup has a fixed cost of some
    #: 100 µs per call); otherwise hashing, several times faster than searching
    SMALL = 8_192

    def __init__(self) -> None:
        self.gen = 0
        self.index: pd.Index | None = None
        self.us: np.ndarray | None = None

    def reset(self) -> None:
        """Forget the lookup structures (after codes were appended to ``u``)."""
        self.index = None
        self.us = None

    def lookup(self, codes: np.ndarray) -> np.ndarray:
        """Row of each code in ``u``, -1 when absent (hash index or binary search, built lazily)."""
        if len(codes) <= self.SMALL and len(self.u) <= self.SMALL:
            if self.us is None:
                self.uord = np.argsort(self.u, kind="stable")
                self.us = self.u[self.uord]
            if len(self.us) == 0:
                return np.full(len(codes), -1, np.int64)
            pos = np.minimum(np.searchsorted(self.us, codes), len(self.us) - 1)
            return np.where(self.us[pos] == codes, self.uord[pos], -1)
        if self.index is None:
            self.index = pd.Index(self.u)
        return self.index.get_indexer(codes)


class Counter:
    """Sums of data weights over compatible rows, for any query rows (missing = wildcard).

    Parameters
    ----------
    X : ``(n, p)`` int64 codes, ``-1`` missing (not copied; after changing it call :meth:`sync`).
    W : ``(n,)`` or ``(n, r)`` weights (r weight columns summed at once).
    cols : the key columns (indices into ``X``'s columns) that define compatibility.
    cards : number of categories per column of ``X`` (codes are ``< cards``).

    For a query pattern ``P`` (keys missing in the query) the data rows are encoded once on the
    keys outside ``P``, a missing value being one more symbol, and summed per code (distinct codes
    in a hash index, sums with a zero row last that a miss gathers). A query row is compatible with the data rows that carry its codes or the missing
    symbol on each of those keys; one lookup per data missing pattern ``Q`` (restricted to the
    keys outside ``P``) with the query's codes replaced by the missing symbol on ``Q`` gathers them
    all. The codes of all ``Q`` are formed at once (``base + D @ B`` with ``B`` the pattern bits)
    and looked up at once per query pattern.

    The tables persist: after values of ``X`` (or the weights) change, :meth:`sync` moves the
    weight of the changed rows from their old codes to their new ones in every cached table
    (new codes are appended), instead of re-encoding all rows. Tables not used during the last
    ``KEEP`` syncs are dropped.

    Example
    -------
    >>> X = np.array([[0, 0], [0, 1], [0, -1], [1, 1]])
    >>> c = Counter(X, np.ones(4), [0, 1], [2, 2])
    >>> c.count(X)[:, 0].tolist()
    [2.0, 2.0, 3.0, 1.0]
    >>> X[3, 0] = -1
    >>> c.sync()
    >>> c.count(X)[:, 0].tolist()
    [2.0, 3.0, 4.0, 3.0]
    """

    KEEP = 3  # syncs a table survives without being used

    def __init__(self, X: np.ndarray, W: np.ndarray, cols: Sequence[int], cards: Sequence[int]):
        self.X = X
        W = np.asarray(W, dtype=np.float64)
        self.W = (W[:, None] if W.ndim == 1 else W).copy()
        self.cols = np.asarray(cols, dtype=np.int64)
        self.cards = np.array([max(int(cards[c]), 1) for c in self.cols], dtype=np.int64)
        self.snap = X[:, self.cols].copy()
        self.snapf = self._filled(self.snap)  # missing replaced by its symbol (= the card)
        bits = _bits(X, self.cols)
        u, c = np.unique(bits, return_counts=True)
        self.npat: dict[int, int] = dict(zip(u.tolist(), c.tolist()))
        self.total = self.W.sum(axis=0)
        self.gen = 0
        self._cache: dict[int, _Table] = {}

    # ----------------------------------------------------------------------------- tables
    def _table(self, P: int) -> _Table:
        tb = self._cache.get(P)
        if tb is None:
            tb = _Table()
            obs = [t for t in range(len(self.cols)) if not P >> t & 1]
            tb.obs = obs
            tb.radix = self.cards[obs] + 1
            size = 1
            for r in tb.radix.tolist():
                size *= int(r)
            tb.plain = size < _MAX_RADIX
            mult = np.ones(len(obs), dtype=np.int64)
            if tb.plain:
                for j in range(len(obs) - 2, -1, -1):
                    mult[j] = mult[j + 1] * tb.radix[j + 1]
            tb.mult = mult
            if tb.plain:
                inv, tb.u = pd.factorize(self._codes(self.snapf, tb))
                # sums per code plus a zero row last, so that a miss (-1) gathers 0
                tb.s = self._sums(inv, len(tb.u) + 1, self.W)
            else:
                self._build_dense(tb)
            self._cache[P] = tb
        tb.gen = self.gen
        return tb

    @staticmethod
    def _sums(inv: np.ndarray, m: int, W: np.ndarray) -> np.ndarray:
        return np.column_stack([np.bincount(inv, weights=W[:, j], minlength=m)
                                for j in range(W.shape[1])])

    def _filled(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` (columns = the counter's keys) with missing (-1) replaced by its symbol."""
        return np.where(rows < 0, self.cards, rows)

    @staticmethod
    def _codes(rowsf: np.ndarray, tb: _Table) -> np.ndarray:
        """Codes (missing symbol included) of filled rows (see :meth:`_filled`)."""
        if not tb.obs:
            return np.zeros(len(rowsf), dtype=np.int64)
        code = rowsf[:, tb.obs[0]] * tb.mult[0]
        for j in range(1, len(tb.obs)):
            code += rowsf[:, tb.obs[j]] * tb.mult[j]
        return code

    def _build_dense(self, tb: _Table) -> None:
        """Fallback when the codes overflow int64: dense renumbering in stages (not incremental)."""
        D = self.snap[:, tb.obs]
        D = np.where(D < 0, tb.radix - 1, D)
        plan: list[tuple[int, np.ndarray | None]] = []
        code = np.zeros(len(D), dtype=np.int64)
        size = 1
        for j in range(len(tb.obs)):
            r = int(tb.radix[j])
            dens = None
            if size * r >= _MAX_RADIX:
                dens, code = np.unique(code, return_inverse=True)
                code = np.asarray(code, dtype=np.int64).ravel()
                size = len(dens)
            plan.append((r, dens))
            code = code * r + D[:, j]
            size *= r
        inv, uniq = pd.factorize(code)
        tb.s = self._sums(inv, len(uniq), self.W)
        tb.index = pd.Index(uniq)
        tb.plan = plan

    @staticmethod
    def _encode_plan(rows: np.ndarray, plan: list) -> np.ndarray:
        code = np.zeros(len(rows), dtype=np.int64)
        for j, (r, dens) in enumerate(plan):
            if dens is not None:
                pos = np.searchsorted(dens, code)
                pos_c = np.minimum(pos, len(dens) - 1)
                found = (code >= 0) & (dens[pos_c] == code)
                code = np.where(found, pos_c, -1)
            code = np.where(code >= 0, code * r + rows[:, j], -1)
        return code

    # ----------------------------------------------------------------------------- queries
    def count(self, Qx: np.ndarray) -> np.ndarray:
        """``(m, r)`` sums of the data weights over the data rows compatible with each query row.

        Query patterns are independent (each writes its own rows of the result), so large counts
        run them on a small thread pool: the hash lookups, gathers and reductions release the GIL.
        """
        m = len(Qx)
        nw = self.W.shape[1]
        out = np.zeros((m, nw))
        if m == 0 or len(self.X) == 0:
            return out
        dpats = [q for q, c in self.npat.items() if c > 0]
        tasks = sorted(_groups(_bits(Qx, self.cols)).items(), key=lambda kv: -len(kv[1]))
        for P, _ in tasks:  # build missing tables first (serially: the cache is shared)
            self._table(P)
        pool = _pool()
        if pool is not None and len(tasks) > 1 and m * len(dpats) > 1_000_000:
            list(pool.map(lambda t: self._count_pattern(t[0], t[1], Qx, dpats, out), tasks))
        else:
            for P, qidx in tasks:
                self._count_pattern(P, qidx, Qx, dpats, out)
        return out

    def _count_pattern(self, P: int, qidx: np.ndarray, Qx: np.ndarray, dpats: list[int],
                       out: np.ndarray) -> None:
        """Add to ``out[qidx]`` the sums for the query rows of missing pattern ``P``."""
        nw = self.W.shape[1]
        tb = self._cache[P]
        if not tb.obs:
            out[qidx] += self.total
            return
        qs = sorted({q & ~P for q in dpats})
        rows = Qx[qidx][:, self.cols[tb.obs]]
        if not tb.plain:
            for q in qs:
                rq = rows
                if q:
                    rq = rows.copy()
                    for j, t in enumerate(tb.obs):
                        if q >> t & 1:
                            rq[:, j] = tb.radix[j] - 1
                pos = tb.index.get_indexer(self._encode_plan(rq, tb.plan))
                hit = pos >= 0
                out[qidx[hit]] += tb.s[pos[hit]]
            return
        B = np.array([[q >> t & 1 for q in qs] for t in tb.obs], dtype=np.int64)
        nq = len(qs)
        inv = None
        if nq >= 4 and len(rows) * nq > 200_000:  # identical query rows: look up once
            inv, _ = pd.factorize(rows @ tb.mult)
            rows = rows[_first_positions(inv)]
            res = np.zeros((len(rows), nw))
        step = max(1, 4_000_000 // nq)
        s = tb.s
        for a in range(0, len(rows), step):
            rw = rows[a:a + step]
            base = rw @ tb.mult
            D = (tb.radix - 1 - rw) * tb.mult
            # integer einsum: exact, and no BLAS threads (they stall on a loaded machine)
            codes = base[:, None] + np.einsum("nk,kq->nq", D, B)
            pos = tb.lookup(codes.ravel())  # -1 (miss) -> the zero row
            if nw == 1:
                v = s[pos, 0].reshape(len(rw), nq).sum(axis=1)[:, None]
            else:
                v = s[pos].reshape(len(rw), nq, nw).sum(axis=1)
            if inv is None:
                out[qidx[a:a + step]] += v
            else:
                res[a:a + step] = v
        if inv is not None:
            out[qidx] += res[inv]

    # ----------------------------------------------------------------------------- updates
    def sync(self, W: np.ndarray | None = None) -> None:
        """Take changed values of ``X`` (and new weights ``W``, all rows) into the tables."""
        cur = self.X[:, self.cols]
        changed = (cur != self.snap).any(axis=1)
        if W is not None:
            W = np.asarray(W, dtype=np.float64)
            W = W[:, None] if W.ndim == 1 else W
            changed |= (W != self.W).any(axis=1)
        R = np.flatnonzero(changed)
        self.gen += 1
        # drop tables not used during the last KEEP syncs (updating a table costs the changed
        # rows; rebuilding it costs all rows)
        for P in [P for P, tb in self._cache.items()
                  if tb.gen < self.gen - self.KEEP or not tb.plain]:
            del self._cache[P]
        if len(R) == 0:
            return
        old, new = self.snap[R], cur[R]
        oldf, newf = self.snapf[R], self._filled(new)
        oldW = self.W[R]
        newW = oldW if W is None else W[R]
        for b, c in zip(*np.unique(_bits(old, np.arange(len(self.cols))), return_counts=True)):
            self.npat[int(b)] -= int(c)
        for b, c in zip(*np.unique(_bits(new, np.arange(len(self.cols))), return_counts=True)):
            self.npat[int(b)] = self.npat.get(int(b), 0) + int(c)
        self.total = self.total - oldW.sum(axis=0) + newW.sum(axis=0)
        xch = (old != new).any(axis=1)
        wch = (oldW != newW).any(axis=1)

        def update(tb: _Table) -> None:
            oc = self._codes(oldf, tb)
            nc = oc.copy()
            nc[xch] = self._codes(newf[xch], tb)
            moved = oc != nc
            m = len(tb.s)
            # rows keeping their code: weight difference only
            same = np.flatnonzero(~moved & wch)
            if len(same):
                pos = tb.lookup(oc[same])
                dw = newW[same] - oldW[same]
                for j in range(tb.s.shape[1]):
                    tb.s[:, j] += np.bincount(pos, weights=dw[:, j], minlength=m)
            sel = np.flatnonzero(moved)
            if len(sel) == 0:
                return
            pos = tb.lookup(oc[sel])
            for j in range(tb.s.shape[1]):
                tb.s[:, j] -= np.bincount(pos, weights=oldW[sel, j], minlength=m)
            ncs = nc[sel]
            pos = tb.lookup(ncs)
            found = pos >= 0
            fs = sel[found]
            for j in range(tb.s.shape[1]):
                tb.s[:, j] += np.bincount(pos[found], weights=newW[fs, j], minlength=m)
            if not found.all():
                # new codes: appended before the zero row
                inv, nu = pd.factorize(ncs[~found])
                add = self._sums(inv, len(nu), newW[sel[~found]])
                tb.u = np.concatenate([tb.u, nu])
                tb.reset()
                tb.s = np.concatenate([tb.s[:-1], add, tb.s[-1:]])

        tables = list(self._cache.values())
        pool = _pool()
        if pool is not None and len(tables) > 1 and len(R) * len(tables) > 200_000:
            list(pool.map(update, tables))  # tables are independent
        else:
            for tb in tables:
                update(tb)
        self.snap[R] = new
        self.snapf[R] = newf
        if W is not None:
            self.W[R] = newW


def compat_sum(X: np.ndarray, w: np.ndarray, cols: Sequence[int], cards: Sequence[int],
               query: np.ndarray | None = None) -> np.ndarray:
    """fk (``w`` = 1) or Fk of every query row (default: the data rows themselves).

    >>> X = np.array([[0, 0], [0, -1], [1, 1]])
    >>> compat_sum(X, np.ones(3), [0, 1], [2, 2]).tolist()
    [2.0, 2.0, 1.0]
    """
    c = Counter(X, w, cols, cards)
    return c.count(X if query is None else query)[:, 0]


@dataclass
class SolveInfo:
    """What :func:`solve` did: suppressed cells, rounds, and records that cannot be protected."""

    suppressed: np.ndarray  # (n, p) bool: set missing by the solver
    rounds: int = 0
    restored: int = 0
    unresolvable: int = 0
    violators: np.ndarray | None = None  # (n,) bool: records below k at the end (exact recount)
    log: list[str] = field(default_factory=list)


def _unique_rows(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows, first index of each, and the inverse (row -> distinct id)."""
    if A.shape[1] == 0:
        return A[:1], np.zeros(min(len(A), 1), np.int64), np.zeros(len(A), np.int64)
    # shift so that -1 becomes 0 and rows can be combined when the radix allows
    B = A + 1
    mx = B.max(axis=0) + 1 if len(B) else np.ones(A.shape[1], np.int64)
    size = 1
    for m in mx:
        size *= int(m)
    if size < _MAX_RADIX:
        code = np.zeros(len(B), np.int64)
        for j in range(B.shape[1]):
            code *= int(mx[j])
            code += B[:, j]
        _, first, inv = np.unique(code, return_index=True, return_inverse=True)
    else:
        _, first, inv = np.unique(A, axis=0, return_index=True, return_inverse=True)
    inv = np.asarray(inv).ravel()
    return A[first], first, inv


def _row_ids(A: np.ndarray) -> np.ndarray:
    """An id per row of ``A`` (equal rows, equal ids; ids ``0..m-1`` in order of first appearance).

    Hashing instead of sorting: the same grouping as :func:`_unique_rows` at a fraction of the cost.
    """
    if A.shape[1] == 0 or len(A) == 0:
        return np.zeros(len(A), np.int64)
    B = A + 1
    mx = B.max(axis=0) + 1
    size = 1
    for m in mx.tolist():
        size *= int(m)
    if size >= _MAX_RADIX:
        return _unique_rows(A)[2]
    code = B[:, 0].copy()
    for j in range(1, B.shape[1]):
        code *= int(mx[j])
        code += B[:, j]
    return pd.factorize(code)[0].astype(np.int64, copy=False)


def _first_positions(ids: np.ndarray) -> np.ndarray:
    """Position of the first occurrence of each id, for ids numbered by first appearance
    (``pd.factorize``): id g first appears where the running maximum reaches g."""
    prev = np.concatenate(([-1], np.maximum.accumulate(ids)[:-1]))
    return np.flatnonzero(ids > prev)


def _slice_ids(cells: np.ndarray, t: int) -> np.ndarray:
    """Id of the slice of each cell for key position ``t``: the cell's codes with key t ignored."""
    masked = cells.copy()
    masked[:, t] = -1
    return _row_ids(masked)


def _csr(ids: np.ndarray) -> tuple[list[int], list[int]]:
    """Members of each slice id (ids are ``0..m-1``, the inverse of a unique) in CSR form:
    the members of slice ``i`` are ``members[bounds[i]:bounds[i + 1]]``."""
    order = np.argsort(ids, kind="stable")
    bounds = np.searchsorted(ids[order], np.arange(int(ids.max(initial=-1)) + 2))
    return order.tolist(), bounds.tolist()


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
        cell_rows = np.full((nc, X.shape[1]), -1, np.int64)
        cell_rows[:, cols] = cells
        # one lookup for the cells themselves and all virtual rows (cell with key t suppressed)
        obs_t = [np.flatnonzero(cells[:, t] >= 0) for t in range(pcols)]
        qs = [cell_rows]
        for t in range(pcols):
            q = cell_rows[obs_t[t]].copy()
            q[:, cols[t]] = -1
            qs.append(q)
        allq = np.concatenate(qs)
        allc = np.column_stack([cnt.count(allq)[:, 0], vcnt.count(allq)])
        base_v = allc[:nc, 1:]  # violators compatible with the cell itself
        offs = np.cumsum([nc] + [len(o) for o in obs_t])
        gain = np.full((nc, pcols), -np.inf)
        kind = np.zeros((nc, pcols), np.int8)  # 1 self, 2 donor
        fself = np.zeros((nc, pcols))
        for t in range(pcols):
            obs = obs_t[t]
            if len(obs) == 0:
                continue
            res = allc[offs[t]:offs[t + 1]]
            F = res[:, 0]
            V = res[:, 1:] - base_v[obs]
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
        locked = bytearray(nc)
        acc_self: list[tuple[int, int]] = []
        acc_don: list[tuple[int, int]] = []
        for c in cand.tolist():
            t = int(best[c])
            if t not in slice_ids:
                slice_ids[t] = _slice_ids(cells, t).tolist()
                slice_members[t] = _csr(np.asarray(slice_ids[t]))
            members, bounds = slice_members[t]
            sid = slice_ids[t][c]
            mem = members[bounds[sid]:bounds[sid + 1]]
            if any(locked[j] for j in mem):
                continue
            for j in mem:
                locked[j] = 1
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
    """Suppress key t in one non-violating record of the t-slice of each accepted cell."""
    done = 0
    by_t: dict[int, list[int]] = {}
    for c, t in acc:
        by_t.setdefault(t, []).append(c)
    for t, cs in by_t.items():
        v = cols[t]
        q = cell_rows[cs][:, cols]
        q[:, t] = -1
        # donors: not violating, observed on v, exactly equal to the cell elsewhere
        cand = np.flatnonzero(~vmask & (X[:, v] >= 0))
        if len(cand) == 0:
            continue
        rows = X[cand][:, cols].copy()
        rows[:, t] = -1
        allrows = np.concatenate([rows, q])
        inv = _row_ids(allrows)
        dinv, qinv = inv[: len(cand)], inv[len(cand):]
        # first donor per code: donors come first, so their ids are 0..m-1 and a query id >= m
        # has no donor
        first = _first_positions(dinv)
        hit = qinv < len(first)
        for j in np.flatnonzero(hit):
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


def _violators(X: np.ndarray, w: np.ndarray, keysets: list[np.ndarray], cards: Sequence[int],
               k: float) -> tuple[np.ndarray, list[np.ndarray]]:
    bad = np.zeros(len(X), bool)
    fks = []
    for cols in keysets:
        fk = compat_sum(X, w, cols, cards)
        fks.append(fk)
        bad |= fk < k - 1e-9
    return bad, fks


def _restore_phase(X: np.ndarray, orig: np.ndarray, w: np.ndarray, keysets: list[np.ndarray],
                   cards: Sequence[int], k: float, rank: np.ndarray | None, info: SolveInfo,
                   order: list[tuple[np.ndarray, int]], base: list[Counter],
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

    ``base``: a persistent counter per key set (weight column 0 = ``w``), kept in sync with ``X``.
    Returns fk per key set, exact for the final ``X`` (maintained incrementally).
    """
    weighted = not np.all(w == 1.0)
    allcols = keysets_all(keysets)
    seq: dict[tuple[int, int], int] = {}
    for s_, (rows, v) in enumerate(order):
        for r in rows.tolist():
            seq[(r, v)] = s_
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
                cnt = cnts[kk_] = Counter(X, T, cols, cards)
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
        nsup = (info.suppressed & (X < 0)).sum(axis=1)
        rk = rank[vv] if rank is not None else np.zeros(len(rr))
        sq = np.array([seq.get((int(r), int(v)), 0) for r, v in zip(rr, vv)])
        pri = np.lexsort((-sq, -nsup[rr], rk))
        used_rec: set[int] = set()
        used_slice: set[tuple[int, bytes]] = set()
        acc_l = []
        for j in pri.tolist():
            r, v = int(rr[j]), int(vv[j])
            if r in used_rec:
                continue
            row = X[r, allcols].copy()
            row[allcols == v] = -2
            key = (v, row.tobytes())
            if key in used_slice:
                continue
            used_rec.add(r)
            used_slice.add(key)
            acc_l.append(j)
        acc = np.asarray(acc_l, dtype=np.int64)
        X[rr[acc], vv[acc]] = orig[rr[acc], vv[acc]]
        _update_fks(X, w, keysets, cards, fks, rr[acc], vv[acc], -1, base,
                    [x[acc] for x in b0])
        while True:
            bad = np.zeros(len(X), bool)
            for fk in fks:
                bad |= fk < k - 1e-9
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


def _update_fks(X: np.ndarray, w: np.ndarray, keysets: list[np.ndarray], cards: Sequence[int],
                fks: list[np.ndarray], R: np.ndarray, V: np.ndarray, old: np.ndarray | int,
                base: list[Counter], start: list[np.ndarray] | None = None) -> None:
    """Update fk in place after the values (R, V) of X changed from ``old`` to their current value.

    For records outside R the change is (compatible rows among R now) - (compatible rows among R
    before), one lookup against the rows of R weighted +w (now) and -w (before); the records of R
    are recounted with the persistent counters ``base``.
    """
    if len(R) == 0:
        return
    now = X[R]
    before = now.copy()
    before[np.arange(len(R)), V] = old
    both = np.concatenate([now, before])
    wb = np.concatenate([w[R], -w[R]])
    for i, (cols, fk) in enumerate(zip(keysets, fks)):
        inset = np.isin(V, cols)
        if not inset.any():
            continue
        delta = Counter(both, wb, cols, cards).count(X)[:, 0]
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


def solve(X: np.ndarray, w: np.ndarray, keysets: list[Sequence[int]], cards: Sequence[int],
          k: float, rank: np.ndarray | None = None, restore: bool = True,
          bar: Bar | None = None, cost: np.ndarray | None = None) -> SolveInfo:
    """Suppress values of ``X`` (in place) until fk >= k on every key set, then restore extras.

    ``rank``: per column of ``X``, larger = less important (suppressed first); ``None`` = by gain.
    Records cannot be protected when the total weight is below k: then nothing is suppressed and
    ``info.unresolvable`` counts the records. ``bar`` advances by the records found safe, per key
    set (``len(X)`` per key set in all).
    """
    bar = bar if bar is not None else Bar(enabled=False)
    info = SolveInfo(np.zeros(X.shape, bool))
    if len(X) == 0:
        return info
    if w.sum() < k - 1e-9:
        bad, _ = _violators(X, w, [np.asarray(c) for c in keysets], cards, k)
        info.unresolvable = int(bad.sum())
        return info
    orig = X.copy()
    order: list[tuple[np.ndarray, int]] = []
    ks = [np.asarray(c, dtype=np.int64) for c in keysets]
    base = []
    for cols in ks:
        rk = None if rank is None else np.asarray(rank)[cols]
        ck = None if cost is None else np.asarray(cost, dtype=float)[cols]
        if rk is None:
            cnt, _ = _suppress_phase(X, w, cols, cards, k, rk, info, order, bar=bar, cost=ck)
        else:
            # importance: the least important keys alone first, then one more key at a time
            cnt, act = None, None
            for lev in sorted(set(rk.tolist()), reverse=True):
                cnt, act = _suppress_phase(X, w, cols, cards, k, rk, info, order, bar=bar,
                                           cost=ck, allowed=rk >= lev, active=act, cnt=cnt)
                if not act.any():
                    break
        base.append(cnt)
    if restore and info.suppressed.any():
        fks = _restore_phase(X, orig, w, ks, cards, k, None if rank is None else np.asarray(rank),
                             info, order, base)
    else:
        fks = []
        for cnt in base:
            cnt.sync()
            fks.append(cnt.count(X)[:, 0])
    bad = np.zeros(len(X), bool)
    for fk in fks:
        bad |= fk < k - 1e-9
    info.violators = bad
    info.unresolvable = int(bad.sum())
    return info


def restore_only(X: np.ndarray, orig: np.ndarray, w: np.ndarray, keysets: list[Sequence[int]],
                 cards: Sequence[int], k: float, rank: np.ndarray | None,
                 candidates: np.ndarray) -> int:
    """Restoration pass alone (see :func:`_restore_phase`) on a k-anonymous ``X``: try to give back
    the original values of the ``candidates`` cells (``(n, p)`` bool); returns how many came back.
    """
    cand = candidates & (X < 0) & (orig >= 0)
    if not cand.any():
        return 0
    info = SolveInfo(cand.copy())
    ks = [np.asarray(c, dtype=np.int64) for c in keysets]
    base = [Counter(X, w, cols, cards) for cols in ks]
    _restore_phase(X, orig, w, ks, cards, k, None if rank is None else np.asarray(rank), info, [],
                   base)
    return int(info.restored)
