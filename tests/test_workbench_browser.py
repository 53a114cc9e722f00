"""End to end in a real browser: ``sdcsession app`` (Voilà on 127.0.0.1) driven by Playwright on
the system's headless Chromium; Apply and Undo change the risk figures the page shows.

Skipped with the reason when Chromium, Voilà, ipywidgets or Playwright is missing.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

from conftest import CHROMIUM, browser_marks, wait_for_port

import sdcsession as sdc

ROOT = Path(__file__).resolve().parents[1]

pytestmark = browser_marks("voila", "ipywidgets", "playwright")



def _figure(text: str, label: str) -> str:
    m = re.search(rf"{re.escape(label)}\s+([\d.,]+)", text)
    assert m, text
    return m.group(1)


def _screenshots(page: object, out: Path, only: str | None = None) -> None:
    """Show each tab (or the tab ``only``) and keep its screenshot in ``out``
    (``workbench-<tab>.png``, for looking at a failed run). Always the test's temporary folder:
    the docs' pictures of the tabs are made by docs/howto/make_screenshots.py on a survey
    without the HTML in its name."""
    tabs = page.query_selector_all(".sdc-tabs .lm-TabBar-tab, .sdc-tabs .p-TabBar-tab")
    current = next((t for t in tabs if "mod-current" in (t.get_attribute("class") or "")), None)
    for tab in tabs:
        title = tab.inner_text().strip().lower().replace(" ", "-")
        if only is not None and title != only:
            continue
        tab.click()
        page.wait_for_timeout(500)
        page.screenshot(path=str(out / f"workbench-{title}.png"), full_page=True)
    if current is not None and only is None:
        current.click()
        page.wait_for_timeout(300)


def test_apply_and_undo_in_headless_chromium(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from sdcsession.present.workbench_app import free_port

    data = tmp_path / "<img src=x onerror=alert(1)> survey.csv"  # HTML in a name shows as text
    (tmp_path / "screenshots").mkdir()
    sdc.datasets.synthetic_survey(150, seed=3).to_csv(data, index=False)
    port = free_port()
    log = tmp_path / "app.log"
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               SDCSESSION_PROGRESS="0")
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sdcsession", "app", str(data), "--keys", "region,sex,age5",
             "--weight", "w", "--seed", "1", "--port", str(port), "--no-browser"],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
    try:
        wait_for_port(port, proc, log)
        token = re.search(r"\?token=([\w-]+)", log.read_text()).group(1)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox"])
            try:
                page = browser.new_page()
                requests: list[str] = []  # every URL the page asks for
                page.on("request", lambda r: requests.append(r.url))
                sent: list[str] = []  # every message the page sends on the kernel's websocket
                page.on("websocket", lambda ws: ws.on("framesent", lambda p: sent.append(
                    p if isinstance(p, str) else p.decode("latin-1"))))
                # without the token: the login form, no workbench
                page.goto(f"http://127.0.0.1:{port}/", timeout=45_000)
                assert "/login" in page.url
                assert page.query_selector(".sdc-risk") is None
                login_requests = len(requests)  # the login form's own (Voila's static files)
                page.goto(f"http://127.0.0.1:{port}/?token={token}", timeout=45_000)
                page.wait_for_function(
                    "() => { const e = document.querySelector('.sdc-risk');"
                    " return e && e.innerText.includes('expected re-identifications'); }",
                    timeout=45_000)
                assert "<img src=x onerror=alert(1)> survey.csv" in page.inner_text(".sdc-title")
                _screenshots(page, tmp_path / "screenshots")
                before = page.inner_text(".sdc-risk")
                png_before = page.get_attribute(".sdc-ru", "src")
                assert _figure(before, "records violating 3-anonymity") != "0"
                assert "main / #0" in before
                page.click(".sdc-apply")  # the default: local suppression with k = 3
                page.wait_for_function(
                    "b => document.querySelector('.sdc-risk').innerText != b", arg=before,
                    timeout=30_000)
                after = page.inner_text(".sdc-risk")
                assert "main / #1" in after
                assert _figure(after, "records violating 3-anonymity") == "0"
                assert float(_figure(after, "expected re-identifications")) < float(
                    _figure(before, "expected re-identifications"))
                page.wait_for_function(  # the R-U map is redrawn (a new image blob)
                    "b => document.querySelector('.sdc-ru').getAttribute('src') != b",
                    arg=png_before, timeout=30_000)
                png_after = page.get_attribute(".sdc-ru", "src")
                page.click(".sdc-undo")
                page.wait_for_function(
                    "b => document.querySelector('.sdc-risk').innerText == b", arg=before,
                    timeout=30_000)
                page.wait_for_function(
                    "b => document.querySelector('.sdc-ru').getAttribute('src') != b",
                    arg=png_after, timeout=30_000)
                # Release: Export runs the release check and lists the block findings first
                page.click(".sdc-tabs .lm-TabBar-tab:has-text('Release')")
                page.click(".sdc-export")
                page.wait_for_function(
                    "() => document.querySelector('.sdc-findings').innerText.includes('block')",
                    timeout=30_000)
                findings = page.inner_text(".sdc-findings")
                assert "untreated" in findings and "apply treatments first" in findings
                # a confirmed force is offered (its button is shown by the update after the
                # findings': wait for it rather than race it)
                page.wait_for_selector(".sdc-force", state="visible", timeout=30_000)
                _screenshots(page, tmp_path / "screenshots", only="release")
                # Views: computed on request, the comparison lists the original and main
                page.click(".sdc-tabs .lm-TabBar-tab:has-text('Views')")
                page.click(".sdc-views")
                page.wait_for_function(
                    "() => document.querySelector('.sdc-comparison').innerText"
                    ".includes('original')", timeout=60_000)
                _screenshots(page, tmp_path / "screenshots", only="views")
                # the page contacts no other host (no CDN: the data are confidential)
                assert len(requests) > 10
                foreign = [u for u in requests if urlsplit(u).scheme not in ("data", "blob")
                           and urlsplit(u).hostname != "127.0.0.1"]
                assert foreign == []
                # the app's own front end: no script of Voila's JupyterLab front end, no
                # JupyterLab extension; the widgets' state asked in one message; comm messages
                # on the kernel's main shell (no subshell)
                app_requests = requests[login_requests:]
                assert any("sdcsession-app.js" in u for u in app_requests)
                assert [u for u in app_requests if "/voila/static/" in u
                        or "/voila/labextensions/" in u] == []
                assert sum("request_states" in m for m in sent) == 1
                assert not any("create_subshell_request" in m for m in sent)
            finally:
                browser.close()
    finally:
        proc.send_signal(signal.SIGTERM)  # the app stops Voilà and its kernels
        try:
            proc.wait(40)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
