"""Writing files: microdata (`write_data`) and text (`write_text`, reports and recipes): atomic,
never over an existing file unless ``overwrite=True``, never over a protected input file."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DataFileError, ParameterError, SdcError
from .formats import (
    FORMATS,
    _pyreadstat,
    _require_pyarrow,
    _same_file,
    check_write_arguments,
    format_of,
)
from .labels import _categories_to_labelled, _column_labels

__all__ = ["write_data", "write_text", "check_target", "protected_paths", "check_writer_options"]

_PATHLIKE = (str, os.PathLike)


def write_data(
    df: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    protect: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None = None,
    overwrite: bool = False,
    sep: str | None = None,
    **kw: Any,
) -> Path:
    """Write a DataFrame to ``path`` in the format given by its extension; return the path.

    Algorithm: checks first (``path`` is not one of the ``protect`` paths nor the file ``df`` was
    read from — ``df.attrs["source"]``, set by `read_data` —, compared as the same file on disk;
    its directory exists and is writable; an existing file is replaced only with
    ``overwrite=True``, a real boolean: ``"no"`` is a `ParameterError`), then writes to a temporary file next to ``path`` and renames it into place, so
    a failed write leaves no partial file. The index is not written. CSV: ``sep`` (default ","; tab
    for .tsv), missing values as empty fields, categories as their values. Parquet: pandas dtypes
    are preserved (pyarrow); of ``df.attrs`` only the variable labels (``column_labels``) are
    stored in the file's metadata. Stata/SPSS: categorical columns as codes 1..k with value labels (see
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
    check_write_arguments(path, protect, overwrite, sep)
    p = Path(path)
    fmt = format_of(p, format)
    if not FORMATS[fmt][1]:
        raise DataFileError(f"{p}: writing the {fmt} format is not supported (read only)")
    source = df.attrs.get("source") if isinstance(df.attrs, dict) else None
    check_target(p, overwrite=overwrite, protect=protected_paths(protect, source))
    if fmt == "parquet":
        _require_pyarrow()
    elif fmt in ("stata", "spss", "xport"):
        _pyreadstat()
    check_writer_options(fmt, kw)
    if not all(isinstance(c, str) for c in df.columns):
        df = df.rename(columns=str)

    tmp = p.with_name(f".{p.stem}.tmp-{uuid.uuid4().hex[:8]}{''.join(p.suffixes[-2:]) or '.tmp'}")
    try:
        if fmt in ("csv", "tsv"):
            d = sep if sep is not None else ("\t" if fmt == "tsv" else ",")
            df.to_csv(tmp, sep=d, index=False, **kw)
        elif fmt == "parquet":  # pandas writes df.attrs into the file's metadata: only the
            # variable labels go there (the source's value labels, the source path and the
            # per-record missing codes are notes for the writers, not content of the file)
            out = df.copy(deep=False)
            out.attrs = {k: v for k, v in df.attrs.items() if k == "column_labels"}
            out.to_parquet(tmp, engine="pyarrow", index=False, **kw)
        else:
            _write_readstat(df, tmp, fmt, kw)
        _place(tmp, p, overwrite)
    except FileExistsError:
        raise DataFileError(f"{p}: the file exists; pass overwrite=True to replace it") from None
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


#: options users pass for what another parameter does here
_OPTION_HINTS = {"keep_order": "shuffle=False", "random_order": "shuffle",
                 "overwrite_ok": "overwrite", "replace": "overwrite", "delimiter": "sep"}


def check_writer_options(fmt: str, kw: dict[str, Any]) -> None:
    """ParameterError naming an extra keyword argument that the format's writer does not take
    (instead of the writer's own TypeError after the checks). Parquet's extra options go to
    pyarrow, which takes any name, so they are not checked."""
    if not kw or fmt == "parquet":
        return
    import difflib
    import inspect

    if fmt in ("csv", "tsv"):
        writer: Any = pd.DataFrame.to_csv
        fixed = {"self", "path_or_buf", "sep", "index"}
        label = "pandas.DataFrame.to_csv"
    else:
        prs = _pyreadstat()
        writer = {"xport": prs.write_xport, "stata": prs.write_dta, "spss": prs.write_sav}[fmt]
        fixed = {"df", "dst_path", "column_labels"}
        label = f"pyreadstat.{writer.__name__}"
    try:
        allowed = set(inspect.signature(writer).parameters) - fixed
    except (TypeError, ValueError):  # a compiled writer without a signature: let it decide
        return
    for name in kw:
        if name not in allowed:
            hint = _OPTION_HINTS.get(name)
            close = difflib.get_close_matches(name, sorted(allowed), n=1, cutoff=0.6)
            extra = (f" (use {hint})" if hint else f" (did you mean {close[0]!r}?)" if close
                     else "")
            raise ParameterError(f"{name}: not an option of the export or of the {fmt} writer "
                                 f"({label}){extra}")


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
    extended = (df.attrs.get("extended_missing") or {}) if isinstance(df.attrs, dict) else {}
    if fmt == "stata" and extended and "missing_user_values" not in kw:
        data, used = _with_extended_missing(data, extended)
        if used:
            kw = {**kw, "missing_user_values": used}
    ranges = (df.attrs.get("missing_ranges") or {}) if isinstance(df.attrs, dict) else {}
    if fmt == "spss" and ranges and "missing_ranges" not in kw:
        kw = {**kw, "missing_ranges": {c: [r["lo"] if r["lo"] == r["hi"] else r for r in v]
                                       for c, v in ranges.items() if c in data.columns}}
    writer(data, str(tmp), column_labels=labels, **kw)


def _with_extended_missing(data: pd.DataFrame, extended: dict[str, dict[str, list]]
                           ) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """Put Stata's extended missing values (.a-.z, remembered by `read_data` per record) back into
    the records that are still missing; records a treatment suppressed elsewhere stay system
    missing (.), so the two remain distinct in the released file."""
    new: dict[str, Any] = {}
    used: dict[str, list[str]] = {}
    for col, by_letter in extended.items():
        if col not in data.columns or not pd.api.types.is_numeric_dtype(data[col].dtype):
            continue
        s = data[col].astype(object)
        missing = data[col].isna()
        letters: list[str] = []
        for letter, labels in by_letter.items():
            where = data.index.isin(list(labels)) & missing.to_numpy()
            if where.any():
                s = s.mask(where, letter)
                letters.append(letter)
        if letters:
            new[col], used[col] = s, sorted(letters)
    return (data.assign(**new) if new else data), used


def protected_paths(protect: Any, *more: Any) -> list[Path]:
    """``protect`` (a path or an iterable of paths, or None) and the ``more`` paths that are
    not None, as a list of paths (`ParameterError` for anything else)."""
    if protect is None:
        items: list[Any] = []
    elif isinstance(protect, _PATHLIKE):
        items = [protect]
    elif isinstance(protect, Iterable) and not isinstance(protect, (bytes, dict)):
        items = list(protect)
    else:
        raise ParameterError(f"protect: expected a path or a list of paths, got {protect!r:.60}")
    items += [m for m in more if m is not None]
    bad = [q for q in items if not isinstance(q, _PATHLIKE)]
    if bad:
        raise ParameterError(f"protect: expected paths, got {bad[0]!r:.60}")
    return [Path(q) for q in items]


def check_target(path: Path, *, overwrite: Any, protect: Iterable[Path] = ()) -> None:
    """Refuse to write ``path`` (`DataFileError`) when it is a protected path (the input data),
    a directory, in a missing or read-only directory, or an existing file without
    ``overwrite=True``; ``overwrite`` must be True or False (`ParameterError`)."""
    import numpy as np

    if not isinstance(overwrite, (bool, np.bool_)):
        raise ParameterError(f"overwrite: expected True or False, got {overwrite!r:.60}")
    for q in protect:
        if _same_file(path, Path(q)):
            raise DataFileError(f"{path}: refusing to overwrite the input file {Path(q)}; "
                                "choose another output path")
        if Path(q).is_dir() and Path(q).resolve() in path.resolve().parents:
            raise DataFileError(f"{path}: refusing to write inside the input dataset {Path(q)}; "
                                "choose another output path")
    if path.is_dir():
        raise DataFileError(f"{path}: is a directory; give a file name for the output")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise DataFileError(f"{path}: cannot write, the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise DataFileError(f"{path}: cannot write, no write permission in {parent}")
    if path.exists() and not overwrite:
        raise DataFileError(f"{path}: the file exists; pass overwrite=True to replace it")
    if path.exists() and not os.access(path, os.W_OK):
        raise DataFileError(f"{path}: cannot write, the existing file is read-only")


def write_text(path: str | os.PathLike[str], text: str, *, overwrite: bool = False,
               protect: Any = None) -> Path:
    """Write ``text`` (UTF-8) to ``path``; return the path.

    Algorithm: `check_target` first (never over a ``protect`` path, never over an existing file
    unless ``overwrite=True``), then a temporary file next to ``path`` renamed into place: a
    failed write leaves no partial file; without ``overwrite`` the final step is an exclusive
    link, so a file created meanwhile is not replaced either.

    Example
    -------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = write_text(pathlib.Path(d) / "a.txt", "hi")
    ...     try:
    ...         write_text(p, "again")
    ...     except DataFileError:
    ...         print(p.read_text())
    hi
    """
    if not isinstance(path, _PATHLIKE) or not str(path).strip():
        raise ParameterError(f"path: expected a file path (str or pathlib.Path), got {path!r:.60}")
    p = Path(path)
    check_target(p, overwrite=overwrite, protect=protected_paths(protect))
    tmp = p.with_name(f".{p.name}.tmp-{uuid.uuid4().hex[:8]}")
    try:
        tmp.write_text(text, encoding="utf-8")
        _place(tmp, p, overwrite)
    except FileExistsError:
        raise DataFileError(f"{p}: the file exists; pass overwrite=True to replace it") from None
    except OSError as e:
        raise DataFileError(f"{p}: cannot write: {e.strerror or e}") from None
    finally:
        if tmp.exists():
            tmp.unlink()
    return p


def _place(tmp: Path, path: Path, overwrite: bool) -> None:
    """Move the written temporary file into place: replacing ``path`` only with ``overwrite``;
    otherwise a hard link, which fails (`FileExistsError`) if ``path`` appeared meanwhile."""
    if overwrite:
        os.replace(tmp, path)
        return
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: the checked rename
        if path.exists():
            raise FileExistsError(str(path)) from None
        os.replace(tmp, path)
