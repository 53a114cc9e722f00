"""Global integer codes of key variables over the partitions of a Dask frame.

Every partition reports the distinct non-missing values of each key in order of appearance (or
its categories, for a categorical key) and the missing-value patterns it holds; the global
categories are those values in order of first appearance in the file (partition order, then
record order), which is exactly the order ``pandas.factorize`` gives on the whole column, so the
codes equal the in-memory codes. A categorical key keeps its categories' codes, as in memory; if
its partitions disagree on the categories a `RoleError` says how to fix the frame.

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> ddf = dd.from_pandas(pd.DataFrame({"a": ["y", "x", None, "y"]}), npartitions=2)
>>> plan = scan(ddf, ["a"], progress=False)
>>> list(plan.categories[0]), plan.cards, plan.patterns
(['y', 'x'], [2], [0, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError
from ..risk._codes import _unhashable
from ._base import compute, delayed_partitions, mismatched_categories

__all__ = ["KeyPlan", "scan", "encode_part", "pattern_bits", "known_categories"]


@attrs.frozen(eq=False)
class KeyPlan:
    """Global encoding of key variables: categories and cardinality per key, present missing
    patterns (sorted bit masks), records per partition."""

    keys: tuple[str, ...]
    categories: tuple[pd.Index, ...]
    categorical: tuple[bool, ...]
    cards: list[int]
    patterns: list[int]
    lengths: list[int]

    @property
    def n(self) -> int:
        """Number of records."""
        return int(sum(self.lengths))

    @property
    def has_missing(self) -> bool:
        """Whether any key value is missing."""
        return any(p != 0 for p in self.patterns)


def pattern_bits(part: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """Bit mask of the missing keys of every record (bit j = key j missing)."""
    if len(keys) > 62:
        raise MeasureError(f"keys: at most 62 key variables are supported, got {len(keys)}")
    bits = np.zeros(len(part), dtype=np.int64)
    for j, k in enumerate(keys):
        miss = part[k].isna().to_numpy(dtype=bool)
        if miss.any():
            bits[miss] |= np.int64(1) << j
    return bits


def _scan_part(part: pd.DataFrame, keys: tuple[str, ...], what: str) -> tuple[list[Any], np.ndarray, int]:
    found: list[Any] = []
    for k in keys:
        s = part[k]
        if isinstance(s.dtype, pd.CategoricalDtype):
            found.append(("cat", pd.Index(s.cat.categories)))
        else:
            try:
                found.append(("val", pd.unique(s.dropna())))
            except TypeError:
                raise _unhashable(s, what) from None
    return found, np.unique(pattern_bits(part, keys)), len(part)


def scan(ddf: Any, keys: Sequence[str], *, what: str = "keys",
         progress: bool | None = None) -> KeyPlan:
    """One pass over ``ddf``: the global `KeyPlan` of ``keys`` (see the module docstring)."""
    import dask

    keys = tuple(keys)
    parts = delayed_partitions(ddf, keys)
    results = compute(*[dask.delayed(_scan_part)(p, keys, what) for p in parts], progress=progress)
    cats: list[pd.Index] = []
    is_cat: list[bool] = []
    for j, k in enumerate(keys):
        # an empty partition (an empty file) holds no categories of its own: pandas reads the
        # dataset with the others' categories
        per = [r[0][j] for r in results if r[2]] or [r[0][j] for r in results]
        if any(kind == "cat" for kind, _ in per):
            found = [v for kind, v in per if kind == "cat"]
            if any(not f.equals(found[0]) for f in found[1:]) or len(found) != len(per):
                raise mismatched_categories(k, found, what)
            cats.append(found[0])
            is_cat.append(True)
        else:
            vals = [v for _, v in per if len(v)]
            if vals:
                allv = pd.concat([pd.Series(v) for v in vals], ignore_index=True) \
                    if len(vals) > 1 else pd.Series(vals[0])
                cats.append(pd.Index(pd.unique(allv)))
            else:
                cats.append(pd.Index([]))
            is_cat.append(False)
    pats = sorted({int(b) for r in results for b in r[1]})
    return KeyPlan(keys=keys, categories=tuple(cats), categorical=tuple(is_cat),
                   cards=[max(len(c), 1) for c in cats], patterns=pats,
                   lengths=[int(r[2]) for r in results])


def _as_dtype(part: pd.DataFrame, dtypes: dict[str, pd.CategoricalDtype]) -> pd.DataFrame:
    return part.astype(dtypes)


def known_categories(ddf: Any, columns: Sequence[str], *, progress: bool | None = None) -> Any:
    """``ddf`` with the categories of its categorical ``columns`` known to Dask.

    A frame read from Parquet has categorical columns whose categories Dask does not know (each
    partition carries its own). One pass reads the categories of every categorical column: when
    every partition has the same categories they are declared on the frame and given to every
    partition (an empty partition, read from an empty file, has none of its own); when they
    differ a `RoleError` names the column and says how to make them agree.
    """
    cat = [c for c in columns if isinstance(ddf._meta[c].dtype, pd.CategoricalDtype)]
    if not cat:
        return ddf
    plan = scan(ddf, cat, what="data", progress=progress)  # every partition's categories agree
    for j, c in enumerate(cat):
        if ddf[c].cat.known and not plan.categories[j].equals(ddf._meta[c].cat.categories):
            raise mismatched_categories(c, [ddf._meta[c].cat.categories,
                                            plan.categories[j]], "data")
    dtypes = {c: pd.CategoricalDtype(plan.categories[j], ordered=bool(ddf._meta[c].cat.ordered))
              for j, c in enumerate(cat)}
    return ddf.map_partitions(_as_dtype, dtypes, meta=ddf._meta.astype(dtypes))


def encode_part(part: pd.DataFrame, plan: KeyPlan) -> np.ndarray:
    """Codes ``(n, p)`` (``-1`` = missing) of one partition's keys in the plan's global coding."""
    codes = np.empty((len(part), len(plan.keys)), dtype=np.int32, order="F")
    for j, k in enumerate(plan.keys):
        s = part[k]
        if plan.categorical[j]:
            if not s.cat.categories.equals(plan.categories[j]):
                raise mismatched_categories(k, [plan.categories[j], s.cat.categories])
            codes[:, j] = s.cat.codes.to_numpy()
        else:
            codes[:, j] = plan.categories[j].get_indexer(s)
            codes[s.isna().to_numpy(dtype=bool), j] = -1
    return codes
