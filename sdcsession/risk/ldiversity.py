"""l-diversity of sensitive variables within the equivalence classes of the key variables.

For a record in equivalence class E (records with the same key combination) let r_1 ≥ r_2 ≥ … ≥ r_m
be the counts of the m distinct values of a sensitive variable in E, N = Σ r_j. Per record:

- ``<var>_distinct``: distinct l-diversity, m;
- ``<var>_entropy``: entropy l-diversity, exp(−Σ (r_j/N) log(r_j/N)) (the effective number of values);
- ``<var>_recursive``: recursive (c, l)-diversity, the largest l with r_1 < c (r_l + r_{l+1} + … + r_m)
  (0 when no l satisfies it, possible only for c ≤ 1).

These reproduce sdcMicro 5.8.1 ``ldiversity`` (c = 2) on the conformance data exactly.

Missing values: a missing *sensitive* value is ignored (it is neither a value nor diversity: N and
the counts use the non-missing values only; a class whose sensitive values are all missing gets
distinct = 0, entropy = 0, recursive = 0). A missing *key* value is treated as a category of its own
for the equivalence classes (records missing the same keys with equal other keys form a class); the
wildcard rule of the frequency counts does not define a partition.

Algorithm: one dense class code per record, one code per (class, value) pair counted with
``bincount``; the recursive condition is evaluated on the pair counts sorted within classes
(``lexsort``) with cumulative sums — no loop over classes.

Reference: Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam (2007), *l-diversity: Privacy beyond
k-anonymity*, ACM TKDD 1(1), definitions 4.1–4.3.

Example
-------
>>> import pandas as pd
>>> from sdcsession.risk import l_diversity
>>> df = pd.DataFrame({"sex": ["m"] * 4 + ["f"] * 2, "ill": ["a", "a", "b", "c", "a", "a"]})
>>> l_diversity(df, ["sex"], "ill").round(3)
   ill_distinct  ill_entropy  ill_recursive
0             3        2.828              2
1             3        2.828              2
2             3        2.828              2
3             3        2.828              2
4             1        1.000              1
5             1        1.000              1
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError
from ._codes import (
    as_keys,
    check_columns,
    check_frame,
    check_number,
    combine,
    encode_column,
    encode_keys,
)

__all__ = ["l_diversity", "l_diversity_summary", "LDiversitySummary"]

_MEASURES = ("distinct", "entropy", "recursive")
_STATS = ["min", "q1", "median", "mean", "q3", "max"]


def _class_codes(df: pd.DataFrame, keys: list[str]) -> tuple[np.ndarray, int]:
    codes, cards = encode_keys(df, keys)
    codes += 1  # missing (-1) becomes a category of its own (0)
    return combine(codes, [c + 1 for c in cards], dense=True)


def _one_sensitive(g: np.ndarray, ng: int, s: np.ndarray, ns: int, c: float):
    ok = s >= 0
    pair, npair = combine([g[ok], s[ok]], [ng, ns], dense=True)
    cnt = np.bincount(pair, minlength=npair).astype(np.float64)
    # class of every pair
    pg = np.empty(npair, dtype=np.int64)
    pg[pair] = g[ok]
    distinct = np.bincount(pg, minlength=ng)
    total = np.bincount(pg, weights=cnt, minlength=ng)
    prob = cnt / total[pg]
    ent = np.exp(-np.bincount(pg, weights=prob * np.log(prob), minlength=ng))
    ent[distinct == 0] = 0.0
    # recursive (c, l): sort pair counts descending within class
    order = np.lexsort((-cnt, pg))
    sc = cnt[order]
    sg = pg[order]
    start = np.zeros(ng, dtype=np.int64)
    start[1:] = np.cumsum(distinct)[:-1]
    before = np.cumsum(sc) - sc  # running sum of all counts before this position
    head = before - before[start[sg]]  # r_1 + ... + r_(l-1) within the class
    tail = total[sg] - head  # r_l + ... + r_m for this position l
    r1 = sc[start[sg]]
    holds = r1 < c * tail
    recursive = np.bincount(sg, weights=holds, minlength=ng).astype(np.int64)
    out_d = distinct[g].astype(np.int64)
    return out_d, ent[g], recursive[g]


def l_diversity(
    df: pd.DataFrame,
    keys: str | Iterable[str],
    sensitive: str | Iterable[str],
    *,
    c: float = 2,
) -> pd.DataFrame:
    """Distinct, entropy and recursive (c, l)-diversity per record for each sensitive variable.

    Returns a DataFrame aligned to ``df.index`` with columns ``<var>_distinct`` (int),
    ``<var>_entropy`` (float, exp of the Shannon entropy) and ``<var>_recursive`` (int) for every
    sensitive variable, in order. Missing sensitive values are ignored; missing key values form a
    category of their own (see the module docstring).

    Missing values: missing sensitive values (numeric or not) are ignored; a missing key value is a
    value of its own.

    Parameters
    ----------
    df : the microdata.
    keys : key variables defining the equivalence classes.
    sensitive : one or more sensitive variables (read as categories; none may be a key).
    c : the constant of recursive (c, l)-diversity, a number > 0 (sdcMicro default 2).

    Reference: Machanavajjhala et al. (2007), ACM TKDD 1(1).

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"k": [1, 1, 1], "s": ["a", "b", None]})
    >>> l_diversity(df, "k", "s")["s_distinct"].tolist()
    [2, 2, 2]
    """
    check_frame(df)
    keys = as_keys(keys)
    sens = as_keys(sensitive, "sensitive")
    check_columns(df, keys, "keys")
    check_columns(df, sens, "sensitive")
    both = [v for v in sens if v in keys]
    if both:
        raise ParameterError(
            f"sensitive: column(s) {both} are also key variables; a sensitive variable cannot be a "
            "key (its diversity within the key combination would be 1)")
    cc = check_number(c, "c", "a finite number > 0")
    if not cc > 0:
        raise ParameterError(f"c: expected a finite number > 0, got {c!r}")
    g, ng = _class_codes(df, keys)
    out: dict[str, np.ndarray] = {}
    for v in sens:
        s, ns = encode_column(df[v], "sensitive")
        d, e, r = _one_sensitive(g, ng, s, ns, cc)
        out[f"{v}_distinct"] = d
        out[f"{v}_entropy"] = e
        out[f"{v}_recursive"] = r
    return pd.DataFrame(out, index=df.index)


@attrs.frozen(eq=False)
class LDiversitySummary:
    """Summary of per-record l-diversity (`l_diversity_summary`).

    Attributes
    ----------
    table : pd.DataFrame
        Rows ``(variable, measure)`` with measure in distinct / entropy / recursive; columns
        ``min``, ``q1``, ``median``, ``mean``, ``q3``, ``max`` over the records (R's ``summary``:
        type-7 quantiles). The ``distinct`` rows are what sdcMicro's ``print(ldiversity)`` shows.
    distribution : pd.DataFrame
        Number of records per value of distinct l (index ``l``), one column per sensitive variable.
    c : float or None
        The constant of recursive (c, l)-diversity, when known.

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"k": [1, 1, 2], "s": ["a", "b", "a"]})
    >>> l_diversity_summary(l_diversity(df, "k", "s")).distribution["s"].tolist()
    [1, 2]
    """

    table: pd.DataFrame
    distribution: pd.DataFrame
    c: float | None = None

    def mean(self, measure: str = "entropy") -> pd.Series:
        """Mean of ``measure`` (distinct, entropy or recursive) per sensitive variable."""
        if measure not in _MEASURES:
            raise ParameterError(f"measure: expected one of {list(_MEASURES)}, got {measure!r}")
        return self.table.xs(measure, level="measure")["mean"]

    def __repr__(self) -> str:
        return ("L-diversity measures (per record)\n" + self.table.to_string(float_format="%.4g")
                + "\n\nRecords by distinct l\n" + self.distribution.to_string())


def l_diversity_summary(ldiv: pd.DataFrame, *, c: float | None = None) -> LDiversitySummary:
    """Summaries of the per-record l-diversity of each sensitive variable (sdcMicro's print).

    For every sensitive variable ``v`` of an `l_diversity` result (columns ``v_distinct``,
    ``v_entropy``, ``v_recursive``): the six-number summary (min, first quartile, median, mean,
    third quartile, max; quantiles by linear interpolation, R's type 7) of each measure over the
    records, and the number of records per value of distinct l. sdcMicro's
    ``print(ldiversity(...))`` prints ``summary()`` of the ``*_Distinct_Ldiversity`` columns: the
    ``distinct`` rows of ``table``.

    Missing values: summarises the output of `l_diversity` (whose missing-value rule applies).

    Parameters
    ----------
    ldiv : pd.DataFrame
        The result of `l_diversity`.
    c : float, optional
        The recursive constant used (kept for display).

    Reference: Machanavajjhala et al. (2007), ACM TKDD 1(1); sdcMicro ``print.ldiversity``.

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["m"] * 4 + ["f"] * 2, "ill": ["a", "a", "b", "c", "a", "a"]})
    >>> s = l_diversity_summary(l_diversity(df, ["sex"], "ill"))
    >>> s.table.loc[("ill", "distinct")].tolist()
    [1.0, 1.5, 3.0, 2.3333333333333335, 3.0, 3.0]
    """
    if not isinstance(ldiv, pd.DataFrame):
        raise ParameterError(
            f"ldiv: expected the DataFrame returned by l_diversity, got {type(ldiv).__name__}")
    if c is not None:
        c = check_number(c, "c", "a positive number (the recursive constant)")
        if c <= 0:
            raise ParameterError(f"c: expected a positive number (the recursive constant), got {c}")
    variables = [col[: -len("_distinct")] for col in ldiv.columns
                 if str(col).endswith("_distinct")
                 and all(f"{col[: -len('_distinct')]}_{m}" in ldiv.columns for m in _MEASURES)]
    if not variables or len(ldiv) == 0:
        raise ParameterError(
            "ldiv: expected the result of l_diversity (columns <var>_distinct, <var>_entropy, "
            "<var>_recursive) with at least one record")
    rows = []
    dist = {}
    for v in variables:
        for m in _MEASURES:
            col = ldiv[f"{v}_{m}"]
            if isinstance(col, pd.DataFrame) or pd.api.types.is_bool_dtype(col) or \
                    not pd.api.types.is_numeric_dtype(col):
                raise ParameterError(f"ldiv: column {v}_{m!s} must be one numeric column, as "
                                     "l_diversity returns it")
            x = col.to_numpy(dtype=np.float64)
            q = np.quantile(x, [0.0, 0.25, 0.5, 0.75, 1.0])
            rows.append([q[0], q[1], q[2], float(x.mean()), q[3], q[4]])
        dist[v] = ldiv[f"{v}_distinct"].value_counts().sort_index()
    index = pd.MultiIndex.from_product([variables, list(_MEASURES)], names=["variable", "measure"])
    distribution = pd.DataFrame(dist).fillna(0).astype(np.int64)
    distribution.index.name = "l"
    return LDiversitySummary(table=pd.DataFrame(rows, index=index, columns=_STATS),
                             distribution=distribution, c=c)
