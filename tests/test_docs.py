"""The documentation site builds with ``mkdocs build --strict`` (warnings are errors).

A broken page, link, nav entry or API-reference docstring fails this test. Skipped (with the
reason) when mkdocs-material / mkdocstrings are not installed (``pip install -e ".[docs]"``).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MISSING = [m for m in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers", "yaml")
           if importlib.util.find_spec(m) is None]

pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"docs build needs {', '.join(MISSING)} (pip install -e '.[docs]')")


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [p for v in node.values() for p in _nav_pages(v)]
    if isinstance(node, list):
        return [p for v in node for p in _nav_pages(v)]
    return []


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean",
         "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    log = proc.stdout + proc.stderr
    problems = [ln for ln in log.splitlines() if "WARNING" in ln or "ERROR" in ln]
    assert proc.returncode == 0, "mkdocs build --strict failed:\n" + "\n".join(problems or [log])
    for page in ("index.html", "getting-started/index.html", "concepts/risk/index.html",
                 "concepts/utility/index.html", "sdcmicro/index.html",
                 "reference/risk/index.html", "reference/utility/index.html"):
        assert (site / page).is_file(), page
    # the API reference is generated from the docstrings (not an empty page)
    ref = (site / "reference" / "risk" / "index.html").read_text(encoding="utf-8")
    assert 'id="sdcsession.risk.frequencies.frequencies"' in ref
    assert 'id="sdcsession.risk.suda2.suda2"' in ref
    util = (site / "reference" / "utility" / "index.html").read_text(encoding="utf-8")
    for name in ("continuous.il1s", "gdu.gdu", "benchmark.gini", "regression.compare_regression"):
        assert f'id="sdcsession.utility.{name}"' in util, name
    # doctest examples are rendered as code, not as nested block quotes
    assert "&gt;&gt;&gt;" in ref and "<blockquote>\n<blockquote>" not in ref


def test_every_page_is_in_the_nav() -> None:
    """A page left out of the nav is built but unreachable; a nav entry without a page fails."""
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = set(_nav_pages(config["nav"]))
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert pages - nav == set(), f"pages missing from the nav: {sorted(pages - nav)}"
    assert nav - pages == set(), f"nav entries without a page: {sorted(nav - pages)}"


def test_docstring_rewriter() -> None:
    """The docs-only griffe extension fences doctests and splits ``name : prose`` lines."""
    spec = importlib.util.spec_from_file_location(
        "griffe_docstrings", DOCS / "_ext" / "griffe_docstrings.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = ("Summary.\n\nParameters\n----------\ndata : the microdata.\nk : int\n    size.\n\n"
            "Reference: X (2000).\n\nExample\n-------\n>>> 1 + 1\n2\n")
    out = mod.rewrite(text)
    assert "data\n    the microdata." in out          # prose moved to the description
    assert "k : int" in out                          # a real type is kept
    assert "Notes\n-----\nReference: X (2000)." in out
    assert "```pycon\n>>> 1 + 1\n2\n```" in out
