"""Parameter checks and frame helpers of the suppression kernels (internal).

Shared by `sdcsession.methods.suppression.local.local_suppression` and
`sdcsession.methods.suppression.local.suppress_by_risk`: name lists, ``k``, ``combinations``,
the importance ranks, the engine, the data frame and its keys; key codes and the masked result
frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...errors import ParameterError, TreatmentError
from ..base import check_choice, check_int, check_number, check_size, param_names
from ._core import ENGINES

__all__: list[str] = []


def _names(value: Any, what: str) -> tuple[str, ...] | None:
    return None if value is None else param_names(value, what)


def _importance(value: Any) -> tuple[str, ...] | tuple[int, ...] | None:
    """``importance`` as key names (most important first) or sdcMicro's numeric vector aligned
    with the keys (1 = most important = suppressed last; equal numbers tie)."""
    if value is None:
        return None
    if not isinstance(value, str):
        try:
            check_size("importance", value, 10_000)  # before materialising it (range(10**9))
            vals = list(value)
        except TypeError:
            vals = None
        if vals and all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                        for v in vals):
            if any(v < 1 or v > 10**6 for v in vals):
                raise ParameterError(
                    f"importance: numeric importance ranks must be integers >= 1, got {vals}")
            return tuple(int(v) for v in vals)
    return param_names(value, "importance")


def _check_k(k: Any) -> float:
    """k as a float >= 2 (k-anonymity with k < 2 is void), or `ParameterError`."""
    return check_number("k", k, 2)


def _check_k_fits(k: float, total: float, weighted: bool) -> None:
    """`TreatmentError` when no record could ever reach k: k above the number of records
    (``weighted``: above the total weight)."""
    if k > total + 1e-9:
        what = f"the total weight ({total:g})" if weighted else f"the number of records ({total:g})"
        raise TreatmentError(
            f"k: k = {k:g} is larger than {what}; no record can be {k:g}-anonymous: lower k")


def _check_combinations(value: Any) -> tuple[int, ...] | None:
    if value is None:
        return None
    what = "combinations (a subset size, or a list of sizes)"
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        vals: Any = [value]
    elif isinstance(value, (list, tuple, np.ndarray)):
        vals = value
        check_size("combinations", vals, 1000)
        if not len(vals):
            raise ParameterError("combinations: expected at least one subset size")
    else:
        raise ParameterError(f"combinations: expected a subset size (int >= 1) or a list of sizes, "
                             f"got {value!r:.60}")
    out = tuple(check_int(what, v, 1, 10_000) for v in vals)
    return tuple(sorted(set(out)))


def _encode(df: pd.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, list[int]]:
    from ...risk._codes import encode_keys

    return encode_keys(df, keys)


def _set_missing(df: pd.DataFrame, keys: Sequence[str], mask: np.ndarray) -> pd.DataFrame:
    """New frame with ``df[keys[j]]`` set missing where ``mask[:, j]`` (only changed columns)."""
    new = {}
    for j, c in enumerate(keys):
        if mask[:, j].any():
            new[c] = df[c].mask(pd.Series(mask[:, j], index=df.index))
    return df.assign(**new) if new else df.copy(deep=False)


def _validate_frame(df: Any, keys: Sequence[str], what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise TreatmentError(f"{what}: expected a pandas DataFrame, got {type(df).__name__}")
    if not keys:
        raise TreatmentError(f"{what}: no key variables given")
    missing = [c for c in keys if c not in df.columns]
    if missing:
        raise TreatmentError(f"{what}: unknown key column(s) {missing}; the data has {list(df.columns)}")


def _ranks(keys: Sequence[str], importance: Sequence[str] | Sequence[int] | None
           ) -> np.ndarray | None:
    """Per key: larger = less important (suppressed first). Named importance: unnamed keys rank
    after named ones, all equal (the search chooses among them by gain). Numeric importance
    (sdcMicro's vector, 1 = most important) is the rank itself and must have one entry per key."""
    if importance is None:
        return None
    if importance and all(isinstance(v, (int, np.integer)) for v in importance):
        if len(importance) != len(keys):
            raise TreatmentError(
                f"importance: a numeric importance needs one rank per key variable "
                f"({len(keys)}: {list(keys)}), got {len(importance)}")
        return np.asarray(importance, dtype=float)
    unknown = [v for v in importance if v not in keys]
    if unknown:
        raise TreatmentError(f"importance: {unknown} not among the key variables {list(keys)}")
    rank = np.empty(len(keys))
    for j, c in enumerate(keys):
        rank[j] = importance.index(c) if c in importance else len(importance)
    return rank



def _check_engine(engine: Any, weighted: Any = False, cap: Any = None) -> str:
    """``engine``: one of `ENGINES`; ``"hub_trie"`` and ``"cluster"`` need unit weights
    (``weighted=False``: both are k-anonymous by construction only when every record counts
    one), and ``max_suppressed_per_record`` (``cap``) binds the hub trie only (``"auto"`` or
    ``"hub_trie"``). Raises `ParameterError` naming the parameter."""
    engine = check_choice("engine", engine, ENGINES)
    if engine in ("hub_trie", "cluster") and isinstance(weighted, (bool, np.bool_)) and weighted:
        raise ParameterError(f"engine: {engine!r} counts every record once; weighted=True needs "
                             "engine='rounds' or 'auto'")
    if cap is not None and engine in ("rounds", "cluster"):
        raise ParameterError(f"max_suppressed_per_record: the cap of the hub trie; engine="
                             f"{engine!r} has none (use engine='auto' or 'hub_trie', or leave "
                             "max_suppressed_per_record=None)")
    return engine
