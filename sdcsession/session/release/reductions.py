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
  ``value_counts`` with ``split_out``, filtered and summed per partition.

The number of output partitions of a hash shuffle is `out_partitions`: one per
`RECORDS_PER_OUTPUT` records (at most the frame's partitions), so a small file is counted in a
few tasks and a census still in bounded memory per partition.

The counts are integers, so they equal the pandas path's counts exactly. Values that cannot be
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

__all__ = ["out_partitions", "RECORDS_PER_OUTPUT", "distinct_counts", "determines", "rare_values", "hashable", "distinct_rounds",
           "determines_rounds", "rare_rounds"]


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
