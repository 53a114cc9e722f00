"""Sessions over Dask frames.

- `steps`: validating roles, running a step as Dask work, linked variables;
- `views`: risk and utility of a Dask session, with the names of the in-memory views.
"""


__all__: list[str] = []


def __getattr__(name: str) -> object:
    """Names of the old module ``sdcsession.session.distributed`` (now `steps`)."""
    from . import steps

    try:
        return getattr(steps, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
