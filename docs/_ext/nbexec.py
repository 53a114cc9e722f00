"""Execute a notebook once per content: the docs build and the notebook tests share the result.

`executed(path)` runs the notebook with nbclient (kernel ``python3``, the notebook's folder as
working directory, this checkout's ``sdcsession`` first on the kernel's path, ``timeout`` seconds
per cell) and keeps the executed copy in a cache folder keyed by the SHA-256 of the notebook, of
every source file of ``sdcsession`` and of the Python / pandas / numpy versions. A second caller
with the same key (the docs build after the notebook tests, or the other way round) reads the
copy instead of running the notebook again; any change to the notebook or the library runs it
anew. Only a notebook that ran without error is cached. The folder is
``$SDCSESSION_NOTEBOOK_CACHE`` (``off`` disables the cache), else ``<tmp>/sdcsession-notebooks``.
"""

from __future__ import annotations

import hashlib
import os
import platform
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _key(path: Path) -> str:
    import numpy
    import pandas

    h = hashlib.sha256(path.read_bytes())
    for src in sorted((ROOT / "sdcsession").rglob("*.py")):
        h.update(src.relative_to(ROOT).as_posix().encode())
        h.update(src.read_bytes())
    h.update(f"{platform.python_version()} {pandas.__version__} {numpy.__version__}".encode())
    return h.hexdigest()[:20]


def cache_dir() -> Path | None:
    value = os.environ.get("SDCSESSION_NOTEBOOK_CACHE", "").strip()
    if value.lower() == "off":
        return None
    return Path(value) if value else Path(tempfile.gettempdir()) / "sdcsession-notebooks"


def executed(path: Path, timeout: int = 120) -> Any:
    """The notebook at ``path`` with its outputs (from the cache, or executed now).

    Raises nbclient's ``CellExecutionError`` (with the cell and its traceback) when a cell fails
    and ``CellTimeoutError`` when one runs longer than ``timeout`` seconds.
    """
    import nbformat
    from nbclient import NotebookClient

    folder = cache_dir()
    cached = folder / f"{path.stem}-{_key(path)}.ipynb" if folder else None
    if cached is not None and cached.is_file():
        return nbformat.read(cached, as_version=4)
    nb = nbformat.read(path, as_version=4)
    paths = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        nbformat.write(nb, tmp)
        tmp.replace(cached)  # atomic: a parallel reader sees the whole file or none
    return nb
