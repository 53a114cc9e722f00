"""Information loss of frequency tables after record swapping (sdcMicro ``infoLoss``).

For each table (a list of variables) the cells of the table and of all its margins (the tables of
every non-empty subset of its variables) are counted in the original file (o) and in the swapped
file (s); every cell that is non-empty in either file is compared with the metrics

- ``abs``: |o − s| (absolute deviation),
- ``rel_abs``: |o − s| / o (relative absolute deviation; 0 where o = 0, as sdcMicro),
- ``abs_sqrt``: |√o − √s| (absolute deviation of square roots),

summarised by quantiles (type 7: the linear interpolation of numpy and R's default) at
0, 0.1, …, 0.9, 0.95, 0.99, 1 and the mean (sdcMicro's ``measures``), by cumulative distributions
(for ``rel_abs`` and ``abs_sqrt`` over the groups [0, 0.02], (0.02, 0.05], (0.05, 0.1], (0.1, 0.2],
…, (0.5, ∞); for ``abs`` over its values), by the distribution of the noise o − s
(``overview``), and by the numbers of *false zeros* (o > 0, s = 0) and *false non-zeros*
(o = 0, s > 0). Each table also gets its Hellinger distance on the inner cells (counts, Shlomo,
Antal & Elliot 2015)

    HD = sqrt( ½ Σ_cells (√o − √s)² ),  0 ≤ HD ≤ sqrt(n).

Missing values are a category of their own; in margin cells the variables summed over are
missing and the column ``variables`` names the variables the cell is defined over. With
``household`` the cells count households (one record per household id) instead of persons.

References: sdcMicro ``infoLoss`` documentation (Gussenbauer; measures for targeted record
swapping); Shlomo, N., Antal, L. & Elliot, M. (2015), Measuring disclosure risk and data utility
for flexible table generators, Journal of Official Statistics 31(2), 305–324 (Hellinger distance).

Example
-------
>>> import pandas as pd
>>> o = pd.DataFrame({"reg": ["a", "a", "b", "b"], "sex": ["m", "f", "m", "f"]})
>>> s = o.assign(reg=["b", "a", "a", "b"])
>>> r = info_loss(o, s, [["reg"]])
>>> int(r.summary.loc[0, "cells"]), float(r.summary.loc[0, "hellinger"])
(2, 0.0)
>>> r.tables[0].measures.loc["Mean", "abs"]
np.float64(0.0)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from itertools import combinations
from numbers import Real
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from ._align import check_cells, check_frame, encode_pair

__all__ = ["info_loss", "InfoLoss", "TableLoss", "METRICS", "PROBS", "QUANTVALS"]

#: metric name -> function of the (original, swapped) cell counts
METRICS = ("abs", "rel_abs", "abs_sqrt")
#: quantiles reported for each metric (sdcMicro's default ``probs``)
PROBS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)
#: group bounds of the cumulative distributions of ``rel_abs`` and ``abs_sqrt``
QUANTVALS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, np.inf)
#: the most variables one table may have (2**p − 1 sub-tables are counted)
MAX_TABLE_VARIABLES = 12
_RESERVED = ("count_o", "count_s", "variables", *METRICS)


@attrs.frozen
class TableLoss:
    """Information loss of one table (see the module docstring).

    ``cells``: one row per cell (table variables, ``variables``, ``count_o``, ``count_s`` and one
    column per metric); ``measures``: quantiles and mean of each metric (rows ``Min``, ``10%``,
    …, ``Mean``, ``Median``, …, ``Max``); ``cumulative``: per metric a DataFrame ``cat``, ``cnt``,
    ``pct``; ``overview``: cells per noise value o − s (``noise``, ``cnt``, ``pct``).
    """

    columns: tuple[Hashable, ...]
    cells: pd.DataFrame = attrs.field(repr=False, eq=False)
    measures: pd.DataFrame = attrs.field(repr=False, eq=False)
    cumulative: dict[str, pd.DataFrame] = attrs.field(repr=False, eq=False)
    overview: pd.DataFrame = attrs.field(repr=False, eq=False)
    false_zero: int
    false_nonzero: int
    hellinger: float


@attrs.frozen
class InfoLoss:
    """Result of `info_loss`: ``tables`` (one `TableLoss` per table, in order) and ``summary``
    (one row per table: ``table``, ``cells``, ``hellinger``, ``false_zero``, ``false_nonzero``
    and the mean of each metric as ``mean_<metric>``)."""

    tables: tuple[TableLoss, ...]
    summary: pd.DataFrame = attrs.field(repr=False, eq=False)


def _tables(tables: Any) -> list[list[Hashable]]:
    what = "info_loss: tables"
    if isinstance(tables, (str, bytes, Mapping, set, frozenset, pd.DataFrame)) or \
            not isinstance(tables, Iterable):
        raise ParameterError(f"{what} must be a list of column lists, e.g. [['region', 'sex']], "
                             f"got {type(tables).__name__}")
    items: list[Any] = []
    for t in tables:
        items.append(t)
        if len(items) > 10_000:
            raise ParameterError(f"{what}: more than 10000 tables")
    if not items:
        raise ParameterError(f"{what}: expected at least one table")
    if all(isinstance(t, str) for t in items):
        items = [items]  # a flat list of names is one table (sdcMicro's table_vars)
    out = []
    for i, t in enumerate(items):
        if isinstance(t, (str, bytes, Mapping, set, frozenset)) or not isinstance(t, (list, tuple)):
            raise ParameterError(f"{what}[{i}] must be a list of column names, got {t!r:.40}")
        cols = list(t)
        if not cols or len(cols) > MAX_TABLE_VARIABLES:
            raise ParameterError(f"{what}[{i}] must list 1 to {MAX_TABLE_VARIABLES} columns, "
                                 f"got {len(cols)}")
        if not all(isinstance(c, Hashable) and not isinstance(c, (tuple, list)) for c in cols):
            raise ParameterError(f"{what}[{i}] must list column names, got {cols!r:.60}")
        if len(set(cols)) != len(cols):
            raise ParameterError(f"{what}[{i}] names a column more than once: {cols}")
        bad = [c for c in cols if c in _RESERVED]
        if bad:
            raise ParameterError(f"{what}[{i}]: column name(s) {bad} clash with the result "
                                 f"columns {list(_RESERVED)}; rename them first")
        out.append(cols)
    return out


def _metrics(metric: Any) -> tuple[str, ...]:
    names = (metric,) if isinstance(metric, str) else metric
    if not isinstance(names, (list, tuple)) or not names or \
            not all(isinstance(m, str) and m in METRICS for m in names):
        raise ParameterError(f"info_loss: metric must be one or more of {list(METRICS)}, got "
                             f"{metric!r:.60}")
    if len(set(names)) != len(names):
        raise ParameterError(f"info_loss: metric names a measure twice: {list(names)}")
    return tuple(names)


def metric_values(name: str, o: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The metric ``name`` per cell from original counts ``o`` and swapped counts ``s``.

    >>> metric_values("rel_abs", np.array([4.0, 0.0]), np.array([3.0, 2.0])).tolist()
    [0.25, 0.0]
    """
    if name == "abs":
        return np.abs(o - s)
    if name == "rel_abs":
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.abs(o - s) / o
        return np.where(o > 0, r, 0.0)
    return np.abs(np.sqrt(o) - np.sqrt(s))


def _prob_name(p: float) -> str:
    return "Min" if p == 0 else "Median" if p == 0.5 else "Max" if p == 1 else f"{p * 100:.7g}%"


def _distribution(x: np.ndarray, probs: tuple[float, ...] = PROBS) -> pd.Series:
    """Quantiles at ``probs`` (type 7) with the mean inserted after the last prob below 0.5
    (first when there is none)."""
    q = np.quantile(x, probs) if x.size else np.full(len(probs), np.nan)
    names = [_prob_name(p) for p in probs]
    below = [i for i, p in enumerate(probs) if p < 0.5]
    at = below[-1] + 1 if below else 0
    values = [*q[:at], float(x.mean()) if x.size else np.nan, *q[at:]]
    return pd.Series(values, index=[*names[:at], "Mean", *names[at:]], dtype=float)


def _cumulative(x: np.ndarray, bounds: tuple[float, ...] | None = QUANTVALS) -> pd.DataFrame:
    """Cumulative counts: over the distinct values (``bounds=None``), else over the groups
    [b_0, b_1], (b_1, b_2], … labelled by their cumulative range ``[b_0,b_i]``; values outside
    [b_0, b_last] are in no group (sdcMicro's ``cut(include.lowest = TRUE)``)."""
    if bounds is None:
        vals, cnt = np.unique(x, return_counts=True)
        cats = [f"{v:g}" for v in vals]
    else:
        b = np.asarray(bounds, dtype=np.float64)
        inside = (x >= b[0]) & (x <= b[-1])
        group = np.clip(np.searchsorted(b, x[inside], side="left") - 1, 0, len(b) - 2)
        cnt = np.bincount(group, minlength=len(b) - 1)
        cats = [f"[{b[0]:g},{v:g}]" for v in b[1:]]
    c = np.cumsum(cnt)
    return pd.DataFrame({"cat": cats, "cnt": c, "pct": c / max(x.size, 1)})


def _probs(probs: Any) -> tuple[float, ...]:
    items = [probs] if isinstance(probs, Real) else probs
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise ParameterError(f"info_loss: probs must be a list of numbers in [0, 1], got "
                             f"{probs!r:.60}")
    out = list(items)
    if not out or len(out) > 1000 or any(
            isinstance(p, bool) or not isinstance(p, Real) or not 0 <= p <= 1 for p in out):
        raise ParameterError(f"info_loss: probs must be a list of numbers in [0, 1], got "
                             f"{probs!r:.60}")
    return tuple(float(p) for p in out)


def _quantvals(quantvals: Any) -> tuple[float, ...]:
    if isinstance(quantvals, (str, bytes)) or not isinstance(quantvals, Iterable):
        raise ParameterError(f"info_loss: quantvals must be a list of 2 or more increasing "
                             f"numbers, got {quantvals!r:.60}")
    out = list(quantvals)
    if len(out) < 2 or len(out) > 1000 or any(
            isinstance(v, bool) or not isinstance(v, Real) or np.isnan(v) for v in out) or \
            any(b <= a for a, b in zip(out, out[1:])):
        raise ParameterError(f"info_loss: quantvals must be a list of 2 or more increasing "
                             f"numbers, got {quantvals!r:.60}")
    return tuple(float(v) for v in out)


def _custom(custom_metric: Any, taken: set[Hashable]) -> dict[str, Callable[..., Any]]:
    """Custom metrics as name -> function, each tried on (1..10, 10..1) as sdcMicro does."""
    if custom_metric is None:
        return {}
    if callable(custom_metric):
        funcs = {"custom_1": custom_metric}
    elif isinstance(custom_metric, Mapping):
        funcs = dict(custom_metric)
    elif isinstance(custom_metric, (list, tuple)):
        funcs = {f"custom_{i + 1}": f for i, f in enumerate(custom_metric)}
    else:
        raise ParameterError("info_loss: custom_metric must be a function f(o, s), a list of "
                             "them or a dict name -> function")
    if not funcs or len(funcs) > 100:
        raise ParameterError("info_loss: custom_metric must hold 1 to 100 functions")
    x, y = np.arange(1.0, 11.0), np.arange(10.0, 0.0, -1.0)
    for name, f in funcs.items():
        if not isinstance(name, str) or not name or name in taken:
            raise ParameterError(f"info_loss: custom_metric name {name!r} is empty or clashes "
                                 f"with a metric or result column ({sorted(map(str, taken))})")
        if not callable(f):
            raise ParameterError(f"info_loss: custom_metric[{name!r}] is not a function")
        try:
            out = np.asarray(f(x, y), dtype=np.float64)
        except Exception as e:  # noqa: BLE001 - any failure of user code is reported by name
            raise ParameterError(f"info_loss: custom_metric[{name!r}] raised {type(e).__name__} "
                                 f"when called with (1..10, 10..1): {e}") from None
        if out.shape != x.shape:
            raise ParameterError(f"info_loss: custom_metric[{name!r}] must return one number "
                                 f"per cell (an array as long as its inputs)")
    return funcs


def _count_table(cols: list[Hashable], encs: list[Any], n_o: int, n_s: int) -> pd.DataFrame:
    """Cell counts of every sub-table of ``cols`` in both files (cells non-empty in either)."""
    parts = []
    for r in range(len(cols), 0, -1):
        for sub in combinations(range(len(cols)), r):
            key = np.zeros(n_o + n_s, dtype=np.int64)
            for j in sub:
                e = encs[j]
                code = np.concatenate([e.codes_o, e.codes_m]) + 1  # missing (-1) -> 0
                key = pd.factorize(key * (e.n_categories + 1) + code)[0].astype(np.int64)
            cell, first = np.unique(key, return_index=True)
            inv = np.searchsorted(cell, key)
            count_o = np.bincount(inv[:n_o], minlength=cell.size)
            count_s = np.bincount(inv[n_o:], minlength=cell.size)
            frame = {}
            for j, c in enumerate(cols):
                e = encs[j]
                if j in sub:
                    code = np.concatenate([e.codes_o, e.codes_m])[first]
                    frame[c] = e.categories.take(np.maximum(code, 0)).astype(object).where(
                        code >= 0, None) if e.n_categories else [None] * cell.size
                else:
                    frame[c] = [None] * cell.size
            frame["variables"] = [tuple(cols[j] for j in sub)] * cell.size
            frame["count_o"] = count_o
            frame["count_s"] = count_s
            parts.append(pd.DataFrame(frame))
    return pd.concat(parts, ignore_index=True)


def info_loss(original: pd.DataFrame, swapped: pd.DataFrame,
              tables: Sequence[Sequence[Hashable]],
              metric: Sequence[str] | str = METRICS, *, household: Hashable | None = None,
              margins: bool = True,
              custom_metric: Callable[..., Any] | Mapping[str, Callable[..., Any]]
              | Sequence[Callable[..., Any]] | None = None,
              probs: Sequence[float] = PROBS, quantvals: Sequence[float] = QUANTVALS,
              apply_quantvals: Sequence[str] | str = ("rel_abs", "abs_sqrt"),
              exclude_zeros: bool = False) -> InfoLoss:
    """Change of frequency tables between ``original`` and ``swapped`` (sdcMicro ``infoLoss``).

    Missing values: a missing value is a category of its own in the frequency tables.

    Parameters
    ----------
    original, swapped : the files before and after masking (they may differ in length).
    tables : a list of tables, each a list of column names present in both files; a flat list
        of names is one table.
    metric : one or more of ``"abs"``, ``"rel_abs"``, ``"abs_sqrt"`` (see the module docstring).
    household : a household id column: count households (first record of each) instead of
        records.
    margins : also compare the cells of every margin of each table (sdcMicro's default); with
        ``False`` only the inner cells (sdcMicro's ``only_inner_cells = TRUE``).
    custom_metric : further metrics (sdcMicro's ``custom_metric``): a Python function
        ``f(o, s)`` of the two arrays of cell counts returning one number per cell, a list of
        them (named ``custom_1``, …) or a dict name -> function. Each is tried once on
        (1, …, 10) and (10, …, 1) and a failure is a `ParameterError` naming it. Its values are
        summarised like the built-in metrics.
    probs : the quantiles reported in ``measures`` (numbers in [0, 1]; default 0, 0.1, …, 0.9,
        0.95, 0.99, 1); rows are named ``Min`` (0), ``Median`` (0.5), ``Max`` (1) and ``p%``
        otherwise, with ``Mean`` after the last prob below 0.5.
    quantvals : the increasing group bounds b_0 < … < b_k of the cumulative distributions of the
        metrics in ``apply_quantvals``: groups [b_0, b_1], (b_1, b_2], …, labelled cumulatively
        ``[b_0,b_i]``; values outside [b_0, b_k] fall in no group (``pct`` still divides by all
        cells).
    apply_quantvals : the metrics (built-in or custom names) whose cumulative distribution is
        grouped by ``quantvals``; the others are cumulated over their distinct values.
    exclude_zeros : leave out the cells whose swapped count is 0 (then ``false_zero`` is 0).

    Returns
    -------
    `InfoLoss` with one `TableLoss` per table (cells, quantile measures, cumulative
    distributions, noise overview, false zeros / non-zeros, Hellinger distance) and a summary.

    Example
    -------
    >>> o = pd.DataFrame({"reg": ["a", "a", "a", "b"]})
    >>> s = pd.DataFrame({"reg": ["a", "a", "b", "b"]})
    >>> t = info_loss(o, s, [["reg"]], margins=False).tables[0]
    >>> t.cells[["reg", "count_o", "count_s", "abs", "rel_abs"]].values.tolist()
    [['a', 3, 2, 1.0, 0.3333333333333333], ['b', 1, 2, 1.0, 1.0]]
    >>> round(t.hellinger, 6)   # sqrt(((√3 − √2)² + (1 − √2)²) / 2)
    0.369184
    """
    check_frame(original, "original", "info_loss")
    check_frame(swapped, "swapped", "info_loss")
    specs = _tables(tables)
    names = _metrics(metric)
    for flag, value in (("margins", margins), ("exclude_zeros", exclude_zeros)):
        if not isinstance(value, (bool, np.bool_)):
            raise ParameterError(f"info_loss: {flag} must be True or False, got {value!r:.40}")
    probs_t = _probs(probs)
    bounds = _quantvals(quantvals)
    custom = _custom(custom_metric, {*_RESERVED, *(c for t in specs for c in t)})
    grouped = (apply_quantvals,) if isinstance(apply_quantvals, str) else apply_quantvals
    if not isinstance(grouped, (list, tuple)) or not all(
            isinstance(m, str) and (m in METRICS or m in custom) for m in grouped):
        raise ParameterError(f"info_loss: apply_quantvals must list names of metrics (built-in "
                             f"{list(METRICS)} or custom {list(custom)}), got "
                             f"{apply_quantvals!r:.60}")
    all_names = (*names, *custom)
    needed = list(dict.fromkeys(c for t in specs for c in t))
    if household is not None:
        if isinstance(household, (bool, np.bool_)) or not isinstance(household, Hashable):
            raise ParameterError(f"info_loss: household must be a column name or None, got "
                                 f"{type(household).__name__}")
        needed.append(household)
    for df, which in ((original, "original"), (swapped, "swapped")):
        absent = [c for c in dict.fromkeys(needed) if c not in df.columns]
        if absent:
            raise MeasureError(f"info_loss: tables name column(s) {absent} not in the {which} file")
        check_cells(df, list(dict.fromkeys(needed)), which, "info_loss")
    if household is not None:
        original = original.drop_duplicates(subset=[household])
        swapped = swapped.drop_duplicates(subset=[household])
    results, rows = [], []
    for cols in specs:
        encs = [encode_pair(original[c], swapped[c]) for c in cols]
        cells = _count_table(cols, encs, len(original), len(swapped))
        if not margins:
            cells = cells[cells["variables"].map(len) == len(cols)].reset_index(drop=True)
        if exclude_zeros:
            cells = cells[cells["count_s"] != 0].reset_index(drop=True)
        o = cells["count_o"].to_numpy(dtype=np.float64)
        s = cells["count_s"].to_numpy(dtype=np.float64)
        for m in names:
            cells[m] = metric_values(m, o, s)
        for m, f in custom.items():
            try:
                v = np.asarray(f(o.copy(), s.copy()), dtype=np.float64)
            except Exception as e:  # noqa: BLE001 - user code
                raise ParameterError(f"info_loss: custom_metric[{m!r}] raised "
                                     f"{type(e).__name__}: {e}") from None
            if v.shape != o.shape:
                raise ParameterError(f"info_loss: custom_metric[{m!r}] must return one number "
                                     "per cell")
            cells[m] = v
        inner = (cells["variables"].map(len) == len(cols)).to_numpy()
        hd = float(np.sqrt(0.5 * np.sum((np.sqrt(o[inner]) - np.sqrt(s[inner])) ** 2)))
        noise, cnt = np.unique((o - s).astype(np.int64), return_counts=True)
        t = TableLoss(
            columns=tuple(cols), cells=cells,
            measures=pd.DataFrame({m: _distribution(cells[m].to_numpy(), probs_t)
                                   for m in all_names}),
            cumulative={m: _cumulative(cells[m].to_numpy(), bounds if m in grouped else None)
                        for m in all_names},
            overview=pd.DataFrame({"noise": noise, "cnt": cnt, "pct": cnt / max(len(o), 1)}),
            false_zero=int(((o > 0) & (s == 0)).sum()),
            false_nonzero=int(((o == 0) & (s > 0)).sum()), hellinger=hd)
        results.append(t)
        rows.append({"table": " × ".join(map(str, cols)), "cells": len(cells), "hellinger": hd,
                     "false_zero": t.false_zero, "false_nonzero": t.false_nonzero,
                     **{f"mean_{m}": float(cells[m].mean()) for m in all_names}})
    return InfoLoss(tables=tuple(results), summary=pd.DataFrame(rows))
