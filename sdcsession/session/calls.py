"""Misnamed or misplaced arguments of the session's methods: an `ArgumentError`, not a raw
``TypeError``.

A call such as ``s.microaggregation(cols, aggr=3)`` (sdcMicro's name for ``k``) or
``s.local_suppression(k=3, importance=[1, 2], kk=5)`` fails when Python binds its arguments.
`guard_calls` wraps every public method of a session class so that such a failure raises
`ArgumentError` (a `ParameterError` and a ``TypeError``), naming the argument, the parameters the
method takes, and the closest one (sdcMicro's spellings map to this package's names: ``aggr`` →
``k``, ``keyVars`` → ``keys``, ...). The check runs only after the call has failed with a
``TypeError``: a correct call pays nothing, and a ``TypeError`` raised inside the method (not by
the binding) is left as it is.

Missing values: not applicable (the arguments' names and count are checked, not their values).

Example
-------
>>> import sdcsession as sdc
>>> s = sdc.SdcSession(sdc.datasets.synthetic_survey(100, seed=1), keys=["region", "sex"])
>>> try:
...     s.undo(steps=2)
... except sdc.errors.ParameterError as e:
...     print(e)
undo: no parameter 'steps'; it takes: n
>>> try:
...     s.microaggregation(["income"], aggr=3)
... except TypeError as e:  # also a TypeError, as Python's own
...     print(e)
microaggregation: no parameter 'aggr' (sdcMicro's name; here it is 'k'); it takes: columns, k, method, strata, aggregate, sort_by, weights
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable
from typing import Any

from ..errors import ParameterError

__all__ = ["ArgumentError", "SDCMICRO_NAMES", "guard_calls", "guarded", "explain_binding"]


class ArgumentError(ParameterError, TypeError):
    """A call names a parameter the method does not have, or passes too many or too few."""


#: sdcMicro's argument names and the parameter they are called here
SDCMICRO_NAMES = {
    "aggr": "k", "keyVars": "keys", "keyvars": "keys", "numVars": "numeric", "numvars": "numeric",
    "weightVar": "weight", "hhId": "household", "strataVar": "strata", "pramVars": "pram",
    "sensibleVar": "sensitive", "ghostVars": "linked", "excludeVars": "identifiers",
    "ldiv_index": "sensitive", "variables": "columns", "var": "columns", "keyVar": "columns",
    "seed_value": "seed",
}


def explain_binding(func: Callable[..., Any], name: str, args: tuple, kwargs: dict
                    ) -> ArgumentError | None:
    """The `ArgumentError` that ``func(*args, **kwargs)`` deserves, or None when the arguments
    bind (then a ``TypeError`` came from inside the call and is not about the arguments).

    ``args`` include the bound instance for methods (``func`` is the plain function).

    Example
    -------
    >>> def f(self, columns, *, k=3): ...
    >>> print(explain_binding(f, "f", (None, "a"), {"aggr": 3}))
    f: no parameter 'aggr' (sdcMicro's name; here it is 'k'); it takes: columns, k
    """
    sig = inspect.signature(func)
    try:
        sig.bind(*args, **kwargs)
    except TypeError as e:
        reason = str(e)
    else:
        return None
    params = [p for p in sig.parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)][1:]  # without self
    names = [p.name for p in params]
    takes = ", ".join(names) if names else "no arguments"
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    unknown = [] if accepts_any else [k for k in kwargs if k not in sig.parameters]
    if unknown:
        bad = unknown[0]
        if SDCMICRO_NAMES.get(bad) in names:
            hint = f" (sdcMicro's name; here it is {SDCMICRO_NAMES[bad]!r})"
        else:
            close = difflib.get_close_matches(bad, names, n=1, cutoff=0.5)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
        return ArgumentError(f"{name}: no parameter {bad!r}{hint}; it takes: {takes}")
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                       p.POSITIONAL_OR_KEYWORD)]
    if "too many positional" in reason:
        return ArgumentError(
            f"{name}: takes {len(positional)} positional argument(s) "
            f"({', '.join(positional) or 'none'}), got {len(args) - 1}; pass the others by name "
            f"({takes})")
    if "missing" in reason:
        missing = [p.name for p in params if p.default is p.empty
                   and p.kind is not p.VAR_POSITIONAL and p.name not in kwargs][len(args) - 1:]
        return ArgumentError(f"{name}: missing required argument(s) {missing or reason}; "
                             f"it takes: {takes}")
    return ArgumentError(f"{name}: {reason}; it takes: {takes}")


def guarded(func: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``func`` wrapped so that a call whose arguments do not bind raises the `ArgumentError` of
    `explain_binding` (labelled ``name``); every other outcome, including a ``TypeError`` raised
    inside ``func``, is ``func``'s own.

    Example
    -------
    >>> def scale(self, *, by: float = 2.0) -> float:
    ...     return by
    >>> try:
    ...     guarded(scale, "scale")(None, b=3)
    ... except ArgumentError as e:
    ...     print(e)
    scale: no parameter 'b' (did you mean 'by'?); it takes: by
    """
    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except TypeError as e:
            if isinstance(e, ArgumentError):
                raise
            better = explain_binding(func, name, args, kwargs)
            if better is None:
                raise
            raise better from None

    call.__sdc_guarded__ = True  # type: ignore[attr-defined]
    return call


def guard_calls(cls: type) -> type:
    """Wrap every public method of ``cls`` (and of its bases, on ``cls``) and its constructor
    with the argument check of this module; properties, classmethods and staticmethods are left
    alone. Returns ``cls``.

    Example
    -------
    >>> class Demo:
    ...     def go(self, *, k: int = 3) -> int:
    ...         return k
    >>> _ = guard_calls(Demo)
    >>> try:
    ...     Demo().go(kk=1)
    ... except TypeError as e:  # an ArgumentError is a TypeError too
    ...     print(type(e).__name__)
    ArgumentError
    """
    seen: set[str] = set()
    for klass in cls.__mro__:
        if klass is object:
            continue
        for attr, value in vars(klass).items():
            if attr in seen or (attr.startswith("_") and attr != "__init__"):
                continue
            seen.add(attr)
            if inspect.isfunction(value) and not getattr(value, "__sdc_guarded__", False):
                label = cls.__name__ if attr == "__init__" else attr
                setattr(cls, attr, guarded(value, label))
    return cls
