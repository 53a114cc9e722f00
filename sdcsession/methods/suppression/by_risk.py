"""Suppression by individual risk: set key values missing in the records above a risk threshold.

Kernel (no session needed): `suppress_by_risk` returns the new DataFrame and
JSON-serialisable notes. Treatment: `SuppressByRisk` (``"suppress_by_risk"``). Both are
public as `sdcsession.methods.suppression.local` members (imported there, documented there), next
to local suppression to k-anonymity.

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"a": list("xxxxy"), "b": list("uuuuu")})
>>> out, notes = suppress_by_risk(df, ["a", "b"], threshold=0.5)
>>> notes["suppressed"], notes["above_after"]
({'a': 1, 'b': 0}, 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ...errors import ParameterError, TreatmentError
from ...roles import Roles
from ..base import Result, Treatment, check_number, require_columns
from ._args import _encode, _importance, _names, _ranks, _set_missing, _validate_frame
from ._counter import Counter

__all__ = ["suppress_by_risk", "SuppressByRisk"]


def suppress_by_risk(
    df: pd.DataFrame,
    keys: Sequence[str],
    *,
    threshold: float = 0.15,
    column: str | None = None,
    importance: Sequence[str] | None = None,
    weight: str | None = None,
    max_rounds: int | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Suppress key values in the records whose individual risk exceeds ``threshold``.

    Individual risk r_i: sdcMicro's "approx" (Benedetti–Franconi) from fk and Fk, 1/fk without
    weights (``sdcsession.risk.individual_risk``). ``column``: suppress that key in every risky
    record (sdcMicro ``localSupp``), once. Otherwise, in rounds: in each risky record suppress one
    key — the least important non-missing key when ``importance`` is given (keys left out of it
    count as least important, ties broken as without importance), else the key whose
    suppression lowers the record's risk the most (the risk of the record with that key missing,
    computed from its new fk and Fk) — and recompute the risks, until no record exceeds the
    threshold or nothing is left to suppress.

    Returns ``(new_df, notes)``: ``suppressed`` per key, ``total``, ``above_before``,
    ``above_after`` (records with risk > threshold), ``rounds``.

    Reference: Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4), sec. 4.2 (``localSupp``);
    Benedetti & Franconi (1998).

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": list("xxxxy"), "b": list("uuuuu")})
    >>> out, notes = suppress_by_risk(df, ["a", "b"], threshold=0.5)
    >>> notes["total"], notes["above_after"]
    (1, 0)
    """
    from ...risk import individual_risk_from_freq

    keys = list(_names(keys, "keys") or ())
    _validate_frame(df, keys, "suppress_by_risk")
    check_number("threshold", threshold, 0, 1, hi_open=True)
    importance = _importance(importance)
    if column is not None and column not in keys:
        raise TreatmentError(f"column: {column!r} is not a key variable {keys}")
    rank = _ranks(keys, importance)
    w = np.ones(len(df)) if weight is None else df[weight].to_numpy(dtype="float64")
    X, cards = _encode(df, keys)
    orig_missing = X < 0
    cols = list(range(len(keys)))

    def risk_of(query: np.ndarray | None = None) -> np.ndarray:
        c = Counter(X, np.column_stack([np.ones(len(X)), w]), cols, cards)
        f = c.count(X if query is None else query)
        Fk = None if weight is None else f[:, 1]
        return np.asarray(individual_risk_from_freq(f[:, 0], Fk, warn=False), dtype=float)

    r = risk_of()
    above_before = int((r > threshold).sum())
    rounds = 0
    if column is not None:
        j = keys.index(column)
        X[r > threshold, j] = -1
        rounds = 1
    else:
        limit = len(keys) if max_rounds is None else int(max_rounds)
        while rounds < limit:
            risky = np.flatnonzero(r > threshold)
            obs = X[risky] >= 0
            risky, obs = risky[obs.any(axis=1)], obs[obs.any(axis=1)]
            if len(risky) == 0:
                break
            rounds += 1
            # the risk left after suppressing each observed key (lower is better) ...
            score = np.full(obs.shape, -np.inf)
            for j in cols:
                ids = np.flatnonzero(obs[:, j])
                if len(ids):
                    q = X[risky[ids]].copy()
                    q[:, j] = -1
                    score[ids, j] = -risk_of(q)
            if rank is not None:  # ... after importance: least important key first
                score = np.where(obs, 10.0 * rank[None, :] + score, -np.inf)
            best = np.argmax(score, axis=1)
            X[risky, best] = -1
            r = risk_of()
    new_mask = (X < 0) & ~orig_missing
    out = _set_missing(df, keys, new_mask)
    notes = {
        "suppressed": {c: int(new_mask[:, j].sum()) for j, c in enumerate(keys)},
        "total": int(new_mask.sum()),
        "above_before": above_before,
        "above_after": int((r > threshold).sum()) if column is None else int(
            (risk_of() > threshold).sum()),
        "rounds": rounds,
        "threshold": float(threshold),
    }
    return out, notes



@attrs.frozen
class SuppressByRisk(Treatment):
    """Suppress key values in records whose individual risk exceeds ``threshold``.

    See `suppress_by_risk`; ``column`` (one key, sdcMicro ``localSupp``) or ``importance``
    (key names, most important first) or neither (largest risk reduction).

    Example
    -------
    >>> SuppressByRisk(threshold=0.1, column="sex").to_dict()["type"]
    'suppress_by_risk'
    """

    type = "suppress_by_risk"

    threshold: float = attrs.field(default=0.15)
    column: str | None = attrs.field(default=None)
    importance: tuple[str, ...] | None = attrs.field(
        default=None, converter=_importance)

    @threshold.validator
    def _t(self, _a: Any, v: Any) -> None:
        check_number("threshold", v, 0, 1, hi_open=True)

    @column.validator
    def _c(self, _a: Any, v: Any) -> None:
        if v is not None and (not isinstance(v, str) or not v):
            raise ParameterError(f"column: expected a key column name, got {v!r:.60}")
        if v is not None and self.importance is not None:
            raise ParameterError("give either column or importance, not both")

    def check(self, data: pd.DataFrame, roles: Roles) -> None:
        if not roles.keys:
            raise TreatmentError("suppress_by_risk: no key variables in the roles")
        require_columns(data, roles.keys, "suppress_by_risk keys")
        if self.column is not None and self.column not in roles.keys:
            raise TreatmentError(
                f"suppress_by_risk: column {self.column!r} is not a key variable {list(roles.keys)}")
        if self.importance is not None:
            _ranks(roles.keys, self.importance)

    def apply(self, data: pd.DataFrame, roles: Roles, rng: np.random.Generator) -> Result:
        out, notes = suppress_by_risk(data, roles.keys, threshold=self.threshold,
                                      column=self.column, importance=self.importance,
                                      weight=roles.weight)
        return Result(out, notes=notes)
