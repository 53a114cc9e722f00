"""Building a treatment for a session method: the one place a method's parameters become a
frozen `Treatment` (internal)."""

from __future__ import annotations

from typing import Any

from ...errors import ParameterError, SdcError
from ...methods.base import TREATMENTS


def _build(tag: str, **params: Any) -> Any:
    """The treatment ``tag`` with ``params``; any failure to build it is a `ParameterError`
    (a parameter a treatment's own checks missed must not surface as a raw Python error)."""
    import sdcsession.methods  # noqa: F401  (registers every treatment)

    try:
        return TREATMENTS[tag](**params)
    except SdcError:
        raise
    except (TypeError, ValueError, ArithmeticError, KeyError, IndexError, AttributeError) as e:
        raise ParameterError(
            f"{tag}: invalid parameters ({type(e).__name__}: {str(e)[:200]})") from e
