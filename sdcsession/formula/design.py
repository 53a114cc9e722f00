"""Design matrices of a parsed formula, built with numpy/pandas the way patsy builds them.

The columns, their order, names and values are those patsy gives for the same formula, so
coefficients do not change with the move away from patsy (which ``eval``-uated formulas):

- a factor is categorical when wrapped in ``C()`` or when its values are strings, booleans or a
  pandas categorical; otherwise numeric. Levels are the categories of a categorical dtype (unused
  ones included), ``False, True`` for booleans, else the sorted distinct values;
- records with a missing value in any factor (outcome included) are dropped;
- terms are grouped by the set of numeric factors they contain (the group without numeric factors
  first, then in order of appearance), ordered by degree inside a group, and each term's
  categorical factors are coded by patsy's rule for avoiding redundancy (``pick_contrasts_for_term``
  of patsy 1.0, BSD licence): a factor whose lower-order margin is already in the model gets
  treatment coding with the first level as reference (column ``name[T.level]``), otherwise full
  indicator coding (``name[level]``); in an interaction the left-most factor varies fastest.

Example
-------
>>> import pandas as pd
>>> from sdcsession.formula import parse_formula
>>> df = pd.DataFrame({"y": [1.0, 2, 3, 4], "g": list("abca"), "x": [1.0, 0, 2, None]})
>>> d = build_design(parse_formula("y ~ g + x"), df)
>>> list(d.X.columns), d.X.index.tolist()
(['Intercept', 'g[T.b]', 'g[T.c]', 'x'], [0, 1, 2])
"""

from __future__ import annotations

import numbers
from itertools import combinations, product
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError, ParameterError
from .nodes import Cat, Formula, Node, evaluate, render

__all__ = ["build_design", "model_matrix", "Design", "DesignSpec", "MAX_COLUMNS",
           "RECORDS_PER_COLUMN", "FREE_COLUMNS", "MAX_CELLS", "MAX_WORK", "column_limit"]

#: widest design accepted (a categorical with thousands of levels is an identifier, not a factor)
MAX_COLUMNS = 1000
#: complete records asked for per design column (beyond ``FREE_COLUMNS``): a design of a column
#: per record (``C(pid)``) fits the data exactly and costs O(n^3) to fit, so it is refused
RECORDS_PER_COLUMN = 10
#: columns always allowed, whatever the number of records (small examples, few records)
FREE_COLUMNS = 50
#: largest design matrix (records x columns) built: 100 million doubles, 800 MB
MAX_CELLS = 100_000_000
#: largest fitting work accepted, records x columns**2 (a least-squares fit costs about that many
#: multiply-adds): 10**10, e.g. 100 columns on a million records
MAX_WORK = 10**10

# a subterm: the factors it holds, each with its coding (None = numeric, True = full indicator
# coding, False = treatment coding without the first level)
_Subterm = tuple[tuple[str, bool | None], ...]


@attrs.frozen
class DesignSpec:
    """What is needed to build the same columns on other data: the formula, each right-hand
    factor's node and levels (``None`` when numeric) and the subterms in column order."""

    formula: Formula
    nodes: dict[str, Node]
    levels: dict[str, tuple[Any, ...] | None]
    subterms: tuple[_Subterm, ...]
    columns: tuple[str, ...]


@attrs.frozen
class Design:
    """Outcome ``y``, design matrix ``X`` (complete records only, original index), the ``spec``
    and ``keep``, the boolean mask of the records used (by position in the data)."""

    y: pd.Series
    X: pd.DataFrame
    spec: DesignSpec
    keep: np.ndarray


def _check_data(data: Any, spec: Any, kind: type, what: str) -> None:
    """`ParameterError` unless ``spec`` is a ``kind``; `MeasureError` unless ``data`` is a
    DataFrame with unique, flat column names."""
    if not isinstance(spec, kind):
        raise ParameterError(f"{what}: expected a {kind.__name__} (from parse_formula / "
                             f"build_design), got {type(spec).__name__}")
    if not isinstance(data, pd.DataFrame):
        raise MeasureError(f"data: expected a pandas DataFrame, got {type(data).__name__}")
    if isinstance(data.columns, pd.MultiIndex) or not data.columns.is_unique:
        raise MeasureError("data: expected unique, flat column names (a formula names one "
                           "column per variable)")


def _value(node: Node, data: pd.DataFrame) -> pd.Series:
    name = render(node)
    try:
        v = evaluate(node, data)
    except MeasureError:
        raise
    except Exception as exc:  # arithmetic on text, overflow, ...
        raise MeasureError(f"formula: cannot compute {name}: {type(exc).__name__}: "
                           f"{str(exc)[:200]}") from None
    if not isinstance(v, pd.Series):
        raise MeasureError(f"formula: {name} is a constant, not a variable (the intercept is 1)")
    return v


def _is_categorical(v: pd.Series) -> bool:
    dt = v.dtype
    return (isinstance(dt, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dt)
            or not pd.api.types.is_numeric_dtype(dt))


def _numeric(v: pd.Series, name: str) -> np.ndarray:
    try:
        return v.to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise MeasureError(f"formula: {name} is not numeric ({exc})") from None


def _levels(v: pd.Series, name: str) -> tuple[Any, ...]:
    if isinstance(v.dtype, pd.CategoricalDtype):
        return tuple(v.cat.categories)
    if pd.api.types.is_bool_dtype(v.dtype):
        return (False, True)
    try:
        found = list(pd.unique(v[v.notna()]))
    except TypeError:
        raise MeasureError(f"formula: {name} has unhashable values (lists, dicts)") from None
    if any(isinstance(x, (bool, np.bool_)) for x in found):
        found = list(dict.fromkeys([False, True] + [x for x in found
                                                    if not isinstance(x, (bool, np.bool_))]))
    try:
        return tuple(sorted(found))
    except TypeError:  # mixed types: numbers first, then by type name (patsy's SortAnythingKey)
        return tuple(sorted(found, key=lambda x: (not isinstance(x, numbers.Number),
                                                  type(x).__name__, str(x))))


def _codes(v: pd.Series, levels: tuple[Any, ...], name: str) -> np.ndarray:
    """Level index of every record; -1 for a missing value, -2 for a value not among ``levels``."""
    if isinstance(v.dtype, pd.CategoricalDtype) and tuple(v.cat.categories) == levels:
        return v.cat.codes.to_numpy(dtype=np.int64)
    codes = pd.Index(list(levels), dtype=object).get_indexer(np.asarray(v, dtype=object))
    codes = codes.astype(np.int64)
    codes[(codes == -1) & ~v.isna().to_numpy()] = -2
    codes[v.isna().to_numpy()] = -1
    return codes


def _pick_contrasts(term: tuple[str, ...], numeric: set[str],
                    used: set[frozenset[tuple[str, bool]]]) -> list[dict[str, bool]]:
    """patsy's ``pick_contrasts_for_term``: the subterms (factor -> full coding?) of a term."""
    cats = [f for f in term if f not in numeric]
    subterms = [frozenset((f, False) for f in s)
                for r in range(len(cats) + 1) for s in combinations(cats, r)]
    subterms = [s for s in subterms if s not in used]
    used.update(subterms)
    changed = True
    while changed:  # a subterm one factor longer absorbs a shorter one it contains
        changed = False
        for i, short in enumerate(subterms):
            for j in range(i + 1, len(subterms)):
                long = subterms[j]
                if len(long) - len(short) == 1 and long > short:
                    (extra, _), = long - short
                    subterms[j] = short | {(extra, True)}
                    subterms.pop(i)
                    changed = True
                    break
            if changed:
                break
    return [dict(s) for s in subterms]


def _layout(formula: Formula, numeric: set[str]) -> tuple[_Subterm, ...]:
    terms = ([()] if formula.intercept else []) + [tuple(render(f) for f in t)
                                                    for t in formula.terms]
    buckets: dict[frozenset[str], list[tuple[str, ...]]] = {}
    for t in terms:
        buckets.setdefault(frozenset(f for f in t if f in numeric), []).append(t)
    order = sorted(buckets, key=lambda b: len(b) > 0)  # stable: the no-numeric bucket first
    out: list[_Subterm] = []
    for b in order:
        used: set[frozenset[tuple[str, bool]]] = set()
        for t in sorted(buckets[b], key=len):
            for coding in _pick_contrasts(t, numeric, used):
                out.append(tuple((f, None if f in numeric else coding[f]) for f in t
                                 if f in numeric or f in coding))
    return tuple(out)


def _columns(sub: _Subterm, levels: dict[str, tuple[Any, ...] | None]) -> list[list[tuple]]:
    """Per factor of a subterm, its columns as (name piece, level index or None)."""
    per = []
    for f, full in sub:
        lv = levels[f]
        if full is None or lv is None:
            per.append([(f, None)])
        elif full:
            per.append([(f"{f}[{x}]", i) for i, x in enumerate(lv)])
        else:
            per.append([(f"{f}[T.{x}]", i) for i, x in enumerate(lv) if i > 0])
    return per


def _matrix(spec: DesignSpec, vals: dict[str, np.ndarray], index: pd.Index) -> pd.DataFrame:
    n = len(index)
    out = np.empty((n, len(spec.columns)), dtype=float)
    k = 0
    for sub in spec.subterms:
        per = _columns(sub, spec.levels)
        for combo in product(*reversed(per)):  # left-most factor varies fastest, as in patsy
            col = np.ones(n)
            for (f, _), (_, lev) in zip(sub, combo[::-1]):
                col = col * (vals[f] if lev is None else (vals[f] == lev))
            out[:, k] = col
            k += 1
    return pd.DataFrame(out, index=index, columns=list(spec.columns))


def _check_limits(records_per_column: Any, max_columns: Any, max_cells: Any,
                  max_work: Any) -> None:
    """`ParameterError` naming the size-limit argument that is not a positive number (an
    integer for the counts; ``max_columns`` may be None)."""
    def whole(v: Any) -> bool:
        return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) \
            and v >= 1

    rpc = records_per_column
    try:
        ok = not isinstance(rpc, (bool, np.bool_)) and isinstance(
            rpc, (int, float, np.integer, np.floating)) and 0 < float(rpc) < float("inf")
    except OverflowError:
        ok = False
    if not ok:
        raise ParameterError(f"records_per_column: expected a finite number > 0, got {rpc!r:.40}")
    if max_columns is not None and not whole(max_columns):
        raise ParameterError(f"max_columns: expected an integer >= 1 or None, got "
                             f"{max_columns!r:.40}")
    for name, v in (("max_cells", max_cells), ("max_work", max_work)):
        if not whole(v):
            raise ParameterError(f"{name}: expected an integer >= 1, got {v!r:.40}")


def column_limit(records: int, records_per_column: float = RECORDS_PER_COLUMN,
                 max_columns: int | None = MAX_COLUMNS, max_cells: int = MAX_CELLS,
                 max_work: int = MAX_WORK) -> int:
    """The most design columns `build_design` accepts for ``records`` complete records: the
    least of ``max_columns``, ``max(FREE_COLUMNS, floor(records / records_per_column))``,
    ``floor(max_cells / records)`` and ``floor(sqrt(max_work / records))``.

    >>> column_limit(5000), column_limit(100), column_limit(10**5), column_limit(10**6)
    (500, 50, 316, 100)
    """
    import math

    _check_limits(records_per_column, max_columns, max_cells, max_work)
    n = max(1, int(records))
    limit = min(max(FREE_COLUMNS, int(n // records_per_column)), max_cells // n,
                math.isqrt(max_work // n))
    return limit if max_columns is None else min(limit, max_columns)


def build_design(formula: Formula, data: pd.DataFrame, *,
                 records_per_column: float = RECORDS_PER_COLUMN,
                 max_columns: int | None = MAX_COLUMNS, max_cells: int = MAX_CELLS,
                 max_work: int = MAX_WORK) -> Design:
    """Outcome and design matrix of ``formula`` on ``data`` (patsy's columns, see module doc).

    Parameters
    ----------
    formula : a `Formula` from ``parse_formula``.
    data : the records; every column the formula names must be in it.
    records_per_column, max_columns, max_cells, max_work : the size limit of the design (see
        `column_limit`): checked from the levels before any column is built.

    Returns
    -------
    Design
        ``y`` (float Series named like the outcome), ``X`` (float DataFrame), both on the complete
        records, and the ``spec`` to build the same columns on other data (``model_matrix``).

    Raises
    ------
    MeasureError
        A column missing from the data, arithmetic that fails on it (text in ``I()``), a
        non-numeric outcome, no complete record, or a design over the size limit: more than
        ``column_limit(records)`` columns (at most ``MAX_COLUMNS``, and one column per
        ``RECORDS_PER_COLUMN`` complete records beyond ``FREE_COLUMNS``) or more than
        ``MAX_CELLS`` records x columns or ``MAX_WORK`` records x columns**2. The limit is
        checked before the design is built.

    Example
    -------
    >>> import pandas as pd
    >>> from sdcsession.formula import parse_formula
    >>> df = pd.DataFrame({"y": [1.0, 2, 3], "g": ["a", "b", "a"], "x": [1, 2, 3]})
    >>> build_design(parse_formula("y ~ x:g"), df).X.columns.tolist()
    ['Intercept', 'x:g[a]', 'x:g[b]']
    """
    _check_data(data, formula, Formula, "formula")
    missing = [c for c in formula.columns if c not in data.columns]
    if missing:
        raise MeasureError(f"formula: column(s) {missing} not in the data "
                           f"(columns: {list(map(str, data.columns))[:30]})")
    yname = formula.outcome_name
    yv = _value(formula.outcome, data)
    if isinstance(formula.outcome, Cat) or (
            _is_categorical(yv) and not pd.api.types.is_bool_dtype(yv.dtype)):
        raise MeasureError(f"formula: the outcome {yname} must be numeric (or boolean), "
                           f"got {yv.dtype}")
    y = _numeric(yv, yname)
    na = np.isnan(y)
    nodes: dict[str, Node] = {}
    for t in formula.terms:
        for f in t:
            nodes.setdefault(render(f), f)
    values = {name: _value(node, data) for name, node in nodes.items()}
    levels: dict[str, tuple[Any, ...] | None] = {}
    vals: dict[str, np.ndarray] = {}
    for name, v in values.items():
        if isinstance(nodes[name], Cat) or _is_categorical(v):
            levels[name] = _levels(v, name)
            vals[name] = _codes(v, levels[name], name)
            na |= vals[name] < 0
        else:
            levels[name] = None
            vals[name] = _numeric(v, name)
            na |= np.isnan(vals[name])
    keep = ~na
    for name, v in [(yname, y)] + [(f, vals[f]) for f, lv in levels.items() if lv is None]:
        inf = np.isinf(v[keep])
        if inf.any():
            raise MeasureError(f"formula: {name} is infinite in {int(inf.sum())} records "
                               "(e.g. the log of 0); drop or recode them first")
    if not keep.any():
        raise MeasureError(f"formula: no record has all of {formula.columns} non-missing")
    numeric = {f for f, lv in levels.items() if lv is None}
    subterms = _layout(formula, numeric)
    n_cols = sum(int(np.prod([len(c) for c in _columns(sub, levels)], dtype=object))
                 for sub in subterms)  # counted before a name or a column is made
    if not n_cols:
        raise MeasureError(f"formula: {formula.text!r} has no terms (not even the intercept)")
    n_keep = int(keep.sum())
    limit = column_limit(n_keep, records_per_column, max_columns, max_cells, max_work)
    if n_cols > limit:
        wide = max((f for f, lv in levels.items() if lv), key=lambda f: len(levels[f] or ()),
                   default="")
        why = (f"{wide} has {len(levels.get(wide) or ())} levels" if wide else
               "numeric factors only")
        raise MeasureError(
            f"formula: the design would have {n_cols} columns for {n_keep} complete records "
            f"({why}); at most {limit} columns are allowed for {n_keep} records (the limits: "
            f"{max_columns if max_columns is not None else 'any number of'} columns, one column "
            f"per {records_per_column:g} records beyond {FREE_COLUMNS}, {max_cells:,} records x "
            f"columns, {max_work:.0e} records x columns**2); a factor with a level per record "
            "is an identifier, not an explanatory variable")
    names = tuple(":".join(p for p, _ in combo[::-1]) or "Intercept"
                  for sub in subterms for combo in product(*reversed(_columns(sub, levels))))
    spec = DesignSpec(formula, nodes, levels, subterms, names)
    index = data.index[keep]
    X = _matrix(spec, {k: v[keep] for k, v in vals.items()}, index)
    return Design(pd.Series(y[keep], index=index, name=yname), X, spec, keep)


def model_matrix(spec: DesignSpec, data: pd.DataFrame) -> pd.DataFrame:
    """The design columns of ``spec`` (from ``build_design``) on other records, e.g. to predict.

    Categorical factors keep the levels they had when the spec was built.

    Raises
    ------
    MeasureError
        A missing value, a category the spec does not know, or a factor numeric in one file and
        categorical in the other.

    Example
    -------
    >>> import pandas as pd
    >>> from sdcsession.formula import parse_formula
    >>> d = build_design(parse_formula("y ~ g"), pd.DataFrame({"y": [1.0, 2], "g": ["a", "b"]}))
    >>> model_matrix(d.spec, pd.DataFrame({"g": ["b"]})).to_numpy().tolist()
    [[1.0, 1.0]]
    """
    _check_data(data, spec, DesignSpec, "spec")
    vals: dict[str, np.ndarray] = {}
    for name, node in spec.nodes.items():
        v = _value(node, data)
        lv = spec.levels[name]
        if lv is None:
            if _is_categorical(v):
                raise MeasureError(f"formula: {name} is not numeric in these data")
            vals[name] = _numeric(v, name)
            bad = np.isnan(vals[name])
        else:
            vals[name] = _codes(v, lv, name)
            if (vals[name] == -2).any():
                raise MeasureError(f"formula: {name} has categories the model does not know")
            bad = vals[name] < 0
        if bad.any():
            raise MeasureError(f"formula: {name} has missing values")
    return _matrix(spec, vals, data.index)
