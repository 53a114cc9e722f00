"""Sessions over Dask frames.

- `steps`: validating roles, running a step as Dask work, linked variables;
- `views`: risk and utility of a Dask session, with the names of the in-memory views.

The old module ``sdcsession.session.distributed`` is this package: its names (``run_step``,
``release_check``, ``export``, ...) are those of `steps`, loaded on first use (the package path
itself cannot be mapped to one of its own modules).
"""

__all__ = ["validate_roles", "run_step", "release_check", "export", "n_records"]


def __getattr__(name: str) -> object:
    """Names of `steps` (this package replaces the old module of that content; imported on
    first use, since it works with Dask)."""
    if not name.startswith("__"):
        from . import steps

        if hasattr(steps, name):
            return getattr(steps, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
