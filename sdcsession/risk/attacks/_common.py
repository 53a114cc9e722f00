"""Shared pieces of the attacks (internal): the result type, success rates with Wilson-score
intervals, the excess risk over the control attack, input checks and the joint encoding of the
original, released and control files.

Success rate (Wilson 1927, as Giomi et al. 2023 use it): with ``k`` successes in ``n`` attacks
and ``z`` the two-sided normal quantile of the confidence level,

    rate  = (k + z²/2) / (n + z²)
    error = z / (n + z²) · sqrt(k (n − k) / n + z²/4)

Risk (Giomi et al. 2023, eq. 1): ``R = (r_train − r_control) / (1 − r_control)`` with the error
propagated to first order, ``δR = sqrt((δr_train / (1 − r_control))² + (δr_control (r_train − 1)
/ (1 − r_control)²)²)``; the reported risk and interval are clipped to [0, 1]. Without a control
set the risk is the training success rate itself (an upper bound: it also counts what an attacker
would learn about anyone of the population).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from .._codes import check_frame, check_number

__all__ = ["AttackResult", "success_rate", "excess_risk", "check_inputs", "encode_frames",
           "check_seed", "check_count", "MIN_CONTROL"]

#: fewer control records than this is a `MeasureError`: the control success rate would be noise
MIN_CONTROL = 20


def success_rate(n_success: float, n_total: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson-score estimate ``(rate, error)`` of a Bernoulli success rate.

    Formula: ``rate = (k + z²/2)/(n + z²)``, ``error = z/(n + z²)·sqrt(k(n−k)/n + z²/4)``, with
    ``z`` the ``(1 + confidence)/2`` normal quantile (Wilson 1927; Giomi et al. 2023).

    Missing values: none (counts).

    >>> [round(x, 4) for x in success_rate(50, 100)]
    [0.5, 0.0962]
    """
    if n_total <= 0:
        raise MeasureError("success rate: no attack was made (0 attacks)")
    z = NormalDist().inv_cdf(0.5 * (1.0 + confidence))
    z2 = z * z
    k, n = float(n_success), float(n_total)
    den = n + z2
    rate = (k + 0.5 * z2) / den
    err = z / den * math.sqrt(max(k * (n - k) / n, 0.0) + 0.25 * z2)
    return rate, err


def excess_risk(train: tuple[float, float], control: tuple[float, float] | None
                ) -> tuple[float, float]:
    """Unclipped ``(risk, error)``: ``(r_t − r_c)/(1 − r_c)`` with first-order error propagation
    (Giomi et al. 2023, eq. 1); the training rate itself without a control.

    Missing values: none.

    >>> [round(x, 4) for x in excess_risk((0.6, 0.05), (0.2, 0.04))]
    [0.5, 0.0673]
    """
    if control is None:
        return train
    rt, et = train
    rc, ec = control
    if rc >= 1.0:
        return float("nan"), float("nan")
    risk = (rt - rc) / (1.0 - rc)
    d_t = 1.0 / abs(1.0 - rc)
    d_c = (rt - 1.0) / (1.0 - rc) ** 2
    return risk, math.sqrt((et * d_t) ** 2 + (ec * d_c) ** 2)


def _clip(x: float) -> float:
    return min(max(x, 0.0), 1.0)


@attrs.frozen(eq=False)
class AttackResult:
    """Result of a singling-out, linkability or inference attack.

    Attributes
    ----------
    attack : str
        ``"singling_out"``, ``"linkability"`` or ``"inference"``.
    risk : float
        ``(r_train − r_control)/(1 − r_control)`` clipped to [0, 1] (the training rate without a
        control set); NaN when the control attack always succeeds.
    ci : tuple of float
        Confidence interval of the risk (risk ± propagated Wilson error, clipped to [0, 1]).
    attack_rate, baseline_rate, control_rate : float
        Wilson-score success rates of the attack on the training (original) records, of the
        random-guess baseline attack and of the attack on the control records (NaN without control).
    n_attacks, n_success, n_baseline, n_control : int or float
        Attacks per arm (training; baseline and control in ``n_attacks_baseline`` and
        ``n_attacks_control``) and successes of each arm.
    confidence : float
        Confidence level of the intervals.
    details : dict
        Attack-specific facts (columns used, queries generated, warnings).
    """

    attack: str
    risk: float
    ci: tuple[float, float]
    attack_rate: float
    attack_error: float
    baseline_rate: float
    baseline_error: float
    control_rate: float
    control_error: float
    n_attacks: int
    n_attacks_baseline: int
    n_attacks_control: int
    n_success: int
    n_baseline: int
    n_control: float
    confidence: float
    details: dict[str, Any] = attrs.field(factory=dict)

    @classmethod
    def from_counts(cls, attack: str, *, n_attacks: int, n_success: int, n_baseline: int,
                    n_control: float | None, n_attacks_baseline: int | None = None,
                    n_attacks_control: int | None = None, confidence: float = 0.95,
                    details: dict[str, Any] | None = None) -> AttackResult:
        """The result from the counts of successes of the three arms (see the module formulas)."""
        nb = n_attacks if n_attacks_baseline is None else n_attacks_baseline
        nc = n_attacks if n_attacks_control is None else n_attacks_control
        tr = success_rate(n_success, n_attacks, confidence)
        br = success_rate(n_baseline, nb, confidence)
        cr = None if n_control is None else success_rate(n_control, nc, confidence)
        risk, err = excess_risk(tr, cr)
        if math.isnan(risk):
            value, ci = float("nan"), (float("nan"), float("nan"))
        else:
            value, ci = _clip(risk), (_clip(risk - err), _clip(risk + err))
        nan = float("nan")
        return cls(attack, value, ci, tr[0], tr[1], br[0], br[1],
                   nan if cr is None else cr[0], nan if cr is None else cr[1],
                   int(n_attacks), int(nb), int(nc if n_control is not None else 0),
                   int(n_success), int(n_baseline),
                   nan if n_control is None else float(n_control), float(confidence),
                   dict(details or {}))

    def to_dict(self) -> dict[str, Any]:
        """The figures as a flat dict (JSON-serialisable numbers; ``details`` left out)."""
        return {"attack": self.attack, "risk": self.risk, "ci_low": self.ci[0],
                "ci_high": self.ci[1], "attack_rate": self.attack_rate,
                "baseline_rate": self.baseline_rate, "control_rate": self.control_rate,
                "n_attacks": self.n_attacks, "n_success": self.n_success,
                "n_baseline": self.n_baseline, "n_control": self.n_control}

    def __repr__(self) -> str:
        return (f"{self.attack} risk {self.risk:.4f} (CI {self.ci[0]:.4f}–{self.ci[1]:.4f}; "
                f"attack {self.attack_rate:.4f}, baseline {self.baseline_rate:.4f}, "
                f"control {self.control_rate:.4f}; {self.n_attacks} attacks)")


# ------------------------------------------------------------------------------ input checks
def check_seed(seed: Any) -> np.random.Generator:
    """A numpy Generator from ``seed`` (an int >= 0, a Generator, or None for fresh entropy)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed: expected a whole number >= 0 or None, got {seed!r}")
    return np.random.default_rng(int(seed))


#: the most attacks (predicates, targets) one call may ask for: larger requests are refused
#: before anything is drawn
MAX_COUNT = 10_000_000


def check_count(value: Any, what: str, minimum: int = 1, maximum: int = MAX_COUNT) -> int:
    """``value`` as an int in [``minimum``, ``maximum``]; `ParameterError` otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or not minimum <= value <= maximum:
        raise ParameterError(f"{what}: expected a whole number in [{minimum}, {maximum:,}], "
                             f"got {value!r:.40}")
    return int(value)


def check_confidence(confidence: Any) -> float:
    c = check_number(confidence, "confidence", "a number in (0, 1)")
    if not 0.0 < c < 1.0:
        raise ParameterError(f"confidence: expected a number in (0, 1), got {confidence!r}")
    return c


def _is_numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)


def check_inputs(original: Any, release: Any, control: Any, columns: Sequence[str] | None,
                 what: str, min_control: int = MIN_CONTROL) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None, list[str]]:
    """The three frames restricted to ``columns`` (default: the original's columns), checked.

    `MeasureError` when a frame is not a non-empty DataFrame, when a column is absent from a
    frame ("mismatched columns"), when a column is a number in one frame and a category in
    another, or when the control set has fewer than ``min_control`` records.
    """
    o = check_frame(original, f"{what}: original")
    r = check_frame(release, f"{what}: release")
    c = None if control is None else check_frame(control, f"{what}: control")
    if columns is None:
        cols = [str(x) for x in o.columns]
    else:
        if isinstance(columns, str):
            columns = [columns]
        if not isinstance(columns, (list, tuple)):
            raise ParameterError(f"{what}: columns: expected a list of column names, got "
                                 f"{type(columns).__name__}")
        cols = list(columns)
        if not cols or not all(isinstance(x, str) for x in cols) or len(set(cols)) != len(cols):
            raise ParameterError(f"{what}: columns: expected distinct column names, got "
                                 f"{columns!r}"[:300])
    for name, df in (("original", o), ("release", r), ("control", c)):
        if df is None:
            continue
        missing = [x for x in cols if x not in df.columns]
        if missing:
            raise MeasureError(f"{what}: mismatched columns: {name} lacks {missing}; the files "
                               "must share the attacked columns")
    for x in cols:
        kinds = {name: _is_numeric(df[x]) for name, df in (("original", o), ("release", r),
                                                             ("control", c)) if df is not None}
        if len(set(kinds.values())) > 1:
            shown = {k: ("number" if v else "category") for k, v in kinds.items()}
            raise MeasureError(f"{what}: mismatched columns: {x!r} is {shown}; give it one type "
                               "in every file")
    if c is not None and len(c) < min_control:
        raise MeasureError(f"{what}: the control set is too small ({len(c)} records; at least "
                           f"{min_control} are needed, a few hundred for useful intervals)")
    return o[cols], r[cols], (None if c is None else c[cols]), cols


def encode_frames(frames: Sequence[pd.DataFrame | None], cols: Sequence[str]
                  ) -> tuple[list[np.ndarray | None], np.ndarray]:
    """Each frame as a float64 ``(n, p)`` matrix with one shared encoding, and the numeric mask.

    Numeric columns keep their values; every other column (text, categories, booleans) becomes
    integer codes shared by all frames (codes of the values pooled over the frames). Missing
    values are NaN in both kinds.
    """
    present = [f for f in frames if f is not None]
    numeric = np.array([_is_numeric(present[0][c]) for c in cols], dtype=bool)
    mats = [None if f is None else np.empty((len(f), len(cols)), dtype=np.float64)
            for f in frames]
    for j, c in enumerate(cols):
        if numeric[j]:
            for f, m in zip(frames, mats):
                if f is not None:
                    m[:, j] = f[c].to_numpy(dtype=np.float64, na_value=np.nan)
            continue
        pooled = pd.concat([f[c].astype("object") for f in present], ignore_index=True)
        try:
            codes, _ = pd.factorize(pooled, use_na_sentinel=True)
        except TypeError:
            raise MeasureError(f"column {c!r} holds values that are not categories "
                               "(lists, dicts...)") from None
        codes = codes.astype(np.float64)
        codes[codes < 0] = np.nan
        start = 0
        for f, m in zip(frames, mats):
            if f is None:
                continue
            m[:, j] = codes[start:start + len(f)]
            start += len(f)
    return mats, numeric


def unique_rows(x: np.ndarray) -> np.ndarray:
    """The distinct rows of ``x`` in order of first appearance (NaN equal to NaN)."""
    if len(x) == 0:
        return x
    key = pd.DataFrame(x).duplicated(keep="first").to_numpy()
    return x[~key]
