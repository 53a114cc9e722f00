"""The documentation site builds with ``mkdocs build --strict`` (warnings are errors).

A broken page, link, nav entry or API-reference docstring fails this test. Skipped (with the
reason) when mkdocs-material / mkdocstrings are not installed (``pip install -e ".[docs]"``).
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MISSING = [m for m in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers", "yaml",
                       "nbconvert", "nbformat", "nbclient", "ipykernel")
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


#: run by a second process beside the build: executes the notebooks into the cache the build
#: reads (`docs/_ext/nbexec.py`), last first, while the build executes them first first; they
#: meet in the middle, so the two cores share the notebooks. Failures are left to the build.
_PREFETCH = """
import sys
sys.path.insert(0, sys.argv[1])
from nbexec import executed
from pathlib import Path
for p in sys.argv[2:]:
    try:
        executed(Path(p), timeout=180)
    except Exception:
        pass
"""


def _prefetch(env: dict[str, str]) -> subprocess.Popen | None:
    """Start the second process (none when the notebook cache is off, or under pytest-xdist,
    whose other worker keeps the second core busy already; `test_notebooks.py` executes them
    last first, so a worker running it beside the build shares the notebooks with it)."""
    if env.get("SDCSESSION_NOTEBOOK_CACHE", "").strip().lower() == "off" or (
            "PYTEST_XDIST_WORKER" in env):
        return None
    books = [*sorted((ROOT / "notebooks").glob("*.ipynb")),
             *sorted((DOCS / "course").glob("*.ipynb"))]
    return subprocess.Popen(
        [sys.executable, "-c", _PREFETCH, str(DOCS / "_ext"), *map(str, reversed(books))],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)


def _stop(proc: subprocess.Popen | None) -> None:
    if proc is not None and proc.poll() is None:
        import signal

        os.killpg(proc.pid, signal.SIGTERM)  # its kernel too
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built once with ``mkdocs build --strict`` (a warning fails the build)."""
    site = tmp_path_factory.mktemp("docs") / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    helper = _prefetch(env)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean",
             "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    finally:
        _stop(helper)
    log = proc.stdout + proc.stderr
    problems = [ln for ln in log.splitlines() if "WARNING" in ln or "ERROR" in ln]
    assert proc.returncode == 0, "mkdocs build --strict failed:\n" + "\n".join(problems or [log])
    return site


def test_mkdocs_build_strict(site: Path) -> None:
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


# ------------------------------------------------------------------- offline site (issue 20)
_EXTERNAL = re.compile(r"^\s*(?:https?:)?//", re.I)
#: tags whose attribute makes the browser load something (links to other pages, <a>, are fine)
_LOADING = {"script": ("src",), "link": ("href",), "img": ("src", "srcset"),
            "iframe": ("src",), "source": ("src", "srcset"), "video": ("src", "poster"),
            "audio": ("src",), "embed": ("src",), "object": ("data",), "track": ("src",),
            "input": ("src",), "image": ("href", "xlink:href"), "use": ("href", "xlink:href")}
_CSS_URL = re.compile(r"""@import\s+(?:url\(\s*)?["']?((?:https?:)?//[^"')\s;]+)"""
                      r"""|url\(\s*["']?((?:https?:)?//[^"')\s]+)""", re.I)
_JS_ATTR = re.compile(r"""\b(?:src|href)\s*[=:]\s*["'`]((?:https?:)?//[^"'`\s]+)""", re.I)


def network_loads(name: str, text: str) -> list[str]:
    """The URLs a built file would load from the network: the loading attributes of HTML tags
    (script, stylesheet/icon/font link, img, iframe…), ``@import`` and ``url()`` in CSS and in
    style attributes / blocks, and ``src``/``href`` assignments in JS."""
    from html.parser import HTMLParser

    found: list[str] = []
    if name.endswith(".html"):
        class P(HTMLParser):
            def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
                for key, value in attrs:
                    if value and key in _LOADING.get(tag, ()):
                        found.extend(v.split()[0] for v in value.split(",")
                                     if v.strip() and _EXTERNAL.match(v))
                    if key == "style" and value:
                        found.extend(a or b for a, b in _CSS_URL.findall(value))

        P(convert_charrefs=True).feed(text)
        for block in re.findall(r"<style[^>]*>(.*?)</style>", text, flags=re.S | re.I):
            found.extend(a or b for a, b in _CSS_URL.findall(block))
    elif name.endswith(".css"):
        found.extend(a or b for a, b in _CSS_URL.findall(text))
    elif name.endswith(".js"):
        found.extend(_JS_ATTR.findall(text))
        found.extend(a or b for a, b in _CSS_URL.findall(text))
    return found


def test_the_network_scanner_finds_what_would_load():
    page = ('<html><head><script src="https://cdn.jsdelivr.net/npm/mathjax@3/x.js"></script>'
            '<link rel="stylesheet" href="//fonts.googleapis.com/css?family=Roboto">'
            "<style>@import url('https://fonts.example/a.css');</style></head><body>"
            '<a href="https://example.org/">a link is fine</a><img src="local.png">'
            '<div style="background:url(http://x.org/b.png)"></div></body></html>')
    assert len(network_loads("p.html", page)) == 4
    assert network_loads("a.css", "@font-face{src:url(https://f.org/x.woff2)}") == \
        ["https://f.org/x.woff2"]
    assert network_loads("a.css", "a{background:url(data:image/svg+xml;x)}") == []
    assert network_loads("a.js", 'e.src="https://cdn.org/x.js"') == ["https://cdn.org/x.js"]
    assert network_loads("p.html", '<a href="https://squidfunk.github.io/">x</a>') == []


def test_the_built_site_loads_nothing_from_the_network(site: Path) -> None:
    files = [p for p in site.rglob("*") if p.suffix in (".html", ".js", ".css")]
    assert len(files) > 20
    bad = {str(p.relative_to(site)): urls for p in files
           if (urls := network_loads(p.name, p.read_text(encoding="utf-8", errors="replace")))}
    assert bad == {}, bad
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "font: false" in config and "cdn." not in config


def test_math_is_rendered_as_mathml_at_build_time(site: Path) -> None:
    total = 0
    for page in ("concepts/risk", "concepts/utility", "concepts/gdu"):
        text = (site / page / "index.html").read_text(encoding="utf-8")
        shown = re.sub(r"<annotation.*?</annotation>", "", text, flags=re.S)  # the TeX source
        assert 'class="arithmatex"' not in text and "\\(" not in shown and "\\[" not in shown
        total += text.count("<math")
    assert total >= 300  # every formula of those three pages
    risk = (site / "concepts/risk/index.html").read_text(encoding="utf-8")
    assert "<mfrac>" in risk and '<math display="block">' in risk
    assert not list(site.rglob("mathjax*.js")) and not list(site.rglob("tex-*.js"))


def test_tex_to_mathml_converter() -> None:
    spec = importlib.util.spec_from_file_location("tex2mathml", DOCS / "_ext" / "tex2mathml.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    f = mod.tex_to_mathml
    assert f(r"\frac1n\sum_i r_i") == (
        "<math><mfrac><mn>1</mn><mi>n</mi></mfrac><msub><mo largeop=\"true\" "
        "movablelimits=\"true\">∑</mo><mi>i</mi></msub><msub><mi>r</mi><mi>i</mi></msub></math>")
    assert f(r"\sqrt{x^2}") == "<math><msqrt><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow></msqrt></math>"
    assert f(r"\alpha\in[0,1]").startswith("<math><mi>α</mi><mo>∈</mo>")
    assert "<mtext>for every\u00a0</mtext>" in f(r"x \text{for every } j")  # end space kept
    block = f(r"\left(\frac{a}{b}\right)^2", display=True)
    assert block.startswith('<math display="block">') and '<mo fence="true">(</mo>' in block
    cases = f(r"\begin{cases} 1 & a,\\ 0 & b \end{cases}")
    assert "<mtable" in cases
    # the brace stretches over the two rows (symmetric, at least two rows tall)
    brace = re.search(r"<mo ([^>]*)>\{</mo>", cases)
    assert brace and 'stretchy="true"' in brace[1] and 'symmetric="true"' in brace[1]
    assert 'minsize="2.6em"' in brace[1]
    # {}_2F_1: the 2 is a prescript of F (one mmultiscripts), not a subscript of what precedes
    hyper = f(r"\frac{p_k}{f_k}\; {}_2F_1(1,1;f_k+1;1-p_k)")
    assert ("<mmultiscripts><mi>F</mi><mn>1</mn><none/><mprescripts/><mn>2</mn><none/>"
            "</mmultiscripts>") in hyper
    assert "<msub><mrow></mrow>" not in hyper
    assert f(r"{}^aX") == ("<math><mmultiscripts><mi>X</mi><none/><none/><mprescripts/><none/>"
                           "<mi>a</mi></mmultiscripts></math>")
    with pytest.raises(mod.TexError):
        f(r"\unknowncommand{x}")


def test_api_reference_has_no_raw_sphinx_roles(site: Path) -> None:
    pages = list((site / "reference").rglob("*.html"))
    assert len(pages) >= 6
    roles = re.compile(r":(?:class|func|meth|mod|attr|exc|obj|data|py:\w+):")
    found = {str(p.relative_to(site)): sorted(set(roles.findall(p.read_text(encoding="utf-8"))))
             for p in pages}
    assert {k: v for k, v in found.items() if v} == {}


def test_every_sdcsession_parameter_is_documented(site: Path) -> None:
    import inspect

    import sdcsession as sdc

    params = [p for p in inspect.signature(sdc.SdcSession.__init__).parameters if p != "self"]
    text = (site / "reference" / "session" / "index.html").read_text(encoding="utf-8")
    start = text.index('id="sdcsession.SdcSession"')
    end = text.index('id="sdcsession.SdcSession.', start)
    table = text[start:end]
    table = table[table.index("Parameters"):]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, flags=re.S)
    names = [re.sub(r"<[^>]+>", "", re.findall(r"<td[^>]*>(.*?)</td>", r, flags=re.S)[0]).strip()
             for r in rows if "<td" in r]
    assert names[: len(params)] == params
    descriptions = [re.sub(r"<[^>]+>", "", re.findall(r"<td[^>]*>(.*?)</td>", r, flags=re.S)[2])
                    for r in rows if "<td" in r][: len(params)]
    assert len(set(descriptions)) == len(params)  # each its own description


def test_every_notebook_is_a_page_in_the_nav(site: Path) -> None:
    books = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert books
    home = (site / "index.html").read_text(encoding="utf-8")
    for nb in books:
        page = site / "notebooks" / nb.stem / "index.html"
        assert page.is_file(), nb.name
        text = page.read_text(encoding="utf-8")
        code = re.sub(r"<[^>]+>", "", "".join(re.findall(r'<div class="[^"]*highlight">'
                                                           r"(.*?)</div>", text, flags=re.S)))
        assert "import sdcsession" in code and "<h1" in text  # code and markdown rendered
        assert f"notebooks/{nb.stem}/" in home, f"{nb.name} is not in the nav"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    overview = (DOCS / "notebooks.md").read_text(encoding="utf-8")
    assert 'pip install -e ".[notebooks]"' in readme and 'pip install -e ".[notebooks]"' in overview


def test_session_reference_names_every_public_method(site: Path) -> None:
    """The session's API page documents every public method, the treatment methods included."""
    import sdcsession as sdc

    text = (site / "reference" / "session" / "index.html").read_text(encoding="utf-8")
    public = sorted(n for n in dir(sdc.SdcSession) if not n.startswith("_")
                    and callable(getattr(sdc.SdcSession, n, None)))
    documented = [n for n in public if f'id="sdcsession.SdcSession.{n}"' in text]
    assert {"add_noise", "local_suppression", "pram", "undo", "export"} <= set(documented)
    code = set(re.findall(r"<code>([A-Za-z_][\w.]*)", text))
    missing = [n for n in public if n not in documented and n not in code
               and f"s.{n}" not in code]
    assert missing == []


def test_no_internal_issue_numbers_in_user_text() -> None:
    """Docs, docstrings, messages and notebooks never mention internal issue numbers."""
    pattern = re.compile(r"\b[Ii]ssues?[ #]*\d+")
    places = [*(ROOT / "docs").rglob("*.md"), *(ROOT / "sdcsession").rglob("*.py"),
              *(ROOT / "notebooks").rglob("*.ipynb"), ROOT / "README.md"]
    hits = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in places
            for m in pattern.finditer(p.read_text(encoding="utf-8"))]
    assert hits == []


# ---------------------------------------------------------------- teaching: course, figures
PUBLIC_MODULES = ("sdcsession", "sdcsession.risk", "sdcsession.methods", "sdcsession.utility",
                  "sdcsession.privacy", "sdcsession.tables", "sdcsession.io", "sdcsession.scale",
                  "sdcsession.session", "sdcsession.present")


def documented_names(site: Path) -> set[str]:
    """Names the API reference documents: the last part of every object anchor
    (``id="sdcsession.risk.kanon.k_violations"``) and every name in ``<code>`` of its pages."""
    html = "\n".join(p.read_text(encoding="utf-8") for p in (site / "reference").rglob("*.html"))
    anchors = re.findall(r'id="(sdcsession(?:\.[A-Za-z_]\w*)+)"', html)
    code = re.findall(r"<code>(?:[\w.]+\.)?([A-Za-z_]\w*)</code>", html)
    return {a.rsplit(".", 1)[-1] for a in anchors} | set(code)


def test_api_reference_names_every_public_name(site: Path) -> None:
    import importlib

    documented = documented_names(site)
    missing = {m: [n for n in importlib.import_module(m).__all__ if n not in documented]
               for m in PUBLIC_MODULES}
    assert {m: v for m, v in missing.items() if v} == {}
    assert "fictitious_public_name" not in documented  # the check can fail


def _page_outputs(text: str) -> tuple[int, int]:
    """(images, tables) of a rendered notebook page's content."""
    body = text[text.index('<article'):text.index("</article>")]
    return body.count("<img"), body.count("<table")


def test_every_notebook_and_lesson_page_has_its_outputs(site: Path) -> None:
    books = [("notebooks", p) for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
    books += [("course", p) for p in sorted((DOCS / "course").glob("*.ipynb"))]
    assert len(books) >= 12
    for where, nb in books:
        text = (site / where / nb.stem / "index.html").read_text(encoding="utf-8")
        images, tables = _page_outputs(text)
        assert images + tables > 0, f"{nb.name}: no table or figure on its page"
        for src in re.findall(r'<img[^>]+src="([^"]+)"', text[text.index("<article"):]):
            if not src.startswith(("data:", "http")):
                assert (site / where / nb.stem / src).resolve().is_file(), (nb.name, src)
        # a link to download the notebook, and the file behind it
        assert f'<a download="{nb.name}" href="../{nb.name}">' in text, nb.name
        assert (site / where / nb.name).is_file(), nb.name
    lesson = (site / "course" / "06_choosing" / "index.html").read_text(encoding="utf-8")
    assert _page_outputs(lesson)[0] >= 1  # the R-U map
    plain = re.sub(r"<[^>]+>", "", lesson)
    assert "Exercise 6.1" in plain and 'check("6.1", answer)' in html.unescape(plain)


def test_the_figures_page_renders_the_explain_registry(site: Path) -> None:
    from sdcsession.session.views.figures import FIGURES

    text = (site / "concepts" / "figures" / "index.html").read_text(encoding="utf-8")
    assert "<!-- figures" not in text
    for name, f in FIGURES.items():
        assert f"<code>{name}</code>" in text, name
        assert html.escape(f.source, quote=False) in text, name
    assert text.count("<math") >= len(FIGURES)


def test_prose_figures_are_computed_at_build_time(site: Path) -> None:
    spec = importlib.util.spec_from_file_location("prose_figures",
                                                  DOCS / "_ext" / "prose_figures.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    pages = [p.read_text(encoding="utf-8") for p in site.rglob("*.html")]
    assert not any("{{ figure(" in p or "{{figure(" in p for p in pages)
    text = (site / "concepts" / "treatments" / "index.html").read_text(encoding="utf-8")
    if mod.conformance() is None:
        assert mod.ABSENT in text
        return
    import pandas as pd

    from sdcsession.methods.suppression import local_suppression

    ref = mod._reference()["testdata"]
    df = pd.read_csv(mod.conformance() / "data" / "testdata.csv")
    keys = ref["keys"]
    df[keys] = df[keys].astype("category")
    total = local_suppression(df, keys, k=3)[1]["total"]
    assert f"testdata k=3: {total:,} vs {ref['kanon_k3']['total']:,}" in " ".join(text.split())


def test_importance_is_described_one_way() -> None:
    """The sdcMicro page describes ``importance`` as the code reads it: names or sdcMicro's
    numeric vector (both accepted), and the two forms of its example give the same result."""
    from sdcsession.methods.suppression import local_suppression

    text = (DOCS / "sdcmicro.md").read_text(encoding="utf-8")
    assert "instead of a\nnumeric vector" not in text and "`importance` takes either form" in text
    df = sdc_survey()
    keys = ["region", "urbrur", "sex", "age5", "marstat", "educ"]
    a = local_suppression(df, keys, k=3, importance=[1, 6, 2, 3, 5, 4])[0]
    b = local_suppression(df, keys, k=3,
                          importance=["region", "sex", "age5", "educ", "marstat", "urbrur"])[0]
    assert a.equals(b) and a[keys].isna().sum().sum() > 0


def sdc_survey():
    import sdcsession as sdc

    return sdc.datasets.synthetic_survey(300, seed=42)
