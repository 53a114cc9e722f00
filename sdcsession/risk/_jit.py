"""The numba decorator of every compiled kernel of risk and methods (internal): ``numba.njit``
with its on-disk cache (``cache=True``: compiled once, then loaded from ``__pycache__`` or numba's
user cache), and without the cache where no cache location is writable (a read-only installation
without a writable home directory), where numba would otherwise refuse to define the function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba

__all__ = ["jit"]


def jit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(cache=True, **options)``, or without the cache when numba finds no
    writable cache location (it then compiles once per process)."""

    def decorate(func: Callable[..., Any]) -> Any:
        try:
            return numba.njit(cache=True, **options)(func)
        except RuntimeError:  # "cannot cache function ...: no locator available"
            return numba.njit(cache=False, **options)(func)

    return decorate
