"""Reading microdata files (`read_data`): CSV/TSV, Parquet, Stata, SPSS and SAS."""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import (
    DataFileError,
    MissingDependencyError,
    ParameterError,
    SdcError,
    SdcWarning,
    user_stacklevel,
)
from .compressed import (
    DECOMPRESSION_FLOOR,
    DECOMPRESSION_RATIO,
    check_expansion,
    compression_of,
    open_compressed,
)
from .formats import (
    _DELIMITERS,
    _check_columns,
    _pyreadstat,
    _require_pyarrow,
    format_of,
    sniff_delimiter,
)
from .labels import _labelled_to_categories

__all__ = ["read_data"]


def read_data(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    columns: Iterable[str] | None = None,
    categorical: Iterable[str] | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    max_decompressed: int | None = None,
    **kw: Any,
) -> pd.DataFrame:
    """Read a microdata file into a DataFrame, choosing the reader from the extension.

    Algorithm: the format comes from ``format`` or the extension (see the module table). CSV: the
    delimiter is ``sep`` if given, tab for .tsv/.tab, else sniffed (`sniff_delimiter`; a
    comma when nothing splits the lines). When ``columns``
    are requested and the file came out as one column whose header contains another delimiter, a
    `DataFileError` says which ``sep`` to pass. Stata/SPSS: value labels become categories
    (see module docstring). ``categorical`` columns are converted to ``category`` dtype (for CSV,
    which has no types). Extra keyword arguments go to the underlying reader
    (``pandas.read_csv``, ``pandas.read_parquet`` or ``pyreadstat.read_*``).

    Parameters
    ----------
    path: the file, or a directory of Parquet files (a dataset written by Dask, Spark or a Dask
        session's export: its files read in natural name order, the index a new 0..n-1 range;
        Hive ``key=value`` folders are refused).
    format: force a format ("csv", "tsv", "parquet", "stata", "spss", "sas7bdat", "xport").
    columns: read only these columns (all must exist), in this order.
    categorical: columns to return as pandas categoricals.
    sep: CSV delimiter (otherwise sniffed).
    encoding: text encoding of CSV (default utf-8) or of Stata/SPSS/SAS (default from the file).
    max_decompressed: the most bytes a compressed input may expand to; by default 200 times the
        file's size, and always 64 MiB (see ``sdcsession.io.compressed``).

    Compressed input: CSV/TSV compressed with gzip, bzip2, xz or zip (one member) is decompressed
    as a bounded stream; Parquet, .zsav and SAS files are checked from their metadata. Past the
    limit the read stops with a `DataFileError` (a "decompression bomb" never fills the memory).

    Raises
    ------
    DataFileError: missing or unreadable file, unknown extension, wrong delimiter, unknown columns,
        a compressed input expanding beyond the limit.
    ParameterError: ``path``, ``columns``, ``categorical``, ``sep``, ``encoding`` or
        ``max_decompressed`` of the wrong type.
    MissingDependencyError: the optional package for the format is not installed.

    Reference: Stata .dta format 118/119 and SPSS .sav via ReadStat (pyreadstat); Apache Parquet.

    Example
    -------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "x.csv"
    ...     _ = p.write_text("region;age\\nR01;33\\nR02;\\n")
    ...     df = read_data(p, categorical=["region"])
    >>> df["region"].dtype.name, df["age"].isna().tolist()
    ('category', [False, True])
    """
    p, cols, cats = _check_arguments(path, format, columns, categorical, sep, encoding,
                                     max_decompressed)
    if p.is_dir() and format in (None, "parquet"):
        return _finish(_read_parquet_dataset(p, cols, kw, max_decompressed), p, cats)
    fmt = format_of(p, format)
    if not p.exists():
        raise DataFileError(f"{p}: no such file")
    if p.is_dir():
        raise DataFileError(f"{p}: is a directory, expected a data file")
    try:
        if fmt in ("csv", "tsv"):
            df = _read_csv(p, fmt, cols, sep, encoding or "utf-8", kw, max_decompressed)
        elif fmt == "parquet":
            _require_pyarrow()
            import pyarrow.parquet as pq

            meta = pq.read_metadata(p)
            if cols is not None:
                _check_columns(list(pq.read_schema(p).names), cols, p, None)
                kw = {**kw, "columns": cols}
            stored = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
            width = meta.num_columns if cols is None else len(cols)
            check_expansion(p, max(stored if cols is None else 0, meta.num_rows * width * 8),
                            max_decompressed)
            df = pd.read_parquet(p, engine="pyarrow", **kw)
        else:
            df = _read_readstat(p, fmt, cols, encoding, kw, max_decompressed)
    except (SdcError, MemoryError):
        raise
    except UnicodeDecodeError as e:
        raise DataFileError(
            f"{p}: cannot decode the file as {encoding or 'utf-8'} ({e.reason} at byte {e.start}); "
            f"pass encoding='latin-1' or the file's encoding"
        ) from None
    except PermissionError:
        raise DataFileError(f"{p}: permission denied when reading the file") from None
    except Exception as e:  # the readers raise many types; report them in one readable line
        raise DataFileError(f"{p}: cannot read as {fmt}: {type(e).__name__}: {e}") from e
    return _finish(df, p, cats)


def _finish(df: pd.DataFrame, p: Path, cats: list[str]) -> pd.DataFrame:
    """The categorical columns asked for, and the source path in ``df.attrs``."""
    if cats:
        missing = [c for c in cats if c not in df.columns]
        if missing:
            raise DataFileError(f"{p}: categorical column(s) not found: {missing}")
        df = df.assign(
            **{
                c: df[c].astype("category")
                for c in cats
                if not isinstance(df[c].dtype, pd.CategoricalDtype)
            }
        )
    # the file the data came from: a session made from them never exports over it
    df.attrs = {**df.attrs, "source": str(p.resolve())}
    return df


def _natural_key(path: Path) -> list[Any]:
    """Sort key of file names with their numbers compared as numbers (part.2 before part.10)."""
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(path))]


def _read_parquet_dataset(p: Path, cols: list[str] | None, kw: dict[str, Any],
                          max_decompressed: int | None) -> pd.DataFrame:
    """A directory of Parquet files (as Dask, Spark or `write_parquet` write them): the files
    ``*.parquet``/``*.parq``/``*.pq`` under ``p`` read in natural name order (``part.2`` before
    ``part.10``, the order Dask reads them in), one after the other, so the records keep the
    dataset's order. Hive-partitioned directories (``key=value`` folders) are refused: their
    partition columns live in the folder names. The index is a new 0..n-1 range (each file's
    own index usually restarts at 0)."""
    _require_pyarrow()
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = sorted((f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in
                    (".parquet", ".parq", ".pq")), key=_natural_key)
    if not files:
        raise DataFileError(f"{p}: is a directory without Parquet files (*.parquet); expected a "
                            "data file or a Parquet dataset")
    if any("=" in part for f in files for part in f.relative_to(p).parts[:-1]):
        raise DataFileError(f"{p}: a Hive-partitioned Parquet dataset (key=value folders) is not "
                            "read here; read it with pandas.read_parquet or dask and pass the "
                            "DataFrame")
    try:
        schema = pq.read_schema(files[0])
        names = [n for n in schema.names if not n.startswith("__")]  # not a stored index
        if cols is not None:
            _check_columns(names, cols, p, None)
        stored = rows = 0
        for f in files:
            meta = pq.read_metadata(f)
            rows += meta.num_rows
            stored += sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        width = len(names) if cols is None else len(cols)
        estimated = max(stored if cols is None else 0, rows * width * 8)
        limit = (int(max_decompressed) if max_decompressed is not None else  # as for one file
                 max(DECOMPRESSION_RATIO * sum(f.stat().st_size for f in files),
                     DECOMPRESSION_FLOOR))
        if estimated > limit:
            raise DataFileError(
                f"{p}: holds about {estimated:,} bytes of data once read, more than {limit:,}; "
                f"a compressed input may expand to at most {DECOMPRESSION_RATIO} times its size; "
                "if the dataset is genuine, pass max_decompressed= a larger number of bytes")
        tables = [pq.read_table(f, columns=cols or names, **kw) for f in files]
        df = pa.concat_tables(tables, promote_options="permissive").to_pandas()
    except (SdcError, MemoryError):
        raise
    except PermissionError:
        raise DataFileError(f"{p}: permission denied when reading the dataset") from None
    except Exception as e:
        raise DataFileError(f"{p}: cannot read as a Parquet dataset: {type(e).__name__}: {e}"
                            ) from e
    return df.reset_index(drop=True)


def _check_arguments(path: Any, format: Any, columns: Any, categorical: Any, sep: Any,
                     encoding: Any, max_decompressed: Any
                     ) -> tuple[Path, list[str] | None, list[str]]:
    """The path and the column lists of `read_data`, or `ParameterError` naming the argument."""
    from ..methods.params import check_int, param_names

    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes) or not str(path).strip():
        raise ParameterError(f"path: expected a file path (str or pathlib.Path), got "
                             f"{type(path).__name__} {path!r:.60}")
    try:
        p = Path(path)
    except (TypeError, ValueError) as e:
        raise ParameterError(f"path: not a usable file path ({e})") from None
    if "\x00" in str(p):
        raise ParameterError("path: a file path cannot contain a NUL character")
    if format is not None and not isinstance(format, str):
        raise ParameterError(f"format: expected a format name or None, got {format!r:.60}")
    for name, v in (("sep", sep), ("encoding", encoding)):
        if v is not None and (not isinstance(v, str) or not v):
            raise ParameterError(f"{name}: expected a non-empty string or None, got {v!r:.60}")
    if encoding is not None:
        import codecs

        try:
            codecs.lookup(encoding)
        except LookupError:
            raise ParameterError(f"encoding: unknown text encoding {encoding!r:.60}") from None
    if max_decompressed is not None:
        check_int("max_decompressed", max_decompressed, 1)
    cols = None if columns is None else list(param_names(columns, "columns", required=True))
    cats = [] if categorical is None else list(param_names(categorical, "categorical"))
    return p, cols, cats


def _read_csv(
    p: Path, fmt: str, cols: list[str] | None, sep: str | None, encoding: str, kw: dict[str, Any],
    max_decompressed: int | None = None,
) -> pd.DataFrame:
    method = compression_of(p, kw.pop("compression", "infer"))

    def source() -> Any:
        """The file, or a bounded decompressing stream of it (pandas never decompresses)."""
        return p if method is None else open_compressed(p, method, max_decompressed)

    def read(**more: Any) -> pd.DataFrame:
        src = source()
        try:
            return pd.read_csv(src, sep=sep, encoding=encoding, compression=None, **kw, **more)
        finally:
            if not isinstance(src, Path):
                src.close()

    if sep is None:
        if fmt == "tsv":
            sep = "\t"
        else:
            src = source()
            try:
                if isinstance(src, Path):
                    with open(src, encoding=encoding, newline="") as fh:
                        sample = fh.read(65536)
                else:
                    sample = io.TextIOWrapper(src, encoding=encoding, newline="").read(65536)
            finally:
                if not isinstance(src, Path):
                    src.close()
            sep = sniff_delimiter(sample) or ","
    try:
        header = read(nrows=0)
    except pd.errors.EmptyDataError:
        raise DataFileError(f"{p}: the file is empty (no header line)") from None
    if cols is not None:
        _check_columns([str(c) for c in header.columns], cols, p, sep)
        df = read(usecols=cols)[cols]
    else:
        df = read()
        if df.shape[1] == 1:
            head = str(df.columns[0])
            others = [d for d in _DELIMITERS if d != sep and d in head]
            if others:
                warnings.warn(
                    f"{p}: read as a single column {head[:60]!r}; if the delimiter is "
                    f"{others[0]!r}, pass sep={others[0]!r}",
                    SdcWarning,
                    stacklevel=user_stacklevel(),
                )
    return df


def _read_readstat(
    p: Path, fmt: str, cols: list[str] | None, encoding: str | None, kw: dict[str, Any],
    max_decompressed: int | None = None,
) -> pd.DataFrame:
    if fmt in ("sas7bdat", "xport"):
        try:
            prs = _pyreadstat()
        except MissingDependencyError:
            df = pd.read_sas(
                p,
                format="xport" if fmt == "xport" else "sas7bdat",
                encoding=encoding or "utf-8",
                **kw,
            )
            if fmt == "xport":
                # pandas decodes the IBM float zero as 16**-65; no real datum is that value
                tiny = 16.0**-65
                df = df.assign(
                    **{
                        c: df[c].mask(df[c].abs() == tiny, 0.0)
                        for c in df.columns
                        if pd.api.types.is_float_dtype(df[c].dtype)
                    }
                )
            if cols is not None:
                _check_columns(list(df.columns), cols, p, None)
                df = df[cols]
            return _labelled_to_categories(df, None, empty_as_missing=True)
        reader: Callable[..., Any] = prs.read_sas7bdat if fmt == "sas7bdat" else prs.read_xport
    else:
        prs = _pyreadstat()
        reader = prs.read_dta if fmt == "stata" else prs.read_sav
    _, meta = reader(str(p), metadataonly=True)
    if cols is not None:
        _check_columns(list(meta.column_names), cols, p, None)
        kw = {**kw, "usecols": cols}
    rows = getattr(meta, "number_rows", None) or 0
    check_expansion(p, int(rows) * len(cols or meta.column_names) * 8, max_decompressed)
    if encoding is not None:
        kw = {**kw, "encoding": encoding}
    # SPSS user-defined missing values stay values (distinct from system missing); Stata's
    # extended missing values (.a-.z) are read as missing and remembered per record
    if fmt in ("spss", "stata"):
        kw = {"user_missing": True, **kw}
    df, meta = reader(str(p), **kw)
    if cols is not None:
        df = df[cols]
    extended: dict[str, dict[str, list]] = {}
    if fmt == "stata":
        df, extended = _split_extended_missing(df)
    out = _labelled_to_categories(df, meta, empty_as_missing=True)
    if extended:
        out.attrs["extended_missing"] = extended
    return out


def _split_extended_missing(df: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, dict[str, list]]]:
    """Stata extended missing values (.a-.z, read by ReadStat as the letters "a".."z" in numeric
    columns) → NaN, and ``{column: {letter: [index labels]}}`` so that an export writes them back
    (`write_data`): they stay distinct from system missing values (suppressions)."""
    new: dict[str, Any] = {}
    extended: dict[str, dict[str, list]] = {}
    for col in df.columns:
        s = df[col]
        if s.dtype != object:
            continue
        try:
            is_letter = s.str.fullmatch("[a-z]").fillna(False).astype(bool)
        except AttributeError:  # no text in this column
            continue
        rest = s[~is_letter & s.notna()]
        # a numeric column with extended missing values: numbers besides the letters
        if not is_letter.any() or pd.api.types.infer_dtype(rest, skipna=True) not in (
                "floating", "integer", "mixed-integer-float", "empty"):
            continue
        letters = s[is_letter]
        extended[str(col)] = {str(k): list(g.index) for k, g in letters.groupby(letters,
                                                                                 sort=True)}
        new[col] = pd.to_numeric(s.mask(is_letter), errors="coerce").astype("float64")
    return (df.assign(**new) if new else df), extended
