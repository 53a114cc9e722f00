"""Linkability risk of a released file, measured by attack with a control set.

The attacker holds two files about the same people with different columns, ``A`` and ``B``
(``aux_cols``), and uses the release to link them: a target record is *linked* when, among its
``n_neighbors`` nearest release records on the columns ``A`` and its ``n_neighbors`` nearest on
the columns ``B``, one release record is the same (Giomi et al. 2023, section 4.2). The distance
is Gower's on mixed data, exact (`sdcsession.risk.attacks._neighbours`).

Arms (``n_attacks`` targets each): original records (training), control records, and a baseline
that picks the ``n_neighbors`` release records of each side at random. Rates, risk and interval
as in `sdcsession.risk.attacks.AttackResult`: ``R = (r_t − r_c)/(1 − r_c)``.

Reference: Giomi, Boenisch, Wehmeyer & Tasnádi (2023), "A Unified Framework for Quantifying
Privacy Risk in Synthetic Data", PoPETs 2023(2), 312-328; Article 29 Working Party (2014),
Opinion 05/2014 on anonymisation techniques (linkability).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...errors import ParameterError
from ._common import (
    AttackResult,
    check_confidence,
    check_count,
    check_inputs,
    check_seed,
    encode_frames,
)
from ._neighbours import gower_ranges, nearest

__all__ = ["linkability", "check_column_groups"]


def check_column_groups(aux_cols: Any) -> tuple[list[str], list[str]]:
    """``aux_cols`` as two disjoint non-empty lists of column names (`ParameterError` otherwise)."""
    if (not isinstance(aux_cols, (list, tuple)) or len(aux_cols) != 2
            or any(isinstance(g, str) or not isinstance(g, (list, tuple)) or not g
                   or not all(isinstance(c, str) for c in g) for g in aux_cols)):
        raise ParameterError("aux_cols: expected two non-empty lists of column names, e.g. "
                             f"(['age', 'sex'], ['region', 'income']), got {aux_cols!r}"[:300])
    a, b = list(aux_cols[0]), list(aux_cols[1])
    both = sorted(set(a) & set(b))
    if both:
        raise ParameterError(f"aux_cols: the two groups share {both}; give disjoint groups")
    return a, b


def _linked(targets: np.ndarray, release: np.ndarray, ga: list[int], gb: list[int],
            numeric: np.ndarray, ranges: np.ndarray, k: int) -> np.ndarray:
    _, ia = nearest(targets[:, ga], release[:, ga], numeric[ga], ranges[ga], k)
    _, ib = nearest(targets[:, gb], release[:, gb], numeric[gb], ranges[gb], k)
    return (ia[:, :, None] == ib[:, None, :]).any(axis=(1, 2))


def linkability(original: pd.DataFrame, release: pd.DataFrame,
                control: pd.DataFrame | None = None, *,
                aux_cols: tuple[Sequence[str], Sequence[str]], n_attacks: int = 500,
                n_neighbors: int = 1, seed: Any = 0, confidence: float = 0.95) -> AttackResult:
    """Linkability risk of ``release`` for the records of ``original`` (see the module).

    Parameters
    ----------
    original : the records behind the release (training records).
    release : the released file.
    control : records of the same population not used for the release (None: risk = training
        rate).
    aux_cols : two disjoint groups of columns, the two files the attacker links.
    n_attacks : target records per arm (at most the records of the file attacked).
    n_neighbors : nearest release records considered on each side.
    seed : seed of the choice of targets and of the baseline.
    confidence : level of the confidence interval.

    Formula: success of target t when ``N_k^A(t) ∩ N_k^B(t) ≠ ∅``, ``N_k^G(t)`` the k nearest
    release records of t on the columns G; ``R = (r_t − r_c)/(1 − r_c)`` with Wilson rates.

    Missing values: in the Gower distance two missing values are equal and a missing value is at
    distance 1 from any present one.

    Example
    -------
    >>> import sdcsession as sdc
    >>> df = sdc.datasets.synthetic_survey(1000, seed=1)[["age", "sex", "income", "expend"]]
    >>> r = linkability(df.iloc[:500], df.iloc[:500], df.iloc[500:], n_attacks=100,
    ...                 aux_cols=(["age", "sex"], ["income", "expend"]))
    >>> r.attack_rate > r.control_rate
    True
    """
    ga, gb = check_column_groups(aux_cols)
    n_attacks = check_count(n_attacks, "n_attacks")
    k = check_count(n_neighbors, "n_neighbors")
    confidence = check_confidence(confidence)
    rng = check_seed(seed)
    o, r, c, cols = check_inputs(original, release, control, ga + gb, "linkability")
    (xo, xr, xc), numeric = encode_frames([o, r, c], cols)
    ranges = gower_ranges([xo, xr, xc], numeric)
    ia, ib = list(range(len(ga))), list(range(len(ga), len(cols)))
    k = min(k, len(xr))
    n_t = min(n_attacks, len(xo))
    t = xo[rng.choice(len(xo), size=n_t, replace=False)]
    n_success = int(_linked(t, xr, ia, ib, numeric, ranges, k).sum())
    n_c = None
    n_control = None
    if xc is not None:
        n_c = min(n_attacks, len(xc))
        tc = xc[rng.choice(len(xc), size=n_c, replace=False)]
        n_control = int(_linked(tc, xr, ia, ib, numeric, ranges, k).sum())
    ra = np.argsort(rng.random((n_t, len(xr))), axis=1)[:, :k] if len(xr) <= 2000 else \
        np.stack([rng.choice(len(xr), size=k, replace=False) for _ in range(n_t)])
    rb = np.argsort(rng.random((n_t, len(xr))), axis=1)[:, :k] if len(xr) <= 2000 else \
        np.stack([rng.choice(len(xr), size=k, replace=False) for _ in range(n_t)])
    n_baseline = int((ra[:, :, None] == rb[:, None, :]).any(axis=(1, 2)).sum())
    return AttackResult.from_counts(
        "linkability", n_attacks=n_t, n_success=n_success, n_baseline=n_baseline,
        n_control=n_control, n_attacks_control=n_c, confidence=confidence,
        details={"aux_cols": (ga, gb), "n_neighbors": k})
