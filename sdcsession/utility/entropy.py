"""Entropy-based information loss: entropy of a variable and its change, EBIL for PRAM, DIST.

References: Templ (2019), *Advanced Survey Statistics*, part 6 (entropy of a categorical variable);
De Waal & Willenborg (1999), Kooiman, Willenborg & Gouweleeuw (1998), Willenborg & De Waal (2001)
via the handbook chapter *Measurement of information loss* (EBIL); the k-anonymity utility metrics
chapter (distortion DIST). See ``shared/literature``.

Example
-------
>>> import pandas as pd
>>> round(entropy(pd.Series(["a", "a", "b", "b"])), 6)   # log 2
0.693147
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from numbers import Real
from typing import Literal

import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from ._align import (
    check_cells,
    check_frame,
    check_frames,
    column_list,
    encode_one,
    resolve_columns,
    weights_of,
)

__all__ = ["entropy", "entropy_change", "ebil", "dist"]


def _log(x: np.ndarray, base: float | None) -> np.ndarray:
    out = np.log(x)
    return out if base is None else out / np.log(float(base))


def _check_base(base: float | None) -> None:
    if base is None:
        return
    try:
        ok = not isinstance(base, (bool, np.bool_)) and isinstance(base, Real) \
            and math.isfinite(float(base)) and base > 0 and base != 1
    except OverflowError:
        ok = False
    if not ok:
        raise ParameterError(f"base: expected a positive number other than 1 (or None), got "
                             f"{base!r:.40}")


def _joint_codes(data: pd.DataFrame | pd.Series, missing: str) -> tuple[np.ndarray, int]:
    """Codes of the (joint) categories; -1 = missing (any column missing when missing='exclude')."""
    if isinstance(data, pd.Series):
        codes, cats = encode_one(data)
        return codes, len(cats)
    joint = np.zeros(len(data), dtype=np.int64)
    any_na = np.zeros(len(data), dtype=bool)
    size = 1
    for c in data.columns:
        codes, cats = encode_one(data[c])
        any_na |= codes < 0
        k = len(cats) + 1
        joint = joint * k + (codes + 1)
        size *= k
        if size > 2**62:
            joint = np.unique(joint, return_inverse=True)[1].astype(np.int64)
            size = int(joint.max()) + 1 if len(joint) else 1
    if missing == "exclude":
        joint = np.where(any_na, -1, joint)
    return joint, size


def entropy(
    data: pd.Series | pd.DataFrame,
    *,
    base: float | None = None,
    missing: Literal["exclude", "category"] = "exclude",
    weight: np.ndarray | pd.Series | None = None,
) -> float:
    """Entropy of a categorical variable (or of the combinations of a DataFrame's columns).

    ``E = −(1/n) Σ_c f_c log(f_c / n)`` with f_c the frequencies of the non-missing categories and
    n the number of *all* records (Templ 2019, eq. 3; the convention of
    ``eusilc.entropy_natural_log``), so missing values lower the entropy. ``missing="category"``
    counts missing as a category of its own. Natural logarithm by default (``base=2`` for bits).
    With ``weight`` the frequencies are sums of weights. For a DataFrame the categories are the
    combinations of its columns. Range [0, log n]; higher = more information.

    Missing values: excluded from the frequencies but counted in n (``missing="exclude"``,
    sdcMicro's rule) or a category of its own (``missing="category"``).

    Example
    -------
    >>> round(entropy(pd.Series(["a", "b", None, None])), 6)   # -(2 · 1/4 · log(1/4))
    0.693147
    """
    if not isinstance(missing, str) or missing not in ("exclude", "category"):
        raise ParameterError(f"missing: expected 'exclude' or 'category', got {missing!r}")
    _check_base(base)
    base = None if base is None else float(base)
    if not isinstance(data, (pd.Series, pd.DataFrame)):
        raise MeasureError(
            f"entropy: data must be a pandas Series or DataFrame, got {type(data).__name__}")
    if isinstance(data, pd.DataFrame):
        check_frame(data, "data", "entropy")
        check_cells(data, list(data.columns), "data", "entropy")
    else:
        check_cells(data.to_frame(name="data"), ["data"], "data", "entropy")
    codes, _ = _joint_codes(data, missing)
    n_rec = len(codes)
    if n_rec == 0:
        raise MeasureError("entropy: no records")
    if weight is not None:
        try:
            w = np.asarray(weight, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise MeasureError("entropy: weight must have one finite value >= 0 per record, got "
                               f"{type(weight).__name__}") from None
        if w.shape != (n_rec,) or not np.isfinite(w).all() or (w < 0).any():
            raise MeasureError("entropy: weight must have one finite value >= 0 per record")
    else:
        w = None
    if missing == "category":
        codes = codes + 1
    keep = codes >= 0
    if w is None:
        f = np.bincount(codes[keep]).astype(np.float64)
        n = float(n_rec)
    else:
        f = np.bincount(codes[keep], weights=w[keep])
        n = float(w.sum())
        if n <= 0:
            raise MeasureError("entropy: weights sum to 0")
    return entropy_from_frequencies(f, n, base)


def entropy_from_frequencies(f: np.ndarray, n: float, base: float | None = None) -> float:
    """``E = −(1/n) Σ_c f_c log(f_c / n)`` of the category frequencies ``f`` (zeros skipped)
    out of ``n`` records (see `entropy`). The frequencies are summed in increasing order, so
    the same frequencies in any order (the categories of a file, or tables added over Dask
    partitions) give the same double.

    Missing values: not in ``f``; counted in ``n`` by the caller (`entropy`'s rule).

    >>> round(entropy_from_frequencies(np.array([2.0, 0.0, 2.0]), 4), 6)
    0.693147
    """
    f = np.sort(np.asarray(f, dtype=np.float64)[np.asarray(f) > 0])
    if not len(f):
        return 0.0
    return float(-(f * _log(f / n, base)).sum() / n)


def entropy_change(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    base: float | None = None,
    missing: Literal["exclude", "category"] = "exclude",
) -> pd.DataFrame:
    """Entropy of each variable before and after masking and the loss ``E(X) − E(X')``.

    Uses `entropy` (missing values excluded from the frequencies but counted in n, so a
    suppression lowers the entropy). Returns a DataFrame indexed by variable: ``entropy_original``,
    ``entropy_masked``, ``loss`` (positive = information lost by recoding/suppression; PRAM can
    make it negative) and ``relative_loss`` (loss / entropy_original, NaN-free: 0 when the original
    entropy is 0 and nothing changed). Does not need pairing.

    Missing values: as `entropy` (excluded from the frequencies, counted in n).

    Example
    -------
    >>> o = pd.DataFrame({"k": ["a", "b", "c", "d"]}); m = o.assign(k=["a", "a", "c", "c"])
    >>> entropy_change(o, m, base=2).loc["k"].tolist()
    [2.0, 1.0, 1.0, 0.5]
    """
    name = "entropy_change"
    check_frames(original, masked, name)
    cols = resolve_columns(original, masked, columns, name)
    eo = np.array([entropy(original[c], base=base, missing=missing) for c in cols])
    em = np.array([entropy(masked[c], base=base, missing=missing) for c in cols])
    loss = eo - em
    rel = np.divide(loss, eo, out=np.zeros_like(loss), where=eo > 0)
    return pd.DataFrame(
        {"entropy_original": eo, "entropy_masked": em, "loss": loss, "relative_loss": rel},
        index=pd.Index(cols, name="variable"),
    )


def ebil(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    column: Hashable,
    transition: pd.DataFrame | np.ndarray,
    categories: Sequence | None = None,
    prior: Literal["original", "uniform"] | Sequence[float] = "original",
    base: float | None = None,
    weight: Hashable | None = None,
) -> float:
    """EBIL: entropy-based information loss of PRAM from its transition matrix.

    With P(V' = j | V = i) the PRAM Markov matrix (rows: original category i, columns: masked
    category j, rows summing to 1) and P(V = i) the distribution of V in the original (``prior``),
    Bayes gives ``P(V = i | V' = j) = P(V' = j | V = i) P(V = i) / Σ_k P(V' = j | V = k) P(V = k)``
    and ``H(V | V' = j) = −Σ_i P(V = i | V' = j) log P(V = i | V' = j)``;
    ``EBIL = Σ_{r ∈ G} H(V | V' = j_r)`` summed over the records r of the masked file G
    (Kooiman, Willenborg & Gouweleeuw 1998; De Waal & Willenborg 1999). ``transition`` is a
    DataFrame indexed and labelled by the categories (as stored in a PRAM step's notes) or an
    array with ``categories``. Records with a missing masked value add nothing. Natural log by
    default. Direction: higher = more loss; range [0, n · log(#categories)]; 0 when the matrix is
    the identity. Does not need pairing (the original is only used for the prior).

    Missing values: records with a missing masked value add nothing.

    Example
    -------
    >>> o = pd.DataFrame({"v": ["a", "a", "b", "b"]})
    >>> p = pd.DataFrame([[0.5, 0.5], [0.5, 0.5]], index=["a", "b"], columns=["a", "b"])
    >>> round(ebil(o, o, column="v", transition=p, base=2), 6)   # 4 records × 1 bit
    4.0
    """
    name = "ebil"
    _check_base(base)
    check_frames(original, masked, name)
    resolve_columns(original, masked, [column], name)
    if isinstance(transition, pd.DataFrame):
        cats_r = list(transition.index)
        cats_c = list(transition.columns)
        if cats_r != cats_c:
            if set(cats_r) != set(cats_c):
                raise ParameterError(
                    f"{name}: transition rows {cats_r} and columns {cats_c} differ"
                )
            transition = transition.loc[cats_r, cats_r]
        if categories is not None and column_list(categories, name, "categories") != cats_r:
            raise ParameterError(f"{name}: categories disagree with the transition labels")
        cats = cats_r
        try:
            pmat = transition.to_numpy(dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ParameterError(f"{name}: transition must be a square matrix of "
                                 f"probabilities") from exc
    else:
        try:
            pmat = np.asarray(transition, dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ParameterError(f"{name}: transition must be a square matrix of "
                                 f"probabilities, got {transition!r:.60}") from exc
        if categories is None:
            raise ParameterError(f"{name}: give categories for an array transition matrix")
        cats = column_list(categories, name, "categories")
    k = len(cats)
    if pmat.shape != (k, k):
        raise ParameterError(f"{name}: transition must be {k} × {k}, got {pmat.shape}")
    if not np.isfinite(pmat).all() or (pmat < 0).any() or \
            not np.allclose(pmat.sum(axis=1), 1.0, atol=1e-8):
        raise ParameterError(f"{name}: transition must be non-negative with rows summing to 1")
    cat_index = pd.Index(cats)

    def codes(df: pd.DataFrame, which: str) -> np.ndarray:
        col = df[column]
        out = cat_index.get_indexer(col)
        bad = (out < 0) & col.notna().to_numpy()
        if bad.any():
            raise MeasureError(
                f"{name}: {which} values of {column!r} not in the transition categories: "
                f"{list(pd.unique(col[bad]))[:5]}"
            )
        return out

    codes_m = codes(masked, "masked")
    if isinstance(prior, str):
        if prior == "original":
            codes_o = codes(original, "original")
            w = weights_of(original, weight, name)
            keep = codes_o >= 0
            pi = np.bincount(codes_o[keep], weights=None if w is None else w[keep], minlength=k)
            pi = pi.astype(np.float64)
        elif prior == "uniform":
            pi = np.ones(k)
        else:
            raise ParameterError(f"prior: expected 'original', 'uniform' or probabilities, "
                                 f"got {prior!r}")
    else:
        try:
            if isinstance(prior, (bytes, Mapping)) or not isinstance(
                    prior, (list, tuple, np.ndarray, pd.Series)):
                raise TypeError
            pi = np.asarray(prior, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise ParameterError(f"prior: expected 'original', 'uniform' or {k} probabilities, "
                                 f"got {prior!r:.40}") from None
        if pi.shape != (k,) or (pi < 0).any() or not np.isfinite(pi).all():
            raise ParameterError(f"{name}: prior must be {k} non-negative numbers")
    if pi.sum() <= 0:
        raise MeasureError(f"{name}: the prior distribution of {column!r} is empty")
    pi = pi / pi.sum()
    joint = pmat * pi[:, None]  # P(V=i, V'=j)
    col_tot = joint.sum(axis=0)
    post = np.divide(joint, col_tot, out=np.zeros_like(joint), where=col_tot > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(post > 0, post * _log(np.where(post > 0, post, 1.0), base), 0.0)
    h_j = -terms.sum(axis=0)
    counts = np.bincount(codes_m[codes_m >= 0], minlength=k)
    return float((counts * h_j).sum())


def dist(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
) -> float:
    """DIST: distortion, the normalised loss of entropy of the quasi-identifier distribution.

    ``DIST = (H(QI_pre) − H(QI_post)) / log2 |N|`` with H the Shannon entropy in bits of the
    distribution of the combinations of the quasi-identifiers (``columns``) before and after
    anonymisation — a suppressed/missing value is a value of its own, like "*" — and |N| the
    number of records of the anonymised table (k-anonymity utility metrics chapter). Direction:
    higher = more loss; range [0, 1] for generalisation/suppression (negative if masking adds
    detail). MeasureError for fewer than two masked records. Does not need pairing.

    Missing values: a missing value is a value of its own (like "*").

    Example
    -------
    >>> o = pd.DataFrame({"race": ["Black", "Asian", "Asian", "White", "White", "Black"],
    ...                   "gender": ["M", "M", "F", "M", "F", "F"]})
    >>> m = o.assign(gender=None)
    >>> round(float(dist(o, m) * np.log2(6)), 12)
    1.0
    """
    name = "dist"
    check_frames(original, masked, name)
    cols = resolve_columns(original, masked, columns, name)
    if len(masked) < 2:
        raise MeasureError(f"{name}: needs at least two records in the anonymised table")
    h_pre = entropy(original[cols], base=2, missing="category")
    h_post = entropy(masked[cols], base=2, missing="category")
    return float((h_pre - h_post) / np.log2(len(masked)))

