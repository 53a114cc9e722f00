"""Caches shared by every state of a session tree, kept per original file and dropped with it.

- `gdu_cache`: the GDU test cache (`sdcsession.utility.gdu.model.gdu` ``cache=``), so the
  original's tests run once per tree;
- `unchanged` and `on_unchanged`: a measure of a state whose columns are those of the original
  (same values, dtype and index) equals the measure of the original against itself, computed once
  per tree (e.g. IL1s, eigen and γ of a scenario that recoded keys only: every value the kernel
  would compute again is the same);
- `by_column`: a measure defined column by column (e.g. Młodak's λ_j): the unchanged columns'
  values come from the original against itself (once per tree), only the changed ones are
  computed.

Missing values: `unchanged` compares with `pandas.Series.equals` (missing values in the same
places are equal).

>>> import pandas as pd
>>> o = pd.DataFrame({"x": [1.0, None]})
>>> unchanged(o, o.copy(), ["x"]), unchanged(o, o.assign(x=[1.0, 2.0]), ["x"])
(True, False)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from ..utility._align import shares_values

_PER_ORIGINAL: dict[int, dict[str, dict]] = {}


def slot(original: Any, name: str) -> dict:
    """The cache ``name`` of ``original``: a dict kept while ``original`` lives (one per tree).

    >>> o = pd.DataFrame({"x": [1.0]})
    >>> slot(o, "demo") is slot(o, "demo")
    True
    """
    key = id(original)
    slots = _PER_ORIGINAL.get(key)
    if slots is None:
        slots = _PER_ORIGINAL[key] = {}
        weakref.finalize(original, _PER_ORIGINAL.pop, key, None)
    return slots.setdefault(name, {})


def gdu_cache(original: Any) -> dict:
    """The GDU test cache of ``original`` (one per session tree)."""
    return slot(original, "gdu")


def columns_equal(a: pd.Series, b: pd.Series) -> bool:
    """``a.equals(b)`` for two columns of frames with equal indexes; two columns of the same
    dtype reading the same memory (a column a treatment left alone: frames share their
    unchanged columns) are equal without a pass over the values. Missing values: equal when
    missing in the same places.

    >>> o = pd.DataFrame({"x": [1.0, None]})
    >>> columns_equal(o["x"], o.assign(y=1)["x"]), columns_equal(o["x"], o["x"] + 1)
    (True, False)
    """
    return shares_values(a, b) or a.equals(b)


def unchanged(original: pd.DataFrame, data: pd.DataFrame, cols: Sequence[str]) -> bool:
    """Whether ``data`` holds the original's ``cols`` unchanged (values, dtypes, index)."""
    if data is original:
        return True
    if len(data) != len(original) or not data.index.equals(original.index):
        return False
    return all(c in data.columns and c in original.columns and columns_equal(data[c], original[c])
               for c in cols)


def on_unchanged(original: pd.DataFrame, data: pd.DataFrame, cols: Sequence[str], key: tuple,
                 fn: Callable[[pd.DataFrame, pd.DataFrame], Any]) -> Any:
    """``fn(original, data)``; when ``data`` holds ``cols`` unchanged, ``fn(original, original)``
    computed once per original under ``key`` (an error is raised again, never stored)."""
    if not unchanged(original, data, cols):
        return fn(original, data)
    memo = slot(original, "unchanged")
    if key not in memo:
        memo[key] = fn(original, original)
    return memo[key]


def by_column(original: pd.DataFrame, data: pd.DataFrame, cols: Sequence[str],
              key: Callable[[str], tuple],
              fn: Callable[[pd.DataFrame, pd.DataFrame, list[str]], dict]) -> dict:
    """``{column: value}`` over ``cols`` (in that order) of a measure computed column by column:
    ``fn(original, data, columns)`` gives the values of ``columns``. A column of ``data`` equal
    to the original's takes ``fn(original, original, [column])``, computed once per original
    under ``key(column)``; ``fn`` runs on the changed columns only.

    >>> o = pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 4.0]})
    >>> by_column(o, o.assign(y=[3.0, 5.0]), ["x", "y"], lambda c: ("diff", c),
    ...           lambda o, d, cs: {c: float((o[c] != d[c]).sum()) for c in cs})
    {'x': 0.0, 'y': 1.0}
    """
    same = [c for c in cols if unchanged(original, data, [c])]
    memo = slot(original, "unchanged")
    todo = [c for c in same if key(c) not in memo]
    if todo:  # one call for every unchanged column not computed yet
        memo.update({key(c): v for c, v in fn(original, original, todo).items()})
    out = {c: memo[key(c)] for c in same}
    changed = [c for c in cols if c not in out]
    if changed:
        out.update(fn(original, data, changed))
    return {c: out[c] for c in cols}
