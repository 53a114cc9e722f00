"""Microaggregation of mixed categorical and numeric variables with the Gower distance (sdcMicro
``microaggrGower``).

Distance (Gower 1971). For records i and j and the variables v observed in both,

    d(i, j) = Σ_v w_v δ_v(i, j) / Σ_v w_v,

with ``δ_v = |x_iv − x_jv| / range_v`` for a numeric variable (range over the observed values),
``δ_v = |r_iv − r_jv| / (L_v − 1)`` for an ordered categorical variable with L_v categories
(r the category's rank), and ``δ_v = 1`` if the categories differ, 0 if equal, for any other
categorical variable. ``w_v`` are the variable weights (default 1; sdcMicro's ``weights``). A
pair with no variable observed in both has distance 1.

Grouping: MDAV (Domingo-Ferrer & Mateo-Sanz 2002) with this distance. The "average record" of
the remaining records is the mean of each numeric and ordinal variable (ranks) and the most
frequent category of each nominal one. While at least 3k records remain: r is the record
farthest from the average record, s the record farthest from r; r and its k − 1 nearest remaining
records form a group, then s and its k − 1 nearest remaining records. With 2k..3k − 1 remaining,
one group around the record farthest from the average, the rest form the last group; fewer than
2k remaining form one group. Each step is one vectorised distance pass over the remaining records.

Aggregation: a numeric variable gets its group's mean (or median) over the observed values, a
categorical one its group's most frequent observed category (ties: the first in the column's
category order). Missing values stay missing.

Differences from sdcMicro: ``microaggrGower`` replaces each record by an aggregate of its own k
nearest neighbours (overlapping neighbourhoods, so k-anonymity is not guaranteed) and draws the
categorical value at random (``sampleCat``); here the records are partitioned into groups of
k..2k − 1 (every released combination of the treated variables is shared by at least k records)
and the categorical value is the deterministic mode. sdcMicro's ``mixed`` (semi-continuous)
variables are treated as numeric.

References: Gower, J. C. (1971) A general coefficient of similarity and some of its properties,
Biometrics 27, 857–871. Domingo-Ferrer, J. & Mateo-Sanz, J. M. (2002) Practical data-oriented
microaggregation for statistical disclosure control, IEEE TKDE 14(1), 189–201. sdcMicro
``microaggrGower`` documentation.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"sex": ["m", "m", "f", "f", "f", "m"],
...                    "age": [20.0, 22.0, 60.0, 62.0, 61.0, 21.0]})
>>> out, notes = microaggregation_gower(df, ["sex", "age"], k=3)
>>> out["sex"].tolist(), out["age"].tolist()
(['m', 'm', 'f', 'f', 'f', 'm'], [21.0, 21.0, 61.0, 61.0, 61.0, 21.0])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError, TreatmentError
from ...roles import Roles
from ..base import Result, Treatment, check_choice, check_int, check_number, require_columns
from ..noise.addition import _names
from .treatment import _aggregate

__all__ = ["microaggregation_gower", "gower_groups", "MicroaggregationGower"]


def _is_numeric(s: pd.Series) -> bool:
    return (pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)
            and not isinstance(s.dtype, pd.CategoricalDtype))


def _encode(data: pd.DataFrame, columns: tuple[str, ...]
            ) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
    """Scaled numeric/ordinal block U (NaN = missing) and nominal codes C (−1 = missing)."""
    num, nom, num_cols, nom_cols = [], [], [], []
    for c in columns:
        s = data[c]
        if _is_numeric(s):
            v = s.to_numpy(dtype=np.float64, na_value=np.nan)
            if np.isinf(v).any():
                raise TreatmentError(f"microaggregation_gower: column {c!r} has infinite values")
            rng = np.nanmax(v) - np.nanmin(v) if (~np.isnan(v)).any() else 0.0
            num.append(v / rng if rng > 0 else np.where(np.isnan(v), np.nan, 0.0))
            num_cols.append(c)
        elif isinstance(s.dtype, pd.CategoricalDtype) and s.cat.ordered:
            r = s.cat.codes.to_numpy().astype(np.float64)
            r[r < 0] = np.nan
            levels = len(s.cat.categories)
            num.append(r / (levels - 1) if levels > 1 else np.where(np.isnan(r), np.nan, 0.0))
            num_cols.append(c)
        else:
            codes, _ = pd.factorize(s, sort=False)
            nom.append(codes.astype(np.int64))
            nom_cols.append(c)
    n = len(data)
    u = np.column_stack(num) if num else np.empty((n, 0))
    cc = np.column_stack(nom) if nom else np.empty((n, 0), dtype=np.int64)
    return u, cc, num_cols, nom_cols


def _mode_codes(cc: np.ndarray) -> np.ndarray:
    """Most frequent non-negative code of each column (ties: the smallest code)."""
    out = np.full(cc.shape[1], -1, dtype=np.int64)
    for j in range(cc.shape[1]):
        v = cc[:, j]
        v = v[v >= 0]
        if len(v):
            out[j] = int(np.argmax(np.bincount(v)))
    return out


def gower_groups(u: np.ndarray, cc: np.ndarray, k: int, wu: np.ndarray | None = None,
                 wc: np.ndarray | None = None) -> np.ndarray:
    """MDAV group labels with the Gower distance (module docstring).

    Parameters
    ----------
    u : n×a numeric/ordinal values already divided by their ranges (NaN = missing).
    cc : n×b nominal codes (−1 = missing).
    k : minimum group size.
    wu, wc : variable weights of the columns of ``u`` and ``cc`` (default 1).

    Returns labels 0, 1, ... (groups of k..2k − 1 records; one group when n < 2k).

    >>> gower_groups(np.array([[0.0], [0.1], [0.9], [1.0]]), np.zeros((4, 0), int), 2).tolist()
    [0, 0, 1, 1]
    """
    n = len(u)
    wu = np.ones(u.shape[1]) if wu is None else np.asarray(wu, dtype=np.float64)
    wc = np.ones(cc.shape[1]) if wc is None else np.asarray(wc, dtype=np.float64)
    u_obs = ~np.isnan(u)
    u0 = np.where(u_obs, u, 0.0)
    c_obs = cc >= 0
    labels = np.full(n, -1, dtype=np.int64)
    alive = np.ones(n, dtype=bool)

    def dist(qu: np.ndarray, qc: np.ndarray) -> np.ndarray:
        """Gower distance of every record to the prototype (qu, qc); removed records: NaN."""
        qu_obs = ~np.isnan(qu)
        both_u = u_obs & qu_obs
        num = (np.abs(u0 - np.where(qu_obs, qu, 0.0)) * both_u) @ wu
        den = both_u @ wu
        both_c = c_obs & (qc >= 0)
        num = num + ((cc != qc) & both_c) @ wc
        den = den + both_c @ wc
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)
        d[~alive] = np.nan
        return d

    def centre() -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(invalid="ignore"):
            qu = (np.nanmean(u[alive], axis=0) if u.shape[1] and u_obs[alive].any(axis=0).all()
                  else np.array([np.nanmean(u[alive][:, j]) if u_obs[alive][:, j].any()
                                 else np.nan for j in range(u.shape[1])]))
        return qu, _mode_codes(cc[alive])

    def group_around(i: int, g: int) -> None:
        d = dist(u[i], cc[i])
        d[i] = -1.0  # the record itself first
        rest = np.flatnonzero(alive)
        sel = rest[np.argsort(d[rest], kind="stable")[:k]]
        labels[sel] = g
        alive[sel] = False

    g = 0
    while alive.sum() >= 3 * k:  # one iteration per two groups
        qu, qc = centre()
        r = int(np.nanargmax(dist(qu, qc)))
        s = int(np.nanargmax(dist(u[r], cc[r])))
        group_around(r, g)
        if not alive[s]:
            s = int(np.nanargmax(dist(u[r], cc[r])))
        group_around(s, g + 1)
        g += 2
    if alive.sum() >= 2 * k:
        qu, qc = centre()
        group_around(int(np.nanargmax(dist(qu, qc))), g)
        g += 1
    labels[alive] = g
    return labels


def _check_weights(weights: Any, columns: tuple[str, ...]) -> dict[str, float]:
    if weights is None:
        return {}
    if not isinstance(weights, Mapping):
        raise ParameterError("variable_weights: expected a mapping {column: weight ≥ 0} or None, "
                             f"got {type(weights).__name__}")
    out = {}
    for c, v in weights.items():
        if not isinstance(c, str) or c not in columns:
            raise ParameterError(f"variable_weights: {c!r:.60} is not one of the columns "
                                 f"{list(columns)}")
        out[c] = check_number(f"variable_weights[{c!r}]", v, 0)
    if out and all(out.get(c, 1.0) == 0 for c in columns):
        raise ParameterError("variable_weights: at least one weight must be positive")
    return out


def microaggregation_gower(data: pd.DataFrame, columns: list[str] | tuple[str, ...], *,
                           k: int = 3, variable_weights: Mapping[str, float] | None = None,
                           aggregate: str = "mean") -> tuple[pd.DataFrame, dict[str, Any]]:
    """Microaggregate mixed categorical/numeric ``columns`` in MDAV groups of the Gower distance.

    Parameters
    ----------
    data : the microdata (not modified).
    columns : numeric and categorical columns (ordered categoricals count as ordinal).
    k : minimum group size (≥ 2).
    variable_weights : weight of each column in the distance (default 1 for every column).
    aggregate : ``"mean"`` or ``"median"`` for the numeric columns.

    Returns the new DataFrame (numeric columns float64, categorical columns keep their dtype) and
    notes ``n_groups``, ``group_sizes``, ``numeric``, ``categorical`` and ``changed`` per column.

    Reference: Gower (1971); Domingo-Ferrer & Mateo-Sanz (2002); see the module docstring.

    Example
    -------
    >>> df = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": [1.0, 2.0, 3.0, 4.0]})
    >>> microaggregation_gower(df, ["a", "b"], k=2)[1]["group_sizes"]
    {'2': 2}
    """
    columns = _names(columns, "columns")
    k = check_int("k", k, 2)
    check_choice("aggregate", aggregate, ("mean", "median"))
    vw = _check_weights(variable_weights, columns)
    require_columns(data, list(columns), "microaggregation_gower")
    if len(data) < k:
        raise TreatmentError(f"microaggregation_gower: k={k} exceeds the {len(data)} records")
    u, cc, num_cols, nom_cols = _encode(data, columns)
    labels = gower_groups(u, cc, k, np.array([vw.get(c, 1.0) for c in num_cols]),
                          np.array([vw.get(c, 1.0) for c in nom_cols]))
    new: dict[str, pd.Series] = {}
    for c in num_cols:
        s = data[c]
        if not _is_numeric(s):  # ordinal: the group's most frequent category
            nom_cols = [*nom_cols, c]
            continue
        v = s.to_numpy(dtype=np.float64, na_value=np.nan)
        obs = ~np.isnan(v)
        out = np.full(len(v), np.nan)
        if obs.any():
            out[obs] = _aggregate(v[obs], labels[obs], aggregate)
        new[c] = pd.Series(out, index=data.index, name=c)
    for c in nom_cols:
        s = data[c]
        codes, _ = pd.factorize(s, sort=False)
        obs = codes >= 0
        rep = np.full(int(labels.max()) + 1, -1, dtype=np.int64)
        if obs.any():
            n_codes = int(codes.max()) + 1
            cell = labels[obs] * n_codes + codes[obs]
            cnt = np.bincount(cell, minlength=(int(labels.max()) + 1) * n_codes)
            best = cnt.reshape(-1, n_codes).argmax(axis=1)
            has = cnt.reshape(-1, n_codes).max(axis=1) > 0
            first = np.full(len(cnt), -1, dtype=np.int64)
            rows = np.flatnonzero(obs)
            first[cell[::-1]] = rows[::-1]
            pick = np.arange(len(best)) * n_codes + best
            rep[has] = first[pick[has]]
        take = rep[labels]
        vals = s.iloc[np.where(take >= 0, take, 0)].to_numpy()
        res = pd.Series(vals, index=data.index, name=c, dtype=s.dtype)
        new[c] = res.where(obs & (take >= 0))
    out_df = data.assign(**{c: new[c] for c in columns})
    sizes = np.bincount(labels)
    notes: dict[str, Any] = {
        "k": k, "n_groups": len(sizes),
        "group_sizes": {str(int(a)): int(b) for a, b in zip(*np.unique(sizes, return_counts=True))},
        "numeric": [c for c in columns if _is_numeric(data[c])],
        "categorical": [c for c in columns if not _is_numeric(data[c])],
        "changed": {c: int((~(out_df[c].eq(data[c]) | (out_df[c].isna() & data[c].isna()))).sum())
                    for c in columns},
    }
    return out_df, notes


@attrs.frozen
class MicroaggregationGower(Treatment):
    """Gower-distance microaggregation (tag ``"microaggregation_gower"``); see
    `microaggregation_gower`.

    >>> MicroaggregationGower(["sex", "age"], k=3).to_dict()["k"]
    3
    """

    type: ClassVar[str] = "microaggregation_gower"
    random: ClassVar[bool] = False

    columns: tuple[str, ...] = attrs.field(converter=lambda v: _names(v, "columns"))
    k: int = attrs.field(default=3)
    variable_weights: dict[str, float] | None = attrs.field(
        default=None, converter=lambda v: dict(v) if isinstance(v, Mapping) else v)
    aggregate: str = attrs.field(default="mean")

    def __hash__(self) -> int:
        return hash((self.columns, self.k, self.aggregate,
                     None if self.variable_weights is None
                     else tuple(sorted(map(repr, self.variable_weights.items())))))

    @k.validator
    def _k(self, _a: Any, v: Any) -> None:
        check_int("k (minimum group size)", v, 2)

    @variable_weights.validator
    def _vw(self, _a: Any, v: Any) -> None:
        _check_weights(v, self.columns)

    @aggregate.validator
    def _g(self, _a: Any, v: Any) -> None:
        check_choice("aggregate", v, ("mean", "median"))

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        require_columns(data, list(self.columns), "microaggregation_gower")
        if len(data) < self.k:
            raise TreatmentError(
                f"microaggregation_gower: k={self.k} exceeds the {len(data)} records")

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = microaggregation_gower(data, self.columns, k=self.k,
                                            variable_weights=self.variable_weights,
                                            aggregate=self.aggregate)
        return Result(out, notes=notes)
