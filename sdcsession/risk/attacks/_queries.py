"""Singling-out predicates (internal): how they are generated and how their matches are counted.

A query is a conjunction of up to ``C`` predicates ``x_col OP value`` stored as three ``(Q, C)``
arrays: column (``-1`` unused), operator code (`OPS`) and value (codes for categories). A
missing data value satisfies only ``isnull``; every comparison with it is false (SQL semantics).

Counting is exact and capped: `count_matches` returns ``min(count, cap)`` per query. Every
column is sorted once; a predicate ``=``, ``<``, ``<=``, ``>``, ``>=`` or ``is null`` matches a
contiguous slice of that order (found by binary search). A query whose most selective predicate
matches few records scans that slice and checks the other predicates on it; otherwise the
predicates' record sets are intersected as bitsets built from prefix bitsets of each column's
order (`sdcsession.risk.attacks._kernels`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._kernels import kernels

__all__ = ["OPS", "Table", "count_matches", "multivariate_queries", "univariate_queries",
           "random_queries"]

#: operator codes
EQ, NE, GT, LT, GE, LE, ISNULL, NOTNULL = range(8)
OPS = {"==": EQ, "!=": NE, ">": GT, "<": LT, ">=": GE, "<=": LE, "is null": ISNULL,
       "is not null": NOTNULL}

class Table:
    """A float matrix (NaN = missing) with every column sorted once (the query index)."""

    def __init__(self, x: np.ndarray) -> None:
        self.x = np.ascontiguousarray(x, dtype=np.float64)
        self.xt = np.ascontiguousarray(self.x.T)  # one contiguous array per column
        self.n, self.p = self.x.shape
        order = np.argsort(self.x, axis=0, kind="stable")  # NaN last
        self.order = np.ascontiguousarray(order.T.astype(np.int64))
        self.sorted = np.ascontiguousarray(np.take_along_axis(self.x, order, axis=0).T)
        self.n_valid = (~np.isnan(self.x)).sum(axis=0).astype(np.int64)
        # prefix bitsets every `block` positions of each column's order (about 64 per column)
        self.nwords = (self.n + 63) // 64
        self.block = max(64, -(-self.n // 64))
        self.ckpt = kernels().checkpoints(self.order, self.block, self.nwords)

    def pivots(self, cols: np.ndarray, ops: np.ndarray, vals: np.ndarray) -> tuple[Any, ...]:
        """The queries with their predicates sorted by selectivity, the slice ``[start, end)``
        of the first (most selective) one, and where each query's checks start."""
        nq, nc = cols.shape
        start = np.zeros((nq, nc), dtype=np.int64)
        end = np.full((nq, nc), self.n + 1, dtype=np.int64)
        bstart = np.zeros((nq, nc), dtype=np.int64)
        bend = np.zeros((nq, nc), dtype=np.int64)
        for j in np.unique(cols[cols >= 0]):
            m = cols == j
            v, op = vals[m], ops[m]
            nv = int(self.n_valid[j])
            sv = self.sorted[j, :nv]
            left = np.searchsorted(sv, v, "left")
            right = np.searchsorted(sv, v, "right")
            s = np.zeros(len(v), dtype=np.int64)
            e = np.full(len(v), nv, dtype=np.int64)
            s = np.where((op == EQ) | (op == GE), left, s)
            s = np.where(op == GT, right, s)
            e = np.where((op == EQ) | (op == LE), right, e)
            e = np.where(op == LT, left, e)
            s = np.where(op == ISNULL, nv, s)
            e = np.where(op == ISNULL, self.n, e)
            start[m], end[m] = s, np.maximum(e, s)
            # the bitset path: a slice, or for != the valid records minus the equal slice
            bstart[m] = np.where(op == NE, left, s)
            bend[m] = np.where(op == NE, np.maximum(right, left), np.maximum(e, s))
        width = np.where(cols >= 0, end - start, self.n + 2)
        # predicates by selectivity: the narrowest is the pivot, the next ones reject early
        by = np.argsort(width, axis=1, kind="stable")
        cols, ops, vals = (np.take_along_axis(a, by, axis=1) for a in (cols, ops, vals))
        start, end, bstart, bend = (np.take_along_axis(a, by, axis=1)
                                    for a in (start, end, bstart, bend))
        # the pivot's own test is implied by its slice unless it is != / is not null
        first = np.where(np.isin(ops[:, 0], (NE, NOTNULL)), 0, 1)
        return (cols, ops, vals, start[:, 0], np.minimum(end[:, 0], self.n), first, bstart,
                bend)

    def count(self, cols: np.ndarray, ops: np.ndarray, vals: np.ndarray,
              cap: int = 2) -> np.ndarray:
        """``min(matches, cap)`` of every query (exact up to ``cap``)."""
        if len(cols) == 0:
            return np.zeros(0, dtype=np.int64)
        c, o, v, s, e, first, bs, be = self.pivots(np.asarray(cols, dtype=np.int64),
                                                   np.asarray(ops, dtype=np.int64),
                                                   np.asarray(vals, dtype=np.float64))
        return kernels().count(self.xt, self.order, np.ascontiguousarray(c),
                               np.ascontiguousarray(o), np.ascontiguousarray(v), s, e,
                               first.astype(np.int64), int(cap), self.ckpt, self.block,
                               np.ascontiguousarray(bs), np.ascontiguousarray(be), self.n_valid,
                               self.nwords)


def count_matches(table: Table, queries: tuple[np.ndarray, np.ndarray, np.ndarray],
                  cap: int = 2) -> np.ndarray:
    """``min(count, cap)`` of the records of ``table`` matching each query."""
    return table.count(*queries, cap=cap)


def _keys(cols: np.ndarray, ops: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """One row of integers per query (NaN values made equal), for exact de-duplication."""
    v = np.where(np.isnan(vals), -0.5, vals).view(np.int64)
    return np.concatenate([cols.astype(np.int64), ops.astype(np.int64), v], axis=1)


def _dedup(cols: np.ndarray, ops: np.ndarray, vals: np.ndarray,
           seen: list[np.ndarray]) -> np.ndarray:
    """Positions of queries not seen before (and not repeated within the batch); appends the
    new ones to ``seen``."""
    import pandas as pd

    k = _keys(cols, ops, vals)
    prev = np.concatenate(seen) if seen else np.zeros((0, k.shape[1]), dtype=np.int64)
    dup = pd.DataFrame(np.concatenate([prev, k])).duplicated(keep="first").to_numpy()
    keep = np.flatnonzero(~dup[len(prev):])
    seen.append(k[keep])
    return keep


def multivariate_queries(release: Table, numeric: np.ndarray, n_queries: int, n_cols: int,
                         max_attempts: int, rng: np.random.Generator
                         ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], int]:
    """Distinct queries that single out one record of ``release``, and the attempts made.

    Each attempt draws a release record uniformly and ``n_cols`` distinct columns; the predicate
    of a column is ``is null`` for a missing value, ``== value`` for a category, and for a number
    ``>= value`` above the column's median, ``<= value`` otherwise (towards the nearer tail,
    where values are rarer; Giomi et al. 2023, section 4.1).
    """
    x, p = release.x, release.p
    with np.errstate(all="ignore"):
        med = np.array([np.nanmedian(x[:, j]) if numeric[j] and release.n_valid[j] else np.nan
                        for j in range(p)])
    out_c, out_o, out_v = [], [], []
    seen: list[np.ndarray] = []
    got = attempts = 0
    batch = 1000
    while got < n_queries and attempts < max_attempts:
        b = int(min(batch, max_attempts - attempts))
        rows = rng.integers(0, release.n, size=b)
        cols = np.sort(np.argsort(rng.random((b, p)), axis=1)[:, :n_cols], axis=1)
        vals = x[rows[:, None], cols]
        ops = np.where(numeric[cols] & (vals > med[cols]), GE, np.where(numeric[cols], LE, EQ))
        ops = np.where(np.isnan(vals), ISNULL, ops)
        attempts += b
        hit = release.count(cols, ops, vals) == 1
        cols, ops, vals = cols[hit], ops[hit], vals[hit]
        keep = _dedup(cols, ops, vals, seen)[: n_queries - got]
        seen[-1] = seen[-1][: len(keep)]
        out_c.append(cols[keep])
        out_o.append(ops[keep])
        out_v.append(vals[keep])
        got += len(keep)
        rate = max(hit.mean(), 1e-3)
        batch = int(min(max((n_queries - got) / rate * 1.2, 1000), 200_000))
    return _stack(out_c, out_o, out_v, n_cols), attempts


def univariate_queries(release: Table, numeric: np.ndarray, n_queries: int,
                       rng: np.random.Generator
                       ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], int]:
    """Distinct one-column queries that single out one record of ``release``: ``is null`` where
    exactly one value is missing, ``<= min`` and ``>= max`` of numbers, ``== v`` for every value
    ``v`` held by one record; shuffled, then the first ``n_queries`` that single out."""
    cs, os_, vs = [], [], []
    x = release.x
    for j in range(release.p):
        col = x[:, j]
        nan = np.isnan(col)
        if nan.sum() == 1:
            cs.append(j)
            os_.append(ISNULL)
            vs.append(np.nan)
        valid = col[~nan]
        if numeric[j] and len(valid):
            cs += [j, j]
            os_ += [LE, GE]
            vs += [float(valid.min()), float(valid.max())]
        u, cnt = np.unique(valid, return_counts=True)
        rare = u[cnt == 1]
        cs += [j] * len(rare)
        os_ += [EQ] * len(rare)
        vs += rare.tolist()
    cols = np.asarray(cs, dtype=np.int64)[:, None]
    ops = np.asarray(os_, dtype=np.int64)[:, None]
    vals = np.asarray(vs, dtype=np.float64)[:, None]
    perm = rng.permutation(len(cols))
    cols, ops, vals = cols[perm], ops[perm], vals[perm]
    hit = release.count(cols, ops, vals) == 1
    cols, ops, vals = cols[hit], ops[hit], vals[hit]
    keep = _dedup(cols, ops, vals, [])[:n_queries]
    return (cols[keep], ops[keep], vals[keep]), len(perm)


def random_queries(release: Table, numeric: np.ndarray, n_queries: int, n_cols: int,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The baseline attacker's queries: ``n_cols`` random columns, each with a value drawn
    uniformly from the column's distinct release values (missing included) and an operator drawn
    uniformly (``==``/``!=`` for categories; ``==``, ``!=``, ``>``, ``<``, ``>=``, ``<=`` for
    numbers; ``is null``/``is not null`` for a missing value)."""
    p = release.p
    cols = np.sort(np.argsort(rng.random((n_queries, p)), axis=1)[:, :n_cols], axis=1)
    vals = np.empty(cols.shape, dtype=np.float64)
    ops = np.empty(cols.shape, dtype=np.int64)
    uniques = []
    for j in range(p):
        u = np.unique(release.x[:, j])  # NaN sorted last, possibly repeated
        if np.isnan(u).any():
            u = np.append(u[~np.isnan(u)], np.nan)
        uniques.append(u)
    for j in np.unique(cols):
        m = cols == j
        k = int(m.sum())
        u = uniques[j]
        v = u[rng.integers(0, len(u), size=k)]
        n_ops = 6 if numeric[j] else 2
        o = rng.integers(0, n_ops, size=k)
        o = np.where(np.isnan(v), np.where(o == EQ, ISNULL, NOTNULL), o)
        vals[m], ops[m] = v, o
    return cols, ops, vals


def _stack(cs: list, os_: list, vs: list, n_cols: int
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not cs:
        return (np.zeros((0, n_cols), np.int64), np.zeros((0, n_cols), np.int64),
                np.zeros((0, n_cols), np.float64))
    return np.concatenate(cs), np.concatenate(os_), np.concatenate(vs)
