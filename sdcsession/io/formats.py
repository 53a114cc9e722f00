"""File formats: the extension table, format detection, optional readers, delimiter sniffing.

>>> format_of("survey.sav"), sniff_delimiter("a|b\\n1|2\\n")
('spss', '|')
"""

from __future__ import annotations

import csv
import difflib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import DataFileError, MissingDependencyError, ParameterError, install_hint
from .compressed import SUFFIXES

__all__ = ["FORMATS", "format_of", "sniff_delimiter", "check_write_arguments"]


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



def format_of(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The format name of ``path`` from its extension (a suffix .gz/.bz2/.xz/.zip is skipped).

    >>> format_of("data/survey.csv.gz"), format_of("x.DTA"), format_of("x.dat", format="tsv")
    ('csv', 'stata', 'tsv')
    """
    if format is not None:
        if not isinstance(format, str):
            raise DataFileError(f"format={format!r:.60} is not supported; expected one of "
                                f"{', '.join(FORMATS)}")
        fmt = format.lower()
        if fmt not in FORMATS:
            raise DataFileError(
                f"format={format!r} is not supported; expected one of {', '.join(FORMATS)}"
            )
        return fmt
    if not isinstance(path, (str, os.PathLike)):
        raise DataFileError(f"path: expected a file path (str or pathlib.Path), got "
                            f"{type(path).__name__} {path!r:.60}")
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] in SUFFIXES:
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
            f"{install_hint('io')}"
        ) from None
    return pyreadstat


def _require_pyarrow() -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            f"reading and writing Parquet files needs the optional package 'pyarrow': {install_hint('io')}"
        ) from None


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
    if not isinstance(sample, str):
        raise ParameterError(f"sample: expected the text of a file, got {type(sample).__name__}")
    cands = [candidates] if isinstance(candidates, str) else candidates
    if not isinstance(cands, (list, tuple)) or not all(
            isinstance(d, str) and len(d) == 1 for d in cands):
        raise ParameterError(f"candidates: expected one-character delimiters, got {candidates!r:.40}")
    lines = sample.splitlines()
    if len(lines) > 1 and not sample.endswith(("\n", "\r")):
        lines = lines[:-1]  # the last line may be cut by the sample size
    lines = [ln for ln in lines[:50] if ln.strip()]
    if not lines:
        return None
    best: tuple[int, str] | None = None
    for d in cands:
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


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def check_write_arguments(path: Any, protect: Any, overwrite: Any, sep: Any) -> None:
    """`ParameterError` naming the first bad argument of `write_data`: ``path`` a file path,
    ``protect`` None, a path or a list of paths, ``overwrite`` True or False, ``sep`` None or
    one character."""
    def is_path(v: Any) -> bool:
        return isinstance(v, (str, os.PathLike)) and bool(str(v).strip()) and "\x00" not in str(v)

    if not is_path(path):
        raise ParameterError(f"path: expected a file path (str or pathlib.Path), got "
                             f"{type(path).__name__} {path!r:.60}")
    if protect is not None and not is_path(protect) and not (
            isinstance(protect, (list, tuple, set, frozenset))
            and all(is_path(q) for q in protect)):
        raise ParameterError(f"protect: expected None, a file path or a list of paths, got "
                             f"{type(protect).__name__} {protect!r:.60}")
    if not isinstance(overwrite, bool):
        raise ParameterError(f"overwrite: expected True or False, got {overwrite!r:.40}")
    if sep is not None and (not isinstance(sep, str) or len(sep) != 1):
        raise ParameterError(f"sep: expected one delimiter character or None, got {sep!r:.40}")
