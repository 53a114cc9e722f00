"""Inference (attribute disclosure) risk of a released file, measured by attack with a control set.

The attacker knows the ``aux_cols`` of a target and guesses its ``secret``: the secret of the
nearest release record on ``aux_cols`` (Gower distance, exact). A guess is correct when it
equals the secret (categories; two missing values are equal) or, for a number, when
``|guess − secret| <= tolerance · |secret|`` (Giomi et al. 2023, section 4.3).

Arms: original records (training), control records, and a baseline whose guess is the secret of
a release record drawn at random. Rates, risk and interval as in
`sdcsession.risk.attacks.AttackResult`: ``R = (r_t − r_c)/(1 − r_c)``.

Reference: Giomi, Boenisch, Wehmeyer & Tasnádi (2023), "A Unified Framework for Quantifying
Privacy Risk in Synthetic Data", PoPETs 2023(2), 312-328.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from .._codes import check_number
from ._common import (
    AttackResult,
    check_confidence,
    check_count,
    check_inputs,
    check_seed,
    encode_frames,
)
from ._neighbours import gower_ranges, nearest

__all__ = ["inference"]


def _correct(guess: np.ndarray, secret: np.ndarray, regression: bool, tol: float) -> np.ndarray:
    both_missing = np.isnan(guess) & np.isnan(secret)
    with np.errstate(invalid="ignore"):
        if regression:
            ok = np.abs(guess - secret) <= tol * np.abs(secret)
        else:
            ok = guess == secret
    return ok | both_missing


def inference(original: pd.DataFrame, release: pd.DataFrame,
              control: pd.DataFrame | None = None, *, aux_cols: Sequence[str], secret: str,
              regression: bool | None = None, n_attacks: int = 500, tolerance: float = 0.05,
              seed: Any = 0, confidence: float = 0.95) -> AttackResult:
    """Inference risk on ``secret`` of ``release`` for the records of ``original`` (see the module).

    Parameters
    ----------
    original : the records behind the release (training records).
    release : the released file.
    control : records of the same population not used for the release (None: risk = training
        rate).
    aux_cols : the columns the attacker knows about the target.
    secret : the column the attacker guesses (not in ``aux_cols``).
    regression : whether the secret is a number guessed within ``tolerance`` (default: True when
        the column is numeric).
    n_attacks : target records per arm (at most the records of the file attacked).
    tolerance : relative tolerance of a numeric guess.
    seed : seed of the choice of targets and of the baseline.
    confidence : level of the confidence interval.

    Formula: success of target t when ``s(nn_aux(t)) = s(t)`` (categories) or
    ``|s(nn_aux(t)) − s(t)| <= tolerance·|s(t)|`` (numbers); ``R = (r_t − r_c)/(1 − r_c)``.

    Missing values: Gower distance with two missing values equal and a missing value at distance
    1 from a present one; a missing guess is correct for a missing secret only.

    A secret with a single value in the original is a `MeasureError` (every guess is right).

    Example
    -------
    >>> import sdcsession as sdc
    >>> df = sdc.datasets.synthetic_survey(1000, seed=1)
    >>> r = inference(df.iloc[:500], df.iloc[:500], df.iloc[500:], n_attacks=100,
    ...               aux_cols=["age", "sex", "region", "income"], secret="educ")
    >>> r.attack_rate > r.control_rate
    True
    """
    if not isinstance(secret, str):
        raise ParameterError(f"secret: expected one column name, got {secret!r}")
    if isinstance(aux_cols, str):
        aux_cols = [aux_cols]
    aux = list(aux_cols) if isinstance(aux_cols, (list, tuple)) else None
    if not aux or not all(isinstance(a, str) for a in aux):
        raise ParameterError(f"aux_cols: expected a non-empty list of column names, got "
                             f"{aux_cols!r}"[:300])
    if secret in aux:
        raise ParameterError(f"aux_cols: the secret {secret!r} is among the attacker's columns")
    if regression is not None and not isinstance(regression, (bool, np.bool_)):
        raise ParameterError(f"regression: expected True, False or None, got {regression!r}")
    n_attacks = check_count(n_attacks, "n_attacks")
    tol = check_number(tolerance, "tolerance", "a number >= 0")
    if tol < 0:
        raise ParameterError(f"tolerance: expected a number >= 0, got {tolerance!r}")
    confidence = check_confidence(confidence)
    rng = check_seed(seed)
    o, r, c, cols = check_inputs(original, release, control, aux + [secret], "inference")
    if o[secret].nunique(dropna=False) < 2:
        raise MeasureError(f"inference: the secret {secret!r} is constant in the original: "
                           "every guess is right, there is no risk to measure")
    (xo, xr, xc), numeric = encode_frames([o, r, c], cols)
    if regression is None:
        regression = bool(numeric[-1])
    if regression and not numeric[-1]:
        raise ParameterError(f"regression: the secret {secret!r} is not a number")
    ia = list(range(len(aux)))
    ranges = gower_ranges([xo, xr, xc], numeric)

    def attack(x: np.ndarray, n: int) -> tuple[int, int]:
        n = min(n, len(x))
        t = x[rng.choice(len(x), size=n, replace=False)]
        _, idx = nearest(t[:, ia], xr[:, ia], numeric[ia], ranges[ia], 1)
        return int(_correct(xr[idx[:, 0], -1], t[:, -1], regression, tol).sum()), n

    n_success, n_t = attack(xo, n_attacks)
    n_control = n_c = None
    if xc is not None:
        n_control, n_c = attack(xc, n_attacks)
    n_b = min(n_t, len(xr))
    tb = xo[rng.choice(len(xo), size=n_b, replace=False)]
    guess = xr[rng.choice(len(xr), size=n_b, replace=False), -1]
    n_baseline = int(_correct(guess, tb[:, -1], regression, tol).sum())
    return AttackResult.from_counts(
        "inference", n_attacks=n_t, n_success=n_success, n_baseline=n_baseline,
        n_control=n_control, n_attacks_baseline=n_b, n_attacks_control=n_c,
        confidence=confidence,
        details={"aux_cols": aux, "secret": secret, "regression": bool(regression),
                 "tolerance": tol})
