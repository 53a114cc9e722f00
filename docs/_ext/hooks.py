"""MkDocs hooks of the docs build (``hooks:`` in mkdocs.yml): a site that needs no network.

- **Math as MathML.** pymdownx.arithmatex (generic mode) marks every formula; `on_page_content`
  replaces each with the MathML of `tex2mathml.tex_to_mathml`, which browsers render natively: no
  MathJax script, no CDN. A formula the converter does not know fails the build.
- **Notebooks and lessons as pages, with their outputs.** Every ``notebooks/*.ipynb`` and
  every lesson ``docs/course/*.ipynb`` is executed (`nbexec.executed`: nbclient, a timeout per
  cell, a cache shared with the notebook tests) and converted with nbconvert's
  ``MarkdownExporter`` (tables, figures as image files next to the page) into a generated page
  ``<folder>/<name>.md`` (`on_files`) with a link to download the notebook, listed in the nav
  right after ``notebooks.md`` / ``course/index.md`` under the notebook's first heading
  (`on_config`). A new notebook appears without editing mkdocs.yml; a failing cell fails the
  build.
- **Figures in prose and the figure registry.** `on_page_markdown` replaces
  ``{{ figure("name") }}`` with the value of a registered snippet (`prose_figures`) and the
  marker ``<!-- figures: risk -->`` / ``<!-- figures: utility -->`` with the text of the
  registry `sdcsession.session.views.figures.FIGURES` (the text of ``explain()``).
"""

from __future__ import annotations

import html
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

sys.path.insert(0, str(Path(__file__).parent))
from nbexec import executed  # noqa: E402
from prose_figures import SNIPPETS, figure  # noqa: E402
from tex2mathml import TexError, tex_to_mathml  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
OVERVIEW = "notebooks.md"
COURSE = ROOT / "docs" / "course"
COURSE_OVERVIEW = "course/index.md"
#: seconds one notebook cell may run at build time
CELL_TIMEOUT = 180

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


# ------------------------------------------------------------- figures in prose, registry
_FIGURE = re.compile(r"""\{\{\s*figure\(\s*["']([^"']+)["']\s*\)\s*\}\}""")
_REGISTRY = re.compile(r"<!--\s*figures:\s*(risk|utility)\s*-->")


def figures_markdown(kind: str) -> str:
    """The registry of figures (`sdcsession.session.views.figures.FIGURES`) of one kind as
    Markdown: the same text ``s.risk.explain(name)`` / ``s.utility.explain(name)`` prints."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from sdcsession.session.views.figures import FIGURES

    out = []
    for name, f in FIGURES.items():
        if f.kind != kind:
            continue
        out += [f"### {f.title}", "", f"`{name}` — {f.direction}", "", f"$${f.formula}$$", "",
                f"- **Source:** {f.source}", f"- **Assumptions:** {f.assumptions}",
                f"- **Moves it up:** {f.up}", f"- **Moves it down:** {f.down}", ""]
    return "\n".join(out)


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """Fill ``{{ figure("name") }}`` (computed figures) and ``<!-- figures: risk -->``."""

    def fill(m: re.Match[str]) -> str:
        if m[1] not in SNIPPETS:
            raise PluginError(f"{page.file.src_uri}: unknown figure {m[1]!r} "
                              f"(known: {', '.join(sorted(SNIPPETS))})")
        return figure(m[1])

    markdown = _FIGURE.sub(fill, markdown)
    return _REGISTRY.sub(lambda m: figures_markdown(m[1]), markdown)


# ------------------------------------------------------------------------------ notebooks
@dataclass(frozen=True)
class Collection:
    """Notebooks rendered as pages: where they are, where their pages go, the nav anchor."""

    folder: Path
    site_dir: str
    overview: str
    #: the .ipynb is already in docs_dir (copied as is) — else it is added for the download
    in_docs: bool


COLLECTIONS = (Collection(NOTEBOOKS, "notebooks", OVERVIEW, False),
               Collection(COURSE, "course", COURSE_OVERVIEW, True))


def notebooks(folder: Path = NOTEBOOKS) -> list[Path]:
    return sorted(folder.glob("*.ipynb"))


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


def notebook_markdown(path: Path, where: str = "notebooks") -> tuple[str, dict[str, bytes]]:
    """The notebook executed (cells with their outputs: tables, figures) as Markdown, and its
    output images by file name. A cell that fails or runs over `CELL_TIMEOUT` fails the build."""
    from nbconvert import MarkdownExporter

    try:
        nb = executed(path, timeout=CELL_TIMEOUT)
    except Exception as e:  # CellExecutionError / CellTimeoutError: name the notebook
        raise PluginError(f"{where}/{path.name} failed to execute:\n{e}") from None
    body, resources = MarkdownExporter().from_notebook_node(
        nb, resources={"unique_key": path.stem, "output_files_dir": ""})
    rel = "notebooks/" if where == "notebooks" else f"docs/{where}/"
    source = (f'!!! note "Notebook `{rel}{path.name}`"\n    Executed when this site was built, '
              f"with the outputs below. [Download the notebook]({path.name}){{: download='{path.name}' }} "
              'and run it yourself: `pip install -e ".[notebooks]"`, then `jupyter lab`.\n\n')
    first_heading = re.search(r"^# .+$", body, re.M)
    if first_heading:  # the note goes under the title
        end = first_heading.end()
        body = body[:end] + "\n\n" + source + body[end:].lstrip("\n")
    else:
        body = source + body
    return body, dict(resources.get("outputs", {}))


def on_config(config: Any, **kwargs: Any) -> Any:
    """Add one nav entry per notebook (and lesson) right after its collection's overview."""
    for col in COLLECTIONS:
        entries = [{notebook_title(p): f"{col.site_dir}/{p.stem}.md"}
                   for p in notebooks(col.folder)]

        def visit(node: Any, col: Collection = col, entries: list = entries) -> bool:
            if isinstance(node, list):
                at = [i for i, x in enumerate(node) if x == col.overview or (
                    isinstance(x, dict) and col.overview in x.values())]
                if at:
                    new = [e for e in entries if e not in node]
                    node[at[0] + 1:at[0] + 1] = new
                    return True
                return any(visit(x) for x in node)
            if isinstance(node, dict):
                return any(visit(v) for v in node.values())
            return False

        if config.get("nav") is not None and not visit(config["nav"]):
            raise PluginError(f"hooks: no nav section holds {col.overview} for the notebook pages")
    return config


def on_files(files: Files, config: Any, **kwargs: Any) -> Files:
    """Generate a page (and its images, and the notebook to download) for every notebook."""
    for col in COLLECTIONS:
        for path in notebooks(col.folder):
            body, outputs = notebook_markdown(path, col.site_dir)
            files.append(File.generated(config, f"{col.site_dir}/{path.stem}.md", content=body))
            for name, data in outputs.items():
                files.append(File.generated(config, f"{col.site_dir}/{Path(name).name}",
                                            content=data))
            if not col.in_docs:
                files.append(File.generated(config, f"{col.site_dir}/{path.name}",
                                            content=path.read_bytes()))
    return files
