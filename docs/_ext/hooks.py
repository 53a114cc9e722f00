"""MkDocs hooks of the docs build (``hooks:`` in mkdocs.yml): a site that needs no network.

- **Math as MathML.** pymdownx.arithmatex (generic mode) marks every formula; `on_page_content`
  replaces each with the MathML of `tex2mathml.tex_to_mathml`, which browsers render natively: no
  MathJax script, no CDN. A formula the converter does not know fails the build.
- **Notebooks as pages.** Every ``notebooks/*.ipynb`` is converted with nbconvert's
  ``MarkdownExporter`` (stored outputs included, images as files next to the page) into a
  generated page ``notebooks/<name>.md`` (`on_files`), listed in the nav section that holds
  ``notebooks.md`` under the notebook's first heading (`on_config`). A new notebook appears
  without editing mkdocs.yml.
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

sys.path.insert(0, str(Path(__file__).parent))
from tex2mathml import TexError, tex_to_mathml  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
OVERVIEW = "notebooks.md"

_INLINE = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.S)
_BLOCK = re.compile(r'<div class="arithmatex">\\\[(.*?)\\\]</div>', re.S)


# ----------------------------------------------------------------------------------- math
def math_to_mathml(text: str, where: str = "") -> str:
    """Every arithmatex formula of a page's HTML as MathML (block formulas centred)."""

    def conv(m: re.Match[str], display: bool) -> str:
        tex = html.unescape(m[1]).strip()
        try:
            return tex_to_mathml(tex, display=display)
        except TexError as e:
            raise PluginError(f"{where}: formula not converted to MathML: {e}") from None

    text = _BLOCK.sub(lambda m: conv(m, True), text)
    return _INLINE.sub(lambda m: conv(m, False), text)


_TOC_MATH = re.compile(r"\\\((.*?)\\\)", re.S)


def tex_to_text(tex: str) -> str:
    """A formula as plain text for places that show text only (the table of contents):
    ``LDU_{uni}`` → ``LDU_uni``, ``\\alpha`` → ``α``."""
    from tex2mathml import GREEK, SYMBOLS, UPPER_GREEK

    names = {**GREEK, **UPPER_GREEK, **SYMBOLS}
    text = re.sub(r"\\([A-Za-z]+)", lambda m: names.get(m[1], ""), html.unescape(tex))
    return re.sub(r"[{}]", "", text).strip()


def _plain_toc(items: Any) -> None:
    for item in items:
        item.title = _TOC_MATH.sub(lambda m: tex_to_text(m[1]), item.title)
        _plain_toc(item.children)


def on_page_content(html_text: str, page: Any, **kwargs: Any) -> str:
    if page.toc is not None:
        _plain_toc(page.toc)
    return math_to_mathml(html_text, page.file.src_uri)


# ------------------------------------------------------------------------------ notebooks
def notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def notebook_title(path: Path) -> str:
    """The first Markdown heading of the notebook (its file name when it has none)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            src = "".join(cell.get("source", []))
            m = re.search(r"^#+\s+(.+)$", src, re.M)
            if m:
                return m[1].strip()
    return path.stem.replace("_", " ")


def notebook_markdown(path: Path) -> tuple[str, dict[str, bytes]]:
    """The notebook as Markdown (with its stored outputs) and its output images by file name."""
    import nbformat
    from nbconvert import MarkdownExporter

    nb = nbformat.read(path, as_version=4)
    body, resources = MarkdownExporter().from_notebook_node(
        nb, resources={"unique_key": path.stem, "output_files_dir": ""})
    source = (f'!!! note "Notebook `notebooks/{path.name}`"\n    Rendered from the notebook '
              "(outputs appear when it was saved with them); run it yourself with "
              '`pip install -e ".[notebooks]"` and `jupyter lab notebooks/`.\n\n')
    first_heading = re.search(r"^# .+$", body, re.M)
    if first_heading:  # the note goes under the title
        end = first_heading.end()
        body = body[:end] + "\n\n" + source + body[end:].lstrip("\n")
    else:
        body = source + body
    return body, dict(resources.get("outputs", {}))


def on_config(config: Any, **kwargs: Any) -> Any:
    """Add one nav entry per notebook to the section that holds ``notebooks.md``."""
    entries = [{notebook_title(p): f"notebooks/{p.stem}.md"} for p in notebooks()]

    def visit(node: Any) -> bool:
        if isinstance(node, list):
            if any(x == OVERVIEW or (isinstance(x, dict) and OVERVIEW in x.values())
                   for x in node):
                node.extend(e for e in entries if e not in node)
                return True
            return any(visit(x) for x in node)
        if isinstance(node, dict):
            return any(visit(v) for v in node.values())
        return False

    if config.get("nav") is not None and not visit(config["nav"]):
        raise PluginError(f"hooks: no nav section holds {OVERVIEW} for the notebook pages")
    return config


def on_files(files: Files, config: Any, **kwargs: Any) -> Files:
    """Generate a page (and its images) for every notebook."""
    for path in notebooks():
        body, outputs = notebook_markdown(path)
        files.append(File.generated(config, f"notebooks/{path.stem}.md", content=body))
        for name, data in outputs.items():
            files.append(File.generated(config, f"notebooks/{Path(name).name}", content=data))
    return files
