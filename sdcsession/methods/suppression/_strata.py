"""A k per stratum for local suppression (internal; documented in
`sdcsession.methods.suppression.local.local_suppression`).

``k`` is a number (the same k everywhere), a mapping ``{stratum: k}`` (a stratum is the value of
the strata column, or a tuple of values for several strata columns), or a sequence of numbers
aligned with the strata levels in sorted order (numbers by value, then text, then missing; tuples
of several columns lexicographically). Treatments store a mapping as a tuple of ``(stratum, k)``
pairs so that it is hashable and survives a JSON recipe (tuples of labels become lists there and
are read back as tuples).

>>> check_k_spec({"R02": 5, "R01": 3})
(('R01', 3.0), ('R02', 5.0))
>>> check_k_spec([3, 5]), check_k_spec(4)
((3.0, 5.0), 4.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...errors import ParameterError, TreatmentError
from ..encoding import canonical, label_order
from ..params import check_label, check_number, check_size, is_missing

__all__ = ["check_k_spec", "k_max", "k_per_group", "k_note"]

KSpec = float | tuple[float, ...] | tuple[tuple[Any, float], ...]


def _k(value: Any, what: str = "k") -> float:
    return check_number(what, value, 2)


def _one(value: Any) -> Any:
    """A label as it is matched: every missing value (None, NaN, NA, NaT) is ``np.nan``."""
    return np.nan if is_missing(value) else canonical(value)


def _stratum(key: Any) -> Any:
    """A stratum label (one value) or a tuple of labels (several strata columns)."""
    if isinstance(key, (list, tuple)):
        if not key:
            raise ParameterError("k: a stratum given as a tuple needs one value per strata column")
        return tuple(_one(check_label("k (stratum)", v)) for v in key)
    return _one(check_label("k (stratum)", key))


def _order(label: Any) -> Any:
    if isinstance(label, tuple):
        return tuple(label_order(v) for v in label)
    return (label_order(label),)


def check_k_spec(value: Any) -> KSpec:
    """``k`` as a float (≥ 2), a tuple of floats (one per stratum level) or a tuple of
    ``(stratum, k)`` pairs sorted by stratum; `ParameterError` naming the problem.

    >>> check_k_spec([["a", 1], 3])
    Traceback (most recent call last):
    ...
    sdcsession.errors.ParameterError: k: expected a number, a mapping {stratum: k} or a list of numbers (one per stratum), got [['a', 1], 3]
    """
    if isinstance(value, Mapping):
        check_size("k", value, 1_000_000)
        pairs = [(_stratum(s), _k(v, f"k[{s!r:.40}]")) for s, v in value.items()]
    elif isinstance(value, (list, tuple, np.ndarray, pd.Series)) and not isinstance(value, str):
        check_size("k", value, 1_000_000)
        vals = list(value)
        if not vals:
            raise ParameterError("k: expected at least one value")
        if all(isinstance(v, (list, tuple)) and len(v) == 2 for v in vals):
            pairs = [(_stratum(s), _k(v, f"k[{s!r:.40}]")) for s, v in vals]
        elif all(not isinstance(v, (list, tuple, Mapping, str)) for v in vals):
            return tuple(_k(v, f"k[{i}]") for i, v in enumerate(vals))
        else:
            raise ParameterError(f"k: expected a number, a mapping {{stratum: k}} or a list of "
                                 f"numbers (one per stratum), got {value!r:.60}")
    else:
        return _k(value)
    if not pairs:
        raise ParameterError("k: expected at least one stratum in the mapping")
    seen: set[Any] = set()
    for s, _ in pairs:
        if s in seen:
            raise ParameterError(f"k: stratum {s!r} given twice")
        seen.add(s)
    return tuple(sorted(pairs, key=lambda kv: _order(kv[0])))


def k_max(spec: KSpec) -> float:
    """The largest k of a specification.

    >>> k_max((("a", 3.0), ("b", 5.0)))
    5.0
    """
    if isinstance(spec, float):
        return spec
    return max(v[1] if isinstance(v, tuple) else v for v in spec)


def _label(df: pd.DataFrame, strata: list[str], row: int) -> Any:
    vals = tuple(_one(df[c].iloc[row]) for c in strata)
    return vals[0] if len(vals) == 1 else vals


def k_per_group(spec: KSpec, df: pd.DataFrame, strata: list[str],
                groups: list[np.ndarray]) -> tuple[list[float], dict[Any, float]]:
    """The k of every group of records (a stratum each) and the map stratum -> k used.

    `TreatmentError` when a k per stratum is given without strata, a sequence has the wrong
    length, or a mapping misses a stratum of the data or names one that is not in the data.

    >>> df = pd.DataFrame({"r": ["b", "a", "b"]})
    >>> k_per_group((2.0, 3.0), df, ["r"], [np.array([0, 2]), np.array([1])])
    ([3.0, 2.0], {'b': 3.0, 'a': 2.0})
    """
    if isinstance(spec, float):
        return [spec] * len(groups), {}
    if not strata:
        raise TreatmentError("k: a k per stratum needs strata (strata=... or the strata role)")
    labels = [_label(df, strata, int(g[0])) for g in groups]
    levels = sorted(labels, key=_order)
    if isinstance(spec[0], tuple):
        given = dict(spec)  # type: ignore[arg-type]
        missing = [lab for lab in levels if lab not in given]
        if missing:
            raise TreatmentError(f"k: no k given for stratum/strata {missing[:10]!r:.200} (the "
                                 f"strata {strata} have levels {levels[:20]!r:.300})")
        extra = [s for s in given if s not in set(labels)]
        if extra:
            raise TreatmentError(f"k: stratum/strata {extra[:10]!r:.200} not in the data (levels "
                                 f"of {strata}: {levels[:20]!r:.300})")
        ks = [float(given[lab]) for lab in labels]
    else:
        if len(spec) != len(levels):
            raise TreatmentError(
                f"k: {len(spec)} values given for {len(levels)} strata; a list of k is aligned "
                f"with the sorted strata levels {levels[:20]!r:.300}")
        pos = {lab: i for i, lab in enumerate(levels)}
        ks = [float(spec[pos[lab]]) for lab in labels]  # type: ignore[arg-type]
    return ks, dict(zip(labels, ks, strict=True))


def k_note(spec: KSpec, used: dict[Any, float]) -> Any:
    """The ``k`` entry of the notes: the number, or ``{stratum: k}`` (tuples joined by ``|``).

    >>> k_note(3.0, {}), k_note((3.0,), {("a", 1): 3.0})
    (3, {'a|1': 3})
    """
    def num(v: float) -> float | int:
        return int(v) if float(v).is_integer() else v

    if isinstance(spec, float):
        return num(spec)
    return {("|".join(map(str, s)) if isinstance(s, tuple) else str(s)): num(v)
            for s, v in used.items()}
