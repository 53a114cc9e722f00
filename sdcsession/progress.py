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

For a loop that advances by varying steps (a ``while`` loop), :class:`Bar`:

>>> with Bar(total=10, desc="demo", enabled=False) as bar:
...     for step in (3, 3, 4):
...         bar.update(step)
>>> bar.n
10
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["track", "Bar", "set_progress", "progress_enabled"]

T = TypeVar("T")
_ENABLED: bool | None = None
#: default delay before a bar first appears (seconds); short operations stay silent
MIN_SECONDS = 0.5


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
          enabled: bool | None = None, min_seconds: float | None = None) -> Iterator[T]:
    """Yield ``items``, drawing ``desc [####    ] i/total`` on stderr after ``min_seconds``
    (default :data:`MIN_SECONDS`)."""
    if not progress_enabled(enabled):
        yield from items
        return
    if total is None:
        try:
            total = len(items)  # type: ignore[arg-type]
        except TypeError:
            total = None
    bar = Bar(total, desc=desc, enabled=True, min_seconds=min_seconds)
    try:
        for item in items:
            yield item
            bar.update(1)
    finally:
        bar.close()


class Bar:
    """A manually advanced progress bar: ``update(n)`` after each step, ``close()`` at the end
    (or use it as a context manager). Same display and silence rules as :func:`track`; when
    disabled, ``update`` only counts (a few nanoseconds), so hot loops can call it freely.

    >>> bar = Bar(total=5, enabled=False)
    >>> bar.update(2); bar.update(3); bar.close()
    >>> bar.n
    5
    """

    __slots__ = ("total", "desc", "n", "on", "min_seconds", "t0", "last", "shown", "closed")

    def __init__(self, total: int | None = None, *, desc: str = "", enabled: bool | None = None,
                 min_seconds: float | None = None) -> None:
        self.total = total
        self.desc = desc
        self.n = 0
        self.on = progress_enabled(enabled)
        self.min_seconds = MIN_SECONDS if min_seconds is None else float(min_seconds)
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.shown = False
        self.closed = False

    def update(self, n: int = 1) -> None:
        """Advance by ``n`` steps; redraw at most ten times per second."""
        self.n += n
        if not self.on:
            return
        now = time.perf_counter()
        if now - self.t0 >= self.min_seconds and now - self.last >= 0.1:
            self.last = now
            self.shown = True
            _draw(self.desc, self.n, self.total, now - self.t0)

    def close(self) -> None:
        """Draw the final state and end the line (only if the bar was ever shown)."""
        if self.closed:
            return
        self.closed = True
        if self.on and self.shown:
            _draw(self.desc, self.n, self.total, time.perf_counter() - self.t0)
            sys.stderr.write("\n")
            sys.stderr.flush()

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _draw(desc: str, i: int, total: int | None, secs: float) -> None:
    if total:
        frac = min(i / total, 1.0)
        bar = "#" * int(30 * frac)
        text = f"\r{desc} [{bar:<30}] {i:,}/{total:,} {secs:.1f}s"
    else:
        text = f"\r{desc} {i:,} {secs:.1f}s"
    sys.stderr.write(text)
    sys.stderr.flush()
