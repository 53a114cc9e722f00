"""The counts of the release check's structure findings on pandas and on Dask, in rounds
(internal to `sdcsession.session.release.structure`; see `sdcsession.session.release.rounds`).

- ``_distinct_many``: observed and distinct observed values per column;
- ``_determines_many``: the most distinct ``y`` values sharing one ``x`` value, per pair;
- ``_corr_many``: Pearson's r per pair of columns, from the sums of every partition;
- ``_counts_many``: records where two flag columns are both true, per pair, one task per
  partition.

On pandas the counts that would need a ``groupby`` or a ``drop_duplicates`` per pair come from
the columns' integer codes (`sdcsession.session.release.codes`); on Dask from the hash-shuffle
reductions of `sdcsession.session.release.reductions`, with one output partition per
`sdcsession.session.release.reductions.RECORDS_PER_OUTPUT` records.

Missing values: as each function says (a missing ``y`` is a value of its own; records with
``x`` missing are left out; correlations over the records where both are observed).

Example
-------
>>> import pandas as pd
>>> from sdcsession.session.release.aligned import Aligned
>>> from sdcsession.session.release.rounds import run
>>> f = pd.DataFrame({"a": [1, 1, 2], "b": ["x", "y", "y"]})
>>> al = Aligned(f, f)
>>> run(_determines_many(al, f, [("a", "b"), ("b", "a")]), al.compute)
[2.0, 2.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .aligned import Aligned
from .codes import FrameCodes
from .reductions import determines_rounds, distinct_rounds, out_partitions
from .rounds import Rounds

__all__: list[str] = []


def _pairs_part(part: pd.DataFrame, pairs: list[tuple[str, str]]) -> list[pd.DataFrame]:
    return [part[[x, y]].dropna(subset=[x]).drop_duplicates() for x, y in pairs]


def _codes(al: Aligned, f: Any) -> FrameCodes | None:
    """The integer codes of a pandas frame's columns (the fast path), None on Dask."""
    return None if al.dask else FrameCodes(f)


def _determines_many(al: Aligned, f: Any, pairs: list[tuple[str, str]],
                     codes: FrameCodes | None = None) -> Rounds:
    """For each (x, y) of ``pairs``: the largest number of distinct ``y`` values sharing one
    non-missing ``x`` value (1 = ``x`` determines ``y``; NaN when ``x`` is all missing), from the
    distinct pairs of every partition united (pandas: from the columns' integer ``codes``)."""
    if not pairs:
        return []
    if al.dask:
        return (yield from determines_rounds(f, pairs, out_partitions(al.n, f.npartitions)))
    try:
        return (codes or FrameCodes(f)).determines(pairs)
    except TypeError:  # unhashable cells: the frame path below says so
        pass
    parts = al.per_partition(f, _pairs_part, pairs)
    out = []
    for j, (x, _y) in enumerate(pairs):
        u = pd.concat([p[j] for p in parts], ignore_index=True).drop_duplicates()
        out.append(float(u.groupby(x).size().max()) if len(u) else math.nan)
    return out


def _distinct_part(part: pd.DataFrame, cols: list[str]) -> list[tuple[int, Any]]:
    out = []
    for c in cols:
        v = part[c].dropna()
        try:
            u = v.drop_duplicates()
        except TypeError:  # unhashable cells (lists, dicts): compared by their text
            u = v.astype(str).drop_duplicates()
        out.append((int(part[c].count()), u))
    return out


def _distinct_many(al: Aligned, f: Any, cols: list[str],
                   codes: FrameCodes | None = None) -> Rounds:
    """``{column: (observed values, distinct observed values)}`` of the columns of ``f``
    (pandas: from the columns' integer ``codes``)."""
    if not cols:
        return {}
    if al.dask:
        return (yield from distinct_rounds(f, cols, out_partitions(al.n, f.npartitions)))
    try:
        return {c: (codes or FrameCodes(f)).distinct(c) for c in cols}
    except TypeError:  # unhashable cells: compared by their text below
        pass
    parts = al.per_partition(f[cols], _distinct_part, cols)
    out = {}
    for j, c in enumerate(cols):
        u = pd.concat([p[j][1] for p in parts], ignore_index=True).drop_duplicates()
        out[c] = (sum(p[j][0] for p in parts), len(u))
    return out


def _sums_part(part: pd.DataFrame, pairs: list[tuple[str, str]]) -> np.ndarray:
    out = np.zeros((len(pairs), 6))
    for j, (a, b) in enumerate(pairs):
        x = pd.to_numeric(part[a], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        y = pd.to_numeric(part[b], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        m = ~np.isnan(x) & ~np.isnan(y)
        x, y = x[m], y[m]
        out[j] = [m.sum(), x.sum(), y.sum(), (x * x).sum(), (y * y).sum(), (x * y).sum()]
    return out


def _corr_many(al: Aligned, f: Any, pairs: list[tuple[str, str]]) -> Rounds:
    """Pearson's r of each pair of columns of ``f`` (records where both are observed), from the
    sums of every partition added."""
    if not pairs:
        return []
    total = np.sum((yield from al.per_partition_rounds(f, _sums_part, pairs)), axis=0)
    return [_corr(list(row)) for row in total]


def _counts_part(part: pd.DataFrame, spec: list[tuple[str, str, bool]]) -> np.ndarray:
    out = np.zeros(len(spec), dtype=np.int64)
    for j, (a, b, observed) in enumerate(spec):
        x = part[a].to_numpy(dtype=bool)
        y = part[b].notna().to_numpy() if observed else part[b].to_numpy(dtype=bool)
        out[j] = np.count_nonzero(x & y)
    return out


def _counts_many(al: Aligned, f: Any, spec: list[tuple[str, str, bool]]) -> Rounds:
    """For each (a, b, observed) of ``spec``: the records where the flag column ``a`` is true
    and the flag column ``b`` is true (``observed``: ``b`` is not missing), all counted in one
    task per partition."""
    if not spec:
        return []
    total = np.sum((yield from al.per_partition_rounds(f, _counts_part, spec)), axis=0)
    return [int(v) for v in total]


def _corr(s: list[Any]) -> float:
    n, sx, sy, sxx, syy, sxy = (float(v) for v in s)
    if n < 3:
        return math.nan
    vx, vy = sxx - sx * sx / n, syy - sy * sy / n
    if vx <= 0 or vy <= 0:
        return math.nan
    return (sxy - sx * sy / n) / math.sqrt(vx * vy)
