"""Variable roles: which columns are key variables, numeric, weight, household, strata, sensitive,
PRAM, direct identifiers, and which variables are linked to a key variable.

A `Roles` value is frozen; `Roles.validate` checks it against a DataFrame and raises one
`RoleError` that lists every problem found.

Example
-------
>>> import pandas as pd
>>> from sdcsession.roles import Roles
>>> df = pd.DataFrame({"sex": ["m", "f"], "age": [30, 40], "w": [1.0, 2.0]})
>>> Roles(keys=("sex",), numeric=("age",), weight="w").validate(df).keys
('sex',)
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import attrs
import numpy as np
import pandas as pd

from .errors import RoleError, SdcWarning, user_stacklevel

__all__ = ["Roles", "as_names", "value_counts", "value_problems"]

#: the most column names one role or parameter may list (a guard against endless iterators)
MAX_NAMES = 100_000
#: a key variable with more distinct values than this (and than 5 % of the records) draws a warning
MANY_CATEGORIES = 200


def as_names(value: str | Iterable[str] | None, what: str = "columns") -> tuple[str, ...]:
    """Normalise a column name or an iterable of names to a tuple of names.

    >>> as_names("a"), as_names(["a", "b"]), as_names(None)
    (('a',), ('a', 'b'), ())
    """
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (bytes, bytearray)):
        raise RoleError(f"{what}: expected a column name (str), got bytes {value!r:.60}")
    if isinstance(value, Mapping):
        raise RoleError(f"{what}: expected a column name or a list of names, got a mapping "
                        f"{value!r:.60}")
    if isinstance(value, (set, frozenset)):  # no order: results would vary between runs
        raise RoleError(f"{what}: expected a column name or a list of names (a set has no "
                        f"order), got {value!r:.60}")
    try:
        items = iter(value)
    except TypeError:
        raise RoleError(f"{what}: expected a column name or a list of names, got {value!r:.60}") \
            from None
    names: list[str] = []
    for n in items:  # element by element: range(10**9) fails at its first element
        if not isinstance(n, str):
            raise RoleError(f"{what}: expected column names (str), got {n!r:.60}")
        names.append(n)
        if len(names) > MAX_NAMES:
            raise RoleError(f"{what}: more than {MAX_NAMES} column names")
    return tuple(names)


def _opt_name(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise RoleError(f"expected one column name (str), got {value!r}")


def _tuple(value: Any) -> tuple[str, ...]:
    return as_names(value)


def _linked(value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``{key: [linked, ...]}`` (or pairs) as a sorted tuple of (key, names) pairs (hashable)."""
    if value is None:
        return ()
    if isinstance(value, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in value):
        items = list(value)
    elif isinstance(value, dict):
        items = list(value.items())
    else:
        raise RoleError(f"linked: expected a mapping {{key: [linked variables]}}, got {value!r}")
    out = []
    for k, v in items:
        if not isinstance(k, str):
            raise RoleError(f"linked: expected key variable names (str) as keys, got {k!r}")
        out.append((k, as_names(v, f"linked[{k!r}]")))
    return tuple(sorted(out))


def _unhashable_cells(df: pd.DataFrame, roles: Roles, missing: set[str]) -> list[str]:
    """Problems for categorical-role columns holding lists, dicts, sets or other values that
    cannot be categories (they cannot be counted, compared or released as a category)."""
    out = []
    names = (*roles.keys, roles.household, *roles.strata, *roles.sensitive, *roles.pram,
             *roles.linked_columns())
    for c in dict.fromkeys(n for n in names if n is not None and n not in missing):
        s = df[c]
        if s.dtype != object:
            continue
        try:
            pd.unique(s)
        except TypeError:
            bad = s[~s.map(_is_label)]
            out.append(
                f"column {c!r} ({', '.join(roles.role_of(c))}) holds {len(bad)} value(s) that "
                f"cannot be categories ({type(bad.iloc[0]).__name__} {bad.iloc[0]!r:.40} in "
                f"record {bad.index[0]!r}); every value must be text, a number or missing")
    return out


def value_counts(df: pd.DataFrame, roles: Roles) -> dict[str, int]:
    """Counts of the values the roles refuse in ``df`` (a whole frame or one partition; counts
    of partitions add up): missing, zero or negative and infinite weights, missing household
    ids. A weight column that is absent or not numeric is skipped (its dtype is reported by
    `Roles.validate`).

    Missing values: counted (they are what is checked).

    >>> value_counts(pd.DataFrame({"w": [1.0, -2.0, None], "h": [1, None, 2]}),
    ...              Roles(keys=(), weight="w", household="h"))
    {'weight_missing': 1, 'weight_nonpositive': 1, 'weight_infinite': 0, 'household_missing': 1}
    """
    out: dict[str, int] = {}
    w = roles.weight
    if w is not None and w in df.columns and isinstance(df[w], pd.Series) and \
            pd.api.types.is_numeric_dtype(df[w]) and not pd.api.types.is_bool_dtype(df[w]):
        wv = df[w].to_numpy(dtype="float64", na_value=np.nan)
        nan = np.isnan(wv)
        out["weight_missing"] = int(nan.sum())
        out["weight_nonpositive"] = int((wv[~nan] <= 0).sum())
        out["weight_infinite"] = int(np.isinf(wv).sum())
    h = roles.household
    if h is not None and h in df.columns and isinstance(df[h], pd.Series):
        out["household_missing"] = int(df[h].isna().sum())
    return out


def value_problems(roles: Roles, counts: dict[str, int]) -> list[str]:
    """The problems (messages of a `RoleError`) of the counts of `value_counts`.

    >>> value_problems(Roles(keys=(), household="h"), {"household_missing": 2})
    ["household: column 'h' has 2 missing value(s); every record needs its household id"]
    """
    out = []
    if counts.get("weight_missing"):
        out.append(f"weight: column {roles.weight!r} has {counts['weight_missing']} missing "
                   "value(s)")
    if counts.get("weight_nonpositive"):
        out.append(f"weight: column {roles.weight!r} has {counts['weight_nonpositive']} zero or "
                   "negative value(s); sampling weights must be > 0")
    if counts.get("weight_infinite"):
        out.append(f"weight: column {roles.weight!r} has infinite values")
    if counts.get("household_missing"):
        out.append(f"household: column {roles.household!r} has {counts['household_missing']} "
                   "missing value(s); every record needs its household id")
    return out


def _is_label(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _suggest(name: str, columns: list[str]) -> str:
    close = difflib.get_close_matches(name, columns, n=3, cutoff=0.6)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""


@attrs.frozen
class Roles:
    """The roles of the variables of a microdata file.

    Attributes
    ----------
    keys : quasi-identifiers (categorical key variables) used for frequency-based risk.
    numeric : continuous variables (numeric risk, noise, microaggregation, continuous utility).
    weight : sampling weight column (positive, no missing values).
    household : household identifier (household risk, household-aware treatments).
    strata : columns defining strata in which treatments are applied separately.
    sensitive : sensitive variables (l-diversity).
    pram : categorical variables intended for PRAM (not key variables for risk).
    identifiers : direct identifiers (names, phone numbers, ids): never part of a release and no
        other role; treatments refuse them.
    linked : ``{key: [variables]}``: variables that reveal their key (sdcMicro's ghost variables,
        e.g. ``{"age5": ["age", "birth_year"]}``); wherever a treatment changes or suppresses a
        key value, the same records' linked variables are blanked in the same step.
    """

    keys: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    numeric: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    weight: str | None = attrs.field(default=None, converter=_opt_name)
    household: str | None = attrs.field(default=None, converter=_opt_name)
    strata: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    sensitive: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    pram: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    identifiers: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    linked: tuple[tuple[str, tuple[str, ...]], ...] = attrs.field(default=(), converter=_linked)

    # ------------------------------------------------------------------ helpers
    def columns(self) -> tuple[str, ...]:
        """Every column named by some role, each once, in role order."""
        out: list[str] = []
        for n in (*self.keys, *self.numeric, self.weight, self.household, *self.strata,
                  *self.sensitive, *self.pram, *self.identifiers, *self.linked_columns()):
            if n is not None and n not in out:
                out.append(n)
        return tuple(out)

    def linked_map(self) -> dict[str, tuple[str, ...]]:
        """``{key: (linked variables, ...)}``."""
        return dict(self.linked)

    def linked_columns(self) -> tuple[str, ...]:
        """Every linked variable, each once."""
        return tuple(dict.fromkeys(c for _, cols in self.linked for c in cols))

    def role_of(self, column: str) -> list[str]:
        """Names of the roles a column has (``[]`` when it has none)."""
        out = []
        for role in ("keys", "numeric", "strata", "sensitive", "pram", "identifiers"):
            if column in getattr(self, role):
                out.append(role)
        if column in self.linked_columns():
            out.append("linked")
        for role in ("weight", "household"):
            if getattr(self, role) == column:
                out.append(role)
        return out

    def without(self, columns: Iterable[str]) -> Roles:
        """These roles with the given columns removed from every role."""
        drop = set(columns)

        def keep(t: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(c for c in t if c not in drop)

        return Roles(
            keys=keep(self.keys), numeric=keep(self.numeric),
            weight=None if self.weight in drop else self.weight,
            household=None if self.household in drop else self.household,
            strata=keep(self.strata), sensitive=keep(self.sensitive), pram=keep(self.pram),
            identifiers=keep(self.identifiers),
            linked=tuple((k, keep(v)) for k, v in self.linked if k not in drop and keep(v)),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (lists for tuples)."""
        out = {k: (list(v) if isinstance(v, tuple) else v)
               for k, v in attrs.asdict(self, recurse=False).items() if k != "linked"}
        if self.linked:
            out["linked"] = {k: list(v) for k, v in self.linked}
        if not self.identifiers:
            del out["identifiers"]  # recipes written before identifiers existed stay identical
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Roles:
        """Inverse of `to_dict`."""
        allowed = {f.name for f in attrs.fields(cls)}
        unknown = set(d) - allowed
        if unknown:
            raise RoleError(f"unknown role(s) {sorted(unknown)}; expected some of {sorted(allowed)}")
        return cls(**d)

    # --------------------------------------------------------------- validation
    def validate(self, df: Any, *, require_keys: bool = True, values: bool = True) -> Roles:
        """Check these roles against ``df``; return ``self`` or raise one `RoleError`.

        Checks: ``df`` is a non-empty DataFrame with unique column names; every named column exists
        (close matches suggested); no column has two conflicting roles (key and numeric, weight and
        anything, household and key...); at least one key variable (unless ``require_keys=False``);
        the weight is numeric, finite and strictly positive with no missing values; the household
        id has no missing values; numeric roles have a numeric dtype. ``values=False`` checks
        the dtypes only, not the values of the weight and household id (a Dask frame's values
        are checked partition by partition with `value_counts` and `value_problems`). Warns (`SdcWarning`) about key variables with very many
        categories (probably a continuous variable declared as a key).
        """
        if not isinstance(df, pd.DataFrame):
            raise RoleError(f"data: expected a pandas DataFrame, got {type(df).__name__}")
        if isinstance(df.columns, pd.MultiIndex):
            raise RoleError(
                f"data: the columns are a MultiIndex ({df.columns.nlevels} levels, e.g. "
                f"{df.columns[0]!r}); flatten them to one name per column first, e.g. "
                "df.columns = ['_'.join(map(str, c)) for c in df.columns]")
        problems: list[str] = []
        cols = [str(c) for c in df.columns]
        counts = pd.Series(cols).value_counts()
        dup = sorted(counts.index[counts > 1])
        if dup:
            problems.append(f"duplicated column names {dup}: every column needs a unique name")
        if len(df) == 0:
            problems.append("data: the DataFrame has no records")
        if require_keys and not self.keys:
            problems.append("keys: no key variables declared (give keys=[...], the quasi-identifiers)")
        missing = set()
        linked = self.linked_map()
        for role in ("keys", "numeric", "weight", "household", "strata", "sensitive", "pram",
                     "identifiers"):
            for name in as_names(getattr(self, role)):
                if name not in df.columns:
                    missing.add(name)
                    problems.append(f"{role}: unknown column {name!r}{_suggest(name, cols)}")
        for key, cols in linked.items():
            if key not in self.keys:
                problems.append(f"linked: {key!r} is not a key variable (linked variables follow "
                                "the suppressions of a key; declare it in keys=)")
            for name in cols:
                if name not in df.columns and name not in missing:
                    missing.add(name)
                    problems.append(f"linked[{key!r}]: unknown column {name!r}{_suggest(name, cols)}")
                if name in self.keys:
                    problems.append(f"linked[{key!r}]: {name!r} is itself a key variable")
                if name in (self.weight, self.household):
                    problems.append(f"linked[{key!r}]: {name!r} is the weight or household id")
        for ident in self.identifiers:
            others = [r for r in self.role_of(ident) if r != "identifiers"]
            if others:
                problems.append(f"identifiers: {ident!r} is a direct identifier and cannot also be "
                                f"{' and '.join(others)}")
            if ident in (self.weight, self.household):
                problems.append(f"identifiers: {ident!r} is a direct identifier and cannot also "
                                "be the weight or household id")
        for role in ("keys", "numeric", "strata", "sensitive", "pram", "identifiers"):
            vals = getattr(self, role)
            rep = sorted({v for v in vals if vals.count(v) > 1})
            if rep:
                problems.append(f"{role}: column(s) {rep} named more than once")
        conflicts = [
            ("keys", "numeric"), ("keys", "sensitive"), ("keys", "pram"), ("numeric", "pram"),
            ("keys", "weight"), ("numeric", "weight"), ("keys", "household"),
            ("numeric", "household"), ("sensitive", "weight"), ("pram", "weight"),
            ("household", "weight"), ("strata", "weight"), ("pram", "sensitive"),
        ]
        for a, b in conflicts:
            both = set(as_names(getattr(self, a))) & set(as_names(getattr(self, b)))
            for c in sorted(both):
                problems.append(f"column {c!r} cannot be both {a} and {b}")
        if self.weight is not None and self.weight not in missing and not dup:
            w = df[self.weight]
            if not pd.api.types.is_numeric_dtype(w) or pd.api.types.is_bool_dtype(w):
                problems.append(f"weight: column {self.weight!r} must be numeric, has dtype {w.dtype}")
        if values and not dup:
            problems.extend(value_problems(self, value_counts(df, self)))
        if not dup:
            for c in self.numeric:
                if c in df.columns and c not in missing:
                    s = df[c]
                    if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
                        problems.append(
                            f"numeric: column {c!r} is not numeric (dtype {s.dtype}); "
                            "declare it as a key or convert it")
        if not dup:
            problems.extend(_unhashable_cells(df, self, missing))
        if problems:
            raise RoleError(problems)
        n = len(df)
        for c in self.keys:
            nunique = df[c].nunique(dropna=True)
            if nunique > MANY_CATEGORIES and nunique > 0.05 * n:
                warnings.warn(
                    f"key variable {c!r} has {nunique} distinct values: almost every record is "
                    "unique on it; recode it (global_recode) or declare it as numeric",
                    SdcWarning, stacklevel=user_stacklevel())
        return self
