"""The project file as bytes: a ZIP archive of named members, sealed by a checksum, written
atomically and read within bounds.

Layout: every member has the fixed time stamp 1980-01-01 00:00 and mode 0644, so the same
content gives the same bytes. JSON members are deflated, the Parquet copy of the data is stored
as it is. The archive comment is ``sdcsession-project sha256:<64 hex digits>``, the SHA-256 of
every byte of the file before the comment: a truncated file or any flipped bit (even in a part
of the ZIP format readers ignore, such as a time stamp) is refused before a member is read.

Reading is bounded: the file must be a ZIP archive with the expected comment; only the members
the format names are read (`read_archive` ``allowed``), each declared at most ``limits[name]``
bytes, a deflated member at most `MAX_RATIO` times its compressed size (no ZIP bomb), and the
bytes read never exceed the declared size (the CRC is checked). Every failure is a
`RecipeError` naming the file and the problem; nothing in a member is executed or imported.
An archive with no comment at all (a project unzipped, edited and zipped again by another tool)
is read without the checksum, with every other check; any other ending is refused.

Writing never replaces an existing file unless ``overwrite=True``: the archive is written to a
temporary file in the target directory, flushed to disk, then linked to the target name
(refused if it exists) or, with ``overwrite=True``, renamed over it (`os.replace`, atomic).

Example
-------
>>> import os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "x.sdcproj")
>>> _ = write_archive(p, [("project.json", b"{}", True)])
>>> read_archive(p, {"project.json": 100})
{'project.json': b'{}'}
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ...errors import DataFileError, ParameterError, RecipeError
from ...methods.params import check_bool

__all__ = ["write_archive", "read_archive", "MAX_RATIO", "SEAL"]

#: the archive comment starts with this; 64 hex digits of SHA-256 follow
SEAL = b"sdcsession-project sha256:"
_SEAL_LEN = len(SEAL) + 64
#: a deflated member may expand to at most this many times its compressed size
MAX_RATIO = 200
_DATE = (1980, 1, 1, 0, 0, 0)
_CHUNK = 1 << 20


def _hash_prefix(f: Any, n: int) -> str:
    h = hashlib.sha256()
    f.seek(0)
    left = n
    while left > 0:
        chunk = f.read(min(_CHUNK, left))
        if not chunk:
            break
        h.update(chunk)
        left -= len(chunk)
    return h.hexdigest()


def _same_file(a: Path, b: Any) -> bool:
    try:
        return a.exists() and Path(b).exists() and os.path.samefile(a, b)
    except (OSError, TypeError, ValueError):
        return False


def write_archive(path: str | Path, members: Iterable[tuple[str, bytes, bool]], *,
                  overwrite: bool = False, protect: Iterable[Any] = ()) -> Path:
    """Write ``members`` (name, bytes, deflate?) as a sealed ZIP at ``path``.

    Refuses (`DataFileError`) an existing ``path`` unless ``overwrite=True``, any of the
    ``protect`` paths (the session's source data) always, and a directory or a missing parent
    directory; ``overwrite`` must be True or False (`ParameterError`). Returns the path.
    """
    overwrite = check_bool("overwrite", overwrite)
    if not isinstance(path, (str, Path)) or not str(path).strip() or "\x00" in str(path):
        raise ParameterError(f"path: expected a file path (str or pathlib.Path), got {path!r:.80}")
    p = Path(path)
    if p.is_dir():
        raise DataFileError(f"path: {str(p)!r} is a directory; give a file name such as "
                            "survey.sdcproj")
    if not p.parent.is_dir():
        raise DataFileError(f"path: the directory {str(p.parent)!r} does not exist")
    for q in protect:
        if q is not None and _same_file(p, q):
            raise DataFileError(f"path: {str(p)!r} is the session's source data; a project is "
                                "never written over it")
    if p.exists() and not overwrite:
        raise DataFileError(f"path: {str(p)!r} exists; pass overwrite=True to replace it")
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w+b") as f:
            with zipfile.ZipFile(f, "w") as z:
                for name, content, deflate in members:
                    info = zipfile.ZipInfo(name, date_time=_DATE)
                    info.compress_type = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
                    info.create_system = 3
                    info.external_attr = 0o644 << 16
                    z.writestr(info, content)
                z.comment = SEAL + b"0" * 64
            end = f.seek(0, os.SEEK_END)
            digest = _hash_prefix(f, end - _SEAL_LEN)
            f.seek(end - 64)
            f.write(digest.encode("ascii"))
            f.flush()
            os.fsync(f.fileno())
        if overwrite:
            if any(q is not None and _same_file(p, q) for q in protect):  # pragma: no cover
                raise DataFileError(f"path: {str(p)!r} is the session's source data")
            os.replace(tmp, p)
        else:
            try:
                os.link(tmp, p)  # fails if p appeared meanwhile: never replaces a file
            except FileExistsError:
                raise DataFileError(f"path: {str(p)!r} exists; pass overwrite=True to replace "
                                    "it") from None
            except OSError:  # no hard links on this file system
                if p.exists():
                    raise DataFileError(f"path: {str(p)!r} exists; pass overwrite=True to "
                                        "replace it") from None
                os.replace(tmp, p)
    except OSError as e:
        raise DataFileError(f"path: cannot write {str(p)!r}: {e.strerror or e}") from e
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return p


def _check_seal(f: Any, size: int, where: str) -> bool:
    """Verify the checksum at the end of the file; False for an archive without any comment
    (a project re-zipped by another tool), which is read without it."""
    if size < 22:
        raise RecipeError(f"{where}: not a project file ({size} bytes; truncated or another "
                          "kind of file)")
    f.seek(max(size - _SEAL_LEN, 0))
    tail = f.read(_SEAL_LEN)
    if not tail.startswith(SEAL):
        if tail[-22:-18] == b"PK\x05\x06" and tail[-2:] == b"\x00\x00":
            return False  # a ZIP archive ending with an empty comment: no checksum to verify
        raise RecipeError(f"{where}: not a project file (no 'sdcsession-project' checksum at "
                          "its end: truncated, damaged, or another kind of file)")
    digest = tail[len(SEAL):]
    if _hash_prefix(f, size - _SEAL_LEN).encode("ascii") != digest:
        raise RecipeError(f"{where}: the checksum does not match its content; the file is "
                          "corrupt (changed or damaged after it was saved)")
    return True


def read_archive(path: str | Path, limits: Mapping[str, int], *,
                 required: Iterable[str] = ("project.json",)) -> dict[str, bytes]:
    """The members of the sealed project archive at ``path``, by name.

    ``limits``: the member names allowed and the largest size of each (bytes); ``required``:
    members that must be present. See the module docstring for the checks; every failure is a
    `RecipeError` naming ``path``.
    """
    if not isinstance(path, (str, Path)) or not str(path).strip() or "\x00" in str(path):
        raise ParameterError(f"path: expected a project file path, got {path!r:.80}")
    p = Path(path)
    where = f"project {str(p)!r}"
    try:
        f = p.open("rb")
    except OSError as e:
        raise RecipeError(f"{where}: cannot read it: {e.strerror or e}") from e
    with f:
        size = f.seek(0, os.SEEK_END)
        _check_seal(f, size, where)
        try:
            return _members(f, limits, required, where)
        except RecipeError:
            raise
        except Exception as e:  # noqa: BLE001 - any failure of a damaged archive is the file's
            raise RecipeError(f"{where}: not a readable project archive "
                              f"({type(e).__name__}: {str(e)[:200]})") from e


def _members(f: Any, limits: Mapping[str, int], required: Iterable[str],
             where: str) -> dict[str, bytes]:
    f.seek(0)
    with zipfile.ZipFile(f) as z:
        infos = z.infolist()
        names = [i.filename for i in infos]
        unknown = sorted(set(names) - set(limits))
        if unknown:
            raise RecipeError(f"{where}: unexpected member(s) {unknown[:5]}; a project holds "
                              f"{sorted(limits)}")
        if len(set(names)) != len(names):
            raise RecipeError(f"{where}: a member name appears twice")
        missing = [r for r in required if r not in names]
        if missing:
            raise RecipeError(f"{where}: missing member(s) {missing}")
        out: dict[str, bytes] = {}
        for info in infos:
            cap = limits[info.filename]
            if info.flag_bits & 0x1:
                raise RecipeError(f"{where}: member {info.filename!r} is encrypted")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise RecipeError(f"{where}: member {info.filename!r} uses an unsupported "
                                  f"compression ({info.compress_type})")
            if info.file_size > cap:
                raise RecipeError(f"{where}: member {info.filename!r} declares {info.file_size} "
                                  f"bytes, more than the {cap} allowed")
            if info.compress_type == zipfile.ZIP_DEFLATED and \
                    info.file_size > MAX_RATIO * max(info.compress_size, 1) + 4096:
                raise RecipeError(f"{where}: member {info.filename!r} expands more than "
                                  f"{MAX_RATIO} times (a ZIP bomb?)")
            with z.open(info) as m:
                raw = m.read(info.file_size + 1)
            if len(raw) != info.file_size:
                raise RecipeError(f"{where}: member {info.filename!r} is not the declared size")
            out[info.filename] = raw
        return out
