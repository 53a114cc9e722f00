"""Core of local suppression to k-anonymity, on integer key codes (internal).

Records are rows of an ``(n, p)`` int64 code matrix ``X`` (``-1`` = missing); missing values are
wildcards (alpha = 1). This module holds the solver, `solve` (suppression rounds per key
set, then the restoration pass) and `restore_only`; the parts live in

- `sdcsession.methods.suppression._rows`: missing-pattern bit masks and row ids;
- `sdcsession.methods.suppression._counter`: `Counter` (sums of weights over compatible
  rows, persistent tables updated incrementally) and `compat_sum`;
- `sdcsession.methods.suppression._search`: the greedy suppression rounds;
- `sdcsession.methods.suppression._many`: the greedy key-set search when many keys make
  the search over all key subsets too costly;
- `sdcsession.methods.suppression._cluster`: many keys, the engine that replaces the rounds
  beyond `CLUSTER_KEYS` keys (unit weights) under ``engine="auto"``: the hub trie of
  `sdcsession.methods.suppression._hub_trie` (``_cluster.MANY_KEYS_ENGINE``, default) or the
  clustering of sorted records; ``engine="rounds" | "hub_trie" | "cluster"`` names one engine
  for every key set (`ENGINES`);
- `sdcsession.methods.suppression._restore`: the restoration pass.

The heuristic (`solve`) is described in `sdcsession.methods.suppression.local.local_suppression`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...progress import Bar
from . import _cluster
from ._cluster import CLUSTER_KEYS, cluster_suppress, hub_suppress
from ._counter import Counter, compat_sum
from ._counter import _pool as _pool  # re-exported: the tests switch threads through it
from ._restore import _restore_phase
from ._search import _suppress, _suppress_phase

__all__ = ["Counter", "SolveInfo", "solve", "restore_only", "compat_sum", "k_list", "ENGINES"]

#: the engines of local suppression: ``"auto"`` (the rounds up to `CLUSTER_KEYS` keys, the hub
#: trie beyond, both on small files), or one engine for every key set
ENGINES = ("auto", "rounds", "hub_trie", "cluster")


@dataclass
class SolveInfo:
    """What `solve` did: suppressed cells, rounds, and records that cannot be protected."""

    suppressed: np.ndarray  # (n, p) bool: set missing by the solver
    rounds: int = 0
    restored: int = 0
    unresolvable: int = 0
    violators: np.ndarray | None = None  # (n,) bool: records below k at the end (exact recount)
    fallback: int | None = None  # hub trie: records that may lose more than the cap
    log: list[str] = field(default_factory=list)



def _violators(X: np.ndarray, w: np.ndarray, keysets: list[np.ndarray], cards: Sequence[int],
               k: float | Sequence[float]) -> tuple[np.ndarray, list[np.ndarray]]:
    bad = np.zeros(len(X), bool)
    fks = []
    for cols, kk in zip(keysets, k_list(k, len(keysets)), strict=True):
        fk = compat_sum(X, w, cols, cards)
        fks.append(fk)
        bad |= fk < kk - 1e-9
    return bad, fks


def k_list(k: float | Sequence[float], m: int) -> list[float]:
    """``k`` as one number per key set (a single number is shared by all ``m`` key sets)."""
    if isinstance(k, (int, float, np.integer, np.floating)):
        return [float(k)] * m
    return [float(x) for x in k]



#: many keys on at most this many records: the clustering and the rounds both run, and the
#: solution with fewer suppressions is kept (the clustering alone beyond)
BOTH_ROWS = 5_000
#: the restoration pass follows the clustering on at most this many records (its cost grows
#: with the missing patterns the clustering creates: some 10 s at 30,000 records x 15 keys)
CLUSTER_RESTORE_ROWS = 50_000


def _clustered(n: int, w: np.ndarray, cols: Sequence[int], min_keys: int | None = None) -> bool:
    """Whether key set ``cols`` goes to a many-keys engine (`_cluster`): at least ``min_keys``
    keys (default: more than `CLUSTER_KEYS`) and unit weights."""
    least = CLUSTER_KEYS + 1 if min_keys is None else min_keys
    return len(cols) >= least and n > 0 and bool(np.all(w == 1.0))


def solve(X: np.ndarray, w: np.ndarray, keysets: list[Sequence[int]], cards: Sequence[int],
          k: float | Sequence[float], rank: np.ndarray | None = None, restore: bool = True,
          bar: Bar | None = None, cost: np.ndarray | None = None,
          method: str = "auto", cap: int | None = None) -> SolveInfo:
    """Suppress values of ``X`` (in place) until fk >= k on every key set, then restore extras.

    ``method`` (one of `ENGINES`): ``"rounds"`` (the greedy suppression rounds of `_search` on
    every key set, whatever its number of keys, a combination that no single suppression helps
    always getting the smallest key set that works, tried over every subset: the rounds of
    every version before the many-keys engines), ``"hub_trie"`` or ``"cluster"`` (every key set
    with unit weights by that engine of `_cluster`, whatever its number of keys; key sets of
    weighted records by the rounds) or ``"auto"``: key sets with more than `CLUSTER_KEYS` keys
    and unit weights by ``_cluster.MANY_KEYS_ENGINE`` (the hub trie), the others by the rounds
    (beyond 11 keys and many combinations the greedy key sets of `_many`), and on at most `BOTH_ROWS` records both, keeping the solution with fewer suppressions
    (ties: the rounds'; the rounds' only if no record loses more than ``cap`` when ``cap`` is
    given). ``cap``: the hub trie's most values per record (None: half the keys of the key
    set). Other parameters: see `_solve`.
    """
    if method == "rounds":
        return _solve(X, w, keysets, cards, k, rank, restore, bar, cost, many=None,
                      exhaustive=True)
    if method in ("hub_trie", "cluster"):
        return _solve(X, w, keysets, cards, k, rank, restore, bar, cost, many=method,
                      min_keys=1, cap=cap)
    if method != "auto":
        raise ValueError(f"solve: unknown method {method!r}")  # the callers check it
    engine = _cluster.MANY_KEYS_ENGINE
    if any(_clustered(len(X), w, c) for c in keysets) and len(X) <= BOTH_ROWS:
        Xr, X0 = X.copy(), X.copy()
        a = _solve(Xr, w, keysets, cards, k, rank, restore, None, cost, many=None)
        b = _solve(X, w, keysets, cards, k, rank, restore, None, cost, many=engine, cap=cap)
        # a cap given explicitly binds the rounds too (the default one binds the hub trie)
        fits = cap is None or int(((Xr < 0) & (X0 >= 0)).sum(1).max()) <= cap
        if fits and int(a.suppressed.sum()) <= int(b.suppressed.sum()) and \
                a.unresolvable <= b.unresolvable:
            X[:] = Xr
            b = a
        if bar is not None:
            bar.update(len(X) * len(keysets))
        return b
    return _solve(X, w, keysets, cards, k, rank, restore, bar, cost, many=engine, cap=cap)


def _solve(X: np.ndarray, w: np.ndarray, keysets: list[Sequence[int]], cards: Sequence[int],
           k: float | Sequence[float], rank: np.ndarray | None = None, restore: bool = True,
           bar: Bar | None = None, cost: np.ndarray | None = None,
           many: str | None = None, cap: int | None = None,
           min_keys: int | None = None, exhaustive: bool = False) -> SolveInfo:
    """Suppress values of ``X`` (in place) until fk >= k on every key set, then restore extras.

    ``many``: None (the rounds for every key set), or the engine (``"hub_trie"``,
    ``"cluster"``) of the key sets with at least ``min_keys`` keys (default: more than
    `CLUSTER_KEYS`) and unit weights (see `solve`); ``exhaustive``: the rounds try every key
    subset for the combinations no single suppression helps (`_search._fallback`). ``k``: one number, or one per key set (key
    set i must reach its own k_i).
    ``rank``: per column of ``X``, larger = less important (suppressed first); ``None`` = by gain.
    Records cannot be protected when the total weight is below k: then nothing is suppressed and
    ``info.unresolvable`` counts the records. ``bar`` advances by the records found safe, per key
    set (``len(X)`` per key set in all).
    """
    bar = bar if bar is not None else Bar(enabled=False)
    info = SolveInfo(np.zeros(X.shape, bool))
    if len(X) == 0:
        return info
    kl = k_list(k, len(keysets))
    if w.sum() < max(kl) - 1e-9:
        bad, _ = _violators(X, w, [np.asarray(c) for c in keysets], cards, k)
        info.unresolvable = int(bad.sum())
        return info
    orig = X.copy()
    order: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # the suppressions made
    ks = [np.asarray(c, dtype=np.int64) for c in keysets]
    base: list[Counter | None] = []
    by_cluster = []
    for cols, kk in zip(ks, kl, strict=True):
        rk = None if rank is None else np.asarray(rank)[cols]
        ck = None if cost is None else np.asarray(cost, dtype=float)[cols]
        by_cluster.append(many is not None and _clustered(len(X), w, cols, min_keys))
        if by_cluster[-1]:
            if many == "hub_trie":
                rows, vs, fb = hub_suppress(X, cols, np.asarray(cards)[cols], kk, rk, ck, cap)
                info.fallback = (info.fallback or 0) + fb
            else:
                rows, vs = cluster_suppress(X, cols, np.asarray(cards)[cols], kk, rk, ck)
            _suppress(X, info, order, rows, vs, np.zeros(len(rows), np.int64))
            info.rounds += 1
            bar.update(len(X))
            base.append(None)  # counted only when needed (restoration, final count)
            continue
        if rk is None:
            cnt, _ = _suppress_phase(X, w, cols, cards, kk, rk, info, order, bar=bar, cost=ck,
                                     exhaustive=exhaustive)
        else:
            # importance: the least important keys alone first, then one more key at a time
            cnt, act = None, None
            for lev in sorted(set(rk.tolist()), reverse=True):
                cnt, act = _suppress_phase(X, w, cols, cards, kk, rk, info, order, bar=bar,
                                           cost=ck, allowed=rk >= lev, active=act, cnt=cnt,
                                           exhaustive=exhaustive)
                if not act.any():
                    break
        base.append(cnt)
    if all(by_cluster) and (not restore or len(X) > CLUSTER_RESTORE_ROWS):
        # k-anonymous by construction (every record compatible with its whole group)
        info.violators = np.zeros(len(X), bool)
        return info
    base = [Counter(X, w, cols, cards) if cnt is None else cnt for cnt, cols in zip(base, ks)]
    if restore and info.suppressed.any():
        fks = _restore_phase(X, orig, w, ks, cards, kl, None if rank is None else np.asarray(rank),
                             info, order, base)
    else:
        fks = []
        for cnt in base:
            cnt.sync()
            fks.append(cnt.count(X)[:, 0])
    bad = np.zeros(len(X), bool)
    for fk, kk in zip(fks, kl, strict=True):
        bad |= fk < kk - 1e-9
    info.violators = bad
    info.unresolvable = int(bad.sum())
    return info


def restore_only(X: np.ndarray, orig: np.ndarray, w: np.ndarray, keysets: list[Sequence[int]],
                 cards: Sequence[int], k: float | Sequence[float], rank: np.ndarray | None,
                 candidates: np.ndarray) -> int:
    """Restoration pass alone (see `_restore_phase`) on a k-anonymous ``X``: try to give back
    the original values of the ``candidates`` cells (``(n, p)`` bool); returns how many came back.
    """
    cand = candidates & (X < 0) & (orig >= 0)
    if not cand.any():
        return 0
    info = SolveInfo(cand.copy())
    ks = [np.asarray(c, dtype=np.int64) for c in keysets]
    base = [Counter(X, w, cols, cards) for cols in ks]
    _restore_phase(X, orig, w, ks, cards, k_list(k, len(ks)), None if rank is None else np.asarray(rank), info, [],
                   base)
    return int(info.restored)
