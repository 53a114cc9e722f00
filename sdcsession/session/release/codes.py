"""The release check's counts on one pandas frame from integer codes (internal).

`sdcsession.session.release.structure` writes each finding once against the operations pandas
and Dask frames share; on pandas, the counts that would need a ``groupby`` or a
``drop_duplicates`` per pair of columns are taken here from the columns' integer codes
(`pandas.factorize`, each column once), in O(n) per pair when the table of the pairs is small.
They equal the frame path's counts (tests/session/test_release_fast.py).

Example
-------
>>> import numpy as np
>>> max_distinct(np.array([0, 0, 1, -1]), 2, np.array([0, 1, 1, 0]), 2)
2.0
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["max_distinct", "FrameCodes", "determines_codes", "household_leaks"]


def max_distinct(x: np.ndarray, nx: int, y: np.ndarray, ny: int) -> float:
    """The largest number of distinct ``y`` codes sharing one ``x`` code.

    ``x`` and ``y`` are integer codes (``x`` in 0..nx-1, ``y`` in 0..ny-1). Missing values: a
    record whose ``x`` is negative (missing) is left out; a negative ``y`` (missing) is one value
    of its own. NaN when no record has an ``x``. Algorithm: each (x, y) pair gets the number
    x·(ny+1)+y; a table of the pairs seen (when it holds at most max(32n, 65,536) cells, O(n)),
    else the sorted distinct pair numbers, counted per x.

    >>> max_distinct(np.array([0, 0, 0]), 1, np.array([1, -1, 1]), 2)
    2.0
    """
    ok = x >= 0
    if not ok.any():
        return math.nan
    yy = y[ok]
    pair = x[ok].astype(np.int64) * (ny + 1) + np.where(yy < 0, ny, yy)
    if nx * (ny + 1) <= max(32 * len(x), 1 << 16):
        seen = np.zeros(nx * (ny + 1), dtype=bool)
        seen[pair] = True
        return float(seen.reshape(nx, ny + 1).sum(axis=1).max())
    u = np.unique(pair)
    return float(np.bincount(u // (ny + 1)).max())


class FrameCodes:
    """The integer codes of the columns of one pandas frame, each column factorised once
    (`pandas.factorize`: missing values get -1). Unhashable cells raise TypeError (the caller's
    frame path handles them).

    >>> c = FrameCodes(pd.DataFrame({"a": [1, 1, 2, None], "b": ["x", "y", "y", "y"]}))
    >>> c.distinct("a"), c.determines([("a", "b"), ("b", "a")])
    ((3, 2), [2.0, 3.0])
    """

    def __init__(self, f: pd.DataFrame) -> None:
        self.f = f
        self._codes: dict[str, tuple[np.ndarray, int]] = {}

    def code(self, c: str) -> tuple[np.ndarray, int]:
        """(the codes of column ``c``, its number of distinct non-missing values)."""
        if c not in self._codes:
            cc, uniq = pd.factorize(self.f[c])
            self._codes[c] = (cc.astype(np.int64), len(uniq))
        return self._codes[c]

    def distinct(self, c: str) -> tuple[int, int]:
        """(observed values, distinct observed values) of column ``c``."""
        cc, n = self.code(c)
        return int(np.count_nonzero(cc >= 0)), n

    def determines(self, pairs: list[tuple[str, str]]) -> list[float]:
        """For each (x, y) of ``pairs``: the largest number of distinct ``y`` values sharing
        one non-missing ``x`` value (1 = ``x`` determines ``y``; a missing ``y`` is a value of
        its own; NaN when ``x`` is all missing); see `max_distinct`."""
        return [max_distinct(*self.code(x), *self.code(y)) for x, y in pairs]


def determines_codes(f: pd.DataFrame, pairs: list[tuple[str, str]]) -> list[float]:
    """`FrameCodes.determines` on the frame ``f``.

    Missing values: a missing ``y`` is one value of its own, records with ``x`` missing are left
    out (NaN when ``x`` is all missing).

    >>> f = pd.DataFrame({"a": [1, 1, 2], "b": ["x", "y", "y"]})
    >>> determines_codes(f, [("a", "b"), ("b", "a")])
    [2.0, 2.0]
    """
    return FrameCodes(f).determines(pairs)


def household_leaks(f: pd.DataFrame, h: str, treated: list[str]
                    ) -> list[tuple[str, bool, bool, int]]:
    """The ``household_structure`` counts of the aligned pandas frame ``f`` (household id in
    column ``h``): for each treated key ``k`` whose original has at least two values, (k, its
    original is a function of the household size, it is constant within households, the
    treated records that get it back).

    A record gets its original value back by the household size when ``k`` is a function of
    it and the record has a household and an original value; from the other members when ``k``
    is constant within households and another member of its household still shows it (both
    ways count once). Missing values: records without a household id have no size and no
    housemates; a missing original value of ``k`` is a value of its own for the size
    dependency and is left out within households.

    >>> f = pd.DataFrame({"h": [1, 1, 2], "o:k": [0.0, 0.0, 1.0],
    ...                   "chg:k": [True, False, False], "rev:k": [False, True, True]})
    >>> household_leaks(f, "h", ["k"])
    [('k', True, True, 1)]
    """
    hc, uh = pd.factorize(f[h])
    hc = hc.astype(np.int64)
    has = hc >= 0
    at = np.maximum(hc, 0)
    size = np.bincount(hc[has], minlength=len(uh))
    n_hh = np.where(has, size[at], -1)
    nx = int(size.max()) + 1 if len(size) else 1
    out = []
    for k in treated:
        oc, uo = pd.factorize(f["o:" + k])
        oc = oc.astype(np.int64)
        if len(uo) < 2:
            continue
        o_ok = oc >= 0
        by_size = max_distinct(n_hh, nx, oc, len(uo)) <= 1
        within = max_distinct(np.where(o_ok, hc, -1), len(uh), oc, len(uo)) <= 1
        if not (by_size or within):
            continue
        chg = f["chg:" + k].to_numpy(dtype=bool)
        hit = chg & has & o_ok if by_size else np.zeros(len(f), dtype=bool)
        if within:
            rev = f["rev:" + k].to_numpy(dtype=bool)
            shown = np.bincount(hc[has], weights=rev[has], minlength=len(uh)) > 0
            hit |= chg & has & shown[at]
        out.append((k, bool(by_size), bool(within), int(np.count_nonzero(hit))))
    return out
