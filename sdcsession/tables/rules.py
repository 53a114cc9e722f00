"""Primary sensitivity rules of table cells: minimum frequency, (n, k)-dominance and the p % rule,
and the hand-off of a table and its flags to secondary suppression.

For a cell with ``N`` contributing records, total ``X`` and contributions ``x1 >= x2 >= ...``:

- **minimum frequency** ``m``: sensitive when ``0 < N < m``;
- **(n, k)-dominance**: sensitive when ``x1 + ... + xn > k/100 · X`` (the n largest contributors
  make up more than k % of the cell);
- **p % rule**: sensitive when ``X − x1 − x2 < p/100 · x1`` (the second largest contributor can
  estimate the largest to within p %).

Empty cells (``N = 0``) are never sensitive. Dominance and p % need non-negative contributions.

References: Hundepool, A. et al. (2012) Statistical Disclosure Control, Wiley, §4.2; Willenborg,
L. & de Waal, T. (2001) Elements of Statistical Disclosure Control, Springer.

Secondary suppression is left to τ-ARGUS (through ``pytauargus``) or ``sdcTable``: `handoff`
gives the table in their input shape: one row per cell with the variables (margins labelled
with the total code), the frequency, the value, and the primary flag. For ``sdcTable``, pass
it as ``makeProblem(data, dimList, freqVarInd, numVarInd)`` and mark the flagged cells with
``change_cellStatus(..., rule = "u")``; for τ-ARGUS write the cells as tabular input (``.tab``
with its ``.rda``) and the flagged ones as an apriori file (``.hst``: codes and ``u``).

Missing values: contributions must not be missing (`MeasureError`).

Example
-------
>>> import numpy as np
>>> top = np.array([[90.0, 5.0], [40.0, 30.0]])
>>> dominance(np.array([100.0, 100.0]), top, n=1, k=85).tolist()
[True, False]
>>> p_percent(np.array([100.0, 100.0]), top, p=10).tolist()
[True, False]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError

__all__ = ["frequency_rule", "dominance", "p_percent", "rule_flags", "handoff"]


def _numbers(values: Any, what: str, ndim: int) -> np.ndarray:
    """``values`` as a float array of ``ndim`` dimensions; `ParameterError` naming ``what``."""
    if isinstance(values, (str, bytes, dict)) or values is None:
        raise ParameterError(f"{what}: expected an array of numbers, got "
                             f"{type(values).__name__}")
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(f"{what}: expected an array of numbers") from None
    if arr.ndim != ndim:
        raise ParameterError(f"{what}: expected {ndim} dimension(s), got {arr.ndim}")
    return arr


def _cells(total: Any, top: Any, columns: int) -> tuple[np.ndarray, np.ndarray]:
    """Checked ``total`` (one number per cell) and ``top`` (cells × at least ``columns``)."""
    t = _numbers(total, "total", 1)
    x = _numbers(top, "top", 2)
    if x.shape[0] != len(t) or x.shape[1] < columns:
        raise ParameterError(f"top: expected {len(t)} rows (one per cell of total) and at least "
                             f"{columns} column(s), got the shape {x.shape}")
    return t, x


def frequency_rule(n: np.ndarray, minimum: int) -> np.ndarray:
    """``0 < N < minimum`` per cell.

    Missing values: none (counts).

    >>> frequency_rule(np.array([0, 1, 2, 3]), 3).tolist()
    [False, True, True, False]
    """
    from ..methods.params import check_int

    minimum = check_int("minimum", minimum, 0, 10**12)
    counts = _numbers(n, "n", 1)
    return (counts > 0) & (counts < minimum)


def dominance(total: np.ndarray, top: np.ndarray, *, n: int, k: float) -> np.ndarray:
    """``x1 + ... + xn > k/100 · X`` per cell (``top`` holds each cell's largest contributions,
    descending, at least ``n`` columns).

    Missing values: none.

    >>> dominance(np.array([10.0]), np.array([[6.0, 3.0]]), n=2, k=85).tolist()
    [True]
    """
    from ..methods.params import check_int, check_number

    n = check_int("n", n, 1)
    k = check_number("k", k, 0, 100, lo_open=True)
    total, top = _cells(total, top, n)
    share = top[:, :n].sum(axis=1)
    return (total > 0) & (share > k / 100.0 * total)


def p_percent(total: np.ndarray, top: np.ndarray, *, p: float) -> np.ndarray:
    """``X − x1 − x2 < p/100 · x1`` per cell (cells with a contribution).

    Missing values: none.

    >>> p_percent(np.array([100.0]), np.array([[80.0, 15.0]]), p=10).tolist()
    [True]
    """
    from ..methods.params import check_number

    p = check_number("p", p, 0, 100, lo_open=True)
    total, top = _cells(total, top, 1)
    x1 = top[:, 0]
    x2 = top[:, 1] if top.shape[1] > 1 else np.zeros_like(x1)
    return (x1 > 0) & (total - x1 - x2 < p / 100.0 * x1)


def check_rules(rules: Any) -> dict[str, Any]:
    """Validate ``rules``: ``{"frequency": m, "dominance": (n, k), "p": p}`` (any subset).

    Raises `ParameterError` for an unknown rule or impossible parameters (m < 1, n < 1,
    k not in (0, 100], p not in (0, 100]).

    Missing values: not applicable.

    >>> check_rules({"dominance": (2, 85)})
    {'dominance': (2, 85.0)}
    """
    from ..methods.params import check_int, check_number

    if rules is None:
        return {}
    if not isinstance(rules, dict):
        raise ParameterError(f"rules: expected a mapping such as {{'frequency': 3, 'dominance': "
                             f"(1, 85), 'p': 10}}, got {type(rules).__name__}")
    unknown = set(rules) - {"frequency", "dominance", "p"}
    if unknown:
        raise ParameterError(f"rules: unknown rule(s) {sorted(map(str, unknown))}; expected "
                             "'frequency', 'dominance' or 'p'")
    out: dict[str, Any] = {}
    if "frequency" in rules:
        out["frequency"] = check_int("rules['frequency']", rules["frequency"], 1, 10**9)
    if "dominance" in rules:
        d = rules["dominance"]
        if not isinstance(d, (tuple, list)) or len(d) != 2:
            raise ParameterError(f"rules['dominance']: expected (n, k), got {d!r:.60}")
        out["dominance"] = (check_int("rules['dominance'] n", d[0], 1, 1000),
                            check_number("rules['dominance'] k", d[1], 0, 100, lo_open=True))
    if "p" in rules:
        out["p"] = check_number("rules['p']", rules["p"], 0, 100, lo_open=True)
    return out


def rule_flags(rules: dict[str, Any], n: np.ndarray, total: np.ndarray | None,
               top: np.ndarray | None) -> dict[str, np.ndarray]:
    """One boolean array per rule (``frequency_rule``, ``dominance``, ``p_rule``) and their union
    ``sensitive``; ``rules`` as `check_rules` returns them.

    Missing values: none.
    """
    flags: dict[str, np.ndarray] = {}
    if "frequency" in rules:
        flags["frequency_rule"] = frequency_rule(n, rules["frequency"])
    if "dominance" in rules or "p" in rules:
        if total is None or top is None:
            raise ParameterError("rules: dominance and the p % rule need a value= variable "
                                 "(a magnitude table)")
        if (top < 0).any():
            raise MeasureError("rules: dominance and the p % rule need non-negative "
                               "contributions")
    if "dominance" in rules:
        nn, k = rules["dominance"]
        flags["dominance"] = dominance(total, top, n=nn, k=k)  # type: ignore[arg-type]
    if "p" in rules:
        flags["p_rule"] = p_percent(total, top, p=rules["p"])  # type: ignore[arg-type]
    if flags:
        flags["sensitive"] = np.logical_or.reduce(list(flags.values()))
    return flags


def handoff(table: pd.DataFrame, dims: list[str], *, total: Any = "Total") -> pd.DataFrame:
    """The table in the input shape of τ-ARGUS / ``sdcTable``: the variables, ``freq`` (records),
    ``value`` (the original cell value), and ``status`` ``"u"`` (primary unsafe: a rule flagged
    it) or ``"s"``. Internal (it holds original values): for the suppression software only.

    Missing values: kept as they are in the table.

    Example
    -------
    >>> t = pd.DataFrame({"a": ["x", "Total"], "records": [2, 5], "original": [2, 5],
    ...                   "sensitive": [True, False]})
    >>> handoff(t, ["a"])["status"].tolist()
    ['u', 's']
    """
    from ..methods.params import param_names

    if not isinstance(table, pd.DataFrame):
        raise ParameterError(f"table: expected a tabulation (a DataFrame), got "
                             f"{type(table).__name__}")
    dims = list(param_names(dims, "dims", required=True))
    missing = [c for c in [*dims, "records", "original"] if c not in table.columns]
    if missing:
        raise ParameterError(f"handoff: the table has no column(s) {missing}")
    out = table[list(dims)].copy()
    out["freq"] = table["records"].to_numpy()
    out["value"] = table["original"].to_numpy()
    flag = table["sensitive"].to_numpy(dtype=bool) if "sensitive" in table.columns \
        else np.zeros(len(table), dtype=bool)
    out["status"] = np.where(flag, "u", "s")
    return out
