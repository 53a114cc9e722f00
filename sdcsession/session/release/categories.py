"""The categories of the released categorical columns: a category that held records in the
original data and holds none in the released data is removed from the column's dtype, on pandas
and on Dask.

A categorical column keeps its full list of categories through a treatment, and a writer keeps
that list (Parquet's dictionary and the pandas dtype in its metadata, Stata/SPSS value labels).
A category whose only records were suppressed, recoded or swapped away would stay in the
released file and say that the original data held that value, and, with one suppressed cell,
which value was suppressed. So the released dtype loses every category that the original data
used and the released data do not use; categories unused in the original too (a declared
domain) and categories a treatment added (e.g. recoded intervals) stay.

Example
-------
>>> import pandas as pd
>>> orig = pd.DataFrame({"occ": pd.Categorical(["a", "a", "rare"], categories=["a", "rare", "z"])})
>>> rel = pd.DataFrame({"occ": pd.Categorical(["a", "a", None], categories=["a", "rare", "z"])})
>>> without_vanished(rel, orig)["occ"].cat.categories.tolist()
['a', 'z']
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["vanished_categories", "without_vanished", "drop_categories"]


def _categorical_columns(released: Any, original: Any) -> list[str]:
    meta = getattr(released, "_meta", released)
    return [c for c in released.columns if c in original.columns
            and isinstance(meta[c].dtype, pd.CategoricalDtype)
            and getattr(getattr(released[c], "cat", None), "known", True)]


def vanished_categories(released: Any, original: Any) -> dict[str, list[Any]]:
    """Per categorical column of ``released``: its categories that occur in ``original`` and not
    in ``released`` (a pandas or a Dask frame each; on Dask one ``compute`` for all columns).

    Missing values: missing cells use no category.

    >>> import pandas as pd
    >>> o = pd.DataFrame({"x": pd.Categorical(["a", "b"])})
    >>> vanished_categories(pd.DataFrame({"x": pd.Categorical(["a", None], ["a", "b"])}), o)
    {'x': ['b']}
    """
    cols = _categorical_columns(released, original)
    if not cols:
        return {}
    uniques = [f[c].dropna().unique() for c in cols for f in (released, original)]
    if any(hasattr(u, "dask") for u in uniques):
        import dask

        uniques = list(dask.compute(*uniques))
    out: dict[str, list[Any]] = {}
    for i, c in enumerate(cols):
        now, before = (pd.Index(pd.Series(uniques[2 * i + j]).astype(object)) for j in (0, 1))
        cats = getattr(released, "_meta", released)[c].dtype.categories
        gone = [v for v in cats if v in before and v not in now]
        if gone:
            out[c] = gone
    return out


def drop_categories(part: pd.DataFrame, drop: dict[str, list[Any]]) -> pd.DataFrame:
    """``part`` with the categories ``drop[column]`` removed from its categorical columns (no
    cell holds them)."""
    return part.assign(**{c: part[c].cat.remove_categories(v) for c, v in drop.items()}) \
        if drop else part


def without_vanished(released: Any, original: Any) -> Any:
    """``released`` without the categories of `vanished_categories` (pandas or Dask)."""
    drop = vanished_categories(released, original)
    if not drop:
        return released
    if hasattr(released, "_meta"):
        return released.map_partitions(drop_categories, drop,
                                       meta=drop_categories(released._meta, drop))
    return drop_categories(released, drop)
