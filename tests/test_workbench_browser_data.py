"""The Data tab and the hierarchy builder in a real browser: ``sdcsession app`` (Voilà on
127.0.0.1) driven by Playwright on the system's headless Chromium.

A ``generalize`` step is built with the hierarchy builder (intervals of a chosen width, the levels
previewed) and applied; then a second file, whose column name and file name hold HTML, is
uploaded in the Data tab and its Roles panel shows the names as text.

Skipped with the reason when Chromium, Voilà, ipywidgets or Playwright is missing.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from conftest import CHROMIUM, browser_marks, wait_for_port

import sdcsession as sdc

ROOT = Path(__file__).resolve().parents[1]

pytestmark = browser_marks("voila", "ipywidgets", "playwright")

EVIL = "<img src=x onerror=alert(1)>"



def _field(label: str, tag: str = "select") -> str:
    """The input of the widget labelled ``label`` (ipywidgets renders the label as <label>)."""
    return f".widget-inline-hbox:has(> label:text-is('{label}')) {tag}"


def test_hierarchy_builder_and_upload_in_headless_chromium(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from sdcsession.present.workbench.app import free_port

    data = tmp_path / "survey.csv"
    df = sdc.datasets.synthetic_survey(120, seed=3)
    df.to_csv(data, index=False)
    second = tmp_path / f"{EVIL} second.csv"
    df[["region", "sex"]].head(50).assign(**{EVIL: "x"}).to_csv(second, index=False)
    port = free_port()
    log = tmp_path / "app.log"
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               SDCSESSION_PROGRESS="0")
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sdcsession", "app", str(data), "--keys", "region,sex,age",
             "--seed", "1", "--port", str(port), "--no-browser"],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
    try:
        wait_for_port(port, proc, log)
        token = re.search(r"\?token=([\w-]+)", log.read_text()).group(1)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox"])
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"http://127.0.0.1:{port}/?token={token}", timeout=45_000)
                page.wait_for_function(
                    "() => { const e = document.querySelector('.sdc-risk');"
                    " return e && e.innerText.includes('main / #0'); }", timeout=60_000)
                # Treat: generalize with an interval hierarchy of age built in the page
                page.click(".sdc-tabs .lm-TabBar-tab:has-text('Treat')")
                page.select_option(_field("Treatment"),
                                   label="Privacy models: Generalisation to a privacy model")
                page.wait_for_selector("text=Hierarchy builder", timeout=30_000)
                page.select_option(_field("Key variable"), label="age")
                width = page.locator(_field("Interval width (units of the variable)", "input"))
                width.fill("20")
                width.press("Enter")
                page.click("button:has-text('Preview levels')")
                page.wait_for_selector(".sdc-levels", timeout=30_000)
                levels = page.inner_text(".sdc-levels")
                assert "[0, 20)" in levels and "[0, 40)" in levels and "*" in levels
                n_young = int((df["age"] < 20).sum())
                assert re.search(rf"\[0, 20\)\s+{n_young}\b", levels), levels
                page.click("button:has-text('Use this hierarchy')")
                page.wait_for_selector("text=age: intervals", timeout=30_000)
                page.click(".sdc-apply")
                page.wait_for_function(
                    "() => document.querySelector('.sdc-risk').innerText.includes('main / #1')",
                    timeout=90_000)
                # Data: upload a second file; its names show as text in the Roles panel
                page.click(".sdc-tabs .lm-TabBar-tab:has-text('Data')")
                with page.expect_file_chooser() as chooser:  # the upload button opens it
                    page.click(".sdc-upload")
                chooser.value.set_files(str(second))
                page.wait_for_selector(".sdc-upload:has-text('(1)')", timeout=30_000)
                page.click(".sdc-load-upload")
                page.wait_for_function(
                    "() => document.querySelector('.sdc-load-message').innerText"
                    ".includes('50 records')", timeout=30_000)
                assert f"{EVIL} second.csv" in page.inner_text(".sdc-title")
                assert page.query_selector(".sdc-title img, .sdc-cols img") is None
                assert page.is_visible(".sdc-cols")  # the Roles tab is shown
                assert EVIL in page.inner_text(".sdc-cols")
                page.click(".sdc-tabs .lm-TabBar-tab:has-text('Data')")  # explore the new data
                page.click("button:has-text('Summarise the variables')")
                page.wait_for_selector(".sdc-summary-table", timeout=30_000)
                summary = page.inner_text(".sdc-summary-table")
                assert EVIL in summary and "R01" in summary
                assert page.query_selector(".sdc-summary-table img") is None
            finally:
                browser.close()
    finally:
        proc.send_signal(signal.SIGTERM)  # the app stops Voilà and its kernels
        try:
            proc.wait(40)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
