"""Simple treatments: `Recode` (map categories), `RemoveColumns` and `NewIds` (random ids that
keep the grouping of an id column).

Example
-------
>>> import numpy as np, pandas as pd
>>> from sdcsession.roles import Roles
>>> from sdcsession.methods.basic import Recode
>>> df = pd.DataFrame({"sex": ["m", "f", "m"]})
>>> Recode("sex", {"m": "male"}).apply(df, Roles(keys=("sex",)), np.random.default_rng(0)).data["sex"].tolist()
['male', 'f', 'male']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError, TreatmentError
from ..roles import Roles
from .base import Result, Treatment, check_label, check_size, param_names, require_columns

__all__ = ["Recode", "RemoveColumns", "NewIds", "generate_strata", "recode_values",
           "observed_ids", "new_id_mapping", "replace_ids"]


def recode_values(s: pd.Series, mapping: dict[Any, Any]) -> pd.Series:
    """Map values of ``s`` through ``mapping``; values not in the mapping are kept.

    Categorical series stay categorical (categories renamed/merged, order kept); missing values
    stay missing. Mapping a value to ``None`` makes it missing.
    """
    if isinstance(s.dtype, pd.CategoricalDtype):
        cats = list(s.cat.categories)
        new_cats: list[Any] = []
        for c in cats:
            v = mapping.get(c, c)
            if v is not None and not (isinstance(v, float) and np.isnan(v)) and v not in new_cats:
                new_cats.append(v)
        codes = s.cat.codes.to_numpy()
        lookup = np.array(
            [new_cats.index(mapping.get(c, c)) if mapping.get(c, c) in new_cats else -1 for c in cats]
            + [-1], dtype=np.int64)
        new_codes = lookup[codes]  # code -1 indexes the appended -1
        return pd.Series(
            pd.Categorical.from_codes(new_codes, categories=new_cats, ordered=s.cat.ordered),
            index=s.index, name=s.name)
    out = s.map(lambda v: mapping.get(v, v) if not pd.isna(v) else v)
    return out


def _check_mapping(value: Any) -> dict[Any, Any]:
    """``{old: new}`` as a dict of category labels, or `ParameterError` (checked before
    copying: no conversion of text, lists of pairs or iterators)."""
    if not isinstance(value, Mapping):
        raise ParameterError(
            f"mapping: expected a {{old: new}} mapping (a dict), got {type(value).__name__} "
            f"{value!r:.60}")
    check_size("mapping", value)
    if not value:
        raise ParameterError("mapping: expected a non-empty {old: new} mapping")
    out = {}
    for old, new in value.items():
        check_label(f"mapping key {old!r:.40}", old)
        check_label(f"mapping[{old!r:.40}]", new)
        out[old] = new
    return out


@attrs.frozen
class Recode(Treatment):
    """Map categories of one column: ``{old: new, ...}`` (several olds to one new merges them).

    Values absent from the mapping are kept; mapping to ``None`` sets them missing.
    """

    type = "recode"

    column: str = attrs.field()
    mapping: dict[Any, Any] = attrs.field(converter=lambda v: _check_mapping(v))

    @column.validator
    def _c(self, _a: Any, v: Any) -> None:
        if not isinstance(v, str) or not v:
            raise ParameterError(f"column: expected a column name, got {v!r}")

    def __hash__(self) -> int:
        return hash((self.column, tuple(sorted(map(repr, self.mapping.items())))))

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        require_columns(data, [self.column], "recode")

    def resolved_mapping(self, present: list[Any]) -> tuple[dict[Any, Any], list[Any]]:
        """The mapping with its keys matched to the ``present`` values of the column (a recipe
        read from JSON has string keys, matched to non-string values by their text), and its
        keys that are not present. Raises `TreatmentError` when no key is a present value."""
        by_text = {str(p): p for p in present}
        mapping = {}
        for k, v in self.mapping.items():
            mapping[k if k in present or not isinstance(k, str) else by_text.get(k, k)] = v
        unknown = [k for k in mapping if k not in present]
        if len(unknown) == len(mapping):
            raise TreatmentError(
                f"recode: none of {list(mapping)} is a value of column {self.column!r}")
        return mapping, unknown

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        old = data[self.column]
        if isinstance(old.dtype, pd.CategoricalDtype):
            present = list(old.cat.categories)
        else:
            present = old.dropna().unique().tolist()
        mapping, unknown = self.resolved_mapping(present)
        new = recode_values(old, mapping)
        out = data.assign(**{self.column: new})
        changed = int((old.astype(object).fillna("\0na") != new.astype(object).fillna("\0na")).sum())
        notes = {"changed": {self.column: changed}}
        if unknown:
            notes["not_present"] = [str(u) for u in unknown]
        return Result(out, notes=notes)


@attrs.frozen
class RemoveColumns(Treatment):
    """Remove columns from the released file (and from every role)."""

    type = "remove_columns"

    columns: tuple[str, ...] = attrs.field(
        converter=lambda v: param_names(v, "columns", required=True))

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        require_columns(data, self.columns, "remove")
        left = roles.without(self.columns)
        if not left.keys:
            raise TreatmentError(f"remove: removing {list(self.columns)} would leave no key variable")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        return Result(data.drop(columns=list(self.columns)), roles=roles.without(self.columns),
                      notes={"removed": list(self.columns)})


# ------------------------------------------------------------------------------ new ids
def observed_ids(values: Any) -> np.ndarray:
    """The distinct non-missing values of an id column in canonical order (an object array):
    sorted by value, or by (type name, text) when the values cannot be compared (mixed types).
    The order depends only on the set of values, so every engine and partitioning gets the same.

    Missing values: left out.

    >>> observed_ids(pd.Series([3, None, 1, 3])).tolist()
    [1.0, 3.0]
    """
    s = pd.Series(values)
    if isinstance(s.dtype, pd.CategoricalDtype):
        s = s.astype(object)
    u = pd.unique(s.dropna())
    vals = list(np.asarray(u, dtype=object))
    try:
        vals.sort()
    except TypeError:
        vals.sort(key=lambda v: (type(v).__name__, str(v)))
    out = np.empty(len(vals), dtype=object)
    out[:] = vals
    return out


def _as_number(v: Any) -> float | None:
    if isinstance(v, (bool, np.bool_)):
        return None
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v)
    return None


def new_id_mapping(ids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """New ids for the distinct ``ids`` (canonical order, `observed_ids`): a random permutation
    of 1..G (G = number of distinct ids), drawn with ``rng.permutation(G)``, then corrected so
    that no new id equals the old id it replaces (when G >= 2): the groups whose new id equals
    their old (numeric) id take the new ids of each other in a cycle, or, when only one group
    does, it exchanges its new id with the next group. Either way the result stays a permutation
    of 1..G and no group keeps its id.

    Reference: sdcMicro's ``createNewID`` (Templ, Kowarik and Meindl 2015, J. Stat. Softw. 67(4)),
    sdcApp's "Create new IDs".

    Missing values: none here (missing ids are left out by `observed_ids` and stay missing).

    >>> new_id_mapping(np.array([1, 2, 3], dtype=object), np.random.default_rng(0)).tolist()
    [3, 1, 2]
    """
    g = len(ids)
    new = rng.permutation(g).astype(np.int64) + 1
    if g < 2:
        return new
    old = np.array([_as_number(v) if _as_number(v) is not None else np.nan for v in ids])
    fixed = np.flatnonzero(old == new)
    if len(fixed) >= 2:
        new[fixed] = new[np.roll(fixed, -1)]
    elif len(fixed) == 1:
        f = int(fixed[0])
        o = (f + 1) % g
        new[f], new[o] = new[o], new[f]
    return new


def replace_ids(s: pd.Series, ids: np.ndarray, new: np.ndarray, nullable: bool) -> pd.Series:
    """``s`` with every id ``ids[i]`` replaced by ``new[i]`` (int64; pandas' nullable ``Int64``
    when ``nullable``, the missing ids staying missing)."""
    v = s.astype(object) if isinstance(s.dtype, pd.CategoricalDtype) else s
    codes = pd.Index(ids, dtype=object).get_indexer(v.astype(object))
    if nullable:
        vals = new[np.maximum(codes, 0)] if len(new) else np.zeros(len(codes), np.int64)
        arr = pd.array(vals, dtype="Int64")
        arr[codes < 0] = pd.NA
        return pd.Series(arr, index=s.index, name=s.name)
    if (codes < 0).any():
        raise TreatmentError(f"new_ids: column {s.name!r} has a value that is not a known id")
    return pd.Series(new[codes] if len(new) else np.zeros(0, np.int64), index=s.index,
                     name=s.name, dtype=np.int64)


@attrs.frozen
class NewIds(Treatment):
    """Replace an id column (the household id, or a record id with no role) by random ids
    1..G that keep its grouping: records that shared an id share a new one, records that did
    not, do not; no group keeps its old id (when G >= 2). The mapping is drawn from the step's
    generator (`new_id_mapping`), so a recipe replays it.

    Algorithm: the G distinct ids in canonical order (`observed_ids`), a permutation of 1..G,
    every record's id mapped through it. Reference: sdcMicro's ``createNewID``.

    Missing values: a missing id stays missing (the column becomes pandas' nullable ``Int64``).

    The column may be the household id or a column with no role; key, numeric, weight, strata,
    sensitive, PRAM and linked variables are refused (`TreatmentError`), and so are direct
    identifiers (they are never released: remove them).

    Example
    -------
    >>> df = pd.DataFrame({"hid": [7, 7, 9, 4], "sex": ["m", "f", "m", "f"]})
    >>> out = NewIds("hid").apply(df, Roles(keys=("sex",), household="hid"),
    ...                           np.random.default_rng(1)).data["hid"].tolist()
    >>> out[0] == out[1] and len(set(out)) == 3 and sorted(set(out)) == [1, 2, 3]
    True
    """

    type = "new_ids"

    column: str = attrs.field()

    @column.validator
    def _c(self, _a: Any, v: Any) -> None:
        if not isinstance(v, str) or not v:
            raise ParameterError(f"column: expected a column name, got {v!r:.60}")

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        require_columns(data, [self.column], "new_ids")
        if self.column == roles.household:
            return
        role = roles.role_of(self.column)
        if role:
            raise TreatmentError(
                f"new_ids: column {self.column!r} has the role(s) {', '.join(role)}; new ids "
                "replace the household id or an id column with no role"
                + (" (a direct identifier is never released: remove it)"
                   if "identifiers" in role else ""))

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        s = data[self.column]
        ids = observed_ids(s)
        new = new_id_mapping(ids, rng)
        missing = int(s.isna().sum())
        out = replace_ids(s, ids, new, nullable=missing > 0)
        return Result(data.assign(**{self.column: out}),
                      notes={"column": self.column, "groups": len(ids), "missing": missing})


def _strata_text(s: pd.Series) -> pd.Series:
    """Values as text the way R pastes them: whole floats without ``.0``, missing as ``NA``."""
    def one(v: Any) -> str:
        if isinstance(v, (float, np.floating)) and float(v).is_integer():
            return str(int(v))
        return str(v)
    text = s.astype(object).map(one, na_action="ignore")
    return text.where(s.notna(), "NA").astype(object)


def generate_strata(data: pd.DataFrame, columns: Sequence[str] | str, name: str, *,
                    sep: str = "-") -> pd.DataFrame:
    """Add a stratum column combining ``columns`` (sdcMicro ``generateStrata``).

    The stratum of a record is its values of ``columns`` as text joined by ``sep``:
    ``"2-4-1"`` for the values 2, 4, 1 (whole floats are written without ``.0``, as R pastes
    them). Missing values: written ``NA`` (``"NA-4"``), so a record with a missing value gets a
    stratum of its own, as in sdcMicro. Use the new column as the session's ``strata`` role.

    Example
    -------
    >>> df = pd.DataFrame({"a": [2, 3, None], "b": ["4", "2", "1"]})
    >>> generate_strata(df, ["a", "b"], "ab")["ab"].tolist()
    ['2-4', '3-2', 'NA-1']
    """
    if not isinstance(data, pd.DataFrame):
        raise ParameterError(f"generate_strata: data must be a pandas DataFrame, got "
                             f"{type(data).__name__}")
    cols = param_names(columns, "columns", required=True)
    require_columns(data, list(cols), "generate_strata")
    if not isinstance(name, str) or not name:
        raise ParameterError(f"generate_strata: name must be a non-empty column name, got "
                             f"{name!r:.40}")
    if name in data.columns:
        raise ParameterError(f"generate_strata: the column {name!r} already exists")
    if not isinstance(sep, str):
        raise ParameterError(f"generate_strata: sep must be text, got {sep!r:.40}")
    parts = [_strata_text(data[c]) for c in cols]
    out = parts[0]
    for p in parts[1:]:
        out = out + sep + p
    return data.assign(**{name: out.astype(object)})
