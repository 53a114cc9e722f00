"""Running a workbench step: progress bar, Cancel, and the worker thread.

`StepRunner` runs one step at a time. While it runs, a progress listener
(`sdcsession.progress.add_listener`) draws the step's own progress bars (local suppression,
MDAV, ...) in the widget at most ten times a second; after Cancel the listener raises
`Cancelled` from the step's next progress update, the step stops, and the session's HEAD does
not move (a step that fails never moves HEAD). A treatment that reports no progress runs to its
end. With ``background=True`` (the default inside a Jupyter kernel or Voilà, see `in_kernel`) the
step runs in a worker thread, so the kernel keeps handling clicks (Cancel) meanwhile; otherwise it
runs in the caller's thread and ``start`` returns when it is done (how tests drive it).

Example
-------
>>> r = StepRunner(background=False)
>>> r.start(lambda: 1 + 1, "sum", ok=print)
sum: done
>>> r.busy
False
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from ...progress import add_listener, remove_listener
from .share import own_layout

__all__ = ["StepRunner", "Cancelled", "in_kernel"]


class Cancelled(Exception):  # noqa: N818 - what the user did, not an error
    """Raised from a progress update after Cancel: the step stops, HEAD stays."""


def in_kernel() -> bool:
    """Whether this code runs inside an IPython kernel (Jupyter, Voilà)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipywidgets depends on IPython
        return False
    ip = get_ipython()
    return ip is not None and getattr(ip, "kernel", None) is not None


class StepRunner:
    """Progress bar, Cancel button and status line of the workbench, and the step they follow.

    ``on_busy()`` is called whenever a step starts or ends (the workbench enables or disables
    its buttons).
    """

    def __init__(self, *, background: bool | None = None,
                 on_busy: Callable[[], Any] | None = None) -> None:
        import ipywidgets as w

        self.background = in_kernel() if background is None else bool(background)
        self.on_busy = on_busy or (lambda: None)
        self.progress = w.IntProgress(value=0, min=0, max=1, description="Progress",
                                      layout=w.Layout(visibility="hidden"))
        self.cancel_button = w.Button(description="Cancel", disabled=True,
                                      tooltip="stop the running step (the session is unchanged)")
        self.status = w.Label(value="")
        self.cancel_button.on_click(lambda _: self.cancel())
        self._cancel = threading.Event()
        self.worker: threading.Thread | None = None
        self.thread: threading.Thread | None = None
        self._last_draw = 0.0

    @property
    def busy(self) -> bool:
        """Whether a step is running."""
        return self.worker is not None

    def start(self, fn: Callable[[], Any], what: str, *,
              ok: Callable[[str], Any] = print,
              error: Callable[[BaseException | str], Any] = print) -> None:
        """Run ``fn`` (one step); report ``"<what>: done"`` / the error through ``ok`` /
        ``error``."""
        self._cancel.clear()
        self.worker = threading.current_thread()
        self.on_busy()
        self.progress.value, self.progress.max = 0, 1
        own_layout(self.progress).visibility = "visible"
        self.status.value = f"{what}: running…"
        if self.background:
            self.thread = threading.Thread(target=self._run, args=(fn, what, ok, error),
                                           daemon=True, name="sdcsession-workbench")
            self.worker = self.thread
            self.thread.start()
        else:
            self._run(fn, what, ok, error)

    def _run(self, fn: Callable[[], Any], what: str, ok: Callable[[str], Any],
             error: Callable[[BaseException | str], Any]) -> None:
        self.worker = threading.current_thread()
        add_listener(self._listen)
        t0 = time.perf_counter()
        try:
            fn()
        except Cancelled:
            error(f"{what}: cancelled; the session is unchanged")
        except Exception as e:  # noqa: BLE001 - shown in the widget, never a dead button
            error(e)
        else:
            seconds = time.perf_counter() - t0
            ok(f"{what}: done" + (f" in {seconds:.2f} s" if seconds >= 0.05 else ""))
        finally:
            remove_listener(self._listen)
            self.worker = None
            own_layout(self.progress).visibility = "hidden"
            self.status.value = ""
            self.on_busy()

    def _listen(self, desc: str, n: int, total: int | None) -> None:
        if threading.current_thread() is not self.worker:
            return  # another thread's operation (e.g. code in another cell)
        if self._cancel.is_set():
            raise Cancelled(f"{desc or 'step'} cancelled")
        now = time.monotonic()
        if now - self._last_draw < 0.1 and not (total and n >= total):
            return
        self._last_draw = now
        if total:
            self.progress.max = int(total)
            self.progress.value = min(int(n), int(total))
        self.status.value = f"{desc}: {n:,}" + (f" / {total:,}" if total else "")

    def cancel(self) -> None:
        """Ask the running step to stop at its next progress update (HEAD does not move)."""
        if self.worker is None:
            return
        self._cancel.set()
        self.status.value = "cancelling…"

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a step running in the worker thread; True when none is running."""
        t = self.thread
        if t is not None:
            t.join(timeout)
        return self.worker is None
