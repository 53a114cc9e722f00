"""The release check's ``bound`` finding: a column with no role that bounds a treated numeric
variable and gives back part of what the treatment hid (internal to
`sdcsession.session.release.structure`, the same code for pandas and Dask).

A person's number in the household (``pid``, 1..hhsize) is never above the household size. Once
``hhsize`` is top-coded at 6, a released record with ``pid = 8`` still shows that its household
has at least 8 members: ``pid`` undoes the top code for those records, although it does not
*determine* ``hhsize`` (so ``undeclared_linked`` does not see it). Years in residence and age
(age top-coded), wages and income (income top-coded or noised) are the same pattern.

Rule, for every pair (d, v) where v is a numeric variable whose released values differ from
its originals in some records (a changed key or PRAM variable held as numbers, or a perturbed
numeric variable) and d a released numeric column with no role (not an identifier found by the
check; booleans and categoricals are not numbers here):

- d is a *lower bound* of v when ``d <= v_orig`` in every record where both are observed
  (d's released values against v's original values), ``d < v_orig`` in at least one, and
  ``max(d) > min(v_orig)`` over those records. The finding counts the records where the
  released ``d > v`` (both observed): each shows that its original v was at least d, more
  than the release says.
- d is an *upper bound* when ``d >= v_orig`` everywhere, ``d > v_orig`` somewhere and
  ``min(d) < max(v_orig)``; the finding counts the records where the released ``d < v``.
- ``d == v_orig`` in every record: the same variable (the ``derived`` and ``undeclared_linked``
  checks see it), no ``bound`` finding.
- The range condition (``max(d) > min(v_orig)``) leaves out bounds that only say that the
  ranges do not meet: ``pid`` (1..9) is below every household's expenditure (never under
  1,000), which is no relation between the two that an intruder could know or use; a
  relation record by record (pid and the household size) has ranges that overlap.

A pair that is also a ``derived`` or ``undeclared_linked`` finding is reported there only
(`without_repeats`).

Missing values: a pair is compared only in the records where both values are observed (d and
the original v for the bound, d and the released v for the records counted); a record whose v
was blanked is not counted.

The statistics of every pair come from one task per partition (sums, minima and maxima, added
and combined), in the round of the other findings' counts (`sdcsession.session.release.rounds`):
no pass of its own on Dask.

Example
-------
>>> import pandas as pd
>>> from sdcsession.session.release.aligned import Aligned
>>> from sdcsession.session.release.rounds import run
>>> o = pd.DataFrame({"hhsize": [1, 2, 2, 8, 8], "pid": [1, 1, 2, 7, 8]})
>>> al = Aligned(o.assign(hhsize=[1, 2, 2, 6, 6]), o)
>>> [(f["variables"], f["records"]) for f in run(
...     bound_rounds(al, ["pid"], ["hhsize"], ["hhsize"], [], []), al.compute)]
[(['pid', 'hhsize'], 2)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .aligned import Aligned
from .rounds import Rounds

__all__ = ["bound_rounds", "without_repeats", "number_dtype"]

# the statistics of one pair, per partition
_BOTH, _ABOVE, _BELOW, _LO_CROSS, _HI_CROSS = 0, 1, 2, 3, 4  # counts (added)
_MAX_D, _MAX_V, _HI_EDGE = 5, 6, 7  # maxima
_MIN_D, _MIN_V, _LO_EDGE = 8, 9, 10  # minima
_WIDTH = 11


def number_dtype(dtype: Any) -> bool:
    """Whether a column of ``dtype`` holds numbers here: numeric, not boolean, not categorical
    (``None``, a column that is absent: False). Shared with the ``derived`` finding."""
    return (dtype is not None and pd.api.types.is_numeric_dtype(dtype)
            and not pd.api.types.is_bool_dtype(dtype)
            and not isinstance(dtype, pd.CategoricalDtype))


def _floats(s: pd.Series) -> np.ndarray:
    return pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def _bounds_part(part: pd.DataFrame, pairs: list[tuple[str, str]]) -> np.ndarray:
    """One partition: the statistics of every pair (d, v) (NaN for an extreme of no record)."""
    out = np.full((len(pairs), _WIDTH), np.nan)
    names = dict.fromkeys(c for d, v in pairs for c in ("r:" + d, "o:" + v, "r:" + v))
    cols = {c: _floats(part[c]) for c in names}  # each column converted once
    for j, (d, v) in enumerate(pairs):
        rd, ov, rv = cols["r:" + d], cols["o:" + v], cols["r:" + v]
        m = ~np.isnan(rd) & ~np.isnan(ov)
        x, y = rd[m], ov[m]
        seen = ~np.isnan(rd) & ~np.isnan(rv)
        lo = seen & (rd > rv)  # released d above the released v
        hi = seen & (rd < rv)
        row = out[j]
        row[[_BOTH, _ABOVE, _BELOW, _LO_CROSS, _HI_CROSS]] = [
            m.sum(), np.count_nonzero(x > y), np.count_nonzero(x < y), lo.sum(), hi.sum()]
        if len(x):
            row[[_MAX_D, _MAX_V, _MIN_D, _MIN_V]] = [x.max(), y.max(), x.min(), y.min()]
        if lo.any():
            row[_LO_EDGE] = rv[lo].min()  # top-coding d here ends every crossing
        if hi.any():
            row[_HI_EDGE] = rv[hi].max()
    return out


def _combine(parts: list[np.ndarray], n: int) -> np.ndarray:
    """The partitions' statistics put together: counts added, extremes of the extremes."""
    stack = np.stack([np.asarray(p, dtype=np.float64).reshape(n, _WIDTH) for p in parts])
    out = np.full((n, _WIDTH), np.nan)
    sums = [_BOTH, _ABOVE, _BELOW, _LO_CROSS, _HI_CROSS]
    out[:, sums] = stack[:, :, sums].sum(axis=0)
    for cols, fn in (([_MAX_D, _MAX_V, _HI_EDGE], np.fmax), ([_MIN_D, _MIN_V, _LO_EDGE], np.fmin)):
        out[:, cols] = fn.reduce(stack[:, :, cols], axis=0)  # NaN (no record) ignored
    return out


def _text(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def bound_rounds(al: Aligned, free: list[str], keys: Sequence[str], treated: list[str],
                 perturbed: list[str], ids: list[str]) -> Rounds:
    """The ``bound`` findings (module docstring) of the aligned state ``al``, in rounds (one
    round on Dask, `sdcsession.session.release.rounds`): ``free`` are the released columns with
    no role, ``keys`` the declared key variables, ``treated`` the changed keys and PRAM
    variables, ``perturbed`` the changed numeric variables, ``ids`` the columns the check found
    to be identifiers.

    For each pair (d, v), over the records where d and the original v are observed: d is a
    lower bound when ``d <= v_orig`` everywhere, ``d < v_orig`` somewhere and
    ``max(d) > min(v_orig)``; the finding counts the records with the released ``d > v``
    (symmetrically for an upper bound).

    Missing values: compared only where both values are observed.

    Example
    -------
    >>> import pandas as pd
    >>> from sdcsession.session.release.rounds import run
    >>> o = pd.DataFrame({"wage": [0.0, 10.0, 30.0], "income": [5.0, 10.0, 40.0]})
    >>> al = Aligned(o.assign(income=[5.0, 8.0, 41.0]), o)
    >>> [f["records"] for f in run(bound_rounds(al, ["wage"], [], [], ["income"], []),
    ...                            al.compute)]
    [1]
    """
    rel, org = dict(al.data.dtypes.items()), dict(al.original.dtypes.items())
    both = set(rel) & set(org)
    vs = [v for v in dict.fromkeys([*treated, *perturbed])
          if v in both and number_dtype(rel[v]) and number_dtype(org[v])]
    cands = [d for d in free if d not in ids and d not in vs and number_dtype(rel.get(d))]
    pairs = [(d, v) for d in cands for v in vs]
    if not pairs:
        return []
    f = al.frame(vs, released_only=cands)
    parts = yield from al.per_partition_rounds(f, _bounds_part, pairs)
    stats = _combine(parts, len(pairs))
    out = []
    for (d, v), s in zip(pairs, stats):
        if not s[_BOTH]:
            continue
        if not s[_ABOVE] and s[_BELOW] and s[_MAX_D] > s[_MIN_V] and s[_LO_CROSS]:
            out.append(_finding(d, v, "lower", int(s[_LO_CROSS]), s[_LO_EDGE], v in perturbed,
                                v in keys))
        elif not s[_BELOW] and s[_ABOVE] and s[_MIN_D] < s[_MAX_V] and s[_HI_CROSS]:
            out.append(_finding(d, v, "upper", int(s[_HI_CROSS]), s[_HI_EDGE], v in perturbed,
                                v in keys))
    return out


def _finding(d: str, v: str, side: str, m: int, edge: float, perturbed: bool,
             key: bool) -> dict[str, Any]:
    lower = side == "lower"
    what = (f"{d!r} (no role) is never {'above' if lower else 'below'} the original {v!r} and "
            f"{'exceeds' if lower else 'is below'} the released {v!r} in {m:,} record(s), which "
            f"shows that their original value was {'larger' if lower else 'smaller'}: ")
    if perturbed:
        fix = f"declare {d!r} numeric and perturb it too"
    else:
        at = _text(edge)
        kind = "" if lower else ", kind='bottom'"
        fix = (f"declare {d!r} numeric and {'top' if lower else 'bottom'}-code it at {at} "
               f"(s.top_bottom_code({d!r}, value={at}, replacement={at}{kind}))")
        if key:
            fix += f", declare it linked={{{v!r}: [{d!r}]}} (then it is blanked where {v!r} changes)"
    return {"severity": "warn", "check": "bound", "variables": [d, v], "records": int(m),
            "message": what + fix + f", or remove it (s.remove({d!r}))"}


def without_repeats(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``findings`` without the ``bound`` findings of a pair that is also a ``derived`` (d, v)
    or an ``undeclared_linked`` (v, d) finding: one finding per pair, the more specific one.

    Missing values: not applicable.

    >>> f = [{"check": "derived", "variables": ["a", "b"]},
    ...      {"check": "bound", "variables": ["a", "b"]}]
    >>> [x["check"] for x in without_repeats(f)]
    ['derived']
    """
    seen = {tuple(f["variables"]) for f in findings if f["check"] == "derived"} | \
        {tuple(f["variables"][::-1]) for f in findings if f["check"] == "undeclared_linked"}
    return [f for f in findings if f["check"] != "bound" or tuple(f["variables"]) not in seen]
