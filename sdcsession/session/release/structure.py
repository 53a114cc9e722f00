"""Findings of the release check on what the file's structure gives away, the same on pandas and
on Dask (written once against `sdcsession.session.release.aligned.Aligned`; on pandas, the counts
per pair of columns and per household come from integer codes, see
`sdcsession.session.release.codes`).

| check | severity | finding |
|---|---|---|
| ``identifier`` | block | a column with no role whose observed values are all distinct (at least half the records observed; float ids 1.0..n and ids with missing values included), or a named index with distinct values |
| ``linked`` | block | a declared linked variable still holds original values in records whose key was changed or blanked |
| ``household_structure`` | block | a treated key whose original value follows from the household grouping (the number of records per household, or the other members of the household) while the household id is released |
| ``undeclared_linked`` | block | a column with no role that determines the original value of a treated key (a functional dependency in the original data), in records whose key was changed or blanked |
| ``derived`` | warn | a numeric column with no role that is an exact function of a perturbed numeric variable's original values, or correlates with them at abs(r) >= 0.99 |
| ``order`` | warn | (records in the file's order only) the record order follows the original order of a key, the household id or a record id: abs(Spearman's rank correlation) >= 0.5 |
| ``weights`` | warn | the sampling weights are released unchanged while some weight value is shared by fewer than k records |
| ``numeric`` | warn | a numeric variable released unperturbed |

Each finding names its columns and counts the records concerned; its message gives the fix.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .aligned import Aligned
from .codes import FrameCodes, household_leaks
from .reductions import determines, distinct_counts, rare_values

if TYPE_CHECKING:  # pragma: no cover
    from ..session import SdcSession

__all__ = ["structure_findings", "ORDER_THRESHOLD", "CORRELATION_THRESHOLD"]

#: abs(Spearman's rho) between record position and a variable from which ``order`` warns
ORDER_THRESHOLD = 0.5
#: abs(Pearson's r) with a perturbed variable's original values from which ``derived`` warns
CORRELATION_THRESHOLD = 0.99


def _finding(severity: str, check: str, variables: list[str], records: int,
             message: str) -> dict[str, Any]:
    return {"severity": severity, "check": check, "variables": list(variables),
            "records": int(records), "message": message}


def _is_number(dtype: Any) -> bool:
    return (pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
            and not isinstance(dtype, pd.CategoricalDtype))


def _determines(f: Any, x: str, y: str) -> Any:
    """Lazy: the largest number of distinct ``y`` values sharing one non-missing ``x`` value
    (1 = ``x`` determines ``y``)."""
    pairs = f[[x, y]].dropna(subset=[x]).drop_duplicates()
    return pairs.groupby(x).size().max()


def _pairs_part(part: pd.DataFrame, pairs: list[tuple[str, str]]) -> list[pd.DataFrame]:
    return [part[[x, y]].dropna(subset=[x]).drop_duplicates() for x, y in pairs]


def _codes(al: Aligned, f: Any) -> FrameCodes | None:
    """The integer codes of a pandas frame's columns (the fast path), None on Dask."""
    return None if al.dask else FrameCodes(f)


def _determines_many(al: Aligned, f: Any, pairs: list[tuple[str, str]],
                     codes: FrameCodes | None = None) -> list[float]:
    """For each (x, y) of ``pairs``: the largest number of distinct ``y`` values sharing one
    non-missing ``x`` value (1 = ``x`` determines ``y``; NaN when ``x`` is all missing), from the
    distinct pairs of every partition united (pandas: from the columns' integer ``codes``)."""
    if not pairs:
        return []
    if al.dask:
        return determines(f, pairs)
    try:
        return (codes or FrameCodes(f)).determines(pairs)
    except TypeError:  # unhashable cells: the frame path below says so
        pass
    parts = al.per_partition(f, _pairs_part, pairs)
    out = []
    for j, (x, _y) in enumerate(pairs):
        u = pd.concat([p[j] for p in parts], ignore_index=True).drop_duplicates()
        out.append(float(u.groupby(x).size().max()) if len(u) else math.nan)
    return out


def _distinct_part(part: pd.DataFrame, cols: list[str]) -> list[tuple[int, Any]]:
    out = []
    for c in cols:
        v = part[c].dropna()
        try:
            u = v.drop_duplicates()
        except TypeError:  # unhashable cells (lists, dicts): compared by their text
            u = v.astype(str).drop_duplicates()
        out.append((int(part[c].count()), u))
    return out


def _distinct_many(al: Aligned, f: Any, cols: list[str],
                   codes: FrameCodes | None = None) -> dict[str, tuple[int, int]]:
    """``{column: (observed values, distinct observed values)}`` of the columns of ``f``
    (pandas: from the columns' integer ``codes``)."""
    if not cols:
        return {}
    if al.dask:
        return distinct_counts(f, cols)
    try:
        return {c: (codes or FrameCodes(f)).distinct(c) for c in cols}
    except TypeError:  # unhashable cells: compared by their text below
        pass
    parts = al.per_partition(f[cols], _distinct_part, cols)
    out = {}
    for j, c in enumerate(cols):
        u = pd.concat([p[j][1] for p in parts], ignore_index=True).drop_duplicates()
        out[c] = (sum(p[j][0] for p in parts), len(u))
    return out


def _sums_part(part: pd.DataFrame, pairs: list[tuple[str, str]]) -> np.ndarray:
    out = np.zeros((len(pairs), 6))
    for j, (a, b) in enumerate(pairs):
        x = pd.to_numeric(part[a], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        y = pd.to_numeric(part[b], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        m = ~np.isnan(x) & ~np.isnan(y)
        x, y = x[m], y[m]
        out[j] = [m.sum(), x.sum(), y.sum(), (x * x).sum(), (y * y).sum(), (x * y).sum()]
    return out


def _corr_many(al: Aligned, f: Any, pairs: list[tuple[str, str]]) -> list[float]:
    """Pearson's r of each pair of columns of ``f`` (records where both are observed), from the
    sums of every partition added."""
    if not pairs:
        return []
    total = np.sum(al.per_partition(f, _sums_part, pairs), axis=0)
    return [_corr(list(row)) for row in total]


def _corr(s: list[Any]) -> float:
    n, sx, sy, sxx, syy, sxy = (float(v) for v in s)
    if n < 3:
        return math.nan
    vx, vy = sxx - sx * sx / n, syy - sy * sy / n
    if vx <= 0 or vy <= 0:
        return math.nan
    return (sxy - sx * sy / n) / math.sqrt(vx * vy)


class _Context:
    """What every finding needs: the session's roles, the aligned frames, the released columns."""

    def __init__(self, session: SdcSession, released: list[str]) -> None:
        state = session.state
        self.roles = state.roles
        self.n = state.n
        self.al = Aligned(state.data, state.original)
        self.released = released
        roled = set(self.roles.columns())
        self.free = [c for c in released if c not in roled]
        self.dtypes = dict(state.data.dtypes.items())


def _identifiers(cx: _Context, data: Any) -> tuple[list[dict[str, Any]], list[str]]:
    out: list[dict[str, Any]] = []
    if not cx.free or cx.n < 2:
        ids: list[str] = []
    else:
        stats = _distinct_many(cx.al, data, cx.free)
        ids = [c for c in cx.free if stats[c][0] >= max(2, math.ceil(cx.n / 2))
               and stats[c][1] == stats[c][0]]
        for c in ids:
            m = int(stats[c][0])
            gap = f" ({cx.n - m:,} missing)" if m < cx.n else ""
            out.append(_finding(
                "block", "identifier", [c], m,
                f"{c!r} has no role and a distinct value in every observed record{gap}: a direct "
                "identifier or record id links the release back to the original file; declare "
                f"it with identifiers=[{c!r}] (never released), replace it (s.new_ids({c!r})) or "
                f"remove it (s.remove({c!r}))"))
    if cx.al.dask:
        names = [data.index.name] if data.index.name is not None else []
        distinct = data.index.to_series().nunique() if names else None
    else:
        names = [n for n in data.index.names if n is not None]
        distinct = len(data.index.drop_duplicates()) if names else None
    if names and cx.n >= 2:
        (distinct,) = cx.al.compute(distinct)
        if int(distinct) == cx.n:
            out.append(_finding(
                "block", "identifier", [str(n) for n in names], cx.n,
                f"the index {names} has a distinct value for every record (a record id); drop it "
                "before the session (df.reset_index(drop=True)) or make it a column declared with "
                "identifiers=[...]"))
    return out, ids


def _treated(cx: _Context) -> tuple[dict[str, int], list[str], list[str]]:
    """The changed records of every key, numeric variable and the weight (one pass, no frame
    kept), and which keys / numeric variables were changed."""
    r = cx.roles
    keys = [c for c in dict.fromkeys([*r.keys, *r.pram]) if c in cx.al.data.columns]
    num = [c for c in r.numeric if c in cx.al.data.columns]
    changed = cx.al.changed([*keys, *num, *([r.weight] if r.weight else [])])
    return (changed, [c for c in keys if changed.get(c, 0)], [c for c in num if changed.get(c, 0)])


def _linked(cx: _Context, treated: list[str]) -> list[dict[str, Any]]:
    both = set(cx.al.data.columns) & set(cx.al.original.columns)
    pairs = [(k, c) for k, cs in cx.roles.linked for c in cs if k in treated and c in both]
    if not pairs:
        return []
    f = cx.al.frame(list(dict.fromkeys([c for pair in pairs for c in pair])))
    counts = cx.al.compute(*[(f["chg:" + k] & f["rev:" + c]).sum() for k, c in pairs])
    out = []
    for (k, c), m in zip(pairs, counts):
        if int(m):
            out.append(_finding(
                "block", "linked", [k, c], int(m),
                f"{c!r} still holds the original values of {int(m):,} record(s) whose key {k!r} "
                f"was changed or blanked: treat {c!r} accordingly or remove it (it reveals {k!r})"))
    return out


def _lookup_part(part: pd.DataFrame, key: str, values: pd.Series, name: str) -> pd.DataFrame:
    return part.assign(**{name: part[key].map(values)})


def _per_household(al: Aligned, f: Any, key: str, values: Any, name: str) -> Any:
    """``f`` with the column ``name``: the value of ``values`` (indexed by household) of every
    record's household (missing without one). pandas: a left merge; Dask: the per-household
    values are computed (one number per household) and looked up partition by partition, so
    the records keep their partitions and order (a Dask merge would repartition ``f``, whose
    columns are aligned by position)."""
    if not al.dask:
        return f.merge(values.rename(name).to_frame(), left_on=key, right_index=True, how="left")
    import dask

    (vals,) = al.compute(values)
    meta = f._meta.assign(**{name: f._meta[key].map(vals.iloc[:0])})
    return f.map_partitions(_lookup_part, key, dask.delayed(vals), name, meta=meta)


def _household(cx: _Context, treated: list[str]) -> list[dict[str, Any]]:
    hid = cx.roles.household
    if hid is None or hid not in cx.released or not treated:
        return []
    f = cx.al.frame(treated, released_only=[hid])
    h = "r:" + hid
    leaks = _household_lazy(cx.al, f, h, treated) if cx.al.dask else \
        household_leaks(f, h, treated)  # pandas: the same counts from integer codes
    out = []
    for k, by_size, within, m in leaks:
        why = (["it is a function of the number of records per household"] if by_size else []) \
            + (["it is the same for every member and other members still show it"] if within
               else [])
        if int(m):
            out.append(_finding(
                "block", "household_structure", [k, hid], int(m),
                f"{int(m):,} treated record(s) of {k!r} get their original value back from the "
                f"household grouping ({'; '.join(why)}) because the household id {hid!r} is "
                f"released: drop the household id (s.remove({hid!r})) or leave {k!r} untreated"))
    return out


def _household_lazy(al: Aligned, f: Any, h: str, treated: list[str]
                    ) -> list[tuple[str, bool, bool, int]]:
    """`sdcsession.session.release.codes.household_leaks` written with frame operations (the
    Dask path): (key, a function of the household size, constant within households, records
    that get it back) for each treated key with at least two original values."""
    f = _per_household(al, f, h, f.groupby(h).size(), "n_hh")
    lazy: list[Any] = []
    for k in treated:
        o = "o:" + k
        lazy += [_determines(f, "n_hh", o), f[o].nunique(dropna=True),
                 f.dropna(subset=[o]).groupby(h)[o].nunique().max()]
    stats = al.compute(*lazy)
    out = []
    for j, k in enumerate(treated):
        by_size, distinct, within = stats[3 * j: 3 * j + 3]
        if not int(distinct) >= 2:
            continue
        o = "o:" + k
        hit = None
        if _small(by_size):
            hit = f["chg:" + k] & f["n_hh"].notnull() & f[o].notnull()
        if _small(within):  # constant within households: another member gives it away
            sib = f.assign(_k=f["rev:" + k].astype("int64")).groupby(h)["_k"].sum()
            g = _per_household(al, f, h, sib, "sib_" + k)
            via = g["chg:" + k] & (g["sib_" + k] > 0)
            if hit is not None:
                via = via | (g["chg:" + k] & g["n_hh"].notnull() & g[o].notnull())
            hit = via
        if hit is None:
            continue
        (m,) = al.compute(hit.sum())
        out.append((k, _small(by_size), _small(within), int(m)))
    return out


def _small(v: Any) -> bool:
    """A `_determines`-style maximum that is at most 1 (missing = no group: not a dependency)."""
    try:
        return not pd.isna(v) and int(v) <= 1
    except (TypeError, ValueError):
        return False


def _undeclared(cx: _Context, treated: list[str], ids: list[str]) -> list[dict[str, Any]]:
    cands = [c for c in cx.free if c not in ids and c in cx.al.original.columns]
    if not cands or not treated:
        return []
    f = cx.al.frame([*cands, *treated])
    codes = _codes(cx.al, f)
    stats = _distinct_many(cx.al, f, ["o:" + c for c in [*cands, *treated]], codes)
    # every value distinct: the identifier finding's case; a key needs two original values
    pairs = [(c, k) for c in cands if int(stats["o:" + c][1]) < int(stats["o:" + c][0])
             for k in treated if int(stats["o:" + k][1]) >= 2]
    fd = _determines_many(cx.al, f, [("o:" + c, "o:" + k) for c, k in pairs], codes)
    hits = [pair for pair, v in zip(pairs, fd) if _small(v)]
    counts = cx.al.compute(*[(f["chg:" + k] & f["rev:" + c]).sum() for c, k in hits])
    out = []
    for (c, k), m in zip(hits, counts):
        if int(m):
            out.append(_finding(
                "block", "undeclared_linked", [k, c], int(m),
                f"{c!r} (no role) determines the original value of {k!r} and still shows it in "
                f"{int(m):,} record(s) whose {k!r} was changed or blanked: declare it with "
                f"linked={{{k!r}: [{c!r}]}} so it follows the treatments of {k!r}, treat it the "
                f"same way, or remove it (s.remove({c!r}))"))
    return out


def _derived(cx: _Context, perturbed: list[str], ids: list[str]) -> list[dict[str, Any]]:
    cands = [c for c in cx.free if c not in ids and _is_number(cx.dtypes.get(c))]
    if not cands or not perturbed:
        return []
    f = cx.al.frame(perturbed, released_only=cands)
    pairs = [(d, v) for d in cands for v in perturbed]
    codes = _codes(cx.al, f)
    stats = _distinct_many(cx.al, f, [*["o:" + v for v in perturbed], *["r:" + d for d in cands]],
                           codes)
    vstat = {v: stats["o:" + v] for v in perturbed}
    ddist = {d: stats["r:" + d][1] for d in cands}
    corr = _corr_many(cx.al, f, [("r:" + d, "o:" + v) for d, v in pairs])
    fd = _determines_many(cx.al, f, [("o:" + v, "r:" + d) for d, v in pairs], codes)
    hits = []
    for j, (d, v) in enumerate(pairs):
        r = corr[j]
        cnt, dist = vstat[v]
        exact = int(ddist[d]) >= 2 and int(dist) <= int(cnt) / 2 and _small(fd[j])
        if exact or (not math.isnan(r) and abs(r) >= CORRELATION_THRESHOLD):
            hits.append((d, v, r, exact))
    counts = cx.al.compute(*[(f["chg:" + v] & f["r:" + d].notnull()).sum() for d, v, _, _ in hits])
    out = []
    for (d, v, r, exact), m in zip(hits, counts):
        how = (f"is a function of the original values of {v!r}" if exact else
               f"correlates with the original values of {v!r} at r = {r:.4f}")
        out.append(_finding(
            "warn", "derived", [d, v], int(m),
            f"{d!r} (no role) {how}, which were perturbed in {int(m):,} record(s) where {d!r} is "
            f"released unchanged: recompute {d!r} from the released {v!r}, declare it numeric and "
            f"perturb it too, or remove it (s.remove({d!r}))"))
    return out


def _order(cx: _Context, ids: list[str]) -> list[dict[str, Any]]:
    r = cx.roles
    names = list(dict.fromkeys([*r.keys, *([r.household] if r.household else []),
                                *r.identifiers, *ids]))
    names = [c for c in names if c in cx.al.original.columns]
    if not names or cx.n < 3:
        return []
    f = cx.al.frame([], original_only=names)
    counts = cx.al.compute(*[f["o:" + c].value_counts() for c in names])
    ranked, cols = {}, []
    for c, vc in zip(names, counts):
        try:
            vc = vc.sort_index()
        except TypeError:  # values that cannot be ordered: no order to follow
            continue
        cum = np.cumsum(vc.to_numpy(dtype=np.float64))
        ranks = pd.Series(cum - (vc.to_numpy(dtype=np.float64) - 1) / 2, index=vc.index)
        ranked["rank:" + c] = f["o:" + c].map(ranks, meta=("rank", "float64")) if cx.al.dask \
            else f["o:" + c].map(ranks)
        cols.append(c)
    rhos = _corr_many(cx.al, f.assign(**ranked), [("pos", "rank:" + c) for c in cols])
    out = []
    for c, rho in zip(cols, rhos):
        if not math.isnan(rho) and abs(rho) >= ORDER_THRESHOLD:
            out.append(_finding(
                "warn", "order", [c], cx.n,
                f"the records keep an order that follows {c!r} (Spearman's rho = {rho:.2f} "
                "between record position and its original values): export in random order "
                "(shuffle=True, the default)"))
    return out


def _weights(cx: _Context, changed: dict[str, int], k: int) -> list[dict[str, Any]]:
    w = cx.roles.weight
    if w is None or w not in cx.released or w not in changed or changed[w]:
        return []
    if cx.al.dask:
        m, values = rare_values(cx.al.data[w], k)
    else:
        vc = cx.al.data[w].value_counts()
        m, values = int(vc[vc < k].sum()), int((vc < k).sum())
    if not m:
        return []
    return [_finding(
        "warn", "weights", [w], m,
        f"the sampling weights {w!r} are released unchanged and {m:,} record(s) have a weight "
        f"value shared by fewer than {k} records ({values:,} such value(s)); a rare weight "
        "points to the design stratum and the calibration cell of its record: perturb them with "
        "s.perturb_weights(noise=0.1, by=[strata]) (noise that keeps the total and the stratum "
        "totals), release rounded or stratum-mean weights, or remove them if the users need no "
        "weights")]


def structure_findings(session: SdcSession, released: list[str], *, k: int,
                       shuffle: bool) -> list[dict[str, Any]]:
    """Every finding of the module table on ``session``'s HEAD; ``released`` are the columns
    of the released file, ``shuffle`` whether it is written in random order."""
    cx = _Context(session, released)
    state = session.state
    data = state.data.drop(columns=[c for c in state.data.columns if c not in released])
    out, ids = _identifiers(cx, data)
    if not cx.al.comparable:
        out.append(_finding("warn", "unchecked", [], cx.n,
                            "the state and the original have different partitions: the checks "
                            "that compare them record by record were not run"))
        return out
    changed, treated, perturbed = _treated(cx)
    out += _linked(cx, treated)
    out += _household(cx, treated)
    out += _undeclared(cx, treated, ids)
    out += _derived(cx, perturbed, ids)
    if not shuffle:
        out += _order(cx, ids)
    out += _weights(cx, changed, k)
    for c in cx.roles.numeric:
        if c in cx.released and c in changed and c not in perturbed:
            out.append(_finding("warn", "numeric", [c], cx.n,
                                f"numeric variable {c!r} is released unperturbed"))
    return out
