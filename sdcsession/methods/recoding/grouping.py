"""Grouping categories: merge categories of a key variable into new ones (sdcMicro
``groupAndRename``): the kernel `group_categories` and the treatment
`GroupCategories` (``"group_categories"``).

Reference: Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4), sec. 4.1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError, TreatmentError
from ...roles import Roles
from ..base import (
    MAX_LABELS,
    Result,
    Treatment,
    canonical,
    check_size,
    freeze,
    is_missing,
    label_order,
    require_columns,
    typed_freeze,
)
from ._checks import _col

__all__ = ["group_categories", "GroupCategories"]


def _label(v: Any, what: str) -> Any:
    """A category label: one scalar value (text, number, boolean or missing), made canonical."""
    v = canonical(v)
    try:
        hash(v)
    except TypeError:
        v = _UNHASHABLE
    if v is _UNHASHABLE or isinstance(v, (tuple, frozenset, bytes)):
        raise ParameterError(f"groups: {what} must be a single value (text, number, true/false or "
                             "missing), got a " + type(v).__name__)
    return v


def _check_groups(groups: Any) -> dict[Any, tuple[Any, ...]]:
    if not isinstance(groups, Mapping) or not groups:
        raise ParameterError(
            f"groups: expected a non-empty {{new: [old, ...]}} mapping, got {groups!r:.60}")
    check_size("groups", groups)
    out: dict[Any, tuple[Any, ...]] = {}
    seen: dict[Any, int] = {}
    news: list[Any] = []
    total = 0
    for i, (new, olds) in enumerate(groups.items()):
        new = _label(new, "a new label")
        if isinstance(olds, (set, frozenset)):
            olds = sorted(olds, key=lambda o: label_order(canonical(o)))
        elif isinstance(olds, (str, bytes)) or not isinstance(olds, (Sequence, np.ndarray, pd.Index)):
            olds = [olds]
        total += check_size(f"groups[{new!r:.40}]", olds)
        if total > MAX_LABELS:
            raise ParameterError(f"groups: more than {MAX_LABELS} categories listed")
        olds = tuple(_label(o, f"the categories of group {new!r}") for o in olds)
        if not olds:
            raise ParameterError(f"groups: group {new!r} lists no categories")
        for o in olds:
            key = _MISSING_KEY if is_missing(o) else o
            if key in seen and seen[key] != i:
                what = "missing values are" if key is _MISSING_KEY else f"category {o!r} is"
                raise ParameterError(
                    f"groups: {what} in two groups ({news[seen[key]]!r}, {new!r})")
            seen[key] = i
        news.append(new)
        out[new] = olds
    return out


def group_categories(series: pd.Series, groups: Mapping[Any, Sequence[Any]]) -> pd.Series:
    """Merge categories: ``{"new": [old, ...], ...}`` (sdcMicro ``groupAndRename``).

    Categories not listed are kept; missing values stay missing unless a group lists a missing
    value (``None``, NaN, ``pd.NA``): then they join that group. A group whose new label is missing
    makes its values missing. The result is a Categorical whose categories keep the original order,
    a merged group taking the place of its first member (a group of missing values only comes
    last). Labels keep their type (``{1: ["a", "b"]}`` gives the integer category 1). Old values
    given as strings match numeric codes with the same text (JSON recipes of format 1).

    Example
    -------
    >>> import pandas as pd
    >>> group_categories(pd.Series(["a", "b", "c", None]), {"ab": ["a", "b"]}).tolist()
    ['ab', 'ab', 'c', nan]
    >>> group_categories(pd.Series(["a", "b", "c", None]), {1: ["a", "b", None]}).tolist()
    [1, 1, 'c', 1]
    """
    if not isinstance(series, pd.Series):
        raise TreatmentError(f"group_categories: expected a pandas Series, got {type(series).__name__}")
    g = _check_groups(groups)
    if isinstance(series.dtype, pd.CategoricalDtype):
        cats = list(series.cat.categories)
        codes = np.asarray(series.cat.codes)
        ordered = bool(series.cat.ordered)
    else:
        codes, uniq = pd.factorize(series, sort=True, use_na_sentinel=True)
        cats = list(uniq)
        ordered = False
    has_missing = bool((codes < 0).any())
    text = {str(c): c for c in cats}
    lookup: dict[Any, Any] = {}
    fill: Any = _ABSENT  # the label missing values take
    absent = []
    for new, olds in g.items():
        for o in olds:
            if is_missing(o):
                if has_missing:
                    fill = new
                else:
                    absent.append(o)
                continue
            c = o if o in cats else text.get(str(o), _ABSENT)
            if c is _ABSENT:
                absent.append(o)
            else:
                lookup[c] = new
    if absent:
        shown = ", ".join(repr(c) for c in cats[:20]) + (" ..." if len(cats) > 20 else "")
        if len(absent) == sum(len(v) for v in g.values()):
            what = f"none of {absent} is a category"
        else:
            what = f"{absent} {'is not a category' if len(absent) == 1 else 'are not categories'}"
        raise TreatmentError(f"group_categories: {what} of column {series.name!r} "
                             f"(its categories: {shown})")
    new_cats: list[Any] = []
    for v in [lookup.get(c, c) for c in cats] + ([] if fill is _ABSENT else [fill]):
        if not is_missing(v) and v not in new_cats:
            new_cats.append(v)

    def where(v: Any) -> int:
        return -1 if v is _ABSENT or is_missing(v) else new_cats.index(v)

    pos = np.array([where(lookup.get(c, c)) for c in cats] + [where(fill)], dtype=np.int64)
    cat = pd.Categorical.from_codes(pos[codes], categories=new_cats, ordered=ordered)
    return pd.Series(cat, index=series.index, name=series.name)


_ABSENT = object()
_MISSING_KEY = object()
_UNHASHABLE = object()


@attrs.frozen
class GroupCategories(Treatment):
    """Merge categories of a key variable: ``groups={"new": [old, ...]}`` (see
    `group_categories`). Equal when the groups are equal with the types of their labels
    (``{1: [...]}`` differs from ``{"1": [...]}`` and from ``{True: [...]}``).

    Example
    -------
    >>> import numpy as np, pandas as pd
    >>> from sdcsession.roles import Roles
    >>> df = pd.DataFrame({"walls": [1, 2, 3]})
    >>> t = GroupCategories("walls", {"1-2": [1, 2]})
    >>> t.apply(df, Roles(keys=("walls",)), np.random.default_rng(0)).data["walls"].tolist()
    ['1-2', '1-2', 3]
    """

    type = "group_categories"

    column: str = attrs.field(validator=_col)
    groups: dict[Any, tuple[Any, ...]] = attrs.field(converter=_check_groups, eq=typed_freeze)

    def __hash__(self) -> int:
        return hash((self.column, freeze(self.groups)))  # equal typed_freeze -> equal freeze

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        require_columns(data, [self.column], "group_categories")
        if self.column not in roles.keys and self.column not in roles.pram:
            raise TreatmentError(
                f"group_categories: column {self.column!r} is not a key (or PRAM) variable "
                f"(roles: {roles.role_of(self.column) or 'none'})")
        group_categories(data[self.column], self.groups)  # names unknown categories

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        old = data[self.column]
        new = group_categories(old, self.groups)
        differ = (old.astype(object) != new.astype(object)).to_numpy() & old.notna().to_numpy()
        notes: dict[str, Any] = {"column": self.column,
                                 "changed": int(differ.sum()),
                                 "categories": [str(c) for c in new.cat.categories]}
        return Result(data.assign(**{self.column: new}), notes=notes)
