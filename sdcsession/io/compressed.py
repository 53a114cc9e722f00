"""Bounded decompression of compressed inputs: a file that expands far beyond its size (a
"decompression bomb") is refused with a `DataFileError` before it fills the memory.

Limit: a compressed input may expand to at most ``max(DECOMPRESSION_RATIO × its size on disk,
DECOMPRESSION_FLOOR)`` bytes: 200 times the file, and always 64 MiB. Text files compressed with
gzip (.gz), bzip2 (.bz2), xz/lzma (.xz) or zip (.zip, one member) are decompressed by
`open_compressed` as a stream that counts the bytes it hands out and raises `DataFileError` as soon
as they pass the limit: the work done is bounded by the limit, whatever the file claims. Formats
compressed inside (Parquet pages, SPSS .zsav, compressed SAS) are checked from their metadata
before reading (`check_expansion`): rows × columns × 8 bytes (at least the Parquet file's own
uncompressed size) must stay within the same limit. ``read_data(..., max_decompressed=n)`` sets
another limit in bytes for one read.

Example
-------
>>> import gzip, tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as d:
...     p = pathlib.Path(d) / "x.csv.gz"
...     _ = p.write_bytes(gzip.compress(b"a,b\\n1,2\\n"))
...     with open_compressed(p, "gzip") as fh:
...         fh.read()
b'a,b\\n1,2\\n'
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile
from pathlib import Path
from typing import Any

from ..errors import DataFileError

__all__ = ["DECOMPRESSION_RATIO", "DECOMPRESSION_FLOOR", "SUFFIXES", "compression_of",
           "open_compressed", "expansion_limit", "check_expansion"]

#: bytes a compressed input may expand to, per byte of the file on disk
DECOMPRESSION_RATIO = 200
#: bytes any compressed input may expand to (small files of very repetitive data are fine)
DECOMPRESSION_FLOOR = 64 * 2**20
#: file suffix -> compression method
SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zip": "zip"}
_METHODS = ("gzip", "bz2", "xz", "zip")


def compression_of(path: Path, compression: Any = "infer") -> str | None:
    """The compression method of ``path``: ``compression`` ("infer" reads the suffix; None: none;
    a pandas-style ``{"method": ...}`` dict is read too), or `DataFileError` for a method this
    reader does not decompress (zstd, tar, ...).

    >>> compression_of(Path("a.csv.gz")), compression_of(Path("a.csv")), compression_of(Path("a"), "xz")
    ('gzip', None, 'xz')
    """
    method = compression.get("method") if isinstance(compression, dict) else compression
    if method == "infer":
        suffix = path.suffix.lower()
        method = SUFFIXES.get(suffix)
        if method is None and suffix in (".zst", ".tar", ".tgz", ".lz4", ".z"):
            method = suffix.lstrip(".")
    if method is None:
        return None
    if not isinstance(method, str) or method not in _METHODS:
        raise DataFileError(f"{path}: compression {method!r} is not supported; expected one of "
                            f"{list(_METHODS)} or None (decompress the file first)")
    return method


def expansion_limit(path: Path, max_decompressed: int | None = None) -> int:
    """Bytes the decompressed content of ``path`` may have: ``max_decompressed`` if given, else
    ``max(DECOMPRESSION_RATIO × file size, DECOMPRESSION_FLOOR)``."""
    if max_decompressed is not None:
        return int(max_decompressed)
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    return max(DECOMPRESSION_RATIO * size, DECOMPRESSION_FLOOR)


def _refuse(path: Path, limit: int, what: str) -> DataFileError:
    return DataFileError(
        f"{path}: {what} more than {limit:,} bytes; a compressed input may expand to at most "
        f"{DECOMPRESSION_RATIO} times its size (and always {DECOMPRESSION_FLOOR // 2**20} MiB); "
        "if the file is genuine, pass max_decompressed= a larger number of bytes")


class _Bounded(io.RawIOBase):
    """A binary stream over a decompressing file object that refuses to go past ``limit``."""

    def __init__(self, raw: Any, path: Path, limit: int, closers: tuple[Any, ...] = ()) -> None:
        self._raw, self._path, self._limit, self._closers = raw, path, limit, closers
        self._seen = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        data = self._raw.read(min(len(b), self._limit - self._seen + 1))
        n = len(data)
        self._seen += n
        if self._seen > self._limit:
            raise _refuse(self._path, self._limit, "decompresses to")
        b[:n] = data
        return n

    def close(self) -> None:
        if not self.closed:
            for c in (self._raw, *self._closers):
                c.close()
        super().close()


def open_compressed(path: Path, method: str, max_decompressed: int | None = None
                    ) -> io.BufferedReader:
    """A binary stream of the decompressed content of ``path`` that raises `DataFileError` when it
    passes `expansion_limit`. A zip archive must hold exactly one file."""
    limit = expansion_limit(path, max_decompressed)
    closers: tuple[Any, ...] = ()
    if method == "zip":
        zf = zipfile.ZipFile(path)
        names = [i for i in zf.infolist() if not i.is_dir()]
        if len(names) != 1:
            zf.close()
            raise DataFileError(f"{path}: a zip archive must hold exactly one data file, it holds "
                                f"{len(names)}")
        raw: Any = zf.open(names[0])
        closers = (zf,)
    else:
        raw = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}[method](path, "rb")
    return io.BufferedReader(_Bounded(raw, path, limit, closers))


def check_expansion(path: Path, estimated: int, max_decompressed: int | None = None) -> None:
    """`DataFileError` when a file whose content is compressed inside (Parquet, .zsav, compressed
    SAS) would take an ``estimated`` number of bytes beyond `expansion_limit`."""
    limit = expansion_limit(path, max_decompressed)
    if estimated > limit:
        raise _refuse(path, limit, f"holds about {estimated:,} bytes of data once read,")
