"""Household-level keys of local suppression (internal).

`_household_keys` finds the keys constant within every household (or checks the ones given);
`_household_consistent` spreads a household-level suppression to every member of the household
(`sdcsession.methods.suppression.local.local_suppression` with ``household=``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...errors import TreatmentError
from ..base import require_columns

__all__: list[str] = []


def _household_keys(df: pd.DataFrame, keys: Sequence[str], household: str,
                    household_keys: Sequence[str] | None) -> tuple[np.ndarray, list[str]]:
    """Household index per record and the household-level keys (given, or constant within every
    household)."""
    require_columns(df, [household], "local_suppression household")
    hid, _ = pd.factorize(df[household], use_na_sentinel=True)
    if (hid < 0).any():
        raise TreatmentError(f"household: column {household!r} has missing household ids")
    nh = int(hid.max()) + 1 if len(hid) else 0
    if household_keys is None:
        hk = []
        for c in keys:
            codes = pd.factorize(df[c], use_na_sentinel=True)[0]
            lo = np.full(nh, np.iinfo(np.int64).max)
            hi = np.full(nh, -2)
            np.minimum.at(lo, hid, codes)
            np.maximum.at(hi, hid, codes)
            if np.array_equal(lo, hi):
                hk.append(c)
    else:
        hk = list(household_keys)
        unknown = [c for c in hk if c not in keys]
        if unknown:
            raise TreatmentError(f"household_keys: {unknown} are not key variables {list(keys)}")
    return hid, hk


def _household_consistent(hid: np.ndarray, hk: Sequence[str], keys: Sequence[str],
                          new_mask: np.ndarray, orig_missing: np.ndarray) -> int:
    """Extend suppressions of household-level keys to all members (in place); return the number added."""
    nh = int(hid.max()) + 1 if len(hid) else 0
    added = 0
    for c in hk:
        j = keys.index(c)
        hit = np.bincount(hid[new_mask[:, j]], minlength=nh) > 0
        extra = hit[hid] & ~new_mask[:, j] & ~orig_missing[:, j]
        added += int(extra.sum())
        new_mask[extra, j] = True
    return added
