"""Fewer widget models on the app's first page: widgets whose ``layout`` or ``style`` is the
default share one instance per class (`share_defaults`), so the state the page receives holds
one default Layout instead of one per widget (each is a model of its own, sent and built on
load). A shared instance refuses changes (`SharedDefaultError`): code that shows, hides or
resizes one widget asks for the widget's own layout with `own_layout`.

Example
-------
>>> import ipywidgets as w
>>> box = w.VBox([w.HTML("a"), w.HTML("b")])
>>> share_defaults(box) >= 2
True
>>> box.children[0].layout is box.children[1].layout
True
>>> own_layout(box.children[0]).display = "none"
>>> box.children[1].layout.display is None
True
"""

from __future__ import annotations

from typing import Any

from ...errors import SdcError

__all__ = ["SharedDefaultError", "share_defaults", "own_layout"]

_SHARED: dict[type, Any] = {}
_DEFAULTS: dict[type, dict[str, Any]] = {}


class SharedDefaultError(SdcError):
    """A change to a layout or style shared by several widgets (use `own_layout`)."""


def _frozen_class(cls: type) -> type:
    def __setattr__(self: Any, name: str, value: Any) -> None:  # noqa: N807
        if self.__dict__.get("_sdc_frozen") and not name.startswith("_") and name in self.keys:
            raise SharedDefaultError(
                f"{cls.__name__}.{name}: this default is shared by several widgets; "
                "change the widget's own layout (own_layout(widget))")
        cls.__setattr__(self, name, value)

    return type(cls.__name__, (cls,), {"__setattr__": __setattr__})


def _state(x: Any) -> dict[str, Any]:
    return {k: v for k, v in x.get_state().items() if not k.startswith("_")}


def _shared(cls: type) -> Any:
    """The frozen default instance of ``cls`` (a Layout or Style class)."""
    if cls not in _SHARED or _SHARED[cls].comm is None:
        x = _frozen_class(cls)()
        object.__setattr__(x, "_sdc_frozen", True)
        _SHARED[cls] = x
    return _SHARED[cls]


def _is_default(x: Any) -> bool:
    cls = type(x)
    if cls not in _DEFAULTS:
        probe = cls()
        _DEFAULTS[cls] = _state(probe)
        probe.close()
    return _state(x) == _DEFAULTS[cls]


def share_defaults(root: Any) -> int:
    """Give every open widget (those reachable from ``root`` through children and other
    widget-valued traits, and every other widget alive in this kernel: the page receives the
    state of all of them) whose ``layout`` / ``style`` holds only default values the shared
    instance of its class, and close the replaced ones; how many models were closed.

    Missing values: not applicable (widgets only). Call it before the page is drawn.
    """
    import ipywidgets as w
    from ipywidgets.widgets.widget import _instances

    seen: dict[int, Any] = {}
    stack = [root, *list(_instances.values())]
    while stack:
        x = stack.pop()
        if id(x) in seen or not isinstance(x, w.Widget):
            continue
        seen[id(x)] = x
        for name in x.keys:
            v = getattr(x, name, None)
            if isinstance(v, w.Widget):
                stack.append(v)
            elif isinstance(v, (tuple, list)):
                stack.extend(c for c in v if isinstance(c, w.Widget))
    closed = 0
    for x in list(seen.values()):
        for attr in ("layout", "style"):
            v = getattr(x, attr, None) if attr in x.keys else None
            if not isinstance(v, (w.Layout, w.widgets.widget_style.Style)) or v.__dict__.get(
                    "_sdc_frozen"):
                continue
            if _is_default(v):
                setattr(x, attr, _shared(type(v)))
                v.close()
                closed += 1
    return closed


def own_layout(widget: Any, attr: str = "layout") -> Any:
    """``widget``'s layout (or its ``attr``, e.g. ``"style"``), its own: a shared default is
    first replaced by a new instance of its class."""
    v = getattr(widget, attr)
    if v.__dict__.get("_sdc_frozen"):
        setattr(widget, attr, type(v).__mro__[1]())
    return getattr(widget, attr)
