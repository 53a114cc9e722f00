"""Every teaching notebook in ``notebooks/`` executes without error (nbclient, kernel python3).

Each notebook runs with ``notebooks/`` as working directory and a 120 s limit per cell; any
exception in any cell fails the test with the cell's source and the error. Outputs are not stored
in the repository: the committed notebooks must have no outputs (checked too).
Skipped (with the reason) when nbclient / nbformat / ipykernel are not installed
(``pip install -e ".[test]"``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
MISSING = [m for m in ("nbclient", "nbformat", "ipykernel") if importlib.util.find_spec(m) is None]
needs_jupyter = pytest.mark.skipif(
    bool(MISSING), reason=f"notebooks need {', '.join(MISSING)} (pip install -e '.[test]')")


def test_the_five_notebooks_exist() -> None:
    names = [p.name[:2] for p in NOTEBOOKS]
    assert names[:5] == ["01", "02", "03", "04", "05"], [p.name for p in NOTEBOOKS]


@needs_jupyter
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
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
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    monkeypatch.setenv("PYTHONPATH", str(ROOT) + ":" + __import__("os").environ.get(
        "PYTHONPATH", ""))
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute()
    except CellExecutionError as e:  # the message holds the cell source and the traceback
        pytest.fail(f"{path.name} failed:\n{e}", pytrace=False)
