"""The dtypes of element-wise steps on Dask: the dtype the in-memory treatment gives the whole
file, in the meta and in every partition.

A pandas kernel run partition by partition can give a dtype that depends on the partition's
values: top/bottom coding an int64 column with a float (or missing) replacement gives float64
only where a value was replaced; recoding through ``Series.map`` infers the dtype of the values
it meets (``{9: 1.5}`` gives float64 where a 9 is present, int64 elsewhere; ``{9: "nine"}``
gives object). The in-memory session decides once, for the whole file. Here the whole-file
dtype is decided from the treatment's parameters and the input dtype, or from a global
statistic of a pass the step already makes (the distinct values of the scan of a recode, the
number of replaced values counted with the step's notes), and every partition is cast to it
(`cast_columns`); nothing is computed twice.

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> f = dd.from_pandas(pd.DataFrame({"x": [1, 2, 3]}), npartitions=2)
>>> g = cast_columns(f, {"x": "float64"})
>>> str(g.dtypes["x"]), str(g.partitions[0].compute().dtypes["x"])
('float64', 'float64')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..methods.basic import recode_values
from ..methods.recoding.top_bottom import TopBottomCode, top_bottom_code
from ._base import persist

__all__ = ["cast_columns", "recode_dtype", "top_bottom_dtype", "top_bottom_hits"]


def _astype(part: pd.DataFrame, dtypes: dict[str, Any]) -> pd.DataFrame:
    todo = {c: d for c, d in dtypes.items() if part[c].dtype != d}
    return part.astype(todo) if todo else part


def cast_columns(new: Any, dtypes: Mapping[str, Any]) -> Any:
    """The Dask frame ``new`` with the columns of ``dtypes`` in those dtypes, in its meta and in
    every partition (each partition is cast, whatever the meta says: a kernel's dtype can
    differ between partitions). Object columns stay object (not turned into strings by Dask).

    Missing values: kept (a cast to float64, a nullable dtype or object keeps the blanks).

    >>> import dask.dataframe as dd
    >>> f = dd.from_pandas(pd.DataFrame({"x": [1, 2, 3]}), npartitions=2)
    >>> [str(p.compute()["x"].dtype) for p in cast_columns(f, {"x": object}).to_delayed()]
    ['object', 'object']
    """
    import dask

    dtypes = dict(dtypes)
    if not dtypes:
        return new
    with dask.config.set({"dataframe.convert-string": False}):  # also when persisted
        return persist(new.map_partitions(_astype, dtypes, meta=new._meta.astype(dtypes)),
                       progress=False)


def recode_dtype(meta: pd.Series, values: pd.Index, has_missing: bool,
                 mapping: Mapping[Any, Any]) -> Any:
    """The dtype `sdcsession.methods.basic.recode_values` gives the whole column once
    ``mapping`` is applied: the kernel run on the distinct values present (``values``, from the
    scan the recode makes) and a missing value when the column has one. ``Series.map`` infers
    the dtype from the values it returns, and these are the whole column's, once each.

    ``meta``: the empty column (its dtype; a categorical's categories decide alone).

    Missing values: a missing value stays missing; it is added to the sample when the column
    has one (an int column recoded to a missing value becomes float64).

    >>> recode_dtype(pd.Series([], dtype="int64"), pd.Index([1, 9]), False, {9: 1.5})
    dtype('float64')
    >>> recode_dtype(pd.Series([], dtype="int64"), pd.Index([1, 2]), False, {9: 1.5})
    dtype('int64')
    """
    if isinstance(meta.dtype, pd.CategoricalDtype):
        return recode_values(meta, dict(mapping)).dtype
    sample = pd.Series(list(values), dtype=meta.dtype, name=meta.name)
    if has_missing:
        sample = pd.concat([sample, pd.Series([None], dtype=meta.dtype, name=meta.name)],
                           ignore_index=True)
    return recode_values(sample, dict(mapping)).dtype


def top_bottom_hits(part: pd.DataFrame, t: TopBottomCode) -> int:
    """How many values of ``part[t.column]`` top/bottom coding replaces (0 for an ordered
    categorical, whose dtype does not depend on the values).

    Missing values: never replaced (not counted).

    >>> top_bottom_hits(pd.DataFrame({"x": [1, 5, 9]}), TopBottomCode("x", 4, 4.5))
    2
    """
    s = part[t.column]
    if isinstance(s.dtype, pd.CategoricalDtype):
        return 0
    x = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    v = float(t.value)
    return int(((x > v) if t.kind == "top" else (x < v)).sum())


def top_bottom_dtype(t: TopBottomCode, meta: pd.Series, hits: int) -> Any:
    """The dtype `sdcsession.methods.recoding.top_bottom.top_bottom_code` gives the whole
    column: the input dtype when no value of the file is replaced, else the kernel's dtype for a
    replaced value (int64 with a float or missing replacement: float64; Int64: Float64; float32:
    float64), found by running the kernel on one value it replaces.

    ``meta``: the empty column (its dtype). ``hits``: the `top_bottom_hits` of the whole file.

    Missing values: a missing replacement blanks the replaced values (float64 for int64; a
    nullable column keeps its dtype).

    >>> t = TopBottomCode("x", 8, 8.5)
    >>> top_bottom_dtype(t, pd.Series([], dtype="int64"), 0), top_bottom_dtype(t, pd.Series([], dtype="int64"), 3)
    (dtype('int64'), dtype('float64'))
    """
    if isinstance(meta.dtype, pd.CategoricalDtype):
        return top_bottom_code(meta, t.value, t.replacement, kind=t.kind).dtype
    if not hits:
        return meta.dtype
    v = float(t.value)
    one = math.floor(v) + 1 if t.kind == "top" else math.ceil(v) - 1
    sample = pd.Series([one], name=meta.name).astype(meta.dtype)
    return top_bottom_code(sample, t.value, t.replacement, kind=t.kind).dtype
