"""Frequency and magnitude tables from microdata with the cell-key method (CKM): the pure
kernel behind ``SdcSession.tabulate``.

Algorithm (frequency tables)
----------------------------
1. Cells: every combination of the categories of ``by``, ``rows`` and ``columns`` (only those with
   records when ``empty=False``) and, with ``margins``, the totals over any subset of the row and
   column variables (never over ``by``: each ``by`` group is a table of its own).
2. Count ``n`` and cell key ``ck = (Σ record keys) mod modulus`` of every cell, margins included
   (a margin's key comes from all its records, exactly as if it were tabulated on its own).
3. Perturbation ``v`` looked up in the ptable from the count and ``u = ck / modulus``
   (`sdcsession.tables.ptable.PTable.lookup`); perturbed count ``n + v``. Margins are perturbed
   independently (``margins="microdata"``, as CKM does: tables stay consistent with each other
   but not additive) or are the sums of the perturbed inner cells (``margins="cells"``: additive,
   not consistent with a table that has this margin as an inner cell).
4. Weighted counts (``weights``): the perturbed count times the cell's average weight,
   ``(n + v) · W / n`` with ``W`` the weighted count (``cellKey``); the threshold applies to
   the perturbed number of records. With ``margins="cells"`` weighted margins are the sums of
   the perturbed weighted cells.
5. ``threshold``: perturbed counts below it are published as missing (``below_threshold``), as
   the ONS package does.

Because a cell's count and key depend on its records only, the same cell gets the same perturbed
value in every table, every margin and every branch that shares the record keys.

Magnitude tables (``value``): the sum of ``value`` (times the weight), perturbed by
`sdcsession.tables.magnitude.perturb_sums`.

Primary rules (``rules``): `sdcsession.tables.rules`.

The result is a tidy DataFrame, one row per cell: the variables (``total`` in totalled margins),
``records`` and ``original`` (internal: never publish them), ``perturbed``, ``cell_key``
(internal), ``margin`` (the number of totalled variables), and the flags. `published` keeps what
may be published.

References: Fraser & Wooton (2006); Marley & Leaver (2011); Thompson, Broadfoot & Elazar (2013);
the ONS ``cell-key-perturbation`` package (3.1.0); the ``cellKey`` R package (Meindl & Enderle).

Missing values: a missing category is a cell of its own; a missing ``value`` contributes 0.

Example
-------
>>> import numpy as np, pandas as pd
>>> from sdcsession.tables.ptable import build_ptable
>>> df = pd.DataFrame({"sex": ["m", "f"] * 50, "region": ["a"] * 60 + ["b"] * 40})
>>> keys = np.random.default_rng(0).integers(0, 256, 100)
>>> t = tabulate(df, "sex", "region", keys=keys, modulus=256, ptable=build_ptable(3, 1))
>>> t[["sex", "region", "original"]].head(3).values.tolist()
[['f', 'a', 30], ['f', 'b', 20], ['m', 'a', 30]]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from .cells import build_cells
from .magnitude import check_epsilon, perturb_sums
from .ptable import PTable, build_ptable, noise_ptable
from .rules import check_rules, rule_flags

__all__ = ["tabulate", "published", "INTERNAL_COLUMNS", "MARGINS"]

#: columns of a tabulation that must never be published
INTERNAL_COLUMNS = ("records", "original", "cell_key", "records_perturbed")
MARGINS = ("microdata", "cells", "none")


def _names(value: Any, what: str) -> list[str]:
    from ..methods.params import param_names

    return list(param_names(value, what))


def tabulate(data: pd.DataFrame, rows: Any, columns: Any = None, *, by: Any = None,
             keys: Any, modulus: int, value: str | None = None, weights: str | None = None,
             method: str = "ckm", ptable: PTable | None = None, threshold: int | None = None,
             margins: str = "microdata", empty: bool = True, rules: dict[str, Any] | None = None,
             top_k: int = 1, share: float = 0.05, epsilon: Any = 1.0, mu_c: float = 0.0,
             noise: PTable | None = None, total: Any = "Total") -> pd.DataFrame:
    """A frequency table (``value=None``) or magnitude table (sums of ``value``) of ``data`` by
    ``by`` × ``rows`` × ``columns``, perturbed with the cell-key method (see the module
    docstring for the algorithm).

    Parameters
    ----------
    keys : the integer record keys ``0..modulus−1`` (a column name or an array, one per record).
    modulus : the key range; cell keys are key sums modulo it.
    weights : a weight column: weighted counts (``cellKey``'s rule) or weighted sums.
    method : ``"ckm"`` (perturb) or ``"none"`` (the original table, with flags).
    ptable : the count ptable (default ``build_ptable(D=3, V=1)``).
    threshold : perturbed counts below it are published as missing.
    margins : ``"microdata"`` (margins perturbed independently), ``"cells"`` (sums of the
        perturbed cells) or ``"none"``.
    empty : keep cells without records (every combination of categories).
    rules : primary rules ``{"frequency": m, "dominance": (n, k), "p": p}``.
    top_k, share, epsilon, mu_c, noise : magnitude tables (see
        `sdcsession.tables.magnitude`); ``noise`` defaults to ``noise_ptable(2, 1)``.
    total : the label of totalled variables in margins.

    Missing values: a missing category is a cell of its own; a missing ``value`` contributes 0;
    missing keys are refused.
    """
    from ..methods.params import check_bool, check_choice, check_int, check_number

    if not isinstance(data, pd.DataFrame):
        raise ParameterError(f"data: expected a pandas DataFrame, got {type(data).__name__}")
    rows_, cols_, by_ = _names(rows, "rows"), _names(columns, "columns"), _names(by, "by")
    if not rows_:
        raise ParameterError("rows: expected at least one variable")
    dims = [*by_, *rows_, *cols_]
    if len(set(dims)) != len(dims):
        raise ParameterError(f"rows, columns and by: a variable is named twice in {dims}")
    for what, x in (("value", value), ("weights", weights)):
        if x is not None and not isinstance(x, str):
            raise ParameterError(f"{what}: expected a column name or None, got {x!r:.40}")
    absent = [c for c in [*dims, *(x for x in (value, weights) if x is not None)]
              if c not in data.columns]
    if absent:
        raise ParameterError(f"tabulate: unknown column(s) {absent}")
    method = check_choice("method", method, ("ckm", "none"))
    margins = check_choice("margins", margins, MARGINS)
    empty = check_bool("empty", empty)
    modulus = check_int("modulus", modulus, 2, 10**12)
    if threshold is not None:
        threshold = check_int("threshold", threshold, 0, 10**9)
    rules_ = check_rules(rules)
    ptable = build_ptable(3, 1.0) if ptable is None else ptable
    if not isinstance(ptable, PTable):
        raise ParameterError(f"ptable: expected a PTable, got {type(ptable).__name__}")
    if isinstance(total, (bool, np.bool_, bytes)) or not isinstance(
            total, (str, int, float, np.integer, np.floating)):
        raise ParameterError(f"total: expected the label of the margins (text or a number), got "
                             f"{total!r:.40}")
    # the options of magnitude tables are checked on every call (an unused bad value is an error)
    top_k = check_int("top_k", top_k, 1, 6)
    eps = check_epsilon(epsilon, top_k)
    share = check_number("share", share, 0, 1, lo_open=True)
    mu_c = check_number("mu_c", mu_c, 0, None)
    if isinstance(total, float) and np.isnan(total):
        raise ParameterError("total: the margin label must not be missing")
    for j, d in enumerate(dims):
        if j >= len(by_) and margins != "none" and (data[d] == total).any():
            raise ParameterError(f"total: {d!r} has a category {total!r}; give another total=")
    k = np.asarray(data[keys] if isinstance(keys, str) else keys)
    if k.shape != (len(data),) or k.dtype.kind not in "iu" or (len(k) and (
            k.min() < 0 or k.max() >= modulus)):
        raise ParameterError(f"keys: expected one integer key 0..{modulus - 1} per record")
    w = None
    if weights is not None:
        w = data[weights].to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isnan(w).any() or (w <= 0).any():
            raise ParameterError(f"weights: {weights!r} must be positive with no missing values")

    cells = build_cells(data, dims, margin_dims=[*rows_, *cols_] if margins != "none" else [],
                        empty=empty)
    out = cells.frame(total)
    out["margin"] = cells.level
    n = cells.n
    out["records"] = n
    if value is None:
        keysum = cells.add_sum(k.astype(np.float64))
    else:
        s = data[value]
        if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            raise ParameterError(f"value: {value!r} must be numeric, has dtype {s.dtype}")
        x = s.to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isinf(x).any():
            raise ParameterError(f"value: {value!r} has infinite values")
        nz = np.nan_to_num(x) != 0
        keysum = cells.add_sum(np.where(nz, k, 0).astype(np.float64))
    ck = np.mod(np.rint(keysum).astype(np.int64), modulus)
    u = ck / modulus

    if value is None:
        orig = n if w is None else cells.add_sum(w)
        if method == "ckm":
            pc = n + ptable.lookup(n, u)
            if margins == "cells":
                pc = _cells_margins(cells, pc)
        else:
            pc = n.copy()
        flags = rule_flags(rules_, n, None, None) if rules_ else {}
        out["original"] = orig
        if w is None:
            pert = pd.array(pc, dtype="Int64")
        else:
            avg = np.divide(orig, n, out=np.zeros(len(n)), where=n > 0)
            out["records_perturbed"] = pc
            pw = pc * avg
            if margins == "cells" and method == "ckm":  # margins: sums of the weighted cells
                pw = _cells_margins(cells, pw)
            pert = pd.array(pw, dtype="Float64")
        below = (pc < threshold) if threshold is not None else None
    else:
        noise = noise_ptable(2.0, 1.0) if noise is None else noise
        if not isinstance(noise, PTable):
            raise ParameterError(f"noise: expected a PTable, got {type(noise).__name__}")
        contrib = np.nan_to_num(x) * (w if w is not None else 1.0)
        orig = cells.add_sum(contrib)
        need = max(top_k, 2, rules_.get("dominance", (1, 0))[0])
        top = cells.add_top(np.abs(contrib), need)
        if rules_ and ("dominance" in rules_ or "p" in rules_) and (contrib < 0).any():
            raise MeasureError(f"rules: dominance and the p % rule need non-negative values; "
                               f"{value!r} has {int((contrib < 0).sum())} negative value(s)")
        flags = rule_flags(rules_, n, orig, top) if rules_ else {}
        out["original"] = orig
        if method == "ckm":
            pv = perturb_sums(orig, top, u, share=share, epsilon=eps, mu_c=mu_c, noise=noise,
                              sensitive=flags.get("sensitive"))
            if margins == "cells":
                pv = _cells_margins(cells, pv)
        else:
            pv = orig.copy()
        pert = pd.array(pv, dtype="Float64")
        below = (n < threshold) if threshold is not None else None
    if below is not None:
        pert[below] = pd.NA
        out["below_threshold"] = below
    out["perturbed"] = pert
    out["cell_key"] = ck
    for name, f in flags.items():
        out[name] = f
    order = ["margin", "records", "original", "records_perturbed", "perturbed", "cell_key"]
    head = [c for c in out.columns if c in dims]
    rest = [c for c in order if c in out.columns]
    tail = [c for c in out.columns if c not in head and c not in rest]
    out = out[head + rest + tail]
    out.attrs["tabulation"] = {
        "rows": rows_, "columns": cols_, "by": by_, "value": value, "weights": weights,
        "method": method, "ptable": ptable.label if value is None else None,
        "noise": noise.label if value is not None and noise is not None else None,
        "threshold": threshold, "margins": margins, "modulus": modulus,
        "rules": {k_: list(v) if isinstance(v, tuple) else v for k_, v in rules_.items()},
        "total": total}
    return out


def _cells_margins(cells: Any, perturbed: np.ndarray) -> np.ndarray:
    """Margins as sums of the perturbed inner cells."""
    inner = perturbed[: cells.n_inner]
    spread = cells.spread(inner.astype(np.float64))
    return np.rint(spread).astype(perturbed.dtype) if perturbed.dtype.kind == "i" else spread


def published(table: pd.DataFrame) -> pd.DataFrame:
    """What may be published of a tabulation: the variables, the perturbed value and the flags;
    without ``records``, ``original``, ``cell_key`` (internal columns).

    Missing values: suppressed cells stay missing.

    Example
    -------
    >>> t = pd.DataFrame({"a": ["x"], "records": [3], "original": [3], "perturbed": [4],
    ...                   "cell_key": [17]})
    >>> published(t).columns.tolist()
    ['a', 'perturbed']
    """
    if not isinstance(table, pd.DataFrame):
        raise ParameterError(f"table: expected a tabulation (a DataFrame), got "
                             f"{type(table).__name__}")
    return table.drop(columns=[c for c in INTERNAL_COLUMNS if c in table.columns])
