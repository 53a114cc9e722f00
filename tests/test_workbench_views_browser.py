"""The workbench's views in a real browser: ``sdcsession app`` (Voilà on 127.0.0.1) with numeric
and sensitive variables, driven by Playwright on the system's headless Chromium. The live panel
shows the numeric risk beside the key risk, the R-U map's risk axis switches to both risks, the
"?" opens the explanation, and SUDA2 and l-diversity run from the Views tab.

Skipped with the reason when Chromium, Voilà, ipywidgets or Playwright is missing.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from conftest import CHROMIUM, browser_marks, screenshot_dir, wait_for_port

import sdcsession as sdc

ROOT = Path(__file__).resolve().parents[1]

pytestmark = browser_marks("voila", "ipywidgets", "playwright")



def test_numeric_risk_ru_axis_and_views_in_headless_chromium(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from sdcsession.present.workbench_app import free_port

    df = sdc.datasets.synthetic_survey(150, seed=3)
    data = tmp_path / "survey.csv"
    df.to_csv(data, index=False)
    port = free_port()
    log = tmp_path / "app.log"
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               SDCSESSION_PROGRESS="0")
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sdcsession", "app", str(data), "--keys", "region,sex,age5",
             "--numeric", "income,expend", "--sensitive", "health", "--weight", "w",
             "--seed", "1", "--port", str(port), "--no-browser"],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
    try:
        wait_for_port(port, proc, log)
        token = re.search(r"\?token=([\w-]+)", log.read_text()).group(1)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox"])
            try:
                page = browser.new_page(viewport={"width": 1500, "height": 1000})
                page.goto(f"http://127.0.0.1:{port}/?token={token}", timeout=60_000)
                # the numeric risk beside the key risk (the untreated data: every record linked)
                page.wait_for_function(
                    "() => { const e = document.querySelector('.sdc-risk');"
                    " return e && e.innerText.includes('interval disclosure (numeric)'); }",
                    timeout=60_000)
                text = page.inner_text(".sdc-risk")
                assert re.search(r"interval disclosure \(numeric\)\s+1\b", text), text
                assert re.search(r"record linkage \(numeric\)\s+1\b", text), text
                assert "expected re-identifications" in text
                # the R-U map's risk axis: both risks, one above the other (a new image)
                png = page.get_attribute(".sdc-ru", "src")
                page.select_option(".sdc-ru-risk select", label="both, one above the other")
                page.wait_for_function(
                    "b => document.querySelector('.sdc-ru').getAttribute('src') != b",
                    arg=png, timeout=60_000)
                # the docs' pictures only with SDCSESSION_UPDATE_SCREENSHOTS=1, else tmp_path
                out = screenshot_dir(tmp_path)
                page.wait_for_timeout(500)
                page.screenshot(path=str(out / "workbench-live-numeric.png"))
                # "?" beside the risk figures: the registry's text with the value
                page.click(".sdc-live-explain >> nth=0")
                page.wait_for_function(
                    "() => document.body.innerText.includes('Interval disclosure (numeric)')",
                    timeout=30_000)
                assert "moves it down" in page.inner_text("body")
                # Views: SUDA2 and l-diversity of the sensitive variable, in the background
                page.click(".sdc-tabs .lm-TabBar-tab:has-text('Views')")
                page.click(".sdc-suda-button")
                page.wait_for_function(
                    "() => document.querySelector('.sdc-suda').innerText"
                    ".includes('DIS-SUDA score above')", timeout=60_000)
                page.click(".sdc-ldiv-button")
                page.wait_for_function(
                    "() => document.querySelector('.sdc-ldiv').innerText"
                    ".includes('distinct values of health')", timeout=60_000)
                ldiv = page.inner_text(".sdc-ldiv")
                s = sdc.SdcSession(df, keys=["region", "sex", "age5"], sensitive=["health"])
                n = int((s.risk.l_diversity["health_distinct"] < 2).sum())
                assert f"{n:,} record(s) with fewer than 2 distinct values of health" in ldiv
                page.query_selector(".sdc-suda-button").scroll_into_view_if_needed()
                page.screenshot(path=str(out / "workbench-views-numeric.png"))
            finally:
                browser.close()
    finally:
        proc.send_signal(signal.SIGTERM)  # the app stops Voilà and its kernels
        try:
            proc.wait(40)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
