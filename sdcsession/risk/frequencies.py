"""Sample and estimated population frequencies of key combinations (sdcMicro ``freqCalc``).

Missing key values are wildcards. Record *j* is *compatible* with record *i* when they agree on every
key where both are non-missing. With ``M_i`` the set of keys missing in record *i*,

    fk_i = sum over compatible j of  c_ij,     Fk_i = sum over compatible j of  c_ij * w_j,
    c_ij = 1      if j has no missing key, or j has exactly i's missing pattern (M_j = M_i),
    c_ij = alpha  otherwise (j misses keys, in another pattern than i),

so a record counts itself, the records of its own (partly missing) combination and the compatible
complete records with weight 1. With alpha = 1 a record whose keys are all missing gets fk = n and
Fk = sum of the weights. This rule reproduces sdcMicro 5.8.1 ``freqCalc`` exactly, for alpha = 1 and
alpha = 0, on the conformance file ``testdata_na``; its record 2921 (missing two keys) pins that a
record missing only one of those keys counts alpha, not 1 (a subset rule "M_j within M_i" would not).

Algorithm: records are grouped by *missing pattern* (bit mask of missing keys). For every union
``U = P_i | P_j`` of two present patterns, the records are encoded once on the keys outside ``U``;
for each pattern ``P_i`` inside ``U``, one weighted ``bincount`` over the codes of the contributing
records (those with ``P_j | P_i = U``; weights ``c_ij``, or ``c_ij * w_j``) is gathered back to the
records of pattern ``P_i``.
The cost is a few vectorised passes per pattern pair, never a loop over records; without missing
values it is a single ``bincount`` of the combined key codes. When the mixed-radix space of all
keys is small (at most 4n + 1024 codes), the same sums are formed by *expansion* instead: a record
missing the keys of U matches the complete records whose full code is its code on the other keys
plus one of the codes of the missing keys, so its contribution is a ``bincount`` of those expanded
codes, and the complete records' sums over all unions are added table by table and read once
(``_expanded``; bit for bit the same floats: every sum has the same terms in the same order).
When the radix space is at most 8n + 1024 codes, the union-by-union sums themselves run compiled.
First choice is one pass over the records in record order (`sdcsession.risk._wildcard_scan`):
the keys with missing values become the top digits of the code, every pair numbers the bins it
needs in a dense slot array, and each record adds itself to its bins of all the pairs it
contributes to at once. When its look-up tables or slot arrays would be too large (missing values
spread over many keys), the pair-by-pair kernel runs (``_compiled``,
`sdcsession.risk._frequencies_jit`): a record's code outside U is its full code minus its digits
in U, and per (U, P_i) pair only the bins of the smaller side are summed. Both give the same
floats again, without a pass over the code space or a recombination of the keys per union.

Reference: Templ, Kowarik & Meindl (2015), *Statistical Disclosure Control for Micro-Data Using the
R Package sdcMicro*, J. Stat. Softw. 67(4), section 3.1 (frequency counts, missing values as
wildcards weighted by alpha).

Example
-------
>>> import pandas as pd
>>> from sdcsession.risk import frequencies
>>> df = pd.DataFrame({"sex": ["m", "m", "f", None], "w": [10.0, 20.0, 5.0, 1.0]})
>>> frequencies(df, ["sex"], weight="w")
   fk    Fk
0   3  31.0
1   3  31.0
2   2   6.0
3   4  36.0
>>> frequencies(df, ["sex"], alpha=0)["fk"].tolist()
[2, 2, 1, 4]
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from ..errors import MeasureError, SdcWarning, user_stacklevel
from ._codes import (
    as_keys,
    check_alpha,
    check_columns,
    check_frame,
    combine,
    encode_keys,
    float_array,
    weights_of,
)

__all__ = ["frequencies", "frequencies_from_codes", "warn_fk_above_Fk"]


def _pattern_bits(missing: np.ndarray) -> np.ndarray:
    p = missing.shape[1]
    if p > 62:
        raise MeasureError(f"keys: at most 62 key variables are supported, got {p}")
    bits = np.zeros(missing.shape[0], dtype=np.int64)
    for j in range(p):
        col = missing[:, j]
        if col.any():
            bits[col] |= np.int64(1) << j
    return bits


def frequencies_from_codes(
    codes: np.ndarray,
    cards: list[int],
    weights: np.ndarray | None = None,
    alpha: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """fk and Fk from an ``(n, p)`` matrix of key codes (``-1`` = missing); see the module docstring.

    Returns float64 arrays ``(fk, Fk)``; without weights ``Fk`` equals ``fk``.

    Missing values: code -1 marks a missing key value, a wildcard weighted by ``alpha`` (sdcMicro's
    rule).

    >>> import numpy as np
    >>> fk, Fk = frequencies_from_codes(np.array([[0, 0], [0, -1], [1, 0]]), [2, 1])
    >>> fk.tolist()
    [2.0, 2.0, 1.0]

    The inputs are checked (`MeasureError` / `ParameterError`): ``codes`` an integer matrix with
    values in ``-1 .. cards[j] - 1``, ``cards`` one positive integer per column, ``weights`` one
    finite positive number per record, ``alpha`` in [0, 1].
    """
    codes, cards, weights = _check_codes(codes, cards, weights)
    return _frequencies_from_codes(codes, cards, weights, check_alpha(alpha))


def _check_codes(codes: object, cards: object, weights: object,
                 ) -> tuple[np.ndarray, list[int], np.ndarray | None]:
    if not isinstance(codes, np.ndarray) or codes.ndim != 2 or codes.dtype.kind not in "iu":
        raise MeasureError(
            "codes: expected a two-dimensional integer numpy array (records x keys), got "
            f"{type(codes).__name__}" + (f" of dtype {codes.dtype} and shape {codes.shape}"
                                         if isinstance(codes, np.ndarray) else ""))
    n, p = codes.shape
    if isinstance(cards, (str, bytes, Mapping)) or not isinstance(cards, Iterable):
        raise MeasureError(f"cards: expected one number of categories per key, got {cards!r}")
    cl = list(cards)
    if len(cl) != p or not all(isinstance(c, (int, np.integer)) and not isinstance(c, (
            bool, np.bool_)) and 1 <= c < 2**62 for c in cl):
        raise MeasureError(
            f"cards: expected {p} integer(s) >= 1 (one per column of codes), got {cl!r}"[:300])
    cl = [int(c) for c in cl]
    c64 = codes.astype(np.int64, copy=False)
    if n and p and ((c64.min(axis=0) < -1).any() or (c64.max(axis=0) >= np.array(cl)).any()):
        raise MeasureError("codes: every code must lie in -1 (missing) .. cards[j] - 1")
    w = None
    if weights is not None:
        w = float_array(weights, "weights")
        if w.shape != (n,):
            raise MeasureError(f"weights: {w.size} weight(s) for {n} records")
        with np.errstate(over="ignore"):
            total = w.sum()
        if not np.isfinite(w).all() or (w <= 0).any() or not np.isfinite(total):
            raise MeasureError("weights: sampling weights must be finite and > 0")
    return c64, cl, w


def _frequencies_from_codes(codes: np.ndarray, cards: list[int], weights: np.ndarray | None,
                            alpha: float) -> tuple[np.ndarray, np.ndarray]:
    n, p = codes.shape
    if n == 0:
        return np.zeros(0), np.zeros(0)
    col_min = codes.min(axis=0)
    if col_min.min() >= 0:  # no missing key value
        g, size = combine(codes, cards)
        fk = np.bincount(g, minlength=size).astype(np.float64)[g]
        Fk = fk if weights is None else np.bincount(g, weights=weights, minlength=size)[g]
        return fk, Fk

    if p > 62:
        raise MeasureError(f"keys: at most 62 key variables are supported, got {p}")
    space = 1
    for c in cards:
        space *= c
    if n >= SCAN_RECORDS and space <= min(COMPILED_SPACE, 8 * n + 1024):
        from ._wildcard_scan import scanned

        fast = scanned(codes, cards, weights, alpha,
                       [int(k) for k in np.flatnonzero(col_min < 0)], space)
        if fast is not None:
            return fast
    from ._frequencies_jit import pattern_bits

    bits = pattern_bits(codes)
    if p <= 20:
        pats = np.flatnonzero(np.bincount(bits)).astype(np.int64)
    else:
        pats = np.unique(bits)
    pats_l = [int(x) for x in pats]
    unions: dict[int, list[int]] = {}
    for pi in pats_l:
        for q in pats_l:
            if alpha == 0.0 and q not in (0, pi):
                continue  # weight alpha = 0: contributes nothing
            targets = unions.setdefault(pi | q, [])
            if pi not in targets:
                targets.append(pi)
    fast = _compiled(codes, cards, weights, alpha, bits, pats_l, unions, None)
    if fast is not None:
        return fast
    rows_of = {pi: np.flatnonzero(bits == pi) for pi in pats_l}
    fast = _expanded(codes, cards, weights, alpha, bits, pats_l, unions, rows_of)
    if fast is not None:
        return fast
    fk = np.zeros(n, dtype=np.float64)
    Fk = np.zeros(n, dtype=np.float64) if weights is not None else fk
    for u, targets in unions.items():
        obs = [j for j in range(p) if not (u >> j) & 1]
        # codes on the keys observed outside u, for all records (only records whose pattern is
        # inside u are ever used: the others may hold garbage from their -1 codes)
        if obs:
            g, size = combine([codes[:, j] for j in obs], [cards[j] for j in obs])
        else:
            g, size = np.zeros(n, dtype=np.int64), 1
        for pi in targets:
            ci = np.flatnonzero((bits | pi) == u)  # contributors j with P_j | P_i == u
            gc = g[ci]
            factor = _alpha_factor(bits, ci, pi, u, alpha)
            ti = rows_of[pi]
            gt = g[ti]
            fk[ti] += np.bincount(gc, weights=factor, minlength=size)[gt]
            if weights is not None:
                wc = weights[ci] if factor is None else weights[ci] * factor
                Fk[ti] += np.bincount(gc, weights=wc, minlength=size)[gt]
    return fk, Fk


#: the compiled pair sums need the mixed-radix space of all keys within this many codes
COMPILED_SPACE = 1 << 26
#: the one-pass kernel runs from this many records on (below, its set-up costs more than it saves)
SCAN_RECORDS = 2048


def _alpha_factor(bits: np.ndarray, ci: np.ndarray, pi: int, u: int,
                  alpha: float) -> np.ndarray | None:
    """The weight of each contributor ``ci`` (missing-value patterns ``bits``) to the records
    of pattern ``pi`` in the union ``u``: 1 when its pattern is complete or ``pi`` itself, else
    ``alpha``; None when all are 1 (``u == 0``: complete records only)."""
    if u == 0 or alpha == 1.0:
        return None
    cb = bits[ci]
    same = (cb == 0) | (cb == pi)
    return None if same.all() else np.where(same, 1.0, alpha)


def _compiled(codes: np.ndarray, cards: list[int], weights: np.ndarray | None, alpha: float,
              bits: np.ndarray, pats_l: list[int], unions: dict[int, list[int]],
              rows_of: dict[int, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray] | None:
    """The sums of `_frequencies_from_codes` by the compiled pair sums (bit for bit the same:
    `sdcsession.risk._frequencies_jit`), or None when the radix space of all keys exceeds
    `COMPILED_SPACE` or ``8 n + 1024`` codes."""
    n, p = codes.shape
    size = 1
    for c in cards:
        size *= c
    if size > min(COMPILED_SPACE, 8 * n + 1024) or p > 62:
        return None
    from ._frequencies_jit import group_rows, pair_sums

    mult = np.ones(p, dtype=np.int64)
    for j in range(p - 2, -1, -1):
        mult[j] = mult[j + 1] * cards[j + 1]
    pairs = [(u, pi) for u, targets in unions.items() for pi in targets]
    pair_u = np.array([u for u, _ in pairs], dtype=np.int64)
    pair_p = np.array([pi for _, pi in pairs], dtype=np.int64)
    if rows_of is None and max(pats_l) < 1 << 20:  # each pattern's records, in record order
        rows, row_start = group_rows(bits, np.array(pats_l, dtype=np.int64))
    else:
        if rows_of is None:
            rows_of = {pi: np.flatnonzero(bits == pi) for pi in pats_l}
        rows = np.concatenate([rows_of[pi] for pi in pats_l]).astype(np.int64)
        row_start = np.cumsum([0] + [len(rows_of[pi]) for pi in pats_l]).astype(np.int64)
    w = np.zeros(1) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    fk, Fk = pair_sums(codes, mult, size, bits.astype(np.int64, copy=False), w,
                       weights is not None, float(alpha), pair_u, pair_p, row_start, rows,
                       len(pats_l))
    return (fk, fk) if weights is None else (fk, Fk)


def _expanded(codes: np.ndarray, cards: list[int], weights: np.ndarray | None, alpha: float,
              bits: np.ndarray, pats_l: list[int], unions: dict[int, list[int]],
              rows_of: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """The sums of `_frequencies_from_codes` by *expansion* (bit for bit the same), or None when
    the full radix space of the keys is too large for it.

    With R the mixed-radix code of all keys, a record missing the keys of u matches exactly the
    complete records whose codes are its code on the other keys plus one of the prod(cards[u])
    codes of the missing keys. So a complete record's count from the records of pattern u is one
    ``bincount`` of those expanded codes (contributor by contributor, in record order: the same
    additions in the same order as the bin of the union's code), read at R; and the complete
    records matching a few targets are found by marking the targets' expanded codes — no pass
    that recombines the keys per union.
    """
    n, p = codes.shape
    size = 1
    for c in cards:
        size *= c
    if size > 4 * n + 1024:
        return None
    mult = np.ones(p, dtype=np.int64)
    for j in range(p - 2, -1, -1):
        mult[j] = mult[j + 1] * cards[j + 1]
    keys_of = {u: [j for j in range(p) if (u >> j) & 1] for u in set(unions) | set(pats_l)}

    def offsets(u: int) -> np.ndarray:
        e = np.zeros(1, dtype=np.int64)
        for j in keys_of[u]:
            e = (e[:, None] + np.arange(cards[j], dtype=np.int64)[None, :] * mult[j]).ravel()
        return e

    for u, targets in unions.items():  # expansion sizes stay within a few times n
        if len(offsets(u)) * max(len(rows_of.get(u, ())), max(len(rows_of[t]) for t in targets
                                                                if t) if any(targets) else 0) > 4 * n:
            return None
    r = codes[:, 0] * mult[0]  # records with missing keys get a code they never use as such
    for j in range(1, p):
        r += codes[:, j] * mult[j]
    rows0 = rows_of.get(0, np.zeros(0, dtype=np.int64))
    r0 = r[rows0]
    acc_fk = {pi: np.zeros(len(rw)) for pi, rw in rows_of.items() if pi}
    acc_Fk = ({pi: np.zeros(len(rw)) for pi, rw in rows_of.items() if pi}
              if weights is not None else acc_fk)
    table_fk = np.zeros(size)
    table_Fk = np.zeros(size) if weights is not None else table_fk
    for u, targets in unions.items():
        eu = offsets(u)
        for pi in targets:
            qs = [q for q in pats_l if q | pi == u]
            if pi == 0:
                ci = rows_of[u]  # u == 0: the complete records themselves
                gc = r0 if u == 0 else (
                    (r[ci] - codes[ci][:, keys_of[u]] @ mult[keys_of[u]])[:, None]
                    + eu[None, :]).ravel()
                gt = None
                reps = 1 if u == 0 else len(eu)
            else:
                ti = rows_of[pi]
                part_t = r[ti] - codes[ti][:, keys_of[u]] @ mult[keys_of[u]]
                parts = [rows_of[q] for q in qs if q]
                if 0 in qs:  # complete contributors: those a target's expansion reaches
                    mark = np.zeros(size, dtype=bool)
                    mark[(part_t[:, None] + eu[None, :]).ravel()] = True
                    parts.append(rows0[mark[r0]])
                ci = parts[0] if len(parts) == 1 else np.sort(np.concatenate(parts))
                gc = r[ci] - codes[ci][:, keys_of[u]] @ mult[keys_of[u]]
                gt = part_t
                reps = 1
            factor = _alpha_factor(bits, ci, pi, u, alpha)
            fw = None if factor is None else np.repeat(factor, reps)
            wc = None
            if weights is not None:
                wc = np.repeat(weights[ci] if factor is None else weights[ci] * factor, reps)
            if pi == 0:  # complete targets: add whole tables (per code: the same additions)
                table_fk += np.bincount(gc, weights=fw, minlength=size)
                if weights is not None:
                    table_Fk += np.bincount(gc, weights=wc, minlength=size)
                continue
            acc_fk[pi] += _sums_at(gc, fw, gt, size)
            if weights is not None:
                acc_Fk[pi] += _sums_at(gc, wc, gt, size)
    fk = np.zeros(n, dtype=np.float64)
    Fk = np.zeros(n, dtype=np.float64) if weights is not None else fk
    for pi, rw in rows_of.items():
        fk[rw] = table_fk[r0] if pi == 0 else acc_fk[pi]
        if weights is not None:
            Fk[rw] = table_Fk[r0] if pi == 0 else acc_Fk[pi]
    return fk, Fk


def _sums_at(gc: np.ndarray, w: np.ndarray | None, gt: np.ndarray, size: int) -> np.ndarray:
    """``np.bincount(gc, weights=w, minlength=size)[gt]``, bit for bit; when one side is short,
    only the bins of its codes are summed (each over the same contributions in the same order;
    a bin no contributor reaches gives 0.0), without a ``size``-long float array."""
    if min(len(gc), len(gt)) * 64 >= size:
        return np.bincount(gc, weights=w, minlength=size)[gt]
    keys = np.unique(gt if len(gt) <= len(gc) else gc)
    slot = np.full(size, -1, dtype=np.int64)
    slot[keys] = np.arange(len(keys))
    pc = slot[gc]
    hit_c = pc >= 0
    counts = np.bincount(pc[hit_c], weights=None if w is None else w[hit_c],
                         minlength=len(keys))
    pt = slot[gt]
    hit_t = pt >= 0
    out = np.zeros(len(gt))
    out[hit_t] = counts[pt[hit_t]]
    return out


def warn_fk_above_Fk(fk: np.ndarray, Fk: np.ndarray, index: pd.Index) -> None:
    """Warn (`SdcWarning`) naming the records whose estimated population frequency Fk is
    below their sample frequency fk (weights < 1 somewhere: pk = fk/Fk would exceed 1)."""
    bad = np.flatnonzero(Fk < fk * (1 - 1e-12))
    if bad.size:
        shown = [index[i] for i in bad[:10]]
        more = f" and {bad.size - 10} more" if bad.size > 10 else ""
        warnings.warn(
            f"weight: {bad.size} record(s) have an estimated population frequency Fk below their "
            f"sample frequency fk (weights smaller than 1), so pk = fk/Fk > 1; records "
            f"{shown}{more}. Their individual risk is computed with pk = 1 (risk 1/fk).",
            SdcWarning, stacklevel=user_stacklevel())


def frequencies(
    df: pd.DataFrame,
    keys: str | Iterable[str],
    *,
    weight: str | None = None,
    alpha: float = 1.0,
) -> pd.DataFrame:
    """Sample frequency ``fk`` and estimated population frequency ``Fk`` of each record's key
    combination, aligned to ``df.index``.

    fk_i = sum_j c_ij and Fk_i = sum_j c_ij w_j over the records j compatible with i (missing key
    values are wildcards; ``c_ij = 1`` when j is complete or has i's missing pattern, else
    ``alpha`` — see the module docstring). Without ``weight``, ``Fk = fk``. ``fk`` is int64 when ``alpha`` is 0 or 1 (or no key
    is missing), float64 otherwise; ``Fk`` is float64.

    Missing values: a missing key value (numeric or not) is a wildcard weighted by ``alpha``
    (sdcMicro's rule); missing values of non-key variables play no part.

    Parameters
    ----------
    df : the microdata.
    keys : key variables (read as categories).
    weight : sampling weight column (numeric, > 0).
    alpha : weight in [0, 1] of compatible records with missing keys in another pattern (sdcMicro alpha).

    Reference: Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4), sec. 3.1 (sdcMicro freqCalc).

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": ["x", "x", "y"], "b": [1, 1, 2]})
    >>> frequencies(df, ["a", "b"])["fk"].tolist()
    [2, 2, 1]
    """
    check_frame(df)
    keys = as_keys(keys)
    check_columns(df, keys, "keys")
    a = check_alpha(alpha)
    w = weights_of(df, weight)
    codes, cards = encode_keys(df, keys)
    fk, Fk = _frequencies_from_codes(codes, cards, w, a)
    if w is not None and w.min() < 1.0:  # weights >= 1 give Fk >= fk: each term c w >= c, and
        warn_fk_above_Fk(fk, Fk, df.index)  # both sums add their terms in the same order
    has_missing = bool(codes.size and codes.min() < 0)
    fk_out = fk.astype(np.int64) if (a in (0.0, 1.0) or not has_missing) else fk
    # fresh arrays, not copied again into the frame
    return pd.DataFrame({"fk": fk_out, "Fk": Fk.copy() if Fk is fk_out else Fk},
                        index=df.index, copy=False)
