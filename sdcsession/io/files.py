"""Read and write microdata files: CSV/TSV, Parquet, Stata, SPSS and SAS.

:func:`read_data` and :func:`write_data` dispatch on the file extension (or an explicit ``format``):

=====================  ==========  ===========  =================================================
extension              format      extra        notes
=====================  ==========  ===========  =================================================
.csv .txt (.gz ...)    csv         —            delimiter sniffed among , ; tab | unless ``sep``
.tsv .tab              tsv         —            tab-separated
.parquet .pq           parquet     pyarrow      pandas dtypes (categoricals, nullable) kept
.dta                   stata       pyreadstat   value labels ⇄ pandas categories
.sav .zsav             spss        pyreadstat   value labels ⇄ pandas categories
.sas7bdat              sas7bdat    pyreadstat*  read only (* falls back to pandas.read_sas)
.xpt                   xport       pyreadstat*  read (* as above); write (no value labels)
=====================  ==========  ===========  =================================================

The optional readers live in the ``io`` extra: ``pip install sdcsession[io]``. When it is missing a
:class:`MissingDependencyError` says so. Every other problem with a file (missing file, unknown
extension, wrong delimiter, unknown columns, unreadable or unwritable file, an attempt to overwrite
a protected input) raises a :class:`DataFileError` naming the file and what to do.

Labelled data (Stata, SPSS). On reading, every variable with value labels becomes a pandas
``Categorical`` whose categories are the label texts in the order of their numeric codes (unused
labels are kept as categories; a value without a label becomes the category ``str(value)``). The
variable labels are kept in ``df.attrs["column_labels"]``. On writing, every categorical column is
written as integer codes 1..k with the category texts as value labels, missing values as system
missing; ``df.attrs["column_labels"]`` is written back as variable labels. Empty strings in string
variables (the missing string of Stata, SPSS and SAS) are read as missing values.

Writing is atomic (a temporary file in the target directory renamed into place) and refuses to
write over any path given in ``protect`` (typically the input file), so an export never destroys
the original data.

Example
-------
>>> import tempfile, pathlib
>>> import pandas as pd
>>> df = pd.DataFrame({"sex": pd.Categorical(["m", "f", None]), "income": [1.5, None, 3.0]})
>>> with tempfile.TemporaryDirectory() as d:
...     path = pathlib.Path(d) / "survey.csv"
...     _ = write_data(df, path)
...     back = read_data(path, categorical=["sex"])
>>> back["sex"].tolist(), back["income"].isna().tolist()
(['m', 'f', nan], [False, True, False])
"""

from __future__ import annotations

import bz2
import csv
import difflib
import gzip
import lzma
import os
import uuid
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataFileError, MissingDependencyError, SdcError, SdcWarning

__all__ = [
    "read_data",
    "write_data",
    "DataFileError",
    "MissingDependencyError",
    "FORMATS",
    "format_of",
    "sniff_delimiter",
]


#: extension -> format name
_EXTENSIONS: dict[str, str] = {
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".dta": "stata",
    ".sav": "spss",
    ".zsav": "spss",
    ".sas7bdat": "sas7bdat",
    ".xpt": "xport",
}
_COMPRESSION = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
#: format name -> (readable, writable)
FORMATS: dict[str, tuple[bool, bool]] = {
    "csv": (True, True),
    "tsv": (True, True),
    "parquet": (True, True),
    "stata": (True, True),
    "spss": (True, True),
    "sas7bdat": (True, False),
    "xport": (True, True),
}
_DELIMITERS = (",", ";", "\t", "|")
_INSTALL = "pip install sdcsession[io]"


# --------------------------------------------------------------------------- helpers


def format_of(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The format name of ``path`` from its extension (a suffix .gz/.bz2/.xz is skipped).

    >>> format_of("data/survey.csv.gz"), format_of("x.DTA"), format_of("x.dat", format="tsv")
    ('csv', 'stata', 'tsv')
    """
    if format is not None:
        fmt = str(format).lower()
        if fmt not in FORMATS:
            raise DataFileError(
                f"format={format!r} is not supported; expected one of {', '.join(FORMATS)}"
            )
        return fmt
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSION:
        suffixes = suffixes[:-1]
    ext = suffixes[-1] if suffixes else ""
    if ext not in _EXTENSIONS:
        known = " ".join(sorted(_EXTENSIONS))
        raise DataFileError(
            f"{p}: cannot tell the file format from the extension {ext or '(none)'!r}; "
            f"use one of {known} or pass format=..."
        )
    return _EXTENSIONS[ext]


def _pyreadstat() -> Any:
    try:
        import pyreadstat
    except ImportError:
        raise MissingDependencyError(
            f"reading and writing Stata/SPSS/SAS files needs the optional package 'pyreadstat': "
            f"{_INSTALL}"
        ) from None
    return pyreadstat


def _require_pyarrow() -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            f"reading and writing Parquet files needs the optional package 'pyarrow': {_INSTALL}"
        ) from None


def _open_text(path: Path, encoding: str) -> Any:
    opener = _COMPRESSION.get(path.suffix.lower())
    if opener is not None:
        return opener(path, "rt", encoding=encoding, newline="")
    return open(path, encoding=encoding, newline="")


def sniff_delimiter(sample: str, candidates: Iterable[str] = _DELIMITERS) -> str | None:
    """The delimiter of a delimited-text sample, or ``None`` when no candidate splits the lines.

    Each candidate splits the first (up to 50) complete lines with the csv module (quotes
    respected); a candidate qualifies when every line gives the same number of fields, at least 2.
    Among qualifying candidates the one giving most fields wins (ties: candidate order).

    >>> sniff_delimiter("a;b;c\\n1;2,5;3\\n"), sniff_delimiter("a,b\\n1,2\\n")
    (';', ',')
    >>> sniff_delimiter("x\\n1\\n") is None
    True
    """
    lines = sample.splitlines()
    if len(lines) > 1 and not sample.endswith(("\n", "\r")):
        lines = lines[:-1]  # the last line may be cut by the sample size
    lines = [ln for ln in lines[:50] if ln.strip()]
    if not lines:
        return None
    best: tuple[int, str] | None = None
    for d in candidates:
        try:
            counts = {len(row) for row in csv.reader(lines, delimiter=d)}
        except csv.Error:
            continue
        if len(counts) == 1:
            n = counts.pop()
            if n >= 2 and (best is None or n > best[0]):
                best = (n, d)
    return None if best is None else best[1]


def _check_columns(df_columns: list[str], columns: list[str], path: Path, sep: str | None) -> None:
    missing = [c for c in columns if c not in df_columns]
    if not missing:
        return
    if len(df_columns) == 1:
        header = str(df_columns[0])
        others = [d for d in _DELIMITERS if d != sep and d in header]
        if others:
            shown = "\\t" if others[0] == "\t" else others[0]
            used = "\\t" if sep == "\t" else sep
            raise DataFileError(
                f"{path}: the file was read as a single column {header[:60]!r} with "
                f"delimiter {used!r}, so the columns {missing} were not found; the delimiter is "
                f"probably {shown!r}: pass sep={shown!r}"
            )
    hints = []
    for c in missing:
        close = difflib.get_close_matches(c, [str(x) for x in df_columns], n=1)
        hints.append(f"{c!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise DataFileError(
        f"{path}: column(s) not found: {', '.join(hints)}; the file has {len(df_columns)} "
        f"columns: {', '.join(map(str, list(df_columns)[:20]))}"
        + (" ..." if len(df_columns) > 20 else "")
    )


def _labelled_to_categories(df: pd.DataFrame, meta: Any, empty_as_missing: bool) -> pd.DataFrame:
    """Turn value-labelled variables into categoricals (categories in code order), "" into NA."""
    new: dict[str, Any] = {}
    value_labels: dict[str, dict[Any, str]] = getattr(meta, "variable_value_labels", {}) or {}
    for col, labels in value_labels.items():
        if col not in df.columns or not labels:
            continue
        s = df[col]
        if not pd.api.types.is_numeric_dtype(s.dtype):
            # labelled string variable (SPSS): map the labelled strings only
            new[col] = s.map(lambda v, lab=labels: lab.get(v, v)).astype("category")
            continue
        codes = np.asarray(sorted(labels), dtype=float)
        vals = s.to_numpy(dtype=float, na_value=np.nan)
        present = np.unique(vals[~np.isnan(vals)])
        extra = np.setdiff1d(present, codes)
        all_codes = np.concatenate([codes, extra])
        texts = [str(labels[c]) for c in sorted(labels)] + [
            str(int(v)) if float(v).is_integer() else str(v) for v in extra
        ]
        order = np.argsort(all_codes, kind="stable")
        all_codes, texts = all_codes[order], [texts[i] for i in order]
        categories = list(dict.fromkeys(texts))  # duplicated label texts merge into one category
        cat_index = {t: i for i, t in enumerate(categories)}
        code_of = np.array([cat_index[t] for t in texts], dtype=np.int64)
        pos = np.searchsorted(all_codes, np.where(np.isnan(vals), all_codes[0], vals))
        out = np.where(np.isnan(vals), -1, code_of[np.minimum(pos, len(all_codes) - 1)])
        new[col] = pd.Categorical.from_codes(out, categories=categories)
    if empty_as_missing:
        for col in df.columns:
            if col in new:
                continue
            s = df[col]
            if pd.api.types.is_string_dtype(s.dtype) or s.dtype == object:
                blank = s.astype("str").str.strip().eq("") & s.notna()
                if blank.any():
                    new[col] = s.mask(blank)
    out_df = df.assign(**new) if new else df
    labels_map = {k: v for k, v in (getattr(meta, "column_names_to_labels", {}) or {}).items() if v}
    out_df.attrs = {**df.attrs, "column_labels": labels_map} if labels_map else dict(df.attrs)
    return out_df


def _categories_to_labelled(df: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, dict[int, str]]]:
    """Categorical columns → float codes 1..k (NaN missing) and their value labels."""
    new: dict[str, Any] = {}
    value_labels: dict[str, dict[int, str]] = {}
    for col in df.columns:
        s = df[col]
        if isinstance(s.dtype, pd.CategoricalDtype):
            codes = s.cat.codes.to_numpy().astype(float) + 1.0
            codes[codes == 0] = np.nan
            new[col] = codes
            value_labels[col] = {i + 1: str(c) for i, c in enumerate(s.cat.categories)}
        elif isinstance(s.dtype, pd.BooleanDtype) or (
            pd.api.types.is_integer_dtype(s.dtype) and s.hasnans
        ):
            new[col] = s.to_numpy(dtype=float, na_value=np.nan)
        elif pd.api.types.is_bool_dtype(s.dtype):
            new[col] = s.to_numpy().astype(np.int8)
    return (df.assign(**new) if new else df), value_labels


def _column_labels(df: pd.DataFrame) -> dict[str, str | None] | None:
    labels = df.attrs.get("column_labels") if isinstance(df.attrs, dict) else None
    if not labels:
        return None
    return {c: (labels.get(c) if isinstance(labels.get(c), str) else None) for c in df.columns}


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


# --------------------------------------------------------------------------- reading


def read_data(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    columns: Iterable[str] | None = None,
    categorical: Iterable[str] | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    **kw: Any,
) -> pd.DataFrame:
    """Read a microdata file into a DataFrame, choosing the reader from the extension.

    Algorithm: the format comes from ``format`` or the extension (see the module table). CSV: the
    delimiter is ``sep`` if given, tab for .tsv/.tab, else sniffed (:func:`sniff_delimiter`; a
    comma when nothing splits the lines). When ``columns``
    are requested and the file came out as one column whose header contains another delimiter, a
    :class:`DataFileError` says which ``sep`` to pass. Stata/SPSS: value labels become categories
    (see module docstring). ``categorical`` columns are converted to ``category`` dtype (for CSV,
    which has no types). Extra keyword arguments go to the underlying reader
    (``pandas.read_csv``, ``pandas.read_parquet`` or ``pyreadstat.read_*``).

    Parameters
    ----------
    path: the file.
    format: force a format ("csv", "tsv", "parquet", "stata", "spss", "sas7bdat", "xport").
    columns: read only these columns (all must exist), in this order.
    categorical: columns to return as pandas categoricals.
    sep: CSV delimiter (otherwise sniffed).
    encoding: text encoding of CSV (default utf-8) or of Stata/SPSS/SAS (default from the file).

    Raises
    ------
    DataFileError: missing or unreadable file, unknown extension, wrong delimiter, unknown columns.
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
    p = Path(path)
    fmt = format_of(p, format)
    if not p.exists():
        raise DataFileError(f"{p}: no such file")
    if p.is_dir():
        raise DataFileError(f"{p}: is a directory, expected a data file")
    cols = (
        None
        if columns is None
        else [str(c) for c in ([columns] if isinstance(columns, str) else columns)]
    )
    cats = (
        []
        if categorical is None
        else ([categorical] if isinstance(categorical, str) else list(categorical))
    )
    try:
        if fmt in ("csv", "tsv"):
            df = _read_csv(p, fmt, cols, sep, encoding or "utf-8", kw)
        elif fmt == "parquet":
            _require_pyarrow()
            if cols is not None:
                import pyarrow.parquet as pq

                _check_columns(list(pq.read_schema(p).names), cols, p, None)
                kw = {**kw, "columns": cols}
            df = pd.read_parquet(p, engine="pyarrow", **kw)
        else:
            df = _read_readstat(p, fmt, cols, encoding, kw)
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
    return df


def _read_csv(
    p: Path, fmt: str, cols: list[str] | None, sep: str | None, encoding: str, kw: dict[str, Any]
) -> pd.DataFrame:
    if sep is None:
        if fmt == "tsv":
            sep = "\t"
        else:
            with _open_text(p, encoding) as fh:
                sample = fh.read(65536)
            sep = sniff_delimiter(sample) or ","
    try:
        header = pd.read_csv(p, sep=sep, encoding=encoding, nrows=0, **kw)
    except pd.errors.EmptyDataError:
        raise DataFileError(f"{p}: the file is empty (no header line)") from None
    if cols is not None:
        _check_columns([str(c) for c in header.columns], cols, p, sep)
        df = pd.read_csv(p, sep=sep, encoding=encoding, usecols=cols, **kw)[cols]
    else:
        df = pd.read_csv(p, sep=sep, encoding=encoding, **kw)
        if df.shape[1] == 1:
            head = str(df.columns[0])
            others = [d for d in _DELIMITERS if d != sep and d in head]
            if others:
                warnings.warn(
                    f"{p}: read as a single column {head[:60]!r}; if the delimiter is "
                    f"{others[0]!r}, pass sep={others[0]!r}",
                    SdcWarning,
                    stacklevel=3,
                )
    return df


def _read_readstat(
    p: Path, fmt: str, cols: list[str] | None, encoding: str | None, kw: dict[str, Any]
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
    if cols is not None:
        _, meta = reader(str(p), metadataonly=True)
        _check_columns(list(meta.column_names), cols, p, None)
        kw = {**kw, "usecols": cols}
    if encoding is not None:
        kw = {**kw, "encoding": encoding}
    df, meta = reader(str(p), **kw)
    if cols is not None:
        df = df[cols]
    return _labelled_to_categories(df, meta, empty_as_missing=True)


# --------------------------------------------------------------------------- writing


def write_data(
    df: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    protect: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None = None,
    overwrite: bool = True,
    sep: str | None = None,
    **kw: Any,
) -> Path:
    """Write a DataFrame to ``path`` in the format given by its extension; return the path.

    Algorithm: checks first (``path`` is not one of the ``protect`` paths — compared as the same
    file on disk —, its directory exists and is writable, ``overwrite`` allows replacing an
    existing file), then writes to a temporary file next to ``path`` and renames it into place, so
    a failed write leaves no partial file. The index is not written. CSV: ``sep`` (default ","; tab
    for .tsv), missing values as empty fields, categories as their values. Parquet: pandas dtypes
    are preserved (pyarrow). Stata/SPSS: categorical columns as codes 1..k with value labels (see
    module docstring), ``df.attrs["column_labels"]`` as variable labels. SAS: .xpt only.
    Extra keyword arguments go to the underlying writer.

    Raises
    ------
    DataFileError: protected or existing path, missing or unwritable directory, unsupported
    format for writing, or the writer rejected the data (e.g. a Stata-invalid column name).
    MissingDependencyError: the optional package for the format is not installed.

    Example
    -------
    >>> import tempfile, pathlib
    >>> import pandas as pd
    >>> with tempfile.TemporaryDirectory() as d:
    ...     src = pathlib.Path(d) / "in.csv"
    ...     _ = write_data(pd.DataFrame({"a": [1, 2]}), src)
    ...     try:
    ...         write_data(pd.DataFrame({"a": [1]}), src, protect=src)
    ...     except DataFileError as e:
    ...         print("refused")
    refused
    """
    if not isinstance(df, pd.DataFrame):
        raise DataFileError(f"write_data: expected a pandas DataFrame, got {type(df).__name__}")
    p = Path(path)
    fmt = format_of(p, format)
    if not FORMATS[fmt][1]:
        raise DataFileError(f"{p}: writing the {fmt} format is not supported (read only)")
    if protect is not None:
        prot = [protect] if isinstance(protect, (str, os.PathLike)) else list(protect)
        for q in prot:
            if _same_file(p, Path(q)):
                raise DataFileError(
                    f"{p}: refusing to overwrite the input file {Path(q)}; "
                    "choose another output path"
                )
    if p.is_dir():
        raise DataFileError(f"{p}: is a directory; give a file name for the output")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise DataFileError(f"{p}: cannot write, the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise DataFileError(f"{p}: cannot write, no write permission in {parent}")
    if p.exists() and not overwrite:
        raise DataFileError(f"{p}: the file exists; pass overwrite=True to replace it")
    if p.exists() and not os.access(p, os.W_OK):
        raise DataFileError(f"{p}: cannot write, the existing file is read-only")
    if fmt == "parquet":
        _require_pyarrow()
    elif fmt in ("stata", "spss", "xport"):
        _pyreadstat()
    if not all(isinstance(c, str) for c in df.columns):
        df = df.rename(columns=str)

    tmp = p.with_name(f".{p.stem}.tmp-{uuid.uuid4().hex[:8]}{''.join(p.suffixes[-2:]) or '.tmp'}")
    try:
        if fmt in ("csv", "tsv"):
            d = sep if sep is not None else ("\t" if fmt == "tsv" else ",")
            df.to_csv(tmp, sep=d, index=False, **kw)
        elif fmt == "parquet":
            df.to_parquet(tmp, engine="pyarrow", index=False, **kw)
        else:
            _write_readstat(df, tmp, fmt, kw)
        os.replace(tmp, p)
    except SdcError:
        raise
    except PermissionError:
        raise DataFileError(f"{p}: permission denied when writing") from None
    except OSError as e:
        raise DataFileError(f"{p}: cannot write: {e.strerror or e}") from None
    except Exception as e:
        raise DataFileError(f"{p}: cannot write as {fmt}: {type(e).__name__}: {e}") from e
    finally:
        if tmp.exists():
            tmp.unlink()
    return p


def _write_readstat(df: pd.DataFrame, tmp: Path, fmt: str, kw: dict[str, Any]) -> None:
    prs = _pyreadstat()
    labels = _column_labels(df)
    if fmt == "xport":
        cats = [c for c in df.columns if isinstance(df[c].dtype, pd.CategoricalDtype)]
        data, _ = _categories_to_labelled(df.assign(**{c: df[c].astype("str") for c in cats}))
        prs.write_xport(data, str(tmp), column_labels=labels, **kw)
        return
    data, value_labels = _categories_to_labelled(df)
    writer = prs.write_dta if fmt == "stata" else prs.write_sav
    if value_labels:
        kw = {
            "variable_value_labels": {**value_labels, **kw.pop("variable_value_labels", {})},
            **kw,
        }
    writer(data, str(tmp), column_labels=labels, **kw)
