"""The counts of the release check's structure findings on pandas and on Dask, in rounds
(internal to `sdcsession.session.release.structure`; see `sdcsession.session.release.rounds`).

- ``_distinct_many``: observed and distinct observed values per column;
- ``_determines_many``: the most distinct ``y`` values sharing one ``x`` value, per pair;
- ``_corr_many``: Pearson's r per pair of columns, from the sums of every partition
  (``_sums_many``: those sums);
- ``_eta_many``: the correlation ratio eta² of a column given another (`_eta`), from the sums
  per group of the second column's values;
- ``_counts_many``: records where two flag columns are both true, per pair, one task per
  partition.

On pandas the counts that would need a ``groupby`` or a ``drop_duplicates`` per pair come from
the columns' integer codes (`sdcsession.session.release.codes`); on Dask from the hash-shuffle
reductions of `sdcsession.session.release.reductions`, with one output partition per
`sdcsession.session.release.reductions.RECORDS_PER_OUTPUT` records.

Missing values: as each function says (a missing ``y`` is a value of its own; records with
``x`` missing are left out; correlations and correlation ratios over the records where both
are observed).

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
from .reductions import determines_rounds, distinct_rounds, group_sums_rounds, out_partitions
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


def _sums_many(al: Aligned, f: Any, pairs: list[tuple[str, str]]) -> Rounds:
    """For each pair (x, y) of columns of ``f``: [n, Σx, Σy, Σx², Σy², Σxy] over the records
    where both are observed, the sums of every partition added."""
    if not pairs:
        return []
    total = np.sum((yield from al.per_partition_rounds(f, _sums_part, pairs)), axis=0)
    return [list(row) for row in total]


def _corr_many(al: Aligned, f: Any, pairs: list[tuple[str, str]]) -> Rounds:
    """Pearson's r of each pair of columns of ``f`` (records where both are observed), from the
    sums of every partition added."""
    return [_corr(row) for row in (yield from _sums_many(al, f, pairs))]


def _group_sums_codes(codes: FrameCodes, d: str, v: str, centre: float) -> list[float]:
    """`sdcsession.session.release.reductions.group_sums` of one pair from the integer codes of
    ``d`` (pandas)."""
    cd, nd = codes.code(d)
    x = pd.to_numeric(codes.f[v], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    m = (cd >= 0) & ~np.isnan(x)
    if not m.any():
        return [0.0, 0.0, 0.0, 0.0, math.inf, -math.inf]
    g, xc = cd[m], x[m] - centre
    n_g = np.bincount(g, minlength=nd).astype(np.float64)
    s_g = np.bincount(g, weights=xc, minlength=nd)
    ok = n_g > 0
    return [float(m.sum()), float(xc.sum()), float((xc * xc).sum()),
            float((s_g[ok] ** 2 / n_g[ok]).sum()), float(x[m].min()), float(x[m].max())]


def _eta_many(al: Aligned, f: Any, pairs: list[tuple[str, str]], centres: list[float],
              codes: FrameCodes | None = None) -> Rounds:
    """For each (d, v) of ``pairs``: the correlation ratio eta² of ``v`` given ``d`` (`_eta`)
    over the records where both are observed; ``centres``: v's mean there, or any value near
    it (it keeps the sums of squares accurate). Dask: the sums per d value of every pair in one
    pass (`sdcsession.session.release.reductions.group_sums`); pandas: from d's integer
    ``codes``."""
    if not pairs:
        return []
    if al.dask:
        sums = yield from group_sums_rounds(f, pairs, centres, out_partitions(al.n, f.npartitions))
    else:
        codes = codes or FrameCodes(f)
        sums = [_group_sums_codes(codes, d, v, float(c)) for (d, v), c in zip(pairs, centres)]
    return [_eta(row) for row in sums]


def _eta(sums: list[float]) -> float:
    """Pearson's correlation ratio eta² of v given the groups g of d, from the
    `sdcsession.session.release.reductions.GROUP_SUMS` of x = v - c (any centre c):

        eta² = Σ_g n_g (mean_g - mean)² / Σ_i (v_i - mean)²
             = (Σ_g S_g² / n_g - S² / n) / (Σ x² - S² / n)

    with S_g the sum of x in group g and S the sum of x: the share of v's variance that d's
    groups explain, 1 when v is a function of d, at least r² for Pearson's r of v and any
    numeric coding of the groups (Kendall & Stuart, The Advanced Theory of Statistics, vol. 2,
    the correlation ratio). NaN with fewer than two records or a constant v (no variance to
    explain).

    Missing values: none here (the sums are over the records where both are observed).

    >>> _eta([6, 0.0, 80.0, 79.0, 1.0, 10.0])  # v = 1, 2, 3, 4, 10, 10 in groups of two
    0.9875
    """
    n, s, ss, between, lo, hi = (float(v) for v in sums)
    if n < 2 or not lo < hi:
        return math.nan
    total = ss - s * s / n
    if total <= 0:
        return math.nan
    return min(max((between - s * s / n) / total, 0.0), 1.0)


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
