"""The session classes by ``module.qualname``: `SdcSession` and every subclass register here
(`register_session_class`, called on class creation), so that sweep and optimiser workers in
other processes rebuild a scenario with the class of its session and no code is sent to them.

This module imports nothing, so that ``import sdcsession`` registers `SdcSession` without
loading the sweep engine (`sdcsession.session.sweeps`, imported on the first ``s.sweep``).

Missing values: not applicable (classes are registered, no data are read).

Example
-------
>>> import sdcsession as sdc
>>> SESSION_CLASSES["sdcsession.session.session.SdcSession"] is sdc.SdcSession
True
"""

from __future__ import annotations

__all__ = ["SESSION_CLASSES", "register_session_class"]

#: session classes by ``module.qualname`` (filled by `register_session_class`): a worker
#: process finds the class of the session it rebuilds here, so no code is sent to it
SESSION_CLASSES: dict[str, type] = {}


def register_session_class(cls: type) -> None:
    """Register a session class under ``module.qualname``, so that sweep workers in other
    processes rebuild scenarios with the same class (`SdcSession` and its subclasses).

    Example
    -------
    >>> class Mine: pass
    >>> register_session_class(Mine)
    >>> SESSION_CLASSES[f"{__name__}.Mine"] is Mine
    True
    >>> del SESSION_CLASSES[f"{__name__}.Mine"]
    """
    SESSION_CLASSES[f"{cls.__module__}.{cls.__qualname__}"] = cls
