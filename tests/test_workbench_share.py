"""Shared default layouts and styles (`sdcsession.present.workbench.share`): fewer widget models on
the app's first page, and a shared default never changed through one widget."""

from __future__ import annotations

import importlib.util

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ipywidgets") is None,
                                reason="needs ipywidgets (pip install -e '.[gui]')")


def test_default_layouts_and_styles_are_shared_and_frozen() -> None:
    import ipywidgets as w

    from sdcsession.present.workbench.share import SharedDefaultError, own_layout, share_defaults

    wide = w.Layout(width="50%")
    a, b, c = w.HTML("a"), w.Button(description="b"), w.Button(description="c", layout=wide)
    d = w.Button(description="d")
    d.style.button_color = "red"
    box = w.VBox([a, w.HBox([b, c, d])])
    old_a = a.layout
    closed = share_defaults(box)
    # a, b, the two boxes: default layouts shared; c keeps its width, d its colour
    assert a.layout is b.layout is box.layout is box.children[1].layout
    assert c.layout is wide and c.layout.width == "50%"
    assert b.style is c.style and d.style.button_color == "red" and d.style is not b.style
    assert old_a.comm is None  # the replaced model is closed
    assert closed >= 5
    with pytest.raises(SharedDefaultError, match="own_layout"):
        a.layout.display = "none"
    assert b.layout.display is None
    own_layout(a).display = "none"  # a gets a layout of its own
    assert a.layout.display == "none" and b.layout.display is None
    assert type(a.layout) is w.Layout
    own_layout(b, "style").button_color = "blue"
    assert b.style.button_color == "blue" and c.style.button_color is None
    assert share_defaults(box) == 0 or a.layout.display == "none"  # idempotent for a


def test_a_shared_workbench_still_shows_and_hides(tmp_path) -> None:
    import sdcsession as sdc
    from sdcsession.present.workbench.share import share_defaults
    from sdcsession.present.workbench.widget import workbench

    df = sdc.datasets.synthetic_survey(120, seed=3)
    wb = workbench(df, keys=["region", "sex", "age5"], seed=1, lazy_tabs=True)
    assert share_defaults(wb) > 20
    r = wb.release
    # the workbench hides and shows its own widgets after sharing (no SharedDefaultError)
    r._hide_force()
    assert r.force_button.layout.display == "none" == r.force_confirm.layout.display
    assert wb.apply_button.layout.display is None  # another widget is not hidden with it
