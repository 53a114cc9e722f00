"""Singling-out risk of a released file, measured by attack with a control set.

A singling-out attack is a predicate (``age >= 87 and region == "north"``) that the attacker
writes from the released file and that isolates exactly one record of it. The attack *succeeds*
on a file when the predicate matches exactly one of its records (Cohen & Nissim 2020; Giomi et
al. 2023, section 4.1).

Three arms, each with ``n_attacks`` attempts:

- *training*: the attacker's predicates, evaluated on the original records (those behind the
  release): successes ``k_t``;
- *control*: the same predicates evaluated on control records (the same population, not used
  for the release): ``k_c``; what singles out there is what any file of this population would
  let an attacker do;
- *baseline*: random predicates (random columns, values and operators) on the original records,
  the success of an attacker who ignores the release: ``k_b``.

Rates are Wilson-score estimates ``r = (k + z²/2)/(n + z²)`` and the risk is the excess over the
control, ``R = (r_t − r_c)/(1 − r_c)``, with a propagated confidence interval (see
`sdcsession.risk.attacks.AttackResult`). Multivariate predicates use ``n_cols`` columns drawn at
random with the values of a random release record (``>=`` for a number above its median, ``<=``
below, ``==`` for a category, ``is null`` for a missing value); univariate predicates use rare
values (a value held by one record, the minimum, the maximum, the only missing value).

Reference: Giomi, Boenisch, Wehmeyer & Tasnádi (2023), "A Unified Framework for Quantifying
Privacy Risk in Synthetic Data", PoPETs 2023(2), 312-328 (the anonymeter framework); Cohen &
Nissim (2020), "Towards formalizing the GDPR's notion of singling out", PNAS 117(15).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...errors import ParameterError, SdcWarning, user_stacklevel
from ._common import (
    AttackResult,
    check_confidence,
    check_count,
    check_inputs,
    check_seed,
    encode_frames,
    unique_rows,
)
from ._queries import Table, multivariate_queries, random_queries, univariate_queries

__all__ = ["singling_out"]


def singling_out(original: pd.DataFrame, release: pd.DataFrame,
                 control: pd.DataFrame | None = None, *, columns: Sequence[str] | None = None,
                 n_attacks: int = 500, n_cols: int = 3, mode: str = "multivariate",
                 max_attempts: int = 10_000_000, seed: Any = 0,
                 confidence: float = 0.95) -> AttackResult:
    """Singling-out risk of ``release`` for the records of ``original`` (see the module).

    Parameters
    ----------
    original : the records behind the release (the attacked "training" records).
    release : the released (masked or synthetic) file the attacker reads.
    control : records of the same population not used for the release (None: the risk is the
        training success rate, an upper bound).
    columns : the columns the attacker may use (default: every column of ``original``).
    n_attacks : the number of predicates (attacks) per arm.
    n_cols : columns per multivariate predicate.
    mode : ``"multivariate"`` or ``"univariate"``.
    max_attempts : the most release records tried when generating predicates; when fewer than
        ``n_attacks`` predicates single out, the missing ones count as failed attacks (with an
        `SdcWarning`).
    seed : seed of the predicates and of the subsample (an int, a Generator, or None).
    confidence : level of the confidence interval.

    Algorithm: records are compared as a set (exact duplicate records are counted once, as in
    anonymeter). When the original and the control sets differ in size, the larger one is
    evaluated on a random subsample of the smaller one's size, so that both are equally easy to
    single out in (anonymeter corrects with a fitted model instead). Counting is exact
    (`sdcsession.risk.attacks._queries`).

    Missing values: a missing value is a value of its own: a predicate ``is null`` matches it,
    any comparison with it is false.

    Example
    -------
    >>> import sdcsession as sdc
    >>> df = sdc.datasets.synthetic_survey(2000, seed=1)[["region", "sex", "age", "income"]]
    >>> r = singling_out(df.iloc[:1000], df.iloc[:1000], df.iloc[1000:], n_attacks=200, seed=1)
    >>> r.attack_rate > r.control_rate
    True
    """
    if not isinstance(mode, str) or mode not in ("multivariate", "univariate"):
        raise ParameterError(f"mode: expected 'multivariate' or 'univariate', got {mode!r}")
    n_attacks = check_count(n_attacks, "n_attacks")
    n_cols = check_count(n_cols, "n_cols")
    max_attempts = check_count(max_attempts, "max_attempts")
    confidence = check_confidence(confidence)
    rng = check_seed(seed)
    o, r, c, cols = check_inputs(original, release, control, columns, "singling_out")
    if mode == "multivariate" and n_cols > len(cols):
        raise ParameterError(f"n_cols: {n_cols} columns per predicate, but only {len(cols)} "
                             f"columns are attacked ({cols})")
    (xo, xr, xc), numeric = encode_frames([o, r, c], cols)
    xo, xr = unique_rows(xo), unique_rows(xr)
    xc = None if xc is None else unique_rows(xc)
    if xc is not None and len(xo) != len(xc):
        small = min(len(xo), len(xc))
        if len(xo) > small:
            xo = xo[np.sort(rng.choice(len(xo), size=small, replace=False))]
        else:
            xc = xc[np.sort(rng.choice(len(xc), size=small, replace=False))]
    t_rel, t_ori = Table(xr), Table(xo)
    if mode == "multivariate":
        queries, attempts = multivariate_queries(t_rel, numeric, n_attacks, n_cols, max_attempts,
                                                 rng)
    else:
        queries, attempts = univariate_queries(t_rel, numeric, n_attacks, rng)
    n_q = len(queries[0])
    if n_q < n_attacks:
        warnings.warn(f"singling_out: only {n_q} of {n_attacks} predicates single out a record "
                      f"of the release ({attempts} tried); the others count as failed attacks, "
                      "which can underestimate the risk", SdcWarning, stacklevel=user_stacklevel())
    n_success = int((t_ori.count(*queries) == 1).sum())
    base = random_queries(t_rel, numeric, n_attacks, 1 if mode == "univariate" else n_cols, rng)
    n_baseline = int((t_ori.count(*base) == 1).sum())
    n_control = None if xc is None else int((Table(xc).count(*queries) == 1).sum())
    return AttackResult.from_counts(
        "singling_out", n_attacks=n_attacks, n_success=n_success, n_baseline=n_baseline,
        n_control=n_control, confidence=confidence,
        details={"mode": mode, "n_cols": n_cols if mode == "multivariate" else 1,
                 "columns": cols, "queries": n_q, "attempts": attempts,
                 "records_evaluated": len(xo)})
