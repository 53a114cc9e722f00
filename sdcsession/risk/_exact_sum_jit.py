"""The compiled pass of `sdcsession.risk.exact_sum.partial_sum` (internal; imports numba).

One pass over the numbers' bit patterns: the 11-bit exponent field and the 52-bit fraction of
every double are read from its IEEE 754 binary64 encoding, the integer mantissa (with its hidden
bit) is split into a high part (27 bits) and a low part (26 bits), and both are added, signed, into
int64 accumulators indexed by the exponent field. A summand is below 2^27, so an accumulator
stays exact for 2^36 numbers, far beyond any file. The caller combines the 2,046 accumulators
as Python integers.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit

__all__ = ["accumulate"]

_LO_BITS = 26
_LO_MASK = (1 << _LO_BITS) - 1
_FRACTION = (1 << 52) - 1
_HIDDEN = 1 << 52


@jit(nogil=True)
def accumulate(bits: np.ndarray, hi: np.ndarray, lo: np.ndarray,
               skip_nan: bool) -> int:  # pragma: no cover
    """Add the doubles whose bit patterns are ``bits`` (int64, any stride) into ``hi``/``lo``
    (int64, 2048 slots: slot e holds the mantissas of exponent field e, subnormals in slot 1);
    NaNs are left out with ``skip_nan``. Returns -1, or the position of the first infinity (or
    NaN without ``skip_nan``); then the sums are incomplete."""
    for i in range(bits.shape[0]):
        b = bits[i]
        e = (b >> 52) & 0x7FF
        m = b & _FRACTION
        if e == 0x7FF:
            if skip_nan and m != 0:
                continue
            return i
        if e == 0:
            if m == 0:
                continue
            e = 1  # subnormal: m · 2^(1 - 1075)
        else:
            m = m | _HIDDEN
        if b < 0:
            hi[e] -= m >> _LO_BITS
            lo[e] -= m & _LO_MASK
        else:
            hi[e] += m >> _LO_BITS
            lo[e] += m & _LO_MASK
    return -1
