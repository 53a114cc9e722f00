"""The app page's own front end, without a server: the template links the app's script and
stylesheet (not Voila's JupyterLab front end, not its log forwarder), both ship with the
package, and neither names a host to fetch widget code from.

The page itself, served by the running app, is checked in test_workbench_app.py (HTTP) and
driven in a browser by test_workbench_browser.py.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "sdcsession" / "present" / "workbench"
TEMPLATE = PKG / "jupyter" / "voila" / "templates" / "sdcsession"


def test_the_template_links_the_apps_front_end_only() -> None:
    text = (TEMPLATE / "index.html.j2").read_text()
    code = re.sub(r"\{#.*?#\}", "", text, flags=re.S)  # without the template's comments
    linked = re.findall(r'include_(?:css|url|js)\("static/([^"]+)"\)', code)
    assert sorted(linked) == ["sdcsession-app.css", "sdcsession-app.js"]
    assert "<script type=\"module\"" in code  # deferred: downloaded while the page is parsed
    # Voila's front end (main_js, voila-style.js), its CDN stylesheets and log forwarder are gone
    for gone in ("main_js", "voila-style", "voila_setup_labextensions", "log.js()", "http"):
        assert gone not in code, gone
    # the blocks that would bring them back from the lab template are overridden
    for block in ("html_head_js", "notebook_css", "html_head_js_mermaidjs", "body_footer"):
        assert re.search(r"\{%-?\s*block " + block + r"\s", code), block


def _scripts() -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted((TEMPLATE / "static").glob("sdcsession-*.js"))}


def test_the_front_end_ships_with_the_package() -> None:
    static = TEMPLATE / "static"
    scripts = _scripts()
    # the entry, the widget code it imports on demand and the modules both use: each chunk
    # named by the entry (no chunk of an earlier build left over)
    assert "sdcsession-app.js" in scripts and len(scripts) == 3, sorted(scripts)
    chunks = [n for n in scripts if n != "sdcsession-app.js"]
    assert sum(n.startswith("sdcsession-widgets-") for n in chunks) == 1
    for name in chunks:
        assert f"./{name}" in scripts["sdcsession-app.js"], name
    assert 300_000 < sum(map(len, scripts.values())) < 3_000_000  # not Voila's 10 MB
    assert len(scripts["sdcsession-app.js"]) < 300_000  # the part before the websocket opens
    assert (static / "sdcsession-app.css").stat().st_size > 10_000
    # setuptools' package data takes every file of the static folder
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = conf["tool"]["setuptools"]["package-data"]["sdcsession.present.workbench"]
    for path in static.iterdir():
        rel = path.relative_to(PKG).as_posix()
        assert any(fnmatch.fnmatchcase(rel, p) and rel.count("/") == p.count("/")
                   for p in patterns), rel


def test_the_bundle_loads_widgets_from_itself_and_names_its_licences() -> None:
    static = TEMPLATE / "static"
    js = "\n".join(_scripts().values())
    # ipywidgets' HTML manager fetches unknown widget modules from a CDN; this page must not
    for host in ("unpkg.com", "cdn.jsdelivr.net", "cdnjs.cloudflare.com", "jsdelivr", "unpkg"):
        assert host not in js, host
    # every widget's state in one message on the widget control comm (ipywidgets' protocol 2)
    assert "request_states" in js and "jupyter.widget.control" in js
    assert "voila/api/shutdown/" in js  # the page's kernel stops when the page closes
    licences = (static / "sdcsession-app.LICENSES.txt").read_text()
    for package in ("@jupyter-widgets/base", "@jupyter-widgets/controls",
                    "@jupyter-widgets/base-manager", "@jupyterlab/services", "@lumino/widgets"):
        assert re.search(rf"^{re.escape(package)} \d+\.\d+\.\d+ \(", licences, re.M), package
    # sanitize-html (with htmlparser2 and postcss) is replaced by a stand-in that escapes: the
    # app sets no description_allow_html, and no markup goes through a description
    for package in ("sanitize-html", "postcss", "htmlparser2"):
        assert not re.search(rf"^{package} \d", licences, re.M), package
    source = ROOT / "frontend" / "app"
    if source.is_dir():  # a source checkout: the bundle's source and build script are there
        assert (source / "src" / "index.js").is_file() and (source / "build.mjs").is_file()
        assert (source / "package-lock.json").is_file()
