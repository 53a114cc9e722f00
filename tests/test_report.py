"""The HTML report: self-contained, complete, no record-level original value in the public variant,
opens in headless Chromium without console messages."""

from __future__ import annotations

import html as _html
import json
import re
import shutil
import subprocess
import tempfile

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from conftest import BlankRare  # noqa: E402

import sdcsession as sdc  # noqa: E402
from sdcsession.errors import ParameterError  # noqa: E402
from sdcsession.methods.noise import AddNoise  # noqa: E402
from sdcsession.present.report import report  # noqa: E402
from sdcsession.present.report_sections import withhold_seeds  # noqa: E402
from sdcsession.session.measures import COUNTS  # noqa: E402

KEYS = ["region", "sex", "age5", "marstat"]
NUM = ["income", "expend", "savings"]


@pytest.fixture(scope="module")
def scen():
    df = sdc.datasets.synthetic_survey(250, seed=8)
    # sentinel record values: a new maximum, a new minimum and a middle value of income
    inc = df["income"].to_numpy(copy=True)
    inc[[3, 50, 77]] = [987654.321, -4321.987, 15555.555]
    df["income"] = inc
    s = sdc.SdcSession(df, keys=KEYS, numeric=NUM, weight="w", household="hid",
                       sensitive=["health"], seed=21)
    a = s.branch("supp").apply(BlankRare(k=3))
    b = a.branch("supp+noise").apply(AddNoise(NUM, noise=0.3))
    return s, a, b


@pytest.fixture(scope="module")
def public(scen, tmp_path_factory):
    path = tmp_path_factory.mktemp("rep") / "report.html"
    written = report(*scen, path=path)
    assert written == path  # the path, never the HTML text
    return path, path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def internal(scen):
    return report(*scen, internal=True, figures=False).html


def _visible(text: str) -> str:
    """The report as a reader sees it: each inline SVG figure replaced by its texts (titles,
    tick labels, counts on bars, names), without its pixel coordinates (which can contain any
    digit run) and without the SVG namespace name (a name, not a resource to fetch)."""
    return re.sub(r"<svg .*?</svg>",
                  lambda m: " ".join(re.findall(r"<(?:text|title)[^>]*>([^<]*)<", m.group(0))),
                  text, flags=re.S)


def test_written_and_self_contained(public):
    path, text = public
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert "<script" not in text.lower()
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    # every resource is inline: src only data: URIs, href only in-page anchors
    assert not re.findall(r'\bsrc="([^"]*)"', text)  # figures are inline SVG, no image
    assert "<svg " in text and "<img" not in text and "<image" not in text
    assert "foreignObject" not in text and "xlink:href" not in text
    assert all(h.startswith("#") for h in re.findall(r"\bhref='([^']*)'", text))
    assert not re.findall(r'\bhref="', text)
    assert not re.search(r"(?i)\b(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", _visible(text))


def test_sections_and_content(public, scen):
    _, text = public
    s, a, b = scen
    for h in ("Data", "Scenarios", "Disclosure risk before and after", "Information loss",
              "Comparison of the scenarios", "Figures", "Recipes"):
        assert f">{h}</h2>" in text, h
    assert "Riskiest" not in text and "INTERNAL" not in text
    # sizes and roles
    assert re.search(rf"<td>records</td><td[^>]*>{s.state.n:,}</td>", text)
    assert "<td>keys</td><td>region, sex, age5, marstat</td>" in text
    # steps: the noise step without its seed (withheld), the suppression with what it changed
    assert str(b.head.seed) not in text and "<td>withheld</td>" in text
    assert f'<td>blanked: {a.head.notes["blanked"]:,}</td>' in text  # notes as text
    # risk before/after figures, as printed by the compare table
    er = float(sdc.risk.individual_risk(s.original, KEYS, weight="w").sum())
    assert f"{er:.4g}" in text
    assert "health: records with distinct l &lt; 2" in text
    # one figure: R-U map, suppressions, risk distribution, 3 numeric, 2 risk paths
    assert len(re.findall(r"<figure><svg ", text)) == 1 + 2 + len(NUM) + 2
    # the recipes are there and parse back to the sessions' recipes
    pres = re.findall(r"<pre>(.*?)</pre>", text, flags=re.S)
    recipes = [json.loads(_html.unescape(p)) for p in pres]
    assert recipes == [json.loads(json.dumps(withhold_seeds(x.to_recipe()))) for x in (s, a, b)]
    assert all(r["seed"] == "withheld" and all(st["seed"] == "withheld" for st in r["steps"])
               for r in recipes)


def test_public_variant_has_no_record_level_value(public, scen):
    _, text = public
    s, a, b = scen
    vis = _visible(text)
    orig = s.original
    # the sentinels (income's max, min and a middle value) in every usual format
    for v in (987654.321, -4321.987, 15555.555):
        for form in (repr(v), f"{v:.2f}", f"{v:,.2f}", f"{v:,.1f}", f"{v:,.0f}", f"{v:.6g}",
                     f"{v:.4g}", f"{v:.3e}"):
            assert form not in vis, (v, form)
    # every non-integer value, in full precision and with two decimals
    checked = 0
    for c in NUM:
        for v in pd.unique(orig[c].dropna()):
            v = float(v)
            if v.is_integer():
                continue  # integer-valued amounts could collide with counts: skip them
            for form in (repr(v), f"{v:.2f}", f"{v:,.2f}"):
                assert form not in vis, (c, v, form)
            checked += 1
    # the masked values are record-level too
    for c in NUM:
        for v in b.data[c].dropna().to_numpy()[:300]:
            v = float(v)
            if v.is_integer():
                continue
            assert repr(v) not in vis
            if abs(v) >= 1000:
                assert f"{v:,.2f}" not in vis and f"{v:,.1f}" not in vis
    assert checked > 500
    # no extreme of any numeric variable (min / max are single records' values)
    for c in NUM:
        for v in (orig[c].min(), orig[c].max()):
            if abs(v) >= 1000 and not float(v).is_integer():
                assert f"{v:,.1f}" not in vis and f"{v:,.2f}" not in vis


def test_internal_variant_lists_the_riskiest_combinations(internal, public, scen):
    s, a, b = scen
    _, pub = public
    assert "INTERNAL" in internal and "Riskiest key combinations" in internal
    st = b.state
    r = st.measure("individual_risk").to_numpy()
    i = int(np.argmax(r))
    combo = "".join(f"<td>{v}</td>" for v in
                    st.data[KEYS].astype(object).fillna("(missing)").astype(str).iloc[i])
    assert combo in internal
    assert combo not in pub


def test_report_reuses_the_cached_measures(scen):
    report(*scen, figures=False)
    before = COUNTS.copy()
    text = report(*scen, figures=False).html
    assert COUNTS == before
    assert "<svg" not in text and "figures were not requested" in text


def test_report_bad_input(scen):
    with pytest.raises(ParameterError):
        report()
    with pytest.raises(ParameterError):
        report("main")


def test_names_are_escaped():
    df = pd.DataFrame({"k": list("abab"), "x": [1.5, 2.5, 3.5, 4.75]})
    s = sdc.SdcSession(df, keys=["k"], numeric=["x"], seed=1, name="<i>evil</i>")
    text = report(s, figures=False).html
    assert "<i>evil</i>" not in text and "&lt;i&gt;evil&lt;/i&gt;" in text


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _chromium(url: str) -> tuple[str, str]:
    profile = tempfile.mkdtemp()
    try:
        p = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--no-first-run", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
             "--dump-dom", url],
            capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout, p.stderr


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed "
                    "(apt-get install -y chromium) — the headless-browser check cannot run")
def test_opens_in_headless_chromium_without_console_messages(public, tmp_path):
    path, _ = public
    dom, err = _chromium(path.resolve().as_uri())
    assert "Disclosure control report" in dom and "Risk–utility map" in dom
    assert dom.count("<svg") == 8 and "<img" not in dom
    console = [ln for ln in err.splitlines() if "CONSOLE" in ln or "Refused to" in ln]
    assert console == []
    # the check can fail: a page that logs an error and breaks the policy is caught
    bad = tmp_path / "bad.html"
    bad.write_text(path.read_text(encoding="utf-8").replace(
        "</body>", '<img src="http://example.invalid/x.png"><script>console.error("x")'
        "</script></body>"), encoding="utf-8")
    _, err2 = _chromium(bad.resolve().as_uri())
    assert any("CONSOLE" in ln or "Refused to" in ln for ln in err2.splitlines())


# ------------------------------------------------------------------ return value, arguments
def test_session_report_returns_the_path_or_a_report_object(scen, tmp_path):
    from pathlib import Path

    from sdcsession.present.report import Report

    s, a, b = scen
    out = a.report(tmp_path / "r.html", b, figures=False)
    assert isinstance(out, Path) and out == tmp_path / "r.html" and out.is_file()
    shown = a.report(figures=False)
    assert isinstance(shown, Report) and not isinstance(shown, str)
    assert len(repr(shown)) < 300 and shown.html.startswith("<!DOCTYPE html>")
    frame = shown._repr_html_()
    assert frame.startswith("<iframe") and 'sandbox=""' in frame and "<script" not in frame
    saved = shown.save(tmp_path / "again.html")
    assert saved.read_text(encoding="utf-8") == shown.html


def test_wrong_argument_types_fail_before_anything_is_built(scen, tmp_path, monkeypatch):
    import sys

    rep = sys.modules["sdcsession.present.report"]

    def boom(*a, **k):  # building the report would call this first
        raise AssertionError("the report was built")

    monkeypatch.setattr(rep, "_data_section", boom)
    s, a, b = scen
    for args, kw, name in (((123,), {}, "path"), ((tmp_path / "x.html", "b"), {}, "others"),
                           ((tmp_path / "x.html",), {"figures": "yes"}, "figures"),
                           ((None,), {"internal": 1}, "internal"),
                           ((None,), {"title": 5}, "title")):
        with pytest.raises(ParameterError, match=name):
            a.report(*args, **kw)
    assert not (tmp_path / "x.html").exists()


def test_percent_of_records_divides_records_by_records():
    # a = x blanked in records 0, 1, 2 and b = p in records 0, 1, 3: 6 values in 4 of 5 records
    df = pd.DataFrame({"a": list("xxxyy"), "b": list("ppqpq")})
    s = sdc.SdcSession(df, keys=["a", "b"], seed=1)
    t = s.branch("blank").recode("a", {"x": None}).recode("b", {"p": None})
    text = report(s, t, figures=False).html
    total = re.search(r'<p class="muted">Total: (.*?)\.</p>', text).group(1)
    assert "blank: 6 values in 4 records (80.00 % of records)" in total  # not 6 / 5 = 120 %
    assert "main: 0 values in 0 records (0.00 % of records)" in total
    for pct in re.findall(r"([\d.]+) % of records", total):
        assert 0 <= float(pct) <= 100


def test_notes_and_parameters_are_text_not_json(scen):
    s, a, b = scen
    text = report(s, a, b, figures=False).html
    steps = text[text.index("id='scenarios'"):text.index("id='risk'")]
    assert "{&quot;" not in steps and '{"' not in steps and "[&quot;" not in steps
    assert "noise=0.3" in steps
    # integers as integers in the step parameters (k=3 of a local suppression, never 3.0)
    df = pd.DataFrame({"k": list("aabbcd"), "j": list("xyxyxy")})
    t = sdc.SdcSession(df, keys=["k", "j"], seed=1).local_suppression(k=3)
    html = report(t, figures=False).html
    assert "k=3;" in html and "k=3.0" not in html


def test_public_report_withholds_the_seeds(public, internal, scen):
    """With the seeds, the released file's record order (and every random draw) would be
    regenerated: the public report prints none, the internal one prints them all."""
    _, text = public
    seeds = {str(x.seed) for x in scen} | {str(st.seed) for x in scen for st in x.history
                                          if st.treatment is not None and st.treatment.random}
    assert seeds and not any(v in text for v in seeds if len(v) > 6)
    assert f"session seed {scen[0].seed} " not in text and "session seed withheld" in text
    assert '&quot;seed&quot;: &quot;withheld&quot;' in text
    assert all(v in internal for v in seeds)
