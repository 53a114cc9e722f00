"""State: one frozen snapshot of the data in a session, with its per-state measure cache.

A State holds the current (treated) data, the roles, a reference to the session's private copy of
the original data (shared by every state of the tree, never copied again), and a cache of the
measures computed on it. States are never modified after creation, except that measures are added
to their cache on first access.

Example
-------
>>> import pandas as pd
>>> from sdcsession.roles import Roles
>>> from sdcsession.session.state import State
>>> df = pd.DataFrame({"sex": ["m", "f", "m"]})
>>> st = State(df, Roles(keys=("sex",)), original=df, original_roles=Roles(keys=("sex",)))
>>> st.n
3
"""

from __future__ import annotations

from typing import Any

import attrs
import pandas as pd

from ..roles import Roles

__all__ = ["State"]


@attrs.frozen(eq=False)
class State:
    """A frozen snapshot: ``data`` (current), ``roles``, ``original`` (shared), measure cache."""

    data: pd.DataFrame  # or a Dask DataFrame (a Dask session)
    roles: Roles
    original: pd.DataFrame = attrs.field(repr=False)
    original_roles: Roles = attrs.field(repr=False)
    cache: dict[tuple, Any] = attrs.field(factory=dict, repr=False)
    #: sdcMicro's alpha: weight of a record with a missing key in frequency counts (session option)
    alpha: float = attrs.field(default=1.0, repr=False)

    @property
    def distributed(self) -> bool:
        """Whether the data are a Dask frame (steps and measures run as Dask work)."""
        from ..scale._base import is_dask_frame

        return is_dask_frame(self.data)

    @property
    def n(self) -> int:
        """Number of records (for a Dask frame: counted once, then cached)."""
        if self.distributed:
            from .distributed.steps import n_records

            return n_records(self)
        return len(self.data)

    def measure(self, name: str, /, **params: Any) -> Any:
        """Value of the registered measure ``name`` on this state (computed once, then cached).

        See `sdcsession.session.measures.available` for the names.
        """
        from .measures import compute

        return compute(self, name, **params)

    def is_cached(self, name: str, /, **params: Any) -> bool:
        """Whether ``measure(name, **params)`` is already in the cache."""
        from .measures import cache_key

        return cache_key(name, params) in self.cache
