"""Counting compatible records for local suppression (internal): `Counter`, `compat_sum`.

Records are rows of an ``(n, p)`` int64 code matrix ``X`` (``-1`` = missing). Missing values are
wildcards (alpha = 1): record *j* is compatible with record *i* when they agree on every key where
both are non-missing, and ``fk_i = sum of w_j over compatible j`` (``w = 1``: the sample frequency;
sampling weights: ``Fk``).

Counting (`Counter`): the data rows are grouped by missing pattern ``Q`` (bit mask); for a
query row of pattern ``P`` the compatible rows of pattern ``Q`` are those with the query's codes on
the keys observed in both, ``S = K \\ (P | Q)``. For every pair ``(Q, S)`` the data rows of ``Q`` are
encoded once on ``S`` (mixed radix) and summed per code in a hash-indexed table; queries are
answered by hash lookups. Any number of query rows ("virtual" records with one more key suppressed, restored records,
...) costs one vectorised lookup per pattern pair.

Large counts and table updates run on a small shared thread pool (``SDCSESSION_THREADS``,
`sdcsession.methods.suppression._pool`). With integer weights and many missing patterns the counts
come from a compiled bit index instead (`sdcsession.methods.suppression._bits_jit.BitIndex`, same sums).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ._pool import _pool
from ._rows import _MAX_RADIX, _bits, _first_positions, _groups, bit_index_bytes

__all__ = ["Counter", "compat_sum"]


class _Table:
    """Data rows summed per code on the keys observed in a query pattern (missing = one symbol):
    distinct codes ``u`` in ascending order, sums ``s`` (one row per code, a zero row last)."""

    __slots__ = ("obs", "radix", "mult", "plain", "plan", "u", "s", "index", "gen")

    #: tables with at most this many codes keep their hash index
    KEEP_INDEX = 1 << 16

    def __init__(self) -> None:
        self.gen = 0
        self.index: pd.Index | None = None  # hash index of u (see `lookup`, `_build_dense`)

    def reset(self) -> None:
        """Forget the lookup structures (after codes were inserted into ``u``)."""
        self.index = None

    def lookup(self, codes: np.ndarray) -> np.ndarray:
        """Row of each code in ``u`` (kept sorted), -1 when absent.

        Many codes against a small table: a hash index over ``u``, kept (it is small); many codes
        against a large table: a hash index used for this call only (a hash index costs some 30
        bytes per distinct code); few codes: a binary search.
        """
        u = self.u
        if len(u) == 0:
            return np.full(len(codes), -1, np.int64)
        if self.index is not None:
            return self.index.get_indexer(codes)
        if len(u) <= self.KEEP_INDEX and len(codes) > 4096:
            self.index = pd.Index(u)
            return self.index.get_indexer(codes)
        if 4 * len(codes) >= len(u):  # enough codes to pay for a hash index, used once
            return pd.Index(u).get_indexer(codes)
        pos = np.searchsorted(u, codes)
        np.minimum(pos, len(u) - 1, out=pos)
        return np.where(u[pos] == codes, pos, -1)


class Counter:
    """Sums of data weights over compatible rows, for any query rows (missing = wildcard).

    Parameters
    ----------
    X : ``(n, p)`` integer codes, ``-1`` missing (not copied; after changing it call `sync`).
    W : ``(n,)`` or ``(n, r)`` weights (r weight columns summed at once); copied unless
        ``copy=False``.
    cols : the key columns (indices into ``X``'s columns) that define compatibility.
    cards : number of categories per column of ``X`` (codes are ``< cards``).

    For a query pattern ``P`` (keys missing in the query) the data rows are encoded once on the
    keys outside ``P``, a missing value being one more symbol, and summed per code (distinct codes
    in a hash index, sums with a zero row last that a miss gathers). A query row is compatible with the data rows that carry its codes or the missing
    symbol on each of those keys; one lookup per data missing pattern ``Q`` (restricted to the
    keys outside ``P``) with the query's codes replaced by the missing symbol on ``Q`` gathers them
    all. The codes of all ``Q`` are formed at once (``base + D @ B`` with ``B`` the pattern bits)
    and looked up at once per query pattern.

    The tables persist: after values of ``X`` (or the weights) change, `sync` moves the
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
    BITS_ROWS = 1 << 40  # bit index (see `_bit_index`): at most this many data rows, ...
    BITS_PATTERNS = 8  # ... at least this many missing patterns among them ...
    BITS_BYTES = 1 << 24  # ... and an index of at most this many bytes (or the size of X)
    CHUNK = 1 << 18  # codes (query rows x data patterns) looked up at once
    BLOCK = 1 << 16  # query rows grouped by pattern at once
    BITS_QUERY_PATTERNS = 64  # ... or at least this many query patterns in one count
    MANY_KEYS = 11  # more keys: a larger budget for the bit index (`_bits_budget`)
    REBUILD = 8  # sync drops the tables when changed rows x tables exceed this many times n

    def __init__(self, X: np.ndarray, W: np.ndarray, cols: Sequence[int], cards: Sequence[int],
                 *, copy: bool = True):
        self.X = X
        W = np.asarray(W, dtype=np.float64)
        W = W[:, None] if W.ndim == 1 else W
        self.W = W.copy() if copy else W  # copy=False: the caller gives up W (no copy)
        self.wint = bool(np.all(np.mod(self.W, 1.0) == 0))  # integer weights: exact in any order
        self.wexact = self.wint and float(np.abs(self.W).sum()) < 2.0 ** 53  # ... every sum
        self.cols = np.asarray(cols, dtype=np.int64)
        self.cards = np.array([max(int(cards[c]), 1) for c in self.cols], dtype=np.int64)
        self.snap = X[:, self.cols].copy()
        self.npat: dict[int, int] = {P: len(r) for P, r in _groups(_bits(X, self.cols)).items()}
        self.total = self.W.sum(axis=0)
        self.gen = 0
        self._cache: dict[int, _Table] = {}
        self._bix = None  # the bit index (`sdcsession.methods.suppression._bits_jit.BitIndex`), when used

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
            full = self._full() if P and tb.plain and self.wint else None
            if full is not None:
                tb.u, tb.s = self._from_full(full, tb, size)
            elif tb.plain:
                tb.u, tb.s = self._encode_sum(self._codes(self.snap, tb, filled=False), size,
                                              self.W)
            else:
                self._build_dense(tb)
            self._cache[P] = tb
        tb.gen = self.gen
        return tb

    def _full(self) -> _Table | None:
        """The table of the complete pattern (every key observed, missing as its symbol): the
        distinct data rows with their summed weights, kept in sync like every table; None when
        its codes overflow int64."""
        tb = self._table(0)
        return tb if tb.plain else None

    def _from_full(self, full: _Table, tb: _Table, size: int) -> tuple[np.ndarray, np.ndarray]:
        """Codes and sums of table ``tb`` from the distinct rows of the full table (their codes
        decoded per key): costs the distinct rows, not all rows. Used for integer weights only,
        whose sums do not depend on the order of summation."""
        D = full.u
        code = np.zeros(len(D), dtype=np.int64)
        for j, t in enumerate(tb.obs):
            v = D // full.mult[t]
            v %= full.radix[t]
            v *= tb.mult[j]
            code += v
        return self._encode_sum(code, size, full.s[:-1])

    @staticmethod
    def _encode_sum(code: np.ndarray, size: int, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Distinct codes (ascending) and the weights ``W`` summed per code, plus a zero row
        last (a miss, -1, gathers 0). A code space no larger than the rows is counted densely
        (``bincount``), a larger one through the sorted distinct codes; neither builds a hash
        table over all rows."""
        m = W.shape[1]
        if size <= max(len(code), 1024):
            present = np.bincount(code, minlength=size) > 0
            u = np.flatnonzero(present)
            cols = [np.bincount(code, weights=W[:, j], minlength=size)[u] for j in range(m)]
        else:
            u, inv = np.unique(code, return_inverse=True)
            cols = [np.bincount(inv, weights=W[:, j], minlength=len(u)) for j in range(m)]
        s = np.zeros((len(u) + 1, m))
        for j, c in enumerate(cols):
            s[:-1, j] = c
        return u.astype(np.int64, copy=False), s

    @staticmethod
    def _sums(inv: np.ndarray, m: int, W: np.ndarray) -> np.ndarray:
        return np.column_stack([np.bincount(inv, weights=W[:, j], minlength=m)
                                for j in range(W.shape[1])])

    def _filled(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` (columns = the counter's keys) with missing (-1) replaced by its symbol, in
        the dtype of ``rows`` when the symbol fits (the codes of `encode_keys` leave room)."""
        out = rows.copy()
        dt = out.dtype
        if out.size and int(self.cards.max()) > np.iinfo(dt).max:
            out = out.astype(np.int64)
        for j, c in enumerate(self.cards.tolist()):
            col = out[:, j]
            col[col < 0] = c
        return out

    @staticmethod
    def _codes(rowsf: np.ndarray, tb: _Table, filled: bool = True) -> np.ndarray:
        """Codes (missing symbol included) of filled rows (see `_filled`); ``filled=False``:
        of raw rows (-1 = missing), filled one column at a time (no filled copy of all rows)."""
        code = np.zeros(len(rowsf), dtype=np.int64)
        for j, t in enumerate(tb.obs):
            v = rowsf[:, t].astype(np.int64)
            if not filled:
                v[v < 0] = tb.radix[j] - 1
            v *= tb.mult[j]
            code += v
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
        More than ``BLOCK`` query rows are counted block by block (bounded temporaries).
        """
        m = len(Qx)
        nw = self.W.shape[1]
        out = np.zeros((m, nw))
        if m == 0 or len(self.X) == 0:
            return out
        if self._bit_index() is not None:
            return self._bix.count(Qx, self.W, self.cols)
        if m > self.BLOCK:
            for a in range(0, m, self.BLOCK):
                out[a:a + self.BLOCK] = self.count(Qx[a:a + self.BLOCK])
            return out
        dpats = [q for q, c in self.npat.items() if c > 0]
        tasks = sorted(_groups(_bits(Qx, self.cols)).items(), key=lambda kv: -len(kv[1]))
        if len(tasks) >= self.BITS_QUERY_PATTERNS and self._bit_index(force=True) is not None:
            # many query patterns (one table each): the bit index does not depend on them
            return self._bix.count(Qx, self.W, self.cols)
        for P, _ in tasks:  # build missing tables first (serially: the cache is shared)
            self._table(P)
        pool = _pool()
        if pool is not None and len(tasks) > 1 and m * len(dpats) > 1_000_000:
            list(pool.map(lambda t: self._count_pattern(t[0], t[1], Qx, dpats, out), tasks))
        else:
            for P, qidx in tasks:
                self._count_pattern(P, qidx, Qx, dpats, out)
        return out

    def _bit_index(self, force: bool = False):
        """The bit index of the data rows (`sdcsession.methods.suppression._bits_jit.BitIndex`), built on
        first use, or None (then hash tables count). The index counts when the weights are
        integers (below 2^53 in all, ``wexact``: then sums are exact in any order, and equal the
        tables'), the data rows have at least ``BITS_PATTERNS`` missing patterns (the tables cost one
        lookup per pattern, the index does not depend on them) or ``force`` (a count with at
        least ``BITS_QUERY_PATTERNS`` query patterns, each of which would build a table), and
        the index takes at most `_bits_budget` bytes."""
        if self._bix is None and self.wexact and len(self.snap) <= self.BITS_ROWS:
            if ((force or sum(c > 0 for c in self.npat.values()) >= self.BITS_PATTERNS)
                    and bit_index_bytes(len(self.snap), self.cards) <= self._bits_budget()):
                from ._bits_jit import BitIndex  # numba: imported on first use only

                self._bix = BitIndex(self.snap, np.arange(len(self.cols)), self.cards)
        return self._bix if self.wexact else None

    def _bits_budget(self) -> int:
        """Bytes the bit index may take: ``max(BITS_BYTES, X)``, and with more than
        ``MANY_KEYS`` keys (where the tables' cost grows with the missing patterns) the int64
        size of the key columns, ``8 n p``."""
        budget = max(self.BITS_BYTES, self.X.nbytes)
        if len(self.cols) > self.MANY_KEYS:
            budget = max(budget, 8 * len(self.snap) * len(self.cols))
        return budget

    def delta(self, now: np.ndarray, before: np.ndarray, w: np.ndarray) -> np.ndarray:
        """``(n,)`` change of each data row's sum of compatible weights (column 0) when the
        rows ``before`` become ``now`` (weights ``w``): ``sum_r w_r (compat(now_r) -
        compat(before_r))``. Call after `sync`."""
        if (self._bit_index() is not None and bool(np.all(np.mod(w, 1.0) == 0))
                and float(np.abs(w).sum()) < 2.0 ** 53):
            return self._bix.delta(now[:, self.cols], before[:, self.cols], w)
        cards = np.ones(self.X.shape[1], np.int64)
        cards[self.cols] = self.cards
        both = np.concatenate([now, before])
        return Counter(both, np.concatenate([w, -w]), self.cols, cards).count(self.X)[:, 0]

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
        step = max(1, self.CHUNK // nq)  # bounded temporaries
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
        ne = cur != self.snap
        if ne.shape[1] in (2, 4, 8):  # the row's flags as one integer
            changed = ne.view(f"u{ne.shape[1]}")[:, 0] != 0
        else:
            changed = ne.any(axis=1)
        if W is not None:
            W = np.asarray(W, dtype=np.float64)
            W = W[:, None] if W.ndim == 1 else W
            changed |= (W != self.W).any(axis=1)
        R = np.flatnonzero(changed)
        self.gen += 1
        # drop tables not used during the last KEEP syncs (updating a table costs the changed
        # rows; rebuilding it costs all rows)
        for P in [P for P, tb in self._cache.items()
                  if (tb.gen < self.gen - self.KEEP and P) or not tb.plain]:
            del self._cache[P]
        if len(R) == 0:
            return
        if self.wint and len(R) * (len(self._cache) - 1) > self.REBUILD * len(self.snap):
            # many rows changed in many tables (many keys: a key-set search suppresses in most
            # records): updating every table costs more than rebuilding the few used again from
            # the full table; integer sums are exact in any order, so the counts are unchanged
            self._cache = {P: tb for P, tb in self._cache.items() if P == 0}
        old, new = self.snap[R], cur[R]
        if self._bix is not None:
            xr = (old != new).any(axis=1)
            self._bix.update(R[xr], old[xr], new[xr])
        oldf, newf = self._filled(old), self._filled(new)
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
                # new codes: inserted in order (``u`` stays sorted), their sums likewise
                nu, inv = np.unique(ncs[~found], return_inverse=True)
                add = self._sums(inv, len(nu), newW[sel[~found]])
                at = np.searchsorted(tb.u, nu)
                tb.u = np.insert(tb.u, at, nu)
                tb.s = np.insert(tb.s, at, add, axis=0)
                tb.reset()

        tables = list(self._cache.values())
        pool = _pool()
        if pool is not None and len(tables) > 1 and len(R) * len(tables) > 200_000:
            list(pool.map(update, tables))  # tables are independent
        else:
            for tb in tables:
                update(tb)
        self.snap[R] = new
        if W is not None:
            self.W[R] = newW
            self.wint = self.wint and bool(np.all(np.mod(newW, 1.0) == 0))
            self.wexact = self.wint and float(np.abs(self.W).sum()) < 2.0 ** 53


def compat_sum(X: np.ndarray, w: np.ndarray, cols: Sequence[int], cards: Sequence[int],
               query: np.ndarray | None = None) -> np.ndarray:
    """fk (``w`` = 1) or Fk of every query row (default: the data rows themselves).

    >>> X = np.array([[0, 0], [0, -1], [1, 1]])
    >>> compat_sum(X, np.ones(3), [0, 1], [2, 2]).tolist()
    [2.0, 2.0, 1.0]
    """
    c = Counter(X, w, cols, cards)
    return c.count(X if query is None else query)[:, 0]

