"""Extension points: how upper layers attach conveniences to session objects.

The session layer never imports the presentation layer. Conveniences such as ``s.plot``,
``s.report()``, ``s.compare()`` and the HTML ``_repr_html_`` of a session are *registered* on the
session classes by the presentation package when ``sdcsession`` is imported — the accessor pattern
of pandas (``pandas.api.extensions.register_dataframe_accessor``) and xarray. Third-party code can
use the same two decorators.

Classes imported on first use (the sweep's `Sweep`, the optimiser's `Optimization`, the plots
accessor) get their conveniences without being imported by ``import sdcsession``:
`register_method_later` files the method under the class's module, which attaches it when it is
imported (its last line calls `attach_registered`), and `register_session_accessor` takes the
accessor class as a ``"module:Class"`` path, imported on the first ``s.<name>``.

Example
-------
>>> import sdcsession as sdc
>>> from sdcsession.session.extensions import register_session_accessor
>>> @register_session_accessor("size")
... class Size:
...     def __init__(self, session):
...         self._s = session
...     def records(self):
...         return len(self._s.data)
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(20, seed=1), keys=["sex"], seed=1)
>>> s.size.records() == len(s.data)
True
>>> del sdc.SdcSession.size
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["register_session_accessor", "register_method", "register_method_later",
           "attach_registered", "Accessor"]

F = TypeVar("F", bound=Callable[..., Any])


def _resolve(path: str) -> Any:
    """The object a ``"module:name"`` path names (the module imported if need be)."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


class Accessor:
    """A descriptor that builds ``accessor(obj)`` on attribute access (``s.plot`` → plots of s);
    on the class itself it returns the accessor class (so its docstring shows in help()).

    ``accessor`` is the class or its ``"module:Class"`` path (imported on first access)."""

    def __init__(self, name: str, accessor: type | str) -> None:
        self._name = name
        self._accessor = accessor
        if not isinstance(accessor, str):
            self.__doc__ = accessor.__doc__

    def _class(self) -> type:
        if isinstance(self._accessor, str):
            self._accessor = _resolve(self._accessor)
            self.__doc__ = self._accessor.__doc__
        return self._accessor  # type: ignore[return-value]

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        if obj is None:
            return self._class()
        return self._class()(obj)


def register_session_accessor(name: str, cls: type | None = None) -> Callable[[Any], Any]:
    """Register a class as accessor ``name`` on ``cls`` (default: `SdcSession`): ``s.<name>``
    is ``accessor_class(s)``. The class may be given as its ``"module:Class"`` path, imported
    on the first ``s.<name>`` (``register_session_accessor("plot")("pkg.plots:Plots")``)."""

    def deco(accessor: Any) -> Any:
        owner = cls
        if owner is None:  # SdcSession (registered when it is created, before any accessor)
            from .classes import SESSION_CLASSES

            owner = SESSION_CLASSES["sdcsession.session.session.SdcSession"]
        setattr(owner, name, Accessor(name, accessor))
        return accessor

    return deco


#: methods waiting for their class's module: module -> [(class name, method name, function or
#: its "module:name" path)]; attached when the module is imported (`attach_registered`)
_LATER: dict[str, list[tuple[str, str, Any]]] = {}


def register_method_later(module: str, cls: str, name: str,
                          fn: Callable[..., Any] | str) -> None:
    """`register_method` for class ``cls`` of ``module``, a module imported on first use: the
    method is attached when ``module`` is imported (now, if it is already). ``fn`` is the
    function or its ``"module:name"`` path (then imported with ``module``).

    >>> register_method_later("sdcsession.session.sweeps.grid", "Sweep", "n",
    ...                       "builtins:len")
    >>> from sdcsession.session.sweeps.grid import Sweep
    >>> Sweep.n.__name__
    'len'
    >>> _ = _LATER["sdcsession.session.sweeps.grid"].pop(); del Sweep.n
    """
    _LATER.setdefault(module, []).append((cls, name, fn))
    loaded = sys.modules.get(module)
    if loaded is not None and hasattr(loaded, cls):
        _attach(loaded, cls, name, fn)


def attach_registered(module: str) -> None:
    """Attach the methods registered with `register_method_later` for classes of ``module``
    (the last line of such a module calls ``attach_registered(__name__)``)."""
    loaded = sys.modules[module]
    for cls, name, fn in _LATER.get(module, ()):
        _attach(loaded, cls, name, fn)


def _attach(module: Any, cls: str, name: str, fn: Callable[..., Any] | str) -> None:
    register_method(getattr(module, cls), name)(_resolve(fn) if isinstance(fn, str) else fn)


def register_method(cls: type, name: str | None = None) -> Callable[[F], F]:
    """Attach a function as method ``name`` (default: the function's name) of ``cls``.

    >>> class A: pass
    >>> @register_method(A, "hello")
    ... def _hello(self):
    ...     return "hi"
    >>> A().hello()
    'hi'
    """

    def deco(fn: F) -> F:
        from .calls import guarded

        label = name or fn.__name__
        setattr(cls, label, guarded(fn, label))  # misnamed arguments: an ArgumentError
        return fn

    return deco
