"""Tabs whose pages are drawn in the browser when first shown: `lazy_tabs`.

An ``ipywidgets.Tab`` draws every page in the browser when the page loads, the hidden ones too.
`lazy_tabs` gives the tab one empty box per page and puts the page into its box when its tab is
selected (by a click or from Python), so the first paint draws the selected page only (the app
uses it: its page is ready sooner). The tab's children stay the same boxes (its tab bar is not
redrawn). Every page's widgets exist in the kernel from the start, so the workbench's attributes
reach them as before; only their views wait for the first selection.

Example
-------
>>> import ipywidgets as w
>>> pages = [w.HTML("a"), w.HTML("b"), w.HTML("c")]
>>> tab = w.Tab()
>>> show = lazy_tabs(tab, pages)
>>> tab.selected_index = 1
>>> [box.children == (p,) for box, p in zip(tab.children, pages)]
[False, True, False]
>>> tab.selected_index = 0
>>> [box.children == (p,) for box, p in zip(tab.children, pages)]
[True, True, False]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ....methods.params import check_bool

__all__ = ["lazy_tabs"]


def lazy_tabs(tab: Any, pages: Sequence[Any], *, lazy: bool = True) -> Callable[..., None]:
    """Give ``tab`` one empty box per page in ``pages`` and put a page into its box when its tab
    is first selected (a page may be a function that builds it: called then); the function that does it for the selected tab (call it once the first
    tab to show is chosen: a selection that does not change the index sends no event). With
    ``lazy=False`` the pages are the tab's children at once (the function does nothing).

    Missing values: none (``pages`` are widgets)."""
    import ipywidgets as w

    lazy = check_bool("lazy_tabs", lazy)
    pages = list(pages)
    if not lazy:
        tab.children = tuple(p() if callable(p) else p for p in pages)
        return lambda _change=None: None

    boxes = tuple(w.VBox() for _ in pages)

    def show(_change: Any = None) -> None:
        i = tab.selected_index
        if i is not None and 0 <= i < len(pages) and not boxes[i].children:
            page = pages[i]() if callable(pages[i]) else pages[i]
            boxes[i].children = (page,)

    tab.children = boxes
    tab.observe(show, names="selected_index")
    return show
