"""Household (hierarchical) risk: the probability that at least one household member is re-identified.

For household h with members i, assuming independent re-identification events,

    r_h = 1 − ∏_{i in h} (1 − r_i),

assigned to every member (sdcMicro ``measure_risk``'s ``hier_risk``). It is computed as
``−expm1(Σ log1p(−r_i))`` with one ``bincount`` over the household codes, which keeps full
relative precision for small risks. The expected number of re-identified records is the sum of
the per-record household risks (sdcMicro ``hier_risk_ER``).

Reference: Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4), sec. 3.3 (household risk).

Example
-------
>>> import pandas as pd
>>> from sdcsession.risk import household_risk
>>> df = pd.DataFrame({"sex": ["m", "m", "f", "f"], "hid": [1, 1, 2, 3]})
>>> household_risk(df, ["sex"], weight=None, household="hid").tolist()
[0.75, 0.75, 0.5, 0.5]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sized
from typing import Any

import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from ._codes import _unhashable, check_columns, check_frame
from .individual import _as_risk, individual_risk

__all__ = ["household_risk", "household_risk_from_individual"]


def _household_codes(df: pd.DataFrame, household: str) -> tuple[np.ndarray, int]:
    if not isinstance(household, str):
        raise ParameterError(f"household: expected one column name (str), got {household!r}")
    check_columns(df, [household], "household")
    try:
        codes, uniq = pd.factorize(df[household], use_na_sentinel=True)
    except TypeError:
        raise _unhashable(df[household], "household") from None
    if (codes < 0).any():
        raise MeasureError(
            f"household: column {household!r} has {int((codes < 0).sum())} missing value(s); "
            "every record needs a household id")
    return np.asarray(codes, dtype=np.int64), len(uniq)


def household_risk_from_individual(
    risk: pd.Series | np.ndarray, household: pd.Series | np.ndarray,
) -> pd.Series:
    """Household risk 1 − ∏(1 − r_i) per record from individual risks and household ids.

    Missing values: a missing risk or household id is refused with a MeasureError.

    >>> household_risk_from_individual([0.5, 0.5, 0.1], [1, 1, 2]).tolist()
    [0.75, 0.75, 0.1]
    """
    r = _as_risk(risk)
    h = _household_ids(household, len(r))
    if isinstance(risk, pd.Series) and isinstance(household, pd.Series) \
            and not household.index.equals(risk.index):
        idx = risk.index
        if not (idx.is_unique and household.index.is_unique and len(idx) == len(household.index)
                and idx.sort_values().equals(household.index.sort_values())):
            raise MeasureError(
                "household: the household ids and the risks are indexed by different records; "
                "give both for the same records (same index labels)")
        h = household.reindex(idx)
    try:
        codes, m = pd.factorize(h, use_na_sentinel=True)
    except TypeError:
        raise _unhashable(h.rename("household"), "household") from None
    if (codes < 0).any():
        raise MeasureError("household: missing household ids")
    index = risk.index if isinstance(risk, pd.Series) else None
    return pd.Series(_hrisk(r, np.asarray(codes, dtype=np.int64), len(m)), index=index,
                     name="household_risk")


def _household_ids(household: Any, n: int) -> pd.Series:
    """Household ids as a Series of length ``n`` (MeasureError for other shapes or types)."""
    if isinstance(household, pd.Series):
        h = household
    elif isinstance(household, np.ndarray) and household.ndim == 1:
        h = pd.Series(household)
    elif household is None or isinstance(household, (str, bytes, Mapping, pd.DataFrame, np.ndarray)) \
            or not isinstance(household, Sized):
        raise MeasureError(
            f"household: expected one household id per record (a Series, array or list), got "
            f"{type(household).__name__}")
    else:
        h = pd.Series(list(household), dtype=object)
    if len(h) != n:
        raise MeasureError(f"household: {len(h)} ids for {n} individual risks")
    return h


def _hrisk(r: np.ndarray, codes: np.ndarray, m: int) -> np.ndarray:
    with np.errstate(divide="ignore"):
        s = np.bincount(codes, weights=np.log1p(-r), minlength=m)
    return -np.expm1(s)[codes]


def household_risk(
    df: pd.DataFrame,
    keys: str | Iterable[str],
    *,
    weight: str | None,
    household: str,
    alpha: float = 1.0,
    method: str = "approx",
) -> pd.Series:
    """Household risk of every record, aligned to ``df.index`` (name ``household_risk``).

    r_h = 1 − ∏_{i in h}(1 − r_i) with r_i the individual risk of
    `individual_risk` (same ``keys``, ``weight``, ``alpha``, ``method``).
    ``weight`` is required as a keyword (``None`` for unweighted data, risk 1/fk).

    Reference: Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4), sec. 3.3.

    Missing values: missing key values are wildcards (see `frequencies`); missing household ids are
    refused with a MeasureError.

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": ["x", "x", "y"], "w": [2.0, 2.0, 1.0], "h": [1, 2, 2]})
    >>> household_risk(df, "a", weight="w", household="h").round(4).tolist()
    [0.3069, 1.0, 1.0]
    """
    check_frame(df)
    codes, m = _household_codes(df, household)
    r = individual_risk(df, keys, weight=weight, alpha=alpha, method=method).to_numpy()
    return pd.Series(_hrisk(r, codes, m), index=df.index, name="household_risk")
