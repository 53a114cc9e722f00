"""Result cache of the global data utility (GDU) model across calls: the statistical tests of a
pair of variables (and the univariate test and normality test of a variable) depend only on the
codes and values of the sides they compare, so they are stored under a content fingerprint of
those sides. The original's tests are then computed once per original file, and a variable the
masking left unchanged reuses them on the masked side: comparing scenarios of one session
computes only the pairs that touch a changed variable. Used by `sdcsession.utility.gdu.model`.

Missing values: part of the fingerprint (the bytes of the codes, -1, and of the values, NaN).

>>> import numpy as np
>>> from sdcsession.utility.gdu._variables import _Side
>>> fp = Fingerprints()
>>> a = _Side(np.array([0, 1]), np.array([0.0, np.nan]))
>>> b = _Side(np.array([0, 1]), np.array([0.0, np.nan]))
>>> fp(a) == fp(b), fp(a) == fp(_Side(np.array([1, 0]), np.array([0.0, np.nan])))
(True, False)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, MutableMapping
from typing import Any

import numpy as np

#: Entries kept in one cache before it is emptied (the entries are small: test results).
MAX_ENTRIES = 200_000


def digest(*arrays: np.ndarray) -> bytes:
    """128-bit BLAKE2b digest of the dtypes, shapes and bytes of ``arrays``.

    >>> digest(np.zeros(2)) == digest(np.zeros(2)), digest(np.zeros(2)) == digest(np.zeros(3))
    (True, False)
    """
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.view(np.uint8).ravel() if a.size else b"")
    return h.digest()


class Fingerprints:
    """Digests of the sides of one call, memoised by object identity (the sides live for the
    call, so their identities are not reused)."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[Any, bytes]] = {}

    def __call__(self, side: Any) -> bytes:
        hit = self._by_id.get(id(side))
        if hit is None:
            hit = (side, digest(side.codes, side.values))  # keeps the side alive
            self._by_id[id(side)] = hit
        return hit[1]


def cached(cache: MutableMapping | None, key: tuple, fn: Callable[[], Any]) -> Any:
    """``cache[key]``, computed by ``fn()`` on a miss (no cache: ``fn()``).

    >>> c = {}
    >>> cached(c, ("x",), lambda: 1), cached(c, ("x",), lambda: 2)
    (1, 1)
    """
    if cache is None:
        return fn()
    try:
        return cache[key]
    except KeyError:
        pass
    value = fn()
    if len(cache) >= MAX_ENTRIES:
        cache.clear()
    cache[key] = value
    return value
