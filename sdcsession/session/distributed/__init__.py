"""Sessions over Dask frames.

- `steps`: validating roles, running a step as Dask work, linked variables, the export;
- `release`: the release check of a Dask state;
- `views`: risk and utility of a Dask session, with the names of the in-memory views.

The names of `steps` are also reachable here (``sdcsession.session.distributed.run_step``), as
they were when the package was one module; they are imported on first use, so importing this
package never imports dask.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__: list[str] = []


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    steps = importlib.import_module(f"{__name__}.steps")
    try:
        return getattr(steps, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
