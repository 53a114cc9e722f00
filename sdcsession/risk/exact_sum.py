"""Correctly rounded sums of floating-point numbers, equal however the numbers are split.

A floating-point sum depends on the order of its additions: numpy's pairwise sum of a whole
column and a sum of per-partition partial sums (Dask) differ in the last bits. The global risk
and the expected number of re-identifications are therefore computed here *exactly* and rounded
once, so the in-memory and the distributed session give the same double.

Algorithm: every finite double is ``x = m · 2^e`` with an integer mantissa ``|m| < 2^53``
(read from its IEEE 754 encoding). The mantissas are split into a high and a low part of at most
27 and 26 bits and added, signed, per binary exponent into int64 accumulators in one compiled
pass, exact for up to 2^36 numbers; the per-exponent totals are then combined as Python
integers into ``N · 2^E`` (an exact `SumPartial`). Partials of separate chunks
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

from ..errors import MeasureError

__all__ = ["SumPartial", "partial_sum", "combine", "to_float", "exact_sum", "exact_mean"]

#: an exact sum: ``N · 2^E`` as the pair (N, E) of Python integers
SumPartial = tuple[int, int]

_LO = 26


def partial_sum(values: np.ndarray | Iterable[float], *, skip_nan: bool = False) -> SumPartial:
    """The exact sum of ``values`` (finite doubles) as ``(N, E)``: Σ values = N · 2^E.

    One compiled pass (`sdcsession.risk._exact_sum_jit`) adds the integer mantissas per binary
    exponent into int64 accumulators; the accumulators are then combined as Python integers.
    A strided column of a 2-D array is read in place. Missing values: NaN raises ValueError
    unless ``skip_nan=True`` (then NaNs are left out); an infinity always raises ValueError (the
    callers validate their input first).

    >>> partial_sum([0.5, 0.25])
    (3, -2)
    >>> partial_sum(np.array([0.5, np.nan]), skip_nan=True)
    (1, -1)
    """
    from ._exact_sum_jit import LANES, accumulate

    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1:
        x = x.ravel()
    hi = np.zeros((LANES, 2048), dtype=np.int64)
    lo = np.zeros((LANES, 2048), dtype=np.int64)
    if accumulate(x.view(np.int64), hi, lo, bool(skip_nan)) >= 0:
        raise MeasureError(
            "exact sum: values must be finite: a value, or a square or product of values, is "
            "infinite or beyond the largest double (about 1.8e308); rescale the variable")
    used = np.flatnonzero(((hi != 0) | (lo != 0)).any(axis=0))
    if not len(used):
        return 0, 0
    e0 = int(used[0])
    total = sum(((sum(int(v) for v in hi[:, j]) << _LO) + sum(int(v) for v in lo[:, j]))
                << (int(j) - e0) for j in used.tolist())
    return combine([(total, e0 - 1075)])  # exponent field e: value m · 2^(e - 1075)


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
