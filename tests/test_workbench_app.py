"""The hardened app (``sdcsession app``) over HTTP, without a browser: the token printed at start is
required, a foreign Host header is refused, kernels (pages plus the warm pool) are capped, shut
down when their page closes and culled when idle, and the data file's name never reaches the
page as markup.

Skipped with the reason when Voilà or ipywidgets is missing. Slow (each page load runs the app's
notebook in a new kernel).
"""

from __future__ import annotations

import http.client
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import sdcsession as sdc

ROOT = Path(__file__).resolve().parents[1]
MISSING = [m for m in ("voila", "ipywidgets") if importlib.util.find_spec(m) is None]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(MISSING), reason=f"needs {', '.join(MISSING)} "
                                             "(pip install -e '.[gui]')"),
]


class App:
    """A running ``sdcsession app``: its process, port, token and log."""

    def __init__(self, proc: subprocess.Popen, port: int, token: str, log: Path) -> None:
        self.proc, self.port, self.token, self.log = proc, port, token, log

    def request(self, method: str, path: str, *, token: bool = True,
                host: str | None = None) -> tuple[int, str, dict[str, str]]:
        """(status, body, headers) of one request (redirects are not followed)."""
        if token:
            path += ("&" if "?" in path else "?") + f"token={self.token}"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            headers = {"Host": host or f"127.0.0.1:{self.port}"}
            conn.request(method, path, headers=headers)
            r = conn.getresponse()
            return r.status, r.read().decode("utf-8", "replace"), dict(r.getheaders())
        finally:
            conn.close()

    def kernels(self) -> int:
        """Kernel processes running under the app (descendants whose command is ipykernel)."""
        children: dict[int, list[int]] = {}
        cmds: dict[int, str] = {}
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
                cmds[int(d.name)] = (d / "cmdline").read_bytes().decode(errors="replace")
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
        todo, found = [self.proc.pid], 0
        while todo:
            for c in children.get(todo.pop(), []):
                todo.append(c)
                found += "ipykernel" in cmds.get(c, "")
        return found


def _start(tmp_path: Path, data: Path, *args: str) -> App:
    if sys.platform != "linux":
        pytest.skip("counts kernel processes through /proc")
    from sdcsession.present.workbench.app import free_port

    port = free_port()
    log = tmp_path / "app.log"
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               SDCSESSION_PROGRESS="0")
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sdcsession", "app", str(data), "--keys", "region,sex,age5",
             "--seed", "1", "--port", str(port), "--no-browser", *args],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"sdcsession app exited with {proc.returncode}:\n{log.read_text()}")
        text = log.read_text()
        m = re.search(r"sdcsession app: http://127\.0\.0\.1:(\d+)/\?token=([\w-]+)", text)
        if m and "is running at" in text:
            assert int(m.group(1)) == port
            return App(proc, port, m.group(2), log)
        time.sleep(0.3)
    proc.kill()
    pytest.fail(f"the app did not start within 60 s:\n{log.read_text()}")


def _stop(app: App) -> None:
    if app.proc.poll() is None:
        app.proc.send_signal(signal.SIGINT)
        try:
            app.proc.wait(30)
        except subprocess.TimeoutExpired:
            app.proc.kill()


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    data = tmp_path / "survey.csv"
    sdc.datasets.synthetic_survey(150, seed=3).to_csv(data, index=False)
    return data


@pytest.fixture
def capped_app(tmp_path: Path, survey: Path) -> Iterator[App]:
    app = _start(tmp_path, survey, "--max-kernels", "2", "--idle-minutes", "0.1")
    yield app
    _stop(app)


def _kernel_id(body: str) -> str:
    m = re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', body)
    assert m, body[:500]
    return m.group(1)


def test_token_and_loopback_host_are_required(capped_app: App) -> None:
    app = capped_app
    assert len(app.token) >= 32
    status, _, headers = app.request("GET", "/", token=False)
    assert status == 302 and "/login" in headers["Location"]  # to the token form, no kernel
    status, _, _ = app.request("GET", "/?token=" + "x" * 32, token=False)
    assert status in (302, 403)
    assert app.kernels() <= 1  # the warm pool's kernel only: none for a refused request
    for host in ("evil.example", f"evil.example:{app.port}", f"192.168.1.7:{app.port}",
                 f"localhost.evil.example:{app.port}"):
        status, _, _ = app.request("GET", "/", host=host)
        assert status == 403, host
    assert app.kernels() <= 1
    status, body, _ = app.request("GET", "/", host=f"localhost:{app.port}")
    assert status == 200
    app.request("POST", f"/voila/api/shutdown/{_kernel_id(body)}")


def test_kernels_are_capped_shut_down_on_close_and_culled_when_idle(capped_app: App) -> None:
    app = capped_app
    for _ in range(4):  # page loads and closes (the page posts this on beforeunload)
        status, body, _ = app.request("GET", "/")
        assert status == 200
        assert app.kernels() <= 2  # the page's kernel and the warm pool's, within the cap
        status, _, _ = app.request("POST", f"/voila/api/shutdown/{_kernel_id(body)}")
        assert status == 204
        assert app.kernels() <= 2
    assert app.kernels() <= 1  # the warm pool's kernel, waiting for the next page
    # pages left open: the third is refused while two kernels run (the pool gives way)
    statuses = [app.request("GET", "/")[0] for _ in range(3)]
    assert statuses == [200, 200, 503]
    assert app.kernels() == 2
    # no page connected: culled after the idle limit (6 s, checked every 3 s); the pool
    # refills one kernel for the next page
    deadline = time.monotonic() + 90
    while (app.log.read_text().count("Culling 'idle' kernel") < 2 or app.kernels() > 1) and (
            time.monotonic() < deadline):
        time.sleep(1)
    assert app.kernels() <= 1, app.log.read_text()[-2000:]
    assert app.log.read_text().count("Culling 'idle' kernel") >= 2


def test_html_in_the_file_name_is_never_markup(tmp_path: Path) -> None:
    name = '<img src=x onerror="alert(1)">.csv'
    data = tmp_path / name
    sdc.datasets.synthetic_survey(150, seed=3).to_csv(data, index=False)
    from sdcsession.present.workbench.app import app_notebook

    nb = app_notebook(data, keys=["sex"])
    assert "<img" not in json.dumps(nb["cells"][0])  # no user text in markdown
    app = _start(tmp_path, data, "--max-kernels", "1")
    try:
        status, body, _ = app.request("GET", "/")
        assert status == 200
        assert "<img src=x" not in body  # not as markup in the page (the title widget
        # escapes it: test_workbench.py::test_user_text_is_escaped)
        app.request("POST", f"/voila/api/shutdown/{_kernel_id(body)}")
    finally:
        _stop(app)


def test_the_page_names_no_other_host(capped_app: App) -> None:
    """The page's HTML loads nothing from another host: no stylesheet, script, image or module
    URL outside 127.0.0.1 (Voila's lab template links Font Awesome on a CDN; the app's own
    template leaves it out). XML namespace names (``xmlns``) are identifiers, not requests."""
    status, body, _ = capped_app.request("GET", "/")
    assert status == 200 and "jupyter-config-data" in body
    assert "cdn." not in body and "fontawesome" not in body
    fetched = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)|url\(\s*["']?([^"')\s]+)"""
                         r"""|import\(\s*["']([^"']+)|@import\s+["']([^"']+)""", body)
    urls = [u for groups in fetched for u in groups if u]
    assert any(u.startswith("/") or "static" in u for u in urls), urls  # the page's own files
    foreign = [u for u in urls if re.match(r"(?i)(https?:)?//", u)
               and not re.match(r"(?i)(https?:)?//(127\.0\.0\.1|localhost)[:/]", u)]
    assert foreign == []
    # the absolute URLs left are XML names in the spinner's SVG (namespaces, RDF terms)
    names = re.sub(r'(xmlns(:\w+)?|rdf:resource)="[^"]*"', "", body)
    assert re.findall(r"(?i)https?://", names) == []


def test_the_page_loads_the_apps_script_kept_by_the_browser(capped_app: App) -> None:
    """The page links the app's own front end (one script, one stylesheet, each with a content
    hash in its URL), not Voila's; both are served as JavaScript / CSS with a long
    ``Cache-Control: max-age`` (a reload asks the server for the page only)."""
    app = capped_app
    status, body, _ = app.request("GET", "/")
    assert status == 200
    try:
        assert "voila/static/voila.js" not in body and "postMessage" not in body
        urls = re.findall(r'(?:src|href)="(/voila/templates/sdcsession/static/'
                          r'sdcsession-app\.(?:js|css)\?v=[0-9a-f]{16,})"', body)
        assert sorted(u.split("?")[0].rsplit(".", 1)[1] for u in urls) == ["css", "js"]
        for url in urls:
            status, text, headers = app.request("GET", url)
            assert status == 200, url
            kind = "javascript" if ".js?" in url else "css"
            assert kind in headers["Content-Type"]
            age = re.search(r"max-age=(\d+)", headers.get("Cache-Control", ""))
            assert age and int(age.group(1)) >= 86_400, headers
            assert len(text) > 10_000
    finally:
        app.request("POST", f"/voila/api/shutdown/{_kernel_id(body)}")
