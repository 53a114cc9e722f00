"""Correctly rounded sums of floating-point numbers, equal however the numbers are split.

A floating-point sum depends on the order of its additions: numpy's pairwise sum of a whole
column and a sum of per-partition partial sums (Dask) differ in the last bits. The global risk
and the expected number of re-identifications are therefore computed here *exactly* and rounded
once, so the in-memory and the distributed session give the same double.

Algorithm: every finite double is ``x = m · 2^e`` with an integer mantissa ``|m| < 2^53``
(`numpy.frexp`). The mantissas are split into a high and a low part of at most 27 and 26 bits
(the high part signed, floor-shifted; the low part non-negative) and added per exponent with ``numpy.bincount`` in blocks of at most ``2^26`` numbers, so every
partial sum is an integer below ``2^53`` and exact in float64; the per-exponent totals are then
combined as Python integers into ``N · 2^E`` (an exact `SumPartial`). Partials of separate chunks
add exactly (`combine`); `to_float` rounds once (Python's int-to-float conversion and integer
true division are correctly rounded, half to even).

Reference: the exact-summation idea of Shewchuk, J. R. (1997). Adaptive precision floating-point
arithmetic and fast robust geometric predicates. Discrete & Computational Geometry 18, 305–363
(here by integer accumulation per exponent instead of floating-point expansions).

Example
-------
>>> exact_sum([0.1] * 10) == 1.0, sum([0.1] * 10) == 1.0
(True, False)
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = ["SumPartial", "partial_sum", "combine", "to_float", "exact_sum", "exact_mean"]

#: an exact sum: ``N · 2^E`` as the pair (N, E) of Python integers
SumPartial = tuple[int, int]

_BLOCK = 1 << 22  # numbers per block (bounded temporaries; ≤ 2^26 keeps bincount exact)
_LO = 26


def partial_sum(values: np.ndarray | Iterable[float]) -> SumPartial:
    """The exact sum of ``values`` (finite doubles) as ``(N, E)``: Σ values = N · 2^E.

    Raises ValueError for NaN or infinite values (the callers validate their input first).

    >>> partial_sum([0.5, 0.25])
    (3, -2)
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    total: dict[int, int] = {}
    for start in range(0, len(x), _BLOCK):
        b = x[start:start + _BLOCK]
        if not np.isfinite(b).all():
            raise ValueError("exact sum: values must be finite")
        b = b[b != 0.0]
        if not len(b):
            continue
        m, e = np.frexp(b)
        mi = (m * 2.0**53).astype(np.int64)  # exact: |m| < 1 has at most 53 significant bits
        e = e.astype(np.int64) - 53
        e0 = int(e.min())
        idx = e - e0
        size = int(idx.max()) + 1
        # mantissa = hi·2^26 + lo with hi = mi >> 26 (floor, signed, |hi| < 2^27) and
        # 0 <= lo < 2^26: block sums of either stay below 2^49, exact in float64
        hi = np.bincount(idx, weights=(mi >> _LO).astype(np.float64), minlength=size)
        lo = np.bincount(idx, weights=(mi & ((1 << _LO) - 1)).astype(np.float64),
                         minlength=size)
        for j in np.flatnonzero((hi != 0) | (lo != 0)).tolist():
            v = (int(hi[j]) << _LO) + int(lo[j])
            total[e0 + j] = total.get(e0 + j, 0) + v
    return combine((v, ex) for ex, v in total.items())


def combine(parts: Iterable[SumPartial]) -> SumPartial:
    """The exact sum of several exact partial sums (normalised: N odd, or (0, 0)).

    >>> combine([(3, -2), (1, 0)])
    (7, -2)
    """
    parts = [(int(n), int(e)) for n, e in parts if n]
    if not parts:
        return 0, 0
    e0 = min(e for _, e in parts)
    total = sum(n << (e - e0) for n, e in parts)
    if not total:
        return 0, 0
    tz = (total & -total).bit_length() - 1  # normalise: N odd
    return total >> tz, e0 + tz


def to_float(part: SumPartial, divisor: int = 1) -> float:
    """``N · 2^E / divisor`` rounded once to the nearest double (ties to even).

    >>> to_float((7, -2)), to_float((2, 0), 3)
    (1.75, 0.6666666666666666)
    """
    n, e = part
    if divisor < 1:
        raise ValueError("exact sum: the divisor must be a positive integer")
    if e >= 0:
        return (n << e) / divisor
    return n / (divisor << -e)


def exact_sum(values: np.ndarray | Iterable[float]) -> float:
    """Σ values, correctly rounded (the same double for any order or split of the values).

    >>> exact_sum([1e16, 1.0, -1e16])
    1.0
    """
    return to_float(partial_sum(values))


def exact_mean(values: np.ndarray | Iterable[float]) -> float:
    """(1/n) Σ values, the exact mean rounded once.

    >>> exact_mean([0.5, 0.5, 1.0])
    0.6666666666666666
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    if not len(x):
        raise ValueError("exact mean: no values")
    return to_float(partial_sum(x), len(x))
