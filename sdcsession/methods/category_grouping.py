"""Grouping categories: merge categories of a key variable into new ones (sdcMicro
``groupAndRename``): the kernel :func:`group_categories` and the treatment
:class:`GroupCategories` (``"group_categories"``).

Reference: Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4), sec. 4.1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import ParameterError, TreatmentError
from ..roles import Roles
from ._recode_checks import _col
from .base import (
    MAX_LABELS,
    Result,
    Treatment,
    check_label,
    check_size,
    freeze,
    require_columns,
)

__all__ = ["group_categories", "GroupCategories"]


def _check_groups(groups: Any) -> dict[Any, tuple[Any, ...]]:
    if not isinstance(groups, Mapping) or not groups:
        raise ParameterError(
            f"groups: expected a non-empty {{new: [old, ...]}} mapping, got {groups!r:.60}")
    check_size("groups", groups)
    out: dict[Any, tuple[Any, ...]] = {}
    seen: dict[Any, Any] = {}
    total = 0
    for new, olds in groups.items():
        check_label(f"groups: new category {new!r:.40}", new, missing=False)
        if isinstance(olds, (str, bytes)) or not isinstance(
                olds, (Sequence, np.ndarray, pd.Index, set, frozenset)):
            olds = [olds]
        total += check_size(f"groups[{new!r:.40}]", olds)
        if total > MAX_LABELS:
            raise ParameterError(f"groups: more than {MAX_LABELS} categories listed")
        olds = tuple(olds)
        if not olds:
            raise ParameterError(f"groups: group {new!r} lists no categories")
        for o in olds:
            check_label(f"groups[{new!r:.40}]: old category", o, missing=False)
        for o in olds:
            if o in seen and seen[o] != new:
                raise ParameterError(f"groups: category {o!r} is in two groups ({seen[o]!r}, {new!r})")
            seen[o] = new
        out[new] = olds
    return out


def group_categories(series: pd.Series, groups: Mapping[Any, Sequence[Any]]) -> pd.Series:
    """Merge categories: ``{"new": [old, ...], ...}`` (sdcMicro ``groupAndRename``).

    Categories not listed are kept; missing values stay missing. The result is a Categorical
    whose categories keep the original order, a merged group taking the place of its first member.
    Old values given as strings match numeric codes with the same text (JSON recipes).

    Example
    -------
    >>> import pandas as pd
    >>> group_categories(pd.Series(["a", "b", "c", None]), {"ab": ["a", "b"]}).tolist()
    ['ab', 'ab', 'c', nan]
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
    text = {str(c): c for c in cats}
    lookup: dict[Any, Any] = {}
    absent = []
    for new, olds in g.items():
        for o in olds:
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
    for c in cats:
        v = lookup.get(c, c)
        if v not in new_cats:
            new_cats.append(v)
    pos = np.array([new_cats.index(lookup.get(c, c)) for c in cats] + [-1], dtype=np.int64)
    cat = pd.Categorical.from_codes(pos[codes], categories=new_cats, ordered=ordered)
    return pd.Series(cat, index=series.index, name=series.name)


_ABSENT = object()


@attrs.frozen
class GroupCategories(Treatment):
    """Merge categories of a key variable: ``groups={"new": [old, ...]}``.

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
    groups: dict[Any, tuple[Any, ...]] = attrs.field(converter=_check_groups)

    def __hash__(self) -> int:
        return hash((self.column, freeze(self.groups)))

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
