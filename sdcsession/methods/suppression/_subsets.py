"""Local suppression on chosen key subsets, each with its own k (internal).

`check_subsets` validates ``subsets=`` (lists of key names) and `subset_ks` the k per subset.
`solve_subsets` solves one stratum twice and keeps the result with fewer suppressions:

- *jointly*: the greedy of `sdcsession.methods.suppression._core.solve` on all subsets at once
  (each with its own k), the restoration pass checking all of them;
- *in sequence*: each subset solved in turn on the result of the previous ones (what sdcMicro's
  ``kAnon(combs=...)`` does for every combination of keys), then one restoration pass over all
  subsets. With missing values as wildcards (alpha = 1) a later suppression never lowers an fk,
  so the subsets solved earlier stay k-anonymous.

The result therefore never has more suppressions than the subset-by-subset sequence.

`alpha_repair` enforces the session's missing-value rule when ``alpha < 1`` (a missing value of
another pattern counts only alpha, see `sdcsession.risk.frequencies`): while a record of a subset
is below its k under that rule, all its values on that subset are suppressed; when the records
below k already miss the whole subset, the records that miss it only in part lose the rest of it
(so every record ends complete or missing the whole subset, and records missing it all count
every record of a stratum of at least k records: the loop ends k-anonymous).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import ParameterError
from ..params import check_size
from ._core import SolveInfo, _violators, restore_only, solve

__all__ = ["check_subsets", "subset_ks", "solve_subsets", "alpha_repair"]


def check_subsets(value: Any) -> tuple[tuple[str, ...], ...] | None:
    """``subsets`` as a tuple of tuples of column names (None stays None); `ParameterError`
    unless it is a non-empty list of non-empty lists of distinct names."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)) or not value:
        raise ParameterError(f"subsets: expected a non-empty list of lists of key names, "
                             f"got {value!r:.60}")
    check_size("subsets", value, 10_000)
    out = []
    for i, sub in enumerate(value):
        if isinstance(sub, (str, bytes)) or not isinstance(sub, (list, tuple)) or not sub \
                or not all(isinstance(c, str) for c in sub):
            raise ParameterError(f"subsets[{i}]: expected a non-empty list of key names, "
                                 f"got {sub!r:.60}")
        if len(set(sub)) != len(sub):
            raise ParameterError(f"subsets[{i}]: a key is listed twice in {list(sub)}")
        out.append(tuple(sub))
    return tuple(out)


def subset_ks(kspec: Any, subsets: Sequence[Sequence[str]]) -> list[float]:
    """One k per subset from a checked k spec: a number (shared) or one number per subset."""
    if isinstance(kspec, float):
        return [kspec] * len(subsets)
    if isinstance(kspec, tuple) and all(isinstance(x, float) for x in kspec):
        if len(kspec) != len(subsets):
            raise ParameterError(f"k: with subsets give one number or one k per subset "
                                 f"({len(subsets)}), got {len(kspec)} values")
        return list(kspec)
    raise ParameterError("k: with subsets, k is one number or a list with one k per subset "
                         "(a k per stratum cannot be combined with subsets)")


def solve_subsets(X: np.ndarray, w: np.ndarray, keysets: list[list[int]], cards: Sequence[int],
                  ks: list[float], **kw: Any) -> SolveInfo:
    """Solve ``X`` (in place) so that key set i reaches fk >= ks[i]: the better (fewer new
    suppressions) of the joint and the sequential solution (module docstring)."""
    X0 = X.copy()
    Xj = X.copy()
    joint = solve(Xj, w, keysets, cards, ks, **kw)
    if len(keysets) == 1:
        X[:] = Xj
        return joint
    Xs = X.copy()
    seq = SolveInfo(np.zeros(X.shape, bool))
    for cols, kk in zip(keysets, ks, strict=True):
        part = solve(Xs, w, [cols], cards, kk, **kw)
        seq.rounds += part.rounds
        seq.restored += part.restored
    if kw.get("restore", True):
        seq.restored += restore_only(Xs, X0, w, keysets, cards, ks, kw.get("rank"),
                                     (Xs < 0) & (X0 >= 0))
    bad, _ = _violators(Xs, w, [np.asarray(c) for c in keysets], cards, ks)
    seq.violators = bad
    seq.unresolvable = int(bad.sum()) if joint.unresolvable else 0
    seq.suppressed = (Xs < 0) & (X0 >= 0)
    if int(seq.suppressed.sum()) < int(((Xj < 0) & (X0 >= 0)).sum()) and \
            not (bad.any() and not joint.unresolvable):
        X[:] = Xs
        return seq
    X[:] = Xj
    return joint


def alpha_repair(X: np.ndarray, w: np.ndarray | None, keysets: list[list[int]],
                 cards: Sequence[int], ks: list[float], alpha: float) -> int:
    """Suppress (in place) until every key set i has fk >= ks[i] under the wildcard weight
    ``alpha`` (Fk with weights ``w``, fk without); returns the number of values suppressed."""
    from ...risk.frequencies import _frequencies_from_codes

    if alpha >= 1.0 or len(X) == 0:
        return 0
    total = float(len(X) if w is None else w.sum())
    added = 0
    for _ in range(10_000):
        changed = False
        for cols, kk in zip(keysets, ks, strict=True):
            if total < kk - 1e-9:
                continue
            sub = X[:, cols]
            fk, Fk = _frequencies_from_codes(sub, [cards[j] for j in cols], w, alpha)
            f = fk if w is None else Fk
            bad = np.flatnonzero(f < kk - 1e-9)
            if len(bad):
                cells = X[np.ix_(bad, cols)] >= 0
                if not cells.any():
                    # the violators already miss the whole subset: they count the records
                    # partly missing it only alpha; those lose the rest of the subset too
                    miss = (X[:, cols] < 0).sum(axis=1)
                    bad = np.flatnonzero((miss > 0) & (miss < len(cols)))
                    cells = X[np.ix_(bad, cols)] >= 0
                added += int(cells.sum())
                X[np.ix_(bad, cols)] = -1
                changed = changed or bool(cells.any())
        if not changed:
            break
    return added
