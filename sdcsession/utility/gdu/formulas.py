"""Public formulas of the global data utility (GDU) model: the local univariate utility
``LDU_psr = 1 − exp(−14 P)``, the global reduction coefficient GRC, the three-step LDU_biv rule
and the local utility of a global recoding ``LDU_gr`` (variants ``"comparisons"``,
``"biased_allocation"``, ``"mad"``). Re-exported by `sdcsession.utility.gdu.model`, whose module
docstring describes the model.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError

RECODE_VARIANTS = ("comparisons", "biased_allocation", "mad")


def _real(value: Any, name: str, expected: str, low: float = -math.inf,
          high: float = math.inf) -> float:
    """``value`` as a finite float in [low, high]; ParameterError naming ``name`` otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                       np.floating)):
        raise ParameterError(f"{name}: expected {expected}, got {value!r:.60}")
    try:
        x = float(value)
    except OverflowError:
        raise ParameterError(f"{name}: expected {expected}, got {value!r:.60}") from None
    if not (math.isfinite(x) and low <= x <= high):
        raise ParameterError(f"{name}: expected {expected}, got {value!r:.60}")
    return x


def _count(value: Any, name: str) -> int:
    """``value`` as a non-negative integer; ParameterError naming ``name`` otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or not 0 <= value <= 2**53:
        raise ParameterError(f"{name}: expected a count (an integer >= 0), got {value!r:.60}")
    return int(value)


# --------------------------------------------------------------------------------------------
# small public formulas
# --------------------------------------------------------------------------------------------


def ldu_psr(p_value: float) -> float:
    """Local univariate utility after perturbation/suppression/removal: ``1 − exp(−14 P)``.

    Missing values: a missing p-value is refused with a ParameterError.

    >>> round(ldu_psr(0.05), 2), round(ldu_psr(0.01), 2)
    (0.5, 0.13)
    """
    p = _real(p_value, "p_value", "a probability in [0, 1]", 0.0, 1.0)
    return 1.0 - math.exp(-14.0 * p)


def grc(n_original: int, n_protected: int) -> float:
    """Global reduction coefficient ``m(m − 1) / (n(n − 1))`` for removed variables (also the
    ``"comparisons"`` recoding utility with n original and m reduced categories).

    Missing values: a missing count is refused with a ParameterError.

    >>> round(grc(100, 95), 3), grc(10, 5)
    (0.902, 0.2222222222222222)
    """
    n, m = _count(n_original, "n_original"), _count(n_protected, "n_protected")
    if m > n:
        raise ParameterError(f"grc: expected 0 <= m <= n, got n={n_original!r}, m={n_protected!r}")
    if n < 2:
        return 1.0
    return m * (m - 1) / (n * (n - 1))


def ldu_biv_rule(
    p_original: float,
    p_protected: float,
    coef2_original: float,
    coef2_protected: float,
    *,
    reversed_direction: bool = False,
    alpha: float = 0.05,
) -> tuple[float, int, str]:
    """The three-step LDU_biv rule; returns ``(ldu, step, decision)``.

    Missing values: a missing p-value or coefficient is refused with a ParameterError.

    >>> ldu_biv_rule(0.3, 0.5, 0.0, 0.0)
    (1.0, 1, 'no association in either file')
    >>> ldu_biv_rule(0.001, 0.4, 0.2, 0.0)
    (0.0, 1, 'association lost')
    >>> ldu_biv_rule(0.001, 0.001, 0.2, 0.1)
    (0.5, 3, 'strength compared')
    """
    p_original = _real(p_original, "p_original", "a p-value in [0, 1]", 0.0, 1.0)
    p_protected = _real(p_protected, "p_protected", "a p-value in [0, 1]", 0.0, 1.0)
    coef2_original = _real(coef2_original, "coef2_original", "a finite number")
    coef2_protected = _real(coef2_protected, "coef2_protected", "a finite number")
    alpha = _real(alpha, "alpha", "a significance level in (0, 1)", 0.0, 1.0)
    if not isinstance(reversed_direction, (bool, np.bool_)):
        raise ParameterError(
            f"reversed_direction: expected True or False, got {reversed_direction!r:.60}")
    so, sp = p_original < alpha, p_protected < alpha
    if not so and not sp:
        return 1.0, 1, "no association in either file"
    if so != sp:
        return 0.0, 1, "association lost" if so else "association appeared"
    if reversed_direction:
        return 0.0, 2, "direction reversed"
    hi = max(coef2_original, coef2_protected)
    if hi <= 0:
        return 1.0, 3, "strength compared"
    return 1.0 - abs(coef2_original - coef2_protected) / hi, 3, "strength compared"


# --------------------------------------------------------------------------------------------
# recoding utilities
# --------------------------------------------------------------------------------------------


def ldu_recoding(values: Any, groups: Any, *, variant: str = "comparisons") -> float:
    """Local univariate utility of a global recoding of ``values`` into ``groups`` (same length:
    the group of each original record). See the module docstring for the three variants.

    Missing values: ``comparisons`` counts the distinct observed values and the groups of records
    observed in both; the other variants use the records observed in both.

    >>> ldu_recoding(np.arange(10), np.arange(10) // 2)  # 10 -> 5 groups
    0.2222222222222222
    >>> ldu_recoding([33.0, 39.0, 40.0, 49.0], ["30s", "30s", "40s", "40s"], variant="biased_allocation")
    0.5
    """
    if not isinstance(variant, str) or variant not in RECODE_VARIANTS:
        raise ParameterError(f"variant: expected one of {RECODE_VARIANTS}, got {variant!r:.60}")
    v = _vector(values, "values")
    g = _vector(groups, "groups")
    if len(v) != len(g):
        raise MeasureError("ldu_recoding: values and groups differ in length")
    keep = (v.notna() & g.notna()).to_numpy()
    if variant == "comparisons":
        return grc(v[v.notna()].nunique(), g[keep].nunique())
    if not pd.api.types.is_numeric_dtype(v.dtype):
        raise MeasureError(
            f"ldu_recoding: variant {variant!r} needs numeric original values, got {v.dtype}"
        )
    x = v.to_numpy(dtype=float, na_value=np.nan)[keep]
    gc, _ = pd.factorize(g[keep])
    if len(x) == 0:
        return 1.0
    k = int(gc.max()) + 1
    cnt = np.bincount(gc, minlength=k)
    means = np.bincount(gc, weights=x, minlength=k) / cnt
    if variant == "mad":
        mad1 = np.mean(np.abs(x - x.mean()))
        if mad1 == 0:
            return 1.0
        return float(1.0 - np.mean(np.abs(x - means[gc])) / mad1)
    # biased allocation: groups ordered by mean; neighbours are adjacent groups in that order
    order = np.argsort(means, kind="stable")
    sorted_vals = [np.unique(x[gc == j]) for j in range(k)]
    biased = 0
    for pos, j in enumerate(order):
        xs = x[gc == j]
        own = sorted_vals[j]
        if len(own) < 2:  # one distinct value: perfectly homogeneous group
            continue
        # nearest other distinct value of the own group
        i = np.searchsorted(own, xs)
        left = np.where(i > 0, xs - own[np.maximum(i - 1, 0)], np.inf)
        nxt = np.minimum(i + 1, len(own) - 1)
        right = np.where(i + 1 < len(own), own[nxt] - xs, np.inf)
        d_own = np.minimum(left, right)
        d_nb = np.full(len(xs), np.inf)
        for q in (pos - 1, pos + 1):
            if 0 <= q < k:
                nb = sorted_vals[order[q]]
                ii = np.searchsorted(nb, xs)
                lo = np.where(ii > 0, np.abs(xs - nb[np.maximum(ii - 1, 0)]), np.inf)
                hi = np.where(ii < len(nb), np.abs(nb[np.minimum(ii, len(nb) - 1)] - xs), np.inf)
                d_nb = np.minimum(d_nb, np.minimum(lo, hi))
        biased += int(np.sum(d_nb < d_own))
    return 1.0 - biased / len(x)


def _vector(x: Any, name: str) -> pd.Series:
    """A one-dimensional sequence of scalar values as a Series; MeasureError naming ``name``."""
    if isinstance(x, pd.Series):
        out = pd.Series(x.to_numpy())
    elif isinstance(x, (list, tuple, np.ndarray, pd.Index)):
        try:
            arr = np.asarray(x)
        except (TypeError, ValueError):
            arr = None
        if arr is None or arr.ndim != 1:
            raise MeasureError(f"ldu_recoding: {name} must be a one-dimensional sequence of "
                               "values (one per record)")
        out = pd.Series(arr)
    else:
        raise MeasureError(f"ldu_recoding: {name} must be a sequence of values (one per record), "
                           f"got {type(x).__name__}")
    if len(out) == 0:
        raise MeasureError(f"ldu_recoding: {name} has no records")
    if out.dtype == object and out.map(lambda v: isinstance(v, (list, dict, set, tuple,
                                                                  np.ndarray))).any():
        raise MeasureError(f"ldu_recoding: {name} holds values that are not scalars")
    return out
