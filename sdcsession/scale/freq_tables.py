"""fk and Fk of the key combinations of a Dask frame, equal to `sdcsession.risk.frequencies`.

The definition is the in-memory one (missing key values are wildcards; a compatible record with
missing keys in another pattern counts ``alpha``): for each union ``U`` of two present missing
patterns and each pattern ``P`` inside it, the contributing records (those with
``pattern | P == U``) are counted per combination of the keys observed outside ``U``, and the
counts are added to the records of pattern ``P`` — exactly the algorithm of the pandas kernel.

On Dask it runs in three passes, each partition a task:

1. `scan`: global codes of every key (categories in order of first appearance) and
   the missing patterns present;
2. per partition the contributions of its records to every (U, P) table, folded over the
   partitions in order (`sdcsession.scale._ordered`), so the weighted sums equal ``bincount`` on
   the whole file bit for bit;
3. per partition the tables are looked up for its records (lazily: a Dask frame of fk, Fk).

The tables hold one row per distinct key combination present (never per record); they must fit in
a worker's memory.

Reference: Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4), sec. 3.1 (sdcMicro freqCalc).

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> df = pd.DataFrame({"sex": ["m", "m", "f", None], "w": [10.0, 20.0, 5.0, 1.0]})
>>> f = frequencies(dd.from_pandas(df, npartitions=2), ["sex"], weight="w", progress=False)
>>> f.compute()
   fk    Fk
0   3  31.0
1   3  31.0
2   2   6.0
3   4  36.0
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs
import numpy as np
import pandas as pd

from ..errors import MeasureError
from ..risk._codes import as_keys, check_alpha, weights_of
from ._base import delayed_partitions, mixed_radix, radix
from ._encode import KeyPlan, encode_part, pattern_bits, scan
from ._ordered import empty_carry, local_table, lookup, ordered_fold

__all__ = ["frequencies", "frequency_model", "FrequencyModel", "check_frame_columns"]


def check_frame_columns(ddf: Any, columns: Sequence[str], what: str) -> None:
    """Raise `MeasureError` naming the ``columns`` absent from the Dask frame ``ddf``."""
    missing = [c for c in columns if c not in ddf.columns]
    if missing:
        raise MeasureError(
            f"{what}: unknown column(s) {missing}; the data has {[str(c) for c in ddf.columns]}")


def _pairs(plan: KeyPlan, alpha: float) -> list[tuple[int, int, list[int]]]:
    """``(union, pattern, observed keys)`` in the order of the in-memory kernel."""
    unions: dict[int, list[int]] = {}
    for pi in plan.patterns:
        for q in plan.patterns:
            if alpha == 0.0 and q not in (0, pi):
                continue
            targets = unions.setdefault(pi | q, [])
            if pi not in targets:
                targets.append(pi)
    p = len(plan.keys)
    out = []
    for u, targets in unions.items():
        obs = [j for j in range(p) if not (u >> j) & 1]
        radix([plan.cards[j] for j in obs])
        out.extend((u, pi, obs) for pi in targets)
    return out


def _codes_and_weights(part: pd.DataFrame, plan: KeyPlan, weight: str | None,
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    codes = encode_part(part, plan)
    bits = pattern_bits(part, plan.keys)
    w = weights_of(part, weight) if weight is not None and len(part) else None
    return codes, bits, w


def _group(codes: np.ndarray, rows: np.ndarray, obs: list[int], cards: list[int]) -> np.ndarray:
    return mixed_radix([codes[rows, j] for j in obs], [cards[j] for j in obs], len(rows))


def _contributions(part: pd.DataFrame, plan: KeyPlan, pairs: list, weight: str | None,
                   alpha: float) -> list[tuple]:
    codes, bits, w = _codes_and_weights(part, plan, weight)
    n = len(part)
    out = []
    for u, pi, obs in pairs:
        mask = (bits | pi) == u
        if mask.all():  # every record (no missing keys): no copies of the rows
            g = mixed_radix([codes[:, j] for j in obs], [plan.cards[j] for j in obs], n)
            cb = bits
        else:
            ci = np.flatnonzero(mask)
            g = _group(codes, ci, obs, plan.cards)
            cb = bits[ci]
        same = (cb == 0) | (cb == pi)
        factor = None if alpha == 1.0 or same.all() else np.where(same, 1.0, alpha)
        if weight is None:
            out.append(local_table(g, None if factor is None else factor[:, None]))
            continue
        wc = np.zeros(0) if w is None else w if len(cb) == n else w[mask]
        if factor is None:  # counts exact as integers; only the weights are held per record
            out.append(local_table(g, wc[:, None], count=True))
        else:
            out.append(local_table(g, np.column_stack([factor, wc * factor])))
    return out


def _lookup_part(part: pd.DataFrame, tables: list, plan: KeyPlan, pairs: list,
                 weight: str | None, int_fk: bool) -> pd.DataFrame:
    codes, bits, _ = _codes_and_weights(part, plan, None)
    n = len(part)
    fk = np.zeros(n, dtype=np.float64)
    Fk = np.zeros(n, dtype=np.float64) if weight is not None else fk
    for (_u, pi, obs), table in zip(pairs, tables):
        ti = np.flatnonzero(bits == pi)
        if not len(ti):
            continue
        got = lookup(table, _group(codes, ti, obs, plan.cards))
        fk[ti] += got[:, 0]
        if weight is not None:
            Fk[ti] += got[:, 1]
    fk_out = fk.astype(np.int64) if int_fk else fk
    return pd.DataFrame({"fk": fk_out, "Fk": Fk.copy() if weight is None else Fk},
                        index=part.index)


@attrs.frozen(eq=False)
class FrequencyModel:
    """The global frequency tables of a Dask frame (see `frequency_model`); `frame` gives
    fk and Fk per record as a lazy Dask frame aligned with the data's partitions."""

    keys: tuple[str, ...]
    weight: str | None
    alpha: float
    plan: KeyPlan
    pairs: list
    tables: Any  # a persisted dask Delayed of the list of (keys, sums) tables

    @property
    def int_fk(self) -> bool:
        """Whether fk is an integer column (as in memory: alpha 0 or 1, or no missing key)."""
        return self.alpha in (0.0, 1.0) or not self.plan.has_missing

    def frame(self, ddf: Any) -> Any:
        """fk and Fk of every record of ``ddf`` (the frame the model was built on)."""
        cols = list(self.keys)
        meta = pd.DataFrame({"fk": pd.Series(dtype="int64" if self.int_fk else "float64"),
                             "Fk": pd.Series(dtype="float64")})
        return ddf[cols].map_partitions(_lookup_part, self.tables, self.plan, self.pairs,
                                        self.weight, self.int_fk, meta=meta)


def frequency_model(ddf: Any, keys: str | Iterable[str], *, weight: str | None = None,
                    alpha: float = 1.0, progress: bool | None = None) -> FrequencyModel:
    """Build the global frequency tables of ``keys`` on the Dask frame ``ddf`` (two passes; the
    tables are persisted on the cluster). See the module docstring for the algorithm.

    >>> import pandas as pd, dask.dataframe as dd
    >>> ddf = dd.from_pandas(pd.DataFrame({"a": ["x", "x", "y"]}), npartitions=2)
    >>> frequency_model(ddf, "a", progress=False).frame(ddf).compute()["fk"].tolist()
    [2, 2, 1]
    """
    import dask

    keys = as_keys(keys)
    check_frame_columns(ddf, keys + ([weight] if weight is not None else []),
                        "keys" if weight is None or weight in ddf.columns else "weight")
    a = check_alpha(alpha)
    plan = scan(ddf, keys, progress=progress)
    if plan.n == 0:
        raise MeasureError("data: the Dask frame has no records")
    pairs = _pairs(plan, a)
    cols = keys + ([weight] if weight is not None and weight not in keys else [])
    ncols = 1 if weight is None else 2
    carry: Any = [empty_carry(ncols) for _ in pairs]
    tables = ordered_fold(delayed_partitions(ddf, cols), _contributions, carry, plan, pairs,
                          weight, a, progress=progress, many=True)
    return FrequencyModel(keys=tuple(keys), weight=weight, alpha=a, plan=plan, pairs=pairs,
                          tables=dask.delayed(tables, traverse=False).persist())


def frequencies(ddf: Any, keys: str | Iterable[str], *, weight: str | None = None,
                alpha: float = 1.0, progress: bool | None = None) -> Any:
    """Sample frequency ``fk`` and estimated population frequency ``Fk`` of every record of the
    Dask frame ``ddf``: a lazy Dask frame (columns ``fk``, ``Fk``) with ``ddf``'s partitions,
    equal to `sdcsession.risk.frequencies` on the same data (bit for bit).

    fk_i = sum_j c_ij and Fk_i = sum_j c_ij w_j over the records j compatible with i (missing key
    values are wildcards; c_ij = 1 when j is complete or has i's missing pattern, else
    ``alpha``). The global tables are computed at once (two passes); the frame is lazy.

    Reference: Templ, Kowarik & Meindl (2015), J. Stat. Softw. 67(4), sec. 3.1.

    Example
    -------
    >>> import pandas as pd, dask.dataframe as dd
    >>> ddf = dd.from_pandas(pd.DataFrame({"a": ["x", "x", "y"], "b": [1, 1, 2]}), npartitions=2)
    >>> frequencies(ddf, ["a", "b"], progress=False).compute()["fk"].tolist()
    [2, 2, 1]
    """
    return frequency_model(ddf, keys, weight=weight, alpha=alpha, progress=progress).frame(ddf)
