"""Uniform random numbers of numpy's PCG64 in compiled code (internal; numba, imported by
`sdcsession.risk.robust._fastmcd_stages` inside its functions).

``random_into(rng, out)`` fills ``out`` with exactly the numbers ``rng.random(out=out)`` would
give and leaves ``rng`` in the same state afterwards, for numpy's default bit generator PCG64
(any other bit generator: numpy draws them). numpy calls its bit generator through a function
pointer for every number; the compiled loop here advances the generator inline, in four
interleaved chains that each jump four steps (s ← s · M⁴ + inc · (1 + M + M² + M³)), so the
latency of the 128-bit recurrence overlaps (a FastMCD search at 10,000 records draws 150,000
keys).

PCG64 (O'Neill 2014, the XSL-RR output of a 128-bit linear congruential generator, as numpy
implements it): the 128-bit state s is advanced first, s ← s · M + inc (mod 2¹²⁸), then the
output is the 64-bit value (high ⊕ low) rotated right by the top 6 bits of s; a double is
(output >> 11) · 2⁻⁵³. The 128-bit product is formed from 32-bit halves in 64-bit integers.

Reference: O'Neill, M. E. (2014) PCG: A family of simple fast space-efficient statistically good
algorithms for random number generation, Harvey Mudd College, HMC-CS-2014-0905.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit

__all__ = ["random_into"]

_njit = jit(nogil=True)

_M_HI = np.uint64(2549297995355413924)  # PCG's default 128-bit multiplier, high and low half
_M_LO = np.uint64(4865540595714422341)
_MASK32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_S58 = np.uint64(58)
_S63 = np.uint64(63)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_TO_DOUBLE = 1.0 / 9007199254740992.0
_BITS64 = (1 << 64) - 1


@_njit
def _mulhi(a, b):
    """The high 64 bits of the 128-bit product of a and b."""
    a0 = a & _MASK32
    a1 = a >> _S32
    b0 = b & _MASK32
    b1 = b >> _S32
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    mid = (p00 >> _S32) + (p01 & _MASK32) + (p10 & _MASK32)
    return a1 * b1 + (p01 >> _S32) + (p10 >> _S32) + (mid >> _S32)


@_njit
def _step(sh, sl, mh, ml, ih, il):
    """s · m + i (mod 2¹²⁸) for 128-bit values given as (high, low) uint64 halves."""
    lo = sl * ml
    hi = _mulhi(sl, ml) + sl * mh + sh * ml
    low = lo + il
    return hi + ih + (_ONE if low < lo else _ZERO), low


@_njit
def _double(sh, sl):
    """PCG64's XSL-RR output of the state (sh, sl) as a double in [0, 1)."""
    v = sh ^ sl
    rot = sh >> _S58
    v = (v >> rot) | (v << ((_ZERO - rot) & _S63))
    return np.float64(v >> _S11) * _TO_DOUBLE


@_njit
def _fill(state, jump, out):
    """``out`` filled with PCG64's doubles from ``state`` = [state high, state low, inc high,
    inc low] (uint64), advanced in place. ``jump`` = [M⁴ high, low, inc·(1 + M + M² + M³) high,
    low]: four interleaved chains, each advancing four steps at once (the recurrence's latency
    overlaps), give the numbers in their order."""
    sh, sl, ih, il = state[0], state[1], state[2], state[3]
    n = out.shape[0]
    i = 0
    if n >= 8:
        ah, al, bh, bl = jump[0], jump[1], jump[2], jump[3]
        h0, l0 = _step(sh, sl, _M_HI, _M_LO, ih, il)
        h1, l1 = _step(h0, l0, _M_HI, _M_LO, ih, il)
        h2, l2 = _step(h1, l1, _M_HI, _M_LO, ih, il)
        h3, l3 = _step(h2, l2, _M_HI, _M_LO, ih, il)
        while True:
            out[i] = _double(h0, l0)
            out[i + 1] = _double(h1, l1)
            out[i + 2] = _double(h2, l2)
            out[i + 3] = _double(h3, l3)
            i += 4
            if i + 4 > n:
                break
            h0, l0 = _step(h0, l0, ah, al, bh, bl)
            h1, l1 = _step(h1, l1, ah, al, bh, bl)
            h2, l2 = _step(h2, l2, ah, al, bh, bl)
            h3, l3 = _step(h3, l3, ah, al, bh, bl)
        sh, sl = h3, l3
    while i < n:
        sh, sl = _step(sh, sl, _M_HI, _M_LO, ih, il)
        out[i] = _double(sh, sl)
        i += 1
    state[0] = sh
    state[1] = sl


def random_into(rng: np.random.Generator, out: np.ndarray) -> np.ndarray:
    """``rng.random(out=out)`` (the same numbers and the same state of rng afterwards), compiled
    for PCG64 (module docstring). ``out``: a contiguous float64 array.

    Example
    -------
    >>> a = random_into(np.random.default_rng(5), np.empty(4))
    >>> a.tolist() == np.random.default_rng(5).random(4).tolist()
    True
    """
    bits = rng.bit_generator
    if type(bits) is not np.random.PCG64 or not out.flags.c_contiguous or len(out) == 0:
        return rng.random(out=out)
    st = bits.state
    s, inc = st["state"]["state"], st["state"]["inc"]
    state = np.array([s >> 64, s & _BITS64, inc >> 64, inc & _BITS64], dtype=np.uint64)
    mult = (int(_M_HI) << 64) | int(_M_LO)
    m4 = pow(mult, 4, 1 << 128)
    c4 = inc * (1 + mult + mult * mult + mult ** 3) % (1 << 128)
    _fill(state, np.array([m4 >> 64, m4 & _BITS64, c4 >> 64, c4 & _BITS64], dtype=np.uint64),
          out)
    st["state"]["state"] = (int(state[0]) << 64) | int(state[1])
    bits.state = st
    return out
