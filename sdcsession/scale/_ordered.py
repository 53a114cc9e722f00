"""Group sums over the partitions of a Dask frame that equal ``np.bincount`` on the whole file
bit for bit.

Floating-point addition is not associative, so adding per-partition partial sums would differ from
the in-memory ``bincount`` (which adds the records of a group in record order) in the last bits.
Here the partitions are folded in order: the carry is a sorted table ``(keys, sums)`` of every
group seen so far; partition p continues each group's running sum from the carry, adding its
records in their order (``np.add.at``, which is sequential). After the last partition the carry
holds exactly the sums ``bincount`` would give. Only the fold itself is sequential (a few vectorised
passes over each partition's group codes); reading and encoding the partitions run in parallel.

Counts (integers) are exact in any order; they use the same fold for simplicity.

Example
-------
>>> import numpy as np
>>> parts = [local_table(np.array([5, 3, 5]), np.array([[0.1], [1.0], [0.2]])),
...          local_table(np.array([5]), np.array([[0.3]]))]
>>> carry = empty_carry(1)
>>> for p in parts:
...     carry = fold(carry, p)
>>> carry[0].tolist(), carry[1][:, 0].tolist() == [1.0, 0.1 + 0.2 + 0.3]
([3, 5], True)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._base import active_client, compute, persist_wait

__all__ = ["local_table", "empty_carry", "fold", "fold_all", "ordered_fold", "lookup"]

Table = tuple[np.ndarray, np.ndarray]


def local_table(keys: np.ndarray, values: np.ndarray | None = None, *, count: bool = False,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]:
    """One partition's contribution: its sorted distinct ``keys``, the position of every record's
    key among them (int32 when it fits), the per-record ``values`` (``(n, c)`` floats) and
    whether the first sum is an integer count of the records (``count``, implied when
    ``values`` is None): then ``values`` fill the sums after it. Records are held as 4 + 8c
    bytes each until folded."""
    codes, uniq = pd.factorize(np.asarray(keys), sort=False)  # hashing: faster than sorting
    uniq = np.asarray(uniq)
    order = np.argsort(uniq, kind="stable")
    rank = np.empty(len(uniq), dtype=np.int32 if len(uniq) < 2**31 else np.int64)
    rank[order] = np.arange(len(uniq))
    return uniq[order], rank[codes], values, count or values is None


def empty_carry(ncols: int, dtype: object = np.int64) -> Table:
    """The carry before the first partition: no group, ``ncols`` sums per group."""
    return np.zeros(0, dtype=dtype), np.zeros((0, ncols), dtype=np.float64)


def fold(carry: Table, part: tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]) -> Table:
    """Continue the running sums of ``carry`` with one partition's records (in record order)."""
    keys, sums = carry
    uk, inv, vals, count = part
    ncols = sums.shape[1]
    if len(uk) == 0:
        return carry
    if len(keys) == 0:
        allk, new = uk, np.zeros((len(uk), ncols), dtype=np.float64)
    else:  # merge the sorted keys (no full sort: insert the new ones in place)
        at = np.searchsorted(keys, uk)
        present = at < len(keys)
        present[present] = keys[at[present]] == uk[present]
        if present.all():
            allk, new = keys, sums.copy()
        else:
            ins = at[~present]
            allk = np.insert(keys, ins, uk[~present])
            new = np.insert(sums, ins, 0.0, axis=0)
    pos = np.searchsorted(allk, uk)
    for j in range(ncols):
        acc = new[pos, j]  # a copy: the running sums of this partition's groups
        if count and j == 0:
            acc += np.bincount(inv, minlength=len(uk))  # integer counts: order-free
        else:
            np.add.at(acc, inv, vals[:, j - count])  # sequential, as bincount
        new[pos, j] = acc
    return allk, new


def fold_all(carry: list[Table], parts: list) -> list[Table]:
    """`fold` of several tables at once (one partition's contributions to each)."""
    return [fold(c, p) for c, p in zip(carry, parts)]


def ordered_fold(parts: list, contribution: Any, carry: Any, *args: Any,
                 progress: bool | None = None, many: bool = False) -> Any:
    """Fold ``contribution(part, *args)`` of every partition (Dask delayed objects, in partition
    order) into ``carry`` with `fold` (`fold_all` when ``many``), in record order; returns the
    final carry, computed.

    The fold is sequential while the contributions can be computed in parallel; to keep the
    contributions waiting for the fold from filling the workers' memory, the partitions are
    taken in waves of twice the cluster's threads: a wave is computed (its carry kept on the
    cluster) before the next one is read.
    """
    import dask

    client = active_client()
    wave = 2 * (sum(client.nthreads().values()) if client is not None else 2)
    step = fold_all if many else fold
    for start in range(0, len(parts), wave):
        for part in parts[start:start + wave]:
            carry = dask.delayed(step)(carry, dask.delayed(contribution)(part, *args))
        if start + wave < len(parts):
            carry = persist_wait(carry, progress=progress)
    return compute(carry, progress=progress)[0]


def lookup(table: Table, keys: np.ndarray) -> np.ndarray:
    """The sums of ``table`` for every key of ``keys`` (rows of zeros for unknown keys)."""
    tk, sums = table
    keys = np.asarray(keys)
    out = np.zeros((len(keys), sums.shape[1]), dtype=np.float64)
    if len(tk) == 0 or len(keys) == 0:
        return out
    pos = np.searchsorted(tk, keys)
    pos = np.minimum(pos, len(tk) - 1)
    hit = tk[pos] == keys
    out[hit] = sums[pos[hit]]
    return out
