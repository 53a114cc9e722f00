"""The domain of a noisy variable: bounds, noise that spares zeros, and warnings when noise leaves
the variable's domain. Shared by the in-memory noise (`sdcsession.methods.noise.addition`) and the
Dask noise (`sdcsession.scale.randomised`), so both apply the same rule to their draws.

**Bounds by reflection.** ``add_noise(..., bounds=(low, high))`` keeps every perturbed value in
``[low, high]`` (``None``: that side unbounded). A value ``z`` drawn below ``low`` is reflected at
the bound, ``z' = 2·low − z``, and above ``high`` likewise, ``z' = 2·high − z``; with both bounds
the reflections repeat (the real line folded onto the interval, period ``2·(high − low)``). Why
reflection rather than the alternatives:

* *clipping* (``max(z, low)``) puts a point mass on the bound: with ``bounds=(0, None)`` on a
  zero-inflated income it creates new exact zeros that look like the structural zeros, and a
  pile of values at an upper bound marks the records that were near it;
* *redrawing* (truncated noise) needs a random number of further draws per value, so the result
  would depend on how many draws each value needed (and on the partitioning on Dask);
* *reflection* keeps a continuous distribution without point masses, needs no further draw (the
  same rule on pandas and on Dask), and never moves a value further from its original than the
  drawn noise did: with ``x`` in ``[low, high]``, ``|z' − x| ≤ |z − x|``.

Like every bounded rule it shifts the mean of values near a bound inwards (by at most the noise
scale), which the notes make visible (``bounded``: the values reflected per column).

**additive0.** sdcMicro's ``addNoise(method = "additive0")`` adds additive noise (standard
deviation ``noise·s_j``, ``s_j`` over all observed values, zeros included) to every value except
the zeros, which stay zero: a zero-inflated variable (incomes of a component nobody has, counts)
keeps its zeros. We add one rule to sdcMicro's: a non-zero value keeps its sign — noise that would
carry it across zero is reflected at zero — so a non-negative zero-inflated variable stays
non-negative and its zeros stay exactly the original zeros (sdcMicro lets a small positive value
become negative, or a new zero).

**Domain warnings** (``warn_domain=True``, the default). When noise produces values outside the
variable's domain and no bound covers that side, an `SdcWarning` names the variable and counts
the values: negative values from a variable that had none (pass ``bounds=(0, None)`` or use
``"additive0"``), and values that are no longer whole numbers from a variable that held whole
numbers only (a count: round the result, ``s.round_values(column, digits=0)``). The notes hold
the same counts (``domain``).

Missing values: they stay missing and take no part in the domain (minimum, whole numbers) nor
in the counts.

Example
-------
>>> import numpy as np
>>> reflect(np.array([-1.0, 0.5, 3.5, 7.0]), 0.0, 3.0).tolist()
[1.0, 0.5, 2.5, 1.0]
>>> check_bounds((0, None))
(0.0, None)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ...errors import ParameterError, SdcWarning, TreatmentError, user_stacklevel

__all__ = ["check_bounds", "reflect", "keep_sign", "DomainFacts", "domain_facts",
           "check_within", "bound_block", "domain_counts", "warn_domain_counts",
           "BOUNDED_METHODS"]

#: methods that accept bounds (the others preserve means and covariances exactly, which a
#: reflection would break)
BOUNDED_METHODS = ("additive", "additive0", "correlated", "correlated2", "outliers")


def _bound(value: Any, side: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise ParameterError(f"bounds: the {side} bound must be a number or None, got "
                             f"{value!r:.60}")
    v = float(value) if abs(value) < 1e308 else float("inf")
    if not np.isfinite(v):
        raise ParameterError(f"bounds: the {side} bound must be finite (None: unbounded), "
                             f"got {value!r}")
    return v


def check_bounds(value: Any) -> tuple[float | None, float | None] | None:
    """``bounds`` as ``None`` or a pair ``(low, high)`` of finite floats or ``None``, with
    ``low < high``; else `ParameterError` naming ``bounds``.

    >>> check_bounds([None, 10]), check_bounds(None)
    ((None, 10.0), None)
    """
    if value is None:
        return None
    if isinstance(value, (str, bytes, dict, set, frozenset)) or not isinstance(
            value, (tuple, list)) or len(value) != 2:
        raise ParameterError(f"bounds: expected a pair (low, high), each a number or None, got "
                             f"{value!r:.60}")
    low, high = _bound(value[0], "lower"), _bound(value[1], "upper")
    if low is None and high is None:
        return None
    if low is not None and high is not None and not low < high:
        raise ParameterError(f"bounds: the lower bound must be below the upper bound, got "
                             f"({low:g}, {high:g})")
    return (low, high)


def reflect(z: np.ndarray, low: float | None, high: float | None) -> np.ndarray:
    """``z`` folded into ``[low, high]`` by reflection at the bounds (NaN stays NaN)."""
    z = np.asarray(z, dtype=np.float64)
    if low is not None and high is not None:
        w = high - low
        t = np.mod(z - low, 2.0 * w)
        return low + np.where(t <= w, t, 2.0 * w - t)
    if low is not None:
        return np.where(z < low, 2.0 * low - z, z)
    if high is not None:
        return np.where(z > high, 2.0 * high - z, z)
    return z


def keep_sign(x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The ``additive0`` rule: zeros of ``x`` stay zero; a non-zero value whose noisy value
    crossed zero is reflected at zero (keeps its sign)."""
    z = np.where(x == 0, 0.0, z)
    crossed = ((x > 0) & (z < 0)) | ((x < 0) & (z > 0))
    return np.where(crossed, -z, z)


class DomainFacts:
    """Per column of the original block: the observed minimum and maximum, and whether every
    observed value is a whole number. Built from a block (`domain_facts`) or added up over the
    partitions of a Dask frame (`merge`)."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray, whole: np.ndarray) -> None:
        self.lo, self.hi, self.whole = lo, hi, whole

    def merge(self, other: DomainFacts) -> DomainFacts:
        return DomainFacts(np.fmin(self.lo, other.lo), np.fmax(self.hi, other.hi),
                           self.whole & other.whole)

    @property
    def nonnegative(self) -> np.ndarray:
        return ~(self.lo < 0)


def _fraction(v: np.ndarray) -> np.ndarray:
    """Per value: not a whole number (NaN and ±inf included), as ``np.mod(v, 1) != 0``.

    ``v − floor(v)`` is 0 exactly for whole numbers (two different finite floats never subtract
    to 0), NaN for NaN and ±inf; it is several times cheaper than the floating remainder.
    """
    with np.errstate(invalid="ignore"):
        return (v - np.floor(v)) != 0


def domain_facts(x: np.ndarray) -> DomainFacts:
    """The `DomainFacts` of the n×p block ``x`` (NaN = missing; an all-missing column has
    minimum and maximum NaN and counts as whole)."""
    if not x.size:
        nan = np.full(x.shape[1], np.nan)
        return DomainFacts(nan, nan.copy(), np.ones(x.shape[1], dtype=bool))
    lo = np.fmin.reduce(x, axis=0)  # fmin/fmax skip NaN; an all-NaN column gives NaN
    hi = np.fmax.reduce(x, axis=0)
    whole = ~(_fraction(x) & ~np.isnan(x)).any(axis=0)
    return DomainFacts(np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64),
                       np.asarray(whole, dtype=bool))


def check_within(columns: tuple[str, ...], facts: DomainFacts,
                 bounds: tuple[float | None, float | None] | None) -> None:
    """`TreatmentError` when observed values lie outside ``bounds`` (the bounds are the
    variable's domain: data outside them contradict it)."""
    if bounds is None:
        return
    low, high = bounds
    bad = []
    for j, c in enumerate(columns):
        if low is not None and facts.lo[j] < low:
            bad.append(f"{c!r} has values below {low:g} (minimum {facts.lo[j]:g})")
        if high is not None and facts.hi[j] > high:
            bad.append(f"{c!r} has values above {high:g} (maximum {facts.hi[j]:g})")
    if bad:
        raise TreatmentError("add_noise: bounds are the variables' domain, but " + "; ".join(bad)
                             + "; widen the bounds or recode those values first")


def bound_block(x: np.ndarray, z: np.ndarray, method: str,
                bounds: tuple[float | None, float | None] | None) -> tuple[np.ndarray, np.ndarray]:
    """The noisy block ``z`` after the ``additive0`` rule and the bounds, and the n×p mask of
    the values the bounds reflected. Missing values of ``x`` stay missing."""
    if method == "additive0":
        z = keep_sign(x, z)
    reflected = np.zeros(z.shape, dtype=bool)
    if bounds is not None:
        low, high = bounds
        if low is not None:
            reflected |= z < low
        if high is not None:
            reflected |= z > high
        z = reflect(z, low, high)
    miss = np.isnan(x)
    return np.where(miss, np.nan, z), reflected & ~miss


def domain_counts(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column: negative noisy values, and noisy values that are not whole numbers (over the
    observed values of ``x``). Additive over partitions."""
    obs = ~np.isnan(x)
    neg = ((z < 0) & obs).sum(axis=0)
    frac = (_fraction(z) & obs).sum(axis=0)
    return neg.astype(np.int64), frac.astype(np.int64)


def warn_domain_counts(columns: tuple[str, ...], facts: DomainFacts, negative: np.ndarray,
                       not_whole: np.ndarray, bounds: tuple[float | None, float | None] | None,
                       warn: bool, *, stacklevel: int = 3) -> dict[str, dict[str, int]]:
    """The notes ``domain`` ({column: {"negative": n, "not_whole": m}} for the columns that left
    their domain) and, with ``warn``, one `SdcWarning` naming them. Negative values count only
    for a column without negative values before and without a lower bound."""
    low = bounds[0] if bounds is not None else None
    out: dict[str, dict[str, int]] = {}
    msgs = []
    for j, c in enumerate(columns):
        entry = {}
        if low is None and facts.nonnegative[j] and negative[j]:
            entry["negative"] = int(negative[j])
            msgs.append(f"{c!r} had no negative value and now has {int(negative[j]):,} (pass "
                        "bounds=(0, None), or method='additive0' to keep its zeros)")
        if facts.whole[j] and not_whole[j]:
            entry["not_whole"] = int(not_whole[j])
            msgs.append(f"{c!r} held whole numbers only and now has {int(not_whole[j]):,} values "
                        f"that are not (if it is a count, round it: round_values({c!r}, "
                        "digits=0))")
        if entry:
            out[c] = entry
    if msgs and warn:
        warnings.warn("add_noise: noise left the variables' domain: " + "; ".join(msgs),
                      SdcWarning, stacklevel=user_stacklevel())
    return out
