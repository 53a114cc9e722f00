"""Counts of the release check over a Dask frame in bounded memory per partition (internal to
`sdcsession.session.release.structure`).

A finding that needs the distinct values of a column (is it an identifier?), the distinct
pairs of two columns (does one determine the other?) or the frequency of every value (rare
weights) must not bring a whole column to one worker or to the client: a record id of a census
has as many distinct values as records. Each count here is a hash shuffle followed by
partition-wise reductions, so every output partition holds only the values that hash to it and
only numbers leave the workers:

- `distinct_counts`: per column, the observed values (``count``) and the distinct observed
  values: ``drop_duplicates`` with ``split_out`` (values hashed into partitions, duplicates
  dropped within each), then the sizes of the partitions added;
- `determines`: for a pair (x, y), ``max_x |{y : (x, y) observed}|``: the distinct pairs of every
  partition, shuffled on x (all pairs of one x value meet in one partition), deduplicated and
  counted per x there, and the largest count kept;
- `rare_values`: the records and the distinct values whose frequency is below k:
  ``value_counts`` with ``split_out``, filtered and summed per partition;
- `group_sums`: for a pair (d, v), the sums of the correlation ratio of v given d: the sums of
  v, v² and the records per value of d within every partition, shuffled on d (all the sums of
  one d value meet in one partition), added per d value there and reduced to
  ``sum_g (sum of v in g)² / n_g`` and the totals.

The number of output partitions of a hash shuffle is `out_partitions`: one per
`RECORDS_PER_OUTPUT` records (at most the frame's partitions), so a small file is counted in a
few tasks and a census still in bounded memory per partition.

The counts are integers, so they equal the pandas path's counts exactly (the sums of
`group_sums` up to the order of the additions). Values that cannot be
hashed (lists, dicts) are counted by their text, as on pandas. Each count has a form in rounds
(``distinct_rounds``, ``determines_rounds``, ``rare_rounds``: generators of
`sdcsession.session.release.rounds`) that the release check computes together with its other
counts, and an eager form that computes it alone.

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> f = dd.from_pandas(pd.DataFrame({"x": [1, 1, 2, None], "y": ["a", "b", "c", "c"]}),
...                    npartitions=2)
>>> distinct_counts(f, ["x", "y"])
{'x': (3, 2), 'y': (4, 3)}
>>> determines(f, [("x", "y"), ("y", "x")])
[2.0, 2.0]
>>> rare_values(f["y"], 2)
(2, 2)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .rounds import Rounds, run_dask

__all__ = ["out_partitions", "RECORDS_PER_OUTPUT", "distinct_counts", "determines", "rare_values",
           "hashable", "distinct_rounds", "determines_rounds", "rare_rounds", "group_sums",
           "group_sums_rounds", "GROUP_SUMS"]


#: records per output partition of the counts' hash shuffles (the distinct values, pairs or
#: frequencies one output partition holds are at most this many)
RECORDS_PER_OUTPUT = 500_000


def out_partitions(n: int, npartitions: int) -> int:
    """The output partitions of a count's hash shuffle over ``n`` records in ``npartitions``
    partitions: ``min(npartitions, ceil(n / RECORDS_PER_OUTPUT))``, at least 1.

    Missing values: not applicable.

    >>> out_partitions(15_000, 7), out_partitions(6_000_000, 96)
    (1, 12)
    """
    return max(1, min(int(npartitions), math.ceil(int(n) / RECORDS_PER_OUTPUT)))


def hashable(s: pd.Series) -> pd.Series:
    """``s`` as it is, or (cells that cannot be hashed, e.g. lists) every observed value as its
    text, missing values kept."""
    if s.dtype != object:
        return s
    try:
        pd.unique(s.to_numpy(dtype=object))
    except TypeError:
        return s.where(s.isna(), s.astype(str))
    return s


def _hashable_part(s: pd.Series) -> pd.Series:
    return hashable(s).astype(object) if s.dtype == object else s


def distinct_rounds(f: Any, cols: list[str], parts: int | None = None) -> Rounds:
    """`distinct_counts` in rounds (one round); ``parts``: the shuffle's output partitions
    (default: those of ``f``)."""
    if not cols:
        return {}
    lazy: list[Any] = []
    for c in cols:
        s = f[c]
        if s._meta.dtype == object:
            s = s.map_partitions(_hashable_part, meta=s._meta)
        out = parts or max(f.npartitions, 1)
        lazy += [f[c].count(), s.dropna().drop_duplicates(split_out=out).size]
    got = yield tuple(lazy)
    return {c: (int(got[2 * j]), int(got[2 * j + 1])) for j, c in enumerate(cols)}


def distinct_counts(f: Any, cols: list[str]) -> dict[str, tuple[int, int]]:
    """``{column: (observed values, distinct observed values)}`` of the columns ``cols`` of the
    Dask frame ``f``, computed together (see the module docstring).

    Missing values: not counted (neither observed nor distinct).
    """
    return run_dask(distinct_rounds(f, cols))


def _pairs_part(part: pd.DataFrame, x: str, y: str) -> pd.DataFrame:
    out = part[[x, y]].dropna(subset=[x])
    out = pd.DataFrame({x: _hashable_part(out[x]), y: _hashable_part(out[y])}, index=out.index)
    return out.drop_duplicates()


def _most_per_x(part: pd.DataFrame, x: str) -> pd.Series:
    u = part.drop_duplicates()
    return pd.Series([float(u.groupby(x).size().max()) if len(u) else math.nan])


def determines_rounds(f: Any, pairs: list[tuple[str, str]], parts: int | None = None) -> Rounds:
    """`determines` in rounds (one round; none without pairs); ``parts``: the shuffle's output
    partitions (default: those of ``f``)."""
    if not pairs:
        return []
    lazy = []
    for x, y in pairs:
        meta = _pairs_part(f._meta, x, y)
        u = f[[x, y]].map_partitions(_pairs_part, x, y, meta=meta)
        out = parts or max(f.npartitions, 1)
        # one output partition: every pair goes to it, no hashing needed
        u = u.repartition(npartitions=1) if out == 1 else u.shuffle(on=x, npartitions=out)
        lazy.append(u.map_partitions(_most_per_x, x, meta=pd.Series(dtype=np.float64)))
    got = yield tuple(lazy)
    out = []
    for m in got:
        v = np.asarray(m, dtype=np.float64)
        out.append(float(np.nanmax(v)) if (~np.isnan(v)).any() else math.nan)
    return out


def determines(f: Any, pairs: list[tuple[str, str]]) -> list[float]:
    """For each (x, y) of ``pairs``: the largest number of distinct ``y`` values sharing one
    non-missing ``x`` value of the Dask frame ``f`` (1 = x determines y; NaN when x is all
    missing), with the pairs shuffled on x (see the module docstring).

    Missing values: records with x missing are left out; a missing y is one value of its own.
    """
    return run_dask(determines_rounds(f, pairs))


#: the values `group_sums` gives per pair, in this order
GROUP_SUMS = ("n", "sum", "sum of squares", "sum_g sum_g^2 / n_g", "min", "max")


def _group_part(part: pd.DataFrame, d: str, v: str, centre: float) -> pd.DataFrame:
    """Per value of ``d`` of one partition: the records, the sums of ``v - centre`` and of its
    squares, the least and the largest ``v`` (records with ``d`` or ``v`` missing left out)."""
    x = pd.to_numeric(part[v], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    m = part[d].notna().to_numpy() & ~np.isnan(x)
    xc = x[m] - centre
    g = pd.DataFrame({"key": _hashable_part(part[d][m]).to_numpy(), "n": np.ones(len(xc)),
                      "s": xc, "ss": xc * xc, "lo": x[m], "hi": x[m]})
    return g.groupby("key", sort=False).agg({"n": "sum", "s": "sum", "ss": "sum", "lo": "min",
                                             "hi": "max"}).reset_index()


def _group_reduce(part: pd.DataFrame) -> pd.Series:
    """The `GROUP_SUMS` of the groups of one output partition (each d value wholly in it)."""
    if not len(part):
        return pd.Series([0.0, 0.0, 0.0, 0.0, np.inf, -np.inf])
    g = part.groupby("key", sort=False).agg({"n": "sum", "s": "sum", "ss": "sum", "lo": "min",
                                             "hi": "max"})
    return pd.Series([g["n"].sum(), g["s"].sum(), g["ss"].sum(), (g["s"] ** 2 / g["n"]).sum(),
                      g["lo"].min(), g["hi"].max()], dtype=np.float64)


def group_sums_rounds(f: Any, pairs: list[tuple[str, str]], centres: list[float],
                      parts: int | None = None) -> Rounds:
    """`group_sums` in rounds (one round; none without pairs); ``parts``: the shuffle's output
    partitions (default: those of ``f``)."""
    if not pairs:
        return []
    lazy = []
    for (d, v), c in zip(pairs, centres):
        meta = _group_part(f._meta, d, v, float(c))
        g = f[[d, v]].map_partitions(_group_part, d, v, float(c), meta=meta)
        out = parts or max(f.npartitions, 1)
        g = g.repartition(npartitions=1) if out == 1 else g.shuffle(on="key", npartitions=out)
        lazy.append(g.map_partitions(_group_reduce, meta=pd.Series(dtype=np.float64)))
    got = yield tuple(lazy)
    out = []
    for r in got:
        a = np.asarray(r, dtype=np.float64).reshape(-1, len(GROUP_SUMS))
        out.append([*a[:, :4].sum(axis=0).tolist(), float(a[:, 4].min()), float(a[:, 5].max())])
    return out


def group_sums(f: Any, pairs: list[tuple[str, str]], centres: list[float]) -> list[list[float]]:
    """For each (d, v) of ``pairs`` and its ``centre``: the `GROUP_SUMS` of x = v - centre over
    the records where both are observed, grouped by the values of d: the records n, the sums
    of x and of x², ``sum_g (sum of x in g)² / n_g`` over the groups g of d's values, and the
    least and the largest v (inf and -inf with no record). The correlation ratio of v given d
    follows from them (`sdcsession.session.release.counting`); the centre (v's mean) keeps
    the sums of squares accurate.

    Missing values: records with d or v missing are left out.

    >>> import dask.dataframe as dd
    >>> f = dd.from_pandas(pd.DataFrame({"d": [0, 0, 1, 1, None],
    ...                                  "v": [1.0, 3.0, 5.0, 7.0, 9.0]}), npartitions=2)
    >>> group_sums(f, [("d", "v")], [4.0])
    [[4.0, 0.0, 20.0, 16.0, 1.0, 7.0]]
    """
    return run_dask(group_sums_rounds(f, pairs, centres))


def rare_rounds(s: Any, k: int, parts: int | None = None) -> Rounds:
    """`rare_values` in rounds (one round); ``parts``: the output partitions of the frequency
    table (default: those of ``s``)."""
    vc = s.value_counts(split_out=parts or max(s.npartitions, 1))
    rare = vc[vc < k]
    m, n = yield (rare.sum(), rare.size)
    return int(m), int(n)


def rare_values(s: Any, k: int) -> tuple[int, int]:
    """``(records, values)`` of the Dask series ``s`` whose value occurs fewer than ``k``
    times: the sum and the number of the frequencies below ``k`` (see the module docstring).

    Missing values: not counted.
    """
    return run_dask(rare_rounds(s, k))
