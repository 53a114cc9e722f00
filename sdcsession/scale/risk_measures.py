"""Individual, global and household risk, k-violations and l-diversity of a Dask frame, equal to
the in-memory kernels of `sdcsession.risk`.

* individual risk: the Benedetti–Franconi formulas of `sdcsession.risk.individual_risk_from_freq`
  applied to each partition's fk and Fk (element-wise, so bit for bit);
* household risk r_h = 1 − ∏(1 − r_i): the sums of log1p(−r_i) per household are folded over the
  partitions in record order (`sdcsession.scale._ordered`), so a household spread over several
  partitions gets exactly the in-memory value;
* global risk and expected re-identifications: the mean and sum of the individual risks (an
  exact partial sum per partition, `sdcsession.risk.exact_sum`, added exactly and rounded once:
  the same double as in memory);
* k-violations: records with fk < k (Fk < k when weighted), counted per partition;
* l-diversity: counts of (equivalence class, sensitive value) pairs per partition, added in order
  of first appearance (the order of the in-memory kernel, so the entropy sums agree bit for bit),
  then looked up per record.

References: Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4), sec. 3.2–3.3; Machanavajjhala
et al. (2007), ACM TKDD 1(1).

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> ddf = dd.from_pandas(pd.DataFrame({"sex": ["m", "m", "f", "f"], "hid": [1, 1, 2, 3]}),
...                      npartitions=2)
>>> f = frequencies(ddf, ["sex"], progress=False)
>>> household_risk(individual_risk(f), ddf["hid"], progress=False).compute().tolist()
[0.75, 0.75, 0.5, 0.5]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from ..risk._codes import as_keys, check_number
from ..risk.exact_sum import combine, partial_sum, to_float
from ..risk.individual import individual_risk_from_freq
from ._base import compute, mixed_radix, radix
from ._encode import encode_part, scan
from ._ordered import empty_carry, local_table, lookup, ordered_fold
from .freq_tables import check_frame_columns, frequencies

__all__ = ["frequencies", "individual_risk", "household_risk", "global_risk",
           "expected_reidentifications", "k_violations", "l_diversity"]


def _risk_part(f: pd.DataFrame, weighted: bool, method: str) -> pd.Series:
    return individual_risk_from_freq(f["fk"], f["Fk"] if weighted else None, method=method,
                                     warn=False)


def individual_risk(freq: Any, *, weighted: bool = True, method: str = "approx") -> Any:
    """Individual re-identification risk of every record (a lazy Dask Series named ``risk``)
    from the fk/Fk frame of `frequencies`; ``weighted=False`` gives 1/fk.

    Same formulas as `sdcsession.risk.individual_risk_from_freq`, applied per partition.

    >>> import pandas as pd, dask.dataframe as dd
    >>> ddf = dd.from_pandas(pd.DataFrame({"a": ["x", "x", "y"]}), npartitions=2)
    >>> individual_risk(frequencies(ddf, "a", progress=False), weighted=False).compute().tolist()
    [0.5, 0.5, 1.0]
    """
    if method not in ("approx", "exact"):
        raise ParameterError(f"method: expected one of ['approx', 'exact'], got {method!r}")
    return freq.map_partitions(_risk_part, bool(weighted), method,
                               meta=pd.Series(dtype="float64", name="risk"))


def _sum_count(s: pd.Series) -> tuple[tuple[int, int], int]:
    return partial_sum(s.to_numpy(dtype=np.float64)), len(s)


def _partials(risk: Any, progress: bool | None) -> list[tuple[tuple[int, int], int]]:
    import dask

    return list(compute(*[dask.delayed(_sum_count)(p) for p in risk.to_delayed()],
                        progress=progress))


def global_risk(risk: Any, *, progress: bool | None = None) -> float:
    """Global risk: the mean of the individual risks (1/n) Σ r_i of a Dask Series.

    Each partition's sum is exact (`sdcsession.risk.exact_sum`); the total is rounded once, so
    the result is the double of `sdcsession.risk.global_risk` on the same risks in memory.

    >>> import pandas as pd, dask.dataframe as dd
    >>> global_risk(dd.from_pandas(pd.Series([0.5, 0.5, 1.0]), npartitions=2), progress=False)
    0.6666666666666666
    """
    parts = _partials(risk, progress)
    n = sum(c for _, c in parts)
    if n == 0:
        raise MeasureError("risk: expected at least one record")
    return to_float(combine(s for s, _ in parts), n)


def expected_reidentifications(risk: Any, *, progress: bool | None = None) -> float:
    """Expected number of re-identifications: Σ r_i over the records of a Dask Series (exact
    partial sums, rounded once: equal to the in-memory figure).

    >>> import pandas as pd, dask.dataframe as dd
    >>> expected_reidentifications(dd.from_pandas(pd.Series([0.5, 1.0]), npartitions=2),
    ...                            progress=False)
    1.5
    """
    return to_float(combine(s for s, _ in _partials(risk, progress)))


def _below(f: pd.DataFrame, col: str, k: float) -> int:
    return int((f[col].to_numpy() < k).sum())


def k_violations(freq: Any, k: float = 3, *, weighted: bool = False,
                 progress: bool | None = None) -> int:
    """Number of records whose key combination has fk < k (Fk < k when ``weighted``).

    >>> import pandas as pd, dask.dataframe as dd
    >>> ddf = dd.from_pandas(pd.DataFrame({"a": ["x", "x", "y"]}), npartitions=2)
    >>> k_violations(frequencies(ddf, "a", progress=False), 2, progress=False)
    1
    """
    import dask

    kk = check_number(k, "k", "a number >= 1")
    col = "Fk" if weighted else "fk"
    return int(sum(compute(*[dask.delayed(_below)(p, col, kk) for p in freq.to_delayed()],
                           progress=progress)))


# ----------------------------------------------------------------------------- household
def _household_part(r: pd.Series, h: pd.Series) -> tuple:
    if len(h) != len(r):
        raise MeasureError("household: the risks and household ids have different partitions")
    if h.isna().any():
        raise MeasureError(f"household: column {h.name!r} has {int(h.isna().sum())} missing "
                           "value(s); every record needs a household id")
    with np.errstate(divide="ignore"):
        v = np.log1p(-r.to_numpy(dtype=np.float64))
    try:
        return local_table(h.to_numpy(), v[:, None])
    except TypeError:
        raise MeasureError(f"household: the ids of column {h.name!r} cannot be ordered (mixed "
                           "types?); give one type of household id") from None


def _household_pair(rh: tuple) -> tuple:
    return _household_part(*rh)


def _household_lookup(r: pd.Series, h: pd.Series, table: Any) -> pd.Series:
    s = lookup(table, h.to_numpy())[:, 0]
    return pd.Series(-np.expm1(s), index=r.index, name="household_risk")


def household_risk(risk: Any, household: Any, *, progress: bool | None = None) -> Any:
    """Household risk 1 − ∏(1 − r_i) over each record's household, as a lazy Dask Series,
    from the individual risks and the household ids (two Dask Series whose partitions hold the
    same records: paired partition by partition, `sdcsession.scale._pairing`; `MeasureError`
    when they have different partitions).

    The sums of log1p(−r_i) per household are folded over the partitions in record order, so the
    result equals `sdcsession.risk.household_risk_from_individual` bit for bit, also for
    households spread over several partitions.

    Missing values: a missing household id is refused (`MeasureError`).
    """
    import dask

    from ._pairing import map_paired, paired_partitions

    what = "household risk (the risks and the household ids)"
    pairs = paired_partitions([risk, household], what=what, error=MeasureError)
    parts = [dask.delayed(tuple)(list(p)) for p in pairs]
    table = ordered_fold(parts, _household_pair, empty_carry(1), progress=progress)
    shared = dask.delayed(table, traverse=False).persist()
    return map_paired(_household_lookup, [risk, household], shared, paired=pairs, what=what,
                      error=MeasureError, meta=pd.Series(dtype="float64", name="household_risk"))


# --------------------------------------------------------------------------- l-diversity
def _class_code(part: pd.DataFrame, plan: Any) -> np.ndarray:
    codes = encode_part(part, plan) + 1  # missing is a class value of its own (0)
    return mixed_radix([codes[:, j] for j in range(codes.shape[1])],
                       [c + 1 for c in plan.cards], len(part))


def _pair_counts(part: pd.DataFrame, kplan: Any, splan: Any) -> pd.Series:
    cls = _class_code(part, kplan)
    s = encode_part(part, splan)[:, 0]
    ok = s >= 0
    t = pd.DataFrame({"c": cls[ok], "s": s[ok]})
    return t.groupby(["c", "s"], sort=False).size()


def _class_table(pairs: list[pd.Series], c: float) -> tuple[np.ndarray, np.ndarray]:
    """Per class (sorted raw class codes): distinct, entropy and recursive l, computed from the
    pair counts in order of first appearance exactly as the in-memory kernel."""
    allp = pd.concat(pairs) if pairs else pd.Series(dtype="int64")
    if len(allp) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 3))
    tab = allp.groupby(level=[0, 1], sort=False).sum()
    craw = tab.index.get_level_values(0).to_numpy(dtype=np.int64)
    pg, classes = pd.factorize(craw)
    ng = len(classes)
    cnt = tab.to_numpy(dtype=np.float64)
    distinct = np.bincount(pg, minlength=ng)
    total = np.bincount(pg, weights=cnt, minlength=ng)
    prob = cnt / total[pg]
    ent = np.exp(-np.bincount(pg, weights=prob * np.log(prob), minlength=ng))
    order = np.lexsort((-cnt, pg))
    sc, sg = cnt[order], pg[order]
    start = np.zeros(ng, dtype=np.int64)
    start[1:] = np.cumsum(distinct)[:-1]
    before = np.cumsum(sc) - sc
    head = before - before[start[sg]]
    tail = total[sg] - head
    holds = sc[start[sg]] < c * tail
    recursive = np.bincount(sg, weights=holds, minlength=ng)
    keys = np.asarray(classes, dtype=np.int64)
    srt = np.argsort(keys)
    vals = np.column_stack([distinct, ent, recursive]).astype(np.float64)
    return keys[srt], vals[srt]


def _ldiv_part(part: pd.DataFrame, kplan: Any, tables: list, names: list[str]) -> pd.DataFrame:
    cls = _class_code(part, kplan)
    out: dict[str, np.ndarray] = {}
    for v, table in zip(names, tables):
        got = lookup(table, cls)
        out[f"{v}_distinct"] = got[:, 0].astype(np.int64)
        out[f"{v}_entropy"] = got[:, 1]
        out[f"{v}_recursive"] = got[:, 2].astype(np.int64)
    return pd.DataFrame(out, index=part.index)


def l_diversity(ddf: Any, keys: str | Iterable[str], sensitive: str | Iterable[str], *,
                c: float = 2, progress: bool | None = None) -> Any:
    """Distinct, entropy and recursive (c, l)-diversity per record for each sensitive variable
    of the Dask frame ``ddf`` (a lazy Dask frame with columns ``<var>_distinct``,
    ``<var>_entropy``, ``<var>_recursive``), equal to `sdcsession.risk.l_diversity`.

    Reference: Machanavajjhala et al. (2007), ACM TKDD 1(1), definitions 4.1–4.3.

    >>> import pandas as pd, dask.dataframe as dd
    >>> df = pd.DataFrame({"k": [1, 1, 1, 2], "s": ["a", "b", None, "a"]})
    >>> l_diversity(dd.from_pandas(df, npartitions=2), "k", "s", progress=False).compute()[
    ...     "s_distinct"].tolist()
    [2, 2, 2, 1]
    """
    import dask

    keys = as_keys(keys)
    sens = as_keys(sensitive, "sensitive")
    check_frame_columns(ddf, keys, "keys")
    check_frame_columns(ddf, sens, "sensitive")
    both = [v for v in sens if v in keys]
    if both:
        raise ParameterError(f"sensitive: column(s) {both} are also key variables")
    cc = check_number(c, "c", "a finite number > 0")
    if not cc > 0:
        raise ParameterError(f"c: expected a finite number > 0, got {c!r}")
    kplan = scan(ddf, keys, progress=progress)
    radix([x + 1 for x in kplan.cards])
    tables = []
    parts = ddf[keys + sens].to_delayed()
    for v in sens:
        splan = scan(ddf, [v], what="sensitive", progress=progress)
        counts = [dask.delayed(_pair_counts)(p, kplan, splan) for p in parts]
        (pairs,) = compute(counts, progress=progress)
        tables.append(_class_table(list(pairs), cc))
    meta = pd.DataFrame({f"{v}_{m}": pd.Series(dtype="float64" if m == "entropy" else "int64")
                         for v in sens for m in ("distinct", "entropy", "recursive")})
    shared = dask.delayed(tables, traverse=False).persist()
    return ddf[keys].map_partitions(_ldiv_part, kplan, shared, sens, meta=meta)
