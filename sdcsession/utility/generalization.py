"""Generalisation / k-anonymity style utility measures: operation counts, C_avg, DM, Iyengar's LM.

Reference: the chapter *Data utility* on k-anonymity metrics (``shared/literature/
k-anonymity-utility-metrics.md``): generalisation/suppression counting, average equivalence class
size, Iyengar's loss metric with value hierarchies, discernibility metric. Equivalence classes are
the combinations of the quasi-identifiers in the masked file with a missing (suppressed) value
treated as a value of its own, like "*" (not as sdcMicro's wildcard).

Example
-------
>>> import pandas as pd
>>> m = pd.DataFrame({"age": ["<30", "<30", "30+", "30+", "30+"]})
>>> discernibility(m, keys=["age"])   # 2² + 3²
13.0
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Mapping, Sequence

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from ._align import (
    check_frame,
    check_frames,
    check_named,
    column_list,
    encode_one,
    encode_pair,
    is_numeric_column,
    mapping_arg,
    paired,
    resolve_columns,
)
from .hierarchy import Hierarchy

__all__ = [
    "generalisation_counts",
    "equivalence_class_sizes",
    "c_avg",
    "discernibility",
    "Hierarchy",
    "loss_metric",
    "LossMetric",
]


def generalisation_counts(
    original: pd.DataFrame, masked: pd.DataFrame, *, columns: Iterable[Hashable] | None = None
) -> pd.DataFrame:
    """Number of privacy operations per variable: generalised and suppressed values.

    A value is *suppressed* when present in the original and missing in the masked file, and
    *generalised* (recoded) when both are present and differ. ``operations`` is their sum; the
    row "(total)" adds the variables and ``records_touched`` counts records with ≥ 1 operation.
    Direction: higher = more loss; range [0, n] per variable. Needs pairing.

    Missing values: a value present in the original and missing in the masked file is a suppression.

    Example
    -------
    >>> o = pd.DataFrame({"zip": ["94141", "94142", "94139"]})
    >>> m = pd.DataFrame({"zip": ["9414*", "9414*", None]})
    >>> generalisation_counts(o, m).loc["zip", ["generalised", "suppressed", "operations"]].tolist()
    [2, 1, 3]
    """
    name = "generalisation_counts"
    check_frames(original, masked, name)
    cols = resolve_columns(original, masked, columns, name)
    masked = paired(original, masked, name)
    gen, sup = {}, {}
    touched = np.zeros(len(original), dtype=bool)
    for c in cols:
        e = encode_pair(original[c], masked[c])
        s = (e.codes_o >= 0) & (e.codes_m < 0)
        g = (e.codes_o >= 0) & (e.codes_m >= 0) & (e.codes_o != e.codes_m)
        gen[c], sup[c] = int(g.sum()), int(s.sum())
        touched |= s | g
    out = pd.DataFrame({"generalised": gen, "suppressed": sup})
    out["operations"] = out["generalised"] + out["suppressed"]
    out.loc["(total)"] = out.sum()
    out["records_touched"] = 0
    out.loc["(total)", "records_touched"] = int(touched.sum())
    out.index.name = "variable"
    return out.astype(np.int64)


def _classes(masked: pd.DataFrame, keys: Sequence[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    """Class id per record (-1 = suppressed record: every key missing) and class sizes."""
    joint = np.zeros(len(masked), dtype=np.int64)
    all_na = np.ones(len(masked), dtype=bool)
    size = 1
    for c in keys:
        codes, cats = encode_one(masked[c])
        all_na &= codes < 0
        if size * (len(cats) + 1) > 2**62:
            joint = np.unique(joint, return_inverse=True)[1].astype(np.int64)
            size = int(joint.max(initial=0)) + 1
        joint = joint * (len(cats) + 1) + (codes + 1)
        size *= len(cats) + 1
    ids = np.full(len(masked), -1, dtype=np.int64)
    keep = ~all_na
    if keep.any():
        _, inv = np.unique(joint[keep], return_inverse=True)
        ids[keep] = inv
    sizes = np.bincount(ids[keep]) if keep.any() else np.zeros(0, dtype=np.int64)
    return ids, sizes


def equivalence_class_sizes(masked: pd.DataFrame, *, keys: Iterable[Hashable]) -> pd.Series:
    """Size of the equivalence class (same combination of ``keys``) of every record.

    Missing values form a value of their own; records with every key missing are suppressed
    records and get size 0. Series aligned to ``masked.index``.

    Missing values: a missing key value is a value of its own (records with every key missing are
    suppressed).

    Example
    -------
    >>> m = pd.DataFrame({"a": ["x", "x", "y"]})
    >>> equivalence_class_sizes(m, keys=["a"]).tolist()
    [2, 2, 1]
    """
    check_frame(masked, "masked", "equivalence_class_sizes")
    cols = resolve_columns(masked, None, keys, "equivalence_class_sizes", what="keys")
    ids, sizes = _classes(masked, cols)
    out = np.where(ids >= 0, sizes[np.maximum(ids, 0)] if len(sizes) else 0, 0)
    return pd.Series(out.astype(np.int64), index=masked.index, name="class_size")


def c_avg(masked: pd.DataFrame, *, keys: Iterable[Hashable], k: int) -> float:
    """Normalised average equivalence class size ``C_avg = n / (#classes · k)``.

    n counts the records not suppressed entirely (not every key missing) and #classes their
    equivalence classes on ``keys``; k is the anonymity level aimed at. Direction: higher = more
    loss (classes larger than needed); C_avg = 1 is the ideal for k-anonymity, range [1/k, n/k].

    Missing values: a missing key value is a value of its own (see `equivalence_class_sizes`).

    Example
    -------
    >>> m = pd.DataFrame({"age": ["<30", "<30", "30+", "30+", "30+", "30+"]})
    >>> c_avg(m, keys=["age"], k=2)   # 6 / (2 · 2)
    1.5
    """
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k < 2**63:
        raise ParameterError(f"k: expected an integer in [1, 2**63), got {k!r:.40}")
    check_frame(masked, "masked", "c_avg")
    cols = resolve_columns(masked, None, keys, "c_avg", what="keys")
    ids, sizes = _classes(masked, cols)
    if len(sizes) == 0:
        raise MeasureError("c_avg: no record left (all suppressed)")
    return float((ids >= 0).sum() / (len(sizes) * k))


def discernibility(
    masked: pd.DataFrame,
    *,
    keys: Iterable[Hashable],
    suppressed: int | np.ndarray | pd.Series | None = None,
    n: int | None = None,
) -> float:
    """Discernibility metric ``DM = n · S + Σ_i |EQ_i|²``.

    Each record pays the size of its equivalence class on ``keys``; each suppressed record pays
    n = |T|. Suppressed records are those with every key missing, or given by ``suppressed`` (a
    count of records removed from the release — then n defaults to len(masked) + that count — or
    a boolean mask of records of ``masked``). Direction: higher = more loss; range [n, n²].

    Missing values: a missing key value is a value of its own; records with every key missing are
    suppressed.

    Example
    -------
    >>> m = pd.DataFrame({"age": ["<30", "<30", None], "sex": ["m", "m", "f"]})
    >>> discernibility(m, keys=["age", "sex"])   # 2² + 1² (a missing value is a value of its own)
    5.0
    >>> discernibility(m.iloc[:2], keys=["age", "sex"], suppressed=1)   # 2² + 3 · 1
    7.0
    """
    check_frame(masked, "masked", "discernibility")
    cols = resolve_columns(masked, None, keys, "discernibility", what="keys")
    ids, _ = _classes(masked, cols)
    extra = 0
    if suppressed is None:
        supp = ids < 0
    elif isinstance(suppressed, (int, np.integer)) and not isinstance(suppressed, bool):
        if not 0 <= suppressed <= 2**53:
            raise ParameterError(f"suppressed: expected a count >= 0, got {suppressed!r}")
        supp = ids < 0
        extra = int(suppressed)
    else:
        arr = np.asarray(suppressed) if isinstance(suppressed, (np.ndarray, pd.Series, list)) \
            else None
        if arr is None or arr.dtype != bool or arr.shape != (len(masked),):
            raise ParameterError(
                "suppressed: expected a count of removed records or a boolean mask with one "
                f"value per masked record, got {type(suppressed).__name__}")
        supp = arr | (ids < 0)
    if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer))
                          or not len(masked) <= n <= 2**53):
        raise ParameterError(
            f"n: expected an integer >= the number of masked records ({len(masked)}), got {n!r}")
    keep = ~supp
    if keep.any():
        _, inv = np.unique(ids[keep], return_inverse=True)
        sizes = np.bincount(inv).astype(np.float64)
    else:
        sizes = np.zeros(0)
    n_tot = len(masked) + extra if n is None else int(n)
    s = int(supp.sum()) + extra
    return float(n_tot * s + (sizes**2).sum())


# ------------------------------------------------------------------------------ loss metric
@attrs.frozen
class LossMetric:
    """Result of `loss_metric`: ``total`` LM and ``by_variable`` (average loss per attribute)."""

    total: float
    by_variable: pd.Series

    def __float__(self) -> float:
        return float(self.total)


_INTERVAL = re.compile(
    r"^\s*[\[(]?\s*(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*(?:,|;|-|–|to)\s*"
    r"(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*[\])]?\s*$"
)


def _interval_bounds(values: pd.Series, col: Hashable) -> tuple[np.ndarray, np.ndarray]:
    """Lower/upper bounds of masked numeric values: numbers (width 0), Intervals or strings."""
    if is_numeric_column(values):
        v = values.to_numpy(dtype=np.float64, na_value=np.nan)
        return v, v
    uniq = pd.unique(values.dropna())
    lo_map, hi_map = {}, {}
    for u in uniq:
        if isinstance(u, pd.Interval):
            lo_map[u], hi_map[u] = float(u.left), float(u.right)
            continue
        if isinstance(u, (int, float, np.number)):
            lo_map[u] = hi_map[u] = float(u)
            continue
        m = _INTERVAL.match(str(u))
        if m:
            lo_map[u], hi_map[u] = float(m.group(1)), float(m.group(2))
            continue
        try:
            lo_map[u] = hi_map[u] = float(str(u))
        except ValueError:
            raise MeasureError(
                f"loss_metric: cannot read {u!r} in {col!r} as a number or a range "
                "(expected e.g. 55, '55-64', '[55, 64]' or a pandas Interval)"
            ) from None
    obj = values.astype(object)
    lo = obj.map(lo_map).to_numpy(dtype=np.float64, na_value=np.nan)
    hi = obj.map(hi_map).to_numpy(dtype=np.float64, na_value=np.nan)
    return lo, hi


def loss_metric(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    *,
    columns: Iterable[Hashable] | None = None,
    hierarchies: Mapping[Hashable, Hierarchy | Mapping] | None = None,
    numeric: Iterable[Hashable] = (),
    weights: Mapping[Hashable, float] | None = None,
) -> LossMetric:
    """Iyengar's loss metric LM, per attribute and for the table.

    Categorical attribute with taxonomy tree T (``hierarchies[col]``, a `Hierarchy` or a
    nested dict): a value generalised to node P costs ``(M_P − 1)/(M − 1)`` with M the leaves of T
    and M_P those under P (0 for a leaf, 1 for the root). Without a hierarchy the tree is flat
    (the original's categories under one root). Numeric attribute (numbers in the original, or
    listed in ``numeric``): a value generalised to [L_i, U_i] costs ``(U_i − L_i)/(U − L)`` with U,
    L the maximum and minimum of the column in the original data; masked values may be numbers,
    pandas Intervals or strings such as "55-64" / "[55, 64]". A suppressed (missing) value costs 1,
    like the root. The loss of an attribute is the average over the masked records; the table
    loss ``total`` is the sum over attributes, weighted by ``weights`` when given. Direction:
    higher = more loss; attribute range [0, 1]. Does not need pairing.

    Missing values: a missing masked value costs 1 (like the root); an all-missing numeric variable
    is a MeasureError.

    Example
    -------
    >>> tree = {"Any": {"Self-emp": ["Inc", "Not-inc"], "Gov": ["Federal", "State", "Local"],
    ...                 "Unemployed": ["Without-pay", "Never-worked"], "Private": None}}
    >>> o = pd.DataFrame({"work": ["Local"]}); m = pd.DataFrame({"work": ["Gov"]})
    >>> loss_metric(o, m, hierarchies={"work": tree}).total   # (3 - 1) / (8 - 1)
    0.2857142857142857
    """
    name = "loss_metric"
    check_frames(original, masked, name)
    hierarchies = mapping_arg(hierarchies, name, "hierarchies")
    numeric = column_list(numeric, name, "numeric")
    cols = resolve_columns(original, masked, columns, name)
    check_named(list(hierarchies) + numeric, cols, name, "hierarchies/numeric name")
    weights = mapping_arg(weights, name, "weights")
    if len(masked) == 0:
        raise MeasureError(f"{name}: the masked file has no records")
    out = {}
    for c in cols:
        o, m = original[c], masked[c]
        if c in hierarchies:
            h = hierarchies[c]
            if not isinstance(h, Hierarchy):
                h = Hierarchy.from_nested(h)
            costs = _categorical_costs(m, h, c)
        elif c in numeric or is_numeric_column(o):
            x = o.to_numpy(dtype=np.float64, na_value=np.nan) if is_numeric_column(o) else \
                np.concatenate(_interval_bounds(o, c))
            if np.isnan(x).all():
                raise MeasureError(f"{name}: {c!r} has no numeric values in the original")
            rng = np.nanmax(x) - np.nanmin(x)
            lo, hi = _interval_bounds(m, c)
            width = hi - lo
            if (width < 0).any():
                raise MeasureError(f"{name}: a range of {c!r} has upper < lower bound")
            costs = np.where(np.isnan(width), 1.0,
                             np.clip(width / rng, 0.0, 1.0) if rng > 0 else 0.0)
        else:
            cats = pd.unique(o.dropna())
            h = Hierarchy.from_nested({"*": list(cats)})
            costs = _categorical_costs(m, h, c)
        out[c] = float(np.mean(costs))
    by_var = pd.Series(out, name="LM", dtype=np.float64).rename_axis("variable")
    check_named(weights, cols, name, "weights name")
    w = np.array([float(weights.get(c, 1.0)) for c in cols])
    return LossMetric(float((w * by_var.to_numpy()).sum()), by_var)


def _categorical_costs(m: pd.Series, h: Hierarchy, col: Hashable) -> np.ndarray:
    uniq = pd.unique(m.dropna())
    missing_nodes = [u for u in uniq if u not in h.leaves]
    if missing_nodes:
        raise MeasureError(
            f"loss_metric: values of {col!r} not in its hierarchy: {missing_nodes[:5]}"
        )
    cost = {u: h.loss(u) for u in uniq}
    return m.astype(object).map(cost).to_numpy(dtype=np.float64, na_value=1.0)
