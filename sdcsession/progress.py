"""Progress display for long operations (local suppression, MDAV, SUDA2, GDU, bootstrap).

A minimal text bar on standard error, redrawn in place with ``\\r`` (this renders in terminals and
in Jupyter, whose stderr stream honours carriage returns). It is silent when

* ``enabled=False`` is passed (every long operation takes ``progress=``),
* the global switch :func:`set_progress` is off,
* the environment variable ``CI`` is set or ``SDCSESSION_PROGRESS=0``,
* standard error is neither a terminal nor a notebook stream,

so CI logs and redirected output stay clean. Updates are throttled to at most ten per second.

Example
-------
>>> total = 0
>>> for i in track(range(3), total=3, desc="demo", enabled=False):
...     total += i
>>> total
3
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["track", "set_progress", "progress_enabled"]

T = TypeVar("T")
_ENABLED: bool | None = None


def set_progress(enabled: bool | None) -> None:
    """Turn progress bars on or off globally (``None``: automatic, the default)."""
    global _ENABLED
    _ENABLED = enabled


def progress_enabled(enabled: bool | None = None) -> bool:
    """Whether a progress bar would be shown for a call with ``progress=enabled``."""
    if enabled is not None:
        return bool(enabled)
    if _ENABLED is not None:
        return _ENABLED
    if os.environ.get("CI") or os.environ.get("SDCSESSION_PROGRESS") == "0":
        return False
    err = sys.stderr
    if err is None:
        return False
    if type(err).__module__.startswith("ipykernel"):
        return True
    try:
        return err.isatty()
    except (AttributeError, ValueError):
        return False


def track(items: Iterable[T], *, total: int | None = None, desc: str = "",
          enabled: bool | None = None, min_seconds: float = 0.5) -> Iterator[T]:
    """Yield ``items``, drawing ``desc [####    ] i/total`` on stderr after ``min_seconds``."""
    if not progress_enabled(enabled):
        yield from items
        return
    if total is None:
        try:
            total = len(items)  # type: ignore[arg-type]
        except TypeError:
            total = None
    t0 = time.perf_counter()
    last = 0.0
    shown = False
    i = 0
    for i, item in enumerate(items, 1):
        yield item
        now = time.perf_counter()
        if now - t0 >= min_seconds and now - last >= 0.1:
            last = now
            shown = True
            _draw(desc, i, total, now - t0)
    if shown:
        _draw(desc, i, total, time.perf_counter() - t0)
        sys.stderr.write("\n")
        sys.stderr.flush()


def _draw(desc: str, i: int, total: int | None, secs: float) -> None:
    if total:
        frac = min(i / total, 1.0)
        bar = "#" * int(30 * frac)
        text = f"\r{desc} [{bar:<30}] {i:,}/{total:,} {secs:.1f}s"
    else:
        text = f"\r{desc} {i:,} {secs:.1f}s"
    sys.stderr.write(text)
    sys.stderr.flush()
