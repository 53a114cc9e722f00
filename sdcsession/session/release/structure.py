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
| ``derived`` | warn | a numeric column with no role that is a function of a perturbed numeric variable's original values and tells them closely (correlation ratio eta² >= 0.99² = 0.9801), or correlates with them at abs(r) >= 0.99 |
| ``order`` | warn | (records in the file's order only) the record order follows the original order of a key, the household id or a record id: abs(Spearman's rank correlation) >= 0.5 |
| ``bound`` | warn | a numeric column with no role that is a lower (upper) bound of a treated numeric variable's original values, record by record, and is above (below) its released value in some records (`sdcsession.session.release.bounds`) |
| ``weights`` | warn | the sampling weights are released unchanged while some weight value is shared by fewer than k records |
| ``numeric`` | warn | a numeric variable released unperturbed |

Each finding names its columns and counts the records concerned; its message gives the fix.

The derived finding. A numeric column d with no role is derived from a perturbed variable v
when (a) d is a function of v's original values (each original value of v goes with one
released value of d; v has at most n/2 distinct values, d at least 2) and d tells v closely:
Pearson's correlation ratio (Kendall & Stuart, The Advanced Theory of Statistics, vol. 2)

    eta²(v | d) = Σ_g n_g (mean_g(v) - mean(v))² / Σ_i (v_i - mean(v))²

over the groups g of d's released values is at least ``ETA_THRESHOLD`` = 0.99² (d = log(v)
or d = round(v, -3) warn; a household size next to a household-level v, a function of v only
because v is almost unique per household, does not); or (b) abs(Pearson's r) of d and v's
original values is at least ``CORRELATION_THRESHOLD`` = 0.99. Since eta² >= r² for any
numeric d, (a) extends (b) to functions that are not linear. Missing values: r and eta² are
computed over the records where d and v's original are both observed (a missing d is a value
of its own in the functional dependency). A constant v there (no variance) has no eta² and no
r: no finding. Unweighted (the records, not the weights). The finding counts the records
whose v was perturbed and whose d is observed.

The counts are computed in rounds (`sdcsession.session.release.rounds`): on Dask the counts that
do not wait for each other share one ``compute`` call, so the whole module costs three passes
over the data (the identifiers and the changed records; then the counts of every finding; then
the counts that depend on those) whatever the number of columns. Records that a finding would
count only if an earlier count allows it are counted in the same pass on Dask (a few more sums
in a pass instead of another pass) and used only when allowed, so the findings are those of
the pandas path.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .aligned import Aligned
from .bounds import bound_rounds, without_repeats
from .bounds import number_dtype as _is_number
from .codes import household_leaks
from .counting import (  # noqa: F401  (_pairs_part: the frame path the tests compare)
    _codes,
    _corr,
    _corr_many,
    _counts_many,
    _determines_many,
    _distinct_many,
    _eta_many,
    _pairs_part,
    _sums_many,
)
from .reductions import out_partitions, rare_rounds
from .rounds import Rounds, compute_for, gather, run, values

if TYPE_CHECKING:  # pragma: no cover
    from ..session import SdcSession

__all__ = ["structure_findings", "structure_rounds", "ORDER_THRESHOLD", "CORRELATION_THRESHOLD",
           "ETA_THRESHOLD"]

#: abs(Spearman's rho) between record position and a variable from which ``order`` warns
ORDER_THRESHOLD = 0.5
#: abs(Pearson's r) with a perturbed variable's original values from which ``derived`` warns
CORRELATION_THRESHOLD = 0.99
#: the correlation ratio eta² of a perturbed variable's original values given a function of
#: them from which ``derived`` warns: the correlation rule's threshold squared (eta² >= r²)
ETA_THRESHOLD = CORRELATION_THRESHOLD ** 2


def _finding(severity: str, check: str, variables: list[str], records: int,
             message: str) -> dict[str, Any]:
    return {"severity": severity, "check": check, "variables": list(variables),
            "records": int(records), "message": message}


class _Context:
    """What every finding needs: the session's roles, the aligned frames, the released columns."""

    def __init__(self, session: SdcSession, released: list[str]) -> None:
        state = session.state
        self.roles = state.roles
        self.n = state.n  # (Dask: counts the partitions' records once and keeps them)
        self.al = Aligned(state.data, state.original, state.cache.get(("dask.lengths",)))
        self.al.n = self.n
        # Dask: one aligned frame of every column for all the findings (glued once per pass)
        common = [c for c in state.data.columns if c in state.original.columns]
        self.al.share(common, released_only=released, original_only=list(state.original.columns))
        self.released = released
        roled = set(self.roles.columns())
        self.free = [c for c in released if c not in roled]
        self.dtypes = dict(state.data.dtypes.items())


def _identifiers(cx: _Context, data: Any) -> Rounds:
    """(the ``identifier`` findings, the identifier columns found)."""
    out: list[dict[str, Any]] = []
    if cx.al.dask:
        names = [data.index.name] if data.index.name is not None else []
        distinct = data.index.to_series().nunique() if names else None
    else:
        names = [n for n in data.index.names if n is not None]
        distinct = len(data.index.drop_duplicates()) if names else None
    ask = names and cx.n >= 2
    many = cx.free and cx.n >= 2
    stats, got = yield from gather(_distinct_many(cx.al, data, cx.free if many else []),
                                   values(distinct) if ask else values())
    if not many:
        ids: list[str] = []
    else:
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
    if ask:
        (distinct,) = got
        if int(distinct) == cx.n:
            out.append(_finding(
                "block", "identifier", [str(n) for n in names], cx.n,
                f"the index {names} has a distinct value for every record (a record id); drop it "
                "before the session (df.reset_index(drop=True)) or make it a column declared with "
                "identifiers=[...]"))
    return out, ids


def _treated(cx: _Context) -> Rounds:
    """The changed records of every key, numeric variable and the weight (one pass, no frame
    kept), and which keys / numeric variables were changed."""
    r = cx.roles
    keys = [c for c in dict.fromkeys([*r.keys, *r.pram]) if c in cx.al.data.columns]
    num = [c for c in r.numeric if c in cx.al.data.columns]
    changed = yield from cx.al.changed_rounds([*keys, *num, *([r.weight] if r.weight else [])])
    return (changed, [c for c in keys if changed.get(c, 0)], [c for c in num if changed.get(c, 0)])


def _linked(cx: _Context, treated: list[str]) -> Rounds:
    both = set(cx.al.data.columns) & set(cx.al.original.columns)
    pairs = [(k, c) for k, cs in cx.roles.linked for c in cs if k in treated and c in both]
    if not pairs:
        return []
    f = cx.al.frame(list(dict.fromkeys([c for pair in pairs for c in pair])))
    counts = yield from _counts_many(cx.al, f, [("chg:" + k, "rev:" + c, False) for k, c in pairs])
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
    values (one number per household) are put together in one task of the same graph and
    looked up partition by partition, so the records keep their partitions and order (a Dask
    merge would repartition ``f``, whose columns are aligned by position) and the counts over
    the result are computed in the same pass as the values."""
    if not al.dask:
        return f.merge(values.rename(name).to_frame(), left_on=key, right_index=True, how="left")
    import dask

    vals = dask.delayed(_concat)(values.to_delayed())
    meta = f._meta.assign(**{name: f._meta[key].map(values._meta)})
    return f.map_partitions(_lookup_part, key, vals, name, meta=meta)


def _concat(parts: list[pd.Series]) -> pd.Series:
    return pd.concat(parts) if len(parts) != 1 else parts[0]


def _household(cx: _Context, treated: list[str]) -> Rounds:
    hid = cx.roles.household
    if hid is None or hid not in cx.released or not treated:
        return []
    f = cx.al.frame(treated, released_only=[hid])
    h = "r:" + hid
    leaks = (yield from _household_lazy(cx.al, f, h, treated)) if cx.al.dask else \
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
                f"released: drop the household id (s.remove({hid!r})) or leave {k!r} untreated"
                + ("; a suppression by local_suppression(..., household=True) blanks such a key "
                   "in the whole household" if within and not by_size else "")))
    return out


def _household_lazy(al: Aligned, f: Any, h: str, treated: list[str]) -> Rounds:
    """`sdcsession.session.release.codes.household_leaks` written with frame operations (the
    Dask path, two rounds): (key, a function of the household size, constant within
    households, records that get it back) for each treated key with at least two original
    values."""
    f = _per_household(al, f, h, f.groupby(h).size(), "n_hh")
    orig = ["o:" + k for k in treated]
    # the original value as a function of the household size; the most original values in
    # one household (records with a value); the distinct original values
    sizes, distinct, *within = yield from gather(
        _determines_many(al, f, [("n_hh", o) for o in orig]), _distinct_many(al, f, orig),
        *[_determines_many(al, f.dropna(subset=[o]), [(h, o)]) for o in orig])
    hits = []
    for j, k in enumerate(treated):
        by_size, within_k = sizes[j], within[j][0]
        if not int(distinct["o:" + k][1]) >= 2:
            continue
        o = "o:" + k
        hit = None
        if _small(by_size):
            hit = f["chg:" + k] & f["n_hh"].notnull() & f[o].notnull()
        if _small(within_k):  # constant within households: another member gives it away
            sib = f.assign(_k=f["rev:" + k].astype("int64")).groupby(h)["_k"].sum()
            g = _per_household(al, f, h, sib, "sib_" + k)
            via = g["chg:" + k] & (g["sib_" + k] > 0)
            if hit is not None:
                via = via | (g["chg:" + k] & g["n_hh"].notnull() & g[o].notnull())
            hit = via
        if hit is not None:
            hits.append((k, _small(by_size), _small(within_k), hit.sum()))
    counts = yield from values(*[hit[3] for hit in hits])
    return [(k, size, inside, int(m)) for (k, size, inside, _), m in zip(hits, counts)]


def _small(v: Any) -> bool:
    """A `_determines_many`-style maximum that is at most 1 (missing = no group: not a dependency)."""
    try:
        return not pd.isna(v) and int(v) <= 1
    except (TypeError, ValueError):
        return False


def _undeclared(cx: _Context, treated: list[str], ids: list[str]) -> Rounds:
    cands = [c for c in cx.free if c not in ids and c in cx.al.original.columns]
    if not cands or not treated:
        return []
    f = cx.al.frame([*cands, *treated])
    codes = _codes(cx.al, f)
    # Dask: the records of every pair counted in the first pass (sums of the same pass)
    every = [(c, k) for c in cands for k in treated] if cx.al.dask else []
    stats, early = yield from gather(
        _distinct_many(cx.al, f, ["o:" + c for c in [*cands, *treated]], codes),
        _counts_many(cx.al, f, [("chg:" + k, "rev:" + c, False) for c, k in every]))
    # every value distinct: the identifier finding's case; a key needs two original values
    pairs = [(c, k) for c in cands if int(stats["o:" + c][1]) < int(stats["o:" + c][0])
             for k in treated if int(stats["o:" + k][1]) >= 2]
    fd = yield from _determines_many(cx.al, f, [("o:" + c, "o:" + k) for c, k in pairs], codes)
    hits = [pair for pair, v in zip(pairs, fd) if _small(v)]
    if cx.al.dask:
        found = dict(zip(every, early))
        counts = [found[pair] for pair in hits]
    else:
        counts = [(f["chg:" + k] & f["rev:" + c]).sum() for c, k in hits]
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


def _derived(cx: _Context, perturbed: list[str], ids: list[str]) -> Rounds:
    """The ``derived`` findings (the rule: "The derived finding" in the module docstring): the
    statistics of every (d, v) pair in one pass, then the correlation ratios of the pairs with
    a functional dependency in the next (on Dask the pass of the other findings' second
    counts)."""
    cands = [c for c in cx.free if c not in ids and _is_number(cx.dtypes.get(c))]
    if not cands or not perturbed:
        return []
    f = cx.al.frame(perturbed, released_only=cands)
    pairs = [(d, v) for d in cands for v in perturbed]
    codes = _codes(cx.al, f)
    # Dask: the records of every pair counted in the same pass as the statistics
    every = pairs if cx.al.dask else []
    stats, sums, fd, early = yield from gather(
        _distinct_many(cx.al, f, [*["o:" + v for v in perturbed], *["r:" + d for d in cands]],
                       codes),
        _sums_many(cx.al, f, [("r:" + d, "o:" + v) for d, v in pairs]),
        _determines_many(cx.al, f, [("o:" + v, "r:" + d) for d, v in pairs], codes),
        _counts_many(cx.al, f, [("chg:" + v, "r:" + d, True) for d, v in every]))
    vstat = {v: stats["o:" + v] for v in perturbed}
    ddist = {d: stats["r:" + d][1] for d in cands}
    # a function of v's originals (where they repeat) with at least two values
    func = [j for j, (d, v) in enumerate(pairs) if int(ddist[d]) >= 2
            and int(vstat[v][1]) <= int(vstat[v][0]) / 2 and _small(fd[j])]
    # centred at v's mean over the pair's records (the sums of the first pass)
    etas = yield from _eta_many(cx.al, f, [("r:" + pairs[j][0], "o:" + pairs[j][1]) for j in func],
                                [sums[j][2] / sums[j][0] if sums[j][0] else 0.0 for j in func],
                                codes)
    eta = dict(zip(func, etas))
    hits = []
    for j, (d, v) in enumerate(pairs):
        r, e = _corr(sums[j]), eta.get(j, math.nan)
        exact = not math.isnan(e) and e >= ETA_THRESHOLD
        if exact or (not math.isnan(r) and abs(r) >= CORRELATION_THRESHOLD):
            hits.append((d, v, r, e if exact else None, j))
    counts = [early[j] for *_, j in hits] if cx.al.dask else \
        [(f["chg:" + v] & f["r:" + d].notnull()).sum() for d, v, _, _, _ in hits]
    out = []
    for (d, v, r, e, _), m in zip(hits, counts):
        how = (f"is a function of the original values of {v!r} and gives them closely "
               f"(correlation ratio eta^2 = {e:.4f})" if e is not None else
               f"correlates with the original values of {v!r} at r = {r:.4f}")
        out.append(_finding(
            "warn", "derived", [d, v], int(m),
            f"{d!r} (no role) {how}; {v!r} was perturbed in {int(m):,} record(s) where {d!r} is "
            f"released unchanged: recompute {d!r} from the released {v!r}, declare it numeric and "
            f"perturb it too, or remove it (s.remove({d!r}))"))
    return out


def _order(cx: _Context, ids: list[str]) -> Rounds:
    r = cx.roles
    names = list(dict.fromkeys([*r.keys, *([r.household] if r.household else []),
                                *r.identifiers, *ids]))
    names = [c for c in names if c in cx.al.original.columns]
    if not names or cx.n < 3:
        return []
    f = cx.al.frame([], original_only=names)
    counts = yield from values(*[f["o:" + c].value_counts() for c in names])
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
    rhos = yield from _corr_many(cx.al, f.assign(**ranked), [("pos", "rank:" + c) for c in cols])
    out = []
    for c, rho in zip(cols, rhos):
        if not math.isnan(rho) and abs(rho) >= ORDER_THRESHOLD:
            out.append(_finding(
                "warn", "order", [c], cx.n,
                f"the records keep an order that follows {c!r} (Spearman's rho = {rho:.2f} "
                "between record position and its original values): export in random order "
                "(shuffle=True, the default)"))
    return out


def _weights(cx: _Context, changed: dict[str, int], k: int) -> Rounds:
    w = cx.roles.weight
    if w is None or w not in cx.released or w not in changed or changed[w]:
        return []
    if cx.al.dask:
        m, rare = yield from rare_rounds(cx.al.data[w], k,
                                         out_partitions(cx.n, cx.al.data.npartitions))
    else:
        vc = cx.al.data[w].value_counts()
        m, rare = int(vc[vc < k].sum()), int((vc < k).sum())
    if not m:
        return []
    return [_finding(
        "warn", "weights", [w], m,
        f"the sampling weights {w!r} are released unchanged and {m:,} record(s) have a weight "
        f"value shared by fewer than {k} records ({rare:,} such value(s)); a rare weight "
        "points to the design stratum and the calibration cell of its record: perturb them with "
        "s.perturb_weights(noise=0.1, by=[strata]) (noise that keeps the total and the stratum "
        "totals), release rounded or stratum-mean weights, or remove them if the users need no "
        "weights")]


def structure_findings(session: SdcSession, released: list[str], *, k: int,
                       shuffle: bool) -> list[dict[str, Any]]:
    """Every finding of the module table on ``session``'s HEAD; ``released`` are the columns
    of the released file, ``shuffle`` whether it is written in random order."""
    return run(structure_rounds(session, released, k=k, shuffle=shuffle),
               compute_for(session.state.data))


def structure_rounds(session: SdcSession, released: list[str], *, k: int,
                     shuffle: bool) -> Rounds:
    """`structure_findings` in rounds (`sdcsession.session.release.rounds`): the identifiers
    and the changed records, then every finding's counts side by side."""
    cx = _Context(session, released)
    state = session.state
    data = state.data.drop(columns=[c for c in state.data.columns if c not in released])
    if not cx.al.comparable:
        out, ids = yield from _identifiers(cx, data)
        out.append(_finding("warn", "unchecked", [], cx.n,
                            "the state and the original have different partitions: the checks "
                            "that compare them record by record were not run"))
        return out
    (out, ids), (changed, treated, perturbed) = yield from gather(_identifiers(cx, data),
                                                                  _treated(cx))
    found = yield from gather(_linked(cx, treated), _household(cx, treated),
                              _undeclared(cx, treated, ids), _derived(cx, perturbed, ids),
                              _order(cx, ids) if not shuffle else values(),
                              bound_rounds(cx.al, cx.free, cx.roles.keys, treated, perturbed, ids),
                              _weights(cx, changed, k))
    for f in found:
        out += list(f)
    out = without_repeats(out)  # a bound that is also a derived or undeclared_linked pair
    for c in cx.roles.numeric:
        if c in cx.released and c in changed and c not in perturbed:
            out.append(_finding("warn", "numeric", [c], cx.n,
                                f"numeric variable {c!r} is released unperturbed"))
    return out
