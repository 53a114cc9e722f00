"""The cells of a table built from microdata: inner cells, margins, and the additive statistics
and top contributions of each cell (internal to the tables family).

Inner cells are the combinations of the categories of the table's variables (every combination
when ``empty=True``, else only those with records). A margin cell totals one or more of the row
and column variables (never the ``by`` variables: each ``by`` group is a table of its own). Its
statistics come from its records: counts, key sums and sums are added up from the inner cells
(the same as counting the records again) and its top contributions are the largest of its inner
cells' top contributions (the top ``k`` of a union lie among the top ``k`` of its parts).

Missing values: a missing category is a category of its own (label missing).

Example
-------
>>> import numpy as np, pandas as pd
>>> df = pd.DataFrame({"a": ["x", "y", "x"], "b": [1, 1, 2]})
>>> g = build_cells(df, ["a", "b"], margin_dims=["a", "b"], empty=True)
>>> g.n.tolist()
[1, 1, 1, 0, 2, 1, 2, 1, 3]
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ParameterError

__all__ = ["Cells", "build_cells", "MAX_CELLS"]

#: the most cells a table may have (inner cells and margins)
MAX_CELLS = 20_000_000


def _codes(s: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes 0..L−1 of a column and its labels (declared categories kept; a missing
    value is one more label)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        codes = s.cat.codes.to_numpy().astype(np.int64)
        labels = np.asarray(s.cat.categories, dtype=object)
    else:
        codes, uniq = pd.factorize(s, sort=True, use_na_sentinel=True)
        codes = codes.astype(np.int64)
        labels = np.asarray(uniq, dtype=object)
    if (codes < 0).any():
        codes = np.where(codes < 0, len(labels), codes)
        labels = np.append(labels, np.array([np.nan], dtype=object))
    return codes, labels


class Cells:
    """Every cell of a table: ``codes`` (cells × dims, −1 = total), ``level`` (number of
    totalled dims), ``parent`` (per margin cell's index, the inner cells it adds up are those
    with ``members[i]``), and the statistics added by `add_sum` / `add_top`."""

    def __init__(self, dims: list[str], labels: list[np.ndarray], codes: np.ndarray,
                 record_cell: np.ndarray, maps: list[np.ndarray], n_inner: int):
        self.dims, self.labels, self.codes = dims, labels, codes
        self.record_cell, self.maps, self.n_inner = record_cell, maps, n_inner
        self.level = (codes < 0).sum(axis=1)
        self.n = self.add_sum(None)

    @property
    def size(self) -> int:
        return len(self.codes)

    def spread(self, inner: np.ndarray) -> np.ndarray:
        """An additive statistic of the inner cells extended to every cell (margins added up)."""
        parts = [inner]
        for m in self.maps[1:]:
            parts.append(np.bincount(m[0], weights=inner.astype(np.float64), minlength=m[1]))
        out = np.concatenate([p.astype(np.float64) for p in parts])
        return out

    def add_sum(self, values: np.ndarray | None) -> np.ndarray:
        """Per cell, the sum of ``values`` over its records (``None``: the number of records)."""
        if values is None:
            inner = np.bincount(self.record_cell, minlength=self.n_inner).astype(np.float64)
            return np.rint(self.spread(inner)).astype(np.int64)
        inner = np.bincount(self.record_cell, weights=values, minlength=self.n_inner)
        return self.spread(inner)

    def add_top(self, contributions: np.ndarray, k: int) -> np.ndarray:
        """Per cell, its ``k`` largest contributions (descending; 0 where fewer)."""
        inner = _top(self.record_cell, contributions, self.n_inner, k)
        parts = [inner]
        for m in self.maps[1:]:
            owner = np.repeat(m[0], k)
            parts.append(_top(owner, inner.ravel(), m[1], k))
        return np.concatenate(parts)

    def frame(self, total: Any) -> pd.DataFrame:
        """The cells' labels, one column per dim (``total`` in totalled dims)."""
        cols = {}
        for j, d in enumerate(self.dims):
            c = self.codes[:, j]
            lab = self.labels[j]
            if (c < 0).any():
                vals = np.empty(len(c), dtype=object)
                vals[c >= 0] = lab[c[c >= 0]]
                vals[c < 0] = total
                cols[d] = vals
            else:
                cols[d] = pd.array(lab[c].tolist()) if len(c) else lab[c]
        return pd.DataFrame(cols)


def _top(owner: np.ndarray, x: np.ndarray, n: int, k: int) -> np.ndarray:
    out = np.zeros((n, k))
    if not len(owner):
        return out
    order = np.lexsort((-x, owner))
    o = owner[order]
    start = np.r_[0, np.flatnonzero(np.diff(o)) + 1]
    rank = np.arange(len(o)) - np.repeat(start, np.diff(np.r_[start, len(o)]))
    keep = rank < k
    out[o[keep], rank[keep]] = x[order][keep]
    return out


def build_cells(data: pd.DataFrame, dims: list[str], *, margin_dims: list[str],
                empty: bool = True) -> Cells:
    """The inner cells and margins (over every non-empty subset of ``margin_dims``) of a table of
    ``data`` by ``dims``. Raises `ParameterError` when the table would have more than
    `MAX_CELLS` cells (use ``empty=False`` or fewer variables).

    Missing values: a category of their own.
    """
    coded = [_codes(data[d]) for d in dims]
    codes = [c for c, _ in coded]
    labels = [lab for _, lab in coded]
    shape = tuple(len(lab) for lab in labels)
    dense = float(np.prod([float(s) for s in shape])) if shape else 1.0
    n_rec = len(data)
    if empty and dense > MAX_CELLS:
        raise ParameterError(f"the table has {dense:.0f} combinations of categories (more than "
                             f"{MAX_CELLS}); give empty=False to keep only cells with records, or "
                             "fewer variables")
    if dense < 2**62:
        flat = np.ravel_multi_index(codes, shape) if dims else np.zeros(n_rec, dtype=np.int64)
    else:  # too many combinations for one integer: number the observed ones
        flat = pd.MultiIndex.from_arrays(codes).factorize()[0] if n_rec else np.zeros(0, np.int64)
    if empty:
        inner_codes = np.array(np.unravel_index(np.arange(int(dense)), shape)).T.reshape(
            int(dense), len(dims)) if dims else np.zeros((1, 0), dtype=np.int64)
        record_cell = flat.astype(np.int64)
    else:
        uniq, record_cell = np.unique(flat, return_inverse=True)
        if dense < 2**62:
            inner_codes = np.array(np.unravel_index(uniq, shape)).T.reshape(len(uniq), len(dims))
        else:
            first = np.unique(record_cell, return_index=True)[1]
            inner_codes = np.column_stack([c[first] for c in codes])
    inner_codes = inner_codes.astype(np.int64)
    n_inner = len(inner_codes)
    maps: list[Any] = [None]
    all_codes = [inner_codes]
    idx = [dims.index(d) for d in margin_dims]
    total_cells = n_inner
    for size in range(1, len(idx) + 1):
        for subset in combinations(idx, size):
            c = inner_codes.copy()
            c[:, list(subset)] = -1
            key = pd.MultiIndex.from_arrays(c.T) if len(dims) > 1 else c[:, 0]
            inv, uniq = pd.factorize(key, sort=True)
            m_codes = (np.array([list(t) for t in uniq], dtype=np.int64).reshape(len(uniq), len(dims))
                       if len(dims) > 1 else np.asarray(uniq, dtype=np.int64).reshape(-1, 1))
            maps.append((inv.astype(np.int64), len(uniq)))
            all_codes.append(m_codes)
            total_cells += len(uniq)
            if total_cells > MAX_CELLS:
                raise ParameterError(f"the table with its margins has more than {MAX_CELLS} cells")
    return Cells(list(dims), labels, np.concatenate(all_codes), record_cell, maps, n_inner)
