"""k-anonymity: violations and the μ-ARGUS-style table of unsafe key combinations.

A record violates k-anonymity when its sample frequency fk (missing keys as wildcards, see
`frequencies`) is below k; the weighted variant compares the estimated
population frequency Fk with k instead.

The *unsafe combinations* table follows μ-ARGUS ("combinations of key variables up to a given
dimension whose cells are rare"): for every subset of the key variables of size 1..``max_dim``, the
records are cross-classified on those keys and a cell is *unsafe* when it holds fewer than k
records. Records missing any key of the subset are left out of that subset's table (a missing value
is not a category and, as a wildcard, cannot make a cell rarer).

References: Samarati & Sweeney (1998), *Protecting privacy when disclosing information:
k-anonymity and its enforcement*, SRI-CSL-98-04; Hundepool et al. (2014), *μ-ARGUS 5.1 user's
manual*, sec. 4 ("unsafe combinations"); Hundepool et al. (2012), *Statistical Disclosure
Control*, Wiley, sec. 3.4.

Example
-------
>>> import pandas as pd
>>> from sdcsession.risk import k_violations, unsafe_combinations
>>> df = pd.DataFrame({"sex": ["m", "m", "f", "f"], "reg": ["a", "a", "a", "b"]})
>>> k_violations(df, ["sex", "reg"], 2)
2
>>> unsafe_combinations(df, ["sex", "reg"], k=2)[["keys", "n_cells", "n_unsafe", "n_records"]]
        keys  n_cells  n_unsafe  n_records
0        sex        2         0          0
1        reg        2         1          1
2  sex × reg        3         2          2
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ._codes import (
    as_keys,
    check_columns,
    check_flag,
    check_frame,
    check_k,
    combine,
    encode_keys,
)
from .frequencies import frequencies

__all__ = ["k_violations", "unsafe_combinations"]

#: refuse tables over more subsets of keys than this (2^p − 1 grows fast); ``max_dim`` bounds it
MAX_SUBSETS = 1 << 17


def k_violations(
    df: pd.DataFrame,
    keys: str | Iterable[str],
    k: float,
    *,
    weight: str | None = None,
    weighted: bool = False,
    alpha: float = 1.0,
) -> int:
    """Number of records violating k-anonymity: #{i : fk_i < k} (``weighted=True``: Fk_i < k).

    Missing values: missing key values are wildcards weighted by ``alpha`` (sdcMicro's rule); other
    variables play no part.

    Parameters
    ----------
    df, keys : the data and its key variables (missing values are wildcards weighted by ``alpha``).
    k : the anonymity threshold, a number >= 1.
    weight : sampling weight column (required for ``weighted=True``).
    weighted : count records whose estimated population frequency Fk is below k.

    Reference: Samarati & Sweeney (1998); sdcMicro ``measure_risk`` (``n_fk_lt``).

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": ["x", "x", "y"], "w": [3.0, 3.0, 10.0]})
    >>> k_violations(df, "a", 3), k_violations(df, "a", 7, weight="w", weighted=True)
    (3, 2)
    """
    kk = check_k(k)
    weighted = check_flag(weighted, "weighted")
    if weighted and weight is None:
        raise ParameterError("weighted: weighted=True needs a weight column (weight=...)")
    f = frequencies(df, keys, weight=weight, alpha=alpha)
    col = f["Fk"] if weighted else f["fk"]
    return int((col.to_numpy() < kk).sum())


def unsafe_combinations(
    df: pd.DataFrame,
    keys: str | Iterable[str],
    *,
    k: float = 3,
    max_dim: int | None = None,
) -> pd.DataFrame:
    """μ-ARGUS-style table of rare key combinations, one row per subset of keys (dimension ≤ max_dim).

    Columns: ``dim`` (number of keys), ``keys`` (names joined by " × "), ``variables`` (tuple),
    ``n_cells`` (non-empty cells), ``n_unsafe`` (cells with fewer than k records), ``n_records``
    (records in unsafe cells), ``n_missing`` (records left out for a missing key of the subset).
    Rows are ordered by dimension, then by the order of ``keys``. ``max_dim`` defaults to all keys;
    the cost is one ``bincount`` per subset (2^p − 1 subsets for p keys; more than `MAX_SUBSETS`
    subsets is a `ParameterError` asking for a smaller ``max_dim``).

    Reference: Hundepool et al. (2014), μ-ARGUS 5.1 user's manual, sec. 4.

    Missing values: a record missing a key of a subset is left out of that subset's table (counted
    in ``n_missing``); a numeric key is read as categories.

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": ["x", "x", "y"], "b": [1, 2, 2]})
    >>> unsafe_combinations(df, ["a", "b"], k=2, max_dim=1)["n_unsafe"].tolist()
    [1, 1]
    """
    check_frame(df)
    keys = as_keys(keys)
    check_columns(df, keys, "keys")
    kk = check_k(k)
    p = len(keys)
    if max_dim is None:
        max_dim = p
    if isinstance(max_dim, (bool, np.bool_)) or not isinstance(max_dim, (int, np.integer)) \
            or max_dim < 1:
        raise ParameterError(f"max_dim: expected an integer >= 1, got {max_dim!r}")
    max_dim = min(int(max_dim), p)
    n_subsets = sum(math.comb(p, d) for d in range(1, max_dim + 1))
    if n_subsets > MAX_SUBSETS:
        raise ParameterError(
            f"max_dim: tables of up to {max_dim} of {p} keys means {n_subsets} subsets (limit "
            f"{MAX_SUBSETS}); pass a smaller max_dim")
    codes, cards = encode_keys(df, keys)
    missing = codes < 0
    rows = []
    for dim in range(1, max_dim + 1):
        for combo in itertools.combinations(range(p), dim):
            cols = list(combo)
            ok = ~missing[:, cols].any(axis=1)
            if ok.all():
                g, size = combine(codes[:, cols], [cards[j] for j in cols])
            else:
                g, size = combine(codes[ok][:, cols], [cards[j] for j in cols])
            counts = np.bincount(g, minlength=size)
            nz = counts[counts > 0]
            unsafe = nz < kk
            rows.append({
                "dim": dim,
                "keys": " × ".join(keys[j] for j in cols),
                "variables": tuple(keys[j] for j in cols),
                "n_cells": int(nz.size),
                "n_unsafe": int(unsafe.sum()),
                "n_records": int(nz[unsafe].sum()),
                "n_missing": int((~ok).sum()),
            })
    return pd.DataFrame(rows)
