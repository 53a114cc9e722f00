"""The compiled pass of `sdcsession.risk.exact_sum.partial_sum` (internal; imports numba).

One pass over the numbers' bit patterns: the 11-bit exponent field and the 52-bit fraction of
every double are read from its IEEE 754 binary64 encoding, the integer mantissa (with its hidden
bit, signed) is split into a high part (floor-shifted, |hi| < 2^27) and a low part (26 bits,
non-negative), and both are added into int64 accumulators indexed by the exponent field, in
four interleaved lanes. A summand is below 2^27 in magnitude, so an accumulator stays exact for
2^36 numbers, far beyond any file. The caller combines the accumulators as Python integers.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit

__all__ = ["accumulate", "LANES"]

_LO_BITS = 26
_LO_MASK = (1 << _LO_BITS) - 1
_FRACTION = (1 << 52) - 1
_HIDDEN = 1 << 52


#: accumulator lanes: record i adds into lane i % LANES, so consecutive records with the same
#: exponent do not wait for each other's memory update
LANES = 4


@jit(nogil=True)
def accumulate(bits: np.ndarray, hi: np.ndarray, lo: np.ndarray,
               skip_nan: bool) -> int:  # pragma: no cover
    """Add the doubles whose bit patterns are ``bits`` (int64, any stride) into ``hi``/``lo``
    (int64, LANES × 2048: slot e holds the signed mantissas of exponent field e, subnormals in
    slot 1; mantissa = hi · 2^26 + lo with the high part floor-shifted and the low part
    non-negative); NaNs are left out with ``skip_nan``. Returns -1, or the position of the first
    infinity (or NaN without ``skip_nan``); then the sums are incomplete."""
    for i in range(bits.shape[0]):
        b = bits[i]
        e = (b >> 52) & 0x7FF
        m = b & _FRACTION
        if e == 0x7FF:
            if skip_nan and m != 0:
                continue
            return i
        if e == 0:
            e = 1  # subnormal: m · 2^(1 - 1075)
        else:
            m = m | _HIDDEN
        sign = b >> 63  # 0 or -1
        signed = (m ^ sign) - sign
        lane = i % LANES
        hi[lane, e] += signed >> _LO_BITS
        lo[lane, e] += signed & _LO_MASK
    return -1
