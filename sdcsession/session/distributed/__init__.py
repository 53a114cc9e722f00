"""Sessions over Dask frames.

- `steps`: validating roles, running a step as Dask work, linked variables;
- `views`: risk and utility of a Dask session, with the names of the in-memory views.
"""


__all__ = []
