"""Options of rank swapping: top/bottom grouping and Moore's criteria for the rank range.

**Top and bottom percent** (sdcMicro ``rankSwap(TopPercent, BottomPercent)``). Of the n observed
values of a variable, the ``t = floor(n·top/100)`` largest are grouped together: each of them is
replaced by their mean and they take no part in the swapping; likewise the
``b = floor(n·bottom/100)`` smallest. (Top coding by the group mean protects the outliers that
swapping within a narrow rank range would leave recognisable, and keeps the total.) The other
``m = n − t − b`` values are swapped.

**Rank range.** Two values may be exchanged when their ranks among the m swappable values differ
by at most P. P is given in one of three ways (exactly one):

- ``p`` percent of the observed values: ``P = floor(p·n/100)`` (sdcMicro ``P``);
- ``r0``, Moore's *multivariate preservation factor*: the correlation between a variable before
  and after swapping is to stay about ``r0`` (sdcMicro: ``R0 = R1/R2``, the ratio of a
  correlation after to before swapping);
- ``k0``, Moore's *subset-mean preservation factor*: the mean of a subset of ``N_S`` records is to
  move by at most about ``2·k0·x̄/sqrt(N_S)``.

Moore (1996) relates them through the fraction f of the swappable records spanned by the rank
range, assuming the m values spread evenly over their range ``Δ = max − min`` (of the swappable
values), with mean x̄ and variance σ² (divisor m) of the swappable values:
``r0 = 1 − f²Δ²/(2σ²)`` and ``k0 = sqrt(3/8)·f·Δ/|x̄|``, hence

    f = sqrt(2σ²(1 − r0)) / Δ        (from r0)
    f = sqrt(8/3)·k0·|x̄| / Δ         (from k0)

and ``P = floor(f·m)`` ranks. In every case P is capped at m − 1, and P < 1 (no pair could be
swapped) is a `TreatmentError` naming the column. sdcMicro uses the same relations (in its C++
code) with Δ taken between the boundary values of the top and bottom groups; its default is
``TopPercent = BottomPercent = 5`` and ``R0 = 0.95``, ours is no grouping and ``p = 5``.

Reference: Moore, R. A. (1996) Controlled data-swapping techniques for masking public use
microdata sets, Statistical Research Division Report RR96-04, U.S. Bureau of the Census.

Example
-------
>>> import numpy as np
>>> v = np.arange(1.0, 101.0)
>>> rank_range(v, n_observed=100, p=None, r0=0.95, k0=None)   # sigma² = 833.25, Δ = 99
9
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ParameterError, TreatmentError
from ..params import check_number

__all__ = ["group_extremes", "rank_range", "check_rank_options"]


def check_rank_options(p: Any, r0: Any, k0: Any, top: Any, bottom: Any
                       ) -> tuple[float | None, float | None, float | None, float, float]:
    """Validated ``(p, r0, k0, top, bottom)``: one of p, r0, k0 sets the rank range. ``p`` (a
    percentage in (0, 100], default 5) is used unless ``r0`` or ``k0`` is given; with one of them
    ``p`` stays at its default 5 (or None) and is returned as None. ``r0`` in [0, 1), ``k0`` > 0,
    ``top`` and ``bottom`` in [0, 100) with ``top + bottom < 100``. Raises `ParameterError`
    naming the parameter (``p=None`` without r0 or k0 among them).

    >>> check_rank_options(5.0, 0.9, None, 5, 5)
    (None, 0.9, None, 5.0, 5.0)
    """
    moore = [name for name, v in (("r0", r0), ("k0", k0)) if v is not None]
    if moore and p is not None and not (
            not isinstance(p, (bool, np.bool_)) and isinstance(p, (int, float)) and p == 5):
        moore.insert(0, "p")
    if len(moore) > 1:
        raise ParameterError(f"rank_swap: give only one of p, r0 and k0 (they all set the rank "
                             f"range), got {moore}")
    if moore:
        p = None
    elif p is None:
        raise ParameterError("p (a percentage): expected a number in (0, 100] (default 5), or "
                             "r0 / k0 instead, got None")
    out_p = None if p is None else check_number("p (a percentage)", p, 0, 100, lo_open=True)
    out_r0 = None if r0 is None else check_number("r0", r0, 0, 1, hi_open=True)
    out_k0 = None if k0 is None else check_number("k0", k0, 0, lo_open=True)
    t = check_number("top (a percentage)", top, 0, 100, hi_open=True)
    b = check_number("bottom (a percentage)", bottom, 0, 100, hi_open=True)
    if t + b >= 100:
        raise ParameterError(f"top, bottom: together they must stay below 100 %, got {t:g} + "
                             f"{b:g}")
    return out_p, out_r0, out_k0, t, b


def group_extremes(sorted_values: np.ndarray, top: float, bottom: float
                   ) -> tuple[np.ndarray, int, int]:
    """Replace the ``floor(n·top/100)`` largest and ``floor(n·bottom/100)`` smallest of the
    ascending ``sorted_values`` by their group means. Returns the new sorted values and the
    group sizes ``(n_top, n_bottom)``.

    >>> group_extremes(np.array([1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 20, 10)
    (array([1. , 2. , 3. , 4. , 5. , 6. , 7. , 8. , 9.5, 9.5]), 2, 1)
    """
    n = len(sorted_values)
    n_top = int(np.floor(n * top / 100.0))
    n_bot = int(np.floor(n * bottom / 100.0))
    out = sorted_values.astype(np.float64, copy=True)
    if n_top:
        out[n - n_top:] = out[n - n_top:].mean()
    if n_bot:
        out[:n_bot] = out[:n_bot].mean()
    return out, n_top, n_bot


def rank_range(middle: np.ndarray, *, n_observed: int, p: float | None, r0: float | None,
               k0: float | None, column: Any = None) -> int:
    """The largest allowed rank distance P among the swappable values ``middle`` (see the module
    docstring), capped at ``len(middle) − 1``; `TreatmentError` when it is below one rank.

    >>> rank_range(np.arange(10.0), n_observed=10, p=30, r0=None, k0=None)
    3
    """
    m = len(middle)
    if p is not None:
        big_p = int(np.floor(p * n_observed / 100.0))
        how = f"p={p:g} % of the {n_observed} observed values"
        fix = f"use p ≥ {100.0 / max(n_observed, 1):.3g}"
    else:
        span = float(middle.max() - middle.min()) if m else 0.0
        if span <= 0:
            raise TreatmentError(f"rank_swap: the swappable values of column {column!r} are all "
                                 "equal; nothing to swap")
        if r0 is not None:
            f = float(np.sqrt(2.0 * middle.var() * (1.0 - r0))) / span
            how, fix = f"r0={r0:g}", "lower r0"
        else:
            assert k0 is not None
            f = float(np.sqrt(8.0 / 3.0) * k0 * abs(middle.mean())) / span
            how, fix = f"k0={k0:g}", "raise k0"
        big_p = int(np.floor(f * m))
    if big_p < 1:
        raise TreatmentError(
            f"rank_swap: {how} is less than one rank for column {column!r}; {fix}")
    return min(big_p, m - 1)
