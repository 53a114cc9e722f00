"""The app's first paint: tabs whose pages are drawn when first shown (`lazy_tabs`), the Views
tab built on first use, and the app's page loading the widget managers only."""

from __future__ import annotations

import pytest

import sdcsession as sdc

widgets = pytest.importorskip("ipywidgets", reason="the workbench needs ipywidgets ([gui])")

from sdcsession.present.workbench.panels.tabs import lazy_tabs  # noqa: E402
from sdcsession.present.workbench.widget import workbench  # noqa: E402

KEYS = ["region", "sex", "age5"]


def _drawn(tab: object) -> list[bool]:
    return [len(box.children) == 1 for box in tab.children]


def test_a_page_is_put_in_when_its_tab_is_first_selected() -> None:
    pages = [widgets.HTML("a"), widgets.HTML("b")]
    built: list[int] = []

    def third() -> object:
        built.append(1)
        return widgets.HTML("c")

    tab = widgets.Tab()
    show = lazy_tabs(tab, [*pages, third])
    assert _drawn(tab) == [False, False, False] and built == []
    show()  # the selected tab (0) when nothing changed the index
    assert _drawn(tab) == [True, False, False] and tab.children[0].children == (pages[0],)
    tab.selected_index = 2
    tab.selected_index = 1
    tab.selected_index = 2
    assert _drawn(tab) == [True, True, True] and built == [1]  # built once
    assert len(tab.children) == 3  # the tab's children stay the same boxes


def test_eager_tabs_and_a_bad_flag() -> None:
    pages = [widgets.HTML("a"), lambda: widgets.HTML("b")]
    tab = widgets.Tab()
    lazy_tabs(tab, pages, lazy=False)
    assert tab.children[0] is pages[0] and tab.children[1].value == "b"
    with pytest.raises(sdc.errors.ParameterError, match="lazy_tabs"):
        lazy_tabs(widgets.Tab(), pages, lazy="no")


def test_the_app_workbench_draws_the_treat_tab_only_and_builds_views_on_first_use() -> None:
    df = sdc.datasets.synthetic_survey(200, seed=2)
    wb = workbench(df, keys=KEYS, weight="w", seed=1, lazy_tabs=True)
    titles = list(wb.tabs.titles)
    assert titles[wb.tabs.selected_index] == "Treat"
    assert _drawn(wb.tabs) == [t == "Treat" for t in titles]
    assert wb._views is None  # not built until its tab opens
    wb.apply_button.click()  # a step refreshes every panel; the Views tab is still unbuilt
    assert len(wb.session.history) == 2 and wb._views is None
    wb.tabs.selected_index = titles.index("Views")
    assert wb._views is not None and wb.tabs.children[titles.index("Views")].children == (
        wb.views.box,)
    assert wb.views.rmd_button.disabled  # options set for the session (no numeric variable)
    assert "sdc-views" in wb.views.show_button._dom_classes
    wb.tabs.selected_index = titles.index("Release")
    assert wb.tabs.children[titles.index("Release")].children == (wb.release.box,)


def test_the_notebook_workbench_draws_every_tab() -> None:
    s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=KEYS, seed=1)
    wb = s.workbench()
    assert wb._views is not None
    assert list(wb.tabs.children) == [wb.data_panel.box, wb.roles_panel.box, wb.prepare.box,
                                      wb.tabs.children[3], wb.history.box, wb.views.box,
                                      wb.release.box]


def test_the_app_asks_for_lazy_tabs_and_loads_the_widget_managers_only(tmp_path) -> None:
    pytest.importorskip("voila")
    from sdcsession.present.workbench.app import PAGE_EXTENSIONS, app_notebook, voila_command

    code = app_notebook(tmp_path / "survey.csv", keys=["sex"], seed=1)["cells"][1]["source"]
    assert code.count("lazy_tabs=True") == 1
    cmd = voila_command(tmp_path / "nb.ipynb", port=8999, open_browser=False)
    opt = [c for c in cmd if c.startswith("--VoilaConfiguration.extension_allowlist=")]
    assert len(opt) == 1 and "@jupyter-widgets/jupyterlab-manager" in opt[0]
    assert "@jupyter-widgets/jupyterlab-manager" in PAGE_EXTENSIONS
