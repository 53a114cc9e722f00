"""Sessions over Dask frames.

- `steps`: validating roles, running a step as Dask work, linked variables;
- `views`: risk and utility of a Dask session, with the names of the in-memory views.

The old module ``sdcsession.session.distributed`` is this package: its names (``run_step``,
``release_check``, ``export``, ...) are those of `steps`, loaded on first use (the package path
itself cannot be mapped to one of its own modules).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__: list[str] = []


def __getattr__(name: str) -> Any:
    steps = importlib.import_module(f"{__name__}.steps")
    try:
        return getattr(steps, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
