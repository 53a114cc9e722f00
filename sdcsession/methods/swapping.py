"""Rank swapping of numeric variables (Moore 1996), vectorised.

Parameter ``p`` (percent): two values of a variable may be exchanged only if their ranks differ by
at most ``P = floor(p·n/100)``, n the number of observed values of that variable (sdcMicro's
``rankSwap(P=...)`` uses the same percentage convention). Every variable is swapped independently.

Algorithm. Moore's original procedure walks the records in rank order and swaps each unswapped
value with a random unswapped partner at most P ranks above — a sequential loop over records.
Here the pairing is drawn in one vectorised pass with the same guarantee: the sorted values are cut
into windows of P + 1 consecutive ranks, the cut points shifted by a random offset in [0, P]; in
each window the ranks are shuffled and paired two by two (an odd one out stays); paired values are
exchanged. Any two ranks in one window differ by at most P, so **no value moves further than P
ranks** (tested); each value is swapped with probability ≈ 1 (all but at most one per window). The
difference to Moore's draw is the distribution of the partner's rank distance (uniform pairing
within a window rather than "next unswapped upward"), not the bound.

Missing values stay where they are and are not ranked. Ties are ranked in file order.

Reference: Moore, R. A. (1996) Controlled data-swapping techniques for masking public use
microdata sets, Statistical Research Division Report RR96-04, U.S. Bureau of the Census.

Example
-------
>>> import numpy as np, pandas as pd
>>> df = pd.DataFrame({"x": np.arange(100.0)})
>>> out, notes = rank_swap(df, ["x"], p=5, rng=np.random.default_rng(0))
>>> notes["max_rank_shift"]["x"] <= 5, sorted(out["x"]) == sorted(df["x"])
(True, True)
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ..errors import TreatmentError
from ..roles import Roles
from .base import Result, Treatment, check_number
from .noise import _names, numeric_block

__all__ = ["rank_swap", "RankSwap", "swap_pairs"]


def swap_pairs(n: int, window: int, rng: np.random.Generator) -> np.ndarray:
    """A permutation ``perm`` of ``range(n)`` made of disjoint transpositions with
    ``|perm[i] − i| ≤ window − 1`` (random windows of ``window`` consecutive positions).

    >>> perm = swap_pairs(10, 3, np.random.default_rng(1))
    >>> bool((np.abs(perm - np.arange(10)) <= 2).all() and (perm[perm] == np.arange(10)).all())
    True
    """
    perm = np.arange(n)
    if window < 2 or n < 2:
        return perm
    offset = int(rng.integers(0, window))
    win = (np.arange(n) + offset) // window
    key = rng.random(n)
    order = np.lexsort((key, win))  # positions grouped by window, random order inside
    w_sorted = win[order]
    starts = np.flatnonzero(np.r_[True, w_sorted[1:] != w_sorted[:-1]])
    counts = np.diff(np.r_[starts, n])
    rank_in = np.arange(n) - np.repeat(starts, counts)
    size = np.repeat(counts, counts)
    # pair 0-1, 2-3, ... inside each window; the last of an odd window stays
    first = (rank_in % 2 == 0) & (rank_in + 1 < size)
    a = order[np.flatnonzero(first)]
    b = order[np.flatnonzero(first) + 1]
    perm[a] = b
    perm[b] = a
    return perm


def _restore(values: np.ndarray, like: pd.Series) -> pd.Series:
    """``values`` as a Series with the index and (where possible) the dtype of ``like``."""
    out = pd.Series(values, index=like.index, name=like.name)
    try:
        return out.astype(like.dtype)
    except (TypeError, ValueError):
        return out


def rank_swap(data: pd.DataFrame, columns: list[str] | tuple[str, ...], *, p: float = 5.0,
              rng: np.random.Generator) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Rank-swap each of ``columns`` within ``p`` percent of its rank range (see module docstring).

    Returns the new DataFrame and notes: ``max_rank_distance`` P per column, ``max_rank_shift``
    (the largest realised rank displacement, ≤ P), ``changed`` (values that changed).

    Example
    -------
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6], "b": [6.0, 5, 4, 3, 2, 1]})
    >>> out, _ = rank_swap(df, ["a", "b"], p=50, rng=np.random.default_rng(2))
    >>> sorted(out["a"]) == [1, 2, 3, 4, 5, 6]
    True
    """
    columns = tuple(columns)
    check_number("p (a percentage)", p, 0, 100, lo_open=True)
    x = numeric_block(data, columns, "rank_swap")
    out = x.copy()
    notes: dict[str, Any] = {"p": float(p), "max_rank_distance": {}, "max_rank_shift": {},
                             "changed": {}}
    for j, c in enumerate(columns):
        obs = np.flatnonzero(~np.isnan(x[:, j]))
        n = len(obs)
        big_p = int(np.floor(p * n / 100.0))
        if big_p < 1:
            raise TreatmentError(
                f"rank_swap: p={p} % of the {n} observed values of {c!r} is less than one rank; "
                f"use p ≥ {100.0 / n:.3g}")
        order = obs[np.argsort(x[obs, j], kind="stable")]
        perm = swap_pairs(n, big_p + 1, rng)
        out[order, j] = x[order[perm], j]
        notes["max_rank_distance"][c] = big_p
        notes["max_rank_shift"][c] = int(np.abs(perm - np.arange(n)).max()) if n else 0
        notes["changed"][c] = int((out[obs, j] != x[obs, j]).sum())
    new = {c: _restore(out[:, j], data[c]) for j, c in enumerate(columns)}
    return data.assign(**new), notes


@attrs.frozen
class RankSwap(Treatment):
    """Rank swapping treatment (tag ``"rank_swap"``); see `rank_swap`.

    >>> RankSwap(["income"], p=5).to_dict()
    {'type': 'rank_swap', 'columns': ['income'], 'p': 5.0}
    """

    type: ClassVar[str] = "rank_swap"
    random: ClassVar[bool] = True

    columns: tuple[str, ...] = attrs.field(converter=lambda v: _names(v, "columns"))
    p: float = attrs.field(default=5.0)

    @p.validator
    def _p(self, _a: Any, v: Any) -> None:
        check_number("p (a percentage)", v, 0, 100, lo_open=True)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "p", float(self.p))

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        numeric_block(data, self.columns, "rank_swap")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = rank_swap(data, self.columns, p=self.p, rng=rng)
        return Result(out, notes=notes)
