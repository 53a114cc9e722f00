"""The interactive workbench (``s.workbench()``), driven from Python: clicks and ``.value``.

Every assertion compares what the widget shows or did with the session itself (HEAD, history,
``s.risk``), so the widget cannot drift from the session it is bound to.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import attrs
import pandas as pd
import pytest

import sdcsession as sdc
from sdcsession.methods.base import TREATMENTS, Treatment

widgets = pytest.importorskip("ipywidgets", reason="the workbench needs ipywidgets ([gui])")

from sdcsession.present.workbench import Workbench  # noqa: E402
from sdcsession.present.workbench_history import recipe_code  # noqa: E402
from sdcsession.present.workbench_treat import parse_value, treatment_fields  # noqa: E402
from sdcsession.progress import add_listener, remove_listener  # noqa: E402

KEYS = ["region", "sex", "age5"]


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    return sdc.datasets.synthetic_survey(120, seed=3)


@pytest.fixture
def s(df: pd.DataFrame) -> sdc.SdcSession:
    return sdc.SdcSession(df, keys=KEYS, numeric=["income", "expend"], weight="w",
                          household="hid", seed=5)


def _apply(wb: Workbench, tag: str, **values: object) -> None:
    wb.treatment.value = tag
    for name, v in values.items():
        wb.form.widgets[name].value = v
    wb.apply_button.click()


def test_import_does_not_load_ipywidgets() -> None:
    code = "import sys, sdcsession; print('ipywidgets' in sys.modules, 'matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_workbench_is_a_widget_bound_to_the_session(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    assert isinstance(wb, widgets.Widget) and isinstance(wb, Workbench)
    assert wb.session is s
    assert wb._on_move in s._tree.observers
    assert wb.figures["k_violations"] == s.risk.k_violations(3) > 0
    assert wb.figures["expected_reidentifications"] == pytest.approx(
        s.risk.expected_reidentifications)
    assert wb.ru_image.value[:4] == b"\x89PNG"
    wb.close()
    assert wb._on_move not in s._tree.observers


def test_apply_adds_a_step_and_the_live_panel_follows(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    before_png, before_label = wb.ru_image.value, wb.risk_label.value
    _apply(wb, "local_suppression", k=3.0, importance=("sex", "region", "age5"))
    assert len(s.history) == 2 and s.head.treatment.type == "local_suppression"
    assert s.head.treatment.importance == ("sex", "region", "age5")  # the order given
    assert s.risk.k_violations(3) == 0 == wb.figures["k_violations"]
    assert wb.risk_label.value != before_label and wb.ru_image.value != before_png
    assert "done" in wb.message.value
    # the tree shows the new step, selected, and the recipe holds it
    assert wb.tree.value == s.head.id == 1
    assert "local_suppression" in wb.recipe.value


def test_undo_and_redo_buttons_move_head(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    assert wb.undo_button.disabled and wb.redo_button.disabled
    s.local_suppression(k=3)
    top = s.head
    assert not wb.undo_button.disabled
    wb.undo_button.click()
    assert s.head is top.parent and s.head.id == 0
    assert wb.figures["k_violations"] == s.risk.k_violations(3) > 0
    assert wb.undo_button.disabled and not wb.redo_button.disabled
    wb.redo_button.click()
    assert s.head is top and wb.figures["k_violations"] == 0
    # undo past the root: the button is disabled; a forced call shows the message
    wb.undo_button.click()
    wb._act(lambda x: x.undo())
    assert "undo" in wb.message.value and s.head.id == 0


def test_a_step_applied_in_code_updates_the_risk_figure(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    png, label, fig = wb.ru_image.value, wb.risk_label.value, wb.figures
    s.local_suppression(k=3)  # from "another cell"
    assert wb.ru_image.value != png and wb.risk_label.value != label
    assert wb.figures["step"] == s.head.id == 1
    assert wb.figures["expected_reidentifications"] == pytest.approx(
        s.risk.expected_reidentifications) != fig["expected_reidentifications"]
    assert f"{s.risk.k_violations(3):,}" in wb.risk_label.value
    s.undo()
    assert wb.figures == fig and wb.ru_image.value == png


def test_invalid_role_choice_shows_the_message_not_a_traceback(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    wb.role_pickers["numeric"].value = ("income", "age5")  # age5 is a key and categorical
    assert "age5" in wb.roles_message.value and "Traceback" not in wb.roles_message.value
    roles = s.roles
    wb.roles_button.click()
    assert "age5" in wb.roles_message.value
    assert s.roles == roles and wb.session is s
    wb.role_pickers["keys"].value = ()
    wb.roles_button.click()
    assert "keys" in wb.roles_message.value and s.roles.keys == tuple(KEYS)


def test_roles_change_in_place_before_the_first_step(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    wb.role_pickers["keys"].value = ("region", "sex")
    wb.roles_panel.linked_key.value = "sex"
    wb.roles_panel.linked_vars.value = ("relat",)
    wb.roles_panel.link_button.click()
    wb.roles_button.click()
    assert wb.session is s and s.roles.keys == ("region", "sex")
    assert s.roles.linked_map() == {"sex": ("relat",)} and s.seed == 5
    assert wb.figures["k_violations"] == s.risk.k_violations(3)
    assert wb._on_move in s._tree.observers
    # once a step exists, new roles start a new session; the old one is untouched
    s.local_suppression(k=2)
    wb.role_pickers["keys"].value = ("region", "sex", "age5")
    wb.roles_button.click()
    assert wb.session is not s and len(wb.session.history) == 1
    assert wb.session.roles.keys == ("region", "sex", "age5") and len(s.history) == 2
    assert "new session" in wb.roles_message.value


def test_dataframe_mode_starts_the_session_when_roles_are_applied(df: pd.DataFrame) -> None:
    from sdcsession.present.workbench import workbench

    wb = workbench(df, seed=9)
    assert wb.session is None and wb.apply_button.disabled
    wb.role_pickers["keys"].value = ("region", "sex")
    wb.role_pickers["weight"].value = "w"
    wb.roles_button.click()
    assert wb.session is not None and wb.session.roles.keys == ("region", "sex")
    assert wb.session.seed == 9 and not wb.apply_button.disabled
    bad = workbench(df, keys=["nope"])
    assert bad.session is None and "nope" in bad.roles_message.value


def test_a_form_is_generated_for_every_registered_treatment(s: sdc.SdcSession) -> None:
    from sdcsession.present.workbench.labels import allowed_columns, label
    from sdcsession.present.workbench.treat import OrderedColumns

    wb = s.workbench()
    assert {tag for _, tag in wb.treatment.options} == set(TREATMENTS)
    groups = [name.split(":")[0] for name, _ in wb.treatment.options]
    assert groups[:2] == ["Categorical key variables"] * 2  # grouped as sdcApp groups them
    assert {"Numeric variables", "Households and geography", "Privacy models"} <= set(groups)
    assert all("_" not in name for name, _ in wb.treatment.options)  # plain names
    cols = list(s.data.columns)
    for tag in [t for _, t in wb.treatment.options]:
        wb.treatment.value = tag
        form = wb.form
        names = [f.alias for f in attrs.fields(TREATMENTS[tag]) if f.init]
        assert list(form.widgets) == names, tag
        assert "`" not in form.description and "\n" not in form.description  # text, no markup
        for spec in form.fields:
            wd = form.widgets[spec.name]
            assert wd.description.startswith(label(tag, spec.name)[0])  # labelled in words
            hint = form.hint(spec)
            assert not re.search(r"\b(str|Any|dict\[|tuple\[|int\b|float\b)", hint), hint
            assert "default" in hint or "required" in hint, hint
            offered = allowed_columns(tag, spec.name, cols, s)
            if isinstance(wd, OrderedColumns):  # order-sensitive: importance, the keys only
                assert list(wd.select.options) == KEYS and spec.name == "importance"
            elif spec.kind in ("columns", "column"):
                assert [o if isinstance(o, str) else o[1] for o in wd.options
                        if (o if isinstance(o, str) else o[1]) is not None] == offered
            if spec.kind == "choice":
                assert isinstance(wd, widgets.Dropdown)
                assert set(spec.choices) <= {o[1] for o in wd.options}
    wb.treatment.value = "shuffle"  # choices the validators do not list are drop-downs too
    assert isinstance(wb.form.widgets["covmethod"], widgets.Dropdown)
    assert {"pearson", "spearman", "mcd"} <= {o[1] for o in wb.form.widgets["covmethod"].options}


def test_importance_is_an_ordered_list_with_up_and_down(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    wb.treatment.value = "local_suppression"
    imp = wb.form.widgets["importance"]
    assert imp.value == [] and "importance" not in wb.form.values()  # the default order
    imp.select.value = KEYS[2]
    imp.up.click()
    assert imp.value == [KEYS[0], KEYS[2], KEYS[1]]
    imp.up.click()
    imp.up.click()  # already first: stays
    assert imp.value == [KEYS[2], KEYS[0], KEYS[1]]
    imp.select.value = KEYS[0]
    imp.down.click()
    assert imp.value == [KEYS[2], KEYS[1], KEYS[0]]
    wb.apply_button.click()
    assert s.head.treatment.importance == (KEYS[2], KEYS[1], KEYS[0])


def test_form_kinds_come_from_the_spec() -> None:
    from sdcsession.methods.microaggregation import MICROAGGREGATION_METHODS, Microaggregation

    kinds = {f.name: (f.kind, f.choices) for f in treatment_fields(Microaggregation)}
    assert kinds["columns"][0] == "columns" and kinds["k"][0] == "int"
    assert kinds["method"] == ("choice", MICROAGGREGATION_METHODS)
    assert kinds["sort_by"][0] == "column"
    assert parse_value("[[1, 2], [3, 4]]", "dict[Any, Any]") == {1: 2, 3: 4}
    assert parse_value("0, 15, 30") == [0, 15, 30] and parse_value("2.5") == 2.5


def test_value_fields_and_errors_are_messages(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    _apply(wb, "recode", column="sex", mapping="")  # required parameter left empty
    assert "mapping" in wb.message.value and len(s.history) == 1
    wb.treatment.value = "add_noise"  # only the numeric variables are offered
    assert list(wb.form.widgets["columns"].options) == ["income", "expend"]
    _apply(wb, "add_noise", columns=("income",), noise=-1.0)  # refused by the treatment
    assert "noise" in wb.message.value and len(s.history) == 1
    wb.treatment.value = "global_recode"  # age: neither a key nor a numeric variable
    assert "age" not in [o[1] for o in wb.form.widgets["column"].options]
    _apply(wb, "global_recode", column="income", breaks="-1, 20000, 50000, 1e12")
    assert len(s.history) == 2 and s.head.treatment.breaks == (-1.0, 20000.0, 50000.0, 1e12)
    _apply(wb, "recode", column="region", mapping='{"R01": "R02"}')
    assert len(s.history) == 3 and "R01" not in set(s.data["region"].dropna())


def test_cancel_leaves_head_unchanged(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    head = s.head

    def press_cancel(desc: str, n: int, total: int | None) -> None:
        wb.cancel_button.click()  # the user clicks Cancel while the step runs

    add_listener(press_cancel)
    try:
        _apply(wb, "local_suppression", k=5.0)
    finally:
        remove_listener(press_cancel)
    assert s.head is head and len(s.steps) == 1
    assert "cancelled" in wb.message.value and wb.cancel_button.disabled
    assert not wb.apply_button.disabled
    _apply(wb, "local_suppression", k=5.0)  # without cancel the same step runs
    assert s.head.depth == 1


def test_background_step_and_cancel_in_a_worker_thread(s: sdc.SdcSession) -> None:
    wb = s.workbench(background=True)
    seen: list[int] = []

    def press_cancel(desc: str, n: int, total: int | None) -> None:
        seen.append(n)
        wb.cancel()

    add_listener(press_cancel)
    try:
        _apply(wb, "microaggregation", columns=("income", "expend"), k=3)
        assert wb.wait(30)
    finally:
        remove_listener(press_cancel)
    assert seen and s.head.id == 0 and "cancelled" in wb.message.value
    _apply(wb, "microaggregation", columns=("income", "expend"), k=3)
    assert wb.wait(30) and s.head.depth == 1 and "done" in wb.message.value
    assert wb.figures["step"] == s.head.id


def test_branch_checkout_and_the_ru_map_of_all_branches(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    _apply(wb, "local_suppression", k=3.0)
    wb.branch_name.value = "alt"
    wb.branch_button.click()
    alt = wb.session
    assert alt is not s and alt.name == "alt" and alt.head is s.head
    assert list(wb.scenario.options) == ["main", "alt"]
    _apply(wb, "recode", column="sex", mapping='{"f": "m"}')
    assert alt.head.depth == 2 and s.head.depth == 1
    from sdcsession.present.compare import compare

    assert compare(*wb._scenarios())["scenario"].tolist() == ["main", "alt"]
    # click the original in the tree: the active scenario (alt) checks it out
    wb.tree.value = 0
    assert alt.head.id == 0 and s.head.depth == 1
    wb.scenario.value = "main"
    assert wb.session is s and wb.figures["scenario"] == "main"


def _replay(code: str, df: pd.DataFrame) -> sdc.SdcSession:
    """Run the shown code without exec: parse it, read every argument as a literal and call the
    session's methods."""
    tree = ast.parse(code)
    session = None
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Assign):  # s = sdc.SdcSession(df, keys=..., seed=...)
            call = node.value
            assert isinstance(call, ast.Call) and ast.unparse(call.func) == "sdc.SdcSession"
            assert [ast.unparse(a) for a in call.args] == ["df"]
            session = sdc.SdcSession(df, **{k.arg: ast.literal_eval(k.value)
                                            for k in call.keywords})
            continue
        call = node.value
        assert isinstance(node, ast.Expr) and isinstance(call, ast.Call)
        assert isinstance(call.func, ast.Attribute) and ast.unparse(call.func.value) == "s"
        kw = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        if call.func.attr == "apply":  # s.apply(Treatment.from_dict({...}), seed=...)
            (inner,) = call.args
            assert ast.unparse(inner.func) == "Treatment.from_dict"
            session.apply(Treatment.from_dict(ast.literal_eval(inner.args[0])), **kw)
        else:
            getattr(session, call.func.attr)(*[ast.literal_eval(a) for a in call.args], **kw)
    assert session is not None
    return session


def test_recipe_code_is_idiomatic_and_replays_bit_for_bit(s: sdc.SdcSession,
                                                         df: pd.DataFrame) -> None:
    wb = s.workbench()
    _apply(wb, "pram", columns=("water",), pd=0.7)
    _apply(wb, "local_suppression", k=3.0, importance=("sex", "region", "age5"))
    s.add_noise(["income"], noise=0.2)
    s.microaggregation(["expend"], k=4)
    s.top_bottom_code("income", 50000.0, None, kind="top")
    s.round_values(["expend"], base=10)
    s.recode("water", {s.data["water"].dropna().iloc[0]: "other"})
    s.remove(["occup"])
    s.new_ids()
    s.global_recode("income", breaks=[-1e9, 20000.0, 50000.0, 1e12])
    code = wb.recipe.value
    assert code == recipe_code(s.to_recipe())
    steps = code.splitlines()[code.splitlines().index(
        [ln for ln in code.splitlines() if ln.startswith("s = ")][0]) + 1:]
    assert len(steps) == len(s.history) - 1  # one line per step
    assert "s.local_suppression(k=3, importance=['sex', 'region', 'age5'])" in steps
    assert "s.microaggregation(columns=['expend'], k=4)" in steps
    assert "s.remove(columns=['occup'])" in steps and "s.new_ids(" in code
    assert "s.global_recode(column='income', breaks=[-1000000000, 20000, 50000, " in code
    assert "Treatment" not in code and "3.0" not in code
    replay = _replay(code, df)
    pd.testing.assert_frame_equal(replay.data, s.data)
    header = [ln for ln in code.splitlines() if ln.startswith("s = sdc.SdcSession(")][0]
    assert "keys=['region', 'sex', 'age5']" in header and "seed=5" in header
    wb.recipe_format.value = "JSON"
    assert '"format": "sdcsession-recipe"' in wb.recipe.value


def test_recipe_code_falls_back_to_the_lossless_form(df: pd.DataFrame) -> None:
    s = sdc.SdcSession(df, keys=KEYS, numeric=["income"], seed=5)
    s.add_noise(["income"], noise=0.3)
    s.apply(s.head.treatment, seed=123)  # a step with its own seed
    code = recipe_code(s.to_recipe())
    assert "from sdcsession.methods.base import Treatment" in code
    assert code.splitlines()[-1].endswith(", seed=123)")
    pd.testing.assert_frame_equal(_replay(code, df).data, s.data)


def test_every_control_has_a_visible_label(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    stack, unlabeled = [wb], []
    while stack:
        x = stack.pop()
        stack.extend(getattr(x, "children", ()))
        if isinstance(x, widgets.Button):
            ok = bool(x.description)
        elif isinstance(x, (widgets.HTML, widgets.Label, widgets.Image)):
            continue
        elif isinstance(x, widgets.ValueWidget):
            ok = bool(getattr(x, "description", ""))
        else:
            continue
        if not ok:
            unlabeled.append(x)
    assert unlabeled == []


def test_app_notebook_and_command_stay_on_localhost(tmp_path) -> None:
    from sdcsession.cli import main
    from sdcsession.present.workbench_app import app_notebook, voila_command, write_app_notebook

    nb = write_app_notebook(tmp_path, tmp_path / "survey.csv", keys=["sex", "region"],
                            weight="w", seed=3)
    import json

    cells = json.loads(nb.read_text())["cells"]
    code = cells[1]["source"]
    assert f"sdc.io.read_data({str((tmp_path / 'survey.csv').resolve())!r})" in code
    assert "workbench(df, seed=3, keys=['sex', 'region'], weight='w', path=" in code
    cmd = voila_command(nb, port=8899, open_browser=False, idle_minutes=2)
    assert "--Voila.ip=127.0.0.1" in cmd and "--port=8899" in cmd and "--no-browser" in cmd
    assert "sdcsession.present.workbench.serve" in cmd  # the hardened Voilà
    assert "--MappingKernelManager.cull_idle_timeout=120" in cmd
    assert not any("token" in c for c in cmd)  # the token goes through the environment
    from sdcsession.present.workbench.app import app_environment, new_token

    t1, t2 = new_token(), new_token()
    assert len(t1) == 32 and t1 != t2
    env = app_environment(t1, max_kernels=2)
    assert env["SDCSESSION_APP_TOKEN"] == t1 and env["SDCSESSION_APP_MAX_KERNELS"] == "2"
    with pytest.raises(sdc.errors.ParameterError, match="max_kernels"):
        app_environment(t1, max_kernels=0)
    with pytest.raises(sdc.errors.ParameterError, match="keys"):
        app_notebook("x.csv", keys=[1, 2])
    with pytest.raises(sdc.errors.ParameterError, match="unknown role"):
        app_notebook("x.csv", colour="red")
    assert main(["app", str(tmp_path / "missing.csv"), "--no-browser"]) == 2


def test_riskiest_combinations_equal_a_full_sort():
    """Only the records with the n largest distinct risks are sorted: same table as sorting all."""
    import numpy as np

    from sdcsession.present.workbench.live import _top_rows, riskiest_combinations

    assert _top_rows(np.array([0.1, 0.5, 0.5, 0.2, 0.3]), 2).tolist() == [1, 2, 4]
    rng = np.random.default_rng(0)
    for trial in range(12):
        n = int(rng.integers(5, 2000))
        df = pd.DataFrame({"a": rng.integers(0, int(rng.integers(1, 8)), n).astype(str),
                           "b": rng.integers(0, int(rng.integers(1, 6)), n).astype(str),
                           "w": rng.uniform(1, 50, n)})
        if trial % 3 == 0:
            df.loc[rng.random(n) < 0.1, "a"] = None
        s = sdc.SdcSession(df, keys=["a", "b"], weight="w" if trial % 2 else None, seed=1)
        r = s.risk
        full = s.state.data[["a", "b"]].copy()
        full["fk"] = r.fk.to_numpy()
        full["Fk"] = np.asarray(r.Fk.to_numpy(), dtype=float)
        full["risk"] = r.individual.to_numpy()
        full = full.sort_values(["risk", "fk"], ascending=[False, True], kind="stable")
        for k in (1, 3, 50):
            want = full.drop_duplicates(["a", "b"]).head(k).reset_index(drop=True)
            pd.testing.assert_frame_equal(riskiest_combinations(s, k), want)


def _html_values(root: object) -> str:
    stack, out = [root], []
    while stack:
        x = stack.pop()
        stack.extend(getattr(x, "children", ()))
        if isinstance(x, widgets.HTML):
            out.append(x.value)
    return "\n".join(out)


def test_user_text_is_escaped() -> None:
    """A file name, column names and category values with HTML show as text, never as markup."""
    bad = '<img src=x onerror="alert(1)">'
    df = pd.DataFrame({"region": [bad, "a", "a", "b", "b", "b"],
                       bad + "col": ["m", "f", "m", "f", "m", "f"],
                       "w": [1.0] * 6})
    s = sdc.SdcSession(df, keys=["region", bad + "col"], weight="w", seed=1)
    from sdcsession.present.workbench.widget import workbench

    wb = workbench(s, path=f"/data/{bad}.csv")
    wb.refresh()
    text = _html_values(wb)
    assert "<img" not in text
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;.csv" in wb.title.value
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;col" in text  # the column table
    _apply(wb, "recode", column="region", mapping='{"a": "' + bad.replace('"', '\\"') + '"}')
    assert "<img" not in _html_values(wb)


def test_tree_shows_whole_lines_and_markers_and_messages_clear(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    _apply(wb, "local_suppression", k=3.0, importance=("sex", "region", "age5"))
    wb.branch_name.value = "other"
    wb.branch_button.click()
    _apply(wb, "recode", column="region", mapping='{"R01": "R02", "R03": "R02", "R04": "R02"}')
    rows = [t for t, _ in wb.tree.options]
    # every HEAD marker sits right after the step number, before the (long) step text
    assert any(re.match(r"^\W*#1 ← main", t) for t in rows), rows
    assert any(re.match(r"^\W*#2 ← other", t) for t in rows), rows
    text = wb.history.tree_text.value
    for t in rows:  # the whole tree, every line whole (escaped)
        assert html_escape(t) in text
    _apply(wb, "recode", column="sex", mapping="")  # an error ...
    assert "mapping" in wb.message.value
    wb.treatment.value = "add_noise"  # ... no longer applies to another form
    assert wb.message.value == ""
    _apply(wb, "recode", column="sex", mapping="")
    wb.undo_button.click()  # ... nor after the state moved
    assert "mapping" not in wb.message.value


def html_escape(text: str) -> str:
    import html

    return html.escape(text)
