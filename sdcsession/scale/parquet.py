"""Reading and writing partitioned Parquet datasets, and the fingerprint of a Dask frame.

`read_parquet` opens a partitioned Parquet dataset lazily (one partition per file or row group).
`write_parquet` writes a Dask frame as a partitioned Parquet dataset (one file per partition,
written by the workers in parallel) into a new directory; an existing path is replaced only with
``overwrite=True``, and never the dataset the data were read from. `fingerprint` is the recipe
fingerprint of `sdcsession.session.recipes.recipe.fingerprint` computed partition by partition (SHA-256
is a stream: feeding the partitions' row hashes in order gives the in-memory digest when the
index is the same).

Example
-------
>>> import tempfile, os, pandas as pd, dask.dataframe as dd
>>> d = tempfile.mkdtemp()
>>> ddf = dd.from_pandas(pd.DataFrame({"a": [1, 2, 3]}), npartitions=2)
>>> p = write_parquet(ddf, os.path.join(d, "out"), progress=False)
>>> read_parquet(p).compute()["a"].tolist()
[1, 2, 3]
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataFileError, ParameterError
from ..progress import progress_enabled
from ._base import active_client

__all__ = ["read_parquet", "write_parquet", "fingerprint"]


def read_parquet(path: Any, *, columns: list[str] | None = None, index: str | None = None,
                 **kw: Any) -> Any:
    """A lazy Dask frame of the Parquet dataset at ``path`` (a directory of files or one file).

    ``index``: a column to use as the index (its divisions are computed from the Parquet
    statistics when the files are sorted by it, which strata treatments need). Other keyword
    arguments go to `dask.dataframe.read_parquet`.
    """
    import dask.dataframe as dd

    if not isinstance(path, (str, Path)) or not str(path):
        raise ParameterError(f"path: expected a Parquet file or directory, got {path!r:.60}")
    if not Path(path).exists():
        raise DataFileError(f"path: no Parquet dataset at {str(path)!r}")
    if columns is not None:
        if isinstance(columns, (str, bytes)) or not all(isinstance(c, str) for c in columns) \
                or not len(columns):
            raise ParameterError(f"columns: expected a non-empty list of column names, got "
                                 f"{columns!r:.80}")
        columns = [c for c in dict.fromkeys(columns) if c != index]
    if index is not None and not isinstance(index, str):
        raise ParameterError(f"index: expected a column name, got {index!r:.60}")
    if index is not None:
        kw.setdefault("calculate_divisions", True)
    import dask

    try:
        # the columns in the dtypes pandas's reader gives (pandas 3's ``str``, not Dask's
        # conversion to ``string[pyarrow]``): the session, its measures and its release are
        # the ones the pandas path gives for the same file
        with dask.config.set({"dataframe.convert-string": False}):
            ddf = dd.read_parquet(str(path), index=index, **kw)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise DataFileError(f"path: cannot read {str(path)!r} as Parquet ({e})") from e
    if columns is not None:
        absent = [c for c in columns if c not in ddf.columns]
        if absent:
            raise DataFileError(f"columns: {absent} not in the Parquet dataset {str(path)!r} "
                                f"(its columns: {[str(c) for c in ddf.columns][:30]})")
        ddf = ddf[columns]
    return ddf


def _part_name(i: int) -> str:
    return f"part.{i:06d}.parquet"


def write_parquet(ddf: Any, path: Any, *, overwrite: bool = False, protect: Any = None,
                  write_index: bool = False, progress: bool | None = None, **kw: Any) -> Path:
    """Write the Dask frame ``ddf`` as a partitioned Parquet dataset into the directory ``path``;
    returns the path. Refuses an existing path unless ``overwrite=True`` and a ``protect`` path
    (the source dataset) always (`DataFileError`). The files are numbered with leading zeros
    (``part.000000.parquet``, ...), so a reader that takes them in name order (pyarrow, pandas)
    reads the records in the frame's order, also beyond ten partitions."""
    if not isinstance(path, (str, Path)) or not str(path):
        raise ParameterError(f"path: expected a directory path, got {path!r:.60}")
    out = Path(path)
    for p in [protect] if isinstance(protect, (str, Path)) else list(protect or []):
        try:
            if Path(p).resolve() == out.resolve():
                raise DataFileError(f"path: {str(out)!r} is the dataset the data were read from; "
                                    "write the release elsewhere")
        except OSError:  # pragma: no cover
            pass
    if out.exists():
        if not overwrite:
            raise DataFileError(f"path: {str(out)!r} exists; pass overwrite=True to replace it")
        if out.is_dir():
            shutil.rmtree(out)
        else:
            out.unlink()
    if not out.parent.exists():
        raise DataFileError(f"path: the directory {str(out.parent)!r} does not exist")
    kw.setdefault("name_function", _part_name)
    ddf, objects = _common_dtypes(ddf)
    if objects and "schema" not in kw:
        kw["schema"] = _schema(ddf, objects, out, write_index)
    task = ddf.to_parquet(str(out), write_index=write_index, compute=False, **kw)
    if progress_enabled(progress):
        from ._base import compute

        compute(task, progress=True)
    else:
        task.compute()
    return out


def _kinds(part: pd.DataFrame) -> tuple[pd.Series, dict[str, Any]]:
    """A partition's dtypes, and the Arrow type of each object column's values (or the error
    pyarrow gives for them)."""
    import pyarrow as pa

    objects: dict[str, Any] = {}
    for c in part.columns:
        if part[c].dtype == object:
            try:
                objects[c] = pa.Array.from_pandas(part[c]).type
            except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
                objects[c] = e
    return part.dtypes, objects


def _common_dtypes(ddf: Any) -> tuple[Any, dict[str, list[Any]]]:
    """``ddf`` with every numeric column in one dtype in all partitions: the common type of its
    partitions' dtypes (int64 and float64: float64), which the pandas path gives for the whole
    file. A step can change a column's dtype in some partitions only (local suppression
    blanks int keys to float64 where it suppresses) and not in the frame's meta; Parquet needs
    one schema. One pass reads the partitions' dtypes; other columns are left as they are.
    Also returns the Arrow types of every object column's values, partition by partition
    (read in the same pass; see `_schema`)."""
    import dask

    from ._base import compute

    found = compute(*[dask.delayed(_kinds)(part) for part in ddf.to_delayed()],
                    progress=False)
    kinds = [k for k, _ in found]
    meta = ddf._meta
    objects = {c: [o[c] for _, o in found if c in o] for c in meta.columns
               if meta[c].dtype == object}
    common = {}
    for c in meta.columns:
        seen = {k[c] for k in kinds}
        if all(pd.api.types.is_numeric_dtype(t) and isinstance(t, np.dtype) for t in seen):
            t = np.result_type(*seen) if seen else meta[c].dtype
            if any(x != t for x in seen) or meta[c].dtype != t:
                common[c] = t
    if not common:
        return ddf, objects
    return ddf.map_partitions(lambda p: p.astype(common), meta=meta.astype(common)), objects


def _schema(ddf: Any, objects: dict[str, list[Any]], out: Path, write_index: bool) -> Any:
    """The Arrow schema of the export: Dask's own (from the frame's meta) for every column but
    the object columns, whose type is the one Arrow infers from their values on the whole file
    (the partitions' types unified; pyarrow's rule for the pandas path's one table): Dask would
    infer it from the meta, which holds no value of an object column. Values Arrow cannot type
    (e.g. numbers and text in one column) raise `DataFileError` naming the column, as the
    pandas path's writer does."""
    import pyarrow as pa

    meta = ddf._meta_nonempty
    base = pa.Schema.from_pandas(meta.drop(columns=list(objects)),
                                 preserve_index=write_index).remove_metadata()
    types = {}
    for c, found in objects.items():
        bad = [t for t in found if isinstance(t, Exception)]
        try:
            if bad:
                raise bad[0]
            types[c] = pa.unify_schemas([pa.schema([(c, t)]) for t in found] or
                                        [pa.schema([(c, pa.null())])],
                                        promote_options="permissive").field(c).type
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise DataFileError(f"{out}: cannot write as parquet: {type(e).__name__}: {e} "
                                f"(column {c!r})") from e
    fields = [pa.field(c, types[c]) if c in types else base.field(c) for c in meta.columns]
    index = [f for f in base if f.name not in set(meta.columns)]
    return pa.schema(fields + index)


def _row_bytes(part: pd.DataFrame) -> bytes:
    try:
        rows = pd.util.hash_pandas_object(part, index=True).to_numpy()
    except TypeError:  # unhashable cells (lists): hash their text
        rows = pd.util.hash_pandas_object(part.astype(str), index=True).to_numpy()
    return np.ascontiguousarray(rows).tobytes()


def fingerprint(ddf: Any) -> str:
    """SHA-256 fingerprint of a Dask frame (column names, dtypes, row hashes including the
    index), equal to the in-memory fingerprint of the same data with the same index."""
    import dask

    h = hashlib.sha256()
    h.update(json.dumps([[str(c), str(t)] for c, t in ddf._meta.dtypes.items()]).encode())
    parts = [dask.delayed(_row_bytes)(p) for p in ddf.to_delayed()]
    client = active_client()
    if client is not None:
        futures = client.compute(parts)
        for f in futures:  # in partition order, one at a time on the client
            h.update(f.result())
            f.release()
    else:
        for chunk in dask.compute(*parts):
            h.update(chunk)
    return "sha256:" + h.hexdigest()
