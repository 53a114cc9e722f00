"""Distributions of a sensitive attribute and the distances the privacy models use.

`SensitiveDomain` encodes a sensitive column once (its distinct values, the overall distribution
q over *all* records, the order and the hierarchy levels of its values); the functions compute,
for many equivalence classes at once (rows of a count matrix), the earth mover's distance (EMD)
of t-closeness (Li, Li & Venkatasubramanian 2007):

- equal ground distance: ``D = ½ Σ_i |p_i − q_i|`` (variational distance);
- ordered distance (values in order, distance |i − j|/(m − 1)):
  ``D = 1/(m − 1) · Σ_{i=1}^{m} |Σ_{j≤i} (p_j − q_j)|``;
- hierarchical distance (level of the lowest common ancestor / H): with
  ``extra(N) = Σ_{leaves under N} (p_i − q_i)`` and, over the children C of N, ``pos(N) = Σ
  max(extra(C), 0)``, ``neg(N) = Σ max(−extra(C), 0)``:
  ``D = Σ_N level(N)/H · min(pos(N), neg(N))``.

A missing sensitive value is a category of its own (for the ordered distance the last one, for the
hierarchical distance a leaf directly under the root).

Examples
--------
>>> import numpy as np
>>> q = np.full(9, 1 / 9); p = np.r_[np.full(3, 1 / 3), np.zeros(6)]
>>> round(float(emd_ordered(p[None, :], q)[0]), 6)   # Li et al. 2007, the salary example
0.375
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..utility.hierarchy import Hierarchy

__all__ = ["SensitiveDomain", "emd_equal", "emd_ordered", "emd_hierarchical", "distributions",
           "hierarchy_tree"]


@attrs.frozen(eq=False)
class SensitiveDomain:
    """A sensitive column encoded once: ``codes`` per record (0..m−1), ``labels``, the overall
    distribution ``reference`` (over all records) and ``rank`` (position of each code in the value
    order).

    Examples
    --------
    >>> d = SensitiveDomain.build(pd.Series(["b", "a", "b", None]), "s")
    >>> d.labels.tolist(), d.reference.tolist()
    (['b', 'a', None], [0.5, 0.25, 0.25])
    """

    column: Hashable
    codes: np.ndarray
    labels: np.ndarray
    reference: np.ndarray
    rank: np.ndarray

    @property
    def m(self) -> int:
        """Number of distinct values (missing counted as one)."""
        return len(self.labels)

    @classmethod
    def build(cls, values: pd.Series, column: Hashable,
              released: np.ndarray | None = None) -> SensitiveDomain:
        """Encode ``values`` (all records); the overall distribution is over the ``released``
        records (a boolean mask: a research subset) or over the whole data."""
        codes, uniq = pd.factorize(values, use_na_sentinel=True)
        codes = codes.astype(np.int64)
        labels = list(np.asarray(uniq, dtype=object))
        has_na = bool((codes < 0).any())
        if has_na:
            codes[codes < 0] = len(labels)
            labels.append(None)
        m = len(labels)
        counts = np.bincount(codes if released is None else codes[released],
                             minlength=m).astype(np.float64)
        ref = counts / max(counts.sum(), 1.0)
        order = _value_order(np.asarray(uniq, dtype=object))
        rank = np.empty(m, dtype=np.int64)
        rank[order] = np.arange(len(order))
        if has_na:
            rank[m - 1] = m - 1
        return cls(column, codes, np.asarray(labels, dtype=object), ref, rank)


def _value_order(uniq: np.ndarray) -> np.ndarray:
    """Positions of ``uniq`` sorted by value (numbers numerically, else as text)."""
    try:
        return np.argsort(pd.to_numeric(pd.Series(uniq, dtype=object)).to_numpy(np.float64),
                          kind="stable")
    except (TypeError, ValueError):
        pass
    try:
        return np.argsort(pd.Series(uniq, dtype=object).to_numpy(), kind="stable")
    except TypeError:
        return np.argsort(np.array([str(u) for u in uniq]), kind="stable")


def distributions(counts: np.ndarray) -> np.ndarray:
    """Rows of a count matrix as distributions (an empty row stays zero).

    >>> distributions(np.array([[1, 3], [0, 0]])).tolist()
    [[0.25, 0.75], [0.0, 0.0]]
    """
    c = np.asarray(counts, dtype=np.float64)
    tot = c.sum(axis=1, keepdims=True)
    return np.divide(c, tot, out=np.zeros_like(c), where=tot > 0)


def _pq(p: Any, q: Any) -> tuple[np.ndarray, np.ndarray]:
    """``p`` (classes × m) and ``q`` (m) as float arrays, or `ParameterError`: finite numbers of
    matching shapes."""
    try:
        pa = np.asarray(p, dtype=np.float64)
        qa = np.asarray(q, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError("p, q: expected arrays of probabilities (numbers)") from None
    if pa.ndim != 2 or qa.ndim != 1 or pa.shape[1] != qa.shape[0]:
        raise ParameterError(f"p, q: expected p of shape (classes, m) and q of shape (m,), got "
                             f"{pa.shape} and {qa.shape}")
    if not (np.isfinite(pa).all() and np.isfinite(qa).all()) or (pa < 0).any() or \
            (qa < 0).any() or (pa > 1).any() or (qa > 1).any():
        raise ParameterError("p, q: expected probabilities in [0, 1] (no NaN or infinity)")
    return pa, qa


def emd_equal(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """EMD with equal ground distance: ``½ Σ |p_i − q_i|`` per row of ``p``.

    >>> emd_equal(np.array([[1.0, 0.0]]), np.array([0.5, 0.5])).tolist()
    [0.5]
    """
    p, q = _pq(p, q)
    return 0.5 * np.abs(p - q).sum(axis=1)


def emd_ordered(p: np.ndarray, q: np.ndarray, rank: np.ndarray | None = None) -> np.ndarray:
    """EMD with ordered ground distance ``|i − j|/(m − 1)``; ``rank[c]`` is the position of
    column c in the value order (default: the column order).

    >>> emd_ordered(np.array([[1.0, 0.0, 0.0]]), np.full(3, 1 / 3)).round(6).tolist()
    [0.5]
    """
    p, q = _pq(p, q)
    m = p.shape[1]
    if rank is not None:
        r = np.asarray(rank)
        if r.shape != (m,) or r.dtype.kind not in "iuf" or not np.isfinite(r).all():
            raise ParameterError(f"rank: expected one position (a number) per column, {m} in "
                                 f"all, got {type(rank).__name__} of shape {r.shape}")
    if m <= 1:
        return np.zeros(p.shape[0])
    d = p - q
    if rank is not None:
        order = np.argsort(rank, kind="stable")
        d = d[:, order]
    return np.abs(np.cumsum(d, axis=1)).sum(axis=1) / (m - 1)


def emd_hierarchical(p: np.ndarray, q: np.ndarray, tree: tuple[np.ndarray, ...]) -> np.ndarray:
    """EMD with hierarchical ground distance; ``tree[j − 1]`` maps level-(j−1) nodes to their
    level-j parents (level 0 = the columns of ``p``), H = ``len(tree)``.

    >>> tree = (np.array([0, 0, 1, 1]), np.array([0, 0]))     # a,b under A; c,d under B; root
    >>> emd_hierarchical(np.array([[0.5, 0, 0.5, 0]]), np.full(4, 0.25), tree).tolist()
    [0.25]
    """
    p, q = _pq(p, q)
    if not isinstance(tree, (tuple, list)):
        raise ParameterError(f"tree: expected a tuple of parent arrays, got {type(tree).__name__}")
    width = p.shape[1]
    for j, up in enumerate(tree):
        if not isinstance(up, np.ndarray) or up.ndim != 1 or up.dtype.kind not in "iu" or \
                len(up) != width or (len(up) and up.min() < 0):
            raise ParameterError(f"tree[{j}]: expected {width} parent codes (integers >= 0)")
        width = int(up.max(initial=0)) + 1
    extra = p - q
    h = len(tree)
    out = np.zeros(extra.shape[0])
    if h == 0:
        return out
    for j, up in enumerate(tree, start=1):
        k = int(up.max(initial=0)) + 1
        agg = np.zeros((len(up), k))
        agg[np.arange(len(up)), up] = 1.0
        pos = np.maximum(extra, 0.0) @ agg
        neg = np.maximum(-extra, 0.0) @ agg
        out += (j / h) * np.minimum(pos, neg).sum(axis=1)
        extra = pos - neg
    return out


def hierarchy_tree(domain: SensitiveDomain, hierarchy: Hierarchy) -> tuple[np.ndarray, ...]:
    """The levels of ``hierarchy`` over the codes of ``domain``: for each level j ≥ 1 an array
    mapping level-(j−1) node codes to level-j node codes (a missing value is its own node below
    the root). Values of the column absent from the hierarchy raise `ParameterError`.

    >>> d = SensitiveDomain.build(pd.Series(["a", "c", "b"]), "s")
    >>> [t.tolist() for t in hierarchy_tree(d, Hierarchy.from_nested({"*": {"A": ["a", "b"], "c": None}}))]
    [[0, 1, 0], [0, 0]]
    """
    has_na = domain.labels.size > 0 and pd.isna(domain.labels[-1])
    vals = domain.labels[:-1] if has_na else domain.labels
    _, maps, _ = hierarchy.code_maps(pd.Series(vals, dtype=object), column=str(domain.column))
    h = hierarchy.height
    ups = []
    prev = np.arange(domain.m)
    for j in range(1, h + 1):
        cur = maps[j]
        if has_na:
            cur = np.r_[cur, cur.max(initial=-1) + 1 if j < h else 0]
        up = np.zeros(int(prev.max(initial=0)) + 1, dtype=np.int64)
        up[prev] = cur
        ups.append(up)
        prev = cur
    return tuple(ups)
