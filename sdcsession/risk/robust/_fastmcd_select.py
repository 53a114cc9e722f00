"""Selection of the h smallest distances for the compiled C-steps (internal; numba, imported by
`sdcsession.risk.robust._fastmcd_jit`).

``select(d2, h, sub, work)`` writes the h records of smallest squared distance d2 into sub, in
record order; ties at the h-th smallest value go to the first records, and NaN distances
(overflow) come after every number. Only the value of the h-th smallest distance is searched
(the subset is then one pass over the records), so any exact selection algorithm gives the same
subset. The value is bracketed, not sorted: two order statistics of an evenly spaced sample
(m/32 values, 16 to 44) give the first guesses around rank h (Floyd & Rivest 1975); each pass
over the records counts the values up to two guesses (branch-free, vectorised) and keeps the
tightest bounds L < v_h ≤ H known by their counts; the next guesses interpolate between L and H
at rank h ± √(values in between), in log d2 once L > 0 (the C-steps' distances are skewed, with
far outliers: interpolated linearly, the upper guesses crept down one pass at a time, 4.5 passes
on average at 300 records and 7 at 10,000; in log d2, 2.7 and 3.1). Once at most 32 values
remain in (L, H], one pass gathers them and v_h is picked among them. The first pass also looks
for NaN values; the later ones only count. The order statistics of the sample and of the values
gathered are found by counting, for each value, the values up to it (`_ranked2`: no
data-dependent branch, where a quickselect on a few dozen values mispredicts most of its branches;
the larger sample of earlier versions made the sample cost more than the passes). Distances with
NaN take the reference path `_select_ref` (one Hoare quickselect, NaN records last).

Reference: Floyd, R. W. & Rivest, R. L. (1975) Expected time bounds for selection,
Communications of the ACM 18, 165–172.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import jit

__all__ = ["select"]


#: ``numba.njit`` with the on-disk cache (`sdcsession.risk._jit`), releasing the GIL
_njit = jit(nogil=True)
#: up to this many values, order statistics are found by counting (`_ranked2`)
_RANKED = 48
#: the sample of the first guesses: about m // _SAMPLE_DIV values, at least _SAMPLE_MIN, at
#: most _SAMPLE_MAX as the target (the evenly spaced sample then has at most 45 values: few
#: enough for `_ranked2`)
_SAMPLE_MIN, _SAMPLE_DIV, _SAMPLE_MAX = 16, 32, 44


@_njit
def _count2_nan(d2, ta, tb):
    """(#values <= ta, #values <= tb, #NaN or negative) in one pass (vectorised, no branch)."""
    ca = 0
    cb = 0
    nan = 0
    for i in range(d2.shape[0]):
        v = d2[i]
        ca += v <= ta
        cb += v <= tb
        nan += (v != v) | (v < 0.0)
    return ca, cb, nan


@_njit
def _count2(d2, ta, tb):
    """(#values <= ta, #values <= tb) in one pass (vectorised, no branch)."""
    ca = 0
    cb = 0
    for i in range(d2.shape[0]):
        v = d2[i]
        ca += v <= ta
        cb += v <= tb
    return ca, cb


@_njit
def _threshold(d2, k, work):
    """(the k-th smallest value of d2, 0-based; False, and no value, when d2 has NaN or negative
    values: those take `_select_ref`).

    Keeps L < v_k <= H with the counts #(d2 <= L) <= k < #(d2 <= H): two order statistics of an
    evenly spaced sample give the first pair of guesses, later pairs interpolate between L and
    H around rank k (± √(values in between)); each pass counts the values up to both guesses
    (branch-free, vectorised) and keeps the tighter bounds. When at most 32 values lie in
    (L, H], they are gathered and v_k is picked among them (`_ranked2`, the quickselect for
    more values)."""
    m = d2.shape[0]
    ns = min(_SAMPLE_MAX, max(_SAMPLE_MIN, m // _SAMPLE_DIV))
    step = max(m // ns, 1)
    ns = m // step
    for t in range(ns):
        work[t] = d2[t * step]
    pos = (k + 0.5) * ns / m
    half = math.sqrt(ns) + 1.0
    lo_r = min(max(int(pos - half), 0), ns - 1)
    hi_r = min(max(int(pos + half), lo_r), ns - 1)
    if ns <= _RANKED:
        ta, tb = _ranked2(work[:ns], lo_r, hi_r)
    else:
        ta = _kth(work[:ns], lo_r)
        tb = _kth(work[lo_r:ns], hi_r - lo_r)
    low, c_low = -1.0, 0
    high, c_high = np.inf, m
    for it in range(48):
        if it == 0:  # the first pass also looks for NaN and negative values
            ca, cb, nan = _count2_nan(d2, ta, tb)
            if nan:
                return 0.0, False
        else:
            ca, cb = _count2(d2, ta, tb)
        if ca > k:
            high, c_high = ta, ca
        else:
            low, c_low = ta, ca
            if cb > k:
                high, c_high = tb, cb
            else:
                low, c_low = tb, cb
        inside = c_high - c_low
        if inside <= 32:
            break
        if high == np.inf:  # above every guess so far: grow
            ta = low * 2.0 + 1.0
            tb = low * 8.0 + 1.0
            continue
        d = math.sqrt(inside) + 1.0
        fa = max((k + 0.5 - d - c_low) / inside, 0.0)
        fb = min((k + 0.5 + d - c_low) / inside, 1.0)
        if low > 0.0:  # in log d2: the counts of skewed distances grow about linearly there
            ll = math.log(low)
            span = math.log(high) - ll
            ta = math.exp(ll + span * fa)
            tb = math.exp(ll + span * fb)
        else:
            ta = low + (high - low) * fa
            tb = low + (high - low) * fb
        if not low < ta:
            ta = low + 0.5 * (high - low)
        if not tb < high:
            tb = high - 0.25 * (high - low)
        if not (low < ta < high and low < tb < high):
            break  # no float left between the bounds
        if tb < ta:
            ta, tb = tb, ta
    c = 0
    for i in range(m):  # no branch per record
        v = d2[i]
        work[c] = v
        c += (v > low) & (v <= high)
    if c <= _RANKED:
        return _ranked2(work[:c], k - c_low, k - c_low)[0], True
    return _kth(work[:c], k - c_low), True


@_njit
def select(d2, h, sub, work):
    """The h records of smallest d2 into sub, in record order (module docstring)."""
    thr, ok = _threshold(d2, h - 1, work)
    if not ok:
        _select_ref(d2, h, sub, work)
        return
    _take(d2, h, thr, sub)


@_njit
def _take(d2, h, thr, sub):
    """The records with d2 <= thr into sub, in record order; when more than h, the ones below
    thr and the first ones at thr (ties: the first records). Returns how many were <= thr."""
    m = d2.shape[0]
    c = 0
    for i in range(m):  # records up to the threshold, without a branch per record
        sub[c] = i
        c += d2[i] <= thr
    if c > h:  # ties at the threshold: the first ones in record order join
        _take_ties(d2, h, thr, sub)
    return c


@_njit
def _take_ties(d2, h, thr, sub):
    """The records below thr, then the first ones at thr until h are taken, into sub in record
    order (at most h: fewer than h lie below thr). Returns how many were taken."""
    m = d2.shape[0]
    merged = 0
    eq = h
    for i in range(m):
        eq -= d2[i] < thr
    for i in range(m):
        v = d2[i]
        if v < thr or (v == thr and eq > 0):
            if v == thr:
                eq -= 1
            sub[merged] = i
            merged += 1
    return merged


@_njit
def _ranked2(a, ka, kb):
    """The ka-th and kb-th smallest values of a few values (0-based; ka, kb < len(a)): the
    smallest value v with #(a <= v) > k, by counting for every value (no branch in the inner
    loop, vectorised); exact with equal values. Few values: cheaper than the quickselect, whose
    branches are mispredicted. A NaN is never chosen (+inf when only NaN qualify)."""
    va = np.inf
    vb = np.inf
    n = a.shape[0]
    for i in range(n):
        v = a[i]
        c = 0
        for j in range(n):
            c += a[j] <= v
        if c > ka and v < va:
            va = v
        if c > kb and v < vb:
            vb = v
    return va, vb


@_njit
def _kth(a, k):
    """The k-th smallest value of a (0-based), rearranging a (quickselect, Hoare partition with
    a median-of-three pivot: many equal values split evenly)."""
    lo, hi = 0, a.shape[0] - 1
    while hi > lo:
        mid = (lo + hi) >> 1
        x, y, z = a[lo], a[mid], a[hi]
        if x > y:
            x, y = y, x
        if y > z:
            y = z
            if x > y:
                y = x
        pivot = y
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                t = a[i]
                a[i] = a[j]
                a[j] = t
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return a[k]
    return a[k]


@_njit
def _threshold_ref(d2, k, work):
    """The k-th smallest value of d2 (0-based). From 1,000 values on, two order statistics of an
    evenly spaced sample bracket it; one pass counts the values below the bracket and gathers
    those inside it, and the k-th is selected among those few (quickselect on all values when
    the bracket misses)."""
    m = d2.shape[0]
    if m >= 1000:
        step = m // 256
        ns = m // step
        for t in range(ns):
            work[t] = d2[t * step]
        pos = (k + 0.5) * ns / m
        half = 2.0 * math.sqrt(ns) + 2.0
        lo_r = max(int(pos - half), 0)
        hi_r = min(int(pos + half), ns - 1)
        lo = _kth(work[:ns], lo_r)
        hi = _kth(work[:ns], hi_r)
        below = 0
        c = 0
        for i in range(m):  # no branch per record
            v = d2[i]
            below += v < lo
            work[c] = v
            c += (v >= lo) & (v <= hi)
        if below <= k < below + c:
            return _kth(work[:c], k - below)
    for i in range(m):
        work[i] = d2[i]
    return _kth(work[:m], k)


@_njit
def _select_ref(d2, h, sub, work):
    """The h records of smallest d2 into sub, in record order (ties: the first records)."""
    m = d2.shape[0]
    thr = _threshold_ref(d2, h - 1, work)
    c = _take(d2, h, thr, sub)
    if c < h:  # NaN distances (overflow): the smallest non-NaN ones, then the first NaN ones
        merged = 0
        for i in range(m):
            if d2[i] == d2[i]:
                work[merged] = d2[i]
                merged += 1
        thr = _kth(work[:merged], h - 1) if merged >= h else np.inf
        merged = _take_ties(d2, h, thr, sub)
        for i in range(m):
            if merged < h and d2[i] != d2[i]:
                sub[merged] = i
                merged += 1
        sub[:h].sort()


