"""Perturbation tables in files: the ONS and ``cellKey`` layouts, read, written and checked.

Layouts
-------
``"ons"`` — the ONS ``cell-key-perturbation`` package (``ptable_10_5_rule.csv``): columns
``pcv`` (the original count, 1..M), ``ckey`` (the integer cell key, 0..K−1, every one in every
row) and ``pvalue`` (the perturbation). Row 0 is implicit (an empty cell stays empty). Counts
above M reuse the last ``cycle`` rows (the ONS package: 250, rows 501..750).

``"cellkey"`` — the ``ptable``/``cellKey`` R packages (``ptable@pTable``, ``pt_export``): one line
per transition with columns ``i`` (original count), ``j`` (perturbed count), ``p`` (probability),
``v`` (``j − i``) and optionally ``p_int_lb``/``p_int_ub`` (the interval of [0, 1)) and ``type``.
Rows are ordered by ``v`` within ``i`` unless ``p_int_ub`` gives another order. Counts above the
last ``i`` use the last row.

Missing values: a ptable file with a missing value in its columns is refused (`DataFileError`).

Example
-------
>>> import pandas as pd
>>> ons = pd.DataFrame({"pcv": [1, 1, 2, 2], "ckey": [0, 1, 0, 1], "pvalue": [-1, 0, 0, 1]})
>>> pt = read_ptable(ons, cycle=1)
>>> pt.lookup([1, 1, 2, 2, 9], [0.0, 0.5, 0.0, 0.5, 0.5]).tolist()
[-1, 0, 0, 1, 1]
>>> ptable_frame(pt, "ons", modulus=2).equals(ons)
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataFileError, ParameterError
from .ptable import PTable

__all__ = ["read_ptable", "ptable_frame", "check_ptable", "ONS_CYCLE"]

#: the number of last rows the ONS package reuses for counts above its last row (501..750)
ONS_CYCLE = 250


def _frame(source: Any) -> tuple[pd.DataFrame, str]:
    if isinstance(source, pd.DataFrame):
        return source, "a DataFrame"
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise DataFileError(f"ptable: no file {str(path)!r}")
        try:
            return pd.read_csv(path), path.name
        except (ValueError, OSError, UnicodeDecodeError) as e:
            raise DataFileError(f"ptable: cannot read {str(path)!r} as CSV ({e})"[:300]) from e
    raise ParameterError(f"ptable: expected a path or a DataFrame, got {type(source).__name__}")


def _label(layout: str, where: str) -> str:
    return f"{layout} layout" if where == "a DataFrame" else f"{layout} {where}"


def _whole(df: pd.DataFrame, col: str, where: str) -> np.ndarray:
    s = df[col]
    if s.isna().any():
        raise DataFileError(f"ptable {where}: column {col!r} has missing values")
    x = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
    if np.isnan(x).any() or not np.all(np.isfinite(x)) or not np.all(x == np.round(x)):
        raise DataFileError(f"ptable {where}: column {col!r} must hold whole numbers")
    return x.astype(np.int64)


def _read_ons(df: pd.DataFrame, where: str, cycle: int | None) -> PTable:
    pcv, ckey, pv = (_whole(df, c, where) for c in ("pcv", "ckey", "pvalue"))
    if pcv.min() < 1:
        raise DataFileError(f"ptable {where}: pcv must start at 1 (row 0 is implicit)")
    k = int(ckey.max()) + 1
    m = int(pcv.max())
    if ckey.min() < 0 or len(df) != m * k:
        raise DataFileError(f"ptable {where}: expected every cell key 0..{k - 1} once for every "
                            f"pcv 1..{m} ({m * k} lines), got {len(df)} lines")
    grid = np.full((m + 1, k), np.iinfo(np.int64).min)
    grid[0] = 0
    grid[pcv, ckey] = pv
    if (grid == np.iinfo(np.int64).min).any():
        raise DataFileError(f"ptable {where}: some (pcv, ckey) pairs are missing or repeated")
    rows = []
    ends = (np.arange(k) + 1) / k
    for i in range(m + 1):
        g = grid[i]
        change = np.flatnonzero(np.diff(g) != 0)  # runs of equal perturbations, merged
        last = np.concatenate([change, [k - 1]])
        ub = ends[last].tolist()
        ub[-1] = 1.0
        rows.append((g[last].tolist(), ub))
    if cycle is None:
        cycle = ONS_CYCLE if m >= ONS_CYCLE * 2 else 1
    return PTable(rows=rows, cycle=cycle, js=None, label=_label("ONS", where))


def _read_cellkey(df: pd.DataFrame, where: str) -> PTable:
    i = _whole(df, "i", where)
    v = pd.to_numeric(df["v"], errors="coerce").to_numpy(dtype=float)
    if "p" in df.columns:
        p = pd.to_numeric(df["p"], errors="coerce").to_numpy(dtype=float)
    elif "p_int_ub" in df.columns and "p_int_lb" in df.columns:
        p = (pd.to_numeric(df["p_int_ub"], errors="coerce")
             - pd.to_numeric(df["p_int_lb"], errors="coerce")).to_numpy(dtype=float)
    else:
        raise DataFileError(f"ptable {where}: the cellKey layout needs columns i, v and p")
    if np.isnan(v).any() or np.isnan(p).any() or (p < 0).any():
        raise DataFileError(f"ptable {where}: v and p must be numbers, p >= 0, none missing")
    m = int(i.max())
    if i.min() < 0 or set(np.unique(i).tolist()) != set(range(m + 1)):
        raise DataFileError(f"ptable {where}: expected rows i = 0..{m}, each present")
    order_key = (pd.to_numeric(df["p_int_ub"], errors="coerce").to_numpy(dtype=float)
                 if "p_int_ub" in df.columns else v)
    rows = []
    for r in range(m + 1):
        sel = np.flatnonzero(i == r)
        sel = sel[np.argsort(order_key[sel], kind="stable")]
        total = p[sel].sum()
        if abs(total - 1.0) > 1e-6:
            raise ParameterError(f"ptable {where}: the probabilities of row i = {r} sum to "
                                 f"{total:.8g}, not 1")
        keep = sel[p[sel] > 0]
        ub = np.cumsum(p[keep])
        ub[-1] = 1.0
        rows.append((v[keep].tolist(), ub.tolist()))
    return PTable(rows=rows, cycle=1, js=None, label=_label("cellKey", where))


def read_ptable(source: Any, layout: str = "auto", *, cycle: int | None = None) -> PTable:
    """A `PTable` from a CSV file or a DataFrame in the ONS or ``cellKey`` layout (see the module
    docstring); ``layout="auto"`` tells them apart by their columns. ``cycle``: the rows reused
    for counts above the last row (ONS default 250 when the table has at least 500 rows, else
    1; ignored for the ``cellKey`` layout, which uses the last row).

    Raises `DataFileError` for an unreadable file or layout, `ParameterError` for a row whose
    probabilities do not sum to 1.

    Missing values: refused (`DataFileError`).

    Example
    -------
    >>> import pandas as pd
    >>> ck = pd.DataFrame({"i": [0, 1, 1], "j": [0, 0, 2], "p": [1, .5, .5], "v": [0, -1, 1]})
    >>> read_ptable(ck).probabilities(1)
    {-1: 0.5, 1: 0.5}
    """
    from ..methods.params import check_choice

    layout = check_choice("layout", layout, ("auto", "ons", "cellkey"))
    df, where = _frame(source)
    cols = set(map(str, df.columns))
    if layout == "auto":
        if {"pcv", "ckey", "pvalue"} <= cols:
            layout = "ons"
        elif {"i", "v"} <= cols:
            layout = "cellkey"
        else:
            raise DataFileError(f"ptable {where}: columns {sorted(cols)[:10]} are neither the ONS "
                                "layout (pcv, ckey, pvalue) nor the cellKey layout (i, j, p, v)")
    need = {"pcv", "ckey", "pvalue"} if layout == "ons" else {"i", "v"}
    if not need <= cols:
        raise DataFileError(f"ptable {where}: the {layout} layout needs columns {sorted(need)}")
    if len(df) == 0:
        raise DataFileError(f"ptable {where}: no lines")
    return _read_ons(df, where, cycle) if layout == "ons" else _read_cellkey(df, where)


def _check_pt(pt: Any) -> None:
    if not isinstance(pt, PTable):
        raise ParameterError(f"pt: expected a PTable (build_ptable, read_ptable), got "
                             f"{type(pt).__name__}")


def ptable_frame(pt: PTable, layout: str = "cellkey", *, modulus: int = 256) -> pd.DataFrame:
    """The ptable in the ``cellKey`` layout (``i, j, p, v, p_int_lb, p_int_ub``) or the ONS layout
    for integer keys ``0..modulus−1`` (``pcv, ckey, pvalue``: the perturbation of key ``k`` is
    the one of ``u = k / modulus``, as in `PTable.lookup`).

    Missing values: none are produced.

    Example
    -------
    >>> from sdcsession.tables.ptable import build_ptable
    >>> ptable_frame(build_ptable(2, 1), "cellkey").head(2)[["i", "j", "v"]].values.tolist()
    [[0, 0, 0], [1, 0, -1]]
    """
    from ..methods.params import check_choice, check_int

    _check_pt(pt)
    layout = check_choice("layout", layout, ("ons", "cellkey"))
    modulus = check_int("modulus", modulus, 2, 2**24)
    if layout == "ons":
        modulus = check_int("modulus", modulus, 2, 2**24)
        i = np.repeat(np.arange(1, pt.max_value + 1), modulus)
        k = np.tile(np.arange(modulus), pt.max_value)
        v = pt.lookup(i, k / modulus)
        return pd.DataFrame({"pcv": i, "ckey": k, "pvalue": v})
    out = []
    for r, (v, ub) in enumerate(pt.rows):
        lb = [0.0, *ub[:-1]]
        for vv, lo, hi in zip(v, lb, ub, strict=True):
            out.append({"i": r, "j": r + vv, "p": hi - lo, "v": vv, "p_int_lb": lo, "p_int_ub": hi})
    df = pd.DataFrame(out)
    if pt._whole():
        df[["j", "v"]] = df[["j", "v"]].astype(np.int64)
    return df


def check_ptable(pt: PTable, js: int | None = None) -> PTable:
    """Check a count ptable: every row sums to 1 (checked when it was made), no perturbation
    leaves a negative count, and no perturbed count falls in ``1..js`` (``js`` given here or
    recorded in the table). Returns the table or raises `ParameterError` naming the first fault.

    Missing values: not applicable.

    Example
    -------
    >>> from sdcsession.tables.ptable import build_ptable
    >>> check_ptable(build_ptable(3, 1, js=2)).js
    2
    """
    from ..methods.params import check_int

    _check_pt(pt)
    js = pt.js if js is None else check_int("js", js, 0, 10_000)
    for r, (v, ub) in enumerate(pt.rows):
        p = np.diff(np.concatenate([[0.0], ub]))
        if abs(p.sum() - 1.0) > 1e-6:
            raise ParameterError(f"ptable row {r}: probabilities sum to {p.sum():.8g}, not 1")
        j = r + np.asarray(v)
        live = p > 0
        if (j[live] < 0).any():
            raise ParameterError(f"ptable row {r}: a perturbation leads to a negative count")
        if js and ((j[live] >= 1) & (j[live] <= js)).any():
            bad = sorted({int(x) for x in j[live] if 1 <= x <= js})
            raise ParameterError(f"ptable row {r}: perturbed count(s) {bad} fall in 1..js = "
                                 f"1..{js}")
    return pt
