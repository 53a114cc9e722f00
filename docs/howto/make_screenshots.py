"""Regenerate the workbench screenshots of the docs: one per tab, whatever tabs the app has.

Starts ``sdcsession app`` on a synthetic survey (no confidential data), opens it in headless
Chromium (Playwright), shows the Release tab with Export stopped by the release check's block
findings, applies the default treatment (local suppression, k = 3), then clicks every tab in
turn (pressing its "Show ..." buttons, if any, so that computed views are drawn) and saves
``docs/howto/img/workbench-<tab>.png``. The image list of ``docs/howto/workbench.md`` between
the ``screenshots`` markers is rewritten to match the tabs found.

Run from the checkout: ``python docs/howto/make_screenshots.py`` (needs voila, ipywidgets,
playwright and /usr/bin/chromium).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import sdcsession as sdc  # noqa: E402

OUT = ROOT / "docs" / "howto" / "img"
PAGE = ROOT / "docs" / "howto" / "workbench.md"
START, END = "<!-- screenshots: start -->", "<!-- screenshots: end -->"
CAPTIONS = {"release": "Release: Export stopped by block findings"}


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.strip().lower()).strip("-")


def start_app(data: Path, log: Path) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               SDCSESSION_PROGRESS="0")
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sdcsession", "app", str(data), "--keys",
             "region,urbrur,sex,age5", "--numeric", "income,expend", "--weight", "w",
             "--household", "hid", "--seed", "1", "--no-browser", "--pool", "0"],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=data.parent)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        text = log.read_text()
        if proc.poll() is not None:
            raise SystemExit(f"the app exited with {proc.returncode}:\n{text}")
        m = re.search(r"sdcsession app: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)", text)
        if m and "is running at" in text:
            return proc, m.group(1)
        time.sleep(0.3)
    proc.kill()
    raise SystemExit(f"the app did not start within 120 s:\n{log.read_text()}")


def wait_text(page: object, selector: str, text: str, timeout: float = 120_000) -> None:
    page.wait_for_function(
        "([s, t]) => { const e = document.querySelector(s); return e && e.innerText.includes(t); }",
        arg=[selector, text], timeout=timeout)


def shoot(page: object, title: str) -> Path:
    page.wait_for_timeout(800)  # images and plots drawn
    path = OUT / f"workbench-{slug(title)}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def update_page(titles: list[str]) -> None:
    """Rewrite the image list of the docs page between the markers (if present)."""
    text = PAGE.read_text()
    if START not in text or END not in text:
        print(f"{PAGE.name}: no screenshot markers; the images are in {OUT}")
        return
    lines = [f"![{CAPTIONS.get(slug(t), t)}](img/workbench-{slug(t)}.png)" for t in titles]
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    PAGE.write_text(head + START + "\n" + "\n".join(lines) + "\n" + END + tail)


def main() -> None:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sdc-shots-") as tmp:
        data = Path(tmp) / "survey.csv"
        sdc.datasets.synthetic_survey(400, seed=3).to_csv(data, index=False)
        proc, url = start_app(data, Path(tmp) / "app.log")
        written, titles = [], []
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                             headless=True, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1400, "height": 1250})
                page.goto(url, timeout=120_000)
                wait_text(page, ".sdc-risk", "expected re-identifications")
                tabs = page.get_by_role("tab")
                titles = [t.strip() for t in tabs.all_inner_texts()]
                # Release first, untreated: Export is stopped by block findings
                if "Release" in titles:
                    page.get_by_role("tab", name="Release", exact=True).click()
                    page.get_by_role("button", name="Export", exact=True).click()
                    wait_text(page, ".sdc-findings", "block")
                    written.append(shoot(page, "Release"))
                page.get_by_role("tab", name="Treat", exact=True).click()
                page.get_by_role("button", name="Apply", exact=True).click()
                wait_text(page, ".sdc-risk", "main / #1")
                for title in titles:
                    if title == "Release":
                        continue
                    page.get_by_role("tab", name=title, exact=True).click()
                    show = page.get_by_role("button", name=re.compile(r"^Show\b"))
                    for i in range(show.count()):
                        show.nth(i).click()
                    if show.count():
                        page.wait_for_timeout(3000)  # computed in the kernel
                    written.append(shoot(page, title))
                browser.close()
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(40)
            except subprocess.TimeoutExpired:
                proc.kill()
    update_page(titles)
    for p in written:
        print(p.relative_to(ROOT))


if __name__ == "__main__":
    main()
