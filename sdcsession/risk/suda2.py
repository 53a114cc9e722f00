"""SUDA2: minimal sample uniques, SUDA scores, DIS-SUDA scores and attribute contributions.

A *sample unique* on a set ``S`` of key variables is a record whose combination of values on ``S``
occurs only once in the data. It is a *minimal sample unique* (MSU) when no proper subset of ``S``
is already unique for that record. SUDA (Elliot et al. 2002) scores records by their MSUs: the
smaller the MSUs and the more of them, the riskier the record. SUDA2 (Manning, Haglin & Keane 2008)
is a recursive search for all MSUs; here the search is a breadth-first walk over the subsets of the
key variables (bit masks, by increasing size) with vectorised integer-code counting per subset.

Example
-------
>>> import pandas as pd
>>> from sdcsession.risk.suda2 import suda2
>>> df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
>>> r = suda2(df, ["a", "b", "c"])
>>> r.score.tolist()
[2.0, 4.0, 2.0]
>>> r.contributions.tolist()
[50.0, 37.5, 37.5]
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import combinations

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..progress import Bar
from ._codes import (
    _MAX_RADIX,
    _densify,
    as_keys,
    check_columns,
    check_flag,
    check_frame,
    check_number,
    combine,
    encode_keys,
)

__all__ = ["Suda2Result", "suda2"]

#: refuse searches over more subsets than this (2^m grows fast); ``max_size`` bounds it
_MAX_SUBSETS = 1 << 17


@attrs.frozen(eq=False)
class Suda2Result:
    """Result of `suda2` (all per-record Series aligned to the input index).

    Attributes
    ----------
    score : pd.Series
        SUDA score per record (0 for records without an MSU), float64.
    dis_score : pd.Series
        DIS-SUDA score per record, in [0, 1] (0 where the SUDA score is 0), float64.
    contributions : pd.Series
        Percentage of the total SUDA score contributed by each key variable (indexed by key name;
        an MSU's score is credited to every variable in it, so the percentages can sum above 100).
    record_contributions : pd.DataFrame
        Per record and key variable, the share (0..1) of the record's score coming from MSUs that
        contain the variable (sdcMicro's ``contributionPercent``); 0 for records with score 0.
    msu_counts : pd.DataFrame
        Number of MSUs of each size (columns ``1 .. max_size``) per record, int64.
    level_contributions : pd.DataFrame
        sdcMicro's ``attribute_level_contributions``: one row per key and value (``variable``,
        ``attribute``, ``contribution``): the percentage of the variable's contribution coming from
        records with that value (sums to 100 per variable; NaN for a variable in no MSU).
    keys : tuple[str, ...]
        The key variables, in the order given.
    max_size : int
        Largest MSU size searched.
    dis_fraction : float
        The sampling fraction used for the DIS-SUDA scores.

    Example
    -------
    >>> import pandas as pd
    >>> r = suda2(pd.DataFrame({"a": [1, 1, 2], "b": [1, 2, 2]}), ["a", "b"])
    >>> r.msu_counts.loc[2].tolist()
    [1, 0]
    """

    score: pd.Series
    dis_score: pd.Series
    contributions: pd.Series
    record_contributions: pd.DataFrame
    msu_counts: pd.DataFrame
    keys: tuple[str, ...]
    max_size: int
    dis_fraction: float
    level_contributions: pd.DataFrame | None = None

    def dis_table(self) -> pd.DataFrame:
        """Records per DIS-SUDA score interval, as sdcMicro's ``print.suda2``.

        Intervals ``== 0``, ``(0.0, 0.1]``, ..., ``(0.6, 0.7]``, ``> 0.7`` (upper bounds shifted
        by machine epsilon, as sdcMicro's ``cut``).

        >>> import pandas as pd
        >>> r = suda2(pd.DataFrame({"a": [1, 1, 2], "b": [1, 2, 2]}), ["a", "b"])
        >>> r.dis_table()["records"].tolist()
        [0, 0, 0, 0, 0, 0, 0, 0, 3]
        """
        eps = np.finfo(np.float64).eps
        breaks = np.concatenate([[-1.0], np.arange(8) / 10 + eps, [np.inf]])
        labels = ["== 0"] + [f"({a / 10:.1f}, {(a + 1) / 10:.1f}]" for a in range(7)] + ["> 0.7"]
        pos = np.searchsorted(breaks, self.dis_score.to_numpy(), side="left") - 1
        counts = np.bincount(np.clip(pos, 0, 8), minlength=9)
        return pd.DataFrame({"interval": labels, "records": counts})

    def __repr__(self) -> str:
        n_risky = int((self.score.to_numpy() > 0).sum())
        return (
            f"Suda2Result(keys={list(self.keys)}, records={len(self.score)}, "
            f"with_msu={n_risky}, max_dis_score={float(self.dis_score.max()):.4g})"
        )


def _check_dis_fraction(dis_fraction: float) -> float:
    f = check_number(dis_fraction, "dis_fraction", "the sampling fraction, a number in (0, 1]")
    if not 0.0 < f <= 1.0:
        raise ParameterError(
            f"dis_fraction: expected the sampling fraction, a number in (0, 1], got {dis_fraction!r}")
    return f


def _check_max_size(max_size: int | None, m: int) -> int:
    if max_size is None:
        size = m
    elif isinstance(max_size, (bool, np.bool_)) or not isinstance(max_size, (int, np.integer)):
        raise ParameterError(f"max_size: expected an integer in [1, {m}] or None, got {max_size!r}")
    elif not 1 <= int(max_size) <= m:
        raise ParameterError(
            f"max_size: expected an integer in [1, {m}] (the number of keys) or None, "
            f"got {max_size!r}")
    else:
        size = int(max_size)
    n_subsets = sum(math.comb(m, k) for k in range(1, size + 1))
    if n_subsets > _MAX_SUBSETS:
        raise ParameterError(
            f"max_size: searching MSUs of up to {size} of {m} keys means {n_subsets} subsets "
            f"(limit {_MAX_SUBSETS}); pass a smaller max_size or fewer keys")
    return size


def _dis_constants(n_unique: int, n_pair_records: int, dis_fraction: float, m: int) -> tuple[
        float, float]:
    """``kappa = U/theta - U`` and the exponent ``Q``, rounded like sdcMicro (single precision).

    ``theta = U pi / (U pi + P (1 - pi))`` is the Skinner-Elliot (2002) DIS estimate of the probability
    that a unique match is correct (U full-key sample uniques, P records in pairs). Algebraically
    ``kappa = P (1 - pi) / pi``; sdcMicro evaluates theta, kappa and ``Q = 1 + (8 - m) / 20`` in
    IEEE single precision, which moves DIS-SUDA scores by up to ~1e-7 relative; we do the same.
    """
    f32 = np.float32
    pi = f32(dis_fraction)
    u = f32(n_unique)
    p = f32(n_pair_records)
    q = float(f32(1.0) + (f32(8.0) - f32(m)) / f32(20.0))
    if n_unique == 0:
        return 0.0, q
    with np.errstate(all="ignore"):
        theta = (u * pi) / (u * pi + p * (f32(1.0) - pi))
        kappa = float(u / theta - u)
    return max(kappa, 0.0), q


def _subset_code(cols: list[np.ndarray], subset: tuple[int, ...], cards: list[int]) -> tuple[
        np.ndarray, int]:
    """Mixed-radix code of the records on ``subset`` (densified by hashing only on overflow)."""
    code = cols[0].astype(np.int64, copy=True)
    radix = int(cards[subset[0]])
    for col, j in zip(cols[1:], subset[1:]):
        card = int(cards[j])
        if radix * card >= _MAX_RADIX:
            code, radix = _densify(code)
        code *= card
        code += col
        radix *= card
    return code, radix


def _unique_active(joint: list[np.ndarray], subset: tuple[int, ...], cards: list[int],
                   blocked: np.ndarray, n_active: int, rep_pos: np.ndarray) -> np.ndarray:
    """Positions of the unblocked candidates that are alone in their cell on ``subset``.

    Cells are counted over the unblocked candidates and all non-candidate representatives (blocked
    candidates are alone in their cell, so leaving them out changes no one else's count). When few
    candidates are active they are gathered first; otherwise the blocked ones go to a sentinel bin.
    """
    c = blocked.size
    gather = n_active < c // 2
    if gather:
        active = np.flatnonzero(~blocked)
        idx = np.concatenate([active, rep_pos])
        cols = [joint[j][idx] for j in subset]
    else:
        cols = [joint[j] for j in subset]
    code, radix = _subset_code(cols, subset, cards)
    total = code.size
    if radix > 4 * total + 1024:
        code, radix = _densify(code)
    if gather:
        cnt = np.bincount(code, minlength=radix)
        return active[cnt[code[:n_active]] == 1]
    head = code[:c]
    head[blocked] = radix  # sentinel bin for blocked candidates
    cnt = np.bincount(code, minlength=radix + 1)
    return np.flatnonzero((cnt[head] == 1) & ~blocked)


def _level_contributions(df: pd.DataFrame, keys: list[str], cand: np.ndarray,
                         contrib: np.ndarray) -> pd.DataFrame:
    """Per key and value: 100 * (score credited to the key by records with that value) / (total)."""
    parts = []
    for j, k in enumerate(keys):
        s = df[k]
        try:
            codes, uniq = pd.factorize(s, sort=True, use_na_sentinel=True)
        except TypeError:  # values that do not sort together
            codes, uniq = pd.factorize(s, use_na_sentinel=True)
        c = codes[cand]
        ok = c >= 0
        sums = np.bincount(c[ok], weights=contrib[ok, j], minlength=len(uniq))
        total = float(contrib[:, j].sum())
        pct = 100.0 * sums / total if total > 0 else np.full(len(uniq), np.nan)
        parts.append(pd.DataFrame({"variable": k, "attribute": pd.Series(uniq, dtype=object),
                                   "contribution": pct}))
    return pd.concat(parts, ignore_index=True)


def suda2(
    df: pd.DataFrame,
    keys: str | Iterable[str],
    *,
    dis_fraction: float = 0.01,
    max_size: int | None = None,
    progress: bool | None = None,
    original_scores: bool = True,
) -> Suda2Result:
    """SUDA2: minimal sample uniques (MSUs), SUDA and DIS-SUDA scores, attribute contributions.

    Algorithm (Manning, Haglin & Keane 2008 define MSUs; the search here is our own vectorised
    breadth-first walk): the ``m`` key variables are encoded once as integer codes. Records whose
    full key combination is not unique can have no MSU (uniqueness is monotone in the set of
    variables), so only full-key sample uniques are *candidates*. The non-empty subsets ``S`` of the
    keys are visited by increasing size (bit masks). A candidate is *blocked* on ``S`` when it is
    unique on an immediate subset ``S \\ {j}`` (then it is unique on ``S`` but not minimally so);
    blocked records sit alone in their ``S`` cell, so dropping them does not change anyone else's
    count. For the unblocked candidates the ``S`` combinations are counted together with all
    non-candidate records (mixed-radix integer codes, hash factorisation, ``bincount``); an
    unblocked candidate alone in its cell has ``S`` as an MSU. Cost: one counting pass per subset,
    ``sum_{k <= max_size} C(m, k)`` passes.

    Scores (Elliot, Manning, Mayes, Gurd & Bane 2005, "SUDA: a program for detecting special
    uniques"; sdcMicro ``suda2(original_scores=TRUE)``): an MSU of size ``k`` scores
    ``(m - k)! = prod_{j=k}^{m-1} (m - j)`` and a record's SUDA score is the sum over its MSUs.
    With ``max_size < m`` only MSUs up to that size are found and scored (weights still use ``m``).
    ``original_scores=False`` uses the weights of the original IHSN SUDA2 program instead
    (sdcMicro's ``original_scores = FALSE``): an MSU of size ``k`` scores
    ``(2^(m-k) - 1) / C(m, k)`` (so an MSU of all ``m`` keys scores 0); contributions and DIS-SUDA
    then use these scores.

    Attribute contributions (sdcMicro's ``attribute_contributions``): the score of each MSU is
    credited to every variable in it; ``contribution_v = 100 * sum_i sum_{MSU of i containing v}
    (m - |MSU|)! / sum_i score_i`` (all 0 when no record has an MSU).

    DIS-SUDA (Elliot et al. 2005, as implemented by the IHSN SUDA2 code in sdcMicro 5.8.1, whose
    formula we read and re-derived): with ``pi`` = ``dis_fraction``, ``U`` the number of full-key
    sample uniques and ``P`` the number of records in full-key cells of size exactly 2,
    ``theta = U pi / (U pi + P (1 - pi))`` is the Skinner & Elliot (2002) DIS estimate of the
    probability that a unique match is correct; with ``Q = 1 + (8 - m) / 20`` and
    ``A = sum_{j: s_j > 0} s_j^{-Q}`` the file-level ``theta`` is spread over the records by score::

        dis_i = 1 / (1 + (U / theta - U) / (s_i^Q * A))    for s_i > 0, else 0,

    where ``U / theta - U = P (1 - pi) / pi``. As sdcMicro, ``theta``, ``U / theta - U`` and ``Q`` are
    evaluated in single precision (this matters at 1e-8 relative). When there is no pair ``dis_i = 1``
    for every record with an MSU. sdcMicro's count of uniques misses uniques sharing a bucket of its
    16-bit hash table; this cancels from the formula (up to single-precision rounding), so we use
    the true count.

    Missing values: a missing key value is never part of an MSU (sdcMicro drops the items whose
    value is its missing code); otherwise it is a value of its own: another record with a missing
    value in ``j`` does not share a record's value on ``j``, and records identical on all keys
    (missing included) are duplicates for ``U`` and ``P``.

    Differences from sdcMicro: sdcMicro pads 1 or 2 keys with constant dummy variables (so its
    weights and ``Q`` use ``m = 3``, with a warning that results may be wrong); we use the real
    ``m``. sdcMicro treats ``DisFraction = 0`` as 0.5; we require ``0 < dis_fraction <= 1``.

    Parameters
    ----------
    df : pd.DataFrame
        The microdata.
    keys : str or list of str
        Key (quasi-identifier) variables, read as categories.
    dis_fraction : float
        Sampling fraction ``pi`` for the DIS estimate, ``0 < pi <= 1`` (sdcMicro ``DisFraction``).
    max_size : int or None
        Largest MSU size searched (default: all ``m`` keys, as sdcMicro).
    original_scores : bool
        ``True`` (default): Elliot et al.'s weights ``(m - k)!``; ``False``: the IHSN weights
        ``(2^(m-k) - 1) / C(m, k)`` (see above).
    progress : bool or None
        Progress bar over the subsets of keys searched (None: automatic — on in terminals and
        notebooks, off in CI and redirected output; see `sdcsession.progress`).

    Returns
    -------
    Suda2Result
        ``.score``, ``.dis_score`` (Series aligned to ``df.index``), ``.contributions`` (Series by
        key, percent), ``.record_contributions``, ``.msu_counts`` (DataFrames).

    Raises
    ------
    MeasureError
        ``df`` is not a non-empty DataFrame or a key column is missing.
    ParameterError
        Bad ``keys``, ``dis_fraction`` or ``max_size``, or too many subsets to search.

    References
    ----------
    Elliot, M. J., Manning, A. M. & Ford, R. W. (2002). A computational algorithm for handling the
    special uniques problem. Int. J. Uncertainty, Fuzziness and Knowledge-Based Systems 10(5).
    Elliot, M. J., Manning, A., Mayes, K., Gurd, J. & Bane, M. (2005). SUDA: a program for detecting
    special uniques. Joint UNECE/Eurostat work session on statistical data confidentiality.
    Manning, A. M., Haglin, D. J. & Keane, J. A. (2008). A recursive search algorithm for statistical
    disclosure assessment. Data Min. Knowl. Disc. 16, 165-196.
    Skinner, C. J. & Elliot, M. J. (2002). A measure of disclosure risk for microdata. JRSS B 64(4).

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [2, 1, 1, 1, 1], "b": [0, 3, 0, 0, 0], "c": [0, 6, 0, 5, 0]})
    >>> r = suda2(df, ["a", "b", "c"], dis_fraction=0.5)
    >>> r.score.tolist()   # MSUs {a}; {b}, {c}; none (a pair); {c}; none  -- each (3 - 1)! = 2
    [2.0, 4.0, 0.0, 2.0, 0.0]
    >>> r.msu_counts.sum().tolist()
    [4, 0, 0]
    >>> r.contributions.tolist()
    [25.0, 25.0, 50.0]
    >>> # U/theta - U = P (1 - pi) / pi = 2, Q = 1.25, A = 2 * 2**-1.25 + 4**-1.25
    >>> r.dis_score.round(6).tolist()
    [0.547557, 0.742163, 0.0, 0.547557, 0.0]
    """
    df = check_frame(df)
    keys = as_keys(keys)
    check_columns(df, keys, "keys")
    pi = _check_dis_fraction(dis_fraction)
    m = len(keys)
    size = _check_max_size(max_size, m)
    if progress is not None:
        check_flag(progress, "progress")
    check_flag(original_scores, "original_scores")
    n = len(df)

    codes, cards = encode_keys(df, keys)
    na = codes < 0
    if na.any():  # a missing value is a category of its own for counting
        for j in range(m):
            if na[:, j].any():
                codes[na[:, j], j] = cards[j]
                cards[j] += 1
    na_bits = (na.astype(np.int64) << np.arange(m, dtype=np.int64)).sum(axis=1) if na.any() else None

    # full-key cells: candidates (uniques), pairs
    full, nfull = combine(codes, cards, dense=True)
    cell_size = np.bincount(full, minlength=nfull)
    fk = cell_size[full]
    cand = np.flatnonzero(fk == 1)  # record positions of full-key sample uniques
    n_unique = int(cand.size)
    n_pair_records = int((fk == 2).sum())
    # non-candidates, one representative record per full-key cell (duplicates add nothing)
    first = np.full(nfull, -1, dtype=np.int64)
    first[full[::-1]] = np.arange(n - 1, -1, -1)
    rep = first[cell_size >= 2]

    if original_scores:
        weights = np.array([float(math.factorial(m - k)) for k in range(1, m + 1)])
    else:
        weights = np.array([(2.0 ** (m - k) - 1) / math.comb(m, k) for k in range(1, m + 1)])
    c = cand.size
    counts = np.zeros((c, size), dtype=np.int64)
    contrib = np.zeros((m, c), dtype=np.float64)  # per key, per candidate
    # one contiguous column per key: the candidates first, then the non-candidate representatives
    joint = [np.ascontiguousarray(np.concatenate([codes[cand, j], codes[rep, j]]))
             for j in range(m)]
    rep_pos = np.arange(c, c + rep.size, dtype=np.int64)
    cand_na = na_bits[cand] if na_bits is not None else None

    n_subsets = sum(math.comb(m, j) for j in range(1, size + 1))
    with Bar(n_subsets, desc="SUDA2 subsets", enabled=progress) as bar:
        prev: dict[int, np.ndarray] = {}  # mask -> bool over candidates: unique on that subset
        for k in range(1, size + 1):
            if c == 0:
                break
            cur: dict[int, np.ndarray] = {}
            any_active = False
            for subset in combinations(range(m), k):
                bar.update(1)
                mask = 0
                for j in subset:
                    mask |= 1 << j
                if k == 1:
                    blocked = np.zeros(c, dtype=bool)
                else:
                    blocked = prev[mask ^ (1 << subset[0])].copy()
                    for j in subset[1:]:
                        blocked |= prev[mask ^ (1 << j)]
                n_active = c - int(np.count_nonzero(blocked)) if k > 1 else c
                if n_active == 0:
                    cur[mask] = blocked
                    continue
                any_active = True
                hit = _unique_active(joint, subset, cards, blocked, n_active, rep_pos)
                blocked[hit] = True
                cur[mask] = blocked
                if cand_na is not None:
                    hit = hit[(cand_na[hit] & mask) == 0]
                if hit.size:
                    counts[hit, k - 1] += 1
                    w = weights[k - 1]
                    for j in subset:
                        contrib[j, hit] += w
            prev = cur
            if not any_active:
                break
    contrib = contrib.T

    score_c = counts @ weights[:size]
    score = np.zeros(n, dtype=np.float64)
    score[cand] = score_c

    total = float(score_c.sum())
    if total > 0:
        contributions = 100.0 * contrib.sum(axis=0) / total
    else:
        contributions = np.zeros(m, dtype=np.float64)

    rec_contrib = np.zeros((n, m), dtype=np.float64)
    pos = score_c > 0
    rec_contrib[cand[pos]] = contrib[pos] / score_c[pos, None]

    msu = np.zeros((n, size), dtype=np.int64)
    msu[cand] = counts

    dis = np.zeros(n, dtype=np.float64)
    if pos.any():
        kappa, q = _dis_constants(n_unique, n_pair_records, pi, m)
        s = score_c[pos]
        sq = s ** q
        adj = float(np.sum(1.0 / sq))
        dis[cand[pos]] = 1.0 / (1.0 + kappa / (sq * adj))

    index = df.index
    return Suda2Result(
        level_contributions=_level_contributions(df, keys, cand, contrib),
        score=pd.Series(score, index=index, name="suda_score"),
        dis_score=pd.Series(dis, index=index, name="dis_suda_score"),
        contributions=pd.Series(contributions, index=pd.Index(keys, name="variable"),
                                name="contribution"),
        record_contributions=pd.DataFrame(rec_contrib, index=index, columns=keys),
        msu_counts=pd.DataFrame(msu, index=index, columns=pd.RangeIndex(1, size + 1, name="size")),
        keys=tuple(keys),
        max_size=size,
        dis_fraction=pi,
    )
