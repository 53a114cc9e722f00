"""Benchmarking indicator specs (`Indicator`, parsed from ``"stat:column"``) and their
evaluation on a data frame: clean columns, weights, breakdown codes and household clusters, and
the estimates overall and per group. Used by `sdcsession.utility.benchmark.indicators`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import MeasureError, ParameterError
from .._align import check_frame
from ._kernels import (
    _float_array,
    _k_arpr,
    _k_gini,
    _k_mean,
    _k_quantile,
    _k_ratio,
    _k_total,
    _weights,
)

STATS = ("mean", "total", "ratio", "quantile", "median", "gini", "arpr", "threshold")


# --------------------------------------------------------------------------------------------
# indicator specs and their evaluation on (data, weights, groups)
# --------------------------------------------------------------------------------------------


@attrs.frozen
class Indicator:
    """A benchmarking indicator: ``stat`` of ``column`` (``denominator`` for a ratio, ``q`` for a
    quantile). Parse the short form with `parse`: ``"mean:income"``, ``"total:income"``,
    ``"ratio:expend/income"``, ``"quantile:income:0.9"``, ``"median:income"``, ``"gini:income"``,
    ``"arpr:income"`` (rate), ``"threshold:income"`` (poverty threshold).

    >>> Indicator.parse("ratio:expend/income").name
    'ratio(expend/income)'
    """

    stat: str
    column: str
    denominator: str | None = None
    q: float | None = None

    def __attrs_post_init__(self) -> None:
        if self.stat not in STATS:
            raise ParameterError(f"indicator: unknown statistic {self.stat!r}; known: {STATS}")
        if self.stat == "ratio" and not self.denominator:
            raise ParameterError("indicator: a ratio needs a denominator ('ratio:y/x')")
        if self.stat == "quantile" and (self.q is None or not 0 <= self.q <= 1):
            raise ParameterError("indicator: a quantile needs q in [0, 1] ('quantile:x:0.9')")

    @property
    def name(self) -> str:
        if self.stat == "ratio":
            return f"ratio({self.column}/{self.denominator})"
        if self.stat == "quantile":
            return f"quantile{self.q:g}({self.column})"
        return f"{self.stat}({self.column})"

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,) + ((self.denominator,) if self.denominator else ())

    @classmethod
    def parse(cls, spec: str | Indicator | Sequence[Any]) -> Indicator:
        """Indicator from a short string, a tuple ``(stat, column[, denominator|q])`` or itself."""
        if isinstance(spec, Indicator):
            return spec
        if isinstance(spec, str):
            parts = spec.split(":")
            if len(parts) < 2:
                raise ParameterError(f"indicator: expected 'stat:column', got {spec!r}")
            stat, col = parts[0].strip(), parts[1].strip()
            if stat == "ratio":
                if "/" not in col:
                    raise ParameterError(f"indicator: expected 'ratio:y/x', got {spec!r}")
                num, den = col.split("/", 1)
                return cls("ratio", num.strip(), den.strip())
            if stat == "quantile":
                try:
                    return cls("quantile", col, q=float(parts[2]))
                except (IndexError, ValueError):
                    raise ParameterError(f"indicator: expected 'quantile:x:q', got {spec!r}") from None
            return cls(stat, col)
        if isinstance(spec, Sequence) and len(spec) >= 2:
            stat, col = spec[0], spec[1]
            if stat == "ratio":
                return cls("ratio", col, spec[2] if len(spec) > 2 else None)
            if stat == "quantile":
                return cls("quantile", col, q=float(spec[2]) if len(spec) > 2 else None)
            return cls(stat, col)
        raise ParameterError(f"indicator: cannot read {spec!r}")


def _evaluate(ind: Indicator, cols: list[np.ndarray], w: np.ndarray, codes, G: int) -> np.ndarray:
    """Estimates of ``ind``: element 0 the total, elements 1..G the groups (NaN if empty)."""
    out = np.full(G + 1, np.nan)
    x = cols[0]
    st = ind.stat
    if st in ("arpr", "threshold"):
        rate, thr, _ = _k_arpr(x, w, 0.6, 0.5)
        if st == "threshold":
            out[0] = thr
            if G:
                for j in range(G):
                    m = codes == j
                    if m.any():
                        out[j + 1] = 0.6 * _k_quantile(x[m], w[m], 0.5)
            return out
        out[0] = rate
        if G:
            num = np.bincount(codes, weights=w * (x < thr), minlength=G)
            den = np.bincount(codes, weights=w, minlength=G)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[1:] = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
        return out
    if st == "mean":
        fn: Callable[..., float] = _k_mean
    elif st == "total":
        fn = _k_total
    elif st == "ratio":
        fn = _k_ratio
    elif st == "gini":
        fn = _k_gini
    else:
        qq = 0.5 if st == "median" else float(ind.q)  # type: ignore[arg-type]

        def fn(a, ww):
            return _k_quantile(a, ww, qq)

    out[0] = fn(*cols, w)
    for j in range(G):
        m = codes == j
        if m.any():
            out[j + 1] = fn(*(c[m] for c in cols), w[m])
    return out


def _frame_inputs(
    data: pd.DataFrame,
    ind: Indicator,
    weight: str | None,
    by: str | None,
    household: str | None,
    na_rm: bool,
    labels: pd.Index | None = None,
):
    """Clean arrays for ``ind`` on ``data``: columns, weights, group codes, labels, cluster ids."""
    if not isinstance(data, pd.DataFrame):
        raise MeasureError(f"data: expected a DataFrame, got {type(data).__name__}")
    check_frame(data, "data", ind.name)
    for role, c in (("weight", weight), ("by", by), ("household", household)):
        if c is None:
            continue
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, Hashable) or c not in data.columns:
            raise MeasureError(f"{ind.name}: {role} must be a column name of the data, got "
                               f"{c!r:.60}; columns: {list(data.columns)}")
    need = list(ind.columns) + [c for c in (weight, by, household) if c is not None]
    missing = [c for c in need if c not in data.columns]
    if missing:
        raise MeasureError(f"{ind.name}: unknown column(s) {missing}; columns: {list(data.columns)}")
    cols = [_float_array(data[c], f"column {c!r}") for c in ind.columns]
    w = _weights(data[weight] if weight is not None else None, len(data), f"weight {weight!r}")
    miss = np.zeros(len(data), dtype=bool)
    for c in cols:
        miss |= np.isnan(c)
    keep = None
    if miss.any():
        if not na_rm:
            raise MeasureError(
                f"{ind.name}: {int(miss.sum())} missing values; pass na_rm=True to drop them"
            )
        keep = ~miss
        cols = [c[keep] for c in cols]
        w = w[keep]
    if len(w) == 0 or w.sum() <= 0:
        raise MeasureError(f"{ind.name}: no records with positive weight")
    codes = None
    if by is not None:
        s = data[by] if keep is None else data[by][keep]
        if s.isna().any():
            raise MeasureError(f"by: {int(s.isna().sum())} missing values in {by!r}")
        if labels is None:
            labels = pd.Index(pd.unique(s.to_numpy())).sort_values()
        codes = labels.get_indexer(s.to_numpy())
        if (codes < 0).any():  # groups present in masked only: append them
            extra = pd.Index(pd.unique(s.to_numpy()[codes < 0]))
            labels = labels.append(extra)
            codes = labels.get_indexer(s.to_numpy())
        codes = codes.astype(np.int64)
    clusters = None
    if household is not None:
        h = data[household] if keep is None else data[household][keep]
        if h.isna().any():
            raise MeasureError(f"household: {int(h.isna().sum())} missing ids in {household!r}")
        clusters = pd.factorize(h)[0].astype(np.int64)
    return cols, w, codes, labels, clusters

