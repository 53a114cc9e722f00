"""Integer encoding for the lattice search: quasi-identifiers as codes, the level-0 class table.

Every quasi-identifier is encoded once: level-0 codes per record and, per level j, an array
mapping level-0 codes to level-j codes (`Hierarchy.code_maps`); a missing value gets a code of
its own at every level (it stays missing). The records are grouped once into the level-0
classes (distinct combinations of the quasi-identifiers, usually far fewer than records) with
their sizes and the count matrices of the sensitive columns; every node of the lattice is
evaluated by generalising a class table (this one or a finer node's), never the records.

Examples
--------
>>> import pandas as pd
>>> from sdcsession.utility.hierarchy import Hierarchy
>>> df = pd.DataFrame({"zip": ["12", "13", "12", "22"]})
>>> b = encode(df, {"zip": Hierarchy.masking(2)}, [])
>>> b.sizes.tolist(), b.qis[0].n_codes
([2, 1, 1], [4, 3, 2])
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import attrs
import numpy as np
import pandas as pd

from ..utility.hierarchy import Hierarchy
from .check import build_context
from .models import Context, PrivacyModel
from .population import KMap, research_subset

__all__ = ["QI", "Base", "encode", "joint_key"]


@attrs.define(eq=False)
class QI:
    """One quasi-identifier: ``codes`` per record (missing = the extra code m), ``maps[j]``
    level-0 code → level-j code (length m + 1), ``n_codes[j]`` codes at level j (missing
    included), ``labels[j]`` labels of the level-j codes, ``lift[(a, b)]`` level-a → level-b."""

    name: Hashable
    height: int
    codes: np.ndarray
    maps: list[np.ndarray]
    n_codes: list[int]
    labels: list[np.ndarray]
    lift: dict[tuple[int, int], np.ndarray]
    leafcount: list[np.ndarray]  # per level: distinct level-0 data values under each code

    @classmethod
    def build(cls, name: Hashable, values: pd.Series, h: Hierarchy) -> QI:
        """Encode one column with its hierarchy (`ParameterError` for uncovered values)."""
        codes, maps, labels = h.code_maps(values, column=str(name))
        m = len(maps[0])
        codes = np.where(codes < 0, m, codes)
        full, n_codes = [], []
        for mp in maps:
            k = int(mp.max(initial=-1)) + 1
            full.append(np.r_[mp, k].astype(np.int64))
            n_codes.append(k + 1)
        lift = {}
        for a in range(h.height + 1):
            for b in range(a, h.height + 1):
                up = np.zeros(n_codes[a], dtype=np.int64)
                up[full[a]] = full[b]
                lift[(a, b)] = up
        leafcount = [np.bincount(mp, minlength=k) for mp, k in zip(full, n_codes, strict=True)]
        for lc in leafcount:
            lc[-1] = 1  # missing: one value of its own
        return cls(name, h.height, codes.astype(np.int64), full, n_codes, labels, lift, leafcount)


def joint_key(codes: np.ndarray, radices: Sequence[int]) -> np.ndarray:
    """Mixed-radix combination of the rows of ``codes`` (q × G); re-factorised when the product
    of the radices would overflow 63 bits.

    >>> joint_key(np.array([[0, 1, 1], [2, 0, 2]]), [2, 3]).tolist()
    [2, 3, 5]
    """
    q, g = codes.shape
    key = np.zeros(g, dtype=np.int64)
    size = 1
    for i in range(q):
        r = int(radices[i])
        if size * r >= 2**62:
            key = pd.factorize(key)[0].astype(np.int64)
            size = int(key.max(initial=0)) + 1
        key = key * r + codes[i]
        size *= r
    return key


@attrs.define(eq=False)
class Base:
    """The level-0 class table: ``qis``, ``class_of`` per record (−1: all quasi-identifiers
    missing, a suppressed record), ``codes`` (q × G0), ``sizes`` (released records per class:
    the research subset's with a `DeltaPresence`, else all), ``sensitive`` count matrices (over
    the released records), ``universe`` (all records per class, with a research subset only),
    the population table's codes and counts, the model context, ``n`` released records,
    ``released`` (boolean per record, or None: all) and ``n_records`` of the data."""

    qis: list[QI]
    class_of: np.ndarray
    codes: np.ndarray
    sizes: np.ndarray
    sensitive: dict[Hashable, np.ndarray]
    universe: np.ndarray | None
    pop_codes: np.ndarray | None
    pop_counts: np.ndarray | None
    ctx: Context
    n: int
    released: np.ndarray | None = None
    n_records: int = 0

    @property
    def n_presuppressed(self) -> int:
        """Released records whose quasi-identifiers are all missing already."""
        pre = self.class_of < 0
        return int((pre if self.released is None else pre & self.released).sum())


def encode(data: pd.DataFrame, hierarchies: Mapping[Hashable, Hierarchy],
           models: Sequence[PrivacyModel]) -> Base:
    """Encode ``data`` for the search (see the module docstring)."""
    names = list(hierarchies)
    n = len(data)
    sub = research_subset(models, n)
    kmaps = [m for m in models if isinstance(m, KMap) and m.estimator is None]
    pops = [m.frame() for m in kmaps]
    qis = []
    pcodes = []
    for c in names:  # population values are encoded together with the data's
        vals = pd.concat([data[c].astype(object), *[p[c].astype(object) for p in pops]],
                         ignore_index=True) if pops else data[c]
        qi = QI.build(c, vals, hierarchies[c])
        pcodes.append(qi.codes[n:])
        qi.codes = qi.codes[:n]
        qis.append(qi)
    q = len(qis)
    rec = np.stack([qi.codes for qi in qis]) if q else np.zeros((0, n), dtype=np.int64)
    all_na = np.ones(n, dtype=bool)
    for qi in qis:
        all_na &= qi.codes == qi.n_codes[0] - 1
    key = joint_key(rec, [qi.n_codes[0] for qi in qis])
    class_of = np.full(n, -1, dtype=np.int64)
    kept = ~all_na
    ids, uniq = pd.factorize(key[kept])
    class_of[kept] = ids
    g = len(uniq)
    codes = np.zeros((q, g), dtype=np.int64)
    codes[:, ids] = rec[:, kept]
    ctx = build_context(data, models, sub)
    if sub is None:
        sizes = np.bincount(ids, minlength=g).astype(np.int64)
        universe = None
        rid, rows = ids, kept
    else:
        universe = np.bincount(ids, minlength=g).astype(np.int64)
        rsub = sub[kept]
        sizes = np.bincount(ids[rsub], minlength=g).astype(np.int64)
        rid, rows = ids[rsub], kept & sub
    sens = {c: np.bincount(rid * d.m + d.codes[rows], minlength=g * d.m).reshape(g, d.m)
            for c, d in ctx.domains.items()}
    pop_codes = pop_counts = None
    if pops:
        pop_codes = np.stack(pcodes) if q else np.zeros((0, sum(map(len, pops))), np.int64)
        pop_counts = np.concatenate([p["count"].to_numpy(np.float64) for p in pops])
    return Base(qis, class_of, codes, sizes, sens, universe, pop_codes, pop_counts, ctx,
                ctx.n, sub, n)
