"""The workbench's Data tab (load a file in the page, explore, original vs modified) and the
hierarchy builder of the ``generalize`` form, driven from Python (clicks and ``.value``).

Every figure the widgets show is compared with a hand count or pandas on the same data.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import sdcsession as sdc

widgets = pytest.importorskip("ipywidgets", reason="the workbench needs ipywidgets ([gui])")

from sdcsession.present.workbench.data import (  # noqa: E402
    compare_png,
    html_table,
    original_vs_modified,
    read_upload,
    two_way,
    variable_summaries,
)
from sdcsession.present.workbench.hierarchy import (  # noqa: E402
    GeneralizeForm,
    grouping_hierarchy,
    interval_edges,
    interval_levels,
    level_preview,
)

KEYS = ["region", "sex", "age"]
EVIL = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    return sdc.datasets.synthetic_survey(150, seed=3)


@pytest.fixture
def s(df: pd.DataFrame) -> sdc.SdcSession:
    return sdc.SdcSession(df, keys=KEYS, weight="w", seed=5)


def _upload(wb: object, name: str, content: bytes) -> None:
    wb.data_panel.upload.value = ({"name": name, "type": "", "size": len(content),
                                   "content": content, "last_modified": dt.datetime.now()},)


# ------------------------------------------------------------------------------ explore
def test_variable_summaries_by_hand() -> None:
    d = pd.DataFrame({"sex": pd.Categorical(["f", "m", "f", None]),
                      "age": [20.0, 30.0, 40.0, 50.0], "note": ["a", "a", "b", "c"]})
    t = variable_summaries(d, top=1).set_index("variable")
    assert t.loc["sex", "type"] == "categorical" and t.loc["age", "type"] == "numeric"
    assert t.loc["sex", "missing"] == 1 and t.loc["sex", "missing %"] == 25.0
    assert t.loc["sex", "distinct"] == 2 and t.loc["note", "distinct"] == 3
    assert t.loc["sex", "summary"] == "f (2), … 1 more"
    # type 7 quartiles of 20, 30, 40, 50: 27.5, 35, 42.5
    assert t.loc["age", "summary"] == ("min 20 · q1 27.5 · median 35 · q3 42.5 · max 50 · "
                                       "mean 35")


def test_two_way_counts_missing_and_totals() -> None:
    d = pd.DataFrame({"a": ["x", "x", "y", None, "y"], "b": ["p", "q", "p", "p", None]})
    t = two_way(d, "a", "b")
    assert list(t.index) == ["x", "y", "(missing)", "Total"]
    assert list(t.columns) == ["p", "q", "(missing)", "Total"]
    assert t.loc["x", "p"] == 1 and t.loc["y", "(missing)"] == 1 and t.loc["(missing)", "p"] == 1
    assert t.loc["Total", "Total"] == 5 and t["Total"].iloc[:-1].sum() == 5
    big = pd.DataFrame({"n": np.arange(100.0), "g": ["a", "b"] * 50})
    assert len(two_way(big, "n", "g")) == 5 + 1  # quintile groups of a numeric variable
    with pytest.raises(sdc.ParameterError, match="no variable 'zz'"):
        two_way(d, "a", "zz")


def test_original_vs_modified_tables(df: pd.DataFrame) -> None:
    mod = df.assign(sex=df["sex"].where(df.index >= 10))  # 10 values suppressed
    t = original_vs_modified(df, mod, "sex")
    assert t.loc["(missing)", "original"] == 0 and t.loc["(missing)", "modified"] == 10
    assert t["change"].sum() == 0 and t["original"].sum() == len(df)
    for c in ("f", "m"):
        assert t.loc[c, "original"] == (df["sex"] == c).sum()
        assert t.loc[c, "modified"] == (mod["sex"] == c).sum()
    num = original_vs_modified(df, df.assign(income=df["income"] * 2), "income")
    assert num.loc["median", "modified"] == pytest.approx(2 * df["income"].median())
    assert num.loc["mean", "change"] == pytest.approx(df["income"].mean())
    gone = original_vs_modified(df, df.drop(columns="sex"), "sex")  # a removed variable
    assert gone.loc["(missing)", "modified"] == len(df)


def test_compare_plots_are_png(df: pd.DataFrame) -> None:
    pytest.importorskip("matplotlib")
    mod = df.assign(sex=df["sex"].where(df.index >= 10))
    assert compare_png(df, mod, "sex")[:4] == b"\x89PNG"
    assert compare_png(df, mod, "income")[:4] == b"\x89PNG"
    with pytest.raises(sdc.ParameterError, match="bar' or 'mosaic"):
        compare_png(df, mod, "sex", kind="pie")


def test_html_table_escapes_labels_and_values() -> None:
    t = pd.DataFrame({EVIL: [EVIL, 1234567]}, index=pd.Index([EVIL, "b"], name=EVIL))
    out = html_table(t)
    assert "<img" not in out and out.count("&lt;img") == 4 and "1,234,567" in out


def test_the_data_tab_explores_the_current_state(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    s.local_suppression(k=3)
    dp = wb.data_panel
    assert wb.tabs.get_title(0) == "Data"
    t = dp.show_summary().set_index("variable")
    assert t.loc["sex", "missing"] == s.data["sex"].isna().sum()
    dp.state.value = "original"
    assert dp.show_summary().set_index("variable").loc["sex", "missing"] == 0
    dp.row_var.value, dp.col_var.value = "region", "sex"
    tw = dp.show_two_way()
    assert tw.loc["Total", "Total"] == len(s.data) and "sdc-two-way" in dp.crosstab.value
    assert tw.loc["R01", "Total"] == (s.original["region"] == "R01").sum()
    dp.compare_var.value = "age"
    cmp = dp.show_compare()
    expected = s.data["age"].isna().sum()
    assert cmp.loc["missing", "modified"] == expected and cmp.loc["missing", "original"] == 0
    s.remove(["sex"])  # a removed variable is still offered for the comparison
    assert "sex" in dp.compare_var.options and "sex" not in dp.row_var.options


# --------------------------------------------------------------------------------- load
def test_upload_shows_the_roles_of_the_new_file_escaped(s: sdc.SdcSession, df: pd.DataFrame,
                                                         tmp_path: Path) -> None:
    wb = s.workbench()
    s.local_suppression(k=3)
    new = df[["region", "sex", "income"]].assign(**{EVIL: "<b>bold</b>"})
    name = f"{EVIL} survey.csv"
    _upload(wb, name, new.to_csv(index=False).encode())
    got = wb.data_panel.load_upload()
    pd.testing.assert_frame_equal(got, sdc.io.read_data(_write(tmp_path, new)))
    assert wb.session is None and wb.tabs.selected_index == 1  # the Roles tab, no session
    assert wb.roles_panel.columns == list(new.columns)
    assert "&lt;img src=x onerror=alert(1)&gt; survey.csv" in wb.title.value
    assert "<img" not in wb.title.value and "<img" not in wb.data_panel.load_message.value
    assert EVIL not in wb.roles_panel.table.value and "&lt;img" in wb.roles_panel.table.value
    assert wb.tabs.titles[1] == "Roles" and len(wb.tabs.children) == 7
    wb.role_pickers["keys"].value = ("region", "sex")
    wb.roles_button.click()
    assert wb.session is not None and wb.session.data.shape == new.shape
    assert wb.figures["records"] == len(new)
    assert list(wb.session.state.roles.keys) == ["region", "sex"]
    assert s.head.depth == 1  # the previous session is left as it was


def _write(tmp_path: Path, frame: pd.DataFrame) -> Path:
    p = tmp_path / "same.csv"
    frame.to_csv(p, index=False)
    return p


def test_load_by_path_with_format_and_errors(s: sdc.SdcSession, df: pd.DataFrame,
                                             tmp_path: Path) -> None:
    pytest.importorskip("pyreadstat")
    wb = s.workbench()
    dp = wb.data_panel
    p = tmp_path / "survey.dta"
    small = df[["region", "sex", "age"]].head(40)
    sdc.io.write_data(small, p)
    dp.path.value = str(p)
    got = dp.load_path()
    assert got is not None and len(got) == 40 and wb.path == str(p.resolve())
    assert list(wb.roles_panel.columns) == ["region", "sex", "age"]
    assert wb.release.export_path.value.endswith("survey_release/survey_released.csv")
    # a file without extension read with the format chosen; a semicolon CSV by its delimiter
    q = tmp_path / "noext"
    q.write_text("a;b\n1;x\n2;y\n")
    dp.path.value, dp.format.value, dp.sep.value = str(q), "csv", ";"
    assert list(dp.load_path().columns) == ["a", "b"]
    dp.path.value = str(tmp_path / "missing.csv")
    assert dp.load_path() is None and "no data file" in dp.load_message.value
    assert wb.roles_panel.columns == ["a", "b"]  # a failed load leaves the data as it was
    with pytest.raises(sdc.DataFileError, match="empty"):
        read_upload("x.csv", b"")
    with pytest.raises(sdc.DataFileError, match="more than 4"):
        read_upload("x.csv", b"a,b\n1,2\n", max_bytes=4)
    dp.format.value = None
    _upload(wb, "../../etc/x.unknown", b"a\n1\n")  # the name is a base name; bad extension
    assert dp.load_upload() is None and "extension" in dp.load_message.value


def test_upload_of_a_compressed_csv_respects_the_limit(s: sdc.SdcSession) -> None:
    import gzip

    wb = s.workbench()
    bomb = gzip.compress(b"a\n" + b"1\n" * 3_000_000)  # 6 MB from a few kB
    assert len(bomb) < 40_000
    with pytest.raises(sdc.DataFileError, match="1,000,000|1000000|limit|expand"):
        read_upload("x.csv.gz", bomb, max_decompressed=1_000_000)
    _upload(wb, "ok.csv.gz", gzip.compress(b"a,b\n1,2\n3,4\n"))
    assert wb.data_panel.load_upload()["b"].tolist() == [2, 4]


# ---------------------------------------------------------------------------- hierarchy
@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=40),
       st.floats(5, 500), st.integers(2, 4), st.integers(1, 4))
@example([-5e-324], 5.0, 2, 1)  # min / width underflows to -0.0
def test_interval_levels_cover_the_values_and_nest(values: list[float], width: float,
                                                   merge: int, levels: int) -> None:
    edges = interval_edges(values, width=width)
    assert edges[0] <= min(values) and edges[-1] > max(values)
    assert np.allclose(np.diff(edges), width)
    lv = interval_levels(edges, merge=merge, levels=levels)
    assert 1 <= len(lv) <= levels
    for fine, coarse in zip(lv, lv[1:], strict=False):
        assert set(coarse) <= set(fine) and coarse[0] == fine[0] and coarse[-1] == fine[-1]
        assert 2 < len(coarse) < len(fine)
    h = sdc.privacy.Hierarchy.intervals(lv)
    assert h.generalize(values, h.height).tolist() == ["*"] * len(values)


def test_interval_edges_from_break_points_and_errors() -> None:
    assert interval_edges([5, 70], breaks=[18, 65, 30]) == [5.0, 18.0, 30.0, 65.0, 70.0]
    assert interval_edges([20, 30], breaks=[0, 100]) == [0.0, 100.0]
    for kw, msg in (({"width": 0}, "width"), ({"width": 1e-6}, "1,000"), ({}, "either"),
                    ({"breaks": ["x"]}, "numbers")):
        with pytest.raises(sdc.ParameterError, match=msg):
            interval_edges([0, 100], **kw)
    with pytest.raises(sdc.ParameterError, match="whole number >= 2"):
        interval_levels([0, 1, 2], merge=1)


def test_grouping_hierarchy_and_preview_counts() -> None:
    h = grouping_hierarchy(["a", "b", "c", None], [{"a": "ab", "b": "ab"}, {"ab": "all"}])
    assert h.height == 3
    assert h.generalize(["a", "c", None], 2).tolist() == ["all", "c", None]
    p = level_preview(h, ["a", "a", "b", "c", None])
    assert p[p.level == 1].values.tolist() == [[1, "ab", 3], [1, "c", 1], [1, "(missing)", 1]]
    assert p[p.level == 3].values.tolist() == [[3, "*", 4], [3, "(missing)", 1]]
    short = level_preview(h, list("abc"), rows=1)
    assert short[short.level == 0].values.tolist() == [[0, "a", 1], [0, "… 2 more values", 2]]


def test_the_hierarchy_builder_applies_generalize(s: sdc.SdcSession, df: pd.DataFrame) -> None:
    wb = s.workbench()
    wb.treatment.value = "generalize"
    form = wb.form
    assert isinstance(form, GeneralizeForm)
    b = form.builder
    assert list(b.column.options) == KEYS  # the key variables only
    assert "sex" not in [o[1] for o in form.models.sensitive.options]
    wb.apply_button.click()  # nothing built yet: a message, no step
    assert "build a hierarchy" in wb.message.value and s.head.id == 0
    b.column.value = "age"
    assert b.numeric() and b.width.value == 10.0  # about ten intervals over 0..9x
    b.width.value, b.merge.value, b.n_levels.value = 20.0, 2, 2
    p = b.show_preview()
    lvl1 = p[p.level == 1].set_index("value")["records"]
    assert lvl1["[0, 20)"] == (df["age"] < 20).sum()
    assert lvl1.sum() == len(df) and "sdc-levels" in b.preview.value
    lvl2 = p[p.level == 2].set_index("value")["records"]
    assert lvl2["[0, 40)"] == (df["age"] < 40).sum()
    b.use()
    b.column.value = "region"
    assert not b.numeric() and b.kind.value.startswith("categorical")
    regions = [v for _, v in b.categories.options]
    b.categories.value = tuple(regions[:6])
    b.group_name.value = f"north {EVIL}"
    b.group()
    b.categories.value = tuple(regions[6:])
    b.group_name.value = "south"
    b.group()
    assert b.categories.options[0][0] == f"R01 → north {EVIL}"
    assert EVIL not in b.groups_html.value and "&lt;img" in b.groups_html.value
    p = b.show_preview()
    assert p[p.level == 1].set_index("value")["records"]["south"] == \
        df["region"].isin(regions[6:]).sum()
    assert EVIL not in b.preview.value
    b.use()
    assert set(b.value) == {"age", "region"} and b.value["region"].height == 2
    form.models.k.value = 3
    form.widgets["max_suppression"].value = 0.05
    wb.apply_button.click()
    assert wb.wait(60) and s.head.depth == 1, wb.message.value
    t = s.head.treatment
    assert t.type == "generalize" and t.hierarchies["age"] == b.value["age"]
    assert t.privacy[0].k == 3 and t.max_suppression == 0.05
    assert s.generalization is not None
    lv = s.generalization.levels
    assert s.data["age"].dropna().isin(
        b.value["age"].generalize(df["age"], lv["age"]).unique()).all()
    # the recipe replays to the same data
    again = sdc.SdcSession.from_recipe(df, s.to_recipe())
    pd.testing.assert_frame_equal(again.data, s.data)


def test_the_builder_reports_bad_input_and_drops(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    wb.treatment.value = "generalize"
    b = wb.form.builder
    b.column.value = "age"
    b.mode.value = "breaks"
    assert b.width.layout.display == "none" and b.breaks.layout.display is None
    b.breaks.value = "18, x"
    assert b.show_preview() is None and "Break points" in b.message.value
    b.breaks.value = "18, 65"
    b.use()
    top = float(s.data["age"].max())  # the second level merges two intervals: [0, 65), [65, top]
    assert b.value["age"].to_dict() == {"kind": "intervals",
                                        "edges": [[0.0, 18.0, 65.0, top], [0.0, 65.0, top]]}
    b.drop()
    assert b.value == {}
    b.column.value = "sex"
    b.group()  # nothing chosen
    assert "choose one or more values" in b.message.value
    b.next_level()
    assert "group some values" in b.message.value


def test_the_app_server_accepts_an_upload_of_the_largest_size(tmp_path: Path) -> None:
    import json

    pytest.importorskip("voila")
    from sdcsession.present.workbench.app import voila_command
    from sdcsession.present.workbench.data import MAX_UPLOAD

    cmd = voila_command(tmp_path / "nb.ipynb", port=8999, open_browser=False)
    opt = next(c for c in cmd if c.startswith("--Voila.tornado_settings="))
    size = json.loads(opt.split("=", 1)[1])["websocket_max_message_size"]
    assert isinstance(size, int) and size > MAX_UPLOAD  # Tornado's default is 10 MiB


def test_every_new_control_is_labelled(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    wb.treatment.value = "generalize"
    b = wb.form.builder
    b.column.value = "region"  # the categorical part is shown
    seen, unlabeled = set(), []
    roots = [wb, b.numeric_box]  # the numeric part too (hidden for a categorical variable)
    while roots:
        x = roots.pop()
        roots.extend(getattr(x, "children", ()))
        if isinstance(x, (widgets.HTML, widgets.Label, widgets.Image)):
            continue
        if isinstance(x, (widgets.Button, widgets.ValueWidget)):
            seen.add(type(x).__name__)
            if not str(getattr(x, "description", "")).strip():
                unlabeled.append(x)
    assert unlabeled == []
    assert {"FileUpload", "Dropdown", "SelectMultiple", "FloatText", "BoundedIntText",
            "Text", "Button"} <= seen
    for wd in (b.width, b.merge, b.n_levels, wb.form.models.k, wb.form.models.l_value):
        assert "(" in wd.description  # a unit or a default in words


def test_a_none_choice_shows_its_words_not_a_blank_box(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    weight = wb.role_pickers["weight"]
    assert weight.label == "w"
    weight.value = None  # ipywidgets 8 alone would show an empty box (index None)
    assert weight.index == 0 and weight.label == "(none)"
    wb.roles_panel.set_roles(sdc.Roles(keys=["sex"]))
    assert weight.label == "(none)" and weight.value is None
    wb.treatment.value = "suppress_by_risk"
    col = wb.form.widgets["column"]
    assert col.value is None and col.label == "(none)"
    col.value = "sex"
    col.value = None
    assert col.label == "(none)"
    assert wb.data_panel.format.label == "from the extension"
    assert wb.data_panel.sep.label == "detect"


def test_categories_in_natural_order() -> None:
    d = pd.DataFrame({"age": ["5-9", "10-14", "5-9", "100+"], "n": [10, 2, 1, 2]})
    assert list(two_way(d, "age", "n").index) == ["5-9", "10-14", "100+", "Total"]
    assert list(two_way(d, "age", "n").columns) == ["1", "2", "10", "Total"]
    t = original_vs_modified(d, d.assign(age=["5-9", None, "5-9", "100+"]), "age")
    assert list(t.index) == ["5-9", "10-14", "100+", "(missing)"]
    assert t["change"].tolist() == [0, -1, 0, 1]


def test_numeric_codes_can_be_grouped_as_categories(s: sdc.SdcSession) -> None:
    wb = s.workbench()
    wb.treatment.value = "generalize"
    b = wb.form.builder
    b.column.value = "age"
    assert b.numeric() and b.as_groups in b.parts.children
    b.as_groups.value = True  # integer codes grouped by hand
    assert not b.numeric() and b.categorical_box in b.parts.children
    ages = [v for _, v in b.categories.options]
    assert ages == sorted(s.data["age"].dropna().unique().tolist())
    b.categories.value = tuple(a for a in ages if a < 18)
    b.group_name.value = "minor"
    b.group()
    p = b.show_preview()
    assert p[(p.level == 1) & (p.value == "minor")]["records"].item() == (s.data["age"] < 18).sum()
    b.use()
    assert b.value["age"].kind == "table" and b.value["age"].height == 2
    b.column.value = "sex"
    b.column.value = "age"  # a new choice of variable starts again with intervals
    assert not b.as_groups.value and b.numeric()
