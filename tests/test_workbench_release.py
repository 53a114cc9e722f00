"""The workbench's way out and its preparation steps: Export after the release check (block
findings listed, then a confirmed force; format and overwrite), Report (public / internal), Save
project / Open project and the app's autosave (skipped while sdcsession has no projects), remove
variables, set values to missing, new ids, and the roles' alpha and seed."""

from __future__ import annotations

import pandas as pd
import pytest

import sdcsession as sdc

widgets = pytest.importorskip("ipywidgets", reason="the workbench needs ipywidgets ([gui])")

from sdcsession.present.workbench.release import (  # noqa: E402
    autosave_path,
    default_paths,
    findings_html,
)
from sdcsession.present.workbench.widget import Workbench, workbench  # noqa: E402

KEYS = ["region", "sex", "age5"]
needs_projects = pytest.mark.skipif(
    not hasattr(sdc.SdcSession, "save_project") or not hasattr(sdc, "open_project"),
    reason="projects (s.save_project, sdc.open_project) are not in this sdcsession yet")


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    return sdc.datasets.synthetic_survey(300, seed=2)


@pytest.fixture
def wb(df: pd.DataFrame, tmp_path) -> Workbench:
    data = tmp_path / "survey.csv"
    df.to_csv(data, index=False)
    s = sdc.SdcSession(df, keys=KEYS, weight="w", household="hid", seed=4)
    return workbench(s, path=str(data), background=False)


def _walk(root: object) -> list[object]:
    stack, out = [root], []
    while stack:
        x = stack.pop()
        out.append(x)
        stack.extend(getattr(x, "children", ()))
    return out


def test_the_page_has_the_release_buttons(wb: Workbench) -> None:
    names = {x.description for x in _walk(wb) if isinstance(x, widgets.Button)}
    assert {"Export", "Report", "Save project", "Open project", "Remove variables",
            "Set to missing", "New ids", "Apply roles"} <= names
    titles = [wb.tabs.get_title(i) for i in range(len(wb.tabs.children))]
    assert titles == ["Data", "Roles", "Prepare", "Treat", "History", "Views", "Release"]


def test_export_shows_block_findings_then_a_confirmed_force(wb: Workbench, tmp_path) -> None:
    r = wb.release
    out = tmp_path / "out" / "released.csv"
    r.export_path.value = str(out)
    assert wb.export_button.click() is None and not out.exists()  # untreated: blocked
    assert "block" in r.findings.value and "untreated" in r.findings.value
    assert "k_anonymity" in r.findings.value and "apply treatments first" in r.findings.value
    assert r.findings.value.index("block") < r.findings.value.index("warn")  # blocks first
    assert r.force_button.layout.display == "" and "block findings" in wb.message.value
    r.force_button.click()  # not confirmed: nothing written
    assert not out.exists() and "confirmation" in wb.message.value
    r.force_confirm.value = True
    r.force_button.click()
    assert out.is_file() and "forced" in wb.message.value
    assert r.force_button.layout.display == "none" and r.force_confirm.value is False
    got = pd.read_csv(out)
    want = wb.session.data_for_release().reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_dtype=False, check_categorical=False)


def test_export_after_treatment_format_and_overwrite(wb: Workbench, tmp_path) -> None:
    s = wb.session
    wb.prepare.remove_columns.value = tuple(c for c in s.data.columns if c not in KEYS + ["w"])
    wb.prepare.remove_button.click()
    wb.treatment.value = "local_suppression"
    wb.form.widgets["k"].value = "3"
    wb.apply_button.click()
    assert len(s.history) == 3
    assert not (s.release_check()["severity"] == "block").any()
    r = wb.release
    r.export_path.value = str(tmp_path / "rel.csv")
    r.export_format.value = ".parquet"
    assert r.export_path.value == str(tmp_path / "rel.parquet")
    assert r.export() == tmp_path / "rel.parquet"
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "rel.parquet"),
                                  s.data_for_release().reset_index(drop=True),
                                  check_dtype=False, check_categorical=False)
    before = (tmp_path / "rel.parquet").stat().st_mtime_ns
    assert r.export() is None and "overwrite" in wb.message.value  # exists: refused
    assert (tmp_path / "rel.parquet").stat().st_mtime_ns == before
    r.export_overwrite.value = True
    assert r.export() == tmp_path / "rel.parquet"


def test_report_public_and_internal(wb: Workbench, tmp_path) -> None:
    r = wb.release
    r.report_path.value = str(tmp_path / "public.html")
    wb.report_button.click()
    assert (tmp_path / "public.html").is_file() and "public report" in wb.message.value
    r.report_path.value = str(tmp_path / "internal.html")
    r.report_audience.value = True
    wb.report_button.click()
    assert "internal report" in wb.message.value
    assert (tmp_path / "internal.html").read_text() != (tmp_path / "public.html").read_text()


def test_preparation_steps(wb: Workbench) -> None:
    s = wb.session
    p = wb.prepare
    p.remove_columns.value = ("educ", "occup")
    p.remove_button.click()
    assert "educ" not in s.data.columns and "occup" not in s.data.columns
    assert len(s.history) == 2 and "educ" not in p.remove_columns.options
    value = s.data["marstat"].dropna().iloc[0]
    n = int((s.data["marstat"] == value).sum())
    p.missing_column.value = "marstat"
    p.missing_values.value = str(value)
    p.missing_button.click()
    assert int(s.data["marstat"].isna().sum()) >= n > 0 and len(s.history) == 3
    old = s.data["hid"].copy()
    p.ids_button.click()
    assert len(s.history) == 4 and not s.data["hid"].equals(old)
    # households stay together: the same partition of records
    assert s.data.groupby("hid").ngroups == pd.Series(old).nunique()
    p.missing_column.value = "hhsize"
    p.missing_values.value = "two"
    p.missing_button.click()
    assert "numbers" in wb.message.value and len(s.history) == 4
    wb.undo_button.click()
    assert s.data["hid"].equals(old)


def test_roles_with_alpha_and_seed(df: pd.DataFrame) -> None:
    wb = workbench(df, background=False)
    wb.role_pickers["keys"].value = ("region", "sex")
    wb.roles_panel.alpha.value = 0.5
    wb.roles_panel.seed.value = "77"
    wb.roles_button.click()
    assert wb.session is not None and wb.session.alpha == 0.5 and wb.session.seed == 77
    wb.roles_panel.seed.value = "seven"
    wb.roles_button.click()
    assert "whole number" in wb.roles_panel.message.value and wb.session.seed == 77


def test_findings_and_paths_are_text() -> None:
    f = pd.DataFrame({"severity": ["warn", "block"], "check": ["x", "<b>y</b>"],
                      "variables": [[], []], "records": [1, 2], "message": ["m", "<i>fix</i>"]})
    out = findings_html(f)
    assert "<b>y</b>" not in out and "&lt;i&gt;fix&lt;/i&gt;" in out
    assert out.index("block") < out.index("warn")
    assert autosave_path("/d/s.csv").as_posix() == "/d/s.autosave.sdcproj"
    assert default_paths("/d/s.csv")["project"].as_posix() == "/d/s_release/s.sdcproj"


def test_projects_report_when_missing(wb: Workbench, tmp_path) -> None:
    if hasattr(sdc.SdcSession, "save_project"):
        pytest.skip("this sdcsession has projects")
    wb.release.project_path.value = str(tmp_path / "p.sdcproj")
    wb.save_button.click()
    assert "cannot save projects" in wb.message.value
    assert wb.autosave() is None


@needs_projects
def test_save_open_autosave_and_resume(wb: Workbench, df: pd.DataFrame, tmp_path) -> None:
    s = wb.session
    wb.treatment.value = "local_suppression"
    wb.apply_button.click()
    auto = autosave_path(wb.path)
    assert auto.is_file()  # autosaved after the step
    wb.release.project_path.value = str(tmp_path / "p.sdcproj")
    wb.save_button.click()
    assert (tmp_path / "p.sdcproj").is_file()
    wb.open_button.click()
    assert wb.session is not s
    pd.testing.assert_frame_equal(wb.session.data, s.data)
    again = workbench(df, keys=KEYS, weight="w", household="hid", seed=4, path=wb.path,
                      background=False)
    assert again.resume_box.children  # offered
    again.resume_button.click()
    assert len(again.session.history) == len(s.history)
    pd.testing.assert_frame_equal(again.session.data, s.data)


def test_views_numeric_risk_suppressions_risky_records_and_comparison(df: pd.DataFrame) -> None:
    from sdcsession.present.workbench.views import risky_records

    s = sdc.SdcSession(df, keys=KEYS, numeric=["income", "expend"], weight="w", seed=4)
    wb = workbench(s, background=False)
    s.local_suppression(k=3)
    s.microaggregation(["income", "expend"], k=3)
    other = s.branch("other")
    other.undo()
    wb.views.threshold.value = 0.01
    wb.views.show_button.click()
    v = wb.views
    main = wb.session
    assert main is s and other.head.depth == 1
    assert "interval disclosure (numeric)" in v.numeric.value
    assert f"{main.risk.numeric['interval_disclosure']:.4g}" in v.numeric.value
    sup = main.utility.suppressions
    assert int(sup["suppressions"].sum()) > 0
    for key, row in sup.iterrows():  # one row per key: its count
        assert f"<th>{key}</th>\n      <td>{int(row['suppressions'])}</td>" in v.suppressions.value
    n = int((main.risk.individual > 0.01).sum())
    assert f"<b>{n:,}</b> record(s) above the threshold" in v.risky.value
    rr = risky_records(main, 0.01)
    assert (rr["risk"] > 0.01).all() and rr["risk"].is_monotonic_decreasing
    assert len(rr) == min(n, 50)
    for name in ("original", "main", "other"):
        assert f"<td>{name}</td>" in v.comparison.value


def test_release_buttons_wait_for_a_running_step(df: pd.DataFrame, tmp_path) -> None:
    """While a step runs in the worker thread, Export, Report, Save project and the preparation
    steps are disabled (one run beside it would check a state the step is about to replace, and
    the step's closing message would overwrite theirs); all come back when it ends."""
    import threading

    s = sdc.SdcSession(df, keys=KEYS, weight="w", household="hid", seed=4)
    wb = workbench(s, background=True)
    r, p = wb.release, wb.prepare
    guarded = [r.export_button, r.force_button, r.report_button, r.save_button,
               p.remove_button, p.missing_button, p.ids_button]
    assert not any(b.disabled for b in guarded) and not r.open_button.disabled
    gate = threading.Event()
    wb._run_step(lambda: (gate.wait(30), s.pram(["sex"])), "pram")
    try:
        assert wb.runner.busy
        assert all(b.disabled for b in guarded) and r.open_button.disabled
    finally:
        gate.set()
    assert wb.wait(30)
    assert s.head.depth == 1 and "pram: done" in wb.message.value
    assert not any(b.disabled for b in guarded) and not r.open_button.disabled
