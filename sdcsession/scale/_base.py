"""Shared plumbing of the Dask kernels: recognising Dask frames, computing with Dask's progress
bar, the active `distributed` client and its workers' memory, and the per-key checks.

Nothing here imports dask at module import time except through the functions that need it, so
`is_dask_frame` can be called by code that must not import dask.

Example
-------
>>> import pandas as pd
>>> is_dask_frame(pd.DataFrame({"a": [1]}))
False
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import MeasureError, RoleError
from ..progress import progress_enabled

__all__ = ["is_dask_frame", "compute", "active_client", "worker_memory_limit", "check_known_categories",
           "partition_lengths", "delayed_partitions", "fixed_partitions", "MAX_CODE"]

#: the largest mixed-radix code of a key combination (products of cardinalities above are refused)
MAX_CODE = 2**62


def is_dask_frame(obj: Any) -> bool:
    """Whether ``obj`` is a `dask.dataframe` DataFrame (checked without importing dask).

    >>> is_dask_frame([1, 2])
    False
    """
    mod = type(obj).__module__ or ""
    return mod.startswith("dask.") and hasattr(obj, "npartitions") and hasattr(obj, "columns") \
        and hasattr(obj, "to_delayed")


def active_client() -> Any:
    """The active `distributed.Client`, or ``None`` (no client: Dask's local scheduler).

    >>> active_client() is None or hasattr(active_client(), "scheduler_info")
    True
    """
    try:
        from distributed import get_client
    except ImportError:  # pragma: no cover - distributed not installed
        return None
    try:
        return get_client()
    except ValueError:
        return None


def worker_memory_limit() -> float | None:
    """The smallest ``memory_limit`` (bytes) of the active client's workers, ``None`` without a
    client or without limits.

    >>> worker_memory_limit() is None or worker_memory_limit() > 0
    True
    """
    client = active_client()
    if client is None:
        return None
    workers = client.scheduler_info().get("workers", {})
    limits = [w.get("memory_limit") or 0 for w in workers.values()]
    limits = [m for m in limits if m > 0]
    return float(min(limits)) if limits else None


def compute(*objs: Any, progress: bool | None = None, desc: str = "dask") -> tuple[Any, ...]:
    """Compute Dask collections (or delayed objects) together, with Dask's own progress bar
    when progress bars are enabled (`sdcsession.progress.progress_enabled`): the
    `distributed` progress bar with an active client, else `dask.diagnostics.ProgressBar`.

    Returns a tuple of results, one per argument.

    >>> import dask
    >>> compute(dask.delayed(sum)([1, 2]), progress=False)
    (3,)
    """
    import dask

    if not progress_enabled(progress):
        return tuple(dask.compute(*objs))
    client = active_client()
    if client is not None:
        from distributed import progress as dprogress

        futures = client.compute(list(objs))
        dprogress(futures)
        return tuple(client.gather(futures))
    from dask.diagnostics import ProgressBar

    with ProgressBar(minimum=1.0):
        return tuple(dask.compute(*objs))


def _same(part: pd.DataFrame) -> pd.DataFrame:
    return part


def _fusable_io(ddf: Any) -> bool:
    expr = getattr(ddf, "expr", None)
    if expr is None or not hasattr(expr, "walk"):  # pragma: no cover - legacy dask
        return False
    return any(type(e).__name__.startswith(("ReadParquet", "FusedParquetIO", "FusedIO"))
               for e in expr.walk())


def fixed_partitions(ddf: Any) -> Any:
    """``ddf`` with a partitioning that no later selection of columns can change.

    Dask's query optimiser reads a Parquet dataset into fewer, larger partitions when only some
    of its columns are needed (``FusedParquetIO``), so ``ddf[["a"]]`` may have other partitions
    than ``ddf``, and its partition count is only known after optimisation. Every Dask step of a
    session computes new columns from a selection of the frame's columns and puts them back
    into the frame partition by partition: that needs both to have the same partitions. An
    identity `map_partitions` over the whole frame stops the optimiser from pushing a column
    selection into the reader, so every selection of the returned frame has exactly its
    partitions (one per file or row group, as read). Frames without a Parquet reader (e.g.
    ``dd.from_pandas``) are returned unchanged.

    Missing values: not applicable (the data are not changed).

    >>> import pandas as pd, dask.dataframe as dd
    >>> ddf = dd.from_pandas(pd.DataFrame({"a": [1, 2, 3]}), npartitions=2)
    >>> fixed_partitions(ddf).npartitions
    2
    """
    expr = getattr(ddf, "expr", None)
    if getattr(expr, "func", None) is _same or not _fusable_io(ddf):  # (already fixed)
        return ddf
    return ddf.map_partitions(_same, meta=ddf._meta)


def delayed_partitions(ddf: Any, columns: Sequence[str] | None = None) -> list[Any]:
    """The partitions of ``ddf`` (restricted to ``columns``) as a list of `dask.delayed` objects,
    in partition order."""
    sub = ddf if columns is None else ddf[list(columns)]
    return list(sub.to_delayed())


def _length(part: pd.DataFrame) -> int:
    return len(part)


def partition_lengths(ddf: Any, *, progress: bool | None = None) -> list[int]:
    """Number of records of every partition (one pass over the smallest column).

    >>> import pandas as pd, dask.dataframe as dd
    >>> partition_lengths(dd.from_pandas(pd.DataFrame({"a": range(5)}), npartitions=2), progress=False)
    [3, 2]
    """
    import dask

    cols = list(ddf.columns[:1])
    parts = delayed_partitions(ddf, cols)
    return [int(x) for x in compute(*[dask.delayed(_length)(p) for p in parts],
                                     progress=progress)]


def check_known_categories(ddf: Any, columns: Sequence[str], what: str = "keys") -> None:
    """Raise `RoleError` naming the categorical columns of ``ddf`` whose categories Dask does not
    know (each partition may have its own): their codes would differ between partitions.

    >>> import pandas as pd, dask.dataframe as dd
    >>> check_known_categories(dd.from_pandas(pd.DataFrame({"a": ["x"]}), npartitions=1), ["a"])
    """
    bad = []
    for c in columns:
        dtype = ddf._meta[c].dtype
        if isinstance(dtype, pd.CategoricalDtype) and not ddf[c].cat.known:
            bad.append(c)
    if bad:
        raise RoleError(
            f"{what}: categorical column(s) {bad} have unknown categories in this Dask frame "
            "(each partition may hold different categories, so the same code would mean "
            "different values); make them known first, e.g. ddf = ddf.categorize(columns="
            f"{bad}) or ddf[c] = ddf[c].cat.set_categories([...]) or ddf[c].astype(str)")


def mismatched_categories(column: str, found: list[pd.Index], what: str = "keys") -> RoleError:
    """The `RoleError` for a categorical key whose partitions hold different categories."""
    first = list(found[0])
    other = next(list(f) for f in found if not pd.Index(f).equals(pd.Index(first)))
    return RoleError(
        f"{what}: column {column!r} has different categories in different partitions (e.g. "
        f"{first[:6]} and {other[:6]}); give every partition the same categories, e.g. "
        f"ddf[{column!r}] = ddf[{column!r}].cat.set_categories([...]) or "
        f"ddf = ddf.categorize(columns=[{column!r}])")


def radix(cards: Sequence[int], what: str = "keys") -> int:
    """The product of ``cards`` (the mixed-radix code space), checked against `MAX_CODE`."""
    size = 1
    for c in cards:
        size *= int(c)
    if size >= MAX_CODE:
        raise MeasureError(
            f"{what}: the key variables have too many category combinations "
            f"({math.prod(int(c) for c in cards):.3g}) to be encoded as one 64-bit code on Dask; "
            "recode some keys into fewer categories")
    return size


def mixed_radix(cols: Sequence[np.ndarray], cards: Sequence[int], n: int) -> np.ndarray:
    """``sum_j c_j * stride_j`` of non-negative per-key codes of ``n`` records (``np.int64``)."""
    if not cols:
        return np.zeros(n, dtype=np.int64)
    out = np.asarray(cols[0], dtype=np.int64).copy()
    for c, m in zip(cols[1:], cards[1:]):
        out *= int(m)
        out += c
    return out


def persist_wait(obj: Any, *, progress: bool | None = None) -> Any:
    """`persist`, then wait until the result is in the workers' memory (with a distributed
    client; the local schedulers compute on ``persist`` already)."""
    out = persist(obj, progress=progress)
    if active_client() is not None:
        from distributed import wait

        wait(out)
    return out


def persist(obj: Any, *, progress: bool | None = None) -> Any:
    """``obj.persist()`` (a Dask collection computed and kept in the workers' memory), with
    Dask's progress bar when progress bars are enabled."""
    out = obj.persist()
    if progress_enabled(progress) and active_client() is not None:
        from distributed import progress as dprogress

        dprogress(out)
    return out


def partition_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of partition ``index`` for a step with seed ``seed``:
    ``default_rng(SeedSequence(seed, spawn_key=(index,)))`` — the ``index``-th child of the step's
    seed sequence, independent of every other partition's stream.

    >>> float(partition_rng(1, 0).random()) == float(partition_rng(1, 0).random())
    True
    """
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(int(index),)))


def record_stream(seed: int, skip: int) -> np.random.Generator:
    """The generator ``numpy.random.default_rng(seed)`` after ``skip`` 64-bit draws (PCG64's
    ``advance``): a partition whose first record is record ``o`` of the file continues the
    in-memory stream where the in-memory path reaches that record, so a draw of one uniform per
    record (``Generator.random``) gives every record the same number on both paths, whatever
    the partitioning.

    Missing values: not applicable (a record with a missing value still takes its draw).

    >>> a = np.random.default_rng(3).random(5)
    >>> bool((record_stream(3, 2).random(3) == a[2:]).all())
    True
    """
    bg = np.random.PCG64(int(seed))
    if skip:
        bg.advance(int(skip))
    return np.random.Generator(bg)


def add_counts(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Sum dictionaries of counts (nested dictionaries are summed key by key, lists
    concatenated).

    >>> add_counts([{"a": 1, "b": {"x": 2}}, {"a": 2, "b": {"x": 1, "y": 1}, "c": [1]}])
    {'a': 3, 'b': {'x': 3, 'y': 1}, 'c': [1]}
    """
    out: dict[str, Any] = {}
    for d in items:
        for k, v in d.items():
            if isinstance(v, dict):
                out[k] = add_counts([out.get(k, {}), v])
            elif isinstance(v, list):
                out[k] = out.get(k, []) + v
            else:
                out[k] = out.get(k, 0) + v
    return out
