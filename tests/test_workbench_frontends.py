"""The workbench in the notebook front ends, in a real browser: a notebook running
``s.workbench()`` is opened in JupyterLab 4 and in Notebook 7 (one Jupyter server serves both),
its cell is run, and the widget renders: its tabs and buttons are visible and Apply adds a step.

Skipped with the reason when Chromium, JupyterLab, Notebook 7, ipywidgets or Playwright is
missing. VS Code notebooks cannot be driven here (see the docs' "Front ends tested").
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CHROMIUM, browser_marks

ROOT = Path(__file__).resolve().parents[1]

pytestmark = browser_marks("jupyterlab", "notebook", "ipywidgets", "playwright", "ipykernel", extras="notebooks,test")

TIMEOUT = 120_000  # ms; the machine running the tests may be busy
CODE = """import sdcsession as sdc

s = sdc.SdcSession(sdc.datasets.synthetic_survey(150, seed=3), keys=["region", "sex", "age5"],
                   seed=1)
s.workbench()"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A Jupyter server (JupyterLab 4 and Notebook 7) on 127.0.0.1: (base URL, token)."""
    from sdcsession.present.workbench.app import free_port

    tmp = tmp_path_factory.mktemp("jupyter")
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": "wb", "metadata": {},
                     "outputs": [], "source": CODE}],
          "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                      "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    (tmp / "workbench.ipynb").write_text(json.dumps(nb))
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               SDCSESSION_PROGRESS="0", JUPYTER_TOKEN=token,
               JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"))
    log = tmp / "jupyter.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--allow-root",
             "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0",
             f"--ServerApp.root_dir={tmp}", "--LabApp.news_url=None",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=tmp)
    try:
        deadline = time.monotonic() + 90
        while "is running at" not in log.read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"Jupyter did not start:\n{log.read_text()}")
            time.sleep(0.3)
        yield f"http://127.0.0.1:{port}", token
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _run_and_check(page: object, lab: bool) -> None:
    """Run the notebook's cell, then check the widget: tabs, buttons, and Apply adds a step."""
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=TIMEOUT)
    if lab:  # JupyterLab drops a run asked for before its kernel is connected
        page.wait_for_function("() => document.body.innerText.includes('| Idle')",
                               timeout=TIMEOUT)
    page.locator(".jp-Notebook .jp-Cell .jp-InputArea-editor").first.click()
    page.keyboard.press("Shift+Enter")  # queued until the kernel is ready
    page.wait_for_function(
        "() => { const r = document.querySelector('.sdc-risk');"
        " return r && r.innerText.includes('main / #0'); }", timeout=TIMEOUT)
    for name in ("Apply", "Undo", "Export", "Report", "Save project", "Open project"):
        # (on hidden tabs too: Export and the rest are on the Release tab)
        assert page.get_by_role("button", name=name, exact=True,
                                include_hidden=True).count() == 1, name
    assert page.get_by_role("button", name="Apply", exact=True).is_visible()
    tabs = [t.strip() for t in page.locator(".sdc-tabs").get_by_role("tab").all_inner_texts()]
    assert tabs[:2] == ["Data", "Roles"] and "Treat" in tabs and "Release" in tabs
    page.get_by_role("button", name="Apply", exact=True).click()  # local suppression, k = 3
    page.wait_for_function(
        "() => document.querySelector('.sdc-risk').innerText.includes('main / #1')",
        timeout=TIMEOUT)


@pytest.mark.parametrize("front_end,path", [("JupyterLab 4", "lab/tree/workbench.ipynb"),
                                            ("Notebook 7", "notebooks/workbench.ipynb")])
def test_the_workbench_renders_in_the_front_end(server: tuple[str, str], front_end: str,
                                                path: str) -> None:
    from playwright.sync_api import sync_playwright

    base, token = server
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/{path}?token={token}", timeout=TIMEOUT)
            try:
                _run_and_check(page, lab=path.startswith("lab/"))
            except Exception:
                page.screenshot(path=str(Path(os.environ.get("TMPDIR", "/tmp"))
                                         / f"frontend-{front_end.split()[0]}.png"))
                raise
        finally:
            browser.close()
