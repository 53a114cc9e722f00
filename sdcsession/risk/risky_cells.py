"""Risky cells of the low-dimensional tables of the key variables (μ-ARGUS, sdcMicro ``riskyCells``).

μ-ARGUS looks at every table spanned by a few key variables and calls a cell *unsafe* when it holds
at most ``t`` records: for a table ``T`` (a set of keys) and a cell ``c`` of it (one value of every
key of ``T``),

    count_T(c) = #{ i : x_ik = c_k for every key k in T },      c is unsafe when 0 < count_T(c) <= t_|T|,

with ``t_d`` the threshold of the tables of dimension ``d``. The counts are *unweighted* and a
missing value is a category of its own (sdcMicro ``riskyCells`` tabulates with data.table, which
groups missing values together); the comparison is ``<=`` as in μ-ARGUS ("the threshold is the
maximum value of a cell which is still considered unsafe") and sdcMicro (``N <= threshold``).
This is not the k-anonymity rule of `unsafe_combinations` (``< k``,
missing values left out).

Which tables:

- ``max_dim = D`` (default 2): every subset of the keys of size 1..D, in ``itertools.combinations``
  order (sdcMicro ``useIdentificationLevel=FALSE, maxDim=D``; the Dutch rule for public use files).
- ``combinations``: exactly the tables given.
- ``levels``: μ-ARGUS identification levels (0 = not identifying, 1 = most identifying, 2 = more
  identifying, 3 = identifying, ...). With ``l_1 < ... < l_L`` the distinct non-zero levels used,
  "each variable of level 1 is combined with each variable of level <= 2 with each variable of level
  <= 3, etc." (μ-ARGUS 5.1 manual, sec. 4.2; the Dutch rule for microdata under contract): the
  generated tables are the sets ``S`` of ``L`` keys with level > 0 such that
  ``#{v in S : level(v) <= l_d} >= d`` for every ``d = 1..L``. μ-ARGUS checks each generated table
  *and its marginal tables*, so all non-empty subsets of the generated tables are tabulated too.
  sdcMicro 5.8.1 (``useIdentificationLevel=TRUE``) does not apply this rule: it tabulates every
  subset of all the keys up to ``L`` = the number of distinct levels; call ``max_dim=L`` for its
  tables.

Algorithm: every key is encoded once as integer codes (missing = a code of its own); a table's cell
of each record is a mixed-radix code (hash-factorised when the radix space is large) counted with one
``np.bincount``; unsafe cells are found on the counts and decoded from one representative record.

References: Hundepool, de Wolf et al. (2014), *μ-ARGUS version 5.1 user's manual*, Statistics
Netherlands, secs. 3.3 and 4.2; Hundepool et al. (2012), *Statistical Disclosure Control*, Wiley,
sec. 3.4; Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4); sdcMicro 5.8.1 ``riskyCells``.

Example
-------
>>> import pandas as pd
>>> from sdcsession.risk import risky_cells
>>> df = pd.DataFrame({"sex": ["m", "m", "f", "f", "f"], "reg": ["a", "a", "a", "b", None]})
>>> risky_cells(df, ["sex", "reg"], threshold=1)[["table", "count", "sex", "reg"]]
       table  count  sex  reg
0        reg      1  NaN    b
1        reg      1  NaN  NaN
2  sex × reg      1    f    a
3  sex × reg      1    f    b
4  sex × reg      1    f  NaN
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from numbers import Real

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ._codes import as_keys, check_columns, check_flag, check_frame, check_k, combine, encode_column

__all__ = ["risky_cells", "tables_from_levels"]

#: refuse to tabulate more tables than this in one call
_MAX_TABLES = 200_000


def _encode(s: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Codes (-1 = missing) and categories of one key, categories sorted where the values allow."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        return np.asarray(s.array.codes, dtype=np.int64), s.dtype.categories
    encode_column(s, "keys")  # refuses unhashable cells with a RoleError
    try:
        codes, uniq = pd.factorize(s, sort=True, use_na_sentinel=True)
    except TypeError:  # values that do not sort together (mixed types)
        codes, uniq = pd.factorize(s, sort=False, use_na_sentinel=True)
    return np.asarray(codes, dtype=np.int64), pd.Index(uniq)


def _check_levels(levels: Mapping[str, int], keys: list[str]) -> dict[str, int]:
    if not isinstance(levels, Mapping):
        raise ParameterError(
            f"levels: expected a mapping {{key: identification level 0..5}}, got {levels!r}")
    unknown = [k for k in levels if k not in keys]
    absent = [k for k in keys if k not in levels]
    if unknown or absent:
        raise ParameterError(
            f"levels: give one identification level per key variable; not keys: {unknown}, "
            f"keys without a level: {absent}")
    out: dict[str, int] = {}
    for k, v in levels.items():
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v <= 5:
            raise ParameterError(
                f"levels: the identification level of {k!r} must be an integer in 0..5 "
                f"(0 = not identifying, 1 = most identifying), got {v!r}")
        out[k] = int(v)
    if not any(out.values()):
        raise ParameterError("levels: every level is 0 (not identifying); no table to check")
    return out


def tables_from_levels(levels: Mapping[str, int], *, marginals: bool = True) -> list[tuple[str, ...]]:
    """The tables μ-ARGUS generates from identification levels (the Dutch rule for MUC files).

    With ``l_1 < ... < l_L`` the distinct non-zero levels, the generated tables are the sets ``S``
    of ``L`` variables of level > 0 with ``#{v in S : level(v) <= l_d} >= d`` for ``d = 1..L``
    ("each variable of level 1 combined with each variable of level <= 2 with each variable of
    level <= 3 ..."). With ``marginals`` (μ-ARGUS checks them too) every non-empty subset of a
    generated table is added. Tables are ordered by dimension, then by the order of ``levels``.

    Reference: μ-ARGUS 5.1 user's manual, sec. 4.2 (Specify|Combinations).

    Missing values: not applicable (no data: builds the list of tables from levels).

    Example
    -------
    >>> tables_from_levels({"a": 1, "b": 2, "c": 2, "d": 0}, marginals=False)
    [('a', 'b'), ('a', 'c')]
    >>> tables_from_levels({"a": 1, "b": 2, "c": 2})
    [('a',), ('b',), ('c',), ('a', 'b'), ('a', 'c')]
    """
    if not isinstance(levels, Mapping):
        raise ParameterError(
            f"levels: expected a mapping {{key: identification level 0..5}}, got {levels!r}")
    marginals = check_flag(marginals, "marginals")
    lv = _check_levels(levels, list(levels))
    names = [k for k in lv if lv[k] > 0]
    distinct = sorted({lv[k] for k in names})
    big = len(distinct)
    if math.comb(len(names), big) > _MAX_TABLES:
        raise ParameterError(f"levels: more than {_MAX_TABLES} tables would be generated")
    top = []
    for combo in itertools.combinations(range(len(names)), big):
        ls = [lv[names[j]] for j in combo]
        if all(sum(x <= l_d for x in ls) >= d for d, l_d in enumerate(distinct, 1)):
            top.append(combo)
    chosen = set(top)
    if marginals:
        for combo in top:
            for d in range(1, big):
                chosen.update(itertools.combinations(combo, d))
    ordered = sorted(chosen, key=lambda c: (len(c), c))
    return [tuple(names[j] for j in c) for c in ordered]


def _tables(keys: list[str], max_dim: int | None, combinations: Iterable[Iterable[str]] | None,
            levels: Mapping[str, int] | None) -> list[tuple[int, ...]]:
    given = [n for n, v in (("max_dim", max_dim), ("combinations", combinations),
                            ("levels", levels)) if v is not None]
    if len(given) > 1:
        raise ParameterError(
            f"risky_cells: give one of max_dim, combinations, levels (got {', '.join(given)})")
    pos = {k: j for j, k in enumerate(keys)}
    p = len(keys)
    if combinations is not None:
        if isinstance(combinations, str) or not isinstance(combinations, Iterable):
            raise ParameterError(
                f"combinations: expected a list of tables (lists of key names), got {combinations!r}")
        out: list[tuple[int, ...]] = []
        for combo in combinations:
            names = as_keys(combo, "combinations")
            bad = [k for k in names if k not in pos]
            if bad:
                raise ParameterError(
                    f"combinations: {bad} are not key variables; tables are spanned by {keys}")
            t = tuple(sorted(pos[k] for k in names))
            if t not in out:
                out.append(t)
        if not out:
            raise ParameterError("combinations: no table given")
        return out
    if levels is not None:
        lv = _check_levels(levels, keys)
        return [tuple(sorted(pos[k] for k in t))
                for t in tables_from_levels({k: lv[k] for k in keys})]
    d = 2 if max_dim is None else max_dim
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 1 <= d <= p:
        raise ParameterError(
            f"max_dim: expected an integer in [1, {p}] (the number of keys), got {max_dim!r}")
    n_tables = sum(math.comb(p, j) for j in range(1, int(d) + 1))
    if n_tables > _MAX_TABLES:
        raise ParameterError(f"max_dim: {n_tables} tables (limit {_MAX_TABLES}); lower max_dim")
    return [c for j in range(1, int(d) + 1) for c in itertools.combinations(range(p), j)]


def _thresholds(threshold: float | Mapping[int, float] | Sequence[float],
                dims: set[int]) -> dict[int, float]:
    if isinstance(threshold, Mapping):
        out = {}
        for d in sorted(dims):
            if d not in threshold:
                raise ParameterError(
                    f"threshold: no threshold for the tables of dimension {d} "
                    f"(given for {sorted(threshold)})")
            out[d] = check_k(threshold[d], f"threshold[{d}]")
        return out
    if isinstance(threshold, Real) and not isinstance(threshold, bool):
        t = check_k(threshold, "threshold")
        return dict.fromkeys(dims, t)
    if isinstance(threshold, Sequence) and not isinstance(threshold, str):
        if len(threshold) < max(dims):
            raise ParameterError(
                f"threshold: a sequence gives one threshold per dimension 1..{max(dims)}, "
                f"got {len(threshold)}")
        return {d: check_k(threshold[d - 1], f"threshold[{d - 1}]") for d in dims}
    raise ParameterError(
        f"threshold: expected a number >= 1, a mapping {{dimension: threshold}} or one threshold "
        f"per dimension, got {threshold!r}")


def risky_cells(
    data: pd.DataFrame,
    keys: str | Iterable[str],
    *,
    threshold: float | Mapping[int, float] | Sequence[float] = 3,
    max_dim: int | None = None,
    combinations: Iterable[Iterable[str]] | None = None,
    levels: Mapping[str, int] | None = None,
    by_table: bool = False,
) -> pd.DataFrame:
    """Unsafe cells (unweighted count <= threshold) of every low-dimensional table of the keys.

    For each table ``T`` (a set of keys) and each non-empty cell ``c``: ``c`` is unsafe when
    ``count_T(c) <= t_|T|`` (missing values form a category of their own; counts are unweighted).

    Missing values: a missing key value is a category of its own (sdcMicro's riskyCells); counts are
    unweighted.

    Parameters
    ----------
    data : pd.DataFrame
        The microdata.
    keys : str or list of str
        Key variables, read as categories.
    threshold : number, mapping or sequence
        Largest count of an unsafe cell: one number for all tables, ``{dimension: threshold}``
        (e.g. ``{1: 5, 2: 3}``) or a sequence with one threshold per dimension 1, 2, ...
        (sdcMicro's vector).
    max_dim : int or None
        Tabulate every subset of up to ``max_dim`` keys (default 2 when neither ``combinations``
        nor ``levels`` is given).
    combinations : list of lists of key names, optional
        Exactly these tables.
    levels : mapping key -> 0..5, optional
        μ-ARGUS identification levels; the tables are `tables_from_levels` (with marginals).
        sdcMicro's ``useIdentificationLevel=TRUE`` is ``max_dim=`` the number of distinct levels.
    by_table : bool
        Return one row per table instead of one per cell (sdcMicro's ``riskyCells`` output).

    Returns
    -------
    pd.DataFrame
        One row per unsafe cell, tables in order and cells by their key values (missing last):
        ``table`` (categorical; its categories are *all* tables checked, so
        ``groupby("table", observed=False).size()`` gives 0 for safe tables), ``dim``,
        ``threshold``, ``count``, then one categorical column per key with the cell's value (missing
        where the key is not in the table *or* the cell is the missing category; ``table`` names
        the keys of the table). With ``by_table=True``: ``table``, ``dim``, ``variables`` (tuple),
        ``threshold``, ``n_cells`` (non-empty cells), ``unsafe_cells``, ``unsafe_records``.

    Raises
    ------
    MeasureError
        ``data`` is not a non-empty DataFrame or a key is not a column.
    ParameterError
        Bad ``keys``, ``threshold``, ``max_dim``, ``combinations`` or ``levels``, or more than one of
        ``max_dim``, ``combinations``, ``levels``.

    References
    ----------
    μ-ARGUS 5.1 user's manual (Statistics Netherlands, 2014), secs. 3.3, 4.2; sdcMicro
    ``riskyCells`` (Templ, Kowarik & Meindl 2015).

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": ["x", "x", "y"], "b": [1, 2, 2]})
    >>> risky_cells(df, ["a", "b"], threshold={1: 1, 2: 1}, by_table=True)[
    ...     ["table", "n_cells", "unsafe_cells", "unsafe_records"]]
       table  n_cells  unsafe_cells  unsafe_records
    0      a        2             1               1
    1      b        2             1               1
    2  a × b        3             3               3
    """
    df = check_frame(data)
    check_flag(by_table, "by_table")
    keys = as_keys(keys)
    check_columns(df, keys, "keys")
    tables = _tables(keys, max_dim, combinations, levels)
    thr = {d: int(v) if v.is_integer() else v
           for d, v in _thresholds(threshold, {len(t) for t in tables}).items()}
    n = len(df)
    p = len(keys)

    codes = np.empty((n, p), dtype=np.int64, order="F")
    cats: list[pd.Index] = []
    for j, k in enumerate(keys):
        c, u = _encode(df[k])
        codes[:, j] = np.where(c < 0, len(u), c)  # missing = last code of the key
        cats.append(u)
    cards = [len(u) + 1 for u in cats]

    names = [" × ".join(keys[j] for j in t) for t in tables]
    summary = []
    parts: list[tuple[int, np.ndarray, np.ndarray]] = []  # (table number, record reps, counts)
    for ti, t in enumerate(tables):
        g, size = combine(codes[:, list(t)], [cards[j] for j in t])
        counts = np.bincount(g, minlength=size)
        t_d = thr[len(t)]
        bad = (counts > 0) & (counts <= t_d)
        n_bad = int(np.count_nonzero(bad))
        summary.append((names[ti], len(t), tuple(keys[j] for j in t), t_d,
                        int(np.count_nonzero(counts)), n_bad, int(counts[bad].sum())))
        if by_table or n_bad == 0:
            continue
        rec = np.flatnonzero(bad[g])
        cell, first = np.unique(g[rec], return_index=True)
        rep = rec[first]
        order = np.lexsort([codes[rep, j] for j in reversed(t)])
        parts.append((ti, rep[order], counts[cell][order]))

    table_dtype = pd.CategoricalDtype(names, ordered=True)
    if by_table:
        out = pd.DataFrame(summary, columns=["table", "dim", "variables", "threshold", "n_cells",
                                             "unsafe_cells", "unsafe_records"])
        out["table"] = out["table"].astype(table_dtype)
        return out
    if parts:
        tab = np.concatenate([np.full(r.size, ti, dtype=np.int64) for ti, r, _ in parts])
        rep = np.concatenate([r for _, r, _ in parts])
        cnt = np.concatenate([c for _, _, c in parts])
    else:
        tab = rep = cnt = np.zeros(0, dtype=np.int64)
    dims = np.array([len(t) for t in tables], dtype=np.int64)
    tvals = np.array([thr[len(t)] for t in tables])
    out = pd.DataFrame({
        "table": pd.Categorical.from_codes(tab, dtype=table_dtype),
        "dim": dims[tab],
        "threshold": tvals[tab],
        "count": cnt.astype(np.int64),
    })
    member = np.zeros((len(tables), p), dtype=bool)
    for ti, t in enumerate(tables):
        member[ti, list(t)] = True
    for j, k in enumerate(keys):
        c = codes[rep, j]
        c = np.where(member[tab, j] & (c < len(cats[j])), c, -1)
        out[k] = pd.Categorical.from_codes(c, categories=cats[j])
    return out
