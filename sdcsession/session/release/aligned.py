"""The released and the original values of a state side by side, record by record, on pandas
and on Dask with one code path (internal to the release check).

`Aligned` builds one frame whose columns are, for every column ``c`` asked for:

| column | value |
|---|---|
| ``r:c`` | the released value (categories as their codes, missing as NaN) |
| ``o:c`` | the original value (the same encoding) |
| ``chg:c`` | the record's value was changed or blanked (missing in both counts as unchanged) |
| ``rev:c`` | the record's released value is its original, non-missing value |
| ``pos`` | the record's global position 0..n-1 |

The release check's findings are written once against the operations pandas and Dask frames
share (sums, counts, ``nunique``, ``value_counts``, ``drop_duplicates``, ``groupby``,
``merge``, ``map``) and computed with `Aligned.compute` (or in rounds,
`sdcsession.session.release.rounds`), so both engines give the same counts.
A Dask frame is glued partition by partition (partition i of the state with partition i of
the original, paired explicitly by `sdcsession.scale._pairing`: the states of a session keep
the partitions of the original) and is never persisted: every
computation over it glues each partition again, so a worker holds a few partitions at a time,
whatever the size of the data. After `Aligned.share` every frame asked for is one frame of all
the shared columns, so the counts computed in one pass glue each partition once. `Aligned.changed` counts the changed records of many columns in
one pass without building the frame.

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"a": ["x", "y", "z"]})
>>> al = Aligned(o.assign(a=["x", None, "z"]), o)
>>> f = al.frame(["a"])
>>> f["chg:a"].tolist(), f["rev:a"].tolist(), f["pos"].tolist()
([False, True, False], [True, False, True], [0, 1, 2])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .rounds import Rounds, run

__all__ = ["Aligned", "same_values", "plain"]


def same_values(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Per record: equal values (both missing counts as equal).

    Two categoricals are compared by their codes (the categories of ``b`` looked up among
    those of ``a``), two float or two integer columns as numbers; other columns value by value
    as Python objects (the same answer, slower)."""
    fast = _same_fast(a, b)
    if fast is not None:
        return fast
    av, bv = a.to_numpy(dtype=object), b.to_numpy(dtype=object)
    na_a, na_b = pd.isna(av), pd.isna(bv)
    both = ~na_a & ~na_b
    eq = na_a & na_b
    with np.errstate(invalid="ignore"):
        eq[both] = np.asarray(av[both] == bv[both], dtype=bool)
    return eq


def _same_fast(a: pd.Series, b: pd.Series) -> np.ndarray | None:
    """`same_values` without Python objects, or None when the dtypes need them."""
    da, db = a.dtype, b.dtype
    if isinstance(da, pd.CategoricalDtype) and isinstance(db, pd.CategoricalDtype):
        ca, cb = a.cat.codes.to_numpy(), b.cat.codes.to_numpy()
        cats_a, cats_b = da.categories, db.categories
        if not cats_a.equals(cats_b):
            where = cats_a.get_indexer(cats_b)
            where[where < 0] = -2  # a category of b that a does not have: equal to nothing
            cb = np.where(cb >= 0, where[np.maximum(cb, 0)], -1)
        return np.asarray(ca == cb, dtype=bool)  # -1 == -1: missing in both
    if not isinstance(da, np.dtype) or not isinstance(db, np.dtype):
        return None
    if da.kind == "f" and db.kind == "f":
        av, bv = a.to_numpy(), b.to_numpy()
        return (av == bv) | (np.isnan(av) & np.isnan(bv))
    if da.kind == db.kind and da.kind in "iub":
        return np.asarray(a.to_numpy() == b.to_numpy(), dtype=bool)
    return None


def plain(s: pd.Series) -> Any:
    """The values of ``s`` for counting and ordering: a categorical's codes (float, missing as
    NaN, ordered as its categories), unhashable cells as their text, other columns as they
    are."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        codes = s.cat.codes.to_numpy().astype(np.float64)
        codes[codes < 0] = np.nan
        return codes
    if s.dtype != object:
        return s.to_numpy()
    v = s.to_numpy(dtype=object)
    try:
        pd.unique(v)
    except TypeError:  # unhashable cells (lists, dicts): counted and compared by their text
        v = np.array([x if pd.api.types.is_scalar(x) and pd.isna(x) else str(x) for x in v],
                     dtype=object)
    return v


def _glue(rel: pd.DataFrame, org: pd.DataFrame, both: list[str], offsets: list[int] | None,
          partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    out: dict[str, Any] = {}
    for c in rel.columns:
        out["r:" + c] = plain(rel[c])
    for c in org.columns:
        out["o:" + c] = plain(org[c])
    for c in both:
        same = same_values(rel[c], org[c])
        out["chg:" + c] = ~same
        out["rev:" + c] = same & org[c].notna().to_numpy()
    start = 0
    if offsets is not None and partition_info is not None:
        start = offsets[int(partition_info["number"])]
    out["pos"] = np.arange(start, start + len(rel), dtype=np.int64)
    return pd.DataFrame(out, index=rel.index)


def _changed_part(rel: pd.DataFrame, org: pd.DataFrame, both: list[str]) -> np.ndarray:
    return np.array([int((~same_values(rel[c], org[c])).sum()) for c in both], dtype=np.int64)


def _changed_row(rel: pd.DataFrame, org: pd.DataFrame, both: list[str]) -> pd.DataFrame:
    return pd.DataFrame(_changed_part(rel, org, both)[None, :], columns=range(len(both)))


def _one(part: pd.DataFrame, fn: Any, *args: Any) -> pd.Series:
    """``fn(part, *args)`` as the one value of an object Series (any object: an array too)."""
    out = np.empty(1, dtype=object)
    out[0] = fn(part, *args)
    return pd.Series(out)


class Aligned:
    """The released data and the original of one state, aligned record by record (see the
    module docstring); ``data`` and ``original`` are two pandas or two Dask frames."""

    def __init__(self, data: Any, original: Any, lengths: list[int] | None = None) -> None:
        self.data, self.original = data, original
        self.dask = not isinstance(data, pd.DataFrame)
        self._offsets: list[int] | None = None
        #: the number of records (sizes the counts' shuffles; set by the release check)
        self.n = int(sum(lengths)) if lengths is not None else len(data) if not self.dask else 0
        self._shared: tuple[list[str], list[str], list[str]] | None = None
        self._wide: Any = None
        if lengths is not None:  # the records of every partition, when the caller has them
            self._offsets = [int(v) for v in np.concatenate([[0], np.cumsum(lengths)[:-1]])]

    @property
    def comparable(self) -> bool:
        """Whether the two frames can be aligned by position (Dask: the same partitions)."""
        return not self.dask or self.data.npartitions == self.original.npartitions

    def share(self, columns: list[str], released_only: list[str] = (),  # type: ignore[assignment]
              original_only: list[str] = ()) -> None:  # type: ignore[assignment]
        """Dask: every later `frame` asking for no more than these columns is one and the same
        aligned frame of them (built once), so the counts computed together glue each
        partition once, not once per count (pandas: nothing changes)."""
        if self.dask:
            self._shared = (list(dict.fromkeys(columns)),
                            list(dict.fromkeys([*columns, *released_only])),
                            list(dict.fromkeys([*columns, *original_only])))

    def frame(self, columns: list[str], released_only: list[str] = (),  # type: ignore[assignment]
              original_only: list[str] = ()) -> Any:  # type: ignore[assignment]
        """The aligned frame of ``columns`` (in both frames), ``released_only`` (only ``r:``)
        and ``original_only`` (only ``o:``); on Dask after `share`, the shared frame (it holds
        these columns and others)."""
        if self._shared is not None:
            both_s, rel_s, org_s = self._shared
            if set(columns) <= set(both_s) and set(released_only) <= set(rel_s) \
                    and set(original_only) <= set(org_s):
                if self._wide is None:
                    self._wide = self._frame(both_s, rel_s, org_s)
                return self._wide
        return self._frame(columns, released_only, original_only)

    def _frame(self, columns: list[str], released_only: list[str],
               original_only: list[str]) -> Any:
        both = [c for c in dict.fromkeys(columns)
                if c in self.data.columns and c in self.original.columns]
        rel = list(dict.fromkeys([*both, *[c for c in released_only if c in self.data.columns]]))
        org = list(dict.fromkeys([*both, *[c for c in original_only
                                           if c in self.original.columns]]))
        if not self.dask:
            return _glue(self.data[rel], self.original[org].set_axis(self.data.index), both, None)
        if self._offsets is None:
            from ...scale._base import partition_lengths

            lengths = partition_lengths(self.data, progress=False)
            self._offsets = [int(v) for v in np.concatenate([[0], np.cumsum(lengths)[:-1]])]
        from ...errors import MeasureError
        from ...scale._pairing import map_paired

        meta = _glue(self.data._meta[rel], self.original._meta[org], both, None)
        # partitions paired explicitly (`sdcsession.scale._pairing`): a map_partitions over two
        # frames let later column projections and reductions re-pair them, so that a count over
        # the aligned frame could compare a record with another record's original
        return map_paired(_glue, [self.data[rel], self.original[org]], both, self._offsets,
                          meta=meta, what="the release check (the state and the original)",
                          error=MeasureError, partition_info=True)

    def changed_rounds(self, columns: list[str]) -> Rounds:
        """`changed` in rounds (`sdcsession.session.release.rounds`; one round on Dask)."""
        both = [c for c in dict.fromkeys(columns)
                if c in self.data.columns and c in self.original.columns]
        if not both:
            return {}
        if not self.dask:
            return dict(zip(both, _changed_part(self.data[both], self.original[both], both)))
        from ...errors import MeasureError
        from ...scale._pairing import map_paired, paired_partitions

        what = "the release check (the state and the original)"
        pairs = paired_partitions([self.data[both], self.original[both]], what=what,
                                  error=MeasureError)
        # one row of counts per partition, a frame of its own (a Dask collection like the
        # other counts of the round, so they are optimised and computed together)
        meta = pd.DataFrame({j: pd.Series(dtype=np.int64) for j in range(len(both))})
        rows = map_paired(_changed_row, [self.data[both], self.original[both]], both,
                          meta=meta, what=what, error=MeasureError, paired=pairs,
                          divisions=(None,) * (len(pairs) + 1))
        (counts,) = yield (rows,)
        return {c: int(counts[j].sum()) for j, c in enumerate(both)}

    def changed(self, columns: list[str]) -> dict[str, int]:
        """``{column: records whose value was changed or blanked}`` (the sums of the ``chg:``
        columns of `frame`) for the ``columns`` in both frames, in one pass over the data
        (Dask: one count per partition and column, added)."""
        return run(self.changed_rounds(columns), self.compute)

    def per_partition_rounds(self, f: Any, fn: Any, *args: Any) -> Rounds:
        """`per_partition` in rounds (one round on Dask)."""
        if not self.dask:
            return [fn(f, *args)]
        (got,) = yield (f.map_partitions(_one, fn, *args, meta=pd.Series(dtype=object)),)
        return list(got)

    def per_partition(self, f: Any, fn: Any, *args: Any) -> list[Any]:
        """``fn(partition, *args)`` on every partition of the aligned frame ``f`` (pandas: the
        whole frame is the one partition), computed together."""
        return run(self.per_partition_rounds(f, fn, *args), self.compute)

    def compute(self, *objs: Any) -> tuple[Any, ...]:
        """The values of ``objs`` (pandas: as they are; Dask: computed together)."""
        if not self.dask:
            return objs
        from ...scale._base import compute

        return compute(*objs, progress=False)
