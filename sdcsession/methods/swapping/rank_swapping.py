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

Options (`sdcsession.methods.swapping.rank_swap_criteria`): ``top`` / ``bottom`` percent of the largest /
smallest values are replaced by their group mean and not swapped (sdcMicro ``TopPercent`` /
``BottomPercent``); instead of ``p`` the rank range may be derived from Moore's multivariate
preservation factor ``r0`` (correlation after / before swapping) or subset-mean preservation
factor ``k0``. The pairing draws only from the step's generator, so a session step
``rank_swap(..., seed=s)`` is reproducible (sdcMicro's ``seed`` argument does not make its
results reproducible).

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

from ...errors import TreatmentError
from ...roles import Roles
from ..base import Result, Treatment
from ..noise.addition import _names, numeric_block
from .rank_swap_criteria import check_rank_options, group_extremes, rank_range

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
    """``values`` as a Series with the index and (where possible without changing a value) the
    dtype of ``like``."""
    out = pd.Series(values, index=like.index, name=like.name)
    if pd.api.types.is_integer_dtype(like.dtype):
        obs = values[~np.isnan(values)]
        if not np.array_equal(obs, np.round(obs)):
            return out  # group means are not whole numbers: stay float
    try:
        return out.astype(like.dtype)
    except (TypeError, ValueError):
        return out


def rank_swap(data: pd.DataFrame, columns: list[str] | tuple[str, ...], *,
              p: float | None = 5.0, top: float = 0.0, bottom: float = 0.0,
              r0: float | None = None, k0: float | None = None,
              rng: np.random.Generator) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Rank-swap each of ``columns`` within a rank range (see the module docstring).

    The rank range is ``p`` percent of the observed values (default 5), or derived from Moore's
    ``r0`` or ``k0`` (``p`` gives way to them); ``top`` / ``bottom`` percent of the largest /
    smallest values are replaced by their group mean and not swapped (see
    `sdcsession.methods.swapping.rank_swap_criteria`).

    Returns the new DataFrame and notes: ``max_rank_distance`` P per column, ``max_rank_shift``
    (the largest realised rank displacement, ≤ P), ``changed`` (values that changed),
    ``top_coded`` / ``bottom_coded`` (values replaced by their group mean).

    Reference: Moore (1996).

    Example
    -------
    >>> df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6], "b": [6.0, 5, 4, 3, 2, 1]})
    >>> out, _ = rank_swap(df, ["a", "b"], p=50, rng=np.random.default_rng(2))
    >>> sorted(out["a"]) == [1, 2, 3, 4, 5, 6]
    True
    """
    columns = tuple(columns)
    p, r0, k0, top, bottom = check_rank_options(p, r0, k0, top, bottom)
    x = numeric_block(data, columns, "rank_swap")
    out = x.copy()
    notes: dict[str, Any] = {"p": p, "r0": r0, "k0": k0, "top": top, "bottom": bottom,
                             "max_rank_distance": {}, "max_rank_shift": {}, "changed": {},
                             "top_coded": {}, "bottom_coded": {}}
    for j, c in enumerate(columns):
        obs = np.flatnonzero(~np.isnan(x[:, j]))
        n = len(obs)
        order = obs[np.argsort(x[obs, j], kind="stable")]
        vals, n_top, n_bot = group_extremes(x[order, j], top, bottom)
        mid = order[n_bot:n - n_top]
        if len(mid) < 2:
            raise TreatmentError(f"rank_swap: top={top:g} % and bottom={bottom:g} % leave fewer "
                                 f"than 2 values of column {c!r} to swap")
        big_p = rank_range(vals[n_bot:n - n_top], n_observed=n, p=p, r0=r0, k0=k0, column=c)
        perm = swap_pairs(len(mid), big_p + 1, rng)
        out[order, j] = vals
        out[mid, j] = x[mid[perm], j]
        notes["max_rank_distance"][c] = big_p
        notes["max_rank_shift"][c] = int(np.abs(perm - np.arange(len(mid))).max())
        notes["changed"][c] = int((out[obs, j] != x[obs, j]).sum())
        notes["top_coded"][c] = n_top
        notes["bottom_coded"][c] = n_bot
    new = {c: _restore(out[:, j], data[c]) for j, c in enumerate(columns)}
    return data.assign(**new), notes


@attrs.frozen
class RankSwap(Treatment):
    """Rank swapping treatment (tag ``"rank_swap"``); see `rank_swap`.

    Parameters: ``columns``; one of ``p`` (percent of the observed values, default 5), ``r0``
    or ``k0`` (Moore's criteria; ``p`` gives way to them); ``top`` / ``bottom`` percent grouped
    by their mean before swapping. The step's generator drives the pairing, so ``seed`` in the session
    method is honoured.

    >>> RankSwap(["income"], p=5).to_dict()
    {'type': 'rank_swap', 'columns': ['income'], 'p': 5.0, 'top': 0.0, 'bottom': 0.0, 'r0': None, 'k0': None}
    """

    type: ClassVar[str] = "rank_swap"
    random: ClassVar[bool] = True

    columns: tuple[str, ...] = attrs.field(converter=lambda v: _names(v, "columns"))
    p: float | None = attrs.field(default=5.0)
    top: float = attrs.field(default=0.0)
    bottom: float = attrs.field(default=0.0)
    r0: float | None = attrs.field(default=None)
    k0: float | None = attrs.field(default=None)

    def __attrs_post_init__(self) -> None:
        p, r0, k0, top, bottom = check_rank_options(self.p, self.r0, self.k0, self.top,
                                                    self.bottom)
        for name, v in (("p", p), ("r0", r0), ("k0", k0), ("top", top), ("bottom", bottom)):
            object.__setattr__(self, name, v)

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        numeric_block(data, self.columns, "rank_swap")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = rank_swap(data, self.columns, p=self.p, top=self.top, bottom=self.bottom,
                               r0=self.r0, k0=self.k0, rng=rng)
        return Result(out, notes=notes)
