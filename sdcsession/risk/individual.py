"""Individual re-identification risk (Benedetti–Franconi) and its global summaries.

With sample frequency fk and estimated population frequency Fk of a record's key combination, the
population frequency is modelled as F = fk + NegBin(fk, pk) with pk = fk / Fk. The individual risk
is the posterior expectation r = E[1/F | fk], which has the closed form

    r = ∫_0^1 pk v^(fk−1) / (pk + (1 − pk) v) dv = (pk / fk) · ₂F₁(1, 1; fk + 1; 1 − pk)

(method ``"exact"``; Franconi & Polettini 2004). sdcMicro's default (method ``"approx"``) uses the
Benedetti–Franconi formulas, exact for fk = 1, 2 and an approximation above:

    fk = 1:  r = pk/(1−pk) · log(1/pk)
    fk = 2:  r = pk/(1−pk) − (pk/(1−pk))² · log(1/pk)
    fk > 2:  r = pk / (fk − (1 − pk))

and r = 1/fk where fk == Fk (pk = 1). Without sampling weights the risk is 1/fk. Records with
Fk < fk (weights below 1; pk > 1) are computed with pk = 1 after a `SdcWarning`.
``fk`` equal to 1 or 2 is tested exactly; fractional fk (alpha strictly between 0 and 1) other than
1 or 2 uses the fk > 2 branch, as sdcMicro does.

The global risk is the mean of the individual risks, the expected number of re-identifications
their sum.

References: Benedetti & Franconi (1998), *Statistical and technological solutions for controlled
data dissemination*, NTTS; Franconi & Polettini (2004), *Individual risk estimation in μ-Argus: a
review*, PSD 2004, LNCS 3050; Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4), sec. 3.2.

Example
-------
>>> import pandas as pd
>>> from sdcsession.risk import individual_risk, global_risk
>>> df = pd.DataFrame({"sex": ["m", "m", "f"], "w": [10.0, 10.0, 5.0]})
>>> individual_risk(df, ["sex"], weight="w").round(4).tolist()
[0.0827, 0.0827, 0.4024]
>>> round(global_risk(individual_risk(df, ["sex"])), 4)
0.6667
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from ._codes import check_flag, float_array
from .exact_sum import exact_mean, exact_sum
from .frequencies import frequencies, warn_fk_above_Fk

__all__ = [
    "individual_risk",
    "individual_risk_from_freq",
    "global_risk",
    "expected_reidentifications",
    "risk_threshold",
]

_METHODS = ("approx", "exact")


def _risk_arrays(fk: np.ndarray, Fk: np.ndarray | None, method: str) -> np.ndarray:
    fk = np.asarray(fk, dtype=np.float64)
    if Fk is None:
        return 1.0 / fk
    Fk = np.asarray(Fk, dtype=np.float64)
    pk = np.minimum(fk / Fk, 1.0)
    r = np.empty_like(fk)
    one = pk >= 1.0
    r[one] = 1.0 / fk[one]
    rest = ~one
    p = pk[rest]
    f = fk[rest]
    q = 1.0 - p
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = p / q
        log1p_ = -np.log(p)
        if method == "approx":
            out = np.where(
                f == 1, odds * log1p_,
                np.where(f == 2, odds - odds * odds * log1p_, p / (f - q)))
        else:
            out = _exact(f, p)
    r[rest] = out
    return r


def _hyp_cf(f: np.ndarray, x: np.ndarray, tol: float = 1e-15, maxit: int = 100_000) -> np.ndarray:
    """₂F₁(1, 1; f+1; x) by Gauss's continued fraction for ₂F₁(a, b+1; c+1; x)/₂F₁(a, b; c; x)
    with a = 0, b = 1, c = f (modified Lentz algorithm, vectorised, converged entries dropped)."""
    tiny = 1e-300
    h = np.ones_like(x)
    C = np.ones_like(x)
    D = np.zeros_like(x)
    act = np.arange(x.size)
    ff, xx = f.copy(), x.copy()
    for n in range(1, maxit + 1):
        i = n // 2
        if n % 2:
            k = (-ff - i) * (1 + i) / ((ff + 2 * i) * (ff + 2 * i + 1))
        else:
            k = (1 - ff - i) * i / ((ff + 2 * i - 1) * (ff + 2 * i))
        a = k * xx
        D = 1 + a * D
        D[np.abs(D) < tiny] = tiny
        C = 1 + a / C
        C[np.abs(C) < tiny] = tiny
        D = 1 / D
        delta = C * D
        h[act] *= delta
        keep = np.abs(delta - 1) >= tol
        if not keep.all():
            act, ff, xx, C, D = act[keep], ff[keep], xx[keep], C[keep], D[keep]
            if act.size == 0:
                break
    return 1.0 / h


def _exact(f: np.ndarray, p: np.ndarray) -> np.ndarray:
    """E[1/F | f] = ∫_0^1 v^(f−1) / (1 + z v) dv, z = (1−p)/p, for p < 1.

    Integer f ≤ 10 with p < 1/2: forward recurrence I_1 = log(1+z)/z, I_(n+1) = (1/n − I_n)/z
    (stable: errors shrink by 1/z > 1 per step). Otherwise (p/f)·₂F₁(1, 1; f+1; 1−p) by a
    continued fraction, which converges in a few dozen terms there.
    """
    out = np.empty_like(p)
    q = 1.0 - p
    rec = (f == np.round(f)) & (f <= 10) & (p < 0.5)
    if rec.any():
        fr, pr = f[rec], p[rec]
        inv_z = pr / (1.0 - pr)
        val = inv_z * -np.log(pr)  # I_1
        res = val.copy()
        for n in range(1, int(fr.max())):
            val = (1.0 / n - val) * inv_z  # I_(n+1)
            res = np.where(fr == n + 1, val, res)
        out[rec] = res
    cf = ~rec
    if cf.any():
        out[cf] = p[cf] / f[cf] * _hyp_cf(f[cf], q[cf])
    return out


def _check_method(method: str) -> str:
    if not isinstance(method, str) or method not in _METHODS:
        raise ParameterError(f"method: expected one of {list(_METHODS)}, got {method!r}")
    return method


def individual_risk_from_freq(
    fk: pd.Series | np.ndarray,
    Fk: pd.Series | np.ndarray | None = None,
    *,
    method: str = "approx",
    warn: bool = True,
) -> pd.Series:
    """Individual risk from precomputed frequencies (see the module docstring for the formulas).

    ``Fk=None`` means unweighted data: the risk is ``1/fk``. The result is a Series named ``risk``
    with ``fk``'s index when ``fk`` is a Series. ``warn=False`` skips the `SdcWarning` about
    records with Fk < fk (for callers whose frequencies came from `frequencies`, which has
    already warned).

    Missing values: missing (NaN) frequencies are refused with a MeasureError.

    >>> individual_risk_from_freq([1, 2, 4], [1, 20, 40]).round(5).tolist()
    [1.0, 0.08268, 0.03226]
    """
    _check_method(method)
    check_flag(warn, "warn")
    index = fk.index if isinstance(fk, pd.Series) else None
    fa = float_array(fk, "fk")
    if not np.isfinite(fa).all() or (fa <= 0).any():
        raise MeasureError("fk: sample frequencies must be finite and > 0")
    Fa = None
    if Fk is not None:
        Fa = float_array(Fk, "Fk")
        if Fa.shape != fa.shape:
            raise MeasureError(f"Fk: shape {Fa.shape} differs from fk's {fa.shape}")
        if not np.isfinite(Fa).all() or (Fa <= 0).any():
            raise MeasureError("Fk: population frequencies must be finite and > 0")
        if warn:
            warn_fk_above_Fk(fa, Fa, index if index is not None else pd.RangeIndex(len(fa)))
    return pd.Series(_risk_arrays(fa, Fa, method), index=index, name="risk")


def individual_risk(
    df: pd.DataFrame,
    keys: str | Iterable[str],
    *,
    weight: str | None = None,
    alpha: float = 1.0,
    method: str = "approx",
) -> pd.Series:
    """Individual re-identification risk of every record, aligned to ``df.index`` (name ``risk``).

    fk and Fk come from `frequencies` (missing keys as wildcards weighted by
    ``alpha``); ``method="approx"`` is sdcMicro's Benedetti–Franconi approximation, ``"exact"`` the
    closed form (pk/fk)·₂F₁(1, 1; fk+1; 1−pk); without ``weight`` the risk is 1/fk.

    Reference: Franconi & Polettini (2004), PSD 2004, LNCS 3050; sdcMicro ``measure_risk``.

    Missing values: missing key values are wildcards in fk and Fk (see `frequencies`, sdcMicro's
    rule); missing values of other variables play no part.

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": ["x", "x", "y"]})
    >>> individual_risk(df, "a").tolist()
    [0.5, 0.5, 1.0]
    """
    _check_method(method)
    f = frequencies(df, keys, weight=weight, alpha=alpha)
    Fk = f["Fk"].to_numpy() if weight is not None else None
    return pd.Series(_risk_arrays(f["fk"].to_numpy(), Fk, method), index=df.index, name="risk")


def _as_risk(risk: pd.Series | np.ndarray) -> np.ndarray:
    r = float_array(risk, "risk")
    if r.size == 0:
        raise MeasureError(f"risk: expected a non-empty one-dimensional array, got shape {r.shape}")
    if not np.isfinite(r).all() or (r < 0).any() or (r > 1).any():
        raise MeasureError("risk: individual risks must be finite numbers in [0, 1]")
    return r


def global_risk(risk: pd.Series | np.ndarray) -> float:
    """Global risk: the mean of the individual risks, (1/n) Σ r_i.

    The sum is exact and rounded once (`sdcsession.risk.exact_sum`), so the same risks give
    the same double in memory and on Dask, whatever the partitions.

    Missing values: a missing (NaN) risk is refused with a MeasureError.

    >>> global_risk([0.5, 0.5, 1.0])
    0.6666666666666666
    """
    return exact_mean(_as_risk(risk))


def expected_reidentifications(risk: pd.Series | np.ndarray) -> float:
    """Expected number of re-identifications: the sum of the individual risks, Σ r_i
    (exact, rounded once: `sdcsession.risk.exact_sum`).

    Missing values: a missing (NaN) risk is refused with a MeasureError.

    >>> expected_reidentifications([0.5, 0.5, 1.0])
    2.0
    """
    return exact_sum(_as_risk(risk))


def risk_threshold(risk: pd.Series | np.ndarray, max_global_risk: float = 0.01) -> float | None:
    """The individual-risk threshold that meets a global-risk target (sdcMicro ``measure_risk``'s
    ``threshold``, from μ-ARGUS's individual risk model).

    With n records and the target G = ``max_global_risk``, the expected re-identifications may
    be at most ER = G · n. Capping every risk above a level t at t gives
    ``E(t) = Σ_{r_i ≤ t} r_i + t · #{r_i > t}``, which grows with t. The threshold is the largest
    observed risk value t, below the largest risk, with ``E(t) < ER``: records with a risk above
    it must be protected until their risk is at most t. ``None`` when the file already meets the
    target (Σ r_i < ER; sdcMicro reports ``NA``), and 0.0 when no observed value is low enough
    (sdcMicro's value: every record with a positive risk must be protected).

    Missing values: refused (MeasureError), as `global_risk`.

    Reference: Franconi & Polettini (2004), Individual risk estimation in μ-ARGUS: a review,
    PSD 2004, LNCS 3050 (the threshold on the individual risk for a global-risk target);
    sdcMicro ``measure_risk`` (``max_global_risk``, ``global$threshold``).

    Example
    -------
    >>> r = [1.0, 1.0, 0.5, 0.5, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]
    >>> risk_threshold(r, 0.2)   # E(0.1) = 0.6 + 0.1·4 = 1.0 < 2; E(0.5) = 1.6 + 0.5·2 = 2.6
    0.1
    >>> risk_threshold(r, 0.5) is None   # Σ r = 3.6 < 5
    True
    """
    if isinstance(max_global_risk, bool) or not isinstance(max_global_risk, (int, float)) or \
            not 0 < max_global_risk < 1:
        raise ParameterError(f"max_global_risk: expected a number in (0, 1), got "
                             f"{max_global_risk!r:.40}")
    r = np.sort(_as_risk(risk))
    n = r.size
    er = max_global_risk * n
    if exact_sum(r) < er:
        return None
    values = np.unique(r)[:-1][::-1]  # distinct values below the largest, high to low
    if values.size == 0:
        return 0.0
    upto = np.searchsorted(r, values, side="right")
    below = np.concatenate([[0.0], np.cumsum(r)])[upto]
    total = below + values * (n - upto)
    ok = np.flatnonzero(total < er)
    return float(values[ok[0]]) if ok.size else 0.0
