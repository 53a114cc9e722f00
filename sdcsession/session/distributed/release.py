"""The released data and the export of a Dask session: the same records, columns and order as
a pandas session with the same data and seed.

The release order is a sort on the order key of every record's global position
(`sdcsession.session.release.order.order_keys`): each partition adds its offset to its local
positions, the key column is made the index and dropped again, so the partitions hold the
records in the pandas session's order.

The sort is one shuffle in bounded memory per partition, without a pass to find its
boundaries: the keys are the outputs of a bijective mixer, spread evenly over the 64-bit
integers, so the k-th of P output partitions takes the keys of the k-th of P equal ranges of
the int64 line (`order_divisions`; about n / P records each). `set_index` with these known
divisions moves every record to its range's partition (Dask's shuffle: peer to peer with a
distributed client, spilling to disk) and sorts each partition on its own; no partition and no
worker ever holds more than its range's records.

Example
-------
>>> import pandas as pd, dask.dataframe as dd, sdcsession as sdc
>>> df = pd.DataFrame({"sex": list("mfmfmf"), "hid": [1, 1, 2, 2, 3, 3]})
>>> s = sdc.SdcSession(dd.from_pandas(df, npartitions=2), keys=["sex"], seed=1)
>>> p = sdc.SdcSession(df, keys=["sex"], seed=1)
>>> released_frame(s, shuffle=True).compute()["hid"].tolist() == \\
...     p.data_for_release(shuffle=True)["hid"].tolist()
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import ParameterError
from ..release.categories import without_vanished
from ..release.check import enforce_release_check, export_options, record_export, release_check
from ..release.order import ORDER_COLUMN, order_keys, order_seed

if TYPE_CHECKING:  # pragma: no cover
    from ..session import SdcSession

__all__ = ["released_frame", "export", "order_divisions"]


def order_divisions(npartitions: int) -> list[int]:
    """The boundaries of ``npartitions`` equal ranges of the int64 line (the divisions of the
    released frame): ``d_k = -2^63 + floor(k * 2^64 / P)`` for k = 0..P-1 and ``d_P = 2^63 - 1``
    (the last range includes its end).

    Missing values: not applicable.

    >>> order_divisions(2)
    [-9223372036854775808, 0, 9223372036854775807]
    """
    p = max(int(npartitions), 1)
    return [-2**63 + (k * 2**64) // p for k in range(p)] + [2**63 - 1]


def _with_keys(part: pd.DataFrame, offsets: list[int], seed: int,
               partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    start = offsets[int(partition_info["number"])] if partition_info else 0
    keys = order_keys(np.arange(start, start + len(part)), seed)
    return part.assign(**{ORDER_COLUMN: keys})


def _range_counts(start: int, length: int, seed: int, divisions: list[int]) -> np.ndarray:
    """How many of the order keys of positions ``start .. start + length - 1`` fall in each
    range of ``divisions`` (Dask's rule: ``d_k <= key < d_{k+1}``, the last range closed)."""
    keys = order_keys(np.arange(start, start + length), seed)
    out = np.searchsorted(np.asarray(divisions[1:-1], dtype=np.int64), keys, side="right")
    return np.bincount(out, minlength=len(divisions) - 1)


def _fresh_index(part: pd.DataFrame, starts: list[int],
                 partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    start = starts[int(partition_info["number"])] if partition_info else 0
    return part.set_axis(pd.RangeIndex(start, start + len(part)))


def released_frame(session: SdcSession, *, shuffle: bool, index: bool = True) -> Any:
    """The released Dask frame: without the direct identifiers and the categories that only
    treated-away records used (`without_vanished`); with ``shuffle`` sorted in the release
    order with the pandas path's fresh index 0..n-1 (``index=False``: an index per partition,
    for a writer that does not write it). The index needs the number of records of
    every output partition: the order keys are a function of the positions only, so they are
    counted per range without reading the data (one task per input partition)."""
    import dask

    from ...scale._base import compute, partition_lengths

    data = session.state.data
    drop = [c for c in session.roles.identifiers if c in data.columns]
    if drop:
        data = data.drop(columns=drop)
    data = without_vanished(data, session.original)
    if not shuffle:
        return data
    lengths = partition_lengths(data, progress=False)
    offsets = [int(v) for v in np.concatenate([[0], np.cumsum(lengths)[:-1]])]
    meta = data._meta.assign(**{ORDER_COLUMN: np.zeros(0, dtype=np.int64)})
    seed, divisions = order_seed(session), order_divisions(data.npartitions)
    keyed = data.map_partitions(_with_keys, offsets, seed, meta=meta)
    out = keyed.set_index(ORDER_COLUMN, divisions=divisions).reset_index(drop=True)
    if not index:
        return out
    counts = compute(*[dask.delayed(_range_counts)(o, n, seed, divisions)
                       for o, n in zip(offsets, lengths)], progress=False)
    sizes = np.sum(counts, axis=0) if counts else np.zeros(len(divisions) - 1, dtype=np.int64)
    starts = [int(v) for v in np.concatenate([[0], np.cumsum(sizes)[:-1]])]
    return out.map_partitions(_fresh_index, starts, meta=out._meta)


def export(session: SdcSession, path: Any, *, force: bool = False, overwrite: bool = False,
           shuffle: bool = True, protect: Any = None, k: int | None = None,
           risk_threshold: float = 0.1, **kw: Any) -> Any:
    """Run the release check, then write the released data (`released_frame`) as a
    partitioned Parquet dataset into the directory ``path`` (`sdcsession.scale.parquet`)."""
    from ...scale.parquet import write_parquet

    protected = export_options(session, force, overwrite, shuffle, protect)
    if not isinstance(path, (str, bytes)) and not hasattr(path, "__fspath__"):
        raise ParameterError(f"path: expected a directory path (str or pathlib.Path), got "
                             f"{path!r:.60}")
    if str(path).lower().endswith((".csv", ".tsv", ".dta", ".sav", ".xpt", ".sas7bdat")):
        raise ParameterError(f"path: a Dask session exports a partitioned Parquet dataset (a "
                             f"directory, e.g. 'release/' or 'release.parquet'), got {path!r}")
    findings = release_check(session, k=k, risk_threshold=risk_threshold, shuffle=shuffle)
    enforce_release_check(findings, force)
    out = released_frame(session, shuffle=shuffle, index=False)  # the index is not written
    written = write_parquet(out, path, overwrite=overwrite, protect=protected, **kw)
    record_export(session, written, shuffle, findings)
    return written
