"""The order of the released records: a seeded random order by default, the same on pandas and
on Dask.

The released file lists its records in a random order (μ-ARGUS: "write records in random
order"; sdcApp warns that the order of the records can reconstruct the original file). The order
is a sort on a key computed from each record's global position p (0..n-1) alone:

    key(p) = mix64(p + s mod 2^64)

with ``mix64`` the finaliser of SplitMix64 (Steele, Lea and Flood 2014, "Fast splittable
pseudorandom number generators", OOPSLA), a bijection of 64-bit integers, so no two records get
the same key; ``s`` is the order seed (`order_seed`: from the session seed, the depth and the
seed of HEAD's step, so it is recorded and replays with the recipe). Because the key of a record
depends only on its position, a Dask frame gets the same order partition by partition as a
pandas frame (each partition adds its offset to its local positions).

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"a": range(6)})
>>> shuffled(df, 1)["a"].tolist() == shuffled(df, 1)["a"].tolist()
True
>>> sorted(shuffled(df, 1)["a"]) == list(range(6))
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from ..session import SdcSession

__all__ = ["order_keys", "order_seed", "shuffled", "ORDER_COLUMN"]

#: the temporary column holding the order key of a Dask frame while it is sorted
ORDER_COLUMN = "__sdc_release_order__"
_SALT = 0x5EED_0DE5  # separates the order seed from the step seeds


def order_seed(session: SdcSession) -> int:
    """The seed of the release order of ``session``'s HEAD (a 64-bit integer): derived from the
    session seed, the depth of HEAD and its step seed, all of them recorded in the recipe."""
    head = session.head
    ss = np.random.SeedSequence([int(session.seed), int(head.depth), int(head.seed or 0), _SALT])
    return int(ss.generate_state(1, np.uint64)[0])


def order_keys(positions: Any, seed: int) -> np.ndarray:
    """The order keys (int64) of records at global ``positions`` (see the module docstring):
    ``mix64(p + seed)`` as unsigned 64-bit integers, shifted by 2^63 into int64 so that their
    order as signed integers is their order as unsigned ones.

    Missing values: none (positions are whole numbers).

    >>> order_keys([0, 1, 2], 7).tolist() == order_keys([0, 1, 2], 7).tolist()
    True
    """
    z = np.asarray(positions, dtype=np.uint64) + np.uint64(seed)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z ^ np.uint64(1 << 63)).view(np.int64)


def shuffled(df: pd.DataFrame, seed: int, *, keep_index: bool = False) -> pd.DataFrame:
    """``df`` in the release order of ``seed`` with a fresh index 0..n-1 (the original row labels
    would give the original order back; ``keep_index`` keeps them for a writer that needs them
    and does not write the index)."""
    order = np.argsort(order_keys(np.arange(len(df)), seed), kind="stable")
    out = df.iloc[order]
    return out if keep_index else out.reset_index(drop=True)
