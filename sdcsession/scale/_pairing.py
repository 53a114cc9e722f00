"""Pairing the partitions of Dask frames that hold the same records, partition i with
partition i, explicitly (internal plumbing of the Dask kernels and the Dask session).

Several steps need two frames side by side record by record: a frame and its treated columns,
the state before and after a step, the released and the original data, the individual risks
and the household ids. ``a.map_partitions(fn, b, align_dataframes=False)`` pairs them by
position only while the expression is as written: the result depends on two roots, so Dask's
optimiser treats every later combination of its own columns (``f.assign(x=f["a"])``,
``f["a"] - f["b"]``, a projection followed by a reduction) as two frames to align by index.
With the index that Parquet files usually give (each file or row group numbered from 0) that
alignment shuffles records against other records, or fails, and not the same way on every run.

Here the pairing is made outside the optimiser: every frame is turned into its partitions
(``to_delayed``, each frame's graph optimised on its own), the lists are checked to have the
same length, and partition i of every frame goes to one task. `map_paired` returns the results
as one new Dask frame (``dd.from_delayed``: a single root, so later projections and
reductions cannot re-pair anything); `compute_paired` computes them (per-partition counts).
Each task checks that its partitions hold the same number of records. Nothing is shuffled or
collected: the work and memory per partition are those of the kernel.

Missing values: not applicable (the partitions are passed to the kernel as they are).

Example
-------
>>> import pandas as pd, dask.dataframe as dd
>>> a = dd.from_pandas(pd.DataFrame({"x": [1, 2, 3]}), npartitions=2)
>>> b = dd.from_pandas(pd.DataFrame({"y": [10, 20, 30]}), npartitions=2)
>>> def add(p, q): return pd.DataFrame({"s": p["x"].to_numpy() + q["y"].to_numpy()}, index=p.index)
>>> map_paired(add, [a, b], meta=pd.DataFrame({"s": pd.Series(dtype="int64")}),
...            what="example").compute()["s"].tolist()
[11, 22, 33]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import SdcError, TreatmentError
from ._base import compute

__all__ = ["paired_partitions", "paired_calls", "map_paired", "compute_paired"]


def paired_partitions(frames: Sequence[Any], *, what: str,
                      error: type[SdcError] = TreatmentError) -> list[tuple[Any, ...]]:
    """The partitions of ``frames`` paired by position: one tuple of `dask.delayed` objects
    (partition i of every frame) per partition.

    Raises ``error`` (an internal error naming ``what``) when the frames do not have the same
    number of partitions once optimised: they do not hold the same records partition by
    partition, and pairing them would compare records with other records.

    >>> import pandas as pd, dask.dataframe as dd
    >>> a = dd.from_pandas(pd.DataFrame({"x": range(4)}), npartitions=2)
    >>> len(paired_partitions([a, a[["x"]]], what="example"))
    2
    """
    if not frames:
        raise error(f"internal: {what}: no frames to pair")
    parts = [list(f.to_delayed()) for f in frames]
    counts = [len(p) for p in parts]
    if len(set(counts)) > 1:
        raise error(f"internal: {what}: the frames paired record by record have different "
                    f"numbers of partitions ({counts}), so their partitions do not hold the "
                    "same records; nothing was changed")
    return list(zip(*parts))


def _run(fn: Callable[..., Any], what: str, error: type[SdcError], number: int, info: bool,
         n: int, kwargs: dict[str, Any], *parts_and_args: Any) -> Any:
    parts = parts_and_args[:n]
    lengths = [len(p) for p in parts]
    if len(set(lengths)) > 1:
        raise error(f"internal: {what}: partition {number} of the frames paired record by "
                    f"record holds {lengths} records (partitions out of step); nothing was "
                    "changed")
    if info:
        kwargs = {**kwargs, "partition_info": {"number": number}}
    return fn(*parts_and_args, **kwargs)


def paired_calls(fn: Callable[..., Any], pairs: Sequence[tuple[Any, ...]], *args: Any,
                 what: str, error: type[SdcError] = TreatmentError,
                 partition_info: bool = False, **kwargs: Any) -> list[Any]:
    """One `dask.delayed` call ``fn(*pair, *args, **kwargs)`` per pair of `paired_partitions`
    (checked to hold the same number of records). ``partition_info=True`` gives ``fn`` the
    keyword ``partition_info={"number": i}``, as `map_partitions` does. The extra arguments
    are put into the graph once, not once per partition."""
    import dask
    from dask.delayed import Delayed

    # the partitions and shared arguments are direct arguments of the call (not nested in a
    # tuple): a Delayed nested in a container does not keep the futures of a persisted input
    # alive once the frame built from the calls is the only reference left
    shared = [a if isinstance(a, Delayed) else dask.delayed(a, traverse=False) for a in args]
    shared_kw = dask.delayed(kwargs, traverse=False) if kwargs else {}
    call = dask.delayed(_run)
    return [call(fn, what, error, i, bool(partition_info), len(ps), shared_kw, *ps, *shared)
            for i, ps in enumerate(pairs)]


def map_paired(fn: Callable[..., Any], frames: Sequence[Any], *args: Any, meta: Any, what: str,
               error: type[SdcError] = TreatmentError, divisions: Any = None,
               partition_info: bool = False, paired: Sequence[tuple[Any, ...]] | None = None,
               keep_object: bool = False, **kwargs: Any) -> Any:
    """The Dask frame of ``fn(part_a, part_b, ..., *args, **kwargs)`` over the paired
    partitions of ``frames`` (see the module docstring), with ``meta`` (the empty result) and
    the ``divisions`` given (default: the first frame's when it has as many partitions, else
    unknown). ``paired``: the `paired_partitions` of ``frames`` when the caller has them.
    ``keep_object=True``: object columns of ``meta`` stay object (Dask otherwise turns them,
    and their values, into strings: a bool column blanked as pandas blanks it would hold the
    texts "True" and "False")."""
    import dask
    import dask.dataframe as dd

    pairs = paired_partitions(frames, what=what, error=error) if paired is None else paired
    parts = paired_calls(fn, pairs, *args, what=what, error=error,
                         partition_info=partition_info, **kwargs)
    if divisions is None:
        first = tuple(frames[0].divisions)
        divisions = first if len(first) == len(parts) + 1 else None
    if keep_object:
        with dask.config.set({"dataframe.convert-string": False}):
            return dd.from_delayed(parts, meta=meta, divisions=divisions, verify_meta=False)
    return dd.from_delayed(parts, meta=meta, divisions=divisions, verify_meta=False)


def compute_paired(fn: Callable[..., Any], frames: Sequence[Any], *args: Any, what: str,
                   error: type[SdcError] = TreatmentError, progress: bool | None = None,
                   **kwargs: Any) -> list[Any]:
    """``fn(part_a, part_b, ..., *args, **kwargs)`` over the paired partitions of ``frames``,
    computed together: one result per partition, in partition order."""
    pairs = paired_partitions(frames, what=what, error=error)
    calls = paired_calls(fn, pairs, *args, what=what, error=error, **kwargs)
    return list(compute(*calls, progress=progress))
