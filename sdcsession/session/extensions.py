"""Extension points: how upper layers attach conveniences to session objects.

The session layer never imports the presentation layer. Conveniences such as ``s.plot``,
``s.report()``, ``s.compare()`` and the HTML ``_repr_html_`` of a session are *registered* on the
session classes by the presentation package when ``sdcsession`` is imported — the accessor pattern
of pandas (``pandas.api.extensions.register_dataframe_accessor``) and xarray. Third-party code can
use the same two decorators.

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

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["register_session_accessor", "register_method", "Accessor"]

F = TypeVar("F", bound=Callable[..., Any])


class Accessor:
    """A descriptor that builds ``accessor(obj)`` on attribute access (``s.plot`` → plots of s);
    on the class itself it returns the accessor class (so its docstring shows in help())."""

    def __init__(self, name: str, accessor: type) -> None:
        self._name = name
        self._accessor = accessor
        self.__doc__ = accessor.__doc__

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        if obj is None:
            return self._accessor
        return self._accessor(obj)


def register_session_accessor(name: str, cls: type | None = None) -> Callable[[type], type]:
    """Register a class as accessor ``name`` on ``cls`` (default: `SdcSession`): ``s.<name>``
    is ``accessor_class(s)``."""

    def deco(accessor: type) -> type:
        owner = cls
        if owner is None:
            from .session import SdcSession

            owner = SdcSession
        setattr(owner, name, Accessor(name, accessor))
        return accessor

    return deco


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
