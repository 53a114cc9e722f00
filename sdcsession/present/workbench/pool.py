"""The app's warm kernel pool: the page is ready in about a second, not after a kernel start.

Without a pool, every page load starts a kernel, imports sdcsession, reads the data file and
builds the workbench before anything shows (4-7 s). With Voilà's pre-heated kernels
(``--preheat_kernel=True --pool_size=N``) the app keeps ``N`` kernels that have run the app's
notebook already (data read, workbench built). A page load then only sends the rendered page
and the widgets' state.

`pooled_manager` adapts Voilà's pool to the app's cap on kernels (the hardened server,
`sdcsession.present.workbench.serve`):

- the pool is refilled only while pages plus pooled kernels stay within the cap, so the pool
  never takes the place of a page (nor pushes the count of kernels past the cap);
- a pooled kernel whose start failed is dropped, not handed to a page;
- when a page's kernel stops (page closed, or culled when idle) the pool is refilled, but not
  while the server shuts down;
- a page that takes the pooled kernel has the machine to itself for `REFILL_DELAY` seconds
  before the next kernel starts (Voilà's default is 1 s: the new kernel's start, imports and
  notebook then compete with the page's scripts and widgets on a small machine).

`watch_resume` keeps current what may change while a kernel waits in the pool: the offer to
resume the autosaved project (`Workbench.offer_resume`), which the page before wrote.

Example
-------
>>> watch_resume(object()) is None  # no data file (a notebook): nothing to watch
True
"""

from __future__ import annotations

import threading
import time
from typing import Any

__all__ = ["pooled_manager", "install", "watch_resume", "REFILL_DELAY"]

#: seconds between a page taking the pooled kernel and the start of the next one
REFILL_DELAY = 4.0


def watch_resume(workbench: Any, interval: float = 0.5) -> threading.Thread | None:
    """Keep the workbench's offer to resume the autosaved project current until its first
    step: a daemon thread looks at the autosave's modification time every ``interval`` seconds
    and renews the offer (`Workbench.offer_resume`) when another page wrote it; it stops once
    this workbench's session has a step (its own autosaves are not offered back). None when the
    workbench has no data file (a notebook)."""
    from .release import autosave_path

    if getattr(workbench, "path", None) is None:
        return None
    auto = autosave_path(workbench.path)

    def stamp() -> int | None:
        try:
            return auto.stat().st_mtime_ns
        except OSError:
            return None

    seen = stamp()

    def watch() -> None:
        nonlocal seen
        while True:
            time.sleep(interval)
            s = workbench.session
            if s is not None and len(s._tree) > 1:
                return  # steps of this page: its autosaves are its own
            now = stamp()
            if now != seen:
                seen = now
                if now is None:
                    workbench.resume_box.children = []
                else:
                    workbench.offer_resume()

    thread = threading.Thread(target=watch, name="sdcsession-resume-watch", daemon=True)
    thread.start()
    return thread


def pooled_manager(cls: type, cap: int) -> type:
    """A subclass of Voilà's pooling kernel manager ``cls`` that keeps pages plus pooled kernels
    within ``cap`` (see the module docstring)."""

    from traitlets import default

    class PooledKernelManager(cls):  # type: ignore[misc, valid-type]
        """Voilà's kernel pool, within the app's cap on kernels."""

        _closing = False

        @default("fill_delay")
        def _refill_after_the_page(self) -> float:
            return REFILL_DELAY

        def _healthy(self, name: str | None) -> list[Any]:
            pool = self._pools.get(name, [])
            bad = [t for t in pool if t.done() and (t.cancelled() or t.exception() is not None)]
            for t in bad:
                pool.remove(t)
            return pool

        def get_pool_size(self, notebook_name: str) -> int:
            return len(self._healthy(notebook_name))

        def fill_if_needed(self, delay: float | None = None, notebook_name: str | None = None,
                           extra_kernel_env_variables: dict | None = None, **kwargs: Any) -> None:
            if self._closing:
                return
            pools = getattr(self, "_pools", {})
            pooled = sum(len(p) for p in pools.values())
            ready = sum(1 for p in pools.values() for t in p if t.done())
            pages = max(0, len(self.list_kernel_ids()) - ready)
            config = self.kernel_pools_config.get(notebook_name) or self.kernel_pools_config.get(
                "default", {})
            want = int(config.get("pool_size", 1))
            room = cap - pages - pooled
            if room <= 0 or pooled >= want:
                return
            if room < want - pooled:  # start only as many as the cap allows
                self.kernel_pools_config = {**self.kernel_pools_config, notebook_name: {
                    **config, "pool_size": len(pools.get(notebook_name, [])) + room}}
                try:
                    super().fill_if_needed(delay, notebook_name,
                                           extra_kernel_env_variables or {}, **kwargs)
                finally:
                    cfg = dict(self.kernel_pools_config)
                    cfg[notebook_name] = {**config, "pool_size": want}
                    self.kernel_pools_config = cfg
                return
            super().fill_if_needed(delay, notebook_name, extra_kernel_env_variables or {},
                                   **kwargs)

        async def shutdown_kernel(self, kernel_id: str, *args: Any, **kwargs: Any) -> Any:
            out = await super().shutdown_kernel(kernel_id, *args, **kwargs)
            if not self._closing and self.notebook_path is not None:
                self.fill_if_needed(notebook_name=self.notebook_path)
            return out

        async def shutdown_all(self, *args: Any, **kwargs: Any) -> Any:
            self._closing = True
            return await super().shutdown_all(*args, **kwargs)

    return PooledKernelManager


def install(cap: int) -> None:
    """Make Voilà (in this process) build its pooling kernel manager with `pooled_manager`
    (Voilà builds that class from a factory in ``voila.app`` when the server starts)."""
    import voila.app as voila_app

    factory = voila_app.voila_kernel_manager_factory
    if getattr(factory, "sdcsession_cap", None) == cap:
        return

    def capped_factory(base_class: type, preheat_kernel: bool, default_pool_size: int,
                       **kw: Any) -> type:
        made = factory(base_class, preheat_kernel, default_pool_size, **kw)
        return pooled_manager(made, cap) if preheat_kernel else made

    capped_factory.sdcsession_cap = cap  # type: ignore[attr-defined]
    voila_app.voila_kernel_manager_factory = capped_factory
