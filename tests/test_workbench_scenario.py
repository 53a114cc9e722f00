"""A whole release in the app, clicked through in a real browser (``sdcsession app`` served by the
hardened Voilà, driven by Playwright on the system's headless Chromium), on sdcMicro's testdata
(4,580 records, from the conformance folder):

roles (keys, numeric, weight, seed) -> microaggregation -> PRAM -> Undo -> Branch "alt" -> PRAM on
the branch -> Export (block findings listed, then the confirmed "Export anyway") -> Report -> Save
project -> reload the page -> Resume (the same scenario and step) -> the exported file equals
``s.data_for_release()`` of the same steps done in code with the same seed.

Every control is found by its visible label or its button text (as a user, or a screen reader,
finds it). Skipped with one reason when Chromium, Voilà, ipywidgets, Playwright or the conformance
files are missing.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import CHROMIUM, CONFORMANCE, browser_marks, require_conformance

import sdcsession as sdc

ROOT = Path(__file__).resolve().parents[1]

pytestmark = browser_marks("voila", "ipywidgets", "playwright")

KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
NUMERIC = ["expend", "income", "savings"]
SEED = 7
TIMEOUT = 90_000  # ms; the machine running the tests may be busy


def start_app(data: Path, log: Path, *args: str) -> tuple[subprocess.Popen, str]:
    """Start ``sdcsession app data`` (no browser); its process and the URL it prints."""
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               SDCSESSION_PROGRESS="0")
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "sdcsession", "app", str(data),
                                 "--no-browser", *args],
                                stdout=out, stderr=subprocess.STDOUT, env=env, cwd=data.parent)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        text = log.read_text()
        if proc.poll() is not None:
            pytest.fail(f"sdcsession app exited with {proc.returncode}:\n{text}")
        m = re.search(r"sdcsession app: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)", text)
        if m and "is running at" in text:
            return proc, m.group(1)
        time.sleep(0.3)
    proc.kill()
    pytest.fail(f"the app did not start within 90 s:\n{log.read_text()}")


def stop_app(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)  # the app stops Voilà and its kernels
    try:
        proc.wait(40)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def visible(page: object, label: str) -> object:
    """The visible control labelled ``label`` (other tabs hold hidden controls too)."""
    return page.get_by_label(label, exact=True).filter(visible=True)


def button(page: object, name: str) -> object:
    return page.get_by_role("button", name=name, exact=True)


def open_tab(page: object, title: str) -> None:
    """Click the tab, then wait until its page is drawn (the app draws a tab's page when the
    tab is first opened)."""
    page.get_by_role("tab", name=title, exact=True).click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.sdc-tabs .widget-tab-contents > *')]"
        ".some(e => e.offsetParent !== null && e.innerText.trim() !== '')", timeout=TIMEOUT)


def wait_step(page: object, where: str) -> None:
    """Wait until the live panel shows ``scenario / #step``."""
    page.wait_for_function(
        "w => { const e = document.querySelector('.sdc-risk');"
        " return e && e.innerText.includes(w); }", arg=where, timeout=TIMEOUT)


def wait_message(page: object, text: str) -> str:
    page.wait_for_function(
        "t => { const e = document.querySelector('.sdc-message');"
        " return e && e.innerText.includes(t); }", arg=text, timeout=TIMEOUT)
    return page.inner_text(".sdc-message")


def apply_treatment(page: object, label: str, columns: list[str], where: str) -> None:
    open_tab(page, "Treat")
    visible(page, "Treatment").select_option(label=label)
    visible(page, "Variables").select_option(columns)
    button(page, "Apply").click()
    wait_step(page, where)


@pytest.fixture
def testdata(tmp_path: Path) -> Path:
    """sdcMicro's testdata, copied (the app writes its release folder beside the data)."""
    require_conformance()
    data = tmp_path / "testdata.csv"
    shutil.copyfile(CONFORMANCE / "data" / "testdata.csv", data)
    return data


def same_steps_in_code(data: Path) -> sdc.SdcSession:
    s = sdc.SdcSession(sdc.io.read_data(data), keys=KEYS, numeric=NUMERIC,
                       weight="sampling_weight", seed=SEED)
    s.microaggregation(NUMERIC, k=3)
    s.pram(["water"])
    s.undo()
    alt = s.branch("alt")
    alt.pram(["roof"])
    return alt


def test_a_release_clicked_through_in_the_browser(testdata: Path, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    proc, url = start_app(testdata, tmp_path / "app.log", "--max-kernels", "2")
    release = tmp_path / "testdata_release"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox"])
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(TIMEOUT)  # a click waits for a button a step disables
                page.goto(url, timeout=TIMEOUT)
                # roles: the Roles panel opens first (no roles on the command line)
                visible(page, "Key variables").select_option(KEYS, timeout=TIMEOUT)
                visible(page, "Numeric").select_option(NUMERIC)
                visible(page, "Weight").select_option(label="sampling_weight")
                seed = visible(page, "Random seed (a whole number; empty: random)")
                seed.fill(str(SEED))
                seed.press("Enter")
                button(page, "Apply roles").click()
                wait_step(page, "main / #0")
                # two treatments, undo, a branch, a step on the branch
                apply_treatment(page, "Numeric variables: Microaggregation", NUMERIC,
                                "main / #1")
                apply_treatment(page, "Categorical key variables: PRAM (post-randomisation)",
                                ["water"], "main / #2")
                button(page, "Undo").click()
                wait_step(page, "main / #1")
                open_tab(page, "History")
                visible(page, "Branch name").fill("alt")
                button(page, "Branch").click()
                wait_message(page, "branch 'alt' created")
                apply_treatment(page, "Categorical key variables: PRAM (post-randomisation)",
                                ["roof"], "alt / #3")
                # export: the release check's block findings first, then a confirmed force
                open_tab(page, "Release")
                button(page, "Export").click()
                page.wait_for_function(
                    "() => document.querySelector('.sdc-findings').innerText.includes('block')",
                    timeout=TIMEOUT)
                findings = page.inner_text(".sdc-findings")
                assert "k_anonymity" in findings and "violate 3-anonymity" in findings
                wait_message(page, "block findings")
                assert not list(release.glob("*.csv"))  # nothing written yet
                button(page, "Export anyway").click()  # not confirmed: refused
                wait_message(page, "tick the confirmation box")
                visible(page, "I have read the block findings and release anyway").check()
                button(page, "Export anyway").click()
                wait_message(page, "forced past block findings")
                # report and project
                button(page, "Report").click()
                wait_message(page, "public report written to")
                button(page, "Save project").click()
                wait_message(page, "project saved to")
                # reload: a new kernel, which offers the autosaved project
                page.reload(timeout=TIMEOUT)
                button(page, "Resume").click(timeout=TIMEOUT)
                wait_step(page, "alt / #3")
                open_tab(page, "History")
                steps = page.inner_text(".sdc-tabs")
                assert "#2" in steps and "← alt" in steps  # the undone step and the branch
            finally:
                browser.close()
    finally:
        stop_app(proc)
    exported = release / "testdata_released.csv"
    assert exported.is_file() and (release / "testdata_report.html").is_file()
    assert (release / "testdata.sdcproj").is_file()
    want = same_steps_in_code(testdata).data_for_release()
    got = pd.read_csv(exported)
    pd.testing.assert_frame_equal(got, want.reset_index(drop=True), check_dtype=False,
                                  rtol=1e-12)
