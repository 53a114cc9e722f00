"""Progress bars for long operations (local suppression, MDAV, SUDA2, GDU, bootstrap), on tqdm.

The bars are [tqdm](https://tqdm.github.io/)'s ``tqdm.auto``: a widget in Jupyter (when ipywidgets
is installed), text on standard error in a terminal. They stay silent when

* ``enabled=False`` is passed (every long operation takes ``progress=``),
* the global switch `set_progress(False)` is set,
* the environment variable ``CI`` is set or ``SDCSESSION_PROGRESS=0``,
* standard error is neither a terminal nor a notebook stream,

and a bar appears only after ``MIN_SECONDS`` (short operations never show one), so CI logs and
redirected output stay clean.

Listeners (`add_listener`) are told of every update of every bar, enabled or not; the interactive
workbench uses this to draw its own bar and to cancel a running step (a listener that raises
stops the operation, and the session stays unchanged).

Example
-------
>>> total = 0
>>> for i in track(range(3), total=3, desc="demo", enabled=False):
...     total += i
>>> total
3

For a loop that advances by varying steps (a ``while`` loop), `Bar`:

>>> with Bar(total=10, desc="demo", enabled=False) as bar:
...     for step in (3, 3, 4):
...         bar.update(step)
>>> bar.n
10
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["track", "Bar", "set_progress", "progress_enabled", "add_listener", "remove_listener"]

T = TypeVar("T")
_ENABLED: bool | None = None
#: default delay before a bar first appears (seconds); short operations stay silent
MIN_SECONDS = 0.5
#: callables ``f(desc, n, total)`` told of every bar update (see `add_listener`)
_LISTENERS: list[Callable[[str, int, int | None], None]] = []


def set_progress(enabled: bool | None) -> None:
    """Turn progress bars on or off globally (``None``: automatic, the default).

    >>> set_progress(False); progress_enabled()
    False
    >>> set_progress(None)
    """
    global _ENABLED
    _ENABLED = enabled


def progress_enabled(enabled: bool | None = None) -> bool:
    """Whether a progress bar would be shown for a call with ``progress=enabled``.

    >>> progress_enabled(False)
    False
    """
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


def add_listener(listener: Callable[[str, int, int | None], None]) -> None:
    """Call ``listener(desc, n, total)`` on every update of every bar (also disabled ones).

    An exception raised by the listener propagates out of the running operation: this is how an
    operation is cancelled from outside.

    >>> seen = []
    >>> def listen(desc, n, total):
    ...     seen.append(n)
    >>> add_listener(listen)
    >>> with Bar(total=2, enabled=False) as bar:
    ...     bar.update(1); bar.update(1)
    >>> remove_listener(listen); seen
    [1, 2]
    """
    _LISTENERS.append(listener)


def remove_listener(listener: Callable[[str, int, int | None], None]) -> None:
    """Remove a listener added with `add_listener` (no error when it is not registered)."""
    try:
        _LISTENERS.remove(listener)
    except ValueError:
        pass


def _new_tqdm(total: int | None, desc: str, min_seconds: float) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc or None, delay=min_seconds, mininterval=0.1,
                file=sys.stderr, leave=True, dynamic_ncols=True)


def track(items: Iterable[T], *, total: int | None = None, desc: str = "",
          enabled: bool | None = None, min_seconds: float | None = None) -> Iterator[T]:
    """Yield ``items``, showing a tqdm bar after ``min_seconds`` (default ``MIN_SECONDS``).

    >>> list(track("ab", enabled=False))
    ['a', 'b']
    """
    if total is None:
        try:
            total = len(items)  # type: ignore[arg-type]
        except TypeError:
            total = None
    bar = Bar(total, desc=desc, enabled=enabled, min_seconds=min_seconds)
    try:
        for item in items:
            yield item
            bar.update(1)
    finally:
        bar.close()


class Bar:
    """A manually advanced progress bar: ``update(n)`` after each step, ``close()`` at the end
    (or use it as a context manager). Same display and silence rules as `track`; when disabled
    and nobody listens, ``update`` only counts, so hot loops can call it freely.

    >>> bar = Bar(total=5, enabled=False)
    >>> bar.update(2); bar.update(3); bar.close()
    >>> bar.n
    5
    """

    __slots__ = ("total", "desc", "n", "_tqdm", "closed")

    def __init__(self, total: int | None = None, *, desc: str = "", enabled: bool | None = None,
                 min_seconds: float | None = None) -> None:
        self.total = total
        self.desc = desc
        self.n = 0
        self.closed = False
        delay = MIN_SECONDS if min_seconds is None else float(min_seconds)
        self._tqdm = _new_tqdm(total, desc, delay) if progress_enabled(enabled) else None

    def update(self, n: int = 1) -> None:
        """Advance by ``n`` steps (tqdm redraws at most ten times per second)."""
        self.n += n
        if self._tqdm is not None:
            self._tqdm.update(n)
        for listener in _LISTENERS:
            listener(self.desc, self.n, self.total)

    def close(self) -> None:
        """Draw the final state and end the bar (idempotent)."""
        if self.closed:
            return
        self.closed = True
        if self._tqdm is not None:
            self._tqdm.close()

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
