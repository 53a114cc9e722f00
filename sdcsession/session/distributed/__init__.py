"""Sessions over Dask frames.

- `steps`: validating roles, running a step as Dask work, linked variables, the export;
- `release`: the release check of a Dask state;
- `views`: risk and utility of a Dask session, with the names of the in-memory views.

The names of `steps` are also attributes of this package (its old module path).
"""

import importlib

__all__ = []


def __getattr__(name: str) -> object:
    """Names of `steps`, which this package replaces (its old module path)."""
    if not name.startswith("__"):
        steps = importlib.import_module(f"{__name__}.steps")
        if hasattr(steps, name):
            return getattr(steps, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
