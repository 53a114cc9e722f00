"""Every teaching notebook in ``notebooks/`` and every lesson of the course (``docs/course/``)
executes without error (nbclient, kernel python3).

Each notebook runs with its folder as working directory and a 120 s limit per cell (through
``docs/_ext/nbexec.py``, whose cache the docs build shares: a notebook executed there for the same
code is not run twice); any exception in any cell fails the test with the cell's source and the
error. Outputs are not stored in the repository: the committed notebooks must have no outputs
(checked too); the site shows them, executed at build time.
Skipped (with the reason) when nbclient / nbformat / ipykernel are not installed
(``pip install -e ".[test]"``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
LESSONS = sorted((ROOT / "docs" / "course").glob("*.ipynb"))
#: last first: the docs build (`test_docs.py`) executes them first first, and the two share the
#: executed copies (a worker running these beside the build takes the other end of the list)
NOTEBOOKS = (BOOKS + LESSONS)[::-1]
IDS = [f"{p.parent.name}/{p.stem}" for p in NOTEBOOKS]
MISSING = [m for m in ("nbclient", "nbformat", "ipykernel") if importlib.util.find_spec(m) is None]
needs_jupyter = pytest.mark.skipif(
    bool(MISSING), reason=f"notebooks need {', '.join(MISSING)} (pip install -e '.[test]')")


def test_the_five_notebooks_exist() -> None:
    names = [p.name[:2] for p in BOOKS]
    assert names[:5] == ["01", "02", "03", "04", "05"], [p.name for p in BOOKS]
    assert [p.name[:2] for p in LESSONS] == [f"{i:02d}" for i in range(1, len(LESSONS) + 1)]
    assert 6 <= len(LESSONS) <= 8


@needs_jupyter
@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_has_no_outputs_and_reads_as_a_lesson(path: Path) -> None:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    for c in code:
        assert not c.get("outputs") and c.get("execution_count") is None, (
            f"{path.name}: outputs are committed (clear them): {c.source[:60]!r}")
    kinds = [c.cell_type for c in nb.cells]
    assert kinds[0] == "markdown", "a lesson starts with its text"
    assert sum(k == "markdown" for k in kinds) >= len(code) // 2, "markdown between the cells"


@needs_jupyter
@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_executes(path: Path) -> None:
    from nbclient.exceptions import CellExecutionError

    spec = importlib.util.spec_from_file_location("nbexec", ROOT / "docs" / "_ext" / "nbexec.py")
    assert spec is not None and spec.loader is not None
    nbexec = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nbexec)
    try:
        nb = nbexec.executed(path, timeout=120)
    except CellExecutionError as e:  # the message holds the cell source and the traceback
        pytest.fail(f"{path.name} failed:\n{e}", pytrace=False)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert errors == []
    assert any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
