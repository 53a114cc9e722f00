"""The workbench as a page: every input control of the whole widget tree (every panel, every
treatment's form, the resume offer) carries a label, the way out is there (Export, Report, Save
project, Open project), and the recipe the History panel shows runs as shown and gives the same
data."""

from __future__ import annotations

import pandas as pd
import pytest

import sdcsession as sdc

widgets = pytest.importorskip("ipywidgets", reason="the workbench needs ipywidgets ([gui])")

from sdcsession.present.workbench.widget import Workbench, workbench  # noqa: E402

KEYS = ["region", "sex", "age5"]
#: widgets that show, never take, a value
DISPLAY = (widgets.HTML, widgets.HTMLMath, widgets.Label, widgets.Image, widgets.Output,
           widgets.IntProgress, widgets.FloatProgress)


def _walk(root: object) -> list[object]:
    stack, out = [root], []
    while stack:
        x = stack.pop()
        out.append(x)
        stack.extend(getattr(x, "children", ()))
    return out


@pytest.fixture
def wb(tmp_path) -> Workbench:
    df = sdc.datasets.synthetic_survey(200, seed=2)
    data = tmp_path / "survey.csv"
    df.to_csv(data, index=False)
    s = sdc.SdcSession(df, keys=KEYS, numeric=["income", "expend"], weight="w", seed=4)
    s.local_suppression(k=3)
    if hasattr(s, "save_project"):  # an autosave, so that the resume offer is in the tree
        from sdcsession.present.workbench.release import autosave_path

        s.save_project(autosave_path(data))
    return workbench(sdc.SdcSession(df, keys=KEYS, numeric=["income", "expend"], weight="w",
                                    seed=4), path=str(data), background=False)


def test_no_unlabelled_input_anywhere_in_the_tree(wb: Workbench) -> None:
    for _, tag in wb.treatment.options:  # every treatment's form joins the tree
        wb.treatment.value = tag
        assert wb.form.box in _walk(wb), tag
    forms = [f.box for f in wb.forms.values()]
    inputs, unlabelled = 0, []
    for x in _walk(wb) + [w for box in forms for w in _walk(box)]:
        if isinstance(x, DISPLAY) or not isinstance(x, (widgets.ValueWidget, widgets.Button)):
            continue
        inputs += 1
        label = x.description if hasattr(x, "description") else ""
        if not str(label or "").strip():
            unlabelled.append(f"{type(x).__name__} {getattr(x, 'placeholder', '')!r}")
    assert inputs > 100  # the whole tree was walked (every form of the 21 treatments)
    assert unlabelled == []


def test_the_way_out_is_on_the_page(wb: Workbench) -> None:
    buttons = {x.description: x for x in _walk(wb) if isinstance(x, widgets.Button)}
    for name in ("Export", "Report", "Save project", "Open project", "Apply", "Undo", "Redo",
                 "Branch", "Apply roles"):
        assert name in buttons, name
        assert not buttons[name].icon  # the accessible name is the label, nothing before it
    assert buttons["Export"] is wb.export_button and buttons["Report"] is wb.report_button
    assert buttons["Save project"] is wb.save_button
    assert buttons["Open project"] is wb.open_button
    if hasattr(sdc.SdcSession, "save_project"):  # the autosave of the fixture is offered
        assert "Resume" in buttons and "Start over" in buttons


def test_the_recipe_shown_runs_and_gives_the_same_data(tmp_path) -> None:
    df = sdc.datasets.synthetic_survey(300, seed=5)
    s = sdc.SdcSession(df, keys=KEYS, numeric=["income", "expend"], weight="w", seed=11)
    wb = workbench(s, background=False)
    wb.treatment.value = "microaggregation"
    wb.form.widgets["columns"].value = ("income", "expend")
    wb.apply_button.click()
    wb.treatment.value = "pram"
    wb.form.widgets["columns"].value = ("region",)
    wb.apply_button.click()
    wb.undo_button.click()
    wb.branch_name.value = "alt"
    wb.branch_button.click()
    wb.treatment.value = "local_suppression"
    wb.apply_button.click()
    wb.treatment.value = "add_noise"
    wb.form.widgets["columns"].value = ("income",)
    wb.apply_button.click()
    shown = wb.recipe.value
    assert wb.session.name == "alt" and len(wb.session.history) == 4
    namespace: dict = {"df": df}
    exec(compile(shown, "<the recipe shown>", "exec"), namespace)  # our own generated code
    replay = namespace["s"]
    pd.testing.assert_frame_equal(replay.data, wb.session.data)
    pd.testing.assert_frame_equal(replay.data_for_release(), wb.session.data_for_release())
    assert [st.treatment.type for st in replay.history[1:]] == [
        "microaggregation", "local_suppression", "add_noise"]
