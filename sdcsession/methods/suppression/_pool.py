"""Shared thread pool for the counting of local suppression (internal).

``SDCSESSION_THREADS`` sets its size (default: the CPUs, at most 4); a forked child makes its own.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

__all__: list[str] = []


_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0


def _pool() -> ThreadPoolExecutor | None:
    """Shared thread pool for counting (``SDCSESSION_THREADS``, default: the CPUs, at most 4);
    None when one thread is asked for or available."""
    global _POOL, _POOL_SIZE
    try:
        n = int(os.environ.get("SDCSESSION_THREADS", "0"))
    except ValueError:
        n = 0
    if n <= 0:
        n = min(os.cpu_count() or 1, 4)
    if n <= 1:
        return None
    if _POOL is None or _POOL_SIZE != n:
        _POOL = ThreadPoolExecutor(max_workers=n, thread_name_prefix="sdcsession-count")
        _POOL_SIZE = n
    return _POOL


def _forget_pool() -> None:
    global _POOL
    _POOL = None  # a forked child has no threads: it makes its own pool


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)
